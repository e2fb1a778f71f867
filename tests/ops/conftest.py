"""Fixtures for the operations tests: the demo campaign, ingested; a pool of real workers."""

from __future__ import annotations

import io
import os
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from django.core.management import call_command

from tests.conftest import database_url, wait_for
from tests.paths import REPO
from webapp.core.models import Campaign, Upload
from webapp.launcher import worker_command
from workers.tasks import ingest_upload, refresh_rollups


def ingest_all() -> None:
    """Run the ingest task in this process for every upload not yet stored, then the rollups."""
    for upload_id in Upload.objects.exclude(status="stored").values_list("pk", flat=True):
        ingest_upload.apply(args=(upload_id,))
    refresh_rollups.apply()


@pytest.fixture
def demo(db) -> Campaign:
    """The demo campaign (``load_demo``), every upload stored and the rollups current."""
    call_command("load_demo", "--campaign", "demo", stdout=io.StringIO())
    ingest_all()
    assert set(Upload.objects.values_list("status", flat=True)) == {"stored"}
    return Campaign.objects.get(slug="demo")


@dataclass
class Worker:
    name: str
    process: subprocess.Popen[bytes]
    log: Path


@pytest.fixture
def worker_pool(transactional_db, settings, tmp_path) -> Iterator[list[Worker]]:
    """Two ``celery worker -P solo`` processes on the ingest queue of the test broker.

    They stand for workers on two machines: each gets only the database URL,
    the broker URL and the raw store's location, and logs JSON
    (``LOG_FORMAT=json``) to its own file.
    """
    from workers.celery import app

    app.control.purge()
    env = {
        **os.environ,
        "DATABASE_URL": database_url(),
        "CELERY_BROKER_URL": settings.CELERY_BROKER_URL,
        "HEADROOM_RAW_DIR": str(settings.RAW_DIR),
        "HEADROOM_WORKER_HEARTBEAT_SECONDS": "1",
        "LOG_FORMAT": "json",
        "LOG_LEVEL": "info",
    }
    workers: list[Worker] = []
    try:
        for letter in "ab":
            name = f"ops-{letter}-{os.getpid()}@headroom"
            log = tmp_path / f"worker-{letter}.log"
            with open(log, "wb") as out:
                process = subprocess.Popen(
                    worker_command(
                        name, queues="ingest", pool="solo", concurrency=1, loglevel="info", quiet=True
                    ),
                    cwd=REPO,
                    env=env,
                    stdout=out,
                    stderr=subprocess.STDOUT,
                )
            workers.append(Worker(name=name, process=process, log=log))
        # Both consuming before any work is sent: a worker still starting gets no share of it.
        wait_for(lambda: all(f"{w.name} ready." in w.log.read_text() for w in workers), timeout=60)
        yield workers
    finally:
        for worker in workers:
            worker.process.terminate()
        for worker in workers:
            try:
                worker.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                worker.process.kill()
                worker.process.wait()
