"""Quantile mechanisms that add noise to the order statistic ``y_(k)``.

The shared statistic (:class:`_Quantile`, rank ``k = ceil(q n)``), the smooth-sensitivity
quantiles with Laplace noise (:class:`SmoothLaplaceQuantile`; Hu, Drechsler & Kim eq. 4,
Nissim, Raskhodnikova & Smith 2007) and with heavy-tailed noise (:class:`SmoothPureQuantile`;
NRS 2007 Section 2), and the global-sensitivity quantile (:class:`GlobalLaplaceQuantile`;
Hu et al. Definition 6).
"""

from __future__ import annotations

import math
from typing import ClassVar

import numpy as np
from numpy.typing import ArrayLike

from .. import sensitivity as sens
from ..mechanisms.base import FloatArray, Mechanism, Release, symmetric_partial_moments
from ..mechanisms.rows import SortedRows

__all__ = [
    "PURE_NOISE_GAMMA",
    "GlobalLaplaceQuantile",
    "SmoothLaplaceQuantile",
    "SmoothPureQuantile",
]


class _Quantile(Mechanism):
    """Shared statistic of the quantile mechanisms: the order statistic ``y_(k)``.

    ``k = quantile_rank(n, quantile)`` (:func:`core.sensitivity.quantile_rank`,
    ``ceil(q n)`` clipped to ``[1, n]``); ``quantile = 0.5`` gives the lower median
    ``y_((n+1)//2)`` of Hu et al. Section 4.3.

    Parameters
    ----------
    quantile : float, default 0.5
        The level ``q`` in (0, 1).

    Raises
    ------
    ValueError
        For a quantile outside (0, 1).
    """

    def __init__(self, quantile: float = 0.5) -> None:
        self.quantile: float = sens.check_quantile(quantile)

    def rank(self, n: int) -> int:
        """1-indexed rank of the released order statistic in a sample of ``n`` values."""
        return sens.quantile_rank(n, self.quantile)

    def statistic(self, samples: FloatArray) -> FloatArray:
        """Order statistic ``y_(k)`` of each sorted row, ``k = quantile_rank(n, quantile)``."""
        return np.asarray(samples[:, self.rank(samples.shape[1]) - 1], dtype=np.float64)

    def statistic_rows(self, rows: SortedRows) -> FloatArray:
        """:meth:`statistic` of each non-empty sample of ``rows``, vectorised."""
        ranks = sens.quantile_ranks(rows.sizes, self.quantile)
        return np.asarray(rows.values[rows.starts + ranks - 1], dtype=np.float64)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(quantile={self.quantile!r})"

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, _Quantile)
            and type(self) is type(other)
            and (self.quantile == other.quantile)
        )

    def __hash__(self) -> int:
        return hash((type(self).__name__, self.quantile))


class _RankScoreQuantile(_Quantile):
    """Shared parts of the quantile mechanisms driven by a score counted in records.

    The exponential, piecewise-Laplace and unbounded quantiles score an output by a count
    of sample values (a rank, or a number of records), which moves by at most 1 between
    neighbours: the sensitivity is 1 in every row and the scale ``2 S / eps`` is in records,
    not in the units of the data (the spread of the release in data units depends on the
    gaps between the sample values).  Their releases carry no closed-form noise variance.
    """

    def sensitivity(
        self,
        samples: FloatArray,
        eps_sample: float | FloatArray,
        delta_sample: float,
        lower: float,
        upper: float,
    ) -> FloatArray:
        """Sensitivity 1 of the score (a count of records), every row."""
        return np.ones(samples.shape[0], dtype=np.float64)

    def sensitivity_rows(
        self, rows: SortedRows, eps_sample: float, delta_sample: float, lower: float, upper: float
    ) -> FloatArray:
        """Sensitivity 1 for every sample of ``rows``."""
        return np.ones(len(rows), dtype=np.float64)

    def noise_scale(self, sensitivity: FloatArray, eps_sample: float | FloatArray) -> FloatArray:
        """The score scale ``2 S / eps``: the score distance, in records, over which the
        weight of an output falls by ``e`` (the Laplace scale of each count for the
        unbounded quantile)."""
        return np.asarray(2.0 * sensitivity / eps_sample, dtype=np.float64)

    def _score_release(
        self, released: FloatArray, batch: FloatArray, eps: FloatArray, lower: float, upper: float
    ) -> Release:
        """The :class:`Release` of ``released``: statistic, sensitivity, score scale and no
        noise variance."""
        s = self.sensitivity(batch, eps, 0.5, lower, upper)
        return Release(released, self.statistic(batch), s, self.noise_scale(s, eps), None)


class SmoothLaplaceQuantile(_Quantile):
    """Quantile + ``Laplace(0, 2 S / eps)``, ``S`` the smooth sensitivity (Hu et al. eq. 4).

    ``(eps_sample, delta_sample)``-DP; ``S`` is the smooth sensitivity of the order
    statistic ``y_(k)`` (eq. 4 of Hu et al. with the median's rank replaced by ``k``),
    computed at ``beta = eps / (2 ln(2 / delta))`` by
    :func:`core.sensitivity.smooth_sensitivity_quantile_batch`.  This is the Laplace
    calibration of Nissim, Raskhodnikova & Smith (2007) that Hu et al. use in Section 2.2
    and 4.3.  The conditional noise variance is ``2 (2 S / eps)^2 = 8 S^2 / eps^2``.  For
    ``quantile = 0.5`` it is exactly the median release of Hu et al. (Figures 8 and 13).

    Not pure (it spends ``delta_sample``).  Relations: ``{"replacement"}`` only.  The
    smoothness property ``S(x) <= e^beta S(x')`` and the bound ``S(x) >= LS(x)`` are proved
    for samples of one fixed size ``n`` with one record changed (Nissim, Raskhodnikova &
    Smith 2007; Hu et al. eq. 4 sums over ``k`` changed records); adding or removing a record
    also moves the rank ``k``, which that argument does not cover.  Budgets:
    ``change_factor = 1``, ``add_remove_factor = None``.
    """

    name = "smooth_laplace"
    label = "quantile, Laplace noise scaled to the smooth sensitivity"
    uses_delta = True
    pure = False
    add_remove_factor = None
    change_factor = 1.0
    windowed = True

    def window_beta(self, eps_sample: float, delta_sample: float) -> float | None:
        """``beta = eps / (2 ln(2 / delta))`` (:func:`core.sensitivity.smooth_beta`)."""
        return sens.smooth_beta(eps_sample, delta_sample)

    def sensitivity(
        self,
        samples: FloatArray,
        eps_sample: float | FloatArray,
        delta_sample: float,
        lower: float,
        upper: float,
    ) -> FloatArray:
        """Smooth sensitivity of the quantile of each row (Hu et al. Section 2.2, eq. 4)."""
        out = sens.smooth_sensitivity_quantile_batch(
            samples, eps_sample, delta_sample, lower, upper, quantile=self.quantile
        )
        return np.asarray(out, dtype=np.float64).reshape(samples.shape[0])

    def noise_scale(self, sensitivity: FloatArray, eps_sample: float | FloatArray) -> FloatArray:
        """``b = 2 S / eps`` (the ``(eps, delta)`` calibration of the smooth sensitivity)."""
        return 2.0 * sensitivity / eps_sample


class _BetaSmoothQuantile(_Quantile):
    """Shared sensitivity of the pure-DP smooth-sensitivity quantiles: ``beta = eps / d``.

    The noise of each subclass is scaled to the ``beta``-smooth sensitivity of the order
    statistic ``y_(k)`` (eq. 4 of Hu et al. at rank ``k``,
    :func:`core.sensitivity.smooth_sensitivity_beta_batch`) with ``beta = eps / d`` and
    ``d =`` :attr:`BETA_DIVISOR`; the release depends on the sample only through the order
    statistics near rank ``k`` (:attr:`Mechanism.windowed`).
    """

    #: ``beta = eps / BETA_DIVISOR``.
    BETA_DIVISOR: ClassVar[float] = 4.0
    windowed = True

    def window_beta(self, eps_sample: float, delta_sample: float) -> float | None:
        """``beta = eps / BETA_DIVISOR``."""
        return float(eps_sample) / self.BETA_DIVISOR

    def sensitivity(
        self,
        samples: FloatArray,
        eps_sample: float | FloatArray,
        delta_sample: float,
        lower: float,
        upper: float,
    ) -> FloatArray:
        """``beta``-smooth sensitivity of the quantile of each row, ``beta = eps / d``."""
        beta = np.asarray(eps_sample, dtype=np.float64) / self.BETA_DIVISOR
        out = sens.smooth_sensitivity_beta_batch(
            samples, beta, lower, upper, quantile=self.quantile
        )
        return np.asarray(out, dtype=np.float64).reshape(samples.shape[0])


#: Tail exponent ``gamma`` of the heavy-tailed noise of :class:`SmoothPureQuantile`.
PURE_NOISE_GAMMA = 4.0


class SmoothPureQuantile(_BetaSmoothQuantile):
    """Quantile + heavy-tailed noise scaled to a smooth sensitivity: pure ``eps``-DP.

    Noise (Nissim, Raskhodnikova & Smith 2007, Section 2, the admissible family
    ``h(z) ∝ 1 / (1 + |z|^gamma)``) with ``gamma = 4`` (:data:`PURE_NOISE_GAMMA`)::

        release = y_(k) + (S / alpha) Z,   h(z) = (gamma sin(pi / gamma) / (2 pi)) / (1 + |z|^gamma)
        alpha = eps / (4 gamma) = eps / 16,   beta = eps / gamma = eps / 4,

    where ``S`` is the ``beta``-smooth sensitivity of the order statistic ``y_(k)``
    (eq. 4 of Hu et al. at rank ``k`` and at this ``beta``;
    :func:`core.sensitivity.smooth_sensitivity_beta_batch`).  ``alpha = eps / (4 gamma)``
    and ``beta = eps / gamma`` are the constants NRS give for this family.

    Guarantee: pure ``eps_sample``-DP, relations ``{"replacement"}`` (the smooth-sensitivity
    argument is for one record changed in a sample of fixed size; adding or removing a record
    moves the rank ``k`` and is not covered): ``change_factor = 1``,
    ``add_remove_factor = None``.  Direct proof, which
    the tests check on exact densities: for neighbours ``x, x'`` write ``s = S(x)``,
    ``s' = S(x') = e^lam s`` with ``|lam| <= beta`` (smoothness) and
    ``|f(x) - f(x')| <= s`` (``S >= LS``).  With ``g(z) = log(1 + |z|^gamma)`` and
    ``u = alpha (y - f(x)) / s``, the log density ratio at any output ``y`` is::

        log p_x(y) - log p_x'(y) = lam + g(e^-lam (u - D)) - g(u),   |D| <= alpha.

    ``g`` is ``gamma``-Lipschitz in ``z`` (``gamma |z|^(gamma-1) <= gamma (1 + |z|^gamma)``),
    so the shift by ``D`` costs at most ``gamma alpha = eps / 4``; and
    ``d/dlam [lam + g(e^-lam w)] = 1 - gamma |z|^gamma / (1 + |z|^gamma)`` lies in
    ``[1 - gamma, 1]``, so the rescaling costs at most ``(gamma - 1) beta = 3 eps / 4``.
    Total ``<= eps``.

    Variance: ``Var Z = sin(pi / gamma) / sin(3 pi / gamma)`` (finite for ``gamma > 3``),
    which is 1 for ``gamma = 4``; so the conditional noise variance is
    ``(S / alpha)^2 = 256 S^2 / eps^2``.  Sampler: ``|Z|^gamma`` is beta-prime
    ``(1 / gamma, 1 - 1 / gamma)`` distributed, so ``Z = ± (B / (1 - B))^(1 / gamma)`` with
    ``B ~ Beta(1 / gamma, 1 - 1 / gamma)`` and a fair random sign.
    """

    name = "smooth_pure"
    label = "quantile, heavy-tailed noise scaled to the smooth sensitivity (pure ε)"
    unit_noise_variance = math.sin(math.pi / PURE_NOISE_GAMMA) / math.sin(
        3.0 * math.pi / PURE_NOISE_GAMMA
    )
    uses_delta = False
    pure = True
    add_remove_factor = None
    change_factor = 1.0
    #: ``alpha = eps / ALPHA_DIVISOR`` and ``beta = eps / BETA_DIVISOR``.
    ALPHA_DIVISOR: ClassVar[float] = 4.0 * PURE_NOISE_GAMMA
    BETA_DIVISOR: ClassVar[float] = PURE_NOISE_GAMMA

    @staticmethod
    def noise_density(z: ArrayLike) -> FloatArray:
        """Density ``h(z) = (gamma sin(pi / gamma) / (2 pi)) / (1 + |z|^gamma)`` of ``Z``."""
        g = PURE_NOISE_GAMMA
        zz = np.abs(np.asarray(z, dtype=np.float64))
        return np.asarray(g * math.sin(math.pi / g) / (2.0 * math.pi) / (1.0 + zz**g))

    def noise_scale(self, sensitivity: FloatArray, eps_sample: float | FloatArray) -> FloatArray:
        """``S / alpha = 4 gamma S / eps = 16 S / eps``."""
        return np.asarray(self.ALPHA_DIVISOR * sensitivity / eps_sample, dtype=np.float64)

    def standard_noise_cdf(self, z: ArrayLike) -> FloatArray:
        """CDF of ``Z`` (density ``(√2 / π) / (1 + z^4)``), in closed form.

        ``F(z) = 1/2 + (√2 / π) G(z)`` with the odd antiderivative
        ``G(t) = ln((t² + √2 t + 1) / (t² − √2 t + 1)) / (4√2)
        + (atan(√2 t + 1) + atan(√2 t − 1)) / (2√2)``, which tends to ``π / (2√2)``.
        """
        if PURE_NOISE_GAMMA != 4:  # pragma: no cover - the closed form is for gamma = 4
            raise ValueError("the closed-form CDF is for gamma = 4")
        t = np.asarray(z, dtype=np.float64)
        r2 = math.sqrt(2.0)
        a = np.abs(t)
        with np.errstate(over="ignore", invalid="ignore"):
            log_part = np.log1p(2.0 * r2 * a / (a * a - r2 * a + 1.0)) / (4.0 * r2)
            log_part = np.where(np.isfinite(log_part), log_part, 0.0)
            g = log_part + (np.arctan(r2 * a + 1.0) + np.arctan(r2 * a - 1.0)) / (2.0 * r2)
        half = np.minimum(r2 / math.pi * g, 0.5)
        return np.asarray(np.where(t < 0, 0.5 - half, 0.5 + half), dtype=np.float64)

    def standard_noise_partial_moments(self, z: ArrayLike) -> tuple[FloatArray, FloatArray] | None:
        """``(E[Z; Z <= z], E[Z^2; Z <= z])`` in closed form (for the clamped release).

        With ``c = √2/π``: ``T_1(a) = (c/2)(π/2 − atan(a²))`` (``d atan(u²) = 2u du /
        (1 + u⁴)``) and ``T_2(a) = c (π/(2√2) − G(a))`` with ``G`` the antiderivative of
        ``u² / (1 + u⁴)`` (:meth:`standard_noise_cdf`'s, mirrored); past ``a = 100`` the
        series ``c (1/a − 1/(5 a⁵))`` avoids the cancellation
        (:func:`core.mechanisms.base.symmetric_partial_moments`).
        """
        if PURE_NOISE_GAMMA != 4:  # pragma: no cover - the closed form is for gamma = 4
            return None
        c = math.sqrt(2.0) / math.pi
        r2 = math.sqrt(2.0)

        def tail1(a: FloatArray) -> FloatArray:
            return np.asarray(0.5 * c * np.arctan2(1.0, a * a))

        def tail2(a: FloatArray) -> FloatArray:
            with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
                log_part = np.log((a * a - r2 * a + 1.0) / (a * a + r2 * a + 1.0)) / (4.0 * r2)
                g = log_part + (np.arctan(r2 * a + 1.0) + np.arctan(r2 * a - 1.0)) / (2.0 * r2)
                near = c * (math.pi / (2.0 * r2) - g)
                far = c * (1.0 / a - 1.0 / (5.0 * a**5))
            return np.asarray(np.where(a > 100.0, far, near), dtype=np.float64)

        return symmetric_partial_moments(z, tail1, tail2, float(self.unit_noise_variance))

    def standard_noise(self, rng: np.random.Generator, size: tuple[int, ...]) -> FloatArray:
        """Draws of ``Z`` with density ``∝ 1 / (1 + |z|^4)`` (beta-prime construction)."""
        g = PURE_NOISE_GAMMA
        b = rng.beta(1.0 / g, 1.0 - 1.0 / g, size=size)
        sign = np.where(rng.random(size) < 0.5, -1.0, 1.0)
        with np.errstate(divide="ignore"):
            return np.asarray(sign * (b / (1.0 - b)) ** (1.0 / g), dtype=np.float64)


class GlobalLaplaceQuantile(_Quantile):
    """Quantile + ``Laplace(0, R / eps)``: the global sensitivity of an order statistic.

    Hu et al. Section 2.2 and 2.4 (Figure 2, left, for the median); pure
    ``eps_sample``-DP.  Conditional noise variance ``2 R^2 / eps^2``, the same for every
    sample.

    Relations: both.  Any order statistic of a non-empty sample of values in
    ``[lower, upper]`` lies in ``[lower, upper]``, so it moves by at most
    ``R = upper - lower`` whatever happens to one record -- changed, added or removed (as
    long as the sample stays non-empty; the rank may change with ``n``, the bound does
    not) -- and ``Laplace(R / eps)`` noise then gives ``eps``-DP.  Budgets:
    ``add_remove_factor = change_factor = 1``.  An empty sample (possible when the sample
    size is random) keeps the add/remove factor 1 only if it is released as a fixed point of
    ``[lower, upper]`` plus the same ``Laplace(R / eps)`` noise.
    """

    name = "global_laplace"
    label = "quantile, Laplace noise scaled to the global sensitivity"
    pure = True
    add_remove_factor = 1.0
    change_factor = 1.0
    windowed = True  # the statistic alone; the sensitivity R is the same for every sample

    def sensitivity(
        self,
        samples: FloatArray,
        eps_sample: float | FloatArray,
        delta_sample: float,
        lower: float,
        upper: float,
    ) -> FloatArray:
        """``R = upper - lower`` for every row (``sensitivity.global_sensitivity_median``)."""
        return np.full(samples.shape[0], sens.global_sensitivity_median(lower, upper))

    def sensitivity_rows(
        self, rows: SortedRows, eps_sample: float, delta_sample: float, lower: float, upper: float
    ) -> FloatArray:
        """``R = upper - lower`` for every sample of ``rows``."""
        return np.full(len(rows), sens.global_sensitivity_median(lower, upper))

    def noise_scale(self, sensitivity: FloatArray, eps_sample: float | FloatArray) -> FloatArray:
        """``b = S / eps`` (Laplace mechanism, Hu et al. Definition 6)."""
        return sensitivity / eps_sample

    def release_empty(
        self, eps_sample: float, lower: float, upper: float, rng: np.random.Generator
    ) -> tuple[float, float, float]:
        """The centre of the range plus ``Laplace(R / eps)``: adding one record moves the
        released order statistic by at most ``R``, so this keeps ``eps`` for added or
        removed records (a uniform release would not: Laplace noise reaches past the
        bounds, where the uniform has no mass)."""
        centre, b, variance = self.empty_laplace(eps_sample, lower, upper)
        released = centre + b * float(rng.laplace())
        return min(max(released, lower), upper), variance, b

    def empty_laplace(
        self, eps_sample: float, lower: float, upper: float
    ) -> tuple[float, float, float]:
        """The centre of the range, ``b = R / eps`` and ``2 b²`` (:meth:`release_empty`)."""
        b = (upper - lower) / eps_sample
        return lower + (upper - lower) / 2.0, b, 2.0 * b * b
