"""The trace explorer: a run's counters over time (buckets fetched per chart width) and a correlation."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from webapp.analysis.listings import trace_choice, traced_runs
from webapp.dashboard.views.access import campaign_context, visible_campaign

__all__ = ["traced_runs", "traces"]


@login_required
def traces(request: HttpRequest, slug: str) -> HttpResponse:
    found = visible_campaign(request, slug)
    choice = trace_choice(found, request.GET.get("run", ""))
    chosen = choice.run
    page = {"runs_api": "/api/v1/runs/", "run": chosen.pk if chosen else None, "steps": choice.steps}
    context = campaign_context(found, "traces", runs=choice.runs, run=chosen, page=page)
    return render(request, "dashboard/traces.html", context)
