"""A user-experience threshold: a timing's baseline and the margin over it (VSImax-style), as pure functions.

The baseline is ``first_step`` (the mean of the lowest user count's timings)
or ``lowest:N`` (the mean of the N lowest timings placed on the user axis,
as Login VSI's VSIbase; all of them when fewer). The threshold is the
baseline plus ``delta_ms`` (default 1,000 ms) or the baseline times
``factor``. The same rule serves the capacity endpoint's ``timing=`` answer
and timing rows of the limit table.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

DEFAULT_DELTA_MS = 1000.0
FIRST_STEP = "first_step"
MAX_LOWEST = 10_000


class RuleError(ValueError):
    """A baseline, delta or factor the method cannot use; the message names what was expected."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


@dataclass(frozen=True)
class UxRule:
    timing: str
    baseline: str = FIRST_STEP  # "first_step" or "lowest:N"
    delta_ms: float | None = DEFAULT_DELTA_MS
    factor: float | None = None

    @property
    def lowest(self) -> int:
        """N of ``lowest:N``; 0 for ``first_step``."""
        return 0 if self.baseline == FIRST_STEP else int(self.baseline.split(":", 1)[1])

    def threshold(self, baseline_ms: float) -> float:
        if self.factor is not None:
            return baseline_ms * self.factor
        return baseline_ms + (self.delta_ms if self.delta_ms is not None else DEFAULT_DELTA_MS)

    @property
    def text(self) -> str:
        """ "logon time exceeds its baseline by 1 s", "logon time reaches 2x its baseline"."""
        if self.factor is not None:
            return f"{self.timing} time reaches {self.factor:g}x its baseline"
        delta = self.delta_ms if self.delta_ms is not None else DEFAULT_DELTA_MS
        amount = f"{delta / 1000:g} s" if delta >= 1000 else f"{delta:g} ms"
        return f"{self.timing} time exceeds its baseline by {amount}"


def rule(timing: str, baseline: str, delta_ms: float | None, factor: float | None) -> UxRule:
    """A checked rule (``RuleError`` naming the bad field otherwise)."""
    if not timing.strip() or "\x00" in timing or len(timing) > 200:
        raise RuleError("timing", "timing is a stored timing name such as logon or profile.load_ms")
    baseline = baseline.strip() or FIRST_STEP
    if baseline != FIRST_STEP:
        kind, _, count = baseline.partition(":")
        if kind != "lowest" or not count.isdecimal() or not 1 <= int(count) <= MAX_LOWEST:
            raise RuleError(
                "baseline",
                f"baseline must be first_step or lowest:N with N from 1 to {MAX_LOWEST:,}, not {baseline!r}",
            )
    if delta_ms is not None and factor is not None:
        raise RuleError("factor", "give delta_ms or factor, not both")
    if factor is not None and not (math.isfinite(factor) and factor > 0):
        raise RuleError("factor", "factor is a positive number (the threshold is the baseline times it)")
    if delta_ms is not None and not (math.isfinite(delta_ms) and delta_ms > 0):
        raise RuleError("delta_ms", "delta_ms is a positive number of milliseconds above the baseline")
    if factor is None and delta_ms is None:
        delta_ms = DEFAULT_DELTA_MS
    return UxRule(timing.strip(), baseline, delta_ms, factor)


def lowest_mean(groups: Iterable[tuple[Sequence[float], int]], count: int) -> float | None:
    """The mean of the ``count`` smallest values, each group's values taken ``k`` times (a resample)."""
    values = heapq.nsmallest(count, (v for found, k in groups for v in found for _ in range(k)))
    return sum(values) / len(values) if values else None
