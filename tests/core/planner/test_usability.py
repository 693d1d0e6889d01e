"""core.planner.usability: usable or too noisy, and heavy-tailed noise."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.planner import usability as us

INF = math.inf


def test_the_issues_case_is_too_noisy_and_a_tight_bound_is_usable():
    # Default population: median 147.7, bounds 0–2,000; ε_target = 0.001 gives ±1,690.
    assert not us.is_usable(1690.0, 147.7, 0.0, 2000.0, 0.5)
    assert us.is_usable(0.16, 147.7, 0.0, 2000.0, 0.5)
    assert us.relative_error(1690.0, 147.7, 0.0, 2000.0) == pytest.approx(1690.0 / 147.7)


def test_the_share_is_inclusive_and_moves_the_verdict():
    assert us.is_usable(50.0, 100.0, 0.0, 1000.0, 0.5)
    assert not us.is_usable(50.000001, 100.0, 0.0, 1000.0, 0.5)
    assert us.is_usable(50.000001, 100.0, 0.0, 1000.0, 0.6)
    assert us.is_usable(150.0, 100.0, 0.0, 1000.0, 2.0)


def test_a_value_of_zero_is_read_against_the_declared_range():
    assert us.reference_scale(0.0, -10.0, 30.0) == 40.0
    assert us.is_usable(20.0, 0.0, -10.0, 30.0, 0.5)
    assert not us.is_usable(20.5, 0.0, -10.0, 30.0, 0.5)
    # No public upper bound: the range is infinite, so any finite bound is usable.
    assert us.reference_scale(0.0, 0.0, INF) == INF
    assert us.is_usable(1e300, 0.0, 0.0, INF, 0.5)
    assert not us.is_usable(INF, 0.0, 0.0, INF, 0.5)


def test_a_negative_value_is_read_by_its_size():
    assert us.reference_scale(-80.0, -100.0, 0.0) == 80.0
    assert us.is_usable(40.0, -80.0, -100.0, 0.0, 0.5)
    assert not us.is_usable(41.0, -80.0, -100.0, 0.0, 0.5)


def test_infinite_and_missing_bounds_are_not_usable_and_zero_is():
    assert not us.is_usable(INF, 147.7, 0.0, 2000.0, 0.5)
    assert us.relative_error(INF, 147.7, 0.0, 2000.0) == INF
    assert not us.is_usable(math.nan, 147.7, 0.0, 2000.0, 0.5)
    assert us.is_usable(0.0, 147.7, 0.0, 2000.0, 1e-9)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((-1.0, 1.0, 0.0, 2.0, 0.5), "bound must be >= 0"),
        ((1.0, math.nan, 0.0, 2.0, 0.5), "value must be a finite number"),
        ((1.0, 1.0, 2.0, 0.0, 0.5), "lower must be < upper"),
        ((1.0, 1.0, 0.0, 2.0, 0.0), "share must be a finite number > 0"),
        ((1.0, 1.0, 0.0, 2.0, INF), "share must be a finite number"),
        ((True, 1.0, 0.0, 2.0, 0.5), "not a boolean"),
        (("wide", 1.0, 0.0, 2.0, 0.5), "bound must be a number"),
    ],
)
def test_bad_input_names_the_argument(args, message):
    with pytest.raises(ValueError, match=message):
        us.is_usable(*args)


@settings(max_examples=60, deadline=None)
@given(
    bound=st.floats(0, 1e6),
    value=st.floats(-1e6, 1e6).filter(lambda v: abs(v) > 1e-6),
    share=st.floats(1e-3, 10),
    scale=st.floats(1e-3, 1e3),
)
def test_usable_is_monotone_and_free_of_units(bound, value, share, scale):
    usable = us.is_usable(bound, value, -2e6, 2e6, share)
    # A wider share or a tighter bound never turns a usable plan into a too noisy one.
    if usable:
        assert us.is_usable(bound, value, -2e6, 2e6, share * 1.5)
        assert us.is_usable(bound / 2, value, -2e6, 2e6, share)
    # Changing the units (bound, value and bounds together) changes nothing, away from ties.
    rel = us.relative_error(bound, value, -2e6, 2e6)
    if not math.isclose(rel, share, rel_tol=1e-9):
        scaled = us.is_usable(bound * scale, value * scale, -2e6 * scale, 2e6 * scale, share)
        assert scaled == usable


def test_light_tailed_noise_is_not_heavy_tailed_and_the_zinc_case_is():
    # Laplace(b): RMSE √2 b, 95 % bound b ln 20; Gaussian: σ and 1.96 σ.
    assert not us.is_heavy_tailed(math.sqrt(2.0), math.log(20.0))
    assert not us.is_heavy_tailed(1.0, 1.959964)
    # The issue's zinc survey row: RMSE 0.036, 95 % bound ±0.0021.
    assert us.is_heavy_tailed(0.036, 0.0021)
    # The threshold is strict and can be moved.
    assert not us.is_heavy_tailed(2.0, 1.0)
    assert us.is_heavy_tailed(2.0, 1.0, ratio=1.5)


def test_heavy_tail_edge_cases():
    assert us.is_heavy_tailed(0.5, 0.0)  # 95 % of releases exact, a few far off
    assert not us.is_heavy_tailed(0.0, 0.0)
    assert not us.is_heavy_tailed(INF, 1.0)
    assert not us.is_heavy_tailed(1.0, INF)
    assert not us.is_heavy_tailed(math.nan, 1.0)
    with pytest.raises(ValueError, match="rmse must be >= 0"):
        us.is_heavy_tailed(-1.0, 1.0)
    with pytest.raises(ValueError, match="ratio must be a finite number > 0"):
        us.is_heavy_tailed(1.0, 1.0, ratio=0.0)


def test_a_contaminated_sample_of_errors_is_flagged_by_its_own_measures():
    # 97 % of errors tiny, 3 % huge: the 95 % quantile stays small, the RMSE does not.
    rng = np.random.default_rng(0)
    errors = np.where(rng.random(2000) < 0.03, 1.0, 0.01) * rng.standard_normal(2000)
    rmse = float(np.sqrt(np.mean(errors**2)))
    bound = float(np.quantile(np.abs(errors), 0.95))
    assert us.is_heavy_tailed(rmse, bound)
    gaussian = rng.standard_normal(2000)
    assert not us.is_heavy_tailed(
        float(np.sqrt(np.mean(gaussian**2))), float(np.quantile(np.abs(gaussian), 0.95))
    )
