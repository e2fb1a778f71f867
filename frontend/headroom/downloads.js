/**
 * Headroom downloads: a table as an RFC 4180 CSV file and a chart as a PNG
 * with its caption above and its HTML legend (legend.js) below. Plain ES2019,
 * no build step; load after headroom/charts.js. Adds to the global `Headroom`:
 *
 *   Headroom.toCsv(columns, rows)                    -> CSV text
 *   Headroom.downloadCsv(filename, columns, rows)
 *   Headroom.downloadPng(chart, filename, caption?)  caption: lines drawn above the chart
 */
(function (global) {
  "use strict";

  const Headroom = (global.Headroom = global.Headroom || {});

  function triggerDownload(blob, filename) {
    const url = URL.createObjectURL(blob);
    const link = document.createElement("a");
    link.href = url;
    link.download = filename;
    link.style.display = "none";
    document.body.appendChild(link);
    link.click();
    link.remove();
    // Revoking at once can cancel the download in some browsers.
    setTimeout(function () {
      URL.revokeObjectURL(url);
    }, 1000);
  }

  const FORMULA_START = /^[=+\-@\t\r]/;
  const PLAIN_NUMBER = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;

  function csvCell(value) {
    if (value === null || value === undefined) {
      return "";
    }
    let text = value instanceof Date ? value.toISOString() : String(value);
    // A spreadsheet would run "=..." as a formula; negative numbers stay numbers.
    if (typeof value === "string" && FORMULA_START.test(text) && !PLAIN_NUMBER.test(text)) {
      text = "'" + text;
    }
    return /[",\r\n]/.test(text) ? '"' + text.replace(/"/g, '""') + '"' : text;
  }

  /**
   * Build RFC 4180 CSV text (CRLF line ends, no byte-order mark).
   * `columns` are header strings or {key, label} objects; each row is an
   * array in column order or an object read by column key (the header
   * string doubles as the key).
   * @param {Array<string|{key: string, label: string}>} columns
   * @param {Array<Array|Object>} rows
   * @returns {string}
   */
  function toCsv(columns, rows) {
    const specs = columns.map(function (column) {
      return typeof column === "string" ? { key: column, label: column } : column;
    });
    const lines = [specs.map(function (spec) { return csvCell(spec.label || spec.key); }).join(",")];
    (rows || []).forEach(function (row) {
      const cells = specs.map(function (spec, index) {
        return csvCell(Array.isArray(row) ? row[index] : row[spec.key]);
      });
      lines.push(cells.join(","));
    });
    return lines.join("\r\n") + "\r\n";
  }

  /**
   * Download `rows` as a CSV file; see toCsv for the shapes accepted.
   * @param {string} filename
   * @param {Array<string|{key: string, label: string}>} columns
   * @param {Array<Array|Object>} rows
   */
  function downloadCsv(filename, columns, rows) {
    const blob = new Blob([toCsv(columns, rows)], { type: "text/csv;charset=utf-8" });
    triggerDownload(blob, /\.csv$/i.test(filename) ? filename : filename + ".csv");
  }

  /**
   * Download a chart as a PNG on a white background (Chart.js canvases are
   * transparent, which renders black in some viewers), at the canvas's
   * device-pixel resolution.
   * @param {Chart} chart
   * @param {string} [filename="chart.png"]
   */
  function downloadPng(chart, filename, caption) {
    // caption: lines printed above the chart (title, counter, threshold) so the file explains itself.
    const source = chart.canvas;
    const lines = caption ? [].concat(caption).filter(Boolean) : [];
    const ratio = source.width / (source.clientWidth || source.width);
    const lineHeight = Math.round(18 * ratio);
    const top = lines.length ? lines.length * lineHeight + Math.round(10 * ratio) : 0;
    // A narrow chart's legend is HTML under it (legend.js): its visible items go under the image.
    const legend = (Headroom.legendItems ? Headroom.legendItems(chart) : []).filter(function (item) { return !item.hidden; });
    const bottom = legend.length ? legend.length * lineHeight + Math.round(8 * ratio) : 0;
    const flat = document.createElement("canvas");
    flat.width = source.width;
    flat.height = source.height + top + bottom;
    const context = flat.getContext("2d");
    context.fillStyle = "#ffffff";
    context.fillRect(0, 0, flat.width, flat.height);
    context.fillStyle = "#1f2328";
    lines.forEach(function (line, i) {
      context.font = (i === 0 ? "600 " : "") + Math.round((i === 0 ? 15 : 12) * ratio) + "px sans-serif";
      context.fillText(String(line), Math.round(8 * ratio), (i + 1) * lineHeight);
    });
    context.drawImage(source, 0, top);
    const box = Math.round(10 * ratio);
    context.font = Math.round(12 * ratio) + "px sans-serif";
    legend.forEach(function (item, i) {
      const y = top + source.height + (i + 1) * lineHeight;
      context.fillStyle = typeof item.strokeStyle === "string" ? item.strokeStyle : "#1f2328";
      context.fillRect(Math.round(8 * ratio), y - box, box, box);
      context.fillStyle = "#1f2328";
      context.fillText(String(item.text), Math.round(8 * ratio) + box * 1.6, y);
    });
    const name = filename || "chart.png";
    flat.toBlob(function (blob) {
      if (!blob) {
        throw new Error("Headroom: the browser could not encode the chart as PNG");
      }
      triggerDownload(blob, /\.png$/i.test(name) ? name : name + ".png");
    }, "image/png");
  }

  Headroom.downloadCsv = downloadCsv;
  Headroom.downloadPng = downloadPng;
  Headroom.toCsv = toCsv;
})(typeof globalThis !== "undefined" ? globalThis : this);
