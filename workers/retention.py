"""Retention: raw counter samples expire ``HEADROOM_RETENTION_DAYS`` after they were stored.

Age is counted from when an upload was last stored (``finished_at``), not from
the samples' own timestamps: test results are often uploaded years after they
were recorded (the demo campaign is from 2015), and a policy by timestamp would
drop them the moment they arrive. Only counter samples expire -- they are the
bulk; results (``measurement``: timings, DiskSpd, fio, robocopy figures) are
small and kept. The raw bytes are kept too, so re-parsing an expired upload
brings its samples back (and restarts its clock).

Each upload expires in its own transaction: its samples are deleted, the time
range they covered is marked dirty so the one-minute rollups follow (in both
modes the rollup table ends up equal to the raw samples that remain), ``rows`` becomes what is still stored, and
``raw_expired_at`` records when. Every view that reads samples says so
(``webapp.analysis.expiry``) instead of silently showing less.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone

from webapp.core.models import Upload
from webapp.timeseries import backend
from webapp.timeseries import samples as stored_samples
from webapp.timeseries.models import RollupDirty

log = logging.getLogger(__name__)

BATCH = 200


def horizon(now: datetime | None = None) -> datetime | None:
    """Uploads stored before this lose their raw samples; None when retention is off."""
    days = settings.TIMESCALE_RETENTION_DAYS
    return None if not days else (now or timezone.now()) - timedelta(days=days)


def due(now: datetime | None = None) -> list[int]:
    limit = horizon(now)
    if limit is None:
        return []
    return list(
        Upload.objects.filter(
            status=Upload.Status.STORED,
            raw_expired_at__isnull=True,
            finished_at__lt=limit,
            host__isnull=False,
        )
        .order_by("finished_at", "pk")
        .values_list("pk", flat=True)[:BATCH]
    )


def expire_upload(upload_id: int, now: datetime | None = None) -> int:
    """Delete one stored upload's counter samples; return how many went."""
    when = now or timezone.now()
    with transaction.atomic():
        backend.allow_unbounded_decompression()
        removed, span = stored_samples.delete_upload(upload_id)
        with connection.cursor() as cursor:
            cursor.execute("SELECT count(*) FROM measurement WHERE upload_id = %s", [upload_id])
            (kept,) = cursor.fetchone()
        if span is not None:
            RollupDirty.objects.create(start=span[0], end=span[1])
        Upload.objects.filter(pk=upload_id).update(raw_expired_at=when, rows=kept)
    return int(removed)


def expire_due(now: datetime | None = None) -> tuple[int, int]:
    """Expire every upload that is due; (uploads, samples removed)."""
    uploads = samples = 0
    while batch := due(now):
        for upload_id in batch:
            samples += expire_upload(upload_id, now)
            uploads += 1
    if uploads:
        log.info("retention: raw samples of %s upload(s) expired (%s samples)", uploads, samples)
    return uploads, samples
