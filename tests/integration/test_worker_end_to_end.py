"""A real Celery worker process takes uploads from the real broker to the time-series tables."""

from __future__ import annotations

import io
import json

import pytest
from django.db import connection

from tests.conftest import wait_for
from tests.factories import make_campaign, make_token
from tests.paths import FIXTURES
from webapp.core.models import Upload, WorkerHeartbeat

pytestmark = [
    pytest.mark.integration,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("settled_worker"),
]


def final_status(upload_id: int):
    def done() -> Upload | None:
        upload = Upload.objects.get(pk=upload_id)
        return upload if upload.status in ("stored", "failed") else None

    return wait_for(done, timeout=90)


def test_an_uploaded_perfmon_file_is_stored_by_the_worker(client, worker_process):
    campaign = make_campaign()
    _, token = make_token(campaign.project)
    auth = {"HTTP_AUTHORIZATION": f"Bearer {token}"}
    path = FIXTURES / "perfmon_csv" / "narmadha_DataCollector01_LogicalDisk_IST.csv"
    file = io.BytesIO(path.read_bytes())
    file.name = path.name
    response = client.post(
        "/api/v1/uploads", {"file": file, "campaign": campaign.slug, "host": "FS01", "role": "server"}, **auth
    )
    assert response.status_code == 202
    upload = final_status(response.json()["id"])
    assert upload.status == "stored", upload.error
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM counter_sample WHERE upload_id = %s", [upload.pk])
        assert cursor.fetchone()[0] == upload.rows > 0
    # The worker also refreshed the rollups for that time range.
    wait_for(lambda: _rollup_rows(), timeout=30)
    wait_for(WorkerHeartbeat.objects.exists, timeout=15)


def _rollup_rows():
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM counter_rollup_1m")
        return cursor.fetchone()[0]


def test_live_samples_and_timings_batches_are_stored(client, worker_process):
    campaign = make_campaign()
    _, token = make_token(campaign.project)
    auth = {"HTTP_AUTHORIZATION": f"Bearer {token}"}
    samples = {
        "campaign": campaign.slug,
        "host": "FS01",
        "role": "server",
        "scenario": {"av": "on"},
        "run": "live-1",
        "samples": [
            {
                "time": f"2015-06-01T10:00:0{i}Z",
                "counter": "\\\\FS01\\Processor(_Total)\\% Processor Time",
                "value": 10.0 + i,
            }
            for i in range(5)
        ]
        + [
            {
                "time": "2015-06-01T10:00:00Z",
                "object": "Memory",
                "counter_name": "Available MBytes",
                "value": 2048,
            }
        ],
    }
    response = client.post("/api/v1/samples", json.dumps(samples), content_type="application/json", **auth)
    assert response.status_code == 202, response.content
    upload = final_status(response.json()["id"])
    assert upload.status == "stored", upload.error
    assert upload.rows == 6
    again = client.post("/api/v1/samples", json.dumps(samples), content_type="application/json", **auth)
    assert again.status_code == 200 and again.json()["duplicate"] is True

    timings = {
        "campaign": campaign.slug,
        "host": "CLIENT1",
        "scenario": {"av": "none"},
        "timings": [
            {
                "name": "app_launch.firefox",
                "started_at": "2015-06-01T09:00:00Z",
                "duration_ms": 1500 + r,
                "repetition": r,
            }
            for r in range(1, 6)
        ],
    }
    response = client.post("/api/v1/timings", json.dumps(timings), content_type="application/json", **auth)
    assert response.status_code == 202, response.content
    upload = final_status(response.json()["id"])
    assert upload.status == "stored", upload.error
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*), avg(value) FROM measurement WHERE upload_id = %s", [upload.pk])
        assert cursor.fetchone() == (5, 1503.0)


def test_a_run_gets_its_load_step_timeline(client, worker_process):
    campaign = make_campaign()
    _, token = make_token(campaign.project)
    auth = {"HTTP_AUTHORIZATION": f"Bearer {token}"}
    run = client.post(
        "/api/v1/runs",
        {"campaign": campaign.slug, "name": "fsct-1", "scenario": {"av": "off"}},
        content_type="application/json",
        **auth,
    ).json()
    open_step = [{"users": 100, "started_at": "2015-06-01T10:00:00Z"}]
    client.post(f"/api/v1/runs/{run['id']}/steps", open_step, content_type="application/json", **auth)
    client.post(
        f"/api/v1/runs/{run['id']}/steps",
        [{"users": 200, "started_at": "2015-06-01T10:10:00Z"}],
        content_type="application/json",
        **auth,
    )
    body = client.post(
        f"/api/v1/runs/{run['id']}/steps",
        {"end_at": "2015-06-01T10:20:00Z"},
        content_type="application/json",
        **auth,
    ).json()
    assert [(s["users"], s["started_at"], s["ended_at"]) for s in body["steps"]] == [
        (100, "2015-06-01T10:00:00Z", "2015-06-01T10:10:00Z"),
        (200, "2015-06-01T10:10:00Z", "2015-06-01T10:20:00Z"),
    ]
