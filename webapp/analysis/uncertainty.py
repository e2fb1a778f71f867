"""How sure we are: intervals around a saturation point and differences between scenarios.

* **One run**: the interval is the interpolation's step bounds, from the last
  step below the threshold to the first step at or above it.
* **Repeated runs**: a bootstrap over runs. A resample draws as many runs as
  there are, with replacement; its curve is the mean of the drawn runs'
  statistic per user count (as the capacity method combines runs) and its
  saturation point follows the same rule. The 95 % interval runs from the
  2.5th to the 97.5th percentile of the resamples' points. Up to
  :data:`EXACT_RUNS` runs every resample is enumerated with its multinomial
  weight (no randomness at all); beyond, :data:`DRAWS` resamples come from a
  generator seeded with :data:`SEED`, so the answer is reproducible. If more
  than 2.5 % of the resamples never cross, the interval is null. The
  interval is widened, if need be, to contain the point itself.
* **Differences** between two scenarios that differ in one dimension: the
  relative difference of their points against the higher one, with the
  percentile interval of the resamples' differences (both scenarios
  bootstrapped independently), or interval arithmetic on the step bounds
  when a side has one run. It is *significant* when the interval excludes 0,
  and judged only with two or more runs on each side (``stats.judged``):
  step bounds of single runs give an interval but no verdict.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import combinations_with_replacement
from typing import Any

from webapp.analysis.saturation import Saturation, StepStat, saturation_point
from webapp.analysis.stats import judged, verdict

SEED = 16
DRAWS = 1000
EXACT_RUNS = 6
PAIR_LIMIT = 20_000
LEVEL = 0.95

# One run's statistic per user count: users -> (value or None, overloaded).
RunCurve = dict[int, tuple[float | None, bool]]
# A bootstrap distribution: (saturation users or inf, weight) pairs, weights summing to 1.
Distribution = list[tuple[float, float]]


def combine(curves: Sequence[RunCurve], counts: Sequence[int]) -> list[StepStat]:
    """The weighted mean curve of runs (``counts[i]`` copies of ``curves[i]``)."""
    users = sorted({u for c, k in zip(curves, counts, strict=True) if k for u in c})
    points = []
    for u in users:
        total = weight = 0.0
        overloaded = False
        for curve, k in zip(curves, counts, strict=True):
            got = curve.get(u) if k else None
            if got is None:
                continue
            value, flag = got
            overloaded = overloaded or flag
            if value is not None and not math.isnan(value):
                total += k * value
                weight += k
        points.append(StepStat(u, total / weight if weight else None, overloaded))
    return points


def _point(saturation: Saturation) -> float:
    return saturation.users if saturation.users is not None else math.inf


def resamples(n: int, seed: int) -> Iterator[tuple[list[int], float]]:
    """(counts per run, weight) of every bootstrap resample (exact), or of ``DRAWS`` seeded draws."""
    if n <= EXACT_RUNS:
        total = float(n**n)
        for draw in combinations_with_replacement(range(n), n):
            counts = [0] * n
            for index in draw:
                counts[index] += 1
            ways = math.factorial(n)
            for k in counts:
                ways //= math.factorial(k)
            yield counts, ways / total
        return
    rng = random.Random(seed)
    for _ in range(DRAWS):
        counts = [0] * n
        for _ in range(n):
            counts[rng.randrange(n)] += 1
        yield counts, 1.0 / DRAWS


def bootstrap(curves: Sequence[RunCurve], threshold: float, seed: int = SEED) -> Distribution:
    """The bootstrap distribution of the saturation point over runs."""
    return [
        (_point(saturation_point(combine(curves, counts), threshold)), weight)
        for counts, weight in resamples(len(curves), seed)
    ]


def quantiles(distribution: Distribution, level: float = LEVEL) -> tuple[float, float]:
    """The (1 - level)/2 and (1 + level)/2 quantiles (the smallest value whose cumulative weight reaches each)."""
    ordered = sorted(distribution)
    tail = (1.0 - level) / 2
    found: list[float] = []
    for target in (tail, 1.0 - tail):
        cumulative = 0.0
        for value, weight in ordered:
            cumulative += weight
            if cumulative >= target - 1e-12:
                found.append(value)
                break
        else:
            found.append(ordered[-1][0])
    return found[0], found[1]


def step_bounds(points: Sequence[StepStat], saturation: Saturation) -> tuple[float, float] | None:
    """One run: the last step before the crossing and the crossing step."""
    if saturation.bound != "interpolated" or saturation.users is None:
        return None
    usable = sorted((p for p in points if p.value is not None or p.overloaded), key=lambda p: p.users)
    above = [p.users for p in usable if p.users >= saturation.users]
    if not above:
        return None
    below = [p.users for p in usable if p.users < above[0]]
    return (float(below[-1]) if below else saturation.users), float(above[0])


@dataclass(frozen=True)
class Uncertainty:
    interval: tuple[float, float] | None
    method: str  # "bootstrap", "step_bounds", "prediction" or "none"
    runs: int
    distribution: Distribution


def saturation_interval(
    curves: Sequence[RunCurve], points: Sequence[StepStat], saturation: Saturation, threshold: float
) -> Uncertainty:
    """The interval around an interpolated point (see the module doc)."""
    if saturation.bound != "interpolated" or saturation.users is None:
        return Uncertainty(None, "none", len(curves), [])
    if len(curves) < 2:
        return Uncertainty(step_bounds(points, saturation), "step_bounds", len(curves), [])
    distribution = bootstrap(curves, threshold)
    low, high = quantiles(distribution)
    if not math.isfinite(high):
        return Uncertainty(None, "bootstrap", len(curves), distribution)
    point = saturation.users
    return Uncertainty((min(low, point), max(high, point)), "bootstrap", len(curves), distribution)


def _pairs(a: Distribution, b: Distribution, seed: int) -> Iterator[tuple[float, float, float]]:
    if len(a) * len(b) <= PAIR_LIMIT:
        for va, wa in a:
            for vb, wb in b:
                yield va, vb, wa * wb
        return
    rng = random.Random(seed)
    values_a, weights_a = [v for v, _ in a], [w for _, w in a]
    values_b, weights_b = [v for v, _ in b], [w for _, w in b]
    draws_a = rng.choices(values_a, weights_a, k=DRAWS)
    draws_b = rng.choices(values_b, weights_b, k=DRAWS)
    for va, vb in zip(draws_a, draws_b, strict=True):
        yield va, vb, 1.0 / DRAWS


@dataclass(frozen=True)
class Difference:
    pct: float  # (other - baseline) / baseline, in percent
    interval: tuple[float, float] | None
    method: str
    runs: tuple[int, int]  # (baseline, other)

    @property
    def significant(self) -> bool | None:
        """True when the interval excludes 0; None (no verdict) with fewer than two runs on a side."""
        if not judged(*self.runs):
            return None
        return self.interval is not None and (self.interval[0] > 0 or self.interval[1] < 0)

    def as_dict(self) -> dict[str, Any]:
        return {
            "difference_pct": self.pct,
            "interval_pct": list(self.interval) if self.interval else None,
            "significant": self.significant,
            "verdict": verdict(self.significant),
            "method": self.method,
        }


def difference(baseline: tuple[float, Uncertainty], other: tuple[float, Uncertainty]) -> Difference:
    """The relative difference of ``other``'s point against ``baseline``'s, with its interval."""
    (base_point, base), (point, mine) = baseline, other
    pct = (point - base_point) / base_point * 100.0
    runs = (base.runs, mine.runs)
    if base.method == "bootstrap" and mine.method == "bootstrap":
        rows = [
            ((vb - va) / va * 100.0 if math.isfinite(va) and math.isfinite(vb) else math.nan, w)
            for va, vb, w in _pairs(base.distribution, mine.distribution, SEED)
        ]
        if any(math.isnan(v) for v, _ in rows):
            return Difference(pct, None, "bootstrap", runs)
        low, high = quantiles(rows)
        return Difference(pct, (min(low, pct), max(high, pct)), "bootstrap", runs)
    if base.interval is None or mine.interval is None or base.interval[0] <= 0:
        return Difference(pct, None, "none", runs)
    low = (mine.interval[0] / base.interval[1] - 1.0) * 100.0
    high = (mine.interval[1] / base.interval[0] - 1.0) * 100.0
    return Difference(pct, (min(low, pct), max(high, pct)), "step_bounds", runs)
