/**
 * Block-size throughput: MB/s, IOPS and latency against block size per
 * scenario, from the figures the page was rendered with (no API call).
 */
(function () {
  "use strict";

  const H = window.Headroom;
  const P = window.HeadroomPages;
  const points = P.located(P.pageData().points, "/points"); // as GET /api/v1/campaigns/{slug}/block-size lists them
  const directionSelect = document.getElementById("f-direction");
  const latencySelect = document.getElementById("f-latency");
  const perHostBox = document.getElementById("f-per-host");
  const FAMILIES = [
    { key: "mbps", title: "Throughput against block size", axis: "MB/s" },
    { key: "iops", title: "IOPS against block size", axis: "IO/s" },
    { key: "latency", title: "Latency against block size", axis: "ms" },
  ];
  const cards = {};
  FAMILIES.forEach(function (f) {
    cards[f.key] = P.chartCard("slot-" + f.key, { title: f.title, filename: "block-size-" + f.key + ".csv" });
  });
  const COLUMNS = ["scenario", "execution", "block_size", "block_bytes", "direction", "stat", "unit", "value", "runs",
    "hosts", "combined"];

  function sizeLabel(point) {
    const bytes = point.block_bytes;
    if (bytes === null) return point.block_size;
    if (bytes >= 1048576 && bytes % 1048576 === 0) return bytes / 1048576 + " MiB";
    if (bytes >= 1024 && bytes % 1024 === 0) return bytes / 1024 + " KiB";
    return bytes + " B";
  }

  function unique(values) {
    return values.filter(function (v, i) { return values.indexOf(v) === i; });
  }

  const scenarios = unique(points.map(function (p) { return p.scenario; })).map(function (id) {
    const first = points.find(function (p) { return p.scenario === id; });
    const dims = {};
    first.label.split(", ").forEach(function (pair) {
      const at = pair.indexOf("=");
      dims[pair.slice(0, at)] = pair.slice(at + 1);
    });
    return { scenario: id, dims: dims };
  });
  const keys = P.varyingDims(scenarios);
  const names = {};
  scenarios.forEach(function (s) { names[s.scenario] = keys.length ? P.shortLabel(s.dims, keys) : "all"; });

  function fill(select, values, preferred) {
    select.replaceChildren.apply(select, values.map(function (v) {
      return P.el("option", { value: v, text: v === "" ? "(all)" : v.replace(/_/g, "."), selected: v === preferred });
    }));
  }

  const directions = unique(points.map(function (p) { return p.direction; })).sort();
  fill(directionSelect, [""].concat(directions), "");
  const stats = unique(points.filter(function (p) { return p.family === "latency"; }).map(function (p) { return p.stat; }))
    .sort(new Intl.Collator(undefined, { numeric: true }).compare);
  fill(latencySelect, stats, stats.indexOf("mean") >= 0 ? "mean" : stats[0]);
  latencySelect.disabled = !stats.length;

  function draw() {
    const direction = directionSelect.value;
    drawTable(direction);
    FAMILIES.forEach(function (family) {
      const chosen = points.filter(function (p) {
        return p.family === family.key && (!direction || p.direction === direction) &&
          (family.key !== "latency" || p.stat === latencySelect.value);
      });
      const card = cards[family.key];
      if (!chosen.length) {
        card.empty("No " + family.axis + " figures for this selection.");
        return;
      }
      const sizes = chosen.slice().sort(function (a, b) { return (a.block_bytes || 0) - (b.block_bytes || 0); });
      const labels = unique(sizes.map(sizeLabel));
      const lines = {};
      chosen.forEach(function (p) {
        const name = names[p.scenario] + (p.execution ? " · " + p.execution : "") + (direction ? "" : " · " + p.direction);
        lines[name] = lines[name] || labels.map(function () { return null; });
        lines[name][labels.indexOf(sizeLabel(p))] = p.value;
      });
      const unit = family.key === "latency" ? "ms" : unique(chosen.map(function (p) { return p.unit; })).join(" / ");
      card.draw(function (canvas) {
        return H.lineChart(canvas, {
          labels: labels,
          datasets: Object.keys(lines).map(function (name) {
            return { label: name, data: lines[name], spanGaps: true, pointRadius: 3 };
          }),
          xLabel: "block size",
          yLabel: family.key === "latency" ? "latency " + latencySelect.value.replace(/_/g, ".") + " (ms)" : unit,
          zoom: false,
          options: { scales: { x: { offset: true }, y: { beginAtZero: true } } },
        });
      }, COLUMNS, chosen.map(function (p) {
        return Object.assign({}, p, { scenario: p.label });
      }));
    });
  }

  // The table lists the figures the charts show (this direction, this latency statistic), not every percentile.
  function drawTable(direction) {
    const shown = points.filter(function (p) {
      return (!direction || p.direction === direction) && (p.family !== "latency" || p.stat === latencySelect.value);
    });
    document.getElementById("points-table").replaceChildren(P.table([
    { key: "name", label: "Scenario", cellClass: "nowrap" },
    { key: "execution", label: "Execution", cellClass: "nowrap" },
    { key: "size", label: "Block size", sort: function (v, row) { return row.block_bytes; },
      figure: function (v, row) { return row.block_bytes === null ? null : P.field("bytes", "block_bytes")(v, row); } },
    { key: "family", label: "Figure" },
    { key: "direction", label: "Direction" },
    { key: "stat", label: "Statistic", format: function (v) { return v.replace(/_/g, "."); } },
    { key: "value", label: "Value", num: true, format: function (v) { return P.fmt(v, 3); },
      figure: function (v, row) { return row.onHost === undefined ? P.field(row.unit)(v, row, "value") : { at: row._at +
        "/per_host/" + row.onHost + "/1", unit: row.unit }; } },
    { key: "unit", label: "Unit" },
    { key: "runs", label: "Runs", num: true, figure: P.field("") },
    { key: "host", label: "Hosts", figure: function (v, row) { return row.onHost === undefined ? P.field("", "hosts")(v, row)
      : null; } },
    { key: "combined", label: "Hosts combined by" },
  ], rows(shown), "Figures charted above"));
  }

  // One row per point; with "per host", each host's own value follows a point that several hosts made.
  function rows(shown) {
    const out = [];
    shown.forEach(function (p) {
      const row = Object.assign({ name: names[p.scenario], size: sizeLabel(p), host: p.hosts }, p);
      out.push(row);
      if (!perHostBox.checked || p.per_host.length < 2) return;
      p.per_host.forEach(function (pair, index) {
        out.push(Object.assign({}, row, { host: pair[0], value: pair[1], combined: "one host", onHost: index }));
      });
    });
    return out;
  }
  P.perHost(perHostBox, draw);
  perHostBox.disabled = !points.some(function (p) { return p.hosts > 1; });
  directionSelect.addEventListener("change", draw);
  latencySelect.addEventListener("change", draw);
  draw();
  document.body.setAttribute("data-state", "ready");
})();
