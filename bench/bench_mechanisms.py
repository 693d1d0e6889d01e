"""Timings of core.mechanisms over the Figure 8 grid (prints figures, asserts nothing).

Setting of Hu, Drechsler & Kim, Section 4.3 / Figure 8: the built-in lognormal
population (N = 10,001, public bounds of the built-in), 6 values of eps_target
(0.01, 0.1, 0.5, 1, 3, 5) x 11 rates (0.01, 0.1, ..., 0.9 and the census, rate 1) x
T = 1,000 releases, delta_target = 1/(2N) and delta_sample = delta_target / rate.

Printed:
1. drawing the sorted samples once (T per rate, reused by every mechanism and eps);
2. per mechanism, the time to release the whole grid (66 batches of T rows) with the
   median, and for the quantile mechanisms also at q = 0.9;
3. the smooth sensitivity of several quantiles at n = 10,001 (sorted input), per call.

``"ht_mean"`` is left out: it is built per design (rate and N), not on this grid.

Run: ``.venv/bin/python -m bench.bench_mechanisms``
"""

from __future__ import annotations

import numpy as np

from bench._timing import best_of, load_line
from bench._timing import fmt_seconds as fmt
from bench._timing import per_call_seconds as per_call
from core import amplification as amp
from core import mechanisms as mech
from core import sensitivity as cs
from core.builtins import make_builtin
from core.gains import draw_sorted_samples, sample_size

EPS_TARGETS = (0.01, 0.1, 0.5, 1.0, 3.0, 5.0)
RATES = (0.01, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
T = 1_000
QUANTILE_MECHANISMS = ("smooth_laplace", "smooth_pure", "exponential", "global_laplace")
MEAN_MECHANISMS = ("laplace", "gaussian")


def draw_grid(values: np.ndarray, seed: int = 0) -> list[tuple[float, np.ndarray]]:
    """``(realised rate, T sorted samples)`` per rate; the census is one repeated row."""
    rng = np.random.default_rng(seed)
    N = values.size
    grid = []
    for rate in RATES:
        n = sample_size(N, rate)
        if n == N:
            grid.append((1.0, np.broadcast_to(values, (T, N))))
        else:
            grid.append((n / N, draw_sorted_samples(rng, values, n, T)))
    return grid


def release_grid(
    name: str, grid: list[tuple[float, np.ndarray]], lower: float, upper: float, q: float
) -> None:
    """Release every (eps_target, rate) batch of the grid with mechanism ``name``."""
    rng = np.random.default_rng(1)
    delta_target = 1.0 / (2 * grid[-1][1].shape[1])
    kw = {"quantile": q} if name in QUANTILE_MECHANISMS else {}
    for rate, samples in grid:
        delta = min(delta_target / rate, 0.5)
        for eps_target in EPS_TARGETS:
            eps = float(amp.eps_sample(eps_target, rate)) if rate < 1 else eps_target
            mech.release(
                samples,
                mechanism=name,
                eps=eps,
                delta=delta if mech.MECHANISMS[name].uses_delta else 0.0,
                lower=lower,
                upper=upper,
                rng=rng,
                **kw,
            )


def main() -> None:
    pop = make_builtin("lognormal")
    values, lower, upper = np.asarray(pop.values), float(pop.lower), float(pop.upper)
    print(load_line())
    print(f"population: lognormal, N = {values.size:,}, bounds [{lower:g}, {upper:g}]")
    cs.warm_up()

    seconds, grid = best_of(lambda: draw_grid(values), repeat=1)
    print(f"\n1. draw T = {T:,} sorted samples at each of {len(RATES)} rates: {fmt(seconds)}")

    print(f"\n2. release the Figure 8 grid ({len(EPS_TARGETS)} eps x {len(RATES)} rates x T)")
    release_grid("smooth_laplace", grid[:1], lower, upper, 0.5)  # warm the kernels
    for name in QUANTILE_MECHANISMS + MEAN_MECHANISMS:
        levels = (0.5, 0.9) if name in QUANTILE_MECHANISMS else (0.5,)
        for q in levels:
            seconds, _ = best_of(lambda n=name, q=q: release_grid(n, grid, lower, upper, q), 1)
            label = f"{name} (q = {q:g})" if name in QUANTILE_MECHANISMS else name
            print(f"   {label:<28} {fmt(seconds)}")

    print(f"\n3. smooth sensitivity of a quantile at n = {values.size:,} (sorted input)")
    delta = 1.0 / (2 * values.size)
    for q in (0.01, 0.1, 0.5, 0.9, 0.99):
        for eps in (0.01, 1.0):
            t = per_call(
                lambda q=q, e=eps: cs.smooth_sensitivity_quantile(
                    values, e, delta, lower, upper, quantile=q, assume_sorted=True
                )
            )
            print(f"   q = {q:<5g} eps = {eps:<5g} {fmt(t)}")


if __name__ == "__main__":
    main()
