"""A series: the same study run again (after a patch, an AV update, a new array), campaign after campaign.

Campaigns join a series with an ordering label (``Campaign.series_key``: a date,
a build, a version); scenarios match across them by their dimensions. The
series' baseline is a pinned campaign, or each campaign's predecessor when
none is pinned. Slugs are global, like campaign slugs: every URL names one.
"""

from __future__ import annotations

from django.db import models


class Series(models.Model):
    project = models.ForeignKey("core.Project", on_delete=models.CASCADE, related_name="series")
    slug = models.SlugField(max_length=64, unique=True)
    name = models.CharField(max_length=200)
    # The campaign every other is compared with; null: each with the one before it.
    baseline = models.ForeignKey(
        "core.Campaign", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["slug"]
        verbose_name_plural = "series"

    def __str__(self) -> str:
        return self.name
