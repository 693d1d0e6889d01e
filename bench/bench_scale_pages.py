"""Time every page on large populations: 10⁵, 10⁶ and 10⁷ records (issue 15, §4).

For each population (the lognormal built-in and the establishments-like built-in with strata
and clusters, drawn at size N through ``make_builtin(..., size=N)``), every tab of every page
is opened under Streamlit's AppTest with the population injected as this session's uploaded
population, and two figures are printed:

* the first run (computes and fills the caches; for a fresh content hash),
* the median of a few reruns with the same inputs (what a user waits for after moving a
  control that does not change the computation, and the floor of every interaction).

Tabs whose work is a Monte Carlo run (the median experiment, the sampling simulations, the
planner's comparison) are marked ``MC``: issue 15 §1 makes that cost independent of N and
another bench measures it; the ≤ 1 s target of §4 is for the other tabs. The server's
resident memory (peak and current) is printed after each population.

Run: ``.venv/bin/python -m bench.bench_scale_pages [N ...] [page ...]`` (default: every page at
N = 100000 1000000 10000000; a page is named by its script, e.g. ``overview``; ``--mc``
times the Monte Carlo tabs at every N too).
"""

from __future__ import annotations

import gc
import resource
import statistics
import sys
import time

from streamlit.testing.v1 import AppTest

from bench._timing import ROOT, load_line
from core.builtins import make_builtin
from core.population import Population
from ui.amplification import text as amplification_text
from ui.clusters import text as clusters_text
from ui.gains import text as gains_text
from ui.planner import text as planner_text
from ui.state import POPULATION_KEY, UPLOADED
from ui.statistical import text as statistical_text
from ui.strata import text as strata_text

#: Every page that computes on the population, with its Monte Carlo tabs and the URL query
#: that gives those tabs their smallest number of repetitions.
PAGES: tuple[tuple[str, frozenset[str], dict[str, str]], ...] = (
    ("app_pages/overview.py", frozenset(), {}),
    (
        "app_pages/gains.py",
        frozenset({gains_text.EXP_TAB, gains_text.CMP_TAB}),
        {"gain_reps": "50", "gain_cmp_reps": "50"},
    ),
    ("app_pages/clusters.py", frozenset(), {}),
    ("app_pages/strata.py", frozenset({strata_text.SIM_TAB}), {"strat_reps": "100"}),
    # Every tab of the planner runs core.planner's Monte Carlo comparison or search.
    ("app_pages/planner.py", frozenset(planner_text.TABS), {"plan_reps": "50"}),
    ("app_pages/amplification.py", frozenset(), {}),
    ("app_pages/statistical.py", frozenset(), {}),
)
#: Controls moved after the reruns, per (page, tab): (widget kind, key, new value); the rerun
#: that follows recomputes what depends on the control.
INTERACTIONS: dict[tuple[str, str], tuple[tuple[str, str, object], ...]] = {
    ("overview", "(no tabs)"): (("slider", "pop_bins", 80), ("toggle", "pop_log_x", True)),
    ("strata", strata_text.ALLOC_TAB): (("number_input", "strat_m", 20_000),),
    ("strata", strata_text.PRIVACY_TAB): (("number_input", "strat_m", 20_000),),
}
#: Monte Carlo tabs are skipped above this N: until issue 15 §1 their cost grows with N (the
#: planner's comparison takes minutes at 10⁶); bench_gains and bench_planner time them.
MC_MAX_N = 1_000_000
RERUNS = 3
#: Tab labels and the URL key of the tab bar of each page (the page scripts' st.tabs).
TABS: dict[str, tuple[tuple[str, ...], str]] = {
    "gains": (gains_text.TABS, "gain_view"),
    "clusters": (clusters_text.TABS, "cl_view"),
    "strata": (strata_text.TABS, "strat_view"),
    "planner": (planner_text.TABS, "plan_view"),
    "amplification": (amplification_text.TABS, "amp_view"),
    "statistical": (statistical_text.TABS, "sp_view"),
}


def rss_mb() -> tuple[float, float]:
    """(current, peak) resident memory of this process in MB (Linux /proc, else getrusage)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    current = float("nan")
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    current = int(line.split()[1]) / 1024.0
    except OSError:
        pass
    return current, peak


def open_with(page: str, pop: Population, query: dict[str, str]) -> tuple[AppTest, float]:
    """``page`` through the router with ``pop`` as the session's uploaded population."""
    script = (
        "import sys\n"
        f"sys.path.insert(0, {ROOT!r})\n"
        "from ui.router import run_app\n"
        f"run_app(default_page={page!r})\n"
    )
    at = AppTest.from_string(script, default_timeout=600)
    at.session_state["uploaded_population"] = pop
    at.session_state[POPULATION_KEY] = UPLOADED
    at.query_params.update({POPULATION_KEY: "Uploaded", **query})
    t0 = time.perf_counter()
    at.run()
    first = time.perf_counter() - t0
    if at.exception:
        details = [e.stack_trace[-1] if e.stack_trace else e.value for e in at.exception]
        raise RuntimeError(f"{page} {query}: {details}")
    return at, first


def bench_page(
    page: str, mc_tabs: frozenset[str], mc_query: dict[str, str], pop: Population
) -> None:
    """Print the first run and the median rerun of every tab of ``page`` on ``pop``."""
    name = page.removeprefix("app_pages/").removesuffix(".py")
    base = mc_query if mc_tabs else {}
    tabs, key = TABS.get(name, (("(no tabs)",), ""))
    for i, label in enumerate(tabs):
        mark = "MC" if label in mc_tabs else "  "
        if label in mc_tabs and pop.size > MC_MAX_N:
            print(f"  {name:13s} {label[:38]:38s} {mark} skipped (Monte Carlo, N > {MC_MAX_N:,})")
            continue
        try:
            at, first = open_with(page, pop, {**base, **({key: label} if i else {})})
        except RuntimeError as exc:  # printed, so the other pages are still timed
            print(f"  {name:13s} {label[:38]:38s} {mark} ERROR {exc}", flush=True)
            continue
        reruns = []
        for _ in range(RERUNS):
            t0 = time.perf_counter()
            at.run()
            reruns.append(time.perf_counter() - t0)
        print(
            f"  {name:13s} {label[:38]:38s} {mark} first {first:7.2f} s   "
            f"rerun {statistics.median(reruns):6.2f} s",
            flush=True,
        )
        for kind, widget_key, value in INTERACTIONS.get((name, label), ()):
            t0 = time.perf_counter()
            getattr(at, kind)(key=widget_key).set_value(value).run()
            moved = time.perf_counter() - t0
            if at.exception:
                raise RuntimeError(f"{page} {widget_key}: {[e.value for e in at.exception]}")
            print(f"  {'':13s}   {widget_key} → {value!s:30s} rerun {moved:6.2f} s", flush=True)


def main(sizes: list[int], only: set[str] | None = None) -> None:
    print(load_line())
    for n in sizes:
        for key in ("lognormal", "establishments"):
            gc.collect()
            t0 = time.perf_counter()
            pop = make_builtin(key, seed=0, size=n)
            built = time.perf_counter() - t0
            current, peak = rss_mb()
            print(
                f"{key}, N = {n:,}: built in {built:.2f} s; memory now {current:,.0f} MB "
                f"(peak {peak:,.0f} MB)",
                flush=True,
            )
            for page, mc_tabs, mc_query in PAGES:
                if only is None or any(name in page for name in only):
                    bench_page(page, mc_tabs, mc_query, pop)
            current, peak = rss_mb()
            print(f"  server memory after the pages: {current:,.0f} MB (peak {peak:,.0f} MB)")
            del pop


if __name__ == "__main__":
    args = sys.argv[1:]
    if "--mc" in args:  # time the Monte Carlo tabs at every N (minutes at 10⁷)
        MC_MAX_N = sys.maxsize
    pages = {a for a in args if not a.isdigit() and not a.startswith("--")}
    main([int(a) for a in args if a.isdigit()] or [100_000, 1_000_000, 10_000_000], pages or None)
