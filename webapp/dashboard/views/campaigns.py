"""Creating a campaign and changing its name, description, dimensions and series, for owners and editors.

The form lists the common scenario dimensions as checkboxes and takes any
others as a comma-separated list (never a JSON box); the series is a slug
(made when new; the project's series are offered) with the campaign's place in
it. The rules are ``webapp.core.creation``'s, shared with the API.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render

from webapp.accounts.roles import project_for
from webapp.core import creation
from webapp.core.models import Campaign, Membership, Project, Series
from webapp.core.models.campaigns import DIMENSION_LABELS, DIMENSIONS
from webapp.dashboard.views.access import campaign_context, visible_campaign, visible_projects


def writable_projects(request: HttpRequest) -> list[Project]:
    """Projects where the user is owner or editor (every project for a superuser)."""
    projects = visible_projects(request)
    if not request.user.is_superuser:
        projects = projects.filter(memberships__role__in=[Membership.Role.OWNER, Membership.Role.EDITOR])
    return list(projects.distinct().order_by("name"))


def posted_dimensions(request: HttpRequest) -> list[str]:
    """Checked common dimensions in their display order, then the others as typed."""
    checked = [key for key in DIMENSIONS if key in request.POST.getlist("dimension")]
    others = [part.strip() for part in request.POST.get("other_dimensions", "").split(",")]
    return checked + [key for key in others if key]


def form_context(values: dict[str, Any], writable: list[Project], **extra: Any) -> dict[str, Any]:
    chosen = list(values.get("dimensions") or [])
    return {
        "values": values,
        "known_series": Series.objects.filter(project__in=writable).order_by("slug"),
        "common": [(key, DIMENSION_LABELS[key], key in chosen) for key in DIMENSIONS],
        "other_dimensions": ", ".join(key for key in chosen if key not in DIMENSIONS),
        **extra,
    }


@login_required
def new_campaign(request: HttpRequest) -> HttpResponse:
    projects = writable_projects(request)
    values: dict[str, Any] = {"project": request.GET.get("project", ""), "dimensions": []}
    error = ""
    if request.method == "POST":
        values = {
            "project": request.POST.get("project", ""),
            "slug": request.POST.get("slug", ""),
            "name": request.POST.get("name", ""),
            "description": request.POST.get("description", ""),
            "dimensions": posted_dimensions(request),
            "series": request.POST.get("series", ""),
            "series_key": request.POST.get("series_key", ""),
        }
        project = project_for(request.user, values["project"], at_least=Membership.Role.EDITOR)
        try:
            campaign = creation.create_campaign(
                project,
                slug=values["slug"],
                name=values["name"],
                description=values["description"],
                dimensions=values["dimensions"],
                series=values["series"],
                series_key=values["series_key"],
            )
        except creation.Refused as exc:
            error = exc.message
        else:
            messages.success(request, f"Campaign {campaign.name!r} created. Upload results to it below.")
            return redirect("dashboard:uploads", slug=campaign.slug)
    context = form_context(values, projects, projects=projects, error=error, creating=True)
    return render(request, "dashboard/campaign_form.html", context, status=400 if error else 200)


@login_required
def campaign_settings(request: HttpRequest, slug: str) -> HttpResponse:
    campaign: Campaign = visible_campaign(request, slug)
    project_for(request.user, campaign.project.slug, at_least=Membership.Role.EDITOR)
    values: dict[str, Any] = {
        "name": campaign.name,
        "description": campaign.description,
        "dimensions": list(campaign.dimensions or []),
        "series": campaign.series.slug if campaign.series else "",
        "series_key": campaign.series_key,
    }
    error = ""
    if request.method == "POST":
        values = {
            "name": request.POST.get("name", ""),
            "description": request.POST.get("description", ""),
            "dimensions": posted_dimensions(request),
            # Absent (an older form, a script): the series stays as it is.
            "series": request.POST.get("series"),
            "series_key": request.POST.get("series_key"),
        }
        try:
            creation.update_campaign(campaign, **values)
        except creation.Refused as exc:
            error = exc.message
            campaign.refresh_from_db()
        else:
            messages.success(request, "Campaign saved.")
            return redirect("dashboard:campaign", slug=campaign.slug)
    context = campaign_context(
        campaign, "settings", **form_context(values, [campaign.project], error=error, creating=False)
    )
    return render(request, "dashboard/campaign_form.html", context, status=400 if error else 200)
