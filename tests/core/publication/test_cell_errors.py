"""The cells' 95 % bounds and rounded errors against direct computation."""

from __future__ import annotations

import math

import numpy as np
import pytest

from core.linear.mechanisms import Geometric, Laplace
from core.publication.cell_errors import (
    METHOD_EXACT,
    cell_error_bounds,
    noise_abs_quantile,
    rounded_rmse,
)


def test_without_sampling_error_the_bound_is_the_weighted_noise_quantile() -> None:
    lap = Laplace()
    assert noise_abs_quantile(lap, 2.0, 3.0, 0.95) == pytest.approx(3.0 * 2.0 * math.log(20.0))
    bounds, methods = cell_error_bounds(np.zeros(3), lap, 2.0, 1.0)
    np.testing.assert_allclose(bounds, 2.0 * math.log(20.0), rtol=1e-12)
    assert set(methods) == {METHOD_EXACT}


def test_an_integer_noise_with_normal_sampling_error_covers_its_level() -> None:
    geo, b, sd, w = Geometric(), 2.0, 3.0, 1.5
    (bound,), _ = cell_error_bounds(np.array([sd * sd]), geo, b, w)
    z = np.arange(-200, 201, dtype=float)
    p = geo.pmf(b, z)
    from scipy.special import ndtr

    cover = float(p @ (ndtr((bound - w * z) / sd) - ndtr((-bound - w * z) / sd)))
    assert cover == pytest.approx(0.95, abs=1e-6)


def test_rounded_census_cells_are_exact_and_sampled_ones_bounded() -> None:
    lap = Laplace()
    values = np.array([0.0, 3.0, 40.0])
    rmse, methods = rounded_rmse(values, np.zeros(3), lap, 1.0, 1.0)
    rng = np.random.default_rng(3)
    draws = np.maximum(0.0, np.floor(values + rng.laplace(0.0, 1.0, (200_000, 3)) + 0.5))
    np.testing.assert_allclose(rmse, np.sqrt(((draws - values) ** 2).mean(axis=0)), rtol=0.02)
    sampled, how = rounded_rmse(values, np.full(3, 4.0), lap, 1.0, 1.0)
    np.testing.assert_allclose(sampled, math.sqrt(4.0 + 2.0) + 0.5, rtol=1e-9)
    assert methods != how
