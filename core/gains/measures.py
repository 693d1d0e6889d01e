"""Error measures of the median experiment: MSE, MAE and the 95 % error, with standard errors.

One block of draws (one ``eps_target``, one rate) becomes one summary row and its per-rep
columns (:func:`_median_block`): the error of each release about the population's
statistic, with the noise either drawn or replaced by its exact conditional variance
(Hu, Drechsler & Kim, Section 4.3).
"""

from __future__ import annotations

import math

import numpy as np

from .._validation import FloatArray
from ..gains.draws import _RateDraws
from ..mechanisms import Mechanism

__all__ = [
    "ERROR_LEVEL",
    "MEASURES",
]


#: Error measures of the experiment: mean squared error (the paper's), mean absolute
#: error and the 95 % quantile of the absolute error ("95 % of releases lie within ±X").
MEASURES: tuple[str, ...] = ("mse", "mae", "error_95")
#: Level of the ``error_95`` measure.
ERROR_LEVEL = 0.95


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


def _check_measure(measure: str) -> str:
    if measure not in MEASURES:
        raise ValueError(f"measure must be one of {MEASURES}; got {measure!r}")
    return measure
