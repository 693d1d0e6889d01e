"""The windowed sampler at register scale (prints figures, asserts nothing).

Issue "Register scale", part 1: Monte Carlo whose cost does not grow with N.  A lognormal
population (Lognormal(5, 0.5), bounds [0, 10,000]) of N = 10^4 .. 10^8 records; the median
released with Laplace noise scaled to its smooth sensitivity (Hu, Drechsler & Kim, Section
4.3), delta_target = 1/(2N).

Printed:
1. time per (rate, repetition) of :func:`core.windowed.window_quantile_draws` for each N,
   at rates 0.01, 0.1 and 0.5 and eps_target 0.5 and 3 (the statistic and both smooth
   sensitivities of every sample), next to drawing whole samples where that is feasible;
   and the same at a fixed beta (0.05 and 0.2) and for the order statistic alone, which
   separate the sampler's own cost from the window that delta_target = 1/(2N) asks for
   (a smaller delta, a smaller beta, a wider window);
2. the Figure 8 grid (6 eps_target x 11 rates x T = 1,000) of
   :func:`core.gains.median_gain_experiment` on a 10^7-record population (sampler "auto");
3. peak memory allocated during that run (tracemalloc, numpy included, in a second run of
   the grid: tracing slows every allocation, so the time of 2 is taken untraced) against the
   population's value column (8 N bytes).

Run: ``.venv/bin/python -m bench.bench_windowed [largest N, default 10**8]``
"""

from __future__ import annotations

import sys
import time
import tracemalloc

import numpy as np

from bench._timing import fmt_seconds as fmt
from bench._timing import load_line
from core import amplification as amp
from core import sensitivity as cs
from core.gains import draw_sorted_samples, median_gain_experiment
from core.windowed import window_quantile_draws

LOWER, UPPER = 0.0, 10_000.0
EPS_TARGETS = (0.01, 0.1, 0.5, 1.0, 3.0, 5.0)
RATES = (0.01, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)
T = 1_000


def population(N: int, seed: int = 0) -> np.ndarray:
    """Sorted Lognormal(5, 0.5) values clipped to the bounds (drawn in place, sorted in place)."""
    out = np.random.default_rng(seed).lognormal(5.0, 0.5, N)
    np.clip(out, LOWER, UPPER, out=out)
    out.sort()
    return out


def per_rep(values: np.ndarray, rate: float, reps: int, sampler: str) -> float:
    """Seconds per (rate, repetition) for the statistic and S at eps_target 0.5 and 3."""
    N = values.size
    n = max(1, round(rate * N))
    delta_s = min(1 / (2 * N) / (n / N), 0.5)
    betas = [cs.smooth_beta(float(amp.eps_sample(e, n / N)), delta_s) for e in (0.5, 3.0)]
    rng = np.random.default_rng(1)
    start = time.perf_counter()
    if sampler == "window":
        window_quantile_draws(rng, values, np.full(reps, n), 0.5, betas, LOWER, UPPER)
    else:
        samples = draw_sorted_samples(rng, values, n, reps)
        for b in betas:
            cs.smooth_sensitivity_beta_batch(samples, b, LOWER, UPPER)
    return (time.perf_counter() - start) / reps


def fixed_beta(values: np.ndarray, rate: float, reps: int, betas: list[float]) -> float:
    """Seconds per (rate, repetition) at given betas (none: the order statistic alone)."""
    n = max(1, round(rate * values.size))
    start = time.perf_counter()
    window_quantile_draws(
        np.random.default_rng(1), values, np.full(reps, n), 0.5, betas, LOWER, UPPER
    )
    return (time.perf_counter() - start) / reps


def main() -> None:
    largest = int(float(sys.argv[1])) if len(sys.argv) > 1 else 10**8
    print(load_line())
    window_quantile_draws(np.random.default_rng(0), np.arange(100.0), [10], 0.5, [0.1], 0, 100)
    print("\n1. time per (rate, repetition): the median and its smooth sensitivity at 2 eps_target")
    print(
        f"   {'N':>12}  {'rate':>5}  {'window':>10}  {'whole sample':>12}  "
        f"{'beta 0.05, 0.2':>14}  {'statistic only':>14}"
    )
    sizes = [10**p for p in range(4, 9) if 10**p <= largest]
    for N in sizes:
        values = population(N)
        for rate in (0.01, 0.1, 0.5):
            w = per_rep(values, rate, 400, "window")
            n = max(1, round(rate * N))
            full = per_rep(values, rate, 20, "full") if n <= 600_000 else float("nan")
            full_text = fmt(full) if full == full else "(not run)"
            fixed = fmt(fixed_beta(values, rate, 400, [0.05, 0.2]))
            alone = fmt(fixed_beta(values, rate, 400, []))
            print(
                f"   {N:>12,}  {rate:>5g}  {fmt(w):>10}  {full_text:>12}  {fixed:>14}  {alone:>14}"
            )
        del values
    grid_N = min(10**7, largest)
    values = population(grid_N)
    print(
        f"\n2. Figure 8 grid on N = {grid_N:,}: {len(EPS_TARGETS)} eps_target x "
        f"{len(RATES)} rates + census x T = {T:,} (sampler 'auto')"
    )
    median_gain_experiment(
        values[:10_001].copy(), lower=LOWER, upper=UPPER, eps_targets=[1.0], rates=[0.5], reps=2
    )

    def grid() -> None:
        median_gain_experiment(
            values, lower=LOWER, upper=UPPER, eps_targets=EPS_TARGETS, rates=RATES, reps=T, seed=0
        )

    # Timed untraced (tracemalloc slows every allocation), then run again traced for memory.
    start = time.perf_counter()
    grid()
    seconds = time.perf_counter() - start
    tracemalloc.start()
    traced = time.perf_counter()
    grid()
    traced = time.perf_counter() - traced
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(f"   {fmt(seconds)} (under tracemalloc, for the memory figure: {fmt(traced)})")
    print(
        f"\n3. peak memory allocated during that run: {peak / 2**20:,.0f} MB; the population's "
        f"value column: {values.nbytes / 2**20:,.0f} MB (ratio {peak / values.nbytes:.2f})"
    )


if __name__ == "__main__":
    main()
