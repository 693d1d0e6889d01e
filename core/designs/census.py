"""The census: privatise the whole population (no sampling, no amplification).

The reference every sampled design is compared with.  Its errors are exact (the noise law
of the mechanism on the population), computed by the planner without Monte Carlo.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from ..designs.frame import Frame
from ..designs.protocol import PlannerDesign, Point

if TYPE_CHECKING:
    from ..linear.moments import LinearMoments
    from ..linear.sums import GroupSums

__all__ = ["Census"]


class Census(PlannerDesign):
    """Every record, privatised with ``eps_sample = eps_target``."""

    has_mean_moments = True
    has_linear_moments = True

    name = "census"
    label = "Census (privatise the whole population)"
    short_label = "Census"
    description = (
        "No sampling: the mechanism runs on the whole population and spends exactly ε_target "
        "and δ_target. There is nothing to amplify; every other design is compared with this "
        "one."
    )
    theorem = "no sampling: the mechanism's own guarantee"
    proven_for = "any"
    fixed_size = True
    reference = True

    def point(self, frame: Frame, rate: float) -> Point | None:
        return Point(1.0, float(frame.N), float(frame.N))

    def theorem_keywords(self, frame: Frame, rate: float) -> dict[str, Any]:
        return {}

    def theorem_point(self, keywords: dict[str, Any]) -> Point:
        return Point(1.0, math.nan, math.nan)

    def amplified(self, eps_sample: float, point: Point) -> float:
        return float(eps_sample)

    def deamplified(self, eps_target: float, point: Point) -> float:
        return float(eps_target)

    def draw_keys(self, frame: Frame, rows: int, rng: np.random.Generator) -> Any:
        return rows

    def mask(self, frame: Frame, keys: Any, point: Point) -> NDArray[np.bool_]:
        return np.ones((int(keys), frame.N), dtype=bool)

    def linear_moments(self, frame: Frame, sums: GroupSums, point: Point) -> LinearMoments:
        """No sampling error (:func:`core.linear.moments.census_moments`)."""
        from ..linear import moments

        return moments.census_moments(sums)
