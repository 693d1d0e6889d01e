"""Rows the planner knows without Monte Carlo: the census, and the means.

* The census releases the mechanism on the whole population: its error is the noise alone,
  known exactly (:meth:`core.mechanisms.Mechanism.exact_error`).
* The mean mechanisms release a linear estimator ``c + Σ_S (x − c) / (r N)`` plus noise
  whose law does not depend on the sample.  Its design mean and variance have closed forms
  (:meth:`core.designs.protocol.PlannerDesign.mean_moments`), so the RMSE is exact; the
  95 % bound treats the sampling error as normal, convolved exactly with the noise
  (labelled so in the row's ``error_95_method``).

The size-free mean (:class:`core.mechanisms.SumCountMean`) is neither: its noise depends on
the sample's size, so its rows draw samples (Monte Carlo of the sampling part) and integrate
the noise exactly from the release's law (:attr:`core.mechanisms.Release.law`); its census
row is exact (:meth:`core.mechanisms.SumCountMean.exact_error`).

Every release is clamped to the public bounds ``[L, U]``.  Where a mean's release can reach
a bound (within :data:`CLAMP_REACH` spreads), its errors are those of the clamped release
(:func:`clamped_mean_errors`); elsewhere clamping changes nothing a float shows.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy import special

from .. import mechanisms as mech
from ..designs import mean_error
from ..designs.frame import Frame
from ..designs.normal_laplace import error_bound
from ..designs.protocol import PlannerDesign
from ..planner.errors import LEVEL, conditional_quantile
from ..planner.simulate import PointBudget, make_mechanism, noise_cdf

__all__ = [
    "CLAMP_NODES",
    "CLAMP_REACH",
    "clamped_mean_errors",
    "has_closed_form",
    "mean_row",
    "mechanism_on_population",
]


def mechanism_on_population(name: str, frame: Frame, quantile: float) -> mech.Mechanism:
    """The mechanism ``name`` as it runs on the whole population (rate 1)."""
    return make_mechanism(name, frame, 1.0, quantile)


def has_closed_form(design: PlannerDesign, name: str) -> bool:
    """Whether the rows of mechanism ``name`` under ``design`` are computed exactly."""
    return (
        bool(mech.MECHANISMS[name].linear_mean)
        and design.has_mean_moments
        and name in mean_error.MECHANISMS
    )


#: Noise scales, and standard deviations of the sampling error, within which a release
#: counts as never reaching a bound (``40 b + 10 σ``): beyond them the clamped law differs
#: from the unclamped one by less than ``e^{-40}`` relative (Laplace and normal tails), far
#: below any number shown.
CLAMP_REACH = (40.0, 10.0)
#: Equal-probability nodes of the normal sampling error in :func:`clamped_mean_errors`.
CLAMP_NODES = 512


def clamped_mean_errors(
    mechanism: mech.Mechanism,
    frame: Frame,
    theta: float,
    bias: float,
    variance: float,
    scale: float,
) -> tuple[float, float, float] | None:
    """MSE, 95 % bound and noise part of a mean released as ``clip(θ̂ + b Z, L, U)``.

    The estimate ``θ̂`` is taken as ``Normal(θ + bias, variance)`` (the design's exact
    moments; the normal law is the approximation already used for the unclamped bound) at
    :data:`CLAMP_NODES` equal-probability nodes ``θ̂_k = θ + bias + σ z_k``, ``z_k`` the
    normal quantiles ``Φ^{-1}((k + ½)/K)`` scaled to variance 1 (so that without clamping
    the MSE is the design's exact ``bias² + variance`` plus the noise's);
    given ``θ̂_k`` the clamped noise has the exact moments ``m1, m2``
    (:meth:`core.mechanisms.Mechanism.clamped_noise_moments`), so
    ``MSE = mean_k [(θ̂_k − θ)^2 + 2 (θ̂_k − θ) m1 + m2]`` and the bound solves
    ``mean_k P(|clip(θ̂_k + b Z) − θ| ≤ x) = 0.95``
    (:func:`core.planner.errors.conditional_quantile`).  With no sampling error it is the
    census's exact law.  None when the mechanism's clamped law has no closed form.
    """
    sd = math.sqrt(max(variance, 0.0))
    if sd > 0:
        probs = (np.arange(CLAMP_NODES) + 0.5) / CLAMP_NODES
        nodes = special.ndtri(probs)
        nodes /= math.sqrt(float(np.mean(nodes * nodes)))  # the nodes' variance exactly 1
        t = theta + bias + sd * nodes
    else:
        t = np.full(1, theta + bias)
    b = np.full(t.shape, scale)
    moments = mechanism.clamped_noise_moments(t, b, frame.lower, frame.upper)
    cdf = noise_cdf(mechanism)
    if moments is None or cdf is None:
        return None
    m1, m2 = moments
    d = t - theta
    mse = float(np.mean(d * d + 2.0 * d * m1 + m2))
    e95, _ = conditional_quantile(d, b, LEVEL, cdf, frame.lower - theta, frame.upper - theta)
    return mse, e95, float(np.mean(m2))


def mean_row(design: PlannerDesign, frame: Frame, pb: PointBudget, name: str) -> dict[str, Any]:
    """Exact RMSE and the 95 % bound of a linear mean under ``design`` at ``pb``.

    The design's bias and variance (:meth:`PlannerDesign.mean_moments`), the mechanism's
    exact noise variance (:func:`core.designs.mean_error.mean_noise`), and the bound of
    :func:`core.designs.normal_laplace.error_bound` (exact without sampling error, else the
    sampling error taken as normal).
    """
    bias, variance, size = design.mean_moments(frame, pb.point)
    uses_delta = mech.MECHANISMS[name].uses_delta
    scale, noise = mean_error.mean_noise(
        name,
        frame.lower,
        frame.upper,
        size,
        pb.eps_sample[name],
        pb.delta_sample if uses_delta else None,
    )
    b, nv = float(scale), float(noise)
    e95, exact = error_bound(name, bias, variance, b, LEVEL)
    sampling = bias * bias + variance
    theta = frame.value("mean", 0.5)
    spread = CLAMP_REACH[0] * b + CLAMP_REACH[1] * math.sqrt(max(variance, 0.0))
    if theta + bias - spread < frame.lower or theta + bias + spread > frame.upper:
        # The release can reach a bound: the errors of the clamped release.
        m = make_mechanism(name, frame, pb.point.rate, 0.5)
        got = clamped_mean_errors(m, frame, theta, bias, variance, b)
        if got is not None:
            mse, e95, nv = got
            exact = exact and variance == 0 and bias == 0
            return {
                "rmse": math.sqrt(mse),
                "rmse_se": 0.0,
                "error_95": e95,
                "error_95_se": 0.0,
                "error_95_method": mean_error.EXACT if exact else mean_error.NORMAL_APPROXIMATION,
                "sampling_part": sampling,
                "noise_part": nv,
                "n": size,
            }
    return {
        "rmse": math.sqrt(sampling + nv),
        "rmse_se": 0.0,
        "error_95": e95,
        "error_95_se": 0.0,
        "error_95_low": e95,
        "error_95_high": e95,
        "error_95_method": mean_error.EXACT if exact else mean_error.NORMAL_APPROXIMATION,
        "sampling_part": sampling,
        "noise_part": nv,
        "n": size,
    }
