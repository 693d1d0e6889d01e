"""When two errors are the same number, and which of tied rows the planner picks.

The 95 % bounds of the planner are roots found by a search (:mod:`core.planner.errors`). A
release clamped to the public bounds has atoms there, so its coverage jumps where the error
reaches a bound, and many rows share that bound exactly: every rate at which the noise is
wide enough, say, has the bound ``U − θ``. The search that brackets the jump first returns
the jump itself; Brent's method returns a number within its tolerance of it (about
``1e-14`` of its bracket plus ``1e-13`` relative), on either side. Picking the smallest
of such numbers would let those last digits choose the rate the refinement keeps.

**The rule.** Two errors are *the same* when they differ by at most :data:`TIE_RTOL`
relative (:func:`same`; infinities equal themselves, NaN equals nothing). ``TIE_RTOL`` is
far above any root search's tolerance and far below any difference a Monte Carlo estimate
of 200 repetitions can resolve. Among rows whose objective is the same as the least, the
planner takes the first in its fixed order, the smallest rate of a design and mechanism
(:func:`first_least`), and ranks rows by their objective with tied rows kept in that order
(:func:`ranked`). A tie therefore resolves the same way whichever search found the bounds,
and a change of the search's tolerance cannot change a pick.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

__all__ = ["TIE_RTOL", "first_least", "ranked", "reaches", "same"]

#: Relative difference up to which two errors are the same number (module docstring).
TIE_RTOL = 1e-9


def same(a: float, b: float) -> bool:
    """Whether ``a`` and ``b`` are the same error: ``|a − b| ≤ TIE_RTOL · max(|a|, |b|)``."""
    if a == b:
        return True  # equal infinities too
    if math.isnan(a) or math.isnan(b) or math.isinf(a) or math.isinf(b):
        return False
    return abs(a - b) <= TIE_RTOL * max(abs(a), abs(b))


def reaches(error: float, target: float) -> bool:
    """Whether ``error`` is at most ``target`` or the same number (:func:`same`)."""
    return error <= target or same(error, target)


def first_least(values: Sequence[float]) -> int:
    """The index of the first value that is the same as the least (NaN skipped).

    Raises
    ------
    ValueError
        When every value is NaN (as :func:`numpy.nanargmin`).
    """
    xs = [float(v) for v in values]
    known = [x for x in xs if not math.isnan(x)]
    if not known:
        raise ValueError("first_least: every value is NaN")
    least = min(known)
    return next(i for i, x in enumerate(xs) if not math.isnan(x) and same(x, least))


def ranked(values: Sequence[float]) -> list[int]:
    """Indices of ``values`` from the least, tied values kept in their given order.

    Each step takes the first remaining value that is the same as the least remaining one
    (:func:`first_least`); NaN values come last, in their order. Without ties this is the
    stable sort.
    """
    xs = [float(v) for v in values]
    left = [i for i, x in enumerate(xs) if not math.isnan(x)]
    out: list[int] = []
    while left:
        k = first_least([xs[i] for i in left])
        out.append(left.pop(k))
    return out + [i for i, x in enumerate(xs) if math.isnan(x)]
