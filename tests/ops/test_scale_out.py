"""Two worker processes sharing one queue: each upload is stored once, and both do some of the work.

The workers stand for two machines: all they share with the web side is the
database URL, the broker URL and the raw store (docs/operations.md,
"Scaling out"). They log JSON, which the test reads to see who did what.
"""

from __future__ import annotations

import io
import json
import re
from collections import Counter

import pytest
from django.core.management import call_command
from django.db import connection

from tests.conftest import wait_for
from tests.factories import make_campaign
from webapp.core import rawstore
from webapp.core.models import Campaign, Upload
from webapp.core.upload_meta import UploadMeta
from webapp.core.uploads import accept

pytestmark = [pytest.mark.integration]

SUCCEEDED = re.compile(
    r"Task workers\.tasks\.ingest_upload\[([0-9a-f-]+)\] succeeded in [0-9.e-]+s: 'stored'"
)
RECEIVED = re.compile(r"Task workers\.tasks\.ingest_upload\[([0-9a-f-]+)\] received")
ENDED = re.compile(r"Task workers\.tasks\.ingest_upload\[([0-9a-f-]+)\] (succeeded|retry|raised)")


def timings_csv(index: int) -> bytes:
    rows = [
        f"app_launch.word,2015-06-01T09:{index:02d}:{rep:02d}Z,{1000 + 10 * index + rep}" for rep in range(5)
    ]
    return ("name,started_at,duration_ms\n" + "\n".join(rows) + "\n").encode()


def task_ids_by_worker(workers) -> dict[str, list[str]]:
    """The ingest tasks each worker finished, from its JSON log (every line must be JSON)."""
    done: dict[str, list[str]] = {}
    for worker in workers:
        records = [json.loads(line) for line in worker.log.read_text().splitlines() if line.strip()]
        assert all({"time", "level", "logger", "message"} <= set(r) for r in records)
        done[worker.name] = [m.group(1) for r in records if (m := SUCCEEDED.search(r["message"]))]
    return done


def logged_every_task(workers) -> bool:
    """Each worker's log has the outcome of every task it received (and some worker stored one).

    A task stores its upload before it returns, and the worker logs the
    outcome after that: an upload can be final before its line is written.
    """
    for worker in workers:
        text = worker.log.read_text()
        if {m.group(1) for m in RECEIVED.finditer(text)} - {m.group(1) for m in ENDED.finditer(text)}:
            return False
    return sum(map(len, task_ids_by_worker(workers).values())) >= 1


def final(ids: list[int]) -> bool:
    return not Upload.objects.filter(pk__in=ids).exclude(status__in=["stored", "failed"]).exists()


@pytest.mark.django_db(transaction=True)
def test_two_workers_share_one_queue_and_store_each_upload_once(worker_pool):
    campaign = make_campaign()
    ids = []
    for index in range(20):
        meta = UploadMeta(filename=f"t{index}.csv", kind="timings", host="CLIENT1", run=f"scale-{index}")
        upload, duplicate = accept(campaign, rawstore.save_bytes(timings_csv(index)), meta)
        assert not duplicate
        ids.append(upload.pk)

    try:
        wait_for(lambda: final(ids), timeout=90)
    except AssertionError:
        statuses = Counter(Upload.objects.filter(pk__in=ids).values_list("status", flat=True))
        logs = {w.name: (w.process.poll(), w.log.read_text()[-2000:]) for w in worker_pool}
        raise AssertionError(f"uploads not final: {statuses}; workers: {logs}") from None
    stored = Upload.objects.filter(pk__in=ids)
    assert sorted(stored.values_list("status", flat=True)) == ["stored"] * 20
    # One claim each: no upload was parsed twice.
    assert set(stored.values_list("attempts", flat=True)) == {1}
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT upload_id, count(*) FROM measurement WHERE upload_id = ANY(%s) GROUP BY upload_id", [ids]
        )
        assert dict(cursor.fetchall()) == dict.fromkeys(ids, 5)

    wait_for(lambda: logged_every_task(worker_pool), timeout=30)
    done = task_ids_by_worker(worker_pool)
    a, b = (done[w.name] for w in worker_pool)
    assert a and b, f"one worker did everything: {Counter({k: len(v) for k, v in done.items()})}"
    assert not set(a) & set(b)
    # Another worker of the test session (tests/conftest.py) may take a share, never the same upload.
    assert len(a) + len(b) <= 20
    assert set(stored.values_list("claimed_by", flat=True)) >= set(a) | set(b)


@pytest.mark.django_db(transaction=True)
def test_an_imported_campaign_is_parsed_by_the_workers(worker_pool, tmp_path):
    call_command("load_demo", "--wait", "120", stdout=io.StringIO())
    demo = Campaign.objects.get(slug="demo")
    assert set(Upload.objects.filter(campaign=demo).values_list("status", flat=True)) == {"stored"}
    archive = tmp_path / "demo.tar.gz"
    call_command("export_campaign", "demo", str(archive), stdout=io.StringIO())

    out = io.StringIO()
    call_command(
        "import_campaign",
        str(archive),
        "--project",
        "restored",
        "--slug",
        "restored",
        "--wait",
        "120",
        stdout=out,
    )
    assert "21 stored, 0 failed, 0 still processing" in out.getvalue()
    restored = Campaign.objects.get(slug="restored")
    assert sorted(Upload.objects.filter(campaign=restored).values_list("rows", flat=True)) == sorted(
        Upload.objects.filter(campaign=demo).values_list("rows", flat=True)
    )
