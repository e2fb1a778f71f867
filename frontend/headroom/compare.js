/**
 * Scenario compare: factor tables (seeds 002/004 layout: metrics down, scenarios
 * across) and a factor chart, from GET /api/v1/campaigns/{slug}/compare.
 */
(function () {
  "use strict";

  const H = window.Headroom;
  const U = H.units;
  const P = window.HeadroomPages;
  const page = P.pageData();
  const form = document.getElementById("compare-form");
  const status = document.getElementById("status");
  const card = P.chartCard("slot-factors", { title: "Factor vs baseline", filename: "factors.csv", size: "tall" });
  const box = card.canvas.parentElement;
  const perHostBox = document.getElementById("f-per-host");

  function rowKey(r) {
    // Like with like: the execution's parameters (block size, mix, depth) are part of the row.
    return [r.metric_label || r.metric, r.subject, r.execution].filter(Boolean).join(" — ");
  }

  // One printed unit per row: its mean, stdev, min and max are converted together (Headroom.units).
  function rowUnit(r) {
    return U.shown(r.unit, [r.mean, r.min, r.max]);
  }

  function pText(p) {
    return p === null || p === undefined ? "" : p < 0.001 ? "< 0.001" : p.toFixed(3);
  }

  function visible(r) {
    const show = form.elements.show ? form.elements.show.value : "all";
    return form.elements.metric.value || show === "all" || r.group === show;
  }

  function factorText(r) {
    if (r.factor === null || r.factor === undefined) {
      return "—";
    }
    return P.fmt(r.factor, r.factor >= 100 ? 0 : r.factor >= 10 ? 1 : 3) + "×";
  }

  function valueText(r) {
    const unit = rowUnit(r);
    const spread = r.stdev === null ? "" : " ± " + U.number(r.stdev, r.unit, unit);
    return U.number(r.mean, r.unit, unit) + spread + (unit ? " " + unit : "") + " (n=" + r.n + ")";
  }

  // Where the printed figures are in the API answer (data-key, for tests/browser/test_display_oracle.py).
  function stored(r) {
    return r.unit;
  }

  function valueFigure(v, row) {
    const r = row.baseline;
    const keys = [r._at + "/mean"].concat(r.stdev === null ? [] : [r._at + "/stdev"], [r._at + "/n"]);
    return { at: keys.join(" "), unit: [r.unit].concat(r.stdev === null ? [] : [r.unit], [""]).join("|"), value: null };
  }

  function factorFigure(r) {
    return r ? { at: r._at + "/factor", unit: "×", value: r.factor } : null;
  }

  let lastDetails = [];

  // One row per result; with "Per host", each host's own mean follows a result that several hosts made.
  function detailRows() {
    const out = [];
    lastDetails.forEach(function (r) {
      out.push(Object.assign({ host: r.hosts }, r));
      if (!perHostBox.checked || r.per_host.length < 2) return;
      r.per_host.forEach(function (pair, index) {
        out.push(Object.assign({}, r, { host: pair[0], mean: pair[1], n: null, stdev: null, min: null, max: null,
          factor: null, p_value: null, significant: null, combined: "one host", onHost: index }));
      });
    });
    return out;
  }

  function drawDetails() {
    const details = detailRows();
    const number = function (v, r) { return v === null ? "" : U.number(v, r.unit, rowUnit(r)); };
    const own = function (unit) {
      return function (v, r, key) { return r.onHost === undefined && v !== null ? P.field(unit)(v, r, key) : null; };
    };
    const subjects = details.some(function (r) { return r.subject; }) ? [{ key: "subject", label: "Subject" }] : [];
    const hosts = details.some(function (r) { return r.hosts > 1; }) ? [
      { key: "host", label: "Hosts", figure: function (v, r) { return r.onHost === undefined ? P.field("", "hosts")(v, r)
        : null; } },
      { key: "combined", label: "Hosts combined by" },
    ] : [];
    document.getElementById("detail-table").replaceChildren(P.table([
      { key: "name", label: "Scenario", cellClass: "nowrap" },
      { key: "metric", label: "Metric" },
    ].concat(subjects, [
      { key: "n", label: "n", num: true, figure: own("") },
      { key: "mean", label: "Mean", num: true, format: number, figure: function (v, r, key) {
        return r.onHost === undefined ? P.field(stored)(v, r, key) :
          { at: r._at + "/per_host/" + r.onHost + "/1", unit: r.unit, value: v }; } },
      { key: "stdev", label: "Stdev", num: true, format: number, figure: own(stored) },
      { key: "min", label: "Min", num: true, format: number, figure: own(stored) },
      { key: "max", label: "Max", num: true, format: number, figure: own(stored) },
      { key: "unit", label: "Unit", format: function (v, r) { return rowUnit(r); } },
      { key: "execution", label: "Parameters", cellClass: "nowrap" },
    ], hosts, [
      { key: "factor", label: "Factor", num: true, format: function (v, r) {
        return r.onHost !== undefined ? "" : r.matched ? factorText(r) :
          "not compared (no baseline execution with these parameters)"; },
        figure: function (v, r) { return r.matched && r.onHost === undefined ? P.field("×")(v, r, "factor") : null; } },
      { key: "p_value", label: "p (Welch)", num: true,
        format: function (v, r) { return r.is_baseline || !r.matched || r.onHost !== undefined ? "" :
          v === null ? r.verdict : pText(v); },
        figure: function (v, r) { return r.is_baseline || !r.matched || v === null ? null : P.field("")(v, r, "p_value"); } },
      { key: "significant", label: "p < 0.05", format: function (v) { return v ? "*" : ""; }, cellClass: "sig" },
    ]), details));
  }

  function render(data, api) {
    P.located(data.results, "/results");
    const results = data.results.filter(visible);
    const baseRows = results.filter(function (r) { return r.is_baseline; });
    const metricKeys = baseRows.map(rowKey);
    const comparedIds = [];
    results.forEach(function (r) {
      if (!r.is_baseline && r.factor !== null && comparedIds.indexOf(r.scenario) < 0) {
        comparedIds.push(r.scenario);
      }
    });
    const byScenario = {};
    results.forEach(function (r) {
      byScenario[r.scenario] = byScenario[r.scenario] || { dims: r.dims, rows: {} };
      byScenario[r.scenario].rows[rowKey(r)] = r;
    });
    const compared = comparedIds.map(function (id) { return { scenario: id, dims: byScenario[id].dims }; });
    // Name compared scenarios by what differs among them (the baseline is named in full above).
    const keys = P.varyingDims(compared.length > 1 ? compared : [data.baseline].concat(compared));
    const names = {};
    [data.baseline].concat(compared).forEach(function (s) { names[s.scenario] = P.shortLabel(s.dims, keys); });
    document.getElementById("baseline-text").textContent = "Baseline: " + data.baseline.label +
      ". Cells: factor of the mean of executions with the same parameters; * significant at p < 0.05 (Welch, " +
      "tested only with two or more values per side, else \u201ctoo few runs\u201d). Hover a cell for mean ± stdev (n) and p." +
      (data.unmatched ? " " + data.unmatched + " results have no baseline execution with the same parameters " +
        "and are not compared (see the table below)." : "");

    // Pivot: one row per metric, one column per compared scenario.
    const pivotRows = baseRows.map(function (base) {
      const row = { metric: rowKey(base), baseline: base };
      comparedIds.forEach(function (id) { row["s" + id] = byScenario[id].rows[rowKey(base)] || null; });
      return row;
    });
    const cell = function (r) { return r ? factorText(r) + (r.significant ? " *" : "") : "—"; };
    const pivotColumns = [
      { key: "metric", label: "Metric", cellClass: "nowrap" },
      { key: "baseline", label: "Baseline mean ± stdev", num: true, format: valueText, cellClass: "nowrap",
        sort: function (r) { return r.mean; }, figure: valueFigure },
    ].concat(comparedIds.map(function (id) {
      return { key: "s" + id, label: names[id], num: true, format: cell, figure: factorFigure,
        sort: function (r) { return r ? r.factor : null; },
        title: function (r) {
          return r ? valueText(r) + (r.p_value === null ? ", " + r.verdict : ", p " + pText(r.p_value).replace(/^(\d)/, "= $1")) : "";
        } };
    }));
    const pivot = P.table(pivotColumns, pivotRows);
    document.getElementById("factor-table").setAttribute("data-api", api);
    document.getElementById("detail-table").setAttribute("data-api", api);
    pivot.classList.add("wrap-headers");
    document.getElementById("factor-table").replaceChildren(pivot);

    // Chart and its CSV: exactly the factors drawn.
    const csvRows = [];
    const datasets = comparedIds.map(function (id) {
      const picked = metricKeys.map(function (key) { return byScenario[id].rows[key] || null; });
      picked.forEach(function (r) {
        if (r) {
          csvRows.push({ metric: r.metric, subject: r.subject, scenario: r.label, factor: r.factor,
            significant: r.significant, p_value: r.p_value });
        }
      });
      return {
        label: names[id],
        data: picked.map(function (r) { return r ? r.factor : null; }),
        barText: picked.map(function (r) { return r ? factorText(r) + (r.significant ? " *" : "") : ""; }),
        skipNull: true,
      };
    });
    if (!csvRows.length) {
      card.empty("No other scenario shares a metric with this baseline.");
    } else {
      const factors = csvRows.map(function (r) { return r.factor; }).filter(function (f) { return f > 0; });
      const logarithmic = Math.max.apply(null, factors) / Math.min.apply(null, factors) > 30;
      box.style.height = Math.max(320, 90 + metricKeys.length * (datasets.length * 14 + 14)) + "px";
      card.draw(function (canvas) {
        return H.barChart(canvas, {
          labels: metricKeys, datasets: datasets, horizontal: true,
          xLabel: "factor vs baseline (1 = baseline, dashed)" + (logarithmic ? ", log scale" : ""),
          yType: logarithmic ? "logarithmic" : undefined, // the value axis, drawn across when horizontal
          threshold: { value: 1, color: "#57606a" },
          options: { layout: { padding: { right: 48 } }, plugins: { legend: { display: true } } },
        });
      }, ["metric", "subject", "scenario", "factor", "significant", "p_value"], csvRows);
    }

    const shown = [data.baseline.scenario].concat(comparedIds);
    lastDetails = results.filter(function (r) { return shown.indexOf(r.scenario) >= 0; }).map(function (r) {
      return Object.assign({ name: r.is_baseline ? "baseline" : names[r.scenario] }, r);
    });
    perHostBox.disabled = !lastDetails.some(function (r) { return r.hosts > 1; });
    drawDetails();
    document.getElementById("method-text").textContent = "Values are pooled per scenario and metric across runs " +
      "and repetitions; " + data.method + ".";
    status.textContent = metricKeys.length + " metrics of the baseline · " + comparedIds.length +
      " scenarios compared · showing " + (form.elements.metric.value || (form.elements.show.value === "all" ?
      "all metrics" : form.elements.show.value + " metrics")) + " of " + data.results.length + " results";
    document.body.setAttribute("data-state", "ready");
  }

  async function load() {
    const query = new URLSearchParams({ baseline: form.elements.baseline.value, metric: form.elements.metric.value });
    const address = new URLSearchParams(query);
    address.set("show", form.elements.show.value);
    if (perHostBox.checked) address.set("hosts", "1");
    // The logon phases' own baseline (logon_phases.js) stays in the address.
    const phases = new URLSearchParams(location.search).get("phases_baseline");
    if (phases) address.set("phases_baseline", phases);
    history.replaceState(null, "", "?" + address.toString());
    document.body.setAttribute("data-state", "loading");
    status.textContent = "Loading…";
    try {
      const api = page.api + "?" + query.toString();
      render(await P.fetchJson(api), api);
    } catch (error) {
      status.textContent = "Could not compare: " + error.message;
      document.body.setAttribute("data-state", "error");
    }
  }

  form.addEventListener("submit", function (event) {
    event.preventDefault();
    load();
  });
  form.elements.baseline.addEventListener("change", load);
  form.elements.metric.addEventListener("change", load);
  form.elements.show.addEventListener("change", load);
  P.perHost(perHostBox, drawDetails);
  load();
})();
