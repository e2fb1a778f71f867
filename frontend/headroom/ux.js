/**
 * Capacity planner, "User experience" section (shown when the campaign has timings on the user axis): per
 * scenario the chosen timing's per-step mean against users with its p95 band, baseline, threshold and the
 * crossing (headroom/ux_chart.js), under it the saturation and limits sentence, and the per-step table,
 * from GET /api/v1/campaigns/{slug}/capacity?timing=&baseline=&delta_ms=|factor= (page.api).
 *
 * The rule lives in the page's address as timing, ux_baseline (first_step or lowest:N), delta_ms or factor
 * (read and checked by the server first: webapp/analysis/ux_choice.py), so a reload or "Share this view"
 * keeps it. Scenario names and colours follow the capacity charts ("capacity:data"). Every printed figure
 * is marked for the display oracle (HeadroomPages.figure); the section gets data-state="ready" once drawn.
 */
(function () {
  "use strict";

  const H = window.Headroom;
  const P = window.HeadroomPages;
  const page = P.pageData();
  const section = document.getElementById("ux");
  if (!section || !page.ux) return;
  const form = document.getElementById("ux-form");
  const status = document.getElementById("ux-status");
  const slot = document.getElementById("slot-ux");
  let rule = Object.assign({}, page.ux);
  let body = null;
  let api = "";
  let capacity = null; // the capacity page's names and colours, once it has drawn

  function fillForm() {
    form.elements.timing.value = rule.timing;
    const lowest = rule.baseline.indexOf("lowest:") === 0;
    form.elements.ux_base.value = lowest ? "lowest" : "first_step";
    form.elements.ux_lowest.value = lowest ? rule.baseline.split(":")[1] : "";
    form.elements.ux_margin.value = rule.factor !== null && rule.factor !== undefined ? "factor" : "delta_ms";
    form.elements.ux_amount.value = rule.factor !== null && rule.factor !== undefined ? rule.factor : rule.delta_ms;
  }

  function fromForm() {
    const lowest = form.elements.ux_base.value === "lowest";
    const margin = form.elements.ux_margin.value;
    const amount = form.elements.ux_amount.value.trim();
    return {
      timing: form.elements.timing.value,
      baseline: lowest ? "lowest:" + (form.elements.ux_lowest.value.trim() || "1") : "first_step",
      delta_ms: margin === "delta_ms" ? amount || "1000" : null,
      factor: margin === "factor" ? amount || "2" : null,
    };
  }

  function query() {
    const q = new URLSearchParams({ timing: rule.timing, baseline: rule.baseline });
    if (rule.factor !== null && rule.factor !== undefined) q.set("factor", rule.factor);
    else q.set("delta_ms", rule.delta_ms);
    return q;
  }

  function keepInAddress() {
    const address = new URLSearchParams(location.search);
    address.set("timing", rule.timing);
    address.set("ux_baseline", rule.baseline);
    ["delta_ms", "factor"].forEach(function (key) {
      if (rule[key] !== null && rule[key] !== undefined) address.set(key, rule[key]); else address.delete(key);
    });
    history.replaceState(null, "", "?" + address.toString());
  }

  function names() {
    const varying = P.varyingDims(body.scenarios);
    const out = {};
    body.scenarios.forEach(function (s) {
      out[s.scenario] = (capacity && capacity.names[s.scenario]) || P.shortLabel(s.dims, varying);
    });
    return out;
  }

  function mark(text, at, unit, value) {
    return P.figure(P.el("span", { text: text }), at, unit, value);
  }

  function usersMark(value, at, digits) {
    return mark(P.fmt(value, digits) + " users", at, "users", value);
  }

  // "logon time exceeds its baseline by 1 s at 566.7 users (interpolated, 95 % interval 560 – 574 users)."
  function crossingItem(s, i) {
    const at = "/scenarios/" + i;
    const parts = [P.el("strong", { text: body.threshold_text + ": " })];
    if (s.bound === "interpolated" || s.bound === "extrapolated") {
      parts.push(s.bound === "extrapolated" ? "about " : "at ", usersMark(s.saturation_users, at + "/saturation_users",
        s.bound === "extrapolated" ? 0 : 1), " (" + s.bound);
      if (s.interval) {
        parts.push(", 95 % interval ", P.figure(P.el("span", { text: P.fmt(s.interval[0], 0) + " – " +
          P.fmt(s.interval[1], 0) + " users" }), at + "/interval/0 " + at + "/interval/1", "users|users", s.interval));
      }
      parts.push(").");
    } else {
      parts.push(mark(s.saturation_text, at + "/saturation_text", "", s.saturation_text), ".");
    }
    const shown = H.uxShown(body);
    if (s.baseline_ms !== null) {
      parts.push(" Baseline ", mark(H.units.text(s.baseline_ms, "ms", shown), at + "/baseline_ms", "ms", s.baseline_ms),
        ", threshold ", mark(H.units.text(s.threshold_ms, "ms", shown), at + "/threshold_ms", "ms", s.threshold_ms), ".");
    }
    return P.el("li", { "data-ux": "crossing" }, parts);
  }

  function limitWords(row) {
    if (!row) return "";
    if (row.limit_text) return row.limit_text;
    return row.resource === "cpu" ? "CPU" : String(row.resource).replace(/_/g, " ");
  }

  // "Limiting: logon time exceeds its baseline by 1 s at 567 users; runner-up: CPU at 833 users (267 users later)."
  function limitsItem(s, i) {
    const at = "/scenarios/" + i;
    if (!s.limiting) return P.el("li", { "data-ux": "limits", className: "muted", text: "No limit reached in the tested steps." });
    const parts = [P.el("strong", { text: "Limiting: " }), limitWords(s.limiting) + " at ",
      usersMark(s.limiting.users, at + "/limiting/users", 0)];
    if (s.runner_up) {
      parts.push("; runner-up: " + limitWords(s.runner_up) + " at ", usersMark(s.runner_up.users, at + "/runner_up/users", 0),
        " (", usersMark(s.runner_up.margin, at + "/runner_up/margin", 0), " later)");
    }
    parts.push(".");
    return P.el("li", { "data-ux": "limits" }, parts);
  }

  function caption(name, s) {
    return function () {
      return [(page.title ? page.title + " — " : "") + body.timing + " time against users — " + name,
        "Mean per step, shaded to the 95th percentile · baseline (" + body.baseline + ") " +
        H.units.text(s.baseline_ms, "ms", H.uxShown(body)) + " · threshold " +
        H.units.text(s.threshold_ms, "ms", H.uxShown(body)) + " (" + body.threshold_text + ") · crossing " +
        H.uxCrossingText(s)];
    };
  }

  function drawScenarios(shown) {
    slot.replaceChildren();
    body.scenarios.forEach(function (s, i) {
      const name = shown[s.scenario];
      const card = P.chartCard(slot, {
        title: name, heading: "h3",
        filename: "ux-" + (body.timing + "-" + name).replace(/[^A-Za-z0-9.]+/g, "-") + ".csv",
        caption: caption(name, s),
      });
      card.element.setAttribute("data-api", api);
      card.element.setAttribute("data-scenario", s.scenario);
      card.element.appendChild(P.el("ul", { className: "remarks ux-sentences" }, [crossingItem(s, i), limitsItem(s, i)]));
      const colour = capacity ? capacity.colours[s.scenario] : H.PALETTE[i % H.PALETTE.length];
      const csv = H.uxCsv(body, s);
      if (!s.steps.length) {
        card.empty("No " + body.timing + " timings on the user axis.");
        return;
      }
      card.draw(function (canvas) { return H.uxChart(canvas, body, s, colour); }, csv.columns, csv.rows);
    });
  }

  function drawTable(shown) {
    const unit = H.uxShown(body);
    const rows = [];
    P.located(body.scenarios, "/scenarios");
    body.scenarios.forEach(function (s) {
      P.located(s.steps, s._at + "/steps");
      s.steps.forEach(function (step) {
        rows.push(Object.assign({ name: shown[s.scenario], attrs: { "data-scenario": s.scenario } }, step));
      });
    });
    const ms = function (v) { return H.units.text(v, "ms", unit); };
    const columns = [
      { key: "name", label: "Scenario", cellClass: "nowrap" },
      { key: "users", label: "Users", num: true, format: function (v) { return P.fmt(v, 0); }, figure: P.field("") },
      { key: "mean", label: "Mean", num: true, cellClass: "nowrap", format: ms, figure: P.field("ms") },
      { key: "p50", label: "Median", num: true, cellClass: "nowrap", format: ms, figure: P.field("ms") },
      { key: "p95", label: "p95", num: true, cellClass: "nowrap", format: ms, figure: P.field("ms") },
      { key: "n", label: "Timings", num: true, figure: P.field("") },
      { key: "hosts", label: "Clients", num: true, figure: P.field("") },
    ];
    const box = document.getElementById("ux-table");
    box.setAttribute("data-api", api);
    box.replaceChildren(rows.length ? P.table(columns, rows) : P.el("p", { className: "muted", text: "No steps." }));
  }

  function draw() {
    const shown = names();
    document.getElementById("ux-method").textContent = body.method;
    document.getElementById("ux-table-title").textContent = body.timing + " per step";
    status.textContent = body.scenarios.length + " scenarios with " + body.timing + " timings on the user axis · " +
      body.threshold_text;
    if (!body.scenarios.length) slot.replaceChildren(P.el("p", { className: "empty-state", text: "No scenario has " +
      body.timing + " timings inside its load steps." }));
    else drawScenarios(shown);
    drawTable(shown);
    section.setAttribute("data-state", "ready");
  }

  async function load() {
    section.setAttribute("data-state", "loading");
    status.textContent = "Loading…";
    api = page.api + "?" + query().toString();
    try {
      body = await P.fetchJson(api);
    } catch (error) {
      status.textContent = "Could not compute: " + error.message;
      section.setAttribute("data-state", "error");
      return;
    }
    draw();
  }

  form.addEventListener("submit", function (event) {
    event.preventDefault();
    rule = fromForm();
    keepInAddress();
    load();
  });
  form.elements.ux_base.addEventListener("change", function () {
    form.elements.ux_lowest.disabled = form.elements.ux_base.value !== "lowest";
  });
  document.addEventListener("capacity:data", function (event) {
    capacity = event.detail;
    // capacity.js rewrote the address with its own parameters: keep the rule beside them.
    keepInAddress();
    if (body) draw();
  });
  fillForm();
  form.elements.ux_lowest.disabled = form.elements.ux_base.value !== "lowest";
  keepInAddress();
  load();
})();
