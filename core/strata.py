"""Stratified sampling: Neyman against proportional allocation, for accuracy and for privacy.

Everything here follows Bun, Drechsler, Gaboardi, McMillan & Sarathy, "Controlling privacy
loss in sampling schemes: an analysis of stratified and cluster sampling" (Bun et al. 2022):

* Allocations (section 7). A population is split into k strata of sizes ``N_i``; an
  allocation says how many records ``m_i`` to draw, without replacement, from each.
  :func:`neyman_allocation` (section 7.2) draws ``m_i ∝ N_i σ_i`` and is the allocation that
  minimises the variance of the weighted (stratified) mean; :func:`proportional_allocation`
  (sections 4.3 and 7.3) draws the same fraction ``r`` of every stratum, rounded either to
  the nearest integer or at random (the randomised rounding of section 4.3).
* Accuracy: :func:`stratified_mean_variance` (the textbook variance of the weighted mean
  with finite-population correction), :func:`randomized_proportional_variance`,
  :func:`srs_mean_variance`, and simulations by :func:`stratified_sample` and
  :func:`simulate_weighted_means`.
* Privacy: :func:`proportional_eps_bound` (Theorems 4.3 and 7.2) and its inverse
  :func:`proportional_eps_sample_for_target`,
  :func:`random_size_eps_bounds` (Theorem 3.1), the noisy-count attack of section 4.1
  (:func:`noisy_count_loss`) and the neighbouring-population comparison of section 7.2 and
  Appendix E.1 (:func:`top_code_neighbour`, :func:`compare_neighbours`).

Names: ``eps_sample`` is the budget of the mechanism run on the sample (the paper's ε),
``eps_target`` the guarantee the population gets (the paper's ε′), ``rate`` the sampling
fraction r = m/N.

Numerics: ``log1p``/``expm1`` for small budgets (results exact at ε = 1e-12) and a
log-domain form for large ones (finite at ε = 1000). Invalid arguments raise
``ValueError`` with a message that can be shown to a user as is.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

from core._validation import (
    FloatArray,
    as_float_array,
    check_eps,
    check_rate,
    check_seed,
    check_vector,
    check_whole,
    finish,
)

__all__ = [
    "PAPER_NEYMAN_E1",
    "NeighbourComparison",
    "RandomSizeBounds",
    "RoundingExample",
    "StratumSummary",
    "allocation_count_loss",
    "compare_neighbours",
    "neyman_allocation",
    "neyman_shares",
    "noisy_count_loss",
    "proportional_allocation",
    "proportional_eps_approx",
    "proportional_eps_bound",
    "proportional_eps_sample_for_target",
    "random_size_eps_bounds",
    "randomized_proportional_variance",
    "rounding_example",
    "simulate_weighted_means",
    "srs_mean_variance",
    "stratified_mean_variance",
    "stratified_sample",
    "stratum_summary",
    "top_code_neighbour",
    "truncated_gaussian_pmf",
]

IntArray: TypeAlias = NDArray[np.int64]
Rounding: TypeAlias = Literal["deterministic", "randomized"]

#: The two Neyman allocations printed in Bun et al. section 7.2 and Appendix E.1 (CBP
#: establishments, 12 size classes, m = 10,000): the population and its neighbour in which
#: the smallest establishment was raised to the 10,000-employee top code. They differ by 19
#: records in the top stratum. (They sum to 10,004 and 10,005: the paper rounded each stratum
#: on its own.)
PAPER_NEYMAN_E1: tuple[tuple[int, ...], tuple[int, ...]] = (
    (1261, 621, 517, 1969, 833, 1947, 1058, 762, 257, 248, 306, 225),
    (1259, 620, 516, 1965, 831, 1943, 1056, 761, 257, 247, 306, 244),
)

# Beyond this exponent exp() of a double is close to overflow (exp(709.78) = max float).
_EXP_SAFE = 700.0


# --------------------------------------------------------------------------------------------
# Validation helpers
# --------------------------------------------------------------------------------------------


def _int_vector(name: str, value: ArrayLike, *, minimum: int) -> IntArray:
    """A 1-d vector of integers >= ``minimum`` (floats must be whole numbers)."""
    arr = check_vector(name, value)
    if not np.all(np.isfinite(arr)) or np.any(arr != np.floor(arr)):
        raise ValueError(f"{name} must contain whole numbers only")
    if np.any(arr < minimum):
        bad = int(np.flatnonzero(arr < minimum)[0])
        raise ValueError(f"{name} must be >= {minimum}; got {arr[bad]:g} at position {bad}")
    if np.any(arr > 2.0**53):
        raise ValueError(f"{name} is too large to count exactly")
    return arr.astype(np.int64)


def _float_vector(name: str, value: ArrayLike, size: int) -> FloatArray:
    """A 1-d vector of ``size`` finite numbers >= 0."""
    arr = as_float_array(name, value)
    if arr.shape != (size,):
        raise ValueError(f"{name} must have one entry per stratum ({size}); got shape {arr.shape}")
    if not np.all(np.isfinite(arr)) or np.any(arr < 0):
        raise ValueError(f"{name} must contain finite numbers >= 0")
    return arr


def _rate(value: object) -> float:
    arr = check_rate("rate", value)  # type: ignore[arg-type]
    if arr.ndim != 0:
        raise ValueError("rate must be a single number")
    return float(arr)


def _generator(rng: np.random.Generator | int | None) -> np.random.Generator:
    if isinstance(rng, np.random.Generator):
        return rng
    if rng is None:
        return np.random.default_rng()
    return np.random.default_rng(check_seed(rng))


def _check_allocation(sizes: IntArray, allocation: ArrayLike) -> IntArray:
    alloc = _int_vector("allocation", allocation, minimum=0)
    if alloc.shape != sizes.shape:
        raise ValueError(
            f"allocation must have one entry per stratum ({sizes.size}); got {alloc.size}"
        )
    over = np.flatnonzero(alloc > sizes)
    if over.size:
        i = int(over[0])
        raise ValueError(
            f"allocation takes {alloc[i]:,} records from stratum {i}, which has only {sizes[i]:,}"
        )
    return alloc


# --------------------------------------------------------------------------------------------
# Strata of a population
# --------------------------------------------------------------------------------------------


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


# --------------------------------------------------------------------------------------------
# Allocations
# --------------------------------------------------------------------------------------------


def _check_sizes_sds_m(
    sizes: ArrayLike, sds: ArrayLike, m: object
) -> tuple[IntArray, FloatArray, int]:
    n = _int_vector("sizes", sizes, minimum=1)
    s = _float_vector("sds", sds, n.size)
    total = int(n.sum())
    mm = check_whole("m (total sample size)", m, 0, total)
    return n, s, mm


def neyman_shares(sizes: ArrayLike, sds: ArrayLike, m: int) -> FloatArray:
    """Continuous Neyman allocation with whole strata where the share would exceed ``N_i``.

    Bun et al. section 7.2 (Neyman allocation, optimal for the weighted mean)::

        x_i = (N_i σ_i / Σ_j N_j σ_j) · m                       (every x_i <= N_i)

    When a share exceeds its stratum (``x_i > N_i``) that stratum is taken whole
    (``x_i = N_i``) and the rest of the sample is shared out again among the other strata in
    the same proportions, until no share exceeds its stratum. The result is
    ``x_i = min(N_i, c · N_i σ_i)`` with the one constant ``c`` that makes ``Σ x_i = m``, the
    exact minimiser of :func:`stratified_mean_variance` over real allocations. Strata with
    ``σ_i = 0`` get nothing unless every other stratum is taken whole; any sample left over
    then goes to them in proportion to ``N_i``.

    Parameters
    ----------
    sizes : array_like of int
        Stratum sizes ``N_i >= 1``.
    sds : array_like of float
        Stratum standard deviations ``σ_i >= 0``.
    m : int
        Total sample size, ``0 <= m <= Σ N_i``.

    Returns
    -------
    numpy.ndarray of float64
        Real shares ``x_i`` with ``0 <= x_i <= N_i`` and ``Σ x_i = m`` (to rounding).
    """
    n, s, mm = _check_sizes_sds_m(sizes, sds, m)
    return _neyman_shares(n, s, mm)


def _neyman_shares(n: IntArray, s: FloatArray, m: int) -> FloatArray:
    nf = n.astype(np.float64)
    a = nf * s
    spread = a > 0
    x = np.zeros(n.size)
    whole = np.zeros(n.size, dtype=bool)
    remaining = float(m)
    while remaining > 0:
        free = np.flatnonzero(~whole & spread)
        if free.size == 0:
            break
        w = a[free] / a[free].max()  # scale-free weights: no overflow for tiny or huge σ
        share = remaining * (w / w.sum())
        over = share >= nf[free]
        if not over.any():
            x[free] = share
            remaining = 0.0
            break
        capped = free[over]
        x[capped] = nf[capped]
        whole[capped] = True
        remaining -= nf[capped].sum()
    if remaining > 0:
        # Every stratum with spread is taken whole; the rest goes to the σ = 0 strata.
        rest = ~whole & ~spread
        x[rest] = _proportional_real(nf[rest], remaining)
    return x


def _proportional_real(nf: FloatArray, m: float) -> FloatArray:
    """Shares of ``m`` in proportion to ``nf`` (all <= nf since m <= Σ nf)."""
    return np.minimum(nf, m * nf / nf.sum())


def _gains(
    n_alloc: IntArray, sizes: IntArray, a2: FloatArray, spread: NDArray[np.bool_]
) -> FloatArray:
    """Variance saved by one more record in each stratum (−inf where it is full).

    With ``f_i(n) = a_i² / n`` (and ``f_i(0) = ∞`` when ``a_i > 0``) the saving of going from
    ``n`` to ``n + 1`` records is ``a_i² / (n (n + 1))``; the finite-population correction
    does not depend on n and drops out.
    """
    g = np.full(n_alloc.size, -np.inf)
    room = n_alloc < sizes
    nn = n_alloc.astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        val = np.where(nn > 0, a2 / (nn * (nn + 1.0)), np.where(spread, np.inf, 0.0))
    g[room] = val[room]
    return g


def _losses(n_alloc: IntArray, a2: FloatArray, spread: NDArray[np.bool_]) -> FloatArray:
    """Variance added by one record fewer in each stratum (+inf where it is empty)."""
    loss = np.full(n_alloc.size, np.inf)
    has = n_alloc > 0
    nn = n_alloc.astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        val = np.where(nn > 1, a2 / ((nn - 1.0) * nn), np.where(spread, np.inf, 0.0))
    loss[has] = val[has]
    return loss


def _pick(values: FloatArray, tiebreak: FloatArray, largest: bool) -> int:
    """Index of the largest (or smallest) value; ties go to the larger ``tiebreak``, then
    to the lower index."""
    target = values.max() if largest else values.min()
    candidates = np.flatnonzero(values == target)
    return int(candidates[np.argmax(tiebreak[candidates])])


def neyman_allocation(sizes: ArrayLike, sds: ArrayLike, m: int) -> IntArray:
    """Neyman allocation in whole records: ``m_i ∝ N_i σ_i``, summing to exactly ``m``.

    Bun et al. section 7.2: ``m_i = N_i σ_i / Σ_j N_j σ_j · m``, with strata whose share
    exceeds ``N_i`` taken whole and the rest re-allocated (:func:`neyman_shares`).

    Rounding rule. The integer allocation is the exact minimiser of the variance of the
    weighted mean (:func:`stratified_mean_variance`) over all integer allocations with
    ``Σ m_i = m`` and ``0 <= m_i <= N_i``:

    1. start from the floors ``⌊x_i⌋`` of the real Neyman shares;
    2. give each missing record to the stratum where it lowers the variance most, i.e. the
       largest ``(N_i σ_i)² / (m_i (m_i + 1))`` (a stratum with spread and no record yet
       comes first);
    3. move single records between strata while a move lowers the variance.

    The variance is a sum of convex functions of the ``m_i``, so an allocation that no
    single move improves is a global minimum. Ties go to the stratum with the larger
    ``N_i σ_i``, then to the earlier stratum. The result is usually ``⌊x_i⌋`` or ``⌈x_i⌉``;
    it departs from them only where that lowers the variance, mostly when some shares are
    small: a stratum with spread gets a record before any stratum gets a second one it does
    not need, because without one the weighted mean is undefined (infinite variance).

    Parameters
    ----------
    sizes : array_like of int
        Stratum sizes ``N_i >= 1``.
    sds : array_like of float
        Stratum standard deviations ``σ_i >= 0`` (see :func:`stratum_summary`).
    m : int
        Total sample size, ``0 <= m <= Σ N_i``.

    Returns
    -------
    numpy.ndarray of int64
        ``m_i`` with ``0 <= m_i <= N_i`` and ``Σ m_i = m``.

    Raises
    ------
    ValueError
        For sizes below 1, negative or non-finite standard deviations, mismatched lengths,
        or ``m`` outside ``[0, Σ N_i]``.
    """
    n, s, mm = _check_sizes_sds_m(sizes, sds, m)
    x = _neyman_shares(n, s, mm)
    alloc = np.minimum(np.floor(x + 1e-9), n).astype(np.int64)
    a = n.astype(np.float64) * s
    spread = a > 0
    # The objective is scale-free: normalising by the largest weight keeps a² away from
    # overflow and underflow.
    a = a / a.max() if spread.any() else a
    a2 = a * a
    # Remove any excess (rounding of the shares can only add a record when x_i is within
    # 1e-9 of an integer above it).
    while alloc.sum() > mm:
        alloc[_pick(_losses(alloc, a2, spread), -a, largest=False)] -= 1
    while alloc.sum() < mm:
        alloc[_pick(_gains(alloc, n, a2, spread), a, largest=True)] += 1
    # Single-record moves while they lower the variance. Each move lowers it strictly, so
    # the loop ends; from the floors of the real optimum it rarely runs more than k times.
    for _ in range(mm + n.size + 1):
        gains = _gains(alloc, n, a2, spread)
        losses = _losses(alloc, a2, spread)
        i = _pick(gains, a, largest=True)
        j = _pick(losses, -a, largest=False)
        if not gains[i] > losses[j] * (1.0 + 1e-12):
            break
        alloc[i] += 1
        alloc[j] -= 1
    else:  # pragma: no cover - a strictly decreasing objective cannot cycle
        raise RuntimeError("Neyman rounding did not converge")
    return alloc


def proportional_allocation(
    sizes: ArrayLike,
    rate: float,
    rounding: Rounding = "deterministic",
    rng: np.random.Generator | int | None = None,
) -> IntArray:
    """Proportional allocation: the same fraction ``r`` of every stratum, in whole records.

    Bun et al. sections 4.3 and 7.3. The real share of stratum i is ``x_i = r · N_i``.

    * ``rounding="deterministic"``: the nearest integer, halves rounded up,
      ``m_i = ⌊r N_i + 1/2⌋`` (the paper's ``round(r|P|)``). The total can differ from
      ``r · N`` by up to k/2, and it depends on the data: ``r = 1/10`` draws 1 record from a
      stratum of 14 and 2 from one of 15 (section 4.3).
    * ``rounding="randomized"``: ``m_i = ⌈x_i⌉`` with probability equal to the fractional
      part ``x_i - ⌊x_i⌋``, otherwise ``⌊x_i⌋`` (section 4.3). Unbiased, ``E[m_i] = r N_i``,
      and never more than one record away from ``r N_i``. This is the rounding that
      Theorems 4.3 and 7.2 show amplifies privacy (:func:`proportional_eps_bound`).

    Parameters
    ----------
    sizes : array_like of int
        Stratum sizes ``N_i >= 1``.
    rate : float
        Sampling fraction ``r`` in (0, 1].
    rounding : {"deterministic", "randomized"}
    rng : numpy.random.Generator or int or None
        Source of randomness for ``"randomized"`` (a seed is accepted).

    Returns
    -------
    numpy.ndarray of int64
        ``m_i`` with ``0 <= m_i <= N_i``.
    """
    n = _int_vector("sizes", sizes, minimum=1)
    r = _rate(rate)
    x = r * n.astype(np.float64)
    if rounding == "deterministic":
        out = np.floor(x + 0.5)
    elif rounding == "randomized":
        floors = np.floor(x)
        out = floors + (_generator(rng).random(n.size) < (x - floors))
    else:
        raise ValueError(f"rounding must be 'deterministic' or 'randomized'; got {rounding!r}")
    return np.minimum(out, n).astype(np.int64)


def _randomized_parts(n: IntArray, r: float) -> tuple[IntArray, FloatArray]:
    """Floors ``⌊r N_i⌋`` and round-up probabilities of randomised rounding."""
    x = r * n.astype(np.float64)
    floors = np.floor(x)
    return floors.astype(np.int64), x - floors


# --------------------------------------------------------------------------------------------
# Accuracy: the variance of the weighted mean
# --------------------------------------------------------------------------------------------


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


# --------------------------------------------------------------------------------------------
# Privacy: proportional allocation with randomised rounding (Theorems 4.3 and 7.2)
# --------------------------------------------------------------------------------------------


def _log1p_c_expm1(c: FloatArray, x: FloatArray) -> FloatArray:
    """``log(1 + c (e^x - 1))`` for c > 0, x > 0: exact for small x, finite for large x."""
    with np.errstate(over="ignore", divide="ignore"):
        small = np.log1p(c * np.expm1(np.minimum(x, _EXP_SAFE)))
        # log(c (e^x - 1)) = log c + x + log1p(-e^-x); then log(1 + that) via logaddexp.
        big = np.logaddexp(0.0, np.log(c) + x + np.log1p(-np.exp(-x)))
    return np.where(x <= _EXP_SAFE, small, big)


def proportional_eps_bound(eps_sample: ArrayLike, rate: ArrayLike) -> float | FloatArray:
    """Guarantee for the population under proportional allocation with randomised rounding.

    Bun et al. Theorem 4.3 (one stratum) and Theorem 7.2 (k strata): if a mechanism is
    ε-differentially private on the sample and the sample is drawn by proportional
    allocation with randomised rounding at rate ``r`` (every stratum with ``r N_i >= 1``),
    the whole procedure is ε′-differentially private for the population with::

        ε′ = log(1 + 2r (e^{2ε} - 1)) + log(1 + r (e^{2ε} - 1))   ≈ 6 r ε for small ε.

    Unlike simple random sampling (``log(1 + r(e^ε - 1))``) this is not always below ε: it
    is for small rates (about r < 1/6 when ε is small), while for large ε it grows like
    4ε + log(2r²).

    Parameters
    ----------
    eps_sample : float or array_like
        ε of the mechanism on the sample, finite and > 0.
    rate : float or array_like
        Sampling fraction r in (0, 1].

    Returns
    -------
    float or numpy.ndarray
        ε′, broadcast over the arguments; a float when both are scalars.

    Notes
    -----
    Each term is ``log1p(c · expm1(2ε))`` while ``2ε <= 700`` (exact at ε = 1e-12) and
    ``logaddexp(0, log c + 2ε + log1p(-e^{-2ε}))`` beyond (finite at ε = 1000).
    """
    scalar = np.ndim(eps_sample) == 0 and np.ndim(rate) == 0
    e = check_eps("eps_sample", eps_sample)
    r = check_rate("rate", rate)
    e, r = np.broadcast_arrays(e, r)
    x = 2.0 * e
    return finish(_log1p_c_expm1(2.0 * r, x) + _log1p_c_expm1(r, x), scalar)


def proportional_eps_sample_for_target(
    eps_target: ArrayLike, rate: ArrayLike
) -> float | FloatArray:
    """Inverse of :func:`proportional_eps_bound`: the ε_sample whose bound is ``eps_target``.

    Bun et al. (2022), Theorems 4.3 and 7.2, solved for the budget of the mechanism on the
    sample. With ``x = e^{2ε_sample} − 1`` and ``E = e^{ε_target} − 1`` the bound reads
    ``(1 + 2rx)(1 + rx) = 1 + E``, a quadratic in ``x`` with one positive root::

        x = 2E / (r (3 + sqrt(9 + 8E))),        ε_sample = log(1 + x) / 2.

    The root is written without the cancelling difference ``−3 + sqrt(9 + 8E)``, so it is
    exact at ``ε_target = 1e-12`` (where ε_sample ≈ ε_target / (6r)); for
    ``ε_target > 700`` it is evaluated in logarithms
    (``log x = log E / 2 − log 2 / 2 − log r``, exact to rounding there) and stays finite at
    1000. The bound grows strictly with ε_sample from 0 to infinity, so the inverse exists for
    every ``eps_target > 0``; it is *below* ``eps_target`` when the bound does not amplify
    (large rates or large budgets), and the page then says that randomised proportional
    allocation allows less than no sampling at all.

    Parameters
    ----------
    eps_target : float or array_like
        Guarantee promised for the population, finite and > 0.
    rate : float or array_like
        Sampling fraction r in (0, 1].

    Returns
    -------
    float or numpy.ndarray
        ε_sample > 0, broadcast over the arguments; a float when both are scalars.

    Raises
    ------
    ValueError
        For a non-positive or non-finite ``eps_target`` or a rate outside (0, 1].
    """
    scalar = np.ndim(eps_target) == 0 and np.ndim(rate) == 0
    t = check_eps("eps_target", eps_target)
    r = check_rate("rate", rate)
    t, r = np.broadcast_arrays(t, r)
    with np.errstate(over="ignore", invalid="ignore"):
        big_e = np.expm1(np.minimum(t, _EXP_SAFE))
        x = 2.0 * big_e / (r * (3.0 + np.sqrt(9.0 + 8.0 * big_e)))
        small = 0.5 * np.log1p(x)
        log_e = t + np.log1p(-np.exp(-t))
        log_x = 0.5 * log_e - 0.5 * math.log(2.0) - np.log(r)
        big = 0.5 * np.logaddexp(0.0, log_x)
    return finish(np.where(t <= _EXP_SAFE, small, big), scalar)


def proportional_eps_approx(eps_sample: ArrayLike, rate: ArrayLike) -> float | FloatArray:
    """The small-ε form ``6 r ε`` of :func:`proportional_eps_bound` (Bun et al. Theorem 4.3).

    It follows from ``e^x - 1 ≈ x`` and ``log(1 + x) ≈ x``: ``2r·2ε + r·2ε = 6rε``.
    """
    scalar = np.ndim(eps_sample) == 0 and np.ndim(rate) == 0
    e = check_eps("eps_sample", eps_sample)
    r = check_rate("rate", rate)
    return finish(6.0 * r * e, scalar)


# --------------------------------------------------------------------------------------------
# Privacy: a random, data-independent sample size (Theorem 3.1)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RandomSizeBounds:
    """Theorem 3.1 of Bun et al. for one distribution of the sample size.

    Attributes
    ----------
    lower, upper : float
        Lower and upper bound on the population guarantee ε′.
    tilted_mean : float
        ``E_{m ~ t̃}[m]``, the mean sample size under the ε-tilted distribution.
    n : int
        Population size.
    """

    lower: float
    upper: float
    tilted_mean: float
    n: int


def random_size_eps_bounds(eps_sample: float, n: int, size_pmf: ArrayLike) -> RandomSizeBounds:
    """Bounds on ε′ when the sample size is random and independent of the data.

    Bun et al. Theorem 3.1: draw a size ``m ~ t`` on {0, ..., n}, then a simple random
    sample of ``m`` of the ``n`` records, and run an ε-DP (deletion) mechanism on it. With
    the ε-tilted distribution ``t̃(m) ∝ e^{εm} t(m)`` and ``a = E_{m~t̃}[m] / n``::

        upper:  ε′ <= log(1 + a (e^ε - 1))        for every such mechanism,
        lower:  ε′ >= -log(1 - a (1 - e^{-ε}))    for some mechanism and pair of neighbours.

    For a fixed size ``m`` both reduce to ``a = m/n``, and the upper bound is the simple
    random sampling value of Theorem 2.2. The tilt favours large sizes, so a small chance
    of a large sample is enough to spoil amplification.

    Parameters
    ----------
    eps_sample : float
        ε of the mechanism on the sample, finite and > 0.
    n : int
        Population size, >= 1.
    size_pmf : array_like
        ``t(0), ..., t(n)``: non-negative, summing to 1 (to 1e-6; it is renormalised).

    Returns
    -------
    RandomSizeBounds

    Notes
    -----
    The tilt is computed in the log domain (``log t(m) + εm`` minus its maximum), so it
    neither overflows at ε = 1000 nor loses the tilt at ε = 1e-12. With ``b = 1 - a``
    computed as the tilted mean of ``(n - m)/n`` (no cancellation), the bounds are
    ``log1p(a·expm1(ε))`` and ``-log1p(-a·(-expm1(-ε)))`` for moderate arguments, and the
    log-domain forms ``logaddexp(log b, log a + ε)`` and ``-logaddexp(log b, log a - ε)``
    otherwise.
    """
    e = float(check_eps("eps_sample", eps_sample))
    nn = check_whole("n (population size)", n, 1, 100_000_000)
    try:
        t = np.asarray(size_pmf, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError("size_pmf must be a list of probabilities") from None
    if t.shape != (nn + 1,):
        raise ValueError(
            f"size_pmf must give the probability of every size 0..n ({nn + 1} numbers); "
            f"got shape {t.shape}"
        )
    if not np.all(np.isfinite(t)) or np.any(t < 0):
        raise ValueError("size_pmf must contain finite probabilities >= 0")
    total = float(t.sum())
    if not abs(total - 1.0) <= 1e-6:
        raise ValueError(f"size_pmf must sum to 1; it sums to {total:.6g}")
    sizes = np.arange(nn + 1, dtype=np.float64)
    with np.errstate(divide="ignore"):
        logw = np.log(t) + e * sizes
    w = np.exp(logw - logw.max())
    w /= w.sum()
    # Plain sums, not ``@``: a BLAS dot product can stall on a busy machine (thread spin).
    mean = float(np.sum(w * sizes))
    a = mean / nn
    b = float(np.sum(w * (nn - sizes))) / nn
    with np.errstate(divide="ignore"):
        if e <= _EXP_SAFE:
            upper = math.log1p(a * math.expm1(e))
        else:
            upper = float(np.logaddexp(np.log(b), np.log(a) + e))
        c = a * -math.expm1(-e)
        lower = -math.log1p(-c) if c <= 0.5 else -float(np.logaddexp(np.log(b), np.log(a) - e))
    return RandomSizeBounds(lower=lower, upper=upper, tilted_mean=mean, n=nn)


def truncated_gaussian_pmf(n: int, mean: float, sd: float) -> FloatArray:
    """A Gaussian restricted to the sizes {0, ..., n}: ``t(m) ∝ exp(-(m - mean)² / (2 sd²))``.

    The distribution of Bun et al. Figure 2 (mean n/2, ``sd`` from 1 to 1,000, n = 10⁴).
    """
    nn = check_whole("n (population size)", n, 1, 100_000_000)
    mu, s = float(mean), float(sd)
    if not (math.isfinite(mu) and math.isfinite(s) and s > 0):
        raise ValueError("mean must be finite and sd a finite number > 0")
    m = np.arange(nn + 1, dtype=np.float64)
    logp = -0.5 * ((m - mu) / s) ** 2
    p = np.exp(logp - logp.max())
    return p / p.sum()


# --------------------------------------------------------------------------------------------
# Privacy: data-dependent allocations and the noisy-count attack (sections 4.1, 7.2, E.1)
# --------------------------------------------------------------------------------------------


def _directional_sups(
    sizes_a: IntArray,
    probs_a: FloatArray,
    sizes_b: IntArray,
    probs_b: FloatArray,
    eps_sample: float,
) -> tuple[float, float]:
    """``sup_y log f_a(y)/f_b(y)`` and ``sup_y log f_b(y)/f_a(y)`` for Laplace mixtures.

    ``f(y) = Σ_c p_c · (ε/2) e^{-ε|y - c|}``. Between two neighbouring integers the ratio of
    two such mixtures is a ratio of ``A e^{εy} + B e^{-εy}`` terms, monotone in ``e^{2εy}``, so
    its extremes lie at the integers of the supports or at y → ±∞, where the ratio tends to
    ``Σ p_c e^{±εc} / Σ p'_c e^{±εc}``.
    """

    def logmix(sizes: FloatArray, probs: FloatArray, y: FloatArray) -> FloatArray:
        with np.errstate(divide="ignore"):
            lp = np.log(probs)[None, :]
        return np.logaddexp.reduce(lp - eps_sample * np.abs(y[:, None] - sizes[None, :]), axis=1)

    def limit(sizes: FloatArray, probs: FloatArray, sign: float) -> float:
        with np.errstate(divide="ignore"):
            return float(np.logaddexp.reduce(np.log(probs) + sign * eps_sample * sizes))

    keep_a, keep_b = probs_a > 0, probs_b > 0
    sa, pa = sizes_a[keep_a].astype(np.float64), probs_a[keep_a]
    sb, pb = sizes_b[keep_b].astype(np.float64), probs_b[keep_b]
    y = np.unique(np.concatenate([sa, sb]))
    diff = logmix(sa, pa, y) - logmix(sb, pb, y)
    ends = [limit(sa, pa, s) - limit(sb, pb, s) for s in (1.0, -1.0)]
    values = np.concatenate([diff, ends])
    return float(values.max()), float((-values).max())


def noisy_count_loss(
    sizes_a: ArrayLike,
    probs_a: ArrayLike,
    sizes_b: ArrayLike,
    probs_b: ArrayLike,
    eps_sample: float,
) -> float:
    """Privacy loss of releasing a noisy sample count when the count itself is random.

    Bun et al. section 4.1: the mechanism ``|S| + Laplace(1/ε)`` is ε-DP on the sample (adding
    or removing one record moves the count by 1). If on population P the count is
    distributed as ``probs_a`` over ``sizes_a`` and on a neighbour P′ as ``probs_b`` over
    ``sizes_b``, the two outputs are ``L``-indistinguishable with::

        L = sup_y |log f_P(y) / f_P′(y)|,   f(y) = Σ_c Pr[count = c] · (ε/2) e^{-ε|y - c|}.

    For deterministic counts ``m`` and ``m + Δ`` this is exactly ``Δ·ε``: the privacy loss
    grows with the shift, the degradation of section 4.1. Randomised rounding mixes the two
    counts and keeps ``L`` small. The supremum is computed exactly (see Notes).

    Parameters
    ----------
    sizes_a, probs_a, sizes_b, probs_b : array_like
        Integer counts and their probabilities on P and on P′.
    eps_sample : float
        ε of the Laplace count on the sample.

    Returns
    -------
    float
        ``L >= 0``; a lower bound on the guarantee any analysis can give this design.

    Notes
    -----
    Between two integers the density ratio is monotone, so the supremum is attained at an
    integer of the supports or in the limits y → ±∞.
    """
    e = float(check_eps("eps_sample", eps_sample))
    parts: list[NDArray[Any]] = []
    for name_s, name_p, s_, p_ in (
        ("sizes_a", "probs_a", sizes_a, probs_a),
        ("sizes_b", "probs_b", sizes_b, probs_b),
    ):
        s = _int_vector(name_s, np.atleast_1d(s_), minimum=0)
        p = _float_vector(name_p, np.atleast_1d(p_), s.size)
        if not abs(float(p.sum()) - 1.0) <= 1e-9:
            raise ValueError(f"{name_p} must sum to 1")
        parts.extend([s, p])
    up, down = _directional_sups(parts[0], parts[1], parts[2], parts[3], e)
    return max(up, down, 0.0)


def allocation_count_loss(
    allocation_a: ArrayLike, allocation_b: ArrayLike, eps_sample: float, release: str = "all"
) -> float:
    """Loss of releasing noisy stratum counts when two populations get fixed allocations.

    Bun et al. section 4.1 applied per stratum. The mechanism on the sample releases
    ``|S_i| + Laplace(1/ε)`` for every stratum (``release="all"``; ε-DP on the sample, since
    adding or removing one record moves one count by 1), or for one stratum only
    (``release="largest"``, the one that moves most). With deterministic allocations the
    counts are the allocations themselves, so the loss between the populations is exactly::

        all:      ε · Σ_i |m′_i - m_i|
        largest:  ε · max_i |m′_i - m_i|

    For the paper's Neyman allocations (:data:`PAPER_NEYMAN_E1`) the largest shift is 19
    records, so releasing the top stratum's noisy count leaks 19ε.
    """
    e = float(check_eps("eps_sample", eps_sample))
    a = _int_vector("allocation_a", allocation_a, minimum=0)
    b = _int_vector("allocation_b", allocation_b, minimum=0)
    if a.shape != b.shape:
        raise ValueError("the two allocations must have the same number of strata")
    if release not in ("all", "largest"):
        raise ValueError(f"release must be 'all' or 'largest'; got {release!r}")
    shift = np.abs(b - a)
    return float(shift.sum() if release == "all" else shift.max()) * e


@dataclass(frozen=True)
class RoundingExample:
    """Section 4.3: one stratum of ``size`` records against one of ``size + 1``.

    Attributes
    ----------
    size, rate : int, float
        ``|P|`` and ``r``; the neighbour has ``|P′| = size + 1``.
    deterministic : tuple of int
        ``round(r|P|)`` and ``round(r|P′|)`` (halves up).
    floors : tuple of int
        ``⌊r|P|⌋`` and ``⌊r|P′|⌋``.
    p_up : tuple of float
        Probability of rounding up under randomised rounding, for P and P′.
    """

    size: int
    rate: float
    deterministic: tuple[int, int]
    floors: tuple[int, int]
    p_up: tuple[float, float]

    def deterministic_loss(self, eps_sample: float) -> float:
        """Loss of the noisy-count release with deterministic rounding: ``|Δ|·ε``."""
        a, b = self.deterministic
        return noisy_count_loss([a], [1.0], [b], [1.0], eps_sample)

    def randomized_loss(self, eps_sample: float) -> float:
        """Loss of the noisy-count release with randomised rounding (exact)."""
        (fa, fb), (pa, pb) = self.floors, self.p_up
        return noisy_count_loss([fa, fa + 1], [1 - pa, pa], [fb, fb + 1], [1 - pb, pb], eps_sample)


def rounding_example(size: int = 14, rate: float = 0.1) -> RoundingExample:
    """The counter-example of Bun et al. section 4.3 (``|P| = 14``, ``|P′| = 15``, r = 1/10).

    Deterministic rounding draws 1 record from P and 2 from P′, so a released noisy count
    tells the two apart with loss ε (more than no sampling at all would leak about this
    record); randomised rounding draws 1 or 2 from both, with probabilities 0.6/0.4 and
    0.5/0.5.
    """
    nn = check_whole("size", size, 1, 2**52)
    r = _rate(rate)
    det = proportional_allocation([nn, nn + 1], r, "deterministic")
    floors, p = _randomized_parts(np.array([nn, nn + 1], dtype=np.int64), r)
    return RoundingExample(
        size=nn,
        rate=r,
        deterministic=(int(det[0]), int(det[1])),
        floors=(int(floors[0]), int(floors[1])),
        p_up=(float(p[0]), float(p[1])),
    )


def top_code_neighbour(
    values: ArrayLike,
    summary: StratumSummary,
    *,
    new_value: float,
    index: int | None = None,
    new_stratum: int | None = None,
) -> StratumSummary:
    """The summary of a neighbouring population in which one record was changed.

    Bun et al. Appendix E.1 build the neighbour by raising the establishment with the fewest
    employees to the 10,000 top code, which moves it into the top size class. By default
    this changes the smallest record (``index = argmin(values)``; the first one among ties)
    to ``new_value`` and puts it in the stratum of the population's largest record -- for
    size-class strata exactly the paper's move. Replacing one record is the neighbour
    relation of differential privacy for a population of fixed size.

    Parameters
    ----------
    values : array_like
        The records the summary was built from.
    summary : StratumSummary
        From :func:`stratum_summary`.
    new_value : float
        The changed record's new value (e.g. the top code).
    index : int, optional
        Which record to change (default: the smallest).
    new_stratum : int, optional
        Stratum index of the changed record (default: the stratum of the largest record).

    Returns
    -------
    StratumSummary
        Same strata, in the same order, for the neighbouring population.
    """
    v = np.array(values, dtype=np.float64)
    if v.shape != summary.codes.shape:
        raise ValueError("values and the stratum summary do not describe the same records")
    nv = float(new_value)
    if not math.isfinite(nv):
        raise ValueError("new_value must be a finite number")
    i = int(np.argmin(v)) if index is None else check_whole("index", index, 0, v.size - 1)
    target = (
        int(summary.codes[int(np.argmax(v))])
        if new_stratum is None
        else check_whole("new_stratum", new_stratum, 0, summary.k - 1)
    )
    codes = np.array(summary.codes)
    v[i] = nv
    codes[i] = target
    k = summary.k
    sizes = np.bincount(codes, minlength=k).astype(np.int64)
    if np.any(sizes == 0):
        raise ValueError("the change would leave a stratum empty; choose another record")
    means = np.bincount(codes, weights=v, minlength=k) / sizes
    dev2 = np.bincount(codes, weights=(v - means[codes]) ** 2, minlength=k)
    denom = sizes - summary.ddof
    sds = np.sqrt(np.divide(dev2, denom, out=np.zeros(k), where=denom > 0))
    for arr in (sizes, means, sds, codes):
        arr.setflags(write=False)
    return StratumSummary(
        labels=summary.labels, sizes=sizes, means=means, sds=sds, codes=codes, ddof=summary.ddof
    )


@dataclass(frozen=True, eq=False)
class NeighbourComparison:
    """Both allocations on a population P and on a neighbour P′ (Bun et al. §7.2, App. E.1).

    Attributes
    ----------
    labels : tuple
        Stratum labels.
    m : int
        Total sample size of the Neyman allocations; ``rate = m / N`` for proportional.
    sizes, sizes_neighbour : numpy.ndarray of int64
        ``N_i`` on P and P′.
    sds, sds_neighbour : numpy.ndarray of float64
        ``σ_i`` on P and P′.
    neyman, neyman_neighbour : numpy.ndarray of int64
        :func:`neyman_allocation` on P and P′.
    proportional, proportional_neighbour : numpy.ndarray of int64
        Deterministic :func:`proportional_allocation` on P and P′.
    rate : float
        ``m / N``.
    """

    labels: tuple[object, ...]
    m: int
    sizes: IntArray
    sizes_neighbour: IntArray
    sds: FloatArray
    sds_neighbour: FloatArray
    neyman: IntArray
    neyman_neighbour: IntArray
    proportional: IntArray
    proportional_neighbour: IntArray
    rate: float

    @property
    def neyman_shift(self) -> IntArray:
        """``m′_i - m_i`` for Neyman allocation."""
        return self.neyman_neighbour - self.neyman

    @property
    def proportional_shift(self) -> IntArray:
        """``m′_i - m_i`` for deterministic proportional allocation."""
        return self.proportional_neighbour - self.proportional

    @property
    def most_moved(self) -> int:
        """Index of the stratum whose Neyman sample size moves most.

        Among ties, a stratum that gains records comes first (in the paper's example the
        top stratum, which the changed record joins), then the earlier stratum.
        """
        shift = self.neyman_shift
        size = np.abs(shift)
        ties = np.flatnonzero(size == size.max())
        gaining = ties[shift[ties] > 0]
        return int(gaining[0] if gaining.size else ties[0])

    def count_loss(self, eps_sample: float, design: str, release: str = "all") -> float:
        """Privacy loss between P and P′ of releasing noisy stratum counts of the sample.

        Section 4.1 applied per stratum: the mechanism releases ``|S_i| + Laplace(1/ε)`` for
        every stratum (``release="all"``; ε-DP on the sample, since adding or removing one
        record moves one count by 1) or for the stratum that moves most only
        (``release="largest"``). With a deterministic allocation the counts are the
        allocation itself, and the loss is exactly ``ε · Σ_i |m′_i - m_i|`` (``"all"``) or
        ``ε · max_i |m′_i - m_i|`` (``"largest"``).

        ``design`` is ``"neyman"``, ``"proportional"`` (deterministic rounding) or
        ``"randomized"`` (randomised rounding, computed exactly with
        :func:`noisy_count_loss`; coordinates are independent, so the loss of the joint
        release is the larger of the two directional sums of per-stratum suprema).
        """
        e = float(check_eps("eps_sample", eps_sample))
        if release not in ("all", "largest"):
            raise ValueError(f"release must be 'all' or 'largest'; got {release!r}")
        if design == "neyman":
            return allocation_count_loss(self.neyman, self.neyman_neighbour, e, release)
        if design == "proportional":
            return allocation_count_loss(self.proportional, self.proportional_neighbour, e, release)
        if design != "randomized":
            raise ValueError(
                f"design must be 'neyman', 'proportional' or 'randomized'; got {design!r}"
            )
        fa, pa = _randomized_parts(self.sizes, self.rate)
        fb, pb = _randomized_parts(self.sizes_neighbour, self.rate)
        ups, downs = [], []
        for i in range(self.sizes.size):
            if fa[i] == fb[i] and pa[i] == pb[i]:
                ups.append(0.0)
                downs.append(0.0)
                continue
            up, down = _directional_sups(
                np.array([fa[i], fa[i] + 1]),
                np.array([1 - pa[i], pa[i]]),
                np.array([fb[i], fb[i] + 1]),
                np.array([1 - pb[i], pb[i]]),
                e,
            )
            ups.append(up)
            downs.append(down)
        if release == "largest":
            return max(max(u, d) for u, d in zip(ups, downs, strict=True))
        return max(sum(ups), sum(downs), 0.0)


def compare_neighbours(
    summary: StratumSummary, neighbour: StratumSummary, m: int
) -> NeighbourComparison:
    """Neyman and deterministic proportional allocations on P and on its neighbour P′.

    Bun et al. section 7.2 and Appendix E.1: Neyman allocation depends on the stratum
    standard deviations, so changing one record can move many sampled records; any
    mechanism that lets the stratum sample sizes show through then pays for the shift
    (:meth:`NeighbourComparison.count_loss`). Deterministic proportional allocation moves
    at most one record per changed stratum, randomised rounding hides even that.

    Parameters
    ----------
    summary, neighbour : StratumSummary
        The strata of P and P′ (same labels, same order; :func:`top_code_neighbour`).
    m : int
        Total sample size; proportional allocation uses ``rate = m / N``.
    """
    if summary.labels != neighbour.labels:
        raise ValueError("the two populations must have the same strata in the same order")
    total = summary.population_size
    if neighbour.population_size != total:
        raise ValueError("neighbouring populations must have the same size")
    mm = check_whole("m (total sample size)", m, 1, total)
    rate = mm / total
    return NeighbourComparison(
        labels=summary.labels,
        m=mm,
        sizes=summary.sizes,
        sizes_neighbour=neighbour.sizes,
        sds=summary.sds,
        sds_neighbour=neighbour.sds,
        neyman=neyman_allocation(summary.sizes, summary.sds, mm),
        neyman_neighbour=neyman_allocation(neighbour.sizes, neighbour.sds, mm),
        proportional=proportional_allocation(summary.sizes, rate, "deterministic"),
        proportional_neighbour=proportional_allocation(neighbour.sizes, rate, "deterministic"),
        rate=rate,
    )
