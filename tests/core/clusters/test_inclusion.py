"""Tests for core.clusters.inclusion: inclusion probabilities, PPS and systematic sampling (§6)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from core import amplification as amp
from core import clusters as cl
from tests.core.clusters.references import EPS, FAST, LN2, iterative_pps


def test_hand_computed_systematic_sampling() -> None:
    # N = 10, every 3rd record: "clusters" {1,4,7,10}, {2,5,8}, {3,6,9} (sizes 4, 3, 3), one
    # drawn (q = 1/3). The worst person in either bound: s = 4 + 3 = 7. With ε = ln 2:
    # e^{−7 ln 2} = 1/128, denominator 1/3 + (2/3)/128 = 65/192,
    # ε' = ln(1 + (1/3)(192/65)) = ln(129/65).
    lower, upper = cl.systematic_eps_bounds(LN2, 10, 3)
    assert lower == pytest.approx(math.log(129 / 65), rel=1e-14)
    assert upper == pytest.approx(math.log(129 / 65), rel=1e-14)
    # 12 records, interval 5: sizes 3, 3, 2, 2, 2 (rem = 2): lower s = 5, upper s = 6.
    lower, upper = cl.systematic_eps_bounds(LN2, 12, 5)
    assert lower == pytest.approx(math.log(1 + 0.2 / (0.2 + 0.8 / 32)), rel=1e-14)
    assert upper == pytest.approx(math.log(1 + 0.2 / (0.2 + 0.8 / 64)), rel=1e-14)


def test_hand_computed_pps() -> None:
    # §6.1: max_i ln(1 + a_i(e^ε − 1)) with e^ε − 1 = 1 and largest a = 0.5: ln 1.5.
    assert cl.pps_eps_lower(LN2, [0.1, 0.5, 0.25]) == pytest.approx(math.log(1.5), rel=1e-15)
    # πps of 3 units with sizes 10, 1, 1, 1, 1, 1: 3·10/15 = 2 > 1, so unit 1 is certain and
    # the other 2 draws are spread over the five size-1 units: 2/5 = 0.4 each.
    a = cl.pps_inclusion_probabilities([10, 1, 1, 1, 1, 1], 3)
    np.testing.assert_allclose(a, [1.0, 0.4, 0.4, 0.4, 0.4, 0.4], rtol=1e-15)
    assert cl.pps_max_inclusion([10, 1, 1, 1, 1, 1], 1) == pytest.approx(10 / 15)
    # Inclusion probability 0 forces nothing.
    assert cl.inclusion_eps(1.0, 0.0) == 0.0


@FAST
@given(
    r=st.lists(st.floats(0, 1e6), min_size=1, max_size=60),
    m_frac=st.floats(0, 1),
)
def test_pps_inclusion_probabilities(r, m_frac) -> None:
    r = np.asarray(r)
    positive = int(np.count_nonzero(r > 0))
    assume(positive >= 1 and r.sum() > 0)
    m = max(1, round(m_frac * positive))
    a = cl.pps_inclusion_probabilities(r, m)
    assert a.sum() == pytest.approx(m, rel=1e-12)
    assert np.all((a >= 0) & (a <= 1))
    assert np.all(a[r == 0] == 0)
    np.testing.assert_allclose(a, iterative_pps(r, m), rtol=1e-9, atol=1e-12)
    assert a.max() == pytest.approx(cl.pps_max_inclusion(r, m), rel=1e-12)
    # Larger size measure, larger (or equal) inclusion probability.
    order = np.argsort(r, kind="stable")
    assert np.all(np.diff(a[order]) >= -1e-12)


@pytest.mark.parametrize("eps", [0.01, 1.0, 50.0])
def test_pps_with_equal_sizes_is_simple_random_sampling(eps) -> None:
    # §6.1: "if all the r_i are equal then PPS sampling is exactly simple random sampling".
    a = cl.pps_inclusion_probabilities(np.ones(1000), 37)
    np.testing.assert_allclose(a, 0.037, rtol=1e-14)
    assert cl.pps_eps_lower(eps, a) == pytest.approx(amp.eps_target(eps, 0.037), rel=1e-14)


@FAST
@given(eps=EPS, a=st.lists(st.floats(0, 1), min_size=1, max_size=20))
def test_pps_lower_bound_is_the_largest_inclusion(eps, a) -> None:
    per_record = cl.inclusion_eps(eps, a)
    assert cl.pps_eps_lower(eps, a) == pytest.approx(float(np.max(per_record)), rel=1e-15)
    assert np.all(per_record <= eps * (1 + 1e-15))


def _systematic_clusters(n: int, k: int) -> np.ndarray:
    """Sizes of the k systematic "clusters" {j, j + k, …} of records 0 … n − 1."""
    return np.bincount(np.arange(n) % k, minlength=k)


@FAST
@given(eps=st.floats(1e-3, 10.0), n=st.integers(3, 3000), data=st.data())
def test_systematic_is_cluster_sampling_of_every_kth_record(eps, n, data) -> None:
    k = data.draw(st.integers(2, n))
    sizes = _systematic_clusters(n, k)
    frame = cl.per_cluster_bounds(eps, sizes, 1)
    lower, upper = cl.systematic_eps_bounds(eps, n, k)
    assert lower == pytest.approx(frame["lower"].max(), rel=1e-14)
    assert upper == pytest.approx(frame["upper"].max(), rel=1e-14)
    # With a secret random order it is simple random sampling at rate 1/k.
    assert cl.srs_eps(eps, k, 1) <= lower <= upper <= eps


def test_systematic_sampling_is_essentially_unamplified() -> None:
    # Every 100th of 10,001 records, ε = 0.1: 100 clusters of ~100, s ≈ 200, sε ≈ 20.
    lower, upper = cl.systematic_eps_bounds(0.1, 10_001, 100)
    assert lower > 0.0999999 and upper <= 0.1
    assert cl.srs_eps(0.1, 100, 1) < 0.0011
