"""``GET /metrics``: token-protected, and its numbers come from the database and the broker."""

from __future__ import annotations

import itertools
import os
import socket
from datetime import timedelta

import pytest
import redis
from django.conf import settings
from django.utils import timezone
from kombu import Queue
from prometheus_client.parser import text_string_to_metric_families

from tests.factories import make_campaign
from webapp.core.models import Upload, WorkerHeartbeat
from webapp.ops.metrics import redis_queue_lengths

pytestmark = pytest.mark.django_db

TOKEN = "metrics-token-for-tests"
AUTH = {"HTTP_AUTHORIZATION": f"Bearer {TOKEN}"}
_sha = itertools.count(1)


def scrape(client) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    response = client.get("/metrics", **AUTH)
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/plain; version=0.0.4")
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(response.content.decode())
        for sample in family.samples
    }


def make_upload(campaign, status, *, rows=0, parser="", wait=None, took=None):
    now = timezone.now()
    started = now - timedelta(seconds=took or 0) if took is not None or wait is not None else None
    return Upload.objects.create(
        campaign=campaign,
        sha256=f"{next(_sha):064x}",
        size=1,
        storage_key="raw/none",
        status=status,
        rows=rows,
        parser=parser,
        queued_at=started - timedelta(seconds=wait) if wait is not None and started else None,
        started_at=started,
        finished_at=now if took is not None else None,
    )


@pytest.fixture
def metrics_on(settings):
    settings.METRICS_TOKEN = TOKEN
    # Private queue names: a worker elsewhere in the test session consumes the real ones.
    suffix = os.getpid()
    settings.CELERY_TASK_QUEUES = (Queue(f"ops-ingest-{suffix}"), Queue(f"ops-maintenance-{suffix}"))
    return [q.name for q in settings.CELERY_TASK_QUEUES]


def test_it_is_off_without_a_token(client, settings):
    settings.METRICS_TOKEN = ""
    assert client.get("/metrics", **AUTH).status_code == 404


def test_it_refuses_a_missing_or_wrong_token(client, metrics_on):
    missing = client.get("/metrics")
    assert missing.status_code == 401 and missing["WWW-Authenticate"].startswith("Bearer")
    assert client.get("/metrics", HTTP_AUTHORIZATION="Bearer wrong").status_code == 401
    assert client.get("/metrics", HTTP_AUTHORIZATION=f"Basic {TOKEN}").status_code == 401
    assert client.post("/metrics", **AUTH).status_code == 405


def test_it_counts_uploads_rows_latency_and_live_workers(client, metrics_on):
    campaign = make_campaign()
    make_upload(campaign, "stored", rows=100, parser="perfmon_csv", wait=1, took=0.2)
    make_upload(campaign, "stored", rows=200, parser="perfmon_csv", wait=1, took=3)
    make_upload(campaign, "stored", rows=300, parser="timings", wait=20, took=45)
    make_upload(campaign, "failed", took=0.05)
    make_upload(campaign, "parsing", wait=2)
    make_upload(campaign, "queued")
    make_upload(campaign, "received")
    make_upload(campaign, "received")
    now = timezone.now()
    WorkerHeartbeat.objects.create(hostname="a@one", seen_at=now)
    WorkerHeartbeat.objects.create(hostname="b@two", seen_at=now - timedelta(seconds=5))
    WorkerHeartbeat.objects.create(hostname="gone@three", seen_at=now - timedelta(hours=1))

    m = scrape(client)

    def status(name):
        return m[("headroom_uploads", (("status", name),))]

    assert [status(s) for s in ("received", "queued", "parsing", "stored", "failed")] == [2, 1, 1, 3, 1]
    assert m[("headroom_ingested_rows", (("parser", "perfmon_csv"),))] == 300
    assert m[("headroom_ingested_rows", (("parser", "timings"),))] == 300

    def duration(suffix, outcome, le=None):
        labels = (("le", le), ("status", outcome)) if le else (("status", outcome),)
        return m[(f"headroom_ingest_duration_seconds_{suffix}", labels)]

    assert [
        duration("bucket", "stored", le) for le in ("0.1", "0.25", "2.5", "5.0", "30.0", "60.0", "+Inf")
    ] == [
        0,
        1,
        1,
        2,
        2,
        3,
        3,
    ]
    assert duration("count", "stored") == 3
    assert duration("sum", "stored") == pytest.approx(48.2, abs=0.01)
    assert duration("bucket", "failed", "0.1") == 1 and duration("count", "failed") == 1

    def wait(suffix, le=None):
        return m[(f"headroom_ingest_queue_wait_seconds_{suffix}", (("le", le),) if le else ())]

    # The failed upload was never queued; the parsing one has waited 2 s so far.
    assert [wait("bucket", le) for le in ("0.5", "1.0", "2.5", "10.0", "30.0", "+Inf")] == [0, 2, 3, 3, 4, 4]
    assert wait("count") == 4 and wait("sum") == pytest.approx(24, abs=0.01)
    assert m[("headroom_workers_alive", ())] == 2


def test_it_reports_the_depth_of_each_redis_queue(client, metrics_on):
    ingest, maintenance = metrics_on
    broker = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    try:
        broker.delete(ingest, maintenance, f"{ingest}\x06\x169")
        broker.rpush(ingest, "m1", "m2", "m3")
        broker.rpush(f"{ingest}\x06\x169", "sent with priority 9")
        broker.rpush(maintenance, "m1")
        m = scrape(client)
        assert m[("headroom_queue_length", (("queue", ingest),))] == 4
        assert m[("headroom_queue_length", (("queue", maintenance),))] == 1
        assert m[("headroom_broker_up", ())] == 1
        assert redis_queue_lengths(settings.CELERY_BROKER_URL, [ingest]) == {ingest: 4}
    finally:
        broker.delete(ingest, maintenance, f"{ingest}\x06\x169")
        broker.close()


def test_it_reports_an_unreachable_broker_instead_of_failing(client, metrics_on, settings):
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        settings.CELERY_BROKER_URL = f"redis://127.0.0.1:{closed.getsockname()[1]}/0"
        m = scrape(client)
    assert m[("headroom_broker_up", ())] == 0
    assert not any(name == "headroom_queue_length" for name, _ in m)
    assert m[("headroom_uploads", (("status", "stored"),))] == 0


def test_it_leaves_queue_depth_out_for_a_broker_that_is_not_redis(client, metrics_on, settings):
    settings.CELERY_BROKER_URL = "filesystem://"
    names = {name for name, _ in scrape(client)}
    assert "headroom_uploads" in names
    assert not names & {"headroom_queue_length", "headroom_broker_up"}
