"""The analysis pages: capacity planner, scenario compare, block-size throughput, copy comparison.

The capacity and compare pages draw from the JSON API in the browser (their
controls ask again with new parameters); block size and copies are computed
here and handed to the page as JSON, since they have no parameters.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.decorators import login_required
from django.db import connection
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from webapp.analysis.blocksize import as_json, block_size_points
from webapp.analysis.copies import copy_comparison
from webapp.analysis.counters import DEFAULT_COUNTER, CounterRef
from webapp.analysis.fsct_curves import METHOD as FSCT_METHOD
from webapp.analysis.fsct_curves import has_fsct
from webapp.analysis.metric_groups import GROUPS
from webapp.analysis.timing_steps import placed_timing_names
from webapp.analysis.ux_choice import read_ux
from webapp.api.analysis import INTERVALS, METHOD
from webapp.core.models import Campaign, Host, Scenario
from webapp.dashboard.views.access import campaign_context, visible_campaign
from webapp.dashboard.views.capacity_params import counter_unit, read_capacity
from webapp.timeseries.models import CounterSeries

API = "/api/v1"
STATS = (("avg", "average"), ("max", "maximum"), ("p95", "95th percentile"))


def capacity_counters(campaign: Campaign) -> list[str]:
    """Counter paths measured on the server hosts of the campaign's load-stepped runs."""
    found = (
        CounterSeries.objects.filter(
            host__role=Host.Role.SERVER, host__runs__campaign=campaign, host__runs__steps__isnull=False
        )
        .values_list("object", "instance", "counter")
        .distinct()
        .order_by("object", "instance", "counter")
    )
    paths = [CounterRef(*row).path for row in found]
    if DEFAULT_COUNTER in paths:
        paths.remove(DEFAULT_COUNTER)
    return [DEFAULT_COUNTER, *paths]


@login_required
def capacity(request: HttpRequest, slug: str) -> HttpResponse:
    found = visible_campaign(request, slug)
    counters = capacity_counters(found)
    params, sizing, problems = read_capacity(request.GET, counters)
    timings = placed_timing_names(found.pk)
    ux, ux_problems = read_ux(request.GET, timings)
    page = {
        "api": f"{API}/campaigns/{found.slug}/capacity",
        "sizing_api": f"{API}/campaigns/{found.slug}/sizing",
        "params": params,
        "dimensions": found.dimensions,
        "units": {path: counter_unit(path) for path in counters},
        "title": found.name,
    }
    fsct = has_fsct(found)
    if fsct:
        page["fsct_api"] = f"{API}/campaigns/{found.slug}/fsct"
    if ux is not None:
        # The user-experience section (headroom/ux.js) asks the capacity API with ``timing=``.
        page["ux"] = ux
        page["ux_timings"] = timings
    method = METHOD.format(trim=params["trim"], stat=params["stat"], threshold=params["threshold"])
    context = campaign_context(
        found,
        "capacity",
        counters=counters,
        stats=STATS,
        params=params,
        page=page,
        method=method,
        sizing=sizing,
        intervals=INTERVALS,
        problems=problems + ux_problems,
        ux=ux,
        ux_timings=timings,
        unit=counter_unit(params["counter"]),
        fsct=fsct,
        fsct_method=FSCT_METHOD,
    )
    return render(request, "dashboard/capacity.html", context)


def measured_scenarios(campaign: Campaign) -> list[Scenario]:
    """Scenarios with at least one result (timing or benchmark figure), in creation order."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT DISTINCT r.scenario_id FROM core_run r WHERE r.campaign_id = %s "
            "AND EXISTS (SELECT 1 FROM measurement m WHERE m.run_id = r.id)",
            [campaign.pk],
        )
        ids = [row[0] for row in cursor.fetchall()]
    return list(Scenario.objects.filter(pk__in=ids).order_by("pk"))


def campaign_metrics(campaign: Campaign) -> list[str]:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT DISTINCT m.metric FROM measurement m JOIN core_run r ON r.id = m.run_id "
            "WHERE r.campaign_id = %s ORDER BY 1",
            [campaign.pk],
        )
        return [row[0] for row in cursor.fetchall()]


def _groups(scenarios: list[Scenario]) -> list[tuple[str, list[Scenario]]]:
    """Scenarios grouped by their ``study`` dimension, for the baseline picker."""
    groups: dict[str, list[Scenario]] = {}
    for scenario in scenarios:
        groups.setdefault(scenario.dims.get("study", ""), []).append(scenario)
    return list(groups.items())


@login_required
def compare(request: HttpRequest, slug: str) -> HttpResponse:
    found = visible_campaign(request, slug)
    scenarios = measured_scenarios(found)
    metrics = campaign_metrics(found)
    ids = [s.pk for s in scenarios]
    wanted = request.GET.get("baseline", "")
    baseline = int(wanted) if wanted.isdigit() and int(wanted) in ids else (ids[0] if ids else None)
    metric = request.GET.get("metric", "")
    show = request.GET.get("show", "headline")
    page: dict[str, Any] = {
        "api": f"{API}/campaigns/{found.slug}/compare",
        "baseline": baseline,
        "metric": metric if metric in metrics else "",
    }
    context = campaign_context(
        found,
        "compare",
        groups=_groups(scenarios),
        metrics=metrics,
        page=page,
        baseline=baseline,
        metric_groups=GROUPS,
        show=show if show in (*GROUPS, "all") else "headline",
        phases_api=f"{API}/campaigns/{found.slug}/logon-phases",
    )
    return render(request, "dashboard/compare.html", context)


@login_required
def blocksize(request: HttpRequest, slug: str) -> HttpResponse:
    found = visible_campaign(request, slug)
    points = as_json(block_size_points(found))
    context = campaign_context(found, "blocksize", page={"points": points}, has_data=bool(points))
    return render(request, "dashboard/blocksize.html", context)


@login_required
def copies(request: HttpRequest, slug: str) -> HttpResponse:
    found = visible_campaign(request, slug)
    data = copy_comparison(found)
    context = campaign_context(found, "copies", page=data, has_data=bool(data["configurations"]))
    return render(request, "dashboard/copies.html", context)
