"""Time the Mean & median gains page (targets: default run ≤ 2 s, cached re-render ≤ 100 ms).

Printed figures:
1. the first run of each tab in a fresh process (includes computing and caching),
2. a cached re-render of each tab (same inputs again),
3. the page's default median experiment and the paper's Figure 8 preset computed directly
   (core only, no Streamlit), for comparison with the page figures.

Run: ``.venv/bin/python -m bench.bench_gains_page``
"""

from __future__ import annotations

import statistics
import time

from streamlit.testing.v1 import AppTest

from core import gains
from core.populations import make_builtin
from core.sensitivity import warm_up
from tests.pages.harness import open_page

TABS = (
    "Mean: noise ratio r and bound q",
    "Mean on this population",
    "Median: smooth sensitivity",
    "Median: sample or population?",
)


def _open(query: dict[str, str]) -> tuple[AppTest, float]:
    """The page through the real router, and the seconds its first run took."""
    t0 = time.perf_counter()
    at = open_page("app_pages/gains.py", query)
    return at, time.perf_counter() - t0


FIG8 = {
    "gain_view": TABS[3],
    "gain_exp_eps": "0.01, 0.1, 0.5, 1, 3, 5",
    "gain_exp_rates": "0.01, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9",
    "gain_reps": "1000",
}


def bench_tabs() -> None:
    print("Page runs under AppTest (first run computes; re-render is served from caches):")
    cases = [(tab, {"gain_view": tab}) for tab in TABS] + [("Figure 8 preset (T = 1,000)", FIG8)]
    for tab, query in cases:
        at, first = _open(query)
        reruns = []
        for _ in range(5):
            t0 = time.perf_counter()
            at.run()
            reruns.append((time.perf_counter() - t0) * 1000)
        print(
            f"  {tab:34s} first run {first:6.2f} s   cached re-render median "
            f"{statistics.median(reruns):6.1f} ms (max {max(reruns):6.1f} ms)"
        )


def bench_core() -> None:
    warm_up()
    pop = make_builtin("lognormal", seed=0)
    cases = {
        "page default (T=200, 4 eps, 6 rates)": {
            "eps_targets": (0.1, 0.5, 1.0, 3.0),
            "rates": (0.01, 0.1, 0.3, 0.5, 0.7, 0.9),
            "reps": 200,
        },
        "Figure 8 preset (T=1000, 6 eps, 10 rates)": {
            "eps_targets": (0.01, 0.1, 0.5, 1.0, 3.0, 5.0),
            "rates": (0.01, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9),
            "reps": 1000,
        },
    }
    print("median_gain_experiment on Lognormal(5, 0.5), N = 10,001 (best of 3):")
    for name, kw in cases.items():
        best = float("inf")
        for _ in range(3):
            t0 = time.perf_counter()
            gains.median_gain_experiment(pop.values, lower=pop.lower, upper=pop.upper, seed=0, **kw)
            best = min(best, time.perf_counter() - t0)
        print(f"  {name:42s} {best:6.2f} s")


if __name__ == "__main__":
    bench_core()
    bench_tabs()
