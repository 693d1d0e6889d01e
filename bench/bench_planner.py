"""Timings and memory of the release planner (issue 22's table; printed, never asserted).

Run from the repository root:  .venv/bin/python -m bench.bench_planner [--quick | --large]
[--huge]
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
* peak memory beyond the population's own columns;
* at N = 10^7 (issue 37): plan() on the establishments for every ε_target from 0.1 to 5 after
  the population's preparation (:func:`core.planner.prepare_population`; the slowest plan is
  printed), accuracy first at ±0.5 employees, and on the survey of ``tests/survey_file.py``
  (10,337 whole numbers, many ties): accuracy first at ±1 and the publication table of its
  31 strata × median and mean;
* at N = 10^7 (issue 38): :func:`core.linear.plan.plan_linear` of a count (the first size
  class), the total and a proportion on the establishments, every design and both linear
  mechanisms exactly (the O(N) sums once, then O(H) or O(K) per rate);
* with ``--huge``: N = 10^8, the preparation once (its time, its own peak and what it keeps
  beyond the population, next to the population's columns), then plans of the median and the
  mean (minutes and about 10 GB, in a child capped at 20 GB); ``--huge --quick --case
  prepared`` runs these rows alone.

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
from core.population import Population

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
    EPS_SWEEP = {sweep!r}
    TARGETS = {targets!r}

    case, key, N, statistic = {case!r}, {key!r}, {N}, {statistic!r}
    if key == "survey":
        from bench.bench_planner import survey_population
        pop = survey_population()
    else:
        pop = make_builtin(key, seed=0, size=N)
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    out = {{}}
    if case in ("sweep", "prepared", "target"):
        # The preparation's own peak: the population's build peaks higher, so the high-water
        # mark is reset first (Linux; elsewhere the row prints no preparation peak).
        def status(field):
            with open("/proc/self/status") as lines:
                return next(int(l.split()[1]) for l in lines if l.startswith(field)) / 1024
        try:
            with open("/proc/self/clear_refs", "w") as refs:
                refs.write("5")
            rss = status("VmRSS")
        except OSError:
            rss = None
        t0, c0 = time.perf_counter(), time.process_time()
        frame = planner.prepare_population(pop)
        out["prepare_s"] = time.perf_counter() - t0
        out["prepare_cpu"] = time.process_time() - c0
        if rss is not None:
            out["prepare_peak_mb"] = status("VmHWM") - rss
            out["prepare_keeps_mb"] = status("VmRSS") - rss
            columns = [pop.values, pop.strata, pop.clusters]
            out["columns_mb"] = sum(a.nbytes for a in columns if a is not None) / 2**20
    else:
        frame = Frame.of(pop)
    t0, c0 = time.perf_counter(), time.process_time()
    if case == "sweep":
        worst = worst_cpu = 0.0
        for eps in EPS_SWEEP:
            t1, c1 = time.perf_counter(), time.process_time()
            planner.plan(pop, statistic=statistic, eps_target=eps, reps=200)
            worst = max(worst, time.perf_counter() - t1)
            worst_cpu = max(worst_cpu, time.process_time() - c1)
        out["worst"], out["worst_cpu"] = worst, worst_cpu
    elif case == "prepared":
        times = []
        cpus = []
        for eps in (1.0, 0.5):
            t1, c1 = time.perf_counter(), time.process_time()
            planner.plan(pop, statistic=statistic, eps_target=eps, reps=200)
            times.append(time.perf_counter() - t1)
            cpus.append(time.process_time() - c1)
        out["worst"], out["worst_cpu"] = max(times), max(cpus)
    elif case == "target":
        planner.smallest_eps_target(pop, statistic=statistic, target_error_95=TARGETS[key],
                                    reps=200)
    elif case == "publication":
        from core.publication import plan_table
        plan_table(pop, ["strata"], ["median", "mean"], eps_target=1.0)
    elif case == "plan":
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
    elif case == "linear":
        from core.linear.plan import plan_linear
        from core.linear.statistic import LinearStatistic
        mechanisms = None
        if statistic == "total_dg":  # the discrete Gaussian only, chosen (it spends delta)
            statistic, mechanisms = "total", ("discrete_gaussian",)
        if statistic == "total":
            stat = LinearStatistic("total")
        else:  # the records of the first size class
            label = str(pop.label_codes("strata")[1][0])
            stat = LinearStatistic(statistic, "strata", label)
        plan_linear(pop, stat, eps_target=1.0, frame=frame, mechanisms=mechanisms)
    elif case == "joint":
        got = planner.joint_exp_errors(pop, [i / 10 for i in range(1, 10)], design="srs",
                                       rate=0.1, eps_target=1.0, reps=200, frame=frame)
        out["samples"] = got.samples
    out["seconds"] = time.perf_counter() - t0
    out["cpu"] = time.process_time() - c0
    out["peak_mb"] = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base) / 1024
    if case in ("sweep", "prepared", "target") and rss is not None:
        out["peak_mb"] = status("VmHWM") - rss  # the high-water mark was reset after the build
    print(json.dumps(out))
    """
)


#: The cases a row may run, and the built-in populations it may run on.
#: ("prepared" is the ``--huge`` row's case: ``--huge --quick --case prepared`` runs it alone.)
CASES = (
    "plan",
    "accuracy",
    "several",
    "mechanisms",
    "joint",
    "sweep",
    "target",
    "publication",
    "prepared",
    "linear",
)
POPULATIONS = ("establishments", "lognormal")
#: The ε_target of the row "plan() for every ε_target from 0.1 to 5".
EPS_SWEEP = (0.1, 0.2, 0.5, 1.0, 2.0, 5.0)
#: The 95 % bounds of the accuracy-first rows: ±0.5 employees on the establishments, ±1 µg/dl
#: (the page's automatic bound) on the survey.
TARGETS = {"establishments": 0.5, "survey": 1.0}
#: Address-space cap of the N = 10^8 row (bytes): the population's build peaks near 9.4 GB and
#: its preparation adds its label codes and cluster indexes.
HUGE_CAP_BYTES = 20 << 30

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


#: Rows about the issue-37 targets, at N = 10^7 and on the survey (N is ignored there).
ROWS_37 = (
    *(
        (
            "sweep",
            "establishments",
            statistic,
            "plan() every ε_target 0.1-5, {key} N = {N:>10,}, {statistic}",
        )
        for statistic in ("median", "mean")
    ),
    *(
        (
            "target",
            "establishments",
            statistic,
            "accuracy first ±0.5, {key} N = {N:>10,}, {statistic}",
        )
        for statistic in ("median", "mean")
    ),
    ("target", "survey", "median", "accuracy first ±1, survey N = 10,337, median"),
    ("publication", "survey", "median", "publication 31 strata × median, mean, survey"),
    # Issue 38: a count (of a size class), a total and a proportion, every design exactly.
    *(
        ("linear", "establishments", kind, "linear plan, {key} N = {N:>10,}, {statistic}")
        for kind in ("count", "total", "proportion")
    ),
    (
        "linear",
        "establishments",
        "total_dg",
        "linear plan, {key} N = {N:>10,}, total, discrete Gaussian",
    ),
)


def survey_population() -> Population:
    """The survey of ``tests/survey_file.py`` as the upload makes it: zinc (whole numbers,
    many ties) in [0, 250], 31 strata, 62 clusters (stratum × unit), 10,337 records."""
    from tests.survey_file import CLUSTER, LOWER, STRATUM, UPPER, VALUE, survey_frame

    df, _ = survey_frame()
    df = df.dropna(subset=[VALUE]).sort_values(VALUE, kind="stable")
    clusters = df[CLUSTER[0]].astype(str) + "-" + df[CLUSTER[1]].astype(str)
    return Population(
        name="survey",
        values=df[VALUE].to_numpy(float),
        lower=LOWER,
        upper=UPPER,
        strata=df[STRATUM].astype(str).to_numpy(object),
        clusters=clusters.to_numpy(object),
    )


def run(
    case: str, key: str, N: int, statistic: str, cap: int = CAP_BYTES
) -> dict[str, float] | str:
    """One case in a capped child process: its figures, or why it failed."""
    code = _CHILD.format(
        cap=cap, case=case, key=key, N=N, statistic=statistic, sweep=EPS_SWEEP, targets=TARGETS
    )
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
    if got.get("worst") is not None:
        extra += f"  slowest plan {got['worst']:6.2f} s"
        if got.get("worst_cpu") is not None:
            extra += f" (CPU {got['worst_cpu']:.2f} s)"
    if got.get("prepare_s") is not None:
        extra += f"  preparation {got['prepare_s']:.1f} s (CPU {got['prepare_cpu']:.1f} s)"
    if got.get("prepare_peak_mb") is not None:
        extra += (
            f", its peak +{got['prepare_peak_mb']:.0f} MB, keeps +{got['prepare_keeps_mb']:.0f}"
            f" MB (columns {got['columns_mb']:.0f} MB)"
        )
    cpu = f" (CPU {got['cpu']:6.2f} s)" if got.get("cpu") is not None else ""
    print(f"{label:58s} {got['seconds']:7.2f} s{cpu}  peak +{got['peak_mb']:7.0f} MB{extra}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="only N = 10^5")
    parser.add_argument("--large", action="store_true", help="only N = 10^7")
    parser.add_argument("--case", action="append", choices=CASES, help="only these cases")
    parser.add_argument(
        "--population", action="append", choices=POPULATIONS, help="only these populations"
    )
    parser.add_argument(
        "--huge",
        action="store_true",
        help="also N = 10^8 (minutes, ~10 GB): preparation once, then median and mean plans",
    )
    args = parser.parse_args()
    sizes = (10**5,) if args.quick else (10**7,) if args.large else (10**5, 10**7)
    cases = args.case or CASES
    keys = args.population or POPULATIONS
    for N in sizes:
        for case, key, statistic, label in ROWS:
            if case in cases and key in keys:
                show(label.format(key=key, N=N, statistic=statistic), run(case, key, N, statistic))
    if not args.quick:
        for case, key, statistic, label in ROWS_37:
            if case in cases and (key in keys or key == "survey"):
                N = 10**7
                show(label.format(key=key, N=N, statistic=statistic), run(case, key, N, statistic))
    if args.huge:
        for statistic in ("median", "mean"):
            label = f"plan() after preparation, establishments N = 10^8, {statistic}"
            show(label, run("prepared", "establishments", 10**8, statistic, cap=HUGE_CAP_BYTES))


if __name__ == "__main__":
    main()
