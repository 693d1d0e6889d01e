"""Tests for core.strata.privacy (Bun et al., Theorems 3.1, 4.3 and 7.2).

Layers: the numbers printed in the paper; slow, obviously correct references kept here
(60-digit mpmath for the closed forms); hypothesis properties; the inverse of the
proportional bound.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st
from mpmath import mp, mpf

from core import amplification as amp
from core import strata as S

FAST = settings(max_examples=150, deadline=None)

# ---------------------------------------------------------------------------------------------
# Slow references
# ---------------------------------------------------------------------------------------------


def mp_bound(eps: float, rate: float) -> float:
    """Theorem 4.3/7.2 in 60-digit arithmetic, textbook form."""
    with mp.workdps(60):
        e, r = mpf(eps), mpf(rate)
        x = mpmath.exp(2 * e) - 1
        return float(mpmath.log(1 + 2 * r * x) + mpmath.log(1 + r * x))


def mp_random_size(eps: float, n: int, pmf) -> tuple[float, float]:
    """Theorem 3.1 in 60-digit arithmetic, textbook form."""
    with mp.workdps(60):
        e = mpf(eps)
        w = [mpf(float(p)) * mpmath.exp(e * m) for m, p in enumerate(pmf)]
        a = sum(wi * m for m, wi in enumerate(w)) / sum(w) / n
        upper = mpmath.log(1 + a * (mpmath.exp(e) - 1))
        lower = -mpmath.log(1 - a * (1 - mpmath.exp(-e)))
        return float(lower), float(upper)


# ---------------------------------------------------------------------------------------------
# Numbers printed in the paper
# ---------------------------------------------------------------------------------------------


def test_theorem_43_value_and_six_r_eps() -> None:
    # Worked by hand: log(1 + 0.2(e² − 1)) + log(1 + 0.1(e² − 1)).
    x = math.e**2 - 1
    assert S.proportional_eps_bound(1.0, 0.1) == pytest.approx(
        math.log(1 + 0.2 * x) + math.log(1 + 0.1 * x), rel=1e-14
    )
    assert S.proportional_eps_bound(1.0, 0.1) == pytest.approx(1.3172, abs=1e-4)
    assert S.proportional_eps_bound(1e-6, 0.01) == pytest.approx(6e-8, rel=1e-5)
    assert S.proportional_eps_approx(0.5, 0.1) == pytest.approx(0.3)


def test_figure_2_truncated_gaussian() -> None:
    # n = 10⁴, mean n/2, ε = 0.01: concentrated sizes give ≈ ε/2; σ ≈ 800 is "already close
    # to ε = 0.01".
    n, eps = 10_000, 0.01
    tight = S.random_size_eps_bounds(eps, n, S.truncated_gaussian_pmf(n, n / 2, 1.0))
    assert tight.lower == pytest.approx(eps / 2, rel=3e-3)
    assert tight.upper == pytest.approx(eps / 2, rel=3e-3)
    wide = S.random_size_eps_bounds(eps, n, S.truncated_gaussian_pmf(n, n / 2, 800.0))
    assert 0.0096 < wide.lower < wide.upper < eps
    uppers = [
        S.random_size_eps_bounds(eps, n, S.truncated_gaussian_pmf(n, n / 2, sd)).upper
        for sd in (1, 10, 100, 300, 800, 1000)
    ]
    assert np.all(np.diff(uppers) > 0)


def test_theorem_31_reduces_to_theorem_22_for_a_fixed_size() -> None:
    n = 50
    for m in (0, 1, 7, 25, 50):
        pmf = np.zeros(n + 1)
        pmf[m] = 1.0
        for eps in (1e-12, 0.01, 1.0, 30.0, 1000.0):
            b = S.random_size_eps_bounds(eps, n, pmf)
            assert b.tilted_mean == m
            if m:
                assert b.upper == pytest.approx(amp.eps_target(eps, m / n), rel=1e-12)
            else:
                assert b.upper == 0.0
            assert b.lower <= b.upper * (1 + 1e-12)


# ---------------------------------------------------------------------------------------------
# Privacy bounds: references, properties, numerics
# ---------------------------------------------------------------------------------------------

EPS = st.one_of(
    st.floats(-12, 3).map(lambda u: float(10.0**u)), st.floats(1e-12, 1000.0, allow_nan=False)
)
RATES = st.one_of(st.floats(-9, 0).map(lambda u: float(10.0**u)), st.floats(1e-9, 1.0))
#: Just below log(DBL_MAX) ≈ 709.78: exp(ε) is still finite, exp(ε + 0.01) overflows. The
#: bound uses e^{2ε}, which overflows from ε ≈ 354.89 on (EXP2_OVERFLOW: just below and
#: just above).
EXP_OVERFLOW = 709.78
#: Just above log(DBL_MAX) ≈ 709.7827: exp(ε) overflows to inf.
EXP_JUST_OVER = 709.79
EXP2_OVERFLOW = (354.89, 354.9)


@FAST
@example(eps=1e-12, rate=1e-9)  # the ε and rate boundaries
@example(eps=1e-12, rate=1 - 1e-12)
@example(eps=EXP2_OVERFLOW[0], rate=1e-9)
@example(eps=EXP2_OVERFLOW[0], rate=1 - 1e-12)
@example(eps=EXP2_OVERFLOW[1], rate=1e-9)
@example(eps=EXP2_OVERFLOW[1], rate=1 - 1e-12)
@example(eps=EXP_OVERFLOW, rate=1e-9)
@example(eps=EXP_JUST_OVER, rate=1e-9)
@example(eps=EXP_OVERFLOW, rate=1 - 1e-12)
@example(eps=EXP_JUST_OVER, rate=1 - 1e-12)
@given(eps=EPS, rate=RATES)
def test_proportional_bound_matches_60_digit_reference(eps, rate) -> None:
    got = S.proportional_eps_bound(eps, rate)
    assert math.isfinite(got)
    assert got == pytest.approx(mp_bound(eps, rate), rel=1e-12, abs=1e-300)


@FAST
@example(eps=1e-12, rate=1e-9)  # the ε and rate boundaries
@example(eps=1.0, rate=0.05)
@given(eps=st.floats(1e-12, 1.0), rate=st.floats(1e-9, 0.05))
def test_proportional_bound_is_below_eps_for_small_rates(eps, rate) -> None:
    assert S.proportional_eps_bound(eps, rate) < eps


@FAST
@example(eps=1e-12, rate=1e-6)  # the ε and rate boundaries
@example(eps=1e-12, rate=1 - 1e-12)
@given(eps=st.floats(1e-12, 1e-8), rate=st.floats(1e-6, 1.0))
def test_proportional_bound_tends_to_six_r_eps(eps, rate) -> None:
    ratio = S.proportional_eps_bound(eps, rate) / S.proportional_eps_approx(eps, rate)
    assert ratio == pytest.approx(1.0, abs=1e-6)


def test_proportional_bound_extremes_and_broadcasting() -> None:
    assert S.proportional_eps_bound(1e-12, 0.1) == pytest.approx(6e-13, rel=1e-9)
    big = S.proportional_eps_bound(1000.0, 0.1)
    assert math.isfinite(big)
    assert big == pytest.approx(4000 + math.log(0.2) + math.log(0.1), rel=1e-14)
    out = S.proportional_eps_bound(np.array([0.1, 1.0, 10.0]), 0.01)
    assert isinstance(out, np.ndarray) and out.shape == (3,)
    assert np.all(np.diff(out) > 0)
    assert isinstance(S.proportional_eps_bound(1.0, 0.5), float)
    # Not an amplification at large rates: the bound exceeds ε.
    assert S.proportional_eps_bound(1.0, 0.5) > 1.0


PMFS = st.integers(1, 40).flatmap(
    lambda n: st.tuples(
        st.just(n),
        st.lists(
            st.one_of(st.just(0.0), st.floats(1e-6, 1.0)), min_size=n + 1, max_size=n + 1
        ).filter(lambda w: sum(w) > 0),
    )
)


@FAST
@example(case=(40, [1.0] * 41), eps=1e-12)  # ε at its boundaries
@example(case=(40, [1.0] * 41), eps=EXP_OVERFLOW)
@example(case=(40, [1.0] * 41), eps=EXP_JUST_OVER)
@example(case=(1, [1.0, 1.0]), eps=1000.0)
@given(case=PMFS, eps=st.one_of(st.floats(1e-12, 5.0), st.floats(5.0, 1000.0)))
def test_theorem_31_matches_reference_and_is_ordered(case, eps) -> None:
    n, weights = case
    pmf = np.array(weights) / sum(weights)
    b = S.random_size_eps_bounds(eps, n, pmf)
    assert math.isfinite(b.lower) and math.isfinite(b.upper)
    assert 0 <= b.lower <= b.upper * (1 + 1e-12) + 1e-300
    assert b.upper <= eps * (1 + 1e-12)
    assume(eps <= 50)  # the textbook form in mpmath needs exp(eps) to stay moderate
    lower, upper = mp_random_size(eps, n, pmf)
    assert b.upper == pytest.approx(upper, rel=1e-9, abs=1e-300)
    assert b.lower == pytest.approx(lower, rel=1e-9, abs=1e-300)


@FAST
@given(n=st.integers(1, 200), data=st.data(), eps=EPS)
def test_theorem_31_brackets_the_fixed_size_value(n, data, eps) -> None:
    m = data.draw(st.integers(0, n))
    pmf = np.zeros(n + 1)
    pmf[m] = 1.0
    b = S.random_size_eps_bounds(eps, n, pmf)
    fixed = amp.eps_target(eps, m / n) if m else 0.0
    assert b.lower <= fixed * (1 + 1e-12) + 1e-300
    assert fixed <= b.upper * (1 + 1e-12) + 1e-300


def test_theorem_31_large_eps_spoils_amplification() -> None:
    # A 1 % chance of sampling everything: at large ε the tilt puts all weight there.
    n = 100
    pmf = np.zeros(n + 1)
    pmf[10], pmf[n] = 0.99, 0.01
    assert S.random_size_eps_bounds(1000.0, n, pmf).lower == pytest.approx(1000.0)
    assert S.random_size_eps_bounds(0.01, n, pmf).upper < 0.01 * 0.2


# ---------------------------------------------------------------------------------------------
# Issue 10: ε_target in → ε_sample out (Theorems 4.3/7.2 inverted), numeric stratum labels
# ---------------------------------------------------------------------------------------------


def _inverse_by_brentq(t: float, r: float) -> float:
    """Slow reference: bracket and bisect the monotone bound with scipy's brentq."""
    from scipy.optimize import brentq

    hi = 1.0
    while S.proportional_eps_bound(hi, r) < t:
        hi *= 2.0
    return brentq(lambda e: S.proportional_eps_bound(e, r) - t, 0.0 + 1e-300, hi, xtol=1e-13)


@FAST
@example(t=1e-10, r=1e-6)  # the ε_target and rate boundaries
@example(t=EXP_OVERFLOW, r=1e-6)
@example(t=EXP_JUST_OVER, r=1e-6)
@example(t=EXP_OVERFLOW, r=1 - 1e-12)
@example(t=EXP_JUST_OVER, r=1 - 1e-12)
@example(t=1000.0, r=1.0)
@given(t=st.floats(1e-10, 1000.0), r=st.floats(1e-6, 1.0))
def test_proportional_inverse_round_trips(t, r):
    e = S.proportional_eps_sample_for_target(t, r)
    assert S.proportional_eps_bound(e, r) == pytest.approx(t, rel=1e-9)


@FAST
@given(t=st.floats(1e-6, 30.0), r=st.floats(1e-4, 1.0))
def test_proportional_inverse_matches_brentq_and_is_monotone(t, r):
    e = S.proportional_eps_sample_for_target(t, r)
    assert e == pytest.approx(_inverse_by_brentq(t, r), rel=1e-9, abs=1e-13)
    assert S.proportional_eps_sample_for_target(t * 1.1, r) > e
    assert S.proportional_eps_sample_for_target(t, min(1.0, r * 1.1)) <= e


def test_proportional_inverse_limits_and_paper_value():
    # Small budgets: the bound is ≈ 6rε (Theorem 4.3), so ε_sample ≈ ε_target/(6r).
    assert S.proportional_eps_sample_for_target(1e-12, 0.1) == pytest.approx(1e-12 / 0.6, rel=1e-9)
    # r = 1: (1 + 2x)(1 + x) = e^t; at t = ln 6, x = 1, so ε_sample = ln(2)/2.
    assert S.proportional_eps_sample_for_target(math.log(6.0), 1.0) == pytest.approx(
        math.log(2.0) / 2, rel=1e-14
    )
    # Finite and exact far out: ε_target = 1000 (the log branch) round-trips.
    e = S.proportional_eps_sample_for_target(1000.0, 0.01)
    assert math.isfinite(e) and S.proportional_eps_bound(e, 0.01) == pytest.approx(1000.0)
    # Paper (§7.3): the budget on the sample is about ε/(6r): at r = 1/100 and
    # ε_target = 10⁻⁴ that is 1/600 (the approximation is first order in ε_sample).
    assert S.proportional_eps_sample_for_target(1e-4, 0.01) == pytest.approx(1 / 600, rel=0.01)
    with pytest.raises(ValueError, match="eps_target"):
        S.proportional_eps_sample_for_target(0.0, 0.1)
    with pytest.raises(ValueError, match="rate"):
        S.proportional_eps_sample_for_target(0.1, 1.5)
