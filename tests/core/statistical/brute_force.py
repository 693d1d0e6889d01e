"""Slow references for core.statistical: every database enumerated, the definition applied.

Also the grid of ε on which the exact curves and the closed forms are compared.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
from scipy import integrate, stats


def _datasets(n: int, pi: float):
    """Every assignment of the n − 1 other records, with its probability and positive count."""
    for bits in itertools.product((0, 1), repeat=n - 1):
        c = sum(bits)
        yield bits, pi**c * (1 - pi) ** (n - 1 - c)


def brute_pmfs(n: int, m: int, pi: float) -> tuple[dict[float, float], dict[float, float]]:
    """Answer distributions under μ+ / μ− by enumerating databases and all m-subsets.

    The critical record sits at position 0; a simple random sample is every m-subset of the
    n positions with equal probability; the answer is the positive fraction in the sample.
    """
    subsets = list(itertools.combinations(range(n), m))
    plus: dict[float, float] = {}
    minus: dict[float, float] = {}
    for bits, weight in _datasets(n, pi):
        for crit, out in ((1, plus), (0, minus)):
            record = (crit, *bits)
            for s in subsets:
                y = sum(record[i] for i in s) / m
                out[y] = out.get(y, 0.0) + weight / len(subsets)
    return plus, minus


def brute_delta_sets(p: dict[float, float], q: dict[float, float], eps: float) -> float:
    """Definition 4 literally: max over every set S of answers of P(S) − e^ε Q(S), both ways."""
    support = sorted(set(p) | set(q))
    best = 0.0
    for a, b in ((p, q), (q, p)):
        for r in range(1, len(support) + 1):
            for subset in itertools.combinations(support, r):
                gap = math.fsum(a.get(z, 0.0) for z in subset) - math.exp(eps) * math.fsum(
                    b.get(z, 0.0) for z in subset
                )
                best = max(best, gap)
    return best


def brute_noisy_delta(n: int, pi: float, eps: float, nu: float, noise: str) -> float:
    """Eq. (3) by adaptive quadrature of the densities built from every database."""
    s = 1.0 / n
    dist = stats.norm if noise == "gaussian" else stats.laplace
    counts: dict[int, float] = {}
    for bits, weight in _datasets(n, pi):
        counts[sum(bits)] = counts.get(sum(bits), 0.0) + weight

    def f(x: float, crit: int) -> float:
        return sum(w * dist.pdf(x, loc=(c + crit) * s, scale=nu * s) for c, w in counts.items())

    width = (40 if noise == "gaussian" else 800) * nu * s
    lo, hi = -width, 1 + s + width
    breaks = [c * s for c in range(n + 1)]
    best = 0.0
    for a, b in ((1, 0), (0, 1)):
        val, _ = integrate.quad(
            lambda x, a=a, b=b: max(0.0, f(x, a) - math.exp(eps) * f(x, b)),
            lo,
            hi,
            points=breaks,
            limit=2000,
            epsabs=1e-14,
            epsrel=1e-11,
        )
        best = max(best, val)
    return best


def brute_dp_delta(eps: float, nu: float, noise: str) -> float:
    """Worst-case δ by quadrature: answers y + N against y + 1 + N (scale ν)."""
    dist = stats.norm if noise == "gaussian" else stats.laplace
    reach = (12 if noise == "gaussian" else 40) * nu
    lo, hi = -reach, 1 + reach
    return integrate.quad(
        lambda x: max(0.0, dist.pdf(x, 1.0, nu) - math.exp(eps) * dist.pdf(x, 0.0, nu)),
        lo,
        hi,
        points=np.linspace(lo, hi, 61)[1:-1].tolist(),
        limit=2000,
        epsabs=1e-15,
        epsrel=1e-12,
    )[0]


EPS_GRID = np.array([0.0, 1e-12, 1e-4, 0.01, 0.05, 0.2, 0.6, 1.5, 5.0])
