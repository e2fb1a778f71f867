/**
 * Headroom.units: a number and its unit are formatted together, here and nowhere else
 * (Python's twin, for the shared pages: webapp/analysis/units.py, same rules).
 *
 *   units.shown(unit, values)          the unit a group of figures is printed in (a table row's mean,
 *                                      stdev, min and max; a column): long durations in s, byte rates in MB/s
 *   units.convert(value, unit, shown)  the value in the printed unit
 *   units.number(value, unit, shown)   "85.5": the converted value alone, for a cell beside a unit column
 *   units.text(value, unit, shown)     "85.5 s": the converted value with its printed unit
 *
 * `shown` defaults to shown(unit, [value]). Converting a figure converts its unit: a row whose mean is
 * printed in s prints its stdev, min and max in s too, and says "s". Digits: three significant figures
 * (0 decimals from 100, 1 from 10, 2 from 1, three significant below 1, at most 6 decimals), thousands
 * separated, trailing zeros dropped; `digits` overrides.
 */
(function (global) {
  "use strict";

  // unit -> {shown unit: value in `unit` per shown unit}
  const SCALES = { ms: { s: 1000 }, "B/s": { "MB/s": 1e6 } };
  const LONG_MS = 10000;

  function present(value) {
    return value !== null && value !== undefined && !Number.isNaN(value);
  }

  function shown(unit, values) {
    if (unit === "B/s") return "MB/s";
    if (unit === "ms") {
      const largest = Math.max.apply(null, (values || []).filter(present).map(Math.abs).concat([0]));
      return largest >= LONG_MS ? "s" : "ms";
    }
    return unit || "";
  }

  function convert(value, unit, printed) {
    if (!present(value)) return value;
    const per = (SCALES[unit] || {})[printed];
    return per ? value / per : value;
  }

  function digitsFor(value) {
    const size = Math.abs(value);
    if (size >= 1 || size === 0) return size >= 100 ? 0 : size >= 10 ? 1 : 2;
    return Math.min(6, 2 - Math.floor(Math.log10(size))); // 0.35 -> 0.350, 0.0012 -> 0.00120
  }

  function number(value, unit, printed, digits) {
    if (!present(value)) return "—";
    const converted = convert(value, unit, printed === undefined ? shown(unit, [value]) : printed);
    const places = digits === undefined ? digitsFor(converted) : digits;
    return Number(converted).toLocaleString("en-US", { maximumFractionDigits: places, minimumFractionDigits: 0 });
  }

  function text(value, unit, printed, digits) {
    const target = printed === undefined ? shown(unit, [value]) : printed;
    const figure = number(value, unit, target, digits);
    return figure === "—" || !target ? figure : figure + " " + target;
  }

  global.Headroom = global.Headroom || {};
  global.Headroom.units = { shown: shown, convert: convert, number: number, text: text };
})(typeof globalThis !== "undefined" ? globalThis : this);
