"""The designs the release planner compares, in the order it lists them.

Adding a design: a module with a :class:`core.designs.protocol.PlannerDesign` subclass, one
entry below, one test module (CONTRIBUTING.md, "Add a design").
"""

from __future__ import annotations

from types import MappingProxyType

from ..designs.census import Census
from ..designs.cluster import ClusterDesign
from ..designs.individual import Poisson, SimpleRandom
from ..designs.neyman import NeymanStratified
from ..designs.poisson_cluster import PoissonCluster
from ..designs.protocol import PlannerDesign
from ..designs.stratified import ProportionalStratifiedDesign

__all__ = ["DESIGNS", "design_named"]

#: Every design by name, in display order.
DESIGNS: MappingProxyType[str, PlannerDesign] = MappingProxyType(
    {
        d.name: d
        for d in (
            Census(),
            SimpleRandom(),
            Poisson(),
            ProportionalStratifiedDesign(),
            ClusterDesign(),
            PoissonCluster(),
            NeymanStratified(),
        )
    }
)


def design_named(name: str) -> PlannerDesign:
    """The design called ``name``; ValueError naming the choices otherwise."""
    try:
        return DESIGNS[name]
    except KeyError:
        raise ValueError(f"design must be one of {list(DESIGNS)}; got {name!r}") from None
