"""The Celery app. Kept tiny: all configuration lives in webapp/settings.py."""

from __future__ import annotations

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "webapp.settings")

app = Celery("headroom")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks(["workers", "webapp.notify"])

from workers.heartbeat import HeartbeatStep  # noqa: E402  (needs the app)

app.steps["worker"].add(HeartbeatStep)
