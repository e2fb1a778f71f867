/**
 * FSCT curves, drawn the same on the capacity page (headroom/fsct.js) and on a shared report
 * (sharing/fsct.js), from the answer of GET /api/v1/campaigns/{slug}/fsct:
 *
 *   Headroom.fsctChart(canvas, body, names, colours) -> Chart
 *       per scenario a group of datasets in its colour: throughput (scenarios/s, solid, left axis) and each
 *       FSCT operation's mean response time (ms, dashed, right axis); the overloaded steps' throughput
 *       points drawn as large red triangles, and a vertical line at each scenario's overload step.
 *   Headroom.fsctCsv(body, names) -> {columns, rows}   one row per scenario and step, every figure in the
 *       API's unit, a response column per operation.
 *
 * With one overloaded scenario its line says "overload at 900 users"; with several, each names its scenario.
 *
 * `names` maps a scenario id to the name shown (default: its label), `colours` to its colour (default: the
 * palette in order). Load after headroom/charts.js.
 */
(function (global) {
  "use strict";

  const H = global.Headroom;
  const OVERLOAD = "#C62828";
  // Operations told apart by dash and point shape within a scenario's colour.
  const DASHES = [[6, 4], [2, 3], [10, 3, 2, 3], [4, 2], [12, 6]];
  const POINTS = ["rect", "rectRot", "star", "crossRot", "cross"];

  function nameOf(s, names) {
    return (names && names[s.scenario]) || s.label;
  }

  function colourOf(s, i, colours) {
    return (colours && colours[s.scenario]) || H.PALETTE[i % H.PALETTE.length];
  }

  function fsctChart(canvas, body, names, colours) {
    const several = body.scenarios.length > 1;
    const datasets = [];
    const marks = [];
    body.scenarios.forEach(function (s, i) {
      const colour = colourOf(s, i, colours);
      const prefix = several ? nameOf(s, names) + ": " : "";
      datasets.push({
        label: prefix + "throughput (scenarios/s)", yAxisID: "y", borderColor: colour, backgroundColor: colour,
        fsct: { scenario: s.scenario, figure: "throughput_sps" },
        data: s.steps.map(function (step) { return { x: step.users, y: step.throughput_sps }; }),
        pointStyle: s.steps.map(function (step) { return step.overloaded ? "triangle" : "circle"; }),
        pointRadius: s.steps.map(function (step) { return step.overloaded ? 7 : 3; }),
        pointBorderColor: s.steps.map(function (step) { return step.overloaded ? OVERLOAD : colour; }),
        pointBackgroundColor: s.steps.map(function (step) { return step.overloaded ? OVERLOAD : colour; }),
      });
      s.operations.forEach(function (operation, k) {
        datasets.push({
          label: prefix + operation + " (ms)", yAxisID: "y1", borderColor: colour, backgroundColor: colour,
          fsct: { scenario: s.scenario, figure: "response_ms", operation: operation },
          borderDash: DASHES[k % DASHES.length], borderWidth: 1.5, pointStyle: POINTS[k % POINTS.length],
          pointRadius: 3,
          data: s.steps.map(function (step) { return { x: step.users, y: step.responses[k].ms }; }),
        });
      });
      if (s.overload_users !== null) {
        marks.push({ scenario: s, text: "overload at " + H.units.text(s.overload_users, "users", "users", 0) });
      }
    });
    // A vertical line at each overload step, its label along the line so it stays inside a narrow chart.
    const annotations = {};
    marks.forEach(function (mark, i) {
      annotations["overload" + i] = { type: "line", scaleID: "x", value: mark.scenario.overload_users,
        borderColor: OVERLOAD, borderWidth: 2, borderDash: [6, 4],
        label: { display: true, rotation: "auto", position: "end", backgroundColor: OVERLOAD, color: "#ffffff",
          font: { size: 11 }, content: (marks.length > 1 ? nameOf(mark.scenario, names) + ": " : "") + mark.text } };
    });
    const chart = H.lineChart(canvas, {
      datasets: datasets, xLabel: "users", zoom: false,
      options: {
        plugins: { legend: { display: true }, annotation: { annotations: annotations } },
        scales: {
          y: { position: "left", beginAtZero: true, title: { display: true, text: "throughput (scenarios/s)" } },
          y1: { position: "right", beginAtZero: true, grid: { drawOnChartArea: false },
            title: { display: true, text: "response time (ms)" } },
        },
      },
    });
    return chart;
  }

  function fsctCsv(body, names) {
    const operations = [];
    body.scenarios.forEach(function (s) {
      s.operations.forEach(function (op) { if (operations.indexOf(op) < 0) operations.push(op); });
    });
    const columns = ["scenario", "users", "throughput_sps", "overload_pct", "overloaded", "overload_step", "errors",
      "errors_pct", "runs"].concat(operations.map(function (op) { return "response_ms " + op; }));
    const rows = [];
    body.scenarios.forEach(function (s) {
      s.steps.forEach(function (step) {
        const row = [nameOf(s, names), step.users, step.throughput_sps, step.overload_pct, step.overloaded ? "yes" : "no",
          step.users === s.overload_users ? "yes" : "", step.errors, step.errors_pct, step.runs];
        operations.forEach(function (op) {
          const found = step.responses.filter(function (r) { return r.operation === op; })[0];
          row.push(found ? found.ms : null);
        });
        rows.push(row);
      });
    });
    return { columns: columns, rows: rows };
  }

  H.fsctChart = fsctChart;
  H.fsctCsv = fsctCsv;
})(typeof globalThis !== "undefined" ? globalThis : this);
