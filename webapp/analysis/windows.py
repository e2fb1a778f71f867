"""Exact statistics of counter samples inside time windows, served from the one-minute rollups.

A window ``[lo, hi)`` of one series splits into the whole minutes inside it,
read from ``counter_rollup_1m`` (count, sum, min, max per minute), and the
partial minutes at its two edges, read from the raw samples (``timeseries.samples``). Count, sum,
minimum and maximum combine exactly, so the average and maximum equal a raw
aggregate over the window while the work no longer follows the number of
samples inside it: a ten-minute step costs ten rollup rows plus two edge
ranges whether it holds 40 samples or 60,000.

Rollups can lag behind the samples: a worker task recomputes them from
``rollup_dirty`` after each load, in both modes. A window touching a pending
dirty range is read from the raw samples alone, so the answer is always
exact. Percentiles cannot be combined from rollups; ``window_percentiles``
computes them from the raw samples once and keeps them.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import connection, transaction
from django.db.backends.utils import CursorWrapper

from webapp.timeseries import samples
from webapp.timeseries.backend import ROLLUP, ROLLUP_WIDTH, bucket_floor
from webapp.timeseries.models import RollupDirty


@dataclass(frozen=True)
class Window:
    key: int  # what the statistics are grouped by (e.g. a load step)
    series_id: int
    lo: datetime
    hi: datetime


@dataclass(frozen=True)
class WindowStats:
    samples: int
    total: float
    minimum: float
    maximum: float

    @property
    def average(self) -> float:
        return self.total / self.samples


# Three index range scans per window: whole minutes from the rollup, and the
# raw samples of the partial minutes before the first and after the last (a
# few rows each: ``of_series_short``). LATERAL keeps the planner on
# per-window range scans (a merge join over the whole series would read every
# rollup row of the series).
_STATS_SQL = f"""
    WITH w AS (
        SELECT * FROM unnest(%s::bigint[], %s::bigint[], %s::timestamptz[], %s::timestamptz[],
                             %s::timestamptz[], %s::timestamptz[]) AS w(key, series_id, lo, hi, a, b)
    )
    SELECT w.key, sum(p.n)::bigint, sum(p.total), min(p.low), max(p.high)
    FROM w CROSS JOIN LATERAL (
        SELECT sum(r.n) AS n, sum(r.total) AS total, min(r.minimum) AS low, max(r.maximum) AS high
        FROM {ROLLUP} r WHERE r.series_id = w.series_id AND r.bucket >= w.a AND r.bucket < w.b
        UNION ALL
        SELECT count(*), sum(s.value), min(s.value), max(s.value)
        FROM {samples.of_series_short("w.series_id", "w.lo", "w.a")} s
        UNION ALL
        SELECT count(*), sum(s.value), min(s.value), max(s.value)
        FROM {samples.of_series_short("w.series_id", "w.b", "w.hi")} s
    ) p
    GROUP BY w.key
"""

# Windows no rollup can serve (shorter than a minute, or touching a dirty
# range): the raw samples of the whole window, one range scan each.
_RAW_SQL = f"""
    WITH w AS (
        SELECT * FROM unnest(%s::bigint[], %s::bigint[], %s::timestamptz[], %s::timestamptz[])
            AS w(key, series_id, lo, hi)
    )
    SELECT w.key, count(*), sum(s.value), min(s.value), max(s.value)
    FROM w CROSS JOIN LATERAL (
        SELECT value FROM {samples.of_series("w.series_id", "w.lo", "w.hi")} raw OFFSET 0
    ) s
    GROUP BY w.key
"""


@contextmanager
def short_query_cursor() -> Iterator[CursorWrapper]:
    """A cursor with JIT compilation off for the enclosing transaction.

    These statements run in milliseconds, but their row estimates (hundreds
    of windows x a guess per range) push the planner's cost past
    ``jit_above_cost``, and compiling then takes 200-800 ms.
    """
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET LOCAL jit = off")
        yield cursor


class DirtyRanges:
    """Time ranges whose rollups are not yet recomputed (merged, sorted)."""

    def __init__(self, ranges: Sequence[tuple[datetime, datetime]]) -> None:
        merged: list[list[datetime]] = []
        for start, end in sorted(ranges):
            # A dirty range spoils every minute bucket it touches.
            lo, hi = bucket_floor(start), bucket_floor(end) + ROLLUP_WIDTH
            if merged and lo <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], hi)
            else:
                merged.append([lo, hi])
        self._starts = [r[0] for r in merged]
        self._ends = [r[1] for r in merged]

    @classmethod
    def pending(cls) -> DirtyRanges:
        return cls(list(RollupDirty.objects.values_list("start", "end")))

    def spans(self) -> list[tuple[datetime, datetime]]:
        """The merged ranges, each widened to whole minutes."""
        return list(zip(self._starts, self._ends, strict=True))

    def overlaps(self, lo: datetime, hi: datetime) -> bool:
        index = bisect.bisect_left(self._ends, lo)
        while index < len(self._starts) and self._starts[index] < hi:
            if self._ends[index] > lo:
                return True
            index += 1
        return False


def step_window(step: Any, trim: float) -> tuple[datetime, datetime] | None:
    """A load step's window with ``trim`` percent of its length cut off each end (None while it runs)."""
    if step.ended_at is None:
        return None
    cut = (step.ended_at - step.started_at) * (trim / 100.0)
    return step.started_at + cut, step.ended_at - cut


def ceil_minute(moment: datetime) -> datetime:
    floor = bucket_floor(moment)
    return floor if floor == moment else floor + ROLLUP_WIDTH


def rollup_span(lo: datetime, hi: datetime, dirty: DirtyRanges) -> tuple[datetime, datetime]:
    """The whole minutes of ``[lo, hi)`` that may come from the rollup (empty: ``(hi, hi)``)."""
    a, b = ceil_minute(lo), bucket_floor(hi)
    if a >= b or dirty.overlaps(a, b):
        return hi, hi
    return a, b


def window_stats(windows: Sequence[Window], dirty: DirtyRanges | None = None) -> dict[int, WindowStats]:
    """Count, sum, min and max of the samples in each key's windows (keys without samples are absent)."""
    if not windows:
        return {}
    dirty = dirty if dirty is not None else DirtyRanges.pending()
    served: list[tuple[Window, tuple[datetime, datetime]]] = []
    raw: list[Window] = []
    for window in windows:
        span = rollup_span(window.lo, window.hi, dirty)
        if span == (window.hi, window.hi):
            raw.append(window)
        else:
            served.append((window, span))
    rows: list[tuple[Any, ...]] = []
    with short_query_cursor() as cursor:
        if served:
            cursor.execute(
                _STATS_SQL,
                [
                    [w.key for w, _ in served],
                    [w.series_id for w, _ in served],
                    [w.lo for w, _ in served],
                    [w.hi for w, _ in served],
                    [span[0] for _, span in served],
                    [span[1] for _, span in served],
                ],
            )
            rows += cursor.fetchall()
        if raw:
            cursor.execute(
                _RAW_SQL,
                [[w.key for w in raw], [w.series_id for w in raw], [w.lo for w in raw], [w.hi for w in raw]],
            )
            rows += cursor.fetchall()
    found: dict[int, WindowStats] = {}
    for key, n, total, mn, mx in rows:
        if not n:
            continue
        stats = WindowStats(int(n), float(total), float(mn), float(mx))
        if key in found:
            before = found[key]
            stats = WindowStats(
                before.samples + stats.samples,
                before.total + stats.total,
                min(before.minimum, stats.minimum),
                max(before.maximum, stats.maximum),
            )
        found[key] = stats
    return found
