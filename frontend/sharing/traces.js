/*
 * Shared trace view: one read-only chart per frozen counter series, from the buckets embedded in the
 * page (no API call), each with CSV and PNG buttons. Times on a linear axis of milliseconds, labelled in UTC; bytes per second as MB/s.
 */
(function () {
  "use strict";
  var H = window.Headroom;
  var node = document.getElementById("traces-data");
  var slot = document.getElementById("shared-traces");
  if (!H || !node || !slot) { return; }
  var data = JSON.parse(node.textContent);

  function unitOf(counter) {
    if (/bytes.*\/sec/i.test(counter)) return { scale: 1e-6, unit: "MB/s" };
    if (/mbytes/i.test(counter)) return { scale: 1, unit: "MB" };
    if (/^%/.test(counter)) return { scale: 1, unit: "%" };
    return { scale: 1, unit: "" };
  }

  function when(ms) {
    return new Date(ms).toISOString().slice(0, 16).replace("T", " ");
  }

  data.series.forEach(function (s, index) {
    var unit = unitOf(s.counter);
    var at = function (i) {
      return s.points.map(function (p) { return { x: Date.parse(p[0]), y: p[i] === null ? null : p[i] * unit.scale }; });
    };
    var title = s.path;
    // The same card as the dashboard's traces: CSV (the counter's own unit) and PNG buttons.
    var card = window.HeadroomPages.chartCard(slot, {
      title: title, heading: "h3", size: "short",
      filename: "trace-" + s.counter.replace(/[^A-Za-z0-9]+/g, "-") + "-" + s.id + ".csv",
      caption: function () { return [title, document.getElementById("trace-range").textContent.trim().replace(/\s+/g, " ")]; }
    });
    var canvas = card.canvas;
    canvas.setAttribute("aria-label", "Trace of " + title);
    canvas.setAttribute("data-series", String(s.id));
    if (unit.scale !== 1) { card.note.textContent = "CSV in the counter's own unit"; }
    var colour = H.PALETTE[index % H.PALETTE.length];
    card.draw(function () { return H.lineChart(canvas, {
      datasets: [
        { label: "average", data: at(1), borderColor: colour, backgroundColor: colour, pointRadius: 0 },
        { label: "minimum", data: at(2), pointRadius: 0, borderWidth: 0, borderColor: "rgba(0,0,0,0)",
          backgroundColor: "rgba(0,0,0,0)" },
        { label: "maximum", data: at(3), pointRadius: 0, borderWidth: 0, fill: "-1", borderColor: "rgba(0,0,0,0)",
          backgroundColor: "rgba(86,180,233,0.25)" }
      ],
      xLabel: "time (UTC)", yLabel: s.counter + (unit.unit ? " (" + unit.unit + ")" : ""), zoom: false,
      options: { scales: { x: { ticks: { maxTicksLimit: 6, callback: function (v) { return when(v); } } } } }
    }); }, ["time", "avg", "min", "max"], s.points);
  });
  document.body.setAttribute("data-traces", String(data.series.length));
})();
