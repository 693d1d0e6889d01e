"""Windows of tied samples as runs of equal values: a tie block costs O(1), not O(its ranks).

Why
---
On a heavily tied population (counts, size classes, rounded amounts) the smooth sensitivity
of the median (Hu, Drechsler & Kim 2023, eq. (4); Nissim, Raskhodnikova & Smith 2007) is
decided by the pairs of order statistics just outside the block of sampled records tied at
the median: ``S ~ (y_(j) - y_(i)) e^{-beta (j - i - 1)}`` with ``j - i - 1`` about the number
of those records.  A window of sample *ranks* must span the whole block before it can
certify ``S`` (:mod:`core.windowed`), millions of ranks at ``N = 10^7``.  Here the window is
a list of *runs* ``(value, first rank, last rank)`` and widening across a run costs O(1).

The runs of the population
--------------------------
The sorted population is runs of equal values: distinct values ``v_1 < ... < v_D`` with
multiplicities ``m_1, ..., m_D``; run ``d`` holds the records ``starts[d] .. starts[d+1] - 1``
(:class:`ValueRuns`).  Every order-statistic function of a sample -- its order statistics,
``S``, the exponential mechanism's intervals -- depends on the sample only through its
*counts per run* ``c_1, ..., c_D``: records of one run are interchangeable.

The sampler (exact)
-------------------
:class:`RunWindows` is the hypergeometric tree of :class:`core.windowed.SampleWindows` with
its split points restricted to run boundaries: a block is a range of runs ``[s, t)`` holding
``c`` sampled records; it is split at the run ``m = (s + t) // 2`` and the left part gets
``L ~ Hypergeometric(ngood = starts[m] - starts[s], nbad = starts[t] - starts[m], nsample =
c)``.  For a uniform ``c``-subset ``A`` of the block's records, ``|A ∩ left|`` has exactly
this law, and given it the two parts are independent uniform subsets (the argument of
:mod:`core.windowed` for any split point, here a record boundary that happens to be a run
boundary).  A block of a single run is never split: whatever records ``A`` holds, they all
carry the value ``v_s``, so the block is *resolved* without drawing which records -- its
sampled records have ranks ``below + 1 .. below + c``, all equal to ``v_s``.  By induction
the counts per run of the resolved blocks have the law of the counts per run of a uniform
``n``-subset (the multivariate hypergeometric law), which is all an order-statistic function
reads.  Widening reuses the frontier exactly as in :mod:`core.windowed` (each split is drawn
from its law given its parent's count only, so the adaptive order of expansion does not
change the law); Poisson sampling is the same given its binomial size.

Exact enumeration over every subset of tiny tied populations, and Kolmogorov-Smirnov and
chi-square checks against whole samples at ``N = 10^6``, test this (``tests/core/windowed``).

Cost: ``O(log D)`` splits per window edge plus one per run in the window, whatever the
number of tied ranks; memory proportional to the runs revealed, never to ``N``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._validation import FloatArray, check_array
from ..windowed.sampler import (
    LEAF,
    B,
    IntArray,
    SampleWindows,
    _Blocks,
    _BlockTree,
    record_values,
)

__all__ = [
    "GROUP_TABLE_CELLS",
    "RunSegments",
    "RunSource",
    "RunView",
    "RunWindows",
    "ValueRuns",
    "fits_group_table",
    "group_run_table",
    "run_view",
]

#: Padding of the rank columns of a :class:`RunView` past a row's last run.
_PAD = np.iinfo(np.int64).max // 4
#: Blocks as :func:`core.sensitivity.smooth_sensitivity_window_batch` reads them.
Blocks = tuple[IntArray, IntArray, IntArray, FloatArray, FloatArray]


@dataclass(frozen=True, eq=False)
class ValueRuns:
    """The runs of equal values of a sorted population.

    Attributes
    ----------
    values : ndarray, shape (D,)
        The distinct values ``v_1 < ... < v_D``.
    starts : ndarray of int64, shape (D + 1,)
        Run ``d`` holds records ``starts[d] .. starts[d + 1] - 1``; ``starts[D] = N``.
    """

    values: FloatArray
    starts: IntArray

    @classmethod
    def of(cls, sorted_values: ArrayLike) -> ValueRuns:
        """The runs of ``sorted_values`` (ascending, at least one value)."""
        y = check_array("sorted_values", sorted_values, np.isfinite, "finite numbers").ravel()
        # Compared in place, not through numpy.diff: no float per record (800 MB at 10^8).
        if not y.size or np.any(y[1:] < y[:-1]):
            raise ValueError("sorted_values must be a non-empty array sorted ascending")
        head = np.flatnonzero(np.concatenate(([True], y[1:] != y[:-1])))
        return cls(y[head], np.append(head, y.size).astype(np.int64))

    @property
    def N(self) -> int:
        """Number of records."""
        return int(self.starts[-1])

    @property
    def D(self) -> int:
        """Number of distinct values (runs)."""
        return int(self.values.size)

    @cached_property
    def longest(self) -> int:
        """Records in the longest run (computed once)."""
        return int(np.diff(self.starts).max())

    @property
    def tied(self) -> bool:
        """Whether runs pay: at least two records per distinct value on average."""
        return 2 * self.D <= self.N


#: Most cells (groups × (runs + 1)) of a :func:`group_run_table`, 8 bytes each.
GROUP_TABLE_CELLS = 1 << 22


def fits_group_table(groups: int, runs: ValueRuns) -> bool:
    """Whether a table of ``groups`` rows over the run starts of ``runs`` stays within
    :data:`GROUP_TABLE_CELLS` cells."""
    return groups * (runs.D + 1) <= GROUP_TABLE_CELLS


def group_run_table(
    count_before: Callable[[IntArray, IntArray], IntArray], groups: int, runs: ValueRuns
) -> IntArray | None:
    """``table[g, d]``: records of group ``g`` at positions ``< starts[d]``, ``d = 0 .. D``.

    A stratum's or a cluster's records before each run boundary of the sorted population,
    read once from the group's ascending positions (``count_before(groups, positions)``,
    broadcast, as :meth:`core.designs.stratified_windows.StrataIndex.count_before`).  A tree
    over runs splits only at run boundaries, so its hypergeometric counts need only these
    numbers: a table lookup instead of a binary search over the ``N`` positions per split.
    None when the table would exceed :data:`GROUP_TABLE_CELLS` cells (callers then search).
    """
    if not fits_group_table(groups, runs):
        return None
    g = np.arange(groups, dtype=np.int64)[:, None]
    return np.asarray(count_before(g, runs.starts[None, :]), dtype=np.int64)


@dataclass
class RunView:
    """Row ``r``: the known runs around its quantile's rank, ``count[r]`` of them, in order.

    Run ``c < count[r]`` holds sample ranks ``first[r, c] .. last[r, c]``, all of value
    ``value[r, c]``; consecutive runs are adjacent in rank (``first[r, c + 1] = last[r, c] +
    1``) and differ in value.  Columns past ``count[r]`` are padding (NaN values, huge ranks).
    """

    value: FloatArray
    first: IntArray
    last: IntArray
    count: IntArray

    def rows(self, index: IntArray) -> RunView:
        """The view of rows ``index``."""
        return RunView(self.value[index], self.first[index], self.last[index], self.count[index])

    def at(self, k: IntArray) -> FloatArray:
        """The value of rank ``k[r]`` of each row (the run that holds it)."""
        column = (self.last < np.asarray(k, dtype=np.int64)[:, None]).sum(axis=1)
        return np.asarray(self.value[np.arange(column.size), column], dtype=np.float64)

    @classmethod
    def of_segments(
        cls,
        row: IntArray,
        first: IntArray,
        last: IntArray,
        value: FloatArray,
        rows: int,
        *,
        ordered: bool = False,
    ) -> RunView:
        """Pack runs given one per entry (any order, or by row and rank when ``ordered``)
        into ``rows`` padded rows."""
        if not ordered:
            order = np.lexsort((first, row))
            row, first, last, value = row[order], first[order], last[order], value[order]
        count = np.bincount(row, minlength=rows).astype(np.int64)
        offsets = np.concatenate(([0], np.cumsum(count)))
        width = max(int(count.max()) if rows else 0, 1)
        col = np.arange(row.size) - offsets[row]
        out_value = np.full((rows, width), np.nan)
        out_first = np.full((rows, width), _PAD, dtype=np.int64)
        out_last = np.full((rows, width), _PAD, dtype=np.int64)
        out_value[row, col] = value
        out_first[row, col] = first
        out_last[row, col] = last
        return cls(out_value, out_first, out_last, count)

    @classmethod
    def of_cells(cls, cells: FloatArray, first: IntArray, last: IntArray) -> RunView:
        """Runs of order statistics given rank by rank: row ``r`` of ``cells`` holds ranks
        ``first[r] .. last[r]`` in its first columns; equal neighbours merge into one run."""
        reps, width = cells.shape
        col = np.arange(width)[None, :]
        valid = col <= (last - first)[:, None]
        head = valid.copy()
        head[:, 1:] &= cells[:, 1:] != cells[:, :-1]
        if np.array_equal(head, valid):
            # No two neighbours equal (continuous data): every known rank is its own run.
            ranks = np.where(valid, first[:, None] + col, _PAD)
            value = np.where(valid, cells, np.nan)
            return cls(value, ranks, ranks.copy(), valid.sum(axis=1).astype(np.int64))
        row, c = np.nonzero(head)  # row-major: by row, then by rank
        same_next = np.append(row[1:] == row[:-1], False)
        next_c = np.append(c[1:], 0)
        run_last = np.where(same_next, first[row] + next_c - 1, last[row])
        return cls.of_segments(row, first[row] + c, run_last, cells[row, c], reps, ordered=True)


class RunSegments:
    """The run-level bookkeeping shared by every tree sampler over runs (module docstring).

    A tree's blocks are record ranges ``[start, stop)`` whose ends are run boundaries; they
    are split at the boundary of their middle run (:meth:`midpoint`), and a block of one run
    (:meth:`single`) is resolved by :meth:`add` into a segment of ranks ``below + 1 ..
    below + count`` of that run's value.  :meth:`view` packs the segments of known ranks.
    """

    def __init__(self, runs: ValueRuns) -> None:
        self.runs = runs
        self._rep: list[IntArray] = []
        self._first: list[IntArray] = []
        self._last: list[IntArray] = []
        self._run: list[IntArray] = []

    def run_of(self, start: IntArray) -> IntArray:
        """The run starting at record ``start`` (a run boundary; ``D`` for ``N``)."""
        return np.searchsorted(self.runs.starts, start).astype(np.int64)

    def midpoint(self, start: IntArray, stop: IntArray) -> IntArray:
        """The first record of the middle run of each block (a block holds >= 2 runs)."""
        return self.runs.starts[(self.run_of(start) + self.run_of(stop)) // 2]

    def single(self, start: IntArray, stop: IntArray) -> NDArray[np.bool_]:
        """Whether each block is one run."""
        return np.asarray(self.runs.starts[self.run_of(start) + 1] == stop)

    def add(self, rep: IntArray, start: IntArray, below: IntArray, count: IntArray) -> None:
        """Resolve one-run blocks: their sampled ranks, all of their run's value."""
        self._rep.append(rep)
        self._first.append(below + 1)
        self._last.append(below + count)
        self._run.append(self.run_of(start))

    def view(self, which: IntArray, reps: int, first: IntArray, last: IntArray) -> RunView:
        """Runs of ranks ``first[i] .. last[i]`` of samples ``which[i]``; forgets the others."""
        rows = np.asarray(which, dtype=np.int64)
        row_of = np.full(reps, -1, dtype=np.int64)
        row_of[rows] = np.arange(rows.size)
        rep, f, la, run = (
            np.concatenate(x) if x else np.empty(0, dtype=np.int64)
            for x in (self._rep, self._first, self._last, self._run)
        )
        row = row_of[rep]
        keep = row >= 0
        rep, f, la, run, row = rep[keep], f[keep], la[keep], run[keep], row[keep]
        self._rep, self._first, self._last, self._run = [rep], [f], [la], [run]
        inside = (f >= first[row]) & (la <= last[row])
        values = self.runs.values[run[inside]]
        return RunView.of_segments(row[inside], f[inside], la[inside], values, rows.size)


class _RunTree(_BlockTree[B]):
    """A block tree split at run boundaries whose one-run blocks are resolved without
    drawing records (module docstring): the shared part of :class:`RunWindows` and
    :class:`core.designs.stratified_windows.StratifiedRunWindows`.  A subclass sets
    ``_segments``; read the windows with :meth:`window_runs`."""

    _segments: RunSegments

    def _resolvable(self, b: B) -> NDArray[np.bool_]:
        return self._segments.single(b.start, b.stop)

    def _midpoint(self, start: IntArray, stop: IntArray) -> IntArray:
        return self._segments.midpoint(start, stop)

    def _resolve(self, b: B) -> None:
        self._segments.add(b.rep, b.start, b.below, b.count)

    def window_runs(
        self, which: IntArray, k: IntArray, values: FloatArray
    ) -> tuple[RunView, Blocks]:
        """The runs of known ranks around ``k[i]`` of samples ``which``, and the blocks outside.

        As :meth:`core.windowed.SampleWindows.outside`, with the known ranks as runs.  The
        samples left out of ``which`` are forgotten.
        """
        first, last, blocks = self.outside(which, k, values)
        return self._segments.view(which, self.reps, first, last), blocks

    def positions(self, first: IntArray, width: int, which: IntArray | None = None) -> IntArray:
        """Refused: the records of a run are never drawn (use :meth:`window_runs`)."""
        raise TypeError(
            f"{type(self).__name__} reveals runs of values, not records: use window_runs"
        )


class RunWindows(_RunTree[_Blocks], SampleWindows):
    """Order statistics near chosen ranks of ``reps`` SRSWOR samples of a tied population.

    The tree of :class:`core.windowed.SampleWindows` split at run boundaries, a block of one
    run resolved without drawing records (module docstring; :class:`RunSegments`).  Read
    the windows with :meth:`window_runs`; records are never drawn, so :meth:`positions` is
    refused.

    Parameters
    ----------
    rng : numpy.random.Generator
    runs : ValueRuns
        The runs of the sorted population.
    sizes : array_like of int, shape (reps,)
        Sample sizes in ``[1, N]``.
    """

    def __init__(self, rng: np.random.Generator, runs: ValueRuns, sizes: ArrayLike) -> None:
        super().__init__(rng, runs.N, sizes, leaf=LEAF)
        self._segments = RunSegments(runs)


@dataclass(frozen=True, eq=False)
class RunSource:
    """Simple random samples of given sizes from a tied population, as a source factory.

    ``source(rng, rows)`` is the :class:`RunWindows` of samples ``rows`` (the
    ``SourceFactory`` of :mod:`core.windowed`).
    """

    runs: ValueRuns
    sizes: IntArray

    def __call__(self, rng: np.random.Generator, rows: IntArray) -> RunWindows:
        return RunWindows(rng, self.runs, self.sizes[rows])


def next_window(
    view: RunView | None, at: IntArray, k: IntArray, half: IntArray
) -> tuple[IntArray, IntArray]:
    """The ranks the next round makes known for samples whose window must widen.

    ``k ± half`` on a source of records (``view`` None); on a run-aware source, ``half``
    ranks beyond the known runs of rows ``at`` of ``view`` on each side, so that a tie block
    around ``k``, known whole, is crossed at once and the far side of ``k`` is not read as
    deep as the block is long.
    """
    if view is None:
        return k - half, k + half
    return view.first[at, 0] - half, view.last[at, view.count[at] - 1] + half


def run_view(
    source: Any, which: IntArray, k: IntArray, values: FloatArray
) -> tuple[RunView, Blocks]:
    """The known runs around ``k`` of samples ``which`` of any window source, and the blocks.

    A run-aware source (:class:`RunWindows`) answers directly; any other
    :class:`core.windowed.WindowSource` gives its known ranks (``outside``, ``positions``),
    merged into runs by :meth:`RunView.of_cells`.
    """
    own = getattr(source, "window_runs", None)
    if own is not None:
        view, blocks = own(which, k, values)
        return view, blocks
    first, last, blocks = source.outside(which, k, values)
    width = int((last - first).max()) + 1
    pos = source.positions(first, width, which)
    cells = record_values(values, pos)
    return RunView.of_cells(cells, first, last), blocks
