"""Making, listing and revoking share links (members), and the public read-only page.

Guessing is limited without locking anyone out: only unknown tokens count
against the caller's address (``ratelimit.client_address``), and a valid token
always opens, even from an address that was refused for guessing. A new link's
URL is shown once, and is never readable from the session alone
(``webapp.accounts.once``).
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, QueryDict
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.http import require_POST

from webapp.accounts import once
from webapp.accounts.roles import project_for
from webapp.analysis.timing_steps import placed_timing_names
from webapp.api import ratelimit
from webapp.core.creation import unsafe_character
from webapp.core.models import Campaign, Membership, Scenario
from webapp.sharing import report
from webapp.sharing.history import history_filters
from webapp.sharing.models import DEFAULT_EXPIRY_DAYS, ShareLink
from webapp.sharing.traces import traces_filters

# Longest expiry a link may be given (a larger number of days overflows the date).
MAX_EXPIRY_DAYS = 3650


def _editable_campaign(request: HttpRequest, slug: str) -> Campaign:
    campaign = Campaign.objects.filter(slug=slug).select_related("project").first()
    if campaign is None:
        raise Http404("campaign not found")
    project_for(request.user, campaign.project.slug, at_least=Membership.Role.EDITOR)
    return campaign


def _filters(request: HttpRequest, campaign: Campaign, view: str) -> dict[str, Any]:
    """The view's filters to freeze into the link, validated.

    They come from the form's fields, or from ``query``: the address of the
    page the link was made on ("Share this view"), whose every filter is kept.
    """
    raw: dict[str, Any] = dict(QueryDict(request.POST.get("query", "").lstrip("?")[:4000]).items())
    raw.update(
        (k, v) for k, v in request.POST.items() if v != "" and k not in ("query", "csrfmiddlewaretoken")
    )
    if view == ShareLink.View.CAPACITY:
        try:
            filters = report.capacity_filters(raw)
        except ValueError as exc:
            raise ValueError(f"cannot share these capacity filters: {exc}") from None
        if "timing" in filters and filters["timing"] not in placed_timing_names(campaign.pk):
            raise ValueError(
                f"cannot share these capacity filters: timing {filters['timing'][:120]!r} is not a timing of "
                "this campaign placed on load steps"
            )
        return filters
    if view == ShareLink.View.COMPARE:
        baseline = Scenario.objects.filter(campaign=campaign, pk=_whole(raw.get("baseline"))).first()
        if baseline is None:
            raise ValueError("a comparison link needs a baseline scenario of this campaign")
        return {**report.compare_filters(raw), "baseline": baseline.pk}
    if view == ShareLink.View.TRACES:
        return traces_filters(campaign, raw)
    if view == ShareLink.View.HISTORY:
        # The baseline is the series' own now; the link keeps it even if the series is re-pinned later.
        series = campaign.series
        pinned = series.baseline.slug if series is not None and series.baseline is not None else ""
        return history_filters(campaign, raw, baseline=pinned)
    return {}


def _whole(text: str | None) -> int:
    return int(text) if text and text.isdigit() and len(text) < 19 else 0


def _expiry_days(request: HttpRequest) -> int:
    text = request.POST.get("expires_in_days", "").strip() or str(DEFAULT_EXPIRY_DAYS)
    try:
        days = int(text)
    except ValueError:
        raise ValueError(f"expiry must be a whole number of days, not {text[:20]!r}") from None
    if not 0 <= days <= MAX_EXPIRY_DAYS:
        raise ValueError(f"expiry must be from 0 (never) to {MAX_EXPIRY_DAYS} days")
    return days


@login_required
@require_POST
def create(request: HttpRequest, slug: str) -> HttpResponse:
    campaign = _editable_campaign(request, slug)
    view = request.POST.get("view", ShareLink.View.OVERVIEW)
    if view not in ShareLink.View.values:
        messages.error(request, f"unknown view {view!r}")
        return redirect("sharing:list", slug=slug)
    label = request.POST.get("label", "")[:120]
    try:
        filters = _filters(request, campaign, view)
        days = _expiry_days(request)
        problem = unsafe_character(label, "the label")
        if problem:
            raise ValueError(problem)
    except ValueError as exc:
        messages.error(request, str(exc))
        return redirect("sharing:list", slug=slug)
    expires = timezone.now() + timedelta(days=days) if days > 0 else None
    _, plain = ShareLink.issue(
        campaign, view, filters, label=label, created_by=request.user, expires_at=expires
    )
    # Only the digest is stored; the URL is shown once on the next page (webapp/accounts/once.py).
    response = redirect("sharing:list", slug=slug)
    once.keep(request, response, "share", request.build_absolute_uri(f"/s/{plain}/"), response["Location"])
    return response


@login_required
def listing(request: HttpRequest, slug: str) -> HttpResponse:
    campaign = _editable_campaign(request, slug)
    context = {
        "campaign": campaign,
        "links": campaign.share_links.select_related("created_by"),
        "scenarios": campaign.scenarios.all(),
        "new_url": once.take(request, "share"),
    }
    return once.shown(render(request, "sharing/links.html", context), "share", request.path)


@login_required
@require_POST
def revoke(request: HttpRequest, slug: str, link_id: int) -> HttpResponse:
    campaign = _editable_campaign(request, slug)
    link = campaign.share_links.filter(pk=link_id).first()
    if link is None:
        raise Http404("share link not found")
    if link.revoked_at is None:
        link.revoked_at = timezone.now()
        link.save(update_fields=["revoked_at"])
    messages.success(request, "Link revoked: it now shows a 'revoked' page and no data.")
    return redirect("sharing:list", slug=slug)


def shared(request: HttpRequest, token: str) -> HttpResponse:
    """The public page. Never reveals anything beyond the link's own campaign and view."""
    link = ShareLink.find(token)
    if link is None:
        address = ratelimit.client_address(request)
        wait = ratelimit.hit("share-miss", address, settings.SHARE_MISSES_PER_MINUTE, 60)
        if wait is not None:
            response = render(request, "sharing/gone.html", {"reason": "too_many"}, status=429)
            response["Retry-After"] = str(wait)
            return response
        return render(request, "sharing/gone.html", {"reason": "invalid"}, status=404)
    if link.state != "active":
        return render(request, "sharing/gone.html", {"reason": link.state}, status=410)
    try:
        context = report.build(link)
    except ValueError as exc:
        # Frozen before the filters were checked as the API checks them.
        context = {"reason": "bad_filters", "problem": str(exc)}
        return render(request, "sharing/gone.html", context, status=422)
    link.record_view()
    response = render(request, "sharing/report.html", context)
    response["X-Robots-Tag"] = "noindex, nofollow"
    response["Referrer-Policy"] = "no-referrer"
    response["Cache-Control"] = "private, no-store"
    return response
