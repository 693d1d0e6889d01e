"""core.mechanisms.clamping: the clamped noise's law against plain numerical integration."""

from __future__ import annotations

import math

import numpy as np
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
