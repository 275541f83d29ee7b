/* Results charts: each <figure data-question> gets a Chart.js bar chart of people per answer, drawn from the JSON
   the page carries (#results-charts). A suppressed count is null there: its bar is never drawn, and its label says
   so. The table beside each chart keeps the figures; without JavaScript, or without Chart.js, it is what the page
   shows. */
(function () {
  "use strict";
  var source = document.getElementById("results-charts");
  if (!source || typeof window.Chart === "undefined") { return; }
  var charts = {};
  JSON.parse(source.textContent).forEach(function (chart) { charts[chart.code] = chart; });
  Array.prototype.forEach.call(document.querySelectorAll("figure[data-question]"), function (figure) {
    var chart = charts[figure.getAttribute("data-question")], area = figure.querySelector(".chart-area");
    if (!chart || !area || !chart.values.length) { return; }
    area.hidden = false;
    new window.Chart(area.querySelector("canvas"), {
      type: "bar",
      data: { labels: chart.labels, datasets: [{ label: "People", data: chart.values, backgroundColor: "#1d4f91" }] },
      options: { indexAxis: "y", animation: false, maintainAspectRatio: false,
                 plugins: { legend: { display: false } },
                 scales: { x: { beginAtZero: true, ticks: { precision: 0 } } } }
    });
    figure.classList.add("drawn");
  });
}());
