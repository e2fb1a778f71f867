"""``/api/v1/runs``: name a run (one test execution) and give it its load-step timeline."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from django.http import HttpRequest
from ninja import Router, Schema

from webapp.api.auth import any_auth, caller
from webapp.api.errors import ApiError, not_found
from webapp.api.schemas import ErrorOut
from webapp.api.uploads import campaign_for
from webapp.core.models import Run, Scenario
from webapp.core.runs import RunConflict, apply_steps, named_run
from webapp.core.upload_meta import MAX_USERS, check_declared, check_scenario, check_text

router = Router(tags=["runs"])

# Times the API takes: far wider than any test, narrow enough that bucket and
# step arithmetic stays inside Python's and PostgreSQL's calendars.
EARLIEST = datetime(1970, 1, 1, tzinfo=UTC)
LATEST = datetime(2200, 1, 1, tzinfo=UTC)


# Steps one request may apply: a real study has tens of load steps.
MAX_STEPS = 1000


def check_moment(name: str, moment: datetime | None, code: str) -> None:
    """400 ``code`` unless ``moment`` (when given, with an offset) lies in [EARLIEST, LATEST]."""
    if moment is None:
        return
    if moment.tzinfo is None:
        raise ApiError(400, code, f"{name} needs a UTC offset, e.g. 2015-06-01T10:00:00Z")
    if not EARLIEST <= moment <= LATEST:
        raise ApiError(400, code, f"{name} must lie between {EARLIEST:%Y-%m-%d} and {LATEST:%Y-%m-%d}")


class RunIn(Schema):
    campaign: str
    name: str
    scenario: dict[str, str] = {}
    tool: str = ""


class StepOut(Schema):
    users: int
    started_at: datetime
    ended_at: datetime | None


class RunOut(Schema):
    id: int
    campaign: str
    name: str
    scenario: dict[str, str]
    tool: str
    started_at: datetime | None
    ended_at: datetime | None
    steps: list[StepOut]


class StepIn(Schema):
    users: int
    started_at: datetime
    ended_at: datetime | None = None


class StepsIn(Schema):
    steps: list[StepIn] = []
    end_at: datetime | None = None


def run_out(run: Run) -> dict[str, Any]:
    return {
        "id": run.pk,
        "campaign": run.campaign.slug,
        "name": run.name,
        "scenario": run.scenario.dims,
        "tool": run.tool,
        "started_at": run.started_at,
        "ended_at": run.ended_at,
        "steps": [
            {"users": s.users, "started_at": s.started_at, "ended_at": s.ended_at}
            for s in run.steps.order_by("started_at")
        ],
    }


def visible_run(request: HttpRequest, run_id: int, *, write: bool = False) -> Run:
    run = (
        Run.objects.select_related("campaign", "scenario")
        .filter(pk=run_id, campaign__project_id__in=caller(request).project_ids)
        .first()
    )
    if run is None:
        raise not_found(f"run {run_id}")
    if write and run.campaign.project_id not in caller(request).writable_ids:
        raise ApiError(403, "read_only", "your role in this project is viewer: it can read, not add data")
    return run


@router.get("/whoami", auth=any_auth, response={200: dict[str, Any]})
def whoami(request: HttpRequest) -> dict[str, Any]:
    """Who the credentials belong to: the token's project(s) and their campaigns (agents check tokens with it)."""
    found = caller(request)
    return {
        "token": found.token.name if found.token else None,
        "projects": [
            {"slug": p.slug, "name": p.name, "campaigns": list(p.campaigns.values_list("slug", flat=True))}
            for p in found.projects().order_by("slug")
        ],
    }


@router.post("/runs", auth=any_auth, response={200: RunOut, 403: ErrorOut, 404: ErrorOut, 409: ErrorOut})
def create_run(request: HttpRequest, payload: RunIn) -> dict[str, Any]:
    """Get or create the run ``name`` of a campaign (agents call this before streaming samples)."""
    campaign = campaign_for(request, payload.campaign, write=True)
    if not payload.name.strip():
        raise ApiError(400, "invalid_run", "a run needs a name")
    check_text("run", payload.name.strip(), 200)
    check_text("tool", payload.tool, 64)
    check_scenario(payload.scenario)
    check_declared(campaign, payload.scenario)
    try:
        run = named_run(campaign, Scenario.for_dims(campaign, payload.scenario), payload.name.strip()[:200])
    except RunConflict as exc:
        raise ApiError(409, "run_conflict", str(exc)) from None
    if payload.tool and not run.tool:
        run.tool = payload.tool[:64]
        run.save(update_fields=["tool"])
    return run_out(run)


@router.get("/runs/{run_id}", auth=any_auth, response={200: RunOut, 404: ErrorOut})
def get_run(request: HttpRequest, run_id: int) -> dict[str, Any]:
    return run_out(visible_run(request, run_id))


@router.post(
    "/runs/{run_id}/steps",
    auth=any_auth,
    response={200: RunOut, 400: ErrorOut, 403: ErrorOut, 404: ErrorOut, 413: ErrorOut},
)
def post_steps(request: HttpRequest, run_id: int, payload: list[StepIn] | StepsIn) -> dict[str, Any]:
    """Apply a load-step timeline ``[{users, started_at, ended_at}]`` to a run.

    A step without ``ended_at`` stays open until the next step starts or
    ``{"end_at": ...}`` closes it (what ``headroom-agent step`` sends).
    Re-sending a step (same users and start) updates it. At most 1,000
    steps per request (413 ``too_many_steps`` above).
    """
    run = visible_run(request, run_id, write=True)
    steps = payload if isinstance(payload, list) else payload.steps
    end_at = None if isinstance(payload, list) else payload.end_at
    if len(steps) > MAX_STEPS:
        raise ApiError(
            413,
            "too_many_steps",
            f"{len(steps):,} steps in one request; the limit is {MAX_STEPS:,} (a study has tens)",
            {"limit": MAX_STEPS},
        )
    for step in steps:
        if not 0 <= step.users <= MAX_USERS:
            raise ApiError(400, "invalid_step", f"users must be from 0 to {MAX_USERS:,}")
        check_moment("started_at", step.started_at, "invalid_step")
        check_moment("ended_at", step.ended_at, "invalid_step")
        if step.ended_at is not None and step.ended_at <= step.started_at:
            raise ApiError(400, "invalid_step", f"the step of {step.users} users ends before it starts")
    check_moment("end_at", end_at, "invalid_step")
    apply_steps(run, [(s.users, s.started_at, s.ended_at) for s in steps], end_at)
    return run_out(run)
