"""Tests for core.mechanisms.quantiles: privacy and accuracy checked on exact distributions.

Privacy is checked, not assumed: on small samples and every neighbour of the kind a
mechanism claims (one record changed; one added or removed), the output densities are
computed exactly from the mechanism's own statistic, sensitivity and noise scale, and

* pure eps: the log density ratio never exceeds eps (1e-9 relative slack);
* (eps, delta): the hockey-stick divergence ``int max(0, p - e^eps q)`` never exceeds
  delta (1e-6 relative slack), by numerical integration (Laplace) or in closed form
  (Gaussian, Balle & Wang 2018 Theorem 8, cross-checked by integration).

Worst cases are included: all values equal, values at the bounds, n = 1 and 2.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate, stats

from core import mechanisms as mech
from core import sensitivity as sens
from tests.core import reference_sensitivity as ref
from tests.core.mechanisms.neighbours import (
    SAMPLES,
    _additions_removals,
    _one,
    _replacements,
)

LOWER, UPPER = 0.0, 10.0
RATIO_TOL = 1e-9
DELTA_TOL = 1e-6


# ---------------------------------------------------------------------------------------
# Slow references
# ---------------------------------------------------------------------------------------


def laplace_hockey_stick(mu1: float, b1: float, mu2: float, b2: float, eps: float) -> float:
    """``int max(0, p1 - e^eps p2)`` for two Laplace densities, by adaptive quadrature."""

    def gap(y: float) -> float:
        p1 = math.exp(-abs(y - mu1) / b1) / (2 * b1)
        p2 = math.exp(-abs(y - mu2) / b2) / (2 * b2)
        return max(0.0, p1 - math.exp(eps) * p2)

    width = 60.0 * max(b1, b2)
    lo, hi = min(mu1, mu2) - width, max(mu1, mu2) + width
    knots = sorted({lo, mu1, mu2, hi})
    total = 0.0
    for a, b in itertools.pairwise(knots):
        if b > a:
            total += integrate.quad(gap, a, b, limit=400, epsabs=1e-14, epsrel=1e-10)[0]
    # tails beyond the window: p1 <= its own tail mass
    total += math.exp(-(width) / b1)
    return total


def pure_log_density(y: np.ndarray, centre: float, scale: float) -> np.ndarray:
    """log of (1/scale) h((y - centre)/scale), h(z) = (2 sqrt 2 / (2 pi)) / (1 + z^4)."""
    z = (y - centre) / scale
    return np.log(4 * math.sin(math.pi / 4) / (2 * math.pi)) - np.log1p(z**4) - math.log(scale)


# ---------------------------------------------------------------------------------------
# Class attributes and lookup
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "cls", "pure", "relations"),
    [
        ("smooth_laplace", mech.SmoothLaplaceQuantile, False, {"replacement"}),
        ("smooth_pure", mech.SmoothPureQuantile, True, {"replacement"}),
        ("exponential", mech.ExponentialQuantile, True, {"replacement", "deletion"}),
        ("global_laplace", mech.GlobalLaplaceQuantile, True, {"replacement", "deletion"}),
        ("laplace", mech.LaplaceMean, True, {"replacement"}),
        ("gaussian", mech.GaussianMean, False, {"replacement"}),
    ],
)
def test_names_guarantees_and_lookup(name: str, cls, pure: bool, relations: set) -> None:
    assert cls.name == name and mech.MECHANISMS[name] is cls
    assert cls.pure is pure and cls.uses_delta is not pure
    assert cls.relations == frozenset(relations)
    if name not in ("laplace", "gaussian"):
        m = mech.mechanism_by_name(name, quantile=0.9)
        assert m.quantile == 0.9 and m == cls(0.9) and m != cls() and hash(m) == hash(cls(0.9))
        assert repr(m) == f"{cls.__name__}(quantile=0.9)"
        with pytest.raises(ValueError, match="quantile must be in the interval"):
            cls(1.0)
    else:
        with pytest.raises(ValueError, match="takes no parameters; got quantile"):
            mech.mechanism_by_name(name, quantile=0.9)


def test_quantile_statistic_is_the_order_statistic_of_rank_ceil_qn() -> None:
    x = np.array([[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0]])
    for q, want in [(0.05, 1.0), (0.1, 1.0), (0.3, 3.0), (0.5, 5.0), (0.91, 10.0), (0.99, 10.0)]:
        for cls in (mech.SmoothLaplaceQuantile, mech.ExponentialQuantile):
            assert cls(q).statistic(x)[0] == want


# ---------------------------------------------------------------------------------------
# Privacy: (eps, delta) smooth-sensitivity Laplace
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("q", [0.1, 0.5, 0.9])
@pytest.mark.parametrize(("eps", "delta"), [(0.5, 0.1), (2.0, 1e-3)])
def test_smooth_laplace_hockey_stick_is_at_most_delta(q: float, eps: float, delta: float) -> None:
    m = mech.SmoothLaplaceQuantile(q)
    worst = 0.0
    for values in SAMPLES:
        f1, _, b1 = _one(m, values, eps, delta)
        for other in _replacements(values):
            f2, _, b2 = _one(m, other, eps, delta)
            for (ma, ba), (mb, bb) in [((f1, b1), (f2, b2)), ((f2, b2), (f1, b1))]:
                worst = max(worst, laplace_hockey_stick(ma, ba, mb, bb, eps))
    assert worst <= delta * (1 + DELTA_TOL)


def test_smooth_laplace_median_is_todays_release() -> None:
    # quantile 0.5: the same statistic, sensitivity and noise as Hu et al.'s median
    rng = np.random.default_rng(4)
    x = np.sort(rng.uniform(LOWER, UPPER, size=(30, 11)), axis=1)
    out = mech.SmoothLaplaceQuantile().release(x, 0.7, 1e-3, LOWER, UPPER, rng)
    np.testing.assert_array_equal(out.statistic, x[:, 5])
    want = [ref.smooth_sensitivity_eq4(row, 0.7, 1e-3, LOWER, UPPER) for row in x]
    np.testing.assert_allclose(out.sensitivity, want, rtol=1e-12)
    np.testing.assert_allclose(out.noise_variance, 8 * np.array(want) ** 2 / 0.7**2, rtol=1e-12)


# ---------------------------------------------------------------------------------------
# Privacy: pure eps with heavy-tailed noise
# ---------------------------------------------------------------------------------------


def _pure_worst_log_ratio(m, values, others, eps) -> float:
    f1, _, s1 = _one(m, values, eps, 0.5)
    t = np.concatenate([np.linspace(-40, 40, 16001), np.geomspace(40, 1e7, 400)])
    t = np.concatenate([-t, t])
    worst = 0.0
    for other in others:
        f2, _, s2 = _one(m, other, eps, 0.5)
        y = np.concatenate([f1 + s1 * t, f2 + s2 * t])
        diff = pure_log_density(y, f1, s1) - pure_log_density(y, f2, s2)
        worst = max(worst, float(np.max(np.abs(diff))))
    return worst


@pytest.mark.parametrize("q", [0.1, 0.5, 0.9])
@pytest.mark.parametrize("eps", [0.1, 1.0, 5.0])
def test_smooth_pure_density_ratio_is_at_most_e_to_eps(q: float, eps: float) -> None:
    m = mech.SmoothPureQuantile(q)
    worst = max(_pure_worst_log_ratio(m, v, _replacements(v), eps) for v in SAMPLES)
    assert worst <= eps * (1 + RATIO_TOL)
    assert worst >= 0.5 * eps  # not vacuous: some neighbour comes near the bound


def test_smooth_pure_constants_and_noise() -> None:
    m = mech.SmoothPureQuantile()
    assert mech.PURE_NOISE_GAMMA == 4.0
    # Var Z = sin(pi/4) / sin(3 pi/4) = 1, checked by integrating z^2 h(z)
    var = 2 * integrate.quad(lambda z: z * z * float(m.noise_density(z)), 0, np.inf)[0]
    mass = 2 * integrate.quad(lambda z: float(m.noise_density(z)), 0, np.inf)[0]
    assert mass == pytest.approx(1.0, rel=1e-10)
    assert var == pytest.approx(1.0, rel=1e-8) and m.unit_noise_variance == pytest.approx(1.0)
    np.testing.assert_allclose(m.noise_scale(np.array([2.0]), 0.5), [64.0])  # 16 S / eps
    x = np.array([[1.0, 2.0, 6.0]])
    want = ref.smooth_sensitivity_eq4(x[0], 1, 0.5, LOWER, UPPER, b=0.8 / 4)
    assert m.sensitivity(x, 0.8, 0.5, LOWER, UPPER)[0] == pytest.approx(want, rel=1e-12)


def test_smooth_pure_sampler_follows_the_density() -> None:
    m = mech.SmoothPureQuantile()
    z = m.standard_noise(np.random.default_rng(0), (50_000,))

    def cdf(t: float) -> float:
        if t <= 0:
            return integrate.quad(lambda u: float(m.noise_density(u)), -np.inf, t)[0]
        return 1.0 - cdf(-t)

    grid = np.linspace(-6, 6, 49)
    exact = np.array([cdf(float(t)) for t in grid])
    empirical = np.searchsorted(np.sort(z), grid) / z.size
    assert np.max(np.abs(empirical - exact)) < 1.63 / math.sqrt(z.size) * 1.5  # KS at ~1 %
    # the release adds (16 S / eps) Z to the order statistic
    x = np.repeat(np.array([[1.0, 3.0, 3.0, 8.0, 9.0]]), 4, axis=0)
    out = m.release(x, 2.0, 0.5, LOWER, UPPER, np.random.default_rng(3))
    z3 = m.standard_noise(np.random.default_rng(3), (4,))
    np.testing.assert_allclose(
        out.released, np.clip(out.statistic + out.noise_scale * z3, LOWER, UPPER), rtol=1e-14
    )
    np.testing.assert_allclose(out.noise_variance, out.noise_scale**2, rtol=1e-14)


# ---------------------------------------------------------------------------------------
# Privacy: global Laplace quantile and Laplace mean (pure eps, same scale everywhere)
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("q", [0.01, 0.5, 0.99])
def test_global_laplace_quantile_ratio_under_both_relations(q: float) -> None:
    m, eps = mech.GlobalLaplaceQuantile(q), 0.8
    for values in SAMPLES:
        f1, _, b1 = _one(m, values, eps, 0.5)
        for other in _replacements(values) + _additions_removals(values):
            f2, _, b2 = _one(m, other, eps, 0.5)
            assert b1 == b2 == (UPPER - LOWER) / eps
            # log ratio of Laplace(f1, b) and Laplace(f2, b): at most |f1 - f2| / b, attained
            assert abs(f1 - f2) / b1 <= eps * (1 + RATIO_TOL)
    assert abs(_one(m, [0.0], eps, 0.5)[0] - _one(m, [10.0], eps, 0.5)[0]) / b1 == eps


# ---------------------------------------------------------------------------------------
# Accuracy: each mechanism's error against a slow reference
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name", ["smooth_laplace", "smooth_pure", "global_laplace", "laplace", "gaussian"]
)
def test_additive_mse_matches_a_slow_monte_carlo_reference(name: str) -> None:
    # The stated conditional noise variance plus the squared bias against the sample's own
    # statistic must equal the MSE of many releases of one sample about a fixed centre,
    # computed here from first principles (numpy noise, reference sensitivity).
    values = np.array([0.5, 1.0, 3.0, 3.5, 4.0, 7.0, 9.5])
    q, eps, delta, T = 0.25, 1.2, 1e-3, 40_000
    centre = 3.0
    kw = {"quantile": q} if name not in ("laplace", "gaussian") else {}
    got = mech.release(
        np.repeat(values[None, :], T, axis=0),
        mechanism=name,
        eps=eps,
        delta=delta if name in ("smooth_laplace", "gaussian") else 0.0,
        lower=LOWER,
        upper=UPPER,
        rng=np.random.default_rng(1),
        **kw,
    )
    k = ref.quantile_rank_definition(7, "0.25")
    stat = float(values.mean()) if not kw else float(values[k - 1])
    R = UPPER - LOWER
    variance = {
        "smooth_laplace": 2
        * (2 * ref.smooth_sensitivity_eq4(values, eps, delta, 0, 10, k) / eps) ** 2,
        "smooth_pure": (16 * ref.smooth_sensitivity_eq4(values, 1, 0.5, 0, 10, k, b=eps / 4) / eps)
        ** 2,
        "global_laplace": 2 * (R / eps) ** 2,
        "laplace": 2 * (R / 7 / eps) ** 2,
        "gaussian": float(mech.analytic_gaussian_sigma(eps, delta, R / 7)) ** 2,
    }[name]
    # Every release is clamped to [L, U] (issue 35).
    assert ((got >= LOWER) & (got <= UPPER)).all()
    sq = (got - centre) ** 2
    # heavy tails of smooth_pure: no fourth moment, so compare the median of |error| instead
    if name == "smooth_pure":
        scale = 16 * ref.smooth_sensitivity_eq4(values, 1, 0.5, 0, 10, k, b=eps / 4) / eps
        z = mech.SmoothPureQuantile().standard_noise(np.random.default_rng(99), (T,))
        slow = np.clip(stat + scale * z, LOWER, UPPER)
        assert np.median(np.abs(got - stat)) == pytest.approx(
            float(np.median(np.abs(slow - stat))), rel=0.03
        )
    else:
        # Slow reference: the clamped error's mean square by quadrature of the noise density
        # (numpy's Laplace or normal law with the reference scale), and by numpy draws.
        gaussian = name == "gaussian"
        b = math.sqrt(variance) if gaussian else math.sqrt(variance / 2)
        dist = stats.norm if gaussian else stats.laplace
        alpha, beta = (LOWER - stat) / b, (UPPER - stat) / b
        inside = integrate.quad(
            lambda z: (stat + b * z - centre) ** 2 * dist.pdf(z), alpha, beta, epsabs=1e-12
        )[0]
        exact_mse = (
            (LOWER - centre) ** 2 * dist.cdf(alpha) + (UPPER - centre) ** 2 * dist.sf(beta) + inside
        )
        draws = dist.rvs(size=T, random_state=np.random.default_rng(7))
        slow = np.clip(stat + b * draws, LOWER, UPPER)
        slow_sq = (slow - centre) ** 2
        assert slow_sq.mean() == pytest.approx(exact_mse, abs=4 * slow_sq.std() / math.sqrt(T))
        assert sq.mean() == pytest.approx(exact_mse, abs=4 * sq.std() / math.sqrt(T))
        # and the mechanism's own closed form of the clamped law agrees with the quadrature
        m = mech.MECHANISMS[name](**kw) if kw else mech.MECHANISMS[name]()
        moments = m.clamped_noise_moments(np.array([stat]), np.array([b]), LOWER, UPPER)
        assert moments is not None
        d = stat - centre
        closed = d * d + 2 * d * float(moments[0][0]) + float(moments[1][0])
        assert closed == pytest.approx(exact_mse, rel=1e-9)


# ---------------------------------------------------------------------------------------
# The public release function
# ---------------------------------------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(
    values=st.lists(st.floats(LOWER, UPPER, allow_nan=False), min_size=1, max_size=12),
    q=st.sampled_from([0.01, 0.3, 0.5, 0.97]),
    eps=st.floats(1e-6, 1e3),
)
def test_quantile_mechanisms_sensitivity_is_never_negative_and_rows_independent(
    values: list[float], q: float, eps: float
) -> None:
    x = np.sort(np.array([values, values[::-1]]), axis=1)
    for cls in (mech.SmoothLaplaceQuantile, mech.SmoothPureQuantile, mech.GlobalLaplaceQuantile):
        s = cls(q).sensitivity(x, eps, 1e-3, LOWER, UPPER)
        assert (s >= 0).all() and s[0] == s[1] <= UPPER - LOWER
        assert s[0] >= sens.local_sensitivity_quantile(values, LOWER, UPPER, quantile=q) * (
            1 - 1e-12
        )
