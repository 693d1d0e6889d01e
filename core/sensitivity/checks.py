"""Argument checks shared by the sensitivity modules, and the optional numba compiler.

``_check_data`` validates values against the public bounds once (a compiled scan when numba
is present); ``_njit`` compiles a kernel with numba's on-disk cache, or returns it unchanged
when numba is missing (:data:`HAVE_NUMBA`).
"""

from __future__ import annotations

import numpy as np

from .._checked import is_checked
from .._validation import (
    FloatArray,
    check_delta_open,
    describe_bad,
    finite_scalar,
    require,
)

try:  # numba is optional: without it the numpy fallback below is used.
    import numba as _numba
except ImportError:  # pragma: no cover - exercised only where numba is missing
    _numba = None  # type: ignore[assignment]

HAVE_NUMBA: bool = _numba is not None


def _njit(func):
    """Compile ``func`` lazily with numba (cached on disk), or return it unchanged."""
    if _numba is None:  # pragma: no cover
        return func
    return _numba.njit(cache=True, nogil=True)(func)


# ---------------------------------------------------------------------------------------
# Validation
# ---------------------------------------------------------------------------------------


def _check_eps_delta(eps: float, delta: float) -> tuple[float, float]:
    e = finite_scalar("eps", eps)
    require("eps", np.asarray(e), e > 0, "a finite number > 0")
    return e, check_delta_open("delta", delta)


def _check_data(
    arr: FloatArray,
    lower: float,
    upper: float,
    *,
    sorted_: bool,
    name: str,
    report: FloatArray | None = None,
) -> None:
    """Finite, inside [lower, upper] and (if ``sorted_``) non-decreasing along the last axis.

    With numba a compiled single pass answers "all valid?"; the numpy checks below, which
    write the error message (about ``report`` if given), run only when it says no.
    """
    if is_checked(arr, lower, upper):  # the population, checked once
        return
    if (
        _numba is not None
        and arr.ndim in (1, 2)
        and arr.size > 0
        and arr.flags.c_contiguous
        and arr.flags.writeable
        and _all_valid(arr.reshape(1, -1) if arr.ndim == 1 else arr, lower, upper, sorted_)
    ):
        return
    if report is not None:  # e.g. the caller's unsorted values, for indices in the message
        arr = report
    if not np.isfinite(arr).all():
        raise ValueError(f"{name} must be finite; {describe_bad(arr, ~np.isfinite(arr))}")
    outside = (arr < lower) | (arr > upper)
    if outside.any():
        raise ValueError(
            f"{name} must lie inside the public bounds [lower, upper] = [{lower!r}, {upper!r}]; "
            f"{describe_bad(arr, outside)}. Clip the data to the bounds or widen them."
        )
    if sorted_ and arr.shape[-1] > 1:
        descending = np.zeros(arr.shape, dtype=bool)
        descending[..., 1:] = arr[..., 1:] < arr[..., :-1]
        if descending.any():
            raise ValueError(
                f"{name} must be sorted in non-decreasing order (assume_sorted / *_sorted input); "
                f"a value drops below its predecessor: {describe_bad(arr, descending)}"
            )


def _all_valid(a: FloatArray, lower: float, upper: float, check_sorted: bool) -> bool:
    """True if every row of ``a`` lies in [lower, upper] (NaN does not) and, if asked, is sorted.

    Each row is read without a branch per value (the compiled loops are vectorised), and
    the answer is given at the end of the first row that fails.
    """
    reps, n = a.shape
    for r in range(reps):
        bad = False
        for k in range(n):
            x = a[r, k]
            bad |= not (x >= lower)
            bad |= not (x <= upper)
        if check_sorted:
            for k in range(1, n):
                bad |= a[r, k] < a[r, k - 1]
        if bad:
            return False
    return True


if _numba is not None:
    _all_valid = _njit(_all_valid)
