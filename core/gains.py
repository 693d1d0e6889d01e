"""Accuracy gains (or losses) from privatising a random sample instead of the population.

Hu, Drechsler & Kim, "Accuracy gains from privacy amplification through sampling",
Section 4.  A statistic ``g`` is released with the Laplace mechanism either on the whole
population of ``N`` records at the target budget ``eps_target``, or on a simple random
sample without replacement (SRSWOR) of ``n = rate * N`` records at the larger amplified
budget ``eps_sample`` (Theorem 1, :func:`core.amplification.eps_sample`).  The sample
release pays a sampling variance but may need less noise; this module quantifies the
trade-off.

* Section 4.1 -- the no-gain condition (:func:`no_gain_threshold`).
* Section 4.2 -- the mean with global sensitivity: equations (6) and (7)
  (:func:`mean_variance_population`, :func:`mean_variance_sample`,
  :func:`mean_gain_table`, :func:`best_rate_mean`, :func:`simulate_mean_release`).
* Section 4.3 / 4.4 -- the median with smooth sensitivity, by simulation
  (:func:`median_gain_experiment`, :func:`best_rate`, :func:`compare_with_population`),
  generalised to any quantile, any mechanism of :mod:`core.mechanisms` and three error
  measures, and several mechanisms compared on the same samples
  (:func:`mechanism_comparison`).

Naming follows the project: ``eps_target`` is the guarantee for the population,
``eps_sample`` the budget spent on the sample, ``rate = n / N``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal, NamedTuple, TypeAlias

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from core import amplification as amp
from core import sensitivity as sens
from core._validation import (
    FloatArray,
    FloatOrArray,
    check_bounds,
    check_delta_open,
    check_eps_list,
    check_rate_list,
    check_seed,
    check_whole,
    finite_scalar,
    values_in_bounds,
)
from core.amplification import sample_size
from core.mechanisms import (
    ExponentialQuantile,
    GaussianMean,
    Mechanism,
    SmoothLaplaceQuantile,
    exponential_quantile_distribution,
    mechanism_by_name,
)
from core.windowed import window_exponential_draws, window_quantile_draws

__all__ = [
    "DELTA_SAMPLE_CAP",
    "ERROR_LEVEL",
    "MEASURES",
    "QUANTILE_MECHANISMS",
    "BestRate",
    "MechanismComparison",
    "MedianExperiment",
    "PopulationComparison",
    "best_rate",
    "best_rate_mean",
    "compare_with_population",
    "draw_sorted_samples",
    "mean_gain_table",
    "mean_variance_population",
    "mean_variance_sample",
    "mechanism_comparison",
    "median_gain_experiment",
    "no_gain_threshold",
    "sample_size",
    "simulate_mean_release",
]

Estimator: TypeAlias = Literal["exact_noise_variance", "drawn_noise"]
Sampler: TypeAlias = Literal["auto", "full", "window"]
ProgressCallback: TypeAlias = Callable[[float, str], object]

#: Largest ``delta_sample`` handed to the smooth sensitivity.  ``delta_target / rate``
#: reaches 1 for tiny samples; a delta >= 1 places no constraint at all and the smooth
#: sensitivity's ``beta = eps / (2 log(2 / delta))`` needs ``delta < 1`` to stay in the
#: regime of Nissim et al., so the amplified delta is capped just below 1.
DELTA_SAMPLE_CAP = 1.0 - 1e-9

_ESTIMATORS: tuple[str, ...] = ("exact_noise_variance", "drawn_noise")
# Rows of the (reps x n) sample matrix handled at once: keeps the matrix of sorted sample
# values (and its index matrix) at about 16 MB each, whatever n and reps are.
_CHUNK_ELEMENTS = 2_000_000


# ---------------------------------------------------------------------------------------
# Validation helpers
# ---------------------------------------------------------------------------------------


def draw_sorted_samples(
    rng: np.random.Generator, sorted_values: FloatArray, n: int, reps: int
) -> FloatArray:
    """Draw ``reps`` SRSWOR samples of size ``n`` and return them sorted, one per row.

    Each row comes from ``rng.choice(N, n, replace=False, shuffle=False)``; sorting the
    *indices* into the sorted population yields the sorted sample values directly.

    Parameters
    ----------
    rng : numpy.random.Generator
        Source of randomness (advanced by ``reps`` draws).
    sorted_values : ndarray
        The population, sorted ascending.
    n : int
        Sample size, 1 <= n <= N.
    reps : int
        Number of samples.

    Returns
    -------
    ndarray, shape (reps, n)
        Sorted sample values.
    """
    N = sorted_values.size
    idx = np.empty((reps, n), dtype=np.intp)
    for r in range(reps):
        idx[r] = rng.choice(N, n, replace=False, shuffle=False)
    idx.sort(axis=1)
    return sorted_values[idx]


# ---------------------------------------------------------------------------------------
# Section 4.1 and 4.2: the mean with global sensitivity
# ---------------------------------------------------------------------------------------


def mean_variance_population(
    eps_target: ArrayLike, N: int, lower: float, upper: float
) -> FloatOrArray:
    """Variance ``V_N`` of the Laplace-privatised population mean (Hu et al. eq. 6).

    The population mean has global sensitivity ``R / N`` with ``R = upper - lower``;
    Laplace noise with scale ``R / (eps N)`` has variance::

        V_N = 2 (R / (eps_target N))^2.

    There is no sampling variance: the whole population is used.

    Parameters
    ----------
    eps_target : float or array_like
        Privacy loss for the population, finite and > 0.
    N : int
        Population size, >= 1.
    lower, upper : float
        Public bounds of the variable (``lower < upper``).

    Returns
    -------
    float or ndarray
        ``V_N``, broadcast over ``eps_target``.
    """
    lo, hi = check_bounds(lower, upper)
    if N < 1:
        raise ValueError(f"N must be >= 1; got {N!r}")
    eps = np.asarray(eps_target, dtype=np.float64)
    if not (np.isfinite(eps) & (eps > 0)).all():
        raise ValueError(f"eps_target must be finite and > 0; got {eps_target!r}")
    out = 2.0 * ((hi - lo) / (eps * float(N))) ** 2
    return float(out) if np.ndim(eps_target) == 0 else out


def _mean_parts(
    eps_target: FloatArray, n: FloatArray, N: int, S2_N: float, R: float
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Return ``(sampling_part, noise_part, eps_sample)`` of eq. 7 (validated inputs)."""
    rate = n / N
    eps_s = np.asarray(amp.eps_sample(eps_target, rate), dtype=np.float64)
    sampling = (1.0 - rate) * S2_N / n
    noise = 2.0 * (R / (eps_s * n)) ** 2
    return sampling, noise, eps_s


def mean_variance_sample(
    eps_target: ArrayLike,
    n: ArrayLike,
    N: int,
    S2_N: float,
    lower: float,
    upper: float,
) -> FloatOrArray:
    """Variance ``V_n`` of the Laplace-privatised mean of an SRSWOR sample (Hu et al. eq. 7).

    The sample mean of ``n`` out of ``N`` records has sampling variance
    ``(1 - n/N) S_N^2 / n`` and global sensitivity ``R / n``; the Laplace noise uses the
    amplified budget ``eps_n = eps_sample(eps_target, n/N)`` (Theorem 1), so::

        V_n = (1 - n/N) S_N^2 / n + 2 (R / (eps_n n))^2.

    Parameters
    ----------
    eps_target : float or array_like
        Privacy loss for the population, finite and > 0.
    n : float or array_like
        Sample size(s), ``0 < n <= N`` (for a rate, pass ``rate * N``; non-integer values
        are accepted so that smooth curves can be drawn).
    N : int
        Population size.
    S2_N : float
        Population variance with divisor ``N - 1``, >= 0.
    lower, upper : float
        Public bounds of the variable.

    Returns
    -------
    float or ndarray
        ``V_n``, broadcast over ``eps_target`` and ``n``.  At ``n = N`` it equals
        :func:`mean_variance_population`.
    """
    lo, hi = check_bounds(lower, upper)
    if N < 1:
        raise ValueError(f"N must be >= 1; got {N!r}")
    s2 = finite_scalar("S2_N", S2_N)
    if s2 < 0:
        raise ValueError(f"S2_N must be >= 0; got {S2_N!r}")
    nn = np.asarray(n, dtype=np.float64)
    if not ((nn > 0) & (nn <= N)).all():
        raise ValueError(f"n must satisfy 0 < n <= N = {N}; got {n!r}")
    eps = np.asarray(eps_target, dtype=np.float64)
    if not (np.isfinite(eps) & (eps > 0)).all():
        raise ValueError(f"eps_target must be finite and > 0; got {eps_target!r}")
    e, m = np.broadcast_arrays(eps, nn)
    sampling, noise, _ = _mean_parts(e, m, N, s2, hi - lo)
    out = sampling + noise
    return float(out) if np.ndim(eps_target) == 0 and np.ndim(n) == 0 else out


def no_gain_threshold(
    eps_target: ArrayLike, rate: ArrayLike, global_sensitivity: ArrayLike
) -> FloatOrArray:
    """Sampling variance above which sampling cannot improve accuracy (Hu et al. Section 4.1).

    For any statistic released with the Laplace mechanism, whose global sensitivity on
    the sample is at least the population's ``Delta``, the sample release is never more
    accurate than the population release when::

        Var(g(S(Y_N))) >= 2 Delta^2 (1 / eps_target^2 - 1 / eps_sample^2).

    Computed as ``2 Delta^2 q / eps_target^2`` with ``q = 1 - (eps_target /
    eps_sample)^2`` from :func:`core.amplification.sampling_variance_bound`, which is free
    of cancellation near ``rate = 1``.

    Parameters
    ----------
    eps_target : float or array_like
        Privacy loss for the population, finite and > 0.
    rate : float or array_like
        Sampling rate n/N in (0, 1].
    global_sensitivity : float or array_like
        Global sensitivity ``Delta`` of the statistic on the population, finite and >= 0.

    Returns
    -------
    float or ndarray
        The threshold, >= 0 (0 at ``rate = 1``); it grows as ``eps_sample`` grows, i.e.
        as the rate falls.
    """
    delta = np.asarray(global_sensitivity, dtype=np.float64)
    if not (np.isfinite(delta) & (delta >= 0)).all():
        raise ValueError(f"global_sensitivity must be finite and >= 0; got {global_sensitivity!r}")
    q = amp.sampling_variance_bound(eps_target, rate)
    out = 2.0 * delta**2 * np.asarray(q) / np.asarray(eps_target, dtype=np.float64) ** 2
    scalar = all(np.ndim(v) == 0 for v in (eps_target, rate, global_sensitivity))
    return float(out) if scalar else np.asarray(out, dtype=np.float64)


def mean_gain_table(
    values: ArrayLike,
    lower: float,
    upper: float,
    eps_targets: ArrayLike,
    rates: ArrayLike,
) -> pd.DataFrame:
    """Tidy table of eq. 6 against eq. 7 for the mean of ``values`` (Hu et al. Section 4.2).

    For each pair (``eps_target``, ``rate``) the sample size is
    ``n = max(1, round(rate N))`` and every quantity uses the realised ``n / N``.

    Parameters
    ----------
    values : array_like
        The population (1-d, finite, inside ``[lower, upper]``).
    lower, upper : float
        Public bounds; ``R = upper - lower``.
    eps_targets : array_like
        Non-empty list of population privacy losses (> 0).
    rates : array_like
        Non-empty list of sampling rates in (0, 1].

    Returns
    -------
    pandas.DataFrame
        One row per (eps_target, rate), sorted, with columns ``eps_target, rate, n,
        eps_sample, V_n, V_N, sampling_part, noise_part, r, gain``: ``sampling_part =
        (1 - n/N) S_N^2 / n``, ``noise_part = 2 (R / (eps_sample n))^2``, ``r`` is the
        noise-variance ratio of eq. 8 and ``gain = V_N / V_n - 1`` (negative: the sample
        is less accurate).  ``gain`` is computed from ``V_n - V_N = sampling_part + V_N
        (1 - r) / r`` with the cancellation-free ``1 - r`` of
        :func:`core.amplification.noise_variance_gap`, so it is <= 0 even where ``r``
        rounds to 1.
    """
    lo, hi = check_bounds(lower, upper)
    pop = values_in_bounds(values, lo, hi)
    eps = check_eps_list("eps_targets", eps_targets)
    rr = check_rate_list("rates", rates)
    N = pop.size
    s2 = float(np.var(pop, ddof=1)) if N > 1 else 0.0
    R = hi - lo

    n = np.array([sample_size(N, r) for r in rr], dtype=np.float64)
    E, Nn = np.meshgrid(eps, n, indexing="ij")
    _, RR = np.meshgrid(eps, rr, indexing="ij")
    sampling, noise, eps_s = _mean_parts(E, Nn, N, s2, R)
    realised = Nn / N
    r = np.asarray(amp.noise_variance_ratio(E, realised), dtype=np.float64)
    gap = np.asarray(amp.noise_variance_gap(E, realised), dtype=np.float64)
    v_pop = 2.0 * (R / (E * N)) ** 2
    v_n = sampling + noise
    excess = sampling + v_pop * gap / (1.0 - gap)
    gain = -excess / v_n
    table = pd.DataFrame(
        {
            "eps_target": E.ravel(),
            "rate": RR.ravel(),
            "n": Nn.ravel().astype(np.int64),
            "eps_sample": eps_s.ravel(),
            "V_n": v_n.ravel(),
            "V_N": v_pop.ravel(),
            "sampling_part": sampling.ravel(),
            "noise_part": noise.ravel(),
            "r": r.ravel(),
            "gain": gain.ravel(),
        }
    )
    return table


def best_rate_mean(
    values: ArrayLike,
    lower: float,
    upper: float,
    eps_target: float,
    rates: ArrayLike,
) -> float:
    """Sampling rate that minimises ``V_n`` for the mean (Hu et al. Section 4.2).

    The candidates are ``rates`` plus 1 (the population).  The answer is always 1: for
    every rate < 1 the noise-variance ratio ``r`` of eq. 8 is < 1, so the sample's noise
    part alone, ``V_N / r``, already exceeds ``V_N``, before any sampling variance is
    added.  The function checks this on the data rather than assuming it.

    Parameters
    ----------
    values : array_like
        The population.
    lower, upper : float
        Public bounds.
    eps_target : float
        Population privacy loss, > 0.
    rates : array_like
        Candidate sampling rates in (0, 1].

    Returns
    -------
    float
        The minimising rate (1.0).
    """
    rr = np.append(check_rate_list("rates", rates), 1.0)
    table = mean_gain_table(values, lower, upper, [eps_target], rr)
    # Minimising V_n is maximising gain = V_N / V_n - 1, which mean_gain_table computes
    # without cancellation; the population has gain 0 and wins ties.
    gain = table["gain"].to_numpy()
    rate = table["rate"].to_numpy()
    best = float(gain.max())
    return float(rate[gain == best].max())


def simulate_mean_release(
    values: ArrayLike,
    lower: float,
    upper: float,
    eps_target: float,
    n: int,
    reps: int,
    seed: int = 0,
) -> float:
    """Monte Carlo variance of the privatised SRSWOR sample mean (checks Hu et al. eq. 7).

    Each repetition draws a simple random sample without replacement of size ``n``,
    computes its mean and adds Laplace noise with scale ``R / (eps_n n)``, where
    ``eps_n = eps_sample(eps_target, n / N)``.

    Parameters
    ----------
    values : array_like
        The population.
    lower, upper : float
        Public bounds.
    eps_target : float
        Population privacy loss, > 0.
    n : int
        Sample size, 1 <= n <= N.
    reps : int
        Number of repetitions, >= 2.
    seed : int
        Seed of ``numpy.random.Generator(PCG64(seed))``.

    Returns
    -------
    float
        Empirical variance (divisor ``reps - 1``) of the ``reps`` releases; its
        expectation is ``V_n`` of :func:`mean_variance_sample`.
    """
    lo, hi = check_bounds(lower, upper)
    pop = values_in_bounds(values, lo, hi)
    eps = finite_scalar("eps_target", eps_target)
    if eps <= 0:
        raise ValueError(f"eps_target must be > 0; got {eps_target!r}")
    N = pop.size
    if isinstance(n, bool) or not isinstance(n, int | np.integer) or not 1 <= n <= N:
        raise ValueError(f"n must be an integer with 1 <= n <= N = {N}; got {n!r}")
    reps = check_whole("reps", reps, 2, 2**31)
    rng = np.random.Generator(np.random.PCG64(check_seed(seed)))
    eps_s = float(amp.eps_sample(eps, n / N))
    means = np.empty(reps)
    for r in range(reps):
        means[r] = pop[rng.choice(N, int(n), replace=False, shuffle=False)].mean()
    releases = means + rng.laplace(0.0, (hi - lo) / (eps_s * n), size=reps)
    return float(np.var(releases, ddof=1))


# ---------------------------------------------------------------------------------------
# Sections 4.3 and 4.4: the median (any quantile, any mechanism) by simulation
# ---------------------------------------------------------------------------------------

#: Error measures of the experiment: mean squared error (the paper's), mean absolute
#: error and the 95 % quantile of the absolute error ("95 % of releases lie within ±X").
MEASURES: tuple[str, ...] = ("mse", "mae", "error_95")
#: Level of the ``error_95`` measure.
ERROR_LEVEL = 0.95
#: The quantile mechanisms :func:`mechanism_comparison` compares by default.
QUANTILE_MECHANISMS: tuple[str, ...] = (
    "smooth_laplace",
    "smooth_pure",
    "exponential",
    "global_laplace",
)


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


def _summarise(sq: FloatArray) -> tuple[float, float, float]:
    """Return ``(mse, mse_se, log_mse_se)`` for the squared errors ``sq``."""
    mse = float(sq.mean())
    sd = float(sq.std(ddof=1))
    mse_se = sd / math.sqrt(sq.size)
    log_se = mse_se / mse if mse > 0 else math.nan
    return mse, mse_se, log_se


def _quantile_with_se(abs_err: FloatArray, level: float) -> tuple[float, float]:
    """The ``level``-quantile of ``abs_err`` and its distribution-free standard error.

    The count of draws below the true quantile is Binomial(T, level), with standard
    deviation ``sqrt(T level (1 - level))``; the order statistics that many ranks either
    side of ``T level`` span about two standard errors of the sample quantile, so the
    standard error is half their distance (a binomial, order-statistic interval).
    """
    T = abs_err.size
    value = float(np.quantile(abs_err, level))
    ordered = np.sort(abs_err)
    spread = math.sqrt(T * level * (1.0 - level))
    lo = int(np.clip(math.floor(T * level - spread), 0, T - 1))
    hi = int(np.clip(math.ceil(T * level + spread), 0, T - 1))
    return value, float(ordered[hi] - ordered[lo]) / 2.0


def _error_measures(abs_err: FloatArray) -> dict[str, float]:
    """``mae``, ``mae_se``, ``error_95`` and ``error_95_se`` of drawn absolute errors."""
    mae = float(abs_err.mean())
    mae_se = float(abs_err.std(ddof=1)) / math.sqrt(abs_err.size)
    q95, q95_se = _quantile_with_se(abs_err, ERROR_LEVEL)
    return {"mae": mae, "mae_se": mae_se, "error_95": q95, "error_95_se": q95_se}


@dataclass(frozen=True, eq=False)
class _RateDraws:
    """Everything simulated for one rate: shared by all eps_target (row j of 2-d arrays).

    Additive mechanisms keep the standard noise draws ``z``; the others (simulated through
    their own ``release``) keep the ``released`` values and, when the mechanism states it,
    the exact conditional ``noise_var``.
    """

    rate: float
    n: int
    eps_sample: FloatArray  # (n_eps,)
    delta_sample: float
    medians: FloatArray  # (T,)
    sensitivity: FloatArray  # (n_eps, T)
    z: FloatArray | None = None  # (n_eps, T) standard noise draws
    released: FloatArray | None = None  # (n_eps, T)
    noise_var: FloatArray | None = None  # (n_eps, T)


def _noise_and_variance(
    d: _RateDraws, j: int, mechanism: Mechanism
) -> tuple[FloatArray, FloatArray]:
    """Drawn noise ``release - statistic`` and the stated noise variance (NaN if none)."""
    T = d.medians.size
    eps_s = float(d.eps_sample[j])
    s = d.sensitivity[j]
    if d.released is not None:
        noise = d.released[j] - d.medians
        stated = None if d.noise_var is None else d.noise_var[j]
    else:
        assert d.z is not None
        noise = d.z[j] * mechanism.noise_scale(s, eps_s)
        stated = mechanism.noise_variance(s, eps_s)
    noise_var = np.full(T, np.nan) if stated is None else np.asarray(stated, dtype=np.float64)
    return noise, noise_var


def _median_block(
    d: _RateDraws,
    j: int,
    eps_target: float,
    s_pop: float,
    m_N: float,
    exact: bool,
    mechanism: Mechanism,
) -> tuple[dict[str, object], dict[str, np.ndarray]]:
    """Summary row and per-rep columns for one (eps_target, rate)."""
    T = d.medians.size
    s = d.sensitivity[j]
    is_pop = d.rate == 1.0
    noise, noise_var = _noise_and_variance(d, j, mechanism)
    err = d.medians - m_N
    sq = err**2 + noise_var if exact else (err + noise) ** 2
    mse, mse_se, log_se = _summarise(sq)
    if exact and is_pop:
        # A constant (8 S_N^2 / eps^2 for the smooth median): no Monte Carlo error at all.
        mse_se, log_se = 0.0, 0.0
    with np.errstate(divide="ignore", invalid="ignore"):
        log_mse = float(np.log(mse))
        ratio = s / s_pop if s_pop > 0 else np.full(T, np.nan)
    row: dict[str, object] = {
        "eps_target": eps_target,
        "rate": d.rate,
        "n": d.n,
        "eps_sample": float(d.eps_sample[j]),
        "delta_sample": d.delta_sample,
        "log_mse": log_mse,
        "log_mse_se": log_se,
        "mse": mse,
        "mse_se": mse_se,
        "sampling_mse": float((err**2).mean()),
        "noise_variance": float(noise_var.mean()),
        "mean_sensitivity": float(s.mean()),
        "median_sensitivity_ratio": float(np.median(ratio)),
        "is_population": is_pop,
        **_error_measures(np.abs(err + noise)),
    }
    part = {
        "eps_target": np.full(T, eps_target),
        "rate": np.full(T, d.rate),
        "rep": np.arange(T, dtype=np.int64),
        "n": np.full(T, d.n, dtype=np.int64),
        "sample_median": d.medians,
        "sensitivity": s,
        "sensitivity_ratio": ratio,
        "noise": noise,
        "squared_error": sq,
    }
    return row, part


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


def _simulated_by_release(mech: Mechanism) -> bool:
    """Whether ``mech`` is simulated through its own ``release`` (drawn releases).

    Non-additive mechanisms (the exponential mechanism), and additive ones whose noise scale
    needs more than ``(S, eps)`` (the analytic Gaussian's depends on ``delta``), are; the
    others are simulated as ``statistic + noise_scale * standard_noise``.
    """
    if not mech.additive:
        return True
    try:
        mech.noise_scale(np.ones(1), 1.0)
    except ValueError:
        return True
    return False


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


@dataclass(frozen=True)
class _Setup:
    """Validated inputs shared by every mechanism of one simulation."""

    pop: FloatArray
    lower: float
    upper: float
    eps: FloatArray
    sample_rates: FloatArray
    reps: int
    delta: float
    amplify_delta: bool
    seed: int
    sampler: str = "auto"


def _population_release(
    mech: Mechanism, s: _Setup, rng: np.random.Generator
) -> tuple[FloatArray, FloatArray | None, FloatArray]:
    """``(released, noise_var or None, sensitivity)``, each ``(n_eps, T)``, for the census.

    The exponential mechanism is drawn from its exact law on the population
    (:func:`core.mechanisms.exponential_quantile_distribution`: an interval by its
    probability, then a uniform point), which is the law of its ``release`` and costs
    ``O(N)`` instead of ``O(T N)``; other mechanisms release ``T`` copies in chunks.
    """
    N, T = s.pop.size, s.reps
    released = np.empty((s.eps.size, T))
    noise_var: FloatArray | None = None
    sensitivity = np.empty((s.eps.size, T))
    chunk = max(1, min(T, _CHUNK_ELEMENTS // N))
    for j, e in enumerate(s.eps):
        if isinstance(mech, ExponentialQuantile):
            edges, p = exponential_quantile_distribution(
                s.pop, float(e), s.lower, s.upper, mech.quantile
            )
            pick = np.minimum(np.searchsorted(np.cumsum(p), rng.random(T) * p.sum()), p.size - 1)
            left, right = edges[pick], edges[pick + 1]
            released[j] = np.clip(left + rng.random(T) * (right - left), left, right)
            sensitivity[j] = 1.0
            continue
        for start in range(0, T, chunk):
            stop = min(T, start + chunk)
            rows = np.broadcast_to(s.pop, (stop - start, N))
            out = mech.release(rows, float(e), s.delta, s.lower, s.upper, rng)
            released[j, start:stop] = out.released
            sensitivity[j, start:stop] = out.sensitivity
            if out.noise_variance is not None:
                noise_var = np.empty((s.eps.size, T)) if noise_var is None else noise_var
                noise_var[j, start:stop] = out.noise_variance
    return released, noise_var, sensitivity


def _population_draws(
    mech: Mechanism, s: _Setup, rng: np.random.Generator, m_N: float
) -> tuple[_RateDraws, FloatArray]:
    """The population "rate" (the sample is the census) and its sensitivity per eps."""
    n_eps, T, N = s.eps.size, s.reps, s.pop.size
    if _simulated_by_release(mech):
        released, noise_var, sensitivity = _population_release(mech, s, rng)
        draws = _RateDraws(
            1.0, N, s.eps, s.delta, np.full(T, m_N), sensitivity,
            released=released, noise_var=noise_var,
        )  # fmt: skip
        return draws, sensitivity[:, 0]
    # One eps at a time on the population itself: no (n_eps, N) copy of a large population.
    row = s.pop[np.newaxis, :]
    s_pop = np.array([mech.sensitivity(row, float(e), s.delta, s.lower, s.upper)[0] for e in s.eps])
    draws = _RateDraws(
        1.0, N, s.eps, s.delta, np.full(T, m_N),
        np.repeat(s_pop[:, np.newaxis], T, axis=1), z=mech.standard_noise(rng, (n_eps, T)),
    )  # fmt: skip
    return draws, s_pop


@dataclass
class _RateBuffers:
    """Arrays one mechanism fills chunk by chunk for one sampling rate."""

    medians: FloatArray
    sensitivity: FloatArray
    released: FloatArray | None
    noise_var: FloatArray | None


def _fill_chunk(
    mech: Mechanism,
    buf: _RateBuffers,
    samples: FloatArray,
    sl: slice,
    eps_s: FloatArray,
    delta_s: float,
    s: _Setup,
    rng: np.random.Generator,
) -> None:
    """Statistic and sensitivity (or releases) of one chunk of samples, every eps."""
    buf.medians[sl] = mech.statistic(samples)
    for j in range(eps_s.size):
        if buf.released is None:
            buf.sensitivity[j, sl] = mech.sensitivity(samples, eps_s[j], delta_s, s.lower, s.upper)
            continue
        out = mech.release(samples, float(eps_s[j]), delta_s, s.lower, s.upper, rng)
        buf.released[j, sl] = out.released
        buf.sensitivity[j, sl] = out.sensitivity
        if buf.noise_var is not None and out.noise_variance is not None:
            buf.noise_var[j, sl] = out.noise_variance


#: Sample size from which ``sampler="auto"`` draws only the window around the quantile's
#: rank (:mod:`core.windowed`) instead of the whole sample: below it a whole sample is
#: cheap, above it the window's cost does not grow with ``n``.
WINDOW_FROM_N = 50_000

_SAMPLERS: tuple[str, ...] = ("auto", "full", "window")


def _use_window(mechs: Sequence[Mechanism], n: int, s: _Setup) -> bool:
    """Whether this rate's samples are drawn as windows (:mod:`core.windowed`)."""
    can = (
        all(
            m.windowed and (isinstance(m, ExponentialQuantile) or not _simulated_by_release(m))
            for m in mechs
        )
        and len({getattr(m, "quantile", None) for m in mechs}) == 1
    )
    if s.sampler == "window" and not can:
        names = [m.name for m in mechs if not m.windowed]
        raise ValueError(
            f"sampler='window' needs mechanisms whose release can be drawn from order "
            f"statistics near one rank (smooth_laplace, smooth_pure, global_laplace, "
            f"exponential); {names or [m.name for m in mechs]} need the whole sample"
        )
    return can and (s.sampler == "window" or (s.sampler == "auto" and n >= WINDOW_FROM_N))


def _fill_from_windows(
    mechs: Sequence[Mechanism],
    buffers: Sequence[_RateBuffers],
    n: int,
    eps_s: FloatArray,
    delta_s: float,
    s: _Setup,
    sample_rng: np.random.Generator,
    noise_rngs: Sequence[np.random.Generator],
) -> None:
    """Statistic and sensitivity (or releases) of every mechanism from windows.

    The additive quantile mechanisms share one set of windows, hence the same samples for
    every mechanism and ``eps`` (common random numbers), as with whole samples.  The
    exponential mechanism is drawn ring by ring on samples of its own
    (:func:`core.windowed.window_exponential_draws`).
    """
    sizes = np.full(s.reps, n)
    quantile = float(getattr(mechs[0], "quantile", 0.5))
    additive = [a for a, m in enumerate(mechs) if not isinstance(m, ExponentialQuantile)]
    if additive:
        betas: list[float] = []
        index: dict[tuple[int, int], int] = {}
        for a in additive:
            for j, e in enumerate(eps_s):
                beta = mechs[a].window_beta(float(e), delta_s)
                if beta is not None:
                    index[(a, j)] = len(betas)
                    betas.append(beta)
        stat, sensitivity = window_quantile_draws(
            sample_rng, s.pop, sizes, quantile, betas, s.lower, s.upper
        )
        one = np.empty((s.reps, 1))
        for a in additive:
            buf = buffers[a]
            buf.medians[:] = stat
            for j, e in enumerate(eps_s):
                k = index.get((a, j))
                buf.sensitivity[j] = (
                    sensitivity[k] if k is not None
                    else mechs[a].sensitivity(one, float(e), delta_s, s.lower, s.upper)
                )  # fmt: skip
    for a, m in enumerate(mechs):
        if isinstance(m, ExponentialQuantile):
            buf = buffers[a]
            assert buf.released is not None
            stat, released = window_exponential_draws(
                sample_rng, noise_rngs[a], s.pop, sizes, quantile, eps_s, s.lower, s.upper
            )
            buf.medians[:] = stat
            buf.released[:] = released
            buf.sensitivity[:] = 1.0


def _rate_draws(
    mechs: Sequence[Mechanism],
    rate: float,
    s: _Setup,
    sample_rng: np.random.Generator,
    noise_rngs: Sequence[np.random.Generator],
) -> list[_RateDraws]:
    """One sampling rate: the samples are drawn once and handed to every mechanism."""
    N, T, n_eps = s.pop.size, s.reps, s.eps.size
    n = sample_size(N, float(rate))
    realised = n / N
    eps_s = np.atleast_1d(np.asarray(amp.eps_sample(s.eps, realised), dtype=np.float64))
    delta_s = min(s.delta / realised, DELTA_SAMPLE_CAP) if s.amplify_delta else s.delta
    buffers = []
    for mech in mechs:
        by_release = _simulated_by_release(mech)
        buffers.append(
            _RateBuffers(
                np.empty(T), np.empty((n_eps, T)),
                np.empty((n_eps, T)) if by_release else None,
                np.empty((n_eps, T)) if by_release and isinstance(mech, GaussianMean) else None,
            )
        )  # fmt: skip
    if _use_window(mechs, n, s):
        _fill_from_windows(mechs, buffers, n, eps_s, delta_s, s, sample_rng, noise_rngs)
    else:
        chunk = max(1, min(T, _CHUNK_ELEMENTS // n))
        for start in range(0, T, chunk):
            stop = min(T, start + chunk)
            samples = draw_sorted_samples(sample_rng, s.pop, n, stop - start)
            for mech, buf, rng in zip(mechs, buffers, noise_rngs, strict=True):
                _fill_chunk(mech, buf, samples, slice(start, stop), eps_s, delta_s, s, rng)
    out = []
    for mech, buf, rng in zip(mechs, buffers, noise_rngs, strict=True):
        z = None if buf.released is not None else mech.standard_noise(rng, (n_eps, T))
        out.append(
            _RateDraws(
                float(rate), n, eps_s, delta_s, buf.medians, buf.sensitivity,
                z=z, released=buf.released, noise_var=buf.noise_var,
            )
        )  # fmt: skip
    return out


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
    return MedianExperiment(
        summary=pd.DataFrame(summary_rows),
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
    lo, hi = check_bounds(lower, upper)
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
        Public bounds (the padding values of the smooth sensitivity).
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
        (``smooth_laplace``, ``smooth_pure``, ``global_laplace`` and, drawn ring by ring
        on samples of its own, ``exponential``) -- the means need the whole sample.
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
        and ``error_95`` its 95 % quantile with an order-statistic standard error.
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
    used = _resolve_estimator(estimator, mech)
    return _simulate([mech], [used], s, progress)[0]


class BestRate(NamedTuple):
    """Best sampling rate for one ``eps_target`` (see :func:`best_rate`)."""

    rate: float
    log_mse: float
    relative_change: float


def _check_measure(measure: str) -> str:
    if measure not in MEASURES:
        raise ValueError(f"measure must be one of {MEASURES}; got {measure!r}")
    return measure


def _log_columns(rows: pd.DataFrame, measure: str) -> tuple[np.ndarray, np.ndarray]:
    """``log(measure)`` and its delta-method standard error ``se / value`` per row."""
    if measure == "mse":
        return rows["log_mse"].to_numpy(dtype=float), rows["log_mse_se"].to_numpy(dtype=float)
    value = rows[measure].to_numpy(dtype=float)
    se = rows[f"{measure}_se"].to_numpy(dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.log(value), np.where(value > 0, se / value, np.nan)


def _rows_for(summary: pd.DataFrame, eps_target: float, measure: str = "mse") -> pd.DataFrame:
    _check_measure(measure)
    required = {"eps_target", "rate", "mse", "log_mse", "log_mse_se"}
    if measure != "mse":
        required |= {measure, f"{measure}_se"}
    missing = required - set(summary.columns)
    if missing:
        raise ValueError(f"summary lacks the columns {sorted(missing)}")
    rows = summary[np.isclose(summary["eps_target"].to_numpy(dtype=float), eps_target)]
    if rows.empty:
        have = sorted(set(summary["eps_target"].tolist()))
        raise ValueError(f"eps_target={eps_target!r} is not in the summary (have {have})")
    if not (rows["rate"] == 1.0).any():
        raise ValueError(f"the summary has no population row (rate 1.0) for eps={eps_target!r}")
    if measure == "mse":
        return rows
    log_value, log_se = _log_columns(rows, measure)
    # The comparisons below read mse/log_mse/log_mse_se: give them the chosen measure.
    return rows.assign(mse=rows[measure], log_mse=log_value, log_mse_se=log_se)


def _relative(mse: float, mse_pop: float) -> float:
    if mse_pop > 0:
        return mse / mse_pop - 1.0
    return 0.0 if mse == 0 else math.inf


def best_rate(summary: pd.DataFrame, eps_target: float, measure: str = "mse") -> BestRate:
    """Rate with the smallest error for ``eps_target`` in a :func:`median_gain_experiment` summary.

    Parameters
    ----------
    summary : pandas.DataFrame
        ``MedianExperiment.summary``.
    eps_target : float
        One of the privacy losses in the summary.
    measure : {"mse", "mae", "error_95"}
        The error measure compared (MSE by default, as in Hu et al. §4.3).

    Returns
    -------
    BestRate
        ``(rate, log_mse, relative_change)`` with ``relative_change = error_best /
        error_population - 1`` (<= 0; 0 when the population itself is best, reported as
        rate 1.0); ``log_mse`` holds the log of the chosen measure.  A sample must be
        strictly better than the population to win.
    """
    rows = _rows_for(summary, eps_target, measure)
    pop = rows[rows["rate"] == 1.0].iloc[0]
    samples = rows[rows["rate"] < 1.0]
    if not samples.empty:
        best = samples.loc[samples["mse"].idxmin()]
        if best["mse"] < pop["mse"]:
            return BestRate(
                float(best["rate"]),
                float(best["log_mse"]),
                _relative(float(best["mse"]), float(pop["mse"])),
            )
    return BestRate(1.0, float(pop["log_mse"]), 0.0)


class PopulationComparison(NamedTuple):
    """The best sample against the population for one ``eps_target`` (see
    :func:`compare_with_population`)."""

    eps_target: float
    best_sample_rate: float
    relative_change: float
    better: bool
    within_error: bool


def compare_with_population(
    summary: pd.DataFrame, eps_target: float, measure: str = "mse"
) -> PopulationComparison:
    """The sample rate with the smallest error against privatising the population (Hu et al. §4.3).

    Unlike :func:`best_rate`, the best *sample* is reported even when it loses to the
    population, with ``relative_change = error_sample / error_population - 1`` (negative
    when the sample wins).  ``within_error`` is true when the two log errors differ by at
    most two Monte Carlo standard errors of their difference,
    ``2 sqrt(se_sample^2 + se_population^2)`` (the sample and population releases are
    simulated independently).

    Parameters
    ----------
    summary : pandas.DataFrame
        ``MedianExperiment.summary``.
    eps_target : float
        One of the privacy losses in the summary.
    measure : {"mse", "mae", "error_95"}
        The error measure compared (MSE by default).

    Returns
    -------
    PopulationComparison
        ``(eps_target, best_sample_rate, relative_change, better, within_error)``; when
        only the population was simulated, ``best_sample_rate`` and ``relative_change``
        are NaN and both flags are false.

    Raises
    ------
    ValueError
        If the summary lacks a column, the ``eps_target`` or its population row, or for
        an unknown measure.
    """
    rows = _rows_for(summary, eps_target, measure)
    pop = rows[rows["rate"] == 1.0].iloc[0]
    samples = rows[rows["rate"] < 1.0]
    eps_target = float(eps_target)
    if samples.empty:
        return PopulationComparison(eps_target, math.nan, math.nan, False, False)
    best = samples.loc[samples["mse"].idxmin()]
    rel = _relative(float(best["mse"]), float(pop["mse"]))
    se = math.hypot(float(best["log_mse_se"]), float(pop["log_mse_se"]))
    diff = abs(float(best["log_mse"]) - float(pop["log_mse"]))
    within = math.isfinite(se) and math.isfinite(diff) and diff <= 2.0 * se
    return PopulationComparison(
        eps_target, float(best["rate"]), rel, bool(best["mse"] < pop["mse"]), bool(within)
    )


# ---------------------------------------------------------------------------------------
# Several mechanisms on the same samples (issue 14)
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class MechanismComparison:
    """Result of :func:`mechanism_comparison`.

    Attributes
    ----------
    table : pandas.DataFrame
        One row per (mechanism, rate), rate 1.0 the population release, with columns
        ``mechanism, rate, n, eps_sample, measure, value, se, log_value, log_se,
        is_population, is_best``.
    best_mechanism : str
        Name of the mechanism of the row with the smallest error.
    best_rate : float
        Its rate (1.0: the whole population).
    eps_target : float
        The population guarantee every release meets.
    measure : str
        ``"mse"``, ``"mae"`` or ``"error_95"``.
    population_value : float
        The population's value of the quantile the errors are measured against.
    experiments : dict of str to MedianExperiment
        The full experiment of every mechanism (same samples).
    """

    table: pd.DataFrame
    best_mechanism: str
    best_rate: float
    eps_target: float
    measure: str
    population_value: float
    experiments: dict[str, MedianExperiment]


def _comparison_rows(name: str, ex: MedianExperiment, measure: str) -> pd.DataFrame:
    """The tidy rows of one mechanism's experiment for the comparison table."""
    rows = ex.summary
    log_value, log_se = _log_columns(rows, measure)
    return pd.DataFrame(
        {
            "mechanism": name,
            "rate": rows["rate"].to_numpy(dtype=float),
            "n": rows["n"].to_numpy(),
            "eps_sample": rows["eps_sample"].to_numpy(dtype=float),
            "measure": measure,
            "value": rows[measure].to_numpy(dtype=float),
            "se": rows[f"{measure}_se"].to_numpy(dtype=float),
            "log_value": log_value,
            "log_se": log_se,
            "is_population": rows["is_population"].to_numpy(dtype=bool),
        }
    )


def mechanism_comparison(
    values: ArrayLike,
    *,
    lower: float,
    upper: float,
    eps_target: float,
    rates: ArrayLike,
    mechanisms: Sequence[str | Mechanism] = QUANTILE_MECHANISMS,
    quantile: float = 0.5,
    reps: int,
    delta_target: float | None = None,
    seed: int = 0,
    measure: str = "mse",
    amplify_delta: bool = True,
    progress: ProgressCallback | None = None,
    sampler: Sampler = "auto",
) -> MechanismComparison:
    """Error against the sampling rate of several mechanisms at one ``eps_target`` (issue 14).

    Every mechanism runs the experiment of :func:`median_gain_experiment` (default
    estimator: exact noise variance where the mechanism states one, drawn releases
    otherwise) on the *same* SRSWOR samples (common random numbers: the differences between
    mechanisms are not blurred by different samples), each with the noise stream a single
    run with the same seed would use, so each mechanism's numbers equal those of
    :func:`median_gain_experiment` with that mechanism.  Every release meets the same
    population guarantee ``eps_target`` (and ``delta_target`` for the mechanisms that
    spend a delta) through amplification by sampling (Hu et al. Theorem 1).

    Parameters
    ----------
    values, lower, upper, rates, reps, delta_target, seed, amplify_delta
        As :func:`median_gain_experiment`.
    eps_target : float
        The one population privacy loss, > 0.
    mechanisms : sequence of str or Mechanism
        Non-empty, distinct names; default the four quantile mechanisms.
    quantile : float, default 0.5
        The level ``q`` in (0, 1) of every quantile mechanism given by name.
    measure : {"mse", "mae", "error_95"}
        The error measure tabulated and minimised.
    progress : callable, optional
        ``progress(fraction_done, message)`` after the population and each rate.
    sampler : {"auto", "full", "window"}
        As in :func:`median_gain_experiment`.  On windows the additive mechanisms share
        their samples and the exponential mechanism draws its own.

    Returns
    -------
    MechanismComparison
        The tidy table and the best (mechanism, rate): the row with the smallest
        ``value``; on a tie the larger rate wins (the population before any sample).

    Raises
    ------
    ValueError
        For no or repeated mechanisms, an unknown measure, and everything
        :func:`median_gain_experiment` refuses.
    """
    _check_measure(measure)
    eps = finite_scalar("eps_target", eps_target)
    s = _setup(values, lower, upper, [eps], rates, reps, delta_target, seed, amplify_delta, sampler)
    if progress is not None and not callable(progress):
        raise ValueError("progress must be a callable(fraction_done, message) or None")
    mechs = [_resolve_mechanism(m, quantile) for m in mechanisms]
    names = [m.name for m in mechs]
    if not names or len(set(names)) != len(names):
        raise ValueError(f"mechanisms must be a non-empty list of distinct ones; got {names}")
    results = _simulate(mechs, [_resolve_estimator(None, m) for m in mechs], s, progress)
    table = pd.concat(
        [_comparison_rows(n, ex, measure) for n, ex in zip(names, results, strict=True)],
        ignore_index=True,
    )
    order = np.lexsort((-table["rate"].to_numpy(), table["value"].to_numpy()))
    best = int(order[0])
    table["is_best"] = np.arange(len(table)) == best
    return MechanismComparison(
        table=table,
        best_mechanism=str(table["mechanism"].iloc[best]),
        best_rate=float(table["rate"].iloc[best]),
        eps_target=float(eps),
        measure=measure,
        population_value=results[0].population_median,
        experiments=dict(zip(names, results, strict=True)),
    )
