"""Intervals around the saturation point and differences between scenarios, by hand and by property."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from webapp.analysis.saturation import StepStat, saturation_point
from webapp.analysis.uncertainty import (
    Uncertainty,
    bootstrap,
    combine,
    difference,
    quantiles,
    saturation_interval,
    step_bounds,
)

USERS = (100, 200, 300, 400, 500)


def curve(values, users=USERS):
    return {u: (float(v), False) for u, v in zip(users, values, strict=True)}


def interval_of(curves, threshold=80.0):
    points = combine(curves, [1] * len(curves))
    found = saturation_point(points, threshold)
    return found, saturation_interval(curves, points, found, threshold)


def test_one_run_gives_the_interpolations_step_bounds():
    points = [StepStat(100, 40.0), StepStat(200, 70.0), StepStat(300, 90.0)]
    found = saturation_point(points, 80.0)
    assert found.users == pytest.approx(250.0)
    assert step_bounds(points, found) == (200.0, 300.0)
    # Crossing exactly at a step: still between the step below and that step.
    exact = saturation_point(points, 90.0)
    assert exact.users == 300.0 and step_bounds(points, exact) == (200.0, 300.0)
    one = saturation_interval([curve((40, 70, 90, 95, 99))], points, found, 80.0)
    assert one.interval == (200.0, 300.0) and one.method == "step_bounds"


def test_two_runs_are_bootstrapped_exactly_by_hand():
    # Run A crosses 80 at 150 users, run B at 200. Resamples: AA (1/4) -> 150, AB (1/2): the mean
    # curve 50, 90 crosses at 175, BB (1/4) -> 200. 2.5th and 97.5th percentiles: 150 and 200.
    a, b = curve((60, 100), (100, 200)), curve((40, 80), (100, 200))
    distribution = sorted(bootstrap([a, b], 80.0))
    assert distribution == [(150.0, 0.25), (175.0, 0.5), (200.0, 0.25)]
    found, result = interval_of([a, b])
    assert found.users == pytest.approx(175.0)
    assert result.interval == (150.0, 200.0) and result.method == "bootstrap"


def test_three_runs_enumerate_ten_resamples_whose_extremes_bound_the_interval():
    runs = [curve((50, 70, 90, 95, 99)), curve((40, 60, 80, 90, 95)), curve((60, 76, 86, 95, 99))]
    distribution = bootstrap(runs, 80.0)
    assert len(distribution) == 10 and sum(w for _, w in distribution) == pytest.approx(1.0)
    # Each "all the same run" resample weighs 1/27 > 2.5 %, so the interval spans the single runs' points:
    # 250, 300 and 240 users (76 -> 86 between 200 and 300: 200 + 4/10 x 100).
    low, high = quantiles(distribution)
    assert low == pytest.approx(240.0) and high == pytest.approx(300.0)


def test_more_than_six_runs_use_seeded_draws_and_answer_the_same_every_time():
    runs = [curve((40 + i, 60 + i, 80 + i, 90, 95)) for i in range(8)]
    first, second = interval_of(runs)[1], interval_of(runs)[1]
    assert first.interval == second.interval and first.interval is not None
    assert len(first.distribution) == 1000


def test_an_interval_is_null_when_resamples_do_not_cross():
    crossing, flat = curve((50, 70, 90, 95, 99)), curve((10, 20, 30, 40, 50))
    found, result = interval_of([crossing, flat], threshold=60.0)
    assert found.bound == "interpolated" and result.interval is None


def test_a_difference_with_repeated_runs_is_significant_when_its_interval_excludes_zero():
    fast = [curve((50, 70, 90, 95, 99)), curve((52, 71, 90, 95, 99))]
    slow = [curve((70, 85, 95, 99, 99)), curve((72, 86, 95, 99, 99))]
    (p_fast, u_fast), (p_slow, u_slow) = ((interval_of(r)[0].users, interval_of(r)[1]) for r in (fast, slow))
    found = difference((p_fast, u_fast), (p_slow, u_slow))
    assert found.pct == pytest.approx((p_slow - p_fast) / p_fast * 100)
    assert found.significant and found.interval is not None and found.interval[1] < 0
    assert found.runs == (2, 2) and found.as_dict()["verdict"] == "significant"


def test_a_difference_of_single_runs_uses_interval_arithmetic_on_step_bounds():
    # 250 users in [200, 300] vs 150 users in [100, 200]: -40 %, from 100/300 - 1 to 200/200 - 1.
    base = Uncertainty((200.0, 300.0), "step_bounds", 1, [])
    other = Uncertainty((100.0, 200.0), "step_bounds", 1, [])
    found = difference((250.0, base), (150.0, other))
    assert found.pct == pytest.approx(-40.0)
    assert found.interval is not None
    assert found.interval[0] == pytest.approx(-66.667, abs=1e-3) and found.interval[1] == 0.0
    assert found.significant is None


def test_single_runs_get_an_interval_but_no_verdict_even_when_it_excludes_zero():
    # Issue 20 item 9, the demo's AV study: 833.3 users in [800, 900] (AV on, one run) against 1,031.4 in
    # [1,000, 1,100] (AV off, one run) is -19.2 %, from 800/1,100 - 1 = -27.3 % to 900/1,000 - 1 = -10 %:
    # an interval clear of 0, yet one run per side cannot say the difference is real.
    base = Uncertainty((1000.0, 1100.0), "step_bounds", 1, [])
    other = Uncertainty((800.0, 900.0), "step_bounds", 1, [])
    found = difference((1031.4, base), (833.3, other))
    assert found.pct == pytest.approx((833.3 - 1031.4) / 1031.4 * 100)
    assert found.interval == pytest.approx((800 / 1100 * 100 - 100, -10.0))
    assert found.significant is None
    assert found.as_dict()["significant"] is None and found.as_dict()["verdict"] == "too few runs"
    # Two runs against one: still too few on one side.
    two = Uncertainty((700.0, 900.0), "bootstrap", 2, [(700.0, 0.5), (900.0, 0.5)])
    assert difference((1031.4, base), (800.0, two)).significant is None


monotone_runs = st.lists(
    st.lists(st.floats(min_value=0.5, max_value=30.0), min_size=len(USERS), max_size=len(USERS)),
    min_size=2,
    max_size=3,
)


def rising(steps):
    """A monotone curve from positive increments."""
    total, values = 0.0, []
    for step in steps:
        total += step
        values.append(total)
    return curve(values)


@settings(max_examples=60, deadline=None)
@given(monotone_runs, st.floats(min_value=5.0, max_value=60.0))
def test_the_interval_contains_the_point(increments, threshold):
    found, result = interval_of([rising(i) for i in increments], threshold)
    if found.bound == "interpolated" and result.interval is not None:
        assert result.interval[0] <= found.users <= result.interval[1]


@settings(max_examples=60, deadline=None)
@given(monotone_runs, st.floats(min_value=5.0, max_value=60.0))
def test_more_runs_never_widen_the_interval_on_identical_data(increments, threshold):
    runs = [rising(i) for i in increments]
    found, once = interval_of(runs, threshold)
    _, twice = interval_of(runs + runs, threshold)
    if found.bound == "interpolated" and once.interval is not None:
        assert twice.interval is not None
        assert twice.interval[1] - twice.interval[0] <= once.interval[1] - once.interval[0] + 1e-9
    # Copies of one run: every resample is that run, the interval is the point.
    _, same = interval_of([runs[0]] * 4, threshold)
    if same.interval is not None:
        assert same.interval[0] == same.interval[1]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(min_value=0.5, max_value=30.0), min_size=5, max_size=5), st.floats(1.0, 100.0))
def test_on_a_rising_curve_a_higher_threshold_never_gives_fewer_users(increments, threshold):
    points = combine([rising(increments)], [1])
    low, high = saturation_point(points, threshold), saturation_point(points, threshold * 1.1)
    if low.users is not None and high.users is not None and {low.bound, high.bound} == {"interpolated"}:
        assert high.users >= low.users - 1e-9
        assert USERS[0] <= low.users <= USERS[-1]
