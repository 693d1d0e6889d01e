"""ui.planner.cache at scale (issue 15 §4): records per stratum and per cluster counted from the
population's label codes equal ``numpy.unique(labels, return_counts=True)`` (the old code)."""

from __future__ import annotations

import numpy as np
import pytest

from core.populations import Population, make_builtin
from ui.planner import cache


def _pop(strata: object, clusters: object, n: int) -> Population:
    return Population(
        name="p",
        values=np.arange(n, dtype=float),
        lower=0.0,
        upper=float(n),
        strata=strata,
        clusters=clusters,
    )


def _cases() -> list[Population]:
    rng = np.random.default_rng(11)
    n = 4_000
    return [
        make_builtin("establishments", seed=4, size=30_000),
        _pop(rng.integers(-9, 9, n), rng.integers(0, 500, n).astype(np.uint32), n),
        _pop(rng.integers(1, 12, n).astype(str), [f"c{i % 37}" for i in range(n)], n),
    ]


@pytest.mark.parametrize("pop", _cases(), ids=lambda p: str(p.strata[:2].tolist()))
def test_label_counts_equal_numpy_unique(pop):
    for which in ("strata", "clusters"):
        expected = np.unique(getattr(pop, which), return_counts=True)[1]
        got = cache.label_counts.__wrapped__(pop.content_hash, pop, which)
        assert got.dtype == expected.dtype
        np.testing.assert_array_equal(got, expected)
    np.testing.assert_array_equal(
        cache.cluster_sizes(pop), np.unique(pop.clusters, return_counts=True)[1]
    )
    smallest = cache.smallest_stratum.__wrapped__(pop.content_hash, pop)
    assert smallest == int(np.unique(pop.strata, return_counts=True)[1].min())


def test_no_labels_give_none():
    pop = make_builtin("beta", seed=0, size=30)
    assert cache.cluster_sizes(pop) is None
    assert cache.label_counts.__wrapped__(pop.content_hash, pop, "strata") is None
    assert cache.smallest_stratum.__wrapped__(pop.content_hash, pop) is None
