"""ui.clusters.cache at scale (issue 15 §4): cluster sizes counted from the population's label
codes equal :func:`core.clusters.cluster_sizes` of the labels (the slow reference) exactly."""

from __future__ import annotations

import numpy as np
import pytest

from core import clusters as cl
from core.populations import Population, make_builtin
from ui.clusters import cache


def _pop(clusters: object, n: int) -> Population:
    return Population(
        name="c", values=np.arange(n, dtype=float), lower=0.0, upper=float(n), clusters=clusters
    )


def _cases() -> list[Population]:
    rng = np.random.default_rng(5)
    n = 5_000
    return [
        make_builtin("establishments", seed=1, size=40_000),
        _pop(rng.integers(-50, 50, n), n),
        _pop(rng.integers(0, 300, n).astype(np.uint16), n),
        _pop(rng.integers(1, 30, n).astype(str), n),
        _pop([f"{i % 3} / {i % 17}" for i in range(n)], n),
    ]


@pytest.mark.parametrize("pop", _cases(), ids=lambda p: str(p.clusters[:2].tolist()))
def test_population_cluster_sizes_equal_core_cluster_sizes(pop):
    got = cache.population_cluster_sizes.__wrapped__(pop.content_hash, pop)
    expected = cl.cluster_sizes(pop.clusters)
    assert got.labels.dtype == expected.labels.dtype
    assert got.labels.tolist() == expected.labels.tolist()
    assert got.sizes.dtype == expected.sizes.dtype
    np.testing.assert_array_equal(got.sizes, expected.sizes)


def test_shared_cluster_note_is_cached_core_note():
    from core.populations import cluster_strata_note

    pop = make_builtin("establishments", seed=0, size=20_000)
    assert cache.shared_cluster_note.__wrapped__(pop.content_hash, pop) == cluster_strata_note(pop)
    assert cluster_strata_note(pop)  # regions cut across size classes
