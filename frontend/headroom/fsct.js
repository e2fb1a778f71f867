/**
 * Capacity planner, FSCT section (shown only when the campaign has FSCT results): FSCT's throughput and
 * response times against users with the overload step marked (headroom/fsct_chart.js), each scenario's
 * overload step in words, and the per-step table, from GET /api/v1/campaigns/{slug}/fsct (page.fsct_api).
 * Scenario names and colours follow the capacity charts ("capacity:data") when the scenario is on them.
 * Every printed figure is marked for the display oracle (HeadroomPages.figure); the section gets
 * data-state="ready" once drawn.
 */
(function () {
  "use strict";

  const H = window.Headroom;
  const P = window.HeadroomPages;
  const page = P.pageData();
  const section = document.getElementById("fsct");
  if (!section || !page.fsct_api) return;
  const card = P.chartCard("slot-fsct", {
    title: "FSCT: throughput and response time against users", filename: "fsct-curves.csv", size: "tall",
    caption: function () {
      return [(page.title ? page.title + " — " : "") + "FSCT: throughput and response time against users",
        "Throughput in scenarios/s (left), mean response time per FSCT operation in ms (right); red triangles: " +
        "overloaded steps"];
    },
  });
  let body = null;
  let capacity = null; // the capacity page's names and colours, once it has drawn

  function names() {
    const varying = P.varyingDims(body.scenarios);
    const out = {};
    body.scenarios.forEach(function (s) {
      out[s.scenario] = (capacity && capacity.names[s.scenario]) || P.shortLabel(s.dims, varying);
    });
    return out;
  }

  function drawOverload(shown) {
    const list = document.getElementById("fsct-overload");
    list.setAttribute("data-api", page.fsct_api);
    list.replaceChildren.apply(list, body.scenarios.map(function (s, i) {
      const text = P.figure(P.el("span", { text: s.overload_text }), "/scenarios/" + i + "/overload_text", "",
        s.overload_text);
      return P.el("li", { "data-scenario": s.scenario }, [P.el("strong", { text: shown[s.scenario] + ": " }), text]);
    }));
  }

  function drawTable(shown) {
    const rows = [];
    const operations = [];
    body.scenarios.forEach(function (s, i) {
      s.operations.forEach(function (op) { if (operations.indexOf(op) < 0) operations.push(op); });
      s.steps.forEach(function (step, k) {
        const row = Object.assign({ _at: "/scenarios/" + i + "/steps/" + k, name: shown[s.scenario],
          attrs: { "data-overload-step": step.users === s.overload_users ? "yes" : "no" } }, step);
        step.responses.forEach(function (r, j) {
          row["op " + r.operation] = r.ms;
          row["at " + r.operation] = "/scenarios/" + i + "/steps/" + k + "/responses/" + j + "/ms";
        });
        rows.push(row);
      });
    });
    const plain = function (unit) {
      return function (v) { return H.units.number(v, unit, unit); };
    };
    const columns = [
      { key: "name", label: "Scenario", cellClass: "nowrap" },
      { key: "users", label: "Users", num: true, format: function (v) { return P.fmt(v, 0); }, figure: P.field("") },
      { key: "throughput_sps", label: "Throughput (scenarios/s)", num: true, format: plain("scenarios/s"),
        figure: P.field("scenarios/s") },
      { key: "overload_pct", label: "Overload", num: true, format: function (v) { return H.units.text(v, "%", "%"); },
        figure: P.field("%") },
      { key: "overloaded", label: "Overloaded", format: function (v) { return v ? "yes" : "no"; } },
      { key: "errors", label: "Errors", num: true, format: function (v) { return P.fmt(v, 0); }, figure: P.field("") },
    ].concat(operations.map(function (op) {
      return { key: "op " + op, label: op, num: true, format: function (v) { return H.units.text(v, "ms"); },
        figure: function (v, row) { return row["at " + op] ? { at: row["at " + op], unit: "ms", value: v } : null; } };
    }));
    const box = document.getElementById("fsct-table");
    box.setAttribute("data-api", page.fsct_api);
    box.replaceChildren(P.table(columns, rows));
  }

  function draw() {
    const shown = names();
    const colours = capacity ? capacity.colours : null;
    drawOverload(shown);
    drawTable(shown);
    card.element.setAttribute("data-api", page.fsct_api);
    if (!body.scenarios.length) {
      card.empty("No FSCT results in this campaign.");
    } else {
      const csv = H.fsctCsv(body, shown);
      card.draw(function (canvas) { return H.fsctChart(canvas, body, shown, colours); }, csv.columns, csv.rows);
    }
    section.setAttribute("data-state", "ready");
  }

  async function load() {
    try {
      body = await P.fetchJson(page.fsct_api);
    } catch (error) {
      card.empty("Could not read the FSCT results: " + error.message);
      section.setAttribute("data-state", "error");
      return;
    }
    document.getElementById("fsct-method").textContent = body.method;
    draw();
  }

  document.addEventListener("capacity:data", function (event) {
    capacity = event.detail;
    if (body) draw();
  });
  load();
})();
