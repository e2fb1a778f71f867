"""Guarantee 2: uploads that arrive while the broker is down are answered 202, kept, and ingested later.

The test stops its private Redis (no persistence: a crash loses every
message), sends HEADROOM_RELIABILITY_UPLOADS timings batches (50 in CI, 500
in ``make reliability``) through a real gunicorn, and checks each was answered
202 and persisted as ``received`` with its raw bytes. Then Redis comes back,
the sweeper runs (the message beat sends every minute) and a real worker
stores every upload: none is left ``received``, none is stored twice.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest
from django.core.files.storage import storages
from django.db import connection

from tests.conftest import database_url
from tests.factories import make_campaign, make_token
from tests.reliability.services import Client, Stack, env_int, send_sweep, wait_until
from tests.reliability.sources import timings_batch
from webapp.core.models import Upload

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

UPLOADS = env_int("HEADROOM_RELIABILITY_UPLOADS", 50)
ITEMS = 5


def test_uploads_sent_while_the_broker_is_down_are_all_ingested_once_it_is_back(stack: Stack):
    redis = stack.redis()
    env = stack.env(database_url(), redis.url())
    web = stack.gunicorn(env, workers=3)
    worker = stack.worker(env)
    campaign = make_campaign()
    _, token = make_token(campaign.project)
    api = Client(web.base, token)

    redis.stop()
    with ThreadPoolExecutor(max_workers=8) as pool:
        replies = list(
            pool.map(
                lambda i: api.post_json("/api/v1/timings", timings_batch(campaign.slug, i, ITEMS)),
                range(UPLOADS),
            )
        )
    assert [r.status for r in replies] == [202] * UPLOADS, [r.body for r in replies if r.status != 202][:3]
    ids = [r.body["id"] for r in replies]
    assert len(set(ids)) == UPLOADS
    uploads = Upload.objects.filter(pk__in=ids)
    assert {u.status for u in uploads} == {"received"}
    assert all(storages["raw"].exists(u.storage_key) for u in uploads)

    redis.start()
    send_sweep(redis.url())

    def all_stored() -> bool:
        waiting = Upload.objects.filter(pk__in=ids).exclude(status="stored").count()
        if waiting and Upload.objects.filter(pk__in=ids, status="received").exists():
            send_sweep(redis.url())
        return waiting == 0

    wait_until(all_stored, 60 + UPLOADS * 0.5, f"every upload stored\n{worker.tail()}", interval=2.0)
    assert not Upload.objects.filter(pk__in=ids, status="received").exists()
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT upload_id, count(*) FROM measurement WHERE upload_id = ANY(%s) GROUP BY upload_id", [ids]
        )
        counts = dict(cursor.fetchall())
    assert counts == dict.fromkeys(ids, ITEMS)
