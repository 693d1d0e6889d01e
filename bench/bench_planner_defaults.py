"""The release planner at the page's defaults (issue 37; printed, never asserted).

Run from the repository root:  .venv/bin/python -m bench.bench_planner_defaults

The page's first plan: the median, Hu et al.'s four quantile mechanisms, T = 200, one record
changed, every design the population supports (Neyman allocation is never planned), the
default rates refined around the best one, δ_target = 1/(2N), seed 0, ε_target = 1.  On the
default lognormal population (10,001 records) and the establishments built-in at its default
size.  Rows:

* ``plan``: median and extremes of 5 calls of :func:`core.planner.plan` after one warm-up,
  wall clock and process CPU time (on a shared machine the CPU time is the steadier figure);
* ``first rows``: the same calls, until the progress callback has the census and the simple
  random sample (what the page shows first), and until the census alone;
* ``fresh process``: ``import core.planner`` and the first plan in a new interpreter (the
  compiled kernels loaded from numba's on-disk cache; what a server pays once).
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import textwrap
import time

from bench._timing import ROOT, load_line

REPEATS = 5

_FRESH = textwrap.dedent(
    """
    import json, time
    t0 = time.perf_counter()
    from core import planner
    imported = time.perf_counter() - t0
    from core.populations import make_builtin
    pop = make_builtin("lognormal", seed=0)
    t0 = time.perf_counter()
    planner.plan(pop, eps_target=1.0, reps=200, seed=0)
    first = time.perf_counter() - t0
    t0 = time.perf_counter()
    planner.plan(pop, eps_target=1.0, reps=200, seed=0)
    second = time.perf_counter() - t0
    print(json.dumps({"import": imported, "first": first, "second": second}))
    """
)


def page_designs(population: object) -> tuple[str, ...]:
    """The designs the page plans by default: every design the population supports that
    the page offers (Neyman allocation is listed, never planned)."""
    from core import planner
    from core.designs.frame import Frame
    from core.designs.registry import DESIGNS

    statuses = planner.design_statuses(Frame.of(population), "median", "replacement")  # type: ignore[arg-type]
    offered = {name for name, d in DESIGNS.items() if d.proven_for != "none"}
    return tuple(s.name for s in statuses if s.available and s.name in offered)


def bench_population(key: str) -> None:
    """Print the plan and first-rows rows of built-in ``key`` at its default size."""
    from core import planner
    from core.populations import make_builtin

    pop = make_builtin(key, seed=0)
    designs = page_designs(pop)
    walls, cpus, census_at, first_at = [], [], [], []
    for i in range(REPEATS + 1):
        seen: dict[str, float] = {}
        t0, c0 = time.perf_counter(), time.process_time()

        def progress(
            p: planner.PlanProgress, t0: float = t0, seen: dict[str, float] = seen
        ) -> None:
            seen.setdefault(p.design, time.perf_counter() - t0)

        planner.plan(
            pop,
            statistic="median",
            eps_target=1.0,
            delta_target=1.0 / (2 * pop.size),
            designs=designs,
            reps=200,
            seed=0,
            relation="replacement",
            progress=progress,
        )
        if i == 0:
            continue  # the warm-up
        walls.append(time.perf_counter() - t0)
        cpus.append(time.process_time() - c0)
        census_at.append(seen.get("census", float("nan")))
        first_at.append(seen.get("srs", float("nan")))
    name = f"{key} (N = {pop.size:,}; {', '.join(designs)})"
    print(f"  {name}")
    print(
        f"    plan        median {statistics.median(walls):6.3f} s  "
        f"[{min(walls):.3f}, {max(walls):.3f}]  CPU median {statistics.median(cpus):6.3f} s"
    )
    print(
        f"    first rows  census {statistics.median(census_at):6.3f} s, "
        f"census + SRS {statistics.median(first_at):6.3f} s (medians)"
    )


def bench_fresh_process() -> None:
    """Print the import time of ``core.planner`` and the first plans in a new interpreter."""
    done = subprocess.run(
        [sys.executable, "-c", _FRESH], cwd=ROOT, capture_output=True, text=True, timeout=600
    )
    if done.returncode != 0:
        print(f"  fresh process failed: {done.stderr.strip().splitlines()[-1:]}")
        return
    got = json.loads(done.stdout.strip().splitlines()[-1])
    print(
        f"  fresh process: import core.planner {got['import']:.2f} s; first plan "
        f"{got['first']:.2f} s (kernels loaded), second {got['second']:.2f} s"
    )


def main() -> None:
    print("Release planner at the page's defaults (median, T = 200, ε_target = 1)")
    print(f"  {load_line()}")
    bench_fresh_process()
    for key in ("lognormal", "establishments"):
        bench_population(key)


if __name__ == "__main__":
    main()
