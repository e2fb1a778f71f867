"""Beyond the tested range: fit the steps and extrapolate where the statistic would cross.

When no step crosses the threshold, the steps (user count -> statistic) are
fitted by least squares with each model of a small documented set, every one
a straight line in transformed coordinates:

* ``linear``       y = a + b*x
* ``exponential``  ln y = a + b*x      (all y > 0)
* ``power``        ln y = a + b*ln x   (all x, y > 0)

The model with the smallest residual sum of squares on the original scale
wins (all have two parameters, so no penalty is needed). The extrapolated
point is where the winning curve reaches the threshold; it is given only if
the curve rises and the point lies within :data:`LIMIT_FACTOR` x the highest
tested load, else the answer stays "> N users (not reached)".

The interval is the 95 % prediction interval of the fit turned into users:
from where the upper prediction band reaches the threshold to where the
lower band does (t distribution with n - 2 degrees of freedom, in the
transformed coordinates). It is null when the lower band does not reach the
threshold within 4 x the highest tested load; it needs three or more steps.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from webapp.analysis.stats import regularized_beta

LIMIT_FACTOR = 2.0
SEARCH_FACTOR = 4.0
MODELS = ("linear", "exponential", "power")


@dataclass(frozen=True)
class Fit:
    model: str
    a: float
    b: float
    r2: float  # on the original scale
    rss: float  # residual sum of squares on the original scale
    s: float  # residual standard error in transformed coordinates
    n: int
    mean_u: float
    suu: float

    def u(self, x: float) -> float:
        return math.log(x) if self.model == "power" else x

    def to_y(self, value: float) -> float:
        return value if self.model == "linear" else math.exp(value)

    def from_y(self, y: float) -> float:
        return y if self.model == "linear" else math.log(y)

    def predict(self, x: float) -> float:
        return self.to_y(self.a + self.b * self.u(x))

    def band(self, x: float, t: float, sign: int) -> float:
        """The prediction band at ``x`` in transformed coordinates (sign +1 upper, -1 lower)."""
        u = self.u(x)
        spread = t * self.s * math.sqrt(1 + 1 / self.n + (u - self.mean_u) ** 2 / self.suu)
        return self.a + self.b * u + sign * spread


@dataclass(frozen=True)
class Extrapolation:
    users: float
    interval: tuple[float, float] | None
    fit: Fit
    fits: dict[str, float]  # model -> R² of every model that could be fitted

    def as_dict(self) -> dict[str, object]:
        return {
            "model": self.fit.model,
            "r2": self.fit.r2,
            "fits": self.fits,
            "interval": list(self.interval) if self.interval else None,
        }


def fit(model: str, xs: Sequence[float], ys: Sequence[float]) -> Fit | None:
    """Least squares of one model; None if the data do not allow it (too few points, logs of <= 0)."""
    if len(xs) < 2 or (model != "linear" and min(ys) <= 0) or (model == "power" and min(xs) <= 0):
        return None
    us = [math.log(x) for x in xs] if model == "power" else list(xs)
    vs = list(ys) if model == "linear" else [math.log(y) for y in ys]
    n = len(us)
    mean_u, mean_v = sum(us) / n, sum(vs) / n
    suu = sum((u - mean_u) ** 2 for u in us)
    if suu == 0:
        return None
    b = sum((u - mean_u) * (v - mean_v) for u, v in zip(us, vs, strict=True)) / suu
    a = mean_v - b * mean_u
    transformed_rss = sum((v - a - b * u) ** 2 for u, v in zip(us, vs, strict=True))
    s = math.sqrt(transformed_rss / (n - 2)) if n > 2 else 0.0
    found = Fit(model, a, b, 0.0, 0.0, s, n, mean_u, suu)
    rss = sum((y - found.predict(x)) ** 2 for x, y in zip(xs, ys, strict=True))
    mean_y = sum(ys) / n
    total = sum((y - mean_y) ** 2 for y in ys)
    r2 = 1.0 - rss / total if total > 0 else 1.0
    return Fit(model, a, b, r2, rss, s, n, mean_u, suu)


def best_fit(xs: Sequence[float], ys: Sequence[float]) -> tuple[Fit | None, dict[str, float]]:
    fits = [f for f in (fit(m, xs, ys) for m in MODELS) if f is not None]
    if not fits:
        return None, {}
    return min(fits, key=lambda f: f.rss), {f.model: f.r2 for f in fits}


def t_quantile(df: int, level: float = 0.95) -> float:
    """The two-sided ``level`` quantile of Student's t (bisection on the incomplete beta)."""
    alpha = 1.0 - level
    low, high = 0.0, 1e4
    for _ in range(200):
        t = (low + high) / 2
        p = regularized_beta(df / 2.0, 0.5, df / (df + t * t))
        low, high = (t, high) if p > alpha else (low, t)
    return (low + high) / 2


def _first_crossing(reaches: Callable[[float], bool], start: float, stop: float) -> float | None:
    """The smallest x in [start, stop] with ``reaches(x)``, to 0.01 users (scan, then bisection)."""
    steps = 400
    previous = start
    if reaches(start):
        return start
    for index in range(1, steps + 1):
        x = start + (stop - start) * index / steps
        if reaches(x):
            low, high = previous, x
            while high - low > 0.01:
                middle = (low + high) / 2
                low, high = (low, middle) if reaches(middle) else (middle, high)
            return high
        previous = x
    return None


def extrapolate(xs: Sequence[float], ys: Sequence[float], threshold: float) -> Extrapolation | None:
    """The extrapolated crossing of ``threshold`` beyond the tested steps, or None (see module doc)."""
    if len(xs) < 3:
        return None
    chosen, fits = best_fit(xs, ys)
    if chosen is None or chosen.b <= 0 or (chosen.model != "linear" and threshold <= 0):
        return None
    last = max(xs)
    x = chosen.from_y(threshold) - chosen.a
    u = x / chosen.b
    users = math.exp(u) if chosen.model == "power" else u
    if not last < users <= LIMIT_FACTOR * last:
        return None
    t = t_quantile(chosen.n - 2)
    target = chosen.from_y(threshold)
    low = _first_crossing(lambda v: chosen.band(v, t, +1) >= target, last, users)
    high = _first_crossing(lambda v: chosen.band(v, t, -1) >= target, users, SEARCH_FACTOR * last)
    interval = (min(low if low is not None else users, users), high) if high is not None else None
    return Extrapolation(users, interval, chosen, fits)
