"""Tests for core.clusters.sizes: a population's own clusters and their bounds."""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import given
from hypothesis import strategies as st

from core import clusters as cl
from tests.core.clusters.references import FAST


@FAST
@given(
    eps=st.floats(1e-3, 10.0),
    sizes=st.lists(st.integers(1, 500), min_size=2, max_size=40),
    frac=st.floats(0, 1),
)
def test_per_cluster_bounds_use_the_other_clusters(eps, sizes, frac) -> None:
    k = len(sizes)
    ell = min(k, max(1, round(frac * k)))
    frame = cl.per_cluster_bounds(eps, sizes, ell)
    for i, row in frame.iterrows():
        others = sizes[:i] + sizes[i + 1 :]
        assert row["smallest other"] == min(others) and row["largest other"] == max(others)
        lower, upper = cl.cluster_eps_bounds(eps, k, ell, sizes[i], min(others), max(others))
        assert row["lower"] == lower and row["upper"] == upper
    a = cl.pps_inclusion_probabilities(sizes, ell)
    np.testing.assert_allclose(frame["pps inclusion"], a)
    np.testing.assert_allclose(frame["pps lower"], cl.inclusion_eps(eps, a))
    assert np.all(frame["srs"] == cl.srs_eps(eps, k, ell))


def test_cluster_sizes_from_labels() -> None:
    labels, sizes = cl.cluster_sizes(np.array(["b", "a", "b", "c", "b"], dtype=object))
    assert list(labels) == ["a", "b", "c"] and list(sizes) == [1, 3, 1]
    labels, sizes = cl.cluster_sizes(np.array([3, 1, 3, 3]))
    assert list(labels) == [1, 3] and list(sizes) == [1, 3]


def test_per_cluster_bounds_on_the_establishments_population() -> None:
    from core.populations import make_builtin

    pop = make_builtin("establishments", seed=0)
    labels, sizes = cl.cluster_sizes(pop.clusters)
    frame = cl.per_cluster_bounds(0.1, sizes, 10, labels=labels)
    assert len(frame) == len(labels) and int(frame["size"].sum()) == pop.size
    assert isinstance(frame, pd.DataFrame)
    assert np.all(frame["lower"] <= frame["upper"])
    # Regions of hundreds of establishments: no amplification left at ε = 0.1.
    big = frame["size"] >= 200
    assert big.any() and np.all(frame.loc[big, "lower"] > 0.0999)
