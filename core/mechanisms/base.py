"""The :class:`Release` record, the :class:`Mechanism` base class and the checks all share.

A mechanism releases one statistic per sorted sample of a batch; the invariants every
subclass keeps are stated in :mod:`core.mechanisms`.  Here: the checks of a batch and of a
per-row budget, and the relations that follow from a mechanism's two budget factors.

Every release is clamped to the public bounds ``[lower, upper]``: ``clip(θ̂ + b Z, L, U)``.
Clamping is post-processing, so it keeps the guarantee, and it never moves a release
further from a value inside the bounds (every statistic the planner measures errors
against is one).  The law of the clamped error is closed form for Laplace and Gaussian
noise (:mod:`core.mechanisms.clamping`, :meth:`Mechanism.clamped_noise_moments`).
Samples of unequal sizes are released in one call by :meth:`Mechanism.release_rows`
(:mod:`core.mechanisms.rows`).
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol, TypeAlias

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import integrate, optimize

from .. import sensitivity as sens
from .._checked import is_checked
from .._validation import (
    check_bounds,
    check_delta_open,
    check_rng,
)
from ..mechanisms import rows as _rows
from ..mechanisms.clamping import (
    clamped_abs_cdf,
    clip_moments,
    laplace_cdf,
    laplace_clamped_moments,
    laplace_partial_moments,
    symmetric_partial_moments,
)
from ..mechanisms.rows import SortedRows
from ..sensitivity.checks import _all_valid

__all__ = [
    "BudgetFactors",
    "ConditionalLaw",
    "Mechanism",
    "Release",
    "clamped_abs_cdf",
    "clip_moments",
    "laplace_partial_moments",
    "relations_from_factors",
    "symmetric_partial_moments",
]


FloatArray: TypeAlias = NDArray[np.float64]

#: Variance of the standard Laplace distribution Laplace(0, 1).
_LAPLACE_UNIT_VARIANCE = 2.0


class ConditionalLaw(Protocol):
    """The exact law of a non-additive release given each sample of a batch (one per row).

    A mechanism whose release is not ``statistic + noise`` but whose law given the sample is
    still known (:class:`core.mechanisms.SumCountMean`) returns one in :attr:`Release.law`,
    so that the planner integrates the noise instead of drawing it.  ``lower`` and
    ``upper`` bound every release (the planner's root search for the 95 % bound stays
    inside ``[0, upper − lower]``).
    """

    @property
    def lower(self) -> float:
        """The smallest possible release."""
        ...

    @property
    def upper(self) -> float:
        """The largest possible release."""
        ...

    def mse(self, about: ArrayLike) -> FloatArray:
        """``E[(release − a)² | sample]`` per row."""
        ...

    def coverage(self, x: float, theta: float) -> FloatArray:
        """``P(|release − θ| ≤ x | sample)`` per row."""
        ...

    @staticmethod
    def merge(laws: list[Any]) -> Any:
        """The rows of several laws of the same mechanism as one law."""
        ...


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
        Exact variance of the noise ``b Z`` added before clamping, given the sample, if
        known (``released − statistic`` has it only when no release reaches a bound).
    law : ConditionalLaw or None
        The exact law of each release given its sample, for a non-additive mechanism that
        knows it (None otherwise).
    noise_mean, noise_square : ndarray, shape (reps,), or None
        Exact ``E[released − statistic]`` and ``E[(released − statistic)^2]`` given the
        sample, for the release clamped to ``[lower, upper]``
        (:meth:`Mechanism.clamped_noise_moments`); None when the clamped law has no closed
        form here.
    """

    released: FloatArray
    statistic: FloatArray
    sensitivity: FloatArray
    noise_scale: FloatArray
    noise_variance: FloatArray | None
    law: ConditionalLaw | None = None
    noise_mean: FloatArray | None = None
    noise_square: FloatArray | None = None


def _check_batch(samples: ArrayLike, lower: float, upper: float) -> FloatArray:
    """A 2-d float array of sorted, finite rows inside ``[lower, upper]`` (samples of one
    size already checked as :class:`SortedRows`: only their bounds)."""
    if isinstance(samples, SortedRows) and samples.equal_size() and samples.low >= lower:
        if samples.high <= upper:
            return np.asarray(samples)
    try:
        arr = np.asarray(samples, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError("samples must be a 2-d array of numbers (one sample per row)") from exc
    if arr.ndim == 2 and is_checked(arr, lower, upper):  # the population, checked once
        return arr
    if arr.ndim != 2 or arr.shape[1] == 0:
        raise ValueError(
            f"samples must be 2-d with at least one value per row; got shape {arr.shape}"
        )
    if (
        sens.HAVE_NUMBA
        and arr.flags.c_contiguous
        and _all_valid(arr, lower, upper, True)
        and np.isfinite(arr[:, -1]).all()  # a sorted row's +inf is last (no upper bound)
    ):
        return arr  # one compiled pass; the checks below say what is wrong
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


def _check_release_args(
    samples: ArrayLike,
    eps_sample: ArrayLike,
    delta_sample: float,
    lower: float,
    upper: float,
    rng: object,
) -> tuple[float, float, FloatArray, FloatArray, float]:
    """The checked arguments of :meth:`Mechanism.release`: ``(lo, hi, batch, eps, delta)``.

    Bounds, batch (:func:`_check_batch`), one budget per row, ``delta_sample`` in (0, 1) and
    ``rng`` a ``numpy.random.Generator``, checked in that order.
    """
    lo, hi = check_bounds(lower, upper)
    batch = _check_batch(samples, lo, hi)
    eps = _check_eps_rows(eps_sample, batch.shape[0])
    delta = check_delta_open("delta_sample", delta_sample)
    check_rng(rng)
    return lo, hi, batch, eps, delta


def check_same_bounds(owner: str, built: tuple[float, float], lower: float, upper: float) -> None:
    """Raise ``ValueError`` unless ``[lower, upper]`` are the bounds ``built`` a mechanism
    that holds its own bounds (``owner``, its class name) was constructed with."""
    lo, hi = check_bounds(lower, upper)
    if (lo, hi) != built:
        raise ValueError(
            f"this {owner} was built for the bounds [{built[0]!r}, {built[1]!r}]; "
            f"got lower={lo!r}, upper={hi!r}"
        )


def relations_from_factors(
    add_remove_factor: float | None, change_factor: float | None
) -> frozenset[str]:
    """The relations under which ``eps_sample`` itself holds, from the two budget factors.

    ``"replacement"`` when ``change_factor <= 1`` and ``"deletion"`` when
    ``add_remove_factor <= 1`` (``None``: no guarantee for that relation).
    """
    pairs = (("replacement", change_factor), ("deletion", add_remove_factor))
    return frozenset(name for name, f in pairs if f is not None and f <= 1.0)


@dataclass(frozen=True)
class BudgetFactors:
    """A mechanism's two budgets per unit of ``eps_sample`` at its parameters.

    What the accounting reads of a mechanism (:mod:`core.designs.protocol`,
    :mod:`core.accounting.change_one`): :meth:`Mechanism.budget_factors` gives it for the
    level the mechanism releases, so a budget may depend on that level (the exponential
    quantile's add/remove budget is ``max(q, 1 − q)``).

    Attributes
    ----------
    name : str
        The mechanism's :attr:`Mechanism.name` (for messages).
    add_remove : float or None
        ``alpha``: the mechanism is ``alpha * eps_sample``-DP when one record is added to or
        removed from its input; None when it has no such guarantee.
    change : float or None
        ``gamma``: the same for one record changed, the sample size fixed; None when it has
        no such guarantee.
    """

    name: str
    add_remove: float | None
    change: float | None

    @property
    def relations(self) -> frozenset[str]:
        """The relations under which ``eps_sample`` itself holds
        (:func:`relations_from_factors`)."""
        return relations_from_factors(self.add_remove, self.change)


def _clip_square_by_quadrature(
    cdf: Callable[[FloatArray], FloatArray], alpha: float, beta: float
) -> float:
    """``E[clip(Z, α, β)^2]`` for ``α ≤ 0 ≤ β`` from the CDF alone:
    ``∫_0^β 2y (1 − F(y)) dy + ∫_0^{−α} 2y F(−y) dy`` (``E[Y^2] = ∫ 2y P(|Y| > y) dy``)."""

    def F(v: float) -> float:
        return float(np.asarray(cdf(np.asarray([v])))[0])

    def piece(g: Callable[[float], float], top: float) -> float:
        """``∫_0^top g``, split at 50 noise scales; a top past 1e8 is the whole half-line."""
        end = math.inf if top > 1e8 else top
        near = integrate.quad(g, 0.0, min(end, 50.0), limit=200)[0]
        far = integrate.quad(g, 50.0, end, limit=200)[0] if end > 50.0 else 0.0
        return float(near + far)

    upper_part = piece(lambda y: 2.0 * y * (1.0 - F(y)), beta)
    lower_part = piece(lambda y: 2.0 * y * F(-y), -alpha)
    return float(upper_part + lower_part)


def _first_reaching(
    coverage: Callable[[float], float], level: float, jumps: Sequence[float], scale: float
) -> float:
    """The smallest ``x ≥ 0`` with ``coverage(x) ≥ level`` for a non-decreasing coverage
    that is continuous except for upward jumps at ``jumps`` (where it takes the value from
    the right): each piece is searched in turn."""
    start = 0.0
    for jump in [*jumps, math.inf]:
        if jump <= start:
            continue
        left = math.nextafter(jump, 0.0) if math.isfinite(jump) else math.inf
        top = max(2.0 * start, scale)
        while top < left and coverage(top) < level:
            top *= 2.0
        top = min(top, left)
        if coverage(top) >= level:
            if coverage(start) >= level:
                return start
            return float(
                optimize.brentq(lambda v: coverage(v) - level, start, top, xtol=1e-15 * top)
            )
        if math.isfinite(jump) and coverage(jump) >= level:
            return float(jump)
        start = jump
    return start


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
        ``delta_sample``) when one record is added to or removed from its input, whatever
        its parameters; ``None`` when it has no such guarantee.  Each subclass justifies its
        value in its docstring.  The accounting reads :meth:`budget_factors`, which may be
        smaller at a given level.
    change_factor : float or None
        ``gamma``: the same for one record changed, the sample size fixed; ``None`` when it
        has no such guarantee.  Group privacy gives ``gamma <= 2 alpha`` whatever is stated.
    needs_upper : bool
        The release uses the public upper bound ``upper`` (True for every mechanism but
        the unbounded quantile, which accepts ``upper = inf``).
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
    needs_upper: ClassVar[bool] = True
    #: :mod:`core.windowed` can simulate the release exactly without drawing the whole
    #: sample: it depends only on the order statistics near the released rank (the
    #: statistic, and a sensitivity that :meth:`window_beta` describes), or, for the
    #: exponential mechanism, is drawn ring by ring (``window_exponential_draws``).
    windowed: ClassVar[bool] = False
    #: The statistic is the linear estimator ``c + Σ_S (x − c) / (r N)`` of the population
    #: mean (the sample mean when the size is fixed at ``r N``) and the noise does not depend
    #: on the sample, so a design's closed-form mean and variance give its exact errors.
    linear_mean: ClassVar[bool] = False
    #: The noise has an exact privacy profile under sampling in
    #: :mod:`core.accounting.gaussian_profile` (``"gaussian"``: Gaussian noise calibrated
    #: by the analytic Gaussian mechanism on a statistic of sensitivity ``R / n``); None
    #: when only the generic amplification theorem applies.
    exact_profile: ClassVar[str | None] = None
    #: The release divides by a size of the data it is given (the population's ``N``, a
    #: cell's ``N_c``), taken as a constant.  Its guarantee holds between neighbours of the
    #: same size only: under added or removed records the two neighbours' sizes differ by
    #: one and the release's scale with them, so the planner offers it there only when the
    #: sizes are declared public (:func:`core.planner.budgets.size_refusal`).
    needs_public_size: ClassVar[bool] = False
    #: :meth:`release_ragged` releases samples of different sizes in one call (a random-size
    #: design's samples, empty ones included) with the same law as one release per sample.
    ragged: ClassVar[bool] = False

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

    @classmethod
    def budget_factors(cls, quantile: float) -> BudgetFactors:
        """The two budgets the accounting uses when the mechanism releases level ``quantile``.

        By default the class's :attr:`add_remove_factor` and :attr:`change_factor`, which
        hold at every level (a mean mechanism ignores ``quantile``).  A subclass whose
        budget is smaller at some levels overrides this with the level's own, proved in its
        docstring (:class:`core.mechanisms.ExponentialQuantile`); it never exceeds the
        class's, so :attr:`relations` holds at every level.

        Parameters
        ----------
        quantile : float
            The level ``q`` in (0, 1) the mechanism releases (0.5 for the median).
        """
        sens.check_quantile(quantile)
        return BudgetFactors(cls.name, cls.add_remove_factor, cls.change_factor)

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
        return laplace_cdf(z)

    def standard_noise_partial_moments(self, z: ArrayLike) -> tuple[FloatArray, FloatArray] | None:
        """``(E[Z; Z ≤ z], E[Z^2; Z ≤ z])`` of one standard noise draw, or None.

        Laplace(0, 1) unless overridden (module docstring); a subclass whose noise has no
        closed form here returns None, and the clamped release is then simulated.
        """
        if self.unit_noise_variance != _LAPLACE_UNIT_VARIANCE or (
            type(self).standard_noise_cdf is not Mechanism.standard_noise_cdf
        ):
            return None
        return laplace_partial_moments(z)

    @property
    def _laplace_moments(self) -> bool:
        """Whether the clamped noise's moments are the base class's Laplace(0, 1) ones
        (:meth:`standard_noise_partial_moments` neither overridden nor None)."""
        cls = type(self)
        return (
            cls.standard_noise_partial_moments is Mechanism.standard_noise_partial_moments
            and cls.standard_noise_cdf is Mechanism.standard_noise_cdf
            and self.unit_noise_variance == _LAPLACE_UNIT_VARIANCE
        )

    def clamped_noise_moments(
        self,
        statistic: ArrayLike,
        scale: ArrayLike,
        lower: float,
        upper: float,
    ) -> tuple[FloatArray, FloatArray] | None:
        """``E[e]`` and ``E[e^2]`` per row for ``e = clip(t + b Z, L, U) − t`` (module
        docstring), or None when the noise's partial moments have no closed form.

        A row with ``b = 0`` has ``e = clip(t, L, U) − t`` exactly.
        """
        if not self.additive or self.unit_noise_variance is None:
            return None
        t = np.asarray(statistic, dtype=np.float64)
        b = np.broadcast_to(np.asarray(scale, dtype=np.float64), t.shape)
        if self._laplace_moments:  # the base class's Laplace noise: one compiled pass
            return laplace_clamped_moments(t, b, lower, upper)
        if self.standard_noise_partial_moments(np.zeros(1)) is None:
            return None

        def partial(z: FloatArray) -> tuple[FloatArray, FloatArray]:
            got = self.standard_noise_partial_moments(z)
            assert got is not None
            return got

        with np.errstate(divide="ignore", invalid="ignore"):
            safe = np.where(b > 0, b, 1.0)
            alpha = np.where(b > 0, (lower - t) / safe, 0.0)
            beta = np.where(b > 0, (upper - t) / safe, 0.0)
        first, square = clip_moments(
            alpha, beta, self.standard_noise_cdf, partial, float(self.unit_noise_variance)
        )
        fixed = np.clip(t, lower, upper) - t
        mean = np.where(b > 0, b * first, fixed)
        second = np.where(b > 0, b * b * square, fixed * fixed)
        return np.asarray(mean, dtype=np.float64), np.asarray(second, dtype=np.float64)

    def clamped_release(
        self,
        statistic: FloatArray,
        scale: FloatArray,
        sensitivity: FloatArray,
        noise_variance: FloatArray | None,
        draws: FloatArray,
        lower: float,
        upper: float,
    ) -> Release:
        """The :class:`Release` of ``clip(statistic + scale · draws, lower, upper)`` with the
        clamped law's exact moments: the one place where an additive release is made."""
        released = np.clip(statistic + draws * scale, lower, upper)
        moments = self.clamped_noise_moments(statistic, scale, lower, upper)
        mean, square = (None, None) if moments is None else moments
        return Release(
            released,
            statistic,
            sensitivity,
            scale,
            noise_variance,
            noise_mean=mean,
            noise_square=square,
        )

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
            Released values, clamped to ``[lower, upper]`` (post-processing: the guarantee
            is kept), statistic, sensitivity, noise scale, the unclamped noise's variance
            and the clamped error's exact moments.

        Raises
        ------
        ValueError
            For a malformed batch, bounds, budget or delta.
        """
        lo, hi, batch, eps, delta = _check_release_args(
            samples, eps_sample, delta_sample, lower, upper, rng
        )
        stat = self.statistic(batch)
        s = self.sensitivity(batch, eps, delta, lo, hi)
        scale = np.broadcast_to(np.asarray(self.noise_scale(s, eps), dtype=np.float64), stat.shape)
        draws = self.standard_noise(rng, (batch.shape[0],))
        return self.clamped_release(stat, scale, s, self.noise_variance(s, eps), draws, lo, hi)

    def release_each(
        self,
        samples: ArrayLike,
        eps_samples: Sequence[float],
        delta_sample: float,
        lower: float,
        upper: float,
        rng: np.random.Generator,
    ) -> list[Release]:
        """:meth:`release` of the same samples at each budget of ``eps_samples``, in order.

        The same as calling :meth:`release` once per budget (the same draws from ``rng``, in
        the same order); a mechanism whose work on the samples does not depend on the budget
        overrides it to do that work once.
        """
        return [self.release(samples, e, delta_sample, lower, upper, rng) for e in eps_samples]

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

        The release is clamped to ``[lower, upper]`` (module docstring): for an additive
        mechanism the error about the statistic ``t`` is ``clip(t + b Z, L, U) − t``, with
        MSE :meth:`clamped_noise_moments` and the bound the smallest ``x`` with
        ``P(|e| ≤ x) ≥ level`` (:func:`clamped_abs_cdf`, solved on each piece between the
        jumps that the clamping puts at ``U − t`` and ``t − L``).  None when the law has no
        closed form here (a subclass with one overrides this).
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
        t = float(rel.statistic[0])
        if rel.noise_square is not None:
            mse = float(rel.noise_square[0])
        elif b > 0:  # no closed form of the partial moments: one integral of the CDF
            mse = (
                b
                * b
                * _clip_square_by_quadrature(
                    self.standard_noise_cdf, (lower - t) / b, (upper - t) / b
                )
            )
        else:
            mse = (float(np.clip(t, lower, upper)) - t) ** 2
        if b <= 0:
            return mse, abs(float(np.clip(t, lower, upper)) - t)
        # In units of the noise scale (exact for a scale of any size): x = b z.
        below, above = (lower - t) / b, (upper - t) / b
        one = np.zeros(1)
        unit = np.ones(1)

        def coverage(z: float) -> float:
            cdf = self.standard_noise_cdf
            return float(clamped_abs_cdf(z, one, unit, cdf, below, above)[0])

        return mse, b * _first_reaching(coverage, level, sorted({-below, above}), 1.0)

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

    def release_ragged(
        self,
        samples: Sequence[FloatArray] | SortedRows,
        eps_sample: float,
        lower: float,
        upper: float,
        rng: np.random.Generator,
    ) -> Release:
        """One release per sample of ``samples`` (sorted 1-d arrays of any lengths, empty
        included), for a mechanism with :attr:`ragged` set; others raise."""
        raise NotImplementedError(f"{type(self).__name__} releases equal-length batches only")

    def release_rows(
        self,
        rows: SortedRows | Sequence[ArrayLike],
        eps_sample: float,
        delta_sample: float,
        lower: float,
        upper: float,
        rng: np.random.Generator,
    ) -> Release:
        """One release per sample of ``rows`` (sorted, any sizes, empty ones included):
        exactly :meth:`release` of each sample alone, in order (:meth:`release_empty` for
        an empty one), the same draws from ``rng``, checked once
        (:func:`core.mechanisms.rows.release_rows`)."""
        return _rows.release_rows(self, rows, eps_sample, delta_sample, lower, upper, rng)

    def release_in_order(
        self,
        rows: SortedRows,
        eps_sample: float,
        delta_sample: float,
        lower: float,
        upper: float,
        rng: np.random.Generator,
    ) -> Release:
        """:meth:`release` of each non-empty sample of ``rows`` alone, in order, in one call
        (the arguments already checked by :meth:`release_rows`).

        By default vectorised when the subclass keeps this class's additive :meth:`release`
        (:func:`core.mechanisms.rows.additive_in_order`), else one call per sample; a
        subclass with its own release may override it with the same draws.
        """
        if type(self).release is Mechanism.release:
            return _rows.additive_in_order(self, rows, eps_sample, delta_sample, lower, upper, rng)
        return _rows.one_by_one(self, rows, eps_sample, delta_sample, lower, upper, rng)

    def release_with_empty(
        self,
        rows: SortedRows,
        eps_sample: float,
        delta_sample: float,
        lower: float,
        upper: float,
        rng: np.random.Generator,
    ) -> Release | None:
        """:meth:`release_rows` of ``rows`` with empty samples among them, in one call with
        the same draws as sample after sample (the arguments already checked), or None,
        before any draw, when the mechanism has no such release (then the samples between
        two empty ones go to :meth:`release_in_order` in turn).

        By default an additive mechanism with Laplace noise and an empty release stated by
        :meth:`empty_laplace` (:func:`core.mechanisms.rows.additive_with_empty`).
        """
        return _rows.additive_with_empty(self, rows, eps_sample, delta_sample, lower, upper, rng)

    def empty_laplace(
        self, eps_sample: float, lower: float, upper: float
    ) -> tuple[float, float, float] | None:
        """``(centre, scale, variance)`` when :meth:`release_empty` releases
        ``clip(centre + scale · Z, lower, upper)`` from one ``rng.laplace()`` draw ``Z`` and
        states that noise variance; None otherwise (the default)."""
        return None

    def statistic_rows(self, rows: SortedRows) -> FloatArray:
        """:meth:`statistic` of each non-empty sample of ``rows`` (by default computed for
        the samples of each size together)."""
        out = np.empty(len(rows))
        for idx, batch in rows.by_size():
            out[idx] = self.statistic(batch)
        return out

    def sensitivity_rows(
        self, rows: SortedRows, eps_sample: float, delta_sample: float, lower: float, upper: float
    ) -> FloatArray:
        """:meth:`sensitivity` of each non-empty sample of ``rows`` (by default computed for
        the samples of each size together)."""
        out = np.empty(len(rows))
        for idx, batch in rows.by_size():
            out[idx] = self.sensitivity(batch, eps_sample, delta_sample, lower, upper)
        return out

    def law_of_empty(self, eps_sample: float) -> ConditionalLaw | None:
        """The exact law of the release of an empty sample, when the mechanism states
        :attr:`Release.law` (None by default)."""
        return None

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other)

    def __hash__(self) -> int:
        return hash(type(self).__name__)
