"""Counts per run of cluster samples: the direct sums and the matrix product agree."""

from __future__ import annotations

import numpy as np
import pytest

from core.designs.cluster_windows import ClusterIndex, draw_cluster_sets
from core.windowed.run_counts import cluster_run_counts, counts_of_drawn
from core.windowed.runs import ValueRuns


@pytest.mark.parametrize("drawn_per_sample", [1, 3, 8, 9, 20])
def test_counts_of_drawn_are_the_drawn_clusters_records(drawn_per_sample: int) -> None:
    rng = np.random.default_rng(drawn_per_sample)
    values = np.sort(rng.integers(0, 40, 3_000).astype(np.float64))
    codes = rng.integers(0, 30, values.size)
    index, runs = ClusterIndex.of(codes), ValueRuns.of(values)
    table = index.run_table(runs)
    assert table is not None
    drawn = draw_cluster_sets(rng, index.k, drawn_per_sample, 25)
    counts = counts_of_drawn(np.diff(table, axis=1), drawn)
    np.testing.assert_array_equal(counts, cluster_run_counts(table, drawn))
    for r in range(drawn.shape[0]):
        inside = np.isin(codes, drawn[r])
        brute = np.bincount(np.searchsorted(runs.values, values[inside]), minlength=runs.D)
        assert counts[r].tolist() == brute.tolist()
