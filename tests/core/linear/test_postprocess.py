"""Rounding and projection onto a margin: exact errors against brute-force sums."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs
from scipy import stats

from core.linear import discrete_gaussian as dg
from core.linear import postprocess as pp


def brute_laplace(c: float, theta: float, b: float) -> tuple[float, float]:
    """P(post = k) for every k up to c + 80 b from the Laplace CDF, then the two moments."""
    k = np.arange(0, int(max(c, 0) + 80 * b) + 2, dtype=float)
    cdf = stats.laplace(loc=c, scale=b).cdf
    pk = cdf(k + 0.5) - cdf(k - 0.5)
    pk[0] = cdf(0.5)
    return float(pk @ k - theta), float(pk @ (k - theta) ** 2)


def brute_discrete(c, theta, z, p, w):
    post = np.maximum(0.0, np.floor(c + w * z + 0.5))
    return float(post @ p - theta), float(((post - theta) ** 2) @ p)


def test_round_nonnegative():
    assert pp.round_nonnegative([-3.2, -0.4, 0.5, 1.49, 2.5, 7.0]).tolist() == [
        0.0, 0.0, 1.0, 1.0, 3.0, 7.0,
    ]  # fmt: skip


@settings(max_examples=40, deadline=None)
@given(hs.floats(-20, 60), hs.integers(0, 50), hs.floats(0.2, 12.0))
def test_laplace_rounding_moments_equal_the_sum_over_outcomes(c, theta, b):
    bias, mse = pp.rounded_moments_laplace(c, theta, b)
    rb, rm = brute_laplace(c, theta, b)
    assert float(bias) == pytest.approx(rb, rel=1e-9, abs=1e-9)
    assert float(mse) == pytest.approx(rm, rel=1e-9, abs=1e-9)


def test_laplace_rounding_keeps_precision_for_large_counts():
    """θ = 10⁹, b = 3: the error is of order b², not lost against θ²."""
    bias, mse = pp.rounded_moments_laplace(1e9 + 0.25, 1e9, 3.0)
    rb, rm = brute_laplace(0.25 + 500, 500, 3.0)  # far from 0, so a shift of both is exact
    assert float(mse) == pytest.approx(rm, rel=1e-10)
    assert float(bias) == pytest.approx(rb, abs=1e-10)


@settings(max_examples=40, deadline=None)
@given(
    hs.floats(-15, 40),
    hs.integers(0, 30),
    hs.floats(0.3, 6.0),
    hs.sampled_from([1.0, 0.5, 2.5, 4.0]),
)
def test_discrete_rounding_moments_equal_the_sum_over_the_support(c, theta, sigma, w):
    k = dg.support_radius(sigma)
    z = np.arange(-k, k + 1, dtype=float)
    p = dg.pmf(sigma, z)
    bias, mse = pp.rounded_moments_discrete(c, theta, z, p, w)
    rb, rm = brute_discrete(c, theta, z, p, w)
    assert float(bias) == pytest.approx(rb, rel=1e-9, abs=1e-9)
    assert float(mse) == pytest.approx(rm, rel=1e-9, abs=1e-9)


def test_discrete_rounding_is_vectorised_over_cells():
    z = np.arange(-40, 41, dtype=float)
    p = dg.pmf(4.0, z)
    c = np.array([[-3.0, 0.2, 5.6], [12.0, 1.0, 40.0]])
    th = np.array([[0.0, 0.0, 6.0], [12.0, 2.0, 39.0]])
    for w in (1.0, 1.5):
        bias, mse = pp.rounded_moments_discrete(c, th, z, p, w)
        assert bias.shape == mse.shape == c.shape
        for i in np.ndindex(c.shape):
            rb, rm = brute_discrete(c[i], th[i], z, p, w)
            assert bias[i] == pytest.approx(rb, abs=1e-12)
            assert mse[i] == pytest.approx(rm, rel=1e-12)


def test_rounded_coverage_equals_enumeration():
    # Integer noise: P(Z < t) from the pmf.
    sigma = 2.2
    k = dg.support_radius(sigma)
    z = np.arange(-k, k + 1, dtype=float)
    p = dg.pmf(sigma, z)

    def below(t):
        return np.array([p[z < ti].sum() for ti in np.ravel(t)]).reshape(np.shape(t))

    for c, th, x, w in [(3.0, 3, 2.0, 1.0), (0.4, 0, 1.0, 1.0), (5.2, 4, 3.5, 2.0), (1, 1, 0, 1)]:
        post = np.maximum(0.0, np.floor(c + w * z + 0.5))
        want = float(p[np.abs(post - th) <= x].sum())
        assert float(pp.rounded_coverage(c, th, x, below, w)) == pytest.approx(want, abs=1e-14)
    # Laplace noise: the sum over outcomes.
    for c, th, x, b in [(4.3, 4, 2.0, 1.5), (0.2, 0, 1.0, 3.0), (9.0, 7, 0.5, 0.8)]:
        kk = np.arange(0, 400, dtype=float)
        cdf = stats.laplace(loc=c, scale=b).cdf
        pk = cdf(kk + 0.5) - cdf(kk - 0.5)
        pk[0] = cdf(0.5)
        want = float(pk[np.abs(kk - th) <= x].sum())
        got = pp.rounded_coverage(c, th, x, lambda t, b=b: stats.laplace.cdf(t, scale=b))
        assert float(got) == pytest.approx(want, abs=1e-12)


def test_projection_adds_up_and_its_variance_is_exact():
    rng = np.random.default_rng(5)
    y = rng.normal(size=(3, 5)) * 10
    margin = np.array([4.0, -2.0, 30.0])
    for weights in (None, np.array([1.0, 2.0, 0.5, 4.0, 3.0])):
        x = pp.project_to_margin(y, margin, weights)
        assert np.allclose(x.sum(axis=-1), margin)
        # The projection is the constrained least-squares solution: any other point of the
        # hyperplane is further away in the weighted norm.
        om = np.ones(5) if weights is None else weights
        other = x + rng.normal(size=x.shape) * 0.1
        other += ((margin - other.sum(axis=-1)) / 5)[:, None]
        assert np.all((((x - y) ** 2) / om).sum(-1) <= (((other - y) ** 2) / om).sum(-1))
    # Variance: x − θ = A e with e = (e_1..e_V, e_M) independent; Var = diag(A D Aᵀ).
    v = np.array([1.0, 4.0, 2.0, 0.5])
    vm = 3.0
    for weights in (None, v):
        w = np.ones(4) / 4 if weights is None else v / v.sum()
        a = np.hstack([np.eye(4) - np.outer(w, np.ones(4)), w[:, None]])
        want = np.diag(a @ np.diag(np.append(v, vm)) @ a.T)
        assert np.allclose(pp.projected_variance(v, vm, weights), want)
    # GLS weights give a variance no larger than OLS for every cell when the margin is exact.
    assert np.all(pp.projected_variance(v, 0.0, v) <= pp.projected_variance(v, 0.0) + 1e-12)


def test_rounded_moments_through_the_mechanisms():
    from core.linear.mechanisms import LINEAR_MECHANISMS

    c, th = np.array([-2.0, 0.3, 7.6]), np.array([0.0, 0.0, 8.0])
    lap = LINEAR_MECHANISMS["laplace"]
    bias, mse = pp.rounded_moments(lap, 1.5, c, th, weight=2.0)
    want = [brute_laplace(ci, ti, 3.0) for ci, ti in zip(c, th, strict=True)]
    assert np.allclose(bias, [w[0] for w in want]) and np.allclose(mse, [w[1] for w in want])
    for name, parameter in (("geometric", 2.0), ("discrete_gaussian", 1.7)):
        m = LINEAR_MECHANISMS[name]
        z = np.arange(-80.0, 81.0)
        p = m.pmf(parameter, z)
        for w in (1.0, 1.5):
            bias, mse = pp.rounded_moments(m, parameter, c, th, weight=w)
            want = [brute_discrete(ci, ti, z, p, w) for ci, ti in zip(c, th, strict=True)]
            assert np.allclose(bias, [x[0] for x in want], atol=1e-12)
            assert np.allclose(mse, [x[1] for x in want], rtol=1e-12)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: pp.round_nonnegative([np.nan]), "finite"),
        (lambda: pp.rounded_moments_laplace(1.0, 1.0, 0.0), "scale"),
        (lambda: pp.rounded_moments_discrete(1.0, 1.0, [0.5], [1.0]), "whole numbers"),
        (lambda: pp.project_to_margin([], 1.0), "at least one cell"),
        (lambda: pp.projected_variance([-1.0]), "non-negative"),
        (lambda: pp.project_to_margin([1.0, 2.0], 3.0, [0.0, 0.0]), "weights"),
    ],
)
def test_bad_input_gets_a_sentence(call, message):
    with pytest.raises(ValueError, match=message):
        call()
