"""Capacity by user experience (VSImax-style): the users at which a timing rises a margin above its baseline.

Per scenario, every timing of the chosen name is placed on the user axis
(``analysis.timing_steps``); each user count's pooled mean over all its
timings, from every client, is the curve. The baseline and threshold follow
``analysis.ux_rules``; the saturation point, its ``bound`` and the
extrapolation when no step crosses are the counters' rules
(``analysis.saturation``, ``analysis.extrapolate``) on that curve.

The interval is a bootstrap over *units* -- one client's one repetition in
one run: a resample draws as many units as there are, with replacement; its
curve is the pooled mean per user count of the drawn units' timings, its
baseline and threshold are found again from that curve, and its point by the
same rule. Every resample is enumerated up to 6 units, else 1,000 draws from
a fixed seed (``analysis.uncertainty``); the 2.5th..97.5th percentile,
widened to hold the point, null when more than 2.5 % of resamples never
cross. With one unit: the steps around the crossing.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from operator import mul
from typing import Any

from webapp.analysis.extrapolate import Extrapolation, extrapolate
from webapp.analysis.limits import Limit, ResourceUsers, binding, limiting
from webapp.analysis.saturation import Saturation, StepStat, saturation_point
from webapp.analysis.timing_steps import ScenarioTimings, StepTimings, Unit, timing_steps
from webapp.analysis.uncertainty import SEED, Uncertainty, quantiles, resamples, step_bounds
from webapp.analysis.ux_rules import UxRule, lowest_mean
from webapp.core.models import Campaign, Run


@dataclass(frozen=True)
class UxPoint:
    """One scenario's answer under one rule."""

    baseline_ms: float | None
    threshold_ms: float | None
    saturation: Saturation
    uncertainty: Uncertainty
    extrapolation: Extrapolation | None = None

    @property
    def interval(self) -> tuple[float, float] | None:
        return self.uncertainty.interval


@dataclass(frozen=True)
class _Columns:
    """Per user count, every unit's count and sum in unit order: a resample's curve is their weighted sums,
    so one costs units x steps multiplications done in C (``map``), whatever the number of timings."""

    users: list[int]
    counts: list[list[int]]
    totals: list[list[float]]


def _columns(units: Mapping[Unit, Mapping[int, tuple[int, float]]]) -> _Columns:
    users = sorted({u for found in units.values() for u in found})
    cells = [[found.get(u, (0, 0.0)) for found in units.values()] for u in users]
    return _Columns(users, [[n for n, _ in row] for row in cells], [[t for _, t in row] for row in cells])


def _curve(columns: _Columns, counts: Sequence[int]) -> list[StepStat]:
    """The pooled mean per user count of the units drawn ``counts[i]`` times each."""
    points = []
    for users, ns, totals in zip(columns.users, columns.counts, columns.totals, strict=True):
        n = sum(map(mul, counts, ns))
        if n:
            points.append(StepStat(users, sum(map(mul, counts, totals)) / n))
    return points


def _baseline(
    rule: UxRule, points: Sequence[StepStat], lowest: Sequence[tuple[Sequence[float], int]]
) -> float | None:
    if rule.lowest:
        return lowest_mean(lowest, rule.lowest)
    return points[0].value if points else None


def _point(points: Sequence[StepStat], baseline: float | None, rule: UxRule) -> float:
    if baseline is None:
        return math.inf
    found = saturation_point(list(points), rule.threshold(baseline))
    return found.users if found.users is not None else math.inf


def _bootstrap(
    found: ScenarioTimings, rule: UxRule, saturation: Saturation, points: Sequence[StepStat]
) -> Uncertainty:
    units = len(found.units)
    if saturation.bound != "interpolated" or saturation.users is None:
        return Uncertainty(None, "none", units, [])
    if units < 2:
        return Uncertainty(step_bounds(points, saturation), "step_bounds", units, [])
    keys = list(found.units)
    columns = _columns(found.units)
    distribution = []
    for counts, weight in resamples(units, SEED):
        curve = _curve(columns, counts)
        lowest = (
            [(found.lowest.get(key, ()), k) for key, k in zip(keys, counts, strict=True) if k]
            if rule.lowest
            else []
        )
        distribution.append((_point(curve, _baseline(rule, curve, lowest), rule), weight))
    low, high = quantiles(distribution)
    if not math.isfinite(high):
        return Uncertainty(None, "bootstrap", units, distribution)
    point = saturation.users
    return Uncertainty((min(low, point), max(high, point)), "bootstrap", units, distribution)


def assess(found: ScenarioTimings, rule: UxRule) -> UxPoint:
    """The baseline, threshold, point, bound and interval of one scenario's timings."""
    points = [StepStat(s.users, s.mean) for s in found.steps]
    baseline = _baseline(rule, points, [(v, 1) for v in found.lowest.values()])
    if baseline is None:
        return UxPoint(None, None, Saturation(None, "no_data", None, None), Uncertainty(None, "none", 0, []))
    threshold = rule.threshold(baseline)
    saturation = saturation_point(points, threshold)
    if saturation.bound == "not_reached":
        fitted = extrapolate([float(p.users) for p in points], [p.value or 0.0 for p in points], threshold)
        if fitted is not None:
            bounded = Saturation(fitted.users, "extrapolated", saturation.first_users, saturation.last_users)
            return UxPoint(
                baseline,
                threshold,
                bounded,
                Uncertainty(fitted.interval, "prediction", len(found.units), []),
                fitted,
            )
    return UxPoint(baseline, threshold, saturation, _bootstrap(found, rule, saturation, points))


@dataclass
class UxScenario:
    scenario_id: int
    label: str
    dims: dict[str, str]
    steps: list[StepTimings]
    point: UxPoint
    units: int
    run_ids: list[int]
    timing: str
    limits: list[ResourceUsers] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        head, runner_up = limiting(self.limits)
        sat, extra = self.point.saturation, self.point.extrapolation
        return {
            "scenario": self.scenario_id,
            "label": self.label,
            "dims": self.dims,
            "baseline_ms": self.point.baseline_ms,
            "threshold_ms": self.point.threshold_ms,
            "saturation_users": sat.users,
            "bound": sat.bound,
            "saturation_text": sat.text,
            "interval": list(self.point.interval) if self.point.interval else None,
            "interval_method": self.point.uncertainty.method,
            "units_used": self.units,
            "steps_used": len(self.steps),
            "timings_used": sum(s.n for s in self.steps),
            "steps": [s.as_dict() for s in self.steps],
            "extrapolation": extra.as_dict() if extra else None,
            "runs_used": len(self.run_ids),
            "run_ids": self.run_ids,
            "limiting": head,
            "runner_up": runner_up,
            "limits": [r.as_dict() for r in self.limits],
            "binding": binding(self.limits, sat, self.timing, self.point.interval),
        }


def timing_runs(campaign: Campaign) -> list[Run]:
    """The campaign's runs, each with its scenario: timings are placed by steps or by their own ``users``."""
    return list(
        Run.objects.filter(campaign=campaign).select_related("scenario").order_by("scenario_id", "name")
    )


def campaign_ux_capacity(
    campaign: Campaign, rule: UxRule, limits: Mapping[int, list[ResourceUsers]] | None = None
) -> list[UxScenario]:
    """One answer per scenario that has timings of ``rule.timing`` on the user axis; ``limits`` by scenario id."""
    runs = timing_runs(campaign)
    placed = timing_steps(runs, rule.timing, rule.lowest)
    results = []
    seen: set[int] = set()
    for run in runs:
        if run.scenario_id in seen or run.scenario_id not in placed:
            continue
        seen.add(run.scenario_id)
        found = placed[run.scenario_id]
        scenario = run.scenario
        used = sorted({key[0] for key in found.units})
        results.append(
            UxScenario(
                scenario.pk,
                scenario.label,
                scenario.dims,
                found.steps,
                assess(found, rule),
                len(found.units),
                used,
                rule.timing,
                list((limits or {}).get(scenario.pk, [])),
            )
        )
    return results


def timing_limits(runs: Sequence[Run], limits: Sequence[Limit]) -> dict[int, list[ResourceUsers]]:
    """Scenario id -> the users before each timing limit of the table (``resource`` ``timing``)."""
    found: dict[int, list[ResourceUsers]] = {}
    for lim in limits:
        if lim.resource != "timing" or lim.rule is None:
            continue
        for scenario_id, timings in timing_steps(runs, lim.rule.timing, lim.rule.lowest).items():
            point = assess(timings, lim.rule)
            found.setdefault(scenario_id, []).append(
                ResourceUsers(
                    "timing",
                    lim.rule.timing,
                    point.threshold_ms if point.threshold_ms is not None else math.nan,
                    True,
                    point.saturation,
                    point.interval,
                    describes=lim.rule.text,
                )
            )
    return found
