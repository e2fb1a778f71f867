"""Guarantee 5: every limit answers with a clear 4xx (or, for what only parsing can see, a clear error).

Limits the API can check before it answers -- body sizes, gzip bombs, items
and distinct counters per batch, requests per token per minute, malformed
JSON, and for uploaded files the length of every line and the columns of a
perfmon header (judged while the bytes stream in) -- are refused at once with
a JSON error and nothing stored. Files that reach the parsers another way
(campaign import, re-parse) meet the same limits there: the upload fails with
a message naming the limit and leaves no rows.

Already covered elsewhere (tests/webapp/api/test_uploads.py): upload size
(``test_it_refuses_an_upload_over_the_size_limit_with_413``) and the gzip bomb
in a multipart upload (``test_it_refuses_a_gzip_bomb_with_413``).
"""

from __future__ import annotations

import gzip
import io
import json
import time

import pytest

from tests.factories import make_token
from tests.ingest import ingest_bytes, stored_rows
from tests.paths import FIXTURES
from webapp.api import ratelimit
from webapp.core.models import Upload

pytestmark = pytest.mark.django_db

PERFMON = FIXTURES / "perfmon_csv" / "waflia_DataCollector01_ruRU_cp1251.csv"  # 1,104 counter columns


def post_json(client, token, path, body, **extra):
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    return client.post(
        path, data, content_type="application/json", HTTP_AUTHORIZATION=f"Bearer {token}", **extra
    )


def samples(campaign, count, counters=1):
    return {
        "campaign": campaign.slug,
        "host": "FS01",
        "samples": [
            {
                "time": f"2015-06-01T10:{i // 60 % 60:02d}:{i % 60:02d}Z",
                "object": "Processor",
                "instance": str(i % counters),
                "counter_name": "% Processor Time",
                "value": 1.0,
            }
            for i in range(count)
        ],
    }


def assert_refused(response, status, code):
    assert response.status_code == status, response.content
    error = response.json()["error"]
    assert error["code"] == code and error["message"]
    assert not Upload.objects.exists()
    return error


def test_a_batch_with_more_samples_than_allowed_is_refused_with_413(client, agent, settings):
    token, campaign = agent
    settings.MAX_BATCH_ITEMS = 10
    response = post_json(client, token, "/api/v1/samples", samples(campaign, 11))
    assert_refused(response, 413, "batch_too_large")
    assert "11 samples in one batch; the limit is 10" in response.json()["error"]["message"]


def test_a_batch_with_more_distinct_counters_than_columns_allowed_is_refused_with_413(
    client, agent, settings
):
    token, campaign = agent
    settings.MAX_COLUMNS = 5
    response = post_json(client, token, "/api/v1/samples", samples(campaign, 6, counters=6))
    assert_refused(response, 413, "too_many_columns")
    assert post_json(client, token, "/api/v1/samples", samples(campaign, 6, counters=5)).status_code == 202


def test_a_json_body_over_the_size_limit_is_refused_with_413(client, agent, settings):
    token, campaign = agent
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 10_000
    response = post_json(client, token, "/api/v1/timings", samples(campaign, 200))
    assert_refused(response, 413, "too_large")


def test_a_gzip_bomb_posted_as_a_json_batch_is_refused_with_413(client, agent, settings):
    token, _ = agent
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 100_000
    bomb = gzip.compress(b'{"samples": [' + b" " * 50_000_000 + b"]}")
    assert len(bomb) < 100_000
    response = post_json(client, token, "/api/v1/samples", bomb, HTTP_CONTENT_ENCODING="gzip")
    assert_refused(response, 413, "too_large")


@pytest.mark.parametrize(
    "body",
    [b"[" * 100_000 + b"]" * 100_000, b'{"timings": [' + b"9" * 5000 + b"]}", b"\xff\xfe{}", b"{"],
    ids=["nested-100k-deep", "5000-digit-integer", "not-utf8", "truncated"],
)
def test_malformed_json_batches_get_a_400_never_a_500(client, agent, body):
    token, _ = agent
    for path in ("/api/v1/samples", "/api/v1/timings"):
        assert_refused(post_json(client, token, path, body), 400, "invalid_json")


def post_file(client, token, campaign, data, **fields):
    body = {"file": io.BytesIO(data), "campaign": campaign.slug, **fields}
    body["file"].name = "trace.csv"
    return client.post("/api/v1/uploads", body, HTTP_AUTHORIZATION=f"Bearer {token}")


def too_long_second_line() -> bytes:
    header, rest = PERFMON.read_bytes().split(b"\n", 1)
    return header + b"\n" + rest.replace(b'","', b'","' + b"9" * 200_000 + b'","', 1)


def test_a_file_with_more_columns_than_allowed_is_refused_with_413_naming_line_1(client, agent, settings):
    token, campaign = agent
    settings.MAX_COLUMNS = 1000
    response = post_file(client, token, campaign, PERFMON.read_bytes(), host="FS01", timezone="Europe/Moscow")
    error = assert_refused(response, 413, "too_many_columns")
    assert error["message"].startswith("trace.csv: line 1: the perfmon header has 1,104 counter columns")
    assert "more than the limit of 1,000" in error["message"] and error["details"] == {"line": 1}
    assert not Upload.objects.filter(campaign=campaign).exists()


def test_a_file_with_a_line_over_the_limit_is_refused_with_413_naming_the_line(client, agent, settings):
    token, campaign = agent
    settings.MAX_LINE_BYTES = 100_000
    response = post_file(
        client, token, campaign, too_long_second_line(), host="FS01", timezone="Europe/Moscow"
    )
    error = assert_refused(response, 413, "line_too_long")
    assert error["message"].startswith("trace.csv: line 2 is longer than the limit of 100,000 bytes")
    assert not Upload.objects.filter(campaign=campaign).exists()


def test_files_that_reach_the_parser_another_way_get_the_same_limits(campaign, settings):
    """Imports and re-parses skip the API: the parser fails such files with a message and no rows."""
    settings.MAX_COLUMNS = 1000
    wide = ingest_bytes(
        campaign, PERFMON.read_bytes(), filename="wide.csv", host="FS01", timezone="Europe/Moscow"
    )
    assert wide.status == "failed" and "more than 1,000 counter columns" in wide.error["message"]
    assert wide.error["line"] == 1 and stored_rows(wide.pk) == 0
    settings.MAX_COLUMNS = 20_000
    settings.MAX_LINE_BYTES = 100_000
    long = ingest_bytes(
        campaign, too_long_second_line(), filename="long.csv", host="FS01", timezone="Europe/Moscow"
    )
    assert long.status == "failed" and "longer than the limit" in long.error["message"]
    assert long.error["line"] == 2 and stored_rows(long.pk) == 0


@pytest.fixture
def rate_limit(settings):
    """A small limit counted in the test broker's Redis, with no back-off left from other tests."""
    if not settings.CELERY_BROKER_URL.startswith("redis://"):
        pytest.skip("the token rate limit is counted in Redis")
    settings.TOKEN_RATE_PER_MINUTE = 3
    ratelimit._skip_until = 0.0
    left = ratelimit.WINDOW_SECONDS - time.time() % ratelimit.WINDOW_SECONDS
    if left < 10:  # the requests must share one fixed window
        time.sleep(left)
    yield 3
    ratelimit._skip_until = 0.0


def test_a_token_over_its_requests_per_minute_gets_429_with_retry_after(client, agent, rate_limit):
    token, campaign = agent
    other_token = make_token(campaign.project, "other")[1]
    auth = {"HTTP_AUTHORIZATION": f"Bearer {token}"}
    statuses = [client.get("/api/v1/uploads/1", **auth).status_code for _ in range(rate_limit)]
    assert statuses == [404] * rate_limit
    response = client.get("/api/v1/uploads/1", **auth)
    assert response.status_code == 429
    assert 1 <= int(response["Retry-After"]) <= 60
    assert response.json()["error"]["code"] == "rate_limited"
    assert response.json()["error"]["details"] == {"limit": 3, "retry_after": int(response["Retry-After"])}
    # The window is per token: another agent of the same project is not slowed down.
    assert client.get("/api/v1/uploads/1", HTTP_AUTHORIZATION=f"Bearer {other_token}").status_code == 404


def test_the_rate_limit_lets_requests_through_when_redis_is_down(client, agent, rate_limit, settings):
    from tests.ports import free_port

    token, _ = agent
    settings.CELERY_BROKER_URL = f"redis://127.0.0.1:{free_port()}/0"  # nothing listens there
    auth = {"HTTP_AUTHORIZATION": f"Bearer {token}"}
    statuses = [client.get("/api/v1/uploads/1", **auth).status_code for _ in range(rate_limit + 2)]
    assert statuses == [404] * (rate_limit + 2)
