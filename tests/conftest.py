"""Shared fixtures: real PostgreSQL (pytest-django's test database), real broker, real worker."""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.paths import REPO
from webapp.launcher import worker_command


@pytest.fixture(scope="session")
def live_server(request: pytest.FixtureRequest) -> Iterator[object]:
    """pytest-django's live server, speaking plain http like the other tests.

    The server's middleware is built once, when its thread starts, so the
    function-scoped ``SECURE_SSL_REDIRECT = False`` below comes too late for
    it: without this, every request is redirected to https. The setting is
    off only while the server starts.
    """
    from django.test.utils import override_settings
    from pytest_django.live_server_helper import LiveServer

    addr = (
        request.config.getvalue("liveserver") or os.getenv("DJANGO_LIVE_TEST_SERVER_ADDRESS") or "localhost"
    )
    with override_settings(SECURE_SSL_REDIRECT=False):
        server = LiveServer(addr)
    yield server
    server.stop()


@pytest.fixture(autouse=True)
def _plain_http(settings):
    """Tests speak plain http; production settings would redirect them to https."""
    settings.SECURE_SSL_REDIRECT = False


@pytest.fixture
def campaign(db):
    from tests.factories import make_campaign

    return make_campaign()


@pytest.fixture
def agent(campaign):
    """(token text, campaign) for an agent of the campaign's project."""
    from tests.factories import make_token

    _, plain = make_token(campaign.project)
    return plain, campaign


def database_url() -> str:
    from django.db import connection

    s = connection.settings_dict
    host = s["HOST"] or "127.0.0.1"
    from urllib.parse import quote

    auth = s["USER"] + (f":{quote(s['PASSWORD'], safe='')}" if s["PASSWORD"] else "")
    port = f":{s['PORT']}" if s["PORT"] else ""
    return f"postgres://{auth}@{quote(host, safe='')}{port}/{s['NAME']}"


@pytest.fixture(scope="module")
def worker_process(django_db_setup, django_db_blocker) -> Iterator[subprocess.Popen[bytes]]:
    """A real Celery worker process consuming the test broker and writing the test database.

    Module-scoped: it stops when its test module ends, so tests that start
    their own workers (scale-out, crash tests) are not raced by this one.
    """
    from django.conf import settings

    from workers.celery import app

    with django_db_blocker.unblock():
        url = database_url()
    app.control.purge()
    env = {
        **os.environ,
        "DATABASE_URL": url,
        "CELERY_BROKER_URL": settings.CELERY_BROKER_URL,
        "HEADROOM_WORKER_HEARTBEAT_SECONDS": "1",
        "HEADROOM_INGEST_MAX_RETRIES": "2",
    }
    log = Path(settings.VAR_DIR) / "test-worker.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            worker_command(f"test-{os.getpid()}@%h", pool="solo", concurrency=1, loglevel="info"),
            cwd=REPO,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        yield proc
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()


def wait_for(predicate, timeout: float = 60.0, interval: float = 0.2):
    """Poll ``predicate`` until it returns something truthy; fail with a clear message on timeout."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError(f"condition not met within {timeout} s")


def worker_idle() -> bool:
    """No task waits in the broker's queue and no other session of the test database is working.

    A stored upload queues ``refresh_rollups``; were the test's tables emptied while that task
    reads them, PostgreSQL could pick the TRUNCATE as a deadlock's victim (CI, stop 29).
    """
    from django.db import connection

    from workers.celery import app

    queues = {route["queue"] for route in app.conf.task_routes.values()} | {app.conf.task_default_queue}
    with app.connection_for_read() as conn:
        channel: Any = conn.default_channel  # kombu's virtual channel (Redis, filesystem)
        for queue in queues:
            try:
                if channel.queue_declare(queue=queue, passive=True).message_count:
                    return False
            except conn.channel_errors:  # never declared: nothing was ever sent to it
                pass
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
            " AND pid <> pg_backend_pid() AND state IN ('active', 'idle in transaction')"
        )
        (working,) = cursor.fetchone()
    return working == 0


@pytest.fixture
def settled_worker(transactional_db, worker_process) -> Iterator[subprocess.Popen[bytes]]:
    """The module's worker, left idle before the test's tables are emptied: every upload parsed
    and every task it queued done (seen idle three polls running, so a prefetched task has begun)."""
    yield worker_process
    from webapp.core.models import Upload

    busy = (Upload.Status.RECEIVED, Upload.Status.QUEUED, Upload.Status.PARSING)
    wait_for(lambda: not Upload.objects.filter(status__in=busy).exists(), timeout=60)
    seen = 0
    deadline = time.monotonic() + 60
    while seen < 3 and time.monotonic() < deadline:
        seen = seen + 1 if worker_idle() else 0
        time.sleep(0.1)
    if seen < 3:
        raise AssertionError("the worker was still busy 60 s after the test")
