"""A quantile with no public upper bound: AboveThreshold on growing thresholds (Durfee 2023).

Source: D. Durfee, "Unbounded Differentially Private Quantile and Maximum Estimation"
(NeurIPS 2023), the unbounded quantile estimate: with only a lower bound ``lower`` public,
try the thresholds ``t_i = lower + beta^i - 1`` (``i = 0, 1, 2, ...``, growth
``beta > 1``) one after another and release the first whose noisy count of records at or
below it reaches the noisy target ``q n`` -- one AboveThreshold (sparse vector) run.  For
registers whose largest value is not public.  :class:`UnboundedQuantile` draws the release
exactly without visiting the thresholds one by one.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .. import sensitivity as sens
from .._validation import check_delta_open, check_rng, finite_scalar
from ..mechanisms.base import FloatArray, Release, _check_eps_rows
from ..mechanisms.quantiles import _RankScoreQuantile
from ..threads import by_rows

__all__ = [
    "DEFAULT_GROWTH",
    "UnboundedQuantile",
    "threshold_indices",
]

#: Default growth factor ``beta`` of the thresholds (relative resolution about 0.1 %).
DEFAULT_GROWTH = 1.001


def threshold_indices(values: ArrayLike, lower: float, log_growth: float) -> NDArray[np.int64]:
    """Index of the first threshold ``t_i = lower + expm1(i log beta)`` at or above each value.

    ``ceil(log1p(x - lower) / log beta)``, corrected by one step where rounding put it on the
    wrong side (the thresholds are computed by the same expression as the release).  Rounding
    moves ``f = log1p(x - lower) / log beta`` by a few units in its last place, so ``ceil(f)``
    can be wrong only where ``f`` lies within ``1e-9`` (relative) of a whole number: the
    corrections, two ``expm1`` each, are made there only -- the same indices at a third of
    the cost on a whole batch of samples.
    """
    x = np.asarray(values, dtype=np.float64)
    xs = np.ascontiguousarray(x.reshape(-1))
    flat = np.empty(xs.size, dtype=np.int64)
    near = np.empty(xs.size, dtype=np.int64)
    found: dict[int, int] = {}

    def part(a: int, b: int) -> None:
        found[a] = _index_guess(xs[a:b], float(lower), float(log_growth), flat[a:b], near[a:b])

    by_rows(part, xs.size, xs.size)
    at = np.concatenate([near[a : a + c] + a for a, c in found.items()]) if found else near[:0]
    if at.size:
        flat[at] = _corrected(flat[at].astype(np.float64), xs[at], lower, log_growth)
    return flat.reshape(x.shape)


def _index_guess(
    x: FloatArray, lower: float, log_growth: float, out: NDArray[np.int64], near: NDArray[np.int64]
) -> int:  # pragma: no cover - compiled by numba; the same loop runs uncompiled without it
    """``out[t] = max(ceil(f), 0)``, ``f = log1p(x[t] - lower) / log_growth``, in one pass;
    the positions where ``f`` is within ``1e-9`` (relative) of a whole number are written to
    ``near``, and their number returned."""
    count = 0
    for t in range(x.size):
        f = math.log1p(x[t] - lower) / log_growth
        out[t] = max(math.ceil(f), 0)
        if abs(f - math.floor(f + 0.5)) <= 1e-9 * max(1.0, abs(f)):
            near[count] = t
            count += 1
    return count


if sens.HAVE_NUMBA:
    _index_guess = sens._njit(_index_guess)


def _corrected(idx: FloatArray, x: FloatArray, lower: float, log_growth: float) -> FloatArray:
    """The first threshold index at or above each ``x``, from a guess at most one step off."""
    idx = np.where(lower + np.expm1(idx * log_growth) < x, idx + 1.0, idx)
    back = np.maximum(idx - 1.0, 0.0)
    return np.asarray(
        np.where((idx > 0) & (lower + np.expm1(back * log_growth) >= x), back, idx),
        dtype=np.float64,
    )


def _first_crossing_kernel(
    index: NDArray[np.int64],
    target: float,
    scale: float,
    rho: FloatArray,
    expo: FloatArray,
    out: FloatArray,
) -> None:  # pragma: no cover - compiled by numba; the same loop runs uncompiled without it
    """Per row: the first threshold index whose noisy count reaches the noisy target.

    Threshold ``i`` is passed with probability ``P(nu_i < rho - (c_i - target))``; the counts
    ``c_i`` are constant between the indices of consecutive records, so each run of equal
    counts adds ``length × hazard`` to the cumulative hazard, and the first crossing is where
    that sum reaches the row's ``Exp(1)`` draw (exact, by the memoryless construction).
    """
    reps, n = index.shape
    for r in range(reps):
        total = 0.0
        m = 0
        position = 0.0
        # Counts so far below the target that exp(-z) underflows to 0 add no hazard (h is
        # exactly 0): jump over them, to where the loop would be after the last of them.
        # z = (rho - (m - target)) / scale falls as m grows, and z >= 746 for every
        # m <= skip; exp(-746) is below half the least subnormal double, so it is 0.
        skip = math.floor(rho[r] + target - 746.0 * scale)
        if 0 < skip < n:
            position = float(index[r, skip - 1])
        while True:
            while m < n and index[r, m] <= position:
                m += 1
            z = (rho[r] - (m - target)) / scale
            if z >= 0:
                h = -math.log1p(-0.5 * math.exp(-z))
            else:
                h = math.log(2.0) - z
            if m < n:
                length = index[r, m] - position
                if h > 0 and total + length * h >= expo[r]:
                    out[r] = position + max(math.ceil((expo[r] - total) / h) - 1.0, 0.0)
                    break
                total += length * h
                position = float(index[r, m])
            else:
                step = math.ceil((expo[r] - total) / h) - 1.0 if h > 0 else math.inf
                out[r] = position + max(step, 0.0)
                break


_first_crossing_compiled = (
    sens._njit(_first_crossing_kernel) if sens.HAVE_NUMBA else _first_crossing_kernel
)


class _Crossing:
    """:func:`_first_crossing_kernel` on rows ``a .. b - 1`` when called with ``(a, b)``
    (:func:`core.threads.by_rows`); the rows' crossings land in ``out``."""

    def __init__(
        self,
        index: NDArray[np.int64],
        target: float,
        scale: float,
        rho: FloatArray,
        expo: FloatArray,
    ) -> None:
        self.index, self.target, self.scale, self.rho, self.expo = index, target, scale, rho, expo
        self.out = np.empty(index.shape[0], dtype=np.float64)

    def __call__(self, a: int, b: int) -> None:
        _first_crossing_compiled(
            self.index[a:b], self.target, self.scale, self.rho[a:b], self.expo[a:b], self.out[a:b]
        )


class UnboundedQuantile(_RankScoreQuantile):
    """AboveThreshold on ``t_i = lower + beta^i - 1``: a quantile with no public upper bound.

    Release (Durfee 2023, the unbounded quantile estimate, with ``Laplace(2 / eps)`` noise on
    the threshold and on every count)::

        rho ~ Laplace(2 / eps),   nu_i ~ Laplace(2 / eps) i.i.d.,
        c_i = #{records <= t_i},   t_i = lower + beta^i - 1,
        release t_I,   I = min{i : c_i - q n + nu_i >= rho}.

    Parameters: ``lower`` (public, every record at or above it), the growth ``beta > 1``
    (:data:`DEFAULT_GROWTH`; the release overshoots the quantile by a relative ``beta - 1``
    at most, once ``t_i`` is large against 1, i.e. the data are in units where 1 is a
    negligible difference) and ``q``.  ``upper`` is accepted and ignored: no upper bound
    enters the release, so the values may be any finite numbers ``>= lower``.

    Guarantee: pure ``eps_sample``-DP for a changed record and for an added or removed one
    (``change_factor = add_remove_factor = 1``).  Proof (AboveThreshold with queries
    ``g_i = c_i - q n`` that all move inside one interval of length 1): for neighbours
    ``x, x'`` let ``d_i = g_i(x') - g_i(x)``.  Changing one record from ``v`` to ``v'``
    moves every ``c_i`` by 0 or by the same ``±1`` (the thresholds between ``v`` and
    ``v'``), ``n`` fixed; adding a record ``v`` raises ``c_i`` by ``1[v <= t_i]`` and
    ``q n`` by ``q``, so ``d_i in {-q, 1 - q}``.  Either way all ``d_i`` lie in an interval
    ``[a - 1, a]`` with ``|a| <= 1``.  The release is ``t_I``; for output index ``I``::

        P_x(I) = ∫ p(rho) prod_{i<I} P(g_i + nu < rho) P(g_I + nu >= rho) d rho.

    Substitute ``rho = sigma + a`` in ``P_x'(I)``: every
    ``P(g_i(x') + nu < sigma + a) >= P(g_i(x) + nu < sigma)`` because ``d_i <= a``;
    ``P(g_I(x') + nu >= sigma + a) = P(g_I(x) + nu >= sigma + a - d_I) >=
    e^(-eps/2) P(g_I(x) + nu >= sigma)`` because ``0 <= a - d_I <= 1`` and the Laplace
    tail of scale ``2 / eps`` falls by at most ``e^(eps/2)`` over a unit shift; and
    ``p(sigma + a) >= e^(-eps |a| / 2) p(sigma) >= e^(-eps/2) p(sigma)``.  So
    ``P_x'(I) >= e^(-eps) P_x(I)``; swapping ``x`` and ``x'`` gives the other direction.
    The outputs are countable, so this is pure ``eps``-DP.  An empty sample has ``c_i = 0``
    and ``q n = 0``, so adding its first record is the same case.

    Sampler (exact): conditional on ``rho``, threshold ``i`` is passed with probability
    ``P(nu < rho - g_i)``, independently; ``g_i`` is constant between the threshold indices
    of consecutive records, so the cumulative hazard ``sum -log P(pass)`` is a sum over
    runs, and the first crossing is where it reaches one ``Exp(1)`` draw.  ``O(n)`` per row
    at most (compiled loop, stopping at the crossing), whatever the number of thresholds.
    ``rng`` is advanced by ``reps`` Laplace draws and ``reps`` exponential draws.

    Tail: once the noisy threshold ``rho`` exceeds ``n (1 - q)`` (probability
    ``e^(-eps n (1 - q) / 2) / 2``) every threshold passes with a probability close to 1,
    and the released index has a ``1 / i`` tail, so the release has no finite mean in
    theory and can exceed the largest float (released as ``inf``).  Compare accuracy by
    quantiles of the error, not by its mean square, unless ``eps n (1 - q)`` is large.

    Windows: the release depends on the counts at every threshold below it, i.e. on all the
    records below the released value: not windowed.

    Parameters
    ----------
    quantile : float, default 0.5
        The level ``q`` in (0, 1).
    growth : float, default 1.001
        ``beta > 1``, finite.
    """

    name = "unbounded"
    label = "quantile with no upper bound (AboveThreshold on growing thresholds)"
    additive = False
    unit_noise_variance = None
    pure = True
    add_remove_factor = 1.0
    change_factor = 1.0
    windowed = False
    needs_upper = False

    def __init__(self, quantile: float = 0.5, growth: float = DEFAULT_GROWTH) -> None:
        super().__init__(quantile)
        beta = finite_scalar("growth", growth)
        if not beta > 1.0:
            raise ValueError(f"growth must be > 1; got {growth!r}")
        self.growth: float = beta

    def thresholds(self, index: ArrayLike, lower: float) -> FloatArray:
        """``t_i = lower + beta^i - 1`` (as ``lower + expm1(i log beta)``; ``inf`` past the
        largest float, see the class docstring on the tail)."""
        i = np.asarray(index, dtype=np.float64)
        with np.errstate(over="ignore"):
            return np.asarray(lower + np.expm1(i * math.log(self.growth)), dtype=np.float64)

    def release(
        self,
        samples: ArrayLike,
        eps_sample: float | ArrayLike,
        delta_sample: float,
        lower: float,
        upper: float,
        rng: np.random.Generator,
    ) -> Release:
        """Release one unbounded quantile per row (see the class docstring).

        ``samples``: one sorted row per sample of finite values ``>= lower``; ``upper`` must
        exceed ``lower`` (it may be ``inf``) and is not used.  Other parameters, the return
        value and the errors as :meth:`Mechanism.release`; ``noise_variance`` is ``None``.
        """
        lo, hi, batch = self._checked(samples, lower, upper)
        eps = _check_eps_rows(eps_sample, batch.shape[0])
        check_delta_open("delta_sample", delta_sample)
        check_rng(rng)
        index = threshold_indices(batch, lo, math.log(self.growth))
        return self._release_indexed(batch, index, eps, lo, hi, rng)

    def release_each(
        self,
        samples: ArrayLike,
        eps_samples: Sequence[float],
        delta_sample: float,
        lower: float,
        upper: float,
        rng: np.random.Generator,
    ) -> list[Release]:
        """:meth:`release` at each budget, the samples checked and their threshold indices
        computed once (they do not depend on the budget); the same draws from ``rng``."""
        lo, hi, batch = self._checked(samples, lower, upper)
        rows = batch.shape[0]
        budgets = [_check_eps_rows(e, rows) for e in eps_samples]
        check_delta_open("delta_sample", delta_sample)
        check_rng(rng)
        index = threshold_indices(batch, lo, math.log(self.growth))
        return [self._release_indexed(batch, index, eps, lo, hi, rng) for eps in budgets]

    @staticmethod
    def _checked(samples: ArrayLike, lower: float, upper: float) -> tuple[float, float, FloatArray]:
        """``(lower, upper, samples)`` checked as :meth:`release` states."""
        lo = finite_scalar("lower", lower)
        hi = float(upper)
        if not hi > lo:
            raise ValueError(f"upper must be > lower (it may be inf); got {upper!r}")
        try:
            batch = np.asarray(samples, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise ValueError("samples must be a 2-d array of numbers (one per row)") from exc
        if batch.ndim != 2 or batch.shape[1] == 0:
            raise ValueError(f"samples must be 2-d with values in every row; got {batch.shape}")
        if not np.isfinite(batch).all():
            raise ValueError("samples must all be finite (no NaN or infinity)")
        if batch.shape[1] > 1 and (np.diff(batch, axis=1) < 0).any():
            raise ValueError("each row of samples must be sorted ascending")
        if batch[:, 0].min() < lo:
            raise ValueError(
                f"samples must be >= lower = {lo!r}; found {float(batch[:, 0].min())!r}"
            )
        return lo, hi, batch

    def _release_indexed(
        self,
        batch: FloatArray,
        index: NDArray[np.int64],
        eps: FloatArray,
        lo: float,
        hi: float,
        rng: np.random.Generator,
    ) -> Release:
        """The release of checked samples whose threshold indices are ``index``."""
        reps, n = batch.shape
        rho_unit = np.asarray(rng.laplace(0.0, 1.0, reps), dtype=np.float64)
        expo = np.asarray(rng.standard_exponential(reps), dtype=np.float64)
        out = np.empty(reps, dtype=np.float64)
        target = self.quantile * n
        for value in np.unique(eps):  # one compiled pass per distinct budget
            rows = np.flatnonzero(eps == value)
            scale = 2.0 / float(value)
            every = rows.size == reps  # one budget for all rows: no copy of the indices
            crossing = _Crossing(
                index if every else np.ascontiguousarray(index[rows]),
                target,
                scale,
                np.ascontiguousarray(rho_unit[rows] * scale),
                np.ascontiguousarray(expo[rows]),
            )
            by_rows(crossing, rows.size, crossing.index.size)
            out[rows] = crossing.out
        # Clamped to the public bounds like every release (a finite U caps the thresholds).
        released = np.clip(self.thresholds(out, lo), lo, hi)
        return self._score_release(released, batch, eps, lo, hi)

    def release_empty(
        self, eps_sample: float, lower: float, upper: float, rng: np.random.Generator
    ) -> tuple[float, float, float]:
        """``(released, NaN, 2 / eps)`` for an empty sample: the same AboveThreshold run with
        every count and the target at 0 (adding the first record is a neighbour like any
        other, see the class docstring); ``upper`` is not used."""
        scale = 2.0 / float(eps_sample)
        out = np.empty(1, dtype=np.float64)
        _first_crossing_compiled(
            np.zeros((1, 0), dtype=np.int64),
            0.0,
            scale,
            np.array([rng.laplace(0.0, scale)]),
            np.array([rng.standard_exponential()]),
            out,
        )
        return float(self.thresholds(out, float(lower))[0]), math.nan, scale

    def __repr__(self) -> str:
        return f"{type(self).__name__}(quantile={self.quantile!r}, growth={self.growth!r})"

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, UnboundedQuantile)
            and self.quantile == other.quantile
            and self.growth == other.growth
        )

    def __hash__(self) -> int:
        return hash((type(self).__name__, self.quantile, self.growth))
