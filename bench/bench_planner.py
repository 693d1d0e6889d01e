"""Timings of the release planner (issue 13 targets, printed, never asserted).

Run from the repository root:  .venv/bin/python -m bench.bench_planner

* the default comparison (every design the population supports × 8 rates, T = 200, with the
  refinement) for the median and the mean on the built-in establishments population
  (N = 100,000, with strata and clusters) and on the lognormal one (N = 10,001);
* the accuracy-first search on the lognormal population (median, T = 200);
* register scale: the lognormal built-in drawn with N = 10^5 .. 10^7 records, median with the
  mechanisms that run on windows (smooth Laplace, smooth pure, global Laplace; census, simple
  random and Poisson designs), sampler "auto" (windows from N = 200,000).

Each figure is the best of a few single calls (the least disturbed run).
"""

from __future__ import annotations

from bench._timing import best_seconds
from core import planner
from core.populations import make_builtin


def main() -> None:
    for key in ("lognormal", "establishments"):
        pop = make_builtin(key, seed=0)
        for statistic in ("median", "mean"):
            seconds = best_seconds(
                lambda pop=pop, statistic=statistic: planner.plan(
                    pop, statistic=statistic, eps_target=1.0, reps=200
                ),
                repeat=2,
            )
            print(f"plan {key:15s} N = {pop.size:>7,}  {statistic:6s}  {seconds:7.2f} s")
    pop = make_builtin("lognormal", seed=0)
    target = float(planner.plan(pop, eps_target=1.0, reps=200).best["error_95"]) * 2
    seconds = best_seconds(
        lambda: planner.smallest_eps_target(pop, target_error_95=target, reps=200), repeat=1
    )
    print(f"smallest_eps_target lognormal median (bound {target:.3g})  {seconds:7.2f} s")
    windowed = ["smooth_laplace", "smooth_pure", "global_laplace"]
    for N in (10**5, 10**6, 10**7):
        pop = make_builtin("lognormal", seed=0, size=N)
        seconds = best_seconds(
            lambda pop=pop: planner.plan(pop, eps_target=1.0, reps=200, mechanisms=windowed),
            repeat=2,
        )
        print(f"plan lognormal N = {N:>10,}  median, windowed mechanisms  {seconds:7.2f} s")


if __name__ == "__main__":
    main()
