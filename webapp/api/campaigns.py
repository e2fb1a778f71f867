"""``/api/v1/campaigns``: the caller's campaigns (the dashboard's home page), one campaign, and creating one.

``GET /api/v1/campaigns`` lists what the home page lists, from the same
query (``webapp.analysis.listings.campaign_list``); ``/whoami`` stays the
token check (projects and their campaign slugs).

Owners and editors (signed in), and agent tokens (each scoped to one project,
issued by an editor or owner) may create; viewers get 403. The project is the
token's, or the ``project`` slug in the body; a signed-in user who may write
to exactly one project can leave it out.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.http import HttpRequest
from ninja import Router, Schema, Status

from webapp.analysis.listings import campaign_list
from webapp.api.auth import any_auth, caller
from webapp.api.errors import ApiError, not_found
from webapp.api.schemas import ErrorOut
from webapp.api.uploads import campaign_for
from webapp.core import creation
from webapp.core.models import Campaign, Project

router = Router(tags=["campaigns"])


class CampaignIn(Schema):
    slug: str
    name: str
    description: str = ""
    # The scenario dimension keys this study varies, in the order the views group by.
    dimensions: list[str] = []
    # Project slug; needed only when the caller may write to several projects.
    project: str = ""
    # The series this campaign repeats (a slug; made when new) and its place in it ("2026-11").
    series: str = ""
    series_key: str = ""


class CampaignOut(Schema):
    slug: str
    name: str
    description: str
    dimensions: list[str]
    project: str
    created_at: datetime
    url: str
    series: str | None
    series_key: str


def campaign_out(request: HttpRequest, campaign: Campaign) -> dict[str, Any]:
    return {
        "slug": campaign.slug,
        "name": campaign.name,
        "description": campaign.description,
        "dimensions": list(campaign.dimensions or []),
        "project": campaign.project.slug,
        "created_at": campaign.created_at,
        "url": request.build_absolute_uri(f"/campaigns/{campaign.slug}/"),
        "series": campaign.series.slug if campaign.series_id else None,  # type: ignore[union-attr]
        "series_key": campaign.series_key,
    }


class CampaignSummary(CampaignOut):
    # What the home page's table counts beside each campaign.
    scenarios: int
    uploads: int


class CampaignList(Schema):
    count: int
    campaigns: list[CampaignSummary]


def writable_project(request: HttpRequest, slug: str) -> Project:
    """The project to create in: named, or the only one the caller may write to."""
    found = caller(request)
    if slug:
        project = found.projects().filter(slug=slug.strip()).first()
        if project is None:
            raise not_found(f"project {slug!r}")
        if project.pk not in found.writable_ids:
            raise ApiError(403, "read_only", "your role in this project is viewer: it can read, not create")
        return project
    writable = list(Project.objects.filter(pk__in=found.writable_ids).order_by("slug"))
    if len(writable) == 1:
        return writable[0]
    if not writable:
        raise ApiError(403, "read_only", "you are not an owner or editor of any project: you cannot create")
    names = ", ".join(p.slug for p in writable)
    raise ApiError(
        400, "project_required", f"you may write to several projects ({names}): name one in project"
    )


@router.post(
    "/campaigns",
    auth=any_auth,
    response={201: CampaignOut, 400: ErrorOut, 403: ErrorOut, 404: ErrorOut, 409: ErrorOut},
    summary="Create a campaign",
)
def create_campaign(request: HttpRequest, payload: CampaignIn) -> Status[dict[str, Any]]:
    """Create a campaign; 201 with it, 409 if the slug exists, 403 for viewers."""
    project = writable_project(request, payload.project)
    try:
        campaign = creation.create_campaign(
            project,
            slug=payload.slug,
            name=payload.name,
            description=payload.description,
            dimensions=payload.dimensions,
            series=payload.series,
            series_key=payload.series_key,
        )
    except creation.Refused as exc:
        raise ApiError(exc.status, exc.code, exc.message) from None
    return Status(201, campaign_out(request, campaign))


@router.get("/campaigns", auth=any_auth, response={200: CampaignList}, summary="List your campaigns")
def list_campaigns(request: HttpRequest) -> dict[str, Any]:
    """The campaigns of the caller's projects, newest first, with their scenario and upload counts."""
    found = campaign_list(caller(request).project_ids)
    listed = [
        {**campaign_out(request, c), "scenarios": c.n_scenarios, "uploads": c.n_uploads}  # type: ignore[attr-defined]
        for c in found
    ]
    return {"count": len(listed), "campaigns": listed}


@router.get("/campaigns/{slug}", auth=any_auth, response={200: CampaignOut, 404: ErrorOut})
def get_campaign(request: HttpRequest, slug: str) -> dict[str, Any]:
    """One campaign: its name, description, dimensions and project (the settings page's values)."""
    return campaign_out(request, campaign_for(request, slug))
