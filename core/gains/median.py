"""The median (any quantile, any mechanism) by simulation: Hu, Drechsler & Kim, Sections 4.3, 4.4.

:func:`median_gain_experiment` releases a quantile of many SRSWOR samples at every rate and
of the population, and summarises the errors in a :class:`MedianExperiment`.

It reproduces the papers' figures, so an additive mechanism's noise is added as the papers
add it, ``statistic + b Z``, without the clamping to ``[lower, upper]`` that every
:meth:`core.mechanisms.Mechanism.release` (and so the release planner) applies; mechanisms
simulated through their own ``release`` (the exponential mechanism, the analytic Gaussian)
are clamped there.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal, TypeAlias

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from .. import sensitivity as sens
from .._validation import (
    FloatArray,
    check_bounds_or_no_upper,
    check_delta_open,
    check_eps_list,
    check_rate_list,
    check_seed,
    check_whole,
    values_in_bounds,
)
from ..amplification import sample_size
from ..gains.draws import (
    _SAMPLERS,
    _population_draws,
    _rate_draws,
    _RateDraws,
    _Setup,
    _simulated_by_release,
)
from ..gains.measures import _median_block
from ..mechanisms import (
    MECHANISMS,
    GaussianMean,
    Mechanism,
    SmoothLaplaceQuantile,
    mechanism_by_name,
)

__all__ = [
    "NO_FINITE_MEAN",
    "NO_UPPER_MECHANISMS",
    "QUANTILE_MECHANISMS",
    "MedianExperiment",
    "check_upper_needed",
    "measure_exists",
    "median_gain_experiment",
]


Estimator: TypeAlias = Literal["exact_noise_variance", "drawn_noise"]
Sampler: TypeAlias = Literal["auto", "full", "window"]
ProgressCallback: TypeAlias = Callable[[float, str], object]


_ESTIMATORS: tuple[str, ...] = ("exact_noise_variance", "drawn_noise")

#: Summary columns that average the errors, NaN for a mechanism of :data:`NO_FINITE_MEAN`.
_MEAN_COLUMNS: tuple[str, ...] = ("mse", "mse_se", "log_mse", "log_mse_se", "mae", "mae_se")


#: The quantile mechanisms :func:`mechanism_comparison` compares by default (those of them
#: whose error measure exists, see :data:`NO_FINITE_MEAN`).
QUANTILE_MECHANISMS: tuple[str, ...] = (
    "smooth_laplace",
    "smooth_pure",
    "exponential",
    "global_laplace",
    "smooth_polyplace",
    "piecewise_laplace",
    "unbounded",
)

#: The quantile mechanisms that need no public upper bound (``needs_upper`` false): the only
#: ones that run on a population stored with ``upper = inf``.
NO_UPPER_MECHANISMS: tuple[str, ...] = tuple(
    m for m in QUANTILE_MECHANISMS if not MECHANISMS[m].needs_upper
)

#: Quantile mechanisms whose release has no finite mean: ``"unbounded"`` releases, with a
#: small probability, a threshold from a tail that falls like ``1 / i``
#: (:class:`core.mechanisms.UnboundedQuantile`), so its mean squared and mean absolute
#: errors do not exist; a Monte Carlo average of them would only report how far the drawn
#: releases happened to reach.  Only the 95 % error bound (a quantile) describes them.
NO_FINITE_MEAN: frozenset[str] = frozenset({"unbounded"})

#: The error measures that average the errors (undefined for :data:`NO_FINITE_MEAN`).
MEAN_MEASURES: frozenset[str] = frozenset({"mse", "mae"})


def measure_exists(mechanism: str, measure: str) -> bool:
    """Whether ``measure`` (``"mse"``, ``"mae"``, ``"error_95"``) is finite for ``mechanism``.

    False only for a mean of the errors (MSE, mean absolute error) of a mechanism in
    :data:`NO_FINITE_MEAN`; every quantile of the error exists for every mechanism.
    """
    return not (mechanism in NO_FINITE_MEAN and measure in MEAN_MEASURES)


@dataclass(frozen=True, eq=False)
class MedianExperiment:
    """Result of :func:`median_gain_experiment`.

    Attributes
    ----------
    summary : pandas.DataFrame
        One row per (eps_target, rate); ``rate = 1.0`` is the population release.
    per_rep : pandas.DataFrame
        One row per (eps_target, rate, rep), for violin plots.
    population_median : float
        The population's value of the released statistic (the median ``m_N`` by default,
        else the order statistic of rank ``quantile_rank(N, q)``) that every error is
        measured against.
    N : int
        Population size.
    delta_target : float
        Population delta.
    reps : int
        Number of repetitions ``T``.
    seed : int
        Seed used.
    estimator : str
        ``"exact_noise_variance"`` or ``"drawn_noise"`` (the one actually used).
    mechanism : str
        :attr:`core.mechanisms.Mechanism.name` of the mechanism simulated
        (``"smooth_laplace"`` by default).
    quantile : float or None
        The quantile level of a quantile mechanism (0.5 by default), ``None`` for a mean.
    """

    summary: pd.DataFrame
    per_rep: pd.DataFrame
    population_median: float
    N: int
    delta_target: float
    reps: int
    seed: int
    estimator: str
    mechanism: str = SmoothLaplaceQuantile.name
    quantile: float | None = 0.5


def _resolve_mechanism(mechanism: str | Mechanism | None, quantile: float) -> Mechanism:
    """A mechanism object from a name (with ``quantile``) or an object (checked)."""
    q = sens.check_quantile(quantile)
    if mechanism is None or isinstance(mechanism, str):
        mech = mechanism_by_name(SmoothLaplaceQuantile.name if mechanism is None else mechanism)
        if q != 0.5:
            if not hasattr(mech, "quantile"):
                raise ValueError(
                    f"quantile is only for the quantile mechanisms {list(QUANTILE_MECHANISMS)}; "
                    f"mechanism {mech.name!r} got quantile={quantile!r}"
                )
            mech = type(mech)(quantile=q)  # type: ignore[call-arg]
        return mech
    if not isinstance(mechanism, Mechanism):
        raise ValueError(
            f"mechanism must be a name of core.mechanisms.MECHANISMS or a Mechanism; "
            f"got {mechanism!r}"
        )
    if q != 0.5 and getattr(mechanism, "quantile", None) != q:
        raise ValueError(
            "with a mechanism object, give the quantile to its constructor "
            f"(e.g. ExponentialQuantile(quantile={q!r})); got quantile={quantile!r}"
        )
    return mechanism


def _resolve_estimator(estimator: Estimator | None, mech: Mechanism) -> str:
    """The estimator to use: ``None`` picks the exact one when ``mech`` states a variance."""
    by_release = _simulated_by_release(mech)
    has_variance = mech.unit_noise_variance is not None and (
        not by_release or isinstance(mech, GaussianMean)
    )
    if estimator is None:
        return "exact_noise_variance" if has_variance else "drawn_noise"
    if estimator not in _ESTIMATORS:
        raise ValueError(f"estimator must be one of {_ESTIMATORS} or None; got {estimator!r}")
    if estimator == "exact_noise_variance" and not has_variance:
        raise ValueError(
            f"{mech!r} states no exact noise variance; use estimator='drawn_noise' (or None)"
        )
    return estimator


def _assemble(
    mech: Mechanism,
    draws: list[_RateDraws],
    s: _Setup,
    s_pop: FloatArray,
    m_N: float,
    estimator: str,
) -> MedianExperiment:
    """Summary and per-rep tables of one mechanism from its draws."""
    draws = sorted(draws, key=lambda d: d.rate)  # the population, rate 1.0, last
    exact = estimator == "exact_noise_variance"
    summary_rows: list[dict[str, object]] = []
    per_rep_parts: list[dict[str, np.ndarray]] = []
    for j in range(s.eps.size):
        for d in draws:
            row, part = _median_block(d, j, float(s.eps[j]), float(s_pop[j]), m_N, exact, mech)
            row["estimator"] = estimator
            summary_rows.append(row)
            per_rep_parts.append(part)
    per_rep = pd.DataFrame(
        {key: np.concatenate([part[key] for part in per_rep_parts]) for key in per_rep_parts[0]}
    )
    summary = pd.DataFrame(summary_rows)
    if mech.name in NO_FINITE_MEAN:
        # The averages of the drawn errors estimate nothing: the mean does not exist.
        summary[list(_MEAN_COLUMNS)] = np.nan
    return MedianExperiment(
        summary=summary,
        per_rep=per_rep,
        population_median=m_N,
        N=s.pop.size,
        delta_target=s.delta,
        reps=s.reps,
        seed=s.seed,
        estimator=estimator,
        mechanism=mech.name,
        quantile=getattr(mech, "quantile", None),
    )


def _simulate(
    mechs: Sequence[Mechanism],
    estimators: Sequence[str],
    s: _Setup,
    progress: ProgressCallback | None,
) -> list[MedianExperiment]:
    """Run the experiment of :func:`median_gain_experiment` for several mechanisms at once.

    Every mechanism sees the same samples (common random numbers) and its own noise
    generator, started from the same seed, so each result equals a run of
    :func:`median_gain_experiment` with that mechanism alone.
    """
    sample_ss, noise_ss = np.random.SeedSequence(s.seed).spawn(2)
    sample_rng = np.random.Generator(np.random.PCG64(sample_ss))
    noise_rngs = [np.random.Generator(np.random.PCG64(noise_ss)) for _ in mechs]
    steps = 1 + s.sample_rates.size
    m_N = [float(m.statistic(s.pop[np.newaxis, :])[0]) for m in mechs]
    pops = [_population_draws(m, s, r, c) for m, r, c in zip(mechs, noise_rngs, m_N, strict=True)]
    draws: list[list[_RateDraws]] = [[p[0]] for p in pops]
    if progress is not None:
        progress(1.0 / steps, "population")
    for k, rate in enumerate(s.sample_rates):
        for mine, d in zip(draws, _rate_draws(mechs, rate, s, sample_rng, noise_rngs), strict=True):
            mine.append(d)
        if progress is not None:
            n = sample_size(s.pop.size, float(rate))
            progress((k + 2) / steps, f"rate {float(rate):g} (n = {n})")
    return [
        _assemble(m, d, s, p[1], c, est)
        for m, d, p, c, est in zip(mechs, draws, pops, m_N, estimators, strict=True)
    ]


def check_upper_needed(mechanisms: Sequence[Mechanism], upper: float) -> None:
    """Raise unless every mechanism can run with this ``upper`` bound.

    ``upper = inf`` (no public upper bound) suits only the mechanisms whose
    :attr:`~core.mechanisms.Mechanism.needs_upper` is false (the unbounded quantile).

    Raises
    ------
    ValueError
        If ``upper`` is infinite and a mechanism needs a finite upper bound.
    """
    if np.isfinite(upper):
        return
    needing = [m.name for m in mechanisms if m.needs_upper]
    if needing:
        raise ValueError(
            f"upper is inf (no public upper bound), but {needing} need a finite upper bound; "
            "only mechanisms with needs_upper = False (such as 'unbounded') run without one"
        )


def _setup(
    values: ArrayLike,
    lower: float,
    upper: float,
    eps_targets: ArrayLike,
    rates: ArrayLike,
    reps: int,
    delta_target: float | None,
    seed: int,
    amplify_delta: bool,
    sampler: str = "auto",
) -> _Setup:
    """Validate the shared arguments of the experiment."""
    if sampler not in _SAMPLERS:
        raise ValueError(f"sampler must be one of {_SAMPLERS}; got {sampler!r}")
    lo, hi = check_bounds_or_no_upper(lower, upper)
    pop = values_in_bounds(values, lo, hi)
    eps = check_eps_list("eps_targets", eps_targets)
    rr = check_rate_list("rates", rates)
    T = check_whole("reps", reps, 2, 2**31)
    N = pop.size
    delta = (
        1.0 / (2.0 * N) if delta_target is None else check_delta_open("delta_target", delta_target)
    )
    return _Setup(
        pop, lo, hi, eps, rr[rr < 1.0], T, delta, bool(amplify_delta), check_seed(seed), sampler
    )


def median_gain_experiment(
    values: ArrayLike,
    *,
    lower: float,
    upper: float,
    eps_targets: ArrayLike,
    rates: ArrayLike,
    reps: int,
    delta_target: float | None = None,
    seed: int = 0,
    amplify_delta: bool = True,
    estimator: Estimator | None = None,
    progress: ProgressCallback | None = None,
    mechanism: str | Mechanism | None = "smooth_laplace",
    quantile: float = 0.5,
    sampler: Sampler = "auto",
) -> MedianExperiment:
    """Simulate a private quantile on the population and on SRSWOR samples (Section 4.3).

    Hu, Drechsler & Kim, Section 4.3 (Figures 6-8) and Section 4.4 (Figures 10-13), with
    the median generalised to any quantile ``q`` and the mechanism made a choice.  For every
    ``eps_target`` and repetition ``t = 1..T``:

    1. Population: with the default ``"smooth_laplace"``, ``m_N + Laplace(0, 2 S_N / eps)``
       where ``S_N`` is the smooth sensitivity (eq. 4) of the order statistic of rank
       ``k = quantile_rank(N, q)`` (:func:`core.sensitivity.quantile_rank`) at
       ``(eps_target, delta_target)``.
    2. Sample: draw an SRSWOR sample of ``n = max(1, round(rate N))`` records and take
       its statistic ``m_n`` (the order statistic of rank ``quantile_rank(n, q)``; the
       lower median ``(n + 1) // 2`` for ``q = 0.5``).
    3. Release ``m_n + Laplace(0, 2 S_n / eps_n)`` with ``S_n`` the smooth sensitivity of
       the sample at the amplified ``(eps_n, delta_n)``: ``eps_n = eps_sample(eps, n/N)``
       and ``delta_n = delta / (n/N)`` (Theorem 1), or ``delta_n = delta`` when
       ``amplify_delta`` is false.  ``delta_n`` is capped at :data:`DELTA_SAMPLE_CAP`
       (just below 1) because a delta of 1 or more constrains nothing and the smooth
       sensitivity needs ``delta < 1``; with the paper's ``delta = 1/(2N)`` the cap only
       acts for samples of a single record.

    Another mechanism replaces the releases of steps 1 and 3 by its own.  The error of
    each release is measured against the population's value of the same statistic (the
    same rank rule), and the summary reports three error measures over the ``T``
    repetitions: the mean squared error (MSE, the paper's), the mean absolute error (MAE)
    and the 95 % quantile of the absolute error.  Each sample is drawn once per
    (rate, rep) and reused for every ``eps_target``.

    Parameters
    ----------
    values : array_like
        The population (1-d, finite, inside ``[lower, upper]``).
    lower, upper : float
        Public bounds (the padding values of the smooth sensitivity).  ``upper`` may be
        ``inf`` (no public upper bound) for a mechanism that needs none (``"unbounded"``).
    eps_targets : array_like
        Non-empty list of population privacy losses (> 0); duplicates are dropped.
    rates : array_like
        Non-empty list of sampling rates in (0, 1]; duplicates are dropped.  The
        population (rate 1.0) is always included; a rate of 1.0 in the list is that row.
    reps : int
        Number of repetitions ``T`` >= 2.
    delta_target : float, optional
        Population delta in (0, 1); default ``1 / (2 N)`` as in the paper.
    seed : int
        Seed; ``numpy.random.Generator(PCG64)`` streams spawned from it draw the samples
        and the noise separately, so both estimators (and every mechanism) see the same
        samples.  The same seed gives the same result.
    amplify_delta : bool
        Use ``delta_target / rate`` on the samples (True) or ``delta_target`` (False).
    estimator : {"exact_noise_variance", "drawn_noise"} or None
        ``"exact_noise_variance"``: conditionally on the sample, Laplace noise with scale
        ``b = 2 S / eps`` has variance ``2 b^2 = 8 S^2 / eps^2``, so each squared error is
        ``(m_n - m_N)^2 + 8 S_n^2 / eps_n^2``.  It has the same expectation as a drawn
        squared error (the noise has mean 0 and is independent of the sample) but a
        smaller variance (Rao-Blackwellisation); the population MSE is then exactly
        ``8 S_N^2 / eps^2`` with standard error 0.  It needs a mechanism that states its
        conditional noise variance (every additive one here does, and the analytic
        Gaussian).  ``"drawn_noise"``: plain Monte Carlo, squared error
        ``(m_n + noise - m_N)^2``.  ``None`` (default): the exact estimator where the
        mechanism states a noise variance, drawn releases otherwise (the exponential
        mechanism, whose release is not statistic plus noise).  The MAE and the 95 %
        error always come from the drawn releases.
    progress : callable, optional
        ``progress(fraction_done, message)`` called after the population and after each
        rate.
    mechanism : str or core.mechanisms.Mechanism, default "smooth_laplace"
        A name of :data:`core.mechanisms.MECHANISMS` (``"smooth_laplace"``,
        ``"smooth_pure"``, ``"exponential"``, ``"global_laplace"``, ``"laplace"``,
        ``"gaussian"``) or a mechanism object; ``None`` means the default.  Additive
        mechanisms are simulated as ``statistic + noise_scale * standard_noise`` (their
        statistic replaces the median: the ``sample_median`` column and
        ``population_median`` hold it); the others through their own ``release``, whose
        ``release - statistic`` fills the ``noise`` column.
    quantile : float, default 0.5
        The level ``q`` in (0, 1) of a quantile mechanism given by name.  A mechanism
        object carries its own (then ``quantile`` must be 0.5 or equal to it).
    sampler : {"auto", "full", "window"}, default "auto"
        How the samples are drawn.  ``"full"``: every record of every sample.
        ``"window"``: only the order statistics near the quantile's rank that the release
        depends on (:mod:`core.windowed`; exact, same law, cost independent of ``N``); for
        the mechanisms marked :attr:`~core.mechanisms.Mechanism.windowed`
        (``smooth_laplace``, ``smooth_pure``, ``smooth_polyplace``, ``global_laplace``
        and, drawn ring by ring on samples of their own, ``exponential`` and
        ``piecewise_laplace``) -- the means and ``unbounded`` need the whole sample.
        ``"auto"``: windows for those mechanisms from ``n >=`` :data:`WINDOW_FROM_N`,
        whole samples otherwise.  The
        sampler changes which random numbers are used, not the law of the result.

    Returns
    -------
    MedianExperiment
        ``summary`` has one row per (eps_target, rate) with columns ``eps_target, rate,
        n, eps_sample, delta_sample, log_mse, log_mse_se, mse, mse_se, sampling_mse,
        noise_variance, mean_sensitivity, median_sensitivity_ratio, is_population, mae,
        mae_se, error_95, error_95_se, estimator``: ``sampling_mse`` is the mean of
        ``(m_n - m_N)^2``, ``noise_variance`` the mean of the stated conditional noise
        variance (``8 S^2 / eps^2`` by default; NaN when the mechanism states none; with
        the sampling part it makes the exact-noise MSE), ``log_mse = log(MSE)`` and
        ``log_mse_se = se(MSE) / MSE`` (delta method, ``se(MSE) = sd(squared errors) /
        sqrt(T)``); ``mae`` is the mean of ``|release - m_N|`` with ``mae_se = sd / sqrt(T)``
        and ``error_95`` its 95 % quantile with an order-statistic standard error.  For a
        mechanism of :data:`NO_FINITE_MEAN` (``"unbounded"``) the columns that average the
        errors (``mse``, ``mae``, their logs and standard errors) are NaN: those means do
        not exist, so only ``error_95`` describes its accuracy.
        ``per_rep`` is long with columns ``eps_target, rate, rep, n, sample_median,
        sensitivity, sensitivity_ratio`` (the sample's ``S_n`` over the population's
        ``S_N`` at the same ``eps_target``), ``noise`` (a drawn noise, ``release - m_n``;
        with the exact estimator it is not used in ``squared_error``) and
        ``squared_error``.

    Raises
    ------
    ValueError
        For empty lists, rates outside (0, 1], ``reps < 2``, bad bounds or delta, values
        outside the bounds, an unknown estimator or mechanism, a quantile outside (0, 1)
        or given to a mean mechanism, or the exact estimator with a mechanism that states
        no noise variance.
    """
    s = _setup(
        values, lower, upper, eps_targets, rates, reps, delta_target, seed, amplify_delta, sampler
    )
    if progress is not None and not callable(progress):
        raise ValueError("progress must be a callable(fraction_done, message) or None")
    mech = _resolve_mechanism(mechanism, quantile)
    check_upper_needed([mech], s.upper)
    used = _resolve_estimator(estimator, mech)
    return _simulate([mech], [used], s, progress)[0]
