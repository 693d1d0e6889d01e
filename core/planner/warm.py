"""Load the planner's compiled kernels once per process, before the first user asks.

The planner's kernels are compiled by numba and kept in its on-disk cache, but the first
call of any of them in a new process still pays for numba's start (its type system and
targets, about half a second to a second) and each kernel's first call loads it.  A server
that calls :func:`warm_up` when it starts (in a background thread: the kernels release the
GIL only while they run) spares its first visitor that wait; every later plan in the same
process finds them loaded.
"""

from __future__ import annotations

import time

__all__ = ["warm_up"]


def warm_up() -> float:
    """Plan two small populations as the page does by default, on whole samples and on
    windows (every design and the default mechanisms of the median, with the refinement),
    so that every kernel those plans use is loaded; the mean for added or removed records
    as a publication table's cells plan it; then the cluster designs on windows of a
    population with clusters and no ties, whose samples are read through the cluster
    index's grid (:mod:`core.designs.cluster_grid`; a register with clusters).  Returns the
    seconds it took.

    The results are thrown away; nothing is cached but numba's loaded kernels.
    """
    import numpy as np

    from ..planner.engine import plan
    from ..population import Population
    from ..populations import make_builtin

    start = time.perf_counter()
    small = make_builtin("lognormal", seed=0, size=400)
    tied = make_builtin("establishments", seed=0, size=2_000)
    for pop in (small, tied):
        for sampler in ("full", "window"):
            plan(pop, eps_target=1.0, reps=8, seed=0, sampler=sampler)
    plan(small, statistic="mean", eps_target=1.0, reps=8, seed=0)
    # The size-free mean of a publication table's cells (its law's compiled coverage and MSE).
    plan(small, statistic="mean", eps_target=1.0, reps=8, seed=0, relation="deletion")
    clustered = Population(
        "clustered",
        small.values,
        small.lower,
        small.upper,
        clusters=np.arange(small.size) % 8,
    )
    plan(
        clustered,
        eps_target=1.0,
        reps=8,
        seed=0,
        sampler="window",
        designs=["cluster", "poisson_cluster"],
    )
    return time.perf_counter() - start
