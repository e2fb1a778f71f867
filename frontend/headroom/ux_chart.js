/**
 * Response time against users (the picture Login VSI users know), drawn the same on the capacity page
 * (headroom/ux.js) and on a shared report (sharing/ux.js), from one scenario of the answer of
 * GET /api/v1/campaigns/{slug}/capacity?timing=<name>:
 *
 *   Headroom.uxShown(body) -> "ms" or "s"   the unit every chart and table of the answer prints in
 *                                           (units.js: s once the largest figure reaches 10 s)
 *   Headroom.uxChart(canvas, body, s, colour) -> Chart
 *       the per-step mean (solid, the scenario's colour), the 95th percentile (dotted) with the band
 *       between the mean and it shaded, the baseline (grey) and the threshold (red, dashed) as horizontal lines
 *       across the users drawn (named in the legend; their figures are printed under the chart),
 *       and the crossing: a point at (saturation_users, threshold_ms) labelled "566.7 users"; an
 *       extrapolated crossing is joined to the last step by a dashed line and labelled "~N users
 *       (extrapolated)"; a threshold not reached is a vertical line at the last step "> N users", one
 *       already passed at the first step a vertical line there "< N users".
 *   Headroom.uxCrossingText(s) -> "566.7 users", "> 1,000 users", "< 100 users", "~1,250 users (extrapolated)"
 *   Headroom.uxCsv(body, s) -> {columns, rows}   one row per step, every figure in ms as the API gives it,
 *       the baseline, threshold and crossing repeated on each row.
 *
 * Every dataset carries `ux: {figure}` and the annotations are named baseline, threshold and crossing, so a
 * test reads back what was drawn. Load after headroom/charts.js and headroom/units.js.
 */
(function (global) {
  "use strict";

  const H = global.Headroom;
  const THRESHOLD = "#C62828";
  const BASELINE = "#57606a";
  const EXTRAPOLATED = "#6e7781";

  function uxShown(body) {
    const values = [];
    body.scenarios.forEach(function (s) {
      values.push(s.baseline_ms, s.threshold_ms);
      s.steps.forEach(function (step) { values.push(step.mean, step.p50, step.p95); });
    });
    return H.units.shown("ms", values);
  }

  function users(value, digits) {
    return Number(value).toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: 0 });
  }

  function uxCrossingText(s) {
    const steps = s.steps.map(function (step) { return step.users; });
    if (s.bound === "interpolated" && s.saturation_users !== null) return users(s.saturation_users, 1) + " users";
    if (s.bound === "extrapolated" && s.saturation_users !== null) {
      return "~" + users(s.saturation_users, 0) + " users (extrapolated)";
    }
    if (s.bound === "not_reached" && steps.length) return "> " + users(Math.max.apply(null, steps), 0) + " users";
    if (s.bound === "below_first_step" && steps.length) return "< " + users(Math.min.apply(null, steps), 0) + " users";
    return "no crossing";
  }

  function withAlpha(hex, alpha) {
    const value = parseInt(hex.slice(1), 16);
    return "rgba(" + ((value >> 16) & 255) + "," + ((value >> 8) & 255) + "," + (value & 255) + "," + alpha + ")";
  }

  function uxChart(canvas, body, s, colour) {
    const shown = uxShown(body);
    const own = colour || H.PALETTE[0];
    const y = function (ms) { return H.units.convert(ms, "ms", shown); };
    const xy = function (key) {
      return s.steps.map(function (step) { return { x: step.users, y: y(step[key]) }; });
    };
    const datasets = [
      { label: "mean", ux: { figure: "mean" }, data: xy("mean"), borderColor: own, backgroundColor: own, pointRadius: 3 },
      { label: "p95 (shaded from the mean)", ux: { figure: "p95" }, data: xy("p95"), borderColor: own,
        backgroundColor: withAlpha(own, 0.18), borderDash: [2, 3], borderWidth: 1.5, pointRadius: 0, fill: "-1" },
    ];
    // Baseline and threshold are lines across the tested users (and an extrapolated crossing), named in the
    // legend; their figures are in the sentence under the chart, never a label over the curve.
    const xs = s.steps.map(function (step) { return step.users; }).concat(
      s.saturation_users !== null ? [s.saturation_users] : []);
    const across = function (ms) {
      return [{ x: Math.min.apply(null, xs), y: y(ms) }, { x: Math.max.apply(null, xs), y: y(ms) }];
    };
    if (s.baseline_ms !== null && xs.length) {
      datasets.push({ label: "baseline", ux: { figure: "baseline" }, data: across(s.baseline_ms), borderColor: BASELINE,
        backgroundColor: BASELINE, borderWidth: 1.5, pointRadius: 0, pointHoverRadius: 0 });
      datasets.push({ label: "threshold", ux: { figure: "threshold" }, data: across(s.threshold_ms), borderColor: THRESHOLD,
        backgroundColor: THRESHOLD, borderWidth: 2, borderDash: [6, 4], pointRadius: 0, pointHoverRadius: 0 });
    }
    const annotations = {};
    const text = uxCrossingText(s);
    const crossed = (s.bound === "interpolated" || s.bound === "extrapolated") && s.saturation_users !== null;
    if (crossed) {
      if (s.bound === "extrapolated" && s.steps.length) {
        const last = s.steps[s.steps.length - 1];
        datasets.push({ label: "extrapolated", ux: { figure: "extrapolated" }, borderDash: [6, 4], pointRadius: 0,
          borderColor: EXTRAPOLATED, backgroundColor: EXTRAPOLATED,
          data: [{ x: last.users, y: y(last.mean) }, { x: s.saturation_users, y: y(s.threshold_ms) }] });
      }
      datasets.push({ label: "crossing of the threshold", ux: { figure: "crossing" }, showLine: false, pointRadius: 6,
        pointHoverRadius: 8, pointStyle: "rectRot", borderColor: THRESHOLD, backgroundColor: THRESHOLD,
        data: [{ x: s.saturation_users, y: y(s.threshold_ms) }] });
      annotations.crossing = { type: "label", xValue: s.saturation_users, yValue: y(s.threshold_ms), content: text,
        position: { x: "end", y: "end" }, xAdjust: -8, yAdjust: -10, backgroundColor: "rgba(255,255,255,0.9)",
        color: THRESHOLD, font: { size: 12, weight: "600" }, users: s.saturation_users, bound: s.bound };
    } else if ((s.bound === "not_reached" || s.bound === "below_first_step") && s.steps.length) {
      const at = s.bound === "not_reached" ? s.steps[s.steps.length - 1].users : s.steps[0].users;
      annotations.crossing = { type: "line", scaleID: "x", value: at, borderColor: THRESHOLD, borderWidth: 1.5,
        borderDash: [2, 3], users: at, bound: s.bound,
        label: { display: true, content: text, rotation: "auto", position: "start", backgroundColor: THRESHOLD,
          color: "#ffffff", font: { size: 11 } } };
    }
    // One scale for every scenario's chart, so they compare by eye (as the counters' small multiples do).
    const tops = [];
    body.scenarios.forEach(function (other) {
      tops.push(other.threshold_ms || 0);
      other.steps.forEach(function (step) { tops.push(step.p95, step.mean); });
    });
    const top = Math.max.apply(null, tops);
    return H.lineChart(canvas, {
      datasets: datasets, xLabel: "users", yLabel: body.timing + " (" + shown + ")", zoom: false,
      options: {
        plugins: { legend: { display: true }, annotation: { annotations: annotations } },
        scales: { y: { beginAtZero: true, suggestedMax: y(top) } },
      },
    });
  }

  function uxCsv(body, s) {
    const columns = ["scenario", "timing", "users", "mean_ms", "p50_ms", "p95_ms", "n", "hosts", "baseline_ms",
      "threshold_ms", "saturation_users", "bound"];
    const rows = s.steps.map(function (step) {
      return [s.label, body.timing, step.users, step.mean, step.p50, step.p95, step.n, step.hosts, s.baseline_ms,
        s.threshold_ms, s.saturation_users, s.bound];
    });
    return { columns: columns, rows: rows };
  }

  H.uxShown = uxShown;
  H.uxChart = uxChart;
  H.uxCrossingText = uxCrossingText;
  H.uxCsv = uxCsv;
})(typeof globalThis !== "undefined" ? globalThis : this);
