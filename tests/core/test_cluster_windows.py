"""Cluster samples read as windows (core.designs.cluster_windows) have the whole sample's law.

Every method of :class:`ClusterWindows` is checked against a slow reference kept here --
the whole cluster sample (every record of the drawn clusters), sorted, read at the ranks --
on the same drawn clusters; the drawn cluster sets are uniform (enumeration, chi-square at
fixed seeds); the smooth sensitivity certified from a window and its blocks is the whole
sample's; and at N = 10^6 the windowed median and its smooth sensitivity agree in law with
whole samples drawn independently.

The loop :func:`window_draws` mirrors ``core.windowed.quantile._draw_chunk`` (reveal,
certify, double the window of the samples not yet certified) on any sample source with the
``SampleWindows`` surface; ``bench/bench_cluster_windows.py`` uses it too.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from numpy.typing import NDArray
from scipy import stats

from core import sensitivity as sens
from core.designs.cluster_windows import ClusterIndex, ClusterWindows, draw_cluster_sets

# A p-value below this fails a goodness-of-fit test; the seeds are fixed, so a pass is stable.
P_MIN = 1e-4


# ---------------------------------------------------------------------------------------
# Populations and the reference
# ---------------------------------------------------------------------------------------


def _population(
    rng: np.random.Generator,
    N: int,
    k: int,
    *,
    ties: bool = False,
    at_bounds: bool = False,
    lower: float = 0.0,
    upper: float = 100.0,
) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
    """Sorted values and the cluster of each record: heterogeneous cluster sizes (a
    Dirichlet share per cluster, every cluster at least one record) and a cluster effect
    on the values, so that clusters differ and their values interleave."""
    share = rng.dirichlet(np.full(k, 0.7))
    codes = np.concatenate((np.arange(k), rng.choice(k, N - k, p=share)))
    effect = rng.normal(0.0, 8.0, k)
    values = np.clip(50.0 + effect[codes] + rng.normal(0.0, 10.0, N), lower, upper)
    if ties:
        values = np.round(values / 5.0) * 5.0  # ties within and across clusters
    if at_bounds:
        values[rng.random(N) < 0.15] = lower
        values[rng.random(N) < 0.15] = upper
    order = np.argsort(values, kind="stable")
    return values[order], codes[order].astype(np.int64)


def _whole(codes: NDArray[np.int64], clusters: NDArray[np.int64]) -> NDArray[np.int64]:
    """Reference: positions of every record of the drawn clusters, ascending (whole sample)."""
    return np.flatnonzero(np.isin(codes, clusters))


def window_draws(
    source: ClusterWindows,
    values: NDArray[np.float64],
    k: NDArray[np.int64],
    betas: list[float],
    lower: float,
    upper: float,
    half: int = 32,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The statistic of rank ``k[r]`` and its smooth sensitivity at each beta, per sample.

    The loop of ``core.windowed.quantile._draw_chunk`` on any source with the ``SampleWindows``
    surface: reveal ranks ``k - h .. k + h``, take the known run around ``k`` as the
    window, certify ``S`` through the source's blocks, double ``h`` where it fails.
    """
    n = source.sizes
    reps = source.reps
    statistic = np.empty(reps)
    sensitivity = np.empty((len(betas), reps))
    todo = np.arange(reps)
    half_of = np.full(reps, half if betas else 0, dtype=np.int64)
    while True:
        source.ensure(k - half_of, k + half_of)
        kt = k[todo]
        first, last, blocks = source.outside(todo, kt, values)
        width = int((last - first).max()) + 1
        pos = source.positions(first, width, todo)
        cells = np.where(pos >= 0, values[np.maximum(pos, 0)], np.nan)
        statistic[todo] = cells[np.arange(todo.size), kt - first]
        ok = np.ones(todo.size, dtype=bool)
        for j, beta in enumerate(betas):
            s, good = sens.smooth_sensitivity_window_batch(
                cells, first, last - first + 1, n[todo], kt, beta, lower, upper, blocks=blocks
            )
            sensitivity[j, todo] = s
            ok &= good
        if ok.all():
            return statistic, sensitivity
        todo = todo[~ok]
        half_of[todo] = np.maximum(2 * half_of[todo], 1)


def _ranks(n: NDArray[np.int64], q: float) -> NDArray[np.int64]:
    return np.array([sens.quantile_rank(int(m), q) for m in n], dtype=np.int64)


# ---------------------------------------------------------------------------------------
# The index and the draw of the cluster sets
# ---------------------------------------------------------------------------------------


def test_index_lists_each_clusters_records_in_order() -> None:
    rng = np.random.default_rng(1)
    _, codes = _population(rng, 500, 9)
    ix = ClusterIndex.of(codes)
    assert (ix.N, ix.k) == (500, 9)
    assert np.array_equal(ix.sizes, np.bincount(codes))
    for c in range(9):
        assert np.array_equal(ix.members(c), np.flatnonzero(codes == c))


@pytest.mark.parametrize(
    ("sizes", "ell"),
    [
        ([1, 2, 3, 5, 8], 2),  # k = 5, ℓ = 2: the C(5, 2) = 10 sets
        ([1, 2, 3, 5, 8], 1),
        ([1, 2, 3, 5, 8], 4),  # ℓ = k - 1
        ([4, 1, 1, 6, 2, 3], 3),
    ],
)
def test_drawn_cluster_sets_and_medians_have_their_exact_law(sizes: list[int], ell: int) -> None:
    """Each ℓ-set of clusters has probability 1 / C(k, ℓ); the windowed median's position has
    the law obtained by enumerating the sets and reading each whole sample's median."""
    k = len(sizes)
    codes = np.repeat(np.arange(k), sizes)
    np.random.default_rng(2).shuffle(codes)  # clusters interleave in the sorted population
    ix = ClusterIndex.of(codes)
    reps = 20_000
    w = ClusterWindows.draw(np.random.default_rng(20261124), ix, ell, reps)
    sets = list(combinations(range(k), ell))
    index = {s: i for i, s in enumerate(sets)}
    got = np.array([index[tuple(r)] for r in w.drawn.tolist()])
    counts = np.bincount(got, minlength=len(sets))
    assert stats.chisquare(counts).pvalue > P_MIN
    assert np.array_equal(w.sizes, np.array(sizes)[w.drawn].sum(axis=1))
    # The median's position: exact law by enumeration against the windows' frequencies.
    med = _ranks(w.sizes, 0.5)
    w.ensure(med, med)
    pos = w.positions(med, 1)[:, 0]
    exact = np.zeros(codes.size)
    for s in sets:
        whole = _whole(codes, np.array(s))
        exact[whole[sens.quantile_rank(whole.size, 0.5) - 1]] += 1.0 / len(sets)
    seen = np.bincount(pos, minlength=codes.size)
    support = exact > 0
    assert seen[~support].sum() == 0
    assert stats.chisquare(seen[support], reps * exact[support]).pvalue > P_MIN


def test_draw_cluster_sets_rows_are_distinct_sorted_subsets() -> None:
    d = draw_cluster_sets(np.random.default_rng(3), 480, 432, 50)
    assert d.shape == (50, 432)
    assert (np.diff(d, axis=1) > 0).all() and d.min() >= 0 and d.max() < 480
    whole = draw_cluster_sets(np.random.default_rng(3), 7, 7, 4)
    assert (whole == np.arange(7)).all()  # ℓ = k: every cluster


# ---------------------------------------------------------------------------------------
# Every method against the whole sample, on the same drawn clusters
# ---------------------------------------------------------------------------------------


@settings(max_examples=120, deadline=None)
@given(
    N=st.integers(2, 90),
    k=st.integers(2, 9),
    ell_frac=st.floats(0.0, 1.0),
    seed=st.integers(0, 2**32 - 1),
    ties=st.booleans(),
    at_bounds=st.booleans(),
    steps=st.lists(st.tuples(st.floats(-0.2, 1.2), st.integers(-3, 12)), min_size=1, max_size=4),
)
@example(N=5, k=5, ell_frac=0.0, seed=0, ties=True, at_bounds=True, steps=[(0.5, 0)])  # ℓ = 1
@example(N=30, k=5, ell_frac=0.99, seed=1, ties=True, at_bounds=False, steps=[(0.5, 0), (0.1, 2)])
def test_every_method_matches_the_whole_sample(
    N: int,
    k: int,
    ell_frac: float,
    seed: int,
    ties: bool,
    at_bounds: bool,
    steps: list[tuple[float, int]],
) -> None:
    k = min(k, N)
    ell = 1 + min(k - 1, int(ell_frac * k))  # 1 .. k
    rng = np.random.default_rng(seed)
    lo, hi = -5.0, 105.0
    values, codes = _population(rng, N, k, ties=ties, at_bounds=at_bounds, lower=lo, upper=hi)
    ix = ClusterIndex.of(codes)
    reps = 5
    w = ClusterWindows.draw(rng, ix, ell, reps)
    wholes = [_whole(codes, w.drawn[r]) for r in range(reps)]
    n = np.array([x.size for x in wholes])
    assert np.array_equal(w.sizes, n)
    assert w.reps == reps and w.N == N
    # A sequence of windows per sample (also partly or wholly outside 1..n).
    known = np.zeros((reps, int(n.max()) + 2), dtype=bool)  # ranks 0 .. n + 1
    for centre, half in steps:
        mid = np.round(centre * n).astype(np.int64)
        first, last = mid - half, mid + half
        w.ensure(first, last)
        for r in range(reps):
            a, b = max(first[r], 1), min(last[r], n[r])
            if a <= b:
                run = np.flatnonzero(known[r])
                lo_r = min(a, run.min()) if run.size else a
                hi_r = max(b, run.max()) if run.size else b
                known[r, lo_r : hi_r + 1] = True  # the smallest run covering both
    # positions: any columns, any subset of samples, in any order.
    which = rng.permutation(reps)[: rng.integers(1, reps + 1)]
    start = rng.integers(-3, int(n.max()) + 2, which.size)
    width = int(rng.integers(0, int(n.max()) + 6))
    pos = w.positions(start, width, which)
    assert pos.shape == (which.size, width)
    for i, r in enumerate(which):
        for c in range(width):
            rank = start[i] + c
            inside = 1 <= rank <= n[r] and known[r, rank]
            assert pos[i, c] == (wholes[r][rank - 1] if inside else -1)
    # outside: the run and blocks, for the samples with a known rank.
    has = np.flatnonzero(known.any(axis=1))
    if not has.size:
        return
    kk = np.array([rng.choice(np.flatnonzero(known[r])) for r in has])
    first, last, (off, b_first, b_last, b_low, b_high) = w.outside(has, kk, values)
    for i, r in enumerate(has):
        run = np.flatnonzero(known[r])
        assert (first[i], last[i]) == (run.min(), run.max())
        blocks = range(off[i], off[i + 1])
        covered = [np.arange(b_first[t], b_last[t] + 1) for t in blocks]
        ranks = np.sort(np.concatenate([*covered, np.arange(first[i], last[i] + 1)]))
        assert np.array_equal(ranks, np.arange(1, n[r] + 1))  # every rank exactly once
        y = values[wholes[r]]
        for t in blocks:
            assert b_last[t] < first[i] or b_first[t] > last[i]
            assert b_low[t] == y[b_first[t] - 1] and b_high[t] == y[b_last[t] - 1]
    # The whole sample, revealed at last, is the reference.
    w.ensure(np.ones(reps, dtype=np.int64), n)
    every = w.positions(np.ones(reps, dtype=np.int64), int(n.max()))
    for r in range(reps):
        assert np.array_equal(every[r, : n[r]], wholes[r])
        assert (every[r, n[r] :] == -1).all()


def test_inputs_are_checked() -> None:
    with pytest.raises(ValueError, match="at least one record"):
        ClusterIndex.of([0, 2, 2])
    with pytest.raises(ValueError, match="whole numbers"):
        ClusterIndex.of([0.0, 1.0])
    with pytest.raises(ValueError, match=">= 0"):
        ClusterIndex.of([-1, 0])
    ix = ClusterIndex.of([0, 1, 1, 2])
    with pytest.raises(ValueError, match="distinct"):
        ClusterWindows(ix, [[1, 1]])
    with pytest.raises(ValueError, match=r"\[0, k = 3\)"):
        ClusterWindows(ix, [[0, 3]])
    with pytest.raises(ValueError, match="clusters_sampled"):
        ClusterWindows.draw(np.random.default_rng(0), ix, 4, 2)
    w = ClusterWindows(ix, [[0, 2]])
    with pytest.raises(ValueError, match="known rank"):
        w.outside(np.array([0]), np.array([1]), np.arange(4.0))


# ---------------------------------------------------------------------------------------
# The certificate: blocks from the clusters certify the whole sample's smooth sensitivity
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("shape", ["steps", "district"])
@pytest.mark.parametrize("beta", [0.001, 0.05, 1.0])
@pytest.mark.parametrize(("ell", "q"), [(1, 0.5), (4, 0.3), (19, 0.9)])
def test_blocks_certify_the_whole_samples_sensitivity(
    shape: str, beta: float, ell: int, q: float
) -> None:
    """Random windows around the quantile's rank: ``S`` from the window and the blocks is
    never above the whole sample's, and equals it wherever it is certified.

    "steps": runs of ties with jumps between them, so the largest pair often reaches far
    outside a narrow window (a block whose value range is too narrow is caught)."""
    rng = np.random.default_rng(ell * 1000 + int(beta * 1000) + len(shape))
    lo, hi = -10.0, 250.0
    N, k = 2_000, 20
    if shape == "steps":
        levels = np.array([0.0, 1.0, 40.0, 41.0, 41.5, 90.0, 200.0])
        values = np.sort(rng.choice(levels, N, p=[0.1, 0.15, 0.2, 0.1, 0.15, 0.2, 0.1]))
        codes = rng.integers(0, k, N)
        codes[:k] = np.arange(k)
    else:
        values, codes = _population(rng, N, k, ties=True, lower=lo, upper=hi)
    ix = ClusterIndex.of(codes)
    reps = 40
    w = ClusterWindows.draw(rng, ix, ell, reps)
    kq = _ranks(w.sizes, q)
    below = rng.integers(0, 40, reps)
    above = rng.integers(0, 40, reps)
    below[-4:] = above[-4:] = w.sizes[-4:]
    w.ensure(kq - below, kq + above)
    rows = np.arange(reps)
    first, last, blocks = w.outside(rows, kq, values)
    width = int((last - first).max()) + 1
    cells = np.where(
        (pos := w.positions(first, width, rows)) >= 0, values[np.maximum(pos, 0)], np.nan
    )
    s, ok = sens.smooth_sensitivity_window_batch(
        cells, first, last - first + 1, w.sizes, kq, beta, lo, hi, blocks=blocks
    )
    for r in range(reps):
        y = values[_whole(codes, w.drawn[r])]
        full = sens.smooth_sensitivity_beta_batch(y[None, :], beta, lo, hi, quantile=q)[0]
        assert s[r] <= full * (1 + 1e-12)
        if ok[r]:
            assert s[r] == pytest.approx(full, rel=1e-12, abs=0)
    assert ok[-4:].all()  # the last windows hold the whole sample: nothing to bound


@pytest.mark.parametrize(("ell", "q", "half"), [(1, 0.5, 0), (7, 0.5, 2), (59, 0.9, 32)])
def test_window_loop_gives_each_samples_own_statistic_and_sensitivity(
    ell: int, q: float, half: int
) -> None:
    """The certify-and-widen loop on cluster windows: per sample, exactly the whole sample's
    order statistic and smooth sensitivity (the same drawn clusters)."""
    rng = np.random.default_rng(ell + half)
    lo, hi = 0.0, 100.0
    values, codes = _population(rng, 20_000, 60, ties=True, at_bounds=True, lower=lo, upper=hi)
    ix = ClusterIndex.of(codes)
    w = ClusterWindows.draw(rng, ix, ell, 60)
    kq = _ranks(w.sizes, q)
    betas = [0.002, 0.1, 3.0]
    stat, S = window_draws(w, values, kq, betas, lo, hi, half=half)
    for r in range(w.reps):
        y = values[_whole(codes, w.drawn[r])]
        assert stat[r] == y[kq[r] - 1]
        for j, beta in enumerate(betas):
            full = sens.smooth_sensitivity_beta_batch(y[None, :], beta, lo, hi, quantile=q)[0]
            assert S[j, r] == pytest.approx(full, rel=1e-12, abs=0)


def test_windowed_median_matches_whole_samples_at_a_million_records() -> None:
    """N = 10^6 in 400 clusters of unequal sizes, ℓ = 3: the windowed median and its smooth
    sensitivity against whole samples drawn independently (two-sample KS)."""
    rng = np.random.default_rng(8)
    lo, hi = 0.0, 100.0
    N, k, ell, reps = 10**6, 400, 3, 1_000
    values, codes = _population(rng, N, k, lower=lo, upper=hi)
    beta = 0.01
    ix = ClusterIndex.of(codes)
    w = ClusterWindows.draw(np.random.default_rng(9), ix, ell, reps)
    stat, S = window_draws(w, values, _ranks(w.sizes, 0.5), [beta], lo, hi)
    # Whole samples: ℓ clusters as ClusterSampling.draw picks them, every record of them.
    groups = np.split(np.argsort(codes, kind="stable"), np.cumsum(np.bincount(codes))[:-1])
    draw = np.random.default_rng(10)
    ref_stat, ref_S = np.empty(reps), np.empty(reps)
    for r in range(reps):
        chosen = draw.choice(k, ell, replace=False)
        y = np.sort(values[np.concatenate([groups[c] for c in chosen])])
        ref_stat[r] = y[sens.quantile_rank(y.size, 0.5) - 1]
        ref_S[r] = sens.smooth_sensitivity_beta_batch(y[None, :], beta, lo, hi)[0]
    assert stats.ks_2samp(stat, ref_stat).pvalue > P_MIN
    assert stats.ks_2samp(S[0], ref_S).pvalue > P_MIN


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_run_windows_read_the_same_samples_as_runs(seed: int) -> None:
    """ClusterRunWindows and ClusterWindows on the same drawn clusters: the same runs over
    the same ranks (no randomness after the draw; the run windows reach out to whole runs),
    and the same statistic and S from the draw loop."""
    from core.designs.cluster_windows import ClusterRunWindows
    from core.windowed import window_quantile_draws
    from core.windowed.runs import RunView, ValueRuns, run_view

    rng = np.random.default_rng(seed)
    values, codes = _population(rng, 20_000, 40, ties=True, at_bounds=seed == 2)
    index = ClusterIndex.of(codes)
    drawn = draw_cluster_sets(rng, index.k, 6, 50)
    runs = ValueRuns.of(values)
    plain, tied = ClusterWindows(index, drawn), ClusterRunWindows(index, drawn, runs)
    table = index.run_table(runs)
    assert table is not None
    tabled = ClusterRunWindows(index, drawn, runs, table)
    k = _ranks(plain.sizes, 0.5)
    which = np.arange(plain.reps)
    edges = 0
    for half in (0, 3, 200, 5_000):
        tied.ensure(k - half, k + half)
        got, blocks = run_view(tied, which, k, values)
        # The run table reads every boundary by a lookup: the same runs, the same blocks.
        tabled.ensure(k - half, k + half)
        fast, fast_blocks = run_view(tabled, which, k, values)
        ours, theirs = (fast.value, fast.first, fast.last), (got.value, got.first, got.last)
        assert all(np.array_equal(x, y, equal_nan=True) for x, y in zip(ours, theirs, strict=True))
        assert all(np.array_equal(x, y) for x, y in zip(fast_blocks, blocks, strict=True))
        first, last = got.first[:, 0], got.last[which, got.count - 1]
        assert (first <= np.maximum(k - half, 1)).all() and (
            last >= np.minimum(k + half, plain.sizes)
        ).all()
        plain.ensure(first, last)
        ref, ref_blocks = run_view(plain, which, k, values)
        # Whole runs: the ranks just outside hold other values.
        probe = ClusterWindows(index, drawn)
        probe.ensure(first - 1, last + 1)
        below, above = probe.positions(first - 1, 1)[:, 0], probe.positions(last + 1, 1)[:, 0]
        edges += int((below >= 0).sum() + (above >= 0).sum())
        assert (values[below[below >= 0]] < got.value[below >= 0, 0]).all()
        top = got.value[which, got.count - 1]
        assert (values[above[above >= 0]] > top[above >= 0]).all()
        assert isinstance(ref, RunView) and got.count.tolist() == ref.count.tolist()
        pairs = zip((got.value, got.first, got.last), (ref.value, ref.first, ref.last), strict=True)
        assert all(np.array_equal(x, y, equal_nan=True) for x, y in pairs)
        assert all(np.array_equal(x, y) for x, y in zip(blocks, ref_blocks, strict=True))
    assert edges > 0
    sizes = plain.sizes
    kw = dict(sorted_values=values, sizes=sizes, quantile=0.5, betas=[0.01, 1.0], lower=0.0)
    a = window_quantile_draws(
        rng, **kw, upper=100.0, source=lambda g, rows: ClusterWindows(index, drawn[rows])
    )
    b = window_quantile_draws(
        rng, **kw, upper=100.0, source=lambda g, rows: ClusterRunWindows(index, drawn[rows], runs)
    )
    assert np.array_equal(a[0], b[0])
    assert b[1] == pytest.approx(a[1], rel=1e-9, abs=1e-300)


def test_run_table_counts_each_clusters_records_before_each_run() -> None:
    """Entry (c, d) of the table is a plain count of cluster c's records below run d's start;
    a table over the cell budget is not built."""
    import core.windowed.runs as runs_mod
    from core.windowed.runs import ValueRuns

    rng = np.random.default_rng(7)
    values, codes = _population(rng, 3_000, 12, ties=True, at_bounds=True)
    index, runs = ClusterIndex.of(codes), ValueRuns.of(values)
    table = index.run_table(runs)
    assert table is not None and table.shape == (index.k, runs.D + 1)
    brute = np.array([[int(np.sum(codes[:s] == c)) for s in runs.starts] for c in range(index.k)])
    assert np.array_equal(table, brute)
    old = runs_mod.GROUP_TABLE_CELLS
    try:
        runs_mod.GROUP_TABLE_CELLS = index.k * (runs.D + 1) - 1
        assert index.run_table(runs) is None
    finally:
        runs_mod.GROUP_TABLE_CELLS = old
