"""``/api/v1/runs/{id}/series``, ``/trace`` and ``/correlation``: a run's counters for the trace explorer.

``trace`` answers buckets sized to the chart: pass the chart's width in
pixels and the time range on screen; zooming in asks again with a narrower
range and gets finer buckets (see ``webapp.analysis.traces``).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.http import HttpRequest
from ninja import Router

from webapp.analysis.expiry import data_note
from webapp.analysis.traces import Bucket, correlation, run_series, trace
from webapp.api.auth import any_auth
from webapp.api.errors import ApiError
from webapp.api.runs import check_moment, visible_run
from webapp.api.schemas import ErrorOut
from webapp.core.models import Run
from webapp.timeseries.models import CounterSeries

router = Router(tags=["traces"])

MAX_SERIES = 12
MIN_WIDTH, MAX_WIDTH = 10, 5000


def series_out(series: CounterSeries) -> dict[str, Any]:
    instance = f"({series.instance})" if series.instance else ""
    return {
        "id": series.pk,
        "host": series.host.name,
        "role": series.host.role,
        "object": series.object,
        "instance": series.instance,
        "counter": series.counter,
        "path": f"\\\\{series.host.name}\\{series.object}{instance}\\{series.counter}",
    }


def _bucket_out(bucket: Bucket) -> dict[str, Any]:
    return {"t": bucket.start, "avg": bucket.avg, "min": bucket.min, "max": bucket.max, "n": bucket.n}


def trace_range(run: Run, start: datetime | None, end: datetime | None) -> tuple[datetime, datetime]:
    lo = start or run.started_at
    hi = end or run.ended_at
    if lo is None or hi is None:
        raise ApiError(400, "no_time_range", "the run has no samples yet; give start and end")
    check_moment("start", lo, "invalid_range")
    check_moment("end", hi, "invalid_range")
    if hi <= lo:
        raise ApiError(400, "invalid_range", "end must be after start")
    return lo, hi


def _width(width: int) -> int:
    if not MIN_WIDTH <= width <= MAX_WIDTH:
        raise ApiError(
            400, "invalid_width", f"width is the chart's width in pixels, {MIN_WIDTH} to {MAX_WIDTH}"
        )
    return width


def requested_series(run: Run, ids: list[int]) -> list[CounterSeries]:
    """The requested series, which must be counters of the run's hosts."""
    found = {
        s.pk: s
        for s in CounterSeries.objects.filter(pk__in=ids, host__runs=run).select_related("host").distinct()
    }
    missing = [i for i in ids if i not in found]
    if missing:
        raise ApiError(
            404, "not_found", f"series {', '.join(map(str, missing))} not found on the hosts of run {run.pk}"
        )
    return [found[i] for i in ids]


@router.get("/runs/{run_id}/series", auth=any_auth, response={200: dict[str, Any], 404: ErrorOut})
def list_series(request: HttpRequest, run_id: int) -> dict[str, Any]:
    """The counter series of a run's hosts that hold samples during the run."""
    run = visible_run(request, run_id)
    return {
        "run": {
            "id": run.pk,
            "name": run.name,
            "scenario": run.scenario.dims,
            "started_at": run.started_at,
            "ended_at": run.ended_at,
        },
        "series": [series_out(s) for s in run_series(run)],
        "data": data_note(run=run),
    }


@router.get(
    "/runs/{run_id}/trace", auth=any_auth, response={200: dict[str, Any], 400: ErrorOut, 404: ErrorOut}
)
def get_trace(
    request: HttpRequest,
    run_id: int,
    series: str,
    start: datetime | None = None,
    end: datetime | None = None,
    width: int = 800,
    source: str = "auto",
) -> dict[str, Any]:
    """Buckets ``{t, avg, min, max, n}`` per series over ``[start, end]`` (default: the run), at most one per pixel.

    ``series`` is a comma-separated list of series ids. ``source=raw`` forces
    the raw samples (for checking); ``auto`` uses the one-minute rollups for
    buckets of a minute or more.
    """
    run = visible_run(request, run_id)
    try:
        ids = list(dict.fromkeys(int(part) for part in series.split(",") if part.strip()))
    except ValueError:
        raise ApiError(400, "invalid_series", "series is a comma-separated list of series ids") from None
    if not ids or len(ids) > MAX_SERIES:
        raise ApiError(400, "invalid_series", f"ask for 1 to {MAX_SERIES} series")
    if source not in ("auto", "raw"):
        raise ApiError(400, "invalid_source", "source is auto or raw")
    chosen = requested_series(run, ids)
    lo, hi = trace_range(run, start, end)
    found = trace(ids, lo, hi, _width(width), "raw" if source == "raw" else None)
    return {
        "run": run.pk,
        "start": found.lo,
        "end": found.hi,
        "bucket_seconds": found.width.total_seconds(),
        "source": found.source,
        "series": [
            {**series_out(s), "points": [_bucket_out(b) for b in found.buckets.get(s.pk, [])]} for s in chosen
        ],
        "data": data_note(run=run),
    }


@router.get(
    "/runs/{run_id}/correlation",
    auth=any_auth,
    response={200: dict[str, Any], 400: ErrorOut, 404: ErrorOut},
)
def get_correlation(
    request: HttpRequest,
    run_id: int,
    x: int,
    y: int,
    start: datetime | None = None,
    end: datetime | None = None,
    width: int = 400,
) -> dict[str, Any]:
    """Bucket averages of series ``y`` against series ``x`` (paired by bucket) and the least-squares line."""
    run = visible_run(request, run_id)
    x_series, y_series = requested_series(run, [x, y]) if x != y else requested_series(run, [x]) * 2
    lo, hi = trace_range(run, start, end)
    found, points, fit = correlation(x, y, lo, hi, _width(width))
    return {
        "run": run.pk,
        "start": found.lo,
        "end": found.hi,
        "bucket_seconds": found.width.total_seconds(),
        "source": found.source,
        "x": series_out(x_series),
        "y": series_out(y_series),
        "points": [{"t": t, "x": px, "y": py} for t, px, py in points],
        "fit": None
        if fit is None
        else {"slope": fit.slope, "intercept": fit.intercept, "r2": fit.r2, "n": fit.n},
        "data": data_note(run=run),
    }
