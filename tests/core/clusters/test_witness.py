"""Tests for core.clusters.witness: Theorem 5.1's construction, brute force and exact binomials."""

from __future__ import annotations

import math

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from core import clusters as cl
from tests.core.clusters.references import FAST, brute_force_witness, witness_mp


@pytest.mark.parametrize("eps", [0.05, 0.5, 1.3, 4.0])
@pytest.mark.parametrize("ell", [1, 2, 3, 5])
def test_witness_matches_brute_force_enumeration(eps, ell) -> None:
    others = [1, 1, 3, 3, 3]
    got = cl.witness_eps(eps, ell, 2, [1, 3], [2, 3])
    assert got == pytest.approx(brute_force_witness(eps, ell, 2, others), rel=1e-9)
    lower, upper = cl.cluster_eps_bounds(eps, 6, ell, 2, 1, 3)
    assert lower <= got * (1 + 1e-12) and got <= upper * (1 + 1e-12)


@pytest.mark.parametrize("eps", [0.01, 0.3, 2.0])
def test_witness_with_equal_sizes_attains_both_bounds(eps) -> None:
    # Every other cluster of size n: the construction is exactly Theorem 5.1 = Theorem 5.2.
    for ell in (1, 4, 7):
        lower, upper = cl.cluster_eps_bounds(eps, 8, ell, 3, 2, 2)
        w = cl.witness_eps(eps, ell, 3, [2], [7])
        assert w == pytest.approx(lower, rel=1e-12) and lower == pytest.approx(upper, rel=1e-15)
        assert w == pytest.approx(brute_force_witness(eps, ell, 3, [2] * 7), rel=1e-9)


@pytest.mark.parametrize(
    ("eps", "ell", "ni", "sizes", "counts"),
    [
        (0.01, 40, 5, [1, 20], [120, 79]),
        (0.2, 3, 1, [1, 4], [60, 139]),
        (1.0, 150, 2, [2, 3], [100, 99]),
        (0.001, 100, 50, [10, 200], [150, 49]),
    ],
)
def test_witness_binomial_sums_match_mpmath(eps, ell, ni, sizes, counts) -> None:
    assert cl.witness_eps(eps, ell, ni, sizes, counts) == pytest.approx(
        witness_mp(eps, ell, ni, sizes, counts), rel=1e-10
    )


def test_witness_at_a_million_clusters_does_not_overflow() -> None:
    # Half the other clusters of one record, half of 10⁵: binomial coefficients of 5·10⁵.
    sizes, counts = [1, 10**5], [500_000, 499_999]
    for eps in (1e-4, 0.01, 1.0, 1000.0):
        w = cl.witness_eps(eps, 10**5, 10**5, sizes, counts)
        lower, upper = cl.cluster_eps_bounds(eps, 10**6, 10**5, 10**5, 1, 10**5)
        assert math.isfinite(w)
        assert lower * (1 - 1e-9) <= w <= upper * (1 + 1e-9)
    assert cl.witness_eps(1000.0, 10**5, 10**5, [10**5], [10**6 - 1]) == 1000.0


@FAST
@given(
    eps=st.floats(1e-4, 5.0),
    ni=st.integers(1, 50),
    a=st.integers(1, 50),
    b=st.integers(1, 50),
    ca=st.integers(0, 40),
    cb=st.integers(0, 40),
    frac=st.floats(0, 1),
)
def test_witness_lies_between_the_bounds(eps, ni, a, b, ca, cb, frac) -> None:
    assume(ca + cb >= 1)
    k = 1 + ca + cb
    ell = min(k, max(1, round(frac * k)))
    present = [s for s, c in ((a, ca), (b, cb)) if c > 0]
    lower, upper = cl.cluster_eps_bounds(eps, k, ell, ni, min(present), max(present))
    w = cl.witness_eps(eps, ell, ni, [a, b], [ca, cb])
    assert lower * (1 - 1e-9) <= w <= upper * (1 + 1e-9)
