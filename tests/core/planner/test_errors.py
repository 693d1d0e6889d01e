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
    draws.noise_mean.append(np.zeros(4))
    draws.noise_square.append(np.full(4, 2.0))
    draws.noise_scale.append(np.ones(4))
    draws.sizes.append(np.full(4, 10.0))
    row = errors.summary_row(draws, 0.0)
    assert row["sampling_part"] == 1.0 and row["noise_part"] == 2.0
    assert row["rmse"] == pytest.approx(math.sqrt(3.0))
    assert row["mean_sample_size"] == 10.0
    # A clamped release is biased given the sample: E[(θ̃ − θ)^2 | S] = d^2 + 2 d m1 + m2.
    draws.noise_mean[0] = np.array([-0.5, 0.5, -0.5, 0.5])
    row = errors.summary_row(draws, 0.0)
    assert row["rmse"] == pytest.approx(math.sqrt(1.0 - 1.0 + 2.0))


def test_noise_quantile_of_laplace_is_ln_20():
    from core import mechanisms as mech

    assert errors.noise_quantile(mech.LaplaceMean().standard_noise_cdf) == pytest.approx(
        math.log(20.0)
    )
    assert errors.exact_row(1.0, 2.0, 0.5, 0.5)["rmse_se"] == 0.0
