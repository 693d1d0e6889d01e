"""The smooth sensitivity of a quantile from a window of runs of equal values.

The formula
-----------
Equation (4) of Hu, Drechsler & Kim (2023) (Nissim, Raskhodnikova & Smith 2007, Section 3.1)
for the order statistic of rank ``k`` of a sorted sample ``y_(1..n)`` padded with
``y_(0) = lower`` and ``y_(n+1) = upper``:

    ``S = max { (y_(j) - y_(i)) e^{-beta (j - i - 1)} : 0 <= i <= k <= j <= n + 1 }``.

On runs
-------
The window's known part of ``S`` needs one pair per pair of runs, the largest rank of the
lower run and the smallest of the upper one: a maximum over a totally monotone matrix of
``(c + 2) × (runs above c + 2)`` entries, found by a divide and conquer over rows in
``O(runs · log runs)`` (:mod:`core.sensitivity.run_kernels`, which gives the argument and is
shared with the smooth sensitivity of a whole tied sample).

The certificate is that of :func:`core.sensitivity.smooth_sensitivity_window_batch`: each
pair with an unknown rank is bounded through the unexpanded block holding it (ranks
``p1 .. p2``, values in ``[low, high]``), against the window's runs in segments of doubling
length; when the known maximum reaches the largest bound, it is ``S`` of the whole sample.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._validation import FloatArray
from ..sensitivity.kernels import _unknown_pairs_bound
from ..sensitivity.run_kernels import _best_pair, _pair_value, _run_matrix
from ..sensitivity.smooth import _block_arrays, _check_window_args
from ..windowed.runs import Blocks, RunView

__all__ = ["smooth_sensitivity_runs"]

try:  # numba is optional: without it the same loops run as plain Python (slowly).
    import numba as _numba
except ImportError:  # pragma: no cover - exercised only where numba is missing
    _numba = None  # type: ignore[assignment]


def _runs_core(
    value: FloatArray, first: NDArray[np.int64], last: NDArray[np.int64],
    count: NDArray[np.int64], n: NDArray[np.int64], k: NDArray[np.int64], beta: float,
    lower: float, upper: float, offsets: NDArray[np.int64], block_first: NDArray[np.int64],
    block_last: NDArray[np.int64], block_low: FloatArray, block_high: FloatArray,
    out: FloatArray, ok: NDArray[np.bool_],
) -> None:  # fmt: skip
    """Row ``r``: the largest known pair value on runs, and whether it is certified."""
    reps, width = value.shape
    lv = np.empty(width + 2)
    hv = np.empty(width + 2)
    lp = np.empty(width + 2, dtype=np.int64)
    hp = np.empty(width + 2, dtype=np.int64)
    stack = np.empty((2 * (width + 2) + 64, 4), dtype=np.int64)
    for r in range(reps):
        m = count[r]
        kk = k[r]
        nn = n[r]
        a = first[r, 0]
        b = last[r, m - 1]
        nl, nh = _run_matrix(value[r], first[r], last[r], m, kk, nn, lower, upper, lv, lp, hv, hp)
        bp, bq, best = _best_pair(lv, lp, nl, hv, hp, nh, beta, stack)
        s = _pair_value(lv, lp, hv, hp, bp, bq, best, beta)
        bound = 0.0
        for t in range(offsets[r], offsets[r + 1]):
            low = block_low[t]
            high = block_high[t]
            if block_last[t] < a:  # below the window: i in this block, j a column
                p2 = block_last[t]
                q1 = 0
                step = 1
                while q1 <= nh - 2:
                    q2 = min(nh - 2, q1 + step - 1)
                    bound = max(bound, (hv[q2] - low) * math.exp(-beta * (hp[q1] - p2 - 1)))
                    q1 = q2 + 1
                    step *= 2
                bound = max(bound, (upper - low) * math.exp(-beta * (nn - p2)))
                bound = _unknown_pairs_bound(
                    bound, low, p2, b, beta, offsets[r], offsets[r + 1], block_first, block_high
                )
            else:  # above the window: j in this block, i a row
                q = block_first[t]
                p2 = nl - 1
                step = 1
                while p2 >= 1:
                    p1 = max(1, p2 - step + 1)
                    bound = max(bound, (high - lv[p1]) * math.exp(-beta * (q - lp[p2] - 1)))
                    p2 = p1 - 1
                    step *= 2
                bound = max(bound, (high - lower) * math.exp(-beta * (q - 1)))
        out[r] = s
        ok[r] = s >= bound * (1.0 + 1e-12)
    return


if _numba is not None:
    _runs_core = _numba.njit(cache=True, nogil=True)(_runs_core)


def smooth_sensitivity_runs(
    view: RunView,
    n: ArrayLike,
    k: ArrayLike,
    beta: float,
    lower: float,
    upper: float,
    blocks: Blocks,
) -> tuple[FloatArray, NDArray[np.bool_]]:
    """The ``beta``-smooth sensitivity of rank ``k`` from a window of runs (module docstring).

    Parameters
    ----------
    view : RunView
        Row ``r``: the known runs of a sample of size ``n[r]``, covering ranks ``a .. b``
        with ``a <= k[r] <= b``.
    n, k : array_like of int, shape (reps,)
        Sample sizes and ranks.
    beta : float
        Smoothing parameter, finite and > 0.
    lower, upper : float
        Public bounds (the padding values).
    blocks : tuple
        ``(offsets, first, last, low, high)``: for row ``r`` the blocks ``offsets[r] ..
        offsets[r + 1] - 1``, each a range of ranks below ``a`` or above ``b`` with values in
        ``[low, high]``, together covering every rank outside the window (as in
        :func:`core.sensitivity.smooth_sensitivity_window_batch`).

    Returns
    -------
    S : ndarray, shape (reps,)
        The largest known pair value (``S`` itself where certified, a lower bound otherwise).
    certified : ndarray of bool, shape (reps,)
        Whether ``S`` is the smooth sensitivity of the whole sample.
    """
    lo, hi, b = _check_window_args(lower, upper, beta)
    reps = view.count.size
    nn, kk = (np.ascontiguousarray(np.asarray(x, dtype=np.int64).reshape(reps)) for x in (n, k))
    if reps and view.count.min() < 1:
        raise ValueError("every row's window must hold at least one run")
    end = view.last[np.arange(reps), view.count - 1]
    if reps and np.any((view.first[:, 0] > kk) | (end < kk)):
        raise ValueError("every row's window must hold its rank k")
    off, bf, bl, blow, bhigh = _block_arrays(blocks)
    out = np.empty(reps)
    ok = np.zeros(reps, dtype=np.bool_)
    if reps:
        _runs_core(
            np.ascontiguousarray(view.value), np.ascontiguousarray(view.first),
            np.ascontiguousarray(view.last), np.ascontiguousarray(view.count), nn, kk, b, lo,
            hi, off, bf, bl, blow, bhigh, out, ok,
        )  # fmt: skip
    return out, ok
