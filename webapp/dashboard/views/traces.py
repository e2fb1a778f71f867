"""The trace explorer: a run's counters over time (buckets fetched per chart width) and a correlation."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from webapp.core.models import Campaign, Run
from webapp.dashboard.views.access import campaign_context, visible_campaign


def traced_runs(campaign: Campaign) -> list[Run]:
    """Runs with a time span whose hosts have counter series."""
    return list(
        Run.objects.filter(campaign=campaign, started_at__isnull=False, hosts__series__isnull=False)
        .distinct()
        .select_related("scenario")
        .order_by("started_at", "name")
    )


@login_required
def traces(request: HttpRequest, slug: str) -> HttpResponse:
    found = visible_campaign(request, slug)
    runs = traced_runs(found)
    wanted = request.GET.get("run", "")
    chosen = next((r for r in runs if str(r.pk) == wanted), runs[0] if runs else None)
    # Load steps (FSCT user counts) are drawn over the traces as shaded bands.
    steps = (
        [
            {
                "users": s.users,
                "start": s.started_at.isoformat(),
                "end": s.ended_at.isoformat() if s.ended_at else None,
            }
            for s in chosen.steps.order_by("started_at")
        ]
        if chosen
        else []
    )
    page = {"runs_api": "/api/v1/runs/", "run": chosen.pk if chosen else None, "steps": steps}
    context = campaign_context(found, "traces", runs=runs, run=chosen, page=page)
    return render(request, "dashboard/traces.html", context)
