"""The strata of a population: size, mean and standard deviation of each stratum.

:func:`stratum_summary` gives the per-stratum figures that the allocations of
:mod:`core.strata.allocation` take (Bun et al. 2022, section 7).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from .._validation import FloatArray, check_whole
from ..strata.checks import IntArray

__all__ = [
    "StratumSummary",
    "stratum_summary",
]


@dataclass(frozen=True, eq=False)
class StratumSummary:
    """Per-stratum sizes, means and standard deviations of a population.

    Attributes
    ----------
    labels : tuple
        Stratum labels in display order (see :func:`stratum_summary`).
    sizes : numpy.ndarray of int64
        ``N_i``, records per stratum.
    means : numpy.ndarray of float64
        Stratum means.
    sds : numpy.ndarray of float64
        Stratum standard deviations ``σ_i`` (divisor ``N_i - ddof``; 0 when ``N_i <= ddof``).
    codes : numpy.ndarray of int64
        Stratum index of every record, aligned with the values the summary was built from.
    ddof : int
        Delta degrees of freedom used for ``sds``.
    """

    labels: tuple[object, ...]
    sizes: IntArray
    means: FloatArray
    sds: FloatArray
    codes: IntArray
    ddof: int = 1

    @property
    def k(self) -> int:
        """Number of strata."""
        return int(self.sizes.size)

    @property
    def population_size(self) -> int:
        """``N = Σ N_i``."""
        return int(self.sizes.sum())

    def groups(self) -> list[IntArray]:
        """Indices of the records of each stratum (ascending)."""
        order = np.argsort(self.codes, kind="stable")
        bounds = np.cumsum(self.sizes)[:-1]
        return [np.asarray(g, dtype=np.int64) for g in np.split(order, bounds)]


def stratum_summary(values: ArrayLike, strata: ArrayLike, *, ddof: int = 1) -> StratumSummary:
    """Sizes ``N_i``, means and standard deviations ``σ_i`` of each stratum.

    Parameters
    ----------
    values : array_like
        One number per record.
    strata : array_like
        One stratum label per record (integers or text).
    ddof : int, default 1
        Divisor ``N_i - ddof`` of the stratum variance. The default 1 gives Cochran's
        ``S_i²``, for which :func:`stratified_mean_variance` is exact and Neyman allocation is
        exactly optimal. (The paper says "empirical variance"; with ``ddof=0`` the allocations
        change by a factor ``sqrt(N_i / (N_i - 1))`` in the weights, negligible except in tiny
        strata.) A stratum with ``N_i <= ddof`` gets ``σ_i = 0``.

    Returns
    -------
    StratumSummary
        Strata ordered numerically when the labels are numbers or text that reads as numbers
        (``"1", "2", …, "10"``), otherwise in the order
        they first occur in ``values`` -- for a population sorted by value (every
        :class:`core.populations.Population` is) that is the order of the strata's smallest
        values, so size classes come out smallest first.

    Raises
    ------
    ValueError
        If the inputs are empty, not aligned, or a value is not finite.
    """
    v = np.asarray(values, dtype=np.float64)
    labels = np.asarray(strata)
    if v.ndim != 1 or v.size == 0:
        raise ValueError("values must be a non-empty one-dimensional array")
    if labels.shape != v.shape:
        raise ValueError(f"there are {labels.size:,} stratum labels for {v.size:,} values")
    if not np.all(np.isfinite(v)):
        raise ValueError("every value must be a finite number")
    ddof = check_whole("ddof", ddof, 0, 1)
    codes, uniques = pd.factorize(labels, sort=labels.dtype.kind in "iuf")
    if np.any(codes < 0):
        raise ValueError("stratum labels must not be missing")
    codes = codes.astype(np.int64)
    uniques = np.asarray(uniques, dtype=object if labels.dtype.kind not in "iuf" else None)
    if labels.dtype.kind not in "iuf":
        # Labels read from a file are text: "1", "2", …, "10" must sort as numbers, not as
        # "1", "10", "2".
        numeric = pd.to_numeric(pd.Series(uniques), errors="coerce").to_numpy(dtype=float)
        if uniques.size and not np.any(np.isnan(numeric)):
            order = np.argsort(numeric, kind="stable")
            rank = np.empty_like(order)
            rank[order] = np.arange(order.size)
            codes = rank[codes].astype(np.int64)
            uniques = uniques[order]
    k = len(uniques)
    sizes = np.bincount(codes, minlength=k).astype(np.int64)
    means = np.bincount(codes, weights=v, minlength=k) / sizes
    dev2 = np.bincount(codes, weights=(v - means[codes]) ** 2, minlength=k)
    denom = sizes - ddof
    sds = np.sqrt(np.divide(dev2, denom, out=np.zeros(k), where=denom > 0))
    for arr in (sizes, means, sds, codes):
        arr.setflags(write=False)
    return StratumSummary(
        labels=tuple(uniques.tolist()), sizes=sizes, means=means, sds=sds, codes=codes, ddof=ddof
    )
