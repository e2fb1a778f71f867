"""The campaign list and a campaign's overview (scenarios, runs and the machines they ran on)."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from webapp.analysis.listings import campaign_list, campaign_machines, campaign_overview
from webapp.dashboard.views.access import campaign_context, visible_campaign, visible_projects


@login_required
def home(request: HttpRequest) -> HttpResponse:
    return render(request, "dashboard/home.html", {"campaigns": campaign_list(visible_projects(request))})


@login_required
def campaign(request: HttpRequest, slug: str) -> HttpResponse:
    found = visible_campaign(request, slug)
    overview = campaign_overview(found)
    context = campaign_context(
        found, "campaign", scenarios=overview.scenarios, runs=overview.runs, machines=campaign_machines(found)
    )
    return render(request, "dashboard/campaign.html", context)
