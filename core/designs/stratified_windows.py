"""Proportional stratified samples revealed window by window, at a cost that does not grow with N.

The design
----------
Proportional allocation with randomised rounding (Bun, Drechsler, Gaboardi, McMillan &
Sarathy, "Controlling privacy loss in sampling schemes: an analysis of stratified and
cluster sampling", arXiv:2007.12674, 2020; FORC 2022 -- §4.3 and Theorem 4.3 for one
stratum, §7.3 and Theorem 7.2 for ``k`` strata): stratum ``h`` of ``N_h`` records gets
``n_h = floor(r N_h) + B_h`` records, where ``B_h`` is a Bernoulli draw with success probability
``frac(r N_h) = r N_h - floor(r N_h)``, the ``B_h`` independent; then, given the allocation,
every stratum is sampled without replacement, uniformly and independently of the others.  The
sample is the union of the strata's subsets.  The theorems need ``r N_h >= 1`` in every
stratum, so a rate that breaks this is refused here (:func:`draw_allocations`) as the
release planner skips it.  The rounding is the one of
:func:`core.strata.proportional_allocation` (``"randomized"``) and of the planner's masks:
``B_h = [u_h < frac(r N_h)]`` for a uniform ``u_h`` (:func:`randomised_rounding`).

A release of a quantile, and its smooth sensitivity, depends only on the sample's order
statistics near the quantile's rank (:mod:`core.windowed`).  :class:`StratifiedWindows`
reveals those, with exactly the law they have when the whole sample is drawn, through the
:class:`core.windowed.WindowSource` interface, so :func:`core.windowed.window_quantile_draws`
and :func:`core.windowed.window_exponential_draws` run on it unchanged.

The construction
----------------
Label the records of the sorted population by their positions ``0..N-1``; ``P_h`` is the set
of positions of stratum ``h``.  The whole population is one block ``[0, N)``; a block
``[s, t)`` carries one count per stratum, ``c_h``, the number of sampled records of stratum
``h`` among its positions (at the root ``c_h = n_h``).  Splitting the block at
``m = (s + t) // 2`` draws, for each stratum independently,

    ``L_h ~ Hypergeometric(ngood = |P_h ∩ [s, m)|, nbad = |P_h ∩ [m, t)|, nsample = c_h)``

and gives the left half the counts ``L_h`` and the right half ``c_h - L_h``.  A block whose
total ``c = Σ_h c_h`` is at most ``leaf`` is resolved: for each stratum, a uniform
``c_h``-subset of the block's stratum-``h`` records.

Why this is the design's law.  Claim: given the counts of a block (and everything drawn
outside it), the block's sampled records of stratum ``h`` form a uniform ``c_h``-subset of
``P_h ∩ [s, t)``, independently across strata.  At the root this is the definition of the
design given the allocation.  Suppose it holds for a block.  For one stratum, a uniform
``c_h``-subset ``A`` of ``P_h ∩ [s, t)`` meets the left half in ``|A ∩ [s, m)|`` records with
the hypergeometric law above (it is the number of "good" items in a draw of ``c_h`` without
replacement); and given that number ``L_h``, every pair (an ``L_h``-subset of the left, a
``(c_h - L_h)``-subset of the right) is equally likely, because each is one of the equally
likely ``A``.  So the two halves are again uniform subsets given their counts, independent
of each other; and since the strata were independent in the block and are split with
independent draws, they stay independent in each half.  By induction the claim holds in
every block, and at a leaf the resolved subsets have the claimed law.  Hence the records
produced by the tree, expanded fully, are distributed as the whole sample: the probability
of any sample ``S`` with ``|S ∩ P_h| = n_h`` is ``Π_h 1 / C(N_h, n_h)`` given the allocation.

The expansion is lazy and adaptive, as in :class:`core.windowed.SampleWindows`: only the
blocks whose sample ranks meet the wanted window are split.  The tree's split points are
fixed (the midpoints), and each split is drawn from its law given its parent's counts only,
so the order in which blocks are expanded -- and the decision which to expand, which depends
only on what has been drawn -- does not change the joint law of what is revealed.  Widening a
window splits more of the same tree; nothing is redrawn.

Rank bookkeeping is that of :mod:`core.windowed` with ``c = Σ_h c_h``: the sampled records of
a block have sample ranks ``below + 1 .. below + c``, ``below`` the sampled records (of every
stratum) at positions left of the block.  Ranks order the sample by position, which is the
order of values in the sorted population (ties broken by position), so rank ``j`` holds the
``j``-th order statistic, and a block ``[s, t)`` holds values in ``[y_s, y_{t-1}]``.

Cost
----
Counting ``|P_h ∩ [s, m)|`` is two binary searches in the stratum's sorted positions
(:class:`StrataIndex`, built once per population, ``O(N)`` memory).  A sample costs about
``H (2 log2(N / w) + w)`` splits for a window of ``w`` sampled records and ``H`` strata,
plus ``O(log N)`` per search: never ``O(N)``; memory per sample is proportional to ``H``
times the tree's frontier plus the window, never to ``N``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._validation import check_rate, check_whole
from ..designs.grouped import group_sizes, grouped_positions
from ..windowed.runs import RunSegments, ValueRuns, _RunTree, group_run_table
from ..windowed.sampler import LEAF, _BlockTree, _floyd_subsets

__all__ = [
    "StrataIndex",
    "StratifiedRunWindows",
    "StratifiedSource",
    "StratifiedWindows",
    "draw_allocations",
    "proportional_source",
    "randomised_rounding",
]

IntArray = NDArray[np.int64]


@dataclass(frozen=True, eq=False)
class StrataIndex:
    """The strata of a sorted population, prepared once: each stratum's positions, in order.

    Attributes
    ----------
    N : int
        Population size.
    sizes : ndarray of int64, shape (H,)
        ``N_h``, every one ``>= 1``.
    keys : ndarray of uint32 or int64, shape (N,)
        ``h N + position`` of every record, ascending: the positions of stratum 0 in
        increasing order, then those of stratum 1, ...  Unsigned 32-bit while ``H N`` fits
        (:func:`_key_type`; 31 strata of ``N = 10^8`` records take 400 MB instead of 800).
    offsets : ndarray of int64, shape (H + 1,)
        Stratum ``h`` occupies ``keys[offsets[h] : offsets[h + 1]]``.
    """

    N: int
    sizes: IntArray
    keys: NDArray[np.unsignedinteger[Any]] | IntArray
    offsets: IntArray

    @property
    def strata(self) -> int:
        """Number of strata ``H``."""
        return int(self.sizes.size)

    @classmethod
    def from_labels(cls, labels: ArrayLike) -> StrataIndex:
        """The index of stratum labels given in the order of the sorted population.

        Strata are numbered in the sorted order of their labels (:func:`numpy.unique`, as
        the release planner numbers them).
        """
        lab = np.asarray(labels).reshape(-1)
        if not lab.size:
            raise ValueError("the population has no records")
        N = int(lab.size)
        sizes = None
        if lab.dtype.kind in "iu" and lab.min() >= 0 and lab.max() < 2 * N + 1024:
            sizes = group_sizes(lab)
        if sizes is not None and sizes.min() > 0:
            codes = lab  # already 0 .. H - 1, every one used: unique's codes
        else:
            codes = np.unique(lab, return_inverse=True)[1].reshape(-1)
            sizes = group_sizes(codes)
        offsets = np.zeros(sizes.size + 1, dtype=np.int64)
        np.cumsum(sizes, out=offsets[1:])
        return cls._build(sizes, grouped_positions(codes, offsets, _key_type(sizes.size, N)))

    @classmethod
    def from_positions(cls, positions: Sequence[ArrayLike], N: int) -> StrataIndex:
        """The index of strata given as position arrays (one per stratum), which must
        partition ``0..N-1`` (the planner's ``strata_positions``)."""
        size = check_whole("N", N, 1, 2**62)
        parts = [np.sort(np.asarray(p, dtype=np.int64).reshape(-1)) for p in positions]
        if not parts or any(p.size == 0 for p in parts):
            raise ValueError("every stratum must hold at least one record")
        pos = np.concatenate(parts)
        if pos.size != size or pos.min() < 0 or pos.max() >= size:
            raise ValueError(f"the strata must partition the positions 0..{size - 1}")
        if np.bincount(pos, minlength=size).max() > 1:
            raise ValueError(f"the strata must partition the positions 0..{size - 1}")
        return cls._build(np.array([p.size for p in parts], dtype=np.int64), pos)

    @classmethod
    def _build(cls, sizes: IntArray, positions: IntArray) -> StrataIndex:
        """The index of ``positions``: stratum 0's positions ascending, then stratum 1's, ...
        (``sizes[h]`` of stratum ``h``); ``positions`` may be overwritten."""
        N = int(positions.size)
        offsets = np.zeros(sizes.size + 1, dtype=np.int64)
        np.cumsum(sizes, out=offsets[1:])
        # h N + position, stratum by stratum in place: no temporary of N entries beyond the
        # keys (at N = 10^8 the int64 codes times N used to take another 800 MB).
        keys = positions.astype(_key_type(sizes.size, N), copy=False)
        if sizes.size <= _STRATA_LOOP:
            for h in range(1, sizes.size):
                keys[offsets[h] : offsets[h + 1]] += h * N
        else:
            keys += np.repeat(np.arange(sizes.size, dtype=keys.dtype) * keys.dtype.type(N), sizes)
        return cls(N, sizes, keys, offsets)

    def run_table(self, runs: ValueRuns) -> IntArray | None:
        """Records of each stratum before each run start of ``runs``, shape ``(H, D + 1)``
        (:func:`core.windowed.runs.group_run_table`); None if too large."""
        return group_run_table(self.count_before, self.strata, runs)

    def count_before(self, strata: IntArray, at: IntArray) -> IntArray:
        """Number of records of stratum ``strata[i]`` at positions ``< at[i]`` (broadcast).

        ``0 <= strata < H`` and ``0 <= at <= N``, so every query ``h N + at`` is at most
        ``H N`` and is searched in the keys' own type (a query of another type would make
        ``numpy.searchsorted`` copy all N keys).
        """
        h = np.asarray(strata, dtype=np.int64)
        query = h * self.N + np.asarray(at, dtype=np.int64)
        found = np.searchsorted(self.keys, query.astype(self.keys.dtype, copy=False))
        return found.astype(np.int64) - self.offsets[h]


#: Up to this many strata, :meth:`StrataIndex._build` adds ``h N`` stratum by stratum.
_STRATA_LOOP = 1 << 16


def _key_type(strata: int, N: int) -> type[np.unsignedinteger[Any]] | type[np.int64]:
    """The type of :attr:`StrataIndex.keys` for ``strata`` strata of ``N`` records.

    Keys run to ``H N - 1`` and :meth:`StrataIndex.count_before` searches for values up to
    ``H N``: unsigned 32-bit integers hold them while ``H N < 2^32``, else 64-bit ones.
    """
    return np.uint32 if strata * N < 2**32 else np.int64


def randomised_rounding(sizes: ArrayLike, rate: float, uniforms: ArrayLike) -> IntArray:
    """Proportional allocation with randomised rounding, from given uniforms.

    ``n_h = floor(r N_h) + [u_h < frac(r N_h)]`` (Bun et al. §4.3): ``ceil(r N_h)`` with
    probability ``frac(r N_h)``, else ``floor(r N_h)``; unbiased, ``E[n_h] = r N_h``.

    Parameters
    ----------
    sizes : array_like of int, shape (H,)
        Stratum sizes ``N_h``.
    rate : float
        ``r`` in (0, 1].
    uniforms : array_like, shape (..., H)
        Independent uniforms on [0, 1), one per (repetition, stratum).

    Returns
    -------
    ndarray of int64, shape of ``uniforms``
    """
    r = float(check_rate("rate", rate))
    exact = r * np.asarray(sizes, dtype=np.int64).astype(np.float64)
    base = np.floor(exact)
    return (base + (np.asarray(uniforms, dtype=np.float64) < exact - base)).astype(np.int64)


def draw_allocations(
    rng: np.random.Generator, sizes: ArrayLike, rate: float, reps: int
) -> IntArray:
    """``reps`` independent allocations of proportional allocation with randomised rounding.

    Row ``i`` uses the uniforms ``rng.random(H)`` would give on its ``i``-th call, so one
    row equals :func:`core.strata.proportional_allocation` (``"randomized"``) on the same
    generator.

    Parameters
    ----------
    rng : numpy.random.Generator
    sizes : array_like of int, shape (H,)
        Stratum sizes ``N_h >= 1``.
    rate : float
        ``r`` in (0, 1], with ``r N_h >= 1`` in every stratum.
    reps : int
        Number of allocations.

    Returns
    -------
    ndarray of int64, shape (reps, H)

    Raises
    ------
    ValueError
        If ``r N_h < 1`` in some stratum: Bun et al. Theorems 4.3 and 7.2 need
        ``r N_h >= 1``, and such a stratum could be left out of the sample.
    """
    n = np.asarray(sizes, dtype=np.int64).reshape(-1)
    if not n.size or n.min() < 1:
        raise ValueError("stratum sizes must be whole numbers >= 1")
    r = float(check_rate("rate", rate))
    small = np.flatnonzero(r * n < 1)
    if small.size:
        h = int(small[0])
        raise ValueError(
            f"rate {r:g} gives r·N_h < 1 in {small.size} of {n.size} strata (stratum {h}: "
            f"{r:g} × {int(n[h])} = {r * n[h]:.3g}); proportional stratified sampling "
            "(Bun et al. Theorems 4.3, 7.2) needs r·N_h ≥ 1 in every stratum"
        )
    count = check_whole("reps", reps, 0, 2**40)
    return randomised_rounding(n, r, rng.random((count, n.size)))


@dataclass
class _Blocks:
    """Frontier of the tree, one row per block: records ``[start, stop)`` of sample ``rep``,
    ``counts[:, h]`` sampled records of stratum ``h`` among them, ``count`` in all,
    ``below`` sampled records (every stratum) to their left."""

    rep: IntArray
    start: IntArray
    stop: IntArray
    below: IntArray
    count: IntArray
    counts: IntArray  # (blocks, H)

    def take(self, mask: NDArray[np.bool_]) -> _Blocks:
        return _Blocks(
            self.rep[mask],
            self.start[mask],
            self.stop[mask],
            self.below[mask],
            self.count[mask],
            self.counts[mask],
        )

    @staticmethod
    def join(parts: list[_Blocks]) -> _Blocks:
        def cat(name: str) -> IntArray:
            return np.concatenate([getattr(p, name) for p in parts], axis=0)

        return _Blocks(
            cat("rep"), cat("start"), cat("stop"), cat("below"), cat("count"), cat("counts")
        )


class StratifiedWindows(_BlockTree[_Blocks]):
    """Order statistics near chosen ranks of ``reps`` proportional stratified samples.

    A :class:`core.windowed.WindowSource`: the block tree of the module docstring, with one
    sampled count per stratum in every block.  :meth:`ensure`, :meth:`outside` and
    :meth:`positions` are those of :class:`core.windowed.SampleWindows`: a block of records
    ``[start, stop)`` holds values in ``[values[start], values[stop - 1]]``, whichever strata
    its sampled records come from.

    Parameters
    ----------
    rng : numpy.random.Generator
        Source of randomness of the splits and leaves.
    index : StrataIndex
        The strata of the sorted population.
    allocation : array_like of int, shape (reps, H)
        ``n_h`` of every sample and stratum, ``0 <= n_h <= N_h``, at least one record per
        sample (:func:`draw_allocations`).
    leaf : int, default core.windowed.LEAF
        Blocks holding at most this many sampled records are resolved directly (the law is
        the same for every ``leaf >= 1``).
    """

    def __init__(
        self,
        rng: np.random.Generator,
        index: StrataIndex,
        allocation: ArrayLike,
        *,
        leaf: int = LEAF,
    ) -> None:
        super().__init__(rng, leaf)
        self._index = index
        H = index.strata
        alloc = np.asarray(allocation, dtype=np.int64)
        if alloc.ndim != 2 or alloc.shape[1] != H:
            raise ValueError(f"allocation must have shape (reps, {H}); got {alloc.shape}")
        if alloc.size and (alloc.min() < 0 or (alloc > index.sizes[None, :]).any()):
            raise ValueError("allocations must be in [0, N_h] in every stratum")
        sizes = alloc.sum(axis=1)
        if sizes.size and sizes.min() < 1:
            raise ValueError("every sample must hold at least one record")
        self._sizes = sizes
        reps = sizes.size
        self._frontier = _Blocks(
            np.arange(reps, dtype=np.int64),
            np.zeros(reps, dtype=np.int64),
            np.full(reps, index.N, dtype=np.int64),
            np.zeros(reps, dtype=np.int64),
            sizes.copy(),
            alloc.copy(),
        )
        self._strata = np.arange(H, dtype=np.int64)[None, :]

    def _split(self, b: _Blocks) -> _Blocks:
        """Split every block at its midpoint: a hypergeometric count per stratum for the left."""
        if not b.rep.size:
            return b
        mid = self._midpoint(b.start, b.stop)
        at_mid = self._count_before(mid)
        good = at_mid - self._count_before(b.start)
        bad = self._count_before(b.stop) - at_mid
        left = self._rng.hypergeometric(good, bad, b.counts).astype(np.int64)
        left_total = left.sum(axis=1)
        return _Blocks(
            np.concatenate((b.rep, b.rep)),
            np.concatenate((b.start, mid)),
            np.concatenate((mid, b.stop)),
            np.concatenate((b.below, b.below + left_total)),
            np.concatenate((left_total, b.count - left_total)),
            np.concatenate((left, b.counts - left), axis=0),
        )

    def _count_before(self, at: IntArray) -> IntArray:
        """Records of every stratum at positions ``< at[i]``, shape ``(at.size, H)``."""
        return self._index.count_before(self._strata, at[:, None])

    def _resolve(self, b: _Blocks) -> None:
        """Each block: a uniform ``counts[h]``-subset of its stratum-``h`` records, every
        stratum, ranked by position after the ``below`` records to its left."""
        ix = self._index
        block, stratum = np.nonzero(b.counts > 0)  # block-major: a block's pairs are together
        first = ix.count_before(stratum, b.start[block])
        length = ix.count_before(stratum, b.stop[block]) - first
        count = b.counts[block, stratum]
        offsets = np.zeros(block.size + 1, dtype=np.int64)
        np.cumsum(count, out=offsets[1:])
        picked = np.empty(int(offsets[-1]), dtype=np.int64)
        _floyd_subsets(self._rng, length, count, offsets, picked)
        pair = np.repeat(np.arange(block.size), count)
        h = stratum[pair]
        pos = ix.keys[ix.offsets[h] + first[pair] + picked] - h * ix.N
        owner = block[pair]
        order = np.lexsort((pos, owner))
        pos, owner = pos[order], owner[order]
        self._remember(b.rep, b.below + 1, b.count, pos)


class StratifiedRunWindows(_RunTree[_Blocks], StratifiedWindows):
    """:class:`StratifiedWindows` of a tied population, revealed as runs of equal values.

    The same tree with its split points at run boundaries, and a block of one run resolved
    without drawing records: given its counts per stratum, whatever records it holds carry
    its one value, so its sampled ranks ``below + 1 .. below + c`` are known at once (the
    argument of :mod:`core.windowed.runs`; the claim of the module docstring holds for any
    split points).  Read with :meth:`window_runs`; :meth:`positions` is refused.

    Parameters
    ----------
    rng, index, allocation
        As :class:`StratifiedWindows`.
    runs : ValueRuns
        The runs of the sorted population.
    table : ndarray of int64, shape (H, D + 1), optional
        ``index``'s records of each stratum before each run start
        (:func:`core.windowed.runs.group_run_table`): the splits, all at run boundaries,
        read their counts there instead of searching ``index``.  Same counts, same law.
    """

    def __init__(
        self,
        rng: np.random.Generator,
        index: StrataIndex,
        allocation: ArrayLike,
        runs: ValueRuns,
        table: IntArray | None = None,
    ) -> None:
        super().__init__(rng, index, allocation)
        self._segments = RunSegments(runs)
        self._table = table

    def _count_before(self, at: IntArray) -> IntArray:
        if self._table is None:
            return super()._count_before(at)
        return self._table[:, self._segments.run_of(at)].T


@dataclass(frozen=True, eq=False)
class StratifiedSource:
    """Proportional stratified samples with fixed allocations, as a source factory.

    ``source(rng, rows)`` is the :class:`StratifiedWindows` of the samples ``rows``; pass
    ``source`` and ``source.sizes`` to :func:`core.windowed.window_quantile_draws` or
    :func:`core.windowed.window_exponential_draws`.

    Attributes
    ----------
    index : StrataIndex
    allocation : ndarray of int64, shape (reps, H)
    leaf : int
    runs : ValueRuns or None
        The runs of a tied population: the samples are then revealed as runs
        (:class:`StratifiedRunWindows`).
    table : ndarray of int64 or None
        With ``runs``, each stratum's records before each run start
        (:meth:`StrataIndex.run_table`), or None to search the index.
    """

    index: StrataIndex
    allocation: IntArray
    leaf: int = LEAF
    runs: ValueRuns | None = None
    table: IntArray | None = None

    @property
    def sizes(self) -> IntArray:
        """Total size of every sample."""
        return self.allocation.sum(axis=1)

    def __call__(self, rng: np.random.Generator, rows: IntArray) -> StratifiedWindows:
        if self.runs is not None:
            return StratifiedRunWindows(
                rng, self.index, self.allocation[rows], self.runs, self.table
            )
        return StratifiedWindows(rng, self.index, self.allocation[rows], leaf=self.leaf)


def proportional_source(
    rng: np.random.Generator,
    index: StrataIndex,
    rate: float,
    reps: int,
    *,
    leaf: int = LEAF,
    runs: ValueRuns | None = None,
    table: IntArray | None = None,
) -> StratifiedSource:
    """``reps`` proportional stratified samples at ``rate`` (allocations drawn now).

    The allocations come from :func:`draw_allocations` (``rng``, randomised rounding); the
    samples themselves are drawn lazily by the draw function the source is given to, as
    runs of equal values when ``runs`` (those of a tied population) is given.

    Raises
    ------
    ValueError
        If ``rate · N_h < 1`` in some stratum.
    """
    alloc = draw_allocations(rng, index.sizes, rate, reps)
    return StratifiedSource(index, alloc, leaf, runs, table if runs is not None else None)
