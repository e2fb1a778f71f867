/*
 * Shared report, FSCT section: the curves drawn from the answer embedded in the page (no API calls) by
 * headroom/fsct_chart.js, with its PNG and CSV buttons.
 */
(function () {
  "use strict";
  var H = window.Headroom;
  var node = document.getElementById("fsct-data");
  if (!H || !node || !document.getElementById("fsct-chart")) { return; }
  var fsct = JSON.parse(node.textContent);
  var chart = H.fsctChart("fsct-chart", fsct.body, fsct.names);
  var title = document.querySelector("h1").textContent + " — FSCT: throughput and response time against users";
  document.getElementById("fsct-png").addEventListener("click", function () {
    H.downloadPng(chart, "fsct-curves.png", [title, "Throughput in scenarios/s (left), mean response time per FSCT " +
      "operation in ms (right); red triangles: overloaded steps"]);
  });
  document.getElementById("fsct-csv").addEventListener("click", function () {
    var csv = H.fsctCsv(fsct.body, fsct.names);
    H.downloadCsv("fsct-curves.csv", csv.columns, csv.rows);
  });
})();
