/**
 * Capacity planner: users before saturation per scenario, from
 * GET /api/v1/campaigns/{slug}/capacity. The form's counter, statistic,
 * threshold and trim ask the API again; the breakdown controls only regroup
 * the bars. Bars carry the point's interval as a whisker; extrapolated
 * points are dashed. After each render the data goes out as a
 * "capacity:data" event to capacity_steps.js (the per-step table, the
 * statistic against users, one chart per scenario) and to capacity_more.js
 * (limits, comparisons, remarks, sizing); the event also carries the
 * counter's unit, the statistic's name, the threshold's text and the PNG
 * caption maker, so that every chart of the page words them alike.
 * One scenario->colour map (colourMap) colours the bars, the lines and the
 * sizing chart alike; the grouping and colour choices live in the address
 * (groups, colour). Bars holding several scenarios say "merged" and list them
 * in the tooltip. PNGs carry the title, counter and threshold.
 * document.body gets data-state="ready" after each render, once the event's
 * listeners have drawn.
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
  const name = function (v) { return String(v || "").replace(/_/g, " "); };
  const unitOf = function (counter) { return (page.units || {})[counter] || ""; };
  // In the counter's own unit (a threshold is typed in it), through the one value+unit formatter.
  const withUnit = function (value, counter) { return H.units.text(value, unitOf(counter), unitOf(counter), 2); };
  function caption(title) {
    return function () {
      return data ? [(page.title ? page.title + " — " : "") + title, "Counter " + data.counter + " · " +
        STAT_NAMES[data.stat] + " · threshold " + withUnit(data.threshold, data.counter) +
        " · steps trimmed by " + P.fmt(data.trim_pct, 2) + " %"] : [title];
    };
  }
  const saturationCard = P.chartCard("slot-saturation", {
    title: "Users before saturation",
    filename: "users-before-saturation.csv",
    size: "tall",
    caption: caption("Users before saturation"),
  });
  const address = new URLSearchParams(location.search);
  let data = null;
  let api = ""; // the address `data` was read from (data-api of the tables)
  let scenarioColours = {}; // scenario id -> colour, for every chart of the page
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

  function byLimit(s) {
    // A resource limit reached before the counter's point decides the scenario's figure (the API's binding).
    return s.binding && s.binding.by === "limit" ? s.binding : null;
  }

  function plotted(s) {
    // Where the bar goes: the binding figure, the point itself, or the step that bounds it.
    const steps = s.steps.map(function (step) { return step.users; });
    if (byLimit(s)) return s.binding.users;
    if (s.bound === "interpolated" || s.bound === "extrapolated") {
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

  function boundOf(s) {
    return byLimit(s) ? s.binding.bound : s.bound;
  }

  function intervalOf(s) {
    return byLimit(s) ? s.binding.interval : s.interval;
  }

  function barText(s) {
    // The API's own wording, so bar and table round alike: "912", "> 1,000", "< 100".
    if (byLimit(s)) return (s.binding.bound === "below_first_step" ? "< " : "") + P.fmt(s.binding.users, 0);
    return plotted(s) === null ? "" : s.saturation_text.replace(/ users.*$/, "");
  }

  function counterName() {
    return data.counter.indexOf("% Processor Time") >= 0 ? "CPU" : data.counter.split("\\").pop();
  }

  function decidedText(s) {
    // "disk queue, before CPU (912)" when a limit decides; the counter's own name otherwise.
    const limit = byLimit(s);
    if (!limit) return counterName() + " at " + withUnit(data.threshold, data.counter);
    // A timing limit by its timing ("logon time"): its whole sentence is in the limits table.
    const what = limit.resource === "timing" ? limit.counter + " time" : name(limit.resource);
    return what + ", before " + counterName() + " (" + s.saturation_text.replace(/ users.*$/, "") + ")";
  }

  function otherFigures(s) {
    // The tooltip's other figures: the counter at the threshold and every limit.
    const lines = [];
    if (byLimit(s)) lines.push(counterName() + " at " + withUnit(data.threshold, data.counter) + ": " + s.saturation_text);
    (s.limits || []).forEach(function (limit) {
      if (limit.counter !== s.binding.counter) lines.push(name(limit.resource) + " (" + limit.counter + "): " + limit.text);
    });
    return lines;
  }

  function intervalText(s) {
    const interval = intervalOf(s);
    return interval ? P.fmt(interval[0], 0) + " – " + P.fmt(interval[1], 0) : "";
  }

  function limitingText(s) {
    if (!s.limiting) return "";
    // A run with several servers: say which one reached it (their counters are never averaged).
    const on = s.per_host && s.per_host.length && s.limiting.host ? " on " + s.limiting.host : "";
    const text = s.limiting.resource.replace(/_/g, " ") + on + " at " + P.fmt(s.limiting.users, 0);
    if (!s.runner_up) return text;
    return text + ", " + P.fmt(s.runner_up.margin, 0) + " before " + s.runner_up.resource.replace(/_/g, " ");
  }

  function setupBreakdown(varying) {
    if (!breakdown && (address.has("groups") || address.has("colour"))) {
      // The address's own choice (a reload, a bookmark), keeping only dimensions that vary.
      const colour = address.get("colour") || "";
      breakdown = { colour: varying.indexOf(colour) >= 0 ? colour : "",
        groups: (address.get("groups") || "").split(",").filter(function (d) {
          return varying.indexOf(d) >= 0 && d !== colour;
        }) };
    }
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
        keepBreakdown();
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

  function keepBreakdown() {
    // In the address, so a reload or "Share this view" keeps the grouping and colours.
    const current = new URLSearchParams(location.search);
    current.set("groups", breakdown.groups.join(","));
    current.set("colour", breakdown.colour);
    history.replaceState(null, "", "?" + current.toString());
  }

  function colourMap(names) {
    // One colour per scenario, or per value of the "coloured by" dimension: the same on every chart.
    const keys = [];
    const map = {};
    data.scenarios.forEach(function (s) {
      const key = breakdown.colour ? breakdown.colour + "=" + (s.dims[breakdown.colour] || "—") : names[s.scenario];
      if (keys.indexOf(key) < 0) keys.push(key);
      map[s.scenario] = H.PALETTE[keys.indexOf(key) % H.PALETTE.length];
    });
    return map;
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
      if (plotted(s) === null) return;
      const cell = cells[key] || (cells[key] = { shown: s, members: [] });
      cell.members.push(s);
      // Several scenarios in one bar: show the most conservative (fewest users).
      if (plotted(s) < plotted(cell.shown)) cell.shown = s;
    });
    const merged = Object.keys(cells).some(function (key) { return cells[key].members.length > 1; });
    const names = shortNames(scenarios);
    const decided = scenarios.filter(byLimit).map(function (s) {
      return names[s.scenario] + ": " + barText(s) + " users, " + decidedText(s);
    });
    saturationCard.note.textContent = "Each bar is the lowest of the counter's point and every resource limit " +
      "reached first" + (decided.length ? "; decided by a limit: " + decided.join("; ") : "") + ". " +
      (merged ? "A bar marked “merged” holds several scenarios of the grouping and " +
      "shows the lowest of them; its tooltip and the CSV list them." : "");
    labels.sort(new Intl.Collator(undefined, { numeric: true }).compare);
    const rows = [];
    const datasets = colours.map(function (colour) {
      const found = labels.map(function (group) { return cells[group + "\u0000" + colour] || null; });
      const picked = found.map(function (cell) { return cell ? cell.shown : null; });
      const together = found.map(function (cell) {
        return cell && cell.members.length > 1 ? cell.members.map(function (m) { return m.label; }) : null;
      });
      const own = picked.filter(Boolean).map(function (s) { return scenarioColours[s.scenario]; })[0] || H.PALETTE[0];
      const base = picked.map(function (s) { return s ? scenarioColours[s.scenario] : own; });
      picked.forEach(function (s, i) {
        if (s) {
          rows.push({ group: labels[i], colour: colour, scenario: s.label, saturation_users: s.saturation_users,
            bound: s.bound, saturation_text: s.saturation_text, plotted: plotted(s),
            binding_resource: s.binding ? s.binding.resource : "", binding_counter: s.binding ? s.binding.counter : "",
            binding_users: s.binding ? s.binding.users : null,
            interval_low: intervalOf(s) ? intervalOf(s)[0] : null, interval_high: intervalOf(s) ? intervalOf(s)[1] : null,
            limiting_resource: s.limiting ? s.limiting.resource : "", limiting_users: s.limiting ? s.limiting.users : null,
            runner_up: s.runner_up ? s.runner_up.resource : "", margin: s.runner_up ? s.runner_up.margin : null,
            merged_scenarios: together[i] ? together[i].join(" | ") : "" });
        }
      });
      return {
        label: colour,
        data: picked.map(function (s) { return s ? plotted(s) : null; }),
        barText: picked.map(function (s, i) {
          return s ? barText(s) + (together[i] ? " (" + together[i].length + " merged)" : "") : "";
        }),
        merged: together,
        legendColour: own,
        decided: picked.map(function (s) { return s ? otherFigures(s) : []; }),
        deciding: picked.map(function (s) { return s && byLimit(s) ? "decided by " + name(s.binding.resource) : ""; }),
        backgroundColor: picked.map(function (s, i) {
          return s && boundOf(s) !== "interpolated" ? "rgba(255,255,255,0)" : base[i];
        }),
        borderColor: base,
        borderWidth: picked.map(function (s) { return s && boundOf(s) === "extrapolated" ? 0 : 2; }),
        dashed: picked.map(function (s) { return Boolean(s && boundOf(s) === "extrapolated"); }),
        errorBars: picked.map(function (s) { return s && intervalOf(s) ? intervalOf(s) : null; }),
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
        options: { plugins: { legend: { display: Boolean(breakdown.colour), labels: { generateLabels: function (chart) {
          // The colour of the value, not of the first bar (which may be hollow, or another group's).
          return Chart.defaults.plugins.legend.labels.generateLabels(chart).map(function (item) {
            item.fillStyle = item.strokeStyle = chart.data.datasets[item.datasetIndex].legendColour;
            return item;
          });
        } } }, tooltip: { callbacks: {
          afterLabel: function (context) {
            const names = context.dataset.merged[context.dataIndex];
            const deciding = context.dataset.deciding[context.dataIndex];
            const others = context.dataset.decided[context.dataIndex];
            return (deciding ? [deciding] : []).concat(others.length ? ["other figures:"].concat(others) : [])
              .concat(names ? ["merged, lowest shown:"].concat(names) : []);
          } } } }, layout: { padding: { top: 18 } } },
      });
    }, ["group", "colour", "scenario", "saturation_users", "bound", "saturation_text", "plotted", "binding_resource",
      "binding_counter", "binding_users", "interval_low",
      "interval_high", "limiting_resource", "limiting_users", "runner_up", "margin", "merged_scenarios"], rows);
  }

  function shortNames(scenarios) {
    const keys = P.varyingDims(scenarios);
    const names = {};
    scenarios.forEach(function (s) { names[s.scenario] = P.shortLabel(s.dims, keys); });
    return names;
  }

  function drawSaturationTable(names, varying) {
    P.located(data.scenarios, "/scenarios");
    data.scenarios.forEach(function (s) { P.located(s.steps, s._at + "/steps"); });
    document.getElementById("saturation-table").setAttribute("data-api", api);
    const rows = data.scenarios.map(function (s) {
      const runs = Math.max.apply(null, s.steps.map(function (step) { return step.runs; }).concat([0]));
      return Object.assign({ attrs: { "data-scenario": s.scenario }, name: names[s.scenario], runs: runs,
        intervalText: intervalText(s), limitingText: limitingText(s), bindingText: barText(s),
        decidedText: decidedText(s) }, s.dims, s);
    });
    const idColumns = varying.length ? varying.map(function (d) { return { key: d, label: d }; })
      : [{ key: "name", label: "Scenario" }];
    document.getElementById("saturation-table").replaceChildren(P.table(
      idColumns.concat([
        { key: "bindingText", label: "Users per server", num: true, cellClass: "binding",
          sort: function (v, row) { return plotted(row); } },
        { key: "decidedText", label: "Decided by", figure: function (v, row) {
          return byLimit(row) ? { at: row._at + "/saturation_users", unit: "users", value: row.saturation_users }
            : { at: "/threshold", unit: unitOf(data.counter), value: data.threshold }; } },
        { key: "intervalText", label: "95 % interval", cellClass: "nowrap" },
        { key: "saturation_text", label: "Users before saturation", num: true, cellClass: "saturation",
          sort: function (v, row) { return row.saturation_users; }, figure: P.field("") },
        { key: "bound", label: "Bound", format: function (v) { return v.replace(/_/g, " "); } },
        { key: "limitingText", label: "Limiting resource (runner-up)", cellClass: "limiting" },
        { key: "steps_used", label: "Steps", num: true },
        { key: "samples_used", label: "Samples", num: true, format: function (v) { return P.fmt(v, 0); } },
        { key: "runs", label: "Runs", num: true },
      ]), rows));
  }

  function render() {
    const varying = P.varyingDims(data.scenarios);
    const names = shortNames(data.scenarios);
    setupBreakdown(varying);
    scenarioColours = colourMap(names);
    drawSaturation();
    drawSaturationTable(names, varying);
    document.getElementById("method-text").textContent = data.method;
    document.getElementById("lead-counter").textContent = data.counter;
    document.getElementById("lead-stat").textContent = STAT_NAMES[data.stat];
    document.getElementById("lead-threshold").textContent = withUnit(data.threshold, data.counter);
    document.getElementById("threshold-unit").textContent = unitOf(data.counter);
    status.textContent = data.scenarios.length + " scenarios with load steps · " + data.counter + " · " +
      STAT_NAMES[data.stat] + " ≥ " + withUnit(data.threshold, data.counter) + " · steps trimmed by " + P.fmt(data.trim_pct, 2) + " %";
    document.dispatchEvent(new CustomEvent("capacity:data", { detail: { data: data, api: api, names: names,
      colours: scenarioColours, unit: unitOf(data.counter), statName: STAT_NAMES[data.stat],
      thresholdText: withUnit(data.threshold, data.counter), caption: caption } }));
    document.body.setAttribute("data-state", "ready");
  }

  async function load() {
    const query = new URLSearchParams(params());
    // Other controls (the sizing form) keep their own values in the URL too.
    const address = new URLSearchParams(location.search);
    query.forEach(function (value, key) { address.set(key, value); });
    history.replaceState(null, "", "?" + address.toString());
    document.body.setAttribute("data-state", "loading");
    status.textContent = "Loading…";
    try {
      api = page.api + "?" + query.toString();
      data = await P.fetchJson(api);
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
    keepBreakdown();
    // The colour map follows the "coloured by" choice: redraw every chart with it.
    render();
  });
  load();
})();
