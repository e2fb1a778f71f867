"""The timing summary (issue 21) equals a recomputation from the raw timings, through loads, step changes,
re-filed and deleted uploads; answers read from it never go stale."""

from __future__ import annotations

import bisect
import json
import math
from collections import defaultdict
from datetime import timedelta

import pytest
from django.core.management import call_command

from tests.factories import make_campaign, make_user
from tests.ingest import ingest_bytes
from tests.webapp.analysis.ux_studies import timing_run
from webapp.analysis.timing_steps import timing_steps
from webapp.core.models import Campaign, Run, RunStep, Upload
from webapp.core.runs import apply_steps
from webapp.timeseries import timing_summary
from webapp.timeseries.models import (
    Measurement,
    TimingDirty,
    TimingStepPercentile,
    TimingSummaryRun,
    TimingUnitLowest,
    TimingUnitSummary,
)
from workers.tasks import ingest_upload, refresh_rollups

pytestmark = pytest.mark.django_db


def percentile(values: list[float], fraction: float) -> float:
    """PostgreSQL's ``percentile_cont``: linear interpolation between the closest ranks."""
    ordered = sorted(values)
    rank = fraction * (len(ordered) - 1)
    low = math.floor(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def recomputed(run_ids: list[int]) -> tuple[dict, dict, dict]:
    """Units, percentiles and each unit's lowest, placed in Python from the raw rows (no SQL placing)."""
    runs = {r.pk: r for r in Run.objects.filter(pk__in=run_ids)}
    steps = defaultdict(list)
    for step in RunStep.objects.filter(run_id__in=runs).order_by("started_at"):
        steps[step.run_id].append(step)
    units: dict[tuple, list[float]] = defaultdict(list)
    pooled: dict[tuple, list[float]] = defaultdict(list)
    by_unit: dict[tuple, list[float]] = defaultdict(list)
    for m in Measurement.objects.filter(run_id__in=runs):
        users = m.users
        if users is None:
            starts = [s.started_at for s in steps[m.run_id]]
            index = bisect.bisect_right(starts, m.time) - 1
            if index >= 0:
                step = steps[m.run_id][index]
                if step.ended_at is None or m.time < step.ended_at:
                    users = step.users
        if users is None:
            continue
        units[(m.run_id, m.metric, users, m.host_id, m.repetition)].append(m.value)
        pooled[(runs[m.run_id].scenario_id, m.metric, users)].append(m.value)
        by_unit[(m.run_id, m.metric, m.host_id, m.repetition)].append(m.value)
    return (
        {key: (len(v), sum(v)) for key, v in units.items()},
        {key: (len(v), percentile(v, 0.5), percentile(v, 0.95)) for key, v in pooled.items()},
        {key: sorted(v)[: timing_summary.LOWEST_KEPT] for key, v in by_unit.items()},
    )


def summarised(run_ids: list[int]) -> tuple[dict, dict, dict]:
    scenarios = set(Run.objects.filter(pk__in=run_ids).values_list("scenario_id", flat=True))
    return (
        {
            (u.run_id, u.metric, u.users, u.host_id, u.repetition): (u.n, u.total)
            for u in TimingUnitSummary.objects.filter(run_id__in=run_ids)
        },
        {
            (p.scenario_id, p.metric, p.users): (p.n, p.p50, p.p95)
            for p in TimingStepPercentile.objects.filter(scenario_id__in=scenarios)
        },
        {
            (u.run_id, u.metric, u.host_id, u.repetition): u.lowest
            for u in TimingUnitLowest.objects.filter(run_id__in=run_ids)
        },
    )


def assert_summary_is_raw(run_ids: list[int]) -> None:
    units, percentiles, lowest = summarised(run_ids)
    raw_units, raw_percentiles, raw_lowest = recomputed(run_ids)
    assert units.keys() == raw_units.keys()
    for key, (n, total) in raw_units.items():
        assert units[key][0] == n and units[key][1] == pytest.approx(total, rel=1e-12), key
    assert percentiles.keys() == raw_percentiles.keys()
    for key, expected in raw_percentiles.items():
        assert percentiles[key] == pytest.approx(expected, rel=1e-12), key
    assert lowest == raw_lowest  # stored values, no arithmetic


@pytest.fixture
def demo(client):
    call_command("load_demo", "--campaign", "demo-logon")
    for upload_id in Upload.objects.values_list("pk", flat=True):
        ingest_upload.apply(args=(upload_id,))
    assert set(Upload.objects.values_list("status", flat=True)) == {"stored"}
    campaign = Campaign.objects.get(slug="demo-logon")
    client.force_login(make_user(campaign.project, role="owner"))
    return campaign


def demo_runs(campaign: Campaign) -> list[int]:
    return list(Run.objects.filter(campaign=campaign).order_by("pk").values_list("pk", flat=True))


def test_the_worker_summarises_the_demo_timings_exactly_as_placed_from_the_raw_rows(demo):
    runs = demo_runs(demo)
    assert TimingDirty.objects.filter(run_id__in=runs).exists()  # the loader marked them
    refresh_rollups.apply()
    assert not TimingDirty.objects.exists()
    assert timing_summary.stale(runs) == []
    assert_summary_is_raw(runs)
    # Logons from the four clients on the load steps are there, at 100..1,000 users.
    logons = {u for (_, metric, u, _, _) in summarised(runs)[0] if metric == "logon"}
    assert logons == set(range(100, 1001, 100))


def test_the_timing_names_capacity_offers_are_the_raw_rows_placed_names(client, demo):
    """The summary's names (what capacity lists) equal a query over every raw timing of the campaign."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            f"""
            SELECT DISTINCT {timing_summary.TIMING_NAME} FROM measurement m JOIN core_run r ON r.id = m.run_id
            WHERE r.campaign_id = %s AND m.unit = 'ms' AND (m.users IS NOT NULL OR EXISTS (
                SELECT 1 FROM core_runstep s WHERE s.run_id = m.run_id AND m.time >= s.started_at
                AND m.time < COALESCE(s.ended_at, 'infinity')))
            ORDER BY 1
            """,
            [demo.pk],
        )
        raw = [name for (name,) in cursor.fetchall()]
    assert "logon" in raw and len(raw) >= 2
    assert timing_summary.placed_names(demo_runs(demo)) == raw
    body = client.get(f"/api/v1/campaigns/{demo.slug}/capacity?timing=logon").json()
    assert body["timings"] == raw


def test_the_endpoint_answers_from_the_summary_what_the_raw_timings_say(client, demo):
    runs = demo_runs(demo)
    _, raw_percentiles, _ = recomputed(runs)
    raw_units, _, _ = recomputed(runs)
    body = client.get(f"/api/v1/campaigns/{demo.slug}/capacity?timing=logon").json()
    assert body["scenarios"]
    assert timing_summary.stale(runs) == []  # the read refreshed what the worker had not
    for scenario in body["scenarios"]:
        for step in scenario["steps"]:
            cells = [
                v
                for (run, metric, users, _, _), v in raw_units.items()
                if metric == "logon" and users == step["users"] and run in scenario["run_ids"]
            ]
            n = sum(c[0] for c in cells)
            assert step["n"] == n and step["mean"] == pytest.approx(sum(c[1] for c in cells) / n)
            _, p50, p95 = raw_percentiles[(scenario["scenario"], "logon", step["users"])]
            assert (step["p50"], step["p95"]) == pytest.approx((p50, p95))


def test_changed_steps_make_a_run_stale_and_the_next_read_places_its_timings_again(client):
    campaign = make_campaign()
    client.force_login(make_user(campaign.project))
    # One logon per step, two minutes into it: 1,000 ms at 100 and 200 users, 1,500 at 300... (logon_ms).
    users = (100, 200, 600)
    run = timing_run(campaign, {"smb_dialect": "3.02"}, clients={"CL01": 0.0}, jitter={1: 0.0}, users=users)
    other = timing_run(campaign, {"smb_dialect": "2.1"}, clients={"CL02": 0.0}, jitter={1: 0.0}, users=users)
    refresh_rollups.apply()
    runs = [run.pk, other.pk]
    assert timing_summary.stale(runs) == []

    def steps() -> list[tuple[int, float, int]]:
        found = timing_steps([run], "logon")[run.scenario_id]
        return [(s.users, s.mean, s.n) for s in found.steps]

    assert steps() == [(100, 1000.0, 1), (200, 1000.0, 1), (600, 1500.0, 1)]
    first = run.steps.get(users=100)
    # The first step now ends a minute in, before its logon: that logon leaves the user axis.
    apply_steps(run, [(100, first.started_at, first.started_at + timedelta(minutes=1))])
    assert timing_summary.stale(runs) == [run.pk]
    assert steps() == [(200, 1000.0, 1), (600, 1500.0, 1)]
    assert timing_summary.stale(runs) == []
    assert_summary_is_raw(runs)
    # The 600-user step says 300 users instead: its logon moves there.
    RunStep.objects.filter(run=run, users=600).update(users=300)
    assert steps() == [(200, 1000.0, 1), (300, 1500.0, 1)]
    # Steps gone altogether: nothing of the run is on the user axis any more.
    RunStep.objects.filter(run=run).delete()
    assert timing_summary.stale(runs) == [run.pk]
    assert timing_steps([run], "logon") == {}
    assert not TimingUnitSummary.objects.filter(run_id=run.pk).exists()
    assert_summary_is_raw(runs)


def test_a_deleted_upload_leaves_the_summary_with_only_what_remains(client, demo):
    runs = demo_runs(demo)
    refresh_rollups.apply()
    upload = Upload.objects.filter(campaign=demo, kind="timings").order_by("pk").first()
    assert upload is not None
    gone_runs = set(Measurement.objects.filter(upload_id=upload.pk).values_list("run_id", flat=True))
    answer = client.post(f"/campaigns/{demo.slug}/uploads/{upload.pk}/delete")
    assert answer.status_code == 302
    assert set(TimingDirty.objects.values_list("run_id", flat=True)) == gone_runs
    refresh_rollups.apply()
    assert not TimingDirty.objects.exists()
    assert_summary_is_raw(demo_runs(demo))
    left = set(demo_runs(demo))
    for run_id in set(runs) - left:  # runs the delete left empty: their summary rows went too
        assert not TimingUnitSummary.objects.filter(run_id=run_id).exists()
        assert not TimingSummaryRun.objects.filter(run_id=run_id).exists()


def test_a_refiled_upload_moves_its_timings_in_the_summary(client):
    campaign = make_campaign()
    rows = [
        {"name": "logon", "started_at": f"2016-05-02T09:0{i}:00Z", "duration_ms": ms, "users": users}
        for i, (users, ms) in enumerate([(100, 900), (100, 1100), (200, 1500), (200, 1700)])
    ]
    data = json.dumps(rows).encode()
    dims = {"smb_dialect": "3.02"}
    first = ingest_bytes(campaign, data, kind="timings", host="CL01", scenario=dims, run="a")
    assert first.status == "stored", first.error
    run_a = Run.objects.get(campaign=campaign, name="a")
    found = timing_steps([run_a], "logon")[run_a.scenario_id]
    assert [(s.users, s.mean, s.n) for s in found.steps] == [(100, 1000.0, 2), (200, 1600.0, 2)]
    # The same bytes again, for run b: the upload is re-filed and its rows move.
    again = ingest_bytes(campaign, data, kind="timings", host="CL01", scenario=dims, run="b")
    assert again.pk == first.pk and again.status == "stored", again.error
    run_b = Run.objects.get(campaign=campaign, name="b")
    assert not Run.objects.filter(pk=run_a.pk).exists()  # left empty, dropped
    found = timing_steps([run_b], "logon")[run_b.scenario_id]
    assert [(s.users, s.mean, s.n, s.p50) for s in found.steps] == [
        (100, 1000.0, 2, 1000.0),
        (200, 1600.0, 2, 1600.0),
    ]
    refresh_rollups.apply()
    assert not TimingUnitSummary.objects.filter(run_id=run_a.pk).exists()
    assert not TimingSummaryRun.objects.filter(run_id=run_a.pk).exists()
    assert_summary_is_raw([run_b.pk])


def test_percentiles_of_a_subset_of_a_scenarios_runs_are_its_own(client):
    campaign = make_campaign()
    dims = {"smb_dialect": "3.02"}
    one = timing_run(campaign, dims, clients={"CL01": 0.0}, jitter={1: 0.0, 2: 100.0}, users=(100, 200))
    two = timing_run(campaign, dims, clients={"CL02": 0.0}, jitter={1: 1000.0}, users=(100, 200))
    both = timing_steps([one, two], "logon")[one.scenario_id]
    # Run one: 1,000 and 1,100 at each step; run two: 2,000. Pooled median 1,100, p95 at rank 1.9: 1,100 + 0.9 x 900.
    assert [(s.n, s.p50) for s in both.steps] == [(3, 1100.0)] * 2
    assert [s.p95 for s in both.steps] == pytest.approx([1910.0] * 2)
    alone = timing_steps([one], "logon")[one.scenario_id]
    assert [(s.n, s.mean, s.p50) for s in alone.steps] == [(2, 1050.0, 1050.0)] * 2
    assert [s.p95 for s in alone.steps] == pytest.approx([1095.0] * 2)


def test_lowest_n_beyond_the_kept_timings_reads_every_timing(client):
    campaign = make_campaign()
    client.force_login(make_user(campaign.project))
    timing_run(campaign, {"smb_dialect": "3.02"})
    query = f"timing=logon&baseline=lowest:{timing_summary.LOWEST_KEPT + 1}"
    (scenario,) = client.get(f"/api/v1/campaigns/{campaign.slug}/capacity?{query}").json()["scenarios"]
    # Fewer timings than N: the mean of all 120, offsets and jitter cancelling out:
    # (5 x 1,000 + 1,500 + 2,000 + 2,500 + 3,000 + 3,500) / 10.
    assert scenario["baseline_ms"] == pytest.approx(1750.0)


def test_a_timing_written_after_the_summary_counts_once_its_run_is_marked(client):
    campaign = make_campaign()
    run = timing_run(campaign, {"smb_dialect": "3.02"}, clients={"CL01": 0.0}, jitter={1: 0.0}, users=(100,))
    assert [s.mean for s in timing_steps([run], "logon")[run.scenario_id].steps] == [1000.0]
    step = run.steps.get()
    Measurement.objects.create(
        run=run,
        host_id=0,
        metric="logon",
        value=3000.0,
        unit="ms",
        repetition=1,
        time=step.started_at + timedelta(minutes=1),
        upload_id=0,
    )
    timing_summary.mark_dirty([run.pk])  # what the loader does in its transaction
    assert [(s.mean, s.n) for s in timing_steps([run], "logon")[run.scenario_id].steps] == [(2000.0, 2)]


def test_a_deleted_campaign_leaves_no_summary_behind(client):
    campaign = make_campaign()
    run = timing_run(campaign, {"smb_dialect": "3.02"}, clients={"CL01": 0.0}, jitter={1: 0.0}, users=(100,))
    refresh_rollups.apply()
    assert TimingUnitSummary.objects.filter(run_id=run.pk).count() == 1
    assert TimingStepPercentile.objects.filter(scenario_id=run.scenario_id).count() == 1
    campaign.delete()
    refresh_rollups.apply()
    assert not TimingUnitSummary.objects.exists() and not TimingUnitLowest.objects.exists()
    assert not TimingStepPercentile.objects.exists() and not TimingSummaryRun.objects.exists()
