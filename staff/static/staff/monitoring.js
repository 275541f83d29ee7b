/* Monitoring charts: each <figure data-chart> gets a Chart.js bar chart drawn from the JSON the page carries
   (#monitoring-charts); its figures stay in the table beside it, folded once the chart is drawn. Without
   JavaScript, or without Chart.js, the tables are what the page shows. */
(function () {
  "use strict";
  var source = document.getElementById("monitoring-charts");
  if (!source || typeof window.Chart === "undefined") { return; }
  var data = JSON.parse(source.textContent);
  var ink = "#1d4f91", light = "#7fa3d1", mark = "#b3261e";

  function options(max, suffix) {
    return {
      animation: false,
      maintainAspectRatio: false,
      plugins: { legend: { display: false }, tooltip: { callbacks: { label: function (item) {
        return item.dataset.label + ": " + item.formattedValue + suffix; } } } },
      scales: { y: { beginAtZero: true, max: max, ticks: { precision: 0 } },
                x: { ticks: { autoSkip: true, maxRotation: 60 } } }
    };
  }

  var draw = {
    rates: function (chart) {
      var config = { type: "bar", data: { labels: chart.labels, datasets: [
        { label: "Completion rate", data: chart.values, backgroundColor: ink, order: 2 },
        { type: "line", label: chart.reference_label, data: chart.labels.map(function () { return chart.reference; }),
          borderColor: mark, borderDash: [6, 4], pointRadius: 0, borderWidth: 2, order: 1 }
      ] }, options: options(100, "%") };
      config.options.plugins.legend = { display: true, labels: { filter: function (item) { return item.datasetIndex === 1; } } };
      return config;
    },
    hours: function (chart) {
      return { type: "bar", data: { labels: chart.labels, datasets: [
        { label: "Completions", data: chart.values, backgroundColor: ink, barPercentage: 1, categoryPercentage: 1 }
      ] }, options: options(undefined, "") };
    },
    stops: function (chart) {
      // A conditional page's bar is lighter, and its tooltip gives the condition (chart.notes).
      var config = { type: "bar", data: { labels: chart.labels, datasets: [
        { label: "In progress there", data: chart.values,
          backgroundColor: chart.notes ? chart.notes.map(function (note) { return note ? light : ink; }) : ink }
      ] }, options: options(undefined, "") };
      config.options.plugins.tooltip.callbacks.footer = function (items) {
        return items.length && chart.notes ? chart.notes[items[0].dataIndex] : "";
      };
      return config;
    }
  };

  Array.prototype.forEach.call(document.querySelectorAll("figure[data-chart]"), function (figure) {
    var name = figure.getAttribute("data-chart"), chart = data[name];
    if (!chart || !chart.values.length || !draw[name]) { return; }
    var area = figure.querySelector(".chart-area"), details = figure.querySelector("details");
    area.hidden = false;
    new window.Chart(area.querySelector("canvas"), draw[name](chart));
    figure.classList.add("drawn");
    if (details) { details.open = false; }
  });
}());
