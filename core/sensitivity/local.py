"""Ranks of the median and of a quantile, the smooth-sensitivity ``beta``, and the global
and local sensitivities of the mean, the median and any quantile (Hu, Drechsler & Kim,
Section 2.2)."""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._validation import (
    check_bounds,
    check_interval,
    check_vector,
    describe_bad,
    finite_scalar,
)
from ..sensitivity.checks import _check_data, _check_eps_delta


def median_rank(n: int) -> int:
    """1-indexed rank of the (lower) median of ``n`` values.

    Parameters
    ----------
    n : int
        Number of values, ``n >= 1``.

    Returns
    -------
    int
        ``(n + 1) // 2``: the middle rank ``(n+1)/2`` for odd ``n`` (Hu et al., Section 4.3)
        and the lower median ``n/2`` for even ``n``.  The same rank is used for the released
        median and for its sensitivity in this module.
    """
    if isinstance(n, bool) or int(n) != n:
        raise ValueError(f"n must be an integer; got {n!r}")
    n = int(n)
    if n < 1:
        raise ValueError(f"n must be >= 1; got {n}")
    return (n + 1) // 2


def check_quantile(quantile: object) -> float:
    """A quantile level in the open interval (0, 1), as a Python float."""
    if type(quantile) is float and 0.0 < quantile < 1.0:  # already a level: the usual case
        return quantile
    q = finite_scalar("quantile", quantile)
    return float(check_interval("quantile", q, 0.0, 1.0, low_open=True, high_open=True))


def quantile_rank(n: int, quantile: float) -> int:
    """1-indexed rank ``k`` of the order statistic released as the ``quantile`` of ``n`` values.

    Parameters
    ----------
    n : int
        Number of values, ``n >= 1``.
    quantile : float
        Level ``q`` in (0, 1).

    Returns
    -------
    int
        ``k = ceil(q n)`` clipped to ``[1, n]``: the smallest rank with at least a share
        ``q`` of the values at or below ``y_(k)`` (the inverse of the empirical CDF).  When
        ``q n`` is within ``1e-12`` (relative) of a whole number it is taken as that number,
        so that the binary rounding of, say, ``0.1`` does not move ``ceil(0.1 * 10)`` to 2.
        For ``q = 0.5``: ``ceil(n / 2) = (n + 1) // 2`` = :func:`median_rank`.

    Raises
    ------
    ValueError
        For ``n`` not a whole number >= 1 or ``quantile`` not in (0, 1).
    """
    if isinstance(n, bool) or int(n) != n or int(n) < 1:
        raise ValueError(f"n must be an integer >= 1; got {n!r}")
    n = int(n)
    q = check_quantile(quantile)
    x = q * n
    whole = round(x)
    k = whole if abs(x - whole) <= 1e-12 * max(1.0, x) else math.ceil(x)
    return min(max(k, 1), n)


def quantile_ranks(sizes: ArrayLike, quantile: float) -> NDArray[np.int64]:
    """:func:`quantile_rank` of every size in ``sizes`` at once (the same rule, vectorised).

    Parameters
    ----------
    sizes : array_like of int
        Numbers of values, each ``>= 1``.
    quantile : float
        Level ``q`` in (0, 1).

    Returns
    -------
    ndarray of int64, the shape of ``sizes``
    """
    n = np.asarray(sizes, dtype=np.int64)
    if n.size and n.min() < 1:
        raise ValueError(f"sizes must be integers >= 1; got a minimum of {int(n.min())}")
    q = check_quantile(quantile)
    x = q * n.astype(np.float64)
    whole = np.round(x)
    k = np.where(np.abs(x - whole) <= 1e-12 * np.maximum(1.0, x), whole, np.ceil(x))
    return np.clip(k.astype(np.int64), 1, np.maximum(n, 1))


def median_of_sorted(values: ArrayLike) -> float:
    """The (lower) median ``y_(m)``, ``m = median_rank(n)``, of sorted values.

    Parameters
    ----------
    values : array_like
        One-dimensional, finite, sorted in non-decreasing order (checked).

    Returns
    -------
    float
        ``values[m - 1]``.  For odd ``n`` the usual median; for even ``n`` the lower of the two
        middle values (not their average), matching :func:`smooth_sensitivity_median`.
    """
    arr = check_vector("values", values)
    if not np.isfinite(arr).all():
        raise ValueError(f"values must be finite; {describe_bad(arr, ~np.isfinite(arr))}")
    if arr.size > 1 and (arr[1:] < arr[:-1]).any():
        raise ValueError("values must be sorted in non-decreasing order")
    return float(arr[median_rank(arr.size) - 1])


def smooth_beta(eps: float, delta: float) -> float:
    """Smoothing parameter ``beta = eps / (2 ln(2 / delta))``.

    Hu et al., Section 2.2 after equation (4); Nissim, Raskhodnikova & Smith (2007) for the
    (eps, delta) Laplace calibration it comes from.

    Parameters
    ----------
    eps : float
        Privacy-loss parameter, finite and > 0.
    delta : float
        Failure probability in (0, 1).

    Returns
    -------
    float
        ``beta > 0``.
    """
    e, d = _check_eps_delta(eps, delta)
    return e / (2.0 * (math.log(2.0) - math.log(d)))


def global_sensitivity_mean(n: int, lower: float, upper: float) -> float:
    """Global sensitivity ``R / n`` of the mean of ``n`` values in ``[lower, upper]``.

    Hu et al., Section 2.2: changing one record from one bound to the other moves the mean
    by ``R / n`` with ``R = upper - lower``.
    """
    lo, hi = check_bounds(lower, upper)
    if isinstance(n, bool) or int(n) != n or int(n) < 1:
        raise ValueError(f"n must be an integer >= 1; got {n!r}")
    return (hi - lo) / int(n)


def global_sensitivity_median(lower: float, upper: float) -> float:
    """Global sensitivity ``R = upper - lower`` of the median (Hu et al., Section 2.2).

    Worst case: half the records (including the median) at ``lower``, the rest at
    ``upper``; moving one low record to ``upper`` moves the median across the whole range.
    """
    lo, hi = check_bounds(lower, upper)
    return hi - lo


def local_sensitivity_mean(values: ArrayLike, lower: float, upper: float) -> float:
    """Local sensitivity of the mean, ``max(upper - min(y), max(y) - lower) / n``.

    Hu et al., Section 2.2 (``R(Y_N) / N``): the largest move of the mean when one record is
    replaced by any value in ``[lower, upper]``.  It never exceeds the global value
    :func:`global_sensitivity_mean` and equals it when the data touch a bound.

    Parameters
    ----------
    values : array_like
        The data (any order), finite and inside ``[lower, upper]``.
    lower, upper : float
        Public bounds, ``lower < upper``.
    """
    lo, hi = check_bounds(lower, upper)
    arr = check_vector("values", values)
    _check_data(arr, lo, hi, sorted_=False, name="values")
    return max(hi - float(arr.min()), float(arr.max()) - lo) / arr.size


def local_sensitivity_median(
    values: ArrayLike, lower: float, upper: float, *, assume_sorted: bool = False
) -> float:
    """Local sensitivity of the (lower) median: ``max(y_(m+1) - y_(m), y_(m) - y_(m-1))``.

    Hu et al., Section 2.2, with the padding ``y_(0) = lower`` and ``y_(n+1) = upper`` (for
    ``n <= 2`` one changed record can move the median to a bound).  It is the ``k = 0`` term
    of equation (4), so it never exceeds the smooth sensitivity.

    Parameters
    ----------
    values : array_like
        The data, finite and inside ``[lower, upper]``.
    lower, upper : float
        Public bounds, ``lower < upper``.
    assume_sorted : bool, optional
        Skip sorting (sortedness is still checked).
    """
    lo, hi = check_bounds(lower, upper)
    arr = check_vector("values", values)
    _check_data(arr, lo, hi, sorted_=assume_sorted, name="values")
    y = arr if assume_sorted else np.sort(arr)
    n = y.size
    m = median_rank(n)
    below = lo if m - 2 < 0 else float(y[m - 2])
    above = hi if m >= n else float(y[m])
    med = float(y[m - 1])
    return max(above - med, med - below)


def local_sensitivity_quantile(
    values: ArrayLike,
    lower: float,
    upper: float,
    *,
    quantile: float = 0.5,
    assume_sorted: bool = False,
) -> float:
    """Local sensitivity of the order statistic ``y_(k)``, ``k = quantile_rank(n, quantile)``.

    ``max(y_(k+1) - y_(k), y_(k) - y_(k-1))`` with ``y_(0) = lower``, ``y_(n+1) = upper``:
    the ``j = 0`` term of eq. (4) of Hu et al. (Section 2.2) at rank ``k``, so it never
    exceeds :func:`smooth_sensitivity_quantile`.  Parameters as
    :func:`local_sensitivity_median`, plus ``quantile`` in (0, 1).
    """
    lo, hi = check_bounds(lower, upper)
    q = check_quantile(quantile)
    arr = check_vector("values", values)
    _check_data(arr, lo, hi, sorted_=assume_sorted, name="values")
    y = arr if assume_sorted else np.sort(arr)
    n = y.size
    k = quantile_rank(n, q)
    below = lo if k - 2 < 0 else float(y[k - 2])
    above = hi if k >= n else float(y[k])
    at = float(y[k - 1])
    return max(above - at, at - below)
