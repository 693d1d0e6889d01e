"""Compiled coverage of additive releases with Laplace noise, clamped to the public bounds.

:func:`core.planner.errors.conditional_quantile` finds a 95 % bound by a root search that
evaluates ``P(|clip(θ + e_i + b_i Z, θ + below, θ + above) − θ| ≤ x)`` for every sample at
some fifty ``x``; on the few hundred samples of a plan, numpy's passes over such short arrays
cost more than the arithmetic.  :func:`laplace_coverage` is the same closed form as
:func:`core.mechanisms.clamping.clamped_abs_coverage` with the Laplace(0, 1) CDF, written as
one loop over the samples and compiled by numba when it is installed (without numba the
numpy version runs, and :data:`COMPILED` is False).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..mechanisms.base import Mechanism
from ..mechanisms.clamping import clamped_abs_coverage, laplace_cdf
from ..mechanisms.clamping import laplace_cdf_one as _lap_cdf

try:  # numba is optional: without it the numpy version runs instead.
    import numba as _numba
except ImportError:  # pragma: no cover - exercised only where numba is missing
    _numba = None  # type: ignore[assignment]

__all__ = [
    "COMPILED",
    "LaplaceCoverage",
    "coverage_per_row",
    "is_laplace",
    "laplace_coverage",
    "law_mean_coverage",
    "mean_coverage",
]

FloatArray = NDArray[np.float64]

#: Whether :func:`laplace_coverage` is compiled.
COMPILED = _numba is not None


def _coverage_rows(
    x: float,
    err: FloatArray,
    scale: FloatArray,
    fixed: FloatArray,
    below: float,
    above: float,
    out: FloatArray,
) -> None:
    """Write ``P(|clamped error_i| ≤ x)`` of every sample to ``out`` (a sample without noise
    releases its clamped error ``fixed_i`` exactly)."""
    top = x >= above
    bottom = -x <= below
    for i in range(err.size):
        b = scale[i]
        if b > 0.0:
            hi = 1.0 if top else _lap_cdf((x - err[i]) / b)
            lo = 0.0 if bottom else _lap_cdf((-x - err[i]) / b)
        else:
            hi = 1.0 if top or fixed[i] <= x else 0.0
            lo = 0.0 if bottom or not fixed[i] < -x else 1.0
        out[i] = hi - lo


def _coverage_mean(
    x: float,
    err: FloatArray,
    scale: FloatArray,
    fixed: FloatArray,
    below: float,
    above: float,
    out: FloatArray,
) -> float:
    """The mean over the samples of :func:`_coverage_rows` (``out`` its scratch)."""
    _coverage_rows(x, err, scale, fixed, below, above, out)
    total = 0.0
    for i in range(out.size):
        total += out[i]
    return total / out.size


if _numba is not None:
    _coverage_rows = _numba.njit(cache=True, nogil=True)(_coverage_rows)
    _coverage_mean = _numba.njit(cache=True, nogil=True)(_coverage_mean)


class LaplaceCoverage:
    """The coverage of clamped releases with Laplace noise as a function of ``x``: per
    sample when called, and their mean by :meth:`mean` (one compiled pass each)."""

    def __init__(self, err: FloatArray, scale: FloatArray, below: float, above: float) -> None:
        self.err, self.scale = err, scale
        self.fixed = np.clip(err, below, above)
        self.below, self.above = float(below), float(above)
        self._scratch = np.empty(err.size)

    def __call__(self, x: float) -> FloatArray:
        out = np.empty(self.err.size)
        _coverage_rows(float(x), self.err, self.scale, self.fixed, self.below, self.above, out)
        return out

    def mean(self, x: float) -> float:
        """The mean over the samples of the coverage at ``x``."""
        args = (self.err, self.scale, self.fixed, self.below, self.above, self._scratch)
        return float(_coverage_mean(float(x), *args))


def is_laplace(cdf: Callable[[FloatArray], FloatArray]) -> bool:
    """Whether ``cdf`` is the base class's Laplace(0, 1) CDF (a mechanism's bound method)."""
    return getattr(cdf, "__func__", None) is Mechanism.standard_noise_cdf


def laplace_coverage(
    err: ArrayLike, scale: ArrayLike, below: float = -math.inf, above: float = math.inf
) -> Callable[[float], FloatArray]:
    """:func:`core.mechanisms.clamping.clamped_abs_coverage` with Laplace(0, 1) noise, as
    one compiled loop over the samples (numpy's version without numba)."""
    e = np.ascontiguousarray(err, dtype=np.float64).reshape(-1)
    b = np.ascontiguousarray(np.broadcast_to(np.asarray(scale, dtype=np.float64), e.shape))
    if not COMPILED or not e.size:  # pragma: no cover - numba is a pinned dependency
        return clamped_abs_coverage(e, b, laplace_cdf, below, above)
    return LaplaceCoverage(e, b, below, above)


def mean_coverage(per_row: Callable[[float], FloatArray]) -> Callable[[float], float]:
    """The mean over the samples of ``per_row(x)`` (:func:`coverage_per_row`), in one
    compiled pass where it has one."""
    if isinstance(per_row, LaplaceCoverage):
        return per_row.mean

    def mean(x: float) -> float:
        return float(per_row(x).mean())

    return mean


def law_mean_coverage(law: Any, theta: float) -> Callable[[float], float]:
    """``x ↦ mean_i P_i(|release − θ| ≤ x)`` of a law given each sample, in one compiled
    pass where the law has one (:meth:`core.mechanisms.SumCountLaw.mean_coverage`)."""
    own = getattr(law, "mean_coverage", None)
    if own is not None:
        return lambda x: float(own(x, theta))
    return lambda x: float(np.mean(law.coverage(x, theta)))


def coverage_per_row(
    err: FloatArray,
    scale: FloatArray,
    cdf: Callable[[FloatArray], FloatArray],
    below: float = -math.inf,
    above: float = math.inf,
) -> Callable[[float], FloatArray]:
    """:func:`core.mechanisms.clamping.clamped_abs_coverage`, compiled for Laplace noise
    (:func:`laplace_coverage`)."""
    if COMPILED and is_laplace(cdf):
        return laplace_coverage(err, scale, below, above)
    return clamped_abs_coverage(err, scale, cdf, below, above)
