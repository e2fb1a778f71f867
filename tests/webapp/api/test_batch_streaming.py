"""JSON batches are checked as a stream: limits are judged while items arrive, nothing is built per item.

The memory figures come from ``tracemalloc`` (every Python allocation the
request makes, counted exactly, not timed): before the batch was read as a
stream, a 30 MiB body of ``{}`` items built ten million dicts (~840 MiB)
before its 413.
"""

from __future__ import annotations

import gzip
import json
import tracemalloc
from typing import Any

import pytest

from webapp.core.models import Upload

pytestmark = pytest.mark.django_db

MiB = 1024 * 1024


def post(client: Any, token: str, path: str, body: bytes, **extra: Any) -> Any:
    return client.post(
        path, body, content_type="application/json", HTTP_AUTHORIZATION=f"Bearer {token}", **extra
    )


def empty_items(key: str, campaign: str, count: int) -> bytes:
    return f'{{"campaign": "{campaign}", "host": "FS01", "{key}": ['.encode() + b"{}," * (count - 1) + b"{}]}"


def peak_of(call: Any) -> tuple[Any, int]:
    tracemalloc.start()
    try:
        result = call()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return result, peak


@pytest.mark.parametrize("key", ["samples", "timings"])
def test_a_30_mib_batch_of_empty_items_is_refused_at_the_item_limit_in_bounded_memory(
    client, agent, key, settings
):
    settings.MAX_GZIP_RATIO = 0  # far past it (1000x): this checks the limit behind it
    token, campaign = agent
    body = gzip.compress(empty_items(key, campaign.slug, 10_000_000))
    assert len(body) < 64 * 1024  # what the attacker sends: tens of KiB
    post(client, token, f"/api/v1/{key}", b"{}")  # warm up: imports are not the request's memory
    response, peak = peak_of(
        lambda: post(client, token, f"/api/v1/{key}", body, HTTP_CONTENT_ENCODING="gzip")
    )
    assert peak < 16 * MiB, f"{peak / MiB:.0f} MiB"
    assert response.status_code == 413, response.content
    error = response.json()["error"]
    assert error["code"] == "batch_too_large"
    assert error["message"] == f"at least 100,001 {key} in one batch; the limit is 100,000"
    assert not Upload.objects.exists()


def test_a_batch_at_the_item_limit_is_accepted_and_stored_byte_for_byte(client, agent, settings):
    token, campaign = agent
    settings.MAX_BATCH_ITEMS = 3
    items = [{"name": "logon", "started_at": f"2015-06-01T10:00:0{i}Z", "duration_ms": i} for i in range(3)]
    raw = json.dumps({"campaign": campaign.slug, "host": "FS01", "run": "r1", "timings": items}).encode()
    response = post(client, token, "/api/v1/timings", gzip.compress(raw), HTTP_CONTENT_ENCODING="gzip")
    assert response.status_code == 202, response.content
    upload = Upload.objects.get(pk=response.json()["id"])
    assert upload.filename == "timings-batch-3.json" and upload.size == len(raw)
    assert upload.host is not None and upload.host.name == "FS01"


def test_distinct_counters_are_counted_while_streaming(client, agent, settings):
    token, campaign = agent
    settings.MAX_COLUMNS = 2
    samples = [
        {"time": "2015-06-01T10:00:00Z", "object": "Processor", "instance": str(i % 3), "value": 1.0}
        for i in range(6)
    ]
    body = json.dumps({"campaign": campaign.slug, "host": "FS01", "samples": samples}).encode()
    response = post(client, token, "/api/v1/samples", body)
    assert response.status_code == 413, response.content
    assert response.json()["error"]["code"] == "too_many_columns"
    assert response.json()["error"]["message"].startswith("at least 3 distinct counters in one batch")
    settings.MAX_COLUMNS = 3
    assert post(client, token, "/api/v1/samples", body).status_code == 202


@pytest.mark.parametrize("key", ["samples", "timings"])
def test_one_item_padded_with_millions_of_values_is_refused_before_the_worker_sees_it(
    client, agent, key, settings
):
    settings.MAX_GZIP_RATIO = 0  # far past it (1000x): this checks the limit behind it
    token, campaign = agent
    padding = b"[" + b"{}," * 5_000_000 + b"{}]"
    body = gzip.compress(
        f'{{"campaign": "{campaign.slug}", "host": "FS01", "{key}": [{{"name": "x", "junk": '.encode()
        + padding
        + b"}]}"
    )
    post(client, token, f"/api/v1/{key}", b"{}")  # warm up
    response, peak = peak_of(
        lambda: post(client, token, f"/api/v1/{key}", body, HTTP_CONTENT_ENCODING="gzip")
    )
    assert peak < 16 * MiB, f"{peak / MiB:.0f} MiB"
    assert response.status_code == 413, response.content
    error = response.json()["error"]
    assert error["code"] == "item_too_large"
    limit = "64" if key == "samples" else "1,000"
    assert error["message"] == f"{key} item 1 holds more than {limit} JSON values"
    assert not Upload.objects.exists()


def test_a_samples_batch_of_items_padded_under_the_general_item_limit_is_refused_at_its_first_item(
    client, agent
):
    """Issue 26 item 5: 26,908 items of 400 values each passed the 1,000-value item limit; the API
    walked all 10.8 million values and the worker built them. A sample holds about a dozen."""
    token, campaign = agent
    item = (
        b'{"time": "2024-01-01T00:00:00Z", "object": "Processor", "counter_name": "x", "value": 1, "pad": ['
    )
    item += b",".join([b"0"] * 392) + b"]}"
    body = (
        f'{{"campaign": "{campaign.slug}", "host": "FS01", "samples": ['.encode()
        + b",".join([item] * 26_908)
        + b"]}"
    )
    assert len(body) < 32 * MiB
    # Gzip'd (85 KB), it inflates past the ratio cap before any item is read ...
    squeezed = post(client, token, "/api/v1/samples", gzip.compress(body), HTTP_CONTENT_ENCODING="gzip")
    assert squeezed.status_code == 413 and squeezed.json()["error"]["code"] == "too_large"
    # ... and sent plain, it stops at its first item.
    response = post(client, token, "/api/v1/samples", body)
    assert response.status_code == 413, response.content
    error = response.json()["error"]
    assert (error["code"], error["message"]) == (
        "item_too_large",
        "samples item 1 holds more than 64 JSON values",
    )
    assert not Upload.objects.exists()


def test_a_huge_top_level_field_is_refused_without_being_built(client, agent):
    token, campaign = agent
    scenario = {f"k{i}": "v" for i in range(20_000)}
    body = json.dumps({"campaign": campaign.slug, "scenario": scenario, "timings": [{}]}).encode()
    response = post(client, token, "/api/v1/timings", body)
    assert response.status_code == 413, response.content
    assert response.json()["error"]["code"] == "field_too_large"
    assert not Upload.objects.exists()


@pytest.mark.parametrize(
    ("body", "code"),
    [
        (b'{"timings": {"name": "x"}}', "invalid_batch"),
        (b'{"timings": []}', "invalid_batch"),
        (b'[{"timings": [{}]}]', "invalid_batch"),
        (b'{"timings": [{}]} {"timings": [{}]}', "invalid_json"),
        (b'{"timings": [{"duration_ms": NaN}]}', "invalid_json"),
        (b'{"timings": [' + b"[" * 300 + b"]" * 300 + b"]}", "invalid_json"),
    ],
    ids=["items-not-a-list", "no-items", "not-an-object", "two-documents", "nan", "nested-300-deep"],
)
def test_a_malformed_batch_gets_a_400_with_a_json_error(client, agent, body, code):
    token, _ = agent
    response = post(client, token, "/api/v1/timings", body)
    assert response.status_code == 400, response.content
    error = response.json()["error"]
    assert error["code"] == code and error["message"]
    assert "\n" not in error["message"]
    assert not Upload.objects.exists()


def test_a_utf16_batch_is_read_as_before(client, agent):
    token, campaign = agent
    items = [{"name": "logon", "started_at": "2015-06-01T10:00:00Z", "duration_ms": 5}]
    raw = json.dumps({"campaign": campaign.slug, "host": "FS01", "timings": items}).encode("utf-16")
    response = post(client, token, "/api/v1/timings", raw)
    assert response.status_code == 202, response.content
    assert Upload.objects.get().size == len(raw)


@pytest.mark.parametrize(
    ("key", "body", "where"),
    [
        ("timings", {"host": "pc\ud800"}, "\\ud800"),
        (
            "timings",
            {"timings": [{"name": "logon\ud800", "started_at": "2024-01-01T00:00:00Z", "duration_ms": 5}]},
            "\\ud800",
        ),
        (
            "samples",
            {"samples": [{"t": "2024-01-01T00:00:00Z", "counter": "x", "value": 1}, {"\udc00": 1}]},
            "\\udc00",
        ),
    ],
)
def test_a_lone_surrogate_escape_is_refused_at_the_api(client, agent, key, body, where):
    token, campaign = agent
    items = {key: [{"name": "logon", "started_at": "2024-01-01T00:00:00Z", "duration_ms": 5}]}
    raw = json.dumps({"campaign": campaign.slug, **items, **body}).encode()
    assert b"\\ud" in raw or b"\\udc" in raw  # json.dumps escapes the half pair, as an agent's JSON would

    response = post(client, token, f"/api/v1/{key}", raw)

    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "invalid_text" and "lone surrogate escape" in error["message"], error
    assert error["message"].startswith(f"byte {raw.index(where.encode()):,} of the body")
    assert not Upload.objects.exists()
