/*
 * The idle timeout (WCAG 2.2.1: warn, and let the person stay with one press). School computers are shared: a
 * warning with a "Keep me logged in" button comes before the session ends, and the page logs out when nobody
 * answers it. Survey.idle.heard starts the count again whenever the server has seen the person.
 */
(function (Survey) {
  "use strict";
  var page = Survey.page;
  var network = Survey.network;
  var container = page.container;
  var data = container ? container.dataset : {};
  var idleSeconds = parseInt(data.idleSeconds || "0", 10);
  var warningSeconds = Math.min(parseInt(data.idleWarningSeconds || "0", 10), idleSeconds);
  var timers = [];
  var warning = null;

  function csrfToken() {
    var input = container.querySelector('[name="csrfmiddlewaretoken"]');
    return input ? input.value : "";
  }

  function hideWarning() {
    if (warning) {
      warning.remove();
      warning = null;
    }
  }

  function warningText(deadline) {
    var seconds = Math.max(0, Math.round((deadline - Date.now()) / 1000));
    return seconds >= 90 ? page.t("idle_minutes", { minutes: Math.round(seconds / 60) }) :
      page.t("idle_seconds", { seconds: seconds });
  }

  function showWarning(deadline) {
    hideWarning();
    warning = document.createElement("div");
    warning.className = "idle-warning";
    warning.setAttribute("role", "alertdialog");
    warning.setAttribute("aria-labelledby", "idle-warning-title");
    warning.setAttribute("aria-describedby", "idle-warning-text");
    var heading = document.createElement("h2");
    heading.id = "idle-warning-title";
    heading.textContent = page.t("still_there");
    var text = document.createElement("p");
    text.id = "idle-warning-text";
    text.textContent = warningText(deadline);
    var button = document.createElement("button");
    button.type = "button";
    button.className = "button primary";
    button.textContent = page.t("keep_logged_in");
    button.addEventListener("click", keepAlive);
    warning.appendChild(heading);
    warning.appendChild(text);
    warning.appendChild(button);
    document.body.appendChild(warning);
    warning.returnFocus = document.activeElement;
    button.focus();
    timers.push(setInterval(function () { text.textContent = warningText(deadline); }, 15000));
  }

  function logOut() {
    var form = document.createElement("form");
    form.method = "post";
    form.action = data.logoutUrl;
    [["csrfmiddlewaretoken", csrfToken()], ["reason", "idle"]].forEach(function (pair) {
      var input = document.createElement("input");
      input.type = "hidden";
      input.name = pair[0];
      input.value = pair[1];
      form.appendChild(input);
    });
    document.body.appendChild(form);
    form.submit();
  }

  // The server has just seen this person: count the idle time again from now.
  function heard() {
    if (!idleSeconds) { return; }
    timers.forEach(function (timer) { clearTimeout(timer); clearInterval(timer); });
    var focusBack = warning && warning.returnFocus;
    hideWarning();
    if (focusBack && document.body.contains(focusBack)) { focusBack.focus(); }
    var deadline = Date.now() + idleSeconds * 1000;
    timers = [
      setTimeout(function () { showWarning(deadline); }, (idleSeconds - warningSeconds) * 1000),
      setTimeout(logOut, idleSeconds * 1000)
    ];
  }

  function keepAlive() {
    var headers = Object.assign({ "X-CSRFToken": csrfToken() }, network.AJAX);
    network.send(data.keepAliveUrl, { method: "POST", headers: headers, credentials: "same-origin" })
      .then(function (response) {
        if (response.ok) {
          heard();
        } else if (response.status === 401) {
          response.json().then(function (body) { window.location.assign(body.login_url); });
        }
      }, function () {
        if (warning) { warning.querySelector("p").textContent = page.t("no_server"); }
      });
  }

  Survey.idle = { heard: heard };
}(window.Survey = window.Survey || {}));
