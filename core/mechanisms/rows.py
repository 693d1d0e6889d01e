"""Samples of unequal sizes released in one call, with the draws of one release per sample.

A design whose sample size is random (Poisson sampling) gives samples of different sizes, so
they cannot be stacked into one batch for :meth:`core.mechanisms.Mechanism.release`.
Releasing each sample alone costs a Python call, a check of the sample and a few numpy
calls per sample; :func:`release_rows` does the same work once for all of them.

* :class:`SortedRows` holds the samples end to end in one array, checked once when it is
  made (finite, each sample sorted), with the smallest and largest value, so that a
  release checks the public bounds in constant time.
* :func:`release_rows` gives exactly what :meth:`Mechanism.release` of each sample alone
  gives, in order (:func:`empty_release` for an empty sample): the same values from the
  same draws of the generator, in the same order.  A mechanism whose empty release takes
  draws it can deal out in order with the others' releases every sample in one call
  (:meth:`Mechanism.release_with_empty`: :func:`additive_with_empty` for an additive
  Laplace mechanism with :meth:`Mechanism.empty_laplace`, and the exponential quantile);
  otherwise the samples between two empty ones go to :meth:`Mechanism.release_in_order`
  at once; by default
  (:func:`additive_in_order`) an additive mechanism computes the statistic and the
  sensitivity of every sample vectorised, draws the noise sample by sample in order
  (:func:`noise_in_order`) and makes one clamped release; a mechanism with a release of its
  own is released sample by sample (:func:`one_by_one`) unless it overrides
  :meth:`Mechanism.release_in_order` (the exponential quantile).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._validation import (
    check_bounds,
    check_bounds_or_no_upper,
    check_delta_open,
    check_eps,
    check_rng,
)
from ..sensitivity.checks import HAVE_NUMBA, _njit

if TYPE_CHECKING:
    from ..mechanisms.base import FloatArray, Mechanism, Release

__all__ = [
    "SortedRows",
    "additive_in_order",
    "additive_with_empty",
    "concatenate",
    "empty_release",
    "noise_in_order",
    "one_by_one",
    "release_rows",
    "with_empty",
]

IntArray = NDArray[np.int64]


@dataclass(frozen=True, eq=False)
class SortedRows:
    """Sorted samples of any sizes (empty ones included), stored end to end.

    Sample ``i`` is ``values[starts[i] : starts[i] + sizes[i]]``.  Made by :meth:`of`,
    :meth:`from_values` or :meth:`from_mask`, which check every value finite and every
    sample sorted; ``low`` and ``high`` are the smallest and largest value (``inf`` and
    ``-inf`` when there is none), which :func:`release_rows` compares with the public
    bounds.  Samples of one size are also a batch (``numpy.asarray`` gives one sample per
    row), which :meth:`Mechanism.release` takes without checking each value again.
    """

    values: FloatArray
    sizes: IntArray
    starts: IntArray
    low: float
    high: float

    @classmethod
    def of(cls, rows: Sequence[ArrayLike]) -> SortedRows:
        """The samples ``rows`` (1-d, sorted ascending, any lengths), checked."""
        arrays = [np.asarray(r, dtype=np.float64).reshape(-1) for r in rows]
        sizes = np.array([a.size for a in arrays], dtype=np.int64)
        values = np.concatenate(arrays) if arrays else np.empty(0)
        return cls.from_values(values, sizes)

    @classmethod
    def from_values(cls, values: ArrayLike, sizes: ArrayLike) -> SortedRows:
        """The samples of ``sizes`` read in turn from ``values``, checked.

        Raises
        ------
        ValueError
            For sizes that are negative or do not add up to the number of values, a value
            that is not finite, or a sample that is not sorted ascending.
        """
        v = np.ascontiguousarray(values, dtype=np.float64).reshape(-1)
        n = np.asarray(sizes, dtype=np.int64).reshape(-1)
        if (n < 0).any() or int(n.sum()) != v.size:
            raise ValueError(
                f"sizes must be >= 0 and add up to the number of values ({v.size}); "
                f"got {int(n.sum())}"
            )
        if not np.isfinite(v).all():
            raise ValueError("samples must all be finite (no NaN or infinity)")
        starts = np.zeros(n.size, dtype=np.int64)
        np.cumsum(n[:-1], out=starts[1:])
        if v.size > 1:
            drops = v[1:] < v[:-1]
            first = starts[(n > 0) & (starts > 0)]  # a sample's first value may be lower
            drops[first - 1] = False
            if drops.any():
                raise ValueError("each sample must be sorted ascending")
        low, high = (float(v.min()), float(v.max())) if v.size else (math.inf, -math.inf)
        return cls(v, n, starts, low, high)

    @classmethod
    def from_mask(cls, values: ArrayLike, mask: NDArray[np.bool_]) -> SortedRows:
        """The subsets of ``values`` (sorted ascending, finite) that the rows of ``mask``
        select, one sample per row, each in the order of ``values`` (so sorted).

        ``values`` is checked (one pass over its ``N`` values, not over the ``rows × N``
        mask); the subsets are read in one compiled pass over the mask when numba is
        present.

        Raises
        ------
        ValueError
            For ``values`` not finite or not sorted, or a mask whose rows are not as long.
        """
        v = np.ascontiguousarray(values, dtype=np.float64).reshape(-1)
        m = np.ascontiguousarray(mask, dtype=np.bool_)
        if m.ndim != 2 or m.shape[1] != v.size:
            raise ValueError(f"mask must have shape (rows, {v.size}); got {m.shape}")
        if not np.isfinite(v).all() or (v.size > 1 and (v[1:] < v[:-1]).any()):
            raise ValueError("values must be finite and sorted ascending")
        sizes = m.sum(axis=1, dtype=np.int64)
        starts = np.zeros(sizes.size, dtype=np.int64)
        np.cumsum(sizes[:-1], out=starts[1:])
        if _gather_compiled is not None:
            total = int(sizes.sum())
            out = np.empty(total + v.size)  # room for the writes past the last value
            _gather_compiled(m, v, out)
            out = out[:total]
        else:  # pragma: no cover - numba is a pinned dependency
            out = np.broadcast_to(v, m.shape)[m]
        filled = np.flatnonzero(sizes)
        if not filled.size:
            return cls(out, sizes, starts, math.inf, -math.inf)
        low = float(out[starts[filled]].min())
        high = float(out[starts[filled] + sizes[filled] - 1].max())
        return cls(out, sizes, starts, low, high)

    def __array__(self, dtype: Any = None, copy: Any = None) -> FloatArray:
        """The samples as a batch, one per row (a view), when they all have one size."""
        size = self.equal_size()
        if size is None:
            raise ValueError("samples of different sizes are not one batch (one per row)")
        batch = self.values.reshape(len(self), size)
        return batch if dtype is None else batch.astype(dtype, copy=False)

    def __len__(self) -> int:
        return int(self.sizes.size)

    def row(self, i: int) -> FloatArray:
        """Sample ``i`` (a view)."""
        start = int(self.starts[i])
        return self.values[start : start + int(self.sizes[i])]

    def as_list(self) -> list[FloatArray]:
        """Every sample, in order (views)."""
        return [self.row(i) for i in range(len(self))]

    def filled(self) -> SortedRows:
        """The non-empty samples alone, in order (the same values: an empty sample holds
        none)."""
        full = self.sizes > 0
        return SortedRows(self.values, self.sizes[full], self.starts[full], self.low, self.high)

    def take(self, start: int, stop: int) -> SortedRows:
        """Samples ``start`` to ``stop − 1`` (already checked: not checked again)."""
        first = int(self.starts[start]) if start < len(self) else self.values.size
        last = int(self.starts[stop - 1] + self.sizes[stop - 1]) if stop > start else first
        values = self.values[first:last]
        low, high = (
            (float(values.min()), float(values.max())) if values.size else (math.inf, -math.inf)
        )
        return SortedRows(
            values, self.sizes[start:stop], self.starts[start:stop] - first, low, high
        )

    def equal_size(self) -> int | None:
        """The size every sample has, or None when they differ (or there is none)."""
        if not len(self) or (self.sizes != self.sizes[0]).any():
            return None
        return int(self.sizes[0])

    def by_size(self) -> Iterator[tuple[IntArray, FloatArray]]:
        """For each size of non-empty samples: which samples have it, and them as a batch
        (one sample per row, in order)."""
        order = np.argsort(self.sizes, kind="stable")
        sizes = self.sizes[order]
        cuts = np.flatnonzero(np.diff(sizes)) + 1
        for idx in np.split(order, cuts):
            n = int(self.sizes[idx[0]]) if idx.size else 0
            if n:
                yield idx, self.values[self.starts[idx, np.newaxis] + np.arange(n)]


def _gather(mask: NDArray[np.bool_], values: FloatArray, out: FloatArray) -> None:
    """Write ``values[mask[r]]`` for every row ``r`` in turn to ``out`` (branch-free: each
    value is written, and the position moves on only where the mask is true; ``out`` has
    room for ``len(values)`` writes past the selected values)."""
    k = 0
    rows, n = mask.shape
    for r in range(rows):
        for j in range(n):
            out[k] = values[j]
            k += mask[r, j]


_gather_compiled = _njit(_gather) if HAVE_NUMBA else None


def release_rows(
    mechanism: Mechanism,
    rows: SortedRows | Sequence[ArrayLike],
    eps_sample: float,
    delta_sample: float,
    lower: float,
    upper: float,
    rng: np.random.Generator,
) -> Release:
    """One release per sample of ``rows``, as :meth:`Mechanism.release` of each sample alone.

    The same values from the same draws of ``rng``, in the same order, as releasing sample
    after sample (an empty one by :func:`empty_release`); the checks are made once.

    Raises
    ------
    ValueError
        For bad bounds (an infinite ``upper`` only for a mechanism that needs none), a
        value outside them, a budget that is not one number > 0, or a
        ``delta_sample`` outside (0, 1).
    """
    bounds = check_bounds if mechanism.needs_upper else check_bounds_or_no_upper
    lo, hi = bounds(lower, upper)
    batch = rows if isinstance(rows, SortedRows) else SortedRows.of(rows)
    if batch.low < lo or batch.high > hi:
        raise ValueError(
            f"samples must lie inside the public bounds [{lo!r}, {hi!r}]; found values "
            f"in [{batch.low!r}, {batch.high!r}]"
        )
    eps = float(check_eps("eps_sample", eps_sample))
    delta = check_delta_open("delta_sample", delta_sample)
    check_rng(rng)
    if (batch.sizes == 0).any():
        together = mechanism.release_with_empty(batch, eps, delta, lo, hi, rng)
        if together is not None:
            return together
    pieces: list[Release] = []
    start = 0
    known: dict[tuple[float, float], EmptyParts] = {}
    for stop in [*np.flatnonzero(batch.sizes == 0).tolist(), len(batch)]:
        if stop > start:
            pieces.append(
                mechanism.release_in_order(batch.take(start, stop), eps, delta, lo, hi, rng)
            )
        if stop < len(batch):
            pieces.append(empty_release(mechanism, eps, lo, hi, rng, known))
        start = stop + 1
    return concatenate(pieces)


#: What an empty sample's release states besides its draw: the clamped noise's mean and
#: square and the release's law, a function of the mechanism, the budget, the bounds and the
#: (variance, scale) the mechanism gives for no data.
EmptyParts = tuple[Any, Any, Any]


def empty_release(
    mechanism: Mechanism,
    eps_sample: float,
    lower: float,
    upper: float,
    rng: np.random.Generator,
    known: dict[tuple[float, float], EmptyParts] | None = None,
) -> Release:
    """The release of an empty sample (possible when the sample size is random), as the
    mechanism states it (:meth:`Mechanism.release_empty`); the sample's "statistic" is
    taken as the middle of the range (the lower bound when there is no upper one).

    ``known`` keeps, for the empty samples of one call (same mechanism, budget and bounds),
    the parts that do not depend on the draw, keyed by the stated (variance, scale): the
    clamped noise's moments and the law are computed for the first empty sample only.
    """
    from ..mechanisms.base import Release

    c = 0.5 * (lower + upper) if math.isfinite(upper) else lower
    released, variance, scale = mechanism.release_empty(eps_sample, lower, upper, rng)
    key = (float(variance), float(scale))
    parts = None if known is None else known.get(key)
    if parts is None:
        moments = (
            mechanism.clamped_noise_moments(np.full(1, c), np.full(1, scale), lower, upper)
            if math.isfinite(variance) and math.isfinite(scale)
            else None
        )
        mean, square = (None, None) if moments is None else moments
        parts = (mean, square, mechanism.law_of_empty(eps_sample))
        if known is not None:
            known[key] = parts
    mean, square, law = parts
    return Release(
        np.full(1, float(np.clip(released, lower, upper))),
        np.full(1, c),
        np.full(1, math.nan),
        np.full(1, scale),
        np.full(1, variance),
        law=law,
        noise_mean=mean,
        noise_square=square,
    )


def noise_in_order(mechanism: Mechanism, rng: np.random.Generator, count: int) -> FloatArray:
    """``count`` standard noise draws, the same as ``count`` draws of one value each.

    The Laplace noise of the base class is drawn value after value by numpy whatever the
    size asked, so one call gives the same values; any other noise is drawn one value at a
    time (a noise made of several draws per value takes them in another order in a batch).
    """
    from ..mechanisms.base import Mechanism

    if type(mechanism).standard_noise is Mechanism.standard_noise:
        return np.asarray(mechanism.standard_noise(rng, (count,)), dtype=np.float64)
    out = np.empty(count)
    for i in range(count):
        out[i] = mechanism.standard_noise(rng, (1,))[0]
    return out


def additive_in_order(
    mechanism: Mechanism,
    rows: SortedRows,
    eps: float,
    delta: float,
    lower: float,
    upper: float,
    rng: np.random.Generator,
) -> Release:
    """:meth:`Mechanism.release` of each non-empty sample of ``rows`` alone, in order, for
    a mechanism that keeps the base class's additive release: statistic, sensitivity and
    scale of every sample at once, the noise in order, one clamped release."""
    draws = noise_in_order(mechanism, rng, len(rows))
    return _additive(mechanism, rows, eps, delta, lower, upper, draws)


def _additive(
    mechanism: Mechanism,
    rows: SortedRows,
    eps: float,
    delta: float,
    lower: float,
    upper: float,
    draws: FloatArray,
) -> Release:
    """The additive release of each non-empty sample of ``rows`` with the standard noise
    ``draws`` (one per sample)."""
    stat = mechanism.statistic_rows(rows)
    s = mechanism.sensitivity_rows(rows, eps, delta, lower, upper)
    scale = np.broadcast_to(np.asarray(mechanism.noise_scale(s, eps), dtype=np.float64), stat.shape)
    variance = mechanism.noise_variance(s, eps)
    if variance is not None:
        variance = np.broadcast_to(np.asarray(variance, dtype=np.float64), stat.shape)
    return mechanism.clamped_release(stat, scale, s, variance, draws, lower, upper)


def additive_with_empty(
    mechanism: Mechanism,
    rows: SortedRows,
    eps: float,
    delta: float,
    lower: float,
    upper: float,
    rng: np.random.Generator,
) -> Release | None:
    """:func:`release_rows` of ``rows`` (empty samples among them) in one call, for an
    additive mechanism with the base class's Laplace noise whose empty release is one
    Laplace draw about a fixed centre (:meth:`Mechanism.empty_laplace`); None otherwise,
    before any draw.

    Every sample, empty or not, takes one standard Laplace draw in turn, so the draws are
    taken in one call and dealt out in order: the same values as sample after sample.
    """
    from ..mechanisms.base import Mechanism

    parts = mechanism.empty_laplace(eps, lower, upper)
    if (
        parts is None
        or type(mechanism).release is not Mechanism.release
        or type(mechanism).standard_noise is not Mechanism.standard_noise
        or mechanism.law_of_empty(eps) is not None
    ):
        return None
    centre, scale, variance = parts
    draws = noise_in_order(mechanism, rng, len(rows))
    empty = rows.sizes == 0
    filled = _additive(mechanism, rows.filled(), eps, delta, lower, upper, draws[~empty])
    released = np.minimum(np.maximum(centre + scale * draws[empty], lower), upper)
    return with_empty(mechanism, rows, filled, released, variance, scale, lower, upper)


def with_empty(
    mechanism: Mechanism,
    rows: SortedRows,
    filled: Release,
    released: FloatArray,
    variance: float,
    scale: float,
    lower: float,
    upper: float,
) -> Release:
    """The release of every sample of ``rows``: ``filled`` on the non-empty samples (in
    order), and on the empty ones the ``released`` values of :func:`empty_release` with the
    noise ``(variance, scale)`` it states, as :func:`concatenate` of the releases of sample
    after sample gives them (a part stated on one kind of sample only is NaN on the other;
    no law, which the caller checks)."""
    empty = rows.sizes == 0
    c = 0.5 * (lower + upper) if math.isfinite(upper) else lower
    moments = (
        mechanism.clamped_noise_moments(np.full(1, c), np.full(1, scale), lower, upper)
        if math.isfinite(variance) and math.isfinite(scale)
        else None
    )
    mean, square = (None, None) if moments is None else moments

    def put(on_filled: Any, on_empty: Any) -> FloatArray | None:
        if on_filled is None and on_empty is None:
            return None
        out = np.empty(len(rows))
        out[~empty] = math.nan if on_filled is None else on_filled
        out[empty] = math.nan if on_empty is None else on_empty
        return out

    from ..mechanisms.base import Release

    return Release(
        put(filled.released, np.clip(released, lower, upper)),  # type: ignore[arg-type]
        put(filled.statistic, c),  # type: ignore[arg-type]
        put(filled.sensitivity, math.nan),  # type: ignore[arg-type]
        put(filled.noise_scale, scale),  # type: ignore[arg-type]
        put(filled.noise_variance, variance),
        law=None,
        noise_mean=put(filled.noise_mean, None if mean is None else mean[0]),
        noise_square=put(filled.noise_square, None if square is None else square[0]),
    )


def one_by_one(
    mechanism: Mechanism,
    rows: SortedRows,
    eps: float,
    delta: float,
    lower: float,
    upper: float,
    rng: np.random.Generator,
) -> Release:
    """:meth:`Mechanism.release` of each non-empty sample of ``rows`` alone, in order."""
    return concatenate(
        [
            mechanism.release(rows.row(i)[np.newaxis, :], eps, delta, lower, upper, rng)
            for i in range(len(rows))
        ]
    )


def concatenate(pieces: Sequence[Release]) -> Release:
    """The releases ``pieces`` as one, in order: a part one piece states and another does
    not is NaN on the other's rows, and the laws are merged only when every piece has one."""
    from ..mechanisms.base import Release

    if not pieces:
        return Release(np.empty(0), np.empty(0), np.empty(0), np.empty(0), None)
    if len(pieces) == 1:
        return pieces[0]

    def joined(name: str) -> Any:
        parts = [getattr(p, name) for p in pieces]
        if all(x is None for x in parts):
            return None
        return np.concatenate(
            [
                np.full(p.released.shape[0], np.nan)
                if x is None
                else x
                if isinstance(x, np.ndarray) and x.shape == p.released.shape
                else np.broadcast_to(np.asarray(x, dtype=np.float64), p.released.shape)
                for p, x in zip(pieces, parts, strict=True)
            ]
        ).astype(np.float64, copy=False)

    laws = [p.law for p in pieces if p.law is not None]
    law = type(laws[0]).merge(laws) if laws and len(laws) == len(pieces) else None
    return Release(
        joined("released"),
        joined("statistic"),
        joined("sensitivity"),
        joined("noise_scale"),
        joined("noise_variance"),
        law=law,
        noise_mean=joined("noise_mean"),
        noise_square=joined("noise_square"),
    )
