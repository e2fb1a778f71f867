/**
 * Headroom dashboard charts: line, bar and scatter charts with the page's
 * palette, thresholds, zoom and interval whiskers.
 *
 * Plain ES2019 with no build step. Load the vendored builds first, in this
 * order (see frontend/vendor.json):
 *
 *   vendor/chart.umd.min.js
 *   vendor/hammer.min.js                           (touch gestures for zoom)
 *   vendor/chartjs-plugin-zoom.min.js
 *   vendor/chartjs-adapter-date-fns.bundle.min.js  (only for xType "time")
 *   vendor/chartjs-plugin-annotation.min.js        (only for thresholds)
 *   headroom/charts.js
 *   headroom/downloads.js   (CSV and PNG downloads; any order after charts.js)
 *   headroom/tables.js      (sortable tables)
 *
 * The plugins register themselves; a missing optional plugin only turns its
 * feature off. Loading this file sets Chart.defaults' font to the page's
 * system font stack. Everything is exposed on the global `Headroom`:
 *
 *   Headroom.lineChart(canvas, options)    -> Chart
 *   Headroom.barChart(canvas, options)     -> Chart
 *   Headroom.scatterChart(canvas, options) -> Chart
 *   Headroom.PALETTE
 *
 * and, from the other two files:
 *
 *   Headroom.downloadCsv(filename, columns, rows), Headroom.toCsv(columns, rows)   (downloads.js)
 *   Headroom.downloadPng(chart, filename, caption?)  caption: lines drawn above the chart
 *   Headroom.sortableTables(root), Headroom.parseNumber(text)                      (tables.js)
 *
 * Chart options (all optional except datasets):
 *   datasets   Chart.js datasets; colours from a colour-blind-safe palette are
 *              filled in where a dataset sets none.
 *   labels     category labels (line and bar charts).
 *   xLabel, yLabel  axis titles.
 *   threshold  a number, {value, label, color, dash, position}, or an array of
 *              these: drawn as lines across the value axis, the label at
 *              position "start", "center" or "end" (default) of the line
 *              (needs the annotation plugin).
 *   xType, yType  scale types: "linear", "logarithmic", "time", "category".
 *   zoom       true by default for line and scatter charts: drag a box to
 *              zoom, shift-drag to pan, ctrl-wheel or pinch to zoom,
 *              double-click to reset (needs the zoom plugin).
 *   stacked, horizontal  bar charts only.
 *   dataset.errorBars[i] = [low, high]  bar charts: a whisker over bar i (an interval).
 *   dataset.dashed[i] = true            bar charts: bar i outlined dashed (an extrapolated value).
 *   options    extra Chart.js options, deep-merged last.
 */
(function (global) {
  "use strict";

  // Okabe-Ito: distinguishable with the common colour-vision deficiencies.
  const PALETTE = [
    "#0072B2", "#E69F00", "#009E73", "#D55E00",
    "#CC79A7", "#56B4E9", "#F0E442", "#000000",
  ];
  const THRESHOLD_COLOR = "#C62828";
  // The same system font stack and text colour as headroom.css.
  const FONT_FAMILY =
    'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, "Noto Sans", "Liberation Sans", sans-serif';
  const TEXT_COLOR = "#1f2328";

  if (typeof global.Chart === "function") {
    global.Chart.defaults.font.family = FONT_FAMILY;
    global.Chart.defaults.color = TEXT_COLOR;
  }

  function requireChart() {
    if (typeof global.Chart !== "function") {
      throw new Error("Headroom: load vendor/chart.umd.min.js before headroom/charts.js");
    }
    return global.Chart;
  }

  function hasPlugin(id) {
    const Chart = requireChart();
    try {
      return Boolean(Chart.registry.getPlugin(id));
    } catch (error) {
      return false;
    }
  }

  function resolveCanvas(canvas) {
    const element = typeof canvas === "string" ? document.getElementById(canvas) : canvas;
    if (!element || element.tagName !== "CANVAS") {
      throw new Error("Headroom: expected a <canvas> element or its id, got " + String(canvas));
    }
    return element;
  }

  function withAlpha(hex, alpha) {
    const value = parseInt(hex.slice(1), 16);
    return "rgba(" + ((value >> 16) & 255) + "," + ((value >> 8) & 255) + "," + (value & 255) + "," + alpha + ")";
  }

  // Past the palette's eight colours, lines repeat a colour dashed so no two look alike.
  function colourDatasets(datasets, fillAlpha) {
    return (datasets || []).map(function (dataset, index) {
      const colour = PALETTE[index % PALETTE.length];
      const defaults = {
        borderColor: colour,
        backgroundColor: fillAlpha === 1 ? colour : withAlpha(colour, fillAlpha),
      };
      if (index >= PALETTE.length) {
        defaults.borderDash = [6, 4];
      }
      return Object.assign(defaults, dataset);
    });
  }

  function axisTitle(text) {
    return text ? { display: true, text: String(text) } : { display: false };
  }

  function scale(type, title, extra) {
    const result = Object.assign({ title: axisTitle(title) }, extra || {});
    if (type) {
      result.type = type;
    }
    return result;
  }

  function thresholdAnnotations(threshold, scaleID) {
    if (threshold === undefined || threshold === null) {
      return {};
    }
    const list = Array.isArray(threshold) ? threshold : [threshold];
    const annotations = {};
    list.forEach(function (item, index) {
      const spec = typeof item === "number" ? { value: item } : item;
      const colour = spec.color || THRESHOLD_COLOR;
      annotations["threshold" + index] = {
        type: "line",
        scaleID: spec.axis || scaleID,
        value: spec.value,
        borderColor: colour,
        borderWidth: 2,
        borderDash: spec.dash === false ? [] : spec.dash || [6, 4],
        label: {
          display: Boolean(spec.label),
          content: spec.label ? String(spec.label) : "",
          position: spec.position || "end",
          backgroundColor: colour,
          color: "#ffffff",
          font: { size: 11 },
        },
      };
    });
    return annotations;
  }

  function zoomOptions(axis) {
    return {
      // Keep panning and zooming within the data that was drawn.
      limits: { x: { min: "original", max: "original" }, y: { min: "original", max: "original" } },
      pan: { enabled: true, mode: axis, modifierKey: "shift" },
      zoom: {
        mode: axis,
        wheel: { enabled: true, modifierKey: "ctrl" },
        pinch: { enabled: true },
        drag: {
          enabled: true,
          backgroundColor: "rgba(0,114,178,0.12)",
          borderColor: "rgba(0,114,178,0.6)",
          borderWidth: 1,
        },
      },
    };
  }

  function makeChart(canvas, type, options, config) {
    const Chart = requireChart();
    const element = resolveCanvas(canvas);
    // Re-rendering into the same canvas otherwise throws "Canvas is already in use".
    const previous = Chart.getChart(element);
    if (previous) {
      previous.destroy();
    }
    const interaction = { mode: config.tooltipMode, axis: config.tooltipAxis || "xy", intersect: false };
    const plugins = {
      legend: { display: (config.data.datasets || []).length > 1, position: "bottom" },
      tooltip: Object.assign({}, interaction),
    };
    if (hasPlugin("annotation")) {
      plugins.annotation = { annotations: thresholdAnnotations(options.threshold, config.valueAxis) };
    } else if (options.threshold !== undefined && options.threshold !== null) {
      console.warn("Headroom: threshold ignored; load vendor/chartjs-plugin-annotation.min.js");
    }
    const zoom = options.zoom === undefined ? config.zoomByDefault : options.zoom;
    if (zoom && hasPlugin("zoom")) {
      plugins.zoom = zoomOptions(config.zoomAxis || "xy");
    }
    let chartOptions = {
      responsive: true,
      maintainAspectRatio: false,
      // Dashboards redraw often and are screenshotted; animation only costs time.
      animation: false,
      normalized: true,
      interaction: interaction,
      scales: config.scales,
      plugins: plugins,
    };
    if (config.indexAxis) {
      chartOptions.indexAxis = config.indexAxis;
    }
    if (options.options) {
      chartOptions = Chart.helpers.merge(chartOptions, options.options);
    }
    const chart = new Chart(element, {
      type: type, data: config.data, options: chartOptions, plugins: config.plugins || [],
    });
    if (plugins.zoom) {
      element.addEventListener("dblclick", function () {
        chart.resetZoom();
      });
    }
    return chart;
  }

  /**
   * A line chart. Points are numbers (with `labels`) or {x, y} objects.
   * @param {HTMLCanvasElement|string} canvas
   * @param {Object} options see the file header
   * @returns {Chart}
   */
  function lineChart(canvas, options) {
    const opts = options || {};
    const xType = opts.xType || (opts.labels ? "category" : "linear");
    const datasets = colourDatasets(opts.datasets, 0.15).map(function (dataset) {
      return Object.assign({ pointRadius: 2, borderWidth: 2, tension: 0 }, dataset);
    });
    return makeChart(canvas, "line", opts, {
      data: { labels: opts.labels, datasets: datasets },
      scales: { x: scale(xType, opts.xLabel), y: scale(opts.yType, opts.yLabel) },
      valueAxis: "y",
      zoomByDefault: true,
      zoomAxis: "x",
      // Category lines share their x values; numeric ones need not.
      tooltipMode: opts.labels ? "index" : "nearest",
      tooltipAxis: "x",
    });
  }

  function barColour(dataset, i) {
    const colour = dataset.borderColor;
    return Array.isArray(colour) ? colour[i] : colour || TEXT_COLOR;
  }

  // Whiskers for dataset.errorBars and dashed outlines for dataset.dashed (see the file header).
  const intervalPlugin = {
    id: "headroomIntervals",
    afterDatasetsDraw: function (chart) {
      const ctx = chart.ctx;
      const horizontal = chart.options.indexAxis === "y";
      const valueScale = horizontal ? chart.scales.x : chart.scales.y;
      chart.data.datasets.forEach(function (dataset, index) {
        const meta = chart.getDatasetMeta(index);
        if (meta.hidden || (!dataset.errorBars && !dataset.dashed)) {
          return;
        }
        meta.data.forEach(function (bar, i) {
          const p = bar.getProps(["x", "y", "base", "width", "height"], true);
          ctx.save();
          ctx.strokeStyle = barColour(dataset, i);
          ctx.lineWidth = 2;
          if (dataset.dashed && dataset.dashed[i]) {
            ctx.setLineDash([5, 4]);
            if (horizontal) {
              ctx.strokeRect(Math.min(p.base, p.x), p.y - p.height / 2, Math.abs(p.x - p.base), p.height);
            } else {
              ctx.strokeRect(p.x - p.width / 2, Math.min(p.y, p.base), p.width, Math.abs(p.base - p.y));
            }
            ctx.setLineDash([]);
          }
          const range = dataset.errorBars && dataset.errorBars[i];
          if (range && range[0] !== null && range[1] !== null) {
            const a = valueScale.getPixelForValue(range[0]);
            const b = valueScale.getPixelForValue(range[1]);
            const cap = Math.max(3, Math.min(8, (horizontal ? p.height : p.width) / 4));
            ctx.strokeStyle = TEXT_COLOR;
            ctx.lineWidth = 1.5;
            ctx.beginPath();
            if (horizontal) {
              ctx.moveTo(a, p.y); ctx.lineTo(b, p.y);
              ctx.moveTo(a, p.y - cap); ctx.lineTo(a, p.y + cap);
              ctx.moveTo(b, p.y - cap); ctx.lineTo(b, p.y + cap);
            } else {
              ctx.moveTo(p.x, a); ctx.lineTo(p.x, b);
              ctx.moveTo(p.x - cap, a); ctx.lineTo(p.x + cap, a);
              ctx.moveTo(p.x - cap, b); ctx.lineTo(p.x + cap, b);
            }
            ctx.stroke();
          }
          ctx.restore();
        });
      });
    },
  };

  /**
   * A bar chart over `labels`; `stacked` stacks the datasets and
   * `horizontal` lays the bars along the x axis.
   * @param {HTMLCanvasElement|string} canvas
   * @param {Object} options see the file header
   * @returns {Chart}
   */
  function barChart(canvas, options) {
    const opts = options || {};
    const horizontal = Boolean(opts.horizontal);
    const stacked = Boolean(opts.stacked);
    const category = scale(opts.xType || "category", horizontal ? opts.yLabel : opts.xLabel, { stacked: stacked });
    const value = scale(opts.yType, horizontal ? opts.xLabel : opts.yLabel, { stacked: stacked, beginAtZero: true });
    return makeChart(canvas, "bar", opts, {
      data: { labels: opts.labels, datasets: colourDatasets(opts.datasets, 0.85) },
      // xLabel/yLabel name the axis as drawn; the value axis swaps when horizontal.
      scales: horizontal ? { x: value, y: category } : { x: category, y: value },
      indexAxis: horizontal ? "y" : "x",
      valueAxis: horizontal ? "x" : "y",
      zoomByDefault: false,
      zoomAxis: horizontal ? "y" : "x",
      tooltipMode: "index",
      tooltipAxis: horizontal ? "y" : "x",
      plugins: [intervalPlugin],
    });
  }

  /**
   * A scatter chart of {x, y} points. A point's own `label` property, when
   * present, is shown in its tooltip.
   * @param {HTMLCanvasElement|string} canvas
   * @param {Object} options see the file header
   * @returns {Chart}
   */
  function scatterChart(canvas, options) {
    const opts = options || {};
    const datasets = colourDatasets(opts.datasets, 0.6).map(function (dataset) {
      return Object.assign({ pointRadius: 3, pointHoverRadius: 5 }, dataset);
    });
    const userOptions = opts.options || {};
    const tooltipLabel = {
      plugins: {
        tooltip: {
          callbacks: {
            label: function (context) {
              const raw = context.raw || {};
              const name = raw.label || context.dataset.label || "";
              const point = "(" + context.formattedValue + ")";
              return name ? name + ": " + point : point;
            },
          },
        },
      },
    };
    const merged = Object.assign({}, opts, { options: requireChart().helpers.merge(tooltipLabel, userOptions) });
    return makeChart(canvas, "scatter", merged, {
      data: { datasets: datasets },
      scales: { x: scale(opts.xType || "linear", opts.xLabel), y: scale(opts.yType, opts.yLabel) },
      valueAxis: "y",
      zoomByDefault: true,
      zoomAxis: "xy",
      tooltipMode: "nearest",
    });
  }
  // Added to, not replaced: downloads.js, tables.js, units.js and legend.js extend the same object.
  const Headroom = Object.assign(global.Headroom || {}, {
    PALETTE: PALETTE,
    lineChart: lineChart,
    barChart: barChart,
    scatterChart: scatterChart,
  });

  global.Headroom = Headroom;
  if (typeof module === "object" && module.exports) {
    module.exports = Headroom;
  }
})(typeof globalThis !== "undefined" ? globalThis : this);
