"""Tests for core.mechanisms.joint_exp: several quantiles at once (JointExp).

Privacy is checked, not assumed: the exact output density is compared on neighbouring
samples (one record changed, added or removed; ties, records at the bounds, n = 0..5,
m = 1..3) over every cell of the common refinement of their intervals.  The exact law is
checked against a brute-force enumeration of all cells written from the definition, and
the normaliser against a plain quadratic dynamic program; the sampler against the law (χ²
on cells, uniformity inside them), and m = 1 against the exponential mechanism.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter

import numpy as np
import pytest
from scipy import special, stats

from core import mechanisms as mech
from core.mechanisms import joint_exp
from tests.core.mechanisms.neighbours import SAMPLES, _additions_removals, _replacements

LOWER, UPPER = 0.0, 10.0
LEVELS = [[0.5], [0.3], [0.25, 0.75], [0.1, 0.5, 0.9], [0.2, 0.4, 0.45]]
RATIO_TOL = 1e-9


# ---------------------------------------------------------------------------------------
# Slow references, written from the definition
# ---------------------------------------------------------------------------------------


def _edges(values: list[float]) -> np.ndarray:
    return np.array([LOWER, *sorted(values), UPPER])


def _utility(values: list[float], o: list[float], levels: list[float]) -> float:
    """``-sum_j |#{x in (o_{j-1}, o_j]} - n (q_j - q_{j-1})|``, records at LOWER in gap 1."""
    x = np.asarray(values)
    n = len(values)
    cuts = [-math.inf, *o, math.inf]
    qs = [0.0, *levels, 1.0]
    total = 0.0
    for j in range(1, len(cuts)):
        count = int(((x > cuts[j - 1]) & (x <= cuts[j])).sum())
        total += abs(count - n * (qs[j] - qs[j - 1]))
    return -total


def _volume(widths: np.ndarray, cell: tuple[int, ...]) -> float:
    """Volume of the ordered outputs in the cell: ``prod w_i^k / k!``."""
    return math.prod(widths[i] ** k / math.factorial(k) for i, k in Counter(cell).items())


def _brute_force_law(values: list[float], eps: float, levels: list[float]) -> dict:
    """Probability of every cell: ``exp(eps u / (2 * 2)) * volume``, normalised by summing."""
    edges = _edges(values)
    widths = np.diff(edges)
    mids = edges[:-1] + widths / 2
    cells = list(itertools.combinations_with_replacement(range(len(values) + 1), len(levels)))
    log_w = []
    for cell in cells:
        vol = _volume(widths, cell)
        u = _utility(values, [mids[i] for i in cell], levels)
        log_w.append(eps * u / 4.0 + math.log(vol) if vol > 0 else -math.inf)
    log_w = np.array(log_w)
    p = np.exp(log_w - special.logsumexp(log_w))
    return dict(zip(cells, p, strict=True))


def _quadratic_log_normaliser(values: np.ndarray, eps: float, levels: list[float]) -> float:
    """``log Z`` by the plain dynamic program over (output, interval, run length), O(m^2 n^2)."""
    n, m = values.size, len(levels)
    edges = np.concatenate([[LOWER], values, [UPPER]])
    with np.errstate(divide="ignore"):
        lw = np.log(np.diff(edges))
    t = n * np.diff([0.0, *levels, 1.0])
    c = eps / 4.0
    idx = np.arange(n + 1)
    a = np.full((n + 1, m), -np.inf)  # a[i, k-1]: last k outputs in interval i
    a[:, 0] = lw - c * np.abs(idx - t[0])
    for j in range(1, m):
        total = special.logsumexp(a, axis=1)
        new = np.full((n + 1, m), -np.inf)
        for i in range(1, n + 1):
            d = i - idx[:i]
            new[i, 0] = lw[i] + special.logsumexp(total[:i] - c * np.abs(d - t[j]))
        for k in range(1, j + 1):
            new[:, k] = a[:, k - 1] + lw - c * t[j] - math.log(k + 1)
        a = new
    total = special.logsumexp(a, axis=1)
    return float(special.logsumexp(total - c * np.abs(n - idx - t[m])))


def _core_law(values: list[float], eps: float, levels: list[float]) -> dict:
    cells = list(itertools.combinations_with_replacement(range(len(values) + 1), len(levels)))
    lp = mech.joint_exp_cell_log_probability(
        values, np.array(cells, dtype=np.int64).reshape(len(cells), len(levels)),
        eps, LOWER, UPPER, levels,
    )  # fmt: skip
    return dict(zip(cells, np.exp(lp), strict=True))


# ---------------------------------------------------------------------------------------
# The exact law
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("levels", LEVELS, ids=str)
@pytest.mark.parametrize("eps", [0.4, 2.0, 7.0])
def test_law_equals_brute_force_enumeration(levels, eps) -> None:
    for values in [*SAMPLES, [], [10.0, 10.0]]:
        ref = _brute_force_law(values, eps, levels)
        got = _core_law(values, eps, levels)
        for cell, p in ref.items():
            assert got[cell] == pytest.approx(p, rel=1e-10, abs=1e-15), (values, cell)


@pytest.mark.parametrize(
    ("n", "levels"),
    [
        (1, [0.5]),
        (2, [0.3, 0.6]),
        (7, [0.1, 0.5, 0.9]),
        (40, [0.05, 0.5, 0.55, 0.99]),
        (137, [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]),
        (150, [0.01, 0.02, 0.98]),
    ],
)
@pytest.mark.parametrize("eps", [1e-12, 0.05, 1.0, 30.0, 1000.0])
def test_normaliser_equals_the_quadratic_dynamic_program(n, levels, eps) -> None:
    rng = np.random.default_rng(n)
    values = np.sort(np.round(rng.uniform(LOWER, UPPER, n), 1))  # rounding makes ties
    tab = joint_exp._tables(values, eps, LOWER, UPPER, np.array(levels))
    ref = _quadratic_log_normaliser(values, eps, levels)
    assert math.isfinite(tab.log_normaliser)
    assert tab.log_normaliser == pytest.approx(ref, rel=1e-12, abs=1e-11)


def test_law_sums_to_one_and_zero_width_cells_are_empty() -> None:
    values = [0.0, 1.0, 1.0, 2.5, 4.0, 4.0, 6.0, 7.5, 9.0, 10.0, 10.0]
    for levels in ([0.2, 0.5, 0.8], [0.5, 0.6]):
        law = _core_law(values, 1.5, levels)
        assert math.fsum(law.values()) == pytest.approx(1.0, abs=1e-12)
        widths = np.diff(_edges(values))
        for cell, p in law.items():
            if any(widths[i] == 0 for i in cell):
                assert p == 0.0


@pytest.mark.parametrize("levels", [[0.5], [0.25, 0.75], [0.1, 0.5, 0.9]], ids=str)
def test_tiny_eps_gives_the_uniform_law_on_ordered_vectors(levels) -> None:
    values = [0.0, 1.0, 1.0, 3.5, 9.0]
    widths = np.diff(_edges(values))
    law = _core_law(values, 1e-12, levels)
    total = (UPPER - LOWER) ** len(levels) / math.factorial(len(levels))
    for cell, p in law.items():
        assert p == pytest.approx(_volume(widths, cell) / total, rel=1e-10, abs=1e-300)
    tab = joint_exp._tables(np.array(values), 1e-12, LOWER, UPPER, np.array(levels))
    assert tab.log_normaliser == pytest.approx(math.log(total), rel=0, abs=1e-10)


@pytest.mark.parametrize("values", SAMPLES, ids=str)
@pytest.mark.parametrize("q", [0.1, 0.5, 0.77])
@pytest.mark.parametrize("eps", [1e-12, 0.3, 1.0, 1000.0])
def test_one_level_is_the_exponential_mechanism(values, q, eps) -> None:
    """m = 1: utility ``-2 |i - q n|`` at ``eps / 4`` is the score ``-|i - q n|`` at ``eps / 2``."""
    _, p = mech.exponential_quantile_distribution(values, eps, LOWER, UPPER, q)
    cells = np.arange(len(values) + 1)[:, np.newaxis]
    got = np.exp(mech.joint_exp_cell_log_probability(values, cells, eps, LOWER, UPPER, [q]))
    np.testing.assert_allclose(got, p, rtol=1e-9, atol=1e-15)


# ---------------------------------------------------------------------------------------
# Privacy, checked exactly on neighbouring samples
# ---------------------------------------------------------------------------------------


def _worst_log_ratio(x: list[float], y: list[float], eps: float, levels: list[float]) -> float:
    """Largest ``|log f_x(o) - log f_y(o)|`` over outputs ``o``, both densities from core.

    The densities are constant on the cells of the union of both samples' edges, so one
    point per cell (the midpoints; shared by outputs in one interval) finds the supremum.
    """
    merged = np.unique(np.concatenate([_edges(x), _edges(y)]))
    mids = (merged[:-1] + merged[1:]) / 2
    fine = np.array(list(itertools.combinations_with_replacement(range(mids.size), len(levels))))
    points = mids[fine]
    log_f = []
    for values in (x, y):
        edges = _edges(values)
        widths = np.diff(edges)
        cells = np.searchsorted(edges, points, side="right") - 1
        lp = mech.joint_exp_cell_log_probability(values, cells, eps, LOWER, UPPER, levels)
        log_vol = np.array([math.log(_volume(widths, tuple(c))) for c in cells])
        log_f.append(lp - log_vol)
    return float(np.max(np.abs(log_f[0] - log_f[1])))


@pytest.mark.parametrize("levels", LEVELS, ids=str)
@pytest.mark.parametrize("eps", [0.5, 2.0])
def test_density_ratio_of_neighbours_is_at_most_e_to_eps(levels, eps) -> None:
    alpha = mech.JointExpQuantiles(levels).budget_factors().add_remove
    assert alpha is not None
    add_remove_eps = alpha * eps  # (1 - min gap) eps: what the accounting uses
    worst = 0.0
    for x in SAMPLES:
        for y in _replacements(x):
            loss = _worst_log_ratio(x, y, eps, levels)
            assert loss <= eps + RATIO_TOL, (x, y, loss)
            worst = max(worst, loss)
        for y in [*_additions_removals(x), *([[]] if len(x) == 1 else [])]:
            loss = _worst_log_ratio(x, y, eps, levels)
            assert loss <= add_remove_eps + RATIO_TOL, (x, y, loss)
    assert worst > 0.6 * eps  # the check can see a loss of the size it bounds


def test_budgets_are_stated() -> None:
    m = mech.JointExpQuantiles([0.1, 0.9])
    assert m.pure and not m.uses_delta
    assert m.add_remove_factor == 1.0 and m.change_factor == 1.0
    assert m.relations == frozenset({"replacement", "deletion"})
    # The accounting's budgets at these levels: 1 − min gap (0.9 here), change 1.
    f = m.budget_factors()
    assert f.name == "joint_exp" and f.change == 1.0
    assert f.add_remove == pytest.approx(0.9, rel=1e-12)
    assert f.relations == m.relations
    for levels, alpha in (([0.5], 0.5), ([0.3], 0.7), ([0.25, 0.5, 0.75], 0.75)):
        got = mech.JointExpQuantiles(levels).budget_factors().add_remove
        assert got == pytest.approx(alpha, rel=1e-12)
        if len(levels) == 1:  # one level: the exponential quantile's
            assert got == pytest.approx(
                mech.ExponentialQuantile.budget_factors(levels[0]).add_remove, rel=1e-12
            )
    assert joint_exp.UTILITY_SENSITIVITY == 2.0


# ---------------------------------------------------------------------------------------
# The sampler
# ---------------------------------------------------------------------------------------


def _cells_of(values: list[float], draws: np.ndarray) -> np.ndarray:
    return np.searchsorted(_edges(values), draws, side="right") - 1


@pytest.mark.parametrize(
    ("values", "levels", "eps"),
    [
        ([2.0, 5.0, 5.0], [0.3, 0.7], 2.0),
        ([0.0, 4.0, 10.0], [0.25, 0.5, 0.75], 1.0),
        ([3.0], [0.2, 0.6], 0.5),
        ([1.0, 2.0], [0.5], 3.0),
    ],
)
def test_sampler_follows_the_brute_force_law(values, levels, eps) -> None:
    draws = 40_000
    m = mech.JointExpQuantiles(levels)
    out, _ = m.release_draws([values], eps, 0.5, LOWER, UPPER, np.random.default_rng(7), draws)
    out = out[0]
    assert (np.diff(out, axis=1) >= 0).all()
    assert ((out >= LOWER) & (out <= UPPER)).all()
    law = _brute_force_law(values, eps, levels)
    seen = Counter(map(tuple, _cells_of(values, out).tolist()))
    assert all(law[cell] > 0 for cell in seen)
    cells = [c for c, p in law.items() if p > 0]
    expected = np.array([law[c] for c in cells]) * draws
    observed = np.array([seen.get(c, 0) for c in cells], dtype=np.float64)
    big = expected >= 5
    exp_pooled = np.append(expected[big], expected[~big].sum())
    obs_pooled = np.append(observed[big], observed[~big].sum())
    keep = exp_pooled > 0
    assert stats.chisquare(obs_pooled[keep], exp_pooled[keep]).pvalue > 1e-4


def test_outputs_are_uniform_and_ordered_inside_their_cell() -> None:
    values = [1.0, 6.0]
    m = mech.JointExpQuantiles([0.3, 0.6])
    out, _ = m.release_draws([values], 0.2, 0.5, LOWER, UPPER, np.random.default_rng(3), 40_000)
    out = out[0]
    edges = _edges(values)
    cells = _cells_of(values, out)
    rel = (out - edges[cells]) / (edges[cells + 1] - edges[cells])
    apart = cells[:, 0] != cells[:, 1]
    together = ~apart
    assert apart.sum() > 1000 and together.sum() > 1000
    assert stats.kstest(rel[apart].ravel(), "uniform").pvalue > 1e-4
    assert stats.kstest(rel[together, 0], stats.beta(1, 2).cdf).pvalue > 1e-4  # min of two
    assert stats.kstest(rel[together, 1], stats.beta(2, 1).cdf).pvalue > 1e-4  # max of two


def test_plain_python_kernels_match_the_compiled_ones() -> None:
    rng = np.random.default_rng(5)
    values = np.sort(np.round(rng.uniform(LOWER, UPPER, 30), 0))
    levels = np.array([0.1, 0.35, 0.5, 0.9])
    tab = joint_exp._tables(values, 0.8, LOWER, UPPER, levels)
    first = np.empty_like(tab.log_first)
    total = np.empty_like(tab.log_total)
    log_z = joint_exp._forward_kernel(tab.log_width, tab.c, tab.targets, tab.stay, first, total)
    assert log_z == pytest.approx(tab.log_normaliser, rel=1e-14)
    np.testing.assert_allclose(first, tab.log_first, rtol=1e-14)
    np.testing.assert_allclose(total, tab.log_total, rtol=1e-14)
    uniforms = 1.0 - rng.random((50, 12))
    got, want = np.empty((50, 4)), np.empty((50, 4))
    args = (tab.edges, tab.log_width, tab.c, tab.targets, tab.stay, first, total, uniforms)
    joint_exp._draw_kernel(*args, got)
    joint_exp._draw(*args, want)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("eps", [1e-12, 1000.0])
def test_extreme_budgets_stay_finite_and_sensible(eps) -> None:
    rng = np.random.default_rng(11)
    x = np.sort(rng.uniform(LOWER, UPPER, (3, 2000)), axis=1)
    m = mech.JointExpQuantiles([0.1, 0.5, 0.9])
    rel = m.release(x, eps, 0.5, LOWER, UPPER, rng)
    assert np.isfinite(rel.released).all()
    if eps == 1000.0:  # the release falls next to the order statistics
        assert np.abs(rel.released - rel.statistic).max() < 0.05


def test_large_sample_tracks_the_order_statistics() -> None:
    rng = np.random.default_rng(2)
    x = np.sort(rng.lognormal(1.0, 0.5, 20_000))
    m = mech.JointExpQuantiles(np.arange(1, 10) / 10)
    rmse = m.rmse([x], 1.0, 0.5, 0.0, 30.0, rng, draws=20)
    spacing = np.diff(np.quantile(x, [0.09, 0.1, 0.11]))
    assert (rmse < spacing.min()).all()


# ---------------------------------------------------------------------------------------
# The interface
# ---------------------------------------------------------------------------------------


def test_rows_are_independent_and_per_row_budgets_are_used() -> None:
    rng = np.random.default_rng(0)
    x = np.sort(rng.uniform(LOWER, UPPER, (4, 50)), axis=1)
    m = mech.JointExpQuantiles([0.25, 0.75])
    a = m.release(x, 1.0, 0.5, LOWER, UPPER, np.random.default_rng(9)).released
    y = x.copy()
    y[2] = np.sort(rng.uniform(LOWER, UPPER, 50))
    b = m.release(y, 1.0, 0.5, LOWER, UPPER, np.random.default_rng(9)).released
    np.testing.assert_array_equal(a[[0, 1, 3]], b[[0, 1, 3]])
    assert not np.array_equal(a[2], b[2])
    per_row = m.release(x, [1.0, 1.0, 1000.0, 1.0], 0.5, LOWER, UPPER, np.random.default_rng(9))
    np.testing.assert_array_equal(per_row.released[:2], a[:2])
    assert not np.array_equal(per_row.released[2], a[2])


def test_ragged_list_with_an_empty_sample() -> None:
    m = mech.JointExpQuantiles([0.2, 0.8])
    rel = m.release([[1.0, 2.0, 3.0], [], [5.0]], 1.0, 0.5, LOWER, UPPER, np.random.default_rng(1))
    assert rel.released.shape == (3, 2) and rel.statistic.shape == (3, 2)
    np.testing.assert_array_equal(rel.statistic[0], [1.0, 3.0])
    assert np.isnan(rel.statistic[1]).all()
    np.testing.assert_array_equal(rel.statistic[2], [5.0, 5.0])
    np.testing.assert_array_equal(rel.quantiles, [0.2, 0.8])
    # An empty sample gives two sorted uniforms: the lower one has mean (upper - lower) / 3.
    out, _ = m.release_draws([[]], 1.0, 0.5, LOWER, UPPER, np.random.default_rng(2), 20_000)
    assert out[0, :, 0].mean() == pytest.approx(10 / 3, abs=0.1)
    with pytest.raises(ValueError, match="centre must be given"):
        m.rmse([[]], 1.0, 0.5, LOWER, UPPER, np.random.default_rng(2))


def test_rmse_is_the_root_mean_square_of_the_draws() -> None:
    x = np.sort(np.random.default_rng(4).uniform(LOWER, UPPER, (2, 30)), axis=1)
    m = mech.JointExpQuantiles([0.3, 0.5])
    out, stat = m.release_draws(x, 2.0, 0.5, LOWER, UPPER, np.random.default_rng(8), 40)
    want = np.sqrt(np.mean((out - stat[:, np.newaxis, :]) ** 2, axis=(0, 1)))
    got = m.rmse(x, 2.0, 0.5, LOWER, UPPER, np.random.default_rng(8), draws=40)
    np.testing.assert_allclose(got, want, rtol=1e-15)
    centred = m.rmse(x, 2.0, 0.5, LOWER, UPPER, np.random.default_rng(8), 40, centre=[5.0, 5.0])
    np.testing.assert_allclose(centred, np.sqrt(np.mean((out - 5.0) ** 2, axis=(0, 1))))


def test_one_level_rmse_agrees_with_the_exact_exponential_error() -> None:
    x = np.sort(np.random.default_rng(6).uniform(LOWER, UPPER, 200))
    centre = float(x[99])
    mse, _ = mech.exponential_quantile_error(x, 0.1, LOWER, UPPER, centre, quantile=0.5)
    draws = 20_000
    out, _ = mech.JointExpQuantiles([0.5]).release_draws(
        [x], 0.1, 0.5, LOWER, UPPER, np.random.default_rng(0), draws
    )
    sq = (out[0, :, 0] - centre) ** 2
    assert sq.mean() == pytest.approx(mse, abs=5 * sq.std() / math.sqrt(draws))


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda m: m.release([[1.0]], 0.0, 0.5, 0, 10, np.random.default_rng()), "eps_sample"),
        (lambda m: m.release([[1.0]], 1.0, 0.5, 5, 5, np.random.default_rng()), "lower"),
        (lambda m: m.release([[2.0, 1.0]], 1.0, 0.5, 0, 10, np.random.default_rng()), "sorted"),
        (lambda m: m.release(np.array([[11.0]]), 1, 0.5, 0, 10, np.random.default_rng()), "bounds"),
        (lambda m: m.release([[1.0]], 1.0, 1.5, 0, 10, np.random.default_rng()), "delta_sample"),
        (lambda m: m.release([[1.0]], 1.0, 0.5, 0, 10, 3), "rng"),
        (lambda m: m.release("abc", 1.0, 0.5, 0, 10, np.random.default_rng()), "samples"),
        (lambda m: m.release([[[1.0]]], 1.0, 0.5, 0, 10, np.random.default_rng()), "samples"),
        (lambda m: m.rmse([[1.0]], 1.0, 0.5, 0, 10, np.random.default_rng(), 0), "draws"),
        (
            lambda m: m.rmse([[1.0]], 1.0, 0.5, 0, 10, np.random.default_rng(), 5, [1.0]),
            "centre",
        ),
    ],
)
def test_invalid_arguments_raise(call, match) -> None:
    with pytest.raises(ValueError, match=match):
        call(mech.JointExpQuantiles([0.25, 0.75]))


@pytest.mark.parametrize("levels", [[], [0.5, 0.5], [0.7, 0.2], [0.0, 0.5], [1.0], [True]])
def test_invalid_levels_raise(levels) -> None:
    with pytest.raises(ValueError, match="quantiles"):
        mech.JointExpQuantiles(levels)


def test_invalid_cells_raise() -> None:
    with pytest.raises(ValueError, match="cells"):
        mech.joint_exp_cell_log_probability([1.0], [[2]], 1.0, 0, 10, [0.5])
    with pytest.raises(ValueError, match="cells"):
        mech.joint_exp_cell_log_probability([1.0], [[1, 0]], 1.0, 0, 10, [0.2, 0.5])
    with pytest.raises(ValueError, match="cells"):
        mech.joint_exp_cell_log_probability([1.0], [0], 1.0, 0, 10, [0.5])


def test_repr_and_equality() -> None:
    a = mech.JointExpQuantiles([0.1, 0.9])
    assert a == mech.JointExpQuantiles(np.array([0.1, 0.9]))
    assert a != mech.JointExpQuantiles([0.1, 0.8])
    assert hash(a) == hash(mech.JointExpQuantiles((0.1, 0.9)))
    assert repr(a) == "JointExpQuantiles(quantiles=[0.1, 0.9])"
