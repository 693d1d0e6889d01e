"""core.planner.errors: RMSE, the 95 % bound and their split from draws."""

from __future__ import annotations

import math

import numpy as np
import pytest

from core.planner import errors


def test_summary_of_exact_noise_variances_splits_the_mse():
    draws = errors.Draws()
    stat = np.array([1.0, -1.0, 1.0, -1.0])
    draws.statistic.append(stat)
    draws.released.append(stat)
    draws.noise_variance.append(np.full(4, 2.0))
    draws.noise_scale.append(np.ones(4))
    draws.sizes.append(np.full(4, 10.0))
    row = errors.summary_row(draws, 0.0)
    assert row["sampling_part"] == 1.0 and row["noise_part"] == 2.0
    assert row["rmse"] == pytest.approx(math.sqrt(3.0))
    assert row["mean_sample_size"] == 10.0


def test_noise_quantile_of_laplace_is_ln_20():
    from core import mechanisms as mech

    assert errors.noise_quantile(mech.LaplaceMean().standard_noise_cdf) == pytest.approx(
        math.log(20.0)
    )
    assert errors.exact_row(1.0, 2.0, 0.5, 0.5)["rmse_se"] == 0.0


def test_quantile_interval_of_two_modes_is_the_order_statistics_not_a_symmetric_band():
    """Issue 35 §4: a design that sometimes misses most clusters has errors of two modes;
    the 95 % bound then sits at the edge of the small-error mode and its Monte Carlo
    interval reaches far up but not down: ±2 s.e. about the estimate went below 0 (drawn
    at the bottom of the chart's log axis, under the census line)."""
    rng = np.random.default_rng(1)
    T = 200
    errors_ = np.abs(rng.normal(0.0, 1.0, T))
    errors_[: int(0.05 * T)] = rng.uniform(100.0, 150.0, int(0.05 * T))  # the misses
    q, se, low, high = errors._quantile_interval(errors_, errors.LEVEL)
    assert q == pytest.approx(float(np.quantile(errors_, errors.LEVEL)))
    s = np.sort(errors_)
    half = 2.0 * math.sqrt(T * 0.95 * 0.05)
    assert low == s[math.floor(T * 0.95 - half)] and high == s[math.ceil(T * 0.95 + half)]
    assert se == pytest.approx((high - low) / 4.0)
    assert 0.0 < low <= q <= high
    assert q - 2.0 * se < 0.0 < low  # the symmetric band would reach below 0
    # Rows carry the interval: in summary_row, and as the value itself when exact.
    draws = errors.Draws(
        statistic=[errors_],
        released=[errors_],
        noise_variance=[np.full(T, np.nan)],
        noise_scale=[np.zeros(T)],
        sizes=[np.full(T, 10.0)],
    )
    row = errors.summary_row(draws, 0.0)
    assert (row["error_95_low"], row["error_95_high"]) == (low, high)
    exact = errors.exact_row(1.0, 2.0, 0.5, 0.5)
    assert exact["error_95_low"] == exact["error_95_high"] == 2.0
