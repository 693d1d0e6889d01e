"""Compiled kernels of the exact smooth sensitivity (the divide and conquer over monotone
partner ranks, Nissim, Raskhodnikova & Smith 2007), and their numpy fallback.

Plain Python functions when numba is missing; only called through numba otherwise, except
:func:`_smooth_numpy`, the vectorised fallback used without numba.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from .._validation import (
    FloatArray,
)
from ..sensitivity.checks import _njit, _numba

# Explicit stack for the divide and conquer: its depth is about log2(rows) + 1.
_STACK_ROWS = 256
# Block length for the weight table exp(-beta k) = exp(-beta B a) * exp(-beta b), k = B a + b.
_WEIGHT_BLOCK = 64
# Smallest normal double: products below it have lost relative precision.
_TINY = float(np.finfo(np.float64).tiny)
# Columns scanned between two checks of the row's early stop.
_CHUNK = 16


def _fill_weights(beta: float, count: int, w: FloatArray) -> None:
    """``w[k] = exp(-beta k)`` for ``k < count``, made non-increasing.

    Blocked: ``exp(-beta (B a + b)) = exp(-beta B a) * exp(-beta b)`` costs one
    multiplication per entry instead of one exponential, and is as accurate as the direct
    ``exp(-beta * k)`` (whose rounded argument already costs ~``beta k`` ulp).
    """
    block = _WEIGHT_BLOCK
    small = np.empty(block)
    for b in range(block):
        small[b] = math.exp(-beta * b)
    k = 0
    a = 0
    while k < count:
        big = math.exp(-beta * (block * a))
        stop = min(count, k + block)
        for b in range(stop - k):
            w[k + b] = big * small[b]
        k = stop
        a += 1
    if count > 0:
        w[0] = 1.0
    for k in range(1, count):
        if w[k] > w[k - 1]:
            w[k] = w[k - 1]


def _push_halves(
    stack: NDArray[np.int64], top: int, rl: int, mid: int, rh: int, cl: int, arg: int, ch: int
) -> int:
    """Push the rows ``rl .. mid - 1`` and ``mid + 1 .. rh`` of the block with columns
    ``cl .. ch``, their columns split at row ``mid``'s best column ``arg`` (the best
    partners are monotone); returns the new top of ``stack``."""
    if mid > rl:
        stack[top, 0] = rl
        stack[top, 1] = mid - 1
        stack[top, 2] = cl
        stack[top, 3] = arg
        top += 1
    if mid < rh:
        stack[top, 0] = mid + 1
        stack[top, 1] = rh
        stack[top, 2] = arg
        stack[top, 3] = ch
        top += 1
    return top


def _unknown_pairs_bound(
    bound: float, low: float, p: int, b: int, beta: float, t0: int, t1: int,
    block_first: NDArray[np.int64], block_high: FloatArray,
) -> float:  # fmt: skip
    """``bound`` raised by the pairs of a block below the window (lowest value ``low``,
    last rank ``p``) with each block ``t0 .. t1 - 1`` above it (first rank past ``b``)."""
    for u in range(t0, t1):
        if block_first[u] > b:  # both unknown
            d = block_first[u] - p - 1
            bound = max(bound, (block_high[u] - low) * math.exp(-beta * d))
    return bound


def _row_rescan(
    y: FloatArray,
    lower: float,
    upper: float,
    beta: float,
    w: FloatArray,
    i: int,
    cl: int,
    ch: int,
) -> tuple[float, int]:
    """Row ``i`` over columns ``cl..ch`` when its plain products underflowed.

    Returns (value, largest maximiser).  First the columns are compared with the weights
    rescaled to the row's first column, ``(y_j - y_i) exp(-beta (j - cl))``, a common
    factor that changes no comparison; if even those underflow, in the log domain,
    ``log(y_j - y_i) - beta (j - i - 1)`` (``-inf`` for ties), where nothing underflows.
    """
    n = y.shape[0]
    yi = lower if i == 0 else y[i - 1]
    d0 = cl - i - 1
    if d0 < 0:
        d0 = 0
    top = -1.0
    arg = cl
    for j in range(cl, ch + 1):
        dd = j - i - 1
        if dd < 0:
            v = 0.0
        else:
            yj = upper if j == n + 1 else y[j - 1]
            v = (yj - yi) * w[dd - d0]
        if v >= top:
            top = v
            arg = j
    if top < _TINY:
        top = -np.inf
        arg = cl
        for j in range(cl, ch + 1):
            yj = upper if j == n + 1 else y[j - 1]
            diff = yj - yi
            lv = math.log(diff) - beta * (j - i - 1) if diff > 0.0 else -np.inf
            if lv >= top:
                top = lv
                arg = j
        if top == -np.inf:
            return 0.0, arg
    if arg <= i:
        return 0.0, arg
    yj = upper if arg == n + 1 else y[arg - 1]
    return (yj - yi) * math.exp(-beta * (arg - i - 1)), arg


def _smooth_core(
    y: FloatArray, lower: float, upper: float, beta: float, w: FloatArray, m: int
) -> float:
    """Smooth sensitivity of the order statistic of rank ``m`` of sorted ``y`` (module docstring).

    ``w`` is a scratch buffer of length >= ``len(y) + 2``; ``1 <= m <= len(y)``.  Padded rank
    ``r`` (0..n+1) is ``lower`` for r = 0, ``y[r - 1]`` for 1..n and ``upper`` for n+1.
    """
    n = y.shape[0]
    big_r = upper - lower

    # Padded order statistic without copying: rank r in 0..n+1.
    # (inlined below as: lower if r == 0 else upper if r == n + 1 else y[r - 1])

    # --- lower bound: local sensitivity and pairs at doubling distances -------------
    ym = y[m - 1]
    ylo = lower if m - 2 < 0 else y[m - 2]
    yhi = upper if m >= n else y[m]
    best = max(yhi - ym, ym - ylo)
    d = 1
    while True:
        i = m - d
        j = m + d
        if i < 0:
            i = 0
        if j > n + 1:
            j = n + 1
        yi = lower if i == 0 else y[i - 1]
        yj = upper if j == n + 1 else y[j - 1]
        # (i, m), (m, j), (i, j)
        v = (ym - yi) * math.exp(-beta * (m - i - 1)) if m > i else 0.0
        if v > best:
            best = v
        v = (yj - ym) * math.exp(-beta * (j - m - 1)) if j > m else 0.0
        if v > best:
            best = v
        v = (yj - yi) * math.exp(-beta * (j - i - 1))
        if v > best:
            best = v
        if i == 0 and j == n + 1:
            break
        d *= 2
    # Ties at the median: the nearest ranks holding a different value, found by bisection.
    i = np.searchsorted(y, ym, side="left")  # rank of the last value < y_(m), or 0
    j = np.searchsorted(y, ym, side="right") + 1  # rank of the first value > y_(m), or n+1
    yi = lower if i == 0 else y[i - 1]
    yj = upper if j == n + 1 else y[j - 1]
    v = (ym - yi) * math.exp(-beta * (m - i - 1))
    if v > best:
        best = v
    v = (yj - ym) * math.exp(-beta * (j - m - 1))
    if v > best:
        best = v

    if best >= big_r:
        return best

    # --- restrict to the distances that can still beat `best` ----------------------
    # Pairs with distance j - i - 1 >= kcut are worth <= R exp(-beta kcut) <= best.
    if best > 0.0:
        kf = math.log(big_r / best) / beta + 2.0
        kcut = n + 1 if kf >= n + 1 else int(kf)
    else:
        kcut = n + 1
    row_lo = m - kcut
    if row_lo < 0:
        row_lo = 0
    col_hi = m + kcut
    if col_hi > n + 1:
        col_hi = n + 1
    nw = col_hi - row_lo  # distances 0 .. col_hi - row_lo - 1
    _fill_weights(beta, nw, w)

    # --- divide and conquer over rows with monotone partners ------------------------
    stack = np.empty((_STACK_ROWS, 4), dtype=np.int64)
    top = 0
    stack[0, 0] = row_lo
    stack[0, 1] = m
    stack[0, 2] = m
    stack[0, 3] = col_hi
    top = 1
    while top > 0:
        top -= 1
        rl = stack[top, 0]
        rh = stack[top, 1]
        cl = stack[top, 2]
        ch = stack[top, 3]
        y_rl = lower if rl == 0 else y[rl - 1]
        y_ch = upper if ch == n + 1 else y[ch - 1]
        dmin = cl - rh - 1
        if dmin < 0:
            dmin = 0
        if (y_ch - y_rl) * w[dmin] <= best:
            continue  # no pair in this block can beat the best value found so far
        mid = (rl + rh) // 2
        yi = lower if mid == 0 else y[mid - 1]
        span = y_ch - yi
        row_best = -1.0
        arg = cl
        j = cl
        if j <= mid:  # only the pair (m, m), whose difference is 0
            row_best = 0.0
            arg = j
            j += 1
        last = ch if ch <= n else n  # last column read from y; upper is handled below
        stopped = False
        while j <= last:
            stop = min(last, j + _CHUNK - 1)
            for jj in range(j, stop + 1):
                v = (y[jj - 1] - yi) * w[jj - mid - 1]
                if v >= row_best:  # ties: keep the largest maximiser
                    row_best = v
                    arg = jj
            j = stop + 1
            # Later columns are worth <= span * w[j - mid - 1] (data, weights and rounding
            # are monotone); once that is below the row's best nothing can even tie.
            if j - mid - 1 < nw and span * w[j - mid - 1] < row_best:
                stopped = True
                break
        if not stopped and ch == n + 1:
            v = (upper - yi) * w[n - mid]
            if v >= row_best:
                row_best = v
                arg = n + 1
        if row_best < _TINY and span > 0.0:
            # The row's values underflowed or are subnormal: rounded products no longer
            # order the columns as the exact values do, and a wrong split would hide
            # partners from other rows.  (span == 0 means exact zeros: nothing to fix.)
            row_best, arg = _row_rescan(y, lower, upper, beta, w, mid, cl, ch)
        if row_best > best:
            best = row_best
        top = _push_halves(stack, top, rl, mid, rh, cl, arg, ch)
    return best


def _batch_core(
    samples: FloatArray, lower: float, upper: float, betas: FloatArray, m: int, out: FloatArray
) -> None:
    reps, n = samples.shape
    w = np.empty(n + 2)
    for r in range(reps):
        out[r] = _smooth_core(samples[r], lower, upper, betas[r], w, m)


def _window_core(
    cells: FloatArray,
    first: NDArray[np.int64],
    length: NDArray[np.int64],
    n: NDArray[np.int64],
    k: NDArray[np.int64],
    beta: float,
    lower: float,
    upper: float,
    offsets: NDArray[np.int64],
    block_first: NDArray[np.int64],
    block_last: NDArray[np.int64],
    block_low: FloatArray,
    block_high: FloatArray,
    out: FloatArray,
    ok: NDArray[np.bool_],
) -> None:
    """Row ``r``: the largest known pair value, and whether it is certified.

    Ranks are 1-indexed; the window holds ranks ``a .. b``; the unknown ranks outside it
    are covered by the blocks ``offsets[r] .. offsets[r + 1] - 1`` (rank range and value
    range each).  See :func:`smooth_sensitivity_window_batch` for the bounds.
    """
    reps, width = cells.shape
    w = np.empty(width + 2)
    for r in range(reps):
        m = length[r]
        y = cells[r, :m]
        a = first[r]
        b = a + m - 1
        nn = n[r]
        kk = k[r]
        # Inside the window the padding is the window's own end value: a pair with it is
        # never worth more than the same pair with the real end rank (a larger distance).
        lo = lower if a == 1 else y[0]
        hi = upper if b == nn else y[m - 1]
        s = _smooth_core(y, lo, hi, beta, w, kk - a + 1)
        # Exact pairs of the window with a padding rank it does not reach.
        if a > 1 and (y[m - 1] - lower) * math.exp(-beta * (kk - 1)) > s:
            for j in range(kk, b + 1):
                s = max(s, (y[j - a] - lower) * math.exp(-beta * (j - 1)))
        if b < nn and (upper - y[0]) * math.exp(-beta * (nn - kk)) > s:
            for i in range(a, kk + 1):
                s = max(s, (upper - y[i - a]) * math.exp(-beta * (nn - i)))
        if a > 1 or b < nn:
            s = max(s, (upper - lower) * math.exp(-beta * nn))
        # Bounds on the pairs with an unknown rank.
        bound = 0.0
        for t in range(offsets[r], offsets[r + 1]):
            low = block_low[t]
            high = block_high[t]
            if block_last[t] < a:  # below the window: i in this block
                p = block_last[t]
                j1 = kk
                step = 1
                while j1 <= b:  # j in the window, in segments of doubling length
                    j2 = min(b, j1 + step - 1)
                    bound = max(bound, (y[j2 - a] - low) * math.exp(-beta * (j1 - p - 1)))
                    j1 = j2 + 1
                    step *= 2
                bound = max(bound, (upper - low) * math.exp(-beta * (nn - p)))
                bound = _unknown_pairs_bound(
                    bound, low, p, b, beta, offsets[r], offsets[r + 1], block_first, block_high
                )
            else:  # above the window: j in this block
                q = block_first[t]
                i2 = kk
                step = 1
                while i2 >= a:  # i in the window
                    i1 = max(a, i2 - step + 1)
                    bound = max(bound, (high - y[i1 - a]) * math.exp(-beta * (q - i2 - 1)))
                    i2 = i1 - 1
                    step *= 2
                bound = max(bound, (high - lower) * math.exp(-beta * (q - 1)))
        out[r] = s
        ok[r] = s >= bound * (1.0 + 1e-12)


if _numba is not None:
    _push_halves = _njit(_push_halves)
    _unknown_pairs_bound = _njit(_unknown_pairs_bound)
    _fill_weights = _njit(_fill_weights)
    _row_rescan = _njit(_row_rescan)
    _smooth_core = _njit(_smooth_core)
    _batch_core = _njit(_batch_core)
    _window_core = _njit(_window_core)


# ---------------------------------------------------------------------------------------
# numpy fallback: the same divide and conquer, vectorised level by level
# ---------------------------------------------------------------------------------------


def _smooth_numpy(
    y: FloatArray, lower: float, upper: float, beta: float, m: int | None = None
) -> float:
    """Exact smooth sensitivity without numba: divide and conquer, one numpy pass per level.

    All rows of one recursion level are solved together: the level's (row, column segment)
    pairs are evaluated in one flat array, and the largest maximiser of each segment splits
    the columns for the next level.  O(n log n) work in O(log n) numpy passes.  Columns
    are compared by ``log(y_j - y_i) - beta (j - i - 1)`` so that nothing underflows.
    """
    n = y.size
    if m is None:  # the lower median
        m = (n + 1) // 2
    ypad = np.concatenate(([lower], y, [upper]))
    rl = np.array([0], dtype=np.int64)
    rh = np.array([m], dtype=np.int64)
    cl = np.array([m], dtype=np.int64)
    ch = np.array([n + 1], dtype=np.int64)
    best = 0.0
    while rl.size:
        mid = (rl + rh) // 2
        lengths = ch - cl + 1
        starts = np.concatenate(([0], np.cumsum(lengths)[:-1]))
        seg = np.repeat(np.arange(rl.size), lengths)
        cols = np.arange(int(lengths.sum())) - starts[seg] + cl[seg]
        rows = mid[seg]
        diff = ypad[cols] - ypad[rows]
        with np.errstate(divide="ignore"):
            score = np.where(diff > 0, np.log(diff), -np.inf) - beta * (cols - rows - 1)
        seg_top = np.maximum.reduceat(score, starts)
        pos = np.where(score == seg_top[seg], np.arange(cols.size), -1)
        at = np.maximum.reduceat(pos, starts)  # flat index of the largest maximiser
        arg = cols[at]
        found = diff[at] * np.exp(-beta * np.maximum(cols[at] - rows[at] - 1, 0))
        best = max(best, float(found.max()))
        left = mid > rl
        right = mid < rh
        rl, rh, cl, ch = (
            np.concatenate((rl[left], mid[right] + 1)),
            np.concatenate((mid[left] - 1, rh[right])),
            np.concatenate((cl[left], arg[right])),
            np.concatenate((arg[left], ch[right])),
        )
    return best
