"""The trace explorer: a run's counters over time (buckets fetched per chart width) and a correlation."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.db import connection
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from webapp.core.models import Campaign, Run
from webapp.dashboard.views.access import campaign_context, visible_campaign


def traced_runs(campaign: Campaign) -> list[Run]:
    """Runs with counter samples of their hosts inside their own time span.

    A host's series hold whatever it recorded in every run: a copy run on a machine
    that was traced in another run has series but nothing to show, and must not be
    the run the explorer opens on.
    """
    with connection.cursor() as cursor:
        cursor.execute(
            """
            SELECT r.id FROM core_run r
            WHERE r.campaign_id = %s AND r.started_at IS NOT NULL AND r.ended_at IS NOT NULL
              AND EXISTS (
                SELECT 1 FROM core_run_hosts rh
                JOIN timeseries_counterseries cs ON cs.host_id = rh.host_id
                WHERE rh.run_id = r.id
                  AND EXISTS (SELECT 1 FROM counter_sample s WHERE s.series_id = cs.id
                              AND s.time >= r.started_at AND s.time <= r.ended_at))
            """,
            [campaign.pk],
        )
        ids = [row[0] for row in cursor.fetchall()]
    return list(Run.objects.filter(pk__in=ids).select_related("scenario").order_by("started_at", "name"))


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
