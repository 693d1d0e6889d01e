"""The discrete Gaussian's fast paths: the σ search started from the continuous Gaussian's σ,
and the 95 % bound by the normal law at large σ, against the slow exact computations."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs
from scipy import special, stats

from core.linear import discrete_gaussian as dg
from core.linear.errors import lattice_abs_quantile
from core.linear.mechanisms import LINEAR_MECHANISMS

DG = LINEAR_MECHANISMS["discrete_gaussian"]


def _slow_sigma(eps: float, delta: float, sens: int, monkeypatch: pytest.MonkeyPatch) -> float:
    """σ by the bisection alone (the fast start switched off)."""
    with monkeypatch.context() as patch:
        patch.setattr(dg, "_bracketed", lambda *args: None)
        dg._sigma_for_eps_delta.cache_clear()
        slow = dg.sigma_for_eps_delta(eps, delta, sens)
    dg._sigma_for_eps_delta.cache_clear()
    return slow


@pytest.mark.parametrize(
    ("eps", "delta", "sens"),
    [(1.0, 1e-7, 10_000), (0.3, 1e-8, 10_000), (0.05, 1e-6, 1), (1e-12, 1e-6, 1), (0.5, 1e-3, 7)],
)
def test_the_fast_sigma_is_the_bisections_and_keeps_the_exact_delta(
    eps, delta, sens, monkeypatch
) -> None:
    dg._sigma_for_eps_delta.cache_clear()
    fast = dg.sigma_for_eps_delta(eps, delta, sens)
    assert dg.delta_for_eps(eps, fast, sens) <= delta
    assert dg.delta_for_eps(eps, fast * (1 - 1e-8), sens) > delta
    assert fast == pytest.approx(_slow_sigma(eps, delta, sens, monkeypatch), rel=1e-9)


@settings(max_examples=10, deadline=None)
@given(hs.floats(0.01, 2.0), hs.sampled_from([1e-4, 1e-7, 1e-10]), hs.integers(1, 50))
def test_the_fast_sigma_satisfies_the_exact_delta(eps, delta, sens) -> None:
    s = dg.sigma_for_eps_delta(eps, delta, sens)
    assert dg.delta_for_eps(eps, s, sens) <= delta
    assert dg.delta_for_eps(eps, s * (1 - 1e-8), sens) > delta


def test_the_analytic_gaussian_sigma_solves_its_delta() -> None:
    """Balle & Wang (2018) Theorem 8; at ε = 1, δ = 1e-5 their calibration gives σ ≈ 3.73
    (below the classical 4.84 of √(2 ln(1.25/δ))/ε)."""
    s = dg.gaussian_sigma(1.0, 1e-5, 1.0)
    assert dg.gaussian_delta(1.0, s, 1.0) == pytest.approx(1e-5, rel=1e-9)
    assert s == pytest.approx(3.73, abs=0.01)
    assert s < math.sqrt(2 * math.log(1.25 / 1e-5))
    # no overflow at ε = 1000, and its δ falls as σ grows
    assert dg.gaussian_delta(1000.0, 0.05, 1.0) >= 0.0
    assert dg.gaussian_delta(0.5, 10.0, 1.0) < dg.gaussian_delta(0.5, 5.0, 1.0)


def _direct_coverage(sigma: float, weight: float, s: float, x: float) -> float:
    k = dg.support_radius(sigma)
    z = np.arange(-k, k + 1, dtype=float)
    p = dg.pmf(sigma, z)
    return float(p @ (special.ndtr((x - weight * z) / s) - special.ndtr((-x - weight * z) / s)))


@pytest.mark.parametrize(("sigma", "weight", "ratio"), [(250.0, 1.0, 3.0), (400.0, 5.0, 10.0)])
def test_the_normal_bound_at_large_sigma_has_the_lattices_coverage(sigma, weight, ratio) -> None:
    s = ratio * weight
    got = DG.error_bound(sigma, weight, s, 0.95)
    assert _direct_coverage(sigma, weight, s, got) == pytest.approx(0.95, abs=1e-12)
    assert got == pytest.approx(lattice_abs_quantile(DG, sigma, weight, s, 0.95), rel=1e-6)
    assert got == pytest.approx(stats.norm.ppf(0.975) * math.hypot(s, weight * sigma), rel=1e-12)


def test_below_the_thresholds_the_lattice_sum_is_kept() -> None:
    # a small sampling error against the weight: the lattice's steps matter
    got = DG.error_bound(250.0, 10.0, 1.0, 0.95)
    assert got == pytest.approx(lattice_abs_quantile(DG, 250.0, 10.0, 1.0, 0.95), rel=1e-12)
    assert _direct_coverage(250.0, 10.0, 1.0, got) == pytest.approx(0.95, abs=1e-6)
