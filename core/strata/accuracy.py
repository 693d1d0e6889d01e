"""Accuracy of stratified samples: the variance of the weighted mean, and simulations.

:func:`stratified_mean_variance` (the textbook variance with finite-population correction),
:func:`randomized_proportional_variance`, :func:`srs_mean_variance`, and the draws of
:func:`stratified_sample` and :func:`simulate_weighted_means` (Bun et al. 2022, section 7).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike

from .._validation import FloatArray, check_whole
from ..strata.allocation import _randomized_parts
from ..strata.checks import (
    IntArray,
    _check_allocation,
    _float_vector,
    _generator,
    _int_vector,
    _rate,
)
from ..strata.summary import StratumSummary

__all__ = [
    "randomized_proportional_variance",
    "simulate_weighted_means",
    "srs_mean_variance",
    "stratified_mean_variance",
    "stratified_sample",
]


def stratified_mean_variance(sizes: ArrayLike, sds: ArrayLike, allocation: ArrayLike) -> float:
    """Variance of the weighted (stratified) mean under a fixed allocation.

    The estimator of Bun et al. section 7.2,
    ``θ(S) = (1/N) Σ_i N_i · (mean of the m_i records drawn from stratum i)``, is unbiased for
    the population mean; with simple random sampling without replacement inside each
    stratum its variance is (Cochran, Sampling Techniques, Theorem 5.3)::

        Var(θ) = Σ_i (N_i / N)² · (1 - m_i / N_i) · σ_i² / m_i

    with ``σ_i²`` the stratum variance with divisor ``N_i - 1`` (:func:`stratum_summary`)
    and ``(1 - m_i / N_i)`` the finite-population correction. A stratum taken whole adds 0.
    A stratum with spread (``σ_i > 0``) and no record makes the estimator undefined: the
    result is ``inf``. A stratum with ``σ_i = 0`` and no record adds 0.

    Parameters
    ----------
    sizes, sds : array_like
        ``N_i >= 1`` and ``σ_i >= 0``.
    allocation : array_like of int
        ``m_i`` with ``0 <= m_i <= N_i``.

    Returns
    -------
    float
    """
    n = _int_vector("sizes", sizes, minimum=1)
    s = _float_vector("sds", sds, n.size)
    alloc = _check_allocation(n, allocation)
    return _variance(n, s, alloc.astype(np.float64))


def _variance(
    n: IntArray, s: FloatArray, inv_terms: FloatArray, *, expected: bool = False
) -> float:
    """Σ W_i² σ_i² (1/m_i - 1/N_i); ``inv_terms`` is m_i, or E[1/m_i] when ``expected``."""
    nf = n.astype(np.float64)
    w2 = (nf / nf.sum()) ** 2
    s2 = s * s
    if expected:
        fpc = inv_terms - 1.0 / nf
    else:
        m = inv_terms
        with np.errstate(divide="ignore", invalid="ignore"):
            fpc = (nf - m) / (m * nf)
        fpc = np.where(m > 0, fpc, np.inf)
    spread = s2 > 0
    return float((w2[spread] * s2[spread] * np.maximum(fpc[spread], 0.0)).sum())


def randomized_proportional_variance(sizes: ArrayLike, sds: ArrayLike, rate: float) -> float:
    """Variance of the weighted mean under proportional allocation with randomised rounding.

    The estimator is unbiased given the allocation, so its variance is the average of
    :func:`stratified_mean_variance` over the rounding::

        Var(θ) = Σ_i (N_i / N)² σ_i² (E[1/m_i] - 1/N_i),
        E[1/m_i] = (1 - p_i) / ⌊r N_i⌋ + p_i / (⌊r N_i⌋ + 1),   p_i = r N_i - ⌊r N_i⌋.

    ``inf`` when a stratum with spread has ``r N_i < 1`` (it may get no record). This is the
    condition ``r |S_j| >= 1`` of Bun et al. Theorem 7.2.
    """
    n = _int_vector("sizes", sizes, minimum=1)
    s = _float_vector("sds", sds, n.size)
    floors, p = _randomized_parts(n, _rate(rate))
    f = floors.astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        low = np.where(f > 0, (1.0 - p) / f, np.where(p < 1.0, np.inf, 0.0))
    inv = low + p / (f + 1.0)
    return _variance(n, s, inv, expected=True)


def srs_mean_variance(population_size: int, variance: float, m: int) -> float:
    """Variance of the mean of a simple random sample of ``m`` out of ``N`` records.

    ``Var = (1 - m / N) · S² / m`` with ``S²`` the population variance (divisor N - 1): the
    unstratified design both allocations are compared with.
    """
    big_n = check_whole("population_size", population_size, 1, 2**53)
    mm = check_whole("m (sample size)", m, 1, big_n)
    s2 = float(variance)
    if not (math.isfinite(s2) and s2 >= 0):
        raise ValueError(f"variance must be a finite number >= 0; got {variance!r}")
    return (1.0 - mm / big_n) * s2 / mm


# --------------------------------------------------------------------------------------------
# Sampling and simulation
# --------------------------------------------------------------------------------------------


def stratified_sample(
    groups: Sequence[IntArray | Sequence[int]],
    allocation: ArrayLike,
    rng: np.random.Generator | int | None,
) -> IntArray:
    """Indices of one stratified sample: ``m_i`` records from stratum i, without replacement.

    Simple random sampling without replacement inside each stratum, independently across
    strata (Bun et al. section 7: one-stage stratified sampling).

    Parameters
    ----------
    groups : sequence of array_like of int
        Record indices of each stratum (:meth:`StratumSummary.groups`).
    allocation : array_like of int
        ``m_i`` per stratum, ``0 <= m_i <= len(groups[i])``.
    rng : numpy.random.Generator or int or None

    Returns
    -------
    numpy.ndarray of int64
        The drawn record indices, stratum by stratum.
    """
    sizes = np.array([len(g) for g in groups], dtype=np.int64)
    alloc = _check_allocation(sizes, allocation)
    gen = _generator(rng)
    parts = [
        np.asarray(g, dtype=np.int64)[gen.choice(len(g), int(k), replace=False, shuffle=False)]
        for g, k in zip(groups, alloc, strict=True)
        if k > 0
    ]
    return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)


# Strata with at most this many distinct values are simulated through the counts of each
# distinct value (a multivariate hypergeometric draw), which is exact and much faster.
_DISTINCT_FOR_COUNTS = 64


def simulate_weighted_means(
    values: ArrayLike,
    summary: StratumSummary,
    reps: int,
    rng: np.random.Generator | int | None,
    *,
    allocation: ArrayLike | None = None,
    randomized_rate: float | None = None,
) -> FloatArray:
    """Weighted means of ``reps`` independent stratified samples.

    Either a fixed ``allocation`` or, with ``randomized_rate=r``, proportional allocation
    with randomised rounding redrawn for every sample. Each sample is drawn without
    replacement inside each stratum. For a stratum with few distinct values (at most 64:
    most size classes of the establishment population) the sample sum is drawn through the
    counts of each distinct value, a multivariate hypergeometric draw, which has exactly the
    distribution of the sum of a simple random sample; other strata draw record indices
    with :meth:`numpy.random.Generator.choice`.

    Returns
    -------
    numpy.ndarray of float64
        ``reps`` values of ``θ = Σ_i (N_i/N) · (stratum sample mean)``; ``nan`` for a sample in
        which a stratum got no record.
    """
    v = np.asarray(values, dtype=np.float64)
    if v.shape != summary.codes.shape:
        raise ValueError("values and the stratum summary do not describe the same records")
    reps = check_whole("reps", reps, 1, 10_000_000)
    gen = _generator(rng)
    n = summary.sizes
    if (allocation is None) == (randomized_rate is None):
        raise ValueError("give exactly one of allocation and randomized_rate")
    if allocation is not None:
        counts = np.broadcast_to(_check_allocation(n, allocation), (reps, n.size)).copy()
    else:
        floors, p = _randomized_parts(n, _rate(randomized_rate))
        counts = floors + (gen.random((reps, n.size)) < p)
    weights = n / n.sum()
    theta = np.zeros(reps)
    for i, group in enumerate(summary.groups()):
        k_i = counts[:, i]
        x = v[group]
        distinct, multiplicity = np.unique(x, return_counts=True)
        sums = np.zeros(reps)
        if distinct.size <= _DISTINCT_FOR_COUNTS:
            for k in np.unique(k_i):
                rows = np.flatnonzero(k_i == k)
                if k == 0:
                    continue
                draws = gen.multivariate_hypergeometric(
                    multiplicity, int(k), size=rows.size, method="marginals"
                )
                sums[rows] = (draws * distinct).sum(axis=1)
        else:
            for row in range(reps):
                k = int(k_i[row])
                if k:
                    sums[row] = x[gen.choice(x.size, k, replace=False, shuffle=False)].sum()
        with np.errstate(divide="ignore", invalid="ignore"):
            theta += weights[i] * np.where(k_i > 0, sums / k_i, np.nan)
    return theta
