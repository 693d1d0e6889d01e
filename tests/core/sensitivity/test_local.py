"""Ranks, beta, and the global and local sensitivities (core.sensitivity.local)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from core import sensitivity as cs
from tests.core import reference_sensitivity as ref

# ---------------------------------------------------------------------------------------
# Small helpers
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(("n", "m"), [(1, 1), (2, 1), (3, 2), (4, 2), (5, 3), (10, 5), (101, 51)])
def test_median_rank(n, m):
    assert cs.median_rank(n) == m == ref.lower_median_rank(n)


@pytest.mark.parametrize("bad", [0, -3, 2.5, True])
def test_median_rank_rejects(bad):
    with pytest.raises(ValueError):
        cs.median_rank(bad)


def test_median_of_sorted():
    assert cs.median_of_sorted([1.0, 2.0, 7.0]) == 2.0
    assert cs.median_of_sorted([1.0, 2.0, 7.0, 9.0]) == 2.0  # lower median
    assert cs.median_of_sorted([4.0]) == 4.0
    with pytest.raises(ValueError, match="sorted"):
        cs.median_of_sorted([3.0, 1.0])
    with pytest.raises(ValueError, match="empty"):
        cs.median_of_sorted([])


def test_smooth_beta():
    assert cs.smooth_beta(1.0, 0.5) == pytest.approx(1.0 / (2 * math.log(4.0)), rel=1e-15)
    delta = 1 / (2 * 10_001)
    assert cs.smooth_beta(0.1, delta) == pytest.approx(ref.beta(0.1, delta), rel=1e-15)
    # Subnormal delta: 2/delta overflows, the log difference does not.
    assert math.isfinite(cs.smooth_beta(1.0, 5e-324))


@pytest.mark.parametrize(
    ("eps", "delta", "match"),
    [
        (0.0, 0.1, "eps"),
        (-1.0, 0.1, "eps"),
        (math.inf, 0.1, "eps"),
        (math.nan, 0.1, "eps"),
        (1.0, 0.0, "delta"),
        (1.0, 1.0, "delta"),
        (1.0, -0.2, "delta"),
        (1.0, math.nan, "delta"),
    ],
)
def test_smooth_beta_rejects(eps, delta, match):
    with pytest.raises(ValueError, match=match):
        cs.smooth_beta(eps, delta)
    with pytest.raises(ValueError, match=match):
        cs.smooth_sensitivity_median([1.0, 2.0], eps, delta, 0.0, 3.0)


def test_mean_and_median_global_local():
    assert cs.global_sensitivity_mean(10, 0.0, 5.0) == 0.5
    assert cs.global_sensitivity_median(-1.0, 5.0) == 6.0
    # max(upper - min, max - lower) / n = max(10 - 2, 6 - 0) / 3
    assert cs.local_sensitivity_mean([2.0, 6.0, 3.0], 0.0, 10.0) == pytest.approx(8.0 / 3)
    assert cs.local_sensitivity_mean([0.0, 6.0], 0.0, 10.0) == cs.global_sensitivity_mean(
        2, 0.0, 10.0
    )
    # median 3 of (1, 3, 7): max(7 - 3, 3 - 1)
    assert cs.local_sensitivity_median([7.0, 1.0, 3.0], 0.0, 10.0) == 4.0
    with pytest.raises(ValueError):
        cs.global_sensitivity_mean(0, 0.0, 1.0)
    with pytest.raises(ValueError):
        cs.global_sensitivity_median(1.0, 1.0)


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 6, 7, 10, 25])
def test_local_sensitivity_median_matches_definition(n):
    rng = np.random.default_rng(n)
    for _ in range(20):
        y = rng.integers(0, 6, n).astype(float)
        assert cs.local_sensitivity_median(y, 0.0, 5.0) == pytest.approx(
            ref.local_sensitivity_median_bruteforce(y, 0.0, 5.0), abs=0
        )
