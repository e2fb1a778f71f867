"""Differences between scenarios that differ in one dimension (e.g. AV on vs off), with their interval.

Every pair of scenarios with the same dimension keys and exactly one
different value is compared when both have a saturation point (interpolated
or extrapolated). The baseline is the one that carries more users; the
difference is the other's point against it, in percent, with the interval
and significance of ``analysis.uncertainty.difference`` (no verdict, "too few
runs", unless both have two or more runs).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations
from typing import Any

from webapp.analysis.capacity import ScenarioCapacity
from webapp.analysis.stats import verdict
from webapp.analysis.uncertainty import difference

NUMERIC = ("interpolated", "extrapolated")


def _one_difference(a: dict[str, str], b: dict[str, str]) -> str | None:
    if a.keys() != b.keys():
        return None
    differing = [key for key in a if a[key] != b[key]]
    return differing[0] if len(differing) == 1 else None


def scenario_differences(scenarios: Sequence[ScenarioCapacity]) -> list[dict[str, Any]]:
    found = []
    usable = [s for s in scenarios if s.saturation.bound in NUMERIC and s.saturation.users and s.uncertainty]
    for first, second in combinations(usable, 2):
        dimension = _one_difference(first.dims, second.dims)
        if dimension is None:
            continue
        base, other = sorted((first, second), key=lambda s: -(s.saturation.users or 0.0))
        assert base.uncertainty is not None and other.uncertainty is not None
        assert base.saturation.users is not None and other.saturation.users is not None
        result = difference(
            (base.saturation.users, base.uncertainty), (other.saturation.users, other.uncertainty)
        )
        runs = (len(other.curves), len(base.curves))
        spread = ""
        if result.interval is not None:
            spread = f" ({result.interval[0]:+.0f} % to {result.interval[1]:+.0f} %)"
        text = (
            f"{dimension}={other.dims[dimension]} vs {dimension}={base.dims[dimension]}: "
            f"{result.pct:+.0f} % of capacity{spread}, n={runs[0]} vs {runs[1]}, {verdict(result.significant)}"
        )
        found.append(
            {
                "dimension": dimension,
                "baseline": base.scenario_id,
                "scenario": other.scenario_id,
                "baseline_value": base.dims[dimension],
                "value": other.dims[dimension],
                "n": list(runs),
                **result.as_dict(),
                "text": text,
            }
        )
    return found
