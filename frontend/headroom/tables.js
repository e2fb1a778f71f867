/**
 * Headroom sortable tables: a click on a column header sorts the table by
 * that column, numbers by value and text naturally. Plain ES2019, no build
 * step; load after headroom/charts.js. Adds to the global `Headroom`:
 *
 *   Headroom.sortableTables(root)   make every <table class="sortable"> under root sortable
 *   Headroom.parseNumber(text)      -> the number a cell shows, or null
 */
(function (global) {
  "use strict";

  const Headroom = (global.Headroom = global.Headroom || {});

  const COLLATOR = new Intl.Collator(undefined, { numeric: true, sensitivity: "base" });
  // A number, optionally with thousands separators and a unit: "1,234.5 ms", "-3%", "2e6 B/s".
  const NUMERIC_CELL = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*([%a-zA-Zµμ°/][^\d]*)?$/;

  /**
   * The number a table cell shows, or null when it is not numeric.
   * @param {string} text
   * @returns {number|null}
   */
  function parseNumber(text) {
    const compact = text.trim().replace(/\u2212/g, "-").replace(/(\d)[,_\s\u202f\u00a0](?=\d{3}\b)/g, "$1");
    if (!NUMERIC_CELL.test(compact)) {
      return null;
    }
    const value = parseFloat(compact);
    return Number.isFinite(value) ? value : null;
  }

  function cellText(row, index) {
    const cell = row.cells[index];
    if (!cell) {
      return "";
    }
    const explicit = cell.getAttribute("data-sort-value");
    return (explicit !== null ? explicit : cell.textContent || "").trim();
  }

  function sortTable(table, header, index, direction) {
    const bodies = Array.prototype.slice.call(table.tBodies);
    const rowsPerBody = bodies.map(function (body) {
      return Array.prototype.slice.call(body.rows);
    });
    const texts = [];
    rowsPerBody.forEach(function (rows) {
      rows.forEach(function (row) {
        texts.push(cellText(row, index));
      });
    });
    // One rule per column: numeric only when every filled cell is a number.
    const numeric = texts.some(Boolean) && texts.every(function (text) {
      return text === "" || parseNumber(text) !== null;
    });
    const sign = direction === "ascending" ? 1 : -1;
    rowsPerBody.forEach(function (rows, bodyIndex) {
      const keyed = rows.map(function (row) {
        const text = cellText(row, index);
        return { row: row, text: text, number: numeric && text !== "" ? parseNumber(text) : null };
      });
      keyed.sort(function (a, b) {
        // Empty cells stay at the bottom in both directions.
        if (a.text === "" || b.text === "") {
          return Number(a.text === "") - Number(b.text === "");
        }
        const order = numeric ? a.number - b.number : COLLATOR.compare(a.text, b.text);
        return sign * order;
      });
      const fragment = document.createDocumentFragment();
      keyed.forEach(function (item) {
        fragment.appendChild(item.row);
      });
      bodies[bodyIndex].appendChild(fragment);
    });
    Array.prototype.forEach.call(table.tHead.querySelectorAll("th"), function (th) {
      if (th === header) {
        th.setAttribute("aria-sort", direction);
      } else {
        th.removeAttribute("aria-sort");
      }
    });
  }

  /**
   * Make every <table class="sortable"> under `root` sortable by clicking a
   * column header in its <thead>: the first click sorts ascending (or
   * descending when the header has data-sort-default="desc"), the next
   * toggles. Numbers (with units or thousands separators) sort by value;
   * units are not converted, so give "12 MB"/"87 KB" cells a data-sort-value.
   * Text sorts naturally ("run 2" before "run 10"), empty cells last.
   * A cell's data-sort-value overrides its text; headers with
   * data-sort="none" stay inert. The sorted header gets aria-sort. Calling
   * this again on the same tables is harmless.
   * @param {ParentNode} [root=document]
   */
  function sortableTables(root) {
    const scope = root || document;
    const tables = Array.prototype.slice.call(scope.querySelectorAll("table.sortable"));
    if (scope.matches && scope.matches("table.sortable")) {
      tables.push(scope);
    }
    tables.forEach(function (table) {
      if (table.hasAttribute("data-sortable-ready") || !table.tHead || !table.tHead.rows.length) {
        return;
      }
      table.setAttribute("data-sortable-ready", "");
      const headerRow = table.tHead.rows[table.tHead.rows.length - 1];
      Array.prototype.forEach.call(headerRow.cells, function (th, index) {
        // A header without text (an actions column) would be a button with no name.
        if (th.getAttribute("data-sort") === "none" || !th.textContent.trim()) {
          return;
        }
        // A button makes the header reachable and operable from the keyboard.
        const button = document.createElement("button");
        button.type = "button";
        button.className = "sort-header";
        while (th.firstChild) {
          button.appendChild(th.firstChild);
        }
        th.appendChild(button);
        button.addEventListener("click", function () {
          const current = th.getAttribute("aria-sort");
          let direction;
          if (current === "ascending") {
            direction = "descending";
          } else if (current === "descending") {
            direction = "ascending";
          } else {
            direction = th.getAttribute("data-sort-default") === "desc" ? "descending" : "ascending";
          }
          sortTable(table, th, index, direction);
        });
      });
    });
  }

  Headroom.sortableTables = sortableTables;
  Headroom.parseNumber = parseNumber;
})(typeof globalThis !== "undefined" ? globalThis : this);
