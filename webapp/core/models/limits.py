"""Resource limits: per campaign, the level of each server counter at which a resource is saturated.

In the spirit of PAL's threshold files: a small, editable table that says
which counter stands for which resource and where its limit lies. A campaign
without rows uses :data:`DEFAULT_LIMITS`; the admin's "write the default
limits" action copies them into rows to edit. ``docs/limits.md`` documents
the table.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.db import models

from webapp.core.models.campaigns import Campaign


class ResourceLimit(models.Model):
    class Resource(models.TextChoices):
        CPU = "cpu"
        DISK_LATENCY = "disk_latency"
        DISK_QUEUE = "disk_queue"
        MEMORY = "memory"
        NETWORK = "network"
        OVERLOAD = "overload"
        TIMING = "timing"

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="limits")
    resource = models.CharField(max_length=16, choices=Resource.choices)
    counter = models.CharField(
        max_length=255,
        blank=True,
        help_text="\\Object(Instance)\\Counter; instance * = each instance on its own (e.g. every disk). "
        "Empty for overload (FSCT's overload figure).",
    )
    above = models.BooleanField(
        default=True, help_text="saturated when the step average reaches the limit (off: falls to it)"
    )
    threshold = models.FloatField(
        help_text="the limit in the counter's unit (memory: the floor in MB; timing: the margin above "
        "the baseline in ms, unless factor is set)"
    )
    percent = models.FloatField(
        null=True,
        blank=True,
        help_text="network: % of the instance's Current Bandwidth; memory: % of the host's installed "
        "memory (attribute memory_mb), the floor when unknown",
    )
    timing = models.CharField(
        max_length=200,
        blank=True,
        help_text="timing: the timing's stored name, e.g. logon or profile.load_ms",
    )
    baseline = models.CharField(
        max_length=32,
        blank=True,
        default="first_step",
        help_text="timing: first_step (mean of the lowest user count) or lowest:N (mean of the N lowest)",
    )
    factor = models.FloatField(
        null=True,
        blank=True,
        help_text="timing: saturated at the baseline times this (instead of + threshold ms)",
    )
    enabled = models.BooleanField(default=True)
    note = models.CharField(max_length=255, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["campaign", "resource", "counter", "timing"], name="limit_unique_counter"
            )
        ]
        ordering = ["campaign", "resource", "counter"]

    def __str__(self) -> str:
        if self.resource == self.Resource.TIMING:
            return f"timing: {self.timing}"
        return f"{self.resource}: {self.counter or 'FSCT overload'}"

    @classmethod
    def write_defaults(cls, campaign: Campaign, extra: tuple[dict[str, Any], ...] = ()) -> int:
        """Copy :data:`DEFAULT_LIMITS` (and ``extra`` rows) into ``campaign``'s table; rows it has stay as
        they are. Returns how many were written."""
        written = 0
        for limit in (*DEFAULT_LIMITS, *extra):
            _, created = cls.objects.get_or_create(
                campaign=campaign,
                resource=limit["resource"],
                counter=limit["counter"],
                timing=limit.get("timing", ""),
                defaults=limit,
            )
            written += created
        return written

    def clean(self) -> None:
        """A timing row names its timing and has a usable baseline and margin; a counter row no timing."""
        errors: dict[str, str] = {}
        if self.resource != self.Resource.TIMING:
            if self.timing:
                errors["timing"] = "only a timing row names a timing"
        else:
            kind, _, count = (self.baseline or "first_step").partition(":")
            if not self.timing.strip():
                errors["timing"] = "a timing limit names its timing, e.g. logon"
            if self.counter:
                errors["counter"] = "a timing limit has no counter (the timing field names it)"
            if kind != "first_step" and (
                kind != "lowest" or not count.isdecimal() or not 1 <= int(count) <= 10_000
            ):
                errors["baseline"] = "first_step, or lowest:N with N from 1 to 10,000"
            if self.factor is not None and not self.factor > 0:
                errors["factor"] = "a positive number: saturated at the baseline times it"
            if self.factor is None and not (self.threshold or 0) > 0:
                errors["threshold"] = "the margin above the baseline in ms, a positive number"
        if errors:
            raise ValidationError(errors)


DEFAULT_LIMITS: tuple[dict[str, Any], ...] = (
    {"resource": "cpu", "counter": "\\Processor(_Total)\\% Processor Time", "above": True, "threshold": 80.0},
    {
        "resource": "disk_latency",
        "counter": "\\PhysicalDisk(*)\\Avg. Disk sec/Transfer",
        "above": True,
        "threshold": 0.020,
    },
    {
        "resource": "disk_queue",
        "counter": "\\PhysicalDisk(*)\\Avg. Disk Queue Length",
        "above": True,
        "threshold": 10.0,
    },
    {
        "resource": "memory",
        "counter": "\\Memory\\Available MBytes",
        "above": False,
        "threshold": 512.0,
        "percent": 10.0,
    },
    {
        "resource": "network",
        "counter": "\\Network Interface(*)\\Bytes Total/sec",
        "above": True,
        "threshold": 0.0,
        "percent": 70.0,
    },
    {"resource": "overload", "counter": "", "above": True, "threshold": 0.0},
)
