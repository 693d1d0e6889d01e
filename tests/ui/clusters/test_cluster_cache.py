"""ui.clusters.cache: the population's cluster sizes and per-cluster bounds equal core.clusters.

Break caught (tests/break_checks.py ``cluster-cache-bounds-smallest-first``): the table is
sorted smallest cluster first.
"""

from __future__ import annotations

import numpy as np

from core import clusters as cl
from core.populations import make_builtin
from ui.clusters import cache

POP = make_builtin("establishments", seed=0, size=4000)


def test_population_cluster_sizes_and_bounds_equal_core():
    sizes = cache.population_cluster_sizes(POP.content_hash, POP)
    expected = cl.cluster_sizes(POP.clusters)
    np.testing.assert_array_equal(sizes.sizes, expected.sizes)
    assert sizes.sizes.sum() == POP.size
    labels, counts = np.unique(POP.clusters, return_counts=True)
    assert dict(zip(sizes.labels.tolist(), sizes.sizes.tolist(), strict=True)) == dict(
        zip(labels.tolist(), counts.tolist(), strict=True)
    )
    frame = cache.population_bounds(POP.content_hash, POP, 1.0, 10)
    assert frame["size"].is_monotonic_decreasing
    core_frame = cl.per_cluster_bounds(1.0, expected.sizes, 10, labels=expected.labels)
    core_frame["cluster"] = core_frame["cluster"].astype(str)
    merged = frame.merge(core_frame, on="cluster", suffixes=("", "_core"))
    assert len(merged) == len(frame)
    for column in core_frame.columns.drop("cluster"):
        np.testing.assert_array_equal(merged[column], merged[f"{column}_core"])


def test_no_clusters_and_positive_values():
    beta = make_builtin("beta", seed=0, size=50)
    assert cache.population_cluster_sizes(beta.content_hash, beta) is None
    assert cache.positive_values(POP.content_hash, POP)
    from core.populations import Population

    neg = Population(name="n", values=np.array([-1.0, 2.0]), lower=-2.0, upper=3.0)
    assert not cache.positive_values(neg.content_hash, neg)
