"""Timings of core.amplification on the grids the app draws.

Run from the repository root:  .venv/bin/python -m bench.bench_amplification_core

* a 400-point curve: eps = 1 (or q = 0.6, c = ...) against 400 log-spaced rates;
* a 200 x 200 heat map: 200 eps values (1e-3 .. 10) against 200 rates (1e-4 .. 1).

Each figure is the best of 7 repetitions of a loop, per call.  Plain prints, no asserts.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

import numpy as np

from bench._timing import autorange_seconds
from core import amplification as amp


def cases(
    eps: np.ndarray, rate: np.ndarray, q: np.ndarray, c: np.ndarray
) -> list[tuple[str, Callable[[], object]]]:
    eps_s = amp.eps_sample(eps, rate)
    return [
        ("eps_sample(eps, rate)", lambda: amp.eps_sample(eps, rate)),
        ("eps_target(eps_s, rate)", lambda: amp.eps_target(eps_s, rate)),
        ("delta_sample(1e-6, rate)", lambda: amp.delta_sample(1e-6 * np.ones_like(eps), rate)),
        ("delta_target(1e-4, rate)", lambda: amp.delta_target(1e-4 * np.ones_like(eps), rate)),
        ("noise_variance_ratio", lambda: amp.noise_variance_ratio(eps, rate)),
        ("noise_variance_gap", lambda: amp.noise_variance_gap(eps, rate)),
        ("sampling_variance_bound", lambda: amp.sampling_variance_bound(eps, rate)),
        ("rate_for_q(eps, q)", lambda: amp.rate_for_q(eps, q)),
        ("rate_for_eps_sample", lambda: amp.rate_for_eps_sample(eps, eps_s)),
        ("steinke_ratio(eps, p)", lambda: amp.steinke_ratio(eps, rate)),
        ("steinke_floor(c)", lambda: amp.steinke_floor(c)),
    ]


def report(title: str, eps: np.ndarray, rate: np.ndarray, q: np.ndarray, c: np.ndarray) -> None:
    points = np.broadcast(eps, rate).size
    print(f"\n{title}  ({points} points)")
    print(f"  {'function':<28}{'ms per call':>12}{'ns per point':>14}")
    for name, call in cases(eps, rate, q, c):
        seconds = autorange_seconds(call)
        print(f"  {name:<28}{seconds * 1e3:>12.3f}{seconds * 1e9 / points:>14.1f}")


def main() -> None:
    print(f"numpy {np.__version__}, python {sys.version.split()[0]}")

    rate_1d = np.logspace(-4, 0, 400)
    eps_1d = np.full(400, 1.0)
    q_1d = np.linspace(0.0, 0.99, 400)
    c_1d = np.logspace(-3, 3, 400)
    report("400-point curve (eps = 1 against rate)", eps_1d, rate_1d, q_1d, c_1d)

    eps_2d = np.logspace(-3, 1, 200)[:, None] * np.ones((1, 200))
    rate_2d = np.ones((200, 1)) * np.logspace(-4, 0, 200)[None, :]
    q_2d = np.ones((200, 1)) * np.linspace(0.0, 0.99, 200)[None, :]
    c_2d = np.logspace(-3, 3, 200 * 200).reshape(200, 200)
    report("200 x 200 heat map (eps against rate)", eps_2d, rate_2d, q_2d, c_2d)

    scalar = autorange_seconds(lambda: amp.eps_sample(1.0, 0.01))
    print(f"\nscalar call eps_sample(1.0, 0.01): {scalar * 1e6:.1f} us")


if __name__ == "__main__":
    main()
