"""The paper's closed forms, kept as cross-checks of the exact curves.

Breutigam & Reischuk, "Statistical Privacy", Theorems 4.1 and 4.2 (sums over the binomial
atoms), the normal approximation for Gaussian noise, and the pure ε of Laplace noise.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike
from scipy import special

from .._validation import FloatArray, FloatOrArray
from ..statistical.checks import (
    _check_m,
    _check_n,
    _check_nu,
    _check_pi,
    _finish_flat,
    _flat_eps,
)

__all__ = [
    "delta_gaussian_normal_approx",
    "delta_no_mechanism_closed_form",
    "delta_subsampling_closed_form",
    "laplace_pure_eps",
]


def _closed_form_sums(n: int, m: int, pi: float, eps: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Theorem 4.1's two sums (Theorem 4.2 at m = n), for ε where e^ε is finite."""
    lam = m / n
    xi = pi / (1.0 - pi)
    j = np.arange(m + 1, dtype=np.float64)
    inner = j[:-1]  # j = 0..m−1; the j = m term is added as its limit below
    log_front = (
        (inner - 1) * math.log(pi)
        + (m - inner - 1) * math.log1p(-pi)
        + special.gammaln(m)
        - special.gammaln(inner + 1)
        - special.gammaln(m - inner)
    )
    front = np.exp(log_front)
    e = np.exp(eps)[:, None]
    dj = (m - inner)[None, :]
    common = (1.0 - lam) * (1.0 - e) * m * pi * (1.0 - pi) / dj
    up = lam * (inner[None, :] * (1.0 - pi) / dj - e * pi) + common
    down = lam * (pi - e * inner[None, :] * (1.0 - pi) / dj) + common
    # Thresholds j+* = (λ + (e^ε − 1)/(1 + e^ε ξ)) nπ and j−* = (λ + (e^−ε − 1)/(1 + e^−ε ξ)) nπ,
    # with (e^ε − 1)/(1 + e^ε ξ) written as (1 − e^−ε)/(e^−ε + ξ) to avoid overflow.
    em = np.exp(-eps)
    j_plus = (lam - np.expm1(-eps) / (em + xi)) * n * pi
    j_minus = (lam + np.expm1(-eps) / (1.0 + em * xi)) * n * pi
    take_up = inner[None, :] >= np.ceil(j_plus)[:, None]
    take_down = inner[None, :] <= np.floor(j_minus)[:, None]
    plus = (np.where(take_up, up, 0.0) * front).sum(axis=1)
    minus = (np.where(take_down, down, 0.0) * front).sum(axis=1)
    # j = m: P+(m) − e^ε P−(m) = λ π^{m−1} + (1 − λ)(1 − e^ε) π^m, if m ≥ ⌈j+*⌉.
    last = lam * pi ** (m - 1) + (1.0 - lam) * (1.0 - e[:, 0]) * pi**m
    plus += np.where(m >= np.ceil(j_plus), last, 0.0)
    return plus, minus


def delta_subsampling_closed_form(n: int, m: int, pi: float, eps: ArrayLike) -> FloatOrArray:
    """Theorem 4.1's closed form for subsampling (a cross-check of the definition).

    With λ = m/n and ξ = π/(1 − π), δ(ε) = max(δ+, δ−) where::

        δ+ = Σ_{j=⌈j+*⌉}^{m} π^{j−1}(1−π)^{m−j−1} C(m−1, j)
             · [λ(j(1−π)/(m−j) − e^ε π) + (1−λ)(1−e^ε) mπ(1−π)/(m−j)]
        δ− = Σ_{j=0}^{⌊j−*⌋} π^{j−1}(1−π)^{m−j−1} C(m−1, j)
             · [λ(π − e^ε j(1−π)/(m−j)) + (1−λ)(1−e^ε) mπ(1−π)/(m−j)]
        j+* = (λ + (e^ε − 1)/(1 + e^ε ξ)) nπ,   j−* = (λ + (e^{−ε} − 1)/(1 + e^{−ε} ξ)) nπ.

    Reading notes: the j = m summand is 0·∞ as printed and is taken as its limit
    ``λπ^{m−1} + (1−λ)(1−e^ε)π^m``; the printed caps ``min{λ, ·}`` and ``max{0, ·}`` are read
    as "an empty sum when the threshold leaves [0, m]"; δ− sums up to ⌊j−*⌋ (the last j with
    Q−(j) ≥ e^ε, as in the derivation before the theorem).  Requires 0 < π < 1 and
    ``e^ε`` finite (ε ≤ 700).
    """
    n = _check_n(n)
    m = _check_m(m, n)
    pi = _check_pi(pi, open_interval=True)
    flat, shape, scalar = _flat_eps(eps)
    if (flat > 700).any():
        raise ValueError("the closed form needs e^eps to be finite: eps must be <= 700")
    plus, minus = _closed_form_sums(n, m, pi, flat)
    return _finish_flat(np.clip(np.maximum(plus, minus), 0.0, 1.0), shape, scalar)


def delta_no_mechanism_closed_form(n: int, pi: float, eps: ArrayLike) -> FloatOrArray:
    """Theorem 4.2's closed form (Theorem 4.1 with λ = 1), a cross-check of the definition.

    ``δ+ = Σ_{j≥⌈j+*⌉} π^{j−1}(1−π)^{n−j−1} C(n−1, j) (j(1−π)/(n−j) − e^ε π)`` and
    ``δ− = Σ_{j≤⌊j−*⌋} π^{j−1}(1−π)^{n−j−1} C(n−1, j) (π − e^ε j(1−π)/(n−j))`` with
    ``j+* = (1 + (e^ε − 1)/(1 + e^ε ξ)) nπ`` and ``j−* = (1 + (e^{−ε} − 1)/(1 + e^{−ε} ξ)) nπ``
    (the "1 +" multiplies nπ; the j = n term is its limit π^{n−1}).  Requires 0 < π < 1.
    """
    return delta_subsampling_closed_form(n, n, pi, eps)


def delta_gaussian_normal_approx(
    n: int, pi: float, eps: ArrayLike, noise_multiplier: float
) -> FloatOrArray:
    """Lemma 6: Gaussian noise with the binomial replaced by a normal distribution.

    With ``σ² = (ν/n)² + π(1−π)(n−1)/n²``, ``Y+N ≈ N(π(1−1/n) + 1/n, σ²)`` under μ+ and
    ``N(π(1−1/n), σ²)`` under μ−, and::

        δ+ ≈ P+[Y+N ≥ x*] − e^ε P−[Y+N ≥ x*],    x*  = π + nσ²ε + (1/2 − π)/n
        δ− ≈ P−[Y+N ≤ x**] − e^ε P+[Y+N ≤ x**],  x** = π − nσ²ε + (1/2 − π)/n.

    Both equal the worst-case Gaussian curve with the effective multiplier
    ``ν_eff = nσ = sqrt(ν² + π(1−π)(n−1))``.  An approximation: accurate when nπ(1−π) is
    large and ε is not far in the tail.
    """
    n = _check_n(n)
    pi = _check_pi(pi)
    flat, shape, scalar = _flat_eps(eps)
    nu = _check_nu(noise_multiplier)
    sigma = math.sqrt((nu / n) ** 2 + pi * (1.0 - pi) * (n - 1) / n**2)
    mu_plus = pi * (1.0 - 1.0 / n) + 1.0 / n
    mu_minus = pi * (1.0 - 1.0 / n)
    x1 = pi + n * sigma**2 * flat + (0.5 - pi) / n
    x2 = pi - n * sigma**2 * flat + (0.5 - pi) / n
    a = special.log_ndtr((mu_plus - x1) / sigma)
    b = special.log_ndtr((mu_minus - x1) / sigma)
    c = special.log_ndtr((x2 - mu_minus) / sigma)
    d = special.log_ndtr((x2 - mu_plus) / sigma)
    with np.errstate(invalid="ignore"):
        plus = np.exp(a) * -np.expm1(flat + b - a)
        minus = np.exp(c) * -np.expm1(flat + d - c)
    val = np.clip(np.nan_to_num(np.maximum(plus, minus), nan=0.0), 0.0, 1.0)
    return _finish_flat(val, shape, scalar)


def laplace_pure_eps(noise_multiplier: float) -> float:
    """Lemma 5: Laplace noise of scale ψ = ν/n gives (1/(ψn), 0) = (1/ν, 0) privacy.

    The bound is tight in both the worst case and the statistical setting: the answer set
    [1, ∞) has probabilities exactly e^{1/ν} apart.
    """
    return 1.0 / _check_nu(noise_multiplier)
