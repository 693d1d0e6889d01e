"""Cluster samples read as windows (core.designs.cluster_windows): cost not proportional to N.

Issue 22, part 1: the planner evaluates single-stage cluster samples (ℓ of k clusters, every
record of the drawn ones; Bun et al. 2022, Section 5) on registers of 10^7 records.  A
population of N = 10^5 and 10^7 records in k = 480 districts of unequal sizes (a Dirichlet
share each), values Lognormal(5 + district effect, 0.5) clipped to [0, 10,000], is built
with numpy directly.  For 8 numbers of drawn districts ℓ (rates ℓ / k from 1 % to 90 %),
T = 200 samples: the median and its smooth sensitivity at two betas (0.01 and 0.2), drawn
by the certify-and-widen loop of ``tests/core/test_cluster_windows.py`` (the loop of
``core.windowed.quantile._draw_chunk``) on :class:`core.designs.cluster_windows.ClusterWindows`.

Printed: the time to build the index once per population; then per (N, ℓ) the mean sample
size, the wall and process CPU time of the T draws and the peak memory allocated during
them (tracemalloc, numpy included), next to the population's value column (8 N bytes).
Whole samples are not drawn (at ℓ = 432 of 480 a whole sample is 9 million records).
The peak memory does not change with N; the time grows with log N and the cluster size's
log M (the binary searches, and their cache misses on the larger index), not with N.

Run: ``python -m bench.bench_cluster_windows`` (with ``ulimit -v 8000000``).
"""

from __future__ import annotations

import time
import tracemalloc

import numpy as np

from bench._timing import fmt_seconds as fmt
from bench._timing import load_line
from core import sensitivity as sens
from core.designs.cluster_windows import ClusterIndex, ClusterWindows
from tests.core.test_cluster_windows import window_draws

LOWER, UPPER = 0.0, 10_000.0
K = 480
ELLS = (5, 24, 48, 96, 144, 240, 336, 432)
T = 200
BETAS = [0.01, 0.2]


def population(N: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Sorted values and the district of each record (districts of unequal sizes)."""
    rng = np.random.default_rng(seed)
    share = rng.dirichlet(np.full(K, 2.0))
    codes = np.concatenate((np.arange(K), rng.choice(K, N - K, p=share))).astype(np.int32)
    effect = rng.normal(0.0, 0.3, K)
    values = rng.lognormal(5.0 + effect[codes], 0.5)
    np.clip(values, LOWER, UPPER, out=values)
    order = np.argsort(values)
    return values[order], codes[order]


def draws(values: np.ndarray, index: ClusterIndex, ell: int) -> tuple[float, float, float, int]:
    """Wall and CPU seconds and peak bytes of T medians with S at both betas; mean n."""
    rng = np.random.default_rng(ell)
    tracemalloc.start()
    start, cpu = time.perf_counter(), time.process_time()
    source = ClusterWindows.draw(rng, index, ell, T)
    k = np.array([sens.quantile_rank(int(m), 0.5) for m in source.sizes], dtype=np.int64)
    window_draws(source, values, k, BETAS, LOWER, UPPER)
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return seconds, cpu, peak, int(source.sizes.mean())


def main() -> None:
    print(load_line())
    small_v, small_c = population(1_000)
    draws(small_v, ClusterIndex.of(small_c), 3)  # compile (or load) the kernels
    print(
        f"T = {T} medians with smooth sensitivity at beta {BETAS}, k = {K} districts; "
        "time and peak memory of the draws"
    )
    print(
        f"   {'N':>12}  {'ℓ':>4}  {'rate':>5}  {'mean n':>10}  {'time':>10}  {'CPU':>10}  "
        f"{'peak MB':>8}"
    )
    for N in (10**5, 10**7):
        values, codes = population(N)
        start = time.perf_counter()
        index = ClusterIndex.of(codes)
        built = time.perf_counter() - start
        print(
            f"   N = {N:,}: index built once in {fmt(built).strip()}; the value column is "
            f"{values.nbytes / 2**20:,.1f} MB, the index {index.positions.nbytes / 2**20:,.1f} MB"
        )
        for ell in ELLS:
            seconds, cpu, peak, mean_n = draws(values, index, ell)
            print(
                f"   {N:>12,}  {ell:>4}  {ell / K:>5.2f}  {mean_n:>10,}  {fmt(seconds):>10}  "
                f"{fmt(cpu):>10}  {peak / 2**20:>8.2f}"
            )
        del values, codes, index


if __name__ == "__main__":
    main()
