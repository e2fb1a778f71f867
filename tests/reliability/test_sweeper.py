"""The sweeper sends again what the broker may have lost, and leaves fresh work alone."""

from __future__ import annotations

import itertools
from datetime import timedelta

import pytest
from django.utils import timezone

from webapp.core import rawstore
from webapp.core.models import Upload
from webapp.core.upload_meta import UploadMeta
from webapp.core.uploads import accept
from workers.tasks import sweep_uploads

pytestmark = pytest.mark.django_db

_files = itertools.count(1)


def upload_in(campaign, status: str, *, received_ago: float, queued_ago: float | None = None) -> Upload:
    data = f"name,started_at,duration_ms\nlogon,2015-06-01T09:00:00Z,{next(_files)}\n".encode()
    upload, _ = accept(campaign, rawstore.save_bytes(data), UploadMeta(filename="t.csv"))
    now = timezone.now()
    Upload.objects.filter(pk=upload.pk).update(
        status=status,
        received_at=now - timedelta(seconds=received_ago),
        queued_at=None if queued_ago is None else now - timedelta(seconds=queued_ago),
    )
    upload.refresh_from_db()
    return upload


def test_a_queued_upload_waiting_longer_than_the_requeue_limit_is_sent_again(campaign, settings):
    settings.REQUEUE_AFTER_SECONDS = 600
    settings.SWEEP_AFTER_SECONDS = 30
    lost = upload_in(campaign, "queued", received_ago=700, queued_ago=650)
    waiting = upload_in(campaign, "queued", received_ago=700, queued_ago=500)
    never_sent = upload_in(campaign, "received", received_ago=45)
    just_in = upload_in(campaign, "received", received_ago=5)

    assert sweep_uploads.apply().get() == 2  # the lost message and the broker-outage upload

    for upload in (lost, waiting, never_sent, just_in):
        upload.refresh_from_db()
    # Sent just now (the database's now: when this test's transaction began).
    recently = timezone.now() - timedelta(seconds=60)
    assert (lost.status, never_sent.status, waiting.status) == ("queued", "queued", "queued")
    assert lost.queued_at is not None and lost.queued_at > recently
    assert never_sent.queued_at is not None and never_sent.queued_at > recently
    assert waiting.queued_at is not None and waiting.queued_at < recently  # untouched
    assert (just_in.status, just_in.queued_at) == ("received", None)


def test_a_message_sent_twice_stores_the_upload_once(campaign, settings):
    from workers.tasks import ingest_upload

    settings.REQUEUE_AFTER_SECONDS = 1
    upload = upload_in(campaign, "queued", received_ago=60, queued_ago=30)
    assert sweep_uploads.apply().get() == 1
    assert ingest_upload.apply(args=(upload.pk,), task_id="first-message").get() == "stored"
    assert ingest_upload.apply(args=(upload.pk,), task_id="second-message").get() == "skipped"
    upload.refresh_from_db()
    assert (upload.status, upload.rows, upload.attempts) == ("stored", 1, 1)
