/**
 * Capacity planner, the load steps: the per-step statistics table, the
 * chosen statistic against users for every scenario, and one small chart per
 * scenario (average, maximum and p95 against users on one shared scale, the
 * threshold, an extrapolation, the runs' spread as a shaded band). Draws from
 * the capacity data capacity.js announces ("capacity:data"), with the
 * counter's unit, statistic name, threshold text and PNG captions it sends.
 */
(function () {
  "use strict";

  const H = window.Headroom;
  const P = window.HeadroomPages;
  const overviewCard = P.chartCard("slot-overview", { title: "Statistic against users", filename: "capacity-steps.csv",
    caption: function () {
      const title = overviewCard.element.querySelector("h2").textContent;
      return detail ? detail.caption(title)() : [title];
    } });
  let detail = null; // the last "capacity:data" event's detail
  let data = null;
  let scenarioColours = {};

  function drawStepsTable(names) {
    document.getElementById("steps-table").setAttribute("data-api", detail.api);
    const stat = data.stat;
    const steps = [];
    data.scenarios.forEach(function (s) {
      s.steps.forEach(function (step) {
        const spread = step.spread[stat];
        steps.push(Object.assign({ name: names[s.scenario], spreadText: spread && step.runs > 1 ?
          P.fmt(spread[0]) + " – " + P.fmt(spread[1]) : "" }, step));
      });
    });
    const number = function (v) { return P.fmt(v, 2); };
    const columns = [
      { key: "name", label: "Scenario", cellClass: "nowrap" },
      { key: "users", label: "Users", num: true, format: function (v) { return P.fmt(v, 0); } },
      { key: "avg", label: "Average", num: true, format: number, figure: P.field(detail.unit) },
      { key: "max", label: "Maximum", num: true, format: number, figure: P.field(detail.unit) },
      { key: "p95", label: "p95", num: true, format: number, figure: P.field(detail.unit) },
      { key: "samples", label: "Samples", num: true },
      { key: "runs", label: "Runs", num: true },
    ];
    if (steps.some(function (step) { return step.runs > 1; })) {
      columns.push({ key: "spreadText", label: "Spread of " + stat + " across runs" });
    }
    if (steps.some(function (step) { return step.overloaded; })) {
      columns.push({ key: "overloaded", label: "FSCT overload", format: function (v) { return v ? "yes" : ""; } });
    }
    document.getElementById("steps-table").replaceChildren(P.table(columns, steps));
  }

  function threshold() {
    return { value: data.threshold, label: "threshold " + detail.thresholdText, position: "start" };
  }

  function axisLabel(prefix) {
    // "average of % Processor Time (%)": the counter's own unit on the value axis.
    const unit = detail.unit;
    return prefix + data.counter.split("\\").pop() + (unit ? " (" + unit + ")" : "");
  }

  function valueAxis() {
    // One scale for every small multiple, so scenarios compare by eye; percentages span 0-100.
    let top = 0;
    data.scenarios.forEach(function (s) {
      s.steps.forEach(function (step) {
        [step.avg, step.max, step.p95].concat(step.spread[data.stat] || []).forEach(function (v) {
          if (v !== null && v > top) top = v;
        });
      });
    });
    const percent = /\\%[^\\]*$/.test(data.counter) && top <= 100;
    return { min: 0, max: percent ? 100 : undefined, suggestedMax: Math.max(top, data.threshold) };
  }

  function drawOverview(names) {
    const stat = data.stat;
    overviewCard.element.querySelector("h2").textContent =
      detail.statName + " of " + data.counter + " against users";
    const rows = [];
    const datasets = data.scenarios.map(function (s) {
      s.steps.forEach(function (step) {
        rows.push({ scenario: s.label, users: step.users, value: step[stat], samples: step.samples, runs: step.runs });
      });
      return { label: names[s.scenario], borderColor: scenarioColours[s.scenario], backgroundColor: scenarioColours[s.scenario],
        data: s.steps.map(function (step) { return { x: step.users, y: step[stat] }; }) };
    });
    if (!rows.length) {
      overviewCard.empty("No load steps with samples.");
      return;
    }
    overviewCard.draw(function (canvas) {
      return H.lineChart(canvas, { datasets: datasets, xLabel: "users", yLabel: axisLabel(detail.statName + " of "),
        threshold: threshold(), zoom: false });
    }, ["scenario", "users", "value", "samples", "runs"], rows);
  }

  function drawScenarios(names) {
    const slot = document.getElementById("slot-scenarios");
    slot.replaceChildren();
    const stat = data.stat;
    const axis = valueAxis();
    data.scenarios.forEach(function (s) {
      const card = P.chartCard(slot, {
        title: names[s.scenario], heading: "h3", size: "short",
        filename: "capacity-" + names[s.scenario].replace(/[^A-Za-z0-9.]+/g, "-") + ".csv",
        note: s.saturation_text + " · " + s.steps_used + " steps, " + P.fmt(s.samples_used, 0) + " samples",
        caption: detail.caption(names[s.scenario]),
      });
      const own = scenarioColours[s.scenario];
      const xy = function (key) {
        return s.steps.map(function (step) { return { x: step.users, y: step[key] }; });
      };
      // The scenario's own colour; the statistics differ by dash.
      const datasets = [{ label: "average", data: xy("avg"), borderColor: own, backgroundColor: own },
        { label: "maximum", data: xy("max"), borderColor: own, backgroundColor: own, borderDash: [2, 3] }];
      if (stat === "p95") {
        datasets.push({ label: "p95", data: xy("p95"), borderColor: own, backgroundColor: own, borderDash: [8, 3] });
      }
      const measured = s.steps.filter(function (step) { return step[stat] !== null; });
      if (s.bound === "extrapolated" && measured.length) {
        const last = measured[measured.length - 1];
        datasets.push({ label: "extrapolated", data: [{ x: last.users, y: last[stat] },
          { x: s.saturation_users, y: data.threshold }], borderDash: [6, 4], pointRadius: 3, borderColor: "#6e7781",
          backgroundColor: "#6e7781" });
      }
      if (s.steps.some(function (step) { return step.runs > 1; })) {
        const band = function (i) {
          return s.steps.map(function (step) { return { x: step.users, y: (step.spread[stat] || [null, null])[i] }; });
        };
        datasets.push({ label: stat + " lowest run", data: band(0), pointRadius: 0, borderWidth: 0, fill: false,
          borderColor: "rgba(0,0,0,0)" });
        datasets.push({ label: stat + " highest run", data: band(1), pointRadius: 0, borderWidth: 0, fill: "-1",
          borderColor: "rgba(0,0,0,0)", backgroundColor: "rgba(86,180,233,0.25)" });
      }
      const columns = ["users", "avg", "max", "p95", "samples", "runs", stat + "_lowest_run", stat + "_highest_run"];
      const rows = s.steps.map(function (step) {
        const spread = step.spread[stat] || [null, null];
        return [step.users, step.avg, step.max, step.p95, step.samples, step.runs, spread[0], spread[1]];
      });
      card.draw(function (canvas) {
        return H.lineChart(canvas, { datasets: datasets, xLabel: "users", yLabel: axisLabel(""),
          threshold: threshold(), zoom: false, options: { scales: { y: axis } } });
      }, columns, rows);
    });
  }

  document.addEventListener("capacity:data", function (event) {
    detail = event.detail;
    data = detail.data;
    scenarioColours = detail.colours;
    drawStepsTable(detail.names);
    drawOverview(detail.names);
    drawScenarios(detail.names);
  });
})();
