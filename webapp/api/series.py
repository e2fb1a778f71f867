"""``/api/v1/series``: campaigns that repeat one study, their history and which answers changed.

A campaign joins a series when it is created (``series`` and ``series_key``
in ``POST /api/v1/campaigns``) or from its settings. ``GET
/api/v1/series/{slug}/history`` answers every campaign in order with its
saturation users and headline results, and ``changes``: each against its
baseline (``webapp.analysis.history``). ``PUT /api/v1/series/{slug}`` pins a
baseline campaign (owners and editors), or unpins it (``"baseline": ""``: each
campaign against the one before it). ``GET /api/v1/campaigns/{slug}/history``
answers the same for the series the campaign belongs to (a share report's
figures point into it, as its other figures point into the campaign's answers).
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
from webapp.api.uploads import campaign_for
from webapp.core.creation import Refused, check_name, pin_baseline
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
def list_your_series(request: HttpRequest) -> dict[str, Any]:
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
    try:
        pin_baseline(series, payload.baseline)
    except Refused as exc:
        raise ApiError(exc.status, exc.code, exc.message) from None
    series.save(update_fields=["name"])
    return series_out(request, series)


def history_body(
    series: Series, counter: str, stat: str, threshold: float, trim: float, baseline: str | None
) -> dict[str, Any]:
    ref = capacity_query(counter, stat, threshold, trim)
    if baseline and ("\x00" in baseline or not series.campaigns.filter(slug=baseline[:64]).exists()):
        raise ApiError(400, "invalid_baseline", f"{baseline[:64]!r} is not a campaign of this series")
    body = series_history(series, ref, stat, threshold, trim, baseline)  # type: ignore[arg-type]
    return _finite({**body, "counter": ref.path, "stat": stat, "threshold": threshold, "trim_pct": trim})


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
    baseline: str | None = None,
) -> dict[str, Any]:
    """Each campaign's saturation users, headline results and notes, and ``changes`` against the baseline.

    Takes the capacity endpoint's ``counter``, ``stat``, ``threshold`` and ``trim``;
    ``baseline`` (a campaign of the series, or empty for each against the one
    before it) overrides the series' own for this answer.
    """
    return history_body(visible_series(request, slug), counter, stat, threshold, trim, baseline)


@router.get(
    "/campaigns/{slug}/history",
    auth=any_auth,
    response={200: dict[str, Any], 400: ErrorOut, 404: ErrorOut},
)
def campaign_history(
    request: HttpRequest,
    slug: str,
    counter: str = "",
    stat: str = "avg",
    threshold: float = 80.0,
    trim: float = 10.0,
    baseline: str | None = None,
) -> dict[str, Any]:
    """The history of the series this campaign belongs to (404 when it belongs to none); as the series' one."""
    campaign = campaign_for(request, slug)
    if campaign.series_id is None:
        raise not_found(f"series of campaign {slug[:64]!r}")
    series = Series.objects.select_related("project", "baseline").get(pk=campaign.series_id)
    return history_body(series, counter, stat, threshold, trim, baseline)
