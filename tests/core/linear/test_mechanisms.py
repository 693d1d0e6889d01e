"""The linear mechanisms' laws: variance, quantile, CDF and sampler against direct sums."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.linear.mechanisms import LINEAR_MECHANISMS, Geometric, Laplace


def _geometric_direct(b: float) -> tuple[np.ndarray, np.ndarray]:
    z = np.arange(-4000, 4001, dtype=np.float64)
    w = np.exp(-np.abs(z) / b)
    return z, w / w.sum()


@pytest.mark.parametrize("b", [0.3, 1.0, 7.5, 40.0])
def test_geometric_law_against_direct_sums(b: float) -> None:
    g = Geometric()
    z, p = _geometric_direct(b)
    np.testing.assert_allclose(g.pmf(b, z), p, rtol=1e-10, atol=1e-300)
    assert g.variance(b) == pytest.approx(float(p @ (z * z)), rel=1e-10)
    np.testing.assert_allclose(
        g.cdf(b, [-3, -1, 0, 2.5, 10]), [p[z <= t].sum() for t in (-3, -1, 0, 2.5, 10)], rtol=1e-10
    )
    for level in (0.5, 0.95):
        k = g.abs_quantile(b, level)
        cover = p[np.abs(z) <= k].sum()
        assert cover >= level - 1e-12
        assert k == 0 or p[np.abs(z) <= k - 1].sum() < level


def test_laplace_quantile_and_variance() -> None:
    lap = Laplace()
    assert lap.parameter(0.5, None, 2.0) == pytest.approx(4.0)
    assert lap.variance(4.0) == pytest.approx(32.0)
    assert lap.abs_quantile(1.0, 0.95) == pytest.approx(math.log(20.0))
    x = lap.abs_quantile(3.0, 0.9)
    assert float(lap.cdf(3.0, x) - lap.cdf(3.0, -x)) == pytest.approx(0.9)


def test_samplers_follow_their_laws() -> None:
    rng = np.random.default_rng(5)
    for name in ("laplace", "geometric"):
        m = LINEAR_MECHANISMS[name]
        draws = m.sample(rng, 3.0, 200_000)
        assert draws.var() == pytest.approx(m.variance(3.0), rel=0.02)


@settings(max_examples=40, deadline=None)
@given(eps=st.floats(1e-12, 1000.0), sens=st.integers(1, 50))
def test_geometric_is_finite_and_below_laplace(eps: float, sens: int) -> None:
    g, lap = Geometric(), Laplace()
    b = g.parameter(eps, None, sens)
    v = g.variance(b)
    assert math.isfinite(v) and v >= 0.0
    assert v <= lap.variance(b) * (1 + 1e-12)  # the geometric is the tighter law
    if eps <= 1e-6 * sens:
        assert v == pytest.approx(lap.variance(b), rel=1e-5)


def test_geometric_needs_whole_sensitivity() -> None:
    with pytest.raises(ValueError, match="whole-number"):
        Geometric().parameter(1.0, None, 2.5)
    with pytest.raises(ValueError, match="above 0"):
        Laplace().parameter(0.0, None, 1.0)


def test_budget_factors_follow_the_two_sensitivities() -> None:
    sens = {"deletion": 3.0, "replacement": 4.0}
    f = Laplace().budget_factors(sens, "replacement")
    assert (f.add_remove, f.change) == (0.75, 1.0)
    f = Geometric().budget_factors(sens, "deletion")
    assert (f.add_remove, f.change) == (1.0, pytest.approx(4.0 / 3.0))
