/* Results charts, drawn from the JSON the page carries (#results-charts): each <figure data-question> gets a
   Chart.js bar chart of people per answer, and each grid (<figure data-grid>) one stacked 100% bar chart, a bar a
   row, a colour a choice, on one axis of percentages. A suppressed count is null there: its bar (or its part of a
   row's bar) is never drawn, and its label says so. The tables keep the figures; without JavaScript, or without
   Chart.js, they are what the page shows. */
(function () {
  "use strict";
  var source = document.getElementById("results-charts");
  if (!source || typeof window.Chart === "undefined") { return; }
  // Colours told apart by people with the common colour blindnesses (Okabe and Ito), darkest first.
  var COLOURS = ["#0072b2", "#e69f00", "#009e73", "#cc79a7", "#56b4e9", "#d55e00", "#f0e442", "#000000"];
  var charts = {};
  JSON.parse(source.textContent).forEach(function (chart) { charts[chart.code] = chart; });

  function bars(chart) {
    return {
      type: "bar",
      data: { labels: chart.labels, datasets: [{ label: "People", data: chart.values, backgroundColor: "#1d4f91" }] },
      options: { indexAxis: "y", animation: false, maintainAspectRatio: false,
                 plugins: { legend: { display: false } },
                 scales: { x: { beginAtZero: true, ticks: { precision: 0 } } } }
    };
  }

  // A label's lines (a row's prompt, then what is not drawn), each broken at spaces into lines of about ``width``
  // characters: Chart.js never wraps an axis label, and a phone's is cut off.
  function wrapped(label, width) {
    var lines = [];
    [].concat(label).forEach(function (text) {
      var line = "";
      String(text).split(" ").forEach(function (word) {
        if (line && (line + " " + word).length > width) { lines.push(line); line = word; } else {
          line = line ? line + " " + word : word; }
      });
      lines.push(line);
    });
    return lines;
  }

  function stacked(chart, labels) {
    return {
      type: "bar",
      data: { labels: labels, datasets: chart.series.map(function (series, index) {
        return { label: series.label, data: series.values, backgroundColor: COLOURS[index % COLOURS.length] };
      }) },
      options: { indexAxis: "y", animation: false, maintainAspectRatio: false,
                 plugins: { legend: { position: "bottom" }, tooltip: { callbacks: { label: function (item) {
                   return item.dataset.label + ": " + item.formattedValue + "%"; } } } },
                 scales: { x: { stacked: true, min: 0, max: 100, ticks: { callback: function (value) {
                             return value + "%"; } } },
                           y: { stacked: true, ticks: { autoSkip: false } } } }
    };
  }

  Array.prototype.forEach.call(document.querySelectorAll("figure[data-question], figure[data-grid]"), function (figure) {
    var code = figure.getAttribute("data-question") || figure.getAttribute("data-grid");
    var chart = charts[code], area = figure.querySelector(".chart-area");
    if (!chart || !area) { return; }
    var labels = null;
    if (chart.kind === "stacked") {
      if (!chart.series.length) { return; }
      // The labels take about a third of the width; each row as high as its label's lines, the legend below.
      labels = chart.labels.map(function (label) {
        return wrapped(label, Math.max(14, Math.round(figure.clientWidth / 24)));
      });
      area.style.height = (4 + labels.reduce(function (rem, lines) {
        return rem + Math.max(2.5, lines.length * 1.1 + 0.8); }, 0)) + "rem";
    } else if (!chart.values.length) {
      return;
    }
    area.hidden = false;
    new window.Chart(area.querySelector("canvas"), chart.kind === "stacked" ? stacked(chart, labels) : bars(chart));
    figure.classList.add("drawn");
  });
}());
