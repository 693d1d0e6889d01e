"""Tests for core.mechanisms.means: the Horvitz-Thompson, Laplace and analytic Gaussian means."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import integrate, stats

from core import mechanisms as mech
from tests.core.mechanisms.neighbours import SAMPLES, _one, _replacements

LOWER, UPPER = 0.0, 10.0
RATIO_TOL = 1e-9
DELTA_TOL = 1e-6


_POP = np.array([0.0, 1.5, 4.0, 9.0, 10.0])


def _ht(rate: float = 0.3, N: int = 5) -> mech.HorvitzThompsonMean:
    return mech.HorvitzThompsonMean(rate, N, LOWER, UPPER)


@pytest.mark.parametrize("rate", [0.05, 0.3, 0.5, 1.0])
def test_ht_mean_is_unbiased_under_poisson_sampling(rate: float) -> None:
    # Exact expectation over all 2^N subsets: P(S) = rate^|S| (1 - rate)^(N - |S|).
    m = _ht(rate, _POP.size)
    expectation = 0.0
    for mask in itertools.product([False, True], repeat=_POP.size):
        chosen = _POP[np.array(mask)]
        prob = rate ** len(chosen) * (1 - rate) ** (_POP.size - len(chosen))
        expectation += prob * m.statistic_one(chosen)
    assert expectation == pytest.approx(_POP.mean(), rel=1e-13)


def test_ht_sensitivity_holds_for_add_and_remove_but_not_change() -> None:
    m = _ht(0.3, _POP.size)
    S = m.global_sensitivity
    assert S == pytest.approx((UPPER - LOWER) / 2 / (0.3 * 5), rel=1e-15)
    worst_add = worst_change = 0.0
    for mask in itertools.product([False, True], repeat=_POP.size):
        chosen = _POP[np.array(mask)]
        for x in [*_POP, LOWER, UPPER]:
            worst_add = max(worst_add, abs(m.statistic_one([*chosen, x]) - m.statistic_one(chosen)))
            for j in range(len(chosen)):
                changed = chosen.copy()
                changed[j] = x
                worst_change = max(
                    worst_change, abs(m.statistic_one(changed) - m.statistic_one(chosen))
                )
    assert worst_add == pytest.approx(S, rel=1e-12)  # attained at a bound
    assert worst_add <= S * (1 + 1e-12)
    assert worst_change == pytest.approx(2 * S, rel=1e-12)  # why relations == {"deletion"}


def test_ht_statistic_sensitivity_and_scale_of_a_batch() -> None:
    m = mech.HorvitzThompsonMean(0.25, 8, LOWER, UPPER)
    batch = np.array([[1.0, 4.0], [5.0, 10.0]])
    # c = 5, rate N = 2: 5 + ((1 - 5) + (4 - 5)) / 2 = 2.5; 5 + (0 + 5) / 2 = 7.5
    np.testing.assert_allclose(m.statistic(batch), [2.5, 7.5], rtol=1e-15)
    np.testing.assert_array_equal(m.sensitivity(batch, 1.0, 0.5, LOWER, UPPER), [2.5, 2.5])
    np.testing.assert_array_equal(m.noise_scale(np.array([2.5]), 0.5), [5.0])
    assert m.statistic_one([1.0, 4.0]) == pytest.approx(2.5, rel=1e-15)
    assert m.statistic_one([]) == 5.0


def test_ht_release_is_statistic_plus_laplace_with_variance_two_b_squared() -> None:
    m = mech.HorvitzThompsonMean(0.1, 50, LOWER, UPPER)
    T, eps = 40_000, 0.8
    b = (UPPER - LOWER) / 2 / (0.1 * 50) / eps
    sample = np.array([1.0, 3.0, 3.0, 8.0])
    out = m.release(
        np.repeat(sample[np.newaxis, :], T, axis=0),
        eps,
        0.5,
        LOWER,
        UPPER,
        np.random.default_rng(9),
    )
    assert out.noise_variance is not None
    np.testing.assert_allclose(out.noise_variance, 2 * b**2, rtol=1e-14)
    z = np.random.default_rng(9).laplace(0.0, 1.0, size=T)
    clamped = np.clip(out.statistic + b * z, LOWER, UPPER)  # every release in [L, U]
    np.testing.assert_allclose(out.released, clamped, rtol=1e-14)
    assert out.noise_mean is not None and out.noise_square is not None
    err = out.released - out.statistic
    variance = float(out.noise_square[0] - out.noise_mean[0] ** 2)
    assert err.var(ddof=1) == pytest.approx(variance, rel=4 * math.sqrt(5 / T))
    # one sample at a time, any length, one Laplace draw each
    rng = np.random.default_rng(9)
    one = np.array([m.release_one(sample, eps, rng) for _ in range(T)])
    np.testing.assert_allclose(
        one, np.clip(m.statistic_one(sample) + b * z, LOWER, UPPER), rtol=1e-13
    )
    empty = m.release_one(np.array([]), eps, np.random.default_rng(2))
    noisy = 5.0 + b * np.random.default_rng(2).laplace()
    assert empty == pytest.approx(min(max(noisy, LOWER), UPPER), rel=1e-14)


@pytest.mark.parametrize(
    ("args", "match"),
    [
        ((0.0, 10, LOWER, UPPER), "rate"),
        ((1.5, 10, LOWER, UPPER), "rate"),
        ((math.nan, 10, LOWER, UPPER), "rate"),
        ((True, 10, LOWER, UPPER), "rate"),
        ((0.5, 0, LOWER, UPPER), "population_size"),
        ((0.5, 2.5, LOWER, UPPER), "population_size"),
        ((0.5, 10, UPPER, LOWER), "lower must be < upper"),
    ],
)
def test_ht_constructor_validates(args: tuple, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        mech.HorvitzThompsonMean(*args)


def test_ht_release_rejects_other_bounds_and_bad_samples() -> None:
    m = _ht()
    rng = np.random.default_rng()
    with pytest.raises(ValueError, match="built for the bounds"):
        m.release([[1.0, 2.0]], 1.0, 0.5, LOWER, 20.0, rng)
    with pytest.raises(ValueError, match="public bounds"):
        m.release_one([1.0, 12.0], 1.0, rng)
    with pytest.raises(ValueError, match="one-dimensional"):
        m.release_one([[1.0]], 1.0, rng)
    with pytest.raises(ValueError, match="finite"):
        m.release_one([np.nan], 1.0, rng)
    with pytest.raises(ValueError, match="eps_sample"):
        m.release_one([1.0], 0.0, rng)
    with pytest.raises(ValueError, match="Generator"):
        m.release_one([1.0], 1.0, 5)  # type: ignore[arg-type]


def test_ht_equality_hash_repr_and_lookup_by_name() -> None:
    a = mech.HorvitzThompsonMean(0.1, 100, 0, 10)
    assert a == mech.HorvitzThompsonMean(0.1, 100.0, 0.0, 10.0)
    assert hash(a) == hash(mech.HorvitzThompsonMean(0.1, 100, 0.0, 10.0))
    assert a != mech.HorvitzThompsonMean(0.2, 100, 0, 10) and a != mech.LaplaceMean()
    assert repr(a) == "HorvitzThompsonMean(rate=0.1, population_size=100, lower=0.0, upper=10.0)"
    got = mech.mechanism_by_name("ht_mean", rate=0.1, population_size=100, lower=0, upper=10)
    assert got == a
    with pytest.raises(ValueError, match="'ht_mean' takes rate, population_size, lower, upper"):
        mech.mechanism_by_name("ht_mean")
    with pytest.raises(ValueError, match="'exponential' takes optionally quantile; got rate"):
        mech.mechanism_by_name("exponential", rate=0.1)
    with pytest.raises(ValueError, match="rate must be in"):
        mech.mechanism_by_name("ht_mean", rate=2, population_size=100, lower=0, upper=10)
    assert type(mech.mechanism_by_name("exponential")) is mech.ExponentialQuantile


def test_laplace_mean_ratio_under_replacement() -> None:
    m, eps = mech.LaplaceMean(), 1.3
    worst = 0.0
    for values in SAMPLES:
        f1, _, b1 = _one(m, values, eps, 0.5)
        for other in _replacements(values):
            f2, _, b2 = _one(m, other, eps, 0.5)
            assert b1 == b2
            worst = max(worst, abs(f1 - f2) / b1)
    assert eps * (1 - 1e-12) <= worst <= eps * (1 + RATIO_TOL)  # attained: bound to bound


@pytest.mark.parametrize("eps", [1e-3, 0.1, 1.0, 5.0, 50.0])
@pytest.mark.parametrize("delta", [1e-10, 1e-5, 0.1])
def test_analytic_sigma_is_the_smallest_that_meets_delta(eps: float, delta: float) -> None:
    sigma = float(mech.analytic_gaussian_sigma(eps, delta, 1.0))
    assert gaussian_hockey_stick(1.0, sigma, eps) <= delta * (1 + DELTA_TOL)
    assert gaussian_hockey_stick(1.0, sigma * (1 - 1e-6), eps) > delta  # no slack
    if eps < 1:  # never worse than the classical calibration (valid for eps < 1)
        assert sigma <= math.sqrt(2 * math.log(1.25 / delta)) / eps


def test_gaussian_mean_hockey_stick_on_neighbours() -> None:
    m, eps, delta = mech.GaussianMean(), 0.7, 1e-3
    worst = 0.0
    for values in SAMPLES:
        x = np.array([sorted(values)])
        out = m.release(x, eps, delta, LOWER, UPPER, np.random.default_rng(0))
        sigma = float(out.noise_scale[0])
        for other in _replacements(values):
            mu = abs(float(np.mean(other)) - float(out.statistic[0]))
            worst = max(worst, gaussian_hockey_stick(mu, sigma, eps))
    assert delta * 0.99 <= worst <= delta * (1 + DELTA_TOL)
    # closed form against numerical integration of max(0, p - e^eps q)
    mu, sigma = 10.0 / 3, float(mech.analytic_gaussian_sigma(eps, delta, 10.0 / 3))
    num = integrate.quad(
        lambda y: max(
            0.0, stats.norm.pdf(y, mu, sigma) - math.exp(eps) * stats.norm.pdf(y, 0, sigma)
        ),
        -20 * sigma,
        mu + 20 * sigma,
        points=[mu / 2 + eps * sigma**2 / mu],
        limit=200,
    )[0]
    assert num == pytest.approx(gaussian_hockey_stick(mu, sigma, eps), rel=1e-6)


def test_gaussian_release_is_mean_plus_sigma_normal() -> None:
    m = mech.GaussianMean()
    x = np.repeat(np.array([[1.0, 2.0, 9.0]]), 30_000, axis=0)
    eps = np.where(np.arange(30_000) % 2 == 0, 0.5, 2.0)
    out = m.release(x, eps, 1e-4, LOWER, UPPER, np.random.default_rng(8))
    z = np.random.default_rng(8).standard_normal(30_000)
    sigma = mech.analytic_gaussian_sigma(eps, 1e-4, 10.0 / 3)
    np.testing.assert_allclose(out.released, np.clip(4.0 + sigma * z, LOWER, UPPER), rtol=1e-12)
    np.testing.assert_allclose(out.noise_variance, sigma**2, rtol=1e-15)
    assert out.noise_square is not None
    u2 = (out.released - out.statistic) ** 2 / out.noise_square
    assert np.mean(u2) == pytest.approx(1.0, abs=4 * float(u2.std()) / math.sqrt(30_000))
    with pytest.raises(ValueError, match="depends on delta_sample"):
        m.noise_scale(np.array([1.0]), 1.0)


def test_analytic_sigma_rejects_bad_input() -> None:
    for args, match in [
        ((0.0, 0.1), "eps_sample"),
        ((1.0, 0.0), "delta_sample"),
        ((1.0, 1.0), "delta_sample"),
    ]:
        with pytest.raises(ValueError, match=match):
            mech.analytic_gaussian_sigma(*args)
    with pytest.raises(ValueError, match="sensitivity"):
        mech.analytic_gaussian_sigma(1.0, 0.1, -1.0)


def gaussian_hockey_stick(mu: float, sigma: float, eps: float) -> float:
    """Balle & Wang (2018) Theorem 8: delta(eps) of N(0, s^2) against N(mu, s^2)."""
    if mu == 0:
        return 0.0
    a, b = mu / (2 * sigma), eps * sigma / mu
    return float(stats.norm.cdf(a - b) - math.exp(eps) * stats.norm.cdf(-a - b))
