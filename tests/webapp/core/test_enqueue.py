"""``enqueue``: webapp.core sends the ingest task by name, and the workers answer to that name."""

from __future__ import annotations

import json

import pytest
import redis
from django.conf import settings

from tests.factories import make_campaign
from webapp.core.models import Upload
from webapp.core.uploads import INGEST_TASK, enqueue
from workers.tasks import ingest_upload


def test_the_name_core_sends_is_the_ingest_task_the_workers_register():
    assert ingest_upload.name == INGEST_TASK
    assert settings.CELERY_TASK_ROUTES[INGEST_TASK] == {"queue": "ingest"}


@pytest.mark.django_db
def test_it_puts_the_ingest_task_for_the_upload_on_the_ingest_queue_and_marks_it_queued():
    upload = Upload.objects.create(campaign=make_campaign(), filename="t.csv", sha256="0" * 64, size=1)
    broker = redis.Redis.from_url(settings.CELERY_BROKER_URL, decode_responses=True)
    sent: list[str] = []
    try:
        assert enqueue(upload.pk) is True
        sent = [
            str(raw)
            for raw in broker.lrange("ingest", 0, -1)
            if json.loads(raw)["headers"]["task"] == INGEST_TASK
            and json.loads(raw)["headers"]["argsrepr"] == f"({upload.pk},)"
        ]
        assert len(sent) == 1
    finally:
        for raw in sent:
            broker.lrem("ingest", 1, raw)
        broker.close()
    upload.refresh_from_db()
    assert upload.status == Upload.Status.QUEUED and upload.queued_at is not None
