"""A private mean that needs no size: a noisy centred sum over a noisy count.

:class:`SumCountMean` releases the mean of a sample whose size is itself private (a
population size ``N`` or a cell size ``N_c`` that is not declared public, under neighbours
that add or remove a record).  :class:`SumCountLaw` is the exact law of its release given
the sample, from which the planner computes its errors without drawing the noise.

Why a new mechanism
-------------------
:class:`core.mechanisms.HorvitzThompsonMean` releases ``c + (Σ_S (x − c) + Lap) / (r N)``.
For a public constant ``N`` that is pure ε-DP; but when the neighbour relation adds or
removes a record of the population, ``N`` itself differs between the two neighbours, the two
releases are Laplace laws of different scales, and the log ratio of their densities,
``|y − μ| (1/b − 1/b')``, grows without bound in the tails: no ε holds.  The release below
reads no size at all, so its guarantee holds whatever the sizes of the neighbours.

Source: the noisy-sum-over-noisy-count estimator of a mean is standard (e.g. the
``BoundedMean`` of Google's differential-privacy library, and Dwork & Roth 2014, §3.3 for
the Laplace mechanism and §2.1 for post-processing); the split of the budget and the exact
error by quadrature are this module's.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._validation import check_bounds, check_eps, check_rng, finite_scalar
from ..mechanisms.base import (
    FloatArray,
    Mechanism,
    Release,
    _check_release_args,
    check_same_bounds,
)
from . import sum_count_kernels as _kernels
from .clamping import laplace_cdf
from .rows import SortedRows

__all__ = [
    "SumCountLaw",
    "SumCountMean",
    "chosen_share",
    "clipped_laplace_coverage",
    "clipped_laplace_mse",
]

#: Gauss–Legendre rule on each piece of the count noise's range (:func:`_denominator_nodes`).
_LEGENDRE = np.polynomial.legendre.leggauss(8)
#: Width of the first piece beside a kink, in units of ``1 / rate`` (the fastest exponential
#: rate of the integrand in the count); the pieces then grow by :data:`_GROWTH` per step.
_SPAN = 2.0
_GROWTH = 4.0
#: Width of the even pieces that carry the count's density far from every kink, in units of
#: its Laplace scale ``b₂``.
_EVEN = 8.0
#: Shares of the budget the sum may take (the count gets the rest); the chosen share is
#: on the grid of this step (it is part of the published plan, like the rate).
SHARE_STEP = 0.01
SHARE_RANGE = (0.02, 0.98)
#: Rows whose quadrature nodes are built at once (about 8 MB per array).
_BLOCK_ROWS = 8192
#: The count noise is integrated over ``m ± _TAIL · b₂`` (the mass left out is below
#: ``e^{−_TAIL}``).
_TAIL = 40.0
#: Even pieces of :data:`_EVEN` that span the count noise's range (:func:`_denominator_nodes`).
_N_EVEN = int(np.ceil(2.0 * _TAIL / _EVEN)) + 1
#: The quadrature's rule and mesh, as the compiled loops take them (:func:`_denominator_nodes`).
_RULE: tuple[Any, ...] = (*_LEGENDRE, _SPAN, _GROWTH, _EVEN, _N_EVEN, _TAIL)
#: Shares the split is chosen from (:func:`chosen_share`): the published grid.
SHARE_GRID = np.round(np.arange(SHARE_RANGE[0], SHARE_RANGE[1] + SHARE_STEP / 2, SHARE_STEP), 2)
#: :func:`chosen_share` first tries every ``_COARSE``-th share of the grid.
_COARSE = 4


def clipped_laplace_mse(
    mu: ArrayLike, beta: ArrayLike, lower: float, upper: float, a: ArrayLike
) -> FloatArray:
    """``E[(clip(μ + β Z, L, U) − a)²]`` for ``Z ~ Laplace(0, 1)``, in closed form.

    The atoms at the bounds carry ``P(μ + βZ ≤ L)`` and ``P(μ + βZ ≥ U)``; between them the
    Laplace density ``e^{−|x − μ|/β} / (2β)`` integrates against ``(x − a)²`` with the
    antiderivatives ``∓ ½ e^{∓(x − μ)/β} [(x − a)² ± 2β(x − a) + 2β²]`` on each side of
    ``μ``.  Broadcast over all arguments; ``β > 0``.
    """
    m, b, c = np.broadcast_arrays(
        np.asarray(mu, dtype=np.float64),
        np.asarray(beta, dtype=np.float64),
        np.asarray(a, dtype=np.float64),
    )
    lo, hi = float(lower), float(upper)
    split = np.clip(m, lo, hi)

    def left(x: FloatArray) -> FloatArray:  # antiderivative for x <= mu
        d = x - c
        return 0.5 * np.exp((x - m) / b) * (d * d - 2.0 * b * d + 2.0 * b * b)

    def right(x: FloatArray) -> FloatArray:  # antiderivative for x >= mu
        d = x - c
        return -0.5 * np.exp(-(x - m) / b) * (d * d + 2.0 * b * d + 2.0 * b * b)

    with np.errstate(over="ignore", invalid="ignore"):
        # each piece is empty (and its terms may overflow) when mu is beyond its bound
        below = np.where(split > lo, left(split) - left(np.full_like(m, lo)), 0.0)
        above = np.where(split < hi, right(np.full_like(m, hi)) - right(split), 0.0)
    inner = below + above
    p_low = laplace_cdf((lo - m) / b)
    p_high = 1.0 - laplace_cdf((hi - m) / b)
    return np.asarray(
        p_low * (lo - c) ** 2 + p_high * (hi - c) ** 2 + np.maximum(inner, 0.0), dtype=np.float64
    )


def clipped_laplace_coverage(
    mu: ArrayLike, beta: ArrayLike, lower: float, upper: float, theta: ArrayLike, x: ArrayLike
) -> FloatArray:
    """``P(|clip(μ + β Z, L, U) − θ| ≤ x)`` for ``Z ~ Laplace(0, 1)`` and ``θ ∈ [L, U]``.

    ``P(Y ≤ θ + x) − P(Y < θ − x)`` with ``P(Y ≤ y) = 1`` for ``y ≥ U`` and the Laplace CDF
    below, ``P(Y < y) = 0`` for ``y ≤ L``.
    """
    m, b, t, w = np.broadcast_arrays(
        np.asarray(mu, dtype=np.float64),
        np.asarray(beta, dtype=np.float64),
        np.asarray(theta, dtype=np.float64),
        np.asarray(x, dtype=np.float64),
    )
    hi_y, lo_y = t + w, t - w
    below_hi = np.where(hi_y >= upper, 1.0, laplace_cdf((hi_y - m) / b))
    below_lo = np.where(lo_y <= lower, 0.0, laplace_cdf((lo_y - m) / b))
    return np.asarray(np.clip(below_hi - below_lo, 0.0, 1.0), dtype=np.float64)


def _piece_exp_integral(e_start: FloatArray, slope: FloatArray, width: FloatArray) -> FloatArray:
    """``∫_0^W e^{E₀ + κt} dt`` for pieces on which the exponent stays ``≤ 0``.

    Written as ``e^{max(E₀, E₀ + κW)} · W · φ(|κ| W)`` with ``φ(x) = (1 − e^{−x})/x``
    (``φ(0) = 1``), so that nothing overflows or cancels; ``W = ∞`` needs ``κ < 0`` and gives
    ``e^{E₀}/|κ|``.
    """
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        finite = np.isfinite(width)
        w = np.where(finite, width, 0.0)
        top = np.minimum(np.maximum(e_start, e_start + slope * w), 0.0)
        x = np.abs(slope) * w
        phi = np.where(x > 1e-12, -np.expm1(-x) / np.where(x > 1e-12, x, 1.0), 1.0 - 0.5 * x)
        bounded = np.exp(top) * w * phi
        unbounded = np.exp(np.minimum(e_start, 0.0)) / np.abs(slope)
    return np.asarray(np.where(finite, bounded, unbounded), dtype=np.float64)


def _count_expectation_of_cdf(
    m: FloatArray, b2: FloatArray, alpha: FloatArray, gamma: FloatArray
) -> FloatArray:
    """``∫_1^∞ F(αu + γ) e^{−|u − m|/b₂} / (2b₂) du`` in closed form, ``F`` the Laplace CDF.

    The integrand is ``e^{−|u − m|/b₂}`` times ``½ e^{z}`` (``z = αu + γ < 0``) or ``1 −
    ½ e^{−z}`` (``z ≥ 0``): on each piece between the kinks ``1``, ``m`` and ``u₀ = −γ/α``
    (where ``z`` changes sign) it is a constant times the density plus one exponential of
    a linear function of ``u``, integrated exactly (:func:`_piece_exp_integral`; the density's
    mass by the Laplace CDF).  Broadcast over rows (1-d arrays of one length).
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        u0 = np.where(alpha != 0.0, -gamma / alpha, 1.0)
    u0 = np.where(np.isfinite(u0), np.maximum(u0, 1.0), 1.0)
    cuts = np.sort(np.stack([np.ones_like(m), np.maximum(m, 1.0), u0], axis=1), axis=1)
    starts = cuts
    ends = np.concatenate([cuts[:, 1:], np.full((m.size, 1), np.inf)], axis=1)
    mm, bb, al, ga = (v[:, None] for v in (m, b2, alpha, gamma))
    width = ends - starts
    probe = np.where(np.isfinite(ends), 0.5 * (starts + ends), starts + 1.0 + np.abs(starts))
    side_d = np.where(probe >= mm, 1.0, -1.0)  # the density is e^{−side_d (u − m)/b₂}
    z_probe = al * probe + ga
    z_last = np.where(al != 0.0, np.sign(al), np.where(ga >= 0.0, 1.0, -1.0))
    z_probe = np.where(np.isfinite(ends), z_probe, z_last)
    side_z = np.where(z_probe >= 0.0, 1.0, -1.0)  # F = [z ≥ 0] − side_z ½ e^{−side_z z}
    mass = laplace_cdf((ends - mm) / bb) - laplace_cdf((starts - mm) / bb)
    e_start = -side_d * (starts - mm) / bb - side_z * (al * starts + ga)
    slope = -side_d / bb - side_z * al
    expo = _piece_exp_integral(e_start, slope, width) / (4.0 * bb)
    pieces = np.where(side_z > 0, mass, 0.0) - side_z * expo
    return np.asarray(pieces.sum(axis=1), dtype=np.float64)


def _denominator_nodes(
    m: FloatArray, b2: FloatArray, kinks: FloatArray, rate: FloatArray
) -> tuple[FloatArray, FloatArray]:
    """Nodes ``D_k`` and weights ``w_k`` with ``E[g(D)] ≈ Σ_k w_k g(D_k)`` per row.

    ``D = max(u, 1)`` with ``u = m + b₂ Z``, ``Z ~ Laplace(0, 1)``: the atom ``P(u ≤ 1)`` at
    ``D = 1``, then the density ``e^{−|u − m|/b₂} / (2b₂)`` on ``(1, ∞)`` by composite
    Gauss–Legendre on graded pieces (an hp mesh):

    * the range is ``[max(1, m − 40 b₂), max(m, 1) + 40 b₂]`` (the mass left out is below
      ``e^{−40}``), cut at every kink of the integrand: ``1``, ``m`` and the columns of
      ``kinks`` (for the release, the ``u`` where ``c + T/u`` reaches a bound);
    * beside each kink ``k`` the pieces start at ``h_k = min(2/rate, k/2)`` (``rate`` the
      fastest exponential rate of ``g`` in ``u``; ``k/2`` resolves the ``1/u`` in ``c + T/u``)
      and grow fourfold per step away from it on both sides (a geometric mesh), until they
      reach the even pieces of ``8 b₂`` that carry the density far from every kink.

    Each piece's integrand is then smooth, so an 8-point rule per piece gives the mean
    squared error to about 1e-9 of ``(U − L)²`` (a fixed rule over the whole range does not
    resolve the kinks when the count noise is wide); the tests of this module check the law
    against adaptive quadrature.  Pieces of zero width (cuts merged by the clipping) are
    dropped.
    """
    xg, wg = _LEGENDRE
    rows = m.size
    bottom = np.maximum(m - _TAIL * b2, 1.0)
    top = np.maximum(m, 1.0) + _TAIL * b2
    at = np.concatenate([np.ones((rows, 1)), np.maximum(m, 1.0)[:, None], kinks], axis=1)
    at = np.clip(at, 1.0, top[:, None])
    first = np.minimum(_SPAN / rate[:, None], 0.5 * at)
    reach = _EVEN * b2[:, None] / first
    steps = int(np.ceil(np.log(max(float(reach.max()), 2.0)) / np.log(_GROWTH))) + 1
    grow = _GROWTH ** np.arange(steps) - 1.0
    offsets = first[:, :, None] * grow[None, None, :]
    up = at[:, :, None] + offsets
    down = at[:, 1:, None] - offsets[:, 1:]  # nothing below the kink at 1
    graded = np.concatenate([up.reshape(rows, -1), down.reshape(rows, -1)], axis=1)
    even = bottom[:, None] + _EVEN * b2[:, None] * np.arange(_N_EVEN)[None, :]
    cuts = np.concatenate([graded, even, bottom[:, None], top[:, None]], axis=1)
    cuts = np.sort(np.clip(cuts, bottom[:, None], top[:, None]), axis=1)
    left, right = cuts[:, :-1], cuts[:, 1:]
    # the pieces of zero width (cuts merged by the clipping) moved to the end and cut off
    empty = right <= left
    keep = np.argsort(empty, axis=1, kind="stable")[:, : int((~empty).sum(axis=1).max())]
    left, right = np.take_along_axis(left, keep, 1), np.take_along_axis(right, keep, 1)
    half = 0.5 * (right - left)
    u = (left + half)[:, :, None] + half[:, :, None] * xg[None, None, :]
    density = np.exp(-np.abs(u - m[:, None, None]) / b2[:, None, None]) / (2.0 * b2[:, None, None])
    weights = (density * half[:, :, None] * wg[None, None, :]).reshape(rows, -1)
    atom = laplace_cdf((1.0 - m) / b2)[:, None]
    nodes = np.concatenate([u.reshape(rows, -1), np.ones_like(atom)], axis=1)
    return nodes, np.concatenate([weights, atom], axis=1)


def _nodes(
    m: FloatArray, b2: FloatArray, kinks: FloatArray, rate: FloatArray
) -> tuple[FloatArray, FloatArray]:
    """:func:`_denominator_nodes`, built row by row by a compiled loop when numba is present
    (:func:`core.mechanisms.sum_count_kernels.denominator_nodes`)."""
    if not _kernels.COMPILED:
        return _denominator_nodes(m, b2, kinks, rate)
    return _kernels.denominator_nodes(
        np.ascontiguousarray(m, dtype=np.float64),
        np.ascontiguousarray(b2, dtype=np.float64),
        np.ascontiguousarray(kinks, dtype=np.float64),
        np.ascontiguousarray(rate, dtype=np.float64),
        *_RULE,
    )


@dataclass(frozen=True, eq=False)
class SumCountLaw:
    """The exact law of :class:`SumCountMean`'s release given each sample (one per row).

    Given a sample with centred sum ``T = Σ_S (x − c)`` and size ``m``, the release is
    ``Y = clip(c + (T + b₁ Z₁) / max(m + b₂ Z₂, 1), L, U)`` with independent Laplace
    ``Z₁, Z₂``.  Given the denominator ``D = max(m + b₂ Z₂, 1)`` it is a Laplace of centre
    ``c + T/D`` and scale ``b₁/D`` clipped to ``[L, U]``, whose moments and CDF are closed
    form (:func:`clipped_laplace_mse`, :func:`clipped_laplace_coverage`), and the law of
    ``D`` (an atom at 1, a Laplace density above) is integrated out:

    * the coverage exactly: the conditional CDF at ``y`` is the Laplace CDF of
      ``((y − c) u − T)/b₁``, so between the kinks ``1``, ``m`` and ``T/(y − c)`` the
      integrand is a sum of exponentials of ``u`` (:func:`_count_expectation_of_cdf`);
    * the mean squared error by composite Gauss–Legendre on pieces split at its kinks
      (``1``, ``m`` and ``|T|/((U − L)/2)``, where ``c + T/u`` reaches a bound) and graded
      away from each (:func:`_denominator_nodes`).

    Attributes
    ----------
    total, size : ndarray
        ``T`` and ``m`` per row.
    b_sum, b_count : ndarray
        The Laplace scales of the sum and of the count per row.
    lower, upper : float
        The public bounds.
    """

    total: FloatArray
    size: FloatArray
    b_sum: FloatArray
    b_count: FloatArray
    lower: float
    upper: float

    @property
    def centre(self) -> float:
        """``c = (L + U) / 2``."""
        return self.lower + (self.upper - self.lower) / 2.0

    def _kinks(self, rows: slice) -> tuple[FloatArray, FloatArray]:
        """The kinks of the MSE's integrand in the count beyond 1 and ``m`` (where ``c + T/u``
        reaches a bound: ``u = |T|/(R/2)``) and its fastest exponential rate, per row."""
        half = (self.upper - self.lower) / 2.0
        reach = np.abs(self.total[rows])[:, None] / half
        return reach, half / self.b_sum[rows] + 1.0 / self.b_count[rows]

    def _conditional(self, rows: slice) -> tuple[FloatArray, FloatArray, FloatArray]:
        """Centres, scales and weights of the clipped Laplace laws at the nodes of ``rows``."""
        total, b1 = self.total[rows], self.b_sum[rows]
        reach, rate = self._kinks(rows)
        d, w = _nodes(self.size[rows], self.b_count[rows], reach, rate)
        return self.centre + total[:, None] / d, b1[:, None] / d, w

    def _blocks(self) -> list[slice]:
        """Rows in blocks of :data:`_BLOCK_ROWS`, so the nodes of a large batch stay small."""
        n = self.total.size
        return [slice(i, min(i + _BLOCK_ROWS, n)) for i in range(0, n, _BLOCK_ROWS)]

    def mse(self, about: ArrayLike) -> FloatArray:
        """``E[(Y − a)² | sample]`` per row (``a`` one number or one per row)."""
        return self.mse_at([about])[0]

    def mse_at(self, abouts: Sequence[ArrayLike]) -> list[FloatArray]:
        """:meth:`mse` about each of ``abouts`` (each one number or one per row), from one
        pass over the quadrature nodes (the planner asks about the population value and
        about each sample's statistic).

        Compiled, each distinct row of a block (the same sum, size, scales and points: a
        planner's small samples repeat) is integrated once, at the nodes of its block, and
        its MSEs copied to its repeats: the same numbers as row by row.
        """
        points = [
            np.broadcast_to(np.asarray(a, dtype=np.float64), self.total.shape) for a in abouts
        ]
        out = np.empty((len(points), self.total.size))
        for rows in self._blocks():
            if _kernels.COMPILED:  # the same closed form, one compiled loop over the nodes
                at = np.stack([a[rows] for a in points])
                keys = np.stack(
                    [self.total[rows], self.size[rows], self.b_sum[rows], self.b_count[rows], *at]
                )
                first, repeat = _kernels.distinct_columns(keys)
                reach, rate = self._kinks(rows)
                t, m, b1, b2, r, a = (
                    np.ascontiguousarray(k[..., first]) for k in (*keys[:4], rate, at)
                )
                kinks = np.ascontiguousarray(reach[first])
                bounds = (self.centre, self.lower, self.upper)
                got = _kernels.mse_law_rows(t, m, b1, b2, kinks, r, *bounds, a, *_RULE)
                out[:, rows] = got[:, repeat]
                continue
            mu, beta, w = self._conditional(rows)
            for j, a in enumerate(points):
                g = clipped_laplace_mse(mu, beta, self.lower, self.upper, a[rows, None])
                out[j, rows] = (w * g).sum(axis=1)
        return [out[j].reshape(self.total.shape) for j in range(len(points))]

    def coverage(self, x: ArrayLike, theta: ArrayLike) -> FloatArray:
        """``P(|Y − θ| ≤ x | sample)`` per row (``x`` and ``θ`` one number or one per row).

        ``P(Y ≤ θ + x) − P(Y < θ − x)``, each ``P(D = 1) P(· | D = 1) + E[F(((y − c) D − T)/b₁);
        D > 1]`` with ``F`` the Laplace CDF (``P(Y ≤ y) = 1`` for ``y ≥ U``, ``P(Y < y) = 0``
        for ``y ≤ L``), the expectation in closed form (:func:`_count_expectation_of_cdf`).
        """
        shape = self.total.shape
        xx = np.broadcast_to(np.asarray(x, dtype=np.float64), shape)
        tt = np.broadcast_to(np.asarray(theta, dtype=np.float64), shape)
        t, m, b1, b2 = self.total, self.size, self.b_sum, self.b_count
        if _kernels.COMPILED:  # the same closed form, one compiled loop over the rows
            return np.asarray(
                _kernels.coverage_rows(
                    np.ascontiguousarray(t, dtype=np.float64),
                    np.ascontiguousarray(m, dtype=np.float64),
                    np.ascontiguousarray(b1, dtype=np.float64),
                    np.ascontiguousarray(b2, dtype=np.float64),
                    np.ascontiguousarray(xx),
                    np.ascontiguousarray(tt),
                    float(self.lower),
                    float(self.upper),
                ),
                dtype=np.float64,
            )
        c = self.centre
        atom = laplace_cdf((1.0 - m) / b2)
        at_one = clipped_laplace_coverage(c + t, b1, self.lower, self.upper, tt, xx)
        hi_y, lo_y = tt + xx, tt - xx
        # both ends in one pass (the rows are few, so the passes' overhead dominates)
        n = t.size
        both = _count_expectation_of_cdf(
            np.concatenate([m, m]),
            np.concatenate([b2, b2]),
            np.concatenate([(hi_y - c) / b1, (lo_y - c) / b1]),
            np.concatenate([-t / b1, -t / b1]),
        )
        below_hi = np.where(hi_y >= self.upper, 1.0 - atom, both[:n])
        below_lo = np.where(lo_y <= self.lower, 0.0, both[n:])
        out = atom * at_one + below_hi - below_lo
        return np.asarray(np.clip(out, 0.0, 1.0), dtype=np.float64)

    def mean_coverage(self, x: float, theta: float) -> float:
        """The mean over the rows of :meth:`coverage` at one ``x`` and one ``θ`` (one
        compiled pass when numba is present: the planner's bound search asks for it)."""
        if not _kernels.COMPILED or not self.total.size:
            return float(np.mean(self.coverage(x, theta)))
        t, m, b1, b2, repeat = self._distinct_rows
        return float(
            _kernels.coverage_mean(
                t, m, b1, b2, repeat, float(x), float(theta), float(self.lower), float(self.upper)
            )
        )

    @functools.cached_property
    def _distinct_rows(
        self,
    ) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray, NDArray[np.intp]]:
        """The distinct rows' sums, sizes and scales, and where each row's are among them
        (:func:`core.mechanisms.sum_count_kernels.distinct_columns`; a planner's small
        samples repeat)."""
        keys = np.stack([self.total, self.size, self.b_sum, self.b_count]).astype(np.float64)
        first, repeat = _kernels.distinct_columns(keys)
        t, m, b1, b2 = (np.ascontiguousarray(k[first]) for k in keys)
        return t, m, b1, b2, repeat

    @staticmethod
    def merge(laws: list[SumCountLaw]) -> SumCountLaw:
        """The rows of several laws (same bounds) as one law."""
        first = laws[0]
        return SumCountLaw(
            np.concatenate([law.total for law in laws]),
            np.concatenate([law.size for law in laws]),
            np.concatenate([law.b_sum for law in laws]),
            np.concatenate([law.b_count for law in laws]),
            first.lower,
            first.upper,
        )


class SumCountMean(Mechanism):
    """Noisy centred sum over a noisy count: a private mean that reads no size.

    With ``c = (L + U)/2``, ``R = U − L`` and a share ``s ∈ (0, 1)`` of ``ε = eps_sample``,
    the mechanism draws::

        Ŝ = Σ_S (x − c) + Laplace((R/2) / (s ε))       (the noisy centred sum)
        n̂ = |S| + Laplace(1 / ((1 − s) ε))             (the noisy count)

    and releases ``clip(c + Ŝ / max(n̂, 1), L, U)``.  It reads neither the population size
    ``N`` nor the sampling rate: on a census it is a private mean of the population, on a
    Poisson or cluster sample a private ratio estimator of it.

    Privacy (proof)
        *Added or removed record* (``add_remove_factor = 1``).  The pair ``(Ŝ, n̂)`` is two
        independent Laplace mechanisms.  Adding or removing one record ``x`` moves the
        centred sum by ``|x − c| ≤ R/2`` and the count by exactly 1, so the log ratio of the
        pair's densities at any output is at most ``(R/2)/b₁ + 1/b₂ = sε + (1 − s)ε = ε``
        (the Laplace mechanism, Dwork & Roth 2014, Theorem 3.6, and basic composition).  The
        release is a fixed function of the pair (the bounds are public, the share is part of
        the plan), so it keeps ``ε`` (post-processing, ibid. Proposition 2.1).  No size
        enters anywhere, so the two neighbours' sizes may differ: nothing needs to be
        public.  The pair attains the bound (a record at a bound added, outputs in the
        tails); the clipped ratio loses less, and ``tests/core/mechanisms/test_sum_count.py``
        computes its loss exactly on binned outputs of tiny samples and their neighbours.
        *Changed record* (``change_factor = 2``).  The count does not move and the sum moves
        by at most ``R`` (from ``L`` to ``U``), a loss of ``R/b₁ = 2sε ≤ 2ε``.  The class
        states ``2`` for every share (the planner's accounting reads a class constant; a
        tighter ``2s`` would need it per plan row).
        The share ``s`` is chosen by the planner on the register, as the rate is: the
        promise covers the release given the plan, and the plan is published with it.
        The share is rounded to :data:`SHARE_STEP` so that it says little about the data.

    Error
        Given the sample, the law of the release is known exactly (:class:`SumCountLaw`):
        conditional on the noisy denominator it is a clipped Laplace with closed-form
        moments and CDF, and the denominator's law is integrated out (exactly for the
        coverage, by quadrature split at the kinks for the mean squared error).  The
        planner therefore draws only samples (the sampling part) and integrates the noise.

    Split
        ``s`` minimises the exact noise MSE ``E[(Y − x̄)²]`` of a sample of the expected size
        ``m₀`` with the planned mean offset ``a₀ = θ − c`` (``T = m₀ a₀``) over the grid
        ``s = 0.02, 0.03, …, 0.98`` (:func:`chosen_share`).  For large samples the
        minimiser tends to ``1 / (1 + (|a₀| / (R/2))^{2/3})``, from minimising
        ``(R/2)²/s² + a₀²/(1 − s)²``: the count matters only as far as the mean is off the
        centre.

    Parameters
    ----------
    lower, upper : float
        Public bounds, ``lower < upper``.
    sum_share : float, optional
        ``s`` in (0, 1), fixed for every budget.  Default: chosen per budget as above from
        the two hints, or 0.5 without a ``size_hint``.
    size_hint : float, optional
        ``m₀ ≥ 0``, the planned (expected) sample size.
    offset_hint : float, default 0
        ``a₀``, the planned mean minus the centre ``c``.

    Raises
    ------
    ValueError
        For bad bounds, a share outside (0, 1), a negative or non-finite size hint, or a
        non-finite offset hint.
    """

    name = "sum_count"
    label = "mean, noisy sum over a noisy count (no size needed)"
    ragged = True
    additive = False
    unit_noise_variance = None
    pure = True
    add_remove_factor = 1.0
    change_factor = 2.0

    def __init__(
        self,
        lower: float,
        upper: float,
        sum_share: float | None = None,
        size_hint: float | None = None,
        offset_hint: float = 0.0,
    ) -> None:
        self.lower, self.upper = check_bounds(lower, upper)
        self.centre: float = self.lower + (self.upper - self.lower) / 2.0
        self.half_range: float = (self.upper - self.lower) / 2.0
        if sum_share is not None:
            s = finite_scalar("sum_share", sum_share)
            if not 0.0 < s < 1.0:
                raise ValueError(f"sum_share must be in the interval (0, 1); got {sum_share!r}")
        self.sum_share: float | None = None if sum_share is None else s
        if size_hint is not None:
            h = finite_scalar("size_hint", size_hint)
            if h < 0:
                raise ValueError(f"size_hint must be a finite number >= 0; got {size_hint!r}")
        self.size_hint: float | None = None if size_hint is None else h
        self.offset_hint: float = finite_scalar("offset_hint", offset_hint)
        self._shares: dict[float, float] = {}

    # -- the split -------------------------------------------------------------------------

    def share(self, eps_sample: float) -> float:
        """The share ``s`` of ``eps_sample`` the sum spends (class docstring, "Split")."""
        known = self._shares.get(eps_sample)
        if known is not None:
            return known
        eps = float(check_eps("eps_sample", eps_sample))
        if self.sum_share is not None or self.size_hint is None:
            self._shares[eps] = 0.5 if self.sum_share is None else self.sum_share
        else:
            self._shares[eps] = chosen_share(
                self.lower, self.upper, self.size_hint, self.offset_hint, eps
            )
        return self._shares[eps]

    def scales(self, eps_sample: ArrayLike) -> tuple[FloatArray, FloatArray]:
        """The Laplace scales ``(b₁, b₂) = ((R/2)/(sε), 1/((1 − s)ε))`` per budget."""
        eps = np.atleast_1d(np.asarray(eps_sample, dtype=np.float64))
        uniq, inv = np.unique(eps, return_inverse=True)
        shares = np.array([self.share(float(e)) for e in uniq])[inv]
        return self.half_range / (shares * eps), 1.0 / ((1.0 - shares) * eps)

    # -- the Mechanism interface -----------------------------------------------------------

    def statistic(self, samples: FloatArray) -> FloatArray:
        """The sample mean of each row (the value the release estimates)."""
        return np.asarray(np.asarray(samples, dtype=np.float64).mean(axis=1), dtype=np.float64)

    def sensitivity(
        self,
        samples: FloatArray,
        eps_sample: float | FloatArray,
        delta_sample: float,
        lower: float,
        upper: float,
    ) -> FloatArray:
        """``R/2``, the sensitivity of the centred sum to an added or removed record."""
        return np.full(np.shape(samples)[0], (float(upper) - float(lower)) / 2.0)

    def noise_scale(self, sensitivity: FloatArray, eps_sample: float | FloatArray) -> FloatArray:
        """``b₁ = S / (s ε)``, the scale of the sum's noise (the count's is ``1/((1 − s)ε)``)."""
        eps = np.broadcast_to(np.asarray(eps_sample, dtype=np.float64), np.shape(sensitivity))
        uniq, inv = np.unique(eps, return_inverse=True)
        shares = np.array([self.share(float(e)) for e in uniq])[inv].reshape(eps.shape)
        return np.asarray(sensitivity / (shares * eps), dtype=np.float64)

    def law(self, totals: ArrayLike, sizes: ArrayLike, eps_sample: ArrayLike) -> SumCountLaw:
        """The exact law of the release given samples with these centred sums and sizes."""
        t = np.atleast_1d(np.asarray(totals, dtype=np.float64))
        m = np.atleast_1d(np.asarray(sizes, dtype=np.float64))
        eps = np.broadcast_to(np.asarray(eps_sample, dtype=np.float64), t.shape)
        uniq, inv = np.unique(eps, return_inverse=True)
        b1, b2 = self.scales(uniq)
        return SumCountLaw(t, m, b1[inv], b2[inv], self.lower, self.upper)

    def _draw(
        self, totals: FloatArray, sizes: FloatArray, eps: FloatArray, rng: np.random.Generator
    ) -> FloatArray:
        uniq, inv = np.unique(eps, return_inverse=True)
        b1, b2 = self.scales(uniq)
        z = rng.laplace(0.0, 1.0, size=(2, totals.size))
        noisy_sum = totals + b1[inv] * z[0]
        noisy_count = np.maximum(sizes + b2[inv] * z[1], 1.0)
        return np.asarray(
            np.clip(self.centre + noisy_sum / noisy_count, self.lower, self.upper),
            dtype=np.float64,
        )

    def _check_same_bounds(self, lower: float, upper: float) -> None:
        check_same_bounds(type(self).__name__, (self.lower, self.upper), lower, upper)

    def release(
        self,
        samples: ArrayLike,
        eps_sample: float | ArrayLike,
        delta_sample: float,
        lower: float,
        upper: float,
        rng: np.random.Generator,
    ) -> Release:
        """Release ``clip(c + Ŝ / max(n̂, 1), L, U)`` per row (two Laplace draws per row).

        Parameters, return value and errors as :meth:`Mechanism.release` (the bounds must be
        the constructor's); ``noise_variance`` is None (the release is not additive) and
        :attr:`Release.law` holds its exact law given each row (:class:`SumCountLaw`).
        """
        self._check_same_bounds(lower, upper)
        lo, hi, batch, eps, delta = _check_release_args(
            samples, eps_sample, delta_sample, lower, upper, rng
        )
        stat = self.statistic(batch)
        totals = (batch - self.centre).sum(axis=1)
        sizes = np.full(batch.shape[0], float(batch.shape[1]))
        s = self.sensitivity(batch, eps, delta, lo, hi)
        released = self._draw(totals, sizes, np.asarray(eps, dtype=np.float64), rng)
        return Release(
            released, stat, s, self.noise_scale(s, eps), None, self.law(totals, sizes, eps)
        )

    def release_ragged(
        self,
        samples: Sequence[FloatArray] | SortedRows,
        eps_sample: float,
        lower: float,
        upper: float,
        rng: np.random.Generator,
    ) -> Release:
        """One release per sample of any size (an empty one included: sum and count 0), in
        one call; the statistic of an empty sample is the centre ``c``.  ``samples`` may be
        :class:`core.mechanisms.rows.SortedRows` (the planner's), whose sums are taken at once.

        The same law as :meth:`release` of each sample alone (two Laplace draws per sample);
        the values are checked to lie inside the bounds.
        """
        self._check_same_bounds(lower, upper)
        eps = float(check_eps("eps_sample", eps_sample))
        check_rng(rng)
        if isinstance(samples, SortedRows):  # end to end, checked finite: sums at once
            sizes = samples.sizes.astype(np.float64)
            outside = samples.low < lower or samples.high > upper
            totals = np.zeros(sizes.size)
            full = samples.sizes > 0
            if full.any():
                totals[full] = np.add.reduceat(samples.values - self.centre, samples.starts[full])
        else:
            sizes = np.array([np.size(r) for r in samples], dtype=np.float64)
            outside = False
            if sizes.sum() > 0:
                values = np.concatenate([np.asarray(r, dtype=np.float64) for r in samples])
                outside = bool(
                    not np.isfinite(values).all() or values.min() < lower or values.max() > upper
                )
            totals = np.array(
                [float(np.sum(np.asarray(r, dtype=np.float64) - self.centre)) for r in samples]
            )
        if outside:
            raise ValueError(
                f"samples must be finite and inside the public bounds [{lower!r}, {upper!r}]"
            )
        stat = self.centre + totals / np.maximum(sizes, 1.0)
        eps_rows = np.full(sizes.size, eps)
        released = self._draw(totals, sizes, eps_rows, rng)
        s = np.full(sizes.size, self.half_range)
        return Release(
            released, stat, s, self.noise_scale(s, eps_rows), None, self.law(totals, sizes, eps)
        )

    def release_empty(
        self, eps_sample: float, lower: float, upper: float, rng: np.random.Generator
    ) -> tuple[float, float, float]:
        """The release of an empty sample (centred sum 0, count 0) and its noise about ``c``."""
        e = np.array([float(eps_sample)])
        released = float(self._draw(np.zeros(1), np.zeros(1), e, rng)[0])
        variance = float(self.law_of_empty(float(eps_sample)).mse(self.centre)[0])
        return released, variance, float(self.scales(e)[0][0])

    def law_of_empty(self, eps_sample: float) -> SumCountLaw:
        """The exact law of the release of an empty sample."""
        return self.law(np.zeros(1), np.zeros(1), eps_sample)

    def exact_error(
        self,
        sample: FloatArray,
        eps_sample: float,
        delta_sample: float,
        lower: float,
        upper: float,
        level: float,
    ) -> tuple[float, float] | None:
        """Exact ``(MSE, level-quantile of |release − x̄|)`` on one fixed sample (a census)."""
        self._check_same_bounds(lower, upper)
        arr = np.asarray(sample, dtype=np.float64)
        law = self.law([float((arr - self.centre).sum())], [float(arr.size)], eps_sample)
        mean = float(arr.mean())
        return float(law.mse(mean)[0]), law_quantile(law, mean, level)

    def __repr__(self) -> str:
        return (
            f"SumCountMean(lower={self.lower!r}, upper={self.upper!r}, "
            f"sum_share={self.sum_share!r}, size_hint={self.size_hint!r}, "
            f"offset_hint={self.offset_hint!r})"
        )

    def _key(self) -> tuple[object, ...]:
        return (self.lower, self.upper, self.sum_share, self.size_hint, self.offset_hint)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SumCountMean) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash((type(self).__name__, *self._key()))


@functools.lru_cache(maxsize=4096)
def chosen_share(
    lower: float, upper: float, size_hint: float, offset_hint: float, eps_sample: float
) -> float:
    """The sum's share of ``eps_sample`` for a planned sample of ``size_hint`` records with
    the mean offset ``offset_hint`` (:class:`SumCountMean`, "Split"): the share of
    :data:`SHARE_GRID` whose exact noise MSE ``E[(Y − x̄)²]`` is least.

    The MSE is unimodal in the share, so it is computed on every fourth share of the grid,
    then on the shares beside the best of those (each time every share at once, as the rows
    of one law).  A pure function of its arguments, kept for the mechanisms the planner
    makes anew for every cell, rate and rerun.
    """
    centre = lower + (upper - lower) / 2.0
    half = (upper - lower) / 2.0
    m0 = max(size_hint, 1.0)

    def best(at: NDArray[np.int64]) -> int:
        shares = SHARE_GRID[at]
        law = SumCountLaw(
            np.full(at.size, m0 * offset_hint),
            np.full(at.size, m0),
            half / (shares * eps_sample),
            1.0 / ((1.0 - shares) * eps_sample),
            lower,
            upper,
        )
        return int(at[int(np.argmin(law.mse(centre + offset_hint)))])

    last = SHARE_GRID.size - 1
    coarse = best(np.arange(0, last + 1, _COARSE))
    near = np.arange(max(coarse - _COARSE + 1, 0), min(coarse + _COARSE, last + 1))
    return float(SHARE_GRID[best(near)])


def law_quantile(law: SumCountLaw, theta: float, level: float) -> float:
    """``x`` with ``mean_i P(|Y_i − θ| ≤ x) = level`` over the rows of ``law`` (bisection).

    The coverage is non-decreasing in ``x`` and reaches 1 at ``x = U − L``.
    """
    lo, hi = 0.0, float(law.upper - law.lower)
    if float(law.coverage(0.0, theta).mean()) >= level:
        return 0.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if mid <= lo or mid >= hi:
            break
        if float(law.coverage(mid, theta).mean()) < level:
            lo = mid
        else:
            hi = mid
        if hi - lo <= 1e-13 * max(hi, math.ulp(1.0)):
            break
    return hi
