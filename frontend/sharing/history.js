/* Shared series history: the chart (headroom/history_chart.js) from the campaigns embedded in the page, with its
   PNG and CSV. No API calls: a shared page reads only what it was given. */
(function () {
  "use strict";
  var H = window.Headroom;
  var node = document.getElementById("history-data");
  if (!H || !H.history || !node || !document.getElementById("history-chart")) { return; }
  var campaigns = JSON.parse(node.textContent);
  var chart = H.history.chart("history-chart", campaigns);
  var title = document.querySelector("[data-api] h2");
  document.getElementById("history-png").addEventListener("click", function () {
    H.downloadPng(chart, "series-history.png", [title ? title.textContent : "Series history"]);
  });
  document.getElementById("history-csv").addEventListener("click", function () {
    var drawn = H.history.csv(campaigns);
    H.downloadCsv("series-history.csv", drawn.columns, drawn.rows);
  });
})();
