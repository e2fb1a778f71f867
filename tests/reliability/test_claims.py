"""The claim lock that lets the sweeper tell a dead worker's upload from a live one's.

A task holds a PostgreSQL advisory lock on the upload it works on, taken
before the claim. Here a second database session plays the other worker:
holding the lock it is alive, closing its connection it died (as a SIGKILLed
worker's connection does). test_worker_crash.py proves the same with real
processes.
"""

from __future__ import annotations

from contextlib import closing

import psycopg
import pytest

from tests.conftest import database_url
from tests.paths import FIXTURES
from tests.reliability.services import wait_until
from webapp.core import rawstore
from webapp.core.models import Upload
from webapp.core.upload_meta import UploadMeta
from webapp.core.uploads import accept
from workers import ingest
from workers.tasks import ingest_upload

pytestmark = pytest.mark.django_db

TIMINGS = b"name,started_at,duration_ms\nlogon,2015-06-01T09:00:00Z,1500\n"


@pytest.fixture
def upload(campaign) -> Upload:
    stored = rawstore.save_bytes(TIMINGS)
    found, _ = accept(campaign, stored, UploadMeta(filename="t.csv", scenario={"av": "on"}))
    return found


def other_worker() -> psycopg.Connection:
    return psycopg.connect(database_url(), autocommit=True)


def holds_lock(conn: psycopg.Connection, upload_id: int) -> bool:
    row = conn.execute("SELECT pg_try_advisory_lock(%s, %s)", ingest._lock_key(upload_id)).fetchone()
    return bool(row and row[0])


def mark_parsing(upload: Upload, task_id: str) -> None:
    Upload.objects.filter(pk=upload.pk).update(status="parsing", claimed_by=task_id)


def test_a_parsing_upload_whose_worker_is_alive_is_left_alone(upload):
    mark_parsing(upload, "task-a")
    with closing(other_worker()) as alive:
        assert holds_lock(alive, upload.pk)
        assert ingest.reset_if_orphaned(upload.pk) is False
        upload.refresh_from_db()
        assert (upload.status, upload.claimed_by) == ("parsing", "task-a")


def test_a_parsing_upload_whose_worker_died_goes_back_to_received(upload):
    mark_parsing(upload, "task-a")
    with closing(other_worker()) as dying:
        assert holds_lock(dying, upload.pk)
    # The server drops the lock as the dead session's backend exits, a moment later.
    wait_until(lambda: ingest.reset_if_orphaned(upload.pk), 10, "the orphaned upload reset")
    upload.refresh_from_db()
    assert (upload.status, upload.claimed_by) == ("received", "")


def test_no_task_claims_an_upload_another_live_task_holds(upload):
    with closing(other_worker()) as alive:
        assert holds_lock(alive, upload.pk)
        assert ingest.claim(upload.pk, "task-b") is None
    upload.refresh_from_db()
    assert upload.status in ("received", "queued") and upload.attempts == 0


def test_a_redelivery_whose_killed_run_still_holds_the_lock_knows_to_try_again(upload):
    # The killed run's session lingers until PostgreSQL notices it is gone.
    mark_parsing(upload, "task-a")
    with closing(other_worker()) as lingering:
        assert holds_lock(lingering, upload.pk)
        assert ingest.claim(upload.pk, "task-a") is None
        assert ingest.claimed_by_lost_attempt(upload.pk, "task-a") is True
        assert ingest.claimed_by_lost_attempt(upload.pk, "task-b") is False
    wait_until(lambda: ingest.claim(upload.pk, "task-a"), 10, "the redelivery's claim")
    ingest.unlock(upload.pk)


def test_a_task_lets_go_of_the_lock_when_it_ends_whatever_the_outcome(campaign, upload):
    ingest_upload.apply(args=(upload.pk,))
    bad = rawstore.save_bytes(
        (FIXTURES / "perfmon_csv" / "narmadha_DataCollector01_LogicalDisk_IST.csv").read_bytes()[:500]
    )
    failed, _ = accept(campaign, bad, UploadMeta(filename="cut.csv", host="FS01"))
    ingest_upload.apply(args=(failed.pk,))
    upload.refresh_from_db()
    failed.refresh_from_db()
    assert (upload.status, failed.status) == ("stored", "failed")
    with closing(other_worker()) as later:
        assert holds_lock(later, upload.pk) and holds_lock(later, failed.pk)


def test_an_upload_whose_workers_keep_dying_is_failed_with_a_message_not_retried_forever(upload, settings):
    settings.INGEST_MAX_RETRIES = 2
    mark_parsing(upload, "task-c")
    Upload.objects.filter(pk=upload.pk).update(attempts=3)
    assert ingest.reset_if_orphaned(upload.pk) is False
    upload.refresh_from_db()
    assert upload.status == "failed"
    assert "stopped without finishing 3 times" in upload.error["message"]
