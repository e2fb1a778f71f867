/*
 * Shared report, user-experience section: each scenario's timing against users drawn from the answer embedded
 * in the page (no API calls) by headroom/ux_chart.js, with its PNG and CSV buttons; #ux gets data-state="ready".
 */
(function () {
  "use strict";
  var H = window.Headroom;
  var node = document.getElementById("ux-data");
  var section = document.getElementById("ux");
  if (!H || !node || !section) { return; }
  var ux = JSON.parse(node.textContent);
  var title = document.querySelector("h1").textContent + " — " + ux.title;
  var shown = H.uxShown(ux.body);
  ux.body.scenarios.forEach(function (s, i) {
    var card = section.querySelector('.ux-card[data-scenario="' + s.scenario + '"]');
    if (!card) { return; }
    var colour = H.PALETTE[i % H.PALETTE.length];
    var chart = H.uxChart(card.querySelector("canvas"), ux.body, s, colour);
    var name = ux.names[String(s.scenario)];
    var file = "ux-" + (ux.body.timing + "-" + name).replace(/[^A-Za-z0-9.]+/g, "-");
    card.querySelector("button[data-action=png]").addEventListener("click", function () {
      H.downloadPng(chart, file + ".png", [title + " — " + name, "Mean per step, shaded to the 95th percentile · " +
        "baseline (" + ux.body.baseline + ") " + H.units.text(s.baseline_ms, "ms", shown) + " · threshold " +
        H.units.text(s.threshold_ms, "ms", shown) + " (" + ux.body.threshold_text + ") · crossing " +
        H.uxCrossingText(s)]);
    });
    card.querySelector("button[data-action=csv]").addEventListener("click", function () {
      var csv = H.uxCsv(ux.body, s);
      H.downloadCsv(file + ".csv", csv.columns, csv.rows);
    });
  });
  section.setAttribute("data-state", "ready");
})();
