"""Issue 26 item 13: per-address limits hold across gunicorn's worker processes.

Under ``make run`` (no Redis: the filesystem broker) the limits were counted
in each process's own memory, so two workers let through twice the limit
(38 share-link misses for a limit of 20). Here two real gunicorn workers,
without Redis, take 40 wrong share tokens from one address over separate
connections: exactly 20 are answered 404, the rest 429.
"""

from __future__ import annotations

import os
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from tests.conftest import database_url
from tests.ops.gunicorn import running_gunicorn

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]
LIMIT = 20


def status_of(port: int, path: str) -> int:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=60) as reply:
            return int(reply.status)
    except urllib.error.HTTPError as exc:
        return int(exc.code)


def test_share_link_misses_are_limited_across_two_gunicorn_workers(tmp_path: Path):
    env = {
        **os.environ,
        "DATABASE_URL": database_url(),
        "REDIS_URL": "",
        "CELERY_BROKER_URL": "filesystem://",
        "HEADROOM_SHARE_MISSES_PER_MINUTE": str(LIMIT),
    }
    with running_gunicorn(tmp_path, env, workers=2) as server:
        assert server.get("/accounts/login/", time.monotonic() + 60) == 200
        # A fixed window: start just after one opens, so all 40 guesses fall in it.
        time.sleep(61 - time.time() % 60 if time.time() % 60 > 45 else 0)
        statuses = [status_of(server.port, f"/s/not-a-token-{i}/") for i in range(2 * LIMIT)]
    assert statuses.count(404) == LIMIT, statuses
    assert statuses.count(429) == LIMIT, statuses
