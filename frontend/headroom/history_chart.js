/**
 * A series' history chart, shared by the dashboard's history page and its share report (load after charts.js
 * and pages.js). From the campaigns of GET /api/v1/series/{slug}/history (or a share report's copy of them):
 *
 *   Headroom.history.label(campaign)             the campaign's place in the series ("2026-11"), else its name
 *   Headroom.history.scenarios(campaigns)        [{key, dims, name}] every scenario seen, named by what differs
 *   Headroom.history.chart(canvas, campaigns)    x = campaigns in series order, one line per scenario of its
 *                                                saturation users, the interval as whiskers; a ✎ above each
 *                                                campaign with notes, its notes in the tooltip
 *   Headroom.history.csv(campaigns)              {columns, rows}: exactly the figures drawn
 *
 * A scenario's own `name` (a share report names them as its tables do) wins over the computed one.
 */
(function (global) {
  "use strict";

  const H = global.Headroom;
  const P = global.HeadroomPages;
  const NOTE_COLOUR = "#8250df";

  // Whiskers (dataset.whiskers[i] = [low, high]) and the notes' markers (options.plugins.historyMarks.notes[i]).
  const marks = {
    id: "historyMarks",
    afterDatasetsDraw: function (chart, args, options) {
      if (!options || !options.notes) {
        return;
      }
      const ctx = chart.ctx;
      const y = chart.scales.y;
      ctx.save();
      chart.data.datasets.forEach(function (dataset, index) {
        const meta = chart.getDatasetMeta(index);
        if (meta.hidden || !dataset.whiskers) {
          return;
        }
        ctx.strokeStyle = dataset.borderColor;
        ctx.lineWidth = 1.5;
        meta.data.forEach(function (point, i) {
          const range = dataset.whiskers[i];
          if (!range || range[0] === null || range[1] === null || dataset.data[i] === null) {
            return;
          }
          const a = y.getPixelForValue(range[0]);
          const b = y.getPixelForValue(range[1]);
          ctx.beginPath();
          ctx.moveTo(point.x, a); ctx.lineTo(point.x, b);
          ctx.moveTo(point.x - 4, a); ctx.lineTo(point.x + 4, a);
          ctx.moveTo(point.x - 4, b); ctx.lineTo(point.x + 4, b);
          ctx.stroke();
        });
      });
      ctx.fillStyle = NOTE_COLOUR;
      ctx.font = "600 12px " + global.Chart.defaults.font.family;
      ctx.textAlign = "center";
      ctx.textBaseline = "bottom";
      options.notes.forEach(function (count, i) {
        if (count) {
          const x = chart.scales.x.getPixelForValue(i);
          ctx.fillText("\u270E" + (count > 1 ? " " + count : ""), x, chart.chartArea.top - 2);
        }
      });
      ctx.restore();
    },
  };
  if (global.Chart) {
    global.Chart.register(marks);
  }

  function label(campaign) {
    return campaign.series_key || campaign.name;
  }

  function keyOf(dims) {
    return JSON.stringify(Object.keys(dims || {}).sort().map(function (k) { return [k, dims[k]]; }));
  }

  function scenarios(campaigns) {
    const found = [];
    const seen = {};
    campaigns.forEach(function (c) {
      c.scenarios.forEach(function (s) {
        const key = keyOf(s.dims);
        if (!(key in seen)) {
          seen[key] = found.length;
          found.push({ key: key, dims: s.dims, name: s.name || "" });
        }
      });
    });
    const varying = P.varyingDims(found);
    found.forEach(function (s) {
      s.name = s.name || P.shortLabel(s.dims, varying.length ? varying : Object.keys(s.dims || {}));
    });
    return found;
  }

  function pick(campaign, key) {
    return campaign.scenarios.filter(function (s) { return keyOf(s.dims) === key; })[0] || null;
  }

  function noteLine(note) {
    const target = note.target === "run" ? "run " + note.run_name : note.target === "scenario" ? note.scenario_label : "";
    return (target ? target + ": " : "") + note.text;
  }

  function chart(canvas, campaigns) {
    const lines = scenarios(campaigns);
    return H.lineChart(canvas, {
      labels: campaigns.map(label),
      datasets: lines.map(function (s) {
        const points = campaigns.map(function (c) { return pick(c, s.key); });
        return {
          label: s.name,
          data: points.map(function (p) { return p ? p.saturation_users : null; }),
          whiskers: points.map(function (p) { return p ? p.interval : null; }),
          spanGaps: true,
          pointRadius: 4,
        };
      }),
      xLabel: "campaign, in series order",
      yLabel: "users before the threshold",
      zoom: false,
      options: {
        layout: { padding: { top: 20 } },
        scales: { x: { offset: true }, y: { beginAtZero: true } },
        plugins: {
          historyMarks: { notes: campaigns.map(function (c) { return (c.notes || []).length; }) },
          tooltip: { callbacks: {
            title: function (items) {
              const c = items.length ? campaigns[items[0].dataIndex] : null;
              return c ? c.name + (c.series_key ? " (" + c.series_key + ")" : "") : "";
            },
            label: function (item) {
              const p = pick(campaigns[item.dataIndex], lines[item.datasetIndex].key);
              const range = p && p.interval ? " (" + P.fmt(p.interval[0], 0) + "–" + P.fmt(p.interval[1], 0) + ")" : "";
              return item.dataset.label + ": " + P.fmt(item.raw, 0) + " users" + range;
            },
            afterBody: function (items) {
              const c = items.length ? campaigns[items[0].dataIndex] : null;
              return c && c.notes && c.notes.length ? ["Notes:"].concat(c.notes.map(function (n) { return "\u270E " + noteLine(n); })) : [];
            },
          } },
        },
      },
    });
  }

  function csv(campaigns) {
    const lines = scenarios(campaigns);
    const rows = [];
    campaigns.forEach(function (c) {
      lines.forEach(function (s) {
        const p = pick(c, s.key);
        if (p) {
          rows.push([c.slug, c.series_key, s.name, p.saturation_users, p.bound,
            p.interval ? p.interval[0] : null, p.interval ? p.interval[1] : null, p.runs]);
        }
      });
    });
    return { columns: ["campaign", "series_key", "scenario", "saturation_users", "bound", "interval_low",
      "interval_high", "runs"], rows: rows };
  }

  H.history = { label: label, scenarios: scenarios, chart: chart, csv: csv, noteLine: noteLine, keyOf: keyOf };
})(typeof globalThis !== "undefined" ? globalThis : this);
