"""The 95 % bound of sampling error plus integer noise against a direct sum over its law."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import special
from scipy.optimize import brentq

from core.designs.normal_laplace import normal_laplace_abs_quantile
from core.linear import errors
from core.linear.mechanisms import LINEAR_MECHANISMS

GEO = LINEAR_MECHANISMS["geometric"]


def _direct(b: float, w: float, sigma: float, level: float) -> float:
    """P(|E + wZ| ≤ x) = Σ_z p(z)[Φ((x − wz)/σ) − Φ((−x − wz)/σ)], every z to |z| ≤ 60 b."""
    z = np.arange(-math.ceil(60 * b) - 5, math.ceil(60 * b) + 6, dtype=float)
    p = GEO.pmf(b, z)

    def cover(x: float) -> float:
        return float(p @ (special.ndtr((x - w * z) / sigma) - special.ndtr((-x - w * z) / sigma)))

    return float(brentq(lambda x: cover(x) - level, 0.0, 1e3 * (w * b + sigma + 1)))


@pytest.mark.parametrize(
    ("b", "w", "sigma"), [(0.3, 1.0, 0.5), (2.0, 2.5, 1.0), (20.0, 4.0, 3.0), (5.0, 1.0, 400.0)]
)
def test_lattice_sum_equals_the_direct_sum(b: float, w: float, sigma: float) -> None:
    got = errors.lattice_abs_quantile(GEO, b, w, sigma, 0.95)
    assert got == pytest.approx(_direct(b, w, sigma, 0.95), rel=1e-7)


def test_blocks_of_a_wide_lattice_stay_within_their_stated_error() -> None:
    """8,000 lattice points in the window: summed in blocks; a large b is nearly Laplace."""
    b, w, sigma = 300.0, 1.0, 400.0
    got = errors.lattice_abs_quantile(GEO, b, w, sigma, 0.95)
    assert got == pytest.approx(_direct(b, w, sigma, 0.95), rel=1e-5)
    assert got == pytest.approx(normal_laplace_abs_quantile(0.95, sigma, w * b), rel=1e-3)


@pytest.mark.parametrize("b", [1e12, 1e6, 1.0, 1e-3, 1e-300])
def test_geometric_quantile_is_the_smallest_whole_bound_at_any_scale(b: float) -> None:
    for level in (0.5, 0.95, 1 - 1e-16):
        k = GEO.abs_quantile(b, level)
        q = math.exp(-1.0 / b)
        need = math.log(2.0) - math.log1p(q) - math.log1p(-level)
        assert (k + 1) / b >= need and (k == 0 or k / b < need)


def test_release_error_names_how_it_is_known() -> None:
    lap = LINEAR_MECHANISMS["laplace"]
    assert errors.release_error(lap, 2.0, 1.0, 0.0, 0.95) == (
        pytest.approx(2.0 * math.log(20.0)),
        errors.EXACT,
    )
    x, how = errors.release_error(lap, 2.0, 3.0, 4.0, 0.95)
    assert how == errors.NORMAL_APPROXIMATION
    assert x == pytest.approx(normal_laplace_abs_quantile(0.95, 2.0, 6.0))
