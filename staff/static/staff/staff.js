/* Staff pages: move the keyboard and screen reader to the error summary when a form came back with errors; and
   say when a download is done. A link or form marked data-download-done="what to say" sends a token (the
   `download` field); the file's answer sets the cookie staff_download to it (staff/views/downloads.py), and the
   page then says so in the nearest [data-download-status]. Without JavaScript the file downloads and the page
   stays as it was. */
(function () {
  "use strict";
  var summary = document.getElementById("error-summary");
  if (summary) { summary.focus(); }

  var COOKIE = "staff_download";

  function newToken() {
    var bytes = new Uint8Array(12), token = "";
    window.crypto.getRandomValues(bytes);
    for (var i = 0; i < bytes.length; i++) { token += ("0" + bytes[i].toString(16)).slice(-2); }
    return token;
  }

  function statusNear(element) {
    for (var node = element.parentElement; node; node = node.parentElement) {
      var found = node.querySelector("[data-download-status]");
      if (found) { return found; }
    }
    return null;
  }

  function cookieIs(token) {
    return document.cookie.split(";").some(function (part) { return part.trim() === COOKIE + "=" + token; });
  }

  function waitFor(token, element) {
    var status = statusNear(element), started = Date.now();
    if (status) { status.hidden = false; status.textContent = "Preparing the PDF…"; }
    (function poll() {
      if (cookieIs(token)) {
        document.cookie = COOKIE + "=; Max-Age=0; path=/staff/; SameSite=Strict";
        if (status) { status.textContent = element.getAttribute("data-download-done"); }
        return;
      }
      if (Date.now() - started > 300000) {
        if (status) { status.textContent = "No PDF came back yet: if none arrives, try again."; }
        return;
      }
      window.setTimeout(poll, 250);
    }());
  }

  document.addEventListener("click", function (event) {
    var link = event.target.closest && event.target.closest("a[data-download-done]");
    if (!link) { return; }
    var token = newToken(), url = new URL(link.href, window.location.href);
    url.searchParams.set("download", token);
    link.href = url.toString();
    waitFor(token, link);
  });

  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (!form.hasAttribute || !form.hasAttribute("data-download-done")) { return; }
    var token = newToken(), field = form.querySelector("input[name=download]");
    if (!field) {
      field = document.createElement("input");
      field.type = "hidden";
      field.name = "download";
      form.appendChild(field);
    }
    field.value = token;
    waitFor(token, form);
  });
}());
