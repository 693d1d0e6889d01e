"""Order statistics of a random sample near one rank, drawn without drawing the whole sample.

Why
---
A private quantile of a sample (Hu, Drechsler & Kim 2023, Section 4.3: the median with
Laplace noise scaled to its smooth sensitivity, equation (4); other quantiles and noise
calibrations in :mod:`core.mechanisms`) depends only on the sample's order statistics in a
window around the quantile's rank ``k``:

* the released value is ``y_(k)``;
* the smooth sensitivity is ``S = max { (y_(j) - y_(i)) e^{-beta (j - i - 1)} : i <= k <= j }``
  over padded ranks ``0..n+1`` (:mod:`core.sensitivity`).  A pair that reaches below rank
  ``a`` or above rank ``b`` has ``j - i - 1 >= min(k - a, b - k)`` and is worth at most
  ``(upper - lower) e^{-beta min(k - a, b - k)}``.  So the maximum over the pairs inside the
  window ``[a, b]`` is the exact ``S`` as soon as it is at least that bound
  (:func:`core.sensitivity.smooth_sensitivity_window_batch`).

Drawing a simple random sample of ``n`` of ``N`` records costs ``O(n)`` at least, which
grows with ``N`` at a fixed rate.  This module draws only the window, at a cost that does not
depend on ``N`` (apart from ``log N`` hypergeometric splits).

The sampler (exact)
-------------------
Label the sorted population's records ``0..N-1``.  A simple random sample without
replacement (SRSWOR) of size ``n`` is a uniformly random ``n``-subset.  For any split of a
block of records ``[s, t)`` that holds ``c`` sampled records into ``[s, m)`` and ``[m, t)``,
the number ``h`` of sampled records in ``[s, m)`` is hypergeometric
``(ngood = m - s, nbad = t - m, nsample = c)``, and, given ``h``, the sampled records of the
two halves are independent uniform subsets of sizes ``h`` and ``c - h``.  Applying this
recursively (a binary tree over ``[0, N)``) reproduces the uniform ``n``-subset exactly: the
law of the whole tree is the product of these conditionals, whose product is ``1 / C(N, n)``
for every subset.

The sample ranks of the records in a block are ``below + 1 .. below + c``, where ``below``
counts the sampled records to its left, known from the splits above it.  So only the blocks
whose rank range meets the wanted window ``[a, b]`` need splitting; the others stay
unexpanded with their counts (the *frontier*).  A block of at most :data:`LEAF` records is
resolved by a uniform ``c``-subset of its records (the first ``c`` of a random permutation).

A window that turns out too narrow is widened by splitting frontier blocks that meet the new
window -- conditionally on everything drawn so far, exactly as they would have been split
with the wider window from the start.  A draw is never discarded and redrawn (that would
favour samples the narrow window suits).  The result has the law of drawing the whole
sample and reading its order statistics.

Poisson sampling (each record independently with probability ``rate``) is the same given its
size: draw ``n ~ Binomial(N, rate)``; given ``n`` the sample is a uniform ``n``-subset.

Cost: about ``2 log2(N / w) + w`` splits per sample for a window of ``w`` sampled records;
the population's values are read only at the ``w`` positions.  Memory is proportional to
the number of samples times the window, never to ``N``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

import numpy as np
from numpy.typing import ArrayLike, NDArray

from core import sensitivity as sens
from core._validation import FloatArray, check_bounds, check_whole

__all__ = [
    "LEAF",
    "SampleWindows",
    "SourceFactory",
    "WindowSource",
    "window_exponential_draws",
    "window_quantile_draws",
]

#: Blocks holding at most this many sampled records are resolved directly: a uniform subset
#: of their records by Floyd's algorithm, whatever the block's length.
LEAF = 64
#: Half-width (in sample ranks) of the first window around the quantile's rank.
FIRST_HALF_WIDTH = 32
#: Samples drawn first, alone, to learn how wide the windows of the others should start.
_PILOT = 16
#: Largest number of window cells (samples x window width) handled at once.
_CELL_BUDGET = 4_000_000

IntArray = NDArray[np.int64]

try:  # numba is optional: without it the subsets are drawn by numpy, one block at a time.
    import numba as _numba
except ImportError:  # pragma: no cover - exercised only where numba is missing
    _numba = None  # type: ignore[assignment]


def _floyd_subsets(
    rng: np.random.Generator,
    length: IntArray,
    count: IntArray,
    offsets: IntArray,
    out: IntArray,
) -> None:
    """Block ``b``: a uniform ``count[b]``-subset of ``0 .. length[b] - 1``, sorted, written to
    ``out[offsets[b] : offsets[b + 1]]``.

    Dense blocks (``length <= 4 count``) use selection sampling (Knuth's Algorithm S): record
    ``t`` is taken with probability ``(still wanted) / (records left)``, which gives every
    subset of the size the same probability and comes out in order.  Sparse blocks use
    Floyd's algorithm: for ``j = length - count .. length - 1`` draw ``t`` uniform on
    ``0..j`` and take ``t``, or ``j`` when ``t`` is already taken (uniform by induction on
    ``j``), then sort; ``count`` draws and ``O(count^2)`` comparisons (``count <= LEAF``).
    """
    for b in range(length.size):
        c = count[b]
        top = length[b]
        o = offsets[b]
        if top <= 4 * c:
            m = 0
            for t in range(top):
                if rng.random() * (top - t) < c - m:
                    out[o + m] = t
                    m += 1
                    if m == c:
                        break
            continue
        for m, j in enumerate(range(top - c, top)):
            pick = int(rng.integers(0, j + 1))
            for i in range(m):
                if out[o + i] == pick:
                    pick = j
                    break
            out[o + m] = pick
        for i in range(1, c):  # insertion sort of the (short) block
            v = out[o + i]
            p = i - 1
            while p >= 0 and out[o + p] > v:
                out[o + p + 1] = out[o + p]
                p -= 1
            out[o + p + 1] = v


def _label_points(
    block_rep: IntArray,
    below: IntArray,
    start: IntArray,
    offsets: IntArray,
    rep: IntArray,
    rank: IntArray,
    pos: IntArray,
) -> None:
    """Turn the offsets picked in each block into (sample, rank, record) of each point."""
    for b in range(block_rep.size):
        for t in range(offsets[b], offsets[b + 1]):
            rep[t] = block_rep[b]
            rank[t] = below[b] + t - offsets[b] + 1
            pos[t] += start[b]


def _scatter(
    rep: IntArray, rank: IntArray, pos: IntArray, row_of: IntArray, start: IntArray, out: IntArray
) -> int:
    """Write each known record into ``out[row_of[rep], rank - start[rep]]`` when that cell
    exists, and move the entries of samples still wanted (``row_of >= 0``) to the front of
    the three arrays; returns how many there are."""
    kept = 0
    width = out.shape[1]
    for i in range(rep.size):
        row = row_of[rep[i]]
        if row < 0:
            continue
        col = rank[i] - start[rep[i]]
        if 0 <= col < width:
            out[row, col] = pos[i]
        rep[kept] = rep[i]
        rank[kept] = rank[i]
        pos[kept] = pos[i]
        kept += 1
    return kept


if _numba is not None:
    _scatter = _numba.njit(cache=True, nogil=True)(_scatter)
    _label_points = _numba.njit(cache=True, nogil=True)(_label_points)
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


class SampleWindows:
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
        self._rng = rng
        self._leaf = check_whole("leaf", leaf, 1, 2**31)
        self.N = int(N)
        n = np.asarray(sizes, dtype=np.int64).reshape(-1)
        if n.size and (n.min() < 1 or n.max() > self.N):
            raise ValueError(f"sample sizes must be in [1, N = {self.N}]")
        self.sizes = n
        reps = n.size
        self._frontier = _Blocks(
            np.arange(reps, dtype=np.int64),
            np.zeros(reps, dtype=np.int64),
            np.full(reps, self.N, dtype=np.int64),
            np.zeros(reps, dtype=np.int64),
            n.copy(),
        )
        self._known_rep: list[IntArray] = []
        self._known_rank: list[IntArray] = []
        self._known_pos: list[IntArray] = []

    @property
    def reps(self) -> int:
        return int(self.sizes.size)

    def ensure(self, first: IntArray, last: IntArray) -> None:
        """Make sample ranks ``first[r] .. last[r]`` (1-indexed, clipped to ``[1, n_r]``) known."""
        lo = np.maximum(np.asarray(first, dtype=np.int64), 1)
        hi = np.minimum(np.asarray(last, dtype=np.int64), self.sizes)
        blocks = self._frontier
        waiting: list[_Blocks] = []
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
            small = blocks.count <= self._leaf
            if small.any():
                self._resolve(blocks.take(small))
            blocks = self._split(blocks.take(~small))
        self._frontier = _Blocks.join(waiting) if waiting else blocks

    def _split(self, b: _Blocks) -> _Blocks:
        """Split every block in two halves with a hypergeometric count for the left half."""
        if not b.rep.size:
            return b
        mid = (b.start + b.stop) // 2
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
        total = int(offsets[-1])
        rep, rank, pos = (np.empty(total, dtype=np.int64) for _ in range(3))
        _floyd_subsets(self._rng, b.stop - b.start, b.count, offsets, pos)
        _label_points(b.rep, b.below, b.start, offsets, rep, rank, pos)
        self._known_rep.append(rep)
        self._known_rank.append(rank)
        self._known_pos.append(pos)

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
        known_last = self.sizes[rows].copy()
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
        if not self._known_rep:
            return out
        row_of = np.full(self.reps, -1, dtype=np.int64)
        row_of[rows] = np.arange(rows.size)
        start = np.zeros(self.reps, dtype=np.int64)
        start[rows] = np.asarray(first, dtype=np.int64)
        rep = np.concatenate(self._known_rep)
        rank = np.concatenate(self._known_rank)
        pos = np.concatenate(self._known_pos)
        kept = _scatter(rep, rank, pos, row_of, start, out)
        self._known_rep, self._known_rank, self._known_pos = (
            [rep[:kept]],
            [rank[:kept]],
            [pos[:kept]],
        )
        return out


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


#: Makes the source of some of the samples of a draw: ``factory(rng, rows)`` returns a
#: :class:`WindowSource` over samples ``rows`` (indices into the draw's ``sizes``, in that
#: order), whose ``sizes`` must equal ``sizes[rows]``.  The draw functions chunk their
#: samples, so a factory is called once per chunk with the chunk's rows.
SourceFactory = Callable[[np.random.Generator, IntArray], WindowSource]


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


def window_quantile_draws(
    rng: np.random.Generator,
    sorted_values: FloatArray,
    sizes: ArrayLike,
    quantile: float,
    betas: ArrayLike,
    lower: float,
    upper: float,
    *,
    source: SourceFactory | None = None,
) -> tuple[FloatArray, FloatArray]:
    """Sample quantiles and their smooth sensitivities for SRSWOR samples, window only.

    For each sample ``r`` of size ``n_r`` (``sizes``), the order statistic of rank
    ``k_r = quantile_rank(n_r, quantile)`` and, for every ``beta`` in ``betas``, its
    ``beta``-smooth sensitivity (Hu et al. eq. 4 at rank ``k``; :mod:`core.sensitivity`),
    exactly as if the whole sample had been drawn (module docstring).  The window starts at
    :data:`FIRST_HALF_WIDTH` ranks on each side of ``k`` and doubles for the samples whose
    window cannot yet certify every ``S``.

    Parameters
    ----------
    rng : numpy.random.Generator
    sorted_values : ndarray, shape (N,)
        The population, sorted ascending, inside ``[lower, upper]``.
    sizes : array_like of int, shape (reps,)
        Sample sizes in ``[1, N]``.
    quantile : float
        Level in (0, 1).
    betas : array_like, shape (n_beta,)
        Smoothing parameters, each finite and > 0; may be empty (then only the order
        statistics are drawn and the window is the single rank ``k``).
    lower, upper : float
        Public bounds.
    source : SourceFactory, optional
        Where the samples come from (:class:`WindowSource`): called once per chunk of
        samples with ``rng`` and the chunk's rows; default simple random samples of
        ``sizes`` (:class:`SampleWindows`).  Any other design whose source reveals exactly
        its samples' order statistics (e.g. :mod:`core.designs.stratified_windows`) gets
        exactly its statistic and ``S``.

    Returns
    -------
    statistic : ndarray, shape (reps,)
    sensitivity : ndarray, shape (n_beta, reps)
    """
    lo, hi = check_bounds(lower, upper)
    q = sens.check_quantile(quantile)
    n = np.asarray(sizes, dtype=np.int64).reshape(-1)
    reps = n.size
    b = np.asarray(betas, dtype=np.float64).reshape(-1)
    if b.size and not np.all(np.isfinite(b) & (b > 0)):
        raise ValueError("betas must be finite numbers > 0")
    check_whole("reps", reps, 1, 2**31)
    k = np.array([sens.quantile_rank(int(m), q) for m in n], dtype=np.int64) if reps else n
    statistic = np.empty(reps)
    sensitivity = np.empty((b.size, reps))
    half = 0 if not b.size else FIRST_HALF_WIDTH
    start = 0
    while start < reps:
        width = 2 * half + 1
        # A few samples first: their widest window starts the others, saving doublings.
        size = _PILOT if start == 0 and b.size else max(1, _CELL_BUDGET // (4 * width))
        stop = min(reps, start + size)
        sl = slice(start, stop)
        half = _draw_chunk(
            rng, sorted_values, n[sl], k[sl], b, lo, hi, half, statistic[sl], sensitivity[:, sl],
            rows=np.arange(start, stop), source=source,
        )  # fmt: skip
        start = stop
    return statistic, sensitivity


def _draw_chunk(
    rng: np.random.Generator,
    values: FloatArray,
    n: IntArray,
    k: IntArray,
    betas: FloatArray,
    lower: float,
    upper: float,
    half: int,
    statistic: FloatArray,
    sensitivity: FloatArray,
    *,
    rows: IntArray,
    source: SourceFactory | None = None,
) -> int:
    """One chunk of samples; returns the half-width the widest sample needed.

    Every round makes ranks ``k - h .. k + h`` known, takes the whole run of known ranks
    around ``k`` as the window and bounds the rest through the unexpanded blocks; the
    samples whose ``S`` is not yet certified for every ``beta`` double ``h``.
    """
    windows = _open_source(source, rng, values.size, n, rows)
    todo = np.arange(n.size)
    half_of = np.full(n.size, half, dtype=np.int64)
    widest = half
    while True:
        windows.ensure(k - half_of, k + half_of)
        kt = k[todo]
        first, last, blocks = windows.outside(todo, kt, values)
        width = int((last - first).max()) + 1
        pos = windows.positions(first, width, todo)
        cells = np.where(pos >= 0, values[np.maximum(pos, 0)], np.nan)
        statistic[todo] = cells[np.arange(todo.size), kt - first]
        if not betas.size:
            return widest
        ok = np.ones(todo.size, dtype=bool)
        for j, beta in enumerate(betas):
            s, good = sens.smooth_sensitivity_window_batch(
                cells, first, last - first + 1, n[todo], kt, beta, lower, upper, blocks=blocks
            )
            sensitivity[j, todo] = s
            ok &= good
        if ok.all():
            return widest
        todo = todo[~ok]
        half_of[todo] *= 2
        widest = max(widest, int(half_of[todo].max()))


# ---------------------------------------------------------------------------------------
# The exponential mechanism on windows
# ---------------------------------------------------------------------------------------


@dataclass
class _ExpState:
    """Per (eps, sample) state of the lazy draw of one exponential-mechanism release.

    The current ring is the intervals ``ring_lo .. ring_hi`` minus the excluded (earlier
    rings) ``cut_lo .. cut_hi`` (empty while ``cut_hi < cut_lo``); ``u`` decides whether the
    release falls in the ring.
    """

    u: FloatArray
    ring_lo: IntArray
    ring_hi: IntArray
    cut_lo: IntArray
    cut_hi: IntArray


@dataclass
class _Intervals:
    """The known intervals of some samples: column ``c`` of row ``r`` is interval
    ``offset[r] + c`` (``[left, right]``), known for columns ``c_lo .. c_hi``."""

    left: FloatArray
    right: FloatArray
    weights: FloatArray
    rest: FloatArray
    offset: IntArray
    c_lo: IntArray
    c_hi: IntArray


def _intervals(
    cells: FloatArray,
    first: IntArray,
    last: IntArray,
    n: IntArray,
    eps: float,
    quantile: float,
    lower: float,
    upper: float,
) -> _Intervals:
    """Weights of the known intervals of each row, and a bound on the unknown rest.

    Row ``r`` knows the order statistics of ranks ``first .. last`` (``cells``).  Interval
    ``i`` is ``[z_i, z_{i+1}]`` with ``z_0 = lower``, ``z_{n+1} = upper``
    (:class:`core.mechanisms.ExponentialQuantile`); it is known when both ends are, and
    weighs ``(z_{i+1} - z_i) e^{-eps |i - q n| / 2}``.  The unknown intervals below span
    ``[lower, y_first]`` at rank distance ``>= q n - first + 1`` from ``q n`` (when
    positive), so together they weigh at most ``(y_first - lower)
    e^{-eps max(0, q n - first + 1) / 2}``; above likewise.  Every row is scaled by its
    largest log-weight, so no ``eps`` overflows or underflows a whole row.
    """
    reps, width = cells.shape
    rows = np.arange(reps)
    length = last - first + 1
    z = np.full((reps, width + 2), np.nan)
    z[:, 1 : width + 1] = cells
    z[first == 1, 0] = lower
    z[rows, length + 1] = np.where(last == n, upper, np.nan)
    left, right = z[:, :-1], z[:, 1:]
    c_lo = np.where(first == 1, 0, 1)
    c_hi = np.where(last == n, length, length - 1)
    col = np.arange(width + 1)[None, :]
    known = (col >= c_lo[:, None]) & (col <= c_hi[:, None])
    offset = first - 1
    qn = quantile * n
    with np.errstate(divide="ignore", invalid="ignore"):
        logw = np.where(
            known,
            np.log(right - left) - 0.5 * eps * np.abs(offset[:, None] + col - qn[:, None]),
            -np.inf,
        )
        span_below = np.where(first > 1, cells[:, 0] - lower, 0.0)
        span_above = np.where(last < n, upper - cells[rows, length - 1], 0.0)
        log_below = np.log(span_below) - 0.5 * eps * np.maximum(0.0, qn - first + 1)
        log_above = np.log(span_above) - 0.5 * eps * np.maximum(0.0, last - qn)
    top = np.maximum(np.max(logw, axis=1), np.maximum(log_below, log_above))
    weights = np.exp(logw - top[:, None])
    rest = np.exp(log_below - top) + np.exp(log_above - top)
    return _Intervals(left, right, weights, rest, offset, c_lo, c_hi)


def window_exponential_draws(
    sample_rng: np.random.Generator,
    noise_rng: np.random.Generator,
    sorted_values: FloatArray,
    sizes: ArrayLike,
    quantile: float,
    eps: ArrayLike,
    lower: float,
    upper: float,
    *,
    first_half: int | None = None,
    source: SourceFactory | None = None,
) -> tuple[FloatArray, FloatArray]:
    """Exponential-mechanism quantiles of SRSWOR samples, drawn exactly from windows.

    The release of :class:`core.mechanisms.ExponentialQuantile` weighs every interval
    between the sample's order statistics, so it depends on the whole sample -- but the far
    intervals weigh little.  Each release is drawn ring by ring around the quantile's rank.
    With ``C`` the weight of the current ring and ``W'`` the weight of everything not in an
    earlier ring, the release falls in the ring with probability ``C / W'``, decided by a
    fresh uniform ``u < C / W'``.  ``W'`` is known only up to the bound on the unknown
    intervals (:func:`_intervals`); while ``u`` lies between the two possible ratios the
    window widens -- the comparison is exact: ``u`` stays fixed and more of the same sample
    is revealed.  When ``u`` says "not in the ring", the next ring is what is known beyond
    it.  In the chosen ring an interval is drawn by its weight and the release uniformly
    inside it.  So every release has exactly the mechanism's law on the whole sample; most
    are decided in the first ring.

    Parameters
    ----------
    sample_rng, noise_rng : numpy.random.Generator
        Randomness of the samples and of the releases.
    sorted_values : ndarray, shape (N,)
        The population, sorted, inside ``[lower, upper]``.
    sizes : array_like of int, shape (reps,)
        Sample sizes in ``[1, N]``.
    quantile : float
        Level ``q`` in (0, 1).
    eps : array_like, shape (n_eps,)
        ``eps_sample`` of each release (one release per sample and eps), finite and > 0.
    lower, upper : float
        Public bounds.
    first_half : int, optional
        Half-width (in ranks) of the first window; default ``80 / min(eps)``, at which the
        unknown rest is negligible on smooth data.  Smaller values only cost more rounds
        (the tests use them to exercise every ring).
    source : SourceFactory, optional
        Where the samples come from, called once with ``sample_rng`` and every row
        (:func:`window_quantile_draws`); default simple random samples of ``sizes``.

    Returns
    -------
    statistic : ndarray, shape (reps,)
        The order statistic of rank ``quantile_rank(n, q)`` of each sample.
    released : ndarray, shape (n_eps, reps)
    """
    lo, hi = check_bounds(lower, upper)
    q = sens.check_quantile(quantile)
    n = np.asarray(sizes, dtype=np.int64).reshape(-1)
    e = np.asarray(eps, dtype=np.float64).reshape(-1)
    if not e.size or not np.all(np.isfinite(e) & (e > 0)):
        raise ValueError("eps must be a non-empty list of finite numbers > 0")
    reps = n.size
    k = np.array([sens.quantile_rank(int(m), q) for m in n], dtype=np.int64)
    windows = _open_source(source, sample_rng, sorted_values.size, n, np.arange(reps))
    # A first half-width at which the rest weighs about e^-20 of the ring on smooth data.
    start = (
        int(min(80.0 / float(e.min()), 2.0**40)) + 1
        if first_half is None
        else check_whole("first_half", first_half, 0, 2**62)
    )
    half = np.minimum(np.full(reps, start, dtype=np.int64), n)
    statistic = np.full(reps, np.nan)
    released = np.empty((e.size, reps))
    states = [
        _ExpState(
            noise_rng.random(reps),
            np.zeros(reps, dtype=np.int64),
            np.full(reps, -1, dtype=np.int64),
            np.zeros(reps, dtype=np.int64),
            np.full(reps, -1, dtype=np.int64),
        )
        for _ in e
    ]
    todo = [np.arange(reps) for _ in e]
    while any(t.size for t in todo):
        need = np.unique(np.concatenate(todo))
        windows.ensure(k - half, k + half)
        first, last, _ = windows.outside(need, k[need], sorted_values)
        width = int((last - first).max()) + 1
        pos = windows.positions(first, width, need)
        cells = np.where(pos >= 0, sorted_values[np.maximum(pos, 0)], np.nan)
        fresh = np.isnan(statistic[need])
        statistic[need[fresh]] = cells[np.flatnonzero(fresh), (k[need] - first)[fresh]]
        row_of = np.full(reps, -1, dtype=np.int64)
        row_of[need] = np.arange(need.size)
        for j, eps_j in enumerate(e):
            if todo[j].size:
                r = row_of[todo[j]]
                iv = _intervals(cells[r], first[r], last[r], n[todo[j]], float(eps_j), q, lo, hi)
                todo[j] = _decide(states[j], todo[j], iv, noise_rng, released[j])
        if any(t.size for t in todo):
            pending = np.unique(np.concatenate(todo))
            half[pending] = np.minimum(np.maximum(half[pending] * 2, 1), n[pending])
    return statistic, released


def _decide(
    st: _ExpState, todo: IntArray, iv: _Intervals, rng: np.random.Generator, out: FloatArray
) -> IntArray:
    """One round of ring decisions for the samples ``todo``; returns the undecided ones."""
    rows = np.arange(todo.size)
    cols = iv.weights.shape[1]
    known_lo = iv.offset + iv.c_lo
    known_hi = iv.offset + iv.c_hi
    unset = st.ring_hi[todo] < st.ring_lo[todo]
    st.ring_lo[todo] = np.where(unset, known_lo, st.ring_lo[todo])
    st.ring_hi[todo] = np.where(unset, known_hi, st.ring_hi[todo])
    cum = np.concatenate((np.zeros((todo.size, 1)), np.cumsum(iv.weights, axis=1)), axis=1)

    def columns(a: IntArray, b: IntArray) -> tuple[IntArray, IntArray]:
        """Half-open column range of intervals ``a .. b`` (empty when ``b < a``)."""
        ca = np.clip(a - iv.offset, 0, cols)
        cb = np.clip(b - iv.offset + 1, 0, cols)
        return ca, np.maximum(ca, cb)

    ring_a, ring_b = columns(st.ring_lo[todo], st.ring_hi[todo])
    cut_a, cut_b = columns(st.cut_lo[todo], st.cut_hi[todo])
    excluded = cum[rows, cut_b] - cum[rows, cut_a]
    ring = cum[rows, ring_b] - cum[rows, ring_a] - excluded
    known_rest = cum[:, -1] - excluded  # W' if the unknown intervals weighed nothing
    u = st.u[todo]
    yes = u * (known_rest + iv.rest) < ring
    no = ~yes & (u * known_rest >= ring)
    if yes.any():
        y = np.flatnonzero(yes)
        w = iv.weights[y].copy()
        col = np.arange(cols)[None, :]
        w[(col < ring_a[y, None]) | (col >= ring_b[y, None])] = 0.0
        w[(col >= cut_a[y, None]) & (col < cut_b[y, None])] = 0.0
        c = np.cumsum(w, axis=1)
        target = rng.random(y.size) * c[:, -1]
        pick = np.minimum((c <= target[:, None]).sum(axis=1), cols - 1)
        left = iv.left[y, pick]
        right = iv.right[y, pick]
        out[todo[y]] = np.clip(left + rng.random(y.size) * (right - left), left, right)
    if no.any():
        t = todo[no]
        st.cut_lo[t] = st.ring_lo[t]  # rings are nested: the excluded set is the old ring
        st.cut_hi[t] = st.ring_hi[t]
        st.ring_lo[t] = known_lo[no]
        st.ring_hi[t] = known_hi[no]
        st.u[t] = rng.random(t.size)
    return todo[~yes]
