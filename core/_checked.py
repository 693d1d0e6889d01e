"""Sorted value arrays already checked once, so that checks of the same array are free.

A release on the whole population (the planner's census row) hands the mechanisms the
population's sorted values, ``N`` of them.  Each mechanism checks its input -- finite,
sorted, inside the bounds -- and the smooth sensitivity finds the runs of equal values: a
few passes over all ``N`` records per mechanism and per ε_target, seconds at ``N = 10^8``,
although the array never changes.  :func:`mark_checked` records, once, that a read-only
array is finite and sorted (with its smallest and largest value); :func:`is_checked` then
answers for the same buffer in O(1), and :func:`checked_extra` keeps what a check derived
from it (the runs) for the next call.

Only read-only, C-contiguous 1-d arrays are recorded, by a weak reference: a buffer cannot
change while it is read-only, and the record dies with the array (its address is never
taken for another array's while the weak reference is alive).  Views of a recorded array
(``values[np.newaxis, :]``, as the mechanisms' batches are) are recognised by their buffer
address, length and strides.  Private to ``core``: numpy only, no mathematics.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np
from numpy.typing import NDArray

__all__ = ["checked_extra", "is_checked", "mark_checked"]

_T = TypeVar("_T")

#: Most arrays recorded at once (the oldest record is forgotten first).
MAX_RECORDS = 16


class _Record:
    __slots__ = ("extra", "high", "low", "ref")

    def __init__(self, arr: NDArray[np.float64], low: float, high: float) -> None:
        self.ref = weakref.ref(arr)
        self.low = low
        self.high = high
        self.extra: dict[str, Any] = {}


_RECORDS: dict[tuple[int, int], _Record] = {}
_LOCK = threading.Lock()


def _key(arr: NDArray[Any]) -> tuple[int, int] | None:
    """``(buffer address, length)`` of a read-only, C-contiguous float64 array of one row."""
    if (
        not isinstance(arr, np.ndarray)
        or arr.dtype != np.float64
        or arr.flags.writeable
        or not arr.flags.c_contiguous
        or arr.size == 0
        or (arr.ndim == 2 and arr.shape[0] != 1)
        or arr.ndim not in (1, 2)
    ):
        return None
    return int(arr.__array_interface__["data"][0]), int(arr.size)


def mark_checked(values: NDArray[np.float64]) -> bool:
    """Record that ``values`` (read-only, C-contiguous, 1-d float64) is finite and sorted
    ascending, after checking it once; True if recorded (False for an array that does not
    qualify, which is then checked as usual wherever it is used).

    Raises
    ------
    ValueError
        If ``values`` qualifies but is not finite and sorted.
    """
    key = _key(values)
    if key is None or values.ndim != 1:
        return False
    with _LOCK:
        rec = _RECORDS.get(key)
        if rec is not None and rec.ref() is values:
            return True
    if not (np.isfinite(values[0]) and np.isfinite(values[-1])):
        raise ValueError("values must be finite")
    if values.size > 1 and not bool(np.all(values[1:] >= values[:-1])):
        raise ValueError("values must be sorted ascending")
    with _LOCK:
        _RECORDS[key] = _Record(values, float(values[0]), float(values[-1]))
        for stale in [k for k, r in _RECORDS.items() if r.ref() is None]:
            del _RECORDS[stale]
        while len(_RECORDS) > MAX_RECORDS:
            del _RECORDS[next(iter(_RECORDS))]
    return True


def _record(arr: Any) -> _Record | None:
    key = _key(arr)
    if key is None:
        return None
    rec = _RECORDS.get(key)
    if rec is None or rec.ref() is None:
        return None
    return rec


def is_checked(arr: Any, lower: float, upper: float) -> bool:
    """Whether ``arr`` (1-d, or one row) is a recorded array, or a view of one with the same
    buffer, whose values lie inside ``[lower, upper]``: finite, sorted and in bounds."""
    rec = _record(arr)
    return rec is not None and lower <= rec.low and rec.high <= upper


def checked_extra(arr: Any, key: str, build: Callable[[], _T]) -> _T:
    """``build()`` kept with the record of ``arr`` under ``key`` (built on the first call);
    just ``build()`` when ``arr`` is not recorded."""
    rec = _record(arr)
    if rec is None:
        return build()
    if key not in rec.extra:
        rec.extra[key] = build()
    return rec.extra[key]
