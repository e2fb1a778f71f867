"""Capacity by user experience (issue 21): ``/capacity?timing=`` against hand-computed crossings."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest

from tests.factories import make_campaign, make_user
from tests.ingest import ingest_bytes
from tests.webapp.analysis.ux_studies import logon_ms, timing_run
from webapp.timeseries.models import Measurement

pytestmark = pytest.mark.django_db

DIMS = {"smb_dialect": "3.02"}


@pytest.fixture
def campaign(client):
    found = make_campaign()
    client.force_login(make_user(found.project))
    return found


def ux(client, campaign, query: str, status: int = 200):
    answer = client.get(f"/api/v1/campaigns/{campaign.slug}/capacity?{query}")
    assert answer.status_code == status, answer.content
    return answer.json()


def only(body):
    (scenario,) = body["scenarios"]
    return scenario


def test_four_clients_saturate_at_700_users_a_second_above_a_1000_ms_baseline(client, campaign):
    timing_run(campaign, DIMS)
    body = ux(client, campaign, "timing=logon&delta_ms=1000")
    assert (body["timing"], body["baseline"], body["delta_ms"], body["unit"]) == (
        "logon",
        "first_step",
        1000,
        "ms",
    )
    assert body["campaign"] == campaign.slug and "mean of all those timings" in body["method"]
    scenario = only(body)
    assert scenario["dims"] == DIMS
    assert scenario["baseline_ms"] == pytest.approx(1000.0)
    assert scenario["threshold_ms"] == pytest.approx(2000.0)
    # 1,500 at 600 and 2,000 at 700: the mean reaches 2,000 at 700 exactly.
    assert scenario["saturation_users"] == pytest.approx(700.0, abs=1)
    assert scenario["bound"] == "interpolated" and scenario["saturation_text"] == "700 users"
    steps = scenario["steps"]
    assert [s["users"] for s in steps] == list(range(100, 1001, 100))
    assert [s["mean"] for s in steps] == pytest.approx([logon_ms(u) for u in range(100, 1001, 100)])
    # 4 clients x 3 repetitions per step; offsets -300..+300 and jitter -50..+50 around the mean.
    assert {(s["n"], s["hosts"]) for s in steps} == {(12, 4)}
    assert steps[6]["p50"] == pytest.approx(2000.0)  # 700 users: values 1650..2350, symmetric
    # p95 of 12 values (linear interpolation at rank 10.45): 2300 + 0.45 x 50
    assert steps[6]["p95"] == pytest.approx(2322.5)
    assert scenario["runs_used"] == 1 and scenario["units_used"] == 12 and scenario["timings_used"] == 120
    # Every client's repetition is the curve shifted by a constant: every resample crosses at 700.
    assert scenario["interval_method"] == "bootstrap"
    assert scenario["interval"] == pytest.approx([700.0, 700.0])
    assert scenario["binding"]["by"] == "target" and scenario["binding"]["counter"] == "logon"


def test_a_1250_ms_margin_crosses_half_way_between_700_and_800(client, campaign):
    timing_run(campaign, DIMS)
    scenario = only(ux(client, campaign, "timing=logon&delta_ms=1250"))
    assert scenario["threshold_ms"] == pytest.approx(2250.0)
    assert scenario["saturation_users"] == pytest.approx(750.0, abs=1)
    assert scenario["bound"] == "interpolated"


def test_the_default_margin_is_1000_ms(client, campaign):
    timing_run(campaign, DIMS)
    body = ux(client, campaign, "timing=logon")
    assert body["delta_ms"] == 1000 and only(body)["saturation_users"] == pytest.approx(700.0)


def test_host_offsets_that_cancel_out_do_not_move_the_answer(client, campaign):
    timing_run(campaign, DIMS, clients={"CL01": 0.0}, jitter={1: 0.0})
    timing_run(campaign, {"smb_dialect": "2.1"}, clients={"CL01": -900.0, "CL02": 900.0}, jitter={1: 0.0})
    found = {s["dims"]["smb_dialect"]: s for s in ux(client, campaign, "timing=logon")["scenarios"]}
    assert found["3.02"]["saturation_users"] == pytest.approx(700.0)
    assert found["2.1"]["saturation_users"] == pytest.approx(700.0)
    assert found["2.1"]["baseline_ms"] == pytest.approx(1000.0)
    assert found["3.02"]["interval_method"] == "step_bounds"  # one unit: the steps around the crossing
    assert found["3.02"]["interval"] == [600.0, 700.0]


def test_a_factor_sets_the_threshold_as_a_multiple_of_the_baseline(client, campaign):
    timing_run(campaign, DIMS)
    body = ux(client, campaign, "timing=logon&factor=2.25")
    assert body["factor"] == 2.25 and "delta_ms" not in body
    scenario = only(body)
    assert scenario["threshold_ms"] == pytest.approx(2250.0)
    assert scenario["saturation_users"] == pytest.approx(750.0)


def test_lowest_n_is_the_mean_of_the_n_lowest_timings(client, campaign):
    timing_run(campaign, DIMS)
    # The lowest timings: CL01 (-300) repetition 1 (-50) at the five 1,000 ms steps: 650 each,
    # then CL01 repetition 2: 700.
    scenario = only(ux(client, campaign, "timing=logon&baseline=lowest:3"))
    assert scenario["baseline_ms"] == pytest.approx(650.0)
    assert scenario["threshold_ms"] == pytest.approx(1650.0)
    # 1,500 at 600, 2,000 at 700: 600 + 150 / 500 x 100
    assert scenario["saturation_users"] == pytest.approx(630.0)
    scenario = only(ux(client, campaign, "timing=logon&baseline=lowest:6"))
    assert scenario["baseline_ms"] == pytest.approx((5 * 650 + 700) / 6)


def test_a_first_step_already_past_the_threshold_is_below_first_step(client, campaign):
    timing_run(campaign, DIMS)
    scenario = only(ux(client, campaign, "timing=logon&baseline=lowest:1&delta_ms=300"))
    assert scenario["threshold_ms"] == pytest.approx(950.0)  # the first step's mean is 1,000
    assert scenario["bound"] == "below_first_step" and scenario["saturation_users"] == 100
    assert scenario["saturation_text"] == "< 100 users" and scenario["interval"] is None


def test_a_flat_curve_is_not_reached(client, campaign):
    timing_run(campaign, DIMS, mean=lambda users: 1000.0, users=(100, 200, 300, 400, 500))
    scenario = only(ux(client, campaign, "timing=logon"))
    assert scenario["bound"] == "not_reached" and scenario["saturation_users"] is None
    assert scenario["saturation_text"] == "> 500 users (not reached)"


def test_a_rising_curve_that_stops_short_is_extrapolated(client, campaign):
    # 1,000 ms at 100 users, 2 ms more per user: 1,800 at 500, the line reaches 2,000 at 600.
    timing_run(campaign, DIMS, mean=lambda users: 800.0 + 2.0 * users, users=(100, 200, 300, 400, 500))
    scenario = only(ux(client, campaign, "timing=logon"))
    assert scenario["bound"] == "extrapolated"
    assert scenario["saturation_users"] == pytest.approx(600.0)
    assert scenario["extrapolation"]["model"] == "linear"
    assert scenario["interval_method"] == "prediction"


def test_the_interval_bootstraps_the_clients_repetitions(client, campaign):
    # Two units: one crosses 2,000 at 700 (5 ms/user past 500), the other at 600 (10 ms/user).
    run = timing_run(campaign, DIMS, clients={"CL01": 0.0}, jitter={1: 0.0}, users=range(100, 900, 100))
    steep = {u: 1000.0 if u <= 500 else 1000.0 + 10.0 * (u - 500) for u in range(100, 900, 100)}
    timing_run(campaign, DIMS, mean=steep.__getitem__, clients={"CL02": 0.0}, jitter={1: 0.0}, run=run)
    scenario = only(ux(client, campaign, "timing=logon"))
    # Pooled: 1,750 at 600 and 2,500 at 700: 600 + 250 / 750 x 100.
    assert scenario["saturation_users"] == pytest.approx(600 + 100 / 3)
    # Resamples {A,A} 1/4 -> 700, {A,B} 1/2 -> 633.3, {B,B} 1/4 -> 600: 2.5th and 97.5th percentiles.
    assert scenario["interval_method"] == "bootstrap"
    assert scenario["interval"] == pytest.approx([600.0, 700.0])


def test_a_timing_with_no_results_has_no_scenarios(client, campaign):
    timing_run(campaign, DIMS)
    assert ux(client, campaign, "timing=launch")["scenarios"] == []


@pytest.mark.parametrize(
    ("query", "code"),
    [
        ("timing=logon&baseline=median", "invalid_baseline"),
        ("timing=logon&baseline=lowest:0", "invalid_baseline"),
        ("timing=logon&baseline=lowest:x", "invalid_baseline"),
        ("timing=logon&delta_ms=1000&factor=2", "invalid_factor"),
        ("timing=logon&factor=0", "invalid_factor"),
        ("timing=logon&factor=-1", "invalid_factor"),
        ("timing=logon&delta_ms=0", "invalid_delta_ms"),
        ("timing=logon&delta_ms=-5", "invalid_delta_ms"),
        ("baseline=lowest:3", "invalid_timing"),
        ("delta_ms=1000", "invalid_timing"),
    ],
)
def test_bad_parameters_are_a_400_naming_what_was_expected(client, campaign, query, code):
    body = ux(client, campaign, query, status=400)
    assert body["error"]["code"] == code


def test_uploaded_timings_with_users_are_placed_at_their_users_whatever_the_steps(client, campaign):
    # Two clients, no load steps at all: each row says how many sessions were active.
    rows = [
        {"name": "logon", "started_at": f"2016-05-02T09:0{i}:00Z", "duration_ms": ms, "users": users}
        for i, (users, ms) in enumerate(
            [(100, 900), (100, 1100), (200, 1500), (200, 1700), (300, 2400), (300, 2600)]
        )
    ]
    for host, half in (("CL01", rows[0::2]), ("CL02", rows[1::2])):
        upload = ingest_bytes(
            campaign, json.dumps(half).encode(), kind="timings", host=host, scenario=DIMS, run="logons"
        )
        assert upload.status == "stored", upload.error
    scenario = only(ux(client, campaign, "timing=logon"))
    assert [(s["users"], s["mean"], s["n"], s["hosts"]) for s in scenario["steps"]] == [
        (100, 1000.0, 2, 2),
        (200, 1600.0, 2, 2),
        (300, 2500.0, 2, 2),
    ]
    # Threshold 2,000: 200 + 400 / 900 x 100
    assert scenario["saturation_users"] == pytest.approx(200 + 400 / 9)


def test_a_timings_users_overrides_the_step_its_time_falls_in(client, campaign):
    run = timing_run(campaign, DIMS, clients={"CL01": 0.0}, jitter={1: 0.0}, users=(100, 200, 300))
    step = run.steps.get(users=100)
    Measurement.objects.create(
        run=run,
        host_id=0,
        metric="logon",
        value=4000.0,
        unit="ms",
        repetition=9,
        time=step.started_at + timedelta(minutes=1),
        users=300,
        upload_id=0,
    )
    steps = only(ux(client, campaign, "timing=logon"))["steps"]
    assert [(s["users"], s["mean"], s["n"]) for s in steps] == [
        (100, 1000.0, 1),
        (200, 1000.0, 1),
        (300, 2500.0, 2),
    ]
