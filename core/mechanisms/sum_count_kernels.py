"""Compiled row loops for :class:`core.mechanisms.sum_count.SumCountLaw`'s coverage and MSE.

The planner's root search for a 95 % bound evaluates the coverage of one law thousands of
times on a few hundred rows each; numpy's passes over such short arrays cost more than the
arithmetic.  :func:`coverage_rows` is the same closed form as
:func:`core.mechanisms.sum_count._count_expectation_of_cdf` and
:func:`core.mechanisms.sum_count.clipped_laplace_coverage`, written as one loop over rows
and compiled by numba when it is installed (without numba the module's numpy version runs,
and :data:`COMPILED` is False).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from ..mechanisms.base import FloatArray
from ..mechanisms.clamping import laplace_cdf_one as _lap_cdf

try:  # numba is optional: without it the numpy version in sum_count.py runs instead.
    import numba as _numba
except ImportError:  # pragma: no cover - exercised only where numba is missing
    _numba = None  # type: ignore[assignment]

__all__ = [
    "COMPILED",
    "coverage_mean",
    "coverage_rows",
    "denominator_nodes",
    "distinct_columns",
    "mse_law_rows",
    "mse_rows_at",
]

#: Whether :func:`coverage_rows` is compiled (else callers use the numpy version).
COMPILED = _numba is not None


def _piece(e_start: float, slope: float, width: float) -> float:
    """``∫_0^W e^{E₀ + κt} dt`` on a piece where the exponent stays ``≤ 0``
    (:func:`core.mechanisms.sum_count._piece_exp_integral`, one piece)."""
    if not math.isfinite(width):
        return math.exp(min(e_start, 0.0)) / abs(slope)
    top = min(max(e_start, e_start + slope * width), 0.0)
    x = abs(slope) * width
    phi = -math.expm1(-x) / x if x > 1e-12 else 1.0 - 0.5 * x
    return math.exp(top) * width * phi


def _expectation(m: float, b2: float, alpha: float, gamma: float) -> float:
    """``∫_1^∞ F(αu + γ) e^{−|u − m|/b₂} / (2b₂) du`` for one row
    (:func:`core.mechanisms.sum_count._count_expectation_of_cdf`)."""
    u0 = -gamma / alpha if alpha != 0.0 else 1.0
    u0 = max(u0, 1.0) if math.isfinite(u0) else 1.0
    a, b, c = 1.0, max(m, 1.0), u0
    if a > b:
        a, b = b, a
    if b > c:
        b, c = c, b
    if a > b:
        a, b = b, a
    if alpha != 0.0:
        z_last = 1.0 if alpha > 0.0 else -1.0
    else:
        z_last = 1.0 if gamma >= 0.0 else -1.0
    total = 0.0
    for k in range(3):
        if k == 0:
            start, end = a, b
        elif k == 1:
            start, end = b, c
        else:
            start, end = c, math.inf
        finite = math.isfinite(end)
        probe = 0.5 * (start + end) if finite else start + 1.0 + abs(start)
        side_d = 1.0 if probe >= m else -1.0
        z_probe = alpha * probe + gamma if finite else z_last
        side_z = 1.0 if z_probe >= 0.0 else -1.0
        mass = _lap_cdf((end - m) / b2) - _lap_cdf((start - m) / b2)
        e_start = -side_d * (start - m) / b2 - side_z * (alpha * start + gamma)
        slope = -side_d / b2 - side_z * alpha
        expo = _piece(e_start, slope, end - start) / (4.0 * b2)
        total += (mass if side_z > 0.0 else 0.0) - side_z * expo
    return total


def _coverage_one(
    ti: float,
    mi: float,
    s1: float,
    s2: float,
    x: float,
    theta: float,
    c: float,
    lower: float,
    upper: float,
) -> float:
    """``P(|Y − θ| ≤ x | sample)`` of one row (:func:`coverage_rows`)."""
    hi_y, lo_y = theta + x, theta - x
    atom = _lap_cdf((1.0 - mi) / s2)
    centre = c + ti
    top = 1.0 if hi_y >= upper else _lap_cdf((hi_y - centre) / s1)
    bottom = 0.0 if lo_y <= lower else _lap_cdf((lo_y - centre) / s1)
    at_one = min(max(top - bottom, 0.0), 1.0)
    if hi_y >= upper:
        below_hi = 1.0 - atom
    else:
        below_hi = _expectation(mi, s2, (hi_y - c) / s1, -ti / s1)
    below_lo = 0.0 if lo_y <= lower else _expectation(mi, s2, (lo_y - c) / s1, -ti / s1)
    return min(max(atom * at_one + below_hi - below_lo, 0.0), 1.0)


def distinct_columns(keys: FloatArray) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    """``(first, repeat)``: one column of each distinct value among the columns of ``keys``
    (shape ``(fields, rows)``), and for every column where its value is in ``first``, so
    that ``keys[:, first][:, repeat]`` is ``keys`` (NaN is distinct from everything)."""
    order = np.lexsort(keys[::-1])
    ordered = keys[:, order]
    new = np.empty(order.size, dtype=bool)
    new[:1] = True
    np.any(ordered[:, 1:] != ordered[:, :-1], axis=0, out=new[1:])
    repeat = np.empty(order.size, dtype=np.intp)
    repeat[order] = np.cumsum(new) - 1
    return order[new], repeat


def coverage_rows(
    t: FloatArray,
    m: FloatArray,
    b1: FloatArray,
    b2: FloatArray,
    x: FloatArray,
    theta: FloatArray,
    lower: float,
    upper: float,
) -> FloatArray:
    """``P(|Y − θ| ≤ x | sample)`` per row of a :class:`SumCountLaw` (its ``coverage``)."""
    c = lower + (upper - lower) / 2.0
    out = np.empty(t.size)
    for i in range(t.size):
        out[i] = _coverage_one(t[i], m[i], b1[i], b2[i], x[i], theta[i], c, lower, upper)
    return out


def coverage_mean(
    t: FloatArray,
    m: FloatArray,
    b1: FloatArray,
    b2: FloatArray,
    repeat: NDArray[np.intp],
    x: float,
    theta: float,
    lower: float,
    upper: float,
) -> float:
    """The mean over the rows of :func:`coverage_rows` at one ``x`` and one ``θ``, of the
    law whose row ``i`` is the distinct row ``repeat[i]`` of ``t, m, b1, b2``: each distinct
    row's coverage once, then the rows' sum in their order (the same sum as row by row)."""
    c = lower + (upper - lower) / 2.0
    distinct = np.empty(t.size)
    for k in range(t.size):
        distinct[k] = _coverage_one(t[k], m[k], b1[k], b2[k], x, theta, c, lower, upper)
    total = 0.0
    for i in range(repeat.size):
        total += distinct[repeat[i]]
    return total / repeat.size


def _add_node(
    m: float,
    b: float,
    weight: float,
    lower: float,
    upper: float,
    a: FloatArray,
    row: int,
    out: FloatArray,
) -> None:
    """Add ``weight · E[(clip(m + b Z, L, U) − a_j)²]`` to ``out[j, row]`` for every point
    ``j`` of ``a`` (shape ``(points, rows)``): :func:`core.mechanisms.sum_count.
    clipped_laplace_mse` at one node, its exponentials shared by the points."""
    split = min(max(m, lower), upper)
    left = split > lower
    right = split < upper
    e_split = e_low = e_high = e_back = 0.0
    if left and right:  # μ inside the bounds: two exponentials carry every term
        e_split = e_back = 0.5  # e^0 at the split
        e_low = 0.5 * math.exp((lower - m) / b)
        e_high = 0.5 * math.exp(-(upper - m) / b)
        p_low = e_low  # the Laplace CDF below μ
        p_high = 1.0 - (1.0 - e_high)  # as 1 − F above μ, to the last bit
    else:
        if left:
            e_split = 0.5 * math.exp((split - m) / b)
            e_low = 0.5 * math.exp((lower - m) / b)
        if right:
            e_high = 0.5 * math.exp(-(upper - m) / b)
            e_back = 0.5 * math.exp(-(split - m) / b)
        p_low = _lap_cdf((lower - m) / b)
        p_high = 1.0 - _lap_cdf((upper - m) / b)
    for j in range(a.shape[0]):
        c = a[j, row]
        inner = 0.0
        if left:
            d1, d0 = split - c, lower - c
            inner += e_split * (d1 * d1 - 2.0 * b * d1 + 2.0 * b * b)
            inner -= e_low * (d0 * d0 - 2.0 * b * d0 + 2.0 * b * b)
        if right:
            d1, d0 = upper - c, split - c
            inner -= e_high * (d1 * d1 + 2.0 * b * d1 + 2.0 * b * b)
            inner += e_back * (d0 * d0 + 2.0 * b * d0 + 2.0 * b * b)
        g = p_low * (lower - c) ** 2 + p_high * (upper - c) ** 2 + max(inner, 0.0)
        out[j, row] += weight * g


def mse_rows_at(
    mu: FloatArray, beta: FloatArray, w: FloatArray, lower: float, upper: float, a: FloatArray
) -> FloatArray:
    """``Σ_k w_ik E[(clip(μ_ik + β_ik Z, L, U) − a_ji)²]`` per row ``i`` and point ``j`` (``a``
    of shape ``(points, rows)``): the weighted sum of
    :func:`core.mechanisms.sum_count.clipped_laplace_mse` over a law's quadrature nodes,
    about several points in one pass (the exponentials of a node are shared)."""
    rows, nodes = mu.shape
    out = np.zeros((a.shape[0], rows))
    for i in range(rows):
        for k in range(nodes):
            _add_node(mu[i, k], beta[i, k], w[i, k], lower, upper, a, i, out)
    return out


def _graded_steps(
    m: FloatArray,
    b2: FloatArray,
    kinks: FloatArray,
    rate: FloatArray,
    span: float,
    growth: float,
    even: float,
    tail: float,
) -> int:
    """The graded steps beside each kink that the widest row of a block needs (every row of
    the block takes as many, :func:`core.mechanisms.sum_count._denominator_nodes`)."""
    rows, n_kinks = kinks.shape
    reach = 2.0
    for r in range(rows):
        top = max(m[r], 1.0) + tail * b2[r]
        for j in range(2 + n_kinks):
            at = 1.0 if j == 0 else (max(m[r], 1.0) if j == 1 else kinks[r, j - 2])
            at = min(max(at, 1.0), top)
            first = min(span / rate[r], 0.5 * at)
            reach = max(reach, even * b2[r] / first)
    return math.ceil(math.log(reach) / math.log(growth)) + 1


def _row_cuts(
    r: int,
    m: FloatArray,
    b2: FloatArray,
    kinks: FloatArray,
    rate: FloatArray,
    grow: FloatArray,
    span: float,
    even: float,
    n_even: int,
    tail: float,
    cuts: FloatArray,
) -> None:
    """Write row ``r``'s cuts of the count noise's range to ``cuts``, sorted: the graded
    steps up from every kink and down from every kink but 1, the even pieces, the ends."""
    n_at = 2 + kinks.shape[1]
    bottom = max(m[r] - tail * b2[r], 1.0)
    top = max(m[r], 1.0) + tail * b2[r]
    c = 0
    for down in range(2):
        for j in range(down, n_at):
            at = 1.0 if j == 0 else (max(m[r], 1.0) if j == 1 else kinks[r, j - 2])
            at = min(max(at, 1.0), top)
            first = min(span / rate[r], 0.5 * at)
            for s in range(grow.size):
                cuts[c] = at - first * grow[s] if down else at + first * grow[s]
                c += 1
    for e in range(n_even):
        cuts[c] = bottom + even * b2[r] * e
        c += 1
    cuts[c] = bottom
    cuts[c + 1] = top
    for k in range(cuts.size):
        cuts[k] = min(max(cuts[k], bottom), top)
    cuts.sort()


def _grow(steps: int, growth: float) -> FloatArray:
    """``growth^s − 1`` for each graded step ``s``."""
    grow = np.empty(steps)
    for s in range(steps):
        grow[s] = growth**s - 1.0
    return grow


def denominator_nodes(
    m: FloatArray,
    b2: FloatArray,
    kinks: FloatArray,
    rate: FloatArray,
    xg: FloatArray,
    wg: FloatArray,
    span: float,
    growth: float,
    even: float,
    n_even: int,
    tail: float,
) -> tuple[FloatArray, FloatArray]:
    """The nodes and weights of :func:`core.mechanisms.sum_count._denominator_nodes`, row by
    row: the same cuts (the graded steps the block's widest row needs, for every row), the
    same pieces in the same order, the empty ones after them, and the atom at 1 last."""
    rows, n_kinks = kinks.shape
    n_at = 2 + n_kinks
    grow = _grow(_graded_steps(m, b2, kinks, rate, span, growth, even, tail), growth)
    n_cuts = n_at * grow.size + (n_at - 1) * grow.size + n_even + 2
    cuts = np.empty((rows, n_cuts))
    width = 0
    for r in range(rows):
        _row_cuts(r, m, b2, kinks, rate, grow, span, even, n_even, tail, cuts[r])
        pieces = 0
        for k in range(n_cuts - 1):
            if cuts[r, k + 1] > cuts[r, k]:
                pieces += 1
        width = max(width, pieces)
    q = xg.size
    nodes = np.empty((rows, width * q + 1))
    weights = np.empty((rows, width * q + 1))
    for r in range(rows):
        p = 0
        for kept in range(2):  # the pieces of positive width, then the empty ones
            for k in range(n_cuts - 1):
                if p == width:
                    break
                left, right = cuts[r, k], cuts[r, k + 1]
                if (right > left) != (kept == 0):
                    continue
                half = 0.5 * (right - left)
                for g in range(q):
                    u = (left + half) + half * xg[g]
                    density = math.exp(-abs(u - m[r]) / b2[r]) / (2.0 * b2[r])
                    nodes[r, p * q + g] = u
                    weights[r, p * q + g] = density * half * wg[g]
                p += 1
        nodes[r, width * q] = 1.0
        weights[r, width * q] = _lap_cdf((1.0 - m[r]) / b2[r])
    return nodes, weights


def mse_law_rows(
    total: FloatArray,
    m: FloatArray,
    b1: FloatArray,
    b2: FloatArray,
    kinks: FloatArray,
    rate: FloatArray,
    centre: float,
    lower: float,
    upper: float,
    a: FloatArray,
    xg: FloatArray,
    wg: FloatArray,
    span: float,
    growth: float,
    even: float,
    n_even: int,
    tail: float,
) -> FloatArray:
    """:func:`mse_rows_at` of a :class:`core.mechanisms.sum_count.SumCountLaw`'s rows at the
    nodes of :func:`denominator_nodes`, without building them: each row's cuts, then its
    nodes piece by piece (the clipped Laplace of centre ``c + T/u`` and scale ``b₁/u`` at
    the node ``u``), in the same order, so the sums are the same; the empty pieces, whose
    weights are 0, are skipped."""
    rows, n_kinks = kinks.shape
    n_at = 2 + n_kinks
    grow = _grow(_graded_steps(m, b2, kinks, rate, span, growth, even, tail), growth)
    cuts = np.empty(n_at * grow.size + (n_at - 1) * grow.size + n_even + 2)
    out = np.zeros((a.shape[0], rows))
    for r in range(rows):
        _row_cuts(r, m, b2, kinks, rate, grow, span, even, n_even, tail, cuts)
        t, s1, s2, mr = total[r], b1[r], b2[r], m[r]
        for k in range(cuts.size - 1):
            left, right = cuts[k], cuts[k + 1]
            if not right > left:
                continue
            half = 0.5 * (right - left)
            for g in range(xg.size):
                u = (left + half) + half * xg[g]
                weight = math.exp(-abs(u - mr) / s2) / (2.0 * s2) * half * wg[g]
                _add_node(centre + t / u, s1 / u, weight, lower, upper, a, r, out)
        _add_node(centre + t / 1.0, s1 / 1.0, _lap_cdf((1.0 - mr) / s2), lower, upper, a, r, out)
    return out


if _numba is not None:
    _piece = _numba.njit(cache=True, nogil=True)(_piece)
    _expectation = _numba.njit(cache=True, nogil=True)(_expectation)
    _coverage_one = _numba.njit(cache=True, nogil=True)(_coverage_one)
    coverage_rows = _numba.njit(cache=True, nogil=True)(coverage_rows)
    coverage_mean = _numba.njit(cache=True, nogil=True)(coverage_mean)
    _add_node = _numba.njit(cache=True, nogil=True)(_add_node)
    mse_rows_at = _numba.njit(cache=True, nogil=True)(mse_rows_at)
    _graded_steps = _numba.njit(cache=True, nogil=True)(_graded_steps)
    _row_cuts = _numba.njit(cache=True, nogil=True)(_row_cuts)
    _grow = _numba.njit(cache=True, nogil=True)(_grow)
    denominator_nodes = _numba.njit(cache=True, nogil=True)(denominator_nodes)
    mse_law_rows = _numba.njit(cache=True, nogil=True)(mse_law_rows)
