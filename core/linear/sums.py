"""The sums every design's closed form reads, for many variables at once, in one O(N) pass.

A design's variance of a linear estimator of ``Σ y`` needs only a few sums of ``y``: over the
population (``Σ y``, ``Σ y²``), per stratum (``N_h``, ``Σ_h y``, ``Σ_h y²``) and per cluster
(``T_c = Σ_c y``).  :class:`GroupSums` holds them for ``V`` variables side by side (the cells
of a table, or one statistic), so every rate then costs O(V·H) or O(V·K), whatever N.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..designs.frame import Frame

__all__ = [
    "KEPT_SELECTIONS",
    "GroupSums",
    "cell_sums",
    "group_sums",
    "kept_selection_sums",
    "selection_sums",
]

#: Selections whose sums a frame keeps (the most recently used), for :func:`kept_selection_sums`.
KEPT_SELECTIONS = 32

FloatArray = NDArray[np.float64]


@dataclass(frozen=True, eq=False)
class GroupSums:
    """Sums of ``V`` variables ``y`` over the population, each stratum and each cluster.

    Attributes
    ----------
    N : int
        Population size.
    total, square : ndarray, shape (V,)
        ``Σ y`` and ``Σ y²``.
    strata_sizes : ndarray, shape (H,), or None
        Records per stratum (None without strata); likewise below.
    strata_total, strata_square : ndarray, shape (V, H), or None
        ``Σ y`` and ``Σ y²`` per stratum.
    cluster_sizes : ndarray, shape (K,), or None
        Records per cluster.
    cluster_total : ndarray, shape (V, K), or None
        ``T_c = Σ y`` per cluster.
    """

    N: int
    total: FloatArray
    square: FloatArray
    strata_sizes: NDArray[np.int64] | None
    strata_total: FloatArray | None
    strata_square: FloatArray | None
    cluster_sizes: NDArray[np.int64] | None
    cluster_total: FloatArray | None

    @property
    def V(self) -> int:
        """Number of variables."""
        return int(self.total.size)


def _per_group(codes: NDArray[np.signedinteger], groups: int, y: FloatArray) -> FloatArray:
    return np.stack([np.bincount(codes, weights=row, minlength=groups) for row in y])


def group_sums(frame: Frame, y: ArrayLike) -> GroupSums:
    """The sums of ``y`` (shape (N,) or (V, N), aligned with ``frame.values``)."""
    arr = np.asarray(y, dtype=np.float64)
    rows = arr.reshape(1, -1) if arr.ndim == 1 else arr
    if rows.ndim != 2 or rows.shape[1] != frame.N:
        raise ValueError(f"y must hold one value per record ({frame.N}); got shape {arr.shape}")
    if not np.isfinite(rows).all():
        raise ValueError("y must be finite")
    sq = rows * rows
    st = ss = ct = None
    if frame.strata_codes is not None and frame.strata_sizes is not None:
        h = frame.strata_sizes.size
        st, ss = _per_group(frame.strata_codes, h, rows), _per_group(frame.strata_codes, h, sq)
    if frame.cluster_codes is not None and frame.cluster_sizes is not None:
        ct = _per_group(frame.cluster_codes, frame.cluster_sizes.size, rows)
    return GroupSums(
        frame.N,
        rows.sum(axis=1),
        sq.sum(axis=1),
        frame.strata_sizes,
        st,
        ss,
        frame.cluster_sizes,
        ct,
    )


def _crossed(
    cells: NDArray[np.int64],
    n_cells: int,
    codes: NDArray[np.signedinteger],
    groups: int,
    w: FloatArray | None,
) -> FloatArray:
    key = cells * groups + codes.astype(np.int64)
    return (
        np.bincount(key, weights=w, minlength=n_cells * groups)
        .reshape(n_cells, groups)
        .astype(np.float64)
    )


def cell_sums(
    frame: Frame,
    cell_codes: ArrayLike,
    n_cells: int,
    weights: ArrayLike | None = None,
) -> GroupSums:
    """The sums of the cells' variables ``y_c = 1{record in cell c}·weight``, c = 0..n_cells−1.

    ``cell_codes`` gives each record's cell (aligned with ``frame.values``; −1 for a record in
    no cell); ``weights`` (None: 1, a count) the value summed for a total by cell.  One
    ``bincount`` per sum: O(N), with no (V, N) array.
    """
    codes = np.asarray(cell_codes)
    if codes.shape != (frame.N,):
        raise ValueError(f"cell_codes must hold one cell per record ({frame.N})")
    if int(n_cells) < 1:
        raise ValueError("a table needs at least one cell")
    n_cells = int(n_cells)
    codes = codes.astype(np.int64, copy=False)
    if codes.size and (codes.max() >= n_cells or codes.min() < -1):
        raise ValueError(f"cell codes must lie in −1 .. {n_cells - 1}")
    w = None if weights is None else np.asarray(weights, dtype=np.float64)
    if w is not None and w.shape != (frame.N,):
        raise ValueError(f"weights must hold one value per record ({frame.N})")
    inside = codes >= 0
    if not inside.all():
        codes = codes[inside]
        w = None if w is None else w[inside]
        strata = None if frame.strata_codes is None else frame.strata_codes[inside]
        clusters = None if frame.cluster_codes is None else frame.cluster_codes[inside]
    else:
        strata, clusters = frame.strata_codes, frame.cluster_codes
    w2 = None if w is None else w * w
    total = np.bincount(codes, weights=w, minlength=n_cells).astype(np.float64)
    square = total.copy() if w is None else np.bincount(codes, weights=w2, minlength=n_cells)
    st = ss = ct = None
    if strata is not None and frame.strata_sizes is not None:
        h = frame.strata_sizes.size
        st = _crossed(codes, n_cells, strata, h, w)
        ss = st.copy() if w is None else _crossed(codes, n_cells, strata, h, w2)
    if clusters is not None and frame.cluster_sizes is not None:
        ct = _crossed(codes, n_cells, clusters, frame.cluster_sizes.size, w)
    return GroupSums(
        frame.N,
        total,
        np.asarray(square, dtype=np.float64),
        frame.strata_sizes,
        st,
        ss,
        frame.cluster_sizes,
        ct,
    )


def selection_sums(
    frame: Frame, keep: NDArray[np.bool_], values: ArrayLike | None = None
) -> GroupSums:
    """The sums of one variable ``y = 1{keep}`` (a count) or ``y = values·1{keep}`` (a total),
    read from the kept records only.

    Equal to :func:`group_sums` of that ``y``; the per-group sums are ``bincount`` over the
    kept records' codes, so a selection of few records costs little more than finding them,
    and a total of every record is kept with the frame (:meth:`Frame.prepared`), since every
    plan of that total reads the same sums.
    """
    mask = np.asarray(keep, dtype=bool)
    if mask.shape != (frame.N,):
        raise ValueError(f"keep must hold one flag per record ({frame.N})")
    if values is None:
        if mask.all():
            return frame.prepared("linear_sums_all_ones", lambda f: _kept_sums(f, None, None))
        return _kept_sums(frame, np.flatnonzero(mask), None)
    v = np.asarray(values, dtype=np.float64)
    if mask.all() and v is frame.values:
        return frame.prepared("linear_sums_values", lambda f: _kept_sums(f, None, f.values))
    idx = np.flatnonzero(mask)
    return _kept_sums(frame, idx, v[idx] if v.shape == (frame.N,) else v)


def _kept_sums(frame: Frame, idx: NDArray[np.intp] | None, w: FloatArray | None) -> GroupSums:
    """Sums over the records ``idx`` (every record when None) with weights ``w`` (1: None)."""
    w2 = None if w is None else w * w
    count = frame.N if idx is None else int(idx.size)
    total = float(count) if w is None else float(w.sum())
    square = float(count) if w2 is None else float(w2.sum())

    def per(
        codes: NDArray[np.signedinteger] | None, groups: int, wt: FloatArray | None
    ) -> FloatArray:
        assert codes is not None
        c = codes if idx is None else codes[idx]
        return np.bincount(c, weights=wt, minlength=groups).astype(np.float64).reshape(1, -1)

    st = ss = ct = None
    if frame.strata_codes is not None and frame.strata_sizes is not None:
        h = frame.strata_sizes.size
        st = per(frame.strata_codes, h, w)
        ss = st.copy() if w is None else per(frame.strata_codes, h, w2)
    if frame.cluster_codes is not None and frame.cluster_sizes is not None:
        ct = per(frame.cluster_codes, frame.cluster_sizes.size, w)
    return GroupSums(
        frame.N,
        np.array([total]),
        np.array([square]),
        frame.strata_sizes,
        st,
        ss,
        frame.cluster_sizes,
        ct,
    )


class _Recent:
    """The most recently used sums of a frame's selections, at most ``size`` of them."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.items: OrderedDict[Hashable, GroupSums] = OrderedDict()
        self.lock = threading.Lock()

    def get(self, key: Hashable, build: Callable[[], GroupSums]) -> GroupSums:
        with self.lock:
            if key in self.items:
                self.items.move_to_end(key)
                return self.items[key]
        got = build()
        with self.lock:
            self.items[key] = got
            while len(self.items) > self.size:
                self.items.popitem(last=False)
        return got


def kept_selection_sums(
    frame: Frame,
    key: Hashable,
    keep: Callable[[], NDArray[np.bool_]],
    values: bool = False,
) -> GroupSums:
    """:func:`selection_sums` of the selection named ``key``, kept with the frame.

    A plan of the same count, total or proportion at another ε_target, relation or
    mechanism reads the same sums, so they are computed once (one O(N) pass for ``keep()``
    and one over the kept records) and kept among the frame's :data:`KEPT_SELECTIONS` most
    recently used selections (each holds O(H + K) numbers).  ``key`` must name the
    selection and whether ``y`` is the value (``values``) or 1.
    """
    recent = frame.prepared("linear_selection_sums", lambda f: _Recent(KEPT_SELECTIONS))
    return recent.get(
        (key, bool(values)),
        lambda: selection_sums(frame, keep(), frame.values if values else None),
    )
