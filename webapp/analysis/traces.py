"""Counter traces downsampled on the server, and the correlation of two counters.

A chart asks for a time range and its width in pixels; the bucket width is
the smallest "nice" width (1 s, 2 s, 5 s ... 1 min, 2 min ... 1 day) that
gives at most one bucket per pixel, so zooming in asks for finer buckets.
Buckets share ``backend``'s origin, and the range is widened to whole
buckets (every bucket that touches ``[start, end]``), so the same bucket
holds the same samples whichever table it was read from:

* widths of a minute or more are summed from the one-minute rollup (a
  k-minute bucket is exactly k one-minute buckets) -- unless a pending dirty
  range touches the window, when the raw samples are read instead;
* finer widths are read from the raw samples with ``backend.bucket_expression``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Literal

from django.db import connection

from webapp.analysis.windows import DirtyRanges, short_query_cursor
from webapp.core.models import Run
from webapp.timeseries import samples
from webapp.timeseries.backend import ORIGIN, ROLLUP, ROLLUP_WIDTH, bucket_expression
from webapp.timeseries.models import CounterSeries

Source = Literal["rollup", "raw"]
BUCKET_ORIGIN = datetime.fromisoformat(ORIGIN)
_SECONDS = (1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400)
NICE_WIDTHS = tuple(timedelta(seconds=s) for s in _SECONDS)


@dataclass(frozen=True)
class Bucket:
    start: datetime
    n: int
    avg: float
    min: float
    max: float


@dataclass(frozen=True)
class Trace:
    lo: datetime
    hi: datetime
    width: timedelta
    source: Source
    buckets: dict[int, list[Bucket]]  # series id -> buckets in time order


@dataclass(frozen=True)
class Fit:
    slope: float
    intercept: float
    r2: float
    n: int


def bucket_width(span: timedelta, pixels: int) -> timedelta:
    """The smallest nice width giving at most ``pixels`` buckets over ``span`` (whole days beyond a day)."""
    wanted = span / max(pixels, 1)
    for width in NICE_WIDTHS:
        if width >= wanted:
            return width
    return timedelta(days=math.ceil(wanted / timedelta(days=1)))


def floor_to(moment: datetime, width: timedelta) -> datetime:
    return BUCKET_ORIGIN + ((moment - BUCKET_ORIGIN) // width) * width


def aligned(start: datetime, end: datetime, width: timedelta) -> tuple[datetime, datetime]:
    """``[lo, hi)``: the buckets touching ``[start, end]``."""
    return floor_to(start, width), floor_to(end, width) + width


def run_series(run: Run) -> list[CounterSeries]:
    """The series of the run's hosts that hold samples inside the run's time span."""
    if run.started_at is None or run.ended_at is None:
        return []
    with connection.cursor() as cursor:
        cursor.execute(
            f"""
            SELECT cs.id FROM timeseries_counterseries cs
            JOIN core_run_hosts rh ON rh.host_id = cs.host_id AND rh.run_id = %s
            WHERE EXISTS (SELECT 1 FROM {samples.of_series("cs.id", "%s", "%s")} s)
            """,
            [run.pk, run.started_at, run.ended_at + timedelta(microseconds=1)],
        )
        ids = [row[0] for row in cursor.fetchall()]
    return list(
        CounterSeries.objects.filter(pk__in=ids)
        .select_related("host")
        .order_by("host__name", "object", "instance", "counter")
    )


def _rows_to_buckets(
    rows: Sequence[tuple[int, datetime, int, float, float, float]],
) -> dict[int, list[Bucket]]:
    result: dict[int, list[Bucket]] = {}
    for series_id, start, n, avg, low, high in rows:
        result.setdefault(series_id, []).append(Bucket(start, int(n), float(avg), float(low), float(high)))
    return result


def trace(
    series_ids: Sequence[int],
    start: datetime,
    end: datetime,
    pixels: int,
    source: Source | None = None,
    *,
    within: tuple[datetime, datetime] | None = None,
) -> Trace:
    """Bucketed avg/min/max/count per series over the buckets touching ``[start, end]``.

    ``source`` forces the table read (``None`` picks: rollup when the width
    is whole minutes and no dirty range touches the window, else raw).
    ``within`` keeps only samples inside ``[first, last]`` (a run's span), read
    from the raw samples: whole buckets may reach past the span, and a series
    holds samples of whatever else its host recorded there.
    """
    width = bucket_width(end - start, pixels)
    lo, hi = aligned(start, end, width)
    first, after = lo, hi  # the samples read: time >= first AND time < after
    if within is not None:
        source = "raw"
        first, after = max(lo, within[0]), min(hi, within[1] + timedelta(microseconds=1))
    if source is None:
        rollup_ok = width >= ROLLUP_WIDTH and width % ROLLUP_WIDTH == timedelta(0)
        source = "rollup" if rollup_ok and not DirtyRanges.pending().overlaps(lo, hi) else "raw"
    if source == "rollup":
        if width < ROLLUP_WIDTH or width % ROLLUP_WIDTH:
            raise ValueError("rollup buckets need a width of whole minutes")
        sql = f"""
            SELECT series_id, {bucket_expression("%s", "bucket")} AS b, sum(n)::bigint,
                   sum(total) / sum(n), min(minimum), max(maximum)
            FROM {ROLLUP} WHERE series_id = ANY(%s) AND bucket >= %s AND bucket < %s
            GROUP BY 1, 2 ORDER BY 1, 2
        """
    else:
        sql = f"""
            SELECT series_id, {bucket_expression("%s", "time")} AS b, count(*), avg(value), min(value),
                   max(value)
            FROM {samples.of_series_set("%s", "%s", "%s")} s
            GROUP BY 1, 2 ORDER BY 1, 2
        """
    params: list[Any] = [width, list(series_ids), first, after]  # psycopg adapts timedelta to interval
    with short_query_cursor() as cursor:
        cursor.execute(sql, params)
        rows = cursor.fetchall()
    return Trace(lo, hi, width, source, _rows_to_buckets(rows))


def fit_line(xs: Sequence[float], ys: Sequence[float]) -> Fit | None:
    """Least-squares ``y = slope * x + intercept`` and R²; None when x or y does not vary."""
    n = len(xs)
    if n < 2:
        return None
    mean_x, mean_y = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mean_x) ** 2 for x in xs)
    syy = sum((y - mean_y) ** 2 for y in ys)
    if sxx == 0 or syy == 0:
        return None
    sxy = sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys, strict=True))
    slope = sxy / sxx
    intercept = mean_y - slope * mean_x
    residual = sum((y - (slope * x + intercept)) ** 2 for x, y in zip(xs, ys, strict=True))
    return Fit(slope, intercept, 1.0 - residual / syy, n)


def correlation(
    x_id: int, y_id: int, start: datetime, end: datetime, pixels: int
) -> tuple[Trace, list[tuple[datetime, float, float]], Fit | None]:
    """Bucket averages of two series paired by bucket, and the fitted line through them."""
    found = trace([x_id, y_id], start, end, pixels)
    ys = {b.start: b.avg for b in found.buckets.get(y_id, [])}
    points = [(b.start, b.avg, ys[b.start]) for b in found.buckets.get(x_id, []) if b.start in ys]
    return found, points, fit_line([p[1] for p in points], [p[2] for p in points])
