/**
 * Capacity planner, second half: the resource limits, comparisons between
 * scenarios, computed remarks and the sizing form. Draws from the capacity
 * data capacity.js announces ("capacity:data"); sizing asks
 * GET /api/v1/campaigns/{slug}/sizing with the same counter, statistic and
 * trim. The sizing values live in the URL (users, target, redundancy).
 */
(function () {
  "use strict";

  const H = window.Headroom;
  const P = window.HeadroomPages;
  const page = P.pageData();
  const sizingForm = document.getElementById("sizing-form");
  const sizingStatus = document.getElementById("sizing-status");
  const serversCard = P.chartCard("slot-servers", { title: "Servers needed", filename: "servers-needed.csv",
    caption: function () { return sizingCaption; } });
  let sizingCaption = ["Servers needed"];
  const name = function (v) { return String(v || "").replace(/_/g, " "); };
  let latest = null; // {data, names}

  function drawLimits(data, names) {
    const rows = [];
    data.scenarios.forEach(function (s) {
      P.located(s.limits || [], s._at + "/limits");
      (s.limits || []).forEach(function (limit) {
        rows.push({ _at: limit._at, name: names[s.scenario], resource: name(limit.resource), counter: limit.counter,
          host: limit.host, limit: limit.limit, users: limit.users, text: limit.text,
          attrs: { "data-limiting": s.limiting && s.limiting.counter === limit.counter &&
            s.limiting.host === limit.host ? "yes" : "no" } });
      });
    });
    document.getElementById("limits-table").replaceChildren(rows.length ? P.table([
      { key: "name", label: "Scenario", cellClass: "nowrap" },
      { key: "resource", label: "Resource" },
      { key: "counter", label: "Counter", cellClass: "counter" },
      { key: "host", label: "Server" },
      { key: "limit", label: "Limit", num: true, format: function (v) { return P.fmt(v, 3); }, figure: P.field("") },
      { key: "text", label: "Users before the limit", num: true, sort: function (v, row) { return row.users; },
        figure: P.field("") },
    ], rows) : P.el("p", { className: "muted", text: "No server counter with a limit in these runs." }));
  }

  // Several servers in one run: each server's own point, on demand (?hosts=1), as Block size and Compare do.
  const perServerBox = document.getElementById("f-per-host");
  function drawPerServer(data, names) {
    const several = data.scenarios.filter(function (s) { return (s.per_host || []).length > 1; });
    document.getElementById("per-server").hidden = !several.length;
    const rows = [];
    several.forEach(function (s) {
      P.located(s.per_host, s._at + "/per_host");
      s.per_host.forEach(function (h) {
        rows.push({ _at: h._at, name: names[s.scenario], host: h.host, saturation_text: h.saturation_text,
          users: h.saturation_users, bound: name(h.bound), decides: h.host === s.host ? "yes" : "" });
      });
    });
    document.getElementById("per-server-table").replaceChildren(perServerBox.checked && rows.length ? P.table([
      { key: "name", label: "Scenario", cellClass: "nowrap" },
      { key: "host", label: "Server" },
      { key: "saturation_text", label: "Users before the threshold", num: true,
        sort: function (v, row) { return row.users; }, figure: P.field("") },
      { key: "bound", label: "How found" },
      { key: "decides", label: "Decides" },
    ], rows) : P.el("p", { className: "muted", text: "Tick Per server to list each server's own point." }));
  }
  P.perHost(perServerBox, function () { if (latest) drawPerServer(latest.data, latest.names); });

  function drawComparisons(data, names) {
    P.located(data.comparisons || [], "/comparisons");
    const rows = (data.comparisons || []).map(function (c) {
      return Object.assign({ name: names[c.scenario], baselineName: names[c.baseline],
        intervalText: c.interval_pct ? P.fmt(c.interval_pct[0], 0) + " % to " + P.fmt(c.interval_pct[1], 0) + " %" : "—",
        runs: c.n.join(" vs ") }, c);
    });
    document.getElementById("comparisons-table").replaceChildren(rows.length ? P.table([
      { key: "name", label: "Scenario", cellClass: "nowrap" },
      { key: "baselineName", label: "Baseline", cellClass: "nowrap" },
      { key: "difference_pct", label: "Capacity vs baseline (%)", num: true, format: function (v) { return P.fmt(v, 1); },
        figure: P.field("%") },
      { key: "intervalText", label: "Interval", cellClass: "nowrap", figure: function (v, row) {
        return row.interval_pct ? { at: row._at + "/interval_pct/0 " + row._at + "/interval_pct/1", unit: "%|%", value: null }
          : null; } },
      { key: "verdict", label: "" },
      { key: "runs", label: "Runs (n)" },
    ], rows) : P.el("p", { className: "muted", text: "No two scenarios with points differ in one dimension only." }));
  }

  function drawRemarks(data, names) {
    const list = document.getElementById("remarks");
    const items = [];
    data.scenarios.forEach(function (s) {
      (s.remarks || []).forEach(function (r) {
        const text = P.figure(P.el("span", { text: r.text }), s._at + "/remarks/" + s.remarks.indexOf(r) + "/text", "", r.text);
        items.push(P.el("li", { "data-kind": r.kind }, [P.el("strong", { text: names[s.scenario] + ": " }), text, " ",
          P.el("a", { href: r.link, text: r.link.charAt(0) === "#" ? "table" : "trace" })]));
      });
    });
    list.replaceChildren.apply(list, items.length ? items : [P.el("li", { className: "muted", text: "No remarks." })]);
  }

  function sizingParams() {
    return { users: sizingForm.elements.users.value, target: sizingForm.elements.target.value,
      redundancy: sizingForm.elements.redundancy.value };
  }

  async function loadSizing() {
    if (!latest) return;
    const values = sizingParams();
    const address = new URLSearchParams(location.search);
    Object.keys(values).forEach(function (key) { address.set(key, values[key]); });
    history.replaceState(null, "", "?" + address.toString());
    const query = new URLSearchParams(Object.assign({ counter: latest.data.counter, stat: latest.data.stat,
      trim: latest.data.trim_pct }, values));
    sizingStatus.textContent = "Sizing…";
    let body;
    try {
      body = await P.fetchJson(page.sizing_api + "?" + query.toString());
    } catch (error) {
      sizingStatus.textContent = "Could not size: " + error.message;
      return;
    }
    const names = latest.names;
    document.getElementById("sizing-table").setAttribute("data-api", page.sizing_api + "?" + query.toString());
    P.located(body.scenarios, "/scenarios");
    const rows = body.scenarios.map(function (s) {
      const b = s.binding || {};
      return Object.assign({ name: names[s.scenario] || s.label,
        range: s.servers_interval ? s.servers_interval.join(" – ") : "",
        decided: b.by === "limit" ? name(b.resource) + " limit" + (s.counter_servers !== null ? " (counter alone: " +
          P.fmt(s.counter_users_per_server, 0) + " users, " + s.counter_servers + " servers)" : "")
          : (b.resource === "cpu" ? "CPU" : name(b.resource)) + " at the target",
        binding_resource: b.resource, binding_counter: b.counter, binding_users: b.users,
        arithmetic: s.assumptions.join(" ") }, s);
    });
    document.getElementById("sizing-table").replaceChildren(P.table([
      { key: "name", label: "Scenario", cellClass: "nowrap" },
      { key: "users_per_server", label: "Users per server", num: true, format: function (v) { return P.fmt(v, 0); },
        figure: P.field("") },
      { key: "decided", label: "Decided by", figure: function (v, row) {
        return row.binding && row.binding.by === "limit" && row.counter_servers !== null ? { at: row._at +
          "/counter_users_per_server " + row._at + "/counter_servers", unit: "users|servers", value: null } : null; } },
      { key: "servers", label: "Servers", num: true, cellClass: "servers", format: function (v) { return P.fmt(v, 0); },
        figure: P.field("") },
      { key: "range", label: "From the interval", cellClass: "nowrap" },
      { key: "bound", label: "Bound", format: name },
      { key: "arithmetic", label: "Arithmetic and assumptions", cellClass: "assumptions", figure: P.field("", "assumptions") },
    ], rows));
    const counted = rows.filter(function (r) { return r.servers !== null; });
    if (!counted.length) {
      serversCard.empty("No scenario reaches a countable users-per-server figure.");
    } else {
      serversCard.draw(function (canvas) {
        return H.barChart(canvas, { labels: counted.map(function (r) { return r.name; }), horizontal: true,
          datasets: [{ label: "servers", data: counted.map(function (r) { return r.servers; }),
            barText: counted.map(function (r) { return String(r.servers); }),
            dashed: counted.map(function (r) { return r.bound === "extrapolated"; }),
            // The scenario's colour on the capacity charts above.
            backgroundColor: counted.map(function (r) { return latest.colours[r.scenario] || H.PALETTE[0]; }),
            borderColor: counted.map(function (r) { return latest.colours[r.scenario] || H.PALETTE[0]; }) }],
          xLabel: "servers (N+" + body.redundancy + ")",
          // Room past the longest bar for its figure.
          options: { layout: { padding: { right: 24 } } } });
      }, ["name", "users_per_server", "binding_resource", "binding_counter", "binding_users", "servers", "range",
        "counter_users_per_server", "counter_servers", "bound", "arithmetic"], rows);
    }
    const unit = (page.units || {})[body.counter] || "";
    sizingCaption = [(page.title ? page.title + " — " : "") + "Servers needed for " + P.fmt(body.users, 0) + " users (N+" +
      body.redundancy + ")", "Counter " + body.counter + " · " + body.stat + " · target " +
      H.units.text(body.target, unit, unit, 2) + " · steps trimmed by " + P.fmt(latest.data.trim_pct, 2) + " %"];
    sizingStatus.textContent = P.fmt(body.users, 0) + " users at " + P.fmt(body.target, 2) + " (" + body.stat +
      ") with N+" + body.redundancy + ": " + body.method;
  }

  document.addEventListener("capacity:data", function (event) {
    latest = event.detail;
    ["limits-table", "per-server-table", "comparisons-table", "remarks"].forEach(function (id) {
      document.getElementById(id).setAttribute("data-api", latest.api);
    });
    drawLimits(latest.data, latest.names);
    drawPerServer(latest.data, latest.names);
    drawComparisons(latest.data, latest.names);
    drawRemarks(latest.data, latest.names);
    loadSizing();
  });
  sizingForm.addEventListener("submit", function (event) {
    event.preventDefault();
    loadSizing();
  });
  ["users", "target", "redundancy"].forEach(function (key) {
    sizingForm.elements[key].addEventListener("change", loadSizing);
  });
})();
