"""A worker whose pool process was SIGKILLed (as the OOM killer does) goes on ingesting.

A real prefork worker, started with ``make run``'s command line, on each
broker: Kombu's filesystem transport (``make run`` without Redis) and a private
Redis (production). One upload is held at the ``claimed`` pause point of
``workers.testhooks`` in one pool process while the other pool process stores
a second upload, so both processes are known: the one busy with an ingest and
the one that has finished its task and waits for the next. The test SIGKILLs
one of them -- the busy one is what the OOM killer usually picks, but an idle
process that once parsed a big file can be the biggest -- and then sends more
uploads: every one must be stored, with its rows, by the same worker, without
a restart and without the sweeper.

On the filesystem broker Celery runs billiard's plain pool, whose idle process
used to wait for a job holding the pool's one read lock: killed there, it took
the lock with it and the worker took messages but ran nothing until restarted
(issue 26 item 9). ``workers/prefork.py`` is the fix; see docs/reliability.md.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import signal

import pytest

from tests.conftest import database_url
from tests.factories import make_campaign, make_project, make_token
from tests.ingest import stored_rows
from tests.reliability.services import Client, Stack, wait_until
from tests.reliability.sources import timings_batch
from tests.reliability.test_worker_crash import arm, held
from webapp.core.models import Upload
from workers import testhooks

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

ROWS = 5  # timings per batch
LATER_UPLOADS = 4


@pytest.mark.parametrize("victim", ["busy", "idle"])
@pytest.mark.parametrize("broker", ["filesystem", "redis"])
def test_the_worker_keeps_ingesting_after_a_pool_process_is_killed(stack: Stack, broker, victim):
    # A var dir of its own: the filesystem broker's queue lives in it and starts empty.
    var = stack.log_dir / f"{stack.name}-var"
    shutil.rmtree(var, ignore_errors=True)
    pauses = var / "pause"
    pauses.mkdir(parents=True)
    (var / "broker").mkdir()  # the launcher makes it for `make run`
    broker_url = "filesystem://" if broker == "filesystem" else stack.redis().url()
    env = stack.env(
        database_url(),
        broker_url,
        HEADROOM_VAR_DIR=str(var),
        HEADROOM_TOKEN_RATE_PER_MINUTE="0",
        **{testhooks.PAUSE_DIR_ENV: str(pauses)},
    )
    web = stack.gunicorn(env)
    worker = stack.worker(env, pool="prefork", concurrency=2)
    project = make_project()
    _, token = make_token(project)
    api = Client(web.base, token)
    campaign = make_campaign(project)

    def send(index: int) -> int:
        data = json.dumps(timings_batch(campaign.slug, index, items=ROWS)["timings"]).encode()
        reply = api.upload(campaign.slug, data, f"timings-{index}.json", host="CLIENT1")
        assert reply.status == 202, reply.body
        return int(reply.body["id"])

    def stored(upload_ids: list[int]) -> bool:
        return Upload.objects.filter(pk__in=upload_ids, status=Upload.Status.STORED).count() == len(
            upload_ids
        )

    arm(pauses, "claimed")
    first = send(0)
    upload_id, busy = wait_until(
        functools.partial(held, pauses, "claimed"), 60, f"the first upload held\n{worker.tail()}"
    )
    assert upload_id == first
    # The other pool process takes the second upload, stores it and goes back to waiting for work.
    second = send(1)
    wait_until(lambda: stored([second]), 60, f"the second upload stored\n{worker.tail()}")
    children = worker.pool_children()
    assert busy in children and len(children) == 2, (busy, children)
    idle = next(pid for pid in children if pid != busy)

    os.kill(busy if victim == "busy" else idle, signal.SIGKILL)
    (pauses / "claimed.reached").unlink()  # a live held ingest goes on
    later = [send(index) for index in range(2, 2 + LATER_UPLOADS)]

    everything = [first, second, *later]
    wait_until(
        lambda: stored(everything),
        120,
        f"every upload stored after the kill ({broker}, {victim})\n{worker.tail()}",
    )
    assert worker.running()
    assert {pk: stored_rows(pk) for pk in everything} == dict.fromkeys(everything, ROWS)
    # A killed ingest was run again: the parent gave its message back (acks_late + reject_on_worker_lost).
    attempts = Upload.objects.get(pk=first).attempts
    assert attempts >= 2 if victim == "busy" else attempts == 1, attempts
