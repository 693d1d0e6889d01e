"""Compiled kernels of the exact smooth sensitivity of a sorted sample given as runs.

A sorted sample with ties is a list of runs ``(v_p, f_p, l_p)``: value, first and last
rank (1-indexed).  For the order statistic of rank ``k`` in run ``c``, equation (4) of Hu,
Drechsler & Kim (2023) (Nissim, Raskhodnikova & Smith 2007) is

    ``S = max { (y_(j) - y_(i)) e^{-beta (j - i - 1)} : 0 <= i <= k <= j <= n + 1 }``

with ``y_(0) = lower`` and ``y_(n+1) = upper``.  Inside one run the difference is 0.  For
``i`` in run ``p <= c`` and ``j`` in run ``q >= c`` (``p < q``) the value grows as ``j - i``
shrinks, so the best pair of the two runs is ``i = min(l_p, k)``, ``j = max(f_q, k)``: one
pair per pair of runs.  With the padding ranks as one-rank runs ``(lower, 0, 0)`` and
``(upper, n + 1, n + 1)``, ``S`` is the maximum of a ``(c + 2) × (runs above c + 2)``
matrix.  Its logarithm ``log(v_q - v_p) - beta (j_q - i_p - 1)`` is totally monotone (for
``v_p < v_p'`` the ratio ``(v_q - v_p) / (v_q - v_p')`` falls as ``v_q`` grows, and the rank
terms are separable), so the best column is non-decreasing in the row and a divide and
conquer over rows finds the maximum in ``O(runs · log runs)``, compared in the log domain
where nothing underflows, whatever the length of the tie blocks.

:func:`_runs_whole` is that maximum for a whole sample (used by
:mod:`core.sensitivity.smooth` for long, heavily tied rows such as the census of a
register); :mod:`core.windowed.run_sensitivity` uses the same matrix for a window of runs
and bounds the ranks it does not know.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from .._validation import FloatArray
from ..sensitivity.checks import _njit, _numba
from ..sensitivity.kernels import _push_halves

__all__: list[str] = []


def _score(hv: float, lv: float, hp: int, lp: int, beta: float) -> float:
    """``log((hv - lv) e^{-beta (hp - lp - 1)})``, ``-inf`` when ``hv <= lv``."""
    if hv <= lv:
        return -np.inf
    return math.log(hv - lv) - beta * (hp - lp - 1)


def _best_pair(
    lv: FloatArray, lp: NDArray[np.int64], nl: int, hv: FloatArray, hp: NDArray[np.int64], nh: int,
    beta: float, stack: NDArray[np.int64],
) -> tuple[int, int, float]:  # fmt: skip
    """Row and column of the largest entry of the totally monotone matrix (module
    docstring), by divide and conquer over rows; ties keep the largest column."""
    best = -np.inf
    bp = 0
    bq = 0
    stack[0, 0] = 0
    stack[0, 1] = nl - 1
    stack[0, 2] = 0
    stack[0, 3] = nh - 1
    top = 1
    while top > 0:
        top -= 1
        rl = stack[top, 0]
        rh = stack[top, 1]
        cl = stack[top, 2]
        ch = stack[top, 3]
        mid = (rl + rh) // 2
        arg = cl
        row_best = -np.inf
        for q in range(cl, ch + 1):
            s = _score(hv[q], lv[mid], hp[q], lp[mid], beta)
            if s >= row_best:
                row_best = s
                arg = q
        if row_best == -np.inf:
            arg = ch
        if row_best > best:
            best = row_best
            bp = mid
            bq = arg
        top = _push_halves(stack, top, rl, mid, rh, cl, arg, ch)
    return bp, bq, best


def _run_matrix(
    value: FloatArray, first: NDArray[np.int64], last: NDArray[np.int64], m: int, kk: int,
    nn: int, lower: float, upper: float, lv: FloatArray, lp: NDArray[np.int64],
    hv: FloatArray, hp: NDArray[np.int64],
) -> tuple[int, int]:  # fmt: skip
    """Fill the matrix's rows and columns from runs ``0 .. m - 1`` (which hold rank ``kk``);
    returns ``(rows, columns)``.

    Rows: the padding rank 0, then runs ``0 .. c`` at their largest rank ``<= kk``.
    Columns: runs ``c .. m - 1`` at their smallest rank ``>= kk``, then the padding rank
    ``nn + 1`` (``c`` the run holding ``kk``).
    """
    c = 0
    while last[c] < kk:
        c += 1
    lv[0] = lower
    lp[0] = 0
    for p in range(c + 1):
        lv[p + 1] = value[p]
        lp[p + 1] = min(last[p], kk)
    for q in range(c, m):
        hv[q - c] = value[q]
        hp[q - c] = max(first[q], kk)
    nh = m - c + 1
    hv[nh - 1] = upper
    hp[nh - 1] = nn + 1
    return c + 2, nh


def _pair_value(
    lv: FloatArray, lp: NDArray[np.int64], hv: FloatArray, hp: NDArray[np.int64], bp: int,
    bq: int, best: float, beta: float,
) -> float:  # fmt: skip
    """The matrix's largest entry as a value (0 when every difference is 0)."""
    if best == -np.inf:
        return 0.0
    return (hv[bq] - lv[bp]) * math.exp(-beta * (hp[bq] - lp[bp] - 1))


def _runs_whole(
    value: FloatArray, first: NDArray[np.int64], last: NDArray[np.int64], n: int, k: int,
    beta: float, lower: float, upper: float,
) -> float:  # fmt: skip
    """``S`` of rank ``k`` of a whole sorted sample of size ``n`` given as its runs."""
    m = value.size
    lv = np.empty(m + 2)
    hv = np.empty(m + 2)
    lp = np.empty(m + 2, dtype=np.int64)
    hp = np.empty(m + 2, dtype=np.int64)
    stack = np.empty((2 * (m + 2) + 64, 4), dtype=np.int64)
    nl, nh = _run_matrix(value, first, last, m, k, n, lower, upper, lv, lp, hv, hp)
    bp, bq, best = _best_pair(lv, lp, nl, hv, hp, nh, beta, stack)
    return _pair_value(lv, lp, hv, hp, bp, bq, best, beta)


if _numba is not None:
    _score = _njit(_score)
    _best_pair = _njit(_best_pair)
    _run_matrix = _njit(_run_matrix)
    _pair_value = _njit(_pair_value)
    _runs_whole = _njit(_runs_whole)
