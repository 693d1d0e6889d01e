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

from ..mechanisms.base import FloatArray

try:  # numba is optional: without it the numpy version in sum_count.py runs instead.
    import numba as _numba
except ImportError:  # pragma: no cover - exercised only where numba is missing
    _numba = None  # type: ignore[assignment]

__all__ = ["COMPILED", "coverage_mean", "coverage_rows", "denominator_nodes", "mse_rows_at"]

#: Whether :func:`coverage_rows` is compiled (else callers use the numpy version).
COMPILED = _numba is not None


def _lap_cdf(z: float) -> float:
    """``P(Z ≤ z)`` for ``Z ~ Laplace(0, 1)``, without cancellation in either tail."""
    tail = 0.5 * math.exp(-abs(z))
    return tail if z < 0.0 else 1.0 - tail


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
    x: float,
    theta: float,
    lower: float,
    upper: float,
) -> float:
    """The mean over the rows of :func:`coverage_rows` at one ``x`` and one ``θ``."""
    c = lower + (upper - lower) / 2.0
    total = 0.0
    for i in range(t.size):
        total += _coverage_one(t[i], m[i], b1[i], b2[i], x, theta, c, lower, upper)
    return total / t.size


def mse_rows_at(
    mu: FloatArray, beta: FloatArray, w: FloatArray, lower: float, upper: float, a: FloatArray
) -> FloatArray:
    """``Σ_k w_ik E[(clip(μ_ik + β_ik Z, L, U) − a_ji)²]`` per row ``i`` and point ``j`` (``a``
    of shape ``(points, rows)``): the weighted sum of
    :func:`core.mechanisms.sum_count.clipped_laplace_mse` over a law's quadrature nodes,
    about several points in one pass (the exponentials of a node are shared)."""
    rows, nodes = mu.shape
    points = a.shape[0]
    out = np.zeros((points, rows))
    for i in range(rows):
        for k in range(nodes):
            m, b = mu[i, k], beta[i, k]
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
            for j in range(points):
                c = a[j, i]
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
                out[j, i] += w[i, k] * g
    return out


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
    at = np.empty((rows, n_at))
    first = np.empty((rows, n_at))
    reach = 2.0
    for r in range(rows):
        top = max(m[r], 1.0) + tail * b2[r]
        at[r, 0] = 1.0
        at[r, 1] = max(m[r], 1.0)
        for j in range(n_kinks):
            at[r, 2 + j] = kinks[r, j]
        for j in range(n_at):
            at[r, j] = min(max(at[r, j], 1.0), top)
            first[r, j] = min(span / rate[r], 0.5 * at[r, j])
            reach = max(reach, even * b2[r] / first[r, j])
    steps = math.ceil(math.log(reach) / math.log(growth)) + 1
    grow = np.empty(steps)
    for s in range(steps):
        grow[s] = growth**s - 1.0
    n_cuts = n_at * steps + (n_at - 1) * steps + n_even + 2
    cuts = np.empty((rows, n_cuts))
    width = 0
    for r in range(rows):
        bottom = max(m[r] - tail * b2[r], 1.0)
        top = max(m[r], 1.0) + tail * b2[r]
        c = 0
        for j in range(n_at):
            for s in range(steps):
                cuts[r, c] = at[r, j] + first[r, j] * grow[s]
                c += 1
        for j in range(1, n_at):
            for s in range(steps):
                cuts[r, c] = at[r, j] - first[r, j] * grow[s]
                c += 1
        for e in range(n_even):
            cuts[r, c] = bottom + even * b2[r] * e
            c += 1
        cuts[r, c] = bottom
        cuts[r, c + 1] = top
        for k in range(n_cuts):
            cuts[r, k] = min(max(cuts[r, k], bottom), top)
        cuts[r] = np.sort(cuts[r])
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


if _numba is not None:
    _lap_cdf = _numba.njit(cache=True, nogil=True)(_lap_cdf)
    _piece = _numba.njit(cache=True, nogil=True)(_piece)
    _expectation = _numba.njit(cache=True, nogil=True)(_expectation)
    _coverage_one = _numba.njit(cache=True, nogil=True)(_coverage_one)
    coverage_rows = _numba.njit(cache=True, nogil=True)(coverage_rows)
    coverage_mean = _numba.njit(cache=True, nogil=True)(coverage_mean)
    mse_rows_at = _numba.njit(cache=True, nogil=True)(mse_rows_at)
    denominator_nodes = _numba.njit(cache=True, nogil=True)(denominator_nodes)
