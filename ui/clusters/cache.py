"""Cached computations behind the Cluster sampling page, keyed by the population's hash.

Like :mod:`ui.gains.cache`, no cached call takes the population's arrays as a key: each takes
``content_hash`` (our SHA-256 of the population) and the population as an unhashed ``_pop``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from core import clusters as cl
from core.populations import Population, cluster_strata_note


@st.cache_data(max_entries=16, show_spinner=False)
def population_cluster_sizes(content_hash: str, _pop: Population) -> cl.ClusterSizes | None:
    """Cluster labels and sizes of the population (``None`` without a cluster column).

    Equal to :func:`core.clusters.cluster_sizes` of the labels (sorted labels, records per
    label), counted with ``numpy.bincount`` over the population's label codes: only the K
    distinct labels are sorted, never the N records.
    """
    factorised = _pop.label_codes("clusters")
    if factorised is None:
        return None
    codes, uniques = factorised
    counts = np.bincount(codes, minlength=len(uniques)).astype(np.int64)
    if uniques.dtype.kind == "O":
        rank, labels = pd.factorize(pd.Series(uniques), sort=True)
        sizes = np.zeros(len(labels), dtype=np.int64)
        np.add.at(sizes, rank, counts)
        return cl.ClusterSizes(np.asarray(labels, dtype=object), sizes)
    order = np.argsort(uniques, kind="stable")
    return cl.ClusterSizes(uniques[order].copy(), counts[order])


@st.cache_data(max_entries=16, show_spinner=False)
def shared_cluster_note(content_hash: str, _pop: Population) -> str | None:
    """:func:`core.populations.cluster_strata_note` of ``_pop``, cached by its content hash."""
    return cluster_strata_note(_pop)


@st.cache_data(max_entries=32, show_spinner=False)
def population_bounds(
    content_hash: str, _pop: Population, eps: float, clusters_sampled: int
) -> pd.DataFrame:
    """Per-cluster bounds (Theorems 5.1/5.2, §6.2 PPS) for the population, largest first."""
    sizes = population_cluster_sizes(content_hash, _pop)
    assert sizes is not None and sizes.sizes.size >= 2
    frame = cl.per_cluster_bounds(eps, sizes.sizes, clusters_sampled, labels=sizes.labels)
    frame["cluster"] = frame["cluster"].astype(str)
    return frame.sort_values(["size", "cluster"], ascending=[False, True], ignore_index=True)


@st.cache_data(max_entries=16, show_spinner=False)
def positive_values(content_hash: str, _pop: Population) -> bool:
    """Whether the population's values can serve as PPS size measures (≥ 0, some > 0)."""
    values = _pop.values
    return bool(values[0] >= 0 and values[-1] > 0)
