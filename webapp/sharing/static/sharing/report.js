/* Shared report: draws the saturation chart from the data embedded in the page (no API calls). */
(function () {
  "use strict";
  var node = document.getElementById("saturation-data");
  var canvas = document.getElementById("saturation-chart");
  if (!node || !canvas || !window.Headroom) { return; }
  var rows = JSON.parse(node.textContent);
  var chart = Headroom.barChart(canvas, {
    labels: rows.map(function (r) { return r.label; }),
    datasets: [{
      label: "users before saturation (hollow bar: not reached within the tested range)",
      data: rows.map(function (r) { return r.shown; }),
      backgroundColor: rows.map(function (r) { return r.bound === "not_reached" ? "rgba(0,0,0,0)" : "#0072b2"; }),
      borderColor: "#0072b2", borderWidth: 1.5
    }],
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
