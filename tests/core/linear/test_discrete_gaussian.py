"""The discrete Gaussian against 50-digit direct sums, its limits and CKS20's statements."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs
from scipy import stats

from core.linear import discrete_gaussian as dg

mpmath.mp.dps = 50


def _weights(sigma: float) -> tuple[list[int], list[mpmath.mpf], mpmath.mpf]:
    """Unnormalised 50-digit weights over |x| ≤ 45σ + 5, and their sum."""
    s2 = mpmath.mpf(sigma) ** 2
    k = int(45 * sigma) + 5
    xs = list(range(-k, k + 1))
    w = [mpmath.exp(-(mpmath.mpf(x) ** 2) / (2 * s2)) for x in xs]
    return xs, w, mpmath.fsum(w)


def ref_delta(eps: float, sigma: float, sens: int) -> float:
    """``Σ_x (P[X = x] − e^ε P[X = x + Δ])_+``: the hockey stick, term by term, 50 digits."""
    xs, w, z = _weights(sigma)
    at = dict(zip(xs, w, strict=True))
    e = mpmath.e ** mpmath.mpf(eps)
    total = mpmath.fsum(max(at[x] - e * at.get(x + sens, mpmath.mpf(0)), mpmath.mpf(0)) for x in xs)
    return float(total / z)


def ref_variance(sigma: float) -> float:
    xs, w, z = _weights(sigma)
    return float(mpmath.fsum(mpmath.mpf(x) ** 2 * wi for x, wi in zip(xs, w, strict=True)) / z)


@pytest.mark.parametrize(
    ("eps", "sigma", "sens"),
    [(1.0, 1.0, 1), (0.5, 3.0, 1), (1e-12, 2.0, 1), (0.1, 12.0, 2), (5.0, 0.3, 1),
     (20.0, 0.2, 1), (0.3, 4.0, 3), (0.0, 1.5, 1)],
)  # fmt: skip
def test_delta_equals_the_hockey_stick_summed_at_50_digits(eps, sigma, sens):
    assert dg.delta_for_eps(eps, sigma, sens) == pytest.approx(
        ref_delta(eps, sigma, sens), rel=1e-12, abs=1e-300
    )


@pytest.mark.parametrize("sigma", [0.1, 0.4, 0.8, 1.0, 1.2, 2.5, 7.0])
def test_variance_equals_the_direct_sum_and_is_below_sigma_squared(sigma):
    v = dg.variance(sigma)
    assert v == pytest.approx(ref_variance(sigma), rel=1e-13)
    assert v <= sigma**2
    # CKS20, Proposition 5: Var ≤ σ²(1 − 4π²σ²/(e^{4π²σ²} − 1)).
    c = 4 * math.pi**2 * sigma**2
    assert v <= sigma**2 * (1 - c * math.exp(-c) / -math.expm1(-c)) * (1 + 1e-12)
    if sigma**2 <= 1 / 3:  # CKS20, Proposition 5: Var ≤ 3 e^{−1/(2σ²)}
        assert v <= 3 * math.exp(-1 / (2 * sigma**2))


def test_variance_tends_to_sigma_squared():
    assert dg.variance(0.3) < 0.3**2 * 0.5
    for s in (6.0, 50.0, 1e6):
        assert dg.variance(s) == pytest.approx(s * s, rel=1e-14)


@settings(max_examples=25, deadline=None)
@given(hs.floats(0.05, 60.0))
def test_pmf_sums_to_one(sigma):
    k = dg.support_radius(sigma)
    assert float(np.sum(dg.pmf(sigma, np.arange(-k, k + 1)))) == pytest.approx(1.0, rel=1e-13)


@pytest.mark.parametrize("sigma", [201.0, 250.0, 400.0, 1000.0])
@pytest.mark.parametrize("eps", [0.002, 0.01, 0.03])
def test_euler_maclaurin_branch_equals_the_direct_sum(sigma, eps):
    m = math.floor(eps * sigma * sigma - 0.5) + 1
    direct = dg._direct_sum(sigma, m, eps, 1)
    assert dg._em_sum(sigma, m, eps, 1) == pytest.approx(direct, rel=1e-11, abs=1e-300)
    assert dg._em_sum(sigma, 3, None, 1) == pytest.approx(dg._direct_sum(sigma, 3, None, 1))


def test_large_sigma_approaches_the_continuous_gaussian():
    """For σ ≫ 1 the discrete and continuous Gaussians' δ agree (Balle & Wang 2018, Thm 8)."""
    for sigma, eps in ((1e4, 3e-4), (1e6, 4e-6)):
        mu = 1 / sigma
        cont = stats.norm.cdf(-eps / mu + mu / 2) - math.exp(eps) * stats.norm.cdf(
            -eps / mu - mu / 2
        )
        assert dg.delta_for_eps(eps, sigma) == pytest.approx(cont, rel=1e-6)


def test_extreme_epsilons():
    # ε → 0: δ → P[−Δ/2 < X ≤ Δ/2] = P[X = 0] for Δ = 1.
    for s in (0.7, 5.0, 3e5):
        assert dg.delta_for_eps(1e-12, s) == pytest.approx(float(dg.pmf(s, [0])[0]), rel=1e-9)
    assert dg.delta_for_eps(1000.0, 1.0) == 0.0
    # σ = 0.03: only x = 1 has L(x) > 1000, and its P[X = 1] ≈ e^{−555}.
    assert dg.delta_for_eps(1000.0, 0.03) == pytest.approx(float(dg.pmf(0.03, [1])[0]), rel=1e-12)
    assert dg.delta_for_eps(1000.0, 0.03) > 0.0
    s = dg.sigma_for_eps_delta(1000.0, 1e-10)
    assert 0.0 < s < 1.0 and dg.delta_for_eps(1000.0, s) <= 1e-10
    s = dg.sigma_for_eps_delta(1e-12, 1e-6)
    assert s == pytest.approx(1 / (1e-6 * math.sqrt(2 * math.pi)), rel=1e-4)


@settings(max_examples=30, deadline=None)
@given(hs.floats(0.01, 5.0), hs.floats(0.2, 30.0), hs.floats(1.01, 3.0), hs.integers(1, 3))
def test_delta_decreases_in_eps(eps, sigma, factor, sens):
    d = dg.delta_for_eps(eps, sigma, sens)
    assert dg.delta_for_eps(eps * factor, sigma, sens) <= d * (1 + 1e-12)


@settings(max_examples=30, deadline=None)
@given(hs.floats(0.01, 1.0), hs.floats(1.0, 300.0), hs.floats(1.01, 3.0), hs.integers(1, 3))
def test_delta_decreases_in_sigma_away_from_the_lattice(eps, sigma, factor, sens):
    d = dg.delta_for_eps(eps, sigma, sens)
    assert dg.delta_for_eps(eps, sigma * factor, sens) <= d * (1 + 1e-12)


def test_delta_is_not_monotone_in_sigma_on_the_lattice():
    """ε = 1.5, Δ = 1: δ rises from σ = 1 to σ = 1.04 (the x = 1 term leaves the sum at
    σ = 1, then the terms x ≥ 2 grow).  Checked at 50 digits; σ for a δ in that range still
    satisfies the bound."""
    lo, hi = dg.delta_for_eps(1.5, 1.0), dg.delta_for_eps(1.5, 1.04)
    assert hi > lo * 1.01
    assert lo == pytest.approx(ref_delta(1.5, 1.0, 1), rel=1e-12)
    assert hi == pytest.approx(ref_delta(1.5, 1.04, 1), rel=1e-12)
    s = dg.sigma_for_eps_delta(1.5, 0.0385)
    assert dg.delta_for_eps(1.5, s) <= 0.0385


@pytest.mark.parametrize(
    ("eps", "delta", "sens"), [(1.5, 0.0385, 1), (13.80077181135205, 1e-6, 3), (6.0, 1e-3, 1)]
)
def test_sigma_for_eps_delta_is_the_smallest_on_a_fine_grid(eps, delta, sens):
    """Where δ(σ) dips below δ in a window narrower than 1 % (ε = 13.8, Δ = 3: σ in
    [1.1886, 1.1967] and again from 1.2650), the search still finds the window."""
    s = dg.sigma_for_eps_delta(eps, delta, sens)
    assert dg.delta_for_eps(eps, s, sens) <= delta
    grid = np.linspace(s / 4, s * (1 - 1e-6), 1500)
    assert all(dg.delta_for_eps(eps, g, sens) > delta for g in grid)


def test_sigma_for_eps_delta_decreases_in_eps():
    for sens in (1, 3):
        e = np.exp(np.linspace(np.log(0.5), np.log(20.0), 80))
        s = np.array([dg.sigma_for_eps_delta(x, 1e-6, sens) for x in e])
        assert np.all(np.diff(s) <= 1e-9 * s[:-1])


@settings(max_examples=15, deadline=None)
@given(hs.floats(0.05, 3.0), hs.sampled_from([1e-3, 1e-6, 1e-9]), hs.integers(1, 4))
def test_sigma_for_eps_delta_is_the_smallest_of_its_bracket(eps, delta, sens):
    s = dg.sigma_for_eps_delta(eps, delta, sens)
    assert dg.delta_for_eps(eps, s, sens) <= delta
    assert dg.delta_for_eps(eps, s * (1 - 1e-8), sens) > delta


@settings(max_examples=25, deadline=None)
@given(hs.floats(0.01, 4.0), hs.floats(0.3, 20.0), hs.integers(1, 5))
def test_delta_grows_with_the_sensitivity(eps, sigma, sens):
    """Calibrated to Δ, the noise keeps (ε, δ) for every smaller integer sensitivity."""
    assert dg.delta_for_eps(eps, sigma, sens) <= dg.delta_for_eps(eps, sigma, sens + 1) * (
        1 + 1e-12
    )


def test_delta_curve_is_decreasing_and_pointwise():
    eps = np.array([0.0, 1e-12, 0.1, 1.0, 10.0, 1000.0])
    curve = dg.delta_curve(eps, 2.0, 1)
    assert curve.shape == eps.shape
    assert np.all(np.diff(curve) <= 0.0)
    assert curve[3] == pytest.approx(dg.delta_for_eps(1.0, 2.0, 1))


def test_below_is_the_left_continuous_cdf():
    sigma = 1.7
    k = dg.support_radius(sigma)
    z = np.arange(-k, k + 1)
    p = dg.pmf(sigma, z)
    t = np.array([-3.0, -0.5, 0.0, 0.2, 1.0, 4.5])
    want = np.array([p[z < ti].sum() for ti in t])
    assert np.allclose(dg.below(sigma, t), want, rtol=1e-13, atol=1e-16)


def test_rho_and_its_renyi_divergence():
    """ρ = Δ²/(2σ²) (CKS20, Thm 4): D_α(N_Z(0,σ²) ‖ N_Z(Δ,σ²)) ≤ αρ, equal at α = 2."""
    sigma, sens = 1.3, 2
    rho = dg.rho_for_sigma(sigma, sens)
    assert rho == pytest.approx(sens**2 / (2 * sigma**2))
    assert dg.sigma_for_rho(rho, sens) == pytest.approx(sigma)
    xs, w, z = _weights(sigma)
    at = dict(zip(xs, w, strict=True))
    for alpha in (1.5, 2.0, 3.0, 7.5):
        a = mpmath.mpf(alpha)
        s = mpmath.fsum(
            (at[x] / z) ** a * (at[x - sens] / z) ** (1 - a) for x in xs if x - sens in at
        )
        d = float(mpmath.log(s) / (a - 1))
        assert d <= alpha * rho * (1 + 1e-12)
        if alpha == 2.0:
            assert d == pytest.approx(alpha * rho, rel=1e-12)


def test_abs_quantile_is_the_smallest_covering_integer():
    for sigma in (0.4, 3.0, 250.0):
        x = dg.abs_quantile(sigma, 0.95)
        k = dg.support_radius(sigma)
        support = np.arange(-k, k + 1)
        p = dg.pmf(sigma, support)
        assert float(np.sum(p[np.abs(support) <= x])) >= 0.95 - 1e-12
        assert x == 0 or float(np.sum(p[np.abs(support) <= x - 1])) < 0.95


def test_sampler_follows_the_pmf():
    rng = np.random.default_rng(20240601)
    for sigma in (0.6, 2.5):
        draws = dg.sample(rng, sigma, 60000)
        k = dg.support_radius(sigma)
        support = np.arange(-k, k + 1)
        p = dg.pmf(sigma, support)
        counts = np.array([np.sum(draws == x) for x in support])
        big = p * draws.size > 5
        chi2 = float(np.sum((counts[big] - draws.size * p[big]) ** 2 / (draws.size * p[big])))
        assert stats.chi2.sf(chi2, int(big.sum()) - 1) > 1e-4
    big_sigma = dg.sample(rng, 1e9, 20000).astype(float)
    assert np.var(big_sigma) == pytest.approx(1e18, rel=0.05)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: dg.delta_for_eps(1.0, 1.0, 1.5), "whole-number sensitivity"),
        (lambda: dg.delta_for_eps(-1.0, 1.0, 1), "eps"),
        (lambda: dg.variance(0.0), "sigma"),
        (lambda: dg.sigma_for_rho(-1.0), "rho"),
        (lambda: dg.pmf(1.0, [0.5]), "whole numbers"),
    ],
)
def test_bad_input_gets_a_sentence(call, message):
    with pytest.raises(ValueError, match=message):
        call()


@pytest.mark.parametrize("sigma", [0.4, 3.0, 150.0, 250.0, 2000.0])
def test_vectorised_tails_equal_the_direct_sums(sigma):
    t = np.array([-3 * sigma, -1.5, -0.5, 0.0, 0.7, 2.0, sigma, 2.5 * sigma, 10 * sigma])
    want = []
    for v in t:
        m = math.floor(v) + 1
        want.append(
            1.0 - dg._direct_sum(sigma, 1 - m, None, 1)
            if m <= 0
            else dg._direct_sum(sigma, m, None, 1)
        )
    assert np.allclose(dg.tails(sigma, t), want, rtol=1e-12, atol=1e-300)
    assert np.allclose(dg.below(sigma, t), 1.0 - np.asarray(dg.tails(sigma, t - 1e-9)))


def test_registered_mechanism():
    from core.linear.mechanisms import LINEAR_MECHANISMS

    m = LINEAR_MECHANISMS["discrete_gaussian"]
    assert m.integer and m.uses_delta and m.zcdp
    s = m.parameter(0.5, 1e-6, 2)
    assert s == pytest.approx(dg.sigma_for_eps_delta(0.5, 1e-6, 2))
    assert m.parameter_for_rho(0.125, 1) == pytest.approx(2.0)
    x = np.array([-2.0, -0.5, 0.0, 1.0, 1.5])
    k = dg.support_radius(1.3)
    z = np.arange(-k, k + 1)
    p = dg.pmf(1.3, z)
    assert np.allclose(m.cdf(1.3, x), [p[z <= v].sum() for v in x])
    assert np.allclose(m.below(1.3, x), [p[z < v].sum() for v in x])
    assert m.variance(1.3) == pytest.approx(dg.variance(1.3))
    draws = m.sample(np.random.default_rng(3), 1.3, 100)
    assert draws.dtype == np.float64 and np.all(draws == np.round(draws))
    # The δ grows with the sensitivity: a relation whose sensitivity is not larger keeps
    # the calibrated (ε, δ) (factor 1); a larger one has no factor.
    f = m.budget_factors({"deletion": 3, "replacement": 4}, "replacement")
    assert (f.add_remove, f.change) == (1.0, 1.0)
    f = m.budget_factors({"deletion": 3, "replacement": 4}, "deletion")
    assert (f.add_remove, f.change) == (1.0, None)
    with pytest.raises(ValueError, match="δ"):
        m.parameter(1.0, None, 1)
