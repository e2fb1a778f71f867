"""Uploads: one raw artifact and the status of its normalisation.

A status column drives the pipeline (received -> queued -> parsing ->
stored | failed); a worker claims an upload with a conditional update that
must change exactly one row (``workers/ingest.py``).
"""

from __future__ import annotations

from django.db import models

from webapp.core.models.campaigns import Campaign, Scenario
from webapp.core.models.hosts import Host, Run
from webapp.core.models.tokens import AgentToken


class Upload(models.Model):
    class Status(models.TextChoices):
        RECEIVED = "received"
        QUEUED = "queued"
        PARSING = "parsing"
        STORED = "stored"
        FAILED = "failed"

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="uploads")
    scenario = models.ForeignKey(Scenario, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    run = models.ForeignKey(Run, null=True, blank=True, on_delete=models.SET_NULL, related_name="uploads")
    host = models.ForeignKey(Host, null=True, blank=True, on_delete=models.SET_NULL, related_name="uploads")
    role = models.CharField(max_length=8, choices=Host.Role.choices, default=Host.Role.CLIENT)
    step_users = models.PositiveIntegerField(null=True, blank=True)
    timezone = models.CharField(max_length=64, blank=True)
    extra = models.JSONField(default=dict, blank=True)

    # The raw artifact. ``filename`` is display-only; the bytes live under
    # ``storage_key`` (derived from the digest, never from user input).
    filename = models.CharField(max_length=255, blank=True)
    sha256 = models.CharField(max_length=64)
    size = models.BigIntegerField()
    storage_key = models.CharField(max_length=200)

    kind = models.CharField(max_length=32, default="auto", help_text="requested parser or 'auto'")
    parser = models.CharField(max_length=32, blank=True, help_text="the parser that ran")
    encoding = models.CharField(max_length=32, blank=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.RECEIVED, db_index=True)
    error = models.JSONField(null=True, blank=True)
    rows = models.BigIntegerField(default=0)
    attempts = models.PositiveIntegerField(default=0)
    claimed_by = models.CharField(max_length=64, blank=True, help_text="task id holding the claim")

    token = models.ForeignKey(AgentToken, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    received_at = models.DateTimeField(auto_now_add=True)
    queued_at = models.DateTimeField(null=True, blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    raw_expired_at = models.DateTimeField(
        null=True, blank=True, help_text="when retention removed its counter samples (re-parse restores them)"
    )

    class Meta:
        # The same bytes from another machine are another result (a fleet's clients run one
        # test and may report identical files); from the same machine, a duplicate.
        constraints = [
            models.UniqueConstraint(
                fields=["campaign", "sha256", "host"],
                nulls_distinct=False,
                name="upload_unique_bytes_per_host",
            )
        ]
        ordering = ["-received_at"]

    def __str__(self) -> str:
        return f"upload {self.pk} ({self.filename or self.sha256[:12]})"
