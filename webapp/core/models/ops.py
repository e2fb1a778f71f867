"""Operational state the health endpoint reads."""

from __future__ import annotations

from django.db import models


class WorkerHeartbeat(models.Model):
    """Written by every Celery worker every few seconds (workers/heartbeat.py)."""

    hostname = models.CharField(max_length=255, primary_key=True)
    seen_at = models.DateTimeField()

    def __str__(self) -> str:
        return f"{self.hostname} at {self.seen_at:%H:%M:%S}"
