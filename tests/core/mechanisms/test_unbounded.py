"""Tests for core.mechanisms.unbounded: exact law of the released threshold, privacy, sampler.

The exact law of the released index ``I`` is an integral over the noisy threshold ``rho``
of ``prod_{i<I} P(pass i) P(stop at I)``, computed here on a fine grid with the counts found
by brute force; privacy is checked on it for changed, added and removed records, and the
fast sampler against it and against a literal AboveThreshold loop.
"""

from __future__ import annotations

import functools
import math

import numpy as np
import pytest

from core import mechanisms as mech
from tests.core.mechanisms.neighbours import SAMPLES, _additions_removals, _replacements

LOWER = 0.0
GROWTH = 2.0  # thresholds 0, 1, 3, 7, 15, ...: every SAMPLES value is passed by index 4
MAX_INDEX = 30
RATIO_TOL = 1e-7


def laplace_cdf(z: np.ndarray, b: float) -> np.ndarray:
    return np.where(z < 0, 0.5 * np.exp(np.minimum(z, 0) / b), 1 - 0.5 * np.exp(-np.abs(z) / b))


_NODES, _WEIGHTS = np.polynomial.legendre.leggauss(48)


@functools.cache
def _rho_rule(kinks: tuple[float, ...], b: float) -> tuple[np.ndarray, np.ndarray]:
    """Gauss-Legendre nodes and weights over rho, split at every kink of the integrand."""
    edges = np.unique(np.concatenate([kinks, [0.0]]))
    lo, hi = edges[0] - 60 * b, edges[-1] + 60 * b
    cuts = np.unique(
        np.concatenate([edges, np.linspace(lo, edges[0], 25), np.linspace(edges[-1], hi, 25)])
    )
    a, c = cuts[:-1, None], cuts[1:, None]
    x = (a + c) / 2 + (c - a) / 2 * _NODES[None, :]
    w = (c - a) / 2 * _WEIGHTS[None, :]
    return x.ravel(), w.ravel()


@functools.cache
def _law(values: tuple[float, ...], q: float, eps: float) -> np.ndarray:
    b = 2.0 / eps
    n = len(values)
    thresholds = LOWER + GROWTH ** np.arange(MAX_INDEX) - 1
    g = np.array([sum(v <= t for v in values) - q * n for t in thresholds], dtype=float)
    rho, w = _rho_rule(tuple(np.unique(g)), b)
    density = np.exp(-np.abs(rho) / b) / (2 * b)
    passed = np.ones_like(rho)
    out = np.empty(MAX_INDEX)
    for i in range(MAX_INDEX):
        below = laplace_cdf(rho - g[i], b)  # P(g_i + nu < rho)
        out[i] = np.sum(w * density * passed * (1 - below))
        passed = passed * below
    return out


def exact_index_law(values: list[float], q: float, eps: float) -> np.ndarray:
    """P(I = i) for i < MAX_INDEX: Gauss-Legendre over rho between the kinks ``rho = g_i``."""
    return _law(tuple(sorted(values)), q, eps)


def literal_above_threshold(values: list[float], q: float, eps: float, rng) -> int:
    """AboveThreshold written out: one noisy comparison per threshold; the index it stops at."""
    b = 2.0 / eps
    rho = rng.laplace(0, b)
    i = 0
    while True:
        t = LOWER + GROWTH ** min(i, 1000) - 1
        count = sum(v <= t for v in values)
        if count - q * len(values) + rng.laplace(0, b) >= rho:
            return i
        i += 1


def test_names_budgets_and_lookup() -> None:
    m = mech.mechanism_by_name("unbounded", quantile=0.9, growth=1.05)
    assert isinstance(m, mech.UnboundedQuantile) and m.growth == 1.05 and m.quantile == 0.9
    assert m.pure and not m.additive and not m.windowed
    assert m.change_factor == 1.0 and m.add_remove_factor == 1.0
    assert m.relations == frozenset({"replacement", "deletion"})
    assert m == mech.UnboundedQuantile(0.9, 1.05) != mech.UnboundedQuantile(0.9, 1.01)
    with pytest.raises(ValueError, match="growth"):
        mech.UnboundedQuantile(growth=1.0)


def test_threshold_indices_bracket_every_value() -> None:
    m = mech.UnboundedQuantile(growth=1.001)
    x = np.array([0.0, 1e-9, 0.5, 1.0, 3.0, 1e3, 123456.789, 1e12])
    idx = mech.unbounded.threshold_indices(x, 0.0, math.log(1.001))
    assert (m.thresholds(idx, 0.0) >= x).all()
    assert (m.thresholds(np.maximum(idx - 1, 0), 0.0)[idx > 0] < x[idx > 0]).all()


@pytest.mark.parametrize("growth", [1.001, 1.05, 2.0])
@pytest.mark.parametrize("lower", [0.0, -3.5, 100.0])
def test_threshold_indices_equal_the_corrected_formula_everywhere(growth, lower) -> None:
    """Values on, a hair beside and between the thresholds: the indices equal those of the
    formula corrected on every value (the slow reference)."""
    from core.mechanisms.unbounded import _corrected

    log_b = math.log(growth)
    m = mech.UnboundedQuantile(growth=growth)
    on = m.thresholds(np.arange(0, 4_000), lower)
    on = on[np.isfinite(on) & (on < 1e12)]
    rng = np.random.default_rng(1)
    x = np.concatenate(
        (
            on,
            np.nextafter(on, np.inf),
            np.nextafter(on, -np.inf)[1:],
            lower + rng.lognormal(3, 3, 5_000),
        )
    )
    x = x[x >= lower]
    got = mech.unbounded.threshold_indices(x.reshape(1, -1), lower, log_b)[0]
    guess = np.maximum(np.ceil(np.log1p(x - lower) / log_b), 0.0)
    assert got.tolist() == _corrected(guess, x, lower, log_b).astype(np.int64).tolist()
    assert (m.thresholds(got, lower) >= x).all()
    assert (m.thresholds(np.maximum(got - 1, 0), lower)[got > 0] < x[got > 0]).all()


@pytest.mark.parametrize("q", [0.1, 0.5, 0.9])
@pytest.mark.parametrize("eps", [0.2, 1.0, 4.0])
def test_index_law_ratio_under_both_relations_is_at_most_e_to_eps(q: float, eps: float) -> None:
    worst = 0.0
    for values in SAMPLES:
        p = exact_index_law(values, q, eps)
        for other in _replacements(values) + _additions_removals(values):
            p2 = exact_index_law(other, q, eps)
            keep = (p > 1e-250) & (p2 > 1e-250)
            worst = max(worst, float(np.max(np.abs(np.log(p[keep]) - np.log(p2[keep])))))
    assert worst <= eps * (1 + RATIO_TOL)
    assert worst >= 0.4 * eps  # not vacuous


def test_sampler_follows_the_exact_law_and_the_literal_loop() -> None:
    values, q, eps, T = [1.0, 4.0, 4.0, 9.0], 0.5, 1.0, 40_000
    m = mech.UnboundedQuantile(q, growth=GROWTH)
    out = m.release(
        np.repeat([values], T, axis=0), eps, 0.5, LOWER, math.inf, np.random.default_rng(0)
    )
    index = np.full(T, MAX_INDEX + 1)
    small = out.released < 2.0**60  # the index has a 1/i tail, so a few releases overflow
    index[small] = np.round(np.log2(out.released[small] - LOWER + 1)).astype(int)
    cdf = np.cumsum(exact_index_law(values, q, eps))
    empirical = np.array([(index <= i).mean() for i in range(MAX_INDEX)])
    assert np.max(np.abs(empirical - cdf)) < 1.63 / math.sqrt(T)  # KS at 1 %
    rng = np.random.default_rng(1)
    slow = np.array([literal_above_threshold(values, q, eps, rng) for _ in range(4000)])
    literal = np.array([(slow <= i).mean() for i in range(MAX_INDEX)])
    assert np.max(np.abs(literal - cdf)) < 1.63 / math.sqrt(slow.size)
    # the median error, finite whatever the tail, agrees with the literal loop's
    fast_median = np.median(np.abs(out.released - 4.0))
    slow_median = np.median(np.abs(GROWTH ** np.minimum(slow, 60) - 1 - 4.0))
    assert fast_median == slow_median


def test_large_samples_land_near_the_quantile() -> None:
    rng = np.random.default_rng(3)
    x = np.sort(rng.lognormal(8, 1, size=(200, 2001)), axis=1)
    m = mech.UnboundedQuantile(0.5)
    out = m.release(x, 1.0, 0.5, 0.0, math.inf, np.random.default_rng(4))
    rel = np.abs(out.released / out.statistic - 1)
    assert np.median(rel) < 0.01
    np.testing.assert_array_equal(out.statistic, x[:, 1000])


def test_extreme_budgets_empty_sample_and_bad_input() -> None:
    m = mech.UnboundedQuantile()
    x = np.array([[5.0, 5.0, 5.0], [0.0, 0.0, 10.0]])
    for eps in (1e-12, 1000.0):
        out = m.release(x, eps, 0.5, 0.0, 10.0, np.random.default_rng(1))
        assert np.isfinite(out.released).all() and (out.released >= 0).all()
        value, _, scale = m.release_empty(eps, 0.0, math.inf, np.random.default_rng(2))
        assert math.isfinite(value) and value >= 0 and scale == 2 / eps
    sharp = m.release(x, 1000.0, 0.5, 0.0, 10.0, np.random.default_rng(1))
    np.testing.assert_allclose(sharp.released, [5.0, 0.0], rtol=2e-3, atol=1e-12)
    with pytest.raises(ValueError, match="lower"):
        m.release([[-1.0, 2.0]], 1.0, 0.5, 0.0, 10.0, np.random.default_rng(0))
    with pytest.raises(ValueError, match="sorted"):
        m.release([[3.0, 2.0]], 1.0, 0.5, 0.0, 10.0, np.random.default_rng(0))
    with pytest.raises(ValueError, match="upper"):
        m.release([[3.0]], 1.0, 0.5, 0.0, 0.0, np.random.default_rng(0))


def _crossing_reference(index, target, scale, rho, expo):
    """The first crossing by walking every record from the start (no skipping)."""
    out = []
    for r in range(index.shape[0]):
        total, m, position, n = 0.0, 0, 0.0, index.shape[1]
        while True:
            while m < n and index[r, m] <= position:
                m += 1
            z = (rho[r] - (m - target)) / scale
            h = -math.log1p(-0.5 * math.exp(-z)) if z >= 0 else math.log(2.0) - z
            if m < n:
                length = index[r, m] - position
                if h > 0 and total + length * h >= expo[r]:
                    out.append(position + max(math.ceil((expo[r] - total) / h) - 1.0, 0.0))
                    break
                total += length * h
                position = float(index[r, m])
            else:
                step = math.ceil((expo[r] - total) / h) - 1.0 if h > 0 else math.inf
                out.append(position + max(step, 0.0))
                break
    return np.array(out)


@pytest.mark.parametrize("eps", [0.5, 5.0, 40.0])
def test_the_crossing_skips_only_counts_that_add_no_hazard(eps: float) -> None:
    """Records so far below the target that their hazard underflows to 0 are jumped over:
    the crossings equal a walk over every record."""
    from core.mechanisms.unbounded import _first_crossing_compiled

    rng = np.random.default_rng(int(eps))
    reps, n = 300, 2_000
    x = np.sort(rng.lognormal(3, 1, (reps, n)), axis=1)
    index = mech.unbounded.threshold_indices(x, 0.0, math.log(1.001))
    scale = 2.0 / eps
    rho = rng.laplace(0.0, scale, reps)
    expo = rng.standard_exponential(reps)
    got = np.empty(reps)
    _first_crossing_compiled(index, 0.5 * n, scale, rho, expo, got)
    want = _crossing_reference(index, 0.5 * n, scale, rho, expo)
    assert got == pytest.approx(want, rel=0, abs=0.5)


def test_release_each_is_release_at_each_budget() -> None:
    m = mech.UnboundedQuantile(0.3)
    x = np.sort(np.random.default_rng(2).lognormal(2, 1, (50, 400)), axis=1)
    budgets = [0.1, 1.0, 7.0]
    each = m.release_each(x, budgets, 0.5, 0.0, math.inf, np.random.default_rng(9))
    rng = np.random.default_rng(9)
    for eps, got in zip(budgets, each, strict=True):
        one = m.release(x, eps, 0.5, 0.0, math.inf, rng)
        assert got.released == pytest.approx(one.released, rel=1e-15)
