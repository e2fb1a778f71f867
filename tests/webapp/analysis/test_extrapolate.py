"""Fits beyond the tested range: hand-computed least squares, the 2x cap, prediction intervals."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from webapp.analysis.extrapolate import LIMIT_FACTOR, best_fit, extrapolate, fit, t_quantile


def test_t_quantiles_match_the_table():
    assert t_quantile(1) == pytest.approx(12.706, abs=1e-3)
    assert t_quantile(8) == pytest.approx(2.306, abs=1e-3)


def test_a_linear_fit_and_its_prediction_band_by_hand():
    # x 1..4, y 1, 3, 2, 4: b = Sxy/Sxx = 4/5 = 0.8, a = 2.5 - 0.8 x 2.5 = 0.5,
    # residuals -0.3, 0.9, -0.9, 0.3 -> RSS 1.8, s = sqrt(1.8 / 2), R² = 1 - 1.8/5 = 0.64.
    found = fit("linear", [1, 2, 3, 4], [1, 3, 2, 4])
    assert found is not None
    assert found.a == pytest.approx(0.5) and found.b == pytest.approx(0.8)
    assert found.rss == pytest.approx(1.8) and found.r2 == pytest.approx(0.64)
    assert found.s == pytest.approx(math.sqrt(0.9))
    # Upper band at x = 6: 5.3 + t(2) x s x sqrt(1 + 1/4 + 3.5²/5).
    expected = 5.3 + 4.3027 * math.sqrt(0.9) * math.sqrt(1 + 0.25 + 12.25 / 5)
    assert found.band(6, t_quantile(2), +1) == pytest.approx(expected, abs=1e-3)


def test_an_exact_line_extrapolates_to_its_crossing_with_a_point_interval():
    # y = 2x + 1 at x = 1, 2, 3 reaches 9 at x = 4 (<= 2 x 3); no residual, so the interval is the point.
    found = extrapolate([1, 2, 3], [3, 5, 7], 9.0)
    assert found is not None and found.fit.model == "linear"
    assert found.users == pytest.approx(4.0)
    assert found.interval is not None
    assert found.interval[0] == pytest.approx(4.0, abs=0.01) and found.interval[1] == pytest.approx(
        4.0, abs=0.01
    )


def test_it_never_extrapolates_past_twice_the_highest_load_nor_on_a_flat_curve():
    assert extrapolate([100, 200, 300], [10, 20, 30], 61.0) is None  # 610 users > 2 x 300
    assert extrapolate([100, 200, 300], [10, 20, 30], 60.0) is not None  # exactly 2 x 300
    assert extrapolate([100, 200, 300], [30, 30, 30], 60.0) is None
    assert extrapolate([100, 200], [10, 20], 30.0) is None  # two steps are not a fit


def test_the_model_with_the_smallest_residual_wins():
    xs = [100, 200, 300, 400, 500]
    exponential = [2 * math.exp(x / 150) for x in xs]
    chosen, fits = best_fit(xs, exponential)
    assert chosen is not None and chosen.model == "exponential"
    assert fits["exponential"] == pytest.approx(1.0) and fits["linear"] < 1.0


@settings(max_examples=80, deadline=None)
@given(
    st.lists(st.floats(min_value=0.5, max_value=20.0), min_size=3, max_size=10),
    st.floats(min_value=1.0, max_value=2.0),
)
def test_an_extrapolated_point_lies_beyond_the_steps_within_twice_and_inside_its_interval(rises, reach):
    xs = [100.0 * (i + 1) for i in range(len(rises))]
    ys = [sum(rises[: i + 1]) for i in range(len(rises))]
    found = extrapolate(xs, ys, ys[-1] * reach + 0.01)
    if found is None:
        return
    assert xs[-1] < found.users <= LIMIT_FACTOR * xs[-1]
    if found.interval is not None:
        assert found.interval[0] <= found.users + 0.01 and found.users <= found.interval[1] + 0.01
