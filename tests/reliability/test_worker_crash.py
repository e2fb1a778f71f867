"""Guarantee 1: an accepted upload survives its worker being SIGKILLed mid-ingest, and is stored once.

A real Celery worker ingests uploads sent through a real gunicorn and a
private Redis; the test SIGKILLs it HEADROOM_RELIABILITY_KILLS times (5 in CI,
20 in ``make reliability``) while an upload is being ingested, then lets it
come back. Every kill lands on a running ingest by construction, not by
timing: the worker runs with the test-only pause point of ``workers.testhooks``,
each round arms one stage, in turn -- ``claimed`` (claim made, lock held,
nothing read), ``copying`` (a perfmon trace's samples sent, its COPY still
open) or ``loaded`` (every row COPY'd and the upload marked stored, the
transaction not yet committed) -- and the test kills the process the moment an
ingest waits there, after checking that its upload is ``parsing`` with its
claim lock held. Two ways to die:

* ``worker``: the whole solo worker is killed and started again. Its message
  stays unacknowledged in Redis until the visibility timeout (an hour), so it
  is the sweeper that finds the orphaned claim -- its advisory lock vanished
  with the dead connection -- and queues the upload again.
* ``pool-child``: the prefork pool process running the ingest is killed; the
  parent survives and, with ``acks_late`` + ``reject_on_worker_lost``, puts the
  message straight back on the queue; the redelivered task re-claims under its
  own task id.

In the end every upload is ``stored`` with exactly the rows an uninterrupted
parse of its file yields: nothing lost, nothing doubled; and every upload whose
ingest was killed was run again.
"""

from __future__ import annotations

import functools
import os
import random
import shutil
import signal
import time
from pathlib import Path

import pytest
from django.db import connection

from tests.conftest import database_url
from tests.factories import make_campaign, make_project, make_token
from tests.ingest import stored_rows
from tests.reliability.services import Client, Stack, env_int, send_sweep, wait_until
from tests.reliability.sources import Source, crash_sources, expected_rows, on_machine
from webapp.core.models import Upload
from workers import ingest, testhooks

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

KILLS = env_int("HEADROOM_RELIABILITY_KILLS", 5)
SEED = env_int("HEADROOM_RELIABILITY_SEED", random.randrange(1_000_000))


# The state of the worker's database session at each pause point (pg_stat_activity).
SESSION_AT = {"claimed": "idle", "copying": "active", "loaded": "idle in transaction"}


def claims_held() -> dict[int, str]:
    """Uploads a live task is working on (``parsing``, claim lock held), with its session's state.

    Read from ``pg_locks`` rather than by trying the lock: a probe that takes
    the lock, however briefly, is a second claimant and can make a starting
    task skip its upload.
    """
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT u.id, a.state FROM core_upload u JOIN pg_locks l ON l.locktype = 'advisory' AND l.granted"
            " AND l.classid = %s AND l.objid = u.id %% 2147483648 AND l.objsubid = 2"
            # Locks are the server's, not this database's: another database's upload ids match too.
            " AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())"
            " JOIN pg_stat_activity a ON a.pid = l.pid WHERE u.status = %s",
            [ingest.CLAIM_LOCK, Upload.Status.PARSING],
        )
        return {row[0]: row[1] for row in cursor.fetchall()}


def arm(pauses: Path, stage: str) -> None:
    """Have the next first-attempt ingest that reaches ``stage`` stop there (``workers.testhooks``)."""
    (pauses / f"{stage}.arm").touch()


def held(pauses: Path, stage: str) -> tuple[int, int] | None:
    """(upload id, pid) of the ingest the worker holds at ``stage``, once it is there."""
    try:
        upload_id, pid = (pauses / f"{stage}.reached").read_text().split()
    except FileNotFoundError:
        return None
    return int(upload_id), int(pid)


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
    pauses = stack.log_dir / f"{stack.name}-pause"
    shutil.rmtree(pauses, ignore_errors=True)
    pauses.mkdir(parents=True)
    # A solo worker killed after taking a message but before claiming its upload leaves it
    # 'queued'; the sweeper sends it again after HEADROOM_REQUEUE_AFTER_SECONDS (10 min in production).
    env = stack.env(
        database_url(),
        redis.url(),
        HEADROOM_TOKEN_RATE_PER_MINUTE="0",
        HEADROOM_REQUEUE_AFTER_SECONDS="5",
        **{testhooks.PAUSE_DIR_ENV: str(pauses)},
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
        # Each upload its own machine: a log's counters belong to the machine its paths name.
        data = on_machine(source.data, f"M{len(expected)}")
        reply = api.upload(campaign.slug, data, source.name, host=host, **dict(source.fields))
        assert reply.status == 202, reply.body
        expected[reply.body["id"]] = counts[source.name]

    swept = [0.0]

    def beat() -> None:
        """Orphaned claims are given back meanwhile, as beat would."""
        if time.monotonic() - swept[0] > 2.0:
            send_sweep(redis.url())
            swept[0] = time.monotonic()

    def held_now(stage: str) -> tuple[int, int] | None:
        beat()
        return held(pauses, stage)

    killed: dict[int, str] = {}  # upload id -> the stage its ingest was killed at
    for round_ in range(KILLS):
        # Each kill lands on a running ingest by construction: the worker stops at the armed
        # stage and the test kills it there. Fresh uploads every round, as only a first
        # attempt stops (a re-run goes through), and at least one of them is a perfmon trace,
        # which passes every stage (the timings file has no COPY of samples).
        stage = testhooks.STAGES[round_ % len(testhooks.STAGES)]
        arm(pauses, stage)
        for source in rng.sample(crash_sources(), 2):
            send(source)
        upload_id, pid = wait_until(
            functools.partial(held_now, stage),
            120,
            f"an ingest held at {stage!r} (seed {SEED})\n{worker.tail()}",
            interval=0.02,
        )
        # At the kill the upload is 'parsing' with its claim lock held; at 'copying' and 'loaded'
        # its rows are in the load's open transaction, which nobody else can see.
        assert claims_held().get(upload_id) == SESSION_AT[stage], (stage, claims_held(), SEED)
        assert stored_rows(upload_id) == 0, (stage, SEED)
        if dies == "worker":
            assert pid == worker.pid, (pid, worker.pid)  # the solo pool runs tasks in the worker itself
            worker.kill()
            (pauses / f"{stage}.reached").unlink()
            worker.start()
            send_sweep(redis.url())
        else:
            assert pid in worker.pool_children(), (pid, worker.pool_children())
            os.kill(pid, signal.SIGKILL)
            (pauses / f"{stage}.reached").unlink()
        killed[upload_id] = stage

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
    # Every kill hit a different upload mid-ingest, at both stages, and each was run again.
    print(f"seed {SEED}: {len(killed)} of {KILLS} kills hit a running ingest: {killed}")
    assert len(killed) == KILLS, killed
    assert set(killed.values()) == set(testhooks.STAGES[:KILLS]), killed
    assert {pk: uploads[pk].attempts for pk in killed if uploads[pk].attempts < 2} == {}, SEED
