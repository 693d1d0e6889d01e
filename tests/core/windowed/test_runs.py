"""Tie-compressed windows (core.windowed.runs) draw exactly the law of a whole SRSWOR sample.

Checked by exact enumeration over every subset of tiny tied populations (the whole sample
revealed through widening windows, the released order statistic with its smooth
sensitivity, the exponential mechanism's release), by certifying ``S`` on a window and then
revealing the same whole sample, and by two-sample KS and chi-square tests against whole
samples drawn at ``N = 10^6`` with heavy ties.
"""

from __future__ import annotations

from collections import Counter
from itertools import combinations

import numpy as np
import pytest
from scipy import stats

from core import sensitivity as sens
from core.designs.frame import Frame
from core.designs.individual import Poisson, SimpleRandom
from core.mechanisms import ExponentialQuantile, exponential_quantile_distribution
from core.windowed import window_exponential_draws, window_quantile_draws
from core.windowed.run_sensitivity import smooth_sensitivity_runs
from core.windowed.runs import RunSource, RunView, RunWindows, ValueRuns, run_view

P_MIN = 1e-4
TINY = np.array([1.0, 1.0, 2.0, 2.0, 2.0, 3.0, 5.0, 5.0, 5.0])


def _whole(view: RunView, row: int) -> np.ndarray:
    """The sorted sample of a row whose view covers every rank."""
    c = view.count[row]
    return np.repeat(view.value[row, :c], view.last[row, :c] - view.first[row, :c] + 1)


def test_value_runs_of_a_sorted_population() -> None:
    runs = ValueRuns.of(TINY)
    assert runs.values.tolist() == [1.0, 2.0, 3.0, 5.0]
    assert runs.starts.tolist() == [0, 2, 5, 6, 9]
    assert (runs.N, runs.D, runs.tied) == (9, 4, True)
    assert not ValueRuns.of(np.arange(5.0)).tied
    for bad in ([], [2.0, 1.0], [0.0, np.nan]):
        with pytest.raises(ValueError, match="sorted_values"):
            ValueRuns.of(bad)


def test_run_view_merges_equal_neighbours_and_reads_a_rank() -> None:
    cells = np.array([[1.0, 1.0, 2.0, 4.0, 4.0], [7.0, 7.0, 7.0, np.nan, np.nan]])
    view = RunView.of_cells(cells, np.array([3, 10]), np.array([7, 12]))
    assert view.count.tolist() == [3, 1]
    assert view.value[0].tolist() == [1.0, 2.0, 4.0]
    assert view.first[0].tolist() == [3, 5, 6] and view.last[0].tolist() == [4, 5, 7]
    assert (view.first[1, 0], view.last[1, 0]) == (10, 12)
    assert view.at(np.array([6, 11])).tolist() == [4.0, 7.0]


@pytest.mark.parametrize("ties", [False, True])
def test_run_view_of_cells_lists_each_rows_runs_in_order(ties: bool) -> None:
    """Rows of distinct values (each rank its own run, the fast path) and of tied values,
    of different widths, against runs listed one by one."""
    rng = np.random.default_rng(5)
    reps, width = 40, 12
    cells = np.sort(rng.integers(0, 6, (reps, width)) if ties else rng.random((reps, width)), 1)
    cells = cells.astype(np.float64)
    length = rng.integers(1, width + 1, reps)
    cells[np.arange(width)[None, :] >= length[:, None]] = np.nan
    first = rng.integers(1, 1000, reps)
    view = RunView.of_cells(cells, first, first + length - 1)
    for r in range(reps):
        runs: list[list[float]] = []
        for c in range(length[r]):
            if runs and runs[-1][0] == cells[r, c]:
                runs[-1][2] = first[r] + c
            else:
                runs.append([cells[r, c], first[r] + c, first[r] + c])
        got = [[view.value[r, c], view.first[r, c], view.last[r, c]] for c in range(view.count[r])]
        assert got == runs
        assert np.isnan(view.value[r, view.count[r] :]).all()


@pytest.mark.parametrize(
    ("n", "steps"),
    [(4, [(1, 4)]), (4, [(2, 2), (1, 4)]), (6, [(3, 3), (2, 4), (1, 6)]), (2, [(2, 2), (1, 1)])],
)
def test_revealed_samples_have_the_multivariate_hypergeometric_law(n, steps) -> None:
    """Counts per run of the whole sample, revealed through widening windows, against the
    exact probabilities over all C(9, n) subsets (chi-square)."""
    runs = ValueRuns.of(TINY)
    exact = Counter(tuple(TINY[list(s)]) for s in combinations(range(TINY.size), n))
    keys = sorted(exact)
    reps = 30_000
    w = RunWindows(np.random.default_rng(n + len(steps)), runs, np.full(reps, n))
    for first, last in steps:
        w.ensure(np.full(reps, first), np.full(reps, last))
    view, blocks = w.window_runs(np.arange(reps), np.ones(reps, dtype=np.int64), TINY)
    assert blocks[1].size == 0  # nothing left unexpanded
    seen = Counter(tuple(_whole(view, r)) for r in range(reps))
    assert set(seen) <= set(exact)
    observed = np.array([seen[key] for key in keys])
    expected = np.array([exact[key] for key in keys], dtype=float)
    assert stats.chisquare(observed, reps * expected / expected.sum()).pvalue > P_MIN


@pytest.mark.parametrize(("q", "beta"), [(0.5, 0.3), (0.5, 4.0), (0.25, 0.05)])
def test_quantile_and_sensitivity_have_the_exact_joint_law(q: float, beta: float) -> None:
    """(y_(k), S) from run windows against the exact law over all 126 subsets of five."""
    lo, hi, n, reps = 0.0, 6.0, 5, 30_000
    k = sens.quantile_rank(n, q)
    exact: Counter[tuple[float, float]] = Counter()
    for s in combinations(range(TINY.size), n):
        y = TINY[list(s)]
        exact[
            (
                y[k - 1],
                round(sens.smooth_sensitivity_beta_batch(y[None], beta, lo, hi, quantile=q)[0], 9),
            )
        ] += 1
    sizes = np.full(reps, n)
    stat, S = window_quantile_draws(
        np.random.default_rng(3), TINY, sizes, q, [beta], lo, hi,
        source=RunSource(ValueRuns.of(TINY), sizes),
    )  # fmt: skip
    seen = Counter(zip(stat.tolist(), np.round(S[0], 9).tolist(), strict=True))
    assert set(seen) <= set(exact)
    keys = sorted(exact)
    observed = np.array([seen[key] for key in keys])
    expected = np.array([exact[key] for key in keys], dtype=float)
    assert stats.chisquare(observed, reps * expected / expected.sum()).pvalue > P_MIN


@pytest.mark.parametrize(("eps", "q", "first_half"), [(0.3, 0.5, 0), (4.0, 0.3, 1), (40.0, 0.8, 0)])
def test_exponential_release_on_runs_has_the_exact_law(eps: float, q: float, first_half: int):
    """Every ring and widening exercised on runs; releases against the exact mixture."""
    lo, hi, n, reps = 0.0, 10.0, 5, 20_000
    parts = []
    for s in combinations(range(TINY.size), n):
        edges, p = exponential_quantile_distribution(TINY[list(s)], eps, lo, hi, q)
        parts.append((edges[:-1], edges[1:], p / p.sum()))

    def cdf(x: np.ndarray) -> np.ndarray:
        total = np.zeros_like(x)
        for left, right, p in parts:
            width = np.where(right > left, right - left, 1.0)
            frac = np.clip((x[:, None] - left) / width, 0.0, 1.0)
            total += (np.where(right > left, frac, x[:, None] >= left) * p).sum(axis=1)
        return total / len(parts)

    sizes = np.full(reps, n)
    stat, rel = window_exponential_draws(
        np.random.default_rng(int(eps * 10) + first_half), np.random.default_rng(1), TINY,
        sizes, q, [eps], lo, hi, first_half=first_half,
        source=RunSource(ValueRuns.of(TINY), sizes),
    )  # fmt: skip
    assert stats.kstest(rel[0], cdf).pvalue > P_MIN
    assert set(np.unique(stat)) <= set(TINY)


@pytest.mark.parametrize("beta", [0.0005, 0.02, 0.5, 5.0])
@pytest.mark.parametrize(
    ("N", "n", "levels"), [(5_000, 400, 7), (100_000, 20_000, 60), (300, 250, 25)]
)
def test_a_certified_run_window_gives_the_same_samples_sensitivity(N, n, levels, beta) -> None:
    """Certify S on run windows widened from one rank, with the tree's blocks, then reveal
    the whole same sample: its S (core.sensitivity) must be every certified value."""
    rng = np.random.default_rng(N + n + levels)
    support = np.unique(np.round(rng.lognormal(3, 1, levels), 1))
    values = np.sort(rng.choice(support, N, p=rng.dirichlet(np.ones(support.size))))
    lo, hi, reps = -1.0, float(support.max()) + 5.0, 60
    k = np.full(reps, sens.quantile_rank(n, 0.5))
    w = RunWindows(rng, ValueRuns.of(values), np.full(reps, n))
    certified = np.full(reps, np.nan)
    half = 0
    while np.isnan(certified).any():
        w.ensure(k - half, k + half)
        view, blocks = w.window_runs(np.arange(reps), k, values)
        s, ok = smooth_sensitivity_runs(view, np.full(reps, n), k, beta, lo, hi, blocks)
        fresh = ok & np.isnan(certified)
        certified[fresh] = s[fresh]
        half = 2 * half + 1
    w.ensure(np.ones(reps, dtype=np.int64), np.full(reps, n))
    whole_view, _ = w.window_runs(np.arange(reps), k, values)
    samples = np.array([_whole(whole_view, r) for r in range(reps)])
    full = sens.smooth_sensitivity_beta_batch(samples, beta, lo, hi)
    assert certified == pytest.approx(full, rel=1e-9, abs=1e-300)
    assert whole_view.at(k) == pytest.approx(samples[:, k[0] - 1])


def test_whole_sample_law_at_a_million_with_heavy_ties() -> None:
    """Median, S at three betas and exponential releases: run windows against whole samples
    drawn independently (chi-square on the tied medians, two-sample KS on the rest)."""
    rng = np.random.default_rng(21)
    N, n, reps, lo, hi = 10**6, 20_000, 1_500, 0.0, 200.0
    pop = np.sort(np.minimum(rng.geometric(0.25, N), 200).astype(float))
    runs = ValueRuns.of(pop)
    betas = [0.001, 0.01, 0.2]
    sizes = np.full(reps, n)
    stat, S = window_quantile_draws(
        np.random.default_rng(22), pop, sizes, 0.5, betas, lo, hi, source=RunSource(runs, sizes)
    )
    _, rel = window_exponential_draws(
        np.random.default_rng(23), np.random.default_rng(24), pop, sizes, 0.5, [0.5], lo, hi,
        source=RunSource(runs, sizes),
    )  # fmt: skip
    draw = np.random.default_rng(25)
    whole = np.sort(pop[np.array([draw.choice(N, n, replace=False) for _ in range(reps)])], axis=1)
    k = sens.quantile_rank(n, 0.5)
    levels = np.union1d(stat, whole[:, k - 1])
    table = np.array([[np.sum(x == v) for v in levels] for x in (stat, whole[:, k - 1])])
    assert stats.chi2_contingency(table[:, table.sum(axis=0) > 0])[1] > P_MIN
    for j, beta in enumerate(betas):
        ref = sens.smooth_sensitivity_beta_batch(whole, beta, lo, hi)
        assert stats.ks_2samp(S[j], ref).pvalue > P_MIN
    ref_rel = ExponentialQuantile(0.5).release(whole, 0.5, 0.5, lo, hi, draw).released
    assert stats.ks_2samp(rel[0], ref_rel).pvalue > P_MIN


def test_run_view_of_a_rank_source_equals_its_cells() -> None:
    """Any other source is read rank by rank and merged into the same runs."""
    from core.windowed import SampleWindows

    rng = np.random.default_rng(2)
    pop = np.sort(np.round(rng.uniform(0, 5, 2_000)))
    w = SampleWindows(rng, pop.size, np.full(5, 300))
    k = np.full(5, 150)
    w.ensure(k - 20, k + 20)
    view, _ = run_view(w, np.arange(5), k, pop)
    assert (view.value[:, 1:] > view.value[:, :-1])[
        view.count[:, None] > np.arange(1, view.value.shape[1])
    ].all()
    assert (view.first[:, 1:] == view.last[:, :-1] + 1)[
        view.count[:, None] > np.arange(1, view.value.shape[1])
    ].all()


def test_run_windows_refuse_record_positions_and_bad_sizes() -> None:
    runs = ValueRuns.of(TINY)
    with pytest.raises(TypeError, match="window_runs"):
        RunWindows(np.random.default_rng(0), runs, [3]).positions(np.array([1]), 2)
    with pytest.raises(ValueError, match="sample sizes"):
        RunWindows(np.random.default_rng(0), runs, [0, 3])


def test_individual_designs_use_runs_on_tied_populations_only() -> None:
    tied = Frame(np.repeat([1.0, 2.0, 7.0], 50), 0.0, 10.0, None, None, None, None)
    smooth = Frame(np.linspace(0.0, 1.0, 150), 0.0, 1.0, None, None, None, None)
    rng = np.random.default_rng(0)
    for design in (SimpleRandom(), Poisson()):
        point = design.point(tied, 0.2)
        assert isinstance(design.window_draw(tied, point, 4, rng).source, RunSource)
        assert design.window_draw(smooth, design.point(smooth, 0.2), 4, rng).source is None
