"""A population's own clusters: their sizes and the bounds each cluster's size gives.

:func:`cluster_sizes` counts the records of each label; :func:`per_cluster_bounds` gives the
bounds of Theorems 5.1 and 5.2 for each cluster of a population with a cluster column
(Bun et al. 2022, §6.2).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

from .._validation import FloatArray, check_count
from ..clusters.inclusion import inclusion_eps, pps_inclusion_probabilities
from ..clusters.single_stage import cluster_eps_bounds, srs_eps

__all__ = [
    "ClusterSizes",
    "cluster_sizes",
    "per_cluster_bounds",
]


class ClusterSizes(NamedTuple):
    """Cluster labels (sorted) and the number of records in each."""

    labels: np.ndarray
    sizes: NDArray[np.int64]


def _other_extremes(values: FloatArray, counts: FloatArray) -> tuple[FloatArray, FloatArray]:
    """For each size class, the smallest and largest size among the *other* clusters."""
    smallest, largest = values[0], values[-1]
    second_smallest = values[0] if counts[0] > 1 else values[min(1, values.size - 1)]
    second_largest = values[-1] if counts[-1] > 1 else values[max(-2, -values.size)]
    n_min = np.where(values == smallest, second_smallest, smallest)
    n_max = np.where(values == largest, second_largest, largest)
    return n_min, n_max


def cluster_sizes(labels: ArrayLike) -> ClusterSizes:
    """Distinct cluster labels (sorted) and the number of records with each."""
    arr = np.asarray(labels)
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError("labels must be a non-empty one-dimensional array")
    if arr.dtype.kind == "O":
        codes, uniques = pd.factorize(pd.Series(arr), sort=True)
        counts = np.bincount(codes, minlength=len(uniques))
        return ClusterSizes(np.asarray(uniques, dtype=object), counts.astype(np.int64))
    uniques, counts = np.unique(arr, return_counts=True)
    return ClusterSizes(uniques, counts.astype(np.int64))


def per_cluster_bounds(
    eps_sample: float,
    sizes: ArrayLike,
    clusters_sampled: int,
    labels: ArrayLike | None = None,
) -> pd.DataFrame:
    """Theorem 5.1/5.2 bounds and the §6.2 PPS bound for a person in each cluster.

    Parameters
    ----------
    eps_sample : float
        ε of the ε-deletion-DP mechanism on the sample.
    sizes : array_like of int
        Records in each of the ``k ≥ 2`` clusters.
    clusters_sampled : int
        ``ℓ``, with ``1 ≤ ℓ ≤ k``.
    labels : array_like, optional
        Cluster names, aligned with ``sizes`` (default ``0 … k − 1``).

    Returns
    -------
    pandas.DataFrame
        One row per cluster, in the order given: ``cluster``, ``size`` (``n_i``),
        ``smallest other`` / ``largest other`` (``n_min`` / ``n_max`` over ``j ≠ i``),
        ``lower`` (Theorem 5.1), ``upper`` (Theorem 5.2), ``srs`` (eq. 3 at ``ℓ/k``),
        ``pps inclusion`` (πps probability of the cluster when ``ℓ`` clusters are drawn with
        probability proportional to size, §6.2) and ``pps lower`` (the §6.1 bound
        ``ln(1 + a_i(e^ε − 1))`` for a record of that cluster).
    """
    if np.ndim(eps_sample) != 0:
        raise ValueError("eps_sample must be a single number here")
    s = check_count("sizes", sizes, 1)
    if s.ndim != 1 or s.size < 2:
        raise ValueError("sizes must list at least two clusters")
    k = s.size
    ell = check_count("clusters_sampled", clusters_sampled, 1)
    if ell > k:
        raise ValueError(f"clusters_sampled must not exceed the {k:,} clusters; got {ell:g}")
    values, counts = np.unique(s, return_counts=True)
    n_min_c, n_max_c = _other_extremes(values, counts.astype(np.float64))
    idx = np.searchsorted(values, s)
    n_min, n_max = n_min_c[idx], n_max_c[idx]
    lower_c, upper_c = cluster_eps_bounds(eps_sample, k, ell, values, n_min_c, n_max_c)
    a = pps_inclusion_probabilities(s, int(ell))
    names = np.arange(k) if labels is None else np.asarray(labels)
    if names.shape != (k,):
        raise ValueError(f"labels must have one entry per cluster ({k:,}); got shape {names.shape}")
    return pd.DataFrame(
        {
            "cluster": names,
            "size": s.astype(np.int64),
            "smallest other": n_min.astype(np.int64),
            "largest other": n_max.astype(np.int64),
            "lower": np.asarray(lower_c)[idx],
            "upper": np.asarray(upper_c)[idx],
            "srs": srs_eps(eps_sample, k, ell),
            "pps inclusion": a,
            "pps lower": inclusion_eps(eps_sample, a),
        }
    )
