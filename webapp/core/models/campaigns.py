"""Campaigns (one study) and their scenarios (one combination of dimension values)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping

from django.db import models

from webapp.core.models.tenancy import Project

# First-class scenario dimensions, in display order. Anything else is an extra.
DIMENSIONS: tuple[str, ...] = (
    "server_os",
    "smb_dialect",
    "disk_type",
    "av",
    "ca_share",
    "power_profile",
    "redirection",
    "server_cpu_load",
)
# What readers are shown for them; an extra dimension reads as its name with spaces.
DIMENSION_LABELS = {
    "server_os": "Server OS",
    "smb_dialect": "SMB dialect",
    "disk_type": "Disk type (HDD/SSD)",
    "av": "Anti-virus",
    "ca_share": "Continuously available share",
    "power_profile": "Power profile",
    "redirection": "Folder redirection",
    "server_cpu_load": "File-server CPU load",
}


def dimension_label(key: str) -> str:
    return DIMENSION_LABELS.get(key) or key.replace("_", " ")


class Campaign(models.Model):
    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="campaigns")
    slug = models.SlugField(max_length=64, unique=True)
    name = models.CharField(max_length=200)
    description = models.TextField(blank=True)
    # The dimension keys this study varies, in the order the views group by.
    dimensions = models.JSONField(default=list, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    # The series this campaign repeats, and where it stands in it ("2026-11", "build 4711").
    series = models.ForeignKey(
        "core.Series", null=True, blank=True, on_delete=models.SET_NULL, related_name="campaigns"
    )
    series_key = models.CharField(max_length=100, blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return self.name


def normalise_dims(dims: Mapping[str, object] | None) -> dict[str, str]:
    """Dimension values as trimmed strings, empty values dropped, keys sorted."""
    if not dims:
        return {}
    return {str(k).strip(): str(v).strip() for k, v in sorted(dims.items()) if str(v).strip() != ""}


def dims_key(dims: Mapping[str, str]) -> str:
    """A stable identity for a set of dimension values (the scenario's natural key)."""
    canonical = json.dumps(normalise_dims(dims), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()[:32]


class Scenario(models.Model):
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="scenarios")
    key = models.CharField(max_length=32, help_text="hash of all dimension values")
    server_os = models.CharField(max_length=64, blank=True)
    smb_dialect = models.CharField(max_length=16, blank=True)
    disk_type = models.CharField(max_length=32, blank=True)
    av = models.CharField(max_length=32, blank=True)
    ca_share = models.CharField(max_length=16, blank=True)
    power_profile = models.CharField(max_length=32, blank=True)
    redirection = models.CharField(max_length=64, blank=True)
    server_cpu_load = models.CharField(max_length=16, blank=True)
    extras = models.JSONField(default=dict, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["campaign", "key"], name="scenario_unique_dims")]
        ordering = ["id"]

    def __str__(self) -> str:
        return self.label

    @property
    def dims(self) -> dict[str, str]:
        values = {name: getattr(self, name) for name in DIMENSIONS if getattr(self, name)}
        values.update(self.extras or {})
        return values

    @property
    def label(self) -> str:
        dims = self.dims
        return ", ".join(f"{k}={v}" for k, v in dims.items()) or "(no dimensions)"

    @classmethod
    def for_dims(cls, campaign: Campaign, dims: Mapping[str, object] | None) -> Scenario:
        """Get or create the scenario with exactly these dimension values."""
        clean = normalise_dims(dims)
        first_class = {k: v for k, v in clean.items() if k in DIMENSIONS}
        extras = {k: v for k, v in clean.items() if k not in DIMENSIONS}
        scenario, _ = cls.objects.get_or_create(
            campaign=campaign,
            key=dims_key(clean),
            defaults={**first_class, "extras": extras},
        )
        return scenario
