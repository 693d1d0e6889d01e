"""Proportional stratified samples on windows: a cost flat in N (prints, asserts nothing).

Issue 22, part 1.  A population of N = 10^5 and 10^7 records in 12 strata of unequal sizes
and different lognormal distributions, bounds [0, 10,000], built with numpy in memory.  For
8 rates (0.002 .. 0.5), T = 200 proportional stratified samples each (randomised rounding,
:mod:`core.designs.stratified_windows`), the median drawn on windows:

1. ``quantile + S``: :func:`core.windowed.window_quantile_draws` -- the sample median and
   its smooth sensitivity at beta = 0.01 and 0.1 (Hu, Drechsler & Kim eq. 4);
2. ``exponential``: :func:`core.windowed.window_exponential_draws` -- the exponential-
   mechanism median at the ``eps_sample`` that proportional stratified sampling may spend
   for eps_target = 1 under add/remove neighbours (Bun et al. Theorem 7.2;
   :func:`core.planner.eps_sample_for`), the release the planner makes for this design.

Printed per N: the one-off preparation of the strata (:class:`StrataIndex`, ``O(N)``, cached
by the planner), then per rate the time per sample of both draws and the mean sample size,
and the totals over the 8 rates with the peak memory allocated during the draws
(tracemalloc, numpy included; a second, traced run) against the population's value column.
That peak is the windows' (samples x window width, chunked by
:data:`core.windowed.sampler._CELL_BUDGET`); the width needed to certify ``S`` grows slowly with the
sample size ``n``, as for simple random samples, and nothing is proportional to ``N``.

Run from the repository root::

    python -m bench.bench_design_windows            # N = 10^5 and 10^7
    python -m bench.bench_design_windows 1e6        # N = 10^5 and a given largest N

The 10^7 case needs about 1 GB (values, labels, the index and numpy's sort); cap it with
``ulimit -v 8000000`` on a shared machine.
"""

from __future__ import annotations

import sys
import time
import tracemalloc

import numpy as np

from bench._timing import fmt_seconds as fmt
from bench._timing import load_line
from core.designs.stratified_windows import StrataIndex, proportional_source
from core.planner import eps_sample_for
from core.windowed import window_exponential_draws, window_quantile_draws

LOWER, UPPER = 0.0, 10_000.0
STRATA = 12
RATES = (0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5)
T = 200
BETAS = (0.01, 0.1)
EPS_TARGET = 1.0


def population(N: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Sorted values and their strata: 12 strata, shares 1 % .. 15 %, each its own lognormal."""
    rng = np.random.default_rng(seed)
    share = np.linspace(1.0, 15.0, STRATA)
    labels = rng.choice(STRATA, N, p=share / share.sum())
    mu = np.linspace(3.0, 6.5, STRATA)[rng.permutation(STRATA)]
    sigma = np.linspace(0.2, 1.0, STRATA)[rng.permutation(STRATA)]
    values = rng.standard_normal(N)
    values *= sigma[labels]
    values += mu[labels]
    np.exp(values, out=values)
    np.clip(values, LOWER, UPPER, out=values)
    order = np.argsort(values)
    return values[order], labels[order]


def draws(values: np.ndarray, index: StrataIndex, rate: float, seed: int) -> tuple[float, float]:
    """Seconds of T windowed quantile draws (statistic and S) and T exponential releases."""
    rng = np.random.default_rng(seed)
    source = proportional_source(rng, index, rate, T)
    t0 = time.perf_counter()
    window_quantile_draws(rng, values, source.sizes, 0.5, BETAS, LOWER, UPPER, source=source)
    t1 = time.perf_counter()
    eps = eps_sample_for("stratified_proportional", EPS_TARGET, relation="deletion", rate=rate)
    window_exponential_draws(
        rng, np.random.default_rng(seed + 1), values, source.sizes, 0.5, [eps], LOWER, UPPER,
        source=source,
    )  # fmt: skip
    return t1 - t0, time.perf_counter() - t1


def main() -> None:
    largest = int(float(sys.argv[1])) if len(sys.argv) > 1 else 10**7
    print(load_line())
    warm_values, warm_labels = population(10_000, seed=1)  # compile numba, import scipy
    draws(warm_values, StrataIndex.from_labels(warm_labels), 0.05, 0)
    print(
        f"median of T = {T} proportional stratified samples per rate, {STRATA} strata, "
        f"{len(RATES)} rates; S at beta {BETAS}; exponential at eps_target = {EPS_TARGET:g}"
    )
    for N in sorted({10**5, largest}):
        values, labels = population(N)
        t0 = time.perf_counter()
        index = StrataIndex.from_labels(labels)
        prep = time.perf_counter() - t0
        sizes = index.sizes
        print(
            f"\nN = {N:,}: strata of {sizes.min():,} .. {sizes.max():,} records; "
            f"StrataIndex prepared once in {fmt(prep).strip()} "
            f"({index.keys.nbytes / 2**20:,.0f} MB)"
        )
        head = f"   {'rate':>6}  {'mean n':>9}  {'quantile + S':>14}  {'exponential':>14}"
        print(f"{head}  (per sample)")
        total_q = total_x = 0.0
        for i, rate in enumerate(RATES):
            q, x = draws(values, index, rate, seed=10 + i)
            total_q += q
            total_x += x
            n = float(np.dot(sizes, np.full(STRATA, rate)))
            print(f"   {rate:>6g}  {n:>9,.0f}  {fmt(q / T):>14}  {fmt(x / T):>14}")
        tracemalloc.start()
        for i, rate in enumerate(RATES):
            draws(values, index, rate, seed=10 + i)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        print(
            f"   all {len(RATES)} rates: quantile + S {fmt(total_q).strip()}, exponential "
            f"{fmt(total_x).strip()}; peak memory allocated during the draws "
            f"{peak / 2**20:,.1f} MB (the value column: {values.nbytes / 2**20:,.0f} MB)"
        )
        del values, labels, index


if __name__ == "__main__":
    main()
