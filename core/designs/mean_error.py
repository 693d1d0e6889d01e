"""Exact error of a private mean under every sampling design, with no Monte Carlo.

A released mean is ``θ̃ = θ̂ + noise``: ``θ̂`` the sample's statistic, ``noise`` the
mechanism's additive noise, drawn independently of the sample with mean 0 and a variance
that depends on the sample only through its (fixed or expected) size.  Its error about the
population mean ``θ`` splits exactly::

    E[(θ̃ − θ)²] = E[(θ̂ − θ)²] + Var(noise) = (bias² + Var θ̂) + Var(noise).

Every statistic here is linear in the sample, so ``bias`` and ``Var θ̂`` have closed forms
that need only a few sums over the population, computed once in O(N)
(:func:`prepare_mean_population`) and reused for every rate in O(1) (SRS, Poisson), O(H)
(H strata) or O(k) (k clusters).

Statistics and designs
----------------------
``c = (lower + upper) / 2`` is the centre of the public range, ``y_i = x_i − c``,
``a = θ − c``, ``d_i = x_i − θ`` (so ``y_i = d_i + a``), ``S² = Σ d_i² / (N − 1)``.

* Fixed-size means (``"laplace"``, ``"gaussian"``): the sample mean ``θ̂ = Σ_S x_i / n``.
* The noisy centred sum (``"ht_mean"``, :class:`core.mechanisms.HorvitzThompsonMean`):
  ``θ̂ = c + Σ_S y_i / (r N)``, the Horvitz–Thompson estimator with inclusion probability
  ``r`` for every record (an empty sample gives ``c``); under SRS it equals the sample mean.

Every estimator below is unbiased (``bias = 0``); the variances of ``θ̂`` are:

=============================  ============================================================
design                          ``Var θ̂``
=============================  ============================================================
``"census"``                    ``0``
``"srs"`` (``n`` of ``N``)      ``(1 − n/N) S² / n`` (Hu, Drechsler & Kim eq. 7)
``"poisson"`` (rate ``r``)      ``(1 − r) Σ y_i² / (r N²)``
``"stratified_proportional"``   ``Σ_h [W_h E[n_h(N_h − n_h)] / N_h + Ȳ_h² p_h(1 − p_h)]
                                / (r N)²``
``"cluster"`` (``ℓ`` of ``k``)   ``k² (1 − ℓ/k) S_T² / (ℓ N²)``
=============================  ============================================================

Derivations (standard Horvitz–Thompson algebra: Särndal, Swensson & Wretman 1992, *Model
Assisted Survey Sampling*, chapters 2–4; the designs as Bun et al. 2022 define them and the
planner draws them):

* SRS: the sample mean of ``n`` drawn without replacement has variance
  ``(1 − n/N) S² / n``; the factor ``1 − n/N`` is the finite population correction.
* Poisson: ``Σ_S y_i = Σ_i I_i y_i`` with independent ``I_i ~ Bernoulli(r)``, so its mean is
  ``r Σ y_i = r N (θ − c)`` (unbiased) and its variance ``r (1 − r) Σ y_i²``; divide by
  ``(r N)²``.  Note ``Σ y_i² = Σ d_i² + N a²``: the variance grows with the distance of
  the mean from the centre ``c``, because the sample size is random.
* Proportional stratified, randomised rounding (Bun et al. §4.3): stratum ``h`` of size
  ``N_h`` gets ``n_h = f_h + B_h`` records, ``f_h = ⌊r N_h⌋``,
  ``B_h ~ Bernoulli(p_h)``, ``p_h = r N_h − f_h``, independently across strata, then a
  simple random sample of ``n_h`` inside the stratum.  ``E[n_h] = f_h + p_h = r N_h``
  exactly, which is why the estimator is unbiased.  Given the sizes ``n``,
  ``E[Σ_S y | n] = Σ_h n_h Ȳ_h`` and ``Var(Σ_S y | n) = Σ_h n_h (1 − n_h/N_h) S_h²``
  (``Ȳ_h`` the stratum's mean of ``y``, ``S_h² = W_h = Σ_{i∈h} (x_i − x̄_h)² / (N_h − 1)``,
  taken as 0 when ``N_h = 1``, where ``n_h (N_h − n_h) = 0`` anyway).  The law of total
  variance ``Var = E[Var(·|n)] + Var(E[·|n])`` gives
  ``Σ_h S_h² E[n_h (N_h − n_h)] / N_h + Σ_h Ȳ_h² p_h (1 − p_h)``, with
  ``E[n_h (N_h − n_h)] = (1 − p_h) f_h (N_h − f_h) + p_h (f_h + 1)(N_h − f_h − 1)``
  (``= r(1 − r) N_h² − p_h(1 − p_h)``, written as a sum of non-negative terms).  The
  second term is the price of the rounding: it vanishes only when every ``r N_h`` is whole.
* Cluster: ``ℓ`` of ``k`` clusters drawn without replacement, every record of a drawn
  cluster kept, ``π = ℓ/k`` for every record.  With ``Y_j = Σ_{i∈j} y_i`` the cluster totals
  and ``S_T² = Σ_j (Y_j − Ȳ_T)² / (k − 1)`` their variance, ``Σ_S y`` is the sum of a
  simple random sample of ``ℓ`` totals: mean ``ℓ Ȳ_T = r N (θ − c)``, variance
  ``ℓ (1 − ℓ/k) S_T²``; divide by ``(r N)² = (ℓ N / k)²``.  The totals are of ``x − c``,
  so clusters of unequal sizes add variance even when every cluster has the same mean.

Noise (conditional on the sample, exact): Laplace scale ``b`` has variance ``2 b²``
(``"laplace"``: ``b = (R / n) / ε``; ``"ht_mean"``: ``b = (R / 2) / (r N) / ε``); the
analytic Gaussian mechanism (Balle & Wang 2018) has ``σ`` from
:func:`core.mechanisms.analytic_gaussian_sigma` at sensitivity ``R / n``.

The 95 % error bound
--------------------
``x`` with ``P(|θ̃ − θ| ≤ x) = 0.95``.  It is exact when the sampling error is identically
zero (the census and any design that keeps every record: the noise alone, ``b ln 20`` for
Laplace noise, ``1.95996 σ`` for Gaussian noise).  Otherwise the sampling error is a sum
over a finite population, not exactly normal, and it is approximated by
``Normal(bias, Var θ̂)`` convolved with the exact noise law:

* Gaussian noise: ``Normal(bias, Var θ̂ + σ²)``;
* Laplace noise: the normal–Laplace law (Reed 2006), whose tail is closed form
  (:func:`core.designs.normal_laplace.normal_laplace_tail`), computed with the scaled
  complementary error function
  ``erfcx`` so that neither a tiny ``b`` nor a tiny ``σ`` (nor ``σ = 0``, ``b = 0``)
  overflows; ``x`` is found by Brent's method on a bracket.

Each result says which of the two it is (:attr:`MeanError.error_95_method`).

Numerical stability: the mean is computed in two passes with a correction, the sums of
squares about the mean (the corrected two-pass algorithm of Chan, Golub & LeVeque 1983),
per stratum and per cluster as well; no formula subtracts two large sums of squares.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TypeAlias

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .. import amplification as amp
from .. import mechanisms as mech
from .._validation import (
    check_bounds,
    check_choice,
    check_delta_open,
    check_eps,
    check_rate,
    check_vector,
    require,
)
from ..designs.normal_laplace import check_level, error_bound
from . import group_sums

__all__ = [
    "DESIGNS",
    "EXACT",
    "MECHANISMS",
    "NORMAL_APPROXIMATION",
    "GroupSums",
    "MeanError",
    "MeanPopulation",
    "SamplingMoments",
    "mean_errors",
    "mean_noise",
    "prepare_mean_population",
    "sampling_moments",
]

FloatArray: TypeAlias = NDArray[np.float64]
IntArray: TypeAlias = NDArray[np.int64]

#: Designs with a closed-form sampling variance of the mean (the planner's names).
DESIGNS = ("census", "srs", "poisson", "stratified_proportional", "cluster")
#: Mean mechanisms (the names of :data:`core.mechanisms.MECHANISMS`).
MECHANISMS = ("laplace", "gaussian", "ht_mean")
#: Designs whose sample size is fixed: the only ones the fixed-size means apply to.
_FIXED_SIZE = ("census", "srs")
#: Values of :attr:`MeanError.error_95_method`.
EXACT = "exact"
NORMAL_APPROXIMATION = "normal approximation of the sampling error"


# ---------------------------------------------------------------------------------------
# The population, prepared once
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class GroupSums:
    """Per-group sums of a population (its strata or its clusters), groups in code order.

    Attributes
    ----------
    sizes : ndarray of float64
        ``N_h``, records in each group (every group has at least one).
    offsets : ndarray of float64
        ``x̄_h − θ``: the group's mean minus the population mean.
    within : ndarray of float64
        ``Σ_{i∈h} (x_i − x̄_h)²``, the group's sum of squares about its own mean.
    """

    sizes: FloatArray
    offsets: FloatArray
    within: FloatArray

    @property
    def totals(self) -> FloatArray:
        """``Σ_{i∈h} (x_i − θ) = N_h (x̄_h − θ)``."""
        return np.asarray(self.sizes * self.offsets, dtype=np.float64)


@dataclass(frozen=True, eq=False)
class MeanPopulation:
    """What the closed forms need of a population, from :func:`prepare_mean_population`.

    Attributes
    ----------
    N : int
        Records.
    lower, upper : float
        Public bounds of the values.
    mean : float
        ``θ``, the population mean.
    sum_squares : float
        ``Σ (x_i − θ)²``.
    strata, clusters : GroupSums or None
        Per-stratum and per-cluster sums, when codes were given.
    """

    N: int
    lower: float
    upper: float
    mean: float
    sum_squares: float
    strata: GroupSums | None
    clusters: GroupSums | None

    @property
    def centre(self) -> float:
        """``c``, the middle of ``[lower, upper]`` (as in ``HorvitzThompsonMean``)."""
        return self.lower + (self.upper - self.lower) / 2.0

    @property
    def variance(self) -> float:
        """``S² = Σ (x_i − θ)² / (N − 1)`` (0 for a single record)."""
        return self.sum_squares / (self.N - 1) if self.N > 1 else 0.0


def _codes(name: str, labels: ArrayLike, N: int) -> tuple[IntArray, IntArray]:
    """Codes ``0 … H − 1`` of ``labels`` (groups without records dropped) and group sizes.

    Non-negative integer labels below ``2N + 1024`` are used as codes directly (one
    ``bincount``, no sort); any other labels go through ``numpy.unique``.
    """
    arr = np.asarray(labels)
    if arr.ndim != 1 or arr.size != N:
        raise ValueError(
            f"{name} must be one label per value ({N:,}); got an array of shape {arr.shape}"
        )
    if arr.dtype.kind in "iu" and int(arr.min()) >= 0 and int(arr.max()) < 2 * N + 1024:
        # Any integer type but uint64 (bincount reads signed codes) is read as it is.
        codes = arr.astype(np.int64) if arr.dtype == np.uint64 else arr
        counts = np.bincount(codes)
        if (counts == 0).any():
            keep = counts > 0
            codes = (np.cumsum(keep) - 1)[codes]
            counts = counts[keep]
        return codes, counts.astype(np.int64)
    _, inverse, counts = np.unique(arr, return_inverse=True, return_counts=True)
    return inverse.reshape(-1).astype(np.int64), counts.astype(np.int64)


def _group_sums(deviations: FloatArray, codes: IntArray, counts: IntArray) -> GroupSums:
    """Per-group mean offsets and sums of squares, by the corrected two-pass algorithm.

    First pass: each group's mean ``m_h`` of the deviations; second pass: with
    ``e_i = d_i − m_h``, ``Σ e`` (the rounding left in ``m_h``, added back) and
    ``Σ e² − (Σ e)² / N_h`` (Chan, Golub & LeVeque 1983).
    """
    H = counts.size
    sizes = counts.astype(np.float64)
    first = np.bincount(codes, weights=deviations, minlength=H) / sizes
    e = np.take(first, codes)
    np.subtract(deviations, e, out=e)
    t1 = np.bincount(codes, weights=e, minlength=H)
    e *= e
    t2 = np.bincount(codes, weights=e, minlength=H)
    within = np.maximum(t2 - t1 * t1 / sizes, 0.0)
    return GroupSums(sizes, first + t1 / sizes, within)


def _labelled_sums(
    name: str, labels: ArrayLike, values: FloatArray, shifts: tuple[float, float], N: int
) -> GroupSums:
    """:func:`_group_sums` of the deviations ``(values − a) − b``, ``(a, b) = shifts``, by
    ``labels``, groups without records dropped.

    Compact non-negative integer codes (the frame's, in their narrowest type) go through the
    compiled :func:`core.designs.group_sums.two_pass_sums`, which keeps no array of N
    entries; it adds in the same order as ``numpy.bincount``, so the sums are those of
    :func:`_group_sums`.  Other labels, or codes far sparser than the records, are coded by
    :func:`_codes` first.
    """
    arr = np.asarray(labels)
    if (
        group_sums.COMPILED
        and arr.ndim == 1
        and arr.size == N
        and arr.dtype.kind in "iu"
        and arr.dtype != np.uint64
        and int(arr.min()) >= 0
        and int(arr.max()) < 2 * N + 1024
    ):
        counts, sums, t1, t2 = group_sums.two_pass_sums(values, arr, int(arr.max()) + 1, shifts)
        keep = counts > 0
        sizes = counts[keep].astype(np.float64)
        first = sums[keep] / sizes
        t1, t2 = t1[keep], t2[keep]
        within = np.maximum(t2 - t1 * t1 / sizes, 0.0)
        return GroupSums(sizes, first + t1 / sizes, within)
    codes, counts = _codes(name, labels, N)
    deviations = values - shifts[0]
    deviations -= shifts[1]
    return _group_sums(deviations, codes, counts)


#: Records per slice of :func:`_centred_sums` (8 MB of float64 at a time).
_CHUNK = 1 << 20


def _centred_sums(x: FloatArray, centre: float) -> tuple[float, float]:
    """``Σ (x_i − c)`` and ``Σ (x_i − c)²``, slice by slice: no array of N entries.

    Each slice is summed pairwise (``numpy.sum``) and by ``numpy.dot``, and the slices' sums
    are added in order; the result differs from one pass over the whole array only in the
    order of the additions (itself CPU-dependent inside ``numpy.dot``).
    """
    total = squares = 0.0
    for start in range(0, x.size, _CHUNK):
        d = x[start : start + _CHUNK] - centre
        total += float(np.sum(d))
        squares += float(np.dot(d, d))
    return total, squares


def prepare_mean_population(
    values: ArrayLike,
    lower: float,
    upper: float,
    strata: ArrayLike | None = None,
    clusters: ArrayLike | None = None,
) -> MeanPopulation:
    """Sums of a population that every closed form of this module needs, in O(N).

    Parameters
    ----------
    values : array_like
        The population's values, 1-d, finite, inside ``[lower, upper]``, in any order.
    lower, upper : float
        Public bounds, ``lower < upper``.
    strata, clusters : array_like, optional
        One label per value (aligned with ``values``): stratum and cluster membership.
        Non-negative integer codes are used as they are (fastest); other labels are coded
        with ``numpy.unique``.

    Returns
    -------
    MeanPopulation

    Raises
    ------
    ValueError
        For values that are empty, not 1-d, not finite or outside the bounds, bad bounds,
        or labels of the wrong shape.
    """
    lo, hi = check_bounds(lower, upper)
    x = check_vector("values", values)
    N = int(x.size)
    require("values", x, np.isfinite(x), "finite (no NaN or infinity)")
    if float(x.min()) < lo or float(x.max()) > hi:
        raise ValueError(
            f"values must lie inside the public bounds [{lo!r}, {hi!r}]; "
            f"found values in [{float(x.min())!r}, {float(x.max())!r}]"
        )
    # The deviations d = (x − mean) − correction are never stored: at N = 10^8 they were
    # another 800 MB at the preparation's peak; the sums read them slice by slice, and the
    # group sums form them record by record (core.designs.group_sums).
    first = float(np.mean(x))
    total, squares = _centred_sums(x, first)
    correction = total / N
    sum_squares = max(squares - N * correction * correction, 0.0)
    theta = min(max(first + correction, lo), hi)
    groups: list[GroupSums | None] = []
    for name, labels in (("strata", strata), ("clusters", clusters)):
        if labels is None:
            groups.append(None)
            continue
        groups.append(_labelled_sums(name, labels, x, (first, correction), N))
    return MeanPopulation(N, lo, hi, theta, sum_squares, groups[0], groups[1])


# ---------------------------------------------------------------------------------------
# The sampling error
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class SamplingMoments:
    """Mean and variance of the sampling error ``θ̂ − θ`` of one design at several rates.

    Attributes
    ----------
    design : str
        One of :data:`DESIGNS`.
    rate : ndarray
        The rate each row is for: ``n/N`` (SRS, ``n = round(r N)``), ``ℓ/k`` (clusters,
        ``ℓ = round(r k)``, between 1 and ``k``), the rate itself (Poisson, stratified), 1
        (census).
    expected_size : ndarray
        ``E[n] = rate · N`` (the fixed ``n`` for SRS and census).
    clusters_sampled : ndarray
        ``ℓ`` (NaN for designs without clusters).
    bias : ndarray
        ``E[θ̂ − θ]`` (0: every estimator here is unbiased).
    variance : ndarray
        ``Var(θ̂)``, see the module docstring.
    """

    design: str
    rate: FloatArray
    expected_size: FloatArray
    clusters_sampled: FloatArray
    bias: FloatArray
    variance: FloatArray


def _stratified_variance(groups: GroupSums, offset: float, rate: float) -> float:
    """``Var(Σ_S y)`` of proportional stratified sampling with randomised rounding.

    ``offset`` is ``a = θ − c``: the stratum means of ``y = x − c`` are ``offsets + a``.
    """
    sizes = groups.sizes
    exact = rate * sizes  # as the planner's allocation computes it
    floor = np.floor(exact)
    p = exact - floor
    # E[n_h (N_h − n_h)] over n_h ∈ {f_h, f_h + 1}: each term is >= 0.
    spread = (1.0 - p) * floor * (sizes - floor) + p * (floor + 1.0) * (sizes - floor - 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        s2 = np.where(sizes > 1, groups.within / (sizes - 1.0), 0.0)
    within = s2 * spread / sizes  # E[Var(Σ_S y | n)]
    means = groups.offsets + offset
    between = means * means * p * (1.0 - p)  # Var(E[Σ_S y | n]): the rounding's share
    return float(np.sum(within) + np.sum(between))


def _cluster_total_variance(groups: GroupSums, offset: float) -> float:
    """``S_T²``: the variance (divisor ``k − 1``) of the cluster totals of ``x − c``."""
    k = groups.sizes.size
    if k < 2:
        return 0.0
    totals = groups.totals + offset * groups.sizes
    centred = totals - np.mean(totals)
    centred -= np.mean(centred)
    return float(np.dot(centred, centred)) / (k - 1)


def _rates(design: str, rates: ArrayLike | None) -> FloatArray:
    if design == "census":
        if rates is None:
            return np.ones(1)
        r = np.atleast_1d(check_rate("rates", rates)).astype(np.float64)
        if r.ndim != 1 or (r != 1.0).any():
            raise ValueError(f"the census keeps every record: its rates must be 1; got {rates!r}")
        return r
    if rates is None:
        raise ValueError(f"design {design!r} needs rates")
    r = np.atleast_1d(check_rate("rates", rates)).astype(np.float64)
    if r.ndim != 1:
        raise ValueError(f"rates must be one-dimensional; got shape {r.shape}")
    return r


def sampling_moments(
    population: MeanPopulation, design: str, rates: ArrayLike | None = None
) -> SamplingMoments:
    """Exact mean and variance of the sampling error of the mean under ``design``.

    The statistic is the sample mean for SRS and the census, and the Horvitz–Thompson mean
    ``c + Σ_S (x − c) / (r N)`` for Poisson, stratified and cluster samples (for SRS the
    two coincide).  Formulas and their derivation: the module docstring.  Cost O(len(rates))
    (SRS, Poisson), O(len(rates) · H) (stratified), O(k + len(rates)) (clusters).

    Parameters
    ----------
    population : MeanPopulation
        From :func:`prepare_mean_population` (with strata or clusters for those designs).
    design : str
        One of :data:`DESIGNS`.
    rates : array_like, optional
        Rates in (0, 1]; required except for the census (whose only rate is 1).  Rounded
        like the planner: ``n = round(r N)`` (at least 1) for SRS, ``ℓ = round(r k)``
        (between 1 and ``k``) for clusters.

    Returns
    -------
    SamplingMoments
        One entry per rate, in the order given.

    Raises
    ------
    ValueError
        For an unknown design, rates outside (0, 1], or a design whose labels the
        population lacks.
    """
    check_choice("design", design, DESIGNS)
    r = _rates(design, rates)
    N = population.N
    nan = np.full(r.shape, np.nan)
    zero = np.zeros(r.shape)
    offset = population.mean - population.centre  # a = θ − c
    if design == "census":
        return SamplingMoments(design, r, np.full(r.shape, float(N)), nan, zero, zero.copy())
    if design == "srs":
        n = np.array([amp.sample_size(N, float(v)) for v in r], dtype=np.float64)
        var = (1.0 - n / N) * population.variance / n
        return SamplingMoments(design, n / N, n, nan, zero, np.maximum(var, 0.0))
    if design == "poisson":
        squares = population.sum_squares + N * offset * offset  # Σ (x − c)²
        var = (1.0 - r) / r * squares / (float(N) * N)
        return SamplingMoments(design, r, r * N, nan, zero, np.maximum(var, 0.0))
    if design == "stratified_proportional":
        if population.strata is None:
            raise ValueError("the stratified design needs stratum labels (strata=...)")
        strata = population.strata
        var = np.array([_stratified_variance(strata, offset, float(v)) for v in r])
        return SamplingMoments(design, r, r * N, nan, zero, var / (r * N) ** 2)
    if population.clusters is None:
        raise ValueError("the cluster design needs cluster labels (clusters=...)")
    k = population.clusters.sizes.size
    ell = np.minimum(k, np.maximum(1.0, np.rint(r * k)))
    s2t = _cluster_total_variance(population.clusters, offset)
    var = float(k) * k * (1.0 - ell / k) * s2t / (ell * float(N) * N)
    rate = ell / k
    return SamplingMoments(design, rate, rate * N, ell, zero, np.maximum(var, 0.0))


# ---------------------------------------------------------------------------------------
# The noise
# ---------------------------------------------------------------------------------------


def mean_noise(
    mechanism: str,
    lower: float,
    upper: float,
    size: ArrayLike,
    eps_sample: ArrayLike,
    delta_sample: float | None = None,
) -> tuple[FloatArray, FloatArray]:
    """Noise scale and exact conditional noise variance of a mean mechanism.

    ============  ===========================================  ===================
    mechanism     scale                                        variance
    ============  ===========================================  ===================
    ``laplace``   ``b = (R / n) / ε`` (Hu et al. eq. 7)         ``2 b²``
    ``gaussian``  ``σ`` of the analytic Gaussian mechanism at   ``σ²``
                  sensitivity ``R / n`` (Balle & Wang 2018)
    ``ht_mean``   ``b = (R / 2) / (r N) / ε``                   ``2 b²``
    ============  ===========================================  ===================

    Parameters
    ----------
    mechanism : str
        One of :data:`MECHANISMS`.
    lower, upper : float
        Public bounds; ``R = upper − lower``.
    size : array_like
        ``n`` (fixed-size means) or the expected size ``r N`` (``ht_mean``), > 0.
    eps_sample : array_like
        Budgets spent on the sample, finite and > 0; broadcast with ``size``.
    delta_sample : float, optional
        In (0, 1); required for ``"gaussian"`` only.

    Returns
    -------
    (scale, variance) : tuple of ndarray
        Broadcast shape of ``size`` and ``eps_sample``.
    """
    check_choice("mechanism", mechanism, MECHANISMS)
    lo, hi = check_bounds(lower, upper)
    eps = np.asarray(check_eps("eps_sample", eps_sample), dtype=np.float64)
    n = np.asarray(size, dtype=np.float64)
    require("size", n, np.isfinite(n) & (n > 0), "a finite number > 0")
    n, eps = np.broadcast_arrays(n, eps)
    R = hi - lo
    if mechanism == "gaussian":
        if delta_sample is None:
            raise ValueError("the Gaussian mean needs delta_sample")
        delta = check_delta_open("delta_sample", delta_sample)
        sigma = mech.analytic_gaussian_sigma(eps, delta, R / n)
        return sigma, sigma * sigma
    sensitivity = R / n if mechanism == "laplace" else R / 2.0 / n
    b = np.asarray(sensitivity / eps, dtype=np.float64)
    return b, 2.0 * b * b


# ---------------------------------------------------------------------------------------
# The released mean's error
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class MeanError:
    """Error of a private mean under one (design, mechanism, rate) about the population mean.

    Attributes
    ----------
    design, mechanism : str
        Names from :data:`DESIGNS` and :data:`MECHANISMS`.
    rate : float
        The rate actually used (``n/N``, ``ℓ/k``, or as given; 1 for the census).
    expected_size : float
        ``E[n]`` (the fixed ``n`` for SRS and census).
    clusters_sampled : float
        ``ℓ`` (NaN without clusters).
    eps_sample : float
        Budget spent on the sample.
    delta_sample : float
        δ spent on the sample (NaN when the mechanism is pure).
    noise_scale : float
        ``b`` (Laplace) or ``σ`` (Gaussian).
    sampling_bias, sampling_variance : float
        ``E[θ̂ − θ]`` and ``Var θ̂``, exact.
    sampling_part : float
        ``E[(θ̂ − θ)²] = bias² + variance``, exact.
    noise_part : float
        ``E[(θ̃ − θ̂)²]``, the noise variance, exact.
    rmse : float
        ``sqrt(sampling_part + noise_part)``, exact.
    error_95 : float
        ``x`` with ``P(|θ̃ − θ| <= x) = level``.
    level : float
        The level of ``error_95`` (0.95 unless asked otherwise).
    rmse_exact : bool
        Always True: the RMSE is exact for every design here.
    error_95_method : str
        :data:`EXACT` (no sampling error: the noise's own law) or
        :data:`NORMAL_APPROXIMATION` (the sampling error taken as normal with its exact
        mean and variance, convolved with the exact noise law).
    """

    design: str
    mechanism: str
    rate: float
    expected_size: float
    clusters_sampled: float
    eps_sample: float
    delta_sample: float
    noise_scale: float
    sampling_bias: float
    sampling_variance: float
    sampling_part: float
    noise_part: float
    rmse: float
    error_95: float
    level: float
    rmse_exact: bool
    error_95_method: str

    @property
    def error_95_exact(self) -> bool:
        """True when :attr:`error_95` is exact."""
        return self.error_95_method == EXACT


def mean_errors(
    population: MeanPopulation,
    design: str,
    mechanism: str,
    rates: ArrayLike | None = None,
    eps_sample: ArrayLike = 1.0,
    delta_sample: float | None = None,
    level: float = 0.95,
) -> tuple[MeanError, ...]:
    """RMSE and error bound of a private mean, one :class:`MeanError` per rate.

    ``RMSE = sqrt(bias² + Var θ̂ + Var noise)`` exactly (:func:`sampling_moments`,
    :func:`mean_noise`); the bound ``x`` with ``P(|θ̃ − θ| <= x) = level`` is exact when the
    design keeps every record and otherwise takes the sampling error as
    ``Normal(bias, Var θ̂)`` convolved with the exact noise law
    (:func:`core.designs.normal_laplace.error_bound`).

    These are the errors of the release before it is clamped to ``[lower, upper]``; every
    :meth:`core.mechanisms.Mechanism.release` clamps, and the planner reports the clamped
    errors where a release can reach a bound (:func:`core.planner.exact.clamped_mean_errors`;
    elsewhere the two agree).

    Parameters
    ----------
    population : MeanPopulation
        From :func:`prepare_mean_population`.
    design : str
        One of :data:`DESIGNS`.
    mechanism : str
        One of :data:`MECHANISMS`; ``"laplace"`` and ``"gaussian"`` need a fixed sample
        size (``"census"``, ``"srs"``).
    rates : array_like, optional
        As :func:`sampling_moments`.
    eps_sample : array_like, default 1
        Budget per rate (one number or one per rate), finite and > 0.
    delta_sample : float, optional
        Required for ``"gaussian"``.
    level : float, default 0.95
        Coverage of the bound.

    Returns
    -------
    tuple of MeanError

    Raises
    ------
    ValueError
        For unknown names, a fixed-size mechanism on a design with a random sample size,
        bad rates, budgets or level.
    """
    check_choice("mechanism", mechanism, MECHANISMS)
    check_choice("design", design, DESIGNS)
    if mechanism != "ht_mean" and design not in _FIXED_SIZE:
        raise ValueError(
            f"the {mechanism!r} mean needs a fixed sample size (census or srs); "
            f"design {design!r} draws a random one: use 'ht_mean'"
        )
    lv = check_level(level)
    moments = sampling_moments(population, design, rates)
    eps = np.asarray(check_eps("eps_sample", eps_sample), dtype=np.float64)
    try:
        eps = np.broadcast_to(eps, moments.rate.shape)
    except ValueError:
        raise ValueError(
            f"eps_sample must be one number or one per rate ({moments.rate.size}); "
            f"got shape {np.shape(eps_sample)}"
        ) from None
    scale, noise = mean_noise(
        mechanism, population.lower, population.upper, moments.expected_size, eps, delta_sample
    )
    delta = (
        float(delta_sample) if mechanism == "gaussian" and delta_sample is not None else math.nan
    )
    out = []
    for i in range(moments.rate.size):
        bias, var = float(moments.bias[i]), float(moments.variance[i])
        b, nv = float(scale[i]), float(noise[i])
        sampling = bias * bias + var
        x, exact = error_bound(mechanism, bias, var, b, lv)
        out.append(
            MeanError(
                design=design,
                mechanism=mechanism,
                rate=float(moments.rate[i]),
                expected_size=float(moments.expected_size[i]),
                clusters_sampled=float(moments.clusters_sampled[i]),
                eps_sample=float(eps[i]),
                delta_sample=delta,
                noise_scale=b,
                sampling_bias=bias,
                sampling_variance=var,
                sampling_part=sampling,
                noise_part=nv,
                rmse=math.sqrt(sampling + nv),
                error_95=x,
                level=lv,
                rmse_exact=True,
                error_95_method=EXACT if exact else NORMAL_APPROXIMATION,
            )
        )
    return tuple(out)
