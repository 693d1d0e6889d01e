"""The law of a release clamped to the public bounds, in closed form.

Every release is clamped to the public bounds ``[lower, upper]``: ``clip(θ̂ + b Z, L, U)``
(:meth:`core.mechanisms.Mechanism.clamped_release`).  The law of the clamped error
``e = clip(t + b Z, L, U) − t`` given the sample's statistic ``t`` is closed form for Laplace
and Gaussian noise: with ``α = (L − t)/b``, ``β = (U − t)/b``, ``F`` the noise CDF and
``M_k(z) = E[Z^k; Z ≤ z]`` its partial moments,

.. math::

    E[clip(Z, α, β)^k] = α^k F(α) + β^k (1 − F(β)) + M_k(β) − M_k(α),

and ``E[e^k] = b^k E[clip(Z, α, β)^k]`` (:func:`clip_moments`).  For Laplace(0, 1),
``M_1(z) = e^z (z − 1)/2`` and ``M_2(z) = e^z (z^2 − 2z + 2)/2`` for ``z ≤ 0``;
``M_1(z) = −e^{−z}(z + 1)/2`` and ``M_2(z) = 2 − e^{−z}(z^2 + 2z + 2)/2`` for ``z > 0``
(:func:`laplace_partial_moments`; integration by parts; the Gaussian's, ``M_1 = −φ``,
``M_2 = Φ − zφ``, are in :class:`core.mechanisms.GaussianMean`).  The CDF of ``|e|`` is
:func:`clamped_abs_cdf`.

The Laplace(0, 1) CDF is written once here, for arrays (:func:`laplace_cdf`) and for one
number in compiled loops (:func:`laplace_cdf_one`); :func:`laplace_clamped_moments` is
:func:`clip_moments` with Laplace noise as one compiled loop over the rows (a plan's
releases are a few hundred rows each, where numpy's passes cost more than the arithmetic).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..sensitivity.checks import _njit

__all__ = [
    "clamped_abs_cdf",
    "clamped_abs_coverage",
    "clip_moments",
    "laplace_cdf",
    "laplace_cdf_one",
    "laplace_clamped_moments",
    "laplace_partial_moments",
    "symmetric_partial_moments",
]

FloatArray = NDArray[np.float64]


def laplace_cdf(z: ArrayLike) -> FloatArray:
    """``P(Z ≤ z)`` for ``Z ~ Laplace(0, 1)``, elementwise, without cancellation in either
    tail: ``e^z / 2`` for ``z < 0`` and ``1 − e^{−z} / 2`` otherwise."""
    zz = np.asarray(z, dtype=np.float64)
    tail = 0.5 * np.exp(-np.abs(zz))
    return np.asarray(np.where(zz < 0, tail, 1.0 - tail), dtype=np.float64)


def laplace_cdf_one(z: float) -> float:
    """:func:`laplace_cdf` of one number (compiled, for the compiled loops that call it)."""
    tail = 0.5 * math.exp(-abs(z))
    return tail if z < 0.0 else 1.0 - tail


def _laplace_partial_one(z: float) -> tuple[float, float]:
    """:func:`laplace_partial_moments` of one number."""
    zz = min(max(z, -1e3), 1e3)
    w = math.exp(-abs(zz))
    if zz <= 0.0:
        return 0.5 * w * (zz - 1.0), 0.5 * w * (zz * zz - 2.0 * zz + 2.0)
    return -0.5 * w * (zz + 1.0), 2.0 - 0.5 * w * (zz * zz + 2.0 * zz + 2.0)


def _laplace_clamped_rows(
    t: FloatArray, b: FloatArray, lower: float, upper: float, mean: FloatArray, second: FloatArray
) -> None:
    """Write :func:`laplace_clamped_moments` of every row to ``mean`` and ``second``."""
    for i in range(t.size):
        ti, bi = t[i], b[i]
        if not bi > 0.0:  # no noise: the clamped statistic exactly
            fixed = min(max(ti, lower), upper) - ti
            mean[i] = fixed
            second[i] = fixed * fixed
            continue
        a, c = (lower - ti) / bi, (upper - ti) / bi
        a_fin = a if math.isfinite(a) else 0.0
        c_fin = c if math.isfinite(c) else 0.0
        fa = laplace_cdf_one(a_fin) if math.isfinite(a) else (1.0 if a > 0.0 else 0.0)
        sc = 1.0 - laplace_cdf_one(c_fin) if math.isfinite(c) else (0.0 if c > 0.0 else 1.0)
        m1a, m2a = _laplace_partial_one(a_fin)
        m1c, m2c = _laplace_partial_one(c_fin)
        if not math.isfinite(a):
            m1a, m2a = 0.0, (2.0 if a > 0.0 else 0.0)
        if not math.isfinite(c):
            m1c, m2c = 0.0, (2.0 if c > 0.0 else 0.0)
        first = a_fin * fa + c_fin * sc + m1c - m1a
        # (α √F)² rather than α² F: α² overflows for a noise scale far below the range.
        square = (a_fin * math.sqrt(fa)) ** 2 + (c_fin * math.sqrt(sc)) ** 2 + m2c - m2a
        mean[i] = bi * first
        second[i] = bi * bi * square


laplace_cdf_one = _njit(laplace_cdf_one)
_laplace_partial_one = _njit(_laplace_partial_one)
_laplace_clamped_rows = _njit(_laplace_clamped_rows)


def laplace_clamped_moments(
    statistic: ArrayLike, scale: ArrayLike, lower: float, upper: float
) -> tuple[FloatArray, FloatArray]:
    """``E[e]`` and ``E[e²]`` per row for ``e = clip(t + b Z, L, U) − t``, ``Z ~ Laplace(0,
    1)`` (:func:`clip_moments` with :func:`laplace_partial_moments`; a row with ``b = 0``
    has ``e = clip(t, L, U) − t`` exactly), in one pass over the rows."""
    t = np.ascontiguousarray(statistic, dtype=np.float64).reshape(-1)
    b = np.ascontiguousarray(np.broadcast_to(np.asarray(scale, dtype=np.float64), t.shape))
    mean, second = np.empty(t.size), np.empty(t.size)
    _laplace_clamped_rows(t, b, float(lower), float(upper), mean, second)
    shape = np.shape(statistic)
    return mean.reshape(shape), second.reshape(shape)


def clamped_abs_cdf(
    x: float,
    err: FloatArray,
    scale: FloatArray,
    cdf: Callable[[FloatArray], FloatArray],
    below: float = -math.inf,
    above: float = math.inf,
) -> FloatArray:
    """``P(|clip(θ + e_i + b_i Z, θ + below, θ + above) − θ| ≤ x)`` per row.

    The error of a release clamped to the public bounds, about a value ``θ`` inside them
    (``below = L − θ ≤ 0 ≤ above = U − θ``): the release before clamping is ``θ + e_i +
    b_i Z``, with ``Z`` of CDF ``cdf``.  The clamped error ``c`` has CDF 0 below ``below``,
    ``F((y − e_i)/b_i)`` between the bounds and 1 from ``above`` on, so
    ``P(|c| ≤ x) = P(c ≤ x) − P(c < −x)`` with ``P(c ≤ x) = 1`` for ``x ≥ above`` and
    ``P(c < −x) = 0`` for ``−x ≤ below``.  A row with ``b_i = 0`` releases
    ``clip(e_i, below, above)`` exactly.  Infinite bounds give the unclamped law.
    """
    return clamped_abs_coverage(err, scale, cdf, below, above)(x)


def clamped_abs_coverage(
    err: FloatArray,
    scale: FloatArray,
    cdf: Callable[[FloatArray], FloatArray],
    below: float = -math.inf,
    above: float = math.inf,
) -> Callable[[float], FloatArray]:
    """:func:`clamped_abs_cdf` as a function of ``x`` alone: what does not depend on ``x``
    (the rows without noise, their clamped errors) is found once, for a root search that
    evaluates the coverage at many ``x``."""
    e = np.asarray(err, dtype=np.float64)
    b = np.asarray(scale, dtype=np.float64)
    positive = b > 0
    every = bool(positive.all())
    safe = b if every else np.where(positive, b, 1.0)
    fixed = np.clip(e, below, above)

    def coverage(x: float) -> FloatArray:
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            hi = cdf((x - e) / safe)
            lo = cdf((-x - e) / safe)
            if not every:
                hi = np.where(positive, hi, (fixed <= x).astype(float))
                lo = np.where(positive, lo, (fixed < -x).astype(float))
        if x >= above:
            hi = np.ones_like(hi)
        if -x <= below:
            lo = np.zeros_like(lo)
        return np.asarray(hi - lo, dtype=np.float64)

    return coverage


def clip_moments(
    alpha: FloatArray,
    beta: FloatArray,
    cdf: Callable[[FloatArray], FloatArray],
    partial: Callable[[FloatArray], tuple[FloatArray, FloatArray]],
    second: float,
) -> tuple[FloatArray, FloatArray]:
    """``E[clip(Z, α, β)]`` and ``E[clip(Z, α, β)^2]`` for ``α ≤ β`` (module docstring).

    ``partial(z)`` gives ``(M_1(z), M_2(z))``; ``second = E[Z^2]``.  Infinite ``α`` or
    ``β`` are allowed (no clamping on that side).
    """
    a = np.asarray(alpha, dtype=np.float64)
    c = np.asarray(beta, dtype=np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        a_fin = np.where(np.isfinite(a), a, 0.0)
        c_fin = np.where(np.isfinite(c), c, 0.0)
        Fa = np.where(np.isfinite(a), cdf(a_fin), np.where(a > 0, 1.0, 0.0))
        Sc = np.where(np.isfinite(c), 1.0 - cdf(c_fin), np.where(c > 0, 0.0, 1.0))
        m1a, m2a = partial(a_fin)
        m1c, m2c = partial(c_fin)
        m1a = np.where(np.isfinite(a), m1a, 0.0)
        m2a = np.where(np.isfinite(a), m2a, np.where(a > 0, second, 0.0))
        m1c = np.where(np.isfinite(c), m1c, 0.0)
        m2c = np.where(np.isfinite(c), m2c, np.where(c > 0, second, 0.0))
        first = a_fin * Fa + c_fin * Sc + m1c - m1a
        # (α √F)² rather than α² F: α² overflows for a noise scale far below the range.
        square = (a_fin * np.sqrt(Fa)) ** 2 + (c_fin * np.sqrt(Sc)) ** 2 + m2c - m2a
    return np.asarray(first, dtype=np.float64), np.asarray(square, dtype=np.float64)


def laplace_partial_moments(z: ArrayLike) -> tuple[FloatArray, FloatArray]:
    """``(E[Z; Z ≤ z], E[Z^2; Z ≤ z])`` for ``Z ~ Laplace(0, 1)`` (module docstring)."""
    # Past |z| = 1000 every e^{-|z|} term is 0: clip so that z² cannot overflow into NaN.
    zz = np.clip(np.asarray(z, dtype=np.float64), -1e3, 1e3)
    w = np.exp(-np.abs(zz))
    m1 = np.where(zz <= 0, 0.5 * w * (zz - 1.0), -0.5 * w * (zz + 1.0))
    left = 0.5 * w * (zz * zz - 2.0 * zz + 2.0)
    right = 2.0 - 0.5 * w * (zz * zz + 2.0 * zz + 2.0)
    m2 = np.where(zz <= 0, left, right)
    return np.asarray(m1, dtype=np.float64), np.asarray(m2, dtype=np.float64)


def symmetric_partial_moments(
    z: ArrayLike,
    tail1: Callable[[FloatArray], FloatArray],
    tail2: Callable[[FloatArray], FloatArray],
    second: float,
) -> tuple[FloatArray, FloatArray]:
    """``(M_1(z), M_2(z))`` of a symmetric noise from its upper tail moments
    ``T_k(a) = E[Z^k; Z > a]`` (``a >= 0``): ``M_1(z) = −T_1(|z|)``, and ``M_2(z) =
    T_2(|z|)`` for ``z <= 0``, ``E[Z^2] − T_2(z)`` for ``z > 0``."""
    zz = np.asarray(z, dtype=np.float64)
    a = np.abs(zz)
    t2 = tail2(a)
    m2 = np.where(zz <= 0, t2, second - t2)
    return np.asarray(-tail1(a), dtype=np.float64), np.asarray(m2, dtype=np.float64)
