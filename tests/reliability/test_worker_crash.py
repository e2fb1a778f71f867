"""Guarantee 1: an accepted upload survives its worker being SIGKILLed mid-ingest, and is stored once.

A real Celery worker ingests uploads sent through a real gunicorn and a
private Redis; the test SIGKILLs it at random moments while an upload is being
parsed or loaded (HEADROOM_RELIABILITY_KILLS times; 5 in CI, 20 in ``make
reliability``), then lets it come back. Two ways to die:

* ``worker``: the whole solo worker is killed and started again. Its message
  stays unacknowledged in Redis until the visibility timeout (an hour), so it
  is the sweeper that finds the orphaned claim -- its advisory lock vanished
  with the dead connection -- and queues the upload again.
* ``pool-child``: a prefork pool process is killed; the parent survives and,
  with ``acks_late`` + ``reject_on_worker_lost``, puts the message straight
  back on the queue; the redelivered task re-claims under its own task id.

In the end every upload is ``stored`` with exactly the rows an uninterrupted
parse of its file yields: nothing lost, nothing doubled.
"""

from __future__ import annotations

import functools
import os
import random
import signal
import time

import pytest
from django.db import connection

from tests.conftest import database_url
from tests.factories import make_campaign, make_project, make_token
from tests.ingest import stored_rows
from tests.reliability.services import Client, Stack, env_int, send_sweep, wait_until
from tests.reliability.sources import Source, crash_sources, expected_rows
from webapp.core.models import Upload
from workers import ingest

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

KILLS = env_int("HEADROOM_RELIABILITY_KILLS", 5)
SEED = env_int("HEADROOM_RELIABILITY_SEED", random.randrange(1_000_000))


def ingesting_now() -> list[int]:
    """Uploads a live task is working on: ``parsing``, and their claim lock held.

    Read from ``pg_locks`` rather than by trying the lock: a probe that takes
    the lock, however briefly, is a second claimant and can make a starting
    task skip its upload.
    """
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT u.id FROM core_upload u JOIN pg_locks l ON l.locktype = 'advisory' AND l.granted"
            " AND l.classid = %s AND l.objid = u.id %% 2147483648 AND l.objsubid = 2"
            " WHERE u.status = %s",
            [ingest.CLAIM_LOCK, Upload.Status.PARSING],
        )
        return [row[0] for row in cursor.fetchall()]


@pytest.mark.parametrize(
    "dies",
    [
        "worker",
        "pool-child",
    ],
)
def test_every_upload_is_stored_exactly_once_although_workers_are_killed_mid_ingest(stack: Stack, dies):
    rng = random.Random(SEED)
    redis = stack.redis()
    # A solo worker killed after taking a message but before claiming its upload leaves it
    # 'queued'; the sweeper sends it again after HEADROOM_REQUEUE_AFTER_SECONDS (10 min in production).
    env = stack.env(
        database_url(), redis.url(), HEADROOM_TOKEN_RATE_PER_MINUTE="0", HEADROOM_REQUEUE_AFTER_SECONDS="5"
    )
    web = stack.gunicorn(env)
    pool = "solo" if dies == "worker" else "prefork"
    worker = stack.worker(env, pool=pool)
    project = make_project()
    _, token = make_token(project)
    api = Client(web.base, token)
    expected: dict[int, int] = {}
    counts = {
        source.name: expected_rows(source.data, timezone=dict(source.fields).get("timezone") or None)
        for source in crash_sources()
    }

    def send(source: Source) -> None:
        campaign = make_campaign(project)
        host = f"{source.name[:40]}-{len(expected)}"
        reply = api.upload(campaign.slug, source.data, source.name, host=host, **dict(source.fields))
        assert reply.status == 202, reply.body
        expected[reply.body["id"]] = counts[source.name]

    swept = [0.0]

    def settled(sent: list[int]) -> bool:
        """This round's uploads are finished. Orphaned claims are given back meanwhile, as beat would."""
        if time.monotonic() - swept[0] > 2.0 and Upload.objects.filter(status=Upload.Status.PARSING).exists():
            send_sweep(redis.url())
            swept[0] = time.monotonic()
        return Upload.objects.filter(pk__in=sent, status__in=["stored", "failed"]).count() == len(sent)

    def ingesting_or_settled(sent: list[int]) -> bool:
        return bool(ingesting_now()) or settled(sent)

    hits = 0
    for _ in range(KILLS):
        # Fresh work every round, so each kill can land on a running ingest.
        before = set(expected)
        for source in rng.sample(crash_sources(), 2):
            send(source)
        sent = [pk for pk in expected if pk not in before]
        # A small file can be stored between two looks; then this round's kill misses (counted below).
        wait_until(
            functools.partial(ingesting_or_settled, sent),
            90,
            f"an upload being ingested, or this round's stored (seed {SEED})\n{worker.tail()}",
            interval=0.02,
        )
        time.sleep(rng.uniform(0.0, 0.8))
        hits += bool(ingesting_now())
        if dies == "worker":
            worker.kill()
            worker.start()
            send_sweep(redis.url())
        else:
            children = wait_until(worker.pool_children, 30, "a pool process")
            for child in children:
                os.kill(child, signal.SIGKILL)

    def all_done() -> bool:
        done = Upload.objects.filter(pk__in=expected, status__in=["stored", "failed"]).count()
        if done < len(expected):
            send_sweep(redis.url())  # beat does this every minute
            return False
        return True

    wait_until(all_done, 240, f"every upload finished (seed {SEED})\n{worker.tail()}", interval=2.0)
    uploads = {u.pk: u for u in Upload.objects.filter(pk__in=expected)}
    failed = {pk: u.error for pk, u in uploads.items() if u.status != "stored"}
    assert not failed, failed
    assert {pk: stored_rows(pk) for pk in expected} == expected
    assert {pk: uploads[pk].rows for pk in expected} == expected
    # The kills did land while uploads were being ingested, and forced re-runs.
    # Ingests are fast, so a random kill can miss; at least one must have landed.
    assert hits >= 1, f"none of {KILLS} kills hit a running ingest (seed {SEED})"
    assert any(u.attempts > 1 for u in uploads.values()), f"no upload was re-run (seed {SEED})"
