"""Kernels of :mod:`core.designs.cluster_windows` that read each cluster's records through
a grid of population positions (:attr:`core.designs.cluster_windows.ClusterIndex.grid`).

``grid[c, g]`` counts the records of cluster ``c`` at positions below ``g step``.  A count
of the sampled records below a position ``p`` is a sum over the drawn clusters of one binary
search each; with the grid, each search runs among the cluster's records in the grid cell of
``p`` only (a few records), not among all of them.  A rank's position is first bracketed by
a bisection over the grid (sums of table entries, no search), then found inside one cell.
Everything is exact integer arithmetic on the same records, so the answers are those of the
plain kernels.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

IntArray = NDArray[np.int64]

try:  # numba is optional: without it the same loops run as plain Python (slowly).
    import numba as _numba
except ImportError:  # pragma: no cover - exercised only where numba is missing
    _numba = None  # type: ignore[assignment]


def _first_above(a: IntArray, lo: int, hi: int, x: int) -> int:
    """First index ``i`` in ``[lo, hi)`` with ``a[i] > x`` (``hi`` if none); ``a`` ascending."""
    while lo < hi:
        mid = (lo + hi) // 2
        if a[mid] > x:
            hi = mid
        else:
            lo = mid + 1
    return lo


def _narrow(
    pos: IntArray,
    off: IntArray,
    drawn: IntArray,
    r: int,
    j: int,
    lo: int,
    hi: int,
    lo_i: IntArray,
    hi_i: IntArray,
    mid_i: IntArray,
) -> int:
    """The smallest position ``p`` in ``[lo, hi]`` with ``C(p + 1) >= j``: the sampled
    records of sample ``r`` (clusters ``drawn[r]``) at positions ``<= p`` number at least
    ``j``; bisection over positions.

    ``lo_i[t]`` and ``hi_i[t]`` bound the search among drawn cluster ``t``'s records (indices
    into ``pos``): its count at every position in ``[lo, hi]`` lies between its counts at
    the interval's ends, so the searches narrow with the interval.  ``mid_i`` is scratch of
    the same width.  Shared by the plain selection (``lo_i``, ``hi_i`` the whole clusters)
    and the grid's (one grid cell).
    """
    width = drawn.shape[1]
    while lo < hi:
        mid = (lo + hi) // 2
        counted = 0
        for t in range(width):
            c = drawn[r, t]
            mid_i[t] = _first_above(pos, lo_i[t], hi_i[t], mid)
            counted += mid_i[t] - off[c]
        if counted >= j:
            hi = mid
            for t in range(width):
                hi_i[t] = mid_i[t]
        else:
            lo = mid + 1
            for t in range(width):
                lo_i[t] = mid_i[t]
    return lo


def _grid_counts(pos: IntArray, off: IntArray, step: int, out: NDArray[np.int32]) -> None:
    """``out[c, g]``: records of cluster ``c`` at positions ``< min(g step, N)`` (one merge of
    each cluster's ascending positions with the grid)."""
    columns = out.shape[1]
    for c in range(off.size - 1):
        u = off[c]
        e = off[c + 1]
        for g in range(columns):
            cut = g * step
            while u < e and pos[u] < cut:
                u += 1
            out[c, g] = u - off[c]


def _scan_grid(
    pos: IntArray,
    off: IntArray,
    grid: NDArray[np.int32],
    step: int,
    drawn: IntArray,
    rows: IntArray,
    cuts: IntArray,
    count: IntArray,
    after: IntArray,
    before: IntArray,
) -> None:
    """:func:`_scan`, each cluster's binary search confined to its records in the grid cell
    of the cut (``grid`` from :func:`_grid_counts`): the same answers."""
    last = grid.shape[1] - 1
    for i in range(rows.size):
        r = rows[i]
        p = cuts[i]
        g = min(p // step, last)
        g1 = min(g + 1, last)
        c_sum = 0
        nxt = -1
        prv = -1
        for t in range(drawn.shape[1]):
            c = drawn[r, t]
            s = off[c]
            e = off[c + 1]
            idx = _first_above(pos, s + grid[c, g], s + grid[c, g1], p - 1)
            c_sum += idx - s
            if idx < e and (nxt < 0 or pos[idx] < nxt):
                nxt = pos[idx]
            if idx > s and pos[idx - 1] > prv:
                prv = pos[idx - 1]
        count[i] = c_sum
        after[i] = nxt
        before[i] = prv


def _select_grid(
    pos: IntArray,
    off: IntArray,
    grid: NDArray[np.int32],
    step: int,
    drawn: IntArray,
    rows: IntArray,
    ranks: IntArray,
    out: IntArray,
) -> None:
    """:func:`_select` started from the grid: the first grid cut with at least ``rank``
    sampled records before it (a bisection over sums of ``grid`` entries), then the
    bisection of :func:`_select` (:func:`_narrow`) inside that cell.  The same answers (the
    smallest ``p`` with ``C(p + 1) >= rank`` is unique)."""
    width = drawn.shape[1]
    last = grid.shape[1] - 1
    n_pos = pos.size
    lo_i = np.empty(width, dtype=np.int64)
    hi_i = np.empty(width, dtype=np.int64)
    mid_i = np.empty(width, dtype=np.int64)
    for i in range(rows.size):
        r = rows[i]
        j = ranks[i]
        g_lo = 1
        g_hi = last
        while g_lo < g_hi:
            g_mid = (g_lo + g_hi) // 2
            at = 0
            for t in range(width):
                at += grid[drawn[r, t], g_mid]
            if at >= j:
                g_hi = g_mid
            else:
                g_lo = g_mid + 1
        for t in range(width):
            c = drawn[r, t]
            lo_i[t] = off[c] + grid[c, g_lo - 1]
            hi_i[t] = off[c] + grid[c, g_lo]
        lo = (g_lo - 1) * step
        out[i] = _narrow(pos, off, drawn, r, j, lo, min(g_lo * step, n_pos) - 1, lo_i, hi_i, mid_i)


if _numba is not None:
    _first_above = _numba.njit(cache=True, nogil=True)(_first_above)
    _narrow = _numba.njit(cache=True, nogil=True)(_narrow)
    _grid_counts = _numba.njit(cache=True, nogil=True)(_grid_counts)
    _scan_grid = _numba.njit(cache=True, nogil=True)(_scan_grid)
    _select_grid = _numba.njit(cache=True, nogil=True)(_select_grid)
