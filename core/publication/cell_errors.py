"""The 95 % error bound of many cells at once: a normal sampling error plus one noise law.

Every cell of a frequency table is released as ``w (Σ_{S∩c} y + Z_c)``: its error is the
design's sampling error ``E_c`` (mean 0, variance ``V_c``: the estimator is design-unbiased)
plus ``w Z_c``, the noise of one law for all cells.  This is a planner row's release
(:mod:`core.linear.errors`) once per cell, and the bound ``x_c`` with
``P(|E_c + w Z_c| ≤ x_c) = level`` is that module's, the one implementation of the
"normal sampling error convolved with the exact noise law": :func:`core.linear.errors.
release_error` (the normal–Laplace law in closed form for Laplace noise, the exact lattice sum
for integer noise, the noise's own quantile without sampling error).

Without sampling error (``V_c = 0``: the census, an empty cell) the bound is the noise's own
exact quantile ``w · abs_quantile(level)``.  The bound depends on the cell only through
``σ_c = √V_c``, and it is smooth and increasing in ``σ``: with more than :data:`GRID`
distinct ``σ_c`` it is computed exactly at :data:`GRID` points spaced geometrically over
their range, and its ratio to the envelope ``√((z σ)² + q₀²)`` (``z`` the normal
quantile, ``q₀`` the noise's own bound: the ratio is near 1 at both ends and smooth) is
interpolated by a cubic spline in ``log σ``; the test module checks the result against the
direct computation to 1e-4 relative, and that it stays increasing.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy import special
from scipy.interpolate import CubicSpline

from ..linear.errors import release_error
from ..linear.postprocess import exact_rounding_feasible, rounded_moments

__all__ = [
    "GRID",
    "METHOD_EXACT",
    "METHOD_NORMAL",
    "cell_error_bounds",
    "noise_abs_quantile",
    "rounded_rmse",
]

#: Points at which the bound is computed exactly when the cells have more distinct σ.
GRID = 64
#: ``error_95_method`` of a bound without sampling error (the noise's exact law).
METHOD_EXACT = "exact: the noise's own law"
#: ``error_95_method`` of a bound with sampling error.
METHOD_NORMAL = "sampling error as normal (exact variance) + the noise's exact law"


def noise_abs_quantile(mechanism: Any, parameter: float, weight: float, level: float) -> float:
    """``x`` with ``P(|w Z| ≤ x) ≥ level``: the mechanism's own quantile times ``w``."""
    return float(weight) * float(mechanism.abs_quantile(parameter, level))


def _bound_at(mechanism: Any, parameter: float, weight: float, sigma: float, level: float) -> float:
    """The bound of one cell: :func:`core.linear.errors.release_error` at ``V = σ²``."""
    if sigma == 0.0:
        return noise_abs_quantile(mechanism, parameter, weight, level)
    if not mechanism.integer and not math.isclose(
        float(mechanism.variance(parameter)), 2.0 * float(parameter) ** 2, rel_tol=1e-9
    ):
        raise ValueError(
            f"the {mechanism.name!r} mechanism is neither integer nor Laplace; its cells' "
            "error bound has no formula here"
        )
    bound, _ = release_error(mechanism, parameter, weight, sigma * sigma, level)
    return float(bound)


def cell_error_bounds(
    sampling_variance: NDArray[np.float64],
    mechanism: Any,
    parameter: float,
    weight: float,
    level: float = 0.95,
) -> tuple[NDArray[np.float64], list[str]]:
    """Each cell's ``level`` bound of ``|E_c + w Z_c|`` and how it was computed.

    Parameters
    ----------
    sampling_variance : ndarray, shape (C,)
        ``V_c``, the design variance of each cell's estimator (≥ 0).
    mechanism : LinearMechanism
        The noise (:mod:`core.linear.mechanisms`): ``abs_quantile``, and ``pmf`` when
        integer, or Laplace with scale ``parameter``.
    parameter : float
        Its parameter (scale ``b``, ``α`` or ``σ``).
    weight : float
        ``w``, the factor the noise is multiplied by in the estimator.
    level : float

    Returns
    -------
    (bounds, methods)
        The bounds, shape (C,), and per cell :data:`METHOD_EXACT` or :data:`METHOD_NORMAL`.
    """
    v = np.asarray(sampling_variance, dtype=np.float64)
    if v.ndim != 1 or not np.all(np.isfinite(v) & (v >= -1e-9 * max(1.0, float(np.abs(v).max())))):
        raise ValueError("sampling_variance must be one finite number ≥ 0 per cell")
    sd = np.sqrt(np.maximum(v, 0.0))
    out = np.empty_like(sd)
    zero = sd == 0.0
    if zero.any():
        out[zero] = noise_abs_quantile(mechanism, parameter, weight, level)
    distinct = np.unique(sd[~zero])
    if distinct.size:
        if distinct.size <= GRID:
            got = {s: _bound_at(mechanism, parameter, weight, float(s), level) for s in distinct}
            out[~zero] = [got[s] for s in sd[~zero]]
        else:
            grid = np.geomspace(distinct[0], distinct[-1], GRID)
            grid[0], grid[-1] = distinct[0], distinct[-1]
            at = np.array([_bound_at(mechanism, parameter, weight, float(s), level) for s in grid])
            # interpolate the ratio to a smooth envelope (near 1 at both ends)
            q0 = noise_abs_quantile(mechanism, parameter, weight, level)
            z = float(special.ndtri(0.5 + level / 2.0))
            curve = CubicSpline(np.log(grid), at / np.hypot(z * grid, q0))
            s = sd[~zero]
            out[~zero] = curve(np.log(s)) * np.hypot(z * s, q0)
    methods = [METHOD_EXACT if z else METHOD_NORMAL for z in zero]
    return out, methods


def rounded_rmse(
    values: NDArray[np.float64],
    sampling_variance: NDArray[np.float64],
    mechanism: Any,
    parameter: float,
    weight: float,
) -> tuple[NDArray[np.float64], list[str]]:
    """Each cell's RMSE after rounding its release to the nearest non-negative integer.

    The release ``y_c`` is post-processed to ``max(0, ⌊y_c + ½⌋)`` (a function of the release
    alone, so the guarantee holds: :mod:`core.linear.postprocess`).  Without sampling error
    (the census, an empty cell of a sample: ``y_c = θ_c + w Z_c``) the error is exact:
    :func:`core.linear.postprocess.rounded_moments`, the planner rows' own (closed form for
    Laplace noise of scale ``w b``, exact sums for integer noise).  With sampling
    error it is bounded: for ``θ ≥ 0``, ``|max(0, ⌊y + ½⌋) − θ| ≤ |y − θ| + ½`` (rounding moves
    ``y`` by at most ½, and clamping at 0 only moves it towards ``θ``), so by Minkowski's
    inequality the RMSE after rounding is at most the RMSE before plus ½.  The bound also
    serves a census whose integer noise is too wide to sum exactly
    (:func:`core.linear.postprocess.exact_rounding_feasible`).

    Returns
    -------
    (rmse, methods)
        Per cell, and ``"exact"`` or ``"bound: RMSE + ½"``.
    """
    theta = np.asarray(values, dtype=np.float64)
    v = np.maximum(np.asarray(sampling_variance, dtype=np.float64), 0.0)
    noise = weight * weight * float(mechanism.variance(parameter))
    out = np.sqrt(v + noise) + 0.5
    exact = (v == 0.0) & exact_rounding_feasible(mechanism, float(parameter))
    if exact.any():
        c = theta[exact]
        _, mse = rounded_moments(mechanism, float(parameter), c, c, weight)
        out[exact] = np.sqrt(mse)
    return out, ["exact" if e else "bound: RMSE + ½" for e in exact]
