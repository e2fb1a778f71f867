/**
 * Trace explorer: the run's counters from GET /api/v1/runs/{id}/trace, bucketed
 * on the server for the chart's width in pixels. Zooming or panning any chart
 * asks again for the visible range (finer buckets) and moves every chart
 * there; the scatter follows the same range (GET .../correlation).
 *
 * Values are charted in readable units (bytes per second as MB/s, see unitOf);
 * the CSV keeps the API's numbers as stored. A run with load steps (FSCT user
 * counts) gets each step drawn as a shaded band labelled with its users.
 */
(function () {
  "use strict";

  const H = window.Headroom;
  const P = window.HeadroomPages;
  const page = P.pageData();
  const base = page.runs_api + page.run;
  const status = document.getElementById("status");
  const list = document.getElementById("series-list");
  const slot = document.getElementById("slot-traces");
  const xSelect = document.getElementById("f-x");
  const ySelect = document.getElementById("f-y");
  const scatterCard = P.chartCard("slot-scatter", { title: "Correlation", filename: "correlation.csv" });
  const PRIORITY = [/% Processor Time/, /Transfers\/sec|IOPS/i, /Queue Length/, /Bytes Total\/sec|Bytes\/sec/, /./];
  const steps = page.steps || [];
  let series = [];
  let cards = {};
  let range = null; // {start, end} ISO strings; null = the whole run
  let loading = 0;

  function rank(s) {
    const index = PRIORITY.findIndex(function (re) { return re.test(s.counter); });
    return (index < 0 ? PRIORITY.length : index) * 1000 + (s.instance === "_Total" ? 0 : 1);
  }

  function name(s) {
    return s.object + (s.instance ? "(" + s.instance + ")" : "") + "\\" + s.counter + " — " + s.host;
  }

  function selected() {
    return Array.from(list.querySelectorAll("input:checked")).map(function (i) { return Number(i.value); });
  }

  function width(element) {
    return Math.max(100, Math.min(4000, Math.round(element.clientWidth || 800)));
  }

  function query(extra) {
    const params = new URLSearchParams(extra);
    if (range) {
      params.set("start", range.start);
      params.set("end", range.end);
    }
    return params.toString();
  }

  function onZoom(context) {
    const scale = context.chart.scales.x;
    range = { start: new Date(scale.min).toISOString(), end: new Date(scale.max).toISOString() };
    refresh();
  }

  function resetAll() {
    range = null;
    Object.values(cards).forEach(function (card) {
      if (card.chart) card.chart.resetZoom("none");
    });
    refresh();
  }

  /**
   * The unit a counter reads best in: {scale, unit}. Perfmon counts bytes per
   * second and bytes; charts show decimal MB/s and MB (1 MB = 10^6 bytes).
   */
  function unitOf(counter) {
    if (/bytes.*\/sec/i.test(counter)) return { scale: 1e-6, unit: "MB/s" };
    if (/^bytes\b|\bbytes$/i.test(counter)) return { scale: 1e-6, unit: "MB" };
    if (/mbytes/i.test(counter)) return { scale: 1, unit: "MB" };
    if (/kbytes/i.test(counter)) return { scale: 1e-3, unit: "MB" };
    if (/^%/.test(counter)) return { scale: 1, unit: "%" };
    if (/transfers\/sec|reads\/sec|writes\/sec|iops/i.test(counter)) return { scale: 1, unit: "IO/s" };
    if (/\/sec$/i.test(counter)) return { scale: 1, unit: "/s" };
    return { scale: 1, unit: "" };
  }

  function axisLabel(counter) {
    const unit = unitOf(counter).unit;
    return unit && unit !== "/s" ? counter + " (" + unit + ")" : counter;
  }

  // Shaded bands, one per load step, labelled with the step's users (alternating shades).
  function stepAnnotations() {
    const bands = {};
    steps.forEach(function (step, index) {
      if (!step.end) return;
      bands["step" + index] = {
        type: "box", xMin: Date.parse(step.start), xMax: Date.parse(step.end), drawTime: "beforeDatasetsDraw",
        backgroundColor: index % 2 ? "rgba(87,96,106,0.06)" : "rgba(87,96,106,0.13)", borderWidth: 0,
        label: { display: true, content: step.users.toLocaleString("en-US") + " users", position: { x: "center", y: "start" },
          color: "#57606a", font: { size: 10 }, padding: 2 },
      };
    });
    return bands;
  }

  function traceDatasets(points, counter) {
    const scale = unitOf(counter).scale;
    const at = function (key) {
      return points.map(function (p) { return { x: Date.parse(p.t), y: p[key] === null ? null : p[key] * scale }; });
    };
    return [
      { label: "max", data: at("max"), fill: "+1", pointRadius: 0, borderWidth: 0,
        borderColor: "rgba(0,0,0,0)", backgroundColor: "rgba(86,180,233,0.25)" },
      { label: "min", data: at("min"), fill: false, pointRadius: 0, borderWidth: 0, borderColor: "rgba(0,0,0,0)" },
      { label: "average", data: at("avg"), pointRadius: 0, borderWidth: 1.5, borderColor: H.PALETTE[0] },
    ];
  }

  function drawTrace(item, body) {
    let card = cards[item.id];
    if (!card) {
      card = cards[item.id] = P.chartCard(slot, { title: name(item), heading: "h3", size: "short",
        filename: "trace-" + item.counter.replace(/[^A-Za-z0-9]+/g, "-") + "-" + item.id + ".csv" });
      card.canvas.addEventListener("dblclick", resetAll);
    }
    const columns = ["time", "avg", "min", "max", "n"];
    const rows = item.points.map(function (p) { return [p.t, p.avg, p.min, p.max, p.n]; });
    card.note.textContent = item.points.length + " buckets of " + body.bucket_seconds + " s (" + body.source +
      ") · band: min–max in each bucket" + (steps.length ? " · grey bands: load steps" : "") +
      (unitOf(item.counter).scale !== 1 ? " · CSV in the counter's own unit" : "");
    const limits = { min: Date.parse(body.start), max: Date.parse(body.end) };
    if (card.chart) {
      card.columns = columns;
      card.rows = rows;
      card.chart.data.datasets = traceDatasets(item.points, item.counter);
      Object.assign(card.chart.options.scales.x, limits);
      card.chart.update("none");
      return;
    }
    card.draw(function (canvas) {
      return H.lineChart(canvas, {
        datasets: traceDatasets(item.points, item.counter), xType: "time", yLabel: axisLabel(item.counter),
        options: {
          scales: { y: { ticks: { callback: function (value) { return P.fmt(value, 2); } } }, x: Object.assign({
            time: { tooltipFormat: "yyyy-MM-dd HH:mm:ss",
              displayFormats: { second: "HH:mm:ss", minute: "HH:mm", hour: "HH:mm", day: "MMM d" } },
            ticks: { maxRotation: 0, autoSkipPadding: 24 },
          }, limits) },
          plugins: { legend: { display: false }, annotation: { annotations: stepAnnotations() },
            zoom: { zoom: { onZoomComplete: onZoom }, pan: { onPanComplete: onZoom } } },
        },
      });
    }, columns, rows);
  }

  async function drawTraces() {
    const ids = selected();
    Object.keys(cards).forEach(function (id) {
      if (ids.indexOf(Number(id)) < 0) {
        cards[id].element.remove();
        delete cards[id];
      }
    });
    if (!ids.length) {
      return null;
    }
    const body = await P.fetchJson(base + "/trace?" + query({ series: ids.join(","), width: width(slot) }));
    body.series.forEach(function (item) { drawTrace(item, body); });
    // Keep the cards in the order of the checklist.
    ids.forEach(function (id) { slot.appendChild(cards[id].element); });
    return body;
  }

  async function drawScatter() {
    if (!xSelect.value || !ySelect.value) {
      scatterCard.empty("Pick two counters.");
      return;
    }
    const body = await P.fetchJson(base + "/correlation?" + query({ x: xSelect.value, y: ySelect.value,
      width: width(scatterCard.canvas.parentElement) }));
    scatterCard.element.querySelector("h2").textContent = body.y.counter + " against " + body.x.counter;
    const fit = body.fit;
    const fitted = function (x) { return fit ? fit.slope * x + fit.intercept : null; };
    const xs = body.points.map(function (p) { return p.x; });
    // Charted (and the fit written) in readable units; the CSV keeps the API's numbers.
    const sx = unitOf(body.x.counter).scale;
    const sy = unitOf(body.y.counter).scale;
    const datasets = [{ label: "bucket averages (" + body.bucket_seconds + " s)", data: body.points.map(function (p) {
      return { x: p.x * sx, y: p.y * sy, label: new Date(p.t).toLocaleTimeString() };
    }) }];
    if (fit) {
      const lo = Math.min.apply(null, xs);
      const hi = Math.max.apply(null, xs);
      datasets.push({ label: "least-squares fit",
        data: [{ x: lo * sx, y: fitted(lo) * sy }, { x: hi * sx, y: fitted(hi) * sy }],
        showLine: true, pointRadius: 0, borderWidth: 2, borderColor: "#C62828", backgroundColor: "#C62828" });
      const slope = fit.slope * sy / sx;
      const intercept = fit.intercept * sy;
      scatterCard.note.textContent = "y = " + P.fmt(slope, 4) + " · x " + (intercept < 0 ? "− " : "+ ") +
        P.fmt(Math.abs(intercept), 4) + "  ·  R² = " + fit.r2.toFixed(4) + "  ·  n = " + fit.n + " buckets";
      scatterCard.note.classList.add("fit");
    } else {
      scatterCard.note.textContent = "No fit: fewer than two paired buckets, or a counter that does not vary.";
    }
    if (!body.points.length) {
      scatterCard.empty("No buckets where both counters have samples.");
      return;
    }
    scatterCard.draw(function (canvas) {
      return H.scatterChart(canvas, { datasets: datasets, xLabel: axisLabel(body.x.counter),
        yLabel: axisLabel(body.y.counter), zoom: false });
    }, ["time", "x", "y", "fitted_y"], body.points.map(function (p) { return [p.t, p.x, p.y, fitted(p.x)]; }));
  }

  function keepInAddress() {
    // run, series, start and end in the address: a reload and "Share this view" keep them.
    const address = new URLSearchParams(location.search);
    address.set("run", page.run);
    address.set("series", selected().join(","));
    ["start", "end"].forEach(function (key) {
      if (range) address.set(key, range[key]); else address.delete(key);
    });
    history.replaceState(null, "", "?" + address.toString());
  }

  async function refresh() {
    keepInAddress();
    const ticket = ++loading;
    document.body.setAttribute("data-state", "loading");
    status.textContent = "Loading…";
    try {
      const [body] = await Promise.all([drawTraces(), drawScatter()]);
      if (ticket !== loading) return;
      status.textContent = body ? (range ? "Zoomed: " : "Whole run: ") + new Date(body.start).toLocaleString() +
        " – " + new Date(body.end).toLocaleString() + " · buckets of " + body.bucket_seconds + " s from the " +
        (body.source === "rollup" ? "one-minute rollups" : "raw samples") : "Tick a counter to chart it.";
      document.body.setAttribute("data-state", "ready");
    } catch (error) {
      status.textContent = "Could not load the trace: " + error.message;
      document.body.setAttribute("data-state", "error");
    }
  }

  function options(select, preferred) {
    select.replaceChildren.apply(select, series.map(function (s) {
      return P.el("option", { value: s.id, text: name(s), selected: s.id === preferred });
    }));
  }

  const FILTER_FROM = 12;
  const filter = document.getElementById("series-filter");

  function countShown() {
    const labels = list.querySelectorAll("label.check");
    const shown = Array.from(labels).filter(function (label) { return !label.hidden; }).length;
    document.getElementById("series-count").textContent = shown + " of " + labels.length + " shown · " +
      selected().length + " ticked";
  }

  // Every word typed must appear in the counter's name (object, instance, counter, host).
  function applyFilter() {
    const words = filter.value.toLowerCase().split(/\s+/).filter(Boolean);
    list.querySelectorAll("label.check").forEach(function (label) {
      const text = label.getAttribute("data-name");
      label.hidden = !words.every(function (word) { return text.indexOf(word) >= 0; });
    });
    countShown();
  }

  async function start() {
    const body = await P.fetchJson(base + "/series");
    series = body.series.slice().sort(function (a, b) { return rank(a) - rank(b); });
    const address = new URLSearchParams(location.search);
    const wanted = (address.get("series") || "").split(",").filter(Boolean).map(Number);
    const listed = series.filter(function (s) { return wanted.indexOf(s.id) >= 0; });
    const chosen = listed.length ? listed : series.length <= 6 ? series : series.slice(0, 4);
    if (address.get("start") && address.get("end")) range = { start: address.get("start"), end: address.get("end") };
    series.forEach(function (s) {
      const box = P.el("input", { type: "checkbox", value: s.id, checked: chosen.indexOf(s) >= 0 });
      box.addEventListener("change", function () { refresh(); countShown(); });
      list.appendChild(P.el("label", { className: "check", "data-name": name(s).toLowerCase() }, [box, " " + name(s)]));
    });
    if (series.length > FILTER_FROM) {
      // A real perfmon log can hold thousands of counters: filter them, in a list that scrolls.
      document.getElementById("series-filter-row").hidden = false;
      list.classList.add("long");
      filter.addEventListener("input", applyFilter);
      countShown();
    }
    const cpu = series.find(function (s) { return PRIORITY[0].test(s.counter); }) || series[0];
    const io = series.find(function (s) { return PRIORITY[1].test(s.counter); }) || series[1] || series[0];
    options(xSelect, cpu && cpu.id);
    options(ySelect, io && io.id);
    xSelect.addEventListener("change", refresh);
    ySelect.addEventListener("change", refresh);
    refresh();
  }

  document.getElementById("f-run").addEventListener("change", function () {
    document.getElementById("trace-form").submit();
  });
  document.getElementById("reset-zoom").addEventListener("click", resetAll);
  start().catch(function (error) {
    status.textContent = "Could not list the run's counters: " + error.message;
    document.body.setAttribute("data-state", "error");
  });
})();
