/* Staff pages: move the keyboard and screen reader to the error summary when a form came back with errors. */
(function () {
  "use strict";
  var summary = document.getElementById("error-summary");
  if (summary) { summary.focus(); }
}());
