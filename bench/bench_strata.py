"""Time every Stratified-sampling-page interaction on the 10⁵-row establishments (target:
under 200 ms each).

Three figures are printed:
1. the core computations on the establishment population (uncached),
2. the figure builders alone, and
3. a whole script rerun of the page under Streamlit's AppTest after moving each control —
   an upper bound on the server-side time of an interaction (AppTest adds its own overhead;
   the browser's drawing time is not included). Every control is set to values not seen
   before in that session where it matters (fresh sample sizes), so cache misses are counted.

Run: ``.venv/bin/python -m bench.bench_strata``
"""

from __future__ import annotations

import itertools
import os

import numpy as np
from streamlit.testing.v1 import AppTest

from bench._timing import time_calls, time_reruns
from core import strata
from core.populations import make_builtin
from tests.pages.harness import open_page


def bench_core() -> None:
    pop = make_builtin("establishments")
    summ = strata.stratum_summary(pop.values, pop.strata)
    n, s = summ.sizes, summ.sds
    nb = strata.top_code_neighbour(pop.values, summ, new_value=pop.upper)
    pmf = strata.truncated_gaussian_pmf(10_000, 5_000, 300.0)
    cases = {
        "stratum_summary (100,000 rows)": lambda: strata.stratum_summary(pop.values, pop.strata),
        "neyman_allocation (m = 10,000)": lambda: strata.neyman_allocation(n, s, 10_000),
        "proportional_allocation, both": lambda: (
            strata.proportional_allocation(n, 0.1, "deterministic"),
            strata.proportional_allocation(n, 0.1, "randomized", rng=0),
        ),
        "variances (3 designs)": lambda: (
            strata.stratified_mean_variance(n, s, strata.neyman_allocation(n, s, 10_000)),
            strata.randomized_proportional_variance(n, s, 0.1),
        ),
        "top_code_neighbour": lambda: strata.top_code_neighbour(
            pop.values, summ, new_value=pop.upper
        ),
        "compare_neighbours + 3 losses": lambda: [
            strata.compare_neighbours(summ, nb, 10_000).count_loss(1.0, d)
            for d in ("neyman", "proportional", "randomized")
        ],
        "proportional_eps_bound (241 rates)": lambda: strata.proportional_eps_bound(
            1.0, np.geomspace(1e-4, 1, 241)
        ),
        "random_size_eps_bounds (n = 10⁴)": lambda: strata.random_size_eps_bounds(
            0.01, 10_000, pmf
        ),
        "simulate_weighted_means (500 reps)": lambda: strata.simulate_weighted_means(
            pop.values, summ, 500, 0, allocation=strata.neyman_allocation(n, s, 10_000)
        ),
        "simulate_weighted_means, randomised": lambda: strata.simulate_weighted_means(
            pop.values, summ, 500, 0, randomized_rate=0.1
        ),
    }
    print("Core on the establishments, N = 100,000 (median / max over 10 runs):")
    for name, fn in cases.items():
        timing = time_calls(fn, 10)
        med, worst = timing.median_ms, timing.worst_ms
        print(f"  {name:38s} {med:8.2f} ms / {worst:8.2f} ms")


def bench_builders() -> None:
    # Imported here: ui modules import streamlit's caching, harmless outside a session.
    from ui.strata import cache
    from ui.strata import figures as figs

    pop = make_builtin("establishments")
    table = cache.allocation_table.__wrapped__(pop.content_hash, pop, 10_000, 0)
    var_table = cache.variance_table.__wrapped__(pop.content_hash, pop, 10_000)
    cmp = cache.neighbour.__wrapped__(pop.content_hash, pop, 10_000, pop.upper, -1)
    sim = cache.simulation.__wrapped__(pop.content_hash, pop, 10_000, 500, 0)
    rs = cache.random_size_curve.__wrapped__(10_000, 0.01, 0.5)
    example = strata.rounding_example(14, 0.1)
    markers = [("Neyman", 1.0, cache.NEYMAN), ("randomised", 0.1, cache.PROP_RAND)]
    cases = {
        "allocation_figure": lambda: figs.allocation_figure(table, show_rates=False, log_y=True),
        "variance_figure": lambda: figs.variance_figure(var_table),
        "privacy_rate_figure": lambda: figs.privacy_rate_figure(0.5, 0.1, markers),
        "neighbour_figure": lambda: figs.neighbour_figure(cmp, (0, 11)),
        "rounding_figure": lambda: figs.rounding_figure(example, 0.5),
        "simulation_figure (3 × 500)": lambda: figs.simulation_figure(sim, 20.19, "employees"),
        "random_size_figure": lambda: figs.random_size_figure(rs, 0.01, 10_000),
        "random_size_curve (60 σ, uncached)": lambda: cache.random_size_curve.__wrapped__(
            10_000, 0.01, 0.5
        ),
    }
    print("Figure builders (median / max over 10 runs):")
    for name, fn in cases.items():
        timing = time_calls(fn, 10)
        med, worst = timing.median_ms, timing.worst_ms
        print(f"  {name:38s} {med:8.2f} ms / {worst:8.2f} ms")


def _open(query: dict[str, str]) -> AppTest:
    """The page through the real router (the page tests' harness), with URL ``query``."""
    return open_page("app_pages/strata.py", {"population": "Establishments", **query})


def bench_reruns() -> None:
    alloc = _open({})
    privacy = _open({"strat_view": "Privacy"})
    sim = _open({"strat_view": "Simulation check"})
    size = _open({"strat_view": "Random sample size (Theorem 3.1)"})
    fresh_m = itertools.count(3001, 97)  # a new sample size each time: a cache miss

    actions = {
        "sample size m, new value (alloc tab)": (
            alloc,
            [lambda at: at.number_input(key="strat_m").set_value(next(fresh_m))] * 2,
        ),
        "ε exact box (alloc tab)": (
            alloc,
            [lambda at, v=v: at.number_input(key="strat_eps").set_value(v) for v in (1.0, 0.2)],
        ),
        "ε log slider (alloc tab)": (
            alloc,
            [
                lambda at, v=v: at.select_slider(key="strat_eps__slider").set_value(v)
                for v in (2.0, 0.5)
            ],
        ),
        "rates / log toggles": (
            alloc,
            [
                lambda at: at.toggle(key="strat_show_rates").set_value(True),
                lambda at: at.toggle(key="strat_log_y").set_value(False),
                lambda at: at.toggle(key="strat_show_rates").set_value(False),
                lambda at: at.toggle(key="strat_log_y").set_value(True),
            ],
        ),
        "sample size m, new value (privacy)": (
            privacy,
            [lambda at: at.number_input(key="strat_m").set_value(next(fresh_m))] * 2,
        ),
        "ε exact box (privacy tab)": (
            privacy,
            [lambda at, v=v: at.number_input(key="strat_eps").set_value(v) for v in (3.0, 0.1)],
        ),
        "neighbour value / stratum": (
            privacy,
            [
                lambda at: at.number_input(key="strat_nb_value").set_value(5000.0),
                lambda at: at.selectbox(key="strat_nb_stratum").set_value(5),
                lambda at: at.selectbox(key="strat_nb_stratum").set_value(-1),
                lambda at: at.number_input(key="strat_nb_value").set_value(None),
            ],
        ),
        "counter-example |P| and r": (
            privacy,
            [
                lambda at: at.number_input(key="strat_cx_size").set_value(25),
                lambda at: at.number_input(key="strat_cx_rate").set_value(0.3),
                lambda at: at.number_input(key="strat_cx_size").set_value(14),
                lambda at: at.number_input(key="strat_cx_rate").set_value(0.1),
            ],
        ),
        "samples per design (simulation)": (
            sim,
            [
                lambda at, v=v: at.select_slider(key="strat_reps").set_value(v)
                for v in (200, 1000, 500)
            ],
        ),
        "Theorem 3.1: n, ε, mean": (
            size,
            [
                lambda at: at.number_input(key="strat_rs_n").set_value(20_000),
                lambda at: at.number_input(key="strat_rs_eps").set_value(0.05),
                lambda at: at.slider(key="strat_rs_mean").set_value(0.3),
                lambda at: at.number_input(key="strat_rs_n").set_value(10_000),
            ],
        ),
    }
    print(
        "Whole page rerun after an interaction, AppTest (median / max; "
        f"{os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}):"
    )
    for name, (at, acts) in actions.items():
        timing = time_reruns(at, acts, 3)
        med, worst = timing.median_ms, timing.worst_ms
        print(f"  {name:38s} {med:8.1f} ms / {worst:8.1f} ms")
    # Opening each tab from a link: a fresh session (includes AppTest's start-up), with the
    # caches already warm from the runs above, as for a second visitor.
    for tab in ("Allocations and accuracy", "Privacy", "Simulation check"):
        timing = time_calls(lambda tab=tab: _open({"strat_view": tab}), 3)
        print(f"  {'open tab: ' + tab:38s} {timing.median_ms:8.1f} ms / {timing.worst_ms:8.1f} ms")


if __name__ == "__main__":
    bench_core()
    bench_builders()
    bench_reruns()
