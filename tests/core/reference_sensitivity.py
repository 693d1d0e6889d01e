"""Slow, obviously correct reference versions for core.sensitivity.

Each function evaluates a definition literally, with no algorithmic shortcut:

* :func:`smooth_sensitivity_eq4` - equation (4) of Hu, Drechsler & Kim: the double maximum
  over ``k = 0..n`` and ``t = 0..k+1``, with the padded order statistics
  ``y_(r) = lower`` for ``r <= 0`` and ``y_(r) = upper`` for ``r >= n+1``.
* :func:`smooth_sensitivity_pairs` - the same quantity as a maximum over all pairs of
  ranks ``0 <= i <= m <= j <= n+1``, ``j > i``.
* :func:`local_sensitivity_median_bruteforce` - Definition 5 (Section 2.2): replace each
  record by each bound and recompute the median (the median is monotone in any single
  record, so the bounds give the extreme moves).
* :func:`smooth_sensitivity_bruteforce` - the definition of Nissim, Raskhodnikova & Smith,
  ``max over data sets y' of LS(y') exp(-beta d(y, y'))``, over every way of moving records
  to a bound (exponential; n <= 7 only).

Every smooth-sensitivity function takes an optional ``rank`` (1-indexed): the order
statistic whose sensitivity is wanted, the lower median when omitted.
:func:`quantile_rank_definition` gives the rank of a quantile from its definition.

The weights ``exp(-beta * k)`` are evaluated directly for every pair.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np


def beta(eps: float, delta: float) -> float:
    """beta = eps / (2 ln(2 / delta))."""
    return eps / (2.0 * math.log(2.0 / delta))


def lower_median_rank(n: int) -> int:
    """1-indexed rank: (n+1)/2 for odd n, n/2 for even n."""
    return (n + 1) // 2 if n % 2 else n // 2


def lower_median(values) -> float:
    y = sorted(float(v) for v in values)
    return y[lower_median_rank(len(y)) - 1]


def quantile_rank_definition(n: int, quantile: str) -> int:
    """Smallest rank k in 1..n with k / n >= q, for q given exactly as a decimal string."""
    q = Fraction(quantile)
    for k in range(1, n + 1):
        if Fraction(k, n) >= q:
            return k
    return n


def _rank(n: int, rank: int | None) -> int:
    return lower_median_rank(n) if rank is None else rank


def order_statistic(values, rank: int | None = None) -> float:
    y = sorted(float(v) for v in values)
    return y[_rank(len(y), rank) - 1]


def _order_stat(y_sorted, lower: float, upper: float, r: int) -> float:
    """Padded order statistic y_(r): lower for r <= 0, upper for r >= n+1."""
    n = len(y_sorted)
    if r <= 0:
        return lower
    if r >= n + 1:
        return upper
    return float(y_sorted[r - 1])


def smooth_sensitivity_eq4(values, eps, delta, lower, upper, rank=None, *, b=None) -> float:
    """Equation (4), literally: max_k e^{-k beta} max_t (y_(m+t) - y_(m+t-k-1)), m = rank.

    ``b`` gives beta directly (otherwise beta(eps, delta)).
    """
    y = sorted(float(v) for v in values)
    n = len(y)
    m = _rank(n, rank)
    b = beta(eps, delta) if b is None else b
    pad = np.array([_order_stat(y, lower, upper, r) for r in range(-n - 2, 2 * n + 4)])
    offset = n + 2  # pad[r + offset] = y_(r)
    best = 0.0
    for k in range(n + 1):
        t = np.arange(k + 2)
        inner = np.max(pad[m + t + offset] - pad[m + t - k - 1 + offset])
        best = max(best, math.exp(-k * b) * float(inner))
    return best


def smooth_sensitivity_pairs(values, eps, delta, lower, upper, rank=None) -> float:
    """max over 0 <= i <= m <= j <= n+1, j > i of (y_(j) - y_(i)) e^{-beta (j - i - 1)}."""
    y = sorted(float(v) for v in values)
    n = len(y)
    m = _rank(n, rank)
    b = beta(eps, delta)
    pad = np.array([lower, *y, upper])
    best = 0.0
    for i in range(m + 1):
        j = np.arange(max(m, i + 1), n + 2)
        w = np.exp(-b * (j - i - 1).astype(float))
        best = max(best, float(np.max((pad[j] - pad[i]) * w)))
    return best


def smooth_sensitivity_eq4_numpy(
    y_sorted: np.ndarray, eps, delta, lower, upper, rank=None
) -> float:
    """Equation (4) vectorised over t only: the O(n^2) baseline timed by the benchmark."""
    n = y_sorted.size
    m = _rank(n, rank)
    b = beta(eps, delta)
    pad = np.concatenate(([lower], y_sorted, [upper]))
    best = 0.0
    for k in range(n + 1):
        t = np.arange(k + 2)
        hi = np.minimum(m + t, n + 1)
        lo = np.maximum(m + t - k - 1, 0)
        best = max(best, math.exp(-k * b) * float(np.max(pad[hi] - pad[lo])))
    return best


def local_sensitivity_median_bruteforce(values, lower, upper, rank=None) -> float:
    """Largest move of the order statistic of ``rank`` (lower median by default) when one
    record is replaced by any bound value (an order statistic is monotone in each record)."""
    y = [float(v) for v in values]
    med = order_statistic(y, rank)
    best = 0.0
    for r in range(len(y)):
        for v in (lower, upper):
            changed = [*y[:r], v, *y[r + 1 :]]
            best = max(best, abs(order_statistic(changed, rank) - med))
    return best


def smooth_sensitivity_bruteforce(values, eps, delta, lower, upper, rank=None) -> float:
    """max over y' of LS(y') e^{-beta d(y, y')}, records moved to lower or upper (n <= 7)."""
    y = [float(v) for v in values]
    n = len(y)
    if n > 7:
        raise ValueError("exponential brute force: n <= 7 only")
    b = beta(eps, delta)
    best = 0.0
    for moves in itertools.product((None, lower, upper), repeat=n):
        changed = [v if mv is None else mv for v, mv in zip(y, moves, strict=True)]
        dist = sum(mv is not None for mv in moves)
        ls = local_sensitivity_median_bruteforce(changed, lower, upper, rank)
        best = max(best, ls * math.exp(-b * dist))
    return best
