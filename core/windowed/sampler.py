"""The simple random sampler of windows and the interface every source of windows follows.

:class:`SampleWindows` is the lazily expanded hypergeometric tree of the package docstring
(:mod:`core.windowed`); :class:`WindowSource` states what the draw functions need from any
source of samples, and :data:`SourceFactory` how a design hands its source over.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .. import sensitivity as sens
from .._validation import FloatArray, check_whole

__all__ = [
    "FIRST_HALF_WIDTH",
    "LEAF",
    "SampleWindows",
    "SourceFactory",
    "WindowSource",
]

#: Blocks holding at most this many sampled records are resolved directly: a uniform subset
#: of their records by Floyd's algorithm, whatever the block's length.
LEAF = 64
#: Half-width (in sample ranks) of the first window around the quantile's rank.
FIRST_HALF_WIDTH = 32
#: Samples drawn first, alone, to learn how wide the windows of the others should start.
_PILOT = 16
#: :meth:`_BlockTree.refine` leaves blocks of at most 1 / REFINE_RATIO of their distance.
REFINE_RATIO = 4
#: Smooth-sensitivity windows refine blocks near the window to ``REFINE_FINE / beta`` records.
REFINE_FINE = 0.25
#: Largest number of window cells (samples x window width) handled at once.
_CELL_BUDGET = 4_000_000

IntArray = NDArray[np.int64]

try:  # numba is optional: without it the subsets are drawn by numpy, one block at a time.
    import numba as _numba
except ImportError:  # pragma: no cover - exercised only where numba is missing
    _numba = None  # type: ignore[assignment]


#: Blocks of at most this many records mark their picks in a table instead of comparing
#: each pick with the earlier ones (:func:`_floyd_subsets`).
_MARK_TABLE = 1 << 16


def _floyd_subsets(
    rng: np.random.Generator,
    length: IntArray,
    count: IntArray,
    offsets: IntArray,
    out: IntArray,
) -> None:
    """Block ``b``: a uniform ``count[b]``-subset of ``0 .. length[b] - 1``, sorted, written to
    ``out[offsets[b] : offsets[b + 1]]``.

    Floyd's algorithm draws a uniform ``m``-subset of ``0 .. L - 1``: for ``j = L - m ..
    L - 1`` draw ``t`` uniform on ``0 .. j`` and take ``t``, or ``j`` when ``t`` is already
    taken.  By induction on ``j`` every ``m``-subset is equally likely: ``m`` draws,
    whatever ``L``.

    * Dense blocks (``length <= 4 count``) draw the smaller side: the records taken, or,
      when more than half are taken, the records left out (the complement of a uniform
      subset is uniform).  The picks are marked in a table of ``length`` flags, and one pass
      over the table writes the taken records in order.
    * Sparse blocks of at most :data:`_MARK_TABLE` records mark their picks in the same
      table (membership in O(1)), then sort the ``count`` picks; longer blocks compare each
      pick with the earlier ones (``count <= LEAF``, so at most ``LEAF^2 / 2`` comparisons).

    ``t`` is ``floor(u (j + 1))`` for a uniform double ``u``, uniform on ``0 .. j`` up to
    the ``2^-53`` grid of ``u``.
    """
    mark = np.zeros(_MARK_TABLE, dtype=np.bool_)
    for b in range(length.size):
        c = count[b]
        top = length[b]
        o = offsets[b]
        if top <= 4 * c or top <= _MARK_TABLE:
            if top > mark.size:
                mark = np.zeros(2 * top, dtype=np.bool_)
            dense = top <= 4 * c
            taken = not dense or 2 * c <= top  # the marks are the records taken
            draws = c if taken else top - c
            for m, j in enumerate(range(top - draws, top)):
                t = min(int(rng.random() * (j + 1)), j)
                if mark[t]:
                    t = j
                mark[t] = True
                if not dense:
                    out[o + m] = t
            if dense:
                m = 0
                for t in range(top):  # in order; the write is kept only where m advances
                    if m < c:
                        out[o + m] = t
                    m += mark[t] == taken
                    mark[t] = False
            else:
                out[o : o + c].sort()
                for m in range(c):
                    mark[out[o + m]] = False
            continue
        for m, j in enumerate(range(top - c, top)):
            pick = min(int(rng.random() * (j + 1)), j)
            for i in range(m):
                if out[o + i] == pick:
                    pick = j
                    break
            out[o + m] = pick
        out[o : o + c].sort()


def _shift(start: IntArray, count: IntArray, pos: IntArray) -> None:
    """Add ``start[b]`` to the ``count[b]`` entries of block ``b`` (blocks in order)."""
    t = 0
    for b in range(start.size):
        for _ in range(count[b]):
            pos[t] += start[b]
            t += 1


def _scatter(
    rep: IntArray,
    rank0: IntArray,
    count: IntArray,
    pos: IntArray,
    row_of: IntArray,
    start: IntArray,
    out: IntArray,
) -> tuple[int, int]:
    """Write each known record into ``out[row_of[rep], rank - start[rep]]`` when that cell
    exists, and move the blocks of samples still wanted (``row_of >= 0``) to the front.

    Block ``b`` holds the records of ranks ``rank0[b] .. rank0[b] + count[b] - 1`` of sample
    ``rep[b]``, in ``pos`` after the blocks before it.  Returns how many blocks and records
    are kept.
    """
    kept = 0
    kept_pos = 0
    t = 0
    width = out.shape[1]
    for b in range(rep.size):
        c = count[b]
        row = row_of[rep[b]]
        if row >= 0:
            col = rank0[b] - start[rep[b]]
            lo = max(0, -col)
            hi = min(c, width - col)
            for i in range(lo, hi):
                out[row, col + i] = pos[t + i]
            for i in range(c):
                pos[kept_pos + i] = pos[t + i]
            rep[kept] = rep[b]
            rank0[kept] = rank0[b]
            count[kept] = c
            kept += 1
            kept_pos += c
        t += c
    return kept, kept_pos


def _gather(values: FloatArray, pos: IntArray, out: FloatArray) -> None:
    """``out[i, j] = values[pos[i, j]]``, NaN where ``pos[i, j] < 0``."""
    for i in range(pos.shape[0]):
        for j in range(pos.shape[1]):
            p = pos[i, j]
            out[i, j] = values[p] if p >= 0 else np.nan


def record_values(values: FloatArray, pos: IntArray) -> FloatArray:
    """The values of the records ``pos`` (as :meth:`WindowSource.positions` returns them),
    NaN where a position is ``-1``."""
    out = np.empty(pos.shape, dtype=np.float64)
    _gather(values, pos, out)
    return out


if _numba is not None:
    _scatter = _numba.njit(cache=True, nogil=True)(_scatter)
    _shift = _numba.njit(cache=True, nogil=True)(_shift)
    _gather = _numba.njit(cache=True, nogil=True)(_gather)
    _floyd_subsets = _numba.njit(cache=True, nogil=True)(_floyd_subsets)


@dataclass
class _Blocks:
    """Blocks of the binary tree, one row per block: records ``[start, stop)`` of sample
    ``rep`` hold ``count`` sampled records, ``below`` sampled records lie to their left."""

    rep: IntArray
    start: IntArray
    stop: IntArray
    below: IntArray
    count: IntArray

    def take(self, mask: NDArray[np.bool_]) -> _Blocks:
        return _Blocks(
            self.rep[mask], self.start[mask], self.stop[mask], self.below[mask], self.count[mask]
        )

    @staticmethod
    def join(parts: list[_Blocks]) -> _Blocks:
        return _Blocks(*(np.concatenate([getattr(p, f) for p in parts]) for f in _FIELDS))


_FIELDS = ("rep", "start", "stop", "below", "count")


class _BlockRows(Protocol):
    """What :class:`_BlockTree` reads of a frontier: one row per block, records
    ``[start, stop)`` of sample ``rep`` holding ``count`` sampled records, ``below`` to
    their left."""

    rep: IntArray
    start: IntArray
    stop: IntArray
    below: IntArray
    count: IntArray

    def take(self: B, mask: NDArray[np.bool_]) -> B: ...

    def join(self: B, parts: list[B]) -> B: ...


B = TypeVar("B", bound=_BlockRows)


class _BlockTree(ABC, Generic[B]):
    """The block tree shared by :class:`SampleWindows` and
    :class:`core.designs.stratified_windows.StratifiedWindows` (module docstring).

    A subclass sets ``_sizes`` and the root ``_frontier`` after ``__init__`` and says how a
    block is split (:meth:`_split`) and resolved (:meth:`_resolve`).
    """

    _sizes: IntArray
    _frontier: B

    def __init__(self, rng: np.random.Generator, leaf: int) -> None:
        self._rng = rng
        self._leaf = check_whole("leaf", leaf, 1, 2**31)
        #: Records made known, as blocks of consecutive ranks: (sample, first rank, count)
        #: per block and the blocks' records (positions in the sorted population) in order.
        self._known: list[tuple[IntArray, IntArray, IntArray, IntArray]] = []

    @property
    def reps(self) -> int:
        """Number of samples."""
        return int(self._sizes.size)

    @property
    def sizes(self) -> IntArray:
        """Sample size ``n_r`` of every sample."""
        return self._sizes

    def ensure(self, first: IntArray, last: IntArray) -> None:
        """Make sample ranks ``first[r] .. last[r]`` (1-indexed, clipped to ``[1, n_r]``) known."""
        lo = np.maximum(np.asarray(first, dtype=np.int64), 1)
        hi = np.minimum(np.asarray(last, dtype=np.int64), self._sizes)
        blocks = self._frontier
        waiting: list[B] = []
        while blocks.rep.size:
            first_rank = blocks.below + 1
            last_rank = blocks.below + blocks.count
            hit = (
                (blocks.count > 0) & (last_rank >= lo[blocks.rep]) & (first_rank <= hi[blocks.rep])
            )
            waiting.append(blocks.take(~hit & (blocks.count > 0)))
            blocks = blocks.take(hit)
            if not blocks.rep.size:
                break
            small = self._resolvable(blocks)
            if small.any():
                self._resolve(blocks.take(small))
            blocks = self._split(blocks.take(~small))
        self._frontier = waiting[0].join(waiting) if waiting else blocks

    def refine(self, which: IntArray, k: IntArray, fine: int) -> None:
        """Split the unexpanded blocks of samples ``which`` (around ranks ``k``) until each
        holds at most ``max(fine, d / REFINE_RATIO)`` sampled records, ``d`` its rank
        distance from ``k``; blocks this tree resolves directly (at most a leaf, or one run)
        are left as they are.

        Splitting only draws the counts of halves, as :meth:`ensure` would: the samples'
        law is unchanged, and the blocks' value ranges, which bound the smooth sensitivity
        of ranks not yet known, get tighter near ``k``.
        """
        rows = np.asarray(which, dtype=np.int64)
        centre = np.zeros(self.reps, dtype=np.int64)
        centre[rows] = np.asarray(k, dtype=np.int64)
        wanted = np.zeros(self.reps, dtype=bool)
        wanted[rows] = True
        blocks = self._frontier
        kept: list[B] = []
        fine = max(int(fine), 1)
        while blocks.rep.size:
            c = centre[blocks.rep]
            d = np.maximum(c - (blocks.below + blocks.count), blocks.below + 1 - c)
            limit = np.maximum(np.maximum(fine, d // REFINE_RATIO), self._leaf)
            split = wanted[blocks.rep] & (blocks.count > limit)
            if split.any():
                at = np.flatnonzero(split)
                split[at[self._resolvable(blocks.take(split))]] = False
            kept.append(blocks.take(~split))
            if not split.any():
                break
            halves = self._split(blocks.take(split))
            blocks = halves.take(halves.count > 0)
        self._frontier = kept[0].join(kept) if kept else blocks

    def _resolvable(self, b: B) -> NDArray[np.bool_]:
        """The blocks resolved now rather than split: at most ``leaf`` sampled records."""
        return b.count <= self._leaf

    def _midpoint(self, start: IntArray, stop: IntArray) -> IntArray:
        """Where the blocks ``[start, stop)`` are split: their middle record."""
        return (start + stop) // 2

    @abstractmethod
    def _split(self, b: B) -> B:
        """The two halves of every block of ``b``, with their sampled counts drawn."""

    @abstractmethod
    def _resolve(self, b: B) -> None:
        """Make every sampled rank of the blocks ``b`` known."""

    def outside(
        self, which: IntArray, k: IntArray, values: FloatArray
    ) -> tuple[IntArray, IntArray, tuple[IntArray, IntArray, IntArray, FloatArray, FloatArray]]:
        """The known ranks around ``k`` and the unexpanded blocks outside them, per sample.

        For each sample ``which[i]`` (whose rank ``k[i]`` is known): the first and last rank
        of the run of known ranks that contains ``k[i]`` -- every rank between the nearest
        unexpanded blocks -- and those blocks as ``(offsets, first rank, last rank, lowest
        value, highest value)`` for :func:`core.sensitivity.smooth_sensitivity_window_batch`
        (a block of records ``[start, stop)`` of the sorted population holds values in
        ``[values[start], values[stop - 1]]``).
        """
        rows = np.asarray(which, dtype=np.int64)
        row_of = np.full(self.reps, -1, dtype=np.int64)
        row_of[rows] = np.arange(rows.size)
        f = self._frontier
        row = row_of[f.rep]
        keep = (row >= 0) & (f.count > 0)
        row, below, count = row[keep], f.below[keep], f.count[keep]
        start, stop = f.start[keep], f.stop[keep]
        order = np.lexsort((below, row))
        row, below, count, start, stop = (x[order] for x in (row, below, count, start, stop))
        first_rank, last_rank = below + 1, below + count
        offsets = np.searchsorted(row, np.arange(rows.size + 1)).astype(np.int64)
        kk = np.asarray(k, dtype=np.int64)
        known_first = np.ones(rows.size, dtype=np.int64)
        known_last = self._sizes[rows].copy()
        low_side = last_rank < kk[row]
        np.maximum.at(known_first, row[low_side], last_rank[low_side] + 1)
        np.minimum.at(known_last, row[~low_side], first_rank[~low_side] - 1)
        blocks = (offsets, first_rank, last_rank, values[start], values[stop - 1])
        return known_first, known_last, blocks

    def positions(self, first: IntArray, width: int, which: IntArray | None = None) -> IntArray:
        """Population records of ranks ``first[r] .. first[r] + width - 1`` of samples ``which``.

        One row per sample in ``which`` (default: all); ranks outside ``[1, n_r]`` or not made
        known by :meth:`ensure` are ``-1``.  The drawn ranks of samples outside ``which`` are
        forgotten (a caller that is done with a sample never asks for it again).
        """
        rows = np.arange(self.reps) if which is None else np.asarray(which, dtype=np.int64)
        out = np.full((rows.size, width), -1, dtype=np.int64)
        if not self._known:
            return out
        row_of = np.full(self.reps, -1, dtype=np.int64)
        row_of[rows] = np.arange(rows.size)
        start = np.zeros(self.reps, dtype=np.int64)
        start[rows] = np.asarray(first, dtype=np.int64)
        # The stored arrays are this tree's own, so one part is compacted in place.
        rep, rank0, count, pos = (
            np.concatenate(parts) if len(self._known) > 1 else parts[0]
            for parts in zip(*self._known, strict=True)
        )
        blocks, records = _scatter(rep, rank0, count, pos, row_of, start, out)
        self._known = [(rep[:blocks], rank0[:blocks], count[:blocks], pos[:records])]
        return out

    def _remember(self, rep: IntArray, rank0: IntArray, count: IntArray, pos: IntArray) -> None:
        """Keep records made known: block ``b`` holds ranks ``rank0[b] .. rank0[b] +
        count[b] - 1`` of sample ``rep[b]``, their records in ``pos`` in block order."""
        self._known.append((rep, rank0, count, pos))


class SampleWindows(_BlockTree[_Blocks]):
    """Order statistics near chosen ranks of ``reps`` independent SRSWOR samples.

    Parameters
    ----------
    rng : numpy.random.Generator
        Source of randomness.
    N : int
        Population size (records ``0..N-1`` of the sorted population).
    sizes : array_like of int, shape (reps,)
        Sample size of each sample, ``1 <= n_r <= N`` (a fixed ``n`` for SRSWOR; drawn
        binomial sizes for Poisson sampling).
    leaf : int, default LEAF
        Blocks holding at most this many sampled records are resolved directly; smaller
        values split more (the law is the same for every ``leaf >= 1``).

    Notes
    -----
    :meth:`ensure` makes ranks ``[a_r, b_r]`` of sample ``r`` known, splitting only what it
    needs (module docstring); :meth:`positions` returns them.  Ranks made known stay known,
    so widening a window reuses every draw.
    """

    def __init__(
        self, rng: np.random.Generator, N: int, sizes: ArrayLike, *, leaf: int = LEAF
    ) -> None:
        super().__init__(rng, leaf)
        self.N = int(N)
        n = np.asarray(sizes, dtype=np.int64).reshape(-1)
        if n.size and (n.min() < 1 or n.max() > self.N):
            raise ValueError(f"sample sizes must be in [1, N = {self.N}]")
        self._sizes = n
        reps = n.size
        self._frontier = _Blocks(
            np.arange(reps, dtype=np.int64),
            np.zeros(reps, dtype=np.int64),
            np.full(reps, self.N, dtype=np.int64),
            np.zeros(reps, dtype=np.int64),
            n.copy(),
        )

    def _split(self, b: _Blocks) -> _Blocks:
        """Split every block in two halves with a hypergeometric count for the left half."""
        if not b.rep.size:
            return b
        mid = self._midpoint(b.start, b.stop)
        left = self._rng.hypergeometric(mid - b.start, b.stop - mid, b.count).astype(np.int64)
        return _Blocks(
            np.concatenate((b.rep, b.rep)),
            np.concatenate((b.start, mid)),
            np.concatenate((mid, b.stop)),
            np.concatenate((b.below, b.below + left)),
            np.concatenate((left, b.count - left)),
        )

    def _resolve(self, b: _Blocks) -> None:
        """A uniform ``count``-subset of the records of each block, in order (Floyd)."""
        offsets = np.zeros(b.rep.size + 1, dtype=np.int64)
        np.cumsum(b.count, out=offsets[1:])
        pos = np.empty(int(offsets[-1]), dtype=np.int64)
        _floyd_subsets(self._rng, b.stop - b.start, b.count, offsets, pos)
        _shift(b.start, b.count, pos)
        self._remember(b.rep, b.below + 1, b.count, pos)


class WindowSource(Protocol):
    """What the draw functions need from a source of random samples: sizes, and ranks on demand.

    A source holds ``reps`` independent random samples of a sorted population (records
    ``0..N-1`` of ``sorted_values``) whose sizes are fixed when the source is made, and
    reveals the records of chosen sample ranks without drawing the rest.  Ranks order the
    records of a sample by their position in the sorted population (ties broken by
    position), so rank ``j`` of sample ``r`` holds the ``j``-th smallest value.
    :class:`SampleWindows` (simple random samples) is one; a design with its own law (e.g.
    :mod:`core.designs.stratified_windows`) is another.  The law of what a source reveals must
    be the law of the whole sample's order statistics, however the windows were widened.

    Contract (``first``, ``last``, ``k`` are 1-indexed ranks; ``which`` are sample indices):

    * ``reps`` -- number of samples; ``sizes`` -- their sizes ``n_r >= 1``, shape ``(reps,)``.
    * ``ensure(first, last)`` -- make ranks ``first[r] .. last[r]`` (clipped to ``[1, n_r]``)
      of every sample known.  Ranks already known stay known with the same records, so a
      widening only adds to what was drawn.
    * ``outside(which, k, values)`` -- for each sample ``which[i]`` whose rank ``k[i]`` is
      known: the first and last rank of the run of known ranks around ``k[i]``, and the
      ranks outside that run as blocks ``(offsets, first rank, last rank, lowest value,
      highest value)`` that together cover every rank outside the run, each block's values
      inside ``[lowest, highest]`` (the ``blocks`` argument of
      :func:`core.sensitivity.smooth_sensitivity_window_batch`; ``values`` is the sorted
      population).
    * ``positions(first, width, which)`` -- the records (indices into the sorted population)
      of ranks ``first[i] .. first[i] + width - 1`` of samples ``which`` (default all), ``-1``
      where a rank is outside ``[1, n_r]`` or not known; the source may forget the samples
      left out of ``which``.
    * ``refine(which, k, fine)`` -- split unexpanded blocks of samples ``which`` near their
      known ranks around ``k`` (down to about ``fine`` records) without changing the
      samples' law, so that ``outside`` bounds the rest more tightly; a source whose blocks
      are fixed does nothing.
    """

    @property
    def reps(self) -> int: ...

    @property
    def sizes(self) -> IntArray: ...

    def ensure(self, first: IntArray, last: IntArray) -> None: ...

    def outside(
        self, which: IntArray, k: IntArray, values: FloatArray
    ) -> tuple[IntArray, IntArray, tuple[IntArray, IntArray, IntArray, FloatArray, FloatArray]]: ...

    def positions(self, first: IntArray, width: int, which: IntArray | None = None) -> IntArray: ...

    def refine(self, which: IntArray, k: IntArray, fine: int) -> None: ...


#: Makes the source of some of the samples of a draw: ``factory(rng, rows)`` returns a
#: :class:`WindowSource` over samples ``rows`` (indices into the draw's ``sizes``, in that
#: order), whose ``sizes`` must equal ``sizes[rows]``.  The draw functions chunk their
#: samples, so a factory is called once per chunk with the chunk's rows.
SourceFactory = Callable[[np.random.Generator, IntArray], WindowSource]


def _ranks(sizes: IntArray, quantile: float) -> IntArray:
    """``quantile_rank(n, quantile)`` of every sample size."""
    if not sizes.size:
        return sizes.copy()
    return sens.quantile_ranks(sizes, quantile).reshape(-1)


def _open_source(
    source: SourceFactory | None,
    rng: np.random.Generator,
    N: int,
    sizes: IntArray,
    rows: IntArray,
) -> WindowSource:
    """The source of samples ``rows`` (sizes ``sizes``): simple random ones by default."""
    if source is None:
        return SampleWindows(rng, N, sizes)
    windows = source(rng, rows)
    if not np.array_equal(windows.sizes, sizes):
        raise ValueError("the source's sample sizes differ from the sizes given to the draw")
    return windows
