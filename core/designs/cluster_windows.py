"""Order statistics of cluster samples near one rank, read without touching all N records.

The design
----------
Single-stage cluster sampling with simple random sampling of clusters (Bun et al. 2022,
Section 5.1; :class:`core.designs.ClusterSampling`): the population is split into ``k``
clusters, ``ℓ`` of them are drawn uniformly without replacement, and every record of a
drawn cluster is in the sample.  A private quantile of the sample needs only its order
statistics near the quantile's rank (:mod:`core.windowed`, module docstring).  Drawing the
whole sample costs ``O(N ℓ / k)`` per repetition, which grows with ``N`` at a fixed rate.
:class:`ClusterWindows` answers the same questions as :class:`core.windowed.SampleWindows`
(same methods, same return values), at a cost set by ``ℓ``, ``log N`` and the window.

How
---
Label the records of the sorted population ``0..N-1`` (their *positions*; values ascend
with the position).  :class:`ClusterIndex`, built once per population, lists each
cluster's positions in ascending order.  A repetition draws its cluster set ``D`` (``ℓ``
distinct ids); the sample, ordered by position, is the union of the drawn clusters'
lists.  For a position ``p`` let ``C(p)`` be the number of sampled records at positions
``< p``: a sum over the ``ℓ`` drawn clusters of one binary search each.

* The record of sample rank ``j`` is at the smallest ``p`` with ``C(p + 1) >= j``,
  found by bisection on ``p`` (about ``log2 N`` steps of ``ℓ`` binary searches; each
  cluster's search range shrinks with the bisection's interval).
* The records of ranks ``a..b`` are the sampled records at positions ``p_a..p_b``: each
  drawn cluster's slice between those positions, merged by one sort of ``b - a + 1``
  numbers.
* The ranks outside a revealed run ``a..b`` are described by *blocks*: population
  positions are cut at ``p_a``, ``p_a - g``, ``p_a - 3g``, ``p_a - 7g``, ... (``g`` the
  positions spanned by the run) down to 0, and likewise above ``p_b``.  The sampled records
  between two cuts ``s < t`` have ranks ``C(s) + 1 .. C(t)``, and their values lie between
  the value of the first sampled record at a position ``>= s`` and that of the last one
  ``< t`` -- both found by the same binary searches that count ``C``.  So each block's
  value range is exactly the range of the sampled values it stands for, and the blocks
  cover every rank outside ``a..b`` (the lowest starts at ``C(0) + 1 = 1``, the highest
  ends at ``C(N) = n``), as :func:`core.sensitivity.smooth_sensitivity_window_batch`
  needs for its certificate.

Why the law is exact
--------------------
Write ``F(D)`` for anything read from the sample whose cluster set is ``D``: an order
statistic, its population position, a block's rank range or value range.  Drawing the
whole sample and sorting it gives ``F(D)`` with ``D`` uniform over the ``ℓ``-subsets of the
``k`` clusters.  Here ``D`` is drawn with that same law: the first ``ℓ`` entries of a
uniform random permutation of ``0..k-1`` (every ``ℓ``-subset is the first ``ℓ`` entries of
exactly ``ℓ! (k - ℓ)!`` of the ``k!`` permutations, so each has probability
``1 / C(k, ℓ)``).  Everything after that is arithmetic on ``D`` and the population, with no
further randomness: ``C(p)`` is an exact count, so the bisection returns the unique
sampled position with exactly ``j - 1`` sampled positions before it, which is the position
of rank ``j`` in the sorted whole sample (ties in value are ordered by position in both);
slices, merges and blocks are exact in the same way.  Hence the joint law of everything
revealed equals the law of the same quantities read from the whole sample.

Widening a window that could not certify its smooth sensitivity is safe for the same
reason: the choice to look further depends on what was revealed, but what is revealed is
always ``F(D)`` for the one ``D`` fixed at the start -- nothing is redrawn, so no sample is
favoured (unlike :mod:`core.windowed`, whose lazily drawn tree needs its conditional
splits for that).

Cost
----
Per repetition and revealed rank range: ``O(ℓ log N log M)`` for the two ends (``M`` the
largest cluster size), ``O(w log w)`` for a window of ``w`` ranks, and ``O(ℓ log N log M)``
for the blocks; memory ``O(reps (ℓ + w))``.  The index itself holds ``N + k + 1``
integers and is built once (one stable sort of the cluster codes).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._validation import FloatArray, check_whole
from ..designs.cluster_grid import (
    _first_above,
    _grid_counts,
    _narrow,
    _scan_grid,
    _select_grid,
)
from ..designs.grouped import group_sizes, grouped_positions
from ..windowed.run_counts import counts_of_drawn
from ..windowed.runs import Blocks, RunView, ValueRuns, fits_group_table

__all__ = ["ClusterIndex", "ClusterRunWindows", "ClusterWindows", "draw_cluster_sets"]

IntArray = NDArray[np.int64]

try:  # numba is optional: without it the same loops run as plain Python (slowly).
    import numba as _numba
except ImportError:  # pragma: no cover - exercised only where numba is missing
    _numba = None  # type: ignore[assignment]


# ---------------------------------------------------------------------------------------
# Kernels (plain loops; compiled by numba when it is installed)
# ---------------------------------------------------------------------------------------


def _scan(
    pos: IntArray,
    off: IntArray,
    drawn: IntArray,
    rows: IntArray,
    cuts: IntArray,
    count: IntArray,
    after: IntArray,
    before: IntArray,
) -> None:
    """For each ``(rows[i], cuts[i])``: sampled records at positions ``< cut``, the first
    sampled position ``>= cut`` (``-1`` if none) and the last one ``< cut`` (``-1`` if none)."""
    for i in range(rows.size):
        r = rows[i]
        p = cuts[i]
        c_sum = 0
        nxt = -1
        prv = -1
        for t in range(drawn.shape[1]):
            c = drawn[r, t]
            s = off[c]
            e = off[c + 1]
            idx = _first_above(pos, s, e, p - 1)
            c_sum += idx - s
            if idx < e and (nxt < 0 or pos[idx] < nxt):
                nxt = pos[idx]
            if idx > s and pos[idx - 1] > prv:
                prv = pos[idx - 1]
        count[i] = c_sum
        after[i] = nxt
        before[i] = prv


def _select(
    pos: IntArray,
    off: IntArray,
    drawn: IntArray,
    rows: IntArray,
    ranks: IntArray,
    p_lo: IntArray,
    p_hi: IntArray,
    out: IntArray,
) -> None:
    """Position of sample rank ``ranks[i]`` of sample ``rows[i]``, known to lie in
    ``[p_lo[i], p_hi[i]]``: the smallest ``p`` with ``C(p + 1) >= rank`` (the bisection of
    :func:`core.designs.cluster_grid._narrow`, each cluster searched whole)."""
    width = drawn.shape[1]
    lo_i = np.empty(width, dtype=np.int64)
    hi_i = np.empty(width, dtype=np.int64)
    mid_i = np.empty(width, dtype=np.int64)
    for i in range(rows.size):
        r = rows[i]
        j = ranks[i]
        for t in range(width):
            c = drawn[r, t]
            lo_i[t] = off[c]
            hi_i[t] = off[c + 1]
        out[i] = _narrow(pos, off, drawn, r, j, p_lo[i], p_hi[i], lo_i, hi_i, mid_i)


def _gather(
    pos: IntArray,
    off: IntArray,
    drawn: IntArray,
    rows: IntArray,
    first: IntArray,
    last: IntArray,
    starts: IntArray,
    out: IntArray,
) -> None:
    """The sampled positions in ``[first[i], last[i]]`` of sample ``rows[i]``, ascending,
    into ``out[starts[i] : starts[i + 1]]``."""
    for i in range(rows.size):
        r = rows[i]
        o = starts[i]
        for t in range(drawn.shape[1]):
            c = drawn[r, t]
            a = _first_above(pos, off[c], off[c + 1], first[i] - 1)
            b = _first_above(pos, a, off[c + 1], last[i])
            for u in range(a, b):
                out[o] = pos[u]
                o += 1
        out[starts[i] : o].sort()


if _numba is not None:
    _scan = _numba.njit(cache=True, nogil=True)(_scan)
    _select = _numba.njit(cache=True, nogil=True)(_select)
    _gather = _numba.njit(cache=True, nogil=True)(_gather)


# ---------------------------------------------------------------------------------------
# The population's clusters, prepared once
# ---------------------------------------------------------------------------------------


#: Cells of :attr:`ClusterIndex.grid` (int32: 16 MiB at most).
GRID_CELLS = 1 << 22


@dataclass(frozen=True, eq=False)
class ClusterIndex:
    """Each cluster's records as ascending positions in the sorted population.

    Cluster ``c`` holds the positions ``positions[offsets[c] : offsets[c + 1]]``; since the
    population is sorted, they list the cluster's values in ascending order.  Build it with
    :meth:`of`; it does not depend on the rate or the number of repetitions.

    Attributes
    ----------
    positions : ndarray of int32 (int64 from 2^31 records), shape (N,)
    offsets : ndarray of int64, shape (k + 1,)
    """

    positions: IntArray
    offsets: IntArray

    @classmethod
    def of(cls, codes: ArrayLike) -> ClusterIndex:
        """The index of a sorted population whose record ``i`` is in cluster ``codes[i]``.

        Parameters
        ----------
        codes : array_like of int, shape (N,)
            Cluster of each record of the sorted population, in ``0 .. k - 1``; every
            cluster must hold at least one record and ``k >= 1``.

        Raises
        ------
        ValueError
            For codes that are not whole numbers from 0, or a cluster without records.
        """
        arr = np.asarray(codes)
        if arr.ndim != 1 or arr.size == 0:
            raise ValueError("codes must list the cluster of every record (a 1-D array)")
        if arr.dtype.kind not in "iu":
            raise ValueError(f"cluster codes must be whole numbers; got dtype {arr.dtype}")
        if arr.dtype == np.uint64:  # one signed code type for the compiled kernels
            arr = arr.astype(np.int64)
        if arr.min() < 0:
            raise ValueError("cluster codes must be >= 0")
        sizes = group_sizes(arr)
        if (sizes == 0).any():
            empty = int(np.flatnonzero(sizes == 0)[0])
            raise ValueError(f"every cluster needs at least one record; cluster {empty} has none")
        offsets = np.zeros(sizes.size + 1, dtype=np.int64)
        np.cumsum(sizes, out=offsets[1:])
        # Positions as int32 below 2^31 records: half the memory kept at N = 10^8, written
        # in that type directly (no int64 per record on the way).
        positions = grouped_positions(arr, offsets, _narrowest(max(arr.size, 2**15 + 1)))
        return cls(positions, offsets)

    @property
    def N(self) -> int:
        """Records in the population."""
        return int(self.positions.size)

    @property
    def k(self) -> int:
        """Clusters in the population."""
        return int(self.offsets.size - 1)

    @property
    def sizes(self) -> IntArray:
        """Records in each cluster, shape (k,)."""
        return np.diff(self.offsets)

    @cached_property
    def grid(self) -> tuple[int, NDArray[np.int32]]:
        """Each cluster's records before every ``step``-th position: ``(step, table)`` with
        ``table[c, g]`` the records of cluster ``c`` at positions ``< min(g step, N)``,
        shape ``(k, G + 1)``, ``G = ceil(N / step)``, at most :data:`GRID_CELLS` cells.

        Built once per index (one merge per cluster, ``O(N + k G)``) on first use.  A count
        ``C(p)`` then needs, per drawn cluster, a binary search among its records in one
        grid cell only, and a rank's position starts from a bisection over the grid.
        """
        columns = max(2, min(self.N + 1, GRID_CELLS // max(self.k, 1)))
        step = max(1, -(-self.N // (columns - 1)))
        columns = -(-self.N // step) + 1
        table = np.empty((self.k, columns), dtype=np.int32)
        _grid_counts(self.positions, self.offsets, step, table)
        return step, table

    def members(self, cluster: int) -> IntArray:
        """Positions of one cluster's records, ascending."""
        return self.positions[self.offsets[cluster] : self.offsets[cluster + 1]]

    def run_table(self, runs: ValueRuns) -> IntArray | None:
        """Records of each cluster before each run start of ``runs``, shape ``(k, D + 1)``
        (:func:`core.windowed.runs.group_run_table`): one binary search of the run starts in
        each cluster's ascending positions; None if too large."""
        if not fits_group_table(self.k, runs):
            return None
        return np.stack([np.searchsorted(self.members(c), runs.starts) for c in range(self.k)])


def draw_cluster_sets(
    rng: np.random.Generator, k: int, clusters_sampled: int, reps: int
) -> IntArray:
    """``reps`` independent uniform ``ℓ``-subsets of the ``k`` clusters, one per row, ascending.

    Row ``r`` is the first ``ℓ`` entries of a uniform random permutation of ``0..k-1``
    (``numpy.random.Generator.permuted``), so each of the ``C(k, ℓ)`` subsets has
    probability ``1 / C(k, ℓ)`` -- the draw of :class:`core.designs.ClusterSampling`.
    Cost ``O(reps k)``, independent of the records.

    Returns
    -------
    ndarray of int64, shape (reps, clusters_sampled)
    """
    kk = check_whole("k", k, 1, 2**31)
    ell = check_whole("clusters_sampled", clusters_sampled, 1, kk)
    r = check_whole("reps", reps, 0, 2**31)
    perm = rng.permuted(np.tile(np.arange(kk, dtype=np.int64), (r, 1)), axis=1)
    return np.sort(perm[:, :ell], axis=1)


def _narrowest(count: int) -> type[np.signedinteger[Any]]:
    """The narrowest signed integer type holding ``0 .. count - 1``: numpy's stable sort of
    16-bit codes is a radix sort, an order of magnitude faster at ``N = 10^7`` than of
    64-bit ones, and gives the same order."""
    return np.int16 if count <= 2**15 else np.int32 if count <= 2**31 else np.int64


# ---------------------------------------------------------------------------------------
# The sample source
# ---------------------------------------------------------------------------------------


class ClusterWindows:
    """Order statistics near chosen ranks of ``reps`` independent cluster samples.

    The same surface as :class:`core.windowed.SampleWindows` -- :attr:`reps`,
    :attr:`sizes`, :meth:`ensure`, :meth:`outside`, :meth:`positions` -- for single-stage
    cluster sampling with simple random sampling of clusters (Bun et al. 2022, Section 5;
    :class:`core.designs.ClusterSampling`).  The law of everything it reveals is that of
    the whole sample (module docstring).

    Parameters
    ----------
    index : ClusterIndex
        The population's clusters (:meth:`ClusterIndex.of`).
    drawn : array_like of int, shape (reps, ℓ)
        The drawn clusters of each sample: distinct ids in ``0 .. k - 1`` per row.  Use
        :meth:`draw` for random ones; passing them lets a test rebuild the same samples.

    Attributes
    ----------
    N : int
        Population size.
    sizes : ndarray of int64, shape (reps,)
        Sample size of each sample: the records of its drawn clusters.
    drawn : ndarray of int64, shape (reps, ℓ)

    Notes
    -----
    The ranks known for a sample always form one run ``a..b``: :meth:`ensure` extends it to
    the smallest run that covers both the old run and the new ranks (revealing more than
    asked when the two are apart; nothing is random after the cluster draw, so this changes
    no law).
    """

    def __init__(self, index: ClusterIndex, drawn: ArrayLike) -> None:
        d = np.asarray(drawn)
        if d.ndim != 2 or d.shape[1] < 1 or d.dtype.kind not in "iu":
            raise ValueError("drawn must be a (reps, ℓ) array of cluster ids, ℓ >= 1")
        d = np.sort(d.astype(np.int64), axis=1)
        if d.size and (d.min() < 0 or d.max() >= index.k):
            raise ValueError(f"drawn cluster ids must be in [0, k = {index.k})")
        if d.shape[1] > 1 and (np.diff(d, axis=1) == 0).any():
            raise ValueError("the drawn clusters of a sample must be distinct")
        self._index = index
        self.drawn = np.ascontiguousarray(d)
        self.N = index.N
        self.sizes = index.sizes[d].sum(axis=1).astype(np.int64)
        reps = self.sizes.size
        #: Known run of ranks ``[_first, _last]`` (none while ``_first == 0``) and the
        #: population positions of its two ends.
        self._first = np.zeros(reps, dtype=np.int64)
        self._last = np.zeros(reps, dtype=np.int64)
        self._p_first = np.zeros(reps, dtype=np.int64)
        self._p_last = np.zeros(reps, dtype=np.int64)

    @classmethod
    def draw(
        cls, rng: np.random.Generator, index: ClusterIndex, clusters_sampled: int, reps: int
    ) -> ClusterWindows:
        """``reps`` samples of ``clusters_sampled`` clusters each (:func:`draw_cluster_sets`)."""
        return cls(index, draw_cluster_sets(rng, index.k, clusters_sampled, reps))

    @property
    def reps(self) -> int:
        """Number of samples."""
        return int(self.sizes.size)

    def _select(self, rows: IntArray, ranks: IntArray, p_lo: IntArray, p_hi: IntArray) -> IntArray:
        out = np.empty(rows.size, dtype=np.int64)
        ix = self._index
        if _numba is not None and ix.N < 2**31:
            step, grid = ix.grid
            _select_grid(ix.positions, ix.offsets, grid, step, self.drawn, rows, ranks, out)
            return out
        _select(ix.positions, ix.offsets, self.drawn, rows, ranks, p_lo, p_hi, out)
        return out

    def ensure(self, first: IntArray, last: IntArray) -> None:
        """Make sample ranks ``first[r] .. last[r]`` (1-indexed, clipped to ``[1, n_r]``) known.

        A sample whose clipped range is empty is left as it is.
        """
        lo = np.maximum(np.asarray(first, dtype=np.int64).reshape(-1), 1)
        hi = np.minimum(np.asarray(last, dtype=np.int64).reshape(-1), self.sizes)
        asked = lo <= hi
        known = self._first > 0
        new_first = np.where(asked & known, np.minimum(lo, self._first), self._first)
        new_first = np.where(asked & ~known, lo, new_first)
        new_last = np.where(asked & known, np.maximum(hi, self._last), self._last)
        new_last = np.where(asked & ~known, hi, new_last)
        # A moved end lies strictly outside the old run: below its first position, or
        # above its last one.
        down = np.flatnonzero(new_first != self._first)
        if down.size:
            ceiling = np.where(known[down], self._p_first[down] - 1, self.N - 1)
            self._p_first[down] = self._select(
                down, new_first[down], np.zeros(down.size, dtype=np.int64), ceiling
            )
        up = np.flatnonzero(new_last != self._last)
        if up.size:
            floor = np.where(known[up], self._p_last[up] + 1, self._p_first[up])
            self._p_last[up] = self._select(
                up, new_last[up], floor, np.full(up.size, self.N - 1, dtype=np.int64)
            )
        self._first, self._last = new_first, new_last

    def _scan(self, rows: IntArray, cuts: IntArray) -> tuple[IntArray, IntArray, IntArray]:
        count, after, before = (np.empty(rows.size, dtype=np.int64) for _ in range(3))
        ix = self._index
        if _numba is not None and ix.N < 2**31:
            step, grid = ix.grid
            _scan_grid(
                ix.positions, ix.offsets, grid, step, self.drawn, rows, cuts, count, after, before
            )
            return count, after, before
        _scan(ix.positions, ix.offsets, self.drawn, rows, cuts, count, after, before)
        return count, after, before

    def outside(
        self, which: IntArray, k: IntArray, values: FloatArray
    ) -> tuple[IntArray, IntArray, tuple[IntArray, IntArray, IntArray, FloatArray, FloatArray]]:
        """The known ranks around ``k`` and blocks bounding the other ranks, per sample.

        For each sample ``which[i]``, whose rank ``k[i]`` must be known: the first and last
        rank of its known run, and blocks ``(offsets, first rank, last rank, lowest value,
        highest value)`` for :func:`core.sensitivity.smooth_sensitivity_window_batch`.  Row
        ``i`` owns blocks ``offsets[i] .. offsets[i + 1] - 1``, ordered by rank; together
        they cover every rank outside the run exactly once, and each value range is exactly
        the smallest and largest value of the sampled records it stands for (module
        docstring: cuts at doubling distances from the run).

        Parameters
        ----------
        which : ndarray of int
            Samples asked about.
        k : ndarray of int
            A known rank of each (checked).
        values : ndarray, shape (N,)
            The sorted population.

        Raises
        ------
        ValueError
            If ``k[i]`` is not a known rank of sample ``which[i]``.
        """
        rows = np.asarray(which, dtype=np.int64).reshape(-1)
        kk = np.asarray(k, dtype=np.int64).reshape(-1)
        a, b = self._first[rows], self._last[rows]
        if ((kk < a) | (kk > b) | (a < 1)).any():
            raise ValueError("outside needs a known rank k of every sample (call ensure first)")
        pa, pb = self._p_first[rows], self._p_last[rows]
        gap = pb - pa + 1
        levels = max(1, int(self.N).bit_length() + 1)
        grow = gap[:, None] * ((1 << np.arange(levels + 1, dtype=np.int64)) - 1)[None, :]
        below = np.maximum(pa[:, None] - grow, 0)  # descending cuts, the first at p_a
        above = np.minimum(pb[:, None] + 1 + grow, self.N)  # ascending, the first at p_b + 1
        parts = []
        for cuts, is_below in ((below, True), (above, False)):
            end = 0 if is_below else self.N
            # Level 0 always; a further level while the previous cut is not yet at the end.
            live = np.ones(cuts.shape, dtype=bool)
            live[:, 1:] = cuts[:, :-1] != end
            r_idx, lev = np.nonzero(live)
            count = np.full(cuts.shape, -1, dtype=np.int64)
            after = np.full(cuts.shape, -1, dtype=np.int64)
            before = np.full(cuts.shape, -1, dtype=np.int64)
            c, nx, pv = self._scan(rows[r_idx], cuts[r_idx, lev])
            count[r_idx, lev], after[r_idx, lev], before[r_idx, lev] = c, nx, pv
            # Block between level i - 1 and level i (i >= 1), when it holds sampled records.
            inner, outer = np.s_[:, :-1], np.s_[:, 1:]
            if is_below:
                lo_cnt, hi_cnt = count[outer], count[inner]
                low_pos, high_pos = after[outer], before[inner]
            else:
                lo_cnt, hi_cnt = count[inner], count[outer]
                low_pos, high_pos = after[inner], before[outer]
            real = live[outer] & (hi_cnt > lo_cnt)
            br, bl = np.nonzero(real)
            parts.append(
                (
                    br,
                    lo_cnt[br, bl] + 1,
                    hi_cnt[br, bl],
                    values[low_pos[br, bl]],
                    values[high_pos[br, bl]],
                )
            )
        row = np.concatenate([p[0] for p in parts])
        b_first = np.concatenate([p[1] for p in parts])
        order = np.lexsort((b_first, row))
        ranks_first: IntArray = b_first[order].astype(np.int64)
        ranks_last: IntArray = np.concatenate([p[2] for p in parts])[order].astype(np.int64)
        low: FloatArray = np.concatenate([p[3] for p in parts])[order].astype(np.float64)
        high: FloatArray = np.concatenate([p[4] for p in parts])[order].astype(np.float64)
        offsets: IntArray = np.searchsorted(row[order], np.arange(rows.size + 1)).astype(np.int64)
        known_first: IntArray = a.astype(np.int64)
        known_last: IntArray = b.astype(np.int64)
        return known_first, known_last, (offsets, ranks_first, ranks_last, low, high)

    def refine(self, which: IntArray, k: IntArray, fine: int) -> None:
        """Nothing to split: the blocks are cut at doubling distances from the known run and
        carry the exact value range of their records (:class:`core.windowed.WindowSource`)."""

    def positions(self, first: IntArray, width: int, which: IntArray | None = None) -> IntArray:
        """Population positions of ranks ``first[r] .. first[r] + width - 1`` of samples ``which``.

        One row per sample in ``which`` (default: all); ranks outside ``[1, n_r]`` or not made
        known by :meth:`ensure` are ``-1``.  (Nothing is forgotten: the ranks are read from
        the drawn clusters each time.)
        """
        rows = np.arange(self.reps) if which is None else np.asarray(which, dtype=np.int64)
        rows = rows.reshape(-1)
        w = check_whole("width", width, 0, 2**40)
        out = np.full((rows.size, w), -1, dtype=np.int64)
        start = np.broadcast_to(np.asarray(first, dtype=np.int64), rows.shape)
        a, b = self._first[rows], self._last[rows]
        # Known ranks inside the asked columns.
        lo = np.maximum(a, start)
        hi = np.minimum(b, start + w - 1)
        take = np.flatnonzero((a >= 1) & (lo <= hi))
        if not take.size:
            return out
        ends_lo = self._p_first[rows[take]]
        ends_hi = self._p_last[rows[take]]
        if (lo[take] > a[take]).any():
            sel = np.flatnonzero(lo[take] > a[take])
            ends_lo = ends_lo.copy()
            ends_lo[sel] = self._select(rows[take][sel], lo[take][sel], ends_lo[sel], ends_hi[sel])
        if (hi[take] < b[take]).any():
            sel = np.flatnonzero(hi[take] < b[take])
            ends_hi = ends_hi.copy()
            ends_hi[sel] = self._select(rows[take][sel], hi[take][sel], ends_lo[sel], ends_hi[sel])
        count = hi[take] - lo[take] + 1
        starts = np.zeros(take.size + 1, dtype=np.int64)
        np.cumsum(count, out=starts[1:])
        flat = np.empty(int(starts[-1]), dtype=np.int64)
        ix = self._index
        _gather(ix.positions, ix.offsets, self.drawn, rows[take], ends_lo, ends_hi, starts, flat)
        owner = np.repeat(take, count)
        col = np.arange(flat.size) - np.repeat(starts[:-1], count) + np.repeat(lo[take], count)
        out[owner, col - start[owner]] = flat
        return out


class ClusterRunWindows(ClusterWindows):
    """:class:`ClusterWindows` of a tied population, read as runs of equal values.

    The known ranks ``a .. b`` (population positions ``p_a .. p_b``) cross the run
    boundaries ``starts[d]`` in ``(p_a, p_b]``; the sampled ranks of run ``d`` end at
    ``C(starts[d + 1])``, one scan of the drawn clusters per boundary.  So a window is read
    in ``O(ℓ log M)`` per run it spans instead of per rank -- a tie block costs one run --
    and, as everything else here, it is exact arithmetic on the drawn clusters (module
    docstring), so the law is that of the whole sample.

    Parameters
    ----------
    index, drawn
        As :class:`ClusterWindows`.
    runs : ValueRuns
        The runs of the sorted population.
    table : ndarray of int64, shape (k, D + 1), optional
        ``index``'s records of each cluster before each run start
        (:meth:`ClusterIndex.run_table`).  With it, ``C(starts[d])`` of every run start of
        a sample is one sum over its drawn clusters, computed once per sample (a matrix
        product with the 0/1 matrix of drawn clusters), and a window reads each boundary
        it crosses by a lookup instead of ``ℓ`` binary searches.  Same counts, same law.
    """

    def __init__(
        self,
        index: ClusterIndex,
        drawn: ArrayLike,
        runs: ValueRuns,
        table: IntArray | None = None,
    ) -> None:
        super().__init__(index, drawn)
        self._runs = runs
        self._table = table
        self._before_runs: IntArray | None = None

    def _counts_at_runs(self) -> IntArray | None:
        """``C(starts[d])`` of every sample and run start, shape ``(reps, D + 1)``, or None
        without a table or when it would exceed the table's cell budget."""
        if self._table is None or not fits_group_table(self.reps, self._runs):
            return None
        if self._before_runs is None:
            self._before_runs = counts_of_drawn(self._table, self.drawn)
        return self._before_runs

    def ensure(self, first: IntArray, last: IntArray) -> None:
        """As :meth:`ClusterWindows.ensure`, then out to whole runs: the known ranks start
        at the first sampled record of the run of the lowest one and end at the last of the
        run of the highest, so one call crosses a tie block of any length."""
        super().ensure(first, last)
        rows = np.flatnonzero(self._first > 0)
        if not rows.size:
            return
        starts = self._runs.starts
        low = starts[np.searchsorted(starts, self._p_first[rows], side="right") - 1]
        count, after, _ = self._scan(rows, low)
        self._first[rows], self._p_first[rows] = count + 1, after
        high = starts[np.searchsorted(starts, self._p_last[rows], side="right")]
        count, _, before = self._scan(rows, high)
        self._last[rows], self._p_last[rows] = count, before

    def window_runs(
        self, which: IntArray, k: IntArray, values: FloatArray
    ) -> tuple[RunView, Blocks]:
        """The runs of the known ranks of samples ``which`` (around ``k``), and the blocks
        outside them (:meth:`ClusterWindows.outside`)."""
        rows = np.asarray(which, dtype=np.int64).reshape(-1)
        first, last, blocks = self.outside(rows, k, values)
        starts = self._runs.starts
        run_a = np.searchsorted(starts, self._p_first[rows], side="right") - 1
        run_b = np.searchsorted(starts, self._p_last[rows], side="right") - 1
        inner = run_b - run_a  # run boundaries inside the known positions
        # Per row: rank before the window, ranks before each inner boundary, last rank.
        size = inner + 2
        at = np.concatenate(([0], np.cumsum(size)))
        ends = np.empty(int(at[-1]), dtype=np.int64)
        ends[at[:-1]] = first - 1
        ends[at[1:] - 1] = last
        owner = np.repeat(np.arange(rows.size), inner)
        j = np.arange(owner.size) - np.repeat(np.cumsum(inner) - inner, inner)
        if owner.size:
            table = self._counts_at_runs()
            if table is not None:
                count = table[rows[owner], run_a[owner] + 1 + j]
            else:
                count, _, _ = self._scan(rows[owner], starts[run_a[owner] + 1 + j])
            ends[at[owner] + 1 + j] = count
        seg_row = np.repeat(np.arange(rows.size), inner + 1)
        seg = np.arange(seg_row.size) - np.repeat(np.cumsum(inner + 1) - (inner + 1), inner + 1)
        lo = ends[at[seg_row] + seg] + 1
        hi = ends[at[seg_row] + seg + 1]
        real = lo <= hi
        value = self._runs.values[run_a[seg_row] + seg]
        view = RunView.of_segments(seg_row[real], lo[real], hi[real], value[real], rows.size)
        return view, blocks
