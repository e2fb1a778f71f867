"""Hosts (test machines), runs (one test execution) and their load-step timeline."""

from __future__ import annotations

from django.db import models

from webapp.core import inventory
from webapp.core.models.campaigns import Campaign, Scenario
from webapp.core.models.tenancy import Project


class Host(models.Model):
    class Role(models.TextChoices):
        CLIENT = "client"
        SERVER = "server"

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="hosts")
    name = models.CharField(max_length=255)
    role = models.CharField(max_length=8, choices=Role.choices, default=Role.CLIENT)
    os = models.CharField(max_length=128, blank=True)
    attributes = models.JSONField(default=dict, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["project", "name"], name="host_unique_name")]
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    @property
    def summary(self) -> str:
        """``"2 vCPU, 4 GB"`` from the recorded inventory (``webapp.core.inventory``)."""
        return inventory.summary(self.attributes)

    @property
    def description(self) -> str:
        """The whole recorded inventory in one line."""
        return inventory.description(self.attributes)


class Run(models.Model):
    """One test execution of one scenario. Uploads naming the same run share it."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="runs")
    scenario = models.ForeignKey(Scenario, on_delete=models.CASCADE, related_name="runs")
    name = models.CharField(max_length=200)
    tool = models.CharField(max_length=64, blank=True)
    hosts = models.ManyToManyField(Host, related_name="runs", blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    ended_at = models.DateTimeField(null=True, blank=True)
    attributes = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["campaign", "name"], name="run_unique_name")]
        ordering = ["campaign", "name"]

    def __str__(self) -> str:
        return self.name


class RunStep(models.Model):
    """A load step: ``users`` active between ``started_at`` and ``ended_at``."""

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="steps")
    users = models.PositiveIntegerField()
    started_at = models.DateTimeField()
    ended_at = models.DateTimeField(null=True, blank=True, help_text="empty while the step is running")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["run", "users", "started_at"], name="runstep_unique"),
            models.CheckConstraint(
                condition=models.Q(ended_at__isnull=True) | models.Q(ended_at__gt=models.F("started_at")),
                name="runstep_positive",
            ),
        ]
        ordering = ["run", "started_at"]

    def __str__(self) -> str:
        return f"{self.users} users"
