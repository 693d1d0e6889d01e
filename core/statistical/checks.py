"""Argument checks and limits of the property-query computations (Breutigam & Reischuk).

The database size ``n``, the subsample size ``m``, the prior ``pi``, the noise multiplier
``nu`` (at least :data:`MIN_NOISE_MULTIPLIER`), and ``eps`` flattened for the vectorised
curves; each raises ``ValueError`` naming the argument and the allowed range.
"""

from __future__ import annotations

from typing import Literal, TypeAlias

import numpy as np
from numpy.typing import ArrayLike

from .._validation import (
    FloatArray,
    FloatOrArray,
    check_interval,
    check_nonnegative,
    check_whole,
    finish,
    finite_scalar,
    require,
)

__all__ = [
    "MAX_N",
    "MIN_NOISE_MULTIPLIER",
]


Mechanism: TypeAlias = Literal["none", "subsampling", "gaussian", "laplace"]
Noise: TypeAlias = Literal["gaussian", "laplace"]

#: Largest database size accepted (the computations stay exact; only time grows).
MAX_N = 10_000_000
#: Smallest noise multiplier ν accepted: below it the query is practically noiseless and the
#: Laplace ratio bound e^{1/ν} would overflow a double.
MIN_NOISE_MULTIPLIER = 0.01


def _check_n(n: object) -> int:
    return check_whole("n (number of records)", n, 1, MAX_N)


def _check_m(m: object, n: int) -> int:
    return check_whole(f"m (sample size, at most n = {n:,})", m, 1, n)


def _check_pi(pi: object, *, open_interval: bool = False) -> float:
    """The property probability π, in [0, 1] (or (0, 1) for the closed forms)."""
    value = finite_scalar("pi (property probability)", pi)
    return float(
        check_interval(
            "pi (property probability)",
            value,
            0.0,
            1.0,
            low_open=open_interval,
            high_open=open_interval,
        )
    )


def _check_nu(nu: object) -> float:
    name = "noise_multiplier (noise scale in units of 1/n)"
    value = finite_scalar(name, nu)
    require(
        name,
        np.asarray(value),
        value >= MIN_NOISE_MULTIPLIER,
        f"a finite number ≥ {MIN_NOISE_MULTIPLIER}",
    )
    return value


def _flat_eps(eps: ArrayLike) -> tuple[FloatArray, tuple[int, ...], bool]:
    """Flat float array of ε values (finite, ≥ 0), the original shape, and 'was scalar'."""
    arr = check_nonnegative("eps", eps)
    return arr.reshape(-1), arr.shape, arr.ndim == 0


def _finish_flat(flat: FloatArray, shape: tuple[int, ...], scalar: bool) -> FloatOrArray:
    return finish(np.asarray(flat).reshape(shape), scalar)
