"""Kept 95th percentiles equal the raw computation on every real perfmon log, and go when samples change.

Committed (transaction=True) so the worker's refresh really runs on TimescaleDB too.
"""

from __future__ import annotations

import csv
import io
import statistics
from datetime import datetime, timedelta

import pytest
from django.db import connection

from tests.factories import make_user
from tests.ingest import ingest_bytes
from tests.paths import FIXTURES
from webapp.analysis.window_percentiles import digest, forget_dirty, window_p95
from webapp.analysis.windows import Window, step_window
from webapp.core.models import Run, RunStep, Upload
from webapp.timeseries.models import CounterSeries, RollupDirty, WindowPercentile
from workers.tasks import refresh_rollups

pytestmark = pytest.mark.django_db(transaction=True)

# file -> the zone given with the upload (the cp1251 log's bias was cut off)
FILES = {
    "iversonlu_SystemPerformance_DCS_ChinaTZ_2633cols.csv": "",
    "narmadha_DataCollector01_LogicalDisk_IST.csv": "",
    "rajitharul_perfmon_SriLanka_1.2MB.csv": "",
    "waflia_DataCollector01_ruRU_cp1251.csv": "Europe/Moscow",
}
WITH_CPU = {"iversonlu_SystemPerformance_DCS_ChinaTZ_2633cols.csv", "rajitharul_perfmon_SriLanka_1.2MB.csv"}
SMALL = "narmadha_DataCollector01_LogicalDisk_IST.csv"


def load(campaign, name: str, data: bytes | None = None) -> Run:
    """The run the stored upload went into (host SRV, a server; run "r1")."""
    path = FIXTURES / "perfmon_csv" / name
    meta = {"host": "SRV", "role": "server", "timezone": FILES[name], "run": "r1", "filename": name}
    upload = ingest_bytes(campaign, data if data is not None else path.read_bytes(), **meta)
    assert upload.status == Upload.Status.STORED, upload.error
    assert upload.run is not None
    return upload.run


def four_steps(run: Run) -> list[RunStep]:
    """Four load steps (100..400 users) splitting the run's span evenly."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT min(time), max(time) FROM counter_sample WHERE upload_id IN "
            "(SELECT id FROM core_upload WHERE run_id = %s)",
            [run.pk],
        )
        first, last = cursor.fetchone()
    quarter = (last - first) / 4
    return [
        RunStep.objects.create(
            run=run, users=100 * (i + 1), started_at=first + quarter * i, ended_at=first + quarter * (i + 1)
        )
        for i in range(4)
    ]


def step_windows(run: Run, steps: list[RunStep]) -> list[Window]:
    series = CounterSeries.objects.filter(host__in=run.hosts.all()).values_list("pk", flat=True)
    windows: list[Window] = []
    for step in steps:
        span = step_window(step, 10.0)
        assert span is not None
        windows.extend(Window(len(windows) + 1, sid, *span) for sid in sorted(series))
    return windows


def by_hand(window: Window) -> float | None:
    """percentile_cont(0.95) of the window's samples, computed here from the stored values."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT value FROM counter_sample WHERE series_id = %s AND time >= %s AND time < %s",
            [window.series_id, window.lo, window.hi],
        )
        values = sorted(v for (v,) in cursor.fetchall())
    if not values:
        return None
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=20, method="inclusive")[18]


@pytest.mark.parametrize("name", sorted(FILES))
def test_kept_percentiles_equal_the_raw_ones_on_every_real_log(campaign, name):
    run = load(campaign, name)
    steps = four_steps(run)
    windows = step_windows(run, steps)
    expected = {w.key: by_hand(w) for w in windows}
    with_samples = {k: v for k, v in expected.items() if v is not None}
    assert len(with_samples) > len(windows) // 2

    # Rollups pending: computed from the raw samples, nothing kept.
    assert RollupDirty.objects.exists()
    raw = window_p95(windows)
    assert WindowPercentile.objects.count() == 0
    # The worker's refresh drops the dirty ranges and keeps the step windows of the server's total CPU
    # (and of the limit table's counters); the first call keeps the others.
    refresh_rollups()
    assert not RollupDirty.objects.exists()
    warmed = set(WindowPercentile.objects.values_list("digest", flat=True))
    cpu = set(
        CounterSeries.objects.filter(
            host__in=run.hosts.all(), object="Processor", instance="_Total", counter="% Processor Time"
        ).values_list("pk", flat=True)
    )
    assert bool(cpu) == (name in WITH_CPU)
    cpu_windows = {digest([w]) for w in windows if w.series_id in cpu and w.key in with_samples}
    assert cpu_windows <= warmed and len(cpu_windows) == (4 if cpu else 0)
    assert len(warmed) < len(with_samples)
    kept = window_p95(windows)
    assert WindowPercentile.objects.count() == len(with_samples)
    assert window_p95(windows) == kept
    assert raw.keys() == kept.keys() == with_samples.keys()
    for key, value in with_samples.items():
        assert raw[key] == pytest.approx(value, rel=1e-12, abs=1e-12)
        assert kept[key] == raw[key]


def test_a_kept_percentile_goes_when_its_window_gets_samples(campaign):
    run = load(campaign, SMALL)
    steps = four_steps(run)
    windows = step_windows(run, steps)
    refresh_rollups()
    before = window_p95(windows)
    kept = WindowPercentile.objects.count()
    assert kept == len(before) > 0

    # The same machine's log again, half a second later and every value doubled, into the same run.
    text = (FIXTURES / "perfmon_csv" / SMALL).read_text(encoding="utf-8")
    rows = list(csv.reader(io.StringIO(text)))
    out = io.StringIO()
    writer = csv.writer(out, quoting=csv.QUOTE_ALL, lineterminator="\r\n")
    writer.writerow(rows[0])
    for row in rows[1:]:
        stamp = datetime.strptime(row[0], "%m/%d/%Y %H:%M:%S.%f") + timedelta(seconds=0.5)
        cells = [c if c.strip() in ("", " ") else repr(float(c) * 2) for c in row[1:]]
        writer.writerow([stamp.strftime("%m/%d/%Y %H:%M:%S.%f")[:-3], *cells])
    assert load(campaign, SMALL, out.getvalue().encode()) == run

    # Until the worker runs, the window reads its raw samples: the new answer, not the kept one.
    pending = window_p95(windows)
    assert WindowPercentile.objects.count() == kept  # nothing kept while dirty
    changed = [k for k in before if pending[k] != before[k]]
    assert changed, "doubling every value must move some percentile"
    for window in windows:
        assert pending.get(window.key) == pytest.approx(by_hand(window), rel=1e-12, abs=1e-12)
    refresh_rollups()
    assert window_p95(windows) == pending  # the worker dropped the old values and kept the new
    assert WindowPercentile.objects.count() == len(pending)


def test_a_value_kept_after_a_load_committed_is_dropped_with_the_loads_range(campaign):
    """What a reader keeps while a load commits is dropped when the worker takes the load's range."""
    run = load(campaign, SMALL)
    steps = four_steps(run)
    every = step_windows(run, steps)
    windows = [*every[:3], *every[-3:]]  # three series in the first step and three in the last
    refresh_rollups()
    WindowPercentile.objects.all().delete()
    window_p95(windows)
    assert WindowPercentile.objects.count() == 6
    dirty = RollupDirty.objects.create(
        start=steps[0].started_at, end=steps[0].started_at + timedelta(seconds=1)
    )
    assert forget_dirty([(dirty.start, dirty.end)], [dirty.pk]) == 3
    assert sorted(WindowPercentile.objects.values_list("lo", flat=True)) == [every[-1].lo] * 3
    assert not RollupDirty.objects.exists()


def test_capacity_p95_is_the_same_kept_or_raw(client, campaign):
    run = load(campaign, "rajitharul_perfmon_SriLanka_1.2MB.csv")
    four_steps(run)
    client.force_login(make_user(campaign.project))
    url = f"/api/v1/campaigns/{campaign.slug}/capacity?stat=p95"
    raw = client.get(url)
    assert raw.status_code == 200, raw.content
    refresh_rollups()
    assert WindowPercentile.objects.exists()
    kept = client.get(url).json()
    [a], [b] = raw.json()["scenarios"], kept["scenarios"]
    for x, y in zip(a["steps"], b["steps"], strict=True):
        assert (x["users"], x["samples"], x["max"], x["p95"]) == (
            y["users"],
            y["samples"],
            y["max"],
            y["p95"],
        )
        assert x["avg"] == pytest.approx(y["avg"], rel=1e-12)  # the rollups sum in another order
    steps = kept["scenarios"][0]["steps"]
    assert [s["users"] for s in steps] == [100, 200, 300, 400]
    assert all(s["p95"] is not None for s in steps)
