/**
 * Headroom page helpers, shared by the dashboard's views (load after charts.js, downloads.js and tables.js).
 *
 *   HeadroomPages.pageData(id)          the page's JSON (a json_script element)
 *   HeadroomPages.fetchJson(url)        GET JSON from our API; rejects with the API's error message
 *   HeadroomPages.chartCard(slot, opts) a card with a canvas and CSV/PNG buttons (opts.caption(): PNG caption lines)
 *   HeadroomPages.table(columns, rows, label)  a <table class="sortable"> (sortable at once) in a
 *                                       keyboard-scrollable .table-wrap named `label` (or its card's heading)
 *   HeadroomPages.fmt(value, digits)    "1,234.5"; "—" for null
 *   HeadroomPages.located(list, prefix) tags each item with `_at`, its JSON pointer in the API answer
 *   HeadroomPages.figure(node, at, unit, value)  marks a printed figure with where the API holds it
 *   HeadroomPages.field(unit, key)      a table column's `figure`: the row's `_at` + "/" + key (the column's
 *                                       key by default); unit: the API's unit, or a function of the row
 *   HeadroomPages.varyingDims(list)     dimension keys whose values differ across scenarios
 *   HeadroomPages.shortLabel(dims, keys)
 *   HeadroomPages.perHost(box, redraw) the "Per host" checkbox: ticked by ?hosts=1 in the address, which
 *                                       it keeps in step; redraw() on change (block size, compare, copies)
 *   HeadroomPages.middleCut(text, most) a long path as its start, "…" and its end, at most `most` characters
 *   HeadroomPages.barLabels             Chart.js plugin (registered for every chart): draws
 *                                       dataset.barText[i] above each bar, beside it when horizontal,
 *                                       smaller or left out rather than over another (chart.barLabelBoxes)
 *
 * On load it also makes every table.sortable sortable, asks before submitting
 * a form with data-confirm (no inline handlers: the CSP forbids them) and
 * resizes charts around printing.
 */
(function (global) {
  "use strict";

  const Headroom = global.Headroom;

  function el(tag, attrs, children) {
    const node = document.createElement(tag);
    Object.entries(attrs || {}).forEach(function ([key, value]) {
      if (value === undefined || value === null || value === false) {
        return;
      }
      if (key === "text") {
        node.textContent = String(value);
      } else if (key === "className") {
        node.className = value;
      } else {
        node.setAttribute(key, value === true ? "" : String(value));
      }
    });
    (children || []).forEach(function (child) {
      node.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
    });
    return node;
  }

  function pageData(id) {
    const node = document.getElementById(id || "page-data");
    return node ? JSON.parse(node.textContent) : {};
  }

  async function fetchJson(url) {
    const response = await fetch(url, { credentials: "same-origin", headers: { Accept: "application/json" } });
    let body = null;
    try {
      body = await response.json();
    } catch (error) {
      body = null;
    }
    if (!response.ok) {
      const message = body && body.error ? body.error.message : response.status + " " + response.statusText;
      throw new Error(message);
    }
    return body;
  }

  function fmt(value, digits) {
    if (value === null || value === undefined || Number.isNaN(value)) {
      return "—";
    }
    const places = digits === undefined ? 1 : digits;
    return Number(value).toLocaleString("en-US", { maximumFractionDigits: places, minimumFractionDigits: 0 });
  }

  /**
   * A chart card inside `slot` (an element or its id): title, CSV and PNG
   * buttons, a canvas. Returns {element, canvas, draw(factory, columns, rows),
   * empty(message)}: draw(factory) calls factory(canvas) for the Chart and
   * keeps columns/rows as exactly what the CSV button downloads.
   * opts: {title, filename, size: "short"|"tall", heading: "h2"|"h3", note}
   */
  function chartCard(slot, opts) {
    const parent = typeof slot === "string" ? document.getElementById(slot) : slot;
    const canvas = el("canvas", { role: "img", "aria-label": opts.title });
    // Named with their chart: a screen reader's list of buttons says which chart each one saves.
    const csvButton = el("button", {
      type: "button", className: "btn-small", "data-action": "csv", text: "CSV", "aria-label": "Download CSV of " + opts.title,
    });
    const pngButton = el("button", {
      type: "button", className: "btn-small", "data-action": "png", text: "PNG", "aria-label": "Download PNG of " + opts.title,
    });
    const note = el("p", { className: "chart-note muted small", text: opts.note || "" });
    const emptyText = el("p", { className: "empty-state", hidden: true });
    const box = el("div", { className: "chart-box" + (opts.size ? " " + opts.size : "") }, [canvas]);
    const element = el("section", { className: "card chart-card" }, [
      el("div", { className: "card-header" }, [el(opts.heading || "h2", { text: opts.title }), csvButton, pngButton]),
      note,
      box,
      emptyText,
    ]);
    parent.appendChild(element);
    const card = { element: element, canvas: canvas, chart: null, columns: [], rows: [], note: note };
    csvButton.addEventListener("click", function () {
      Headroom.downloadCsv(opts.filename, card.columns, card.rows);
    });
    pngButton.addEventListener("click", function () {
      if (card.chart) {
        // opts.caption(): lines (title, counter, threshold) printed above the chart in the file.
        Headroom.downloadPng(card.chart, opts.filename.replace(/\.csv$/, "") + ".png", opts.caption ? opts.caption() : null);
      }
    });
    card.draw = function (factory, columns, rows) {
      card.columns = columns;
      card.rows = rows;
      box.hidden = false;
      emptyText.hidden = true;
      csvButton.disabled = pngButton.disabled = false;
      card.chart = factory(canvas);
      return card.chart;
    };
    card.empty = function (message) {
      if (card.chart) {
        card.chart.destroy();
        card.chart = null;
      }
      card.columns = [];
      card.rows = [];
      box.hidden = true;
      emptyText.hidden = false;
      emptyText.textContent = message;
      csvButton.disabled = pngButton.disabled = true;
    };
    return card;
  }

  /**
   * columns: [{key, label, num, format(value, row), sort(value, row), className, figure(value, row)}]
   * rows: objects read by column key; row.attrs become <tr> attributes.
   * figure(value, row, key) -> {at, unit, value} marks the cell as a printed figure (see figure()), or null.
   */
  function table(columns, rows, label) {
    const head = el("tr", {}, columns.map(function (c) {
      return el("th", { className: c.num ? "num" : c.className, text: c.label });
    }));
    const body = el("tbody", {}, rows.map(function (row) {
      return el("tr", row.attrs || {}, columns.map(function (c) {
        const value = row[c.key];
        const shown = c.format ? c.format(value, row) : value === null || value === undefined ? "" : String(value);
        const sortValue = c.sort ? c.sort(value, row) : typeof value === "number" ? value : null;
        const cell = el("td", {
          className: [c.num ? "num" : "", c.cellClass || ""].join(" ").trim() || null,
          "data-sort-value": sortValue === null || sortValue === undefined ? null : String(sortValue),
          title: c.title ? c.title(value, row) : null,
        });
        cell.textContent = shown;
        const source = c.figure ? c.figure(value, row, c.key) : null;
        if (source) {
          figure(cell, source.at, source.unit, source.value === undefined ? value : source.value);
        }
        return cell;
      }));
    }));
    const result = el("table", { className: "sortable" }, [el("thead", {}, [head]), body]);
    Headroom.sortableTables(result);
    const wrap = el("div", { className: "table-wrap" }, [result]);
    labelScrollArea(wrap, label);
    return wrap;
  }

  /**
   * Makes a .table-wrap reachable from the keyboard (it scrolls sideways on a
   * narrow screen) and names it: `label`, else its table's caption, else the
   * heading of the card it sits in once it is placed, else its column names.
   */
  function labelScrollArea(wrap, label) {
    wrap.setAttribute("tabindex", "0");
    wrap.setAttribute("role", "region");
    if (label) {
      wrap.setAttribute("aria-label", label);
      return;
    }
    if (wrap.hasAttribute("aria-label")) {
      return;
    }
    const table = wrap.querySelector("table");
    const caption = table && table.caption ? table.caption.textContent.trim() : "";
    const headers = table ? Array.from(table.querySelectorAll("thead th")).map(function (th) {
      return th.textContent.trim();
    }).filter(Boolean) : [];
    wrap.setAttribute("aria-label", caption || "Table of " + (headers.slice(0, 3).join(", ") || "results"));
    if (!caption) {
      // Placed by the caller after this returns: the card's heading names it better.
      global.requestAnimationFrame(function () {
        const card = wrap.closest("section, .card");
        const heading = card && card.querySelector("h1, h2, h3");
        if (heading && heading.textContent.trim()) {
          wrap.setAttribute("aria-label", heading.textContent.trim());
        }
      });
    }
  }

  /**
   * A printed figure says where it came from, for the display oracle (tests/browser/test_display_oracle.py):
   * data-key is the JSON pointer of its value in the API answer named by the nearest data-api above it,
   * data-unit the unit the API gives that value in, data-value the value itself. Nothing visible changes.
   */
  function figure(node, at, unit, value) {
    node.setAttribute("data-key", at);
    node.setAttribute("data-unit", unit || "");
    node.setAttribute("data-value", JSON.stringify(value === undefined ? null : value));
    return node;
  }

  // Tags each item of an API list with its JSON pointer (`prefix` + "/" + index), kept through copies.
  function located(list, prefix) {
    list.forEach(function (item, index) {
      item._at = prefix + "/" + index;
    });
    return list;
  }

  function field(unit, key) {
    return function (value, row, columnKey) {
      if (!row || row._at === undefined) return null;
      return { at: row._at + "/" + (key || columnKey), unit: typeof unit === "function" ? unit(row) : unit,
        value: key ? row[key] : value };
    };
  }

  function varyingDims(scenarios) {
    const values = {};
    scenarios.forEach(function (s) {
      Object.keys(s.dims || {}).forEach(function (key) {
        values[key] = values[key] || new Set();
      });
    });
    Object.keys(values).forEach(function (key) {
      scenarios.forEach(function (s) {
        values[key].add(s.dims && key in s.dims ? s.dims[key] : "");
      });
    });
    return Object.keys(values).filter(function (key) {
      return values[key].size > 1;
    });
  }

  // Dimensions whose values read on their own ("2012 R2", "SSD"); others show as key=value.
  const SELF_DESCRIBING = {
    server_os: function (v) { return v; },
    disk_type: function (v) { return v; },
    technique: function (v) { return v; },
    dataset: function (v) { return v; },
    smb_dialect: function (v) { return "SMB " + v; },
    power_profile: function (v) { return v + " power"; },
    server_cpu_load: function (v) { return "CPU " + v + " %"; },
  };

  function shortLabel(dims, keys) {
    const parts = keys.filter(function (key) {
      return dims && dims[key] !== undefined;
    }).map(function (key) {
      return key in SELF_DESCRIBING ? SELF_DESCRIBING[key](dims[key]) : key + "=" + dims[key];
    });
    return parts.join(" · ") || "(all)";
  }

  // Draws dataset.barText[i] above (or beside, for horizontal charts) each bar,
  // past the end of its whisker (dataset.errorBars[i]) when it has one.
  // Label boxes never overlap: a label that would touch one already drawn (neighbouring bars narrower
  // than their figures, on a phone) is drawn smaller, and left out if it still would; the figure stays
  // in the chart's table and tooltip. The boxes drawn are kept on chart.barLabelBoxes (tests read them).
  const LABEL_FONTS = [11, 9];
  function overlaps(a, b) {
    return a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
  }

  const barLabels = {
    id: "barLabels",
    afterDatasetsDraw: function (chart) {
      const context = chart.ctx;
      const horizontal = chart.options.indexAxis === "y";
      const valueScale = horizontal ? chart.scales.x : chart.scales.y;
      function whiskerEnd(dataset, i) {
        const range = dataset.errorBars && dataset.errorBars[i];
        return range && range[1] !== null && range[1] !== undefined ? valueScale.getPixelForValue(range[1]) : null;
      }
      function box(text, x, y, size) {
        context.font = "600 " + size + "px " + Chart.defaults.font.family;
        const width = context.measureText(text).width;
        const left = horizontal ? x : x - width / 2;
        const top = horizontal ? y - size / 2 : y - size;
        return { left: left, right: left + width, top: top, bottom: top + size, text: text, size: size };
      }
      const drawn = [];
      context.save();
      context.fillStyle = "#1f2328";
      chart.data.datasets.forEach(function (dataset, index) {
        const meta = chart.getDatasetMeta(index);
        if (!dataset.barText || meta.hidden) {
          return;
        }
        meta.data.forEach(function (bar, i) {
          const text = dataset.barText[i];
          if (!text || dataset.data[i] === null || dataset.data[i] === undefined) {
            return;
          }
          context.textAlign = horizontal ? "left" : "center";
          context.textBaseline = horizontal ? "middle" : "bottom";
          const end = whiskerEnd(dataset, i);
          const x = horizontal ? (end === null ? bar.x : Math.max(bar.x, end)) + 4 : bar.x;
          const y = horizontal ? bar.y : (end === null ? bar.y : Math.min(bar.y, end)) - 3;
          const fits = LABEL_FONTS.map(function (size) { return box(text, x, y, size); }).find(function (b) {
            return !drawn.some(function (other) { return overlaps(b, other); });
          });
          if (!fits) {
            return;
          }
          context.font = "600 " + fits.size + "px " + Chart.defaults.font.family;
          context.fillText(text, x, y);
          drawn.push(fits);
        });
      });
      context.restore();
      chart.barLabelBoxes = drawn;
    },
  };

  if (global.Chart) {
    global.Chart.register(barLabels);
  }

  function allCharts() {
    return global.Chart ? Object.values(global.Chart.instances) : [];
  }

  function resizeAll() {
    allCharts().forEach(function (chart) {
      chart.resize();
    });
  }

  global.addEventListener("beforeprint", resizeAll);
  global.addEventListener("afterprint", resizeAll);

  document.querySelectorAll("form[data-confirm]").forEach(function (form) {
    form.addEventListener("submit", function (event) {
      if (!global.confirm(form.getAttribute("data-confirm"))) {
        event.preventDefault();
      }
    });
  });
  Headroom.sortableTables(document);
  document.querySelectorAll(".table-wrap").forEach(function (wrap) {
    labelScrollArea(wrap);
  });

  // Paths differ at their end (the folder) and are recognised by their start (the drive): keep both.
  function middleCut(text, most) {
    const line = String(text);
    const head = Math.round(most / 4);
    return line.length <= most ? line : line.slice(0, head) + "…" + line.slice(line.length - (most - head - 1));
  }

  // Per-host rows on demand: the box follows ?hosts=1, so a copied address shows what was on screen.
  function perHost(box, redraw) {
    box.checked = new URLSearchParams(global.location.search).get("hosts") === "1";
    box.addEventListener("change", function () {
      const address = new URLSearchParams(global.location.search);
      if (box.checked) address.set("hosts", "1"); else address.delete("hosts");
      const query = address.toString();
      global.history.replaceState(null, "", query ? "?" + query : global.location.pathname);
      redraw();
    });
  }

  global.HeadroomPages = {
    perHost: perHost,
    el: el,
    pageData: pageData,
    fetchJson: fetchJson,
    fmt: fmt,
    figure: figure,
    located: located,
    field: field,
    chartCard: chartCard,
    table: table,
    varyingDims: varyingDims,
    shortLabel: shortLabel,
    middleCut: middleCut,
    barLabels: barLabels,
  };
})(typeof globalThis !== "undefined" ? globalThis : this);
