"""Timings and memory of the release planner (issue 22's table; printed, never asserted).

Run from the repository root:  .venv/bin/python -m bench.bench_planner [--quick | --large]
[--case plan|accuracy|several ...] [--population establishments|lognormal ...]

Rows, at N = 10^5 and 10^7 (the establishments builder scaled: strata = size classes,
clusters = regions), for the median and the mean, T = 200:

* the default plan (every design the population supports × 8 rates, with the refinement);
* the first usable rows: seconds until the planner's progress callback has the census and
  the simple random sample (what the page shows first);
* accuracy first (the smallest ε_target reaching a 95 % bound) on the lognormal built-in;
* several statistics from one sample (median, quartiles and mean at equal budget shares),
  on the establishments and on the lognormal built-in;
* the default plan with all six quantile mechanisms (the PolyPlace and piecewise-Laplace
  quantiles added), and JointExp's errors for the nine deciles of a 10 % simple random
  sample (:func:`core.planner.joint_exp_errors`);
* peak memory beyond the population's own columns.

Every case runs in a child process with an address-space cap (``resource.RLIMIT_AS``), so a
runaway fails alone; the child reports its wall time and its peak resident memory.  With
``--quick`` only N = 10^5 runs, with ``--large`` only N = 10^7; ``--case`` and
``--population`` (each repeatable) keep only the rows named.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import textwrap

from bench._timing import ROOT

#: Address-space cap of each child process (bytes).
CAP_BYTES = 12 << 30
#: Longest a case may run before it is reported as not finished (seconds).
TIMEOUT_S = 600

_CHILD = textwrap.dedent(
    """
    import json, resource, sys, time
    resource.setrlimit(resource.RLIMIT_AS, ({cap}, {cap}))
    from core import planner
    from core.designs.frame import Frame
    from core.populations import make_builtin

    case, key, N, statistic = {case!r}, {key!r}, {N}, {statistic!r}
    pop = make_builtin(key, seed=0, size=N)
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    frame = Frame.of(pop)
    out = {{}}
    t0 = time.perf_counter()
    if case == "plan":
        first = []
        def seen(p):
            if p.done >= 2 and not first:
                first.append(time.perf_counter() - t0)
        planner.plan(pop, statistic=statistic, eps_target=1.0, reps=200, frame=frame,
                     progress=seen)
        out["first_rows"] = first[0] if first else float("nan")
    elif case == "accuracy":
        planner.smallest_eps_target(pop, statistic=statistic, target_error_95=2.0, reps=200,
                                    frame=frame)
    elif case == "several":
        planner.several_statistics(
            pop, [("median", 0.5), ("quantile", 0.25), ("quantile", 0.75), ("mean", 0.5)],
            [0.25] * 4, eps_target=1.0, reps=200, frame=frame,
        )
    elif case == "mechanisms":
        planner.plan(pop, statistic=statistic, eps_target=1.0, reps=200, frame=frame,
                     mechanisms=planner.QUANTILE_MECHANISMS)
    elif case == "joint":
        got = planner.joint_exp_errors(pop, [i / 10 for i in range(1, 10)], design="srs",
                                       rate=0.1, eps_target=1.0, reps=200, frame=frame)
        out["samples"] = got.samples
    out["seconds"] = time.perf_counter() - t0
    out["peak_mb"] = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base) / 1024
    print(json.dumps(out))
    """
)


#: The cases a row may run, and the built-in populations it may run on.
CASES = ("plan", "accuracy", "several", "mechanisms", "joint")
POPULATIONS = ("establishments", "lognormal")

#: Every row of the table at one N: (case, population, statistic, label).
ROWS = (
    *(
        ("plan", key, statistic, "default plan, {key} N = {N:>10,}, {statistic}")
        for key in POPULATIONS
        for statistic in ("median", "mean")
    ),
    ("accuracy", "lognormal", "median", "accuracy first, {key} N = {N:>10,}, {statistic}"),
    *(("several", key, "median", "several statistics, {key} N = {N:>10,}") for key in POPULATIONS),
    *(
        ("mechanisms", key, "median", "six quantile mechanisms, {key} N = {N:>10,}")
        for key in POPULATIONS
    ),
    *(
        ("joint", key, "median", "JointExp 9 deciles, SRS r = 0.1, {key} N = {N:>10,}")
        for key in POPULATIONS
    ),
)


def run(case: str, key: str, N: int, statistic: str) -> dict[str, float] | str:
    """One case in a capped child process: its figures, or why it failed."""
    code = _CHILD.format(cap=CAP_BYTES, case=case, key=key, N=N, statistic=statistic)
    try:
        proc = subprocess.run(
            [sys.executable, "-c", code],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=False,
            timeout=TIMEOUT_S,
        )
    except subprocess.TimeoutExpired:
        return f"did not finish within {TIMEOUT_S} s"
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        return f"failed ({last[:120]})"
    result: dict[str, float] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


def show(label: str, got: dict[str, float] | str) -> None:
    if isinstance(got, str):
        print(f"{label:58s} {got}")
        return
    first = got.get("first_rows")
    extra = f"  first rows {first:6.2f} s" if first is not None else ""
    if got.get("samples") is not None:
        extra += f"  ({got['samples']:.0f} samples)"
    print(f"{label:58s} {got['seconds']:7.2f} s  peak +{got['peak_mb']:7.0f} MB{extra}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="only N = 10^5")
    parser.add_argument("--large", action="store_true", help="only N = 10^7")
    parser.add_argument("--case", action="append", choices=CASES, help="only these cases")
    parser.add_argument(
        "--population", action="append", choices=POPULATIONS, help="only these populations"
    )
    args = parser.parse_args()
    sizes = (10**5,) if args.quick else (10**7,) if args.large else (10**5, 10**7)
    cases = args.case or CASES
    keys = args.population or POPULATIONS
    for N in sizes:
        for case, key, statistic, label in ROWS:
            if case in cases and key in keys:
                show(label.format(key=key, N=N, statistic=statistic), run(case, key, N, statistic))


if __name__ == "__main__":
    main()
