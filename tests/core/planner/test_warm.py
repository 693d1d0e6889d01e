"""core.planner.warm: a server loads the planner's kernels once, before its first visitor."""

from __future__ import annotations

import subprocess
import sys
import textwrap


def test_warm_up_loads_what_the_default_plan_uses() -> None:
    """In a new process, after :func:`warm_up` the page's default plan and a publication
    table cell's mean (the size-free mean) compile nothing: numba's dispatchers it calls
    already hold their compiled versions; the cluster grid's kernels (a register with
    clusters) are loaded too."""
    code = textwrap.dedent(
        """
        import numba
        from numba.core.registry import CPUDispatcher
        import gc
        from core import planner
        from core.planner.warm import warm_up
        from core.populations import make_builtin

        assert warm_up() > 0
        from core.designs import cluster_grid
        for kernel in (cluster_grid._scan_grid, cluster_grid._select_grid):
            assert kernel.overloads, kernel  # the cluster grid's kernels are loaded too
        def loaded():
            return {id(d): len(d.overloads) for d in gc.get_objects()
                    if isinstance(d, CPUDispatcher)}
        before = loaded()
        pop = make_builtin("lognormal", seed=0, size=3_000)
        planner.plan(pop, eps_target=1.0, reps=20)
        planner.plan(pop, statistic="mean", relation="deletion", eps_target=1.0, reps=20)
        after = loaded()
        grew = [k for k in after if after[k] != before.get(k, 0)]
        print(len(grew))
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=600, check=True
    )
    assert done.stdout.strip().splitlines()[-1] == "0", done.stdout
