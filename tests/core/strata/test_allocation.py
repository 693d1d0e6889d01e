"""Tests for core.strata.allocation: Neyman and proportional allocations.

Hand-computed points, brute force over every integer allocation, and properties.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core import strata as S

FAST = settings(max_examples=150, deadline=None)


def ref_variance(sizes, sds, alloc) -> float:
    """Σ (N_i/N)² (1 − m_i/N_i) σ_i²/m_i written out literally (m_i > 0 everywhere)."""
    n_total = sum(sizes)
    total = 0.0
    for n_i, s_i, m_i in zip(sizes, sds, alloc, strict=True):
        if s_i == 0:
            continue
        if m_i == 0:
            return math.inf
        total += (n_i / n_total) ** 2 * (1 - m_i / n_i) * s_i**2 / m_i
    return total


def brute_force_best(sizes, sds, m) -> float:
    """Smallest variance over every integer allocation with Σ m_i = m, 0 <= m_i <= N_i."""
    best = math.inf
    for alloc in itertools.product(*(range(n + 1) for n in sizes)):
        if sum(alloc) == m:
            best = min(best, ref_variance(sizes, sds, alloc))
    return best


def test_neyman_hand_computed() -> None:
    assert S.neyman_allocation([100, 100], [1.0, 3.0], 40).tolist() == [10, 30]
    # Share 50 of stratum 1 exceeds its 10 records: it is taken whole, the rest goes on.
    assert S.neyman_shares([10, 1000], [100.0, 1.0], 100) == pytest.approx([10, 90])
    assert S.neyman_allocation([10, 1000], [100.0, 1.0], 100).tolist() == [10, 90]
    # Cascading caps: after capping stratum 0, stratum 1's share grows past its size too.
    shares = S.neyman_shares([5, 8, 1000], [10.0, 6.0, 0.1], 30)
    assert shares == pytest.approx([5, 8, 17])
    # σ = 0 strata get nothing until everything else is full.
    assert S.neyman_allocation([10, 10], [0.0, 1.0], 12).tolist() == [2, 10]
    assert S.neyman_allocation([10, 10], [0.0, 0.0], 6).tolist() == [3, 3]
    # Tiny shares: every stratum with spread gets a record first.
    assert S.neyman_allocation([100, 100], [10.0, 1.0], 2).tolist() == [1, 1]
    assert S.neyman_allocation([3, 4], [1.0, 2.0], 0).tolist() == [0, 0]
    assert S.neyman_allocation([3, 4], [1.0, 2.0], 7).tolist() == [3, 4]


SMALL_CASES = st.integers(1, 3).flatmap(
    lambda k: st.tuples(
        st.lists(st.integers(1, 6), min_size=k, max_size=k),
        st.lists(
            st.one_of(st.just(0.0), st.floats(0.01, 50.0, allow_nan=False)), min_size=k, max_size=k
        ),
    )
)


@FAST
@given(case=SMALL_CASES, data=st.data())
def test_neyman_is_the_exact_integer_minimiser(case, data) -> None:
    sizes, sds = case
    m = data.draw(st.integers(0, sum(sizes)))
    alloc = S.neyman_allocation(sizes, sds, m)
    assert alloc.sum() == m and np.all(alloc >= 0) and np.all(alloc <= np.array(sizes))
    best = brute_force_best(sizes, sds, m)
    got = ref_variance(sizes, sds, alloc)
    if math.isinf(best):
        assert math.isinf(got)
    else:
        assert got <= best * (1 + 1e-12) + 1e-300
    # The real Neyman shares are a lower bound for every integer allocation.
    shares = S.neyman_shares(sizes, sds, m)
    assert shares.sum() == pytest.approx(m) and np.all(shares <= np.array(sizes) + 1e-9)
    if m and not math.isinf(best):
        real = sum(
            (n / sum(sizes)) ** 2 * s**2 * (1 / x - 1 / n)
            for n, s, x in zip(sizes, sds, shares, strict=True)
            if s > 0
        )
        assert real <= best * (1 + 1e-9) + 1e-12 * max(sds) ** 2


@FAST
@given(
    sizes=st.lists(st.integers(1, 5000), min_size=1, max_size=15),
    sds=st.lists(st.floats(0.0, 1e4, allow_nan=False), min_size=15, max_size=15),
    frac=st.floats(0.0, 1.0),
)
def test_neyman_totals_and_bounds_on_larger_cases(sizes, sds, frac) -> None:
    sds = sds[: len(sizes)]
    m = int(frac * sum(sizes))
    alloc = S.neyman_allocation(sizes, sds, m)
    assert alloc.sum() == m
    assert np.all((0 <= alloc) & (alloc <= np.array(sizes)))
    # No single move lowers the variance (the optimality certificate of the rounding).
    base = ref_variance(sizes, sds, alloc)
    for i, j in itertools.permutations(range(len(sizes)), 2):
        if alloc[i] < sizes[i] and alloc[j] > 0:
            moved = alloc.copy()
            moved[i] += 1
            moved[j] -= 1
            assert ref_variance(sizes, sds, moved) >= base * (1 - 1e-9)


@FAST
@given(
    sizes=st.lists(st.integers(1, 10**6), min_size=1, max_size=20),
    rate=st.floats(1e-6, 1.0),
)
def test_proportional_rounding_properties(sizes, rate) -> None:
    x = rate * np.array(sizes, dtype=float)
    det = S.proportional_allocation(sizes, rate, "deterministic")
    assert np.all(np.abs(det - x) <= 0.5 + 1e-9)
    rnd = S.proportional_allocation(sizes, rate, "randomized", rng=1)
    assert np.all(np.abs(rnd - x) < 1.0)
    assert np.all((rnd == np.floor(x)) | (rnd == np.ceil(x)))
    assert np.all((rnd >= 0) & (rnd <= np.array(sizes)))


def test_randomized_rounding_is_unbiased() -> None:
    sizes = np.array([14, 15, 7, 1, 123, 999])
    rate = 0.137
    rng = np.random.default_rng(2024)
    draws = np.array(
        [S.proportional_allocation(sizes, rate, "randomized", rng) for _ in range(40_000)]
    )
    x = rate * sizes
    p = x - np.floor(x)
    se = np.sqrt(p * (1 - p) / draws.shape[0])
    assert np.all(np.abs(draws.mean(axis=0) - x) <= 5 * se + 1e-12)
