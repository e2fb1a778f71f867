/* Shared report: draws the saturation chart from the data embedded in the page (no API calls). */
(function () {
  "use strict";
  var node = document.getElementById("saturation-data");
  var canvas = document.getElementById("saturation-chart");
  if (!node || !canvas || !window.Headroom) { return; }
  var rows = JSON.parse(node.textContent);
  var chart = Headroom.barChart(canvas, {
    labels: rows.map(function (r) { return r.label; }),
    datasets: [{ label: "users before saturation", data: rows.map(function (r) { return r.users; }) }],
    yLabel: "users", horizontal: true
  });
  document.getElementById("saturation-png").addEventListener("click", function () {
    Headroom.downloadPng(chart, "users-before-saturation.png");
  });
  document.getElementById("saturation-csv").addEventListener("click", function () {
    Headroom.downloadCsv("users-before-saturation.csv", ["scenario", "users_before_saturation", "bound"],
      rows.map(function (r) { return [r.label, r.users, r.bound]; }));
  });
  Headroom.sortableTables(document);
})();
