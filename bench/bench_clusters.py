"""Time the Cluster sampling page (issue 4): every interaction must compute in under 100 ms.

Printed figures:
1. core.clusters on the grids the page draws, and at the extreme arguments of the issue
   (ε = 1000, sizes 10⁵, k = 10⁶, including the binomial sums of the Theorem 5.1 witness);
2. each figure builder alone (the computation behind each chart);
3. a whole script rerun of the page under Streamlit's AppTest after each interaction — an upper
   bound on the server-side time (AppTest adds its own overhead; the browser's drawing time is
   not included). The first run of each tab is done before timing, as a user's first visit
   fills the caches.

Wall time depends on what else the machine runs, so the process CPU time of each interaction
(``time.process_time``: the script thread's work, not AppTest's sleeping) and the load average
are printed too; on a busy machine the CPU column is the figure to compare with the budget.

Run: ``.venv/bin/python -m bench.bench_clusters``
"""

from __future__ import annotations

import os
from collections.abc import Callable

import numpy as np
from streamlit.testing.v1 import AppTest

from bench._timing import Timing, rerun_ms, time_calls, time_reruns
from core import clusters as cl
from core.populations import make_builtin
from tests.pages.harness import open_page
from ui.clusters import figures as figs
from ui.clusters import text as cl_text

BUDGET_MS = 100.0


def _row(name: str, timing: Timing) -> None:
    med, worst, cpu = timing.median_ms, timing.worst_ms, timing.cpu_median_ms
    flag = "ok" if min(med, cpu) < BUDGET_MS else "SLOW"
    print(f"  {name:44s} {med:8.2f} / {worst:8.2f} ms   cpu {cpu:7.2f} ms  {flag}")


def bench_core() -> None:
    sizes = figs.whole_grid(1, 100_000)
    n_min, n_max = figs.other_sizes(sizes, 4.0)
    ells = figs.whole_grid(1, 1_000_000)
    est = make_builtin("establishments", seed=0)
    _, est_sizes = cl.cluster_sizes(est.clusters)
    big_sizes = np.random.default_rng(0).integers(1, 10**5, size=10**5)
    cases: dict[str, Callable[[], object]] = {
        f"cluster_eps_bounds, {sizes.size} sizes": lambda: cl.cluster_eps_bounds(
            0.1, 1000, 100, sizes, n_min, n_max
        ),
        f"cluster_eps_bounds, {ells.size} values of ℓ": lambda: cl.cluster_eps_bounds(
            0.1, 10**6, ells, 10, 5, 50
        ),
        "cluster_eps_bounds, ε=1000, n=1e5, k=1e6": lambda: cl.cluster_eps_bounds(
            1000.0, 10**6, 10**5, 10**5, 10**5, 10**5
        ),
        "systematic_eps_bounds, 300 intervals": lambda: cl.systematic_eps_bounds(
            0.1, 100_000, figs.whole_grid(2, 100_000)
        ),
        "cluster_sizes (establishments, 1e5 labels)": lambda: cl.cluster_sizes(est.clusters),
        "per_cluster_bounds (100 regions)": lambda: cl.per_cluster_bounds(0.1, est_sizes, 10),
        "per_cluster_bounds (1e5 clusters)": lambda: cl.per_cluster_bounds(0.1, big_sizes, 10**4),
        "witness_eps, k=1e6, two size classes": lambda: cl.witness_eps(
            1.0, 10**5, 10**5, [1, 10**5], [500_000, 499_999]
        ),
    }
    print("core.clusters (wall median / max over 20 runs, cpu median):")
    for name, fn in cases.items():
        _row(name, time_calls(fn, 20, warm_up=True))


def bench_builders() -> None:
    est = make_builtin("establishments", seed=0)
    labels, sizes = cl.cluster_sizes(est.clusters)
    frame = cl.per_cluster_bounds(0.1, sizes, 10, labels=labels)
    cases: dict[str, Callable[[], object]] = {
        "eps_vs_size_figure": lambda: figs.eps_vs_size_figure(0.1, 1000, 100, 4.0, 10),
        "eps_vs_fraction_figure (k = 1e6)": lambda: figs.eps_vs_fraction_figure(
            0.1, 10**6, 10, 4.0, 100
        ),
        "per_cluster_figure (establishments)": lambda: figs.per_cluster_figure(frame, 0.1),
        "two_stage_figure": lambda: figs.two_stage_figure(0.1, 1000, 100, 4.0, 0.1, 10),
        "pps_figure (1e5 records)": lambda: figs.pps_figure(0.1, est.values, "employees"),
        "systematic_figure (N = 1e5)": lambda: figs.systematic_figure(0.1, 100_000, 100),
        "hypothesis_figure": lambda: figs.hypothesis_figure(0.1, 1000, 100, 10),
        "summary + reading": lambda: cl_text.reading(
            figs.summary(0.1, 1000, 100, 10, 4.0), 1000, 100
        ),
    }
    print("Figure builders (wall median / max over 20 runs, cpu median):")
    for name, fn in cases.items():
        _row(name, time_calls(fn, 20, warm_up=True))


def _open(query: dict[str, str]) -> AppTest:
    """The page through the real router (the page tests' harness), with URL ``query``."""
    return open_page("app_pages/clusters.py", query)


def bench_reruns() -> None:
    est = {"population": "Establishments"}
    pages = {
        "size": _open({}),
        "fraction": _open({"cl_view": "ε′ vs fraction drawn"}),
        "population": _open({"cl_view": "This population's clusters", **est}),
        "two": _open({"cl_view": "Two-stage"}),
        "other": _open({"cl_view": "PPS & systematic", **est}),
        "test": _open({"cl_view": "Hypothesis-testing view"}),
    }

    def box(key: str, values: tuple) -> list[Callable[[AppTest], object]]:
        return [lambda at, v=v: at.number_input(key=key).set_value(v) for v in values]

    def slider(key: str, values: tuple) -> list[Callable[[AppTest], object]]:
        return [lambda at, v=v: at.select_slider(key=key).set_value(v) for v in values]

    def preset(label: str) -> Callable[[AppTest], object]:
        return lambda at: next(b for b in at.button if b.label == label).click()

    actions: dict[str, tuple[str, list[Callable[[AppTest], object]]]] = {
        "cluster size (log slider)": ("size", slider("cl_size__slider", (100, 3, 10))),
        "cluster size (exact box)": ("size", box("cl_size", (42, 100_000, 10))),
        "size spread": ("size", slider("cl_spread__slider", (5.0, 1.0))),
        "ε (log slider)": ("size", slider("cl_eps__slider", (1.0, 1000.0, 0.1))),
        "number of clusters k": ("size", box("cl_k", (10**6, 1000))),
        "clusters drawn ℓ": ("size", box("cl_l", (10, 100))),
        "log ε′ axis": (
            "size",
            [lambda at, v=v: at.toggle(key="cl_log_y").set_value(v) for v in (True, False)],
        ),
        "presets": ("size", [preset("Regions"), preset("Households")]),
        "ℓ on the fraction tab (k = 1e6)": ("fraction", box("cl_l", (10, 1000))),
        "ε on the population tab": ("population", box("cl_eps", (1.0, 0.1))),
        "ℓ on the population tab": ("population", box("cl_l", (300, 100))),
        "within-cluster rate r": ("two", box("cl_r", (0.01, 0.1))),
        "systematic interval": ("other", box("cl_sys_k", (1000, 100))),
        "cluster size on the test tab": ("test", box("cl_size", (100, 10))),
    }
    print("Whole page rerun after an interaction, AppTest (wall median / max, cpu median):")
    for name, (which, acts) in actions.items():
        at = pages[which]
        for act in acts:  # the first visit to each value fills the caches
            rerun_ms(at, act)
        _row(name, time_reruns(at, acts, 3))


if __name__ == "__main__":
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(
        f"load average {load} on {os.cpu_count()} CPUs; budget {BUDGET_MS:.0f} ms per interaction"
    )
    bench_core()
    bench_builders()
    bench_reruns()
