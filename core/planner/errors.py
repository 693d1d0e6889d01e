"""Error measures of a release about the population value, from draws or exactly.

For a release ``θ̃`` of the population value ``θ``: ``RMSE = sqrt(E[(θ̃ − θ)^2])`` and the
95 % error bound ``x`` with ``P(|θ̃ − θ| ≤ x) = 0.95``.  The mean squared error splits into
the *sampling part* ``E[(θ̂ − θ)^2]`` (``θ̂`` the sample's statistic) and the *noise part*
``E[(θ̃ − θ̂)^2]``; they add up exactly when the noise is unbiased given the sample (every
additive mechanism), and approximately for the exponential mechanism.  Where the noise is
additive its conditional law is known, so only the sampling part is left to Monte Carlo
(Hu, Drechsler & Kim §4.3 do the same for the variance): :func:`conditional_quantile`
integrates the noise out of the 95 % bound (a Rao–Blackwellised estimate).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy.optimize import brentq

from .. import mechanisms as mech
from ..planner.coverage_kernels import coverage_per_row, law_mean_coverage, mean_coverage

__all__ = ["LEVEL", "Draws", "conditional_quantile", "exact_row", "summary_row"]

FloatArray = NDArray[np.float64]

#: Level of the error bound.
LEVEL = 0.95


@dataclass
class Draws:
    """Per-repetition results of one (design, mechanism, rate), appended chunk by chunk."""

    statistic: list[FloatArray] = field(default_factory=list)
    released: list[FloatArray] = field(default_factory=list)
    noise_variance: list[FloatArray] = field(default_factory=list)
    noise_scale: list[FloatArray] = field(default_factory=list)
    sizes: list[FloatArray] = field(default_factory=list)
    noise_cdf: Callable[[FloatArray], FloatArray] | None = None
    #: Per chunk, the exact law of the releases given their samples
    #: (:attr:`core.mechanisms.Release.law`), or None where the mechanism states none.
    laws: list[Any] = field(default_factory=list)

    def law(self) -> Any:
        """Every chunk's law merged into one, or None unless every chunk has one."""
        if not self.laws or any(law is None for law in self.laws):
            return None
        return type(self.laws[0]).merge(self.laws)

    #: ``E[released − statistic]`` and ``E[(released − statistic)^2]`` given each sample,
    #: for the release clamped to ``[lower, upper]`` (NaN where not known).
    noise_mean: list[FloatArray] = field(default_factory=list)
    noise_square: list[FloatArray] = field(default_factory=list)
    lower: float = -math.inf
    upper: float = math.inf


def _quantile_interval(abs_err: FloatArray, level: float) -> tuple[float, float, float, float]:
    """The ``level`` quantile of ``abs_err``, a distribution-free standard error and the
    interval it comes from.

    The interval is the order-statistic interval of ranks ``T p ± 2 sqrt(T p (1 − p))``
    (about ±2 standard errors of the count below the quantile), which holds the quantile
    with probability about 95 % whatever the law of the errors; it need not be symmetric
    about the estimate (errors of two modes, e.g. samples that miss most clusters). The
    standard error is a quarter of its width. Returns ``(q, se, low, high)``.
    """
    T = abs_err.size
    q = float(np.quantile(abs_err, level))
    if T < 2:
        return q, math.nan, math.nan, math.nan
    s = np.sort(abs_err)
    half = 2.0 * math.sqrt(T * level * (1 - level))
    lo = float(s[max(0, math.floor(T * level - half))])
    hi = float(s[min(T - 1, math.ceil(T * level + half))])
    return q, (hi - lo) / 4.0, min(lo, q), max(hi, q)


#: Errors below this (the smallest normal double times 1e14) are reported as their upper bound:
#: a root search on them would need a tolerance that underflows.
_TINY_ERROR = 1e14 * float(np.finfo(np.float64).tiny)


def _root(g: Callable[[float], float], top: float) -> float:
    """The root of the non-decreasing ``g`` in ``[0, top]`` (``g(0) <= 0 <= g(top)``).

    Brent's method; when it does not converge (a coverage made of steps, e.g. when many
    samples carry no noise), plain bisection on the same bracket, which always does.
    """
    try:
        return float(brentq(g, 0.0, top, xtol=1e-14 * top, rtol=1e-13, maxiter=200))
    except RuntimeError:
        lo, hi = 0.0, top
        for _ in range(200):
            mid = 0.5 * (lo + hi)
            if mid <= lo or mid >= hi:
                break
            if g(mid) < 0.0:
                lo = mid
            else:
                hi = mid
        return hi


def _bracketed_root(
    coverage: Callable[[float], float], level: float, top: float, jumps: tuple[float, ...]
) -> float:
    """The root of ``coverage(x) = level`` in ``[0, top]``, bracketed first at ``jumps``.

    A release clipped to public bounds has atoms there, so its coverage jumps where ``x``
    reaches a bound; when ``level`` falls inside a jump, the root is the jump itself (found
    with two evaluations, where a root search would bisect down to it). Otherwise the
    search runs between the jumps that bracket the root, to the same tolerance as on
    ``[0, top]``.
    """
    tol = 1e-14 * top
    lo, hi = 0.0, top
    for j in sorted({float(v) for v in jumps if 0.0 < v < top}):
        if coverage(j) < level:
            lo = j
            continue
        below = max(j - tol, lo)
        if coverage(below) < level:  # the root is within the tolerance below the jump
            return j
        hi = below
        break
    if lo == 0.0:
        return _root(lambda v: coverage(v) - level, hi)
    return lo + _root(lambda v: coverage(lo + v) - level, hi - lo)


def conditional_quantile(
    err: FloatArray,
    scale: FloatArray,
    level: float,
    cdf: Callable[[FloatArray], FloatArray] | None = None,
    below: float = -math.inf,
    above: float = math.inf,
) -> tuple[float, float]:
    """The ``level`` quantile of ``|release − θ|`` with the additive noise integrated out.

    The release is clamped to the public bounds, ``θ + below`` and ``θ + above`` (infinite:
    not clamped); the coverage then jumps where the clamped error reaches a bound, and the
    root search brackets the jump (:func:`_bracketed_root`): a level inside a jump gives the
    jump itself, the same number a root search on ``[0, top]`` closes in on to its
    tolerance (rows tied at a bound are then picked by :mod:`core.planner.ties`).

    Given the samples, ``release − θ = e_i + b_i Z`` with ``e_i`` the sample's error and
    ``Z`` the mechanism's standard noise (CDF ``cdf``; Laplace(0, 1) by default); the bound
    ``x`` solves ``mean_i P(|e_i + b_i Z| <= x) = level`` (a Rao–Blackwellised estimate: only
    the sampling part is left to Monte Carlo, and the census, with ``e = 0``, is exact: for
    Laplace noise ``x = b ln(1 / (1 − level))``). The standard error is the delta method's
    ``sd_i(P_i(x)) / sqrt(T) / mean_i(p_i(x))``.
    """
    f = mech.LaplaceMean().standard_noise_cdf if cdf is None else cdf
    per_row = coverage_per_row(err, scale, f, below, above)
    coverage = mean_coverage(per_row)

    top = float(np.max(np.abs(err))) + float(np.max(scale))
    if top == 0.0:  # every release equals the population value (ties, no noise)
        return 0.0, 0.0
    if top < _TINY_ERROR:  # e.g. a smooth sensitivity of 1e-320 on ties: the bound is below
        return top, 0.0  # anything a float resolves, and top bounds it
    if coverage(0.0) >= level:  # at least 95 % of the releases are exact (ties, no noise)
        return 0.0, 0.0
    while coverage(top) < level:
        top *= 2.0
    x = _bracketed_root(coverage, level, top, (above, -below))
    T = err.size
    probs = per_row(x)
    h = 1e-3 * x if x > 0 else 1e-9 * top
    density = (coverage(x + h) - coverage(max(x - h, 0.0))) / (x + h - max(x - h, 0.0))
    se = float(probs.std(ddof=1)) / math.sqrt(T) / density if T > 1 and density > 0 else 0.0
    return x, se


def law_quantile(law: Any, theta: float, level: float) -> tuple[float, float]:
    """The ``level`` quantile of ``|release − θ|`` from the releases' exact laws given their
    samples (a non-additive mechanism's :class:`core.mechanisms.ConditionalLaw`): ``x`` with
    ``mean_i P_i(|release − θ| ≤ x) = level``, only the sampling part left to Monte Carlo.
    The standard error is the delta method's, as in :func:`conditional_quantile`.
    """
    coverage = law_mean_coverage(law, theta)
    top = float(law.upper - law.lower)
    if top <= 0.0 or coverage(0.0) >= level:
        return 0.0, 0.0
    x = _bracketed_root(coverage, level, top, (law.upper - theta, theta - law.lower))
    probs = np.asarray(law.coverage(x, theta), dtype=np.float64)
    T = probs.size
    h = 1e-3 * x if x > 0 else 1e-9 * top
    density = (coverage(x + h) - coverage(max(x - h, 0.0))) / (x + h - max(x - h, 0.0))
    se = float(probs.std(ddof=1)) / math.sqrt(T) / density if T > 1 and density > 0 else 0.0
    return x, se


def _law_mse(law: Any, theta: float, stat: FloatArray) -> tuple[FloatArray, FloatArray]:
    """The law's mean squared error about ``θ`` and about each sample's statistic, in one
    pass over its nodes where the law has one (:meth:`core.mechanisms.SumCountLaw.mse_at`)."""
    both = getattr(law, "mse_at", None)
    if both is not None:
        about_theta, about_stat = both([theta, stat])
    else:
        about_theta, about_stat = law.mse(theta), law.mse(stat)
    return np.asarray(about_theta, dtype=np.float64), np.asarray(about_stat, dtype=np.float64)


def summary_row(draws: Draws, theta: float) -> dict[str, float]:
    stat = np.concatenate(draws.statistic)
    rel = np.concatenate(draws.released)
    m1 = np.concatenate(draws.noise_mean) if draws.noise_mean else np.full(stat.size, np.nan)
    m2 = np.concatenate(draws.noise_square) if draws.noise_square else np.full(stat.size, np.nan)
    known = bool(np.isfinite(m1).all() and np.isfinite(m2).all())
    T = stat.size
    samp_sq = (stat - theta) ** 2
    law = draws.law()
    if law is not None:  # the exact law of each release given its sample: noise integrated
        sq, noise_sq = _law_mse(law, theta, stat)
        mse = float(sq.mean())
        mse_se = float(sq.std(ddof=1)) / math.sqrt(T) if T > 1 else math.nan
        rmse = math.sqrt(mse)
        e95, e95_se = law_quantile(law, theta, LEVEL)
        return {
            "rmse": rmse,
            "rmse_se": mse_se / (2 * rmse) if rmse > 0 else 0.0,
            "error_95": e95,
            "error_95_se": e95_se,
            # the delta method's interval, as for the additive laws; a bound is never negative
            "error_95_low": max(e95 - 2.0 * e95_se, 0.0),
            "error_95_high": e95 + 2.0 * e95_se,
            "sampling_part": float(samp_sq.mean()),
            "noise_part": float(np.mean(noise_sq)),
            "mean_sample_size": float(np.concatenate(draws.sizes).mean()),
        }
    if known:
        # The clamped noise's exact conditional moments given the sample (Hu et al. §4.3
        # use the noise variance alone; clamping adds a conditional bias m1):
        # E[(θ̃ − θ)^2 | S] = (θ̂ − θ)^2 + 2 (θ̂ − θ) m1 + m2.
        sq = samp_sq + 2.0 * (stat - theta) * m1 + m2
        noise_part = float(m2.mean())
    else:
        sq = (rel - theta) ** 2
        noise_part = float(((rel - stat) ** 2).mean())
    mse = float(sq.mean())
    mse_se = float(sq.std(ddof=1)) / math.sqrt(T) if T > 1 else math.nan
    rmse = math.sqrt(mse)
    if draws.noise_cdf is not None and known:
        scale = np.concatenate(draws.noise_scale)
        e95, e95_se = conditional_quantile(
            stat - theta,
            scale,
            LEVEL,
            draws.noise_cdf,
            draws.lower - theta,
            draws.upper - theta,
        )
        # The delta method's interval, symmetric; a bound is never negative.
        e95_low, e95_high = max(e95 - 2.0 * e95_se, 0.0), e95 + 2.0 * e95_se
    else:
        e95, e95_se, e95_low, e95_high = _quantile_interval(np.abs(rel - theta), LEVEL)
    return {
        "rmse": rmse,
        "rmse_se": mse_se / (2 * rmse) if rmse > 0 else 0.0,
        "error_95": e95,
        "error_95_se": e95_se,
        "error_95_low": e95_low,
        "error_95_high": e95_high,
        "sampling_part": float(samp_sq.mean()),
        "noise_part": noise_part,
        "mean_sample_size": float(np.concatenate(draws.sizes).mean()),
    }


def exact_row(rmse: float, e95: float, sampling: float, noise: float) -> dict[str, float]:
    """A row of errors known exactly (no Monte Carlo standard errors)."""
    return {
        "rmse": rmse,
        "rmse_se": 0.0,
        "error_95": e95,
        "error_95_se": 0.0,
        "error_95_low": e95,
        "error_95_high": e95,
        "sampling_part": sampling,
        "noise_part": noise,
    }


def noise_quantile(cdf: Callable[[FloatArray], FloatArray], level: float = LEVEL) -> float:
    """``z`` with ``P(|Z| ≤ z) = level`` for the symmetric standard noise CDF ``cdf``."""
    return float(
        brentq(
            lambda z: (
                float(np.asarray(cdf(np.asarray(z))) - np.asarray(cdf(np.asarray(-z)))) - level
            ),
            0.0,
            1e6,
            xtol=1e-15,
        )
    )
