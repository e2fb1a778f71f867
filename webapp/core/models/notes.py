"""A note a member attaches to a campaign, one of its scenarios or one of its runs ("AV engine 1.2.3 installed").

Notes explain a change in the figures: they show on the series history chart
(per campaign), on the capacity page (beside their scenario's row) and in
share reports. A note always belongs to one campaign (a scenario's or run's
note to the campaign that holds it), so listing, permissions and deletion
follow the campaign's project.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models


class Note(models.Model):
    class Target(models.TextChoices):
        CAMPAIGN = "campaign"
        SCENARIO = "scenario"
        RUN = "run"

    project = models.ForeignKey("core.Project", on_delete=models.CASCADE, related_name="notes")
    campaign = models.ForeignKey("core.Campaign", on_delete=models.CASCADE, related_name="notes")
    target = models.CharField(max_length=16, choices=Target.choices, default=Target.CAMPAIGN)
    scenario = models.ForeignKey(
        "core.Scenario", null=True, blank=True, on_delete=models.CASCADE, related_name="notes"
    )
    run = models.ForeignKey("core.Run", null=True, blank=True, on_delete=models.CASCADE, related_name="notes")
    text = models.CharField(max_length=500)
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    # Who wrote it when no person did (an agent token's name).
    author_name = models.CharField(max_length=150, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "pk"]
        indexes = [models.Index(fields=["campaign", "created_at"])]

    def __str__(self) -> str:
        return self.text[:60]
