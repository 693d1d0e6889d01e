"""Mechanisms that release one statistic per sample, with a common interface.

A *mechanism* takes a batch of samples -- a 2-d array, one sample per row, each row
sorted ascending, every value inside the public bounds ``[lower, upper]`` -- and releases
one privatised statistic per row under the budget ``(eps_sample, delta_sample)`` spent on
that sample.  The simulations of :mod:`core.gains` and :mod:`core.illustrations` accept any
:class:`Mechanism`, so a new mechanism (an exponential-mechanism median, say) is one new
subclass here and touches nothing else.

Invariants every subclass keeps
-------------------------------
* ``statistic(samples)[r]`` depends on row ``r`` only; it is the value the release is
  centred on (the release is unbiased for it when :attr:`Mechanism.additive` holds).
* ``sensitivity(samples, eps, delta, lower, upper)`` returns, per row, the sensitivity the
  noise is calibrated to (a diagnostic shown on the pages).  It is never negative.
* For an additive mechanism the release of row ``r`` is
  ``statistic[r] + noise_scale(sensitivity, eps)[r] * Z_r`` with ``Z_r`` i.i.d. draws of
  :meth:`Mechanism.standard_noise`; conditionally on the sample its variance is
  :meth:`Mechanism.noise_variance` exactly.  A mechanism without such a closed form
  returns ``None`` from :meth:`Mechanism.noise_variance`.
* ``eps_sample`` may be one number for every row or one per row; ``delta_sample`` is a
  single number in (0, 1) and is ignored by pure-DP mechanisms.

The three implementations come from Hu, Drechsler & Kim, "Accuracy gains from privacy
amplification through sampling", Section 2.2 (Laplace mechanism with global sensitivity,
Definition 6; smooth sensitivity of the median, equation 4, with the ``(eps, delta)``
calibration ``Laplace(2 S / eps)`` of Nissim, Raskhodnikova & Smith):

=================================  ==============================  ======================
class                               sensitivity ``S`` per row        Laplace scale ``b``
=================================  ==============================  ======================
:class:`SmoothLaplaceMedian`        smooth sensitivity (eq. 4)       ``2 S / eps``
:class:`GlobalLaplaceMedian`        ``R = upper - lower``            ``S / eps``
:class:`LaplaceMean`                ``R / n``                        ``S / eps``
=================================  ==============================  ======================

Laplace(0, b) noise has variance ``2 b^2``.  The structure (an abstract base class whose
subclasses override a few methods, invariants stated in the module docstring) follows
google's ``dp_accounting`` package (``pld/privacy_loss_mechanism.py``, ``dp_event.py``).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import ClassVar, TypeAlias

import numpy as np
from numpy.typing import ArrayLike, NDArray

from core import sensitivity as sens
from core._validation import check_bounds, check_delta_open

__all__ = [
    "MECHANISMS",
    "GlobalLaplaceMedian",
    "LaplaceMean",
    "Mechanism",
    "Release",
    "SmoothLaplaceMedian",
    "mechanism_by_name",
]

FloatArray: TypeAlias = NDArray[np.float64]

#: Variance of the standard Laplace distribution Laplace(0, 1).
_LAPLACE_UNIT_VARIANCE = 2.0


@dataclass(frozen=True, eq=False)
class Release:
    """What :meth:`Mechanism.release` returns for a batch of ``reps`` samples.

    Attributes
    ----------
    released : ndarray, shape (reps,)
        The privatised statistics.
    statistic : ndarray, shape (reps,)
        The statistic of each sample before noise.
    sensitivity : ndarray, shape (reps,)
        The sensitivity the noise was calibrated to.
    noise_scale : ndarray, shape (reps,)
        Scale of the standard noise draw (the Laplace ``b``).
    noise_variance : ndarray, shape (reps,), or None
        Exact variance of ``released - statistic`` given the sample, if known.
    """

    released: FloatArray
    statistic: FloatArray
    sensitivity: FloatArray
    noise_scale: FloatArray
    noise_variance: FloatArray | None


def _check_batch(samples: ArrayLike, lower: float, upper: float) -> FloatArray:
    """A 2-d float array of sorted, finite rows inside ``[lower, upper]``."""
    try:
        arr = np.asarray(samples, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError("samples must be a 2-d array of numbers (one sample per row)") from exc
    if arr.ndim != 2 or arr.shape[1] == 0:
        raise ValueError(
            f"samples must be 2-d with at least one value per row; got shape {arr.shape}"
        )
    if not np.isfinite(arr).all():
        raise ValueError("samples must all be finite (no NaN or infinity)")
    if arr.shape[1] > 1 and (np.diff(arr, axis=1) < 0).any():
        raise ValueError("each row of samples must be sorted ascending")
    if arr.size and (arr[:, 0].min() < lower or arr[:, -1].max() > upper):
        raise ValueError(
            f"samples must lie inside the public bounds [{lower!r}, {upper!r}]; found values "
            f"in [{float(arr[:, 0].min())!r}, {float(arr[:, -1].max())!r}]"
        )
    return arr


def _check_eps_rows(eps_sample: ArrayLike, rows: int) -> FloatArray:
    """``eps_sample`` as one value per row (a scalar is repeated)."""
    eps = np.asarray(eps_sample, dtype=np.float64)
    if eps.ndim > 1 or (eps.ndim == 1 and eps.size != rows):
        raise ValueError(
            f"eps_sample must be one number or one per sample ({rows}); got shape {eps.shape}"
        )
    if not (np.isfinite(eps) & (eps > 0)).all():
        raise ValueError(f"eps_sample must be finite and > 0; got {eps_sample!r}")
    return np.broadcast_to(eps, (rows,))


class Mechanism(ABC):
    """A mechanism that privatises one statistic of each sorted sample in a batch.

    Subclasses implement :meth:`statistic`, :meth:`sensitivity` and :meth:`noise_scale`;
    additive mechanisms with a noise distribution other than Laplace override
    :meth:`standard_noise` and :attr:`unit_noise_variance`.  A non-additive mechanism sets
    ``additive = False`` and overrides :meth:`release`.

    Attributes
    ----------
    name : str
        Short identifier (used by :func:`mechanism_by_name` and in URLs).
    label : str
        Plain-words description for the pages.
    additive : bool
        The release is ``statistic + noise_scale * standard_noise``.
    unit_noise_variance : float or None
        Variance of one :meth:`standard_noise` draw (2 for Laplace(0, 1)); ``None`` when
        it has no closed form.
    uses_delta : bool
        Whether ``delta_sample`` enters the calibration.
    """

    name: ClassVar[str] = ""
    label: ClassVar[str] = ""
    additive: ClassVar[bool] = True
    unit_noise_variance: ClassVar[float | None] = _LAPLACE_UNIT_VARIANCE
    uses_delta: ClassVar[bool] = False

    @abstractmethod
    def statistic(self, samples: FloatArray) -> FloatArray:
        """The unprivatised statistic of each row of a sorted batch, shape ``(reps,)``."""

    @abstractmethod
    def sensitivity(
        self,
        samples: FloatArray,
        eps_sample: float | FloatArray,
        delta_sample: float,
        lower: float,
        upper: float,
    ) -> FloatArray:
        """The sensitivity the noise of each row is calibrated to, shape ``(reps,)``."""

    @abstractmethod
    def noise_scale(self, sensitivity: FloatArray, eps_sample: float | FloatArray) -> FloatArray:
        """Scale multiplying one :meth:`standard_noise` draw, per row."""

    def standard_noise(self, rng: np.random.Generator, size: tuple[int, ...]) -> FloatArray:
        """Standard noise draws, Laplace(0, 1) unless overridden."""
        return rng.laplace(0.0, 1.0, size=size)

    def noise_variance(
        self, sensitivity: FloatArray, eps_sample: float | FloatArray
    ) -> FloatArray | None:
        """Exact conditional variance of the noise of each row, or ``None``.

        For Laplace noise with scale ``b`` it is ``2 b^2`` (``8 S^2 / eps^2`` for the smooth
        median's ``b = 2 S / eps``).
        """
        if self.unit_noise_variance is None:
            return None
        scale = self.noise_scale(sensitivity, eps_sample)
        return self.unit_noise_variance * scale**2

    def release(
        self,
        samples: ArrayLike,
        eps_sample: float | ArrayLike,
        delta_sample: float,
        lower: float,
        upper: float,
        rng: np.random.Generator,
    ) -> Release:
        """Release the privatised statistic of every row of ``samples``.

        Parameters
        ----------
        samples : array_like, shape (reps, n)
            One sample per row, sorted ascending, inside ``[lower, upper]`` (checked).
        eps_sample : float or array_like, shape (reps,)
            Budget spent on each sample, > 0.
        delta_sample : float
            In (0, 1); ignored unless :attr:`uses_delta`.
        lower, upper : float
            Public bounds, ``lower < upper``.
        rng : numpy.random.Generator
            Source of the noise (advanced by one draw per row).

        Returns
        -------
        Release
            Released values, statistic, sensitivity, noise scale and exact noise variance.

        Raises
        ------
        ValueError
            For a malformed batch, bounds, budget or delta.
        """
        lo, hi = check_bounds(lower, upper)
        batch = _check_batch(samples, lo, hi)
        eps = _check_eps_rows(eps_sample, batch.shape[0])
        delta = check_delta_open("delta_sample", delta_sample)
        if not isinstance(rng, np.random.Generator):
            raise ValueError(f"rng must be a numpy.random.Generator; got {type(rng).__name__}")
        stat = self.statistic(batch)
        s = self.sensitivity(batch, eps, delta, lo, hi)
        scale = self.noise_scale(s, eps)
        released = stat + self.standard_noise(rng, (batch.shape[0],)) * scale
        return Release(released, stat, s, scale, self.noise_variance(s, eps))

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other)

    def __hash__(self) -> int:
        return hash(type(self).__name__)


class _Median(Mechanism):
    """Shared statistic of the median mechanisms: the lower median ``y_((n+1)//2)``."""

    def statistic(self, samples: FloatArray) -> FloatArray:
        """Lower median of each sorted row (rank ``(n + 1) // 2``, Hu et al. Section 4.3)."""
        return np.asarray(samples[:, sens.median_rank(samples.shape[1]) - 1], dtype=np.float64)


class SmoothLaplaceMedian(_Median):
    """Median + ``Laplace(0, 2 S / eps)`` with ``S`` the smooth sensitivity (Hu et al. eq. 4).

    ``(eps_sample, delta_sample)``-DP; ``S`` is computed at ``beta = eps / (2 ln(2 / delta))``
    by :func:`core.sensitivity.smooth_sensitivity_median_batch`.  The conditional noise
    variance is ``2 (2 S / eps)^2 = 8 S^2 / eps^2``.
    """

    name = "smooth_median"
    label = "median, Laplace noise scaled to the smooth sensitivity"
    uses_delta = True

    def sensitivity(
        self,
        samples: FloatArray,
        eps_sample: float | FloatArray,
        delta_sample: float,
        lower: float,
        upper: float,
    ) -> FloatArray:
        """Smooth sensitivity of the median of each row (Hu et al. Section 2.2, eq. 4)."""
        out = sens.smooth_sensitivity_median_batch(samples, eps_sample, delta_sample, lower, upper)
        return np.asarray(out, dtype=np.float64).reshape(samples.shape[0])

    def noise_scale(self, sensitivity: FloatArray, eps_sample: float | FloatArray) -> FloatArray:
        """``b = 2 S / eps`` (the ``(eps, delta)`` calibration of the smooth sensitivity)."""
        return 2.0 * sensitivity / eps_sample


class GlobalLaplaceMedian(_Median):
    """Median + ``Laplace(0, R / eps)``: the global sensitivity of the median is the range.

    Hu et al. Section 2.2 (Figure 2, left); pure ``eps_sample``-DP.  Conditional noise
    variance ``2 R^2 / eps^2``, the same for every sample.
    """

    name = "global_median"
    label = "median, Laplace noise scaled to the global sensitivity"

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

    def noise_scale(self, sensitivity: FloatArray, eps_sample: float | FloatArray) -> FloatArray:
        """``b = S / eps`` (Laplace mechanism, Hu et al. Definition 6)."""
        return sensitivity / eps_sample


class LaplaceMean(Mechanism):
    """Mean + ``Laplace(0, (R / n) / eps)`` (Hu et al. Section 2.2, Definition 6; eq. 7).

    Pure ``eps_sample``-DP for samples of a fixed size ``n``; conditional noise variance
    ``2 (R / (n eps))^2``.
    """

    name = "laplace_mean"
    label = "mean, Laplace noise scaled to the global sensitivity"

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

    def noise_scale(self, sensitivity: FloatArray, eps_sample: float | FloatArray) -> FloatArray:
        """``b = S / eps`` (Laplace mechanism)."""
        return sensitivity / eps_sample


#: The implemented mechanisms by :attr:`Mechanism.name`.
MECHANISMS: dict[str, type[Mechanism]] = {
    cls.name: cls for cls in (SmoothLaplaceMedian, GlobalLaplaceMedian, LaplaceMean)
}


def mechanism_by_name(name: str) -> Mechanism:
    """A fresh mechanism from its :attr:`Mechanism.name` (e.g. ``"smooth_median"``).

    Raises
    ------
    ValueError
        For an unknown name; the message lists the known ones.
    """
    try:
        return MECHANISMS[name]()
    except (KeyError, TypeError):
        raise ValueError(
            f"unknown mechanism {name!r}; choose one of {sorted(MECHANISMS)}"
        ) from None
