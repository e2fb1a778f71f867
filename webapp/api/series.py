"""``/api/v1/series``: campaigns that repeat one study, their history and which answers changed.

A campaign joins a series when it is created (``series`` and ``series_key``
in ``POST /api/v1/campaigns``) or from its settings. ``GET
/api/v1/series/{slug}/history`` answers every campaign in order with its
saturation users and headline results, and ``changes``: each against its
baseline (``webapp.analysis.history``). ``PUT /api/v1/series/{slug}`` pins a
baseline campaign (owners and editors), or unpins it (``"baseline": ""``: each
campaign against the one before it).
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from ninja import Router, Schema

from webapp.analysis.history import ordered_campaigns, series_history
from webapp.api.analysis import _finite, capacity_query
from webapp.api.auth import any_auth, caller
from webapp.api.errors import ApiError, not_found
from webapp.api.schemas import ErrorOut
from webapp.core.creation import check_name
from webapp.core.models import Series

router = Router(tags=["series"])


class SeriesIn(Schema):
    name: str = ""
    # A campaign of the series to compare every other with; "" for each with the one before it.
    baseline: str = ""


def visible_series(request: HttpRequest, slug: str, *, write: bool = False) -> Series:
    found = caller(request)
    series = None
    if "\x00" not in slug and len(slug) <= 64:
        series = Series.objects.select_related("project", "baseline").filter(slug=slug).first()
    if series is None or series.project_id not in found.project_ids:
        raise not_found(f"series {slug[:64]!r}")
    if write and series.project_id not in found.writable_ids:
        raise ApiError(403, "read_only", "your role in this project is viewer: it can read, not change")
    return series


def series_out(request: HttpRequest, series: Series) -> dict[str, Any]:
    return {
        "slug": series.slug,
        "name": series.name,
        "project": series.project.slug,
        "baseline": series.baseline.slug if series.baseline_id else None,  # type: ignore[union-attr]
        "campaigns": [
            {"slug": c.slug, "name": c.name, "series_key": c.series_key} for c in ordered_campaigns(series)
        ],
        "history": request.build_absolute_uri(f"/api/v1/series/{series.slug}/history"),
    }


@router.get("/series", auth=any_auth, response={200: dict[str, Any]}, summary="List your series")
def series_list(request: HttpRequest) -> dict[str, Any]:
    found = Series.objects.filter(project_id__in=caller(request).project_ids).select_related(
        "project", "baseline"
    )
    listed = [series_out(request, s) for s in found]
    return {"count": len(listed), "series": listed}


@router.get("/series/{slug}", auth=any_auth, response={200: dict[str, Any], 404: ErrorOut})
def get_series(request: HttpRequest, slug: str) -> dict[str, Any]:
    return series_out(request, visible_series(request, slug))


@router.put(
    "/series/{slug}",
    auth=any_auth,
    response={200: dict[str, Any], 400: ErrorOut, 403: ErrorOut, 404: ErrorOut},
)
def update_series(request: HttpRequest, slug: str, payload: SeriesIn) -> dict[str, Any]:
    """Rename the series and pin (or unpin, ``""``) its baseline campaign."""
    series = visible_series(request, slug, write=True)
    if payload.name.strip():
        series.name = check_name(payload.name, "series")
    if payload.baseline.strip():
        baseline = series.campaigns.filter(slug=payload.baseline.strip()).first()
        if baseline is None:
            known = ", ".join(c.slug for c in ordered_campaigns(series)) or "none yet"
            raise ApiError(
                400, "invalid_baseline", f"{payload.baseline!r} is not a campaign of this series ({known})"
            )
        series.baseline = baseline
    else:
        series.baseline = None
    series.save(update_fields=["name", "baseline"])
    return series_out(request, series)


@router.get(
    "/series/{slug}/history", auth=any_auth, response={200: dict[str, Any], 400: ErrorOut, 404: ErrorOut}
)
def history(
    request: HttpRequest,
    slug: str,
    counter: str = "",
    stat: str = "avg",
    threshold: float = 80.0,
    trim: float = 10.0,
) -> dict[str, Any]:
    """Each campaign's saturation users and headline results, and ``changes`` against the baseline.

    Takes the capacity endpoint's ``counter``, ``stat``, ``threshold`` and ``trim``.
    """
    series = visible_series(request, slug)
    ref = capacity_query(counter, stat, threshold, trim)
    body = series_history(series, ref, stat, threshold, trim)  # type: ignore[arg-type]
    return _finite({**body, "counter": ref.path, "stat": stat, "threshold": threshold, "trim_pct": trim})
