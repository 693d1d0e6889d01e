"""core.mechanisms.clamping: the clamped noise's law against plain numerical integration."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import integrate, stats

from core.mechanisms import clamping

LAPLACE_CDF = stats.laplace.cdf


def test_laplace_partial_moments_match_quadrature() -> None:
    for z in (-3.0, -0.5, 0.0, 0.7, 4.0):
        m1, m2 = clamping.laplace_partial_moments(np.array([z]))
        first = integrate.quad(lambda t: t * 0.5 * math.exp(-abs(t)), -np.inf, z)[0]
        second = integrate.quad(lambda t: t * t * 0.5 * math.exp(-abs(t)), -np.inf, z)[0]
        assert math.isclose(float(m1[0]), first, abs_tol=1e-7)
        assert math.isclose(float(m2[0]), second, abs_tol=1e-7)


def test_clip_moments_of_laplace_match_quadrature() -> None:
    alpha, beta = np.array([-1.5, -0.2]), np.array([0.5, 3.0])
    m1, m2 = clamping.clip_moments(alpha, beta, LAPLACE_CDF, clamping.laplace_partial_moments, 2.0)
    for i in range(2):
        a, b = float(alpha[i]), float(beta[i])

        def clipped(t: float, k: int, a: float = a, b: float = b) -> float:
            return min(max(t, a), b) ** k * 0.5 * math.exp(-abs(t))

        assert math.isclose(
            float(m1[i]),
            integrate.quad(clipped, -50, 50, args=(1,), points=[a, 0, b])[0],
            abs_tol=1e-8,
        )
        assert math.isclose(
            float(m2[i]),
            integrate.quad(clipped, -50, 50, args=(2,), points=[a, 0, b])[0],
            abs_tol=1e-8,
        )


def test_coverage_prepared_once_is_the_cdf_at_each_point() -> None:
    rng = np.random.default_rng(3)
    err, scale = rng.normal(size=40), rng.uniform(0.1, 2.0, size=40)
    coverage = clamping.clamped_abs_coverage(err, scale, LAPLACE_CDF, -2.0, 1.5)
    previous = -1.0
    for x in (0.0, 0.3, 1.0, 1.5, 2.0, 5.0):
        got = coverage(x)
        assert np.allclose(got, clamping.clamped_abs_cdf(x, err, scale, LAPLACE_CDF, -2.0, 1.5))
        assert np.all((got >= 0.0) & (got <= 1.0))
        assert float(got.mean()) >= previous - 1e-12  # a CDF does not decrease
        previous = float(got.mean())
    assert np.allclose(coverage(2.0), 1.0)  # both bounds lie within 2 of θ


def test_symmetric_partial_moments_agree_with_laplace() -> None:
    z = np.array([-2.0, -0.1, 0.0, 0.4, 3.0])
    tail1 = lambda a: 0.5 * (a + 1.0) * np.exp(-a)  # noqa: E731  E[Z; Z > a], Laplace
    tail2 = lambda a: 0.5 * (a * a + 2 * a + 2.0) * np.exp(-a)  # noqa: E731
    got = clamping.symmetric_partial_moments(z, tail1, tail2, 2.0)
    want = clamping.laplace_partial_moments(z)
    assert np.allclose(got[0], want[0]) and np.allclose(got[1], want[1])


def test_compiled_laplace_moments_equal_the_numpy_closed_form() -> None:
    """The one-pass Laplace moments of a clamped release are :func:`clamping.clip_moments`'s,
    rows without noise and unbounded sides included."""
    rng = np.random.default_rng(3)
    t = rng.uniform(-5.0, 15.0, 400)
    b = np.where(rng.random(400) < 0.1, 0.0, rng.uniform(1e-3, 30.0, 400))
    for lower, upper in ((0.0, 10.0), (-math.inf, 10.0), (0.0, math.inf), (2.0, 2.5)):
        mean, second = clamping.laplace_clamped_moments(t, b, lower, upper)
        safe = np.where(b > 0, b, 1.0)
        first, square = clamping.clip_moments(
            np.where(b > 0, (lower - t) / safe, 0.0),
            np.where(b > 0, (upper - t) / safe, 0.0),
            clamping.laplace_cdf,
            clamping.laplace_partial_moments,
            2.0,
        )
        fixed = np.clip(t, lower, upper) - t
        np.testing.assert_allclose(mean, np.where(b > 0, b * first, fixed), rtol=1e-13, atol=1e-13)
        want = np.where(b > 0, b * b * square, fixed * fixed)
        # E[e²] is a difference of partial moments: both ways lose the same few bits
        np.testing.assert_allclose(second, want, rtol=1e-11, atol=1e-12)
    assert clamping.laplace_clamped_moments(t[:6].reshape(2, 3), 1.0, 0.0, 10.0)[0].shape == (2, 3)


def test_the_laplace_cdf_has_no_cancellation_in_either_tail() -> None:
    z = np.array([-700.0, -2.0, 0.0, 2.0, 40.0])
    want = [0.5 * math.exp(-700.0), 0.5 * math.exp(-2.0), 0.5, 1 - 0.5 * math.exp(-2.0), 1.0]
    np.testing.assert_allclose(clamping.laplace_cdf(z), want, rtol=1e-15)
    assert clamping.laplace_cdf(z)[0] > 0.0
    for zi, wi in zip(z, want, strict=True):
        assert clamping.laplace_cdf_one(float(zi)) == pytest.approx(wi, rel=1e-15)


@pytest.mark.parametrize("name", ["GaussianMean", "SmoothPureQuantile"])
def test_clamped_moments_of_other_noises_match_clipped_draws(name: str) -> None:
    # The generic path (not the compiled Laplace one): a Gaussian and a Student-like noise,
    # released near a bound and far past it, against the mean of clipped draws.
    from core import mechanisms as mech

    m = getattr(mech, name)()
    t = np.array([1.0, 5.0, 9.5, 9.9])
    b = np.array([0.8, 3.0, 2.0, 0.0])
    mean, second = m.clamped_noise_moments(t, b, 0.0, 10.0)
    z = m.standard_noise(np.random.default_rng(4), (400_000,))
    for i in range(t.size):
        e = np.clip(t[i] + b[i] * z, 0.0, 10.0) - t[i]
        assert mean[i] == pytest.approx(e.mean(), abs=0.02 + 0.01 * b[i])
        assert second[i] == pytest.approx(np.mean(e * e), rel=0.02, abs=1e-9)
