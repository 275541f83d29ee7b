/* A long job's progress bar (a roster's check or apply, a big school's slips): poll the page's small JSON
   endpoint every second and reload the page when the job is done. Without JavaScript the page's Refresh
   link does the same. */
(function () {
  "use strict";
  var box = document.querySelector("[data-progress-url]");
  if (!box) { return; }
  var bar = box.querySelector("progress");
  var text = box.querySelector("[data-progress-text]");
  var status = document.querySelector("[data-progress-status]");

  function poll() {
    fetch(box.getAttribute("data-progress-url"), {headers: {"Accept": "application/json"}, credentials: "same-origin"})
      .then(function (response) { return response.ok ? response.json() : null; })
      .then(function (progress) {
        if (progress === null) { window.setTimeout(poll, 3000); return; }
        if (progress.finished) { window.location.reload(); return; }
        if (status) { status.textContent = progress.status_display; }
        if (progress.text && bar.hasAttribute("value")) {
          bar.value = progress.percent;
          bar.textContent = progress.percent + "%";
          text.textContent = progress.text;
        }
        window.setTimeout(poll, 1000);
      })
      .catch(function () { window.setTimeout(poll, 3000); });
  }
  window.setTimeout(poll, 1000);
}());
