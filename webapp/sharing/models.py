"""A share link: an unguessable token (192 bits, stored as a SHA-256 digest) for one view of one campaign.

A "series history" link is made from a campaign of a series and shows the
series it belongs to: the other campaigns of that series (same project) are
part of that one view, and nothing beyond them.

The view and its filters are frozen when the link is made; the link can
expire and be revoked; each opening is counted.
"""

from __future__ import annotations

import hashlib
import secrets
from typing import Any

from django.conf import settings
from django.db import models
from django.db.models import F
from django.utils import timezone

from webapp.core.models import Campaign

TOKEN_PREFIX = "hs_"
# A new link expires after this many days unless its maker chooses otherwise (0 = never).
DEFAULT_EXPIRY_DAYS = 30


def digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class ShareLink(models.Model):
    class View(models.TextChoices):
        OVERVIEW = "overview", "campaign overview"
        CAPACITY = "capacity", "capacity planner"
        COMPARE = "compare", "scenario comparison"
        BLOCKSIZE = "blocksize", "block-size throughput"
        COPIES = "copies", "copy comparison"
        TRACES = "traces", "trace explorer"
        HISTORY = "history", "series history"

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="share_links")
    view = models.CharField(max_length=16, choices=View.choices, default=View.OVERVIEW)
    filters = models.JSONField(default=dict, blank=True, help_text="frozen when the link was made")
    label = models.CharField(max_length=120, blank=True)
    digest = models.CharField(max_length=64, unique=True, editable=False)
    hint = models.CharField(max_length=12, editable=False)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)
    view_count = models.PositiveIntegerField(default=0)
    last_viewed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.get_view_display()} of {self.campaign} ({self.hint}...)"

    @classmethod
    def issue(
        cls, campaign: Campaign, view: str, filters: dict[str, Any], **fields: Any
    ) -> tuple[ShareLink, str]:
        plain = TOKEN_PREFIX + secrets.token_urlsafe(24)
        link = cls.objects.create(
            campaign=campaign, view=view, filters=filters, digest=digest(plain), hint=plain[:8], **fields
        )
        return link, plain

    @classmethod
    def find(cls, plain: str) -> ShareLink | None:
        if not plain.startswith(TOKEN_PREFIX) or len(plain) > 64:
            return None
        return cls.objects.select_related("campaign").filter(digest=digest(plain)).first()

    @property
    def state(self) -> str:
        if self.revoked_at is not None:
            return "revoked"
        if self.expires_at is not None and self.expires_at <= timezone.now():
            return "expired"
        return "active"

    def record_view(self) -> None:
        now = timezone.now()
        ShareLink.objects.filter(pk=self.pk).update(view_count=F("view_count") + 1, last_viewed_at=now)
