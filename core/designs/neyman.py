"""Neyman allocation: listed with the reason it gets no amplification claim (Bun et al. §7)."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..designs.frame import Frame
from ..designs.protocol import PlannerDesign, Point

__all__ = ["NEYMAN_REASON", "NeymanStratified"]

NEYMAN_REASON = (
    "Neyman allocation sets each stratum's sample size from the spreads of the data itself "
    "(Bun et al. §7), so changing one record can change how many records every stratum "
    "contributes; no amplification theorem covers it and a release must spend ε_sample = "
    "ε_target. It would need an allocation fixed without this data (say from an earlier "
    "census), or the stratum spreads estimated privately and paid for from the budget."
)


class NeymanStratified(PlannerDesign):
    """A stratified sample allocated by the data's own spreads: never evaluated."""

    name = "neyman"
    label = "Neyman-allocated stratified sample"
    short_label = "Neyman"
    description = (
        "Neyman allocation sizes each stratum's sample from the spread of the values in that "
        "stratum, i.e. from the data themselves, so one changed record can move the "
        "allocation (Bun et al. §7 and App. E.1). No amplification is claimed for it."
    )
    theorem = "none (Bun et al. §7: the allocation depends on the data)"
    proven_for = "none"

    def unavailable_for_relation(self, relation: str) -> str:
        return NEYMAN_REASON

    def amplified(self, eps_sample: float, point: Point) -> float:
        raise ValueError(NEYMAN_REASON)

    def deamplified(self, eps_target: float, point: Point) -> float:
        raise ValueError(NEYMAN_REASON)

    def draw_keys(self, frame: Frame, rows: int, rng: np.random.Generator) -> Any:
        raise ValueError(NEYMAN_REASON)

    def mask(self, frame: Frame, keys: Any, point: Point) -> NDArray[np.bool_]:
        raise ValueError(NEYMAN_REASON)
