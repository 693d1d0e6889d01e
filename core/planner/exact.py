"""Rows the planner knows without Monte Carlo: the census, and the means.

* The census releases the mechanism on the whole population: its error is the noise alone,
  known exactly (:meth:`core.mechanisms.Mechanism.exact_error`).
* The mean mechanisms release a linear estimator ``c + Σ_S (x − c) / (r N)`` plus noise
  whose law does not depend on the sample.  Its design mean and variance have closed forms
  (:meth:`core.designs.protocol.PlannerDesign.mean_moments`), so the RMSE is exact; the
  95 % bound treats the sampling error as normal, convolved exactly with the noise
  (labelled so in the row's ``error_95_method``).
"""

from __future__ import annotations

from typing import Any

from core import mechanisms as mech
from core.designs import mean_error
from core.designs.frame import Frame
from core.designs.protocol import PlannerDesign
from core.planner.errors import LEVEL
from core.planner.simulate import PointBudget, make_mechanism

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


def _mean_population(frame: Frame) -> mean_error.MeanPopulation:
    return mean_error.prepare_mean_population(
        frame.values, frame.lower, frame.upper, frame.strata_codes, frame.cluster_codes
    )


def mean_row(design: PlannerDesign, frame: Frame, pb: PointBudget, name: str) -> dict[str, Any]:
    """Exact RMSE and the 95 % bound of a linear mean under ``design`` at ``pb``
    (:func:`core.designs.mean_error.mean_errors`)."""
    pop = frame.prepared("mean_population", _mean_population)
    uses_delta = mech.MECHANISMS[name].uses_delta
    (err,) = mean_error.mean_errors(
        pop,
        design.name,
        name,
        rates=[pb.point.rate],
        eps_sample=pb.eps_sample[name],
        delta_sample=pb.delta_sample if uses_delta else None,
        level=LEVEL,
    )
    return {
        "rmse": err.rmse,
        "rmse_se": 0.0,
        "error_95": err.error_95,
        "error_95_se": 0.0,
        "error_95_method": err.error_95_method,
        "sampling_part": err.sampling_part,
        "noise_part": err.noise_part,
        "n": err.expected_size,
    }
