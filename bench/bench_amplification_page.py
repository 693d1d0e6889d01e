"""Time every Amplification-page interaction (target: under 100 ms each).

Two figures are printed:
1. the figure builders alone (the computation behind each chart), and
2. a whole script rerun of the page under Streamlit's AppTest after moving each control —
   an upper bound on the server-side time of an interaction (AppTest adds its own overhead;
   the browser's drawing time is not included).

Run: ``.venv/bin/python -m bench.bench_amplification_page``
"""

from __future__ import annotations

import numpy as np
from streamlit.testing.v1 import AppTest

from bench._timing import time_calls, time_reruns
from tests.pages.harness import open_page
from ui.amplification import figures as figs


def bench_builders() -> None:
    rates = figs.rate_grid(1e-3, log_spacing=True)
    p_grid = np.geomspace(1e-4, 1.0, figs.CURVE_POINTS)
    cases = {
        "eps_sample_figure (3 curves)": lambda: figs.eps_sample_figure(
            [0.1, 0.5, 1.0], rates, log_x=True, log_y=False
        ),
        "delta_sample_figure": lambda: figs.delta_sample_figure(5e-5, rates, log_x=True),
        "eps_target_figure (3 curves)": lambda: figs.eps_target_figure(
            [1.0, 2.0, 5.0], rates, log_x=True, log_y=True
        ),
        "steinke_vs_p_figure (4 curves)": lambda: figs.steinke_vs_p_figure(
            [0.01, 0.1, 1, 2], p_grid, log_x=True
        ),
        "steinke_regime_figure (4 c)": lambda: figs.steinke_regime_figure(
            [0.2, 0.5, 2, 5], p_grid, log_x=True
        ),
        "calculator_table": lambda: figs.calculator_table(10001, 101, [0.1, 0.5, 1.0], 5e-5),
    }
    print("Figure builders (median / max over 20 runs):")
    for name, fn in cases.items():
        timing = time_calls(fn, 20)
        med, worst = timing.median_ms, timing.worst_ms
        print(f"  {name:34s} {med:7.2f} ms / {worst:7.2f} ms")


def _open(query: dict[str, str]) -> AppTest:
    """The page through the real router (the page tests' harness), with URL ``query``."""
    return open_page("app_pages/amplification.py", query)


def bench_reruns() -> None:
    forward = _open({})
    reverse = _open({"amp_view": "Reverse view and calculator"})
    steinke = _open({"amp_view": "Steinke: limits of amplification"})

    actions = {
        "ε_target list (first tab)": (
            forward,
            [
                lambda at, v=v: at.text_input(key="amp_eps_targets").set_value(v)
                for v in ("0.2, 2", "0.1, 0.5, 1", "0.05, 0.3, 3, 8")
            ],
        ),
        "smallest rate (log slider)": (
            forward,
            [
                lambda at, v=v: at.select_slider(key="amp_rate_min__slider").set_value(v)
                for v in (0.01, 0.0001, 0.001)
            ],
        ),
        "δ_target (exact box)": (
            forward,
            [lambda at, v=v: at.number_input(key="amp_delta").set_value(v) for v in (1e-6, 5e-5)],
        ),
        "log axis toggle": (
            forward,
            [lambda at, v=v: at.toggle(key="amp_log_x").set_value(v) for v in (True, False)],
        ),
        "sample size n (reverse tab)": (
            reverse,
            [lambda at, v=v: at.number_input(key="amp_n").set_value(v) for v in (1001, 101)],
        ),
        "ε_sample list (reverse tab)": (
            reverse,
            [
                lambda at, v=v: at.text_input(key="amp_eps_samples").set_value(v)
                for v in ("1, 3", "1, 2, 5")
            ],
        ),
        "c list (Steinke tab)": (
            steinke,
            [
                lambda at, v=v: at.text_input(key="amp_st_c").set_value(v)
                for v in ("1, 10", "0.2, 0.5, 2, 5")
            ],
        ),
    }
    print("Whole page rerun after an interaction, AppTest (median / max over 6 reruns):")
    for name, (at, acts) in actions.items():
        timing = time_reruns(at, acts, 3)
        med, worst = timing.median_ms, timing.worst_ms
        print(f"  {name:34s} {med:7.1f} ms / {worst:7.1f} ms")


if __name__ == "__main__":
    bench_builders()
    bench_reruns()
