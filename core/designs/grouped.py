"""The records' positions grouped by a code: a stable sort by code, in a narrow type, in one pass.

Invariant: :func:`grouped_positions` returns exactly
``numpy.argsort(codes, kind="stable").astype(dtype)``: the positions of code 0 in increasing
order, then those of code 1, and so on.  A counting sort (each record written once, at its
group's next free slot, in index order) writes them straight into ``dtype``, where the
argsort first keeps an int64 per record beside its narrow copy: at ``N = 10^8`` that was
another 800 MB at the preparation's peak (:class:`core.designs.cluster_windows.ClusterIndex`,
:class:`core.designs.stratified_windows.StrataIndex`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

try:  # numba is optional: without it the argsort runs instead.
    import numba as _numba
except ImportError:  # pragma: no cover - exercised only where numba is missing
    _numba = None  # type: ignore[assignment]

__all__ = ["group_sizes", "grouped_positions"]


def _fill(codes: NDArray[np.integer], cursor: NDArray[np.int64], out: NDArray[Any]) -> None:
    """``out[cursor[c]] = i`` and ``cursor[c] += 1`` for every record ``i`` of code ``c``,
    in index order: each group's positions land ascending in its own slice."""
    for i in range(codes.shape[0]):
        c = codes[i]
        out[cursor[c]] = i
        cursor[c] += 1


def _tally(codes: NDArray[np.integer], counts: NDArray[np.int64]) -> None:
    """``counts[c] += 1`` for every record of code ``c``."""
    for i in range(codes.shape[0]):
        counts[codes[i]] += 1


if _numba is not None:
    _fill = _numba.njit(cache=True, nogil=True)(_fill)
    _tally = _numba.njit(cache=True, nogil=True)(_tally)


def group_sizes(codes: NDArray[np.integer], minlength: int = 0) -> NDArray[np.int64]:
    """``numpy.bincount(codes, minlength=minlength)`` (records per code), without its copy
    of the codes as int64 (``bincount`` converts them first: 8 bytes per record).

    ``codes`` must be non-negative integers, not checked here (the callers check the
    smallest first).
    """
    if _numba is None or codes.size == 0:  # pragma: no cover - numba missing
        return np.bincount(codes, minlength=minlength).astype(np.int64)
    counts = np.zeros(max(int(codes.max()) + 1, minlength), dtype=np.int64)
    _tally(np.ascontiguousarray(codes), counts)
    return counts


def grouped_positions(
    codes: NDArray[np.integer], offsets: NDArray[np.int64], dtype: type[np.integer[Any]]
) -> NDArray[Any]:
    """``numpy.argsort(codes, kind="stable")`` as an array of ``dtype``, without its int64.

    Parameters
    ----------
    codes : ndarray of int, shape (N,)
        Group of each record, ``0 <= codes < H`` (not checked here: the callers count the
        groups first, with :func:`group_sizes`).
    offsets : ndarray of int64, shape (H + 1,)
        ``0`` then the running totals of the groups' sizes (``offsets[h + 1] - offsets[h]``
        records of code ``h``).
    dtype : numpy integer type
        Holds ``0 .. N - 1``.

    Returns
    -------
    ndarray of dtype, shape (N,)
        Group ``h``'s positions, ascending, at ``offsets[h] : offsets[h + 1]``.
    """
    if _numba is None:  # pragma: no cover - exercised only where numba is missing
        return np.argsort(codes, kind="stable").astype(dtype)
    out = np.empty(codes.size, dtype=dtype)
    _fill(np.ascontiguousarray(codes), offsets[:-1].astype(np.int64), out)
    return out
