"""Cluster samples of a tied population as counts per run: every window known at once.

Why
---
On a population of few distinct values (``D`` runs of equal values, :class:`ValueRuns`),
every order-statistic function of a sample -- its quantiles, their smooth sensitivity, the
exponential mechanism's intervals -- reads the sample only through its *counts per run*
``c_1 .. c_D`` (:mod:`core.windowed.runs`, module docstring).  Given its drawn clusters, a
cluster sample's counts are the sum of those clusters' records per run
(:func:`cluster_run_counts`: one product of the 0/1 matrix of drawn clusters with the
clusters' run table, ``O(k D)`` per sample whatever ``N``), so they are computed outright
and every window is a lookup in their running sums -- no bisection over the drawn clusters
per run boundary (:class:`core.designs.cluster_windows.ClusterRunWindows`).

For simple random and stratified samples the counts would be multivariate hypergeometric
draws, ``O(D)`` per sample; measured at ``N = 10^7``, that costs more than revealing a
window through the run trees once ``D`` exceeds about a hundred, so those designs keep
their trees.

The law (exact)
---------------
The drawn clusters have the design's law (:func:`core.designs.cluster_windows.draw_cluster_sets`
or the Poisson cluster design's independent draws); given them the sample is fixed and its
counts per run are exact integers.  Everything :class:`RunCounts` reveals is arithmetic on
these counts, so it has the law of the same quantities read from the whole sample.
Widening a window changes nothing: all counts are known from the start.

Blocks
------
The ranks outside a known range of runs ``ra .. rb`` are described, for the smooth
sensitivity's certificate (:func:`core.sensitivity.smooth_sensitivity_window_batch`), by
groups of runs at doubling distances: runs ``[ra - 2^(j+1) + 1, ra - 2^j + 1)`` below and
likewise above, each with its sampled ranks (from the running sums) and the values of its
first and last run as value range (every sampled value of the group lies in it).  Empty
groups are left out; together the groups cover every rank outside the known ones once.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._validation import FloatArray
from ..windowed.runs import Blocks, RunView, ValueRuns

__all__ = ["RunCounts", "cluster_run_counts", "counts_of_drawn"]

IntArray = NDArray[np.int64]


def cluster_run_counts(table: ArrayLike, drawn: ArrayLike) -> IntArray:
    """Counts per run of cluster samples, shape ``(reps, D)``: the drawn clusters' records.

    Parameters
    ----------
    table : array_like of int, shape (k, D + 1)
        Each cluster's records before each run start
        (:meth:`core.designs.cluster_windows.ClusterIndex.run_table`).
    drawn : array_like of int, shape (reps, ℓ)
        The clusters of each sample.
    """
    return counts_of_drawn(np.diff(np.asarray(table, dtype=np.int64), axis=1), drawn)


def _add_rows(per_run: IntArray, drawn: IntArray, out: IntArray) -> None:
    """``out[r] = sum of per_run[drawn[r, j]] over j``: each sample's drawn clusters' rows."""
    for r in range(drawn.shape[0]):
        for j in range(drawn.shape[1]):
            c = drawn[r, j]
            for col in range(per_run.shape[1]):
                out[r, col] += per_run[c, col]


try:  # numba is optional: without it the same loop runs as numpy row additions.
    import numba as _numba
except ImportError:  # pragma: no cover - exercised only where numba is missing
    _numba = None  # type: ignore[assignment]
if _numba is not None:
    _add_rows = _numba.njit(cache=True, nogil=True)(_add_rows)


def counts_of_drawn(per_run: ArrayLike, drawn: ArrayLike) -> IntArray:
    """:func:`cluster_run_counts` from the records of each cluster in each run,
    ``per_run`` of shape ``(k, D)`` (the differences of the run table, kept by a caller
    that counts many draws of the same clusters).

    One pass of integer additions over the drawn clusters' rows (compiled by numba when
    installed; ``O(reps ℓ D)``, on one thread -- a matrix product of the 0/1 matrix of
    drawn clusters would start the BLAS's threads, which on a busy server cost more than
    they save).
    """
    table = np.ascontiguousarray(per_run, dtype=np.int64)
    d = np.ascontiguousarray(drawn, dtype=np.int64)
    if d.ndim != 2:
        raise ValueError(f"drawn must have shape (reps, ℓ); got {d.shape}")
    out = np.zeros((d.shape[0], table.shape[1]), dtype=np.int64)
    if _numba is None:  # pragma: no cover - exercised only where numba is missing
        for j in range(d.shape[1]):
            out += table[d[:, j]]
        return out
    _add_rows(table, d, out)
    return out


class RunCounts:
    """Order statistics near chosen ranks of samples given by their counts per run.

    A run-aware :class:`core.windowed.WindowSource` (as :class:`core.windowed.RunWindows`:
    :meth:`ensure`, :meth:`outside`, :meth:`window_runs`; :meth:`positions` is refused).
    The known ranks of a sample are the ranks of a range of whole runs, which
    :meth:`ensure` widens.

    Parameters
    ----------
    runs : ValueRuns
        The runs of the sorted population.
    counts : array_like of int, shape (reps, D)
        Sampled records of each run, every sample non-empty (:func:`cluster_run_counts`).
    """

    def __init__(self, runs: ValueRuns, counts: ArrayLike) -> None:
        c = np.asarray(counts, dtype=np.int64)
        if c.ndim != 2 or c.shape[1] != runs.D:
            raise ValueError(f"counts must have shape (reps, {runs.D}); got {c.shape}")
        lengths = np.diff(runs.starts)
        if c.size and (c.min() < 0 or (c > lengths[None, :]).any()):
            raise ValueError("counts must be in [0, run length] for every run")
        self._runs = runs
        self._counts = c
        reps = c.shape[0]
        self._before = np.zeros((reps, runs.D + 1), dtype=np.int64)
        np.cumsum(c, axis=1, out=self._before[:, 1:])
        self.sizes: IntArray = self._before[:, -1].copy()
        if reps and self.sizes.min() < 1:
            raise ValueError("every sample must hold at least one record")
        self.N = runs.N
        # Running sums of all rows laid end to end, each row shifted past the last:
        # one binary search finds the run of any rank of any row.
        self._flat = (self._before + np.arange(reps)[:, None] * (runs.N + 1)).ravel()
        #: Known runs ``_ra .. _rb`` of every sample (none while ``_ra < 0``).
        self._ra = np.full(reps, -1, dtype=np.int64)
        self._rb = np.full(reps, -1, dtype=np.int64)

    @property
    def reps(self) -> int:
        """Number of samples."""
        return int(self.sizes.size)

    def _run_of_rank(self, rows: IntArray, rank: IntArray) -> IntArray:
        """The run holding sample rank ``rank[i]`` (in ``[1, n]``) of sample ``rows[i]``."""
        width = self._runs.D + 1
        shift = rows * (self.N + 1)
        return np.searchsorted(self._flat, rank + shift, side="left") - rows * width - 1

    def ensure(self, first: IntArray, last: IntArray) -> None:
        """Make sample ranks ``first[r] .. last[r]`` (clipped to ``[1, n_r]``) known, as the
        whole runs that hold them; a sample whose clipped range is empty is left as it is."""
        lo = np.maximum(np.asarray(first, dtype=np.int64).reshape(-1), 1)
        hi = np.minimum(np.asarray(last, dtype=np.int64).reshape(-1), self.sizes)
        rows = np.flatnonzero(lo <= hi)
        if not rows.size:
            return
        ra = self._run_of_rank(rows, lo[rows])
        rb = self._run_of_rank(rows, hi[rows])
        known = self._ra[rows] >= 0
        self._ra[rows] = np.where(known, np.minimum(ra, self._ra[rows]), ra)
        self._rb[rows] = np.where(known, np.maximum(rb, self._rb[rows]), rb)

    def outside(
        self, which: IntArray, k: IntArray, values: FloatArray
    ) -> tuple[IntArray, IntArray, Blocks]:
        """The known ranks around ``k`` and groups of runs covering the others, per sample.

        As :meth:`core.windowed.SampleWindows.outside`: for each sample ``which[i]``, whose
        rank ``k[i]`` must be known, the first and last known rank, and blocks ``(offsets,
        first rank, last rank, lowest value, highest value)`` ordered by rank (module
        docstring).  ``values`` (the sorted population) is not needed: the runs hold them.

        Raises
        ------
        ValueError
            If ``k[i]`` is not a known rank of sample ``which[i]``.
        """
        rows = np.asarray(which, dtype=np.int64).reshape(-1)
        kk = np.asarray(k, dtype=np.int64).reshape(-1)
        ra, rb = self._ra[rows], self._rb[rows]
        before = self._before
        first = before[rows, np.maximum(ra, 0)] + 1
        last = before[rows, rb + 1]
        if ((ra < 0) | (kk < first) | (kk > last)).any():
            raise ValueError("k must be a known rank of every sample asked about")
        D = self._runs.D
        steps = max(1, int(D).bit_length() + 1)
        reach = (1 << np.arange(steps + 1, dtype=np.int64)) - 1  # 0, 1, 3, 7, ...
        # Below: groups [ra - reach[j + 1], ra - reach[j]) clipped at 0, listed upwards.
        lo_s = np.maximum(ra[:, None] - reach[None, 1:], 0)[:, ::-1]
        lo_t = np.maximum(ra[:, None] - reach[None, :-1], 0)[:, ::-1]
        # Above: groups [rb + 1 + reach[j], rb + 1 + reach[j + 1]) clipped at D.
        hi_s = np.minimum(rb[:, None] + 1 + reach[None, :-1], D)
        hi_t = np.minimum(rb[:, None] + 1 + reach[None, 1:], D)
        s = np.concatenate((lo_s, hi_s), axis=1)
        t = np.concatenate((lo_t, hi_t), axis=1)
        row = np.repeat(np.arange(rows.size), s.shape[1]).reshape(s.shape)
        b_first = before[rows[row], s] + 1
        b_last = before[rows[row], t]
        keep = (t > s) & (b_last >= b_first)
        owner = row[keep]
        offsets = np.searchsorted(owner, np.arange(rows.size + 1)).astype(np.int64)
        run_values = self._runs.values
        low = run_values[s[keep]]
        high = run_values[t[keep] - 1]
        return first, last, (offsets, b_first[keep], b_last[keep], low, high)

    def window_runs(
        self, which: IntArray, k: IntArray, values: FloatArray
    ) -> tuple[RunView, Blocks]:
        """The known runs of samples ``which`` (around ``k``) and the blocks outside them."""
        rows = np.asarray(which, dtype=np.int64).reshape(-1)
        _, _, blocks = self.outside(rows, k, values)
        ra, rb = self._ra[rows], self._rb[rows]
        length = rb - ra + 1
        owner = np.repeat(np.arange(rows.size), length)
        run = ra[owner] + np.arange(owner.size) - np.repeat(np.cumsum(length) - length, length)
        counts = self._counts[rows[owner], run]
        real = counts > 0
        owner, run = owner[real], run[real]
        lo = self._before[rows[owner], run] + 1
        hi = self._before[rows[owner], run + 1]
        value = self._runs.values[run]
        view = RunView.of_segments(owner, lo, hi, value, rows.size, ordered=True)
        return view, blocks

    def refine(self, which: IntArray, k: IntArray, fine: int) -> None:
        """Nothing to split: the counts of every run are known, and the blocks are groups of
        runs at doubling distances (:class:`core.windowed.WindowSource`)."""

    def positions(self, first: IntArray, width: int, which: IntArray | None = None) -> IntArray:
        """Refused: the records of a run are never drawn (use :meth:`window_runs`)."""
        raise TypeError(
            f"{type(self).__name__} reveals runs of values, not records: use window_runs"
        )
