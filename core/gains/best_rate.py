"""The best sampling rate of a median experiment, and how it compares with the population.

:func:`best_rate` picks the rate with the smallest error for one ``eps_target``;
:func:`compare_with_population` says whether sampling beats the population release
(Hu, Drechsler & Kim, Section 4.4).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
import pandas as pd

from ..gains.measures import _check_measure

__all__ = [
    "BestRate",
    "PopulationComparison",
    "best_rate",
    "compare_with_population",
]


class BestRate(NamedTuple):
    """Best sampling rate for one ``eps_target`` (see :func:`best_rate`)."""

    rate: float
    log_mse: float
    relative_change: float


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
