"""History across a series: each campaign's answers against its baseline, and which changed.

Campaigns of a series are ordered by ``series_key`` read naturally ("build 9"
before "build 10", "2026-02" before "2026-11"), then by creation. A campaign's
baseline is the series' pinned campaign, or, when none is pinned, the campaign
before it; the baseline itself is compared with nothing. Scenarios match across
campaigns by their dimension values.

Two kinds of answers are followed:

* **saturation users** of the capacity method (``analysis.capacity``) with the
  same counter, statistic and threshold: more users is better. A change is
  significant when the two 95 % intervals do not overlap or the bootstrap
  interval of the difference excludes 0 (``analysis.uncertainty.difference``);
  either needs two or more runs on each side, else there is no verdict
  (``significant`` null, "too few runs").
* **headline results** (``analysis.metric_groups``: logon and launch times,
  copy durations, benchmark IOPS and MB/s), pooled as the compare view pools
  them (``analysis.compare.metric_values``), like with like (same subject and
  execution parameters): Welch's two-sided t-test at 5 % with two or more values
  on each side. Times are better lower, rates higher (``sense``); a figure whose
  sense is unknown gets no direction.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

from webapp.analysis.capacity import ScenarioCapacity, Stat, campaign_capacity
from webapp.analysis.compare import ALPHA, metric_values
from webapp.analysis.counters import CounterRef
from webapp.analysis.hosts import kind
from webapp.analysis.metric_groups import execution_label, metric_group, metric_label, metric_words
from webapp.analysis.stats import judged, mean, verdict, welch_p_value
from webapp.analysis.uncertainty import difference
from webapp.core.models import Campaign, Scenario, Series
from webapp.core.models.campaigns import dims_key
from webapp.core.notes import notes_of

SATURATION = "saturation_users"
TIME_UNITS = frozenset({"ns", "us", "µs", "ms", "s", "sec", "min", "h"})
METHODS = {
    SATURATION: (
        "saturation users: significant when the 95 % intervals do not overlap or the bootstrap interval "
        "of the difference excludes 0; two or more runs on each side"
    ),
    "results": "mean of the pooled values; Welch two-sided t-test, p < 0.05, two or more values on each side",
}


def natural_key(text: str) -> tuple[Any, ...]:
    """``"build 10"`` after ``"build 9"``: digit runs compare as numbers."""
    return tuple(int(part) if part.isdigit() else part.casefold() for part in re.split(r"(\d+)", text))


def ordered_campaigns(series: Series) -> list[Campaign]:
    found = list(series.campaigns.all())
    return sorted(found, key=lambda c: (natural_key(c.series_key), c.created_at, c.pk))


def sense(unit: str, metric: str) -> str | None:
    """``"higher"`` or ``"lower"`` is better for this figure; None when it cannot be told."""
    name = metric.lower()
    if kind(metric, unit) == "rate":
        return "higher"
    if unit in TIME_UNITS or "lat" in name or "duration" in name:
        return "lower"
    return None


def direction(change_pct: float, better: str | None) -> str | None:
    if better is None or change_pct == 0 or not math.isfinite(change_pct):
        return None
    return "better" if (change_pct > 0) == (better == "higher") else "worse"


@dataclass(frozen=True)
class Result:
    """One headline figure of one scenario in one campaign."""

    dims: dict[str, str]
    label: str
    metric: str
    metric_label: str
    subject: str
    params: dict[str, str]
    unit: str
    values: list[float]
    tool: str = ""

    @property
    def key(self) -> tuple[str, str, str, tuple[tuple[str, str], ...]]:
        return dims_key(self.dims), self.metric, self.subject, tuple(sorted(self.params.items()))

    def as_dict(self) -> dict[str, Any]:
        return {
            "dims": self.dims,
            "label": self.label,
            "metric": self.metric,
            "metric_label": self.metric_label,
            "metric_words": metric_words(self.tool, self.metric),
            "subject": self.subject,
            "execution": execution_label(self.params),
            "unit": self.unit,
            "mean": mean(self.values),
            "n": len(self.values),
        }


def headline_results(campaign: Campaign) -> list[Result]:
    scenarios = {s.pk: s for s in Scenario.objects.filter(campaign=campaign)}
    return [
        Result(
            scenarios[sid].dims,
            scenarios[sid].label,
            name,
            metric_label(tool, name),
            subject,
            params,
            unit,
            values,
            tool,
        )
        for sid, name, subject, params, tool, unit, values, _ in metric_values(campaign)
        if metric_group(tool, name, subject) == "headline"
    ]


def _saturation_change(base: ScenarioCapacity, mine: ScenarioCapacity) -> dict[str, Any] | None:
    point, base_point = mine.saturation.users, base.saturation.users
    if point is None or base_point is None or base_point == 0:
        return None
    runs = (len(base.curves), len(mine.curves))
    significant: bool | None = None
    if judged(*runs):
        apart = (
            mine.interval is not None
            and base.interval is not None
            and (mine.interval[1] < base.interval[0] or mine.interval[0] > base.interval[1])
        )
        excluded = False
        if mine.uncertainty is not None and base.uncertainty is not None:
            excluded = bool(difference((base_point, base.uncertainty), (point, mine.uncertainty)).significant)
        significant = apart or excluded
    change = (point - base_point) / base_point * 100.0
    return {
        "dims": mine.dims,
        "label": mine.label,
        "metric": SATURATION,
        "metric_label": "users before the threshold",
        "metric_words": "users before the threshold",
        "subject": "",
        "execution": "",
        "unit": "users",
        "baseline_value": base_point,
        "value": point,
        "change_pct": change,
        "direction": direction(change, "higher"),
        "significant": significant,
        "verdict": verdict(significant),
        "runs": list(runs),
        "method": METHODS[SATURATION],
    }


def _result_change(base: Result, mine: Result) -> dict[str, Any] | None:
    base_mean = mean(base.values)
    if base_mean == 0:
        return None
    p_value = welch_p_value(mine.values, base.values)
    significant = None if p_value is None else p_value < ALPHA
    change = (mean(mine.values) - base_mean) / base_mean * 100.0
    return {
        **{k: v for k, v in mine.as_dict().items() if k not in ("mean", "n")},
        "baseline_value": base_mean,
        "value": mean(mine.values),
        "change_pct": change,
        "direction": direction(change, sense(mine.unit, mine.metric)),
        "significant": significant,
        "verdict": verdict(significant),
        "p_value": p_value,
        "runs": [len(base.values), len(mine.values)],
        "method": METHODS["results"],
    }


def series_history(
    series: Series,
    counter: CounterRef,
    stat: Stat,
    threshold: float,
    trim: float = 10.0,
    baseline: str | None = None,
) -> dict[str, Any]:
    """Every campaign's answers in order, and each against its baseline (``changes``), with its notes.

    ``baseline`` overrides the series' own for this answer (a share link's frozen
    one): a campaign's slug, or ``""`` for each against the one before it.
    """
    campaigns = ordered_campaigns(series)
    notes = notes_of(campaigns)
    capacity = {
        c.pk: {dims_key(s.dims): s for s in campaign_capacity(c, counter, stat, threshold, trim)}
        for c in campaigns
    }
    results = {c.pk: {r.key: r for r in headline_results(c)} for c in campaigns}
    if baseline is None:
        pinned = series.baseline if series.baseline_id and series.baseline in campaigns else None
    else:
        pinned = next((c for c in campaigns if c.slug == baseline), None)
    listed: list[dict[str, Any]] = []
    changes: list[dict[str, Any]] = []
    for index, campaign in enumerate(campaigns):
        base = pinned if pinned is not None else (campaigns[index - 1] if index else None)
        if base is not None and base.pk == campaign.pk:
            base = None
        listed.append(
            {
                "slug": campaign.slug,
                "name": campaign.name,
                "series_key": campaign.series_key,
                "created_at": campaign.created_at,
                "compared_with": base.slug if base is not None else None,
                "scenarios": [
                    {
                        "dims": s.dims,
                        "label": s.label,
                        "saturation_users": s.saturation.users,
                        "bound": s.saturation.bound,
                        "interval": list(s.interval) if s.interval else None,
                        "runs": len(s.curves),
                    }
                    for s in capacity[campaign.pk].values()
                ],
                "results": [r.as_dict() for r in results[campaign.pk].values()],
                "notes": notes[campaign.pk],
            }
        )
        if base is None:
            continue
        found = [
            _saturation_change(capacity[base.pk][key], mine)
            for key, mine in capacity[campaign.pk].items()
            if key in capacity[base.pk]
        ] + [
            _result_change(results[base.pk][key], mine)
            for key, mine in results[campaign.pk].items()
            if key in results[base.pk]
        ]
        changes += [{"campaign": campaign.slug, "baseline": base.slug, **c} for c in found if c is not None]
    return {
        "series": {"slug": series.slug, "name": series.name},
        "baseline": {"mode": "pinned" if pinned else "previous", "campaign": pinned.slug if pinned else None},
        "campaigns": listed,
        "changes": changes,
        "methods": METHODS,
    }
