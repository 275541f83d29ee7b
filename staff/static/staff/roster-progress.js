/* The roster's progress bar: poll the small JSON endpoint every second; reload the page when the step is done.
   Without JavaScript the page's Refresh link does the same. */
(function () {
  "use strict";
  var box = document.querySelector("[data-progress-url]");
  if (!box) { return; }
  var bar = document.getElementById("roster-progress-bar");
  var text = document.getElementById("roster-progress-text");
  var status = document.getElementById("roster-status");

  function poll() {
    fetch(box.getAttribute("data-progress-url"), {headers: {"Accept": "application/json"}, credentials: "same-origin"})
      .then(function (response) { return response.ok ? response.json() : null; })
      .then(function (progress) {
        if (progress === null) { window.setTimeout(poll, 3000); return; }
        if (progress.finished) { window.location.reload(); return; }
        status.textContent = progress.status_display;
        if (progress.status === "checking") {
          bar.value = progress.percent;
          bar.textContent = progress.percent + "%";
          text.textContent = progress.rows_read + " of about " + progress.rows_expected + " rows read.";
        }
        window.setTimeout(poll, 1000);
      })
      .catch(function () { window.setTimeout(poll, 3000); });
  }
  window.setTimeout(poll, 1000);
}());
