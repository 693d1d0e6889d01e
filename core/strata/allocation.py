"""Allocations of a sample to strata: Neyman and proportional (Bun et al. 2022, section 7).

:func:`neyman_allocation` (section 7.2) draws ``m_i ∝ N_i σ_i``, the integer allocation that
minimises the variance of the weighted mean; :func:`proportional_allocation` (sections 4.3
and 7.3) draws the same fraction ``r`` of every stratum, rounded to the nearest integer or
at random.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._validation import FloatArray, check_whole
from ..strata.checks import IntArray, Rounding, _float_vector, _generator, _int_vector, _rate

__all__ = [
    "PAPER_NEYMAN_E1",
    "neyman_allocation",
    "neyman_shares",
    "proportional_allocation",
]


#: The two Neyman allocations printed in Bun et al. section 7.2 and Appendix E.1 (CBP
#: establishments, 12 size classes, m = 10,000): the population and its neighbour in which
#: the smallest establishment was raised to the 10,000-employee top code. They differ by 19
#: records in the top stratum. (They sum to 10,004 and 10,005: the paper rounded each stratum
#: on its own.)
PAPER_NEYMAN_E1: tuple[tuple[int, ...], tuple[int, ...]] = (
    (1261, 621, 517, 1969, 833, 1947, 1058, 762, 257, 248, 306, 225),
    (1259, 620, 516, 1965, 831, 1943, 1056, 761, 257, 247, 306, 244),
)


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
