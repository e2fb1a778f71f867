"""The capacity page's address, read with the API's rules: a refused value is named, never silently replaced.

``GET /api/v1/campaigns/{slug}/capacity`` and ``/sizing`` answer 400 for a bad
statistic, trim, threshold, counter or sizing value (webapp/api/analysis.py,
webapp/api/sizing.py). The page checks its address the same way; each value it
refuses becomes a sentence shown on the page, and the default is used instead.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from webapp.analysis.counters import DEFAULT_COUNTER
from webapp.api.sizing import MAX_REDUNDANCY, MAX_USERS

STAT_CHOICES = ("avg", "max", "p95")
DEFAULTS: dict[str, Any] = {"stat": "avg", "threshold": 80.0, "trim": 10.0}
SIZING_DEFAULTS: dict[str, Any] = {"users": 1000, "target": 60.0, "redundancy": 1}


def counter_unit(path: str) -> str:
    """The unit of a perfmon counter's values, from its name: "%", "MB", "bytes/s", "transfers/s" or ""."""
    name = path.rsplit("\\", 1)[-1].strip()
    lowered = name.lower()
    if "%" in name:
        return "%"
    if lowered.startswith("avg. disk sec") or lowered.endswith(" sec"):
        return "s"
    if "mbytes" in lowered:
        return "MB"
    if "kbytes" in lowered:
        return "KB"
    if lowered.endswith("/sec"):
        words = lowered[: -len("/sec")].split()
        noun = "bytes" if "bytes" in words else words[-1] if words else ""
        return f"{noun}/s" if noun else "/s"
    if "bytes" in lowered:
        return "bytes"
    return ""


def _float(text: str) -> float | None:
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def _whole(text: str) -> int | None:
    value = _float(text)
    return int(value) if value is not None and value == int(value) else None


def read_capacity(
    query: Mapping[str, str], counters: Sequence[str]
) -> tuple[dict[str, Any], dict[str, Any], list[str]]:
    """``(params, sizing, problems)``: the values to use and one sentence per refused value."""
    # An empty field is an untouched one (the form sends every field).
    query = {key: value for key, value in query.items() if value != ""}
    problems: list[str] = []
    params: dict[str, Any] = {"counter": DEFAULT_COUNTER, **DEFAULTS}
    counter = query.get("counter")
    if counter is not None:
        if counter in counters:
            params["counter"] = counter
        else:
            problems.append(
                f"counter {counter[:120]!r} is not a server counter measured in this campaign's load-stepped runs"
            )
    stat = query.get("stat")
    if stat is not None:
        if stat in STAT_CHOICES:
            params["stat"] = stat
        else:
            problems.append(f"stat must be avg, max or p95, not {stat[:40]!r}")
    threshold = query.get("threshold")
    if threshold is not None:
        value = _float(threshold)
        if value is None:
            problems.append(f"threshold must be a number, not {threshold[:40]!r}")
        else:
            params["threshold"] = value
    trim = query.get("trim")
    if trim is not None:
        value = _float(trim)
        if value is None or not 0 <= value < 50:
            problems.append(f"trim is a percentage of each step, from 0 to below 50, not {trim[:40]!r}")
        else:
            params["trim"] = value
    sizing = dict(SIZING_DEFAULTS)
    rules: dict[str, tuple[Callable[[str], float | None], Callable[[float], bool], str]] = {
        "users": (
            _whole,
            lambda v: 1 <= v <= MAX_USERS,
            f"users is the population to serve, from 1 to {MAX_USERS:,}",
        ),
        "target": (_float, lambda v: v > 0, "target is a positive number (e.g. 60 for 60 % CPU)"),
        "redundancy": (
            _whole,
            lambda v: 0 <= v <= MAX_REDUNDANCY,
            f"redundancy is 0 to {MAX_REDUNDANCY} spare servers",
        ),
    }
    for key, (parse, ok, rule) in rules.items():
        text = query.get(key)
        if text is None:
            continue
        parsed = parse(text)
        if parsed is None or not ok(parsed):
            problems.append(f"{rule}, not {text[:40]!r}")
        else:
            sizing[key] = parsed
    return params, sizing, problems
