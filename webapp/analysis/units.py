"""A number and its unit, formatted together: the shared pages' twin of ``headroom/units.js``.

The same rules as the dashboard's ``Headroom.units``: a group of figures
(a row's mean, stdev, min and max) is printed in one unit chosen from the
group (:func:`shown`) -- long durations in s, byte rates in MB/s -- and
converting a figure converts its unit. Three significant figures (0 decimals
from 100, 1 from 10, 2 from 1, three significant below 1, at most 6
decimals), thousands separated. Python keeps trailing zeros ("5.00 s"); the
page drops them ("5 s").
"""

from __future__ import annotations

import math
from collections.abc import Iterable

LONG_MS = 10_000.0
# unit -> {printed unit: value in ``unit`` per printed unit}
SCALES = {"ms": {"s": 1000.0}, "B/s": {"MB/s": 1e6}}


def shown(unit: str, values: Iterable[float | None]) -> str:
    """The unit a group of figures in ``unit`` is printed in."""
    if unit == "B/s":
        return "MB/s"
    if unit == "ms":
        largest = max((abs(v) for v in values if v is not None), default=0.0)
        return "s" if largest >= LONG_MS else "ms"
    return unit


def convert(value: float, unit: str, printed: str) -> float:
    return value / SCALES.get(unit, {}).get(printed, 1.0)


def _digits(value: float) -> int:
    size = abs(value)
    if size >= 1 or size == 0:
        return 0 if size >= 100 else 1 if size >= 10 else 2
    return min(6, 2 - math.floor(math.log10(size)))  # 0.35 -> 0.350, 0.0012 -> 0.00120


def number(value: float | None, unit: str, printed: str | None = None) -> str:
    """The value converted to ``printed`` (default: its own readable unit), without the unit."""
    if value is None:
        return ""
    converted = convert(value, unit, shown(unit, [value]) if printed is None else printed)
    return f"{converted:,.{_digits(converted)}f}"


def value_text(value: float | None, unit: str, printed: str | None = None) -> str:
    """``"85.5 s"``: the value converted to ``printed`` (default: its own readable unit), with that unit."""
    target = shown(unit, [value]) if printed is None else printed
    figure = number(value, unit, target)
    return f"{figure} {target}".strip() if figure else ""
