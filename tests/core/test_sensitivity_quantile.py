"""Smooth sensitivity of any quantile (core.sensitivity) against the slow references.

The references in ``reference_sensitivity`` evaluate equation (4) of Hu et al. literally,
as a maximum over pairs of ranks, and from the definition of Nissim, Raskhodnikova & Smith
(every way of moving records to a bound), at the rank of the quantile.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from core import sensitivity as cs
from tests.core import reference_sensitivity as ref

RTOL = 1e-12
ATOL = 1e-300
LEVELS = ["0.001", "0.01", "0.1", "0.25", "0.3", "0.5", "0.7", "0.9", "0.99", "0.999"]


def assert_close(a: float, b: float, rtol: float = RTOL) -> None:
    assert abs(a - b) <= rtol * max(abs(a), abs(b)) + ATOL, f"{a!r} != {b!r}"


# ---------------------------------------------------------------------------------------
# The rank of a quantile
# ---------------------------------------------------------------------------------------


@settings(max_examples=300)
@given(n=st.integers(1, 5000), level=st.sampled_from(LEVELS))
@example(n=10, level="0.1")  # 0.1 * 10 = 1.0000000000000000555 in binary: still rank 1
@example(n=10, level="0.3")  # 0.3 * 10 rounds to 3.0000000000000004: still rank 3
@example(n=10, level="0.7")
def test_quantile_rank_is_the_smallest_rank_with_share_q(n: int, level: str) -> None:
    assert cs.quantile_rank(n, float(level)) == ref.quantile_rank_definition(n, level)


@settings(max_examples=100)
@given(
    sizes=st.lists(st.integers(1, 10**9), min_size=1, max_size=40), level=st.sampled_from(LEVELS)
)
@example(sizes=[10, 20, 30, 1], level="0.1")
@example(sizes=[10, 10**7, 3], level="0.3")
def test_quantile_ranks_are_quantile_rank_of_each_size(sizes: list[int], level: str) -> None:
    got = cs.quantile_ranks(np.array(sizes), float(level))
    assert got.tolist() == [cs.quantile_rank(n, float(level)) for n in sizes]


def test_quantile_ranks_rejects_an_empty_sample() -> None:
    with pytest.raises(ValueError, match="sizes must be"):
        cs.quantile_ranks(np.array([3, 0]), 0.5)


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 10, 101, 10_001])
def test_quantile_rank_of_one_half_is_the_median_rank(n: int) -> None:
    assert cs.quantile_rank(n, 0.5) == cs.median_rank(n) == (n + 1) // 2


@pytest.mark.parametrize(
    ("n", "q", "match"),
    [(0, 0.5, "n must be"), (2.5, 0.5, "n must be"), (True, 0.5, "n must be")]
    + [(5, q, "quantile must be") for q in (0.0, 1.0, -0.1, 1.5, math.nan, "a", True)],
)
def test_quantile_rank_rejects(n, q, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        cs.quantile_rank(n, q)


# ---------------------------------------------------------------------------------------
# Smooth sensitivity against the references
# ---------------------------------------------------------------------------------------

_values = st.lists(
    st.sampled_from([0.0, 0.5, 1.0, 2.0, 2.0, 3.5, 5.0, 6.0]), min_size=1, max_size=30
) | st.lists(st.floats(0.0, 6.0, allow_nan=False), min_size=1, max_size=30)


@settings(max_examples=400, deadline=None)
@given(
    y=_values,
    level=st.sampled_from(LEVELS),
    eps=st.sampled_from([1e-3, 0.05, 0.5, 1.0, 5.0, 40.0]),
    delta=st.sampled_from([1e-6, 1e-3, 0.1]),
)
@example(y=[3.0], level="0.001", eps=1.0, delta=0.1)  # n = 1
@example(y=[0.0, 6.0], level="0.999", eps=0.05, delta=1e-3)  # n = 2, values at the bounds
@example(y=[2.0] * 30, level="0.9", eps=40.0, delta=1e-6)  # all tied, large beta
def test_quantile_equals_the_pair_and_eq4_references(
    y: list[float], level: str, eps: float, delta: float
) -> None:
    q = float(level)
    k = ref.quantile_rank_definition(len(y), level)
    got = cs.smooth_sensitivity_quantile(y, eps, delta, 0.0, 6.0, quantile=q)
    assert_close(got, ref.smooth_sensitivity_pairs(y, eps, delta, 0.0, 6.0, rank=k))
    assert_close(got, ref.smooth_sensitivity_eq4(y, eps, delta, 0.0, 6.0, rank=k))
    got_np = cs._smooth_numpy(np.sort(y), 0.0, 6.0, cs.smooth_beta(eps, delta), k)
    assert_close(got_np, got)
    local = cs.local_sensitivity_quantile(y, 0.0, 6.0, quantile=q)
    assert local == ref.local_sensitivity_median_bruteforce(y, 0.0, 6.0, rank=k)
    assert local * (1 - 1e-12) <= got <= 6.0


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 6])
@pytest.mark.parametrize("level", ["0.001", "0.25", "0.5", "0.9", "0.999"])
def test_quantile_against_the_nissim_definition(n: int, level: str) -> None:
    rng = np.random.default_rng(n)
    k = ref.quantile_rank_definition(n, level)
    for trial in range(4):
        y = rng.choice([0.0, 1.0, 1.5, 4.0, 5.0], size=n) if trial % 2 else rng.uniform(0, 5, n)
        for eps in (0.01, 0.7, 6.0):
            want = ref.smooth_sensitivity_bruteforce(y, eps, 0.1, 0.0, 5.0, rank=k)
            got = cs.smooth_sensitivity_quantile(y, eps, 0.1, 0.0, 5.0, quantile=float(level))
            assert_close(got, want)


@pytest.mark.parametrize("q", [0.0001, 0.05, 0.37, 0.95, 0.9999])
def test_large_n_against_the_quadratic_definition(q: float) -> None:
    rng = np.random.default_rng(5)
    y = np.sort(rng.lognormal(5.0, 0.5, 2001).clip(0.0, 2000.0))
    k = cs.quantile_rank(y.size, q)
    for eps in (0.01, 0.5, 5.0):
        want = ref.smooth_sensitivity_eq4_numpy(y, eps, 1e-4, 0.0, 2000.0, rank=k)
        assert_close(cs.smooth_sensitivity_quantile(y, eps, 1e-4, 0.0, 2000.0, quantile=q), want)


@settings(max_examples=60, deadline=None)
@given(
    rows=st.integers(0, 6),
    n=st.integers(1, 40),
    seed=st.integers(0, 2**32 - 1),
    level=st.sampled_from(LEVELS),
)
def test_batch_equals_the_single_version_row_by_row(
    rows: int, n: int, seed: int, level: str
) -> None:
    rng = np.random.default_rng(seed)
    samples = np.sort(rng.choice([0.0, 1.0, 2.5, 3.0, 4.0], size=(rows, n)), axis=1)
    samples[: rows // 2] = np.sort(rng.uniform(0.0, 4.0, size=(rows // 2, n)), axis=1)
    eps = rng.uniform(0.01, 5.0, size=rows)
    q = float(level)
    got = cs.smooth_sensitivity_quantile_batch(samples, eps, 1e-3, 0.0, 4.0, quantile=q)
    assert got.shape == (rows,)
    for r in range(rows):
        one = cs.smooth_sensitivity_quantile(samples[r], eps[r], 1e-3, 0.0, 4.0, quantile=q)
        assert got[r] == one
    # beta given directly: the same maximum at beta = eps / (2 ln(2 / delta))
    betas = eps / (2 * math.log(2 / 1e-3))
    direct = cs.smooth_sensitivity_beta_batch(samples, betas, 0.0, 4.0, quantile=q)
    np.testing.assert_allclose(direct, got, rtol=1e-13, atol=0)


def test_beta_batch_against_eq4_at_that_beta() -> None:
    rng = np.random.default_rng(2)
    samples = np.sort(rng.uniform(0.0, 4.0, size=(5, 17)), axis=1)
    for q in (0.1, 0.5, 0.8):
        k = cs.quantile_rank(17, q)
        for b in (1e-4, 0.1, 3.0):
            got = cs.smooth_sensitivity_beta_batch(samples, b, 0.0, 4.0, quantile=q)
            for r in range(5):
                assert_close(got[r], ref.smooth_sensitivity_eq4(samples[r], 1, 0.5, 0, 4, k, b=b))


@settings(max_examples=100, deadline=None)
@given(y=_values, eps=st.floats(1e-3, 50.0), delta=st.floats(1e-8, 0.5))
def test_the_median_functions_are_the_quantile_at_one_half(
    y: list[float], eps: float, delta: float
) -> None:
    med = cs.smooth_sensitivity_median(y, eps, delta, 0.0, 6.0)
    assert med == cs.smooth_sensitivity_quantile(y, eps, delta, 0.0, 6.0, quantile=0.5)
    batch = np.sort(np.array(y))[np.newaxis, :]
    assert cs.smooth_sensitivity_median_batch(batch, eps, delta, 0.0, 6.0)[0] == med
    assert cs.local_sensitivity_quantile(y, 0.0, 6.0) == cs.local_sensitivity_median(y, 0.0, 6.0)


def test_extreme_quantiles_on_skewed_data_by_hand() -> None:
    # y = 1..9 on [0, 10], q = 0.9 -> k = 9 (the largest value): local sensitivity
    # max(10 - 9, 9 - 8) = 1; at distance j the widest pair is (k - j, n + 1), padded
    # y_(k - j) = 9 - j (or 0 = lower), so A^(j) = min(10, 1 + j).
    y = np.arange(1.0, 10.0)
    assert cs.quantile_rank(9, 0.9) == 9
    assert cs.local_sensitivity_quantile(y, 0.0, 10.0, quantile=0.9) == 1.0
    beta = 0.25
    want = max(math.exp(-beta * j) * min(10.0, 1.0 + j) for j in range(10))
    got = cs.smooth_sensitivity_beta_batch(y[np.newaxis, :], beta, 0.0, 10.0, quantile=0.9)[0]
    assert_close(got, want)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"quantile": 0.0}, "quantile must be"),
        ({"quantile": 1.0}, "quantile must be"),
        ({"quantile": math.nan}, "quantile must be"),
        ({"eps": 0.0}, "eps"),
        ({"values": [1.0, 12.0]}, "public bounds"),
    ],
)
def test_quantile_functions_reject_bad_input(kwargs: dict, match: str) -> None:
    args = {"values": [1.0, 2.0], "eps": 1.0, "delta": 0.1, "lower": 0.0, "upper": 10.0}
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        cs.smooth_sensitivity_quantile(
            args["values"],
            args["eps"],
            args["delta"],
            args["lower"],
            args["upper"],
            quantile=kwargs.get("quantile", 0.5),
        )
    samples = np.sort(np.atleast_2d(args["values"]), axis=1)
    with pytest.raises(ValueError, match=match):
        cs.smooth_sensitivity_quantile_batch(
            samples,
            args["eps"],
            args["delta"],
            args["lower"],
            args["upper"],
            quantile=kwargs.get("quantile", 0.5),
        )


@pytest.mark.parametrize(
    ("beta", "match"), [(0.0, "beta must be"), (math.inf, "beta must be"), ([1.0, 2.0], "shape")]
)
def test_beta_batch_rejects_bad_beta(beta, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        cs.smooth_sensitivity_beta_batch([[1.0, 2.0, 3.0]], beta, 0.0, 10.0)
