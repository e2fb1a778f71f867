"""The trace explorer's API: buckets and fits checked against the stored samples, computed here independently."""

from __future__ import annotations

import statistics
from collections import defaultdict
from datetime import UTC, datetime, timedelta

import pytest
from django.db import connection

from tests.factories import make_campaign, make_user
from tests.webapp.dashboard.demo import load_demo
from webapp.core.models import Host, Run
from webapp.timeseries.models import CounterSeries, RollupDirty

pytestmark = pytest.mark.django_db

ORIGIN = datetime(2000, 1, 3, tzinfo=UTC)


@pytest.fixture
def demo(client):
    campaign = load_demo(kinds=("perfmon_csv",))
    client.force_login(make_user(campaign.project))
    return campaign


def run_and_series(campaign, name="fsct-2012r2-smb3.02-ssd-av-on"):
    run = Run.objects.get(campaign=campaign, name=name)
    series = {s.counter: s.pk for s in CounterSeries.objects.filter(host__runs=run)}
    return run, series


def samples(series_id: int, lo: datetime, hi: datetime) -> list[tuple[datetime, float]]:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT time, value FROM counter_sample WHERE series_id = %s AND time >= %s AND time < %s ORDER BY time",
            [series_id, lo, hi],
        )
        return cursor.fetchall()


def python_buckets(series_id: int, lo: datetime, hi: datetime, seconds: float) -> list[dict]:
    """Bucket the raw samples here, with the same origin as time_bucket/date_bin."""
    width = timedelta(seconds=seconds)
    groups: dict[datetime, list[float]] = defaultdict(list)
    for time, value in samples(series_id, lo, hi):
        groups[ORIGIN + ((time - ORIGIN) // width) * width].append(value)
    return [
        {"t": t, "n": len(v), "avg": sum(v) / len(v), "min": min(v), "max": max(v)}
        for t, v in sorted(groups.items())
    ]


def api_buckets(points: list[dict]) -> list[dict]:
    return [{**p, "t": datetime.fromisoformat(p["t"].replace("Z", "+00:00"))} for p in points]


def assert_same_buckets(got: list[dict], expected: list[dict]) -> None:
    assert [(b["t"], b["n"], b["min"], b["max"]) for b in got] == [
        (b["t"], b["n"], b["min"], b["max"]) for b in expected
    ]
    assert [b["avg"] for b in got] == pytest.approx([b["avg"] for b in expected], rel=1e-12)


def test_series_are_the_counters_of_the_runs_hosts(client, demo):
    run, _ = run_and_series(demo)
    body = client.get(f"/api/v1/runs/{run.pk}/series").json()
    assert body["run"]["name"] == run.name
    assert sorted(s["path"] for s in body["series"]) == [
        "\\\\FS01\\Memory\\Available MBytes",
        "\\\\FS01\\Network Interface(Intel[R] 82574L Gigabit Network Connection)\\Bytes Total/sec",
        "\\\\FS01\\PhysicalDisk(_Total)\\Avg. Disk Queue Length",
        "\\\\FS01\\PhysicalDisk(_Total)\\Disk Transfers/sec",
        "\\\\FS01\\Processor(_Total)\\% Processor Time",
    ]


def test_the_whole_run_at_chart_width_gives_at_most_one_bucket_per_pixel(client, demo):
    run, series = run_and_series(demo)
    cpu, iops = series["% Processor Time"], series["Disk Transfers/sec"]
    body = client.get(f"/api/v1/runs/{run.pk}/trace?series={cpu},{iops}&width=800").json()
    # The run spans 1 h 59 min 45 s: 8.98 s per pixel -> the next nice width, 10 s, from raw samples.
    assert body["bucket_seconds"] == 10 and body["source"] == "raw"
    lo, hi = datetime.fromisoformat(body["start"]), datetime.fromisoformat(body["end"])
    assert lo == datetime(2015, 2, 18, 9, 0, tzinfo=UTC) and hi == datetime(
        2015, 2, 18, 10, 59, 50, tzinfo=UTC
    )
    assert (hi - lo) / timedelta(seconds=10) <= 800
    for item in body["series"]:
        expected = python_buckets(item["id"], lo, hi, 10)
        # 15-second samples, the first left blank by perfmon: 479 of the 719 buckets hold one.
        assert len(expected) == 479
        assert_same_buckets(api_buckets(item["points"]), expected)
    assert sum(p["n"] for p in body["series"][0]["points"]) == len(samples(cpu, lo, hi))


# Committed, so the refresh really runs on TimescaleDB too and the rollups serve the trace.
@pytest.mark.django_db(transaction=True)
def test_minute_buckets_come_from_the_rollups_and_equal_the_raw_ones(client, demo):
    run, series = run_and_series(demo)
    cpu = series["% Processor Time"]
    url = f"/api/v1/runs/{run.pk}/trace?series={cpu}&width=100"
    rollup = client.get(url).json()
    raw = client.get(url + "&source=raw").json()
    assert rollup["bucket_seconds"] == 120 and rollup["source"] == "rollup" and raw["source"] == "raw"
    lo, hi = datetime.fromisoformat(rollup["start"]), datetime.fromisoformat(rollup["end"])
    expected = python_buckets(cpu, lo, hi, 120)
    assert len(expected) == 60
    assert_same_buckets(api_buckets(rollup["series"][0]["points"]), expected)
    assert_same_buckets(api_buckets(raw["series"][0]["points"]), expected)
    # While a load's rollups are pending, the same request reads the raw samples instead.
    RollupDirty.objects.create(start=run.started_at, end=run.started_at + timedelta(minutes=1))
    pending = client.get(url).json()
    assert pending["source"] == "raw"
    assert_same_buckets(api_buckets(pending["series"][0]["points"]), expected)


def test_zooming_in_asks_for_finer_buckets(client, demo):
    run, series = run_and_series(demo)
    cpu = series["% Processor Time"]
    start, end = "2015-02-18T10:00:00Z", "2015-02-18T10:10:00Z"
    body = client.get(f"/api/v1/runs/{run.pk}/trace?series={cpu}&width=800&start={start}&end={end}").json()
    assert body["bucket_seconds"] == 1 and body["source"] == "raw"
    lo, hi = datetime.fromisoformat(body["start"]), datetime.fromisoformat(body["end"])
    assert (lo, hi) == (datetime(2015, 2, 18, 10, tzinfo=UTC), datetime(2015, 2, 18, 10, 10, 1, tzinfo=UTC))
    raw = samples(cpu, lo, hi)
    points = body["series"][0]["points"]
    # The range widens to whole buckets, so the sample at 10:10:00.x is in: 41 samples, one per bucket.
    assert len(points) == len(raw) == 41
    assert [p["avg"] for p in points] == [value for _, value in raw]
    assert all(p["n"] == 1 for p in points)


def test_the_correlation_is_a_least_squares_fit_of_bucket_averages(client, demo):
    run, series = run_and_series(demo)
    cpu, iops = series["% Processor Time"], series["Disk Transfers/sec"]
    body = client.get(f"/api/v1/runs/{run.pk}/correlation?x={cpu}&y={iops}&width=400").json()
    assert body["bucket_seconds"] == 30
    lo, hi = datetime.fromisoformat(body["start"]), datetime.fromisoformat(body["end"])
    xs = {b["t"]: b["avg"] for b in python_buckets(cpu, lo, hi, 30)}
    ys = {b["t"]: b["avg"] for b in python_buckets(iops, lo, hi, 30)}
    paired = sorted(set(xs) & set(ys))
    assert [datetime.fromisoformat(p["t"]) for p in body["points"]] == paired
    x = [xs[t] for t in paired]
    y = [ys[t] for t in paired]
    slope, intercept = statistics.linear_regression(x, y)
    fit = body["fit"]
    assert fit["n"] == len(paired) == 240
    assert fit["slope"] == pytest.approx(slope, rel=1e-9)
    assert fit["intercept"] == pytest.approx(intercept, rel=1e-9, abs=1e-9)
    assert fit["r2"] == pytest.approx(statistics.correlation(x, y) ** 2, rel=1e-9)
    # The demo's IOPS follow CPU at 25 IOPS per percent (seed 001: IOPS peaks coincide with CPU peaks).
    assert fit["slope"] == pytest.approx(25, rel=0.01) and fit["r2"] > 0.999


def test_bad_requests_are_refused_clearly(client, demo):
    run, series = run_and_series(demo)
    cpu = series["% Processor Time"]
    base = f"/api/v1/runs/{run.pk}/trace?series={cpu}"
    assert client.get(base + "&width=5").json()["error"]["code"] == "invalid_width"
    bad_range = client.get(base + "&start=2015-02-18T10:00:00Z&end=2015-02-18T09:00:00Z")
    assert bad_range.status_code == 400 and bad_range.json()["error"]["code"] == "invalid_range"
    assert client.get(base + "&start=2015-02-18T10:00:00&end=2015-02-18T11:00:00").status_code == 400
    assert client.get(f"/api/v1/runs/{run.pk}/trace?series=a,b").json()["error"]["code"] == "invalid_series"
    other_host = Host.objects.create(project=demo.project, name="ELSEWHERE", role="server")
    foreign = CounterSeries.objects.create(
        host=other_host, object="Processor", instance="_Total", counter="x"
    )
    missing = client.get(f"/api/v1/runs/{run.pk}/trace?series={cpu},{foreign.pk}")
    assert missing.status_code == 404 and str(foreign.pk) in missing.json()["error"]["message"]


def test_runs_of_other_projects_are_not_found_and_anonymous_callers_are_refused(client, demo):
    run, series = run_and_series(demo)
    client.force_login(make_user(make_campaign().project))
    assert client.get(f"/api/v1/runs/{run.pk}/series").status_code == 404
    assert client.get(f"/api/v1/runs/{run.pk}/trace?series={series['% Processor Time']}").status_code == 404
    client.logout()
    assert client.get(f"/api/v1/runs/{run.pk}/series").status_code == 401
