/**
 * "Where the logon time goes": a stacked bar of the mean logon phases per scenario, the means per phase and
 * the phases compared with a baseline, drawn from one GET /api/v1/campaigns/{slug}/logon-phases answer
 * (webapp/analysis/logon_phases.py). The compare page fetches it; a share report embeds the same answer.
 *
 *   HeadroomPhases.render(root, data, opts)  fills `root` (hidden when the answer has no phases) and marks every
 *     printed figure with its place in the answer (data-key; root's data-api names the answer).
 *     opts: {api, onBaseline(id)}: `onBaseline` adds the baseline picker (the dashboard); without it the
 *     baseline is named (a share report, whose baseline is frozen).
 *
 * The bar stacks the phases that follow each other in a logon: profile load, each Group Policy extension,
 * the rest of the user policy (its time outside the extensions), shell start. Logon scripts are timed inside
 * the policy run (4018 -> 5018 of the same 4001), so they are listed, not stacked a second time. A phase not
 * in a scenario's logs is left out of its bar and named under the chart, never drawn as 0; the inferred
 * phase (shell start) is outlined dashed.
 */
(function (global) {
  "use strict";

  const H = global.Headroom;
  const U = H.units;
  const P = global.HeadroomPages;
  const OTHER = "group_policy_other";
  const MISSING = "not in the uploaded logs";

  function el(tag, attrs, children) {
    return P.el(tag, attrs, children);
  }

  function factorText(value) {
    return value === null || value === undefined ? "—" : P.fmt(value, value >= 100 ? 0 : value >= 10 ? 1 : 3) + "×";
  }

  // The segments of a bar, in logon order: [{phase, label, inferred, value(scenario) -> {mean_ms, n, at}}].
  function segments(data) {
    const found = [];
    const policyIndex = data.phases.findIndex(function (p) { return p.phase === "group_policy"; });
    data.phases.forEach(function (about, index) {
      const fromApi = function (s, i) {
        const p = s.phases[index];
        return { mean_ms: p.mean_ms, n: p.n, at: "/scenarios/" + i + "/phases/" + index };
      };
      if (about.phase === "profile" || about.phase === "shell" || about.within === "group_policy") {
        found.push({ phase: about.phase, label: about.label, inferred: about.inferred, value: fromApi });
      }
      const last = data.phases.slice(index + 1).every(function (p) { return p.within !== "group_policy"; });
      if (policyIndex >= 0 && index >= policyIndex && last && !found.some(function (f) { return f.phase === OTHER; })) {
        found.push({ phase: OTHER, label: "Group Policy, other (outside the extensions)", inferred: false,
          value: function (s, i) {
            return { mean_ms: s.group_policy_other_ms, n: s.phases[policyIndex].n,
              at: "/scenarios/" + i + "/group_policy_other_ms" };
          } });
      }
    });
    return found;
  }

  // The table's rows: every phase of the answer, the rest of the user policy after its extensions.
  function tableRows(data, names) {
    const rows = [];
    const other = segments(data).find(function (s) { return s.phase === OTHER; });
    data.phases.forEach(function (about, index) {
      rows.push({ phase: about.label + (about.within ? " (in Group Policy)" : ""), cells: data.scenarios.map(function (s, i) {
        const p = s.phases[index];
        return { mean: p.mean_ms, stdev: p.stdev_ms, n: p.n, missing: p.missing, at: "/scenarios/" + i + "/phases/" + index };
      }) });
      const next = data.phases[index + 1];
      if (other && (about.within === "group_policy" || about.phase === "group_policy") &&
          !(next && next.within === "group_policy")) {
        rows.push({ phase: other.label, cells: data.scenarios.map(function (s, i) {
          const v = other.value(s, i);
          return { mean: v.mean_ms, stdev: null, n: null, missing: v.mean_ms === null, at: v.at, other: true };
        }) });
      }
    });
    rows.forEach(function (row) {
      row.unit = U.shown("ms", row.cells.map(function (c) { return c.mean; }));
      data.scenarios.forEach(function (s, i) { row["s" + i] = row.cells[i]; });
    });
    return { rows: rows, names: names };
  }

  function meanCell(unit) {
    return function (c) {
      if (c.missing) return MISSING;
      const spread = c.stdev === null ? "" : " ± " + U.number(c.stdev, "ms", unit);
      return U.number(c.mean, "ms", unit) + spread + " " + unit + (c.n === null ? "" : " (n=" + c.n + ")");
    };
  }

  function meanFigure(c) {
    if (c.missing) return null;
    if (c.other) return { at: c.at, unit: "ms", value: c.mean };
    const keys = [c.at + "/mean_ms"].concat(c.stdev === null ? [] : [c.at + "/stdev_ms"], [c.at + "/n"]);
    const units = ["ms"].concat(c.stdev === null ? [] : ["ms"], [""]);
    return { at: keys.join(" "), unit: units.join("|"), value: null };
  }

  function logonCount(s) {
    const counts = s.phases.map(function (p) { return p.n; });
    const most = Math.max.apply(null, counts);
    return (counts.every(function (n) { return n === most || n === 0; }) ? "" : "up to ") + most +
      (most === 1 ? " logon" : " logons");
  }

  function drawChart(card, data, names, parts) {
    const totalIndex = data.phases.findIndex(function (p) { return p.phase === "total"; });
    const all = [];
    data.scenarios.forEach(function (s, i) {
      parts.forEach(function (seg) { all.push(seg.value(s, i).mean_ms); });
      if (totalIndex >= 0) all.push(s.phases[totalIndex].mean_ms);
    });
    const unit = U.shown("ms", all);
    const labels = data.scenarios.map(function (s) {
      const total = totalIndex >= 0 ? s.phases[totalIndex] : null;
      // One short line each: the labels beside the bars stay readable on a phone.
      return [names[s.scenario], logonCount(s), "total " + (total && !total.missing ? U.text(total.mean_ms, "ms", unit)
        : "not in the logs")];
    });
    const datasets = parts.map(function (seg) {
      const values = data.scenarios.map(function (s, i) { return seg.value(s, i); });
      return {
        label: seg.label, phase: seg.phase, skipNull: true,
        data: values.map(function (v) { return v.mean_ms === null ? null : U.convert(v.mean_ms, "ms", unit); }),
        n: values.map(function (v) { return v.n; }),
        dashed: values.map(function (v) { return seg.inferred && v.mean_ms !== null; }),
        maxBarThickness: 44,
      };
    });
    const csvRows = [];
    data.scenarios.forEach(function (s, i) {
      parts.forEach(function (seg) {
        const v = seg.value(s, i);
        csvRows.push({ scenario: s.label, phase: seg.phase, label: seg.label, mean_ms: v.mean_ms, n: v.n,
          inferred: seg.inferred, missing: v.mean_ms === null });
      });
    });
    card.element.querySelector(".chart-box").style.height = Math.max(200, 120 + data.scenarios.length * 64) + "px";
    card.draw(function (canvas) {
      const chart = H.barChart(canvas, {
        labels: labels, datasets: datasets, horizontal: true, stacked: true,
        xLabel: "mean time per logon (" + unit + ")",
        options: {
          plugins: {
            legend: { display: true },
            tooltip: { callbacks: { label: function (context) {
              const d = context.dataset;
              return d.label + ": " + U.text(context.raw, unit, unit) + " (n=" + d.n[context.dataIndex] + ")";
            } } },
          },
        },
      });
      // What the chart draws, in its unit, for the tests that read it back against the API.
      canvas.setAttribute("data-unit", unit);
      return chart;
    }, ["scenario", "phase", "label", "mean_ms", "n", "inferred", "missing"], csvRows);
    return unit;
  }

  function missingList(data, names) {
    const items = data.scenarios.map(function (s) {
      const gone = s.phases.filter(function (p) { return p.missing; }).map(function (p) { return p.label; });
      return gone.length ? el("li", { text: names[s.scenario] + ": " + gone.join(", ") }) : null;
    }).filter(Boolean);
    if (!items.length) return el("p", { className: "muted small", text: "Every phase is in every scenario's logs." });
    return el("div", { className: "phases-missing" }, [
      el("p", { className: "small", text: "Not in the uploaded logs (left out of the bars, not drawn as 0):" }),
      el("ul", { className: "small" }, items),
    ]);
  }

  function comparisonTable(data, names) {
    P.located(data.comparisons, "/comparisons");
    const short = {};
    data.scenarios.forEach(function (s) { short[s.label] = names[s.scenario]; });
    const rows = data.comparisons.map(function (c) {
      return Object.assign({ name: names[c.scenario] }, c);
    });
    return P.table([
      { key: "label", label: "Phase" },
      { key: "name", label: "Scenario", cellClass: "nowrap" },
      { key: "n", label: "n (scenario / baseline)", num: true, format: function (v) { return v[0] + " / " + v[1]; },
        sort: function (v) { return v[0]; },
        figure: function (v, r) { return { at: r._at + "/n/0 " + r._at + "/n/1", unit: "|", value: null }; } },
      { key: "factor", label: "Factor", num: true, format: factorText, figure: P.field("×") },
      { key: "interval", label: "95 % interval", num: true, cellClass: "nowrap",
        format: function (v) { return v ? factorText(v[0]) + " – " + factorText(v[1]) : "—"; },
        sort: function (v) { return v ? v[0] : null; },
        figure: function (v, r) {
          return v ? { at: r._at + "/interval/0 " + r._at + "/interval/1", unit: "×|×", value: null }
            : { at: r._at + "/interval", unit: "×", value: null };
        } },
      { key: "verdict", label: "Verdict", format: function (v, r) {
        return v === "missing" ? MISSING + " of " + r.missing_in.map(function (label) { return short[label] || label; })
          .join(", ") : v;
      } },
    ], rows, "Logon phases compared with the baseline");
  }

  function render(root, data, opts) {
    root.setAttribute("data-api", opts.api);
    root.hidden = !data.has_phases;
    root.replaceChildren();
    if (!data.has_phases) {
      root.setAttribute("data-state", "ready");
      return;
    }
    P.located(data.scenarios, "/scenarios");
    const keys = P.varyingDims(data.scenarios);
    const names = {};
    data.scenarios.forEach(function (s) { names[s.scenario] = P.shortLabel(s.dims, keys); });
    const intro = el("section", { className: "card" }, [
      el("h2", { text: "Where the logon time goes" }),
      el("p", { className: "muted small", text: "Each logon's phases from the Windows event logs uploaded for its " +
        "scenario: the mean of each phase over the logons found (n), stacked in logon order. Logon scripts run " +
        "inside the Group Policy run, so they are in the table and not stacked again. Dashed outline: inferred " +
        "(the shell start; no event marks it)." }),
    ]);
    if (opts.onBaseline) {
      const select = el("select", { id: "f-phases-baseline", name: "phases_baseline" },
        data.scenarios.map(function (s) {
          return el("option", { value: s.scenario, selected: data.baseline && s.scenario === data.baseline.scenario,
            text: s.label });
        }));
      select.addEventListener("change", function () { opts.onBaseline(select.value); });
      intro.appendChild(el("div", { className: "filters no-print" }, [el("div", { className: "field" }, [
        el("label", { for: "f-phases-baseline", text: "Baseline for the phases" }), select])]));
    }
    root.appendChild(intro);
    const card = P.chartCard(root, { title: "Mean logon phases per scenario", filename: "logon-phases.csv",
      caption: function () { return ["Where the logon time goes", "Mean per phase; dashed: inferred"]; } });
    const parts = segments(data);
    drawChart(card, data, names, parts);
    card.element.appendChild(missingList(data, names));

    const table = tableRows(data, names);
    root.appendChild(el("section", { className: "card" }, [
      el("h3", { text: "Mean per phase" }),
      P.table([{ key: "phase", label: "Phase" }].concat(data.scenarios.map(function (s, i) {
        return { key: "s" + i, label: names[s.scenario], num: true, cellClass: "nowrap",
          format: function (c, row) { return meanCell(row.unit)(c); },
          sort: function (c) { return c.mean; }, figure: meanFigure };
      })), table.rows, "Mean per logon phase and scenario"),
    ]));
    const base = data.baseline ? names[data.baseline.scenario] : "";
    root.appendChild(el("section", { className: "card" }, [
      el("h3", { text: "Phases compared with " + base }),
      el("p", { className: "muted small", text: "Baseline: " + (data.baseline ? data.baseline.label : "") +
        ". Factor = the scenario's mean / the baseline's; the interval and verdict need two or more logons " +
        "on each side, else \u201ctoo few runs\u201d." }),
      data.comparisons.length ? comparisonTable(data, names)
        : el("p", { className: "muted", text: "Only one scenario has logon phases: nothing to compare." }),
      el("p", { className: "small" }, [el("strong", { text: "Method. " }), data.method]),
    ]));
    root.setAttribute("data-state", "ready");
  }

  // The compare page asks the API (again when the baseline changes, kept in the address as phases_baseline,
  // which "Share this view" freezes); a share report embeds the answer (#logon-phases-data).
  async function boot(root) {
    const embedded = document.getElementById("logon-phases-data");
    if (embedded) {
      render(root, JSON.parse(embedded.textContent), { api: root.getAttribute("data-source") });
      return;
    }
    async function load(baseline) {
      const address = new URLSearchParams(global.location.search);
      if (baseline) address.set("phases_baseline", baseline);
      global.history.replaceState(null, "", "?" + address.toString());
      const api = root.getAttribute("data-source") + (baseline ? "?baseline=" + encodeURIComponent(baseline) : "");
      root.setAttribute("data-state", "loading");
      try {
        render(root, await P.fetchJson(api), { api: api, onBaseline: load });
      } catch (error) {
        root.hidden = false;
        root.setAttribute("data-state", "error");
        root.replaceChildren(el("p", { className: "status", text: "Could not load the logon phases: " + error.message }));
      }
    }
    load(new URLSearchParams(global.location.search).get("phases_baseline") || "");
  }

  const root = document.getElementById("logon-phases");
  if (root) boot(root);

  global.HeadroomPhases = { render: render, segments: segments };
})(typeof globalThis !== "undefined" ? globalThis : this);
