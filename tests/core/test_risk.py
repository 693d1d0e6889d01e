"""Tests for core.risk: ε read as the odds an attacker may reach.

Layers: the formula e^ε·odds/(1 + e^ε·odds) with a hand-computed number; a slow 60-digit
mpmath reference; hypothesis properties (monotone in ε and in the prior, round trips with
the inverse); the limits ε → 0, ε = 1e-12 and ε = 1000; the privacy claim itself
(randomized response attains the bound, Laplace counts stay under it); argument errors.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from core import risk

FAST = settings(max_examples=300, deadline=None)


def _log_uniform(lo_exp: float, hi_exp: float) -> st.SearchStrategy[float]:
    return st.floats(min_value=lo_exp, max_value=hi_exp).map(lambda u: float(10.0**u))


EPS = st.one_of(_log_uniform(-12, 3), st.floats(min_value=0.0, max_value=50.0))
PRIORS = st.one_of(
    _log_uniform(-9, -0.31),  # up to about 0.49
    st.floats(min_value=1e-6, max_value=1.0 - 1e-6),
)


def reference_bound(eps: float, prior: float) -> mpmath.mpf:
    """e^ε·o / (1 + e^ε·o), o = prior/(1 − prior), literally, in 60 digits (exact inputs)."""
    with mpmath.workdps(60):
        e, p = mpmath.mpf(eps), mpmath.mpf(prior)
        odds = mpmath.exp(e) * p / (1 - p)
        return odds / (1 + odds)


# ---------------------------------------------------------------------------------------
# The formula
# ---------------------------------------------------------------------------------------


def test_hand_computed_example():
    """ε = ln 3 triples the odds: 1/99 becomes 3/99, i.e. probability 3/102 ≈ 2.94 in 100."""
    got = risk.posterior_bound(math.log(3.0), 0.01)
    assert got == pytest.approx(3 / 102, rel=1e-14)
    assert f"{100 * got:.2f}" == "2.94"


@pytest.mark.parametrize("eps", [0.0, 1e-6, 0.1, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0])
@pytest.mark.parametrize("prior", [1e-6, 0.001, 0.01, 0.1, 0.5, 0.9, 0.999])
def test_equals_odds_formula(eps, prior):
    odds = math.exp(eps) * prior / (1 - prior)
    assert risk.posterior_bound(eps, prior) == pytest.approx(odds / (1 + odds), rel=1e-13)


@FAST
@given(EPS, PRIORS)
@example(1e-12, 0.01)
@example(1000.0, 1e-9)
@example(36.0, 0.5)
def test_agrees_with_mpmath_reference(eps, prior):
    got = risk.posterior_bound(eps, prior)
    assert got == pytest.approx(float(reference_bound(eps, prior)), rel=1e-14, abs=0)
    want_rise = reference_bound(eps, prior) - mpmath.mpf(prior)
    assert risk.posterior_increase(eps, prior) == pytest.approx(
        float(want_rise), rel=1e-13, abs=1e-40
    )


def test_delta_does_not_change_the_bound():
    """δ is read, not used: the number is the ε bound (the δ tail is excess_chance's)."""
    for delta in (0.0, 1e-9, 0.01, 0.5):
        assert risk.posterior_bound(1.0, 0.01, delta) == risk.posterior_bound(1.0, 0.01)
        assert risk.posterior_increase(1.0, 0.01, delta=delta) == risk.posterior_increase(1.0, 0.01)


# ---------------------------------------------------------------------------------------
# Properties
# ---------------------------------------------------------------------------------------


@FAST
@given(EPS, EPS, PRIORS)
def test_monotone_in_eps(e1, e2, prior):
    lo, hi = sorted((e1, e2))
    assert risk.posterior_bound(lo, prior) <= risk.posterior_bound(hi, prior)
    assert risk.posterior_increase(lo, prior) <= risk.posterior_increase(hi, prior)


@FAST
@given(EPS, PRIORS, PRIORS)
def test_monotone_in_prior(eps, p1, p2):
    lo, hi = sorted((p1, p2))
    assert risk.posterior_bound(eps, lo) <= risk.posterior_bound(eps, hi)


@FAST
@given(EPS, PRIORS)
def test_bound_between_prior_and_one(eps, prior):
    got = risk.posterior_bound(eps, prior)
    assert prior <= got <= 1.0


@FAST
@given(st.floats(min_value=1e-6, max_value=30.0), PRIORS)
def test_eps_for_posterior_inverts_the_bound(eps, prior):
    posterior = risk.posterior_bound(eps, prior)
    if posterior >= 1.0:  # rounded to certainty: no finite ε to recover
        return
    back = risk.eps_for_posterior(prior, posterior)
    # The posterior is a rounded probability: its last bit is worth ~ulp/(prior·(1 − post)).
    slack = 4 * np.spacing(posterior) / (prior * (1 - posterior))
    assert back == pytest.approx(eps, rel=1e-12, abs=slack)


@FAST
@given(PRIORS, st.floats(min_value=0.0, max_value=1.0))
def test_bound_at_eps_for_posterior_is_that_posterior(prior, share):
    posterior = prior + share * (1 - 1e-6 - prior)
    if not prior <= posterior < 1.0:
        return
    eps = risk.eps_for_posterior(prior, posterior)
    assert risk.posterior_bound(eps, prior) == pytest.approx(posterior, rel=1e-12)


def test_eps_for_posterior_hand_values():
    assert risk.eps_for_posterior(0.01, 0.5) == pytest.approx(math.log(99), rel=1e-14)
    assert risk.eps_for_posterior(0.2, 0.2) == 0.0


# ---------------------------------------------------------------------------------------
# Limits
# ---------------------------------------------------------------------------------------


def test_eps_zero_gives_the_prior():
    for prior in (0.0, 1e-9, 0.01, 0.5, 1.0):
        assert risk.posterior_bound(0.0, prior) == prior
        assert risk.posterior_increase(0.0, prior) == 0.0


@pytest.mark.parametrize("prior", [1e-9, 0.01, 0.5, 0.99])
def test_tiny_eps_rise_is_exact(prior):
    """At ε = 1e-12 the rise is ε·prior·(1 − prior)/(1 + O(ε)), exact to 1e-9 relative."""
    eps = 1e-12
    want = eps * prior * (1 - prior)
    assert risk.posterior_increase(eps, prior) == pytest.approx(want, rel=1e-9, abs=0)
    assert risk.posterior_bound(eps, prior) == pytest.approx(prior + want, rel=1e-15)


@pytest.mark.parametrize("prior", [1e-300, 1e-9, 0.01, 0.5])
def test_huge_eps_is_finite_certainty(prior):
    with np.errstate(over="raise", invalid="raise", divide="raise"):
        assert risk.posterior_bound(1000.0, prior) == 1.0
        assert risk.posterior_increase(1000.0, prior) == pytest.approx(1 - prior, rel=1e-15)


def test_prior_zero_and_one_stay():
    assert risk.posterior_bound(5.0, 0.0) == 0.0
    assert risk.posterior_bound(5.0, 1.0) == 1.0
    assert risk.posterior_increase(5.0, 1.0) == 0.0


def test_scalars_give_floats_and_arrays_broadcast():
    assert type(risk.posterior_bound(1.0, 0.01)) is float
    got = risk.posterior_bound(np.array([[0.0], [1.0]]), np.array([0.01, 0.1, 0.5]))
    assert got.shape == (2, 3)
    assert got[0].tolist() == [0.01, 0.1, 0.5]
    assert got[1, 2] == pytest.approx(math.e / (1 + math.e))
    assert risk.eps_for_posterior(np.array([0.01, 0.1]), 0.5).shape == (2,)


# ---------------------------------------------------------------------------------------
# The privacy claim
# ---------------------------------------------------------------------------------------


def _bayes(prior: float, like_in: np.ndarray, like_out: np.ndarray) -> np.ndarray:
    return prior * like_in / (prior * like_in + (1 - prior) * like_out)


@pytest.mark.parametrize("eps", [0.1, 1.0, math.log(3.0), 4.0])
@pytest.mark.parametrize("prior", [0.001, 0.01, 0.3])
def test_randomized_response_attains_the_bound(eps, prior):
    """The worst case: Alice in → "yes" with chance e^ε/(1 + e^ε), out → 1/(1 + e^ε)."""
    yes_in = math.exp(eps) / (1 + math.exp(eps))
    yes_out = 1 / (1 + math.exp(eps))
    posterior_yes = _bayes(prior, np.array(yes_in), np.array(yes_out))
    assert float(posterior_yes) == pytest.approx(risk.posterior_bound(eps, prior), rel=1e-13)
    posterior_no = _bayes(prior, np.array(1 - yes_in), np.array(1 - yes_out))
    assert float(posterior_no) < prior  # the other answer lowers the attacker's belief


@pytest.mark.parametrize("eps", [0.1, 1.0, 3.0])
@pytest.mark.parametrize("prior", [0.01, 0.2])
def test_laplace_count_posterior_never_exceeds_the_bound(eps, prior):
    """A Laplace(1/ε) count of the data (c with Alice, c − 1 without), any output y."""
    count = 40.0
    y = np.linspace(count - 30, count + 30, 6001)
    dens_in = np.exp(-eps * np.abs(y - count)) * eps / 2
    dens_out = np.exp(-eps * np.abs(y - (count - 1))) * eps / 2
    posterior = _bayes(prior, dens_in, dens_out)
    bound = risk.posterior_bound(eps, prior)
    assert posterior.max() <= bound * (1 + 1e-12)
    # every output at or above the larger count reaches it: the bound is tight here too
    assert posterior[y >= count] == pytest.approx(bound, rel=1e-12)


# ---------------------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "kwargs", "match"),
    [
        ((-0.1, 0.01), {}, r"eps must be a finite number ≥ 0; got -0.1"),
        ((float("inf"), 0.01), {}, r"eps must be a finite number ≥ 0"),
        ((1.0, 1.5), {}, r"prior must be in the interval \[0, 1\] \(a probability\); got 1.5"),
        ((1.0, -0.01), {}, r"prior must be in the interval \[0, 1\]"),
        ((1.0, 0.01), {"delta": 1.0}, r"delta must be in the interval \[0, 1\)"),
        ((1.0, 0.01), {"delta": -1e-9}, r"delta must be in the interval \[0, 1\)"),
    ],
)
def test_bad_arguments_raise(args, kwargs, match):
    with pytest.raises(ValueError, match=match):
        risk.posterior_bound(*args, **kwargs)
    with pytest.raises(ValueError, match=match):
        risk.posterior_increase(*args, **kwargs)


def test_eps_for_posterior_bad_arguments():
    with pytest.raises(ValueError, match=r"prior must be in the interval \(0, 1\)"):
        risk.eps_for_posterior(0.0, 0.5)
    with pytest.raises(ValueError, match=r"posterior must be in the interval \(0, 1\)"):
        risk.eps_for_posterior(0.01, 1.0)
    with pytest.raises(ValueError, match=r"posterior must be at least the prior; got 0.005"):
        risk.eps_for_posterior(0.01, 0.005)


# ---------------------------------------------------------------------------------------
# δ > 0: the tail of the privacy loss (excess_chance)
# ---------------------------------------------------------------------------------------


def test_excess_chance_numbers():
    assert risk.excess_chance(1e-5, math.log(2.0)) == pytest.approx(2e-5, rel=1e-12)
    assert risk.excess_chance(1e-5, 1e6) == pytest.approx(1e-5, rel=1e-12)
    assert risk.excess_chance(0.0, 1.0) == 0.0
    assert risk.excess_chance(0.5, 1e-3) == 1.0  # capped
    # tiny t keeps its digits: δ/(1 − e^−t) ≈ δ/t
    assert risk.excess_chance(1e-20, 1e-12) == pytest.approx(1e-8, rel=1e-9)
    np.testing.assert_allclose(risk.excess_chance([1e-3, 1e-4], math.log(2.0)), [2e-3, 2e-4])


@pytest.mark.parametrize("sigma", [0.3, 1.0, 3.0])
@pytest.mark.parametrize("eps", [0.1, 1.0, 3.0])
def test_excess_chance_holds_for_the_gaussian_mechanism(sigma, eps):
    """Gaussian noise N(0, σ²) on a count of sensitivity 1: its exact δ(ε) (Balle & Wang
    2018, Theorem 8) and the exact chance that its privacy loss exceeds ε + t."""
    from scipy.stats import norm

    delta = norm.cdf(0.5 / sigma - eps * sigma) - math.exp(eps) * norm.cdf(
        -0.5 / sigma - eps * sigma
    )
    for t in (1e-3, 0.1, math.log(2.0), 2.0, 10.0):
        # L = (2y − 1)/(2σ²) with y ~ N(1, σ²) when Alice is in
        chance = norm.sf((eps + t) * sigma - 0.5 / sigma)
        assert chance <= risk.excess_chance(delta, t) * (1 + 1e-12)


def test_the_eps_bound_alone_is_not_an_except_with_delta_statement():
    """Merging the disclosing outcome of the (ε, δ) randomized response (Kairouz, Oh &
    Viswanath 2015) with its "lean in" outcome: one output of large chance whose posterior
    exceeds the ε bound, so the docstring must not claim "at most the bound except with
    chance δ" — while the tail bound of excess_chance still holds."""
    eps, delta, prior = 1.0, 1e-3, 0.01
    e = math.exp(eps)
    p_in = delta + (1 - delta) * e / (1 + e)  # merged output, Alice in
    p_out = (1 - delta) / (1 + e)  # merged output, Alice out
    posterior = prior * p_in / (prior * p_in + (1 - prior) * p_out)
    assert posterior > risk.posterior_bound(eps, prior, delta)
    assert p_in > 100 * delta
    t = math.log(p_in / p_out) - eps
    # the tail bound is attained here: (1 − e^{−t})·p_in is exactly δ
    assert p_in <= risk.excess_chance(delta, t) * (1 + 1e-9)


def test_excess_chance_rejects_bad_arguments():
    with pytest.raises(ValueError, match="extra_eps"):
        risk.excess_chance(1e-5, 0.0)
    with pytest.raises(ValueError, match="delta"):
        risk.excess_chance(1.0, 1.0)
