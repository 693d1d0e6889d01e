"""Several mechanisms compared on the same samples (issue 14).

:func:`mechanism_comparison` runs the median experiment of :mod:`core.gains.median` for
every mechanism on common random numbers, so their differences are not Monte Carlo noise.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from .. import sensitivity as sens
from .._validation import finite_scalar
from ..gains.best_rate import _log_columns
from ..gains.measures import _check_measure
from ..gains.median import (
    NO_FINITE_MEAN,
    QUANTILE_MECHANISMS,
    MedianExperiment,
    ProgressCallback,
    Sampler,
    _resolve_estimator,
    _resolve_mechanism,
    _setup,
    _simulate,
    check_upper_needed,
    measure_exists,
)
from ..mechanisms import Mechanism

__all__ = [
    "MechanismComparison",
    "mechanism_comparison",
    "mechanisms_with_measure",
    "tied_at_quantile",
]


def tied_at_quantile(values: ArrayLike, quantile: float = 0.5) -> tuple[float, int]:
    """The population's quantile value and how many records equal it (ties).

    The value is the order statistic of rank ``k = quantile_rank(N, q)``, the one the
    comparison's errors are measured against; the count includes it.  A large count means
    the smooth sensitivity of the quantile is nearly zero (one changed record can move it
    only onto a value many records already hold), while the exponential mechanism, which
    draws inside a gap between two different records, cannot release that value.

    Raises
    ------
    ValueError
        For an empty or unsorted ``values`` or a quantile outside (0, 1).
    """
    v = np.asarray(values, dtype=np.float64)
    if v.ndim != 1 or v.size == 0:
        raise ValueError(f"values must be a non-empty 1-d array; got shape {v.shape}")
    if v.size > 1 and (np.diff(v) < 0).any():
        raise ValueError("values must be sorted ascending")
    k = sens.quantile_rank(v.size, sens.check_quantile(quantile))
    value = float(v[k - 1])
    count = int(np.searchsorted(v, value, side="right") - np.searchsorted(v, value, side="left"))
    return value, count


def mechanisms_with_measure(
    measure: str, mechanisms: Sequence[str] = QUANTILE_MECHANISMS
) -> tuple[str, ...]:
    """The names in ``mechanisms`` whose error ``measure`` exists (order kept).

    The MSE and the mean absolute error leave out the mechanisms of
    :data:`core.gains.median.NO_FINITE_MEAN`, whose errors have no mean; the 95 % error
    bound keeps every one.

    Raises
    ------
    ValueError
        For an unknown measure.
    """
    _check_measure(measure)
    return tuple(m for m in mechanisms if measure_exists(m, measure))


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
    mechanisms: Sequence[str | Mechanism] | None = None,
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
    mechanisms : sequence of str or Mechanism, optional
        Non-empty, distinct names; default (``None``) every one of
        :data:`~core.gains.median.QUANTILE_MECHANISMS` whose ``measure`` exists
        (:func:`mechanisms_with_measure`: the MSE and the mean absolute error leave out
        ``"unbounded"``, whose error has no mean).
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
        For no or repeated mechanisms, an unknown measure, a mean of the errors (``"mse"``,
        ``"mae"``) asked of a mechanism whose error has no mean (``"unbounded"``), and everything
        :func:`median_gain_experiment` refuses.
    """
    _check_measure(measure)
    eps = finite_scalar("eps_target", eps_target)
    s = _setup(values, lower, upper, [eps], rates, reps, delta_target, seed, amplify_delta, sampler)
    if progress is not None and not callable(progress):
        raise ValueError("progress must be a callable(fraction_done, message) or None")
    chosen = mechanisms_with_measure(measure) if mechanisms is None else mechanisms
    mechs = [_resolve_mechanism(m, quantile) for m in chosen]
    check_upper_needed(mechs, s.upper)
    names = [m.name for m in mechs]
    if not names or len(set(names)) != len(names):
        raise ValueError(f"mechanisms must be a non-empty list of distinct ones; got {names}")
    undefined = [n for n in names if not measure_exists(n, measure)]
    if undefined:
        raise ValueError(
            f"measure {measure!r} does not exist for {undefined}: the release has no finite "
            f"mean (core.gains.NO_FINITE_MEAN = {sorted(NO_FINITE_MEAN)}); compare them with "
            "measure='error_95'"
        )
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
