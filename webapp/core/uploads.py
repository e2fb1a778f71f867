"""Accepting uploads: the one way raw data enters Headroom.

The upload API, the live-samples and timings endpoints, the demo campaign and
campaign import all call ``accept``: the raw bytes are already in the raw
store, this records the upload (or finds the existing one with the same bytes
in the same campaign) and queues it once the transaction commits. If the
broker is down the upload stays ``received`` and the sweeper queues it later.
"""

from __future__ import annotations

import logging
from contextlib import nullcontext

from celery import current_app
from django.db import IntegrityError, connection, transaction

from webapp.core import placements, resubmit
from webapp.core.models import AgentToken, Campaign, Upload
from webapp.core.rawstore import StoredRaw
from webapp.core.upload_meta import UploadMeta

log = logging.getLogger(__name__)

# Sent by name (the workers' ``workers.tasks.ingest_upload``): webapp.core never imports the workers.
INGEST_TASK = "workers.tasks.ingest_upload"


def accept(
    campaign: Campaign, raw: StoredRaw, meta: UploadMeta, *, token: AgentToken | None = None
) -> tuple[Upload, bool]:
    """Record an upload of ``raw`` and queue it. Returns ``(upload, duplicate)``.

    The API's hot path: with its placement remembered (``placements``) a new
    upload costs one INSERT; the same bytes again from the same host are found by
    the unique constraint on ``(campaign, sha256, host)``. A failed upload sent again with
    other metadata is reopened and queued instead (``resubmit``).
    """
    remembered = placements.is_remembered(campaign, meta)
    if not remembered and (existing := _existing(campaign, raw, meta)) is not None:
        return _again(campaign, existing, meta)
    try:
        upload = _insert(campaign, raw, meta, token)
    except IntegrityError:
        if (existing := _existing(campaign, raw, meta)) is not None:  # the same bytes, maybe concurrently
            return _again(campaign, existing, meta)
        if not remembered:
            raise
        placements.forget(campaign, meta)  # a remembered row was deleted (another thread may forget too)
        upload = _insert(campaign, raw, meta, token)
    transaction.on_commit(lambda: enqueue(upload.pk))
    return upload, False


def _insert(campaign: Campaign, raw: StoredRaw, meta: UploadMeta, token: AgentToken | None) -> Upload:
    placement = placements.place(campaign, meta)
    # One statement in autocommit; a savepoint inside a caller's transaction.
    with transaction.atomic() if connection.in_atomic_block else nullcontext():
        return Upload.objects.create(
            campaign=campaign,
            scenario_id=placement.scenario_id,
            run_id=placement.run_id,
            host_id=placement.host_id,
            role=meta.role,
            step_users=meta.step,
            timezone=meta.timezone,
            extra=dict(meta.extra),
            filename=meta.filename[:255],
            sha256=raw.sha256,
            size=raw.size,
            storage_key=raw.key,
            kind=meta.kind or "auto",
            token=token,
        )


def _again(campaign: Campaign, existing: Upload, meta: UploadMeta) -> tuple[Upload, bool]:
    """The same bytes again: a duplicate, unless a failed upload gets new metadata to try."""
    if not resubmit.reopen(campaign, existing, meta):
        return existing, True
    transaction.on_commit(lambda: enqueue(existing.pk))
    return existing, False


def _existing(campaign: Campaign, raw: StoredRaw, meta: UploadMeta) -> Upload | None:
    """The upload of these bytes from the same machine (``upload_unique_bytes_per_host``)."""
    found = Upload.objects.filter(campaign=campaign, sha256=raw.sha256)
    found = found.filter(host__name=meta.host) if meta.host else found.filter(host__isnull=True)
    return found.first()


def enqueue(upload_id: int) -> bool:
    """Send the ingest task; mark the upload queued. False if the broker is unreachable."""
    try:
        current_app.send_task(INGEST_TASK, (upload_id,))
    except Exception as exc:  # kombu raises many types for an unreachable broker
        log.warning("broker unavailable; upload %s stays received for the sweeper: %s", upload_id, exc)
        return False
    # On every accepted upload: one plain statement (the ORM's query building costs more than the query).
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE core_upload SET status = %s, queued_at = now() WHERE id = %s AND status = %s",
            [Upload.Status.QUEUED, upload_id, Upload.Status.RECEIVED],
        )
    return True


def requeue(upload: Upload) -> None:
    """Re-parse an upload from its raw bytes (retry after failure, or after a parser fix)."""
    Upload.objects.filter(pk=upload.pk).update(
        status=Upload.Status.RECEIVED,
        error=None,
        claimed_by="",
        queued_at=None,
        started_at=None,
        finished_at=None,
    )
    transaction.on_commit(lambda: enqueue(upload.pk))
