"""The JSON of the dashboard's campaign pages, from the functions the pages render.

``/api/v1/campaigns/{slug}/runs`` (the campaign page's scenarios and runs),
``/uploads`` (the uploads page, paged, ``?status=`` and ``?kind=`` as the
page's address takes them), ``/block-size``, ``/copies`` and ``/traces`` (the
runs the trace explorer offers, ``?run=`` as the page's). Capacity, sizing and
compare have theirs in ``webapp.api.analysis``.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any
from urllib.parse import urlencode

from django.http import HttpRequest
from ninja import Router, Schema

from webapp.analysis.blocksize import as_json, block_size_points
from webapp.analysis.copies import copy_comparison
from webapp.analysis.expiry import data_note
from webapp.analysis.listings import BadFilter, campaign_overview, campaign_uploads, trace_choice
from webapp.api.analysis import _finite
from webapp.api.auth import any_auth
from webapp.api.errors import ApiError, not_found
from webapp.api.schemas import ErrorOut, UploadOut
from webapp.api.uploads import MAX_OFFSET, campaign_for, upload_out
from webapp.core.models import Run, Upload

router = Router(tags=["views"])

MAX_LIMIT = 1000


class ScenarioRow(Schema):
    id: int
    dims: dict[str, str]
    label: str
    run_count: int


class RunRow(Schema):
    id: int
    name: str
    tool: str
    scenario: int
    scenario_label: str
    step_count: int
    started_at: datetime | None
    ended_at: datetime | None
    # The machines of the run: name, role and the inventory's summary ("2 vCPU, 4 GB", "" if unknown).
    hosts: list[dict[str, str]] = []


class OverviewOut(Schema):
    campaign: str
    scenarios: list[ScenarioRow]
    runs: list[RunRow]


class UploadRow(UploadOut):
    # The uploads page's other columns: who sent it, for which scenario and step.
    host: str | None
    role: str
    scenario: dict[str, str] | None
    scenario_label: str | None
    step_users: int | None
    timezone: str


class UploadPage(Schema):
    campaign: str
    status: str
    kind: str
    count: int
    offset: int
    limit: int
    next: str | None
    results: list[UploadRow]


class BlockPointOut(Schema):
    scenario: int
    label: str
    execution: str
    block_size: str
    block_bytes: int | None
    family: str
    direction: str
    stat: str
    unit: str
    value: float | None
    runs: int
    hosts: int = 1  # hosts behind the value (a fleet reporting into one run)
    combined: str = ""  # how several hosts' figures were combined: sum, IOPS-weighted mean, maximum
    per_host: list[tuple[str, float]] = []  # (host, value) each host's own figure


class BlockSizeOut(Schema):
    campaign: str
    points: list[BlockPointOut]


class TraceStep(Schema):
    users: int
    start: datetime
    end: datetime | None


class TracesOut(Schema):
    campaign: str
    run: int | None
    runs: list[RunRow]
    steps: list[TraceStep]


def run_row(run: Run, step_count: int) -> dict[str, Any]:
    return {
        "id": run.pk,
        "name": run.name,
        "tool": run.tool,
        "scenario": run.scenario_id,
        "scenario_label": run.scenario.label,
        "step_count": step_count,
        "started_at": run.started_at,
        "ended_at": run.ended_at,
        "hosts": [{"name": h.name, "role": h.role, "summary": h.summary} for h in run.hosts.all()],
    }


def upload_row(request: HttpRequest, upload: Upload) -> dict[str, Any]:
    return {
        **upload_out(request, upload),
        "host": upload.host.name if upload.host else None,
        "role": upload.role,
        "scenario": upload.scenario.dims if upload.scenario else None,
        "scenario_label": upload.scenario.label if upload.scenario else None,
        "step_users": upload.step_users,
        "timezone": upload.timezone,
    }


@router.get("/campaigns/{slug}/runs", auth=any_auth, response={200: OverviewOut, 404: ErrorOut})
def campaign_runs(request: HttpRequest, slug: str) -> dict[str, Any]:
    """The campaign page: its scenarios with their run counts, and its runs with their load-step counts."""
    campaign = campaign_for(request, slug)
    overview = campaign_overview(campaign)
    return {
        "campaign": campaign.slug,
        "scenarios": [
            {"id": s.pk, "dims": s.dims, "label": s.label, "run_count": s.n_runs}  # type: ignore[attr-defined]
            for s in overview.scenarios
        ],
        "runs": [run_row(r, r.n_steps) for r in overview.runs],  # type: ignore[attr-defined]
    }


@router.get(
    "/campaigns/{slug}/uploads", auth=any_auth, response={200: UploadPage, 400: ErrorOut, 404: ErrorOut}
)
def campaign_uploads_page(
    request: HttpRequest, slug: str, status: str = "", kind: str = "", offset: int = 0, limit: int = 100
) -> dict[str, Any]:
    """The uploads page, newest first and paged: ``status`` (received, queued, parsing, stored, failed) and
    ``kind`` (a parser name, matching the requested or the one that ran) filter as on the page."""
    campaign = campaign_for(request, slug)
    if not 0 <= offset <= MAX_OFFSET:
        raise ApiError(400, "invalid_offset", f"offset must be from 0 to {MAX_OFFSET:,}")
    if not 1 <= limit <= MAX_LIMIT:
        raise ApiError(400, "invalid_limit", f"limit must be from 1 to {MAX_LIMIT:,}")
    try:
        listed = campaign_uploads(campaign, status, kind)
    except BadFilter as exc:
        raise ApiError(400, exc.code, exc.message) from None
    count = listed.count()
    results = [upload_row(request, u) for u in listed[offset : offset + limit]]
    following = offset + len(results)
    query = {"status": status.strip(), "kind": kind.strip(), "offset": following, "limit": limit}
    address = f"/api/v1/campaigns/{campaign.slug}/uploads?" + urlencode({k: v for k, v in query.items() if v})
    return {
        "campaign": campaign.slug,
        "status": status.strip(),
        "kind": kind.strip(),
        "count": count,
        "offset": offset,
        "limit": limit,
        "next": request.build_absolute_uri(address) if following < count else None,
        "results": results,
    }


@router.get("/campaigns/{slug}/block-size", auth=any_auth, response={200: BlockSizeOut, 404: ErrorOut})
def campaign_block_size(request: HttpRequest, slug: str) -> dict[str, Any]:
    """The block-size page's figures: per scenario, execution, block size, family, direction and statistic."""
    campaign = campaign_for(request, slug)
    return _finite({"campaign": campaign.slug, "points": as_json(block_size_points(campaign))})


@router.get("/campaigns/{slug}/copies", auth=any_auth, response={200: dict[str, Any], 404: ErrorOut})
def campaign_copies(request: HttpRequest, slug: str) -> dict[str, Any]:
    """The copies page: ``configurations`` (technique, dataset, options, durations), ``resources`` and ``figures``."""
    campaign = campaign_for(request, slug)
    return _finite(
        {"campaign": campaign.slug, **copy_comparison(campaign), "data": data_note(campaign=campaign)}
    )


@router.get("/campaigns/{slug}/traces", auth=any_auth, response={200: TracesOut, 404: ErrorOut})
def campaign_traces(request: HttpRequest, slug: str, run: int | None = None) -> dict[str, Any]:
    """The trace explorer's runs (those with counter samples) and the load steps of ``run`` (default: the first)."""
    campaign = campaign_for(request, slug)
    choice = trace_choice(campaign, "" if run is None else str(run))
    if run is not None and (choice.run is None or choice.run.pk != run):
        raise not_found(f"run {run} with counter samples in campaign {slug!r}")
    return {
        "campaign": campaign.slug,
        "run": choice.run.pk if choice.run else None,
        "runs": [run_row(r, r.steps.count()) for r in choice.runs],
        "steps": choice.steps,
    }
