"""Dashboard pages. Every query is scoped to the signed-in user's projects."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.db.models import Count, QuerySet
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render

from webapp.core.models import Campaign, Project


def visible_projects(request: HttpRequest) -> QuerySet[Project]:
    user = request.user
    if user.is_superuser:
        return Project.objects.all()
    return Project.objects.filter(memberships__user_id=int(user.pk or 0))


def visible_campaign(request: HttpRequest, slug: str) -> Campaign:
    campaign = Campaign.objects.filter(slug=slug, project__in=visible_projects(request)).first()
    if campaign is None:
        raise Http404("campaign not found")
    return campaign


@login_required
def home(request: HttpRequest) -> HttpResponse:
    campaigns = (
        Campaign.objects.filter(project__in=visible_projects(request))
        .select_related("project")
        .annotate(n_scenarios=Count("scenarios", distinct=True), n_uploads=Count("uploads", distinct=True))
    )
    return render(request, "dashboard/home.html", {"campaigns": campaigns})


@login_required
def campaign(request: HttpRequest, slug: str) -> HttpResponse:
    found = visible_campaign(request, slug)
    scenarios = found.scenarios.annotate(n_runs=Count("runs"))
    runs = found.runs.select_related("scenario").annotate(n_steps=Count("steps"))
    return render(
        request, "dashboard/campaign.html", {"campaign": found, "scenarios": scenarios, "runs": runs}
    )


@login_required
def uploads(request: HttpRequest, slug: str) -> HttpResponse:
    found = visible_campaign(request, slug)
    rows = found.uploads.select_related("host", "scenario").order_by("-received_at")[:500]
    return render(request, "dashboard/uploads.html", {"campaign": found, "uploads": rows})
