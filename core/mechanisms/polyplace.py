"""Smooth-sensitivity quantile with polynomial-Laplace (PolyPlace-type) noise: pure ``eps``.

Source: Hladík & Tětek, "Smooth Sensitivity Revisited: Towards Optimality" (FORC 2025,
LIPIcs vol. 329, paper 2; arXiv 2407.05067), Section 3: replace the ``1 / (1 + |z|^gamma)``
noise of Nissim, Raskhodnikova & Smith (2007) by a symmetric density with polynomial
tails of exponent ``alpha + 1``, ``alpha = eps / gamma`` (``gamma`` the smoothing
parameter of the smooth sensitivity), which tends to the Laplace law ``Laplace(S / eps)``
as ``gamma / eps -> 0``.  The density used here is the symmetric Pareto type II (Lomax)
law, a Gamma scale mixture of Laplace laws; its scale and the admissible ``gamma`` are
derived and proved below for the smooth sensitivity of an order statistic (the constants
are this module's, stated in :class:`PolyPlaceQuantile`).
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np
from numpy.typing import ArrayLike

from ..mechanisms.base import FloatArray, symmetric_partial_moments
from ..mechanisms.quantiles import _BetaSmoothQuantile

__all__ = [
    "POLYPLACE_TAIL",
    "PolyPlaceQuantile",
    "polyplace_scale_factor",
]

#: ``gamma = eps / POLYPLACE_GAMMA_DIVISOR``: the smoothing parameter of the sensitivity.
POLYPLACE_GAMMA_DIVISOR = 4.0
#: Tail exponent ``A = 1 + eps / gamma`` of the noise density ``∝ (1 + |z|)^(-A)``.
POLYPLACE_TAIL = 1.0 + POLYPLACE_GAMMA_DIVISOR


def polyplace_scale_factor(eps_sample: float | FloatArray) -> FloatArray:
    """``kappa(eps)``: the noise scale is ``kappa S`` for the ``gamma``-smooth sensitivity ``S``.

    ``kappa = max(1 / expm1(eps / A), e^(-gamma) / expm1((eps - gamma) / A))`` with
    ``gamma = eps / 4`` and ``A = 5``: the smallest scale that meets both conditions at the
    mode in the proof of :class:`PolyPlaceQuantile`.  About ``20 / (3 eps)`` for small
    ``eps`` (the second term) and ``e^(-eps / 5)`` for large ``eps`` (the first); computed
    with ``expm1`` so it is exact at ``eps = 1e-12`` and finite at ``eps = 1000``.
    """
    eps = np.asarray(eps_sample, dtype=np.float64)
    gamma = eps / POLYPLACE_GAMMA_DIVISOR
    a = POLYPLACE_TAIL
    spread = 1.0 / np.expm1(eps / a)
    mode = np.exp(-gamma) / np.expm1((eps - gamma) / a)
    return np.asarray(np.maximum(spread, mode), dtype=np.float64)


class PolyPlaceQuantile(_BetaSmoothQuantile):
    """Quantile + polynomial-Laplace noise scaled to the smooth sensitivity: pure ``eps``-DP.

    Release (Hladík & Tětek 2025, Section 3, with the constants derived here)::

        release = y_(k) + kappa S Z,   h(z) = ((A - 1) / 2) (1 + |z|)^(-A),
        gamma = eps / 4,   A = 1 + eps / gamma = 5,
        kappa = max(1 / expm1(eps / A), e^(-gamma) / expm1((eps - gamma) / A)),

    ``S`` the ``gamma``-smooth sensitivity of the order statistic ``y_(k)`` (eq. 4 of Hu
    et al. at rank ``k``; the same ``S`` as :class:`SmoothPureQuantile`, whose ``beta`` is
    also ``eps / 4``).  In the paper's notation the noise is PolyPlace-shaped with
    ``alpha = eps / gamma = A - 1`` (the shape of the Gamma mixture below) and scale
    ``kappa S``; for small ``eps`` ``kappa ≈ ((eps + gamma) / (eps - gamma)) / gamma``, a
    factor ``5 / 3`` above ``S / gamma``: that factor pays for the dilation of the scale at
    the mode, where the shift and the rescaling of a neighbour act together (the proof).

    Law of ``Z``: ``P(|Z| > t) = (1 + t)^(-(A - 1))``, so ``|Z| = expm1(E / (A - 1))`` with
    ``E ~ Exp(1)`` (inverse CDF) and a fair sign; equivalently ``Z`` is Laplace with a
    ``Gamma(A - 1, 1)``-distributed rate.  CDF ``F(z) = 1 - (1 + z)^(-(A-1)) / 2`` for
    ``z >= 0``.  ``Var Z = 2 / ((A - 2) (A - 3)) = 1 / 3``, so the conditional noise variance
    is ``kappa^2 S^2 / 3`` (about ``14.8 S^2 / eps^2`` for small ``eps``, against
    ``256 S^2 / eps^2`` for :class:`SmoothPureQuantile` at the same ``S``).

    Guarantee: pure ``eps_sample``-DP, relations ``{"replacement"}`` (the smoothness
    ``S(x') <= e^gamma S(x)`` holds for one record changed in a sample of fixed size; adding
    or removing a record moves the rank ``k``): ``change_factor = 1``,
    ``add_remove_factor = None``.

    Proof.  Neighbours ``x, x'`` with ``f = y_(k)(x)``, ``f' = y_(k)(x')``,
    ``sigma = kappa S(x)`` and ``sigma' = kappa S(x') = e^lam sigma``, ``|lam| <= gamma``
    (smoothness).  The local sensitivity is at most the smooth sensitivity on either side,
    so ``d = |f - f'| / sigma <= min(1, e^lam) / kappa``.  At an output ``y`` let
    ``t = |y - f| / sigma``; then ``|y - f'| / sigma' <= e^-lam (t + d)`` and::

        log p_x(y) - log p_x'(y) = lam + A log((1 + |y - f'| / sigma') / (1 + t))
                                 <= lam + A log((1 + e^-lam (t + d)) / (1 + t)).

    The ratio inside is a Möbius function of ``t``, hence monotone on ``[0, ∞)``: its
    largest value is at ``t = 0`` (``1 + e^-lam d``) or as ``t -> ∞`` (``e^-lam``).

    * ``t -> ∞``: ``lam (1 - A) <= gamma (A - 1) = eps`` (the tails fix ``A = 1 + eps / gamma``).
    * ``t = 0``, ``lam <= 0``: ``d <= e^lam / kappa``, so the bound is
      ``lam + A log(1 + 1 / kappa) <= A log(1 + 1 / kappa) <= eps`` by the first term of
      ``kappa``.
    * ``t = 0``, ``0 <= lam <= gamma``: ``d <= 1 / kappa`` and
      ``g(lam) = lam + A log(1 + e^-lam / kappa)`` is convex in ``lam``
      (``g'' = A c / (1 + c)^2 > 0`` with ``c = e^-lam / kappa``), so it is largest at an end:
      ``g(0) <= eps`` as above and ``g(gamma) = gamma + A log(1 + e^-gamma / kappa) <= eps``
      by the second term of ``kappa``.

    Swapping ``x`` and ``x'`` gives the other direction.  So the log density ratio is at
    most ``eps`` everywhere; it needs ``gamma < eps`` (``A > 2`` for a finite mean, ``A > 3``
    for a finite variance, so ``gamma < eps / 2``).  The tests compute the exact densities
    of neighbouring samples and check the ratio.

    ``gamma = eps / 4``: the variance ``kappa^2 S^2 / 3`` times the growth of ``S`` as
    ``gamma`` falls (``S ∝ 1 / gamma`` for evenly spread data) is smallest near
    ``gamma / eps = 0.2``–``0.25``; ``1/4`` keeps the sensitivity and the windows of
    :class:`SmoothPureQuantile`.
    """

    name = "smooth_polyplace"
    label = "quantile, polynomial-Laplace noise scaled to the smooth sensitivity (pure ε)"
    unit_noise_variance = 2.0 / ((POLYPLACE_TAIL - 2.0) * (POLYPLACE_TAIL - 3.0))
    uses_delta = False
    pure = True
    add_remove_factor = None
    change_factor = 1.0
    BETA_DIVISOR: ClassVar[float] = POLYPLACE_GAMMA_DIVISOR

    @staticmethod
    def noise_density(z: ArrayLike) -> FloatArray:
        """Density ``h(z) = ((A - 1) / 2) (1 + |z|)^(-A)`` of ``Z``."""
        a = POLYPLACE_TAIL
        zz = np.abs(np.asarray(z, dtype=np.float64))
        return np.asarray((a - 1.0) / 2.0 * (1.0 + zz) ** (-a), dtype=np.float64)

    def noise_scale(self, sensitivity: FloatArray, eps_sample: float | FloatArray) -> FloatArray:
        """``kappa(eps) S`` (:func:`polyplace_scale_factor`)."""
        return np.asarray(polyplace_scale_factor(eps_sample) * sensitivity, dtype=np.float64)

    def standard_noise_cdf(self, z: ArrayLike) -> FloatArray:
        """``F(z) = 1 - (1 + z)^(-(A - 1)) / 2`` for ``z >= 0``, ``F(-z) = 1 - F(z)``."""
        t = np.asarray(z, dtype=np.float64)
        tail = 0.5 * (1.0 + np.abs(t)) ** (-(POLYPLACE_TAIL - 1.0))
        return np.asarray(np.where(t < 0, tail, 1.0 - tail), dtype=np.float64)

    def standard_noise_partial_moments(self, z: ArrayLike) -> tuple[FloatArray, FloatArray] | None:
        """``(E[Z; Z <= z], E[Z^2; Z <= z])`` in closed form (for the clamped release).

        With ``w = 1 + a`` and the density ``((A − 1)/2) w^(−A)``:
        ``T_1(a) = ((A − 1)/2) (w^(2−A)/(A − 2) − w^(1−A)/(A − 1))`` and
        ``T_2(a) = ((A − 1)/2) (w^(3−A)/(A − 3) − 2 w^(2−A)/(A − 2) + w^(1−A)/(A − 1))``
        (:func:`core.mechanisms.base.symmetric_partial_moments`).
        """
        A = POLYPLACE_TAIL
        k = (A - 1.0) / 2.0

        def tail1(a: FloatArray) -> FloatArray:
            w = 1.0 + a
            return np.asarray(k * (w ** (2.0 - A) / (A - 2.0) - w ** (1.0 - A) / (A - 1.0)))

        def tail2(a: FloatArray) -> FloatArray:
            w = 1.0 + a
            return np.asarray(
                k
                * (
                    w ** (3.0 - A) / (A - 3.0)
                    - 2.0 * w ** (2.0 - A) / (A - 2.0)
                    + w ** (1.0 - A) / (A - 1.0)
                )
            )

        return symmetric_partial_moments(z, tail1, tail2, float(self.unit_noise_variance))

    def standard_noise(self, rng: np.random.Generator, size: tuple[int, ...]) -> FloatArray:
        """Draws of ``Z``: ``± expm1(E / (A - 1))``, ``E ~ Exp(1)``, fair sign (inverse CDF)."""
        magnitude = np.expm1(rng.standard_exponential(size) / (POLYPLACE_TAIL - 1.0))
        sign = np.where(rng.random(size) < 0.5, -1.0, 1.0)
        return np.asarray(sign * magnitude, dtype=np.float64)
