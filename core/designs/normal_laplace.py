"""The bound ``x`` with ``P(|sampling error + noise| ≤ x) = level``, sampling error normal.

A private mean's error is its sampling error plus independent noise.  Taking the sampling
error as ``Normal(bias, σ²)``, the error is Gaussian when the noise is Gaussian, and follows
the normal–Laplace law (Reed 2006) when the noise is Laplace with scale ``b``, whose tail is
closed form.  It is computed with the scaled complementary error function ``erfcx`` so that
neither a tiny ``b`` nor a tiny ``σ`` (nor ``σ = 0``, ``b = 0``) overflows, and the bound is
found by Brent's method on a bracket.  Used by :mod:`core.designs.mean_error` and the
planner's closed-form mean rows.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import special
from scipy.optimize import brentq

from .._validation import finite_scalar

__all__ = [
    "error_bound",
    "normal_abs_quantile",
    "normal_laplace_abs_quantile",
    "normal_laplace_tail",
]

FloatArray = NDArray[np.float64]
_SQRT2 = math.sqrt(2.0)


def _tail_nonnegative(t: FloatArray, sigma: float, b: float) -> FloatArray:
    """``P(G + L > t)`` for ``t >= 0``, ``G ~ N(0, σ²)``, ``L ~ Laplace(0, b)``.

    With ``u = t/σ``, ``ρ = σ/b``, ``w = u − ρ``, ``z = u + ρ``::

        P(G + L > t) = Φ(−u) + ½ e^{ρ²/2 − t/b} Φ(w) − ½ e^{ρ²/2 + t/b} Φ(−z)

    (take the expectation over ``G`` of the Laplace tail; ``E[e^{G/b} 1{G ≤ t}] =
    e^{σ²/(2b²)} Φ(t/σ − σ/b)``).  The products of a huge exponential and a tiny normal
    tail are written with ``erfcx(v) = e^{v²} erfc(v)`` for ``v >= 0``:
    ``e^{ρ²/2 + t/b} Φ(−z) = ½ erfcx(z/√2) e^{−u²/2}`` and, when ``w <= 0``,
    ``e^{ρ²/2 − t/b} Φ(w) = ½ erfcx(−w/√2) e^{−u²/2}``; when ``w > 0`` the exponent
    ``ρ²/2 − t/b = −ρ (w + ρ/2)`` is negative and the plain form is safe.
    """
    if b == 0.0:
        return np.asarray(special.ndtr(-t / sigma), dtype=np.float64)
    if sigma == 0.0:
        return np.asarray(0.5 * np.exp(-t / b), dtype=np.float64)
    rho = sigma / b
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        u = t / sigma
        w = u - rho
        gauss = np.exp(-0.5 * u * u)
        out = np.asarray(special.ndtr(-u), dtype=np.float64)
        out = out - 0.25 * special.erfcx((u + rho) / _SQRT2) * gauss
        low = w <= 0.0
        out[low] += 0.25 * special.erfcx(-w[low] / _SQRT2) * gauss[low]
        high = ~low
        tt, wh = t[high], w[high]
        exponent = 0.5 * rho * rho - tt / b if rho <= 1.0 else -rho * (wh + 0.5 * rho)
        out[high] += 0.5 * np.exp(exponent) * special.ndtr(wh)
    return np.asarray(np.clip(out, 0.0, 0.5), dtype=np.float64)


def normal_laplace_tail(x: ArrayLike, sigma: float, b: float) -> FloatArray:
    """``P(G + L > x)`` for ``G ~ N(0, σ²)`` and ``L ~ Laplace(0, b)`` independent.

    The upper tail of the normal–Laplace convolution (Reed 2006), in closed form; the
    formula and its overflow-free evaluation with ``erfcx`` are in the source of the helper
    it calls.  ``σ = 0`` gives the Laplace tail ``½ e^{−x/b}`` and ``b = 0`` the normal tail
    ``Φ(−x/σ)``.  For negative ``x`` the symmetry ``P(E > x) = 1 − P(E > −x)`` is used.

    Parameters
    ----------
    x : array_like
        Points, finite.
    sigma, b : float
        Scales, finite and >= 0, not both 0.

    Returns
    -------
    ndarray
        The tail probabilities, shape of ``x``.
    """
    s = finite_scalar("sigma", sigma)
    bb = finite_scalar("b", b)
    if s < 0 or bb < 0 or (s == 0 and bb == 0):
        raise ValueError(f"sigma and b must be >= 0 and not both 0; got {sigma!r}, {b!r}")
    arr = np.asarray(x, dtype=np.float64)
    flat = arr.reshape(-1)
    tail = _tail_nonnegative(np.abs(flat), s, bb)
    out = np.where(flat >= 0, tail, 1.0 - tail)
    return np.asarray(out.reshape(arr.shape), dtype=np.float64)


def _abs_quantile(tail: Callable[[FloatArray], FloatArray], level: float, mean: float) -> float:
    """``x`` with ``P(|mean + E| <= x) = level`` for a symmetric ``E`` of unit-order scale.

    ``tail(t)`` is ``P(E > t)`` for ``t >= 0`` (a callable on arrays); the coverage
    ``1 − P(E > x − mean) − P(E > x + mean)`` is increasing in ``x``.
    """

    def upper(t: float) -> float:
        value = float(tail(np.array([abs(t)]))[0])
        return value if t >= 0 else 1.0 - value

    def gap(x: float) -> float:
        return 1.0 - upper(x - mean) - upper(x + mean) - level

    top = abs(mean) + 16.0
    while gap(top) < 0.0:
        top *= 2.0
    if gap(0.0) >= 0.0:
        return 0.0
    return float(brentq(gap, 0.0, top, xtol=1e-300, rtol=4.0 * np.finfo(float).eps, maxiter=500))


def check_level(level: float) -> float:
    lv = finite_scalar("level", level)
    if not 0.0 < lv < 1.0:
        raise ValueError(f"level must be in (0, 1); got {level!r}")
    return lv


def normal_laplace_abs_quantile(level: float, sigma: float, b: float, mean: float = 0.0) -> float:
    """``x`` with ``P(|μ + G + L| <= x) = level``, ``G ~ N(0, σ²)``, ``L ~ Laplace(0, b)``.

    Solved by Brent's method in units of ``max(σ, b)`` (so that any overall scale, and any
    ratio ``σ / b`` including 0 and infinity, is handled alike) on the exact coverage
    ``1 − T(x − μ) − T(x + μ)``, ``T`` :func:`normal_laplace_tail`.

    Parameters
    ----------
    level : float
        In (0, 1).
    sigma, b : float
        Scales >= 0 (both 0: the error is the constant ``μ``, and ``|μ|`` is returned).
    mean : float, default 0
        ``μ``, the mean of the error.

    Returns
    -------
    float
    """
    lv = check_level(level)
    s = finite_scalar("sigma", sigma)
    bb = finite_scalar("b", b)
    mu = finite_scalar("mean", mean)
    if s < 0 or bb < 0:
        raise ValueError(f"sigma and b must be >= 0; got {sigma!r}, {b!r}")
    unit = max(s, bb)
    if unit == 0.0:
        return abs(mu)
    s1, b1 = s / unit, bb / unit
    return unit * _abs_quantile(lambda t: _tail_nonnegative(t, s1, b1), lv, mu / unit)


def normal_abs_quantile(level: float, sd: float, mean: float = 0.0) -> float:
    """``x`` with ``P(|μ + sd Z| <= x) = level``, ``Z`` standard normal (``sd >= 0``).

    Closed form ``sd Φ⁻¹((1 + level) / 2)`` for ``μ = 0``, Brent's method otherwise.
    """
    lv = check_level(level)
    s = finite_scalar("sd", sd)
    mu = finite_scalar("mean", mean)
    if s < 0:
        raise ValueError(f"sd must be >= 0; got {sd!r}")
    if s == 0.0:
        return abs(mu)
    if mu == 0.0:
        return s * float(special.ndtri(0.5 + lv / 2.0))
    return s * _abs_quantile(lambda t: special.ndtr(-t), lv, mu / s)


def error_bound(
    mechanism: str, bias: float, variance: float, scale: float, level: float = 0.95
) -> tuple[float, bool]:
    """The ``level`` bound of ``|sampling error + noise|`` and whether it is exact.

    The sampling error is ``Normal(bias, variance)`` (exact when the variance is 0) and the
    noise is Gaussian (``"gaussian"``, standard deviation ``scale``) or Laplace with scale
    ``scale`` (the other mechanisms).
    """
    lv = check_level(level)
    sd = math.sqrt(variance)
    exact = variance == 0.0
    if mechanism == "gaussian":
        return normal_abs_quantile(lv, math.hypot(sd, scale), bias), exact
    if exact and bias == 0.0:  # Laplace noise alone: P(|L| <= x) = 1 − e^{−x/b}
        return -scale * math.log1p(-lv), exact
    return normal_laplace_abs_quantile(lv, sd, scale, bias), exact
