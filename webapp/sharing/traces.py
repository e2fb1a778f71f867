"""A shared trace view: the run, the counter series and the time range are frozen; the chart is read-only.

The filters are checked with the trace API's rules (``GET /api/v1/runs/{id}/trace``,
webapp/api/traces.py) when the link is made and again when it is opened: the
run must be one of the campaign's traced runs, every series a counter of its
hosts, and end after start. The buckets are computed on the server at a fixed
width and embedded in the page, so the anonymous reader makes no API call.

A link shows only what its campaign holds. A series belongs to a host of the
project, not to one campaign, so the same series may carry samples from other
campaigns' runs before and after this one: the frozen range must lie inside
the run, and the samples are read inside the run's span only (never the whole
buckets the range touches, which may reach past it).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.utils.dateparse import parse_datetime

from webapp.analysis.traces import trace
from webapp.api.errors import ApiError
from webapp.api.traces import MAX_SERIES, requested_series, series_out, trace_range
from webapp.core.models import Campaign, Run

# Buckets per shared chart: about one per pixel of a wide card.
WIDTH = 1000


def _moment(raw: dict[str, Any], key: str) -> datetime | None:
    text = raw.get(key) or ""
    if not text:
        return None
    found = parse_datetime(str(text)[:64]) if isinstance(text, str) else None
    if found is None or found.tzinfo is None:
        raise ValueError(f"{key} must be an ISO date and time with its offset, not {str(text)[:40]!r}")
    return found


def _run(campaign: Campaign, raw: dict[str, Any]) -> Run:
    from webapp.dashboard.views.traces import traced_runs

    runs = traced_runs(campaign)
    wanted = str(raw.get("run") or "")
    run = next((r for r in runs if str(r.pk) == wanted), None if wanted else (runs[0] if runs else None))
    if run is None:
        raise ValueError("a traces link needs a run of this campaign with counter samples")
    return run


def traces_filters(campaign: Campaign, raw: dict[str, Any]) -> dict[str, Any]:
    """``{run, series, start, end}`` validated (ValueError saying what is wrong)."""
    run = _run(campaign, raw)
    try:
        ids = list(dict.fromkeys(int(p) for p in str(raw.get("series") or "").split(",") if p.strip()))
    except ValueError:
        raise ValueError("series is a comma-separated list of series ids") from None
    if not 1 <= len(ids) <= MAX_SERIES:
        raise ValueError(f"a traces link freezes 1 to {MAX_SERIES} counter series")
    start, end = _moment(raw, "start"), _moment(raw, "end")
    try:
        requested_series(run, ids)
        lo, hi = trace_range(run, start, end)
    except ApiError as exc:
        raise ValueError(exc.message) from None
    assert run.started_at is not None and run.ended_at is not None  # traced runs have a span
    if lo < run.started_at or hi > run.ended_at:
        raise ValueError(
            f"a traces link shows only its run: start and end must lie within run {run.name}"
            f" ({run.started_at.isoformat()} to {run.ended_at.isoformat()})"
        )
    return {
        "run": run.pk,
        "series": ",".join(map(str, ids)),
        "start": start.isoformat() if start else "",
        "end": end.isoformat() if end else "",
    }


def traces_section(campaign: Campaign, frozen: dict[str, Any]) -> dict[str, Any]:
    """The frozen run's buckets per series, for the read-only chart (and the page's table of series)."""
    filters = traces_filters(campaign, frozen)
    run = Run.objects.select_related("scenario").get(pk=filters["run"])
    ids = [int(p) for p in filters["series"].split(",")]
    chosen = requested_series(run, ids)
    lo, hi = trace_range(run, _moment(filters, "start"), _moment(filters, "end"))
    assert run.started_at is not None and run.ended_at is not None  # checked by traces_filters
    found = trace(ids, lo, hi, WIDTH, within=(run.started_at, run.ended_at))
    return {
        "run": run.name,
        "scenario": run.scenario.label,
        "start": found.lo,
        "end": found.hi,
        "whole_run": not filters["start"] and not filters["end"],
        "chart": {
            "bucket_seconds": found.width.total_seconds(),
            "series": [
                {
                    **series_out(s),
                    "points": [
                        [b.start.isoformat(), b.avg, b.min, b.max] for b in found.buckets.get(s.pk, [])
                    ],
                }
                for s in chosen
            ],
        },
    }
