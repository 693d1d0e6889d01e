"""Tests for core.mechanisms.polyplace: the constants, the exact privacy loss, the sampler.

Privacy is checked twice: on the generic worst case of the proof (any smooth bound: a shift
up to the smaller smooth sensitivity, the scale moved by ``e^lam``, every output), and on
the exact output densities of small samples and every sample one changed record away.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import integrate, optimize

from core import mechanisms as mech
from tests.core import reference_sensitivity as ref
from tests.core.mechanisms.neighbours import SAMPLES, _one, _replacements

LOWER, UPPER = 0.0, 10.0
RATIO_TOL = 1e-9
A = 5.0


def log_density(y: np.ndarray, centre: float, scale: float) -> np.ndarray:
    """log of (1/scale) h((y - centre)/scale) with h(z) = 2 (1 + |z|)^-5, written out."""
    z = np.abs(y - centre) / scale
    return math.log(2.0) - 5.0 * np.log1p(z) - math.log(scale)


def slow_kappa(eps: float) -> float:
    """The smallest kappa meeting both mode conditions, by root search (no expm1)."""
    gamma = eps / 4

    def worst(kappa: float) -> float:
        return max(A * math.log(1 + 1 / kappa), gamma + A * math.log(1 + math.exp(-gamma) / kappa))

    return float(optimize.brentq(lambda k: worst(k) - eps, 1e-9, 1e9, xtol=1e-14, rtol=1e-14))


def test_names_budgets_and_lookup() -> None:
    m = mech.mechanism_by_name("smooth_polyplace", quantile=0.3)
    assert isinstance(m, mech.PolyPlaceQuantile) and m.quantile == 0.3
    assert m.pure and not m.uses_delta and m.additive and m.windowed
    assert m.change_factor == 1.0 and m.add_remove_factor is None
    assert m.relations == frozenset({"replacement"})
    assert m.window_beta(0.8, 0.5) == pytest.approx(0.2)


@pytest.mark.parametrize("eps", [1e-12, 1e-3, 0.1, 1.0, 5.0, 40.0])
def test_scale_factor_is_the_smallest_admissible(eps: float) -> None:
    got = float(mech.polyplace_scale_factor(eps))
    if eps >= 1e-3:
        assert got == pytest.approx(slow_kappa(eps), rel=1e-9)
    # small eps: kappa = 20 / (3 eps) to first order, computed without cancellation
    if eps <= 1e-3:
        assert got * eps == pytest.approx(20 / 3, rel=2 * eps)
    assert np.isfinite(float(mech.polyplace_scale_factor(1000.0)))
    assert float(mech.polyplace_scale_factor(1000.0)) > 0


@pytest.mark.parametrize("eps", [0.1, 1.0, 5.0])
def test_generic_worst_case_of_the_proof_is_eps(eps: float) -> None:
    # sup over lam in [-gamma, gamma], shift d <= min(1, e^lam)/kappa, distance t >= 0 of
    # lam + A log((1 + e^-lam (t + d)) / (1 + t)): at most eps, and reached
    gamma, kappa = eps / 4, float(mech.polyplace_scale_factor(eps))
    lam = np.linspace(-gamma, gamma, 401)[:, None]
    t = np.concatenate([[0.0], np.geomspace(1e-6, 1e9, 600)])[None, :]
    d = np.minimum(1.0, np.exp(lam)) / kappa
    loss = lam + A * np.log((1 + np.exp(-lam) * (t + d)) / (1 + t))
    assert loss.max() <= eps * (1 + RATIO_TOL)
    assert loss.max() >= eps * (1 - 1e-6)


def _worst_log_ratio(m: mech.Mechanism, values: list[float], eps: float) -> float:
    f1, _, s1 = _one(m, values, eps, 0.5)
    grid = np.concatenate([np.linspace(0, 50, 20001), np.geomspace(50, 1e9, 400)])
    worst = 0.0
    for other in _replacements(values):
        f2, _, s2 = _one(m, other, eps, 0.5)
        y = np.concatenate([f1 + s1 * grid, f1 - s1 * grid, f2 + s2 * grid, f2 - s2 * grid])
        diff = log_density(y, f1, s1) - log_density(y, f2, s2)
        worst = max(worst, float(np.max(np.abs(diff))))
    return worst


@pytest.mark.parametrize("q", [0.1, 0.5, 0.9])
@pytest.mark.parametrize("eps", [0.1, 1.0, 5.0])
def test_density_ratio_of_changed_records_is_at_most_e_to_eps(q: float, eps: float) -> None:
    m = mech.PolyPlaceQuantile(q)
    worst = max(_worst_log_ratio(m, v, eps) for v in SAMPLES)
    assert worst <= eps * (1 + RATIO_TOL)
    assert worst >= 0.5 * eps  # not vacuous


def test_noise_law_variance_and_scale() -> None:
    m = mech.PolyPlaceQuantile()
    mass = 2 * integrate.quad(lambda z: float(m.noise_density(z)), 0, np.inf)[0]
    var = 2 * integrate.quad(lambda z: z * z * float(m.noise_density(z)), 0, np.inf)[0]
    assert mass == pytest.approx(1.0, rel=1e-10)
    assert var == pytest.approx(1 / 3, rel=1e-8) and m.unit_noise_variance == pytest.approx(1 / 3)
    for z in (-3.0, -0.2, 0.0, 0.7, 12.0):
        below = integrate.quad(lambda u: float(m.noise_density(u)), -np.inf, z)[0]
        assert float(m.standard_noise_cdf(z)) == pytest.approx(below, abs=1e-10)
    x = np.array([[1.0, 2.0, 6.0]])
    s = m.sensitivity(x, 0.8, 0.5, LOWER, UPPER)
    assert s[0] == pytest.approx(ref.smooth_sensitivity_eq4(x[0], 1, 0.5, 0, 10, 2, b=0.2))
    kappa = float(mech.polyplace_scale_factor(0.8))
    np.testing.assert_allclose(m.noise_scale(s, 0.8), kappa * s, rtol=1e-15)
    np.testing.assert_allclose(m.noise_variance(s, 0.8), (kappa * s) ** 2 / 3, rtol=1e-14)


def test_sampler_follows_the_density() -> None:
    m = mech.PolyPlaceQuantile()
    z = np.sort(m.standard_noise(np.random.default_rng(0), (60_000,)))
    grid = np.linspace(-5, 5, 81)
    exact = np.array([1 - 0.5 * (1 + t) ** -4 if t >= 0 else 0.5 * (1 - t) ** -4 for t in grid])
    empirical = np.searchsorted(z, grid, side="right") / z.size
    assert np.max(np.abs(empirical - exact)) < 1.63 / math.sqrt(z.size)  # KS at 1 %
    x = np.repeat(np.array([[1.0, 3.0, 3.0, 8.0, 9.0]]), 4, axis=0)
    out = m.release(x, 2.0, 0.5, LOWER, UPPER, np.random.default_rng(3))
    z3 = m.standard_noise(np.random.default_rng(3), (4,))
    np.testing.assert_allclose(
        out.released, np.clip(out.statistic + out.noise_scale * z3, LOWER, UPPER), rtol=1e-14
    )


def test_error_matches_a_slow_reference_and_beats_the_heavy_tailed_noise() -> None:
    values = np.array([0.5, 1.0, 3.0, 3.5, 4.0, 7.0, 9.5])
    eps, T, k = 1.2, 40_000, 2  # quantile 0.25 of 7 values: rank ceil(1.75) = 2
    got = mech.release(
        np.repeat(values[None, :], T, axis=0),
        mechanism="smooth_polyplace",
        eps=eps,
        lower=LOWER,
        upper=UPPER,
        rng=np.random.default_rng(1),
        quantile=0.25,
    )
    # slow reference: reference smooth sensitivity, noise by numerically inverting the CDF
    s_ref = ref.smooth_sensitivity_eq4(values, 1, 0.5, 0, 10, k, b=eps / 4)
    scale = slow_kappa(eps) * s_ref
    # Every release is clamped to [L, U] (issue 35); the median of the clamped error
    # |clip(y + b Z, L, U) − y| solves P(|e| <= x) = 1/2, found here by bisection on the
    # noise CDF F(t) = 1 − (1 + t)^-4 / 2 (t >= 0), clamped at the bounds by hand.
    y = values[k - 1]
    assert ((got >= LOWER) & (got <= UPPER)).all()

    def F(t: float) -> float:
        return 1 - 0.5 * (1 + t) ** -4 if t >= 0 else 0.5 * (1 - t) ** -4

    def coverage(x: float) -> float:
        up = 1.0 if x >= UPPER - y else F(x / scale)
        down = 0.0 if x >= y - LOWER else F(-x / scale)
        return up - down

    lo_x, hi_x = 0.0, UPPER - LOWER
    for _ in range(200):
        mid = 0.5 * (lo_x + hi_x)
        lo_x, hi_x = (mid, hi_x) if coverage(mid) < 0.5 else (lo_x, mid)
    assert np.median(np.abs(got - y)) == pytest.approx(hi_x, rel=0.03)
    pure = mech.SmoothPureQuantile(0.25)
    x = values[None, :]
    s = pure.sensitivity(x, eps, 0.5, LOWER, UPPER)
    assert float(pure.noise_variance(s, eps)[0]) > 10 * float(
        mech.PolyPlaceQuantile(0.25).noise_variance(s, eps)[0]
    )


def test_extreme_budgets_stay_finite() -> None:
    m = mech.PolyPlaceQuantile()
    x = np.array([[1.0, 2.0, 6.0], [0.0, 0.0, 10.0]])
    for eps in (1e-12, 1000.0):
        out = m.release(x, eps, 0.5, LOWER, UPPER, np.random.default_rng(2))
        assert np.isfinite(out.released).all() and np.isfinite(out.noise_scale).all()
    tiny = m.release(x, 1000.0, 0.5, LOWER, UPPER, np.random.default_rng(2))
    np.testing.assert_allclose(tiny.released, tiny.statistic, atol=1e-60)


def test_windows_agree_with_whole_samples() -> None:
    # windowed: the release depends only on the order statistics near rank k, so the
    # experiment drawn from windows agrees with whole samples within Monte Carlo error
    from core import gains

    pop = np.sort(np.random.default_rng(5).lognormal(5, 0.5, 3_001))
    common = dict(
        lower=0.0, upper=1_000.0, eps_targets=[0.1, 2.0], rates=[0.001, 0.05, 0.6],
        reps=800, mechanism="smooth_polyplace",
    )  # fmt: skip
    a = gains.median_gain_experiment(pop, seed=1, sampler="full", **common).summary
    b = gains.median_gain_experiment(pop, seed=2, sampler="window", **common).summary
    rows = ~a["is_population"].to_numpy()
    z = (a["log_mse"] - b["log_mse"]) / np.hypot(a["log_mse_se"], b["log_mse_se"])
    assert np.abs(z[rows]).max() < 4.0, z[rows].round(2).tolist()
