"""Welch's t-test and the saturation rule, on numbers checked by hand."""

from __future__ import annotations

import pytest

from webapp.analysis.saturation import StepStat, saturation_point
from webapp.analysis.stats import regularized_beta, stdev, welch_p_value


def test_it_computes_welchs_p_value_like_the_textbook():
    # t = -1, df = 8 -> two-sided p = 0.3466 (Student's t table).
    assert welch_p_value([1, 2, 3, 4, 5], [2, 3, 4, 5, 6]) == pytest.approx(0.3466, abs=1e-4)
    # Unequal variances (2.5 vs 10): t = -3.795, Welch df = 5.88 -> two-sided p = 0.0094.
    assert welch_p_value([10, 11, 12, 13, 14], [14, 16, 18, 20, 22]) == pytest.approx(0.0094, abs=2e-4)
    assert welch_p_value([1.0], [2.0, 3.0]) is None


def test_the_incomplete_beta_matches_known_values():
    assert regularized_beta(1, 1, 0.3) == pytest.approx(0.3)
    assert regularized_beta(2, 3, 0.4) == pytest.approx(0.5248)
    assert stdev([2, 4, 4, 4, 5, 5, 7, 9]) == pytest.approx(2.138, abs=1e-3)


def test_it_interpolates_between_the_last_step_below_and_the_first_above():
    steps = [StepStat(100, 40.0), StepStat(200, 70.0), StepStat(300, 90.0)]
    result = saturation_point(steps, 80.0)
    assert result.bound == "interpolated"
    assert result.users == pytest.approx(250.0)
    assert result.text == "250 users"


def test_it_reports_not_reached_and_below_first_step():
    assert (
        saturation_point([StepStat(100, 10.0), StepStat(200, 20.0)], 80).text == "> 200 users (not reached)"
    )
    below = saturation_point([StepStat(100, 85.0), StepStat(200, 95.0)], 80)
    assert below.bound == "below_first_step" and below.text == "< 100 users"
    assert saturation_point([], 80).bound == "no_data"


def test_an_overloaded_step_counts_as_saturated():
    steps = [StepStat(100, 40.0), StepStat(200, 50.0, overloaded=True), StepStat(300, 90.0)]
    assert saturation_point(steps, 80.0).users == 200.0
