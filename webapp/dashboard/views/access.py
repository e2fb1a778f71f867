"""Which projects and campaigns the signed-in user may see, and the context every campaign page shares."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from django.http import Http404, HttpRequest

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


def campaign_context(campaign: Campaign, section: str, **extra: Any) -> dict[str, Any]:
    """What base.html's campaign navigation needs (the campaign, the page's section), plus the page's values."""
    return {"campaign": campaign, "section": section, **extra}
