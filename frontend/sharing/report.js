/*
 * Shared report: draws its charts from the data embedded in the page (no API calls).
 * Capacity: bars with their values and interval whiskers (hollow when not reached, one colour
 * per value of the frozen colour dimension, else one per scenario), and the counter against users
 * with the threshold line, coloured alike. Compare: the factors of the comparisons shown.
 * Copies: the mean time to complete per configuration.
 */
(function () {
  "use strict";
  var H = window.Headroom;
  if (!H) { return; }

  function read(id) {
    var node = document.getElementById(id);
    return node ? JSON.parse(node.textContent) : null;
  }

  function fmt(value) {
    return value === null || value === undefined ? "" : Math.round(value).toLocaleString("en-US");
  }

  var capacity = read("capacity-data");
  if (capacity && document.getElementById("saturation-chart")) {
    var bars = capacity.bars;
    // One colour per scenario (or per value of the frozen colour dimension) on both charts.
    var keys = [];
    bars.forEach(function (b) {
      var key = capacity.colour ? b.colour_value : b.label;
      if (keys.indexOf(key) < 0) { keys.push(key); }
    });
    var colourOf = function (b) {
      return H.PALETTE[keys.indexOf(capacity.colour ? b.colour_value : b.label) % H.PALETTE.length];
    };
    var title = "Users before " + (capacity.counter.indexOf("% Processor Time") >= 0 ? "CPU" : capacity.counter) +
      " (" + capacity.stat + ") reaches " + capacity.threshold_text + " or a resource limit";
    // A bar decided by a resource limit says so under its name: "disk queue first".
    var firstOf = function (b) { return b.decided_by.replace(/^the /, "").replace(/ (reaches|falls to|reports) .*$/, "") + " first"; };
    var saturation = H.barChart("saturation-chart", {
      // One line per dimension: readable beside the bars on a phone.
      labels: bars.map(function (b) {
        return b.label.split(" · ").concat(b.limit ? [firstOf(b)] : []);
      }),
      datasets: [{
        label: "users before saturation",
        data: bars.map(function (b) { return b.shown; }),
        barText: bars.map(function (b) { return b.text; }),
        errorBars: bars.map(function (b) { return b.interval; }),
        dashed: bars.map(function (b) { return b.bound === "extrapolated"; }),
        backgroundColor: bars.map(function (b) { return b.bound === "interpolated" ? colourOf(b) : "rgba(255,255,255,0)"; }),
        borderColor: bars.map(colourOf), borderWidth: 2, maxBarThickness: 48
      }],
      xLabel: "users", horizontal: true,
      // The axis reaches the top of every whisker.
      options: { layout: { padding: { right: 56 } }, scales: { x: { suggestedMax: Math.max.apply(null,
        bars.map(function (b) { return b.interval ? b.interval[1] : 0; }).concat([0])) } },
        plugins: { tooltip: { callbacks: { afterLabel: function (context) {
          // What decides the bar, then every other figure: CPU at the threshold and each limit.
          var b = bars[context.dataIndex];
          return ["before " + b.decided_by].concat(b.others.length ? ["other figures:"].concat(b.others) : []);
        } } } } }
    });
    var lines = H.lineChart("steps-chart", {
      datasets: capacity.lines.map(function (line, i) {
        var colour = colourOf(bars[i]);
        return { label: line.label, borderColor: colour, backgroundColor: colour,
          data: line.points.map(function (p) { return { x: p[0], y: p[1] }; }) };
      }),
      xLabel: "users", yLabel: capacity.stat + " of " + capacity.counter.split("\\").pop(),
      threshold: { value: capacity.threshold, label: "threshold " + capacity.threshold_text, position: "start" },
      zoom: false
    });
    var caption = [title, "Counter " + capacity.counter + " · " + capacity.stat + " · threshold " + capacity.threshold_text];
    document.getElementById("saturation-png").addEventListener("click", function () {
      H.downloadPng(saturation, "users-before-saturation.png", caption);
    });
    document.getElementById("steps-png").addEventListener("click", function () {
      H.downloadPng(lines, "counter-against-users.png", caption);
    });
    document.getElementById("steps-csv").addEventListener("click", function () {
      var rows = [];
      capacity.lines.forEach(function (line) {
        line.points.forEach(function (p) { rows.push([line.label, p[0], p[1]]); });
      });
      H.downloadCsv("counter-against-users.csv", ["scenario", "users", capacity.stat + " " + capacity.counter], rows);
    });
    document.getElementById("saturation-csv").addEventListener("click", function () {
      H.downloadCsv("users-before-saturation.csv", ["scenario", "users_before_saturation", "bound", "interval_low",
        "interval_high", "decided_by", "counter_users"], bars.map(function (b) {
        return [b.label, b.users, b.bound, b.interval ? b.interval[0] : null, b.interval ? b.interval[1] : null,
          b.decided_by, b.counter_users];
      }));
    });
    document.body.setAttribute("data-users", bars.map(function (b) { return fmt(b.users); }).join(","));
  }

  var compare = read("compare-data");
  if (compare && compare.length && document.getElementById("factor-chart")) {
    var metrics = [];
    var scenarios = [];
    compare.forEach(function (r) {
      if (metrics.indexOf(r.metric) < 0) { metrics.push(r.metric); }
      if (scenarios.indexOf(r.scenario) < 0) { scenarios.push(r.scenario); }
    });
    var box = document.getElementById("factor-chart").parentElement;
    box.style.height = Math.max(280, 80 + metrics.length * (scenarios.length * 14 + 12)) + "px";
    var factors = H.barChart("factor-chart", {
      labels: metrics,
      datasets: scenarios.map(function (name) {
        var picked = metrics.map(function (m) {
          return compare.filter(function (r) { return r.metric === m && r.scenario === name; })[0] || null;
        });
        return { label: name, skipNull: true,
          data: picked.map(function (r) { return r ? r.factor : null; }),
          barText: picked.map(function (r) { return r && r.factor !== null ? r.factor.toFixed(2) + "×" + (r.significant ? " *" : "") : ""; }) };
      }),
      horizontal: true, xLabel: "factor vs baseline (1 = baseline, dashed)",
      threshold: { value: 1, color: "#57606a" },
      options: { layout: { padding: { right: 56 } }, plugins: { legend: { display: true } } }
    });
    document.getElementById("factor-png").addEventListener("click", function () {
      H.downloadPng(factors, "factors.png", [document.querySelector("h2").textContent]);
    });
    document.getElementById("factor-csv").addEventListener("click", function () {
      H.downloadCsv("factors.csv", ["metric", "scenario", "mean", "n", "factor", "significant"], compare);
    });
  }
  var copies = read("copies-data");
  if (copies && copies.length && document.getElementById("copies-chart")) {
    var hours = Math.max.apply(null, copies.map(function (r) { return r.mean_s; })) > 3 * 3600;
    var unit = hours ? 3600 : 60;
    var copiesBox = document.getElementById("copies-chart").parentElement;
    copiesBox.style.height = Math.max(240, 90 + copies.length * 56) + "px";
    // Data set and options on their own lines; a long path keeps its start and end (shorter on a phone).
    var most = copiesBox.clientWidth < 560 ? 22 : 44;
    var times = H.barChart("copies-chart", {
      labels: copies.map(function (r) {
        return [r.technique, r.dataset, r.options].filter(Boolean).map(function (line) {
          return window.HeadroomPages.middleCut(line, most);
        });
      }),
      datasets: [{ label: "mean time to complete", data: copies.map(function (r) { return r.mean_s / unit; }),
        barText: copies.map(function (r) { return r.mean; }), maxBarThickness: 40 }],
      horizontal: true, xLabel: "mean time to complete (" + (hours ? "hours" : "minutes") + ")",
      options: { layout: { padding: { right: 72 } } }
    });
    document.getElementById("copies-png").addEventListener("click", function () {
      H.downloadPng(times, "time-to-complete.png", ["Time to complete", document.querySelector("h1").textContent]);
    });
    document.getElementById("copies-csv").addEventListener("click", function () {
      H.downloadCsv("time-to-complete.csv", ["technique", "dataset", "options", "rounds", "mean_s"],
        copies.map(function (r) { return [r.technique, r.dataset, r.options, r.rounds, r.mean_s]; }));
    });
  }

  H.sortableTables(document);
  document.body.setAttribute("data-state", "ready");
})();
