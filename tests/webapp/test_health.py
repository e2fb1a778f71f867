"""``/healthz`` reports database, TimescaleDB mode, broker and worker heartbeat."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from webapp.core.models import WorkerHeartbeat

pytestmark = pytest.mark.django_db


def test_it_answers_200_when_everything_is_up(client):
    WorkerHeartbeat.objects.create(hostname="w1@test", seen_at=timezone.now())
    response = client.get("/healthz")
    body = response.json()
    assert response.status_code == 200, body
    assert body["status"] == "ok"
    assert body["mode"] == "postgresql"  # no TimescaleDB on this machine
    assert body["checks"]["workers"]["alive"] == 1


def test_it_answers_503_without_a_recent_worker_heartbeat(client):
    WorkerHeartbeat.objects.create(hostname="w1@test", seen_at=timezone.now() - timedelta(minutes=10))
    response = client.get("/healthz")
    assert response.status_code == 503
    assert response.json()["checks"]["workers"]["ok"] is False
    assert "no worker heartbeat" in response.json()["checks"]["workers"]["error"]


def test_it_answers_503_when_the_broker_is_down(client, settings):
    WorkerHeartbeat.objects.create(hostname="w1@test", seen_at=timezone.now())
    settings.CELERY_BROKER_URL = "redis://127.0.0.1:1/0"  # nothing listens on port 1
    response = client.get("/healthz")
    assert response.status_code == 503
    broker = response.json()["checks"]["broker"]
    assert broker["ok"] is False and broker["error"]


@pytest.mark.django_db(transaction=True)
def test_it_answers_503_when_the_database_is_down(client):
    settings_dict = connection.settings_dict
    saved = (settings_dict["HOST"], settings_dict["PORT"])
    connection.close()
    settings_dict["HOST"], settings_dict["PORT"] = "127.0.0.1", "1"
    try:
        response = client.get("/healthz")
    finally:
        connection.close()
        settings_dict["HOST"], settings_dict["PORT"] = saved
    assert response.status_code == 503
    body = response.json()
    assert body["checks"]["database"]["ok"] is False
    assert body["status"] == "unavailable"
