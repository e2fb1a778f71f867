"""A series' history page, pinning its baseline, and notes on a campaign, its scenarios and runs.

The history page draws from ``GET /api/v1/series/{slug}/history`` in the
browser, with the capacity page's parameters (counter, statistic, threshold,
trim) read from its address by the same rules. Owners and editors pin the
baseline (or choose "previous") and add or remove notes with plain forms.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from webapp.accounts.roles import project_for, role_in
from webapp.analysis.counters import DEFAULT_COUNTER
from webapp.analysis.history import ordered_campaigns
from webapp.api.analysis import INTERVALS, METHOD
from webapp.core import creation
from webapp.core.models import Campaign, Membership, Note, Series
from webapp.core.notes import add_note
from webapp.dashboard.views.access import visible_campaign, visible_projects
from webapp.dashboard.views.analysis import API, STATS, capacity_counters
from webapp.dashboard.views.capacity_params import counter_unit, read_capacity


def visible_series(request: HttpRequest, slug: str) -> Series:
    series = Series.objects.filter(slug=slug, project__in=visible_projects(request)).first()
    if series is None:
        raise Http404("series not found")
    return series


def may_edit(request: HttpRequest, series: Series) -> bool:
    return role_in(request.user, series.project) in (Membership.Role.OWNER, Membership.Role.EDITOR)


@login_required
def series_history(request: HttpRequest, slug: str) -> HttpResponse:
    series = visible_series(request, slug)
    campaigns = ordered_campaigns(series)
    counters: list[str] = []
    for campaign in campaigns:
        counters += [path for path in capacity_counters(campaign) if path not in counters]
    params, _, problems = read_capacity(request.GET, counters or [DEFAULT_COUNTER])
    page = {
        "api": f"{API}/series/{series.slug}/history",
        "params": params,
        "series": series.slug,
        "campaign_urls": {c.slug: f"/campaigns/{c.slug}/" for c in campaigns},
    }
    context = {
        "series": series,
        "campaigns": campaigns,
        "latest": campaigns[-1] if campaigns else None,
        "counters": counters,
        "stats": STATS,
        "params": params,
        "problems": problems,
        "unit": counter_unit(params["counter"]),
        "method": METHOD.format(trim=params["trim"], stat=params["stat"], threshold=params["threshold"]),
        "intervals": INTERVALS,
        "editor": may_edit(request, series),
        "page": page,
    }
    return render(request, "dashboard/series_history.html", context)


@login_required
@require_POST
def series_baseline(request: HttpRequest, slug: str) -> HttpResponse:
    series = visible_series(request, slug)
    project_for(request.user, series.project.slug, at_least=Membership.Role.EDITOR)
    try:
        creation.pin_baseline(series, request.POST.get("baseline", ""))
    except creation.Refused as exc:
        messages.error(request, exc.message)
    else:
        chosen = series.baseline.name if series.baseline else "the campaign before each"
        messages.success(request, f"Each campaign is now compared with {chosen}.")
    query = request.POST.get("query", "").lstrip("?")[:2000]
    return redirect(f"/series/{series.slug}/history/" + (f"?{query}" if query else ""))


def _editable(request: HttpRequest, slug: str) -> Campaign:
    campaign = visible_campaign(request, slug)
    project_for(request.user, campaign.project.slug, at_least=Membership.Role.EDITOR)
    return campaign


def _target(text: str, kind: str) -> int | None:
    """The id of the form's target when it is a ``kind`` (``scenario:<id>``, ``run:<id>``); else None."""
    named, _, number = text.partition(":")
    return int(number) if named == kind and number.isdigit() and len(number) < 19 else None


@login_required
@require_POST
def add_campaign_note(request: HttpRequest, slug: str) -> HttpResponse:
    campaign = _editable(request, slug)
    try:
        target = request.POST.get("target", "")
        add_note(
            campaign,
            request.POST.get("text", ""),
            scenario=_target(target, "scenario"),
            run=_target(target, "run"),
            author=request.user,
        )
    except creation.Refused as exc:
        messages.error(request, f"Note not added: {exc.message}")
    else:
        messages.success(request, "Note added.")
    return redirect(f"/campaigns/{campaign.slug}/#notes")


@login_required
@require_POST
def delete_campaign_note(request: HttpRequest, slug: str, note_id: int) -> HttpResponse:
    campaign = _editable(request, slug)
    deleted, _ = Note.objects.filter(campaign=campaign, pk=note_id).delete()
    if not deleted:
        raise Http404("note not found")
    messages.success(request, "Note removed.")
    return redirect(f"/campaigns/{campaign.slug}/#notes")
