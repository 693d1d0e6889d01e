"""The per-record preparation of a population, done once and reused by every plan.

:func:`prepare_population` builds the population's :class:`core.designs.frame.Frame` (kept by
content hash, :mod:`core.designs.frame_cache`) and everything the designs and the census
prepare from it: the runs of equal values, the per-stratum and per-cluster indexes and run
tables, the sums of the closed-form means, the census's runs.  After it, a plan's cost does
not grow with ``N`` but for the few passes its rates need: at ``N = 10^8`` a plan takes
seconds instead of minutes.  A server calls it once per population (the planner calls it
anyway, so calling it first only moves the wait to a moment of the caller's choosing).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from ..designs.frame import Frame
from ..designs.registry import DESIGNS
from ..planner.budgets import design_statuses
from ..planner.engine import prepare
from ..planner.setting import census_rows

if TYPE_CHECKING:
    from ..populations import Population

__all__ = ["prepare_population"]

#: The rate at which each design's preparations are made (any rate prepares the same).
_RATE = 0.1


def prepare_population(
    population: Population, statistics: Sequence[str] = ("median", "mean")
) -> Frame:
    """The population's frame, with every preparation a plan of ``statistics`` reads made.

    Parameters
    ----------
    population : Population
        The population.
    statistics : sequence of str
        The statistics that will be planned (``"median"``, ``"quantile"``, ``"mean"``).

    Returns
    -------
    Frame
        The frame :func:`core.planner.plan` uses for this population (the same object: pass
        it as ``frame=`` or let the planner find it by the population's content hash).
    """
    frame = Frame.of(population)
    frame.value_runs()
    rng = np.random.default_rng(0)
    for statistic in statistics:
        if statistic == "mean" and not np.isfinite(frame.upper):
            continue
        for status in design_statuses(frame, statistic, "replacement"):
            design = DESIGNS[status.name]
            if not status.available or design.reference:
                continue
            point = design.point(frame, _RATE)
            if point is None:
                continue
            if statistic == "mean" and design.has_mean_moments:
                design.mean_moments(frame, point)
            elif statistic != "mean":
                design.window_draw(frame, point, 2, rng)
        job = prepare(population, statistic=statistic, eps_target=1.0, reps=2, frame=frame)
        census_rows(job.census, frame, job.setting)
    return frame
