"""Hostile parameter values answer 400 with a JSON error, never a 500 (issue 14, finding 6).

Each value here once reached the database or the standard library unchecked
and came back as an HTML 500: NUL bytes (PostgreSQL text cannot hold them),
values longer than their column, integers beyond the column's range, dates at
the ends of the calendar, and JSON nested deeper than Python recurses.
"""

from __future__ import annotations

import io
import json

import pytest
from django.db import connection

from tests.factories import make_user
from webapp.core.models import Host, Run, Scenario
from webapp.timeseries.models import CounterSeries

pytestmark = pytest.mark.django_db

NUL = "a\x00b"
DEEP = "[" * 100_000 + "]" * 100_000


def assert_json_400(response, code: str | None = None, status: int = 400) -> dict:
    assert response.status_code == status, (response.status_code, response.content[:500])
    assert response["Content-Type"].startswith("application/json")
    error = response.json()["error"]
    assert error["code"] and error["message"], error
    if code is not None:
        assert error["code"] == code, error
    return dict(error)


def upload(client, token, campaign_slug, **fields):
    file = io.BytesIO(b"name,started_at,duration_ms\nx,2015-01-01T00:00:00Z,5\n")
    file.name = fields.pop("filename", "t.csv")
    return client.post(
        "/api/v1/uploads",
        {"file": file, "campaign": campaign_slug, **fields},
        HTTP_AUTHORIZATION=f"Bearer {token}",
    )


@pytest.mark.parametrize(
    "fields",
    [
        {"host": NUL},
        {"run": NUL},
        {"scenario": json.dumps({"av": NUL})},
        {"scenario": json.dumps({NUL: "on"})},
        {"scenario": json.dumps({"av": "x" * 33})},
        {"scenario": json.dumps({"color": "x" * 10_000})},
        {"scenario": json.dumps({"k" * 10_000: "x"})},
        {"scenario": DEEP},
        {"scenario": json.dumps({"av": {"nested": "object"}})},
        {"step": str(2**40)},
        {"timezone": NUL},
        {"started_at": NUL},
        {"kind": NUL},
        {"role": NUL},
    ],
    ids=lambda fields: f"{next(iter(fields))}={next(iter(fields.values()))[:20]!r}",
)
def test_an_upload_with_a_hostile_field_is_refused_with_json(client, agent, fields):
    token, campaign = agent
    assert_json_400(upload(client, token, campaign.slug, **fields))


def test_an_upload_naming_a_campaign_with_a_nul_byte_finds_no_campaign(client, agent):
    token, _ = agent
    assert_json_400(upload(client, token, NUL), "not_found", status=404)


def post_json(client, token, path, body):
    return client.post(
        path, json.dumps(body), content_type="application/json", HTTP_AUTHORIZATION=f"Bearer {token}"
    )


def batch(campaign, kind):
    items: list[dict[str, object]]
    if kind == "samples":
        items = [{"time": "2015-06-01T10:00:00Z", "counter": "\\\\FS01\\Processor(_Total)\\% Processor Time"}]
    else:
        items = [{"name": "logon", "started_at": "2015-06-01T10:00:00Z", "duration_ms": 5}]
    return {"campaign": campaign.slug, "host": "FS01", kind: items}


@pytest.mark.parametrize("kind", ["samples", "timings"])
@pytest.mark.parametrize(
    "change",
    [
        {"host": NUL},
        {"run": NUL},
        {"timezone": NUL},
        {"role": NUL},
        {"scenario": {"av": NUL}},
        {"scenario": {NUL: "on"}},
        {"scenario": {"av": "x" * 33}},
        {"scenario": {"av": ["a", "list"]}},
    ],
    ids=lambda change: f"{next(iter(change))}={str(next(iter(change.values())))[:20]!r}",
)
def test_a_batch_with_a_hostile_field_is_refused_with_json(client, agent, kind, change):
    token, campaign = agent
    assert_json_400(post_json(client, token, f"/api/v1/{kind}", {**batch(campaign, kind), **change}))


@pytest.mark.parametrize("kind", ["samples", "timings"])
def test_a_batch_naming_a_campaign_with_a_nul_byte_finds_no_campaign(client, agent, kind):
    token, campaign = agent
    response = post_json(client, token, f"/api/v1/{kind}", {**batch(campaign, kind), "campaign": NUL})
    assert_json_400(response, "not_found", status=404)


@pytest.mark.parametrize(
    "change",
    [
        {"name": NUL},
        {"tool": NUL},
        {"scenario": {"av": NUL}},
        {"scenario": {NUL: "on"}},
        {"scenario": {"smb_dialect": "x" * 17}},
        {"scenario": {"k" * 10_000: "x"}},
    ],
    ids=lambda change: f"{next(iter(change))}={str(next(iter(change.values())))[:20]!r}",
)
def test_a_run_with_a_hostile_field_is_refused_with_json(client, agent, change):
    token, campaign = agent
    body = {"campaign": campaign.slug, "name": "run-1", "tool": "fsct", **change}
    assert_json_400(post_json(client, token, "/api/v1/runs", body))


@pytest.fixture
def run(agent):
    _, campaign = agent
    host = Host.objects.create(project=campaign.project, name="FS01", role="server")
    found = Run.objects.create(campaign=campaign, scenario=Scenario.for_dims(campaign, {}), name="run-1")
    found.hosts.add(host)
    series = CounterSeries.objects.create(host=host, object="Processor", instance="_Total", counter="% Time")
    return found, series


@pytest.mark.parametrize(
    "step",
    [
        {"users": 2**40, "started_at": "2015-06-01T10:00:00Z"},
        {"users": 10, "started_at": "0001-01-01T00:00:00Z"},
        {"users": 10, "started_at": "9999-12-31T23:59:59+14:00"},
        {"users": 10, "started_at": "2015-06-01T10:00:00Z", "ended_at": "9999-12-31T23:59:59-14:00"},
    ],
)
def test_a_step_out_of_range_is_refused_with_json(client, agent, run, step):
    token, _ = agent
    assert_json_400(post_json(client, token, f"/api/v1/runs/{run[0].pk}/steps", [step]))


@pytest.mark.parametrize("endpoint", ["trace", "correlation"])
@pytest.mark.parametrize(
    "bounds",
    [
        {"start": "0001-01-01T00:00:00Z", "end": "2015-06-01T10:00:00Z"},
        {"start": "2015-06-01T10:00:00Z", "end": "9999-12-31T23:59:59+14:00"},
        {"start": "0001-01-01T00:00:00Z", "end": "9999-12-31T23:59:59+14:00"},
        {"start": "0001-01-01T00:00:00+14:00", "end": "9999-12-31T23:59:59-14:00"},
    ],
)
def test_a_trace_range_at_the_ends_of_the_calendar_is_refused_with_json(client, agent, run, endpoint, bounds):
    token, _ = agent
    found, series = run
    ids = {"series": series.pk} if endpoint == "trace" else {"x": series.pk, "y": series.pk}
    response = client.get(
        f"/api/v1/runs/{found.pk}/{endpoint}", {**ids, **bounds}, HTTP_AUTHORIZATION=f"Bearer {token}"
    )
    assert_json_400(response, "invalid_range")


@pytest.mark.parametrize(
    "query",
    [
        {"counter": NUL},
        {"threshold": "nan"},
        {"threshold": "inf"},
        {"threshold": "-inf"},
        {"trim": "nan"},
    ],
)
def test_capacity_with_a_hostile_parameter_is_refused_with_json(client, agent, query):
    token, campaign = agent
    response = client.get(
        f"/api/v1/campaigns/{campaign.slug}/capacity", query, HTTP_AUTHORIZATION=f"Bearer {token}"
    )
    assert_json_400(response)


def test_compare_with_a_nul_byte_in_the_metric_is_refused_with_json(client, agent):
    token, campaign = agent
    baseline = Scenario.for_dims(campaign, {})
    response = client.get(
        f"/api/v1/campaigns/{campaign.slug}/compare?baseline={baseline.pk}&metric=%00",
        HTTP_AUTHORIZATION=f"Bearer {token}",
    )
    assert_json_400(response)


def test_upload_data_with_an_offset_beyond_bigint_is_refused_with_json(client, agent):
    token, campaign = agent
    created = upload(client, token, campaign.slug)
    assert created.status_code == 202
    response = client.get(
        f"/api/v1/uploads/{created.json()['id']}/data?offset={2**70}", HTTP_AUTHORIZATION=f"Bearer {token}"
    )
    assert_json_400(response)


def test_a_signed_in_owner_gets_the_same_json_refusals(client, campaign):
    client.force_login(make_user(campaign.project, role="owner"))
    body = {"campaign": campaign.slug, "name": NUL}
    assert_json_400(client.post("/api/v1/runs", json.dumps(body), content_type="application/json"))
    response = client.get(f"/api/v1/campaigns/{campaign.slug}/capacity", {"counter": NUL})
    assert_json_400(response)


def test_an_unexpected_error_under_the_api_answers_json_500(client, agent):
    """A real failure no validation foresees: the table the endpoint reads is gone."""
    token, campaign = agent
    created = upload(client, token, campaign.slug)
    assert created.status_code == 202
    with connection.cursor() as cursor:
        cursor.execute("ALTER TABLE measurement RENAME TO measurement_gone_for_this_test")
    client.raise_request_exception = False
    response = client.get(
        f"/api/v1/uploads/{created.json()['id']}/data", HTTP_AUTHORIZATION=f"Bearer {token}"
    )
    assert response.status_code == 500
    assert response["Content-Type"].startswith("application/json")
    error = response.json()["error"]
    assert error["code"] == "server_error" and error["message"]
    assert "measurement_gone_for_this_test" not in error["message"]  # no internals to the caller
