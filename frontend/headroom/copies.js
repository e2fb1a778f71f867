/**
 * Copy/migration comparison: time to complete per technique and data set, and
 * resource use during the copies, from the figures the page was rendered with.
 */
(function () {
  "use strict";

  const H = window.Headroom;
  const P = window.HeadroomPages;
  const data = P.pageData();
  // As GET /api/v1/campaigns/{slug}/copies lists them (the printed figures' data-key).
  const configs = P.located(data.configurations, "/configurations");
  P.located(data.resources, "/resources");
  P.located(data.figures, "/figures");

  function duration(seconds) {
    if (seconds === null || seconds === undefined) return "—";
    const whole = Math.round(seconds);
    const h = Math.floor(whole / 3600);
    const m = Math.floor((whole % 3600) / 60);
    const s = whole % 60;
    return (h ? h + " h " : "") + (h || m ? m + " min " : "") + s + " s";
  }

  function label(c) {
    return [c.dataset || "(data set not given)", c.options].filter(Boolean);
  }

  // Axis labels keep a long path's start and its end (the folder that tells copies apart);
  // tooltips and the CSV keep it whole.
  function shortTicks(value) {
    const full = this.getLabelForValue(value);
    const most = this.chart.width < 560 ? 22 : 44; // a phone leaves the axis a quarter of 390 px
    return Array.isArray(full) ? full.map(function (line) { return P.middleCut(line, most); }) : P.middleCut(full, most);
  }

  const techniques = configs.map(function (c) { return c.technique; })
    .filter(function (t, i, all) { return all.indexOf(t) === i; });
  const timed = configs.filter(function (c) { return c.mean_s !== null; });
  const timesCard = P.chartCard("slot-times", { title: "Time to complete", filename: "time-to-complete.csv", size: "tall" });
  if (!timed.length) {
    timesCard.empty("No durations (time to complete, elapsed) among these results.");
  } else {
    const hours = Math.max.apply(null, timed.map(function (c) { return c.mean_s; })) > 3 * 3600;
    const scale = hours ? 3600 : 60;
    timesCard.canvas.parentElement.style.height = Math.max(320, 110 + timed.length * 46) + "px";
    timesCard.draw(function (canvas) {
      return H.barChart(canvas, {
        labels: timed.map(label),
        horizontal: true,
        xLabel: "mean time to complete (" + (hours ? "hours" : "minutes") + ")",
        datasets: techniques.map(function (t) {
          return {
            label: t,
            data: timed.map(function (c) { return c.technique === t ? c.mean_s / scale : null; }),
            barText: timed.map(function (c) {
              return c.technique === t ? duration(c.mean_s) + (c.n > 1 ? " (mean of " + c.n + ")" : "") : "";
            }),
            skipNull: true,
          };
        }),
        options: { layout: { padding: { right: 140 } }, plugins: { legend: { display: true } },
          scales: { y: { ticks: { callback: shortTicks } } } },
      });
    }, ["technique", "dataset", "options", "rounds", "mean_s", "stdev_s", "min_s", "max_s", "hosts", "combined"],
    timed.map(function (c) {
      return { technique: c.technique, dataset: c.dataset, options: c.options, rounds: c.n, mean_s: c.mean_s,
        stdev_s: c.stdev_s, min_s: c.min_s, max_s: c.max_s, hosts: c.hosts, combined: c.combined };
    }));
  }

  const time = function (v) { return duration(v); };
  const perHostBox = document.getElementById("f-per-host");
  // A printed figure of the row, or, on a host's own row, that host's entry in per_host.
  function own(unit) {
    return function (v, row, key) {
      return row.onHost === undefined ? P.field(unit)(v, row, key) : null;
    };
  }
  function hostFigure(unit) {
    return function (v, row, key) {
      return row.onHost === undefined ? P.field(unit)(v, row, key) :
        { at: row._at + "/per_host/" + row.onHost + "/1", unit: typeof unit === "function" ? unit(row) : unit, value: v };
    };
  }
  // With "Per host", each host's own figure follows a row that several hosts made.
  function withHosts(list, field) {
    const out = [];
    list.forEach(function (row) {
      out.push(Object.assign({ host: row.hosts }, row));
      if (!perHostBox.checked || row.per_host.length < 2) return;
      row.per_host.forEach(function (pair, index) {
        const mine = { host: pair[0], n: null, combined: "one host", onHost: index };
        mine[field] = pair[1];
        out.push(Object.assign({}, row, mine, field === "mean_s" ?
          { stdev_s: null, min_s: null, max_s: null, seconds: [] } : {}));
      });
    });
    return out;
  }
  const several = configs.some(function (c) { return c.hosts > 1; }) || data.figures.some(function (f) { return f.hosts > 1; });
  perHostBox.disabled = !several;
  const hostColumns = several ? [
    { key: "host", label: "Hosts",
      figure: function (v, row) { return row.onHost === undefined ? P.field("", "hosts")(v, row) : null; } },
    { key: "combined", label: "Hosts combined by" },
  ] : [];

  function drawTimes() {
    document.getElementById("times-table").replaceChildren(P.table([
      { key: "technique", label: "Technique" },
      { key: "dataset", label: "Data set", cellClass: "path" },
      { key: "options", label: "Options", cellClass: "mono path" },
      { key: "n", label: "Rounds", num: true, figure: own("") },
      { key: "mean_s", label: "Mean", num: true, format: time, cellClass: "nowrap", figure: hostFigure("s") },
      { key: "stdev_s", label: "Stdev", num: true, format: time, cellClass: "nowrap", figure: own("s") },
      { key: "min_s", label: "Fastest", num: true, format: time, cellClass: "nowrap", figure: own("s") },
      { key: "max_s", label: "Slowest", num: true, format: time, cellClass: "nowrap", figure: own("s") },
      { key: "seconds", label: "Each round", format: function (v) { return v.map(duration).join(", "); },
        figure: function (v, row) { return v.length ? { at: v.map(function (x, i) { return row._at + "/seconds/" + i; }).join(" "),
          unit: v.map(function () { return "s"; }).join("|"), value: v.length === 1 ? v[0] : null } : null; } },
    ].concat(hostColumns), withHosts(configs, "mean_s")));
  }

  const resources = data.resources;
  const resourceCard = P.chartCard("slot-resources", { title: "Processor time during the copies",
    filename: "copy-resources.csv" });
  const cpu = resources.filter(function (r) { return r.resource === "CPU %"; });
  if (!cpu.length) {
    resourceCard.element.hidden = true;
  } else {
    resourceCard.draw(function (canvas) {
      return H.barChart(canvas, {
        labels: cpu.map(function (r) { return [r.technique + " · " + r.host].concat(label(configs[r.configuration])); }),
        yLabel: "% processor time",
        datasets: [
          { label: "average", data: cpu.map(function (r) { return r.avg; }) },
          { label: "maximum", data: cpu.map(function (r) { return r.max; }) },
        ],
        options: { scales: { y: { max: 100 }, x: { ticks: { callback: shortTicks } } }, plugins: { legend: { display: true } } },
      });
    }, ["technique", "dataset", "options", "host", "role", "resource", "avg", "max", "samples"], cpu);
  }
  if (resources.length) {
    document.getElementById("resources-table").replaceChildren(P.table([
      { key: "technique", label: "Technique" },
      { key: "dataset", label: "Data set", cellClass: "path" },
      { key: "host", label: "Host" },
      { key: "role", label: "Role" },
      { key: "resource", label: "Counter" },
      { key: "avg", label: "Average", num: true, format: function (v) { return P.fmt(v, 1); }, figure: P.field("") },
      { key: "max", label: "Maximum", num: true, format: function (v) { return P.fmt(v, 1); }, figure: P.field("") },
      { key: "samples", label: "Samples", num: true, figure: P.field("") },
    ], resources));
  } else {
    document.getElementById("resources-table").replaceChildren(P.el("p", { className: "empty-state",
      text: "No counter samples on the copy hosts during the copies: upload the hosts' perfmon logs to see CPU and memory here." }));
  }
  function drawFigures() {
    if (!data.figures.length) {
      document.getElementById("figures-card").hidden = true;
      return;
    }
    document.getElementById("figures-table").replaceChildren(P.table([
      { key: "technique", label: "Technique" },
      { key: "dataset", label: "Data set", cellClass: "path" },
      { key: "metric", label: "Figure" },
      { key: "subject", label: "Subject" },
      { key: "mean", label: "Mean", num: true, format: function (v) { return P.fmt(v, 2); },
        figure: hostFigure(function (row) { return row.unit; }) },
      { key: "unit", label: "Unit" },
      { key: "n", label: "n", num: true, figure: own("") },
    ].concat(hostColumns), withHosts(data.figures.map(function (f) {
      return Object.assign({ technique: configs[f.configuration].technique, dataset: configs[f.configuration].dataset }, f);
    }), "mean")));
  }
  function drawTables() {
    drawTimes();
    drawFigures();
  }
  P.perHost(perHostBox, drawTables);
  drawTables();
  document.body.setAttribute("data-state", "ready");
})();
