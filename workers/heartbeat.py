"""A worker bootstep that records "this worker is alive" in the database.

The health endpoint reads it. Writing to the database (rather than asking the
broker) works the same with Redis and with the embedded filesystem broker.
"""

from __future__ import annotations

import logging
import socket
from typing import Any

from celery import bootsteps
from django.conf import settings

log = logging.getLogger(__name__)


def beat_once(hostname: str) -> None:
    from django.db import connection
    from django.utils import timezone

    from webapp.core.models import WorkerHeartbeat

    try:
        WorkerHeartbeat.objects.update_or_create(hostname=hostname, defaults={"seen_at": timezone.now()})
    except Exception:
        # A database outage must not kill the worker; the missing heartbeat
        # is exactly what the health endpoint then reports.
        log.warning("could not record worker heartbeat", exc_info=True)
        connection.close()


class HeartbeatStep(bootsteps.StartStopStep):
    requires = ("celery.worker.components:Timer",)

    def __init__(self, parent: Any, **kwargs: Any) -> None:
        super().__init__(parent, **kwargs)
        self.tref: Any = None
        self.hostname = getattr(parent, "hostname", None) or socket.gethostname()

    def start(self, parent: Any) -> None:
        beat_once(self.hostname)
        self.tref = parent.timer.call_repeatedly(
            settings.WORKER_HEARTBEAT_SECONDS, beat_once, (self.hostname,)
        )

    def stop(self, parent: Any) -> None:
        if self.tref is not None:
            self.tref.cancel()
            self.tref = None
