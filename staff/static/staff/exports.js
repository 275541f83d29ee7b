/* The exports form: a count said for one filter is marked out of date as soon as the filter changes. */
(function () {
  "use strict";
  var said = document.getElementById("export-count");
  var form = said && said.closest("form");
  if (!said || !form || !said.querySelector("strong")) { return; }
  var fields = (said.getAttribute("data-fields") || "").split(" ");
  function changed(event) {
    if (fields.indexOf(event.target.name) < 0) { return; }
    said.textContent = "The filter has changed since the count: count the people again to see how many the " +
      "export will hold.";
    form.removeEventListener("input", changed);
    form.removeEventListener("change", changed);
  }
  form.addEventListener("input", changed);
  form.addEventListener("change", changed);
}());
