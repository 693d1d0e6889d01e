"""Post-processing a released count or total: non-negative integers, cells that add up to a margin.

Both operations read the released numbers only (and public constants), never the data, so they
keep every guarantee of the release.  *Proof.*  If ``M`` is ``(ε, δ)``-DP (or ρ-zCDP) and
``g`` is any function of the output that does not look at the data, then for every set ``S``
of outcomes ``P[g(M(x)) ∈ S] = P[M(x) ∈ g⁻¹(S)] ≤ e^ε P[M(x') ∈ g⁻¹(S)] + δ`` (Dwork & Roth
2014, Proposition 2.1); Rényi divergences likewise cannot grow under a map applied to both
sides (data processing), so ρ-zCDP is kept.  Rounding ``max(0, ⌊y + ½⌋)`` is such a ``g``;
the projection onto a margin is one when the margin is itself released (or public), because
its inputs are then the released cells and the released margin.  ∎

Their errors, computed exactly from the law of the release given the statistic before noise:

* rounding: :func:`rounded_moments_discrete` (integer noise: a sum over its pmf) and
  :func:`rounded_moments_laplace` (Laplace noise: closed-form geometric series);
  :func:`rounded_moments` picks the right one for a :class:`core.linear.mechanisms.LinearMechanism`;
  :func:`rounded_coverage` gives ``P(|post − θ| ≤ x)`` from the noise's CDF;
* projection: :func:`projected_variance` (unbiased; its variance in closed form for
  independent noises).

References
----------
Dwork, C. & Roth, A. (2014). The algorithmic foundations of differential privacy,
Proposition 2.1.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .mechanisms import Laplace, LinearMechanism

__all__ = [
    "MAX_ROUNDING_SUPPORT",
    "TRUNCATION",
    "exact_rounding_feasible",
    "project_to_margin",
    "projected_variance",
    "round_nonnegative",
    "rounded_coverage",
    "rounded_moments",
    "rounded_moments_discrete",
    "rounded_moments_laplace",
]

FloatArray = NDArray[np.float64]
#: Cells × support entries summed at once by the direct path of :func:`rounded_moments_discrete`.
_CHUNK = 4_000_000
#: Noise mass an integer mechanism's support leaves out in :func:`rounded_moments`.
TRUNCATION = 1e-15
#: Most points of an integer noise's support :func:`rounded_moments` sums over.  Beyond it
#: (a noise scale above about 6,000 for the geometric law) callers use the proven bound
#: "error before rounding + ½" instead: rounding moves a release by at most ½, a
#: difference that no longer shows next to such noise.
MAX_ROUNDING_SUPPORT = 400_001


def _finite(name: str, value: ArrayLike) -> FloatArray:
    try:
        arr = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be numbers") from exc
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite numbers")
    return arr


def round_nonnegative(released: ArrayLike) -> FloatArray:
    """``max(0, ⌊y + ½⌋)`` per entry: the nearest non-negative integer, halves rounded up."""
    y = _finite("released", released)
    return np.maximum(0.0, np.floor(y + 0.5))


def rounded_coverage(
    center: ArrayLike,
    target: ArrayLike,
    x: float,
    below: Callable[[FloatArray], FloatArray],
    weight: float = 1.0,
) -> FloatArray:
    """``P(|max(0, ⌊c + wZ + ½⌋) − θ| ≤ x)`` per cell, with ``below(t) = P(Z < t)``.

    The rounded value lies in ``[lo, hi] = [⌈θ − x⌉, ⌊θ + x⌋]`` exactly when
    ``c + wZ ∈ [lo − ½, hi + ½)`` (``⌊y + ½⌋ = k ⇔ y ∈ [k − ½, k + ½)``), the lower end being
    ``−∞`` when ``lo ≤ 0`` (every negative value is rounded to 0).  ``below`` must be the
    left-continuous CDF of the noise (for integer noise ``P(Z < t)``, not ``P(Z ≤ t)``).
    """
    c, th = np.broadcast_arrays(_finite("center", center), _finite("target", target))
    if not (math.isfinite(x) and x >= 0.0) or not (math.isfinite(weight) and weight > 0.0):
        raise ValueError("the error bound and the weight must be non-negative finite numbers")
    lo = np.maximum(np.ceil(th - x), 0.0)
    hi = np.floor(th + x)
    upper = np.asarray(below((hi + 0.5 - c) / weight), dtype=np.float64)
    lower = np.where(lo <= 0.0, 0.0, np.asarray(below((lo - 0.5 - c) / weight), dtype=np.float64))
    return np.where(hi < lo, 0.0, np.clip(upper - lower, 0.0, 1.0))


def rounded_moments_discrete(
    center: ArrayLike,
    target: ArrayLike,
    support: ArrayLike,
    probs: ArrayLike,
    weight: float = 1.0,
) -> tuple[FloatArray, FloatArray]:
    """Bias and mean squared error of ``max(0, ⌊c + wZ + ½⌋)`` about ``θ``, per cell.

    ``Z`` takes the integer values ``support`` with probabilities ``probs`` (the noise's pmf
    on its truncated support, e.g. :func:`core.linear.discrete_gaussian.pmf`; mass left out
    is the caller's stated truncation).  Exact sums over the support:

    * ``w = 1``: ``⌊c + Z + ½⌋ = c' + Z`` with ``c' = ⌊c + ½⌋``, so only the noise values
      ``z < −c'`` are moved (to 0).  With ``u = c' + z``,
      ``E[(post − θ)²] = E[(c' + Z − θ)²] − Σ_{u < 0} p(z) u (u − 2θ)`` and
      ``E[post] = c' + E[Z] − Σ_{u < 0} p(z) u``; the left-tail sums are prefix sums, so the
      cells are done together in ``O(V log S)``.
    * other ``w`` (the noise scaled by an estimator's weight): the sum over the support, cells
      in chunks.
    """
    c, th = np.broadcast_arrays(_finite("center", center), _finite("target", target))
    z = _finite("support", support).ravel()
    p = _finite("probs", probs).ravel()
    if z.shape != p.shape or z.size == 0 or np.any(z != np.round(z)) or np.any(p < 0.0):
        raise ValueError("support must be whole numbers with non-negative probabilities")
    order = np.argsort(z)
    z, p = z[order], p[order]
    if not (math.isfinite(weight) and weight > 0.0):
        raise ValueError("the weight must be a positive finite number")
    shape = c.shape
    c, th = c.ravel(), th.ravel()
    if weight == 1.0:
        cp = np.floor(c + 0.5)
        m0, m1, m2 = float(p.sum()), float(p @ z), float(p @ (z * z))
        d = cp - th
        base_mean = cp * m0 + m1
        base_sq = d * d * m0 + 2.0 * d * m1 + m2
        s0 = np.concatenate(([0.0], np.cumsum(p)))
        s1 = np.concatenate(([0.0], np.cumsum(p * z)))
        s2 = np.concatenate(([0.0], np.cumsum(p * z * z)))
        j = np.searchsorted(z, -cp, side="left")  # z[:j] < −c'
        t0, t1, t2 = s0[j], s1[j], s2[j]
        tail_u = cp * t0 + t1  # Σ p u over the tail
        tail_uu = cp * cp * t0 + 2.0 * cp * t1 + t2  # Σ p u²
        mean = base_mean - tail_u
        mse = base_sq - (tail_uu - 2.0 * th * tail_u)
    else:
        mean = np.empty(c.size)
        mse = np.empty(c.size)
        step = max(1, _CHUNK // z.size)
        for i in range(0, c.size, step):
            post = np.maximum(0.0, np.floor(c[i : i + step, None] + weight * z + 0.5))
            mean[i : i + step] = post @ p
            mse[i : i + step] = ((post - th[i : i + step, None]) ** 2) @ p
    return (mean - th).reshape(shape), np.maximum(mse, 0.0).reshape(shape)


def rounded_moments_laplace(
    center: ArrayLike, target: ArrayLike, scale: ArrayLike
) -> tuple[FloatArray, FloatArray]:
    """Bias and mean squared error of ``max(0, ⌊c + bL + ½⌋)`` about ``θ``, ``L ~ Laplace(0, 1)``.

    Closed form.  Let ``Y`` be the rounded release, ``s = max(0, ⌈c − ½⌉)``, ``q = e^{−1/b}``
    and ``n = s``.  For an integer-valued ``Y`` and integer ``s``,
    ``E[(Y − s)²] = Σ_{j≥1} (2j − 1)(P[Y ≥ s + j] + P[Y ≤ s − j])`` and
    ``E[Y − s] = Σ_{j≥1} (P[Y ≥ s + j] − P[Y ≤ s − j])``.  Since ``s + j − ½ ≥ c``,
    ``P[Y ≥ s + j] = P[c + bL ≥ s + j − ½] = A q^{j−1}`` with ``A = ½e^{−(s + ½ − c)/b}``;
    since ``s − j + ½ ≤ c`` and ``Y ≥ 0``, ``P[Y ≤ s − j] = B q^{j−1}`` for ``j ≤ n`` (and 0
    beyond) with ``B = ½e^{(s − ½ − c)/b}``.  The series give
    ``Σ_{j≥1} q^{j−1} = 1/(1 − q)``, ``Σ_{j≥1} (2j − 1) q^{j−1} = (1 + q)/(1 − q)²``, and their
    parts up to ``n``: ``(1 − q^n)/(1 − q)`` and ``(1 + q)(1 − q^n)/(1 − q)² − 2n qⁿ/(1 − q)``.
    Then ``E[(Y − θ)²] = E[(Y − s)²] + 2(s − θ)E[Y − s] + (s − θ)²``.  (The last finite part
    loses relative precision ``1e-16/(n(1 − q))`` when ``n ≪ b``, but it is then at most ``n²``
    against a total of order ``b²``, so the total keeps double precision.)
    """
    c, th, b = np.broadcast_arrays(
        _finite("center", center), _finite("target", target), _finite("scale", scale)
    )
    if np.any(b <= 0.0):
        raise ValueError("the Laplace scale must be positive")
    s = np.maximum(0.0, np.ceil(c - 0.5))
    one_minus_q = -np.expm1(-1.0 / b)
    q = 1.0 - one_minus_q
    a = 0.5 * np.exp(-(s + 0.5 - c) / b)
    bb = 0.5 * np.exp((s - 0.5 - c) / b)
    one_minus_qn = -np.expm1(-s / b)
    qn = 1.0 - one_minus_qn
    up1 = a / one_minus_q
    up2 = a * (1.0 + q) / one_minus_q**2
    low1 = bb * one_minus_qn / one_minus_q
    low2 = bb * ((1.0 + q) * one_minus_qn / one_minus_q**2 - 2.0 * s * qn / one_minus_q)
    m1 = up1 - low1
    m2 = up2 + low2
    d = s - th
    return d + m1, np.maximum(m2 + 2.0 * d * m1 + d * d, 0.0)


def _weights(variances: FloatArray, weights: ArrayLike | None) -> FloatArray:
    w = np.ones_like(variances) if weights is None else _finite("weights", weights)
    w = np.broadcast_to(w, variances.shape)
    if np.any(w < 0.0) or np.any(w.sum(axis=-1) <= 0.0):
        raise ValueError("the projection's weights must be non-negative, not all zero")
    return np.asarray(w / w.sum(axis=-1, keepdims=True), dtype=np.float64)


def project_to_margin(
    cells: ArrayLike, margin: ArrayLike, weights: ArrayLike | None = None
) -> FloatArray:
    """The released cells moved to add up to the released margin (last axis = cells).

    ``x_i = y_i + w_i (M − Σ_j y_j)`` with ``w_i = ω_i / Σ_j ω_j``: the minimiser of
    ``Σ_i (x_i − y_i)²/ω_i`` subject to ``Σ_i x_i = M`` (Lagrange: ``x_i − y_i = λ ω_i``).
    Equal weights (the default) give the ordinary least-squares projection; weights equal to
    the cells' noise variances give the generalised least-squares one (best linear unbiased
    when the margin is exact).
    """
    y = _finite("cells", cells)
    if y.ndim == 0 or y.shape[-1] == 0:
        raise ValueError("there must be at least one cell to project")
    m = _finite("margin", margin)
    w = _weights(np.ones_like(y), weights)
    return np.asarray(y + w * (m - y.sum(axis=-1))[..., None], dtype=np.float64)


def projected_variance(
    cell_variances: ArrayLike, margin_variance: ArrayLike = 0.0, weights: ArrayLike | None = None
) -> FloatArray:
    """Variance of each projected cell about its true value, for independent noises.

    With ``y_i = θ_i + e_i`` (``Var e_i = v_i``) and ``M = Σθ + e_M`` (``Var e_M = v_M``, 0 for
    a public margin), all independent: ``x_i − θ_i = e_i + w_i (e_M − Σ_j e_j)`` has mean 0
    (the projection keeps the estimator unbiased) and variance
    ``v_i − 2 w_i v_i + w_i² (Σ_j v_j + v_M)``.  Its mean squared error is this variance.
    """
    v = _finite("cell_variances", cell_variances)
    if v.ndim == 0 or v.shape[-1] == 0 or np.any(v < 0.0):
        raise ValueError("cell variances must be a non-empty array of non-negative numbers")
    vm = _finite("margin_variance", margin_variance)
    if np.any(vm < 0.0):
        raise ValueError("the margin's variance must be non-negative")
    w = _weights(v, weights)
    total = v.sum(axis=-1) + vm
    return np.asarray(v - 2.0 * w * v + w * w * np.asarray(total)[..., None], dtype=np.float64)


def exact_rounding_feasible(mechanism: LinearMechanism, parameter: float) -> bool:
    """Whether :func:`rounded_moments` can give the exact error of this noise at small cost:
    always for Laplace noise (closed form); for integer noise when its support
    ``|z| ≤ abs_quantile(1 − TRUNCATION)`` has at most :data:`MAX_ROUNDING_SUPPORT` points."""
    if isinstance(mechanism, Laplace):
        return True
    if not mechanism.integer:
        return False
    radius = float(mechanism.abs_quantile(parameter, 1.0 - TRUNCATION))
    return math.isfinite(radius) and 2.0 * radius + 1.0 <= MAX_ROUNDING_SUPPORT


def rounded_moments(
    mechanism: LinearMechanism,
    parameter: float,
    center: ArrayLike,
    target: ArrayLike,
    weight: float = 1.0,
) -> tuple[FloatArray, FloatArray]:
    """Bias and mean squared error of ``max(0, ⌊c + wZ + ½⌋)`` for a linear mechanism's noise.

    Laplace noise: :func:`rounded_moments_laplace` at scale ``w b`` (closed form).  Integer
    noise: :func:`rounded_moments_discrete` on ``|z| ≤ x`` with ``P(|Z| ≤ x) ≥ 1 − 1e-15``
    (:data:`TRUNCATION`; the mass left out moves the mean squared error by at most
    ``1e-15 · max (post − θ)²`` over that mass, negligible unless the noise's tails are far
    heavier than its scale).
    """
    if isinstance(mechanism, Laplace):
        return rounded_moments_laplace(center, target, weight * parameter)
    if not mechanism.integer:
        raise ValueError(f"no exact rounding error for the {mechanism.label} noise")
    if not exact_rounding_feasible(mechanism, parameter):
        raise ValueError(
            f"the {mechanism.label} noise is too wide for an exact rounding error (more than "
            f"{MAX_ROUNDING_SUPPORT:,} values); bound it by the error before rounding + ½"
        )
    radius = mechanism.abs_quantile(parameter, 1.0 - TRUNCATION)
    support = np.arange(-radius, radius + 1.0)
    probs = mechanism.pmf(parameter, support)
    return rounded_moments_discrete(center, target, support, probs, weight)
