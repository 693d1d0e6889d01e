"""Timings of core.gains and core.illustrations (prints; no asserts).

Run: ``.venv/bin/python -m bench.bench_gains`` from the project root.

Targets (Hu et al. Figure 8 at full size: 6 eps x 10 rates + population, T = 1000,
N = 10,001, delta = 1/(2N)) <= 10 s; a default page run (T = 200, 3 eps, 6 rates) <= 2 s.
Issue 14: the same Figure 8 grid through the experiment for every quantile mechanism (the
issue asks <= 2 s per mechanism), and the four mechanisms at once on shared samples
(``mechanism_comparison``, one eps).
The breakdown wraps the two heavy calls in this process only (sample drawing and the batch
smooth sensitivity); nothing in core is modified.
"""

from __future__ import annotations

import os
import time
from collections import defaultdict
from collections.abc import Callable
from typing import Any

import numpy as np

from bench._timing import best_of, cpu_seconds
from core import gains, illustrations, sensitivity
from core.populations import make_builtin

FIG8_EPS = [0.01, 0.1, 0.5, 1.0, 3.0, 5.0]
FIG8_RATES = [0.01, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]

_spent: dict[str, float] = defaultdict(float)


def _timed(name: str, func: Callable[..., Any]) -> Callable[..., Any]:
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        t = time.perf_counter()
        try:
            return func(*args, **kwargs)
        finally:
            _spent[name] += time.perf_counter() - t

    return wrapper


def _experiment(pop, eps, rates, reps, estimator="exact_noise_variance"):
    return gains.median_gain_experiment(
        pop.values,
        lower=pop.lower,
        upper=pop.upper,
        eps_targets=eps,
        rates=rates,
        reps=reps,
        seed=0,
        estimator=estimator,
    )


def mechanisms_on_the_figure8_grid(pop) -> None:
    """Issue 14: time per mechanism of the Figure 8 grid through median_gain_experiment."""
    print("\nFigure 8 grid per mechanism (lognormal, 6 eps x 10 rates + population, T = 1000):")
    for name in gains.QUANTILE_MECHANISMS:
        run = lambda: gains.median_gain_experiment(  # noqa: E731
            pop.values, lower=pop.lower, upper=pop.upper, eps_targets=FIG8_EPS,
            rates=FIG8_RATES, reps=1000, seed=0, mechanism=name,  # noqa: B023
        )  # fmt: skip
        best, ex = best_of(run, 2)
        print(f"  {name:16s} {best:7.3f} s wall   (estimator {ex.estimator})")
    t = time.perf_counter()
    gains.draw_sorted_samples(np.random.default_rng(0), pop.values, 5000, 1000)
    print(f"  (drawing 1000 samples of n = 5,000 alone: {time.perf_counter() - t:.3f} s)")
    for eps in (0.5, 3.0):
        run = lambda: gains.mechanism_comparison(  # noqa: E731
            pop.values, lower=pop.lower, upper=pop.upper, eps_target=eps,  # noqa: B023
            rates=FIG8_RATES, reps=1000, seed=0,
        )  # fmt: skip
        best, cmp = best_of(run, 2)
        print(
            f"  mechanism_comparison, 4 mechanisms, eps {eps:g}, 10 rates, T = 1000: "
            f"{best:7.3f} s (best: {cmp.best_mechanism} at rate {cmp.best_rate:g})"
        )


def main() -> None:
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"cpus: {os.cpu_count()}, load average: {load:.2f}, numba: {sensitivity.HAVE_NUMBA}")
    t = time.perf_counter()
    sensitivity.warm_up()
    print(f"sensitivity.warm_up() (compile or load numba cache): {time.perf_counter() - t:.3f} s")

    lognormal = make_builtin("lognormal", seed=0)
    bimodal = make_builtin("bimodal", seed=0)
    mechanisms_on_the_figure8_grid(lognormal)

    # Breakdown of one full Figure 8 run.
    orig_batch = sensitivity.smooth_sensitivity_median_batch
    orig_draw = gains.draw_sorted_samples
    sensitivity.smooth_sensitivity_median_batch = _timed("batch smooth sensitivity", orig_batch)
    gains.draw_sorted_samples = _timed("draw sorted samples", orig_draw)
    try:
        t = time.perf_counter()
        _experiment(lognormal, FIG8_EPS, FIG8_RATES, 1000)
        total = time.perf_counter() - t
    finally:
        sensitivity.smooth_sensitivity_median_batch = orig_batch
        gains.draw_sorted_samples = orig_draw
    print("\nFigure 8 (lognormal, 6 eps x 10 rates + population, T = 1000), one run:")
    print(f"  total                      {total:7.3f} s")
    for name, spent in _spent.items():
        print(f"  {name:26s} {spent:7.3f} s  ({100 * spent / total:4.1f} %)")
    rest = total - sum(_spent.values())
    print(f"  {'rest (numpy, pandas)':26s} {rest:7.3f} s  ({100 * rest / total:4.1f} %)")

    cases = [
        ("Figure 8  lognormal, exact noise var.", lognormal, FIG8_EPS, FIG8_RATES, 1000, "exact"),
        ("Figure 8  lognormal, drawn noise     ", lognormal, FIG8_EPS, FIG8_RATES, 1000, "drawn"),
        ("Figure 13 bimodal,   exact noise var.", bimodal, FIG8_EPS, FIG8_RATES, 1000, "exact"),
        (
            "page default: T=200, 3 eps, 6 rates ",
            lognormal,
            [0.1, 0.5, 1.0],
            [0.01, 0.05, 0.1, 0.2, 0.5, 0.9],
            200,
            "exact",
        ),
        (
            "page default, high rates            ",
            lognormal,
            [0.1, 0.5, 1.0],
            [0.5, 0.6, 0.7, 0.8, 0.9, 0.95],
            200,
            "exact",
        ),
    ]
    print("\nmedian_gain_experiment (best of 3):")
    for label, pop, eps, rates, reps, est in cases:
        estimator = "exact_noise_variance" if est == "exact" else "drawn_noise"
        run = lambda: _experiment(pop, eps, rates, reps, estimator)  # noqa: B023, E731
        best, ex = best_of(run, 3)
        cpu = cpu_seconds(run)
        rows = len(ex.per_rep)
        print(f"  {label} {best:7.3f} s wall, {cpu:7.3f} s CPU   ({rows:,} per-rep rows)")

    print("\nMonte Carlo error of log(MSE), Figure 8, T = 1000 (median over cells, samples only):")
    for est in ["exact_noise_variance", "drawn_noise"]:
        ex = _experiment(lognormal, FIG8_EPS, FIG8_RATES, 1000, est)
        se = ex.summary[ex.summary.rate < 1].log_mse_se
        print(f"  {est:22s} median se {float(np.median(se)):.4f}, max se {float(se.max()):.4f}")

    print("\nMean and illustrations (best of 3):")
    rates_grid = np.linspace(0.001, 1.0, 400)
    best, _ = best_of(
        lambda: gains.mean_gain_table(
            lognormal.values, lognormal.lower, lognormal.upper, FIG8_EPS, rates_grid
        ),
        3,
    )
    print(f"  mean_gain_table 6 eps x 400 rates          {best:7.3f} s")
    best, _ = best_of(
        lambda: gains.simulate_mean_release(
            lognormal.values, lognormal.lower, lognormal.upper, 0.5, 1000, 10_000, 0
        ),
        3,
    )
    print(f"  simulate_mean_release n=1000, 10,000 reps  {best:7.3f} s")
    beta = make_builtin("beta", seed=0)
    best, _ = best_of(
        lambda: illustrations.privatized_means(beta.values, 0, 1, [0.1, 0.5, 1], 1000), 3
    )
    print(f"  privatized_means 3 eps x 1000              {best:7.3f} s")
    best, _ = best_of(
        lambda: illustrations.privatized_medians(
            beta.values, 0, 1, [0.1, 0.5, 1], 1000, sensitivity="smooth"
        ),
        3,
    )
    print(f"  privatized_medians smooth 3 eps x 1000     {best:7.3f} s")
    best, _ = best_of(
        lambda: illustrations.sample_medians(bimodal.values, [101 / 10001, 1001 / 10001], 1000), 3
    )
    print(f"  sample_medians 2 rates x 1000              {best:7.3f} s")


if __name__ == "__main__":
    main()
