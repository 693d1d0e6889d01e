"""Timings of core.sensitivity (prints figures, asserts nothing).

Setting of Hu, Drechsler & Kim, Section 4.3: a Lognormal(5, 0.5) population of
N = 10,001, delta = 1/(2N), public bounds [0, 2000].

Printed:
1. first call in a fresh process (numba cache load, and a cold compile into an empty cache);
2. per-call time at n = 10,001 for eps in {0.01, 0.1, 1, 5} (sorted input, and unsorted
   input including the sort);
3. the definitional O(n^2) numpy version at n = 10,001, eps = 0.01, and the speed-up;
4. batch time for 1,000 samples of n = 1,001 and of n = 101;
5. tie-heavy data (rounded values, many ties at the median).

Run: ``.venv/bin/python -m bench.bench_sensitivity``
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import textwrap
import time

import numpy as np

from bench._timing import ROOT
from bench._timing import fmt_seconds as fmt
from bench._timing import per_call_seconds as per_call
from core import sensitivity as cs
from tests.core import reference_sensitivity as ref

N = 10_001
DELTA = 1.0 / (2 * N)
LOWER, UPPER = 0.0, 2000.0
EPS_LIST = (0.01, 0.1, 1.0, 5.0)


def first_call(cache_dir: str | None) -> str:
    code = textwrap.dedent(
        """
        import time
        t0 = time.perf_counter()
        import numpy as np
        import core.sensitivity as cs
        t1 = time.perf_counter()
        cs.warm_up()
        t2 = time.perf_counter()
        print(f"{t1 - t0:.3f} {t2 - t1:.3f}")
        """
    )
    env = None
    if cache_dir is not None:
        import os

        env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir)
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, env=env, check=True
    ).stdout.split()
    return f"import {float(out[0]):.2f} s, warm_up() {float(out[1]):.2f} s"


def main() -> None:
    print(f"core.sensitivity benchmark  (numba: {cs.HAVE_NUMBA})")
    print()
    print("1. First call in a fresh process")
    cs.warm_up()  # make sure the on-disk cache exists
    print(f"   cache load          : {first_call(None)}")
    with tempfile.TemporaryDirectory() as tmp:
        print(f"   cold compile        : {first_call(tmp)}")

    rng = np.random.default_rng(20240501)
    pop = np.clip(rng.lognormal(5.0, 0.5, N), LOWER, UPPER)
    pop_sorted = np.sort(pop)

    print()
    print(f"2. One call at n = {N:,} (Lognormal(5, 0.5), delta = 1/(2n), bounds [0, 2000])")
    print("   eps      S            sorted input    unsorted (incl. sort)")
    for eps in EPS_LIST:
        s = cs.smooth_sensitivity_median(pop_sorted, eps, DELTA, LOWER, UPPER, assume_sorted=True)
        t_sorted = per_call(
            lambda eps=eps: cs.smooth_sensitivity_median(
                pop_sorted, eps, DELTA, LOWER, UPPER, assume_sorted=True
            )
        )
        t_unsorted = per_call(
            lambda eps=eps: cs.smooth_sensitivity_median(pop, eps, DELTA, LOWER, UPPER)
        )
        print(f"   {eps:<6g}  {s:<11.6g}  {fmt(t_sorted)}     {fmt(t_unsorted)}")
    t_sort = per_call(lambda: np.sort(pop))
    print(f"   (np.sort alone: {fmt(t_sort).strip()})")

    print()
    print("3. Definitional O(n^2) version (equation (4), numpy over t) at n = 10,001, eps = 0.01")
    t0 = time.perf_counter()
    slow = ref.smooth_sensitivity_eq4_numpy(pop_sorted, 0.01, DELTA, LOWER, UPPER)
    t_slow = time.perf_counter() - t0
    t_fast = per_call(
        lambda: cs.smooth_sensitivity_median(
            pop_sorted, 0.01, DELTA, LOWER, UPPER, assume_sorted=True
        )
    )
    fast = cs.smooth_sensitivity_median(pop_sorted, 0.01, DELTA, LOWER, UPPER, assume_sorted=True)
    print(f"   definitional: {fmt(t_slow).strip()}   fast: {fmt(t_fast).strip()}   ", end="")
    print(f"speed-up: {t_slow / t_fast:,.0f}x   rel. difference: {abs(fast - slow) / slow:.1e}")

    print()
    print("4. Batch: 1,000 sorted samples without replacement from the population")
    for n in (1_001, 101):
        idx = np.sort(
            np.stack([rng.choice(N, n, replace=False, shuffle=False) for _ in range(1_000)]),
            axis=1,
        )
        samples = pop_sorted[idx]
        for eps in (0.1, 1.0, 5.0):
            t = per_call(
                lambda samples=samples, eps=eps: cs.smooth_sensitivity_median_batch(
                    samples, eps, DELTA, LOWER, UPPER
                ),
                min_time=0.5,
                repeats=3,
            )
            print(
                f"   n = {n:>5,}  eps = {eps:<4g}: {fmt(t).strip():>9} per batch, "
                f"{fmt(t / 1_000).strip()} per sample"
            )
        eps_rows = rng.uniform(0.05, 5.0, 1_000)
        t = per_call(
            lambda samples=samples, eps_rows=eps_rows: cs.smooth_sensitivity_median_batch(
                samples, eps_rows, DELTA, LOWER, UPPER
            ),
            min_time=0.5,
            repeats=3,
        )
        print(f"   n = {n:>5,}  eps per row : {fmt(t).strip():>9} per batch")

    print()
    print(f"5. Tie-heavy data at n = {N:,} (local sensitivity 0: weak first bound)")
    rounded = np.sort(np.round(pop / 100.0) * 100.0)  # ~20 distinct values
    block = pop_sorted.copy()
    m = (N + 1) // 2
    block[m - 2_000 : m + 2_000] = block[m - 1]  # 4,000 equal values around the median
    all_equal = np.full(N, 150.0)
    for name, data in (
        ("rounded to 100s", rounded),
        ("4,000 ties at median", block),
        ("all values equal", all_equal),
    ):
        for eps in (0.01, 1.0, 5.0):
            t = per_call(
                lambda data=data, eps=eps: cs.smooth_sensitivity_median(
                    data, eps, DELTA, LOWER, UPPER, assume_sorted=True
                )
            )
            print(f"   {name:<22} eps = {eps:<4g}: {fmt(t)}")


if __name__ == "__main__":
    main()
