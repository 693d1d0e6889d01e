"""References and strategies shared by the tests of core.clusters.

The theorems of Bun et al. (2022) evaluated literally in 60 digits (mpmath), the
construction of Theorem 5.1 by brute force, iterative PPS probabilities, and the hypothesis
strategies for budgets, cluster sizes and designs.
"""

from __future__ import annotations

import itertools
import math

import mpmath
import numpy as np
from hypothesis import settings
from hypothesis import strategies as st
from mpmath import mp, mpf
from scipy.stats import laplace

FAST = settings(max_examples=200, deadline=None)


def theorem_mp(eps: float, k: int, ell: int, s: float) -> mpf:
    """ln(1 + (ℓ/k)/(ℓ/k + (1 − ℓ/k) e^{−sε}) (e^ε − 1)), literally, in 60 digits."""
    with mp.workdps(60):
        e, q = mpf(eps), mpf(ell) / mpf(k)
        return mpmath.log(1 + q / (q + (1 - q) * mpmath.exp(-mpf(s) * e)) * (mpmath.exp(e) - 1))


def theorem(eps: float, k: int, ell: int, s: float) -> float:
    return float(theorem_mp(eps, k, ell, s))


def brute_force_witness(eps: float, ell: int, size_i: int, others: list[int]) -> float:
    """Theorem 5.1's construction, every ℓ-subset enumerated, tail probabilities from scipy.

    Cluster 0 holds ``size_i`` records equal to +1, the others records equal to −1;
    M(S) = ΣS + Lap(1/ε); the neighbour adds a +1 to cluster 0. Returns
    ln Pr(M_C(P') > t) / Pr(M_C(P) > t) for t above every mean.
    """
    sizes = [size_i, *others]
    mus, mus_neighbour = [], []
    for subset in itertools.combinations(range(len(sizes)), ell):
        mu = sum(sizes[j] if j == 0 else -sizes[j] for j in subset)
        mus.append(mu)
        mus_neighbour.append(mu + 1 if 0 in subset else mu)
    t = max(mus_neighbour) + 2.0
    p = np.mean(laplace.sf(t, loc=mus, scale=1 / eps))
    p_neighbour = np.mean(laplace.sf(t, loc=mus_neighbour, scale=1 / eps))
    return math.log(p_neighbour / p)


def witness_mp(eps: float, ell: int, size_i: int, sizes: list[int], counts: list[int]) -> float:
    """Theorem 5.1's construction with exact binomial sums in 60-digit mpmath."""
    with mp.workdps(60):
        e = mpf(eps)

        def esp(m: int) -> mpf:
            if len(sizes) == 1:
                return mpmath.binomial(counts[0], m) * mpmath.exp(-e * m * sizes[0])
            (a, b), (ca, cb) = sizes, counts
            return mpmath.fsum(
                mpmath.binomial(ca, j)
                * mpmath.binomial(cb, m - j)
                * mpmath.exp(-e * (j * a + (m - j) * b))
                for j in range(max(0, m - cb), min(ca, m) + 1)
            )

        ratio = mpmath.exp(-e * size_i) * esp(ell) / esp(ell - 1)
        return float(mpmath.log(1 + (mpmath.exp(e) - 1) / (1 + ratio)))


def iterative_pps(r: np.ndarray, m: int) -> np.ndarray:
    """Textbook πps capping: cap units with m r_i / Σ r ≥ 1 at 1 and repeat on the rest."""
    a = np.zeros_like(r, dtype=float)
    capped = np.zeros(r.size, dtype=bool)
    while True:
        left = m - capped.sum()
        free = ~capped
        share = left * r[free] / r[free].sum()
        if np.all(share <= 1 + 1e-12):
            a[free] = share
            a[capped] = 1.0
            return a
        idx = np.flatnonzero(free)[share > 1]
        capped[idx] = True


def _close(got: float, want: float, rtol: float = 1e-13) -> bool:
    return abs(got - want) <= rtol * abs(want) + 1e-300


SIZES = st.integers(1, 10**5)


EPS = st.one_of(st.floats(1e-9, 1e3), st.floats(-9, 3).map(lambda u: 10.0**u))


#: Just below log(DBL_MAX) ≈ 709.78: exp(ε) is still finite, exp(ε + 0.01) overflows.
EXP_OVERFLOW = 709.78


#: Just above log(DBL_MAX) ≈ 709.7827: exp(ε) overflows to inf.
EXP_JUST_OVER = 709.79


#: The smallest and largest fractions ℓ/k the designs allow: 1 of 10⁶ clusters, and all but one.
RARE, ALMOST_ALL = (10**6, 1), (10**6, 10**6 - 1)


@st.composite
def designs(draw: st.DrawFn) -> tuple[int, int]:
    k = draw(st.one_of(st.integers(2, 100), st.integers(2, 10**6)))
    ell = draw(st.integers(1, k))
    return k, ell


LN2, LN3, LN5 = math.log(2.0), math.log(3.0), math.log(5.0)
