"""Tests of core.accounting.zcdp: the sharp conversion between pure ε-DP and ρ-zCDP.

The conversion is checked against an independent computation: the Rényi divergences of
randomized response (the worst ε-DP pair) at 60 digits, whose supremum of ``D_α/α`` over
``α > 1`` must equal ``ρ(ε)``; and against exact output laws of other ε-DP pairs, which may
never exceed it.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as hs

from core.accounting import zcdp

mpmath.mp.dps = 60


def renyi(alpha: mpmath.mpf, p: list[mpmath.mpf], q: list[mpmath.mpf]) -> mpmath.mpf:
    """``D_α(P‖Q) = log Σ p^α q^{1−α} / (α − 1)``, from the definition."""
    total = mpmath.fsum(pi**alpha * qi ** (1 - alpha) for pi, qi in zip(p, q, strict=True))
    return mpmath.log(total) / (alpha - 1)


def kl(p: list[mpmath.mpf], q: list[mpmath.mpf]) -> mpmath.mpf:
    """``D_1 = KL(P‖Q)``, the limit of ``D_α`` as ``α ↓ 1``."""
    return mpmath.fsum(pi * mpmath.log(pi / qi) for pi, qi in zip(p, q, strict=True))


def randomized_response(eps: float) -> tuple[list[mpmath.mpf], list[mpmath.mpf]]:
    e = mpmath.mpf(eps)
    hi = mpmath.exp(e) / (1 + mpmath.exp(e))
    return [hi, 1 - hi], [1 - hi, hi]


#: α from just above 1 to 10⁴ (log-spaced), where ``D_α/α`` of an ε-DP pair is sought.
ALPHAS = [mpmath.mpf(1) + mpmath.mpf(10) ** k for k in np.linspace(-30, 4, 69)]


def sup_renyi_over_alpha(p: list[mpmath.mpf], q: list[mpmath.mpf]) -> mpmath.mpf:
    """``sup_{α>1} D_α(P‖Q)/α`` over :data:`ALPHAS` and the limit ``α ↓ 1`` (the KL)."""
    return max([kl(p, q)] + [renyi(a, p, q) / a for a in ALPHAS])


# ---------------------------------------------------------------------------------------
# Against the exact Rényi divergences of randomized response
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("eps", [1e-6, 0.01, 0.1, 0.5, 1.0, 2.0, 5.0, 10.0, 50.0])
def test_rho_is_the_exact_renyi_supremum_of_randomized_response(eps: float) -> None:
    p, q = randomized_response(eps)
    exact = sup_renyi_over_alpha(p, q)
    assert zcdp.rho_for_eps(eps) == pytest.approx(float(exact), rel=1e-12)
    # ... and no α above 1 exceeds it (the supremum is the limit α ↓ 1).
    assert all(renyi(a, p, q) / a <= exact * (1 + mpmath.mpf(10) ** -40) for a in ALPHAS)


def test_paper_numbers() -> None:
    # Steinke (2024), Theorem 5: ρ = ε(e^ε − 1)/(e^ε + 1); at ε = 1 that is tanh(1/2).
    assert zcdp.rho_for_eps(1.0) == pytest.approx(0.46211715726000974, rel=1e-15)
    assert zcdp.rho_for_eps(1.0) == pytest.approx((math.e - 1) / (math.e + 1), rel=1e-15)
    # Bun & Steinke (2016), Proposition 3.3: ε²/2, an upper bound, strictly above at ε = 1.
    assert zcdp.bun_steinke_rho(1.0) == 0.5
    assert zcdp.rho_for_eps(1.0) < 0.5 - 0.03


@given(hs.floats(1e-8, 700.0))
@example(1e-12)
@example(1000.0)
def test_below_bun_steinke_and_below_eps(eps: float) -> None:
    rho = zcdp.rho_for_eps(eps)
    assert 0 < rho <= zcdp.bun_steinke_rho(eps)
    assert rho <= eps


@pytest.mark.parametrize("eps", [0.1, 1.0, 3.0, 10.0])
def test_laplace_tight_zcdp_is_below(eps: float) -> None:
    # The ε-DP Laplace mechanism's own tight zCDP value ε + e^{−ε} − 1 (Harrison & Manurangsi
    # 2026) is a particular ε-DP mechanism, so it can only be below the worst case.
    assert eps + math.expm1(-eps) < zcdp.rho_for_eps(eps)


@given(
    hs.lists(hs.floats(0.05, 1.0), min_size=2, max_size=5),
    hs.lists(hs.floats(0.05, 1.0), min_size=5, max_size=5),
)
def test_no_eps_dp_pair_exceeds_the_bound(weights_p: list[float], weights_q: list[float]) -> None:
    # Any pair of output laws is ε-DP for ε = max |log P/Q|; its Rényi supremum never
    # exceeds ρ(ε).
    k = len(weights_p)
    p = [mpmath.mpf(w) / mpmath.fsum(weights_p) for w in weights_p]
    q_raw = weights_q[:k]
    q = [mpmath.mpf(w) / mpmath.fsum(q_raw) for w in q_raw]
    eps = float(max(abs(mpmath.log(pi / qi)) for pi, qi in zip(p, q, strict=True)))
    if eps < 1e-9:
        return
    bound = zcdp.rho_for_eps(eps)
    assert float(sup_renyi_over_alpha(p, q)) <= bound * (1 + 1e-12)
    assert float(sup_renyi_over_alpha(q, p)) <= bound * (1 + 1e-12)


# ---------------------------------------------------------------------------------------
# Properties: monotone, inverse, limits
# ---------------------------------------------------------------------------------------


@given(hs.floats(1e-10, 500.0), hs.floats(1.0001, 2.0))
def test_monotone(eps: float, factor: float) -> None:
    assert zcdp.rho_for_eps(eps * factor) > zcdp.rho_for_eps(eps)
    assert zcdp.eps_target_for_rho(eps * factor) > zcdp.eps_target_for_rho(eps)


@given(hs.floats(1e-300, 1e300))
@example(1e-12)
@example(2.0)
@example(1e300)
def test_inverse_from_rho_and_never_above_rho(rho: float) -> None:
    eps = zcdp.eps_target_for_rho(rho)
    assert math.isfinite(eps) and eps > 0
    assert zcdp.rho_for_eps(eps) == pytest.approx(rho, rel=1e-9)
    assert zcdp.rho_for_eps(eps) <= rho  # the promise is kept, never exceeded by rounding


@given(hs.floats(1e-150, 1e300))
@example(1e-12)
@example(1000.0)
def test_inverse_from_eps(eps: float) -> None:
    assert zcdp.eps_target_for_rho(zcdp.rho_for_eps(eps)) == pytest.approx(eps, rel=1e-9)


@pytest.mark.parametrize("rho", [1e-300, 1e-12, 1e-6, 0.01, 0.5, 1.0, 2.0, 10.0, 100.0])
def test_inverse_against_a_60_digit_root(rho: float) -> None:
    r = mpmath.mpf(rho)
    start = mpmath.sqrt(2 * r) if rho < 2 else r
    ref = mpmath.findroot(lambda e: e * mpmath.tanh(e / 2) - r, start)
    assert zcdp.eps_target_for_rho(rho) == pytest.approx(float(ref), rel=1e-14)


def test_small_eps_limit() -> None:
    # ρ(ε) = ε²/2 − ε⁴/24 + O(ε⁶): Bun & Steinke's ε²/2 is sharp to first order.
    for eps in [1e-12, 1e-6, 1e-3]:
        assert zcdp.rho_for_eps(eps) == pytest.approx(eps**2 / 2 - eps**4 / 24, rel=1e-14)
    # ... so the ε_target of ρ is √(2ρ)·(1 + ρ/12 + O(ρ²)): exact at ρ = 1e-12.
    assert zcdp.eps_target_for_rho(1e-12) == pytest.approx(math.sqrt(2e-12), rel=1e-12)
    assert zcdp.eps_target_for_rho(1e-4) == pytest.approx(
        math.sqrt(2e-4) * (1 + 1e-4 / 12), rel=1e-9
    )


def test_large_limits_and_extremes() -> None:
    # ρ(ε) → ε: at ε = 1000 the two agree to the last bit; the inverse is finite at huge ρ.
    assert zcdp.rho_for_eps(1000.0) == pytest.approx(1000.0, rel=1e-15)
    assert zcdp.eps_target_for_rho(1000.0) == pytest.approx(1000.0, rel=1e-15)
    assert zcdp.eps_target_for_rho(1.7976931348623157e308) == pytest.approx(1.7976931348623157e308)
    assert zcdp.bun_steinke_rho(1e300) == math.inf
    assert zcdp.eps_target_for_rho(1e-300) == pytest.approx(math.sqrt(2e-300), rel=1e-14)


@pytest.mark.parametrize("bad", [0.0, -1.0, math.nan, math.inf, "abc", None, True])
def test_bad_input_is_refused_with_a_clear_message(bad: object) -> None:
    with pytest.raises(ValueError, match="rho"):
        zcdp.eps_target_for_rho(bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="eps"):
        zcdp.rho_for_eps(bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="rho_target"):
        zcdp.Promise("zcdp", bad)  # type: ignore[arg-type]


# ---------------------------------------------------------------------------------------
# The promise
# ---------------------------------------------------------------------------------------


def test_promise_pure_and_zcdp() -> None:
    pure = zcdp.Promise("eps", 1.0)
    assert pure.eps_target == 1.0 and pure.rho is None and pure.conversion == ""
    stated = zcdp.Promise("zcdp", 0.5)
    assert stated.rho == 0.5
    assert stated.eps_target == pytest.approx(zcdp.eps_target_for_rho(0.5))
    assert zcdp.rho_for_eps(stated.eps_target) <= 0.5
    assert "Steinke 2024" in stated.conversion and "tanh" in stated.conversion
    assert "ρ = 0.5-zCDP" in stated.describe() and "1.04363" in stated.describe()
    with pytest.raises(ValueError, match="promise"):
        zcdp.Promise("rdp", 1.0)
