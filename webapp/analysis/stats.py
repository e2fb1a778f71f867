"""Small statistics without SciPy: mean, sample standard deviation, Welch's t-test and the verdict.

Every significance mark in Headroom goes through :func:`judged` and
:func:`verdict`: with fewer than :data:`MIN_PER_SIDE` values (runs) on either
side there is no verdict at all -- ``significant`` is None and the verdict
reads "too few runs" -- rather than a confident yes or no from one sample.

The two-sided p-value uses Student's t distribution through the regularised
incomplete beta function (continued fraction, Lentz's method), accurate to
~1e-10, which is plenty for a "significant at 5 %" mark.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

MIN_PER_SIDE = 2
TOO_FEW = "too few runs"


def mean(values: Sequence[float]) -> float:
    return sum(values) / len(values)


def stdev(values: Sequence[float]) -> float | None:
    """Sample standard deviation (n - 1); None for fewer than two values."""
    if len(values) < 2:
        return None
    m = mean(values)
    return math.sqrt(sum((v - m) ** 2 for v in values) / (len(values) - 1))


def judged(n_a: int, n_b: int) -> bool:
    """Whether two samples of these sizes can be judged at all: two or more values on each side."""
    return min(n_a, n_b) >= MIN_PER_SIDE


def verdict(significant: bool | None) -> str:
    """The words for a significance mark; None (not judged) is "too few runs"."""
    if significant is None:
        return TOO_FEW
    return "significant" if significant else "not significant"


def _beta_fraction(a: float, b: float, x: float) -> float:
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    result = d
    for m in range(1, 300):
        m2 = 2 * m
        for numerator in (
            m * (b - m) * x / ((a + m2 - 1.0) * (a + m2)),
            -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1.0)),
        ):
            d = 1.0 + numerator * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + numerator / c
            c = c if abs(c) > tiny else tiny
            result *= d * c
        if abs(d * c - 1.0) < 1e-12:
            break
    return result


def regularized_beta(a: float, b: float, x: float) -> float:
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_front = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log(1.0 - x)
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(log_front) * _beta_fraction(a, b, x) / a
    return 1.0 - math.exp(log_front) * _beta_fraction(b, a, 1.0 - x) / b


def welch_p_value(a: Sequence[float], b: Sequence[float]) -> float | None:
    """Two-sided p-value of Welch's t-test for different means; None if it cannot be computed."""
    if not judged(len(a), len(b)):
        return None
    va, vb = stdev(a) ** 2, stdev(b) ** 2  # type: ignore[operator]
    se2 = va / len(a) + vb / len(b)
    if se2 == 0:
        return 0.0 if mean(a) != mean(b) else 1.0
    t = (mean(a) - mean(b)) / math.sqrt(se2)
    df = se2**2 / ((va / len(a)) ** 2 / (len(a) - 1) + (vb / len(b)) ** 2 / (len(b) - 1))
    return regularized_beta(df / 2.0, 0.5, df / (df + t * t))
