"""Uploads stored close together send one recomputation of their campaign, through the real broker."""

from __future__ import annotations

import base64
import json

import pytest
import redis
from django.conf import settings

from tests.ingest import ingest_bytes
from tests.webapp.api.test_series_history import SMB302, logons
from tests.webapp.notify.conftest import configure
from webapp.core.models import Campaign
from webapp.notify import pending

pytestmark = pytest.mark.django_db

RECOMPUTE = "webapp.notify.tasks.recompute_campaign"


def queued_recomputations(client: redis.Redis, campaign_id: int) -> list[str]:
    """Messages for ``campaign_id``'s recomputation waiting in the maintenance queue."""
    found: list[str] = []
    for raw in map(str, client.lrange("maintenance", 0, -1)):
        message = json.loads(raw)
        if message["headers"]["task"] != RECOMPUTE:
            continue
        args, _, _ = json.loads(base64.b64decode(message["body"]))
        if args == [campaign_id]:
            found.append(raw)
    return found


def test_three_uploads_stored_together_send_one_recomputation(
    series_project, django_capture_on_commit_callbacks
):
    configure(series_project, "https://hooks.example.com/headroom")
    campaign = Campaign.objects.get(slug="patch-c")
    broker = redis.Redis.from_url(settings.CELERY_BROKER_URL, decode_responses=True)
    for index in range(3):
        with django_capture_on_commit_callbacks(execute=True):
            data = logons([1000.0 + index, 1010.0])
            ingest_bytes(campaign, data, host=f"C{index}", filename="logons.csv", scenario=SMB302)
    try:
        assert len(queued_recomputations(broker, campaign.pk)) == 1
        assert pending.mark(campaign.pk) is False  # still pending: the task has not run
    finally:
        for raw in queued_recomputations(broker, campaign.pk):
            broker.lrem("maintenance", 0, raw)
        pending.clear(campaign.pk)


def test_a_campaign_outside_a_series_or_without_settings_schedules_nothing(
    series_project, django_capture_on_commit_callbacks
):
    from webapp.notify.trigger import upload_stored

    campaign = Campaign.objects.get(slug="patch-c")
    assert upload_stored(campaign.pk) is False  # no settings yet
    configure(series_project, "https://hooks.example.com/headroom")
    campaign.series = None
    campaign.save()
    assert upload_stored(campaign.pk) is False
