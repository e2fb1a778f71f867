"""Accepting uploads: the one way raw data enters Headroom.

The upload API, the live-samples and timings endpoints, the demo campaign and
campaign import all call ``accept``: the raw bytes are already in the raw
store, this records the upload (or finds the existing one with the same bytes
in the same campaign) and queues it once the transaction commits. If the
broker is down the upload stays ``received`` and the sweeper queues it later.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, field

from django.db import IntegrityError, transaction
from django.utils import timezone

from webapp.core.models import AgentToken, Campaign, Host, Scenario, Upload
from webapp.core.rawstore import StoredRaw
from webapp.core.runs import default_run, named_run

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class UploadMeta:
    """What the sender told us about a file (SPEC: POST /api/v1/uploads)."""

    filename: str = ""
    kind: str = "auto"
    scenario: Mapping[str, object] = field(default_factory=dict)
    host: str = ""
    role: str = Host.Role.CLIENT
    step: int | None = None
    timezone: str = ""
    run: str = ""
    extra: Mapping[str, str] = field(default_factory=dict)


def accept(
    campaign: Campaign, raw: StoredRaw, meta: UploadMeta, *, token: AgentToken | None = None
) -> tuple[Upload, bool]:
    """Record an upload of ``raw`` and queue it. Returns ``(upload, duplicate)``."""
    existing = Upload.objects.filter(campaign=campaign, sha256=raw.sha256).first()
    if existing is not None:
        return existing, True
    scenario = Scenario.for_dims(campaign, meta.scenario)
    run = named_run(campaign, scenario, meta.run) if meta.run else default_run(campaign, scenario)
    host = None
    if meta.host:
        host, _ = Host.objects.get_or_create(
            project=campaign.project, name=meta.host, defaults={"role": meta.role}
        )
    try:
        with transaction.atomic():
            upload = Upload.objects.create(
                campaign=campaign,
                scenario=scenario,
                run=run,
                host=host,
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
            transaction.on_commit(lambda: enqueue(upload.pk))
    except IntegrityError:  # the same bytes arrived concurrently
        return Upload.objects.get(campaign=campaign, sha256=raw.sha256), True
    return upload, False


def enqueue(upload_id: int) -> bool:
    """Send the ingest task; mark the upload queued. False if the broker is unreachable."""
    from workers.tasks import ingest_upload

    try:
        ingest_upload.apply_async((upload_id,))
    except Exception as exc:  # kombu raises many types for an unreachable broker
        log.warning("broker unavailable; upload %s stays received for the sweeper: %s", upload_id, exc)
        return False
    Upload.objects.filter(pk=upload_id, status=Upload.Status.RECEIVED).update(
        status=Upload.Status.QUEUED, queued_at=timezone.now()
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
