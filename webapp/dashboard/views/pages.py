"""The campaign list and a campaign's overview (scenarios and runs)."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.db.models import Count
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from webapp.core.models import Campaign
from webapp.dashboard.views.access import campaign_context, visible_campaign, visible_projects


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
    context = campaign_context(found, "campaign", scenarios=scenarios, runs=runs)
    return render(request, "dashboard/campaign.html", context)
