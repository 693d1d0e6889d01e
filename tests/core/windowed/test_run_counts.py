"""Cluster samples as counts per run (core.windowed.run_counts) read the whole sample.

Checked by plain counting of the drawn clusters' records, by reading every window of fixed
counts against the explicit sorted sample (the runs, the blocks that cover the other ranks,
the order statistic and its smooth sensitivity), and by the cluster design's Monte Carlo
on a tied population against whole cluster samples (KS).
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from core import sensitivity as sens
from core.windowed import window_quantile_draws
from core.windowed.run_counts import RunCounts, cluster_run_counts
from core.windowed.runs import ValueRuns

P_MIN = 1e-4
TINY = np.array([1.0, 1.0, 2.0, 2.0, 2.0, 3.0, 5.0, 5.0, 5.0])


def test_cluster_counts_are_the_drawn_clusters_records() -> None:
    from core.designs.cluster_windows import ClusterIndex, draw_cluster_sets

    rng = np.random.default_rng(4)
    values = np.sort(rng.integers(0, 30, 2_000).astype(np.float64))
    codes = rng.integers(0, 25, values.size)
    index, runs = ClusterIndex.of(codes), ValueRuns.of(values)
    table = index.run_table(runs)
    assert table is not None
    drawn = draw_cluster_sets(rng, index.k, 7, 40)
    counts = cluster_run_counts(table, drawn)
    for r in range(drawn.shape[0]):
        inside = np.isin(codes, drawn[r])
        brute = np.bincount(np.searchsorted(runs.values, values[inside]), minlength=runs.D)
        assert counts[r].tolist() == brute.tolist()


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_every_window_reads_the_explicit_sample(seed: int) -> None:
    """Fixed counts, windows widened in steps: the known runs are the sample's runs over
    the known ranks; the blocks cover every other rank once, in order, each value range
    holding its sampled values; the order statistic and S equal the whole sample's."""
    rng = np.random.default_rng(seed)
    values = np.sort(np.round(rng.lognormal(3.0, 1.0, 30_000)))
    values = np.minimum(values, 1_000.0)
    runs = ValueRuns.of(values)
    reps = 30
    counts = np.stack(
        [
            rng.multivariate_hypergeometric(np.diff(runs.starts), int(n))
            for n in rng.integers(1, 5_000, reps)
        ]
    )
    w = RunCounts(runs, counts)
    rows = np.arange(reps)
    k = np.maximum(w.sizes // 2, 1)
    for half in (0, 3, 40, 10_000):
        w.ensure(k - half, k + half)
        view, (offsets, b_first, b_last, low, high) = w.window_runs(rows, k, values)
        for r in rows:
            sample = np.repeat(runs.values, counts[r])
            c = view.count[r]
            f, la = view.first[r, :c], view.last[r, :c]
            assert f[0] <= max(k[r] - half, 1) and la[-1] >= min(k[r] + half, sample.size)
            assert (f[1:] == la[:-1] + 1).all()
            for j in range(c):
                assert (sample[f[j] - 1 : la[j]] == view.value[r, j]).all()
            assert f[0] == 1 or sample[f[0] - 2] < view.value[r, 0]
            assert la[-1] == sample.size or sample[la[-1]] > view.value[r, c - 1]
            got = list(range(offsets[r], offsets[r + 1]))
            covered = [i for g in got for i in range(b_first[g], b_last[g] + 1)]
            outside = [i for i in range(1, sample.size + 1) if not f[0] <= i <= la[-1]]
            assert covered == outside
            for g in got:
                part = sample[b_first[g] - 1 : b_last[g]]
                assert low[g] <= part.min() and part.max() <= high[g]
    betas = [0.01, 0.5]
    stat, S = window_quantile_draws(
        np.random.default_rng(9), values, w.sizes, 0.5, betas, 0.0, 1_000.0,
        source=lambda g, r: RunCounts(runs, counts[r]),
    )  # fmt: skip
    for r in rows:
        sample = np.repeat(runs.values, counts[r])[None, :]
        assert stat[r] == sample[0, sens.quantile_rank(sample.size, 0.5) - 1]
        for j, beta in enumerate(betas):
            ref = sens.smooth_sensitivity_beta_batch(sample, beta, 0.0, 1_000.0)[0]
            assert S[j, r] == pytest.approx(ref, rel=1e-9, abs=1e-300)


def test_bad_counts_and_unknown_ranks_are_refused() -> None:
    runs = ValueRuns.of(TINY)
    with pytest.raises(ValueError, match="shape"):
        RunCounts(runs, np.ones((2, 3)))
    with pytest.raises(ValueError, match="run length"):
        RunCounts(runs, np.array([[3, 0, 0, 0]]))
    with pytest.raises(ValueError, match="at least one"):
        RunCounts(runs, np.zeros((1, 4)))
    w = RunCounts(runs, np.array([[1, 2, 0, 1]]))
    with pytest.raises(ValueError, match="known rank"):
        w.outside(np.array([0]), np.array([2]), TINY)
    with pytest.raises(TypeError, match="window_runs"):
        w.positions(np.array([1]), 1)


def test_cluster_design_on_a_tied_population_matches_whole_cluster_samples() -> None:
    """The planner's cluster design reads tied samples as counts per run: its median and
    smooth sensitivity against whole cluster samples drawn independently (KS)."""
    from core.designs.cluster import ClusterDesign
    from core.designs.frame import Frame

    rng = np.random.default_rng(12)
    N, k = 60_000, 40
    values = np.sort(np.round(rng.lognormal(2.0, 0.8, N)))
    codes = rng.integers(0, k, N)
    frame = Frame(values, 0.0, 500.0, None, None, codes, np.bincount(codes, minlength=k))
    design = ClusterDesign()
    point = design.point(frame, 0.2)
    assert point is not None
    draw = design.window_draw(frame, point, 400, np.random.default_rng(1))
    assert isinstance(draw.source(np.random.default_rng(2), np.arange(3)), RunCounts)
    stat, S = window_quantile_draws(
        np.random.default_rng(3), values, draw.sizes, 0.5, [0.05], 0.0, 500.0, source=draw.source
    )
    ref_stat, ref_S = [], []
    ell = round(point.size)
    for _ in range(400):
        chosen = rng.choice(k, ell, replace=False)
        sample = values[np.isin(codes, chosen)][None, :]
        ref_stat.append(sample[0, sens.quantile_rank(sample.size, 0.5) - 1])
        ref_S.append(sens.smooth_sensitivity_beta_batch(sample, 0.05, 0.0, 500.0)[0])
    assert stats.ks_2samp(stat, ref_stat, method="asymp").pvalue > P_MIN
    assert stats.ks_2samp(S[0], ref_S, method="asymp").pvalue > P_MIN
