"""Design variances of the design-unbiased estimators of a population total ``Σ y``.

Each design of the planner (:mod:`core.designs`) releases ``w · Σ_S y`` (plus noise, scaled
alike), with the weight ``w = 1/π`` of its inclusion probability ``π``; the estimator is
unbiased, ``E[w Σ_S y] = Σ y``, and its variance has a closed form in the sums of
:class:`core.linear.sums.GroupSums`.  All formulas are standard Horvitz–Thompson algebra
(Särndal, Swensson & Wretman 1992, *Model Assisted Survey Sampling*, ch. 2–4) for the
designs as Bun et al. (2022) define them; each function's docstring derives its formula.
Every function is vectorised over the ``V`` variables of the sums.

==========================  =======  =========================================================
design                       weight   ``Var(w Σ_S y)``
==========================  =======  =========================================================
census                       1        0
SRS, ``n`` of ``N``          ``N/n``  ``N² (1 − n/N) S² / n``
Poisson, rate ``r``          ``1/r``  ``(1 − r)/r · Σ y²``
proportional stratified,     ``1/r``  ``Σ_h [S_h² E[n_h(N_h − n_h)]/N_h + Ȳ_h² p_h(1 − p_h)]/r²``
randomised rounding
``ℓ`` of ``k`` clusters      ``k/ℓ``  ``k² (1 − ℓ/k) S_T² / ℓ``
Poisson clusters, rate r     ``1/r``  ``(1 − r)/r · Σ_c T_c²``
==========================  =======  =========================================================
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from .sums import GroupSums

__all__ = [
    "LinearMoments",
    "census_moments",
    "cluster_moments",
    "poisson_cluster_moments",
    "poisson_moments",
    "srs_moments",
    "stratified_moments",
]

FloatArray = NDArray[np.float64]


@dataclass(frozen=True)
class LinearMoments:
    """A design's estimator of ``Σ y`` at one rate.

    Attributes
    ----------
    variance : ndarray, shape (V,)
        Design variance of ``w Σ_S y`` (it is unbiased: its mean squared error).
    weight : float
        ``w``: the factor the sample's sum, and the noise added to it, are multiplied by.
    n : float
        Expected sample size.
    """

    variance: FloatArray
    weight: float
    n: float


def _spread(total: FloatArray, square: FloatArray, size: float | FloatArray) -> FloatArray:
    """``S² = (Σ y² − (Σ y)²/M)/(M − 1)`` over groups of size ``M`` (0 where ``M ≤ 1``),
    kept non-negative against rounding."""
    m = np.asarray(size, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        s2 = (square - total * total / m) / (m - 1.0)
    return np.asarray(np.where(m > 1.0, np.maximum(s2, 0.0), 0.0), dtype=np.float64)


def census_moments(sums: GroupSums) -> LinearMoments:
    """The census counts every record: no sampling error, weight 1."""
    return LinearMoments(np.zeros(sums.V), 1.0, float(sums.N))


def srs_moments(sums: GroupSums, n: int) -> LinearMoments:
    """Expansion estimator ``(N/n) Σ_S y`` of a simple random sample of ``n`` of ``N``.

    The sample mean of ``n`` draws without replacement has variance ``(1 − n/N) S²/n``
    (``S² = Σ(y − Ȳ)²/(N − 1)``, the finite population correction ``1 − n/N``); times ``N²``.
    """
    N = sums.N
    s2 = _spread(sums.total, sums.square, float(N))
    return LinearMoments(N * N * (1.0 - n / N) * s2 / n, N / n, float(n))


def poisson_moments(sums: GroupSums, rate: float) -> LinearMoments:
    """Horvitz–Thompson ``Σ_S y / r`` of a Poisson sample (each record kept with prob. ``r``).

    ``Σ_S y = Σ_i I_i y_i`` with independent ``I_i ~ Bernoulli(r)``: mean ``r Σ y``, variance
    ``r(1 − r) Σ y²``; divided by ``r²``.
    """
    return LinearMoments((1.0 - rate) / rate * sums.square, 1.0 / rate, rate * sums.N)


def stratified_moments(sums: GroupSums, rate: float) -> LinearMoments:
    """``Σ_S y / r`` of a proportional stratified sample with randomised rounding.

    Stratum ``h`` gets ``n_h = f_h + B_h``, ``f_h = ⌊r N_h⌋``, ``B_h ~ Bernoulli(p_h)``,
    ``p_h = r N_h − f_h``, independently (Bun et al. §4.3), then a simple random sample of
    ``n_h`` of its ``N_h`` records.  So every record is kept with probability
    ``E[n_h]/N_h = r`` and ``Σ_S y / r`` is unbiased (it equals the stratified expansion
    estimator ``Σ_h (N_h/n_h) Σ_{S_h} y`` when every ``r N_h`` is whole).  Given the sizes,
    ``E[Σ_{S_h} y | n_h] = n_h Ȳ_h`` and ``Var(Σ_{S_h} y | n_h) = n_h (N_h − n_h) S_h²/N_h``;
    the law of total variance, summed over independent strata, gives
    ``Σ_h [S_h² E[n_h(N_h − n_h)]/N_h + Ȳ_h² p_h(1 − p_h)]``, with
    ``E[n_h(N_h − n_h)] = (1 − p_h) f_h (N_h − f_h) + p_h (f_h + 1)(N_h − f_h − 1)``;
    divided by ``r²``.  The second term is the price of the rounding.
    """
    if sums.strata_sizes is None or sums.strata_total is None or sums.strata_square is None:
        raise ValueError("a stratified design needs stratum labels")
    size = sums.strata_sizes.astype(np.float64)
    f = np.floor(rate * size)
    p = rate * size - f
    within = (1.0 - p) * f * (size - f) + p * (f + 1.0) * (size - f - 1.0)
    s2 = _spread(sums.strata_total, sums.strata_square, size)
    mean = sums.strata_total / np.maximum(size, 1.0)
    var = (s2 * within / np.maximum(size, 1.0) + mean * mean * p * (1.0 - p)).sum(axis=1)
    return LinearMoments(var / (rate * rate), 1.0 / rate, rate * sums.N)


def cluster_moments(sums: GroupSums, ell: int) -> LinearMoments:
    """``(k/ℓ) Σ_{c ∈ S} T_c`` of a simple random sample of ``ℓ`` of ``k`` clusters.

    The clusters' totals ``T_c`` are the units of a simple random sample of ``ℓ`` of ``k``:
    ``Var = k² (1 − ℓ/k) S_T²/ℓ``, ``S_T² = Σ(T_c − T̄)²/(k − 1)``.
    """
    if sums.cluster_total is None:
        raise ValueError("a cluster design needs cluster labels")
    k = sums.cluster_total.shape[1]
    t = sums.cluster_total
    s2 = _spread(t.sum(axis=1), (t * t).sum(axis=1), float(k))
    n = ell / k * sums.N
    return LinearMoments(k * k * (1.0 - ell / k) * s2 / ell, k / ell, n)


def poisson_cluster_moments(sums: GroupSums, rate: float) -> LinearMoments:
    """``Σ_{c ∈ S} T_c / r`` of clusters each kept with probability ``r``: variance
    ``(1 − r)/r · Σ_c T_c²`` (as :func:`poisson_moments`, clusters as units)."""
    if sums.cluster_total is None:
        raise ValueError("a cluster design needs cluster labels")
    t = sums.cluster_total
    return LinearMoments((1.0 - rate) / rate * (t * t).sum(axis=1), 1.0 / rate, rate * sums.N)
