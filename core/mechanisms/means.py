"""Mean mechanisms: fixed-size sample means and the Horvitz-Thompson mean.

The mean with Laplace noise (:class:`LaplaceMean`; Hu et al. Definition 6, eq. 7), with
analytically calibrated Gaussian noise (:class:`GaussianMean`, :func:`analytic_gaussian_sigma`;
Balle & Wang 2018, Theorem 8), and the noisy centred sum over the expected sample size for
designs whose sample size is random (:class:`HorvitzThompsonMean`; Bun et al. Sections 2, 4
and 5).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike
from scipy import special

from .. import sensitivity as sens
from .._validation import (
    as_float_array,
    check_bounds,
    check_delta_open,
    check_eps,
    check_rng,
    check_whole,
    finite_scalar,
    require,
)
from ..mechanisms.base import (
    FloatArray,
    Mechanism,
    Release,
    _check_release_args,
    check_same_bounds,
)

__all__ = [
    "GaussianMean",
    "HorvitzThompsonMean",
    "LaplaceMean",
    "analytic_gaussian_sigma",
]


class _FixedSizeMean(Mechanism):
    """Shared parts of the means of a fixed-size sample: the statistic and ``R / n``."""

    linear_mean = True

    def statistic(self, samples: FloatArray) -> FloatArray:
        """Arithmetic mean of each row."""
        return np.asarray(samples.mean(axis=1), dtype=np.float64)

    def sensitivity(
        self,
        samples: FloatArray,
        eps_sample: float | FloatArray,
        delta_sample: float,
        lower: float,
        upper: float,
    ) -> FloatArray:
        """``R / n`` for every row (:func:`core.sensitivity.global_sensitivity_mean`)."""
        n = samples.shape[1]
        return np.full(samples.shape[0], sens.global_sensitivity_mean(n, lower, upper))


class LaplaceMean(_FixedSizeMean):
    """Mean + ``Laplace(0, (R / n) / eps)`` (Hu et al. Section 2.2, Definition 6; eq. 7).

    Pure ``eps_sample``-DP for samples of a fixed size ``n``; conditional noise variance
    ``2 (R / (n eps))^2``.

    Relations: ``{"replacement"}`` only.  ``R / n`` bounds the move of the mean when one of
    ``n`` records is changed.  When a record is added or removed the noise scale itself
    changes (``R / (n eps)`` against ``R / ((n + 1) eps)``), and the ratio of two Laplace
    densities with different scales grows without bound in the tails: no ``eps`` holds.
    For a random sample size use :class:`HorvitzThompsonMean`.  Budgets:
    ``change_factor = 1``, ``add_remove_factor = None``.
    """

    name = "laplace"
    label = "mean, Laplace noise scaled to the global sensitivity"
    pure = True
    add_remove_factor = None
    change_factor = 1.0

    def noise_scale(self, sensitivity: FloatArray, eps_sample: float | FloatArray) -> FloatArray:
        """``b = S / eps`` (Laplace mechanism)."""
        return sensitivity / eps_sample


def analytic_gaussian_sigma(
    eps_sample: float | ArrayLike, delta_sample: float, sensitivity: float | ArrayLike = 1.0
) -> FloatArray:
    """Smallest ``sigma`` for which ``N(0, sigma^2)`` noise is ``(eps, delta)``-DP.

    The analytic Gaussian mechanism of Balle & Wang (2018, Theorem 8 and Algorithm 1):
    adding ``N(0, sigma^2)`` to a statistic of sensitivity ``D`` is
    ``(eps, delta)``-DP if and only if::

        Phi(D / (2 sigma) - eps sigma / D) - e^eps Phi(-D / (2 sigma) - eps sigma / D) <= delta.

    The left side decreases in ``sigma``; the smallest ``sigma`` is found by bisection on
    ``log(sigma / D)`` (to a relative ``1e-13``), vectorised over ``eps``.  The second term
    is evaluated as ``exp(eps + log Phi(.))`` so that large ``eps`` does not overflow.

    Parameters
    ----------
    eps_sample : float or array_like
        Budgets, finite and > 0.
    delta_sample : float
        In (0, 1).
    sensitivity : float or array_like, default 1
        ``D >= 0`` (broadcast with ``eps_sample``); ``sigma`` is proportional to it.

    Returns
    -------
    ndarray
        ``sigma`` with the broadcast shape of ``eps_sample`` and ``sensitivity``.

    Raises
    ------
    ValueError
        For a budget that is not finite and > 0, ``delta`` outside (0, 1) or a negative
        or non-finite sensitivity.
    """
    eps = np.asarray(check_eps("eps_sample", eps_sample), dtype=np.float64)
    delta = check_delta_open("delta_sample", delta_sample)
    d = np.asarray(as_float_array("sensitivity", sensitivity), dtype=np.float64)
    require("sensitivity", d, np.isfinite(d) & (d >= 0), "a finite number >= 0")
    eps, d = np.broadcast_arrays(eps, d)
    unique, inverse = np.unique(eps, return_inverse=True)
    log_delta = math.log(delta)

    def excess(log_s: FloatArray) -> FloatArray:
        """``log(lhs) - log(delta)`` up to sign: > 0 while ``sigma / D = e^log_s`` is too small."""
        s = np.exp(log_s)
        a = 1.0 / (2.0 * s)
        b = unique * s
        first = special.log_ndtr(a - b)
        second = unique + special.log_ndtr(-a - b)
        # log(e^first - e^second), first >= second always (the lhs is >= 0)
        with np.errstate(divide="ignore", invalid="ignore"):
            gap = first + np.log1p(-np.exp(np.minimum(second - first, 0.0)))
        return np.asarray(gap - log_delta, dtype=np.float64)

    lo = np.full(unique.shape, -1.0)
    hi = np.full(unique.shape, 1.0)
    for _ in range(200):  # widen the bracket until excess(lo) > 0 >= excess(hi)
        low_bad = excess(lo) <= 0
        high_bad = excess(hi) > 0
        if not (low_bad.any() or high_bad.any()):
            break
        lo = np.where(low_bad, lo - 2.0, lo)
        hi = np.where(high_bad, hi + 2.0, hi)
    for _ in range(100):
        mid = (lo + hi) / 2.0
        too_small = excess(mid) > 0
        lo = np.where(too_small, mid, lo)
        hi = np.where(too_small, hi, mid)
        if np.all(hi - lo <= 1e-14):
            break
    return np.asarray(np.exp(hi)[inverse].reshape(eps.shape) * d, dtype=np.float64)


class GaussianMean(_FixedSizeMean):
    """Mean + ``N(0, sigma^2)``, ``sigma`` from the analytic Gaussian mechanism.

    Sensitivity ``R / n`` (one of ``n`` records changed, as for :class:`LaplaceMean`);
    ``sigma`` is the smallest standard deviation for which Gaussian noise is
    ``(eps_sample, delta_sample)``-DP at that sensitivity, from the exact condition of
    Balle & Wang (2018, Theorem 8), solved numerically (Algorithm 1 of the same paper;
    :func:`analytic_gaussian_sigma`).  Unlike the classical calibration
    ``sigma = D sqrt(2 ln(1.25 / delta)) / eps`` it is exact and holds for every ``eps``.

    ``(eps, delta)``-DP, not pure.  Relations: ``{"replacement"}`` only (adding or removing
    a record changes ``n`` and so the noise scale): ``change_factor = 1``,
    ``add_remove_factor = None``.  Standard noise ``N(0, 1)``
    (:attr:`unit_noise_variance` 1), noise scale ``sigma``; conditional noise variance
    ``sigma^2``.
    """

    name = "gaussian"
    label = "mean, Gaussian noise (analytic calibration)"
    exact_profile = "gaussian"
    unit_noise_variance = 1.0
    uses_delta = True
    pure = False
    add_remove_factor = None
    change_factor = 1.0

    def noise_scale(self, sensitivity: FloatArray, eps_sample: float | FloatArray) -> FloatArray:
        """Not available without ``delta_sample``: raises ``ValueError``.

        ``sigma`` depends on ``delta_sample`` too; :meth:`release` computes it, and
        :func:`analytic_gaussian_sigma` gives it for any ``(eps, delta, sensitivity)``.
        """
        raise ValueError(
            "the Gaussian noise scale depends on delta_sample: use "
            "analytic_gaussian_sigma(eps_sample, delta_sample, sensitivity) or release()"
        )

    def standard_noise(self, rng: np.random.Generator, size: tuple[int, ...]) -> FloatArray:
        """Standard normal draws."""
        return rng.standard_normal(size)

    def standard_noise_cdf(self, z: ArrayLike) -> FloatArray:
        """The standard normal CDF ``Φ(z)``."""
        return np.asarray(special.ndtr(np.asarray(z, dtype=np.float64)), dtype=np.float64)

    def standard_noise_partial_moments(self, z: ArrayLike) -> tuple[FloatArray, FloatArray] | None:
        """``(E[Z; Z ≤ z], E[Z^2; Z ≤ z]) = (−φ(z), Φ(z) − z φ(z))`` for ``Z ~ N(0, 1)``."""
        zz = np.asarray(z, dtype=np.float64)
        phi = np.exp(-0.5 * zz * zz) / math.sqrt(2.0 * math.pi)
        return -phi, np.asarray(special.ndtr(zz) - zz * phi, dtype=np.float64)

    def release(
        self,
        samples: ArrayLike,
        eps_sample: float | ArrayLike,
        delta_sample: float,
        lower: float,
        upper: float,
        rng: np.random.Generator,
    ) -> Release:
        """Release ``clip(mean + sigma Z, lower, upper)`` per row, ``Z ~ N(0, 1)`` (one draw
        of ``rng`` per row).

        Parameters, return value and errors as :meth:`Mechanism.release`; ``noise_scale``
        is ``sigma`` and ``noise_variance`` is ``sigma^2``.
        """
        lo, hi, batch, eps, delta = _check_release_args(
            samples, eps_sample, delta_sample, lower, upper, rng
        )
        stat = self.statistic(batch)
        s = self.sensitivity(batch, eps, delta, lo, hi)
        sigma = np.broadcast_to(np.asarray(analytic_gaussian_sigma(eps, delta, s)), stat.shape)
        draws = self.standard_noise(rng, (batch.shape[0],))
        return self.clamped_release(stat, sigma, s, sigma**2, draws, lo, hi)


# ---------------------------------------------------------------------------------------
# Horvitz-Thompson mean for samples of random size (pure eps, add/remove neighbours)
# ---------------------------------------------------------------------------------------


class HorvitzThompsonMean(Mechanism):
    """Noisy centred sum over the expected sample size: a private Horvitz-Thompson mean.

    For designs whose sample size is random (Poisson sampling, proportional stratified
    sampling with randomised rounding, cluster sampling; Bun et al. Sections 2, 4, 5), with
    ``c = (lower + upper) / 2`` and ``R = upper - lower`` the release is::

        c + (sum_i (x_i - c) + Laplace(0, (R / 2) / eps_sample)) / (rate N)

    Without noise it is the Horvitz-Thompson estimator of the population mean when every
    record is in the sample with probability ``rate``: ``E[sum_S (x_i - c)] = rate
    sum_P (x_i - c)``, so it is unbiased for the population mean (the Laplace noise has mean
    0).  Dividing by the *expected* size ``rate N`` rather than the realised size keeps the
    noise scale free of the data.

    Privacy: pure ``eps_sample``-DP for ``"deletion"`` neighbours.  Adding or removing one
    record moves the centred sum by ``|x - c| <= R / 2`` and the noise is
    ``Laplace((R / 2) / eps)``.  Relations: ``{"deletion"}`` only -- changing one record
    moves the centred sum by up to ``R`` (from ``lower`` to ``upper``), so under replacement
    the same noise gives only ``2 eps_sample`` (a change is a removal plus an addition).
    Budgets: ``add_remove_factor = 1``, ``change_factor = 2`` (both attained: a record at a
    bound added, and a record moved from one bound to the other).

    The population size is a constant of the mechanism (``needs_public_size``).  The budgets
    above are for neighbouring *samples* of one population.  When the population itself
    gains or loses a record, ``N`` (or a publication cell's ``N_c``) differs by one between
    the two neighbours, the releases are divided by ``rate N`` and ``rate (N ± 1)``, their
    Laplace scales differ, and the log ratio of their densities,
    ``|y − μ| / b − |y − μ'| / b'``, grows without bound in the tails: no ε holds.  The
    claim therefore needs ``N`` public (an invariant published with the release), or
    neighbours of the same size (``"replacement"``).  Without either, the planner offers
    :class:`core.mechanisms.SumCountMean`, which reads no size.

    Sensitivity (of the released statistic, in data units) ``S = (R / 2) / (rate N)``;
    noise scale ``S / eps``; conditional noise variance ``2 (S / eps)^2``, the same for
    every sample.

    Samples of different sizes: :meth:`release` takes a batch of equal-length rows like
    every mechanism; for one sample of any length (even empty) use :meth:`release_one` and
    :meth:`statistic_one`, e.g. once per drawn Poisson sample.

    Parameters
    ----------
    rate : float
        Inclusion probability of each record, in (0, 1] (the expected ``n / N``).
    population_size : int
        ``N >= 1``.
    lower, upper : float
        Public bounds, ``lower < upper``; :meth:`release` must be called with the same ones.

    Raises
    ------
    ValueError
        For a rate outside (0, 1], a population size that is not a whole number >= 1, or
        bounds with ``lower >= upper``.
    """

    linear_mean = True
    needs_public_size = True
    name = "ht_mean"
    label = "mean, noisy centred sum over the expected sample size"
    pure = True
    add_remove_factor = 1.0
    change_factor = 2.0

    def __init__(self, rate: float, population_size: int, lower: float, upper: float) -> None:
        r = finite_scalar("rate", rate)
        if not 0.0 < r <= 1.0:
            raise ValueError(
                f"rate must be in the interval (0, 1] (an inclusion probability); got {rate!r}"
            )
        self.rate: float = r
        self.population_size: int = check_whole("population_size", population_size, 1, 2**53)
        self.lower, self.upper = check_bounds(lower, upper)
        self.centre: float = self.lower + (self.upper - self.lower) / 2.0
        self.expected_size: float = self.rate * self.population_size
        #: ``(R / 2) / (rate N)``, the sensitivity of the released statistic.
        self.global_sensitivity: float = (self.upper - self.lower) / 2.0 / self.expected_size

    def statistic(self, samples: FloatArray) -> FloatArray:
        """``c + sum_i (x_i - c) / (rate N)`` for each row (the Horvitz-Thompson mean)."""
        arr = np.asarray(samples, dtype=np.float64)
        return np.asarray(
            self.centre + (arr - self.centre).sum(axis=1) / self.expected_size, dtype=np.float64
        )

    def sensitivity(
        self,
        samples: FloatArray,
        eps_sample: float | FloatArray,
        delta_sample: float,
        lower: float,
        upper: float,
    ) -> FloatArray:
        """``(R / 2) / (rate N)`` for every row (the bounds are the constructor's)."""
        return np.full(np.shape(samples)[0], self.global_sensitivity)

    def noise_scale(self, sensitivity: FloatArray, eps_sample: float | FloatArray) -> FloatArray:
        """``b = S / eps`` (Laplace mechanism on the centred sum, divided by ``rate N``)."""
        return np.asarray(sensitivity / eps_sample, dtype=np.float64)

    def release_empty(
        self, eps_sample: float, lower: float, upper: float, rng: np.random.Generator
    ) -> tuple[float, float, float]:
        """``c + Laplace((R / 2) / (rate N) / eps)``: the empty centred sum plus its noise."""
        b = self.global_sensitivity / eps_sample
        released = min(max(self.centre + b * float(rng.laplace()), lower), upper)
        return released, 2.0 * b * b, b

    def _check_same_bounds(self, lower: float, upper: float) -> None:
        check_same_bounds(type(self).__name__, (self.lower, self.upper), lower, upper)

    def release(
        self,
        samples: ArrayLike,
        eps_sample: float | ArrayLike,
        delta_sample: float,
        lower: float,
        upper: float,
        rng: np.random.Generator,
    ) -> Release:
        """:meth:`Mechanism.release` for equal-length rows; the bounds must be the constructor's.

        Raises
        ------
        ValueError
            As :meth:`Mechanism.release`, and when ``lower``, ``upper`` differ from the
            bounds the mechanism was built with.
        """
        self._check_same_bounds(lower, upper)
        return super().release(samples, eps_sample, delta_sample, lower, upper, rng)

    def _check_one(self, sample: ArrayLike) -> FloatArray:
        arr = as_float_array("sample", sample)
        if arr.ndim != 1:
            raise ValueError(f"sample must be one-dimensional; got shape {arr.shape}")
        require("sample", arr, np.isfinite(arr), "finite (no NaN or infinity)")
        if arr.size and (arr.min() < self.lower or arr.max() > self.upper):
            raise ValueError(
                f"sample must lie inside the public bounds [{self.lower!r}, {self.upper!r}]; "
                f"found values in [{float(arr.min())!r}, {float(arr.max())!r}]"
            )
        return arr

    def statistic_one(self, sample: ArrayLike) -> float:
        """The Horvitz-Thompson mean ``c + sum_i (x_i - c) / (rate N)`` of one sample.

        ``sample`` is 1-d, of any length (an empty sample gives ``c``), in any order,
        inside the bounds (checked; ValueError otherwise).
        """
        arr = self._check_one(sample)
        return float(self.centre + np.sum(arr - self.centre) / self.expected_size)

    def release_one(self, sample: ArrayLike, eps_sample: float, rng: np.random.Generator) -> float:
        """Release the private mean of one sample of any length (see the class docstring).

        ``clip(statistic_one(sample) + (S / eps_sample) Z, lower, upper)`` with
        ``Z ~ Laplace(0, 1)``, one draw of ``rng``.

        Raises
        ------
        ValueError
            For a sample that is not 1-d, finite and inside the bounds, a budget that is not
            finite and > 0, or ``rng`` that is not a ``numpy.random.Generator``.
        """
        stat = self.statistic_one(sample)
        eps = float(check_eps("eps_sample", finite_scalar("eps_sample", eps_sample)))
        check_rng(rng)
        noisy = stat + self.global_sensitivity / eps * float(rng.laplace(0.0, 1.0))
        return min(max(noisy, self.lower), self.upper)  # clamped, as every release

    def __repr__(self) -> str:
        return (
            f"HorvitzThompsonMean(rate={self.rate!r}, population_size={self.population_size!r}, "
            f"lower={self.lower!r}, upper={self.upper!r})"
        )

    def _key(self) -> tuple[float, int, float, float]:
        return (self.rate, self.population_size, self.lower, self.upper)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, HorvitzThompsonMean) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash((type(self).__name__, *self._key()))
