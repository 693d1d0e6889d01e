"""Argument checks shared by the modules of :mod:`core.strata` (Bun et al. 2022, section 7).

Stratum sizes and standard deviations as vectors, a sampling rate, a random generator from a
seed, and an allocation that fits the strata; each raises ``ValueError`` with a message that
can be shown to a user as is.
"""

from __future__ import annotations

from typing import Literal, TypeAlias

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._validation import FloatArray, as_float_array, check_rate, check_seed, check_vector

IntArray: TypeAlias = NDArray[np.int64]
Rounding: TypeAlias = Literal["deterministic", "randomized"]


def _int_vector(name: str, value: ArrayLike, *, minimum: int) -> IntArray:
    """A 1-d vector of integers >= ``minimum`` (floats must be whole numbers)."""
    arr = check_vector(name, value)
    if not np.all(np.isfinite(arr)) or np.any(arr != np.floor(arr)):
        raise ValueError(f"{name} must contain whole numbers only")
    if np.any(arr < minimum):
        bad = int(np.flatnonzero(arr < minimum)[0])
        raise ValueError(f"{name} must be >= {minimum}; got {arr[bad]:g} at position {bad}")
    if np.any(arr > 2.0**53):
        raise ValueError(f"{name} is too large to count exactly")
    return arr.astype(np.int64)


def _float_vector(name: str, value: ArrayLike, size: int) -> FloatArray:
    """A 1-d vector of ``size`` finite numbers >= 0."""
    arr = as_float_array(name, value)
    if arr.shape != (size,):
        raise ValueError(f"{name} must have one entry per stratum ({size}); got shape {arr.shape}")
    if not np.all(np.isfinite(arr)) or np.any(arr < 0):
        raise ValueError(f"{name} must contain finite numbers >= 0")
    return arr


def _rate(value: object) -> float:
    arr = check_rate("rate", value)  # type: ignore[arg-type]
    if arr.ndim != 0:
        raise ValueError("rate must be a single number")
    return float(arr)


def _generator(rng: np.random.Generator | int | None) -> np.random.Generator:
    if isinstance(rng, np.random.Generator):
        return rng
    if rng is None:
        return np.random.default_rng()
    return np.random.default_rng(check_seed(rng))


def _check_allocation(sizes: IntArray, allocation: ArrayLike) -> IntArray:
    alloc = _int_vector("allocation", allocation, minimum=0)
    if alloc.shape != sizes.shape:
        raise ValueError(
            f"allocation must have one entry per stratum ({sizes.size}); got {alloc.size}"
        )
    over = np.flatnonzero(alloc > sizes)
    if over.size:
        i = int(over[0])
        raise ValueError(
            f"allocation takes {alloc[i]:,} records from stratum {i}, which has only {sizes[i]:,}"
        )
    return alloc
