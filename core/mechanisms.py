"""Mechanisms that release one statistic per sample, with a common interface.

A *mechanism* takes a batch of samples -- a 2-d array, one sample per row, each row
sorted ascending, every value inside the public bounds ``[lower, upper]`` -- and releases
one privatised statistic per row under the budget ``(eps_sample, delta_sample)`` spent on
that sample.  The simulations of :mod:`core.gains` and :mod:`core.illustrations` accept any
additive :class:`Mechanism`; the release planner accepts any :class:`Mechanism`, so a new
mechanism is one new subclass here and touches nothing else.

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
* :attr:`Mechanism.pure` says the guarantee is pure ``eps_sample``-DP (no δ).
* Every mechanism states two budgets as multiples of ``eps_sample``:
  :attr:`Mechanism.add_remove_factor` (``alpha``: it is ``alpha eps_sample``-DP when one
  record is added or removed) and :attr:`Mechanism.change_factor` (``gamma``: it is
  ``gamma eps_sample``-DP when one record is changed, the sample size fixed); ``None``
  means no guarantee for that relation.  :attr:`Mechanism.relations` is derived from them:
  ``"replacement"`` when ``gamma <= 1`` and ``"deletion"`` when ``alpha <= 1``, i.e. the
  relations under which the stated ``eps_sample`` holds.  The amplification theorems for
  designs with a random sample size (Poisson, stratified with randomised rounding, cluster;
  Bun et al. Sections 2, 4 and 5) need the add/remove budget;
  :mod:`core.accounting.change_one` combines both for a changed record.

Sources: Hu, Drechsler & Kim, "Accuracy gains from privacy amplification through
sampling", Section 2.2 (Laplace mechanism with global sensitivity, Definition 6; smooth
sensitivity of the median, equation 4, with the ``(eps, delta)`` calibration
``Laplace(2 S / eps)`` of Nissim, Raskhodnikova & Smith 2007), generalised here to any
quantile by replacing the median's rank; the admissible heavy-tailed noise of Nissim,
Raskhodnikova & Smith (2007, Section 2) for a pure-ε smooth-sensitivity release; the
exponential mechanism (McSherry & Talwar 2007) for a quantile in the form of Smith (2011);
the analytic Gaussian mechanism of Balle & Wang (2018); and a noisy centred sum divided by
the expected sample size for designs whose sample size is random.  Quantile mechanisms take
``quantile`` (0.5, the lower median, by default) and release the order statistic of rank
``k = ceil(q n)`` (:func:`core.sensitivity.quantile_rank`):

==============================  =====================  ==========================  ====  ========
class (name)                    sensitivity ``S``      release                     pure  α / γ
==============================  =====================  ==========================  ====  ========
:class:`SmoothLaplaceQuantile`  smooth (eq. 4, rank    ``y_(k)``+Lap(``2S/eps``)    no    -- / 1
``"smooth_laplace"``            ``k``), beta =
                                ``eps/(2 ln(2/delta))``
:class:`SmoothPureQuantile`     smooth, beta =         ``y_(k) + (16 S/eps) Z``,   yes   -- / 1
``"smooth_pure"``               ``eps / 4``            ``h(z) ∝ 1/(1+z^4)``
:class:`ExponentialQuantile`    score: ``1``           interval ``i`` drawn with   yes   1 / 1
``"exponential"``                                      ``w_i e^(-eps|i-qn|/2)``
:class:`GlobalLaplaceQuantile`  ``R = upper - lower``  ``y_(k)`` + Lap(``S/eps``)  yes   1 / 1
``"global_laplace"``
:class:`LaplaceMean`            ``R / n``              mean + Lap(``S/eps``)       yes   -- / 1
``"laplace"``
:class:`GaussianMean`           ``R / n``              mean + N(0, ``sigma^2``),   no    -- / 1
``"gaussian"``                                         Balle & Wang calibration
:class:`HorvitzThompsonMean`    ``(R/2) / (rate N)``   HT mean + Lap(``S/eps``)    yes   1 / 2
``"ht_mean"``
==============================  =====================  ==========================  ====  ========

:func:`release` is the one-call public entry point (a mechanism by name, one released
value per row).

``α / γ``: :attr:`Mechanism.add_remove_factor` and :attr:`Mechanism.change_factor`, the
add/remove and change budgets as multiples of ``eps_sample`` (``--``: no guarantee); the
relations under which ``eps_sample`` itself holds follow from them (replacement: ``γ <= 1``;
deletion: ``α <= 1``).  ``R = upper - lower``.  Laplace(0, b) noise has variance ``2 b^2``.

Windows (:attr:`Mechanism.windowed`, :mod:`core.windowed`): the smooth-sensitivity
quantiles and the global-Laplace quantile depend on a sample only through its order
statistics near rank ``k`` (the smooth sensitivity through the pairs that can still beat
``(upper - lower) e^(-beta d)``), so a Monte Carlo can draw just those.  The exponential
mechanism weighs every interval between order statistics (the far ones by tiny but non-zero
weights), so its release does depend on the whole sample; it is still drawn exactly from
windows, ring by ring, widening only when a draw cannot yet be decided.  The means use every
value and need the whole sample.  The structure (an abstract base class whose
subclasses override a few methods, invariants stated in the module docstring) follows
google's ``dp_accounting`` package (``pld/privacy_loss_mechanism.py``, ``dp_event.py``).
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import ClassVar, TypeAlias

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import optimize, special

from core import sensitivity as sens
from core._validation import (
    as_float_array,
    check_bounds,
    check_delta_open,
    check_eps,
    check_interval,
    check_whole,
    finite_scalar,
    require,
    values_in_bounds,
)

__all__ = [
    "MECHANISMS",
    "PURE_NOISE_GAMMA",
    "ExponentialQuantile",
    "GaussianMean",
    "GlobalLaplaceQuantile",
    "HorvitzThompsonMean",
    "LaplaceMean",
    "Mechanism",
    "Release",
    "SmoothLaplaceQuantile",
    "SmoothPureQuantile",
    "analytic_gaussian_sigma",
    "exponential_median_distribution",
    "exponential_median_error",
    "exponential_quantile_distribution",
    "exponential_quantile_error",
    "mechanism_by_name",
    "relations_from_factors",
    "release",
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


def relations_from_factors(
    add_remove_factor: float | None, change_factor: float | None
) -> frozenset[str]:
    """The relations under which ``eps_sample`` itself holds, from the two budget factors.

    ``"replacement"`` when ``change_factor <= 1`` and ``"deletion"`` when
    ``add_remove_factor <= 1`` (``None``: no guarantee for that relation).
    """
    pairs = (("replacement", change_factor), ("deletion", add_remove_factor))
    return frozenset(name for name, f in pairs if f is not None and f <= 1.0)


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
    pure : bool
        The guarantee is pure ``eps_sample``-DP (``delta_sample`` is not spent).
    add_remove_factor : float or None
        ``alpha``: the mechanism is ``alpha * eps_sample``-DP (pure, or with the same
        ``delta_sample``) when one record is added to or removed from its input; ``None``
        when it has no such guarantee.  Each subclass justifies its value in its docstring.
    change_factor : float or None
        ``gamma``: the same for one record changed, the sample size fixed; ``None`` when it
        has no such guarantee.  Group privacy gives ``gamma <= 2 alpha`` whatever is stated.
    relations : frozenset of str
        The neighbour relations, a subset of ``{"replacement", "deletion"}``, for which the
        stated ``eps_sample`` itself holds, derived from the two factors when a subclass is
        defined: ``"replacement"`` iff ``change_factor <= 1``, ``"deletion"`` iff
        ``add_remove_factor <= 1``.  The base class claims none.
    """

    name: ClassVar[str] = ""
    label: ClassVar[str] = ""
    additive: ClassVar[bool] = True
    unit_noise_variance: ClassVar[float | None] = _LAPLACE_UNIT_VARIANCE
    uses_delta: ClassVar[bool] = False
    pure: ClassVar[bool] = False
    add_remove_factor: ClassVar[float | None] = None
    change_factor: ClassVar[float | None] = None
    relations: ClassVar[frozenset[str]] = frozenset()
    #: :mod:`core.windowed` can simulate the release exactly without drawing the whole
    #: sample: it depends only on the order statistics near the released rank (the
    #: statistic, and a sensitivity that :meth:`window_beta` describes), or, for the
    #: exponential mechanism, is drawn ring by ring (``window_exponential_draws``).
    windowed: ClassVar[bool] = False
    #: The statistic is the linear estimator ``c + Σ_S (x − c) / (r N)`` of the population
    #: mean (the sample mean when the size is fixed at ``r N``) and the noise does not depend
    #: on the sample, so a design's closed-form mean and variance give its exact errors.
    linear_mean: ClassVar[bool] = False

    def __init_subclass__(cls, **kwargs: object) -> None:
        """Derive :attr:`relations` from the two budget factors of the new subclass."""
        super().__init_subclass__(**kwargs)
        derived = relations_from_factors(cls.add_remove_factor, cls.change_factor)
        stated = cls.__dict__.get("relations")
        if stated is not None and stated != derived:
            raise TypeError(
                f"{cls.__name__}.relations = {sorted(stated)} contradicts its factors "
                f"(add_remove_factor={cls.add_remove_factor}, change_factor="
                f"{cls.change_factor}); set the factors instead"
            )
        cls.relations = derived

    def window_beta(self, eps_sample: float, delta_sample: float) -> float | None:
        """``beta`` of the smooth sensitivity the noise is scaled to, for a windowed mechanism.

        ``None`` when the sensitivity does not depend on the sample (then the window is the
        released rank alone).  Only meaningful when :attr:`windowed` is true.
        """
        return None

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

    def standard_noise_cdf(self, z: ArrayLike) -> FloatArray:
        """CDF of one :meth:`standard_noise` draw, Laplace(0, 1) unless overridden.

        ``F(z) = e^z / 2`` for ``z < 0`` and ``1 − e^{−z} / 2`` otherwise.  Used to integrate
        the noise out of error bounds (:mod:`core.planner`).
        """
        zz = np.asarray(z, dtype=np.float64)
        tail = 0.5 * np.exp(-np.abs(zz))
        return np.asarray(np.where(zz < 0, tail, 1.0 - tail), dtype=np.float64)

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

    def exact_error(
        self,
        sample: FloatArray,
        eps_sample: float,
        delta_sample: float,
        lower: float,
        upper: float,
        level: float,
    ) -> tuple[float, float] | None:
        """Exact ``(MSE, level-quantile of |release − statistic|)`` for one sorted sample.

        For an additive mechanism with a stated variance the release about the statistic is
        ``b Z``: MSE ``b² Var Z`` and the bound ``b z`` with ``P(|Z| ≤ z) = level``.  None when
        the law has no closed form here (a subclass with one overrides this).
        """
        if not self.additive or self.unit_noise_variance is None:
            return None
        rel = self.release(
            np.asarray(sample, dtype=np.float64)[np.newaxis, :],
            eps_sample,
            delta_sample,
            lower,
            upper,
            np.random.default_rng(0),
        )
        b = float(rel.noise_scale[0])
        variance = float(np.asarray(rel.noise_variance)[0])
        if b <= 0:
            return variance, 0.0
        cdf = self.standard_noise_cdf

        def coverage(z: float) -> float:
            return float(np.asarray(cdf(np.asarray(z))) - np.asarray(cdf(np.asarray(-z))))

        hi = 1.0
        while coverage(hi) < level:
            hi *= 2.0
        z = float(optimize.brentq(lambda v: coverage(v) - level, 0.0, hi, xtol=1e-15))
        return variance, b * z

    def release_empty(
        self, eps_sample: float, lower: float, upper: float, rng: np.random.Generator
    ) -> tuple[float, float, float]:
        """``(released, noise variance, noise scale)`` for an empty sample.

        A random-size design can draw no record at all; the release must still be private.
        By default the exponential mechanism's law with no data: uniform on
        ``[lower, upper]`` (variance not stated: NaN).  A mechanism whose noise does not
        depend on the data overrides this with the centre of the range plus its noise.
        """
        return float(rng.uniform(lower, upper)), math.nan, math.nan

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other)

    def __hash__(self) -> int:
        return hash(type(self).__name__)


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


#: Tail exponent ``gamma`` of the heavy-tailed noise of :class:`SmoothPureQuantile`.
PURE_NOISE_GAMMA = 4.0


class SmoothPureQuantile(_Quantile):
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
    windowed = True

    def window_beta(self, eps_sample: float, delta_sample: float) -> float | None:
        """``beta = eps / gamma``."""
        return float(eps_sample) / self.BETA_DIVISOR

    @staticmethod
    def noise_density(z: ArrayLike) -> FloatArray:
        """Density ``h(z) = (gamma sin(pi / gamma) / (2 pi)) / (1 + |z|^gamma)`` of ``Z``."""
        g = PURE_NOISE_GAMMA
        zz = np.abs(np.asarray(z, dtype=np.float64))
        return np.asarray(g * math.sin(math.pi / g) / (2.0 * math.pi) / (1.0 + zz**g))

    def sensitivity(
        self,
        samples: FloatArray,
        eps_sample: float | FloatArray,
        delta_sample: float,
        lower: float,
        upper: float,
    ) -> FloatArray:
        """``beta``-smooth sensitivity of the quantile of each row, ``beta = eps / gamma``."""
        beta = np.asarray(eps_sample, dtype=np.float64) / self.BETA_DIVISOR
        out = sens.smooth_sensitivity_beta_batch(
            samples, beta, lower, upper, quantile=self.quantile
        )
        return np.asarray(out, dtype=np.float64).reshape(samples.shape[0])

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
        b = (upper - lower) / eps_sample
        return lower + (upper - lower) / 2.0 + b * float(rng.laplace()), 2.0 * b * b, b


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

    def release(
        self,
        samples: ArrayLike,
        eps_sample: float | ArrayLike,
        delta_sample: float,
        lower: float,
        upper: float,
        rng: np.random.Generator,
    ) -> Release:
        """Release ``mean + sigma Z`` per row, ``Z ~ N(0, 1)`` (one draw of ``rng`` per row).

        Parameters, return value and errors as :meth:`Mechanism.release`; ``noise_scale``
        is ``sigma`` and ``noise_variance`` is ``sigma^2``.
        """
        lo, hi = check_bounds(lower, upper)
        batch = _check_batch(samples, lo, hi)
        eps = _check_eps_rows(eps_sample, batch.shape[0])
        delta = check_delta_open("delta_sample", delta_sample)
        if not isinstance(rng, np.random.Generator):
            raise ValueError(f"rng must be a numpy.random.Generator; got {type(rng).__name__}")
        stat = self.statistic(batch)
        s = self.sensitivity(batch, eps, delta, lo, hi)
        sigma = analytic_gaussian_sigma(eps, delta, s)
        released = stat + self.standard_noise(rng, (batch.shape[0],)) * sigma
        return Release(released, stat, s, sigma, sigma**2)


# ---------------------------------------------------------------------------------------
# The exponential mechanism for the median (pure eps, both neighbour relations)
# ---------------------------------------------------------------------------------------


def _exponential_log_weights(
    edges: FloatArray, eps_sample: FloatArray, quantile: float = 0.5
) -> FloatArray:
    """Unnormalised log-probabilities of the ``n + 1`` intervals of each row.

    ``edges`` has shape ``(reps, n + 2)`` (``lower``, the sorted sample, ``upper``) and
    ``eps_sample`` shape ``(reps,)``.  Entry ``i`` is ``log(z_{i+1} - z_i) - eps |i - q n| / 2``
    shifted so that the best interval of positive width has penalty 0; zero-width intervals
    get ``-inf``.  The shift keeps at least one finite entry per row even when
    ``eps |i - q n|`` overflows.
    """
    n = edges.shape[1] - 2
    width = np.diff(edges, axis=1)
    distance = np.abs(np.arange(n + 1, dtype=np.float64) - quantile * n)
    positive = width > 0
    nearest = np.where(positive, distance, np.inf).min(axis=1)
    with np.errstate(divide="ignore", over="ignore"):
        log_width = np.where(positive, np.log(np.where(positive, width, 1.0)), -np.inf)
        penalty = (eps_sample[:, np.newaxis] / 2.0) * (distance - nearest[:, np.newaxis])
    return np.asarray(log_width - penalty, dtype=np.float64)


def _choose_kernel(
    batch: FloatArray,
    lower: float,
    upper: float,
    decay: FloatArray,
    group: NDArray[np.int64],
    u: FloatArray,
    chosen: NDArray[np.int64],
    total: FloatArray,
) -> None:  # pragma: no cover - compiled by numba; the numpy path is tested without it
    """Per row: the total weight and the first interval whose running sum reaches ``u`` of it."""
    reps, n = batch.shape
    for r in range(reps):
        g = group[r]
        s = 0.0
        previous = lower
        for i in range(n + 1):
            edge = batch[r, i] if i < n else upper
            s += (edge - previous) * decay[g, i]
            previous = edge
        total[r] = s
        target = u[r] * s
        acc = 0.0
        previous = lower
        pick = n
        for i in range(n + 1):
            edge = batch[r, i] if i < n else upper
            w = (edge - previous) * decay[g, i]
            acc += w
            previous = edge
            if w > 0.0 and acc >= target:
                pick = i
                break
        chosen[r] = pick


_choose_compiled = sens._njit(_choose_kernel) if sens.HAVE_NUMBA else None


def _exponential_choose(
    batch: FloatArray,
    lower: float,
    upper: float,
    eps_sample: FloatArray,
    quantile: float,
    u: FloatArray,
) -> NDArray[np.int64]:
    """Index ``i`` of the interval ``[z_i, z_{i+1}]`` drawn for each row by inverse CDF.

    Interval ``i`` has weight ``(z_{i+1} − z_i) exp(−eps (|i − q n| − d_min) / 2)``; the
    decay factors are computed once per distinct ``eps``, and a compiled loop (numba) makes
    one pass for the total and one, stopped early, for the draw ``u · total``.  Rows whose
    weights underflow (large ``eps`` with every positive-width interval far from the
    quantile's rank) are drawn from the log-domain weights instead
    (:func:`_exponential_log_weights`), as is every row without numba.
    """
    reps, n = batch.shape
    distance = np.abs(np.arange(n + 1, dtype=np.float64) - quantile * n)
    shifted = distance - distance.min()
    values, group = np.unique(eps_sample, return_inverse=True)
    decay = np.exp(-(values[:, np.newaxis] / 2.0) * shifted[np.newaxis, :])
    chosen = np.empty(reps, dtype=np.int64)
    total = np.zeros(reps)
    if _choose_compiled is not None:
        _choose_compiled(
            batch, lower, upper, decay, group.astype(np.int64).reshape(reps), u, chosen, total
        )
        redo = np.flatnonzero(~(total > 1e-250 * (upper - lower)))
    else:  # pragma: no cover - numba is a pinned dependency
        redo = np.arange(reps)
    if redo.size:
        edges = _edges(batch[redo], lower, upper)
        log_w = _exponential_log_weights(edges, eps_sample[redo], quantile)
        cumulative = np.cumsum(np.exp(log_w - log_w.max(axis=1, keepdims=True)), axis=1)
        target = u[redo] * cumulative[:, -1]
        found = (cumulative < target[:, np.newaxis]).sum(axis=1)
        chosen[redo] = np.minimum(found, n)
    return chosen


def _edges(batch: FloatArray, lower: float, upper: float) -> FloatArray:
    """``[lower, x_1, ..., x_n, upper]`` for each sorted row, shape ``(reps, n + 2)``."""
    reps = batch.shape[0]
    return np.concatenate([np.full((reps, 1), lower), batch, np.full((reps, 1), upper)], axis=1)


def exponential_quantile_distribution(
    sorted_values: ArrayLike,
    eps_sample: float,
    lower: float,
    upper: float,
    quantile: float = 0.5,
) -> tuple[FloatArray, FloatArray]:
    """Exact output distribution of :class:`ExponentialQuantile` on one sample.

    The release is piecewise uniform: with ``z_0 = lower``, ``z_i = x_(i)`` (the sorted
    sample) and ``z_{n+1} = upper``, it falls in interval ``i = [z_i, z_{i+1}]`` with
    probability ``p_i`` proportional to ``(z_{i+1} - z_i) exp(-eps_sample |i - q n| / 2)``
    and is uniform inside it (Smith 2011; McSherry & Talwar 2007).

    Parameters
    ----------
    sorted_values : array_like, shape (n,)
        The sample, ``n >= 1``, inside ``[lower, upper]`` (sorted here if it is not).
    eps_sample : float
        Budget spent on the sample, finite and > 0.
    lower, upper : float
        Public bounds, ``lower < upper``.
    quantile : float, default 0.5
        The level ``q`` in (0, 1).

    Returns
    -------
    edges : ndarray, shape (n + 2,)
        ``z_0, ..., z_{n+1}``.
    probabilities : ndarray, shape (n + 1,)
        ``p_0, ..., p_n`` (zero for zero-width intervals), summing to 1.

    Raises
    ------
    ValueError
        For empty or non-finite values, values outside the bounds, bad bounds, budget or
        quantile.
    """
    lo, hi = check_bounds(lower, upper)
    values = np.sort(values_in_bounds(sorted_values, lo, hi))
    eps = float(check_eps("eps_sample", finite_scalar("eps_sample", eps_sample)))
    q = sens.check_quantile(quantile)
    edges = _edges(values[np.newaxis, :], lo, hi)
    log_w = _exponential_log_weights(edges, np.array([eps]), q)[0]
    top = log_w.max()
    weights = np.exp(log_w - top)
    return edges[0], weights / weights.sum()


def exponential_quantile_error(
    sorted_values: ArrayLike,
    eps_sample: float,
    lower: float,
    upper: float,
    centre: float,
    level: float = 0.95,
    quantile: float = 0.5,
) -> tuple[float, float]:
    """Exact mean squared error and ``level``-quantile of the error of the exponential quantile.

    For one fixed sample (the census, say) the release ``Y`` of :class:`ExponentialQuantile`
    has the piecewise-uniform law of :func:`exponential_quantile_distribution`, so

    * ``E[(Y - c)^2] = sum_i p_i ((m_i - c)^2 + w_i^2 / 12)`` with ``m_i`` and ``w_i`` the
      midpoint and width of interval ``i``;
    * ``F(t) = P(|Y - c| <= t) = G(c + t) - G(c - t)``, with ``G`` the piecewise-linear CDF
      of ``Y``, is linear in ``t`` between the distances ``|z_j - c|``; the quantile is the
      smallest ``t`` with ``F(t) >= level``, found on those breakpoints and interpolated.

    No Monte Carlo; ``O(n log n)`` (one sort of the breakpoints), fine for ``n = 10^6``.

    Parameters
    ----------
    sorted_values : array_like, shape (n,)
        The sample, ``n >= 1``, inside ``[lower, upper]`` (sorted here if it is not).
    eps_sample : float
        Budget spent on the sample, finite and > 0.
    lower, upper : float
        Public bounds, ``lower < upper``.
    centre : float
        The value the error is measured from (e.g. the population median).
    level : float, default 0.95
        In (0, 1).
    quantile : float, default 0.5
        The quantile ``q`` the mechanism releases, in (0, 1).

    Returns
    -------
    mse : float
        ``E[(Y - centre)^2]``.
    quantile : float
        The ``level``-quantile of ``|Y - centre|``.

    Raises
    ------
    ValueError
        For bad values, bounds, budget, a non-finite ``centre`` or ``level`` outside (0, 1).
    """
    c = finite_scalar("centre", centre)
    q = float(check_interval("level", level, 0.0, 1.0, low_open=True, high_open=True))
    edges, p = exponential_quantile_distribution(sorted_values, eps_sample, lower, upper, quantile)
    # Only intervals within 1e-30 of the most likely one matter: the rest hold less than
    # n · 1e-30 of the mass together, far below double precision of either result, and
    # dropping them spares sorting all n + 2 edges of a large population.
    kept = np.flatnonzero(p > p.max() * 1e-30)
    p = p[kept[0] : kept[-1] + 1]
    edges = edges[kept[0] : kept[-1] + 2]
    p = p / p.sum()
    left, right = edges[:-1], edges[1:]
    width = right - left
    mid = left + width / 2.0
    mse = float(np.sum(p * ((mid - c) ** 2 + width**2 / 12.0)))

    cdf = np.concatenate([[0.0], np.cumsum(p)])
    cdf /= cdf[-1]
    # np.interp needs increasing abscissae: keep the last CDF value at each repeated edge
    # (the CDF is flat across zero-width intervals, so any copy gives the same value).
    knots, last = np.unique(edges[::-1], return_index=True)
    knot_cdf = cdf[::-1][last]
    t = np.unique(np.concatenate([[0.0], np.abs(knots - c)]))
    f = np.interp(c + t, knots, knot_cdf) - np.interp(c - t, knots, knot_cdf)
    f = np.maximum.accumulate(np.clip(f, 0.0, 1.0))
    k = int(np.searchsorted(f, q, side="left"))
    if k >= f.size:  # rounding left F(max distance) a hair below 1
        return mse, float(t[-1])
    if k == 0:
        return mse, 0.0
    share = (q - f[k - 1]) / (f[k] - f[k - 1])
    return mse, float(t[k - 1] + share * (t[k] - t[k - 1]))


def exponential_median_distribution(
    sorted_values: ArrayLike, eps_sample: float, lower: float, upper: float
) -> tuple[FloatArray, FloatArray]:
    """:func:`exponential_quantile_distribution` of the median (``quantile = 0.5``)."""
    return exponential_quantile_distribution(sorted_values, eps_sample, lower, upper, 0.5)


def exponential_median_error(
    sorted_values: ArrayLike,
    eps_sample: float,
    lower: float,
    upper: float,
    centre: float,
    level: float = 0.95,
) -> tuple[float, float]:
    """:func:`exponential_quantile_error` of the median (``quantile = 0.5``)."""
    return exponential_quantile_error(sorted_values, eps_sample, lower, upper, centre, level, 0.5)


class ExponentialQuantile(_Quantile):
    """The exponential mechanism for a quantile (McSherry & Talwar 2007; Smith 2011).

    With the sorted sample ``x_1 <= ... <= x_n`` padded by ``z_0 = lower`` and
    ``z_{n+1} = upper``, interval ``i = [z_i, z_{i+1}]`` (``i = 0..n``) has ``i`` sample
    values at or below its left end.  The release picks interval ``i`` with probability
    proportional to ``(z_{i+1} - z_i) exp(-eps_sample |i - q n| / 2)`` and then a point
    uniformly inside it.  Equivalently the output density at ``y`` is proportional to
    ``exp(eps_sample u(x, y) / 2)`` with the score ``u(x, y) = -|c_x(y) - q n|``, where
    ``c_x(y)`` counts the sample values ``<= y`` -- the exponential mechanism on
    ``[lower, upper]`` with the uniform base measure.

    Privacy: pure ``eps_sample``-DP under both relations.  The exponential mechanism with
    weights ``exp(eps u / 2)`` is ``eps``-DP when, for every output ``y``, the score moves by
    at most 1 between neighbours (the numerator moves by a factor ``e^(eps/2)`` at most, the
    normalising integral too).  Fix ``y``:

    * one record changed (``n`` fixed): removing the old value lowers ``c(y)`` by 0 or 1 and
      inserting the new one raises it by 0 or 1, so ``c(y)`` moves by at most 1 and ``q n``
      not at all: ``|u|`` moves by at most 1;
    * one record added (removal is the same pair read backwards): ``c(y)`` rises by 1 if the
      new value is ``<= y`` and by 0 otherwise, while ``q n`` rises by exactly ``q``; so
      ``c(y) - q n`` moves by ``1 - q`` or ``-q`` and ``|u|`` by at most
      ``max(q, 1 - q) < 1``.  (Adding the two moves separately would give ``1 + q``; they
      are not independent.)

    So the score sensitivity is 1 in both cases (``max(q, 1 - q)`` for deletion alone --
    1/2 for the median -- where the mechanism is in fact ``max(q, 1 - q) eps``-DP).
    ``delta_sample`` is ignored.  An empty sample (``n = 0``, possible when the sample size
    is random) has the score 0 everywhere, i.e. the uniform law on ``[lower, upper]``; adding
    one record moves the score by ``q`` or ``1 - q``, so it is covered too.

    Budgets: ``change_factor = 1`` and ``add_remove_factor = 1``.  The add/remove factor
    could be ``max(q, 1 - q)`` (so 1/2 for the median), but a class attribute cannot depend
    on ``q``; 1 is a valid upper bound, and every bound of
    :mod:`core.accounting.change_one` grows with the add/remove budget, so it stays safe.

    The centre :meth:`statistic` is the order statistic ``y_(k)``,
    ``k = quantile_rank(n, q)`` (the lower median for ``q = 1/2``); the release is not
    unbiased for it and its conditional noise variance has no simple closed form
    (:func:`exponential_quantile_error` gives exact errors for one sample).

    Parameters
    ----------
    quantile : float, default 0.5
        The level ``q`` in (0, 1).
    """

    name = "exponential"
    label = "quantile, exponential mechanism"
    additive = False
    unit_noise_variance = None
    pure = True
    add_remove_factor = 1.0
    change_factor = 1.0
    windowed = True  # drawn ring by ring (core.windowed.window_exponential_draws)

    def sensitivity(
        self,
        samples: FloatArray,
        eps_sample: float | FloatArray,
        delta_sample: float,
        lower: float,
        upper: float,
    ) -> FloatArray:
        """Sensitivity 1 of the score ``-|c(y) - q n|`` (a rank, not a value), every row."""
        return np.ones(samples.shape[0], dtype=np.float64)

    def noise_scale(self, sensitivity: FloatArray, eps_sample: float | FloatArray) -> FloatArray:
        """The score scale ``2 S / eps``: the rank distance over which a weight falls by ``e``.

        In ranks, not in the units of the data; the spread of the release in data units
        depends on the gaps between the sample values.
        """
        return np.asarray(2.0 * sensitivity / eps_sample, dtype=np.float64)

    def exact_error(
        self,
        sample: FloatArray,
        eps_sample: float,
        delta_sample: float,
        lower: float,
        upper: float,
        level: float,
    ) -> tuple[float, float] | None:
        """Exact errors from the release's piecewise-uniform law
        (:func:`exponential_quantile_error`) about the sample's order statistic."""
        arr = np.asarray(sample, dtype=np.float64)
        theta = float(arr[sens.quantile_rank(arr.size, self.quantile) - 1])
        mse, e95 = exponential_quantile_error(
            arr, eps_sample, lower, upper, theta, level=level, quantile=self.quantile
        )
        return float(mse), float(e95)

    def release(
        self,
        samples: ArrayLike,
        eps_sample: float | ArrayLike,
        delta_sample: float,
        lower: float,
        upper: float,
        rng: np.random.Generator,
    ) -> Release:
        """Release one exponential-mechanism quantile per row (see the class docstring).

        Vectorised over the batch: the interval of each row is drawn by inverting the
        cumulative sum of the weights ``exp(log w_i - eps |i - q n| / 2)`` (divided by the
        largest; zero-width intervals have weight 0) at one uniform draw, then a uniform
        point inside it.  ``O(n)`` per row; the log-weights keep ``eps = 1000`` and
        ``eps = 1e-12`` exact.  ``rng`` is advanced by ``2 reps`` uniform draws.
        Parameters, return value and errors as :meth:`Mechanism.release`;
        ``noise_variance`` is ``None`` and ``noise_scale`` is the score scale ``2 / eps``.
        """
        lo, hi = check_bounds(lower, upper)
        batch = _check_batch(samples, lo, hi)
        eps = _check_eps_rows(eps_sample, batch.shape[0])
        check_delta_open("delta_sample", delta_sample)
        if not isinstance(rng, np.random.Generator):
            raise ValueError(f"rng must be a numpy.random.Generator; got {type(rng).__name__}")
        u = np.asarray(1.0 - rng.random(batch.shape[0]), dtype=np.float64)
        chosen = _exponential_choose(batch, lo, hi, np.ascontiguousarray(eps), self.quantile, u)
        n = batch.shape[1]
        rows = np.arange(batch.shape[0])
        left = np.where(chosen == 0, lo, batch[rows, np.maximum(chosen - 1, 0)])
        right = np.where(chosen == n, hi, batch[rows, np.minimum(chosen, n - 1)])
        released = np.clip(left + rng.random(batch.shape[0]) * (right - left), left, right)
        s = self.sensitivity(batch, eps, 0.5, lo, hi)
        return Release(released, self.statistic(batch), s, self.noise_scale(s, eps), None)


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
        return self.centre + b * float(rng.laplace()), 2.0 * b * b, b

    def _check_same_bounds(self, lower: float, upper: float) -> None:
        lo, hi = check_bounds(lower, upper)
        if (lo, hi) != (self.lower, self.upper):
            raise ValueError(
                f"this HorvitzThompsonMean was built for the bounds [{self.lower!r}, "
                f"{self.upper!r}]; got lower={lo!r}, upper={hi!r}"
            )

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

        ``statistic_one(sample) + (S / eps_sample) Z`` with ``Z ~ Laplace(0, 1)``, one draw
        of ``rng``.

        Raises
        ------
        ValueError
            For a sample that is not 1-d, finite and inside the bounds, a budget that is not
            finite and > 0, or ``rng`` that is not a ``numpy.random.Generator``.
        """
        stat = self.statistic_one(sample)
        eps = float(check_eps("eps_sample", finite_scalar("eps_sample", eps_sample)))
        if not isinstance(rng, np.random.Generator):
            raise ValueError(f"rng must be a numpy.random.Generator; got {type(rng).__name__}")
        return stat + self.global_sensitivity / eps * float(rng.laplace(0.0, 1.0))

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


#: The implemented mechanisms by :attr:`Mechanism.name`.
MECHANISMS: dict[str, type[Mechanism]] = {
    cls.name: cls
    for cls in (
        SmoothLaplaceQuantile,
        SmoothPureQuantile,
        ExponentialQuantile,
        GlobalLaplaceQuantile,
        LaplaceMean,
        GaussianMean,
        HorvitzThompsonMean,
    )
}

#: Constructor arguments each mechanism requires (all others require none).
_PARAMETERS: dict[str, tuple[str, ...]] = {
    HorvitzThompsonMean.name: ("rate", "population_size", "lower", "upper"),
}

#: Constructor arguments each mechanism accepts but does not require.
_OPTIONAL: dict[str, tuple[str, ...]] = {
    cls.name: ("quantile",) for cls in MECHANISMS.values() if issubclass(cls, _Quantile)
}

#: Placeholder ``delta_sample`` handed to pure mechanisms, which ignore it.
_UNUSED_DELTA = 0.5


def mechanism_by_name(name: str, **parameters: object) -> Mechanism:
    """A fresh mechanism from its :attr:`Mechanism.name` (e.g. ``"smooth_laplace"``).

    Parameters
    ----------
    name : str
        A key of :data:`MECHANISMS`.
    **parameters
        Constructor arguments: the quantile mechanisms (``"smooth_laplace"``,
        ``"smooth_pure"``, ``"exponential"``, ``"global_laplace"``) accept ``quantile``
        (0.5 by default); ``"ht_mean"`` needs ``rate``, ``population_size``, ``lower`` and
        ``upper`` (``mechanism_by_name("ht_mean", rate=0.1, population_size=1000, lower=0,
        upper=10)``); the others take none.

    Raises
    ------
    ValueError
        For an unknown name (the message lists the known ones), missing or unexpected
        parameters (the message names the ones the mechanism takes), or parameters its
        constructor refuses.
    """
    if not isinstance(name, str) or name not in MECHANISMS:
        raise ValueError(f"unknown mechanism {name!r}; choose one of {sorted(MECHANISMS)}")
    needed = _PARAMETERS.get(name, ())
    optional = _OPTIONAL.get(name, ())
    given = set(parameters)
    if not set(needed) <= given or not given <= set(needed) | set(optional):
        takes = [*needed, *(f"optionally {o}" for o in optional)]
        wanted = ", ".join(takes) if takes else "no parameters"
        got = ", ".join(sorted(parameters)) if parameters else "none"
        raise ValueError(f"mechanism {name!r} takes {wanted}; got {got}")
    return MECHANISMS[name](**parameters)


def release(
    samples: ArrayLike,
    *,
    mechanism: str | Mechanism,
    eps: float | ArrayLike,
    delta: float = 0.0,
    lower: float,
    upper: float,
    rng: np.random.Generator,
    quantile: float = 0.5,
) -> FloatArray:
    """Release one private statistic per sorted sample: the public API of the mechanisms.

    ``release(samples, mechanism="exponential", eps=1.0, lower=0, upper=10, rng=rng,
    quantile=0.9)`` is ``mechanism_by_name("exponential", quantile=0.9).release(samples,
    1.0, ., 0, 10, rng).released``.

    Parameters
    ----------
    samples : array_like, shape (reps, n)
        One sample per row, each sorted ascending, inside ``[lower, upper]`` (checked).
    mechanism : str or Mechanism
        A name of :data:`MECHANISMS` (``"smooth_laplace"``, ``"smooth_pure"``,
        ``"exponential"``, ``"global_laplace"``, ``"laplace"``, ``"gaussian"``), or a
        mechanism object (e.g. a :class:`HorvitzThompsonMean`, which needs constructor
        arguments).
    eps : float or array_like, shape (reps,)
        The budget ``eps_sample`` spent on each sample, finite and > 0.
    delta : float, default 0
        ``delta_sample``: in (0, 1) for the mechanisms that spend it (``"smooth_laplace"``,
        ``"gaussian"``); must be 0 or in (0, 1) for the pure ones, which ignore it.
    lower, upper : float
        Public bounds, ``lower < upper``.
    rng : numpy.random.Generator
        Source of randomness.
    quantile : float, default 0.5
        For the quantile mechanisms, the level in (0, 1); a mean mechanism (or a
        mechanism object) accepts only the default.

    Returns
    -------
    ndarray, shape (reps,)
        The released values.

    Raises
    ------
    ValueError
        For an unknown mechanism, a ``delta`` the mechanism cannot use, a ``quantile``
        outside (0, 1) or given to a mechanism that has none, and everything
        :meth:`Mechanism.release` refuses.
    """
    if isinstance(mechanism, Mechanism):
        if quantile != 0.5:
            raise ValueError(
                "with a mechanism object, give the quantile to its constructor "
                f"(e.g. ExponentialQuantile(quantile=0.9)); got quantile={quantile!r}"
            )
        mech = mechanism
    elif isinstance(mechanism, str) and mechanism in _OPTIONAL:
        mech = mechanism_by_name(mechanism, quantile=quantile)
    else:
        mech = mechanism_by_name(mechanism)  # raises for an unknown name
        if quantile != 0.5:
            raise ValueError(
                f"quantile is only for the quantile mechanisms {sorted(_OPTIONAL)}; "
                f"mechanism {mechanism!r} got quantile={quantile!r}"
            )
    d = finite_scalar("delta", delta)
    if mech.uses_delta:
        if not 0.0 < d < 1.0:
            raise ValueError(
                f"delta must be in the interval (0, 1) for mechanism {mech.name!r}, which "
                f"spends delta_sample; got {delta!r}"
            )
    elif not 0.0 <= d < 1.0:
        raise ValueError(f"delta must be in the interval [0, 1); got {delta!r}")
    used = d if mech.uses_delta else _UNUSED_DELTA
    return mech.release(samples, eps, used, lower, upper, rng).released
