"""core.resolution: the decimal grain, the smallest gap, the resolution and exactness."""

from __future__ import annotations

import numpy as np
import pytest

from core import resolution as res
from core.populations import make_builtin


@pytest.mark.parametrize(
    ("values", "grain"),
    [
        ([1, 2, 40], 1.0),
        ([0.25, 1.5], 0.01),
        ([3000, 12000], 1000.0),
        ([0.1, 0.2, 0.3], 0.1),  # stored as the nearest binary numbers
        ([-2.5, 7.0], 0.1),
        ([5.0], 1.0),
        ([0.0, 3.0, 3.0], 1.0),
    ],
)
def test_decimal_grain(values, grain):
    assert res.decimal_grain(values) == grain


def test_no_decimal_grain_for_full_precision_draws_or_zeros():
    draws = np.random.default_rng(0).lognormal(size=50)
    assert res.decimal_grain(draws) is None
    assert res.decimal_grain([0.0, 0.0]) is None
    # A grid finer than the digits searched is not a grain.
    assert res.decimal_grain([1.0, 1.0 + 1e-12]) is None


def test_smallest_gap_ignores_order_and_repeats():
    assert res.smallest_gap([5.0, 1.0, 1.0, 3.5, 9.0]) == 1.5
    assert res.smallest_gap([4.0, 4.0]) is None


def test_resolution_prefers_the_grain_and_falls_back_to_the_gap():
    assert res.resolution([0.5, 1.5, 2.5]) == 0.1  # grain 0.1 < gap 1: the cautious one
    draws = np.sort(np.random.default_rng(1).lognormal(size=200))
    assert res.resolution(draws) == pytest.approx(np.diff(np.unique(draws)).min())
    assert res.resolution([0.0]) is None


def test_resolution_of_the_builtin_populations():
    employees = make_builtin("establishments", seed=0, size=3000)
    assert res.resolution(employees.values) == 1.0  # whole employees
    incomes = make_builtin("lognormal", seed=0, size=3000)
    assert res.resolution(incomes.values) < 1e-3  # continuous draws


def test_exactness_is_a_share_of_the_resolution():
    assert res.exact_threshold(1.0) == res.EXACT_SHARE
    assert res.is_exact(2.9e-123, 1.0)
    assert res.is_exact(res.EXACT_SHARE, 1.0)
    assert not res.is_exact(0.95, 1.0)
    assert res.is_exact(0.0, None) and not res.is_exact(1e-300, None)


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: res.resolution([]), "values"),
        (lambda: res.resolution([1.0, float("nan")]), "values"),
        (lambda: res.decimal_grain([1.0], max_digits=0), "max_digits"),
        (lambda: res.exact_threshold(0.0), "step"),
        (lambda: res.is_exact(-1.0, 1.0), "error"),
    ],
)
def test_bad_arguments_raise_naming_them(call, match):
    with pytest.raises(ValueError, match=match):
        call()
