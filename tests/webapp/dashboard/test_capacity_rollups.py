"""The capacity numbers served from rollups equal raw aggregates, for any window and while rollups lag."""

from __future__ import annotations

import random
import statistics
from datetime import UTC, datetime, timedelta

import pytest
from django.db import connection

from tests.factories import make_user
from tests.webapp.dashboard.demo import load_demo
from webapp.analysis.windows import DirtyRanges, Window, window_stats
from webapp.core.models import Host, Run, RunStep
from webapp.timeseries.models import CounterSample, CounterSeries, RollupDirty
from workers.tasks import refresh_rollups

pytestmark = pytest.mark.django_db


@pytest.fixture
def demo(client):
    campaign = load_demo(kinds=("perfmon_csv",))
    client.force_login(make_user(campaign.project))
    return campaign


def raw_stats(series_id: int, lo: datetime, hi: datetime) -> tuple[int, float, float, float]:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*), sum(value), min(value), max(value) FROM counter_sample "
            "WHERE series_id = %s AND time >= %s AND time < %s",
            [series_id, lo, hi],
        )
        return cursor.fetchone()


def test_window_statistics_equal_a_raw_aggregate_for_any_window(demo):
    rng = random.Random(6)
    cpu = CounterSeries.objects.get(counter="% Processor Time")
    day = datetime(2015, 2, 18, 9, 0, tzinfo=UTC)
    windows = [
        Window(0, cpu.pk, day + timedelta(minutes=10), day + timedelta(minutes=20)),  # whole minutes
        Window(1, cpu.pk, day + timedelta(seconds=7.5), day + timedelta(seconds=50)),  # inside one minute
        Window(2, cpu.pk, day + timedelta(minutes=5, seconds=59), day + timedelta(minutes=6, seconds=1)),
    ]
    for key in range(3, 40):
        lo = day + timedelta(seconds=rng.uniform(0, 7000))
        windows.append(Window(key, cpu.pk, lo, lo + timedelta(seconds=rng.uniform(1, 3000))))
    for dirty in (DirtyRanges([]), DirtyRanges([(day, day + timedelta(hours=1))])):
        found = window_stats(windows, dirty)
        for window in windows:
            n, total, low, high = raw_stats(cpu.pk, window.lo, window.hi)
            if n == 0:
                assert window.key not in found
                continue
            got = found[window.key]
            assert (got.samples, got.minimum, got.maximum) == (n, low, high), window
            assert got.total == pytest.approx(total, rel=1e-12)


def test_one_key_s_windows_combine_whether_rollups_or_raw_samples_serve_them(demo):
    # A key (a load step) may hold windows of several hosts: one served from the rollup and its
    # edges, another read raw (shorter than a minute, or touching a dirty range).
    cpu = CounterSeries.objects.get(counter="% Processor Time")
    day = datetime(2015, 2, 18, 9, 0, tzinfo=UTC)
    spans = [
        (day + timedelta(minutes=3, seconds=7), day + timedelta(minutes=40, seconds=52)),  # rollup + edges
        (day + timedelta(minutes=50, seconds=2), day + timedelta(minutes=50, seconds=58)),  # raw only
        (day + timedelta(hours=1, minutes=5), day + timedelta(hours=1, minutes=35)),  # dirty: raw only
    ]
    dirty = DirtyRanges([(day + timedelta(hours=1), day + timedelta(hours=2))])
    found = window_stats([Window(7, cpu.pk, lo, hi) for lo, hi in spans], dirty)
    parts = [raw_stats(cpu.pk, lo, hi) for lo, hi in spans]
    assert all(part[0] > 0 for part in parts), parts
    got = found[7]
    assert (got.samples, got.minimum, got.maximum) == (
        sum(p[0] for p in parts),
        min(p[2] for p in parts),
        max(p[3] for p in parts),
    )
    assert got.total == pytest.approx(sum(p[1] for p in parts), rel=1e-12)


def test_the_capacity_answer_is_the_same_from_rollups_and_from_raw_samples(client, demo):
    url = "/api/v1/campaigns/demo/capacity?threshold=75"
    from_rollups = client.get(url).json()
    RollupDirty.objects.create(start=datetime(2015, 2, 1, tzinfo=UTC), end=datetime(2015, 3, 1, tzinfo=UTC))
    from_raw = client.get(url).json()
    assert len(from_rollups["scenarios"]) == 5
    for a, b in zip(from_rollups["scenarios"], from_raw["scenarios"], strict=True):
        assert (a["saturation_text"], a["bound"], a["samples_used"]) == (
            b["saturation_text"],
            b["bound"],
            b["samples_used"],
        )
        for x, y in zip(a["steps"], b["steps"], strict=True):
            assert (x["users"], x["samples"], x["max"]) == (y["users"], y["samples"], y["max"])
            assert x["avg"] == pytest.approx(y["avg"], rel=1e-12)


def test_the_95th_percentile_is_computed_from_raw_samples_when_chosen(client, demo):
    body = client.get("/api/v1/campaigns/demo/capacity").json()
    assert all(step["p95"] is None for s in body["scenarios"] for step in s["steps"])
    body = client.get("/api/v1/campaigns/demo/capacity?stat=p95").json()
    scenario = next(s for s in body["scenarios"] if s["dims"]["av"] == "on")
    run = Run.objects.get(scenario_id=scenario["scenario"])
    step = run.steps.get(users=500)
    assert step.ended_at is not None
    cut = (step.ended_at - step.started_at) * 0.10
    cpu = CounterSeries.objects.get(counter="% Processor Time")
    values = sorted(
        CounterSample.objects.filter(
            series=cpu, time__gte=step.started_at + cut, time__lt=step.ended_at - cut
        ).values_list("value", flat=True)
    )
    expected = statistics.quantiles(values, n=20, method="inclusive")[18]  # = percentile_cont(0.95)
    row = next(r for r in scenario["steps"] if r["users"] == 500)
    assert row["samples"] == len(values) == 32
    assert row["p95"] == pytest.approx(expected, rel=1e-12)


# Committed, so the refresh really runs on TimescaleDB too (it cannot inside a transaction).
@pytest.mark.django_db(transaction=True)
def test_repeated_runs_of_a_scenario_show_their_mean_and_spread(client, demo):
    first = Run.objects.get(name="fsct-2012r2-smb3.02-hdd-av-off")
    server = Host.objects.create(project=demo.project, name="FS02", role=Host.Role.SERVER)
    cpu = CounterSeries.objects.create(
        host=server, object="Processor", instance="_Total", counter="% Processor Time"
    )
    again = Run.objects.create(campaign=demo, scenario=first.scenario, name="hdd again", tool="perfmon")
    again.hosts.add(server)
    start = datetime(2015, 3, 2, 9, 0, tzinfo=UTC)
    samples = []
    for index, step in enumerate(first.steps.order_by("started_at")):
        began = start + timedelta(minutes=12 * index)
        RunStep.objects.create(
            run=again, users=step.users, started_at=began, ended_at=began + timedelta(minutes=10)
        )
        level = 20.0 + 9 * index  # 20 % at 100 users ... 101 % at 1,000
        samples += [
            CounterSample(series=cpu, time=began + timedelta(seconds=15 * i), value=level, upload_id=0)
            for i in range(40)
        ]
    CounterSample.objects.bulk_create(samples)
    # As the loader does: the new samples' range is dirty until the worker refreshes the rollups.
    RollupDirty.objects.create(start=start, end=start + timedelta(hours=2))
    pending = client.get("/api/v1/campaigns/demo/capacity").json()
    refresh_rollups.apply()
    assert not RollupDirty.objects.exists()
    body = client.get("/api/v1/campaigns/demo/capacity").json()
    assert body == pending
    hdd = next(s for s in body["scenarios"] if s["scenario"] == first.scenario_id)
    at_500 = next(r for r in hdd["steps"] if r["users"] == 500)
    # The first run averaged 44 % at 500 users, the repeat a flat 56 %: mean 50 %, spread 44..56.
    assert at_500["runs"] == 2 and at_500["samples"] == 32 + 32
    assert at_500["avg"] == pytest.approx(50.0) and at_500["spread"]["avg"] == pytest.approx([44.0, 56.0])
    # Means per step reach 77 % at 800 and 85.5 % at 900 users: 80 % is crossed at 800 + 3 / 8.5 x 100.
    assert hdd["bound"] == "interpolated"
    assert hdd["saturation_users"] == pytest.approx(800 + 3 / 8.5 * 100)
