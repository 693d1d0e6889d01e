"""Tests for core.mechanisms.piecewise_laplace: exact law, privacy, sampler, exact errors.

The reference law is built from first principles: the score ``l(y)`` interpolates, on each
side of the statistic, the furthest the order statistic ``y_(k)`` can be pushed by changing
``j`` records (found by literally moving the ``j`` smallest records to ``upper``, or the
``j`` largest to ``lower``, and sorting), and the density ``exp(-eps l / 2)`` is normalised
by quadrature.  Privacy is then checked on that law for every changed, added and removed
record of small samples (ties, values at the bounds, n = 1, 2, 3 among them).
"""

from __future__ import annotations

import functools
import itertools
import math

import numpy as np
import pytest
from scipy import integrate

from core import mechanisms as mech
from core import sensitivity as sens
from tests.core.mechanisms.neighbours import SAMPLES, _additions_removals, _replacements

LOWER, UPPER = 0.0, 10.0
RATIO_TOL = 1e-9


def reach(values: list[float], q: float, j: int, up: bool) -> float:
    """The k-th order statistic after moving the j records that push it furthest."""
    y = sorted(values)
    k = sens.quantile_rank(len(y), q)
    moved = [UPPER] * j + y[j:] if up else y[: len(y) - j] + [LOWER] * j
    moved = sorted(moved[: len(y)]) if j <= len(y) else [UPPER if up else LOWER] * len(y)
    return moved[k - 1]


def reference_score(values: list[float], q: float, y: np.ndarray) -> np.ndarray:
    n = len(values)
    centre = sorted(values)[sens.quantile_rank(n, q) - 1]
    right = [reach(values, q, j, True) for j in range(n + 2)]
    left = [reach(values, q, j, False) for j in range(n + 2)]
    out = np.empty_like(y)
    for idx, t in enumerate(y):
        pts = right if t >= centre else left
        score = float(n + 1)
        for j in range(n + 1):
            a, b = pts[j], pts[j + 1]
            lo_, hi_ = min(a, b), max(a, b)
            if lo_ <= t <= hi_:
                score = j + (abs(t - a) / (hi_ - lo_) if hi_ > lo_ else 1.0)
                break
        out[idx] = score
    return out


@functools.cache
def reference_log_normaliser(values: tuple[float, ...], q: float, eps: float) -> float:
    knots = sorted({LOWER, UPPER, *values})
    total = 0.0
    for a, b in itertools.pairwise(knots):
        total += integrate.quad(
            lambda t: math.exp(-eps * reference_score(list(values), q, np.array([t]))[0] / 2),
            a,
            b,
            epsabs=0,
            epsrel=1e-12,
        )[0]
    return math.log(total)


def reference_log_density(values: list[float], q: float, eps: float, y: np.ndarray) -> np.ndarray:
    log_z = reference_log_normaliser(tuple(values), q, eps)
    return -eps * reference_score(values, q, y) / 2 - log_z


def module_log_density(values: list[float], q: float, eps: float, y: np.ndarray) -> np.ndarray:
    edges, p, direction = mech.piecewise_laplace_distribution(values, eps, LOWER, UPPER, q)
    c = eps / 2
    i = np.clip(np.searchsorted(edges, y, side="right") - 1, 0, p.size - 1)
    width = edges[i + 1] - edges[i]
    frac = np.where(direction[i] > 0, y - edges[i], edges[i + 1] - y) / width
    with np.errstate(divide="ignore"):
        return np.log(p[i] * c / (width * -math.expm1(-c))) - c * frac


def _grid(values: list[float]) -> np.ndarray:
    """Points strictly inside every piece (the density is not defined on the knots)."""
    knots = sorted({LOWER, UPPER, *values})
    return np.concatenate(
        [a + (b - a) * np.linspace(0.001, 0.999, 41) for a, b in itertools.pairwise(knots)]
    )


def test_names_budgets_and_lookup() -> None:
    m = mech.mechanism_by_name("piecewise_laplace", quantile=0.3)
    assert isinstance(m, mech.PiecewiseLaplaceQuantile) and m.quantile == 0.3
    assert m.pure and not m.additive and m.windowed  # drawn ring by ring (core.windowed)
    assert m.change_factor == 1.0 and m.add_remove_factor == 1.0
    assert m.relations == frozenset({"replacement", "deletion"})


@pytest.mark.parametrize("q", [0.1, 0.5, 0.9])
def test_law_equals_the_first_principles_reference(q: float) -> None:
    for values in SAMPLES:
        y = _grid(values)
        np.testing.assert_allclose(
            module_log_density(values, q, 0.7, y),
            reference_log_density(values, q, 0.7, y),
            rtol=0,
            atol=1e-9,
        )


@pytest.mark.parametrize("q", [0.1, 0.5, 0.9])
@pytest.mark.parametrize("eps", [0.1, 1.0, 5.0])
def test_density_ratio_under_both_relations_is_at_most_e_to_eps(q: float, eps: float) -> None:
    worst = 0.0
    for values in SAMPLES:
        for other in _replacements(values) + _additions_removals(values):
            y = np.union1d(_grid(values), _grid(other))
            diff = module_log_density(values, q, eps, y) - module_log_density(other, q, eps, y)
            worst = max(worst, float(np.max(np.abs(diff))))
    assert worst <= eps * (1 + RATIO_TOL)
    assert worst >= 0.5 * eps  # not vacuous


def test_sampler_follows_the_exact_law() -> None:
    values, q, eps, T = [1.0, 4.0, 4.0, 9.0], 0.5, 1.3, 50_000
    m = mech.PiecewiseLaplaceQuantile(q)
    out = m.release(
        np.repeat([values], T, axis=0), eps, 0.5, LOWER, UPPER, np.random.default_rng(0)
    )
    got = np.sort(out.released)
    grid = np.linspace(0.01, 9.99, 120)
    cdf = np.array(
        [
            integrate.quad(
                lambda t: math.exp(module_log_density(values, q, eps, np.array([t]))[0]),
                0,
                g,
                points=[1, 4, 9],
                limit=200,
            )[0]
            for g in grid
        ]
    )
    empirical = np.searchsorted(got, grid, side="right") / T
    assert np.max(np.abs(empirical - cdf)) < 1.63 / math.sqrt(T)  # KS at 1 %
    assert ((got >= LOWER) & (got <= UPPER)).all()
    np.testing.assert_array_equal(out.statistic, 4.0)


@pytest.mark.parametrize("eps", [0.3, 2.0])
def test_exact_error_matches_the_reference_and_monte_carlo(eps: float) -> None:
    values, q, centre = [0.5, 1.0, 3.0, 3.5, 4.0, 7.0, 9.5], 0.25, 2.0
    mse, e90 = mech.piecewise_laplace_error(values, eps, LOWER, UPPER, centre, 0.9, q)
    knots = sorted({LOWER, UPPER, *values})

    def dens(t: float) -> float:
        return math.exp(reference_log_density(values, q, eps, np.array([t]))[0])

    want = sum(
        integrate.quad(lambda t: (t - centre) ** 2 * dens(t), a, b, epsrel=1e-12)[0]
        for a, b in itertools.pairwise(knots)
    )
    assert mse == pytest.approx(want, rel=1e-8)
    lo_, hi_ = max(LOWER, centre - e90), min(UPPER, centre + e90)
    inner = [k for k in knots if lo_ < k < hi_]
    cover = integrate.quad(dens, lo_, hi_, points=inner or None, limit=200)[0]
    assert cover == pytest.approx(0.9, abs=1e-8)
    T = 60_000
    m = mech.PiecewiseLaplaceQuantile(q)
    got = m.release(
        np.repeat([values], T, axis=0), eps, 0.5, LOWER, UPPER, np.random.default_rng(5)
    )
    sq = (got.released - centre) ** 2
    assert sq.mean() == pytest.approx(mse, abs=4 * sq.std() / math.sqrt(T))
    stat = float(np.sort(values)[sens.quantile_rank(7, q) - 1])
    assert m.exact_error(np.array(values), eps, 0.5, LOWER, UPPER, 0.9) == pytest.approx(
        mech.piecewise_laplace_error(values, eps, LOWER, UPPER, stat, 0.9, q)
    )


def test_dominates_the_inverse_sensitivity_law() -> None:
    # same piece probabilities, mass leaning towards the statistic: smaller MSE about it
    values = [0.5, 1.0, 3.0, 3.5, 4.0, 7.0, 9.5]
    for eps in (0.2, 1.0, 4.0):
        m = mech.PiecewiseLaplaceQuantile()
        stat = float(m.statistic(np.array([values]))[0])
        pl = mech.piecewise_laplace_error(values, eps, LOWER, UPPER, stat)[0]
        k = sens.quantile_rank(len(values), 0.5)
        inverse = mech.exponential_quantile_error(
            values, eps, LOWER, UPPER, stat, quantile=(k - 0.5) / len(values)
        )[0]
        assert pl < inverse


def test_extreme_budgets_and_ties() -> None:
    m = mech.PiecewiseLaplaceQuantile()
    x = np.array([[5.0, 5.0, 5.0], [0.0, 0.0, 10.0], [10.0, 10.0, 10.0]])
    for eps in (1e-12, 1000.0):
        out = m.release(x, eps, 0.5, LOWER, UPPER, np.random.default_rng(1))
        assert np.isfinite(out.released).all()
        assert ((out.released >= LOWER) & (out.released <= UPPER)).all()
        mse, e95 = mech.piecewise_laplace_error([5.0, 5.0, 5.0], eps, LOWER, UPPER, 5.0)
        assert np.isfinite(mse) and np.isfinite(e95)
    near = m.release(x, 1000.0, 0.5, LOWER, UPPER, np.random.default_rng(1))
    np.testing.assert_allclose(near.released, near.statistic, atol=0.05)
    flat = mech.piecewise_laplace_error([5.0], 1e-12, LOWER, UPPER, 5.0)[0]
    assert flat == pytest.approx(25 / 3, rel=1e-9)  # uniform on [0, 10] about its middle
