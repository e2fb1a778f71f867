"""Which user-experience rule a capacity page or share report shows, read from its address.

The capacity page keeps the rule in its address as ``timing``, ``ux_baseline``
(``first_step`` or ``lowest:N``), ``delta_ms`` and ``factor``; a share link
freezes the same four. They are checked with the API's own rule
(``analysis.ux_rules.rule``, what ``GET /api/v1/campaigns/{slug}/capacity?timing=``
answers 400 for), and the timing must be one of the campaign's timings placed on
the user axis. Each refused value becomes a sentence and its default is used
instead: the page shows them in its "problems" alert, a share link refuses to be
made. Without ``timing`` the default is ``logon`` when the campaign has it, else
its first placed timing; with none, no rule.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from webapp.analysis.ux_rules import DEFAULT_DELTA_MS, FIRST_STEP, RuleError, rule

KEYS = ("timing", "ux_baseline", "delta_ms", "factor")
DEFAULT_TIMING = "logon"


def default_timing(names: Sequence[str]) -> str:
    """ "logon" when the campaign has it, else its first placed timing; "" without any."""
    if DEFAULT_TIMING in names:
        return DEFAULT_TIMING
    return names[0] if names else ""


def _positive(text: str) -> float | None:
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) and value > 0 else None


def read_ux(query: Mapping[str, Any], names: Sequence[str]) -> tuple[dict[str, Any] | None, list[str]]:
    """``(ux, problems)``: ``ux`` holds ``timing``, ``baseline``, ``delta_ms`` and ``factor`` (one of the last two
    None), the API's parameters; None when the campaign has no timing on the user axis."""
    found = {k: str(query[k]).strip() for k in KEYS if query.get(k) not in (None, "")}
    problems: list[str] = []
    timing = found.get("timing")
    if timing is not None and timing not in names:
        listed = ", ".join(names[:8]) or "none"
        problems.append(
            f"timing {timing[:120]!r} is not a timing of this campaign placed on load steps (it has: {listed})"
        )
        timing = None
    timing = timing or default_timing(names)
    baseline = found.get("ux_baseline", FIRST_STEP)
    try:
        rule(timing or "x", baseline, None, None)
    except RuleError as exc:
        problems.append(f"ux_baseline: {exc}")
        baseline = FIRST_STEP
    margins: dict[str, float | None] = {"delta_ms": None, "factor": None}
    for key, words in (
        ("delta_ms", "delta_ms is a positive number of milliseconds above the baseline"),
        ("factor", "factor is a positive number (the threshold is the baseline times it)"),
    ):
        if key in found:
            value = _positive(found[key])
            if value is None:
                problems.append(f"{words}, not {found[key][:40]!r}")
            else:
                margins[key] = value
    if margins["delta_ms"] is not None and margins["factor"] is not None:
        problems.append("give delta_ms or factor, not both: the page uses delta_ms")
        margins["factor"] = None
    if margins["factor"] is None and margins["delta_ms"] is None:
        margins["delta_ms"] = DEFAULT_DELTA_MS
    if not timing:
        return None, problems
    return {"timing": timing, "baseline": baseline, **margins}, problems


def api_query(ux: Mapping[str, Any]) -> dict[str, Any]:
    """The rule as the capacity API's query (``timing``, ``baseline`` and ``delta_ms`` or ``factor``)."""
    query = {"timing": ux["timing"], "baseline": ux["baseline"]}
    if ux.get("factor") is not None:
        return {**query, "factor": ux["factor"]}
    return {**query, "delta_ms": ux["delta_ms"]}
