"""Tests of core.accounting.gaussian_profile: exact privacy profiles of the sampled Gaussian.

Checked against independent computations: the analytic Gaussian mechanism's profile in
high precision (mpmath, Balle & Wang 2018), Google's dp_accounting (its per-direction
hockey-stick integrals and its privacy loss distributions, pessimistic and optimistic),
and the exact output laws of the Gaussian mean on every sample of tiny populations.
"""

from __future__ import annotations

import itertools
import math

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

from core import amplification as amp
from core.accounting import gaussian_profile as gp
from core.mechanisms import analytic_gaussian_sigma
from core.planner.budgets import accounting_for
from tests.conftest import require_module

SIGMAS = (0.3, 0.7, 1.0, 2.0, 5.0)
RATES = (0.001, 0.01, 0.1, 0.5, 1.0)
EPSILONS = (0.01, 0.1, 0.5, 1.0, 3.0)


def balle_wang_mp(eps: float, sigma: float) -> float:
    """``Φ(1/(2σ) − εσ) − e^ε Φ(−1/(2σ) − εσ)`` in 50-digit arithmetic."""
    with mpmath.workdps(50):
        e, s = mpmath.mpf(eps), mpmath.mpf(sigma)
        a, b = 1 / (2 * s) - e * s, -1 / (2 * s) - e * s
        return float(mpmath.ncdf(a) - mpmath.exp(e) * mpmath.ncdf(b))


# ---------------------------------------------------------------------------------------
# The unsampled Gaussian (rate 1)
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("sigma", SIGMAS)
@pytest.mark.parametrize("eps", (-2.0, -0.1, 0.0, 1e-12, *EPSILONS, 10.0))
def test_gaussian_delta_is_balle_wang(sigma: float, eps: float) -> None:
    expected = balle_wang_mp(eps, sigma)
    assert float(gp.gaussian_delta(eps, sigma)) == pytest.approx(expected, rel=1e-9, abs=1e-300)


@pytest.mark.parametrize("sigma", SIGMAS)
@pytest.mark.parametrize("eps", EPSILONS)
@pytest.mark.parametrize("design", gp.DESIGNS)
def test_rate_one_is_the_unsampled_gaussian(sigma: float, eps: float, design: str) -> None:
    got = float(gp.profile_delta(eps, sigma, 1.0, design))
    assert got == pytest.approx(balle_wang_mp(eps, sigma), rel=1e-9, abs=1e-300)


def test_extreme_eps_neither_overflows_nor_loses_digits() -> None:
    assert float(gp.gaussian_delta(1000.0, 1.0)) == 0.0
    assert float(gp.srs_delta(1000.0, 1.0, 0.01)) == 0.0
    assert float(gp.poisson_add_delta(1000.0, 1.0, 1.0)) == 0.0
    tiny = float(gp.gaussian_delta(1e-12, 1.0))
    zero = float(gp.gaussian_delta(0.0, 1.0))
    assert zero == pytest.approx(math.erf(0.5 / math.sqrt(2.0)), rel=1e-14)  # total variation
    assert 0.0 < zero - tiny < 1e-11
    assert float(gp.srs_delta(1e-12, 1.0, 0.1)) == pytest.approx(0.1 * zero, rel=1e-10)


# ---------------------------------------------------------------------------------------
# dp_accounting: per-direction integrals and privacy loss distributions
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("sigma", (0.5, 1.0, 3.0))
@pytest.mark.parametrize("rate", (0.01, 0.1, 0.5, 1.0))
@pytest.mark.parametrize("eps", (0.05, 0.5, 1.0, 3.0))
def test_directions_match_dp_accounting(sigma: float, rate: float, eps: float) -> None:
    # GaussianPrivacyLoss(..., sampling_prob=r) integrates the hockey stick of the pair
    # (1 − r) N(0) + r N(∓1) against N(0) (REMOVE) and the reverse (ADD) itself.
    plm = require_module("dp_accounting.pld.privacy_loss_mechanism")
    for kind, ours in (
        (plm.AdjacencyType.REMOVE, gp.poisson_remove_delta),
        (plm.AdjacencyType.ADD, gp.poisson_add_delta),
    ):
        loss = plm.GaussianPrivacyLoss(sigma, sampling_prob=rate, adjacency_type=kind)
        theirs = loss.get_delta_for_epsilon(eps)
        assert float(ours(eps, sigma, rate)) == pytest.approx(theirs, rel=1e-8, abs=1e-15)


@pytest.mark.parametrize(
    ("sigma", "rate"), [(0.8, 0.01), (1.4, 0.1), (1.0, 0.3), (3.0, 0.05), (0.6, 1.0)]
)
def test_poisson_profile_lies_between_dp_accounting_brackets(sigma: float, rate: float) -> None:
    # dp_accounting's PLD rounds the privacy loss up (pessimistic) or down (optimistic) on
    # a grid of width h: the exact profile must lie between the two, and its ε at a δ
    # within one grid step of theirs.
    pld = require_module("dp_accounting.pld.privacy_loss_distribution")
    h = 1e-4
    pess = pld.from_gaussian_mechanism(sigma, value_discretization_interval=h, sampling_prob=rate)
    opt = pld.from_gaussian_mechanism(
        sigma,
        value_discretization_interval=h,
        sampling_prob=rate,
        pessimistic_estimate=False,
        use_connect_dots=False,
    )
    for eps in (0.1, 0.5, 1.0, 2.0):
        ours = float(gp.poisson_delta(eps, sigma, rate))
        assert opt.get_delta_for_epsilon(eps) <= ours * (1 + 1e-9) + 1e-15
        assert ours <= pess.get_delta_for_epsilon(eps) * (1 + 1e-9) + 1e-15
    for delta in (1e-7, 1e-5, 1e-3):
        ours_eps = gp.eps_target_for(sigma, delta, rate, "poisson")
        assert opt.get_epsilon_for_delta(delta) - 1e-9 <= ours_eps
        assert ours_eps <= pess.get_epsilon_for_delta(delta) + 1e-9
        assert pess.get_epsilon_for_delta(delta) - ours_eps <= 2 * h


@pytest.mark.parametrize(
    ("eps_target", "delta_target", "rate"), [(1.0, 1e-6, 0.1), (0.5, 1e-5, 0.02)]
)
def test_least_noise_matches_dp_accounting_calibration(
    eps_target: float, delta_target: float, rate: float
) -> None:
    # An independent inverse: dp_accounting's PLD (pessimistic) at our least noise meets
    # the target to within its discretisation, and 1 % less noise does not.
    pld = require_module("dp_accounting.pld.privacy_loss_distribution")
    sigma = gp.sigma_for(eps_target, delta_target, rate, "poisson")
    at = pld.from_gaussian_mechanism(sigma, value_discretization_interval=1e-4, sampling_prob=rate)
    assert at.get_delta_for_epsilon(eps_target) <= delta_target * 1.01
    less = pld.from_gaussian_mechanism(
        0.99 * sigma, value_discretization_interval=1e-4, sampling_prob=rate
    )
    assert less.get_delta_for_epsilon(eps_target) > delta_target


# ---------------------------------------------------------------------------------------
# The simple random sample: exact output laws on every sample of tiny populations
# ---------------------------------------------------------------------------------------


def _mean_law(values: tuple[float, ...], n: int) -> list[float]:
    """Means of every ``n``-subset (equally likely), the sample's exact law."""
    return [sum(c) / n for c in itertools.combinations(values, n)]


def _hockey_stick(alpha: float, mu: list[float], nu: list[float], sd: float) -> float:
    """``∫ (a − α b)_+`` for equal-weight mixtures of ``N(m, sd²)``, on a fine grid."""
    lo, hi = min(mu + nu) - 12 * sd, max(mu + nu) + 12 * sd
    x = np.linspace(lo, hi, 200_001)

    def density(means: list[float]) -> np.ndarray:
        m = np.asarray(means)[:, None]
        return np.exp(-0.5 * ((x - m) / sd) ** 2).mean(axis=0) / (sd * math.sqrt(2 * math.pi))

    return float(np.trapezoid(np.maximum(density(mu) - alpha * density(nu), 0.0), x))


@pytest.mark.parametrize(("N", "n"), [(4, 1), (4, 2), (5, 2), (5, 3)])
@pytest.mark.parametrize("sigma", (0.5, 1.5))
def test_srs_profile_is_attained_and_never_exceeded(N: int, n: int, sigma: float) -> None:
    # Values in [0, 1], the mean's sensitivity is 1/n, the noise sd is σ / n.  The
    # two-valued pair of the module docstring attains the profile; every pair of
    # neighbours on a grid of values stays below it, in both orders.
    rate, sd = n / N, sigma / n
    eps = 0.7
    alpha = math.exp(eps)
    bound = float(gp.srs_delta(eps, sigma, rate))
    worst = _hockey_stick(
        alpha, _mean_law((0.0,) + (1.0,) * (N - 1), n), _mean_law((1.0,) * N, n), sd
    )
    assert worst == pytest.approx(bound, rel=1e-6, abs=1e-12)
    rng = np.random.default_rng(N * 10 + n)
    for _ in range(6):
        rest = tuple(float(v) for v in rng.choice([0.0, 0.3, 0.5, 1.0], N - 1))
        x, y = (float(v) for v in rng.choice([0.0, 0.4, 1.0], 2, replace=False))
        d, d2 = _mean_law((x, *rest), n), _mean_law((y, *rest), n)
        assert _hockey_stick(alpha, d, d2, sd) <= bound * (1 + 1e-6) + 1e-12
        assert _hockey_stick(alpha, d2, d, sd) <= bound * (1 + 1e-6) + 1e-12


# ---------------------------------------------------------------------------------------
# Properties
# ---------------------------------------------------------------------------------------


def test_addition_never_exceeds_removal() -> None:
    eps = np.concatenate([[0.0], np.geomspace(1e-6, 50.0, 120)])
    for sigma in np.geomspace(0.05, 50.0, 25):
        for rate in np.geomspace(1e-4, 1.0, 15):
            add = gp.poisson_add_delta(eps, sigma, rate)
            rem = gp.poisson_remove_delta(eps, sigma, rate)
            assert np.all(add <= rem * (1 + 1e-12) + 1e-300)


@settings(max_examples=80, deadline=None)
@given(
    sigma=hs.floats(0.1, 20.0),
    r1=hs.floats(1e-4, 1.0),
    r2=hs.floats(1e-4, 1.0),
    eps=hs.floats(0.0, 10.0),
    design=hs.sampled_from(gp.DESIGNS),
)
def test_profile_grows_with_rate(
    sigma: float, r1: float, r2: float, eps: float, design: str
) -> None:
    lo, hi = sorted((r1, r2))
    a = float(gp.profile_delta(eps, sigma, lo, design))
    b = float(gp.profile_delta(eps, sigma, hi, design))
    assert a <= b * (1 + 1e-10) + 1e-300


@settings(max_examples=80, deadline=None)
@given(
    s1=hs.floats(0.1, 20.0),
    s2=hs.floats(0.1, 20.0),
    rate=hs.floats(1e-4, 1.0),
    e1=hs.floats(0.0, 10.0),
    e2=hs.floats(0.0, 10.0),
    design=hs.sampled_from(gp.DESIGNS),
)
def test_profile_falls_with_noise_and_eps(
    s1: float, s2: float, rate: float, e1: float, e2: float, design: str
) -> None:
    (slo, shi), (elo, ehi) = sorted((s1, s2)), sorted((e1, e2))

    def f(eps: float, sigma: float) -> float:
        return float(gp.profile_delta(eps, sigma, rate, design))

    assert f(elo, shi) <= f(elo, slo) * (1 + 1e-10) + 1e-300
    assert f(ehi, slo) <= f(elo, slo) * (1 + 1e-10) + 1e-300


@settings(max_examples=60, deadline=None)
@given(
    eps=hs.floats(0.01, 10.0),
    log_delta=hs.floats(-12.0, -3.0),
    rate=hs.floats(0.005, 1.0),
    design=hs.sampled_from(gp.DESIGNS),
)
def test_inverses_are_least(eps: float, log_delta: float, rate: float, design: str) -> None:
    delta = 10.0**log_delta
    sigma = gp.sigma_for(eps, delta, rate, design)
    if delta >= rate:
        assert sigma == 0.0
        return
    assert float(gp.profile_delta(eps, sigma, rate, design)) <= delta
    assert float(gp.profile_delta(eps, sigma * (1 - 1e-9), rate, design)) > delta
    back = gp.eps_target_for(sigma, delta, rate, design)
    assert back == pytest.approx(eps, rel=1e-7)
    assert float(gp.profile_delta(back, sigma, rate, design)) <= delta


# ---------------------------------------------------------------------------------------
# What the exact profile buys the planner's Gaussian mean
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("eps_target", (0.05, 0.3, 1.0, 3.0))
@pytest.mark.parametrize("delta_target", (1e-8, 1e-6, 1e-4))
@pytest.mark.parametrize("rate", (0.005, 0.05, 0.3, 0.9))
def test_generic_theorem_is_already_exact_for_the_analytic_gaussian(
    eps_target: float, delta_target: float, rate: float
) -> None:
    # δ_sample = δ_target / r ≤ 0.5: the planner's ε_sample for the Gaussian mean on a
    # simple random sample equals the exact profile's, and its noise meets the target.
    budget = gp.exact_budget(eps_target, delta_target, rate, "srs")
    planner = accounting_for("srs", eps_target, mechanism="gaussian", rate=rate)
    assert budget.bound == gp.GENERIC_BOUND and budget.gain == ""
    assert budget.exact_eps_sample == pytest.approx(planner.eps_sample, rel=1e-8)
    assert budget.eps_sample == pytest.approx(planner.eps_sample, rel=1e-12)
    sigma = float(analytic_gaussian_sigma(planner.eps_sample, delta_target / rate))
    assert sigma == pytest.approx(budget.sigma, rel=1e-8)
    assert float(gp.srs_delta(eps_target, sigma, rate)) <= delta_target * (1 + 1e-9)


@pytest.mark.parametrize(("delta_target", "rate"), [(1.5e-3, 2e-3), (0.03, 0.05), (0.4, 0.5)])
def test_exact_profile_gains_only_where_delta_sample_is_capped(
    delta_target: float, rate: float
) -> None:
    # δ_target / r in (0.5, 1): the design spends δ_sample = 0.5, below what the exact
    # profile allows, so the exact ε_sample is larger -- and its noise still meets the
    # target (soundness).
    eps_target = 1.0
    budget = gp.exact_budget(eps_target, delta_target, rate, "srs")
    assert budget.delta_sample == 0.5
    assert budget.bound == gp.EXACT_BOUND
    assert (
        budget.eps_sample
        > budget.generic_eps_sample
        == pytest.approx(float(amp.eps_sample(eps_target, rate)), rel=1e-14)
    )
    assert budget.gain.startswith("ε_sample ") and "instead of" in budget.gain
    sigma = float(analytic_gaussian_sigma(budget.eps_sample, 0.5))
    assert sigma >= budget.sigma * (1 - 1e-12)
    assert float(gp.srs_delta(eps_target, sigma, rate)) <= delta_target * (1 + 1e-9)


def test_sampling_alone_meets_a_delta_at_least_the_rate() -> None:
    assert gp.sigma_for(1.0, 0.2, 0.1, "srs") == 0.0
    budget = gp.exact_budget(1.0, 0.2, 0.1, "srs")
    assert budget.exact_eps_sample == math.inf and budget.bound == gp.EXACT_BOUND


def test_inversions_are_fast() -> None:
    # The planner's budget: well under 5 ms per inversion without a cache (closed forms).
    import time

    gp.exact_budget(1.0, 1e-6, 0.1, "srs")
    t0 = time.perf_counter()
    for rate in np.geomspace(0.005, 0.8, 20):
        gp.exact_budget(1.0, 1e-6, float(rate), "srs")
    assert (time.perf_counter() - t0) / 20 < 0.05  # generous: a loaded test machine


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: gp.profile_delta(1.0, 1.0, 0.1, "cluster"), "design"),
        (lambda: gp.srs_delta(1.0, 0.0, 0.1), "sigma"),
        (lambda: gp.srs_delta(-1.0, 1.0, 0.1), "eps"),
        (lambda: gp.srs_delta(1.0, 1.0, 1.5), "rate"),
        (lambda: gp.sigma_for(1.0, 0.0, 0.1, "srs"), "delta_target"),
        (lambda: gp.exact_budget(0.0, 1e-6, 0.1, "srs"), "eps_target"),
        (lambda: gp.gaussian_delta(math.inf, 1.0), "eps"),
    ],
)
def test_bad_arguments_are_refused(call, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        call()


@pytest.mark.parametrize("rate", (1e-4, 0.1, 0.9, 1.0))
def test_base_eps_is_the_amplification_inverse(rate: float) -> None:
    eps = np.array([1e-12, 0.5, 5.0, 699.0, 701.0, 1000.0])
    got = gp._base_eps(eps, rate)
    assert got == pytest.approx(np.asarray(amp.eps_sample(eps, rate)), rel=1e-12)
    assert gp._base_eps(np.array([0.0]), rate)[0] == 0.0
