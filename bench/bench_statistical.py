"""Time the Statistical privacy page: core curves, cached computations, figures, reruns.

Printed:
1. a full privacy curve (200 ε values, n = 1,000) per mechanism straight from
   :mod:`core.statistical` (the issue's target: under 200 ms), and the same at n = 100,000;
2. each cached computation of :mod:`ui.statistical.cache` on a cold cache (what the first
   visitor with new settings waits for);
3. each figure builder of :mod:`ui.statistical.figures` on ready data;
4. a whole script rerun under Streamlit's AppTest after moving each control (warm cache for
   repeated values) — an upper bound on the server-side time of an interaction.

Run: ``.venv/bin/python -m bench.bench_statistical``
"""

from __future__ import annotations

import logging
import time

import numpy as np
import streamlit as st
from streamlit.testing.v1 import AppTest

from bench._timing import load_line, rerun_ms, time_calls, time_reruns
from core import statistical as sp
from tests.pages.harness import open_page
from ui.statistical import cache
from ui.statistical import figures as figs

logging.getLogger("streamlit").setLevel(logging.ERROR)


def bench_core() -> None:
    eps = np.geomspace(1e-4, 2.0, 200)
    print(load_line())
    for n, pi in ((1000, 0.5), (1000, 0.01), (100_000, 0.5)):
        m = n // 10
        cases = {
            "no mechanism": lambda n=n, pi=pi: sp.delta_no_mechanism(n, pi, eps),
            f"subsampling m = {m:,}": lambda n=n, pi=pi, m=m: sp.delta_subsampling(n, m, pi, eps),
            "Gaussian ν = 1": lambda n=n, pi=pi: sp.delta_gaussian(n, pi, eps, 1.0),
            "Gaussian ν = 3": lambda n=n, pi=pi: sp.delta_gaussian(n, pi, eps, 3.0),
            "Gaussian ν = 47 (equal utility)": lambda n=n, pi=pi: sp.delta_gaussian(
                n, pi, eps, 47.4
            ),
            "Laplace ν = 1": lambda n=n, pi=pi: sp.delta_laplace(n, pi, eps, 1.0),
            "DP Gaussian + DP Laplace": lambda: (
                sp.delta_dp_gaussian(eps, 1.0),
                sp.delta_dp_laplace(eps, 1.0),
            ),
        }
        repeats = 10 if n <= 1000 else 3
        print(f"Privacy curve, 200 ε values, n = {n:,}, π = {pi:g} (median / best of {repeats}):")
        total = 0.0
        for name, fn in cases.items():
            timing = time_calls(fn, repeats)
            med, best = timing.median_ms, timing.best_ms
            total += med
            print(f"  {name:34s} {med:8.1f} ms / {best:8.1f} ms")
        print(f"  {'all of the above':34s} {total:8.1f} ms")


def bench_cache_and_figures() -> None:
    n, pi, m, nu, eps = 1000, 0.5, 100, 1.0, 0.01
    cold = {
        "privacy_curves (6 curves × 200 ε)": lambda: cache.privacy_curves(n, pi, m, nu, 2.0),
        "point_summary": lambda: cache.point_summary(n, pi, m, nu, eps),
        "distributions (Gaussian)": lambda: cache.distributions(n, pi, m, nu, "gaussian"),
        "delta_vs_pi (2 ν × 74 π)": lambda: cache.delta_vs_pi(n, eps, "gaussian", (1.0, 3.0)),
        "ratio_vs_nu (3 π × 37 ν)": lambda: cache.ratio_vs_nu(n, eps, "gaussian", (0.5, 0.1, 0.01)),
        "equal_utility_vs_pi (73 π × 3)": lambda: cache.equal_utility_vs_pi(n, m, eps),
        "equal_utility_vs_lambda (2 π × 33 λ × 3)": lambda: cache.equal_utility_vs_lambda(
            n, eps, (0.5, 0.1)
        ),
        "conjecture_vs_lambda (33 λ)": lambda: cache.conjecture_vs_lambda(n, pi, 0.1),
    }
    print("Cached computations, cold cache, n = 1,000 (single run each):")
    data = {}
    for name, fn in cold.items():
        st_fn = getattr(cache, name.split(" ")[0])
        st_fn.clear()
        t0 = time.perf_counter()
        data[name.split(" ")[0]] = fn()
        print(f"  {name:42s} {(time.perf_counter() - t0) * 1000:8.1f} ms")

    builders = {
        "privacy_curve_figure": lambda: figs.privacy_curve_figure(
            data["privacy_curves"], nu=nu, m=m, n=n, log_x=True, log_y=True, eps_mark=eps
        ),
        "distributions_figure": lambda: figs.distributions_figure(data["distributions"], title="x"),
        "delta_vs_pi_figure": lambda: figs.delta_vs_pi_figure(
            data["delta_vs_pi"], noise="gaussian", n=n, eps=eps
        ),
        "ratio_vs_nu_figure": lambda: figs.ratio_vs_nu_figure(
            data["ratio_vs_nu"], noise="gaussian", n=n, eps=eps, log_y=False
        ),
        "equal_utility_pi_figure": lambda: figs.equal_utility_pi_figure(
            data["equal_utility_vs_pi"], n=n, m=m, eps=eps
        ),
        "equal_utility_lambda_figure": lambda: figs.equal_utility_lambda_figure(
            data["equal_utility_vs_lambda"], n=n, eps=eps, log_y=False
        ),
        "conjecture_figure": lambda: figs.conjecture_figure(
            data["conjecture_vs_lambda"], n=n, pi=pi, eps=0.1
        ),
    }
    print("Figure builders on ready data (median / best of 10):")
    for name, fn in builders.items():
        timing = time_calls(fn, 10)
        med, best = timing.median_ms, timing.best_ms
        print(f"  {name:42s} {med:8.2f} ms / {best:8.2f} ms")


def _open(query: dict[str, str]) -> AppTest:
    """The page through the real router (the page tests' harness), with URL ``query``."""
    return open_page("app_pages/statistical.py", query)


def bench_reruns() -> None:
    st.cache_data.clear()  # the sections above filled the caches for the default settings
    t0 = time.perf_counter()
    curve = _open({})
    print(f"First load of the page (cold caches): {(time.perf_counter() - t0) * 1000:.0f} ms")
    pi_tab = _open({"sp_view": "δ against π (Figures 1–4, 6)"})
    eu_tab = _open({"sp_view": "Equal utility (Figures 5, 7, 8)"})

    def number(key: str, values):
        return [lambda at, v=v: at.number_input(key=key).set_value(v) for v in values]

    actions = {
        "records n (curve tab)": (curve, number("sp_n", (500, 1000))),
        "π exact box (curve tab)": (curve, number("sp_pi", (0.1, 0.5))),
        "ε exact box (curve tab)": (curve, number("sp_eps", (0.05, 0.01))),
        "noise ν (curve tab)": (curve, number("sp_nu", (3.0, 1.0))),
        "λ slider (curve tab)": (
            curve,
            [
                lambda at, v=v: at.select_slider(key="sp_lambda__slider").set_value(v)
                for v in (0.3, 0.1)
            ],
        ),
        "distribution shown (curve tab)": (
            curve,
            [lambda at, v=v: at.selectbox(key="sp_dist").set_value(v) for v in ("laplace", "none")],
        ),
        "noise kind (π tab)": (
            pi_tab,
            [
                lambda at, v=v: at.selectbox(key="sp_noise").set_value(v)
                for v in ("laplace", "gaussian")
            ],
        ),
        "ν list (π tab)": (
            pi_tab,
            [lambda at, v=v: at.text_input(key="sp_nus").set_value(v) for v in ("2, 5", "1, 3")],
        ),
        "λ exact box (equal-utility tab)": (eu_tab, number("sp_lambda", (0.3, 0.1))),
        "π list (equal-utility tab)": (
            eu_tab,
            [
                lambda at, v=v: at.text_input(key="sp_eu_pis").set_value(v)
                for v in ("0.3", "0.5, 0.1")
            ],
        ),
    }
    print("Whole page rerun after an interaction, AppTest (first = cold cache; then median / max")
    print("of 4 warm reruns):")
    for name, (at, acts) in actions.items():
        first, _ = rerun_ms(at, acts[0])
        rerun_ms(at, acts[1])
        warm = time_reruns(at, acts, 2)
        print(
            f"  {name:34s} first {first:7.0f} ms   warm {warm.median_ms:6.0f} ms / "
            f"{warm.worst_ms:6.0f} ms"
        )


if __name__ == "__main__":
    bench_core()
    bench_cache_and_figures()
    bench_reruns()
