"""Making, listing and revoking share links (members), and the public read-only page."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.cache import cache
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.http import require_POST

from webapp.accounts.roles import project_for
from webapp.core.models import Campaign, Membership, Scenario
from webapp.sharing import report
from webapp.sharing.models import ShareLink

MISSES_PER_MINUTE = 20


def _editable_campaign(request: HttpRequest, slug: str) -> Campaign:
    campaign = Campaign.objects.filter(slug=slug).select_related("project").first()
    if campaign is None:
        raise Http404("campaign not found")
    project_for(request.user, campaign.project.slug, at_least=Membership.Role.EDITOR)
    return campaign


def _filters(request: HttpRequest, campaign: Campaign, view: str) -> dict[str, Any]:
    """The view's filters from the form, validated, to freeze into the link."""
    if view == ShareLink.View.CAPACITY:
        raw = {k: request.POST[k] for k in report.CAPACITY_DEFAULTS if request.POST.get(k, "") != ""}
        try:
            return report.capacity_filters(raw)
        except ValueError as exc:
            raise ValueError(f"cannot share these capacity filters: {exc}") from None
    if view == ShareLink.View.COMPARE:
        baseline = Scenario.objects.filter(campaign=campaign, pk=request.POST.get("baseline") or 0).first()
        if baseline is None:
            raise ValueError("a comparison link needs a baseline scenario of this campaign")
        return {"baseline": baseline.pk, "metric": request.POST.get("metric", "")}
    return {}


@login_required
@require_POST
def create(request: HttpRequest, slug: str) -> HttpResponse:
    campaign = _editable_campaign(request, slug)
    view = request.POST.get("view", ShareLink.View.OVERVIEW)
    if view not in ShareLink.View.values:
        messages.error(request, f"unknown view {view!r}")
        return redirect("sharing:list", slug=slug)
    try:
        filters = _filters(request, campaign, view)
        days = int(request.POST.get("expires_in_days") or 0)
    except ValueError as exc:
        messages.error(request, str(exc))
        return redirect("sharing:list", slug=slug)
    expires = timezone.now() + timedelta(days=days) if days > 0 else None
    _, plain = ShareLink.issue(
        campaign,
        view,
        filters,
        label=request.POST.get("label", "")[:120],
        created_by=request.user,
        expires_at=expires,
    )
    # Shown once on the next page: only the digest is stored.
    request.session["new_share_url"] = request.build_absolute_uri(f"/s/{plain}/")
    return redirect("sharing:list", slug=slug)


@login_required
def listing(request: HttpRequest, slug: str) -> HttpResponse:
    campaign = _editable_campaign(request, slug)
    context = {
        "campaign": campaign,
        "links": campaign.share_links.select_related("created_by"),
        "scenarios": campaign.scenarios.all(),
        "new_url": request.session.pop("new_share_url", None),
    }
    return render(request, "sharing/links.html", context)


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


def _client_ip(request: HttpRequest) -> str:
    return str(request.META.get("REMOTE_ADDR", "unknown"))


def shared(request: HttpRequest, token: str) -> HttpResponse:
    """The public page. Never reveals anything beyond the link's own campaign and view."""
    key = f"share-miss:{_client_ip(request)}"
    if (cache.get(key) or 0) >= MISSES_PER_MINUTE:
        response = render(request, "sharing/gone.html", {"reason": "too_many"}, status=429)
        response["Retry-After"] = "60"
        return response
    link = ShareLink.find(token)
    if link is None:
        cache.add(key, 0, timeout=60)
        cache.incr(key)
        return render(request, "sharing/gone.html", {"reason": "invalid"}, status=404)
    if link.state != "active":
        return render(request, "sharing/gone.html", {"reason": link.state}, status=410)
    link.record_view()
    context = report.build(link)
    context["chart_data"] = [
        {
            "label": s["label"],
            "users": s["saturation_users"],
            "bound": s["bound"],
            # "> N": draw the bar at the last step measured, marked as not reached.
            "shown": s["saturation_users"] or max((step["users"] for step in s["steps"]), default=None),
        }
        for s in context.get("capacity", {}).get("scenarios", [])
    ]
    response = render(request, "sharing/report.html", context)
    response["X-Robots-Tag"] = "noindex, nofollow"
    response["Referrer-Policy"] = "no-referrer"
    response["Cache-Control"] = "private, no-store"
    return response
