"""Remarks the seed authors wrote by hand, computed: short sentences per scenario, each backed by numbers.

* **spiky load**: at some step the maximum stands far above the average
  (at least :data:`SPIKE_POINTS` above it and 1.5x it);
* **knee**: the curve's slope changes at a step -- two straight lines split
  at the best step explain the curve much better than one (residual at most
  :data:`KNEE_RSS` of the single line's) and the slope after is at least
  :data:`KNEE_RATIO` x the slope before;
* **IOPS-CPU coupling**: ``Disk Transfers/sec`` against the statistic over
  the steps, a least-squares line with R² >= :data:`COUPLING_R2`;
* **cost versus a baseline**: a scenario that differs from a better one in
  a single dimension (``analysis.differences``), with the interval.

Each remark carries ``link``: the trace of the scenario's first run, or an
anchor of the capacity page's tables.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from webapp.analysis.capacity import ScenarioCapacity
from webapp.analysis.extrapolate import fit

SPIKE_POINTS = 20.0
KNEE_RATIO = 1.5
KNEE_RSS = 0.5
COUPLING_R2 = 0.9
MIN_STEPS = 5
STAT_NAMES = {"avg": "average", "max": "maximum", "p95": "95th percentile"}


def _line_rss(xs: Sequence[float], ys: Sequence[float]) -> tuple[float, float]:
    """(slope, residual sum of squares) of a least-squares line."""
    found = fit("linear", xs, ys)
    return (found.b, found.rss) if found else (0.0, 0.0)


def knee(xs: Sequence[float], ys: Sequence[float]) -> tuple[float, float, float] | None:
    """(users at the knee, slope before, slope after), or None when one line explains the curve."""
    if len(xs) < MIN_STEPS:
        return None
    _, whole = _line_rss(xs, ys)
    best: tuple[float, float, float, float] | None = None
    for split in range(2, len(xs) - 1):  # each side keeps at least two steps (the knee in both)
        before, rss_before = _line_rss(xs[: split + 1], ys[: split + 1])
        after, rss_after = _line_rss(xs[split:], ys[split:])
        total = rss_before + rss_after
        if best is None or total < best[0]:
            best = (total, xs[split], before, after)
    if best is None or whole <= 0:
        return None
    total, at, before, after = best
    if total > KNEE_RSS * whole or before <= 0 or after < KNEE_RATIO * before:
        return None
    return at, before, after


def scenario_remarks(
    scenario: ScenarioCapacity, stat: str, trace_url: str, comparisons: Sequence[dict[str, Any]]
) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    trace = f"{trace_url}?run={scenario.run_ids[0]}" if scenario.run_ids else "#steps-table"
    spikes = [
        s
        for s in scenario.steps
        if s.avg is not None and s.max is not None and s.max - s.avg >= SPIKE_POINTS and s.max >= 1.5 * s.avg
    ]
    if spikes:
        worst = max(spikes, key=lambda s: (s.max or 0.0) - (s.avg or 0.0))
        found.append(
            {
                "kind": "spiky",
                "text": f"Spiky load: at {worst.users:,} users the maximum ({worst.max:.1f}) is "
                f"{(worst.max or 0.0) - (worst.avg or 0.0):.1f} above the average ({worst.avg:.1f}); "
                f"{len(spikes)} of {len(scenario.steps)} steps show it.",
                "link": trace,
            }
        )
    measured = [(float(s.users), getattr(s, stat)) for s in scenario.steps if getattr(s, stat) is not None]
    bend = knee([x for x, _ in measured], [y for _, y in measured])
    if bend is not None:
        at, before, after = bend
        found.append(
            {
                "kind": "knee",
                "text": f"Knee at {at:,.0f} users: the {STAT_NAMES.get(stat, stat)} rises {after / before:.1f}x as fast above it "
                f"({before * 100:.1f} -> {after * 100:.1f} per 100 users).",
                "link": "#steps-table",
            }
        )
    iops = scenario.companions.get("iops", {})
    pairs = [(iops[u], y) for u, y in ((int(x), y) for x, y in measured) if u in iops]
    coupling = (
        fit("linear", [p[0] for p in pairs], [p[1] for p in pairs]) if len(pairs) >= MIN_STEPS else None
    )
    if coupling is not None and coupling.r2 >= COUPLING_R2 and coupling.b > 0:
        found.append(
            {
                "kind": "iops_cpu",
                "text": f"IOPS and the {STAT_NAMES.get(stat, stat)} move together: R² {coupling.r2:.2f} over {len(pairs)} steps "
                f"({1 / coupling.b:,.0f} IOPS per unit).",
                "link": trace,
            }
        )
    for row in comparisons:
        if row["scenario"] == scenario.scenario_id:
            found.append({"kind": "cost", "text": row["text"], "link": "#comparisons"})
    return found
