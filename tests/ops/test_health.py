"""``/healthz`` reports database, TimescaleDB mode, broker and worker heartbeat."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from tests.modes import expected_mode
from webapp.core.models import WorkerHeartbeat

pytestmark = pytest.mark.django_db

DETAILS = {"HTTP_AUTHORIZATION": "Bearer health-details-token"}


@pytest.fixture(autouse=True)
def _metrics_token(settings):
    """The checks' details are for the metrics token (and staff); these tests send it."""
    settings.METRICS_TOKEN = "health-details-token"


def test_it_answers_200_when_everything_is_up(client):
    WorkerHeartbeat.objects.create(hostname="w1@test", seen_at=timezone.now())
    response = client.get("/healthz", **DETAILS)
    body = response.json()
    assert response.status_code == 200, body
    assert body["status"] == "ok"
    assert body["mode"] == expected_mode()
    assert "note" not in body["checks"]["timescale"]  # the mode is what the setting and server ask for
    assert body["checks"]["workers"]["alive"] == 1


def test_it_answers_503_without_a_recent_worker_heartbeat(client):
    WorkerHeartbeat.objects.create(hostname="w1@test", seen_at=timezone.now() - timedelta(minutes=10))
    response = client.get("/healthz", **DETAILS)
    assert response.status_code == 503
    assert response.json()["checks"]["workers"]["ok"] is False
    assert "no worker heartbeat" in response.json()["checks"]["workers"]["error"]


def test_it_answers_503_when_the_broker_is_down(client, settings):
    WorkerHeartbeat.objects.create(hostname="w1@test", seen_at=timezone.now())
    settings.CELERY_BROKER_URL = "redis://127.0.0.1:1/0"  # nothing listens on port 1
    response = client.get("/healthz", **DETAILS)
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


def test_anonymous_callers_get_only_ok_or_unavailable_per_check(client, settings):
    WorkerHeartbeat.objects.create(hostname="w1@test", seen_at=timezone.now())
    settings.CELERY_BROKER_URL = "redis://user:hunter2@127.0.0.1:1/0"
    response = client.get("/healthz")
    body = response.json()
    assert response.status_code == 503
    assert body["status"] == "unavailable" and body["mode"] == expected_mode()
    assert body["checks"]["broker"] == {"ok": False}
    assert body["checks"]["database"] == {"ok": True}
    assert body["checks"]["workers"] == {"ok": True}
    assert set(body["checks"]["timescale"]) <= {"ok", "mode", "note"}
    assert "127.0.0.1" not in response.content.decode() and "hunter2" not in response.content.decode()


def test_the_metrics_token_and_staff_see_the_details(client, settings):
    from tests.factories import make_user

    WorkerHeartbeat.objects.create(hostname="w1@test", seen_at=timezone.now())
    settings.METRICS_TOKEN = "scrape-secret-1"
    settings.CELERY_BROKER_URL = "redis://127.0.0.1:1/0"
    wrong = client.get("/healthz", HTTP_AUTHORIZATION="Bearer not-it").json()
    assert "error" not in wrong["checks"]["broker"]
    with_token = client.get("/healthz", HTTP_AUTHORIZATION="Bearer scrape-secret-1").json()
    assert (
        "Error" in with_token["checks"]["broker"]["error"] and with_token["checks"]["workers"]["alive"] == 1
    )
    staff = make_user(username="ops")
    staff.is_staff = True
    staff.save()
    client.force_login(staff)
    assert client.get("/healthz").json()["checks"]["broker"]["transport"] == "redis"
    client.force_login(make_user(username="plain"))
    assert client.get("/healthz").json()["checks"]["broker"] == {"ok": False}
