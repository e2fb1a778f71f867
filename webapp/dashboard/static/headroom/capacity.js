/**
 * Capacity planner: users before saturation per scenario, from
 * GET /api/v1/campaigns/{slug}/capacity. The form's counter, statistic,
 * threshold and trim ask the API again; the breakdown controls only regroup
 * the bars. document.body gets data-state="ready" after each render.
 */
(function () {
  "use strict";

  const H = window.Headroom;
  const P = window.HeadroomPages;
  const page = P.pageData();
  const form = document.getElementById("capacity-form");
  const status = document.getElementById("status");
  const groupsBox = document.getElementById("f-groups");
  const colourSelect = document.getElementById("f-colour");
  const STAT_NAMES = { avg: "average", max: "maximum", p95: "95th percentile" };
  const saturationCard = P.chartCard("slot-saturation", {
    title: "Users before saturation",
    filename: "users-before-saturation.csv",
    size: "tall",
  });
  const overviewCard = P.chartCard("slot-overview", { title: "Statistic against users", filename: "capacity-steps.csv" });
  let data = null;
  let breakdown = null; // {groups: [...], colour: "..."}
  let pending = null;

  function params() {
    return {
      counter: form.elements.counter.value,
      stat: form.elements.stat.value,
      threshold: form.elements.threshold.value || "80",
      trim: form.elements.trim.value || "10",
    };
  }

  function plotted(s) {
    // Where the bar goes: the point itself, or the step that bounds it.
    const steps = s.steps.map(function (step) { return step.users; });
    if (s.bound === "interpolated") {
      return s.saturation_users;
    }
    if (s.bound === "not_reached") {
      return steps.length ? Math.max.apply(null, steps) : null;
    }
    if (s.bound === "below_first_step") {
      return steps.length ? Math.min.apply(null, steps) : null;
    }
    return null;
  }

  function barText(s) {
    // The API's own wording, so bar and table round alike: "912", "> 1,000", "< 100".
    return plotted(s) === null ? "" : s.saturation_text.replace(/ users.*$/, "");
  }

  function setupBreakdown(varying) {
    if (!breakdown || (breakdown.colour && varying.indexOf(breakdown.colour) < 0)) {
      const colour = varying.indexOf("av") >= 0 ? "av" : varying.length ? varying[varying.length - 1] : "";
      breakdown = { colour: colour, groups: varying.filter(function (d) { return d !== colour; }) };
    }
    // Nothing to break down by: one scenario, or none.
    groupsBox.hidden = colourSelect.parentElement.hidden = varying.length === 0;
    groupsBox.querySelectorAll("label").forEach(function (node) { node.remove(); });
    varying.forEach(function (dim) {
      const box = P.el("input", { type: "checkbox", value: dim, checked: breakdown.groups.indexOf(dim) >= 0 });
      box.addEventListener("change", function () {
        breakdown.groups = Array.from(groupsBox.querySelectorAll("input:checked")).map(function (i) { return i.value; });
        drawSaturation();
      });
      groupsBox.appendChild(P.el("label", { className: "check" }, [box, " " + dim]));
    });
    colourSelect.replaceChildren.apply(colourSelect, [P.el("option", { value: "", text: "(none)" })].concat(
      varying.map(function (dim) {
        return P.el("option", { value: dim, text: dim, selected: dim === breakdown.colour });
      })
    ));
  }

  function drawSaturation() {
    const scenarios = data.scenarios;
    const groupOf = function (s) {
      return breakdown.groups.map(function (d) { return s.dims[d] || "—"; }).join(" · ") || "all scenarios";
    };
    const colourOf = function (s) {
      return breakdown.colour ? breakdown.colour + "=" + (s.dims[breakdown.colour] || "—") : "users";
    };
    const labels = [];
    const colours = [];
    const cells = {};
    scenarios.forEach(function (s) {
      const group = groupOf(s);
      const colour = colourOf(s);
      if (labels.indexOf(group) < 0) labels.push(group);
      if (colours.indexOf(colour) < 0) colours.push(colour);
      const key = group + "\u0000" + colour;
      const current = cells[key];
      // Several scenarios in one bar: keep the most conservative (fewest users).
      if (plotted(s) !== null && (!current || plotted(s) < plotted(current))) {
        cells[key] = s;
      }
    });
    labels.sort(new Intl.Collator(undefined, { numeric: true }).compare);
    const rows = [];
    const datasets = colours.map(function (colour, index) {
      const base = H.PALETTE[index % H.PALETTE.length];
      const picked = labels.map(function (group) { return cells[group + "\u0000" + colour] || null; });
      picked.forEach(function (s, i) {
        if (s) {
          rows.push({ group: labels[i], colour: colour, scenario: s.label, saturation_users: s.saturation_users,
            bound: s.bound, saturation_text: s.saturation_text, plotted: plotted(s) });
        }
      });
      return {
        label: colour,
        data: picked.map(function (s) { return s ? plotted(s) : null; }),
        barText: picked.map(function (s) { return s ? barText(s) : ""; }),
        backgroundColor: picked.map(function (s) { return s && s.bound !== "interpolated" ? "rgba(255,255,255,0)" : base; }),
        borderColor: base,
        borderWidth: 2,
        skipNull: true,
        maxBarThickness: 120,
      };
    });
    if (!rows.length) {
      saturationCard.empty("No scenario has load steps with samples of this counter.");
      return;
    }
    saturationCard.draw(function (canvas) {
      return H.barChart(canvas, {
        labels: labels,
        datasets: datasets,
        yLabel: "users before saturation",
        xLabel: breakdown.groups.join(" · "),
        options: { plugins: { legend: { display: true } }, layout: { padding: { top: 18 } } },
      });
    }, ["group", "colour", "scenario", "saturation_users", "bound", "saturation_text", "plotted"], rows);
  }

  function shortNames(scenarios) {
    const keys = P.varyingDims(scenarios);
    const names = {};
    scenarios.forEach(function (s) { names[s.scenario] = P.shortLabel(s.dims, keys); });
    return names;
  }

  function drawTables(names, varying) {
    const rows = data.scenarios.map(function (s) {
      const runs = Math.max.apply(null, s.steps.map(function (step) { return step.runs; }).concat([0]));
      return Object.assign({ attrs: { "data-scenario": s.scenario }, name: names[s.scenario], runs: runs }, s.dims, s);
    });
    const idColumns = varying.length ? varying.map(function (d) { return { key: d, label: d }; })
      : [{ key: "name", label: "Scenario" }];
    document.getElementById("saturation-table").replaceChildren(P.table(
      idColumns.concat([
        { key: "saturation_text", label: "Users before saturation", num: true, cellClass: "saturation",
          sort: function (v, row) { return plotted(row); } },
        { key: "bound", label: "Bound", format: function (v) { return v.replace(/_/g, " "); } },
        { key: "steps_used", label: "Steps", num: true },
        { key: "samples_used", label: "Samples", num: true, format: function (v) { return P.fmt(v, 0); } },
        { key: "runs", label: "Runs", num: true },
      ]), rows));
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
      { key: "avg", label: "Average", num: true, format: number },
      { key: "max", label: "Maximum", num: true, format: number },
      { key: "p95", label: "p95", num: true, format: number },
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
    return { value: data.threshold, label: "threshold " + P.fmt(data.threshold, 2), position: "start" };
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
      STAT_NAMES[stat] + " of " + data.counter + " against users";
    const rows = [];
    const datasets = data.scenarios.map(function (s) {
      s.steps.forEach(function (step) {
        rows.push({ scenario: s.label, users: step.users, value: step[stat], samples: step.samples, runs: step.runs });
      });
      return { label: names[s.scenario], data: s.steps.map(function (step) { return { x: step.users, y: step[stat] }; }) };
    });
    if (!rows.length) {
      overviewCard.empty("No load steps with samples.");
      return;
    }
    overviewCard.draw(function (canvas) {
      return H.lineChart(canvas, { datasets: datasets, xLabel: "users", yLabel: stat, threshold: threshold(), zoom: false });
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
      });
      const xy = function (key) {
        return s.steps.map(function (step) { return { x: step.users, y: step[key] }; });
      };
      const datasets = [{ label: "average", data: xy("avg") }, { label: "maximum", data: xy("max") }];
      if (stat === "p95") {
        datasets.push({ label: "p95", data: xy("p95") });
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
        return H.lineChart(canvas, { datasets: datasets, xLabel: "users", yLabel: data.counter.split("\\").pop(),
          threshold: threshold(), zoom: false, options: { scales: { y: axis } } });
      }, columns, rows);
    });
  }

  function render() {
    const varying = P.varyingDims(data.scenarios);
    const names = shortNames(data.scenarios);
    setupBreakdown(varying);
    drawSaturation();
    drawTables(names, varying);
    drawOverview(names);
    drawScenarios(names);
    document.getElementById("method-text").textContent = data.method;
    document.getElementById("lead-counter").textContent = data.counter;
    document.getElementById("lead-stat").textContent = STAT_NAMES[data.stat];
    document.getElementById("lead-threshold").textContent = P.fmt(data.threshold, 2);
    status.textContent = data.scenarios.length + " scenarios with load steps · " + data.counter + " · " +
      STAT_NAMES[data.stat] + " ≥ " + P.fmt(data.threshold, 2) + " · steps trimmed by " + P.fmt(data.trim_pct, 2) + " %";
    document.body.setAttribute("data-state", "ready");
  }

  async function load() {
    const query = new URLSearchParams(params());
    history.replaceState(null, "", "?" + query.toString());
    document.body.setAttribute("data-state", "loading");
    status.textContent = "Loading…";
    try {
      data = await P.fetchJson(page.api + "?" + query.toString());
    } catch (error) {
      status.textContent = "Could not compute: " + error.message;
      document.body.setAttribute("data-state", "error");
      return;
    }
    render();
  }

  function later() {
    clearTimeout(pending);
    pending = setTimeout(load, 250);
  }

  form.addEventListener("submit", function (event) {
    event.preventDefault();
    load();
  });
  ["counter", "stat", "threshold", "trim"].forEach(function (name) {
    form.elements[name].addEventListener("change", later);
  });
  form.elements.threshold.addEventListener("input", later);
  colourSelect.addEventListener("change", function () {
    const previous = breakdown.colour;
    breakdown.colour = colourSelect.value;
    if (previous && breakdown.groups.indexOf(previous) < 0) breakdown.groups.push(previous);
    breakdown.groups = breakdown.groups.filter(function (d) { return d !== breakdown.colour; });
    setupBreakdown(P.varyingDims(data.scenarios));
    drawSaturation();
  });
  load();
})();
