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
"""

from __future__ import annotations

import math
from typing import Any

from .. import mechanisms as mech
from ..designs import mean_error
from ..designs.frame import Frame
from ..designs.normal_laplace import error_bound
from ..designs.protocol import PlannerDesign
from ..planner.errors import LEVEL
from ..planner.simulate import PointBudget, make_mechanism

__all__ = ["has_closed_form", "mean_row", "mechanism_on_population"]


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
