/**
 * A series' history page: from GET /api/v1/series/{slug}/history, the saturation users of every scenario across
 * the campaigns (chart, headroom/history_chart.js), the notes, what changed against the baseline, and the
 * saturation and headline figures of each campaign. The form asks again with other capacity parameters.
 */
(function () {
  "use strict";

  const H = window.Headroom;
  const U = H.units;
  const P = window.HeadroomPages;
  const page = P.pageData();
  const form = document.getElementById("history-form");
  const status = document.getElementById("status");
  let answer = null;
  const card = P.chartCard("slot-history", {
    title: "Users before the threshold, across the series", filename: "series-history.csv", size: "tall",
    caption: function () {
      return answer ? ["Users before " + answer.counter + " (" + answer.stat + ") reaches " + answer.threshold,
        "Series " + answer.series.name + " · whiskers: interval"] : [];
    },
  });

  function campaignName(slug, data) {
    const found = data.campaigns.filter(function (c) { return c.slug === slug; })[0];
    return found ? H.history.label(found) : slug;
  }

  function metricName(r) {
    return [r.metric_words || r.metric_label || r.metric, r.subject, r.execution].filter(Boolean).join(" — ");
  }

  function pct(v) {
    return v === null || v === undefined ? "—" : (v > 0 ? "+" : v < 0 ? "\u2212" : "") + P.fmt(Math.abs(v), 1) + " %";
  }

  function valueText(v, r) {
    return U.text(v, r.unit === "users" ? "users" : r.unit, U.shown(r.unit, [r.baseline_value, r.value]));
  }

  // The first `count` columns hold names (campaigns, scenarios, metrics with their parameters), not figures.
  function named(wrap, count) {
    wrap.querySelectorAll("tbody tr").forEach(function (row) {
      Array.prototype.slice.call(row.cells, 0, count).forEach(function (cell) { cell.setAttribute("data-name", ""); });
    });
    return wrap;
  }

  function renderNotes(data, nameOf) {
    const list = document.getElementById("history-notes");
    // A scenario's note names it as the tables do, not by its every dimension.
    const short = {};
    data.campaigns.forEach(function (c) {
      c.scenarios.forEach(function (s) { short[s.label] = nameOf(s.dims, "saturation_users"); });
      c.results.forEach(function (r) { short[r.label] = short[r.label] || nameOf(r.dims, r.metric); });
    });
    const items = [];
    data.campaigns.forEach(function (c) {
      (c.notes || []).forEach(function (n) {
        const when = String(n.created_at || "").slice(0, 10);
        items.push(P.el("li", { "data-note": n.id, "data-name": true }, [
          P.el("span", { className: "note-target", text: H.history.label(c) + " — " + (n.target === "campaign" ? "campaign" : n.target === "run" ? "run " + n.run_name : "scenario " + (short[n.scenario_label] || n.scenario_label)) + ":" }),
          " " + n.text + " ",
          P.el("span", { className: "muted small", text: "— " + (n.author || "unknown") + ", " + when }),
        ]));
      });
    });
    list.replaceChildren.apply(list, items.length ? items : [P.el("li", { className: "muted", text: "No notes on these campaigns." })]);
  }

  function render(data, api) {
    answer = data;
    P.located(data.campaigns, "/campaigns");
    P.located(data.changes, "/changes");
    ["changes-list", "changes-table", "saturation-table", "results-table"].forEach(function (id) {
      document.getElementById(id).setAttribute("data-api", api);
    });
    // Capacity scenarios are named as the chart names them; result scenarios by what differs among them.
    const names = {};
    H.history.scenarios(data.campaigns).forEach(function (s) { names["c" + s.key] = s.name; });
    const resultDims = [];
    data.campaigns.forEach(function (c) { c.results.forEach(function (r) { resultDims.push({ dims: r.dims }); }); });
    const resultKeys = P.varyingDims(resultDims);
    const nameOf = function (dims, metric) {
      const key = H.history.keyOf(dims);
      if (metric === "saturation_users" && names["c" + key]) return names["c" + key];
      const own = resultKeys.length ? resultKeys : Object.keys(dims || {}).filter(function (k) { return k !== "study"; });
      return P.shortLabel(dims, own);
    };

    const drawn = H.history.csv(data.campaigns);
    if (!drawn.rows.some(function (r) { return r[3] !== null; })) {
      card.empty("No campaign of this series has load steps with samples of " + data.counter + ".");
    } else {
      card.draw(function (canvas) { return H.history.chart(canvas, data.campaigns); }, drawn.columns, drawn.rows);
    }
    renderNotes(data, nameOf);

    const base = data.baseline.mode === "pinned" ? "the pinned baseline " + campaignName(data.baseline.campaign, data) : "the campaign before it";
    const significant = data.changes.filter(function (c) { return c.significant; });
    document.getElementById("changes-text").textContent = "Each campaign against " + base + "; " + significant.length +
      " of " + data.changes.length + " comparisons changed significantly. Change = (value − baseline) / baseline.";
    const changes = data.changes.map(function (c) {
      return Object.assign({}, c, { pair: campaignName(c.campaign, data) + " vs " + campaignName(c.baseline, data),
        what: nameOf(c.dims, c.metric) + " — " + metricName(c),
        how: c.metric === "saturation_users" ? "interval overlap / bootstrap" : "Welch t-test" });
    });
    // The significant changes first, as sentences a phone shows whole; every comparison in the table.
    const list = document.getElementById("changes-list");
    list.replaceChildren.apply(list, significant.length ? changes.filter(function (c) { return c.significant; }).map(function (c) {
      return P.el("li", {}, [
        c.pair + ", " + c.what + ": ",
        P.figure(P.el("span", { text: pct(c.change_pct) }), c._at + "/change_pct", "%", c.change_pct),
        " (" + (c.direction || "changed") + "), ",
        P.figure(P.el("span", { text: valueText(c.value, c) }), c._at + "/value", c.unit, c.value),
        ", was ",
        P.figure(P.el("span", { text: valueText(c.baseline_value, c) }), c._at + "/baseline_value", c.unit, c.baseline_value),
        ".",
      ]);
    }) : [P.el("li", { className: "muted", text: "No significant change." })]);
    document.getElementById("changes-table").replaceChildren(named(P.table([
      { key: "pair", label: "Campaign", cellClass: "nowrap" },
      { key: "what", label: "Scenario — metric" },
      { key: "baseline_value", label: "Baseline", num: true, format: valueText, figure: P.field(function (r) { return r.unit; }) },
      { key: "value", label: "Value", num: true, format: valueText, figure: P.field(function (r) { return r.unit; }) },
      { key: "change_pct", label: "Change", num: true, format: pct, figure: P.field("%") },
      { key: "direction", label: "Better or worse", format: function (v) { return v || "—"; } },
      { key: "verdict", label: "Verdict", format: function (v, r) { return r.significant ? "changed (" + v + ")" : v; } },
      { key: "how", label: "Method", title: function (v, r) { return r.method; } },
    ], changes, "Every comparison"), 2));

    // Pivots: a row per scenario (and metric), a column per campaign in series order.
    const columns = data.campaigns.map(function (c, i) { return { key: "c" + i, label: H.history.label(c), num: true }; });
    const saturation = {};
    data.campaigns.forEach(function (c, i) {
      P.located(c.scenarios, c._at + "/scenarios").forEach(function (s) {
        const key = H.history.keyOf(s.dims);
        saturation[key] = saturation[key] || { name: nameOf(s.dims, "saturation_users") };
        saturation[key]["c" + i] = s;
      });
    });
    const usersText = function (s) {
      if (!s) return "";
      if (s.saturation_users === null) return s.bound.replace(/_/g, " ");
      return U.text(s.saturation_users, "users", "users", 0) +
        (s.interval ? " (" + P.fmt(s.interval[0], 0) + " – " + P.fmt(s.interval[1], 0) + " users)" : "");
    };
    const usersFigure = function (s) {
      if (!s || s.saturation_users === null) return null;
      const keys = [s._at + "/saturation_users"].concat(s.interval ? [s._at + "/interval/0", s._at + "/interval/1"] : []);
      return { at: keys.join(" "), unit: keys.map(function () { return "users"; }).join("|"), value: keys.length > 1 ? null : s.saturation_users };
    };
    document.getElementById("saturation-table").replaceChildren(named(P.table([{ key: "name", label: "Scenario" }].concat(
      columns.map(function (col) {
        return Object.assign({}, col, { format: usersText, figure: usersFigure,
          sort: function (s) { return s ? s.saturation_users : null; },
          title: function (s) { return s ? s.runs + (s.runs === 1 ? " run" : " runs") + ", " + s.bound.replace(/_/g, " ") : null; } });
      })), Object.values(saturation), "Users before the threshold, per campaign"), 1));

    const results = {};
    data.campaigns.forEach(function (c, i) {
      P.located(c.results, c._at + "/results").forEach(function (r) {
        const key = H.history.keyOf(r.dims) + "|" + metricName(r);
        results[key] = results[key] || { name: nameOf(r.dims, r.metric), metric_name: metricName(r), values: [], unit: r.unit };
        results[key]["c" + i] = r;
        results[key].values.push(r.mean);
      });
    });
    const meanText = function (r, row) { return r ? U.text(r.mean, r.unit, U.shown(row.unit, row.values)) : ""; };
    document.getElementById("results-table").replaceChildren(Object.keys(results).length ? named(P.table([
      { key: "name", label: "Scenario" }, { key: "metric_name", label: "Metric" },
    ].concat(columns.map(function (col) {
      return Object.assign({}, col, { format: meanText, cellClass: "nowrap",
        figure: function (r) { return r ? { at: r._at + "/mean", unit: r.unit, value: r.mean } : null; },
        sort: function (r) { return r ? r.mean : null; },
        title: function (r) { return r ? "n = " + r.n : null; } });
    })), Object.values(results), "Headline results, per campaign"), 2) : P.el("p", { className: "muted", text: "No timing or benchmark results in these campaigns." }));

    status.textContent = data.campaigns.length + " campaigns · " + H.history.scenarios(data.campaigns).length +
      " scenarios · compared with " + base;
    document.body.setAttribute("data-state", "ready");
  }

  async function load() {
    const query = new URLSearchParams({
      counter: form.elements.counter.value, stat: form.elements.stat.value,
      threshold: form.elements.threshold.value, trim: form.elements.trim.value,
    });
    history.replaceState(null, "", "?" + query.toString());
    const pinned = document.querySelector("#baseline-form input[name=query]");
    if (pinned) {
      pinned.value = query.toString();
    }
    document.body.setAttribute("data-state", "loading");
    status.textContent = "Loading…";
    try {
      const api = page.api + "?" + query.toString();
      render(await P.fetchJson(api), api);
    } catch (error) {
      status.textContent = "Could not load the history: " + error.message;
      document.body.setAttribute("data-state", "error");
    }
  }

  form.addEventListener("submit", function (event) {
    event.preventDefault();
    load();
  });
  ["counter", "stat"].forEach(function (name) { form.elements[name].addEventListener("change", load); });
  load();
})();
