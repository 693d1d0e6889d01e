"""core.resolution: the decimal grain, the smallest gap, the resolution and exactness."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as hs

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


def test_a_grain_holds_for_every_value_not_only_for_the_ones_tried_first():
    """Break caught (tests/break_checks.py ``resolution-grain-from-sample``): a grain that
    fits the values tried first is taken without checking the rest."""
    values = np.arange(20_000, dtype=np.float64) * 10.0
    values[12_345] += 0.5  # not among the spread-out values tried first
    assert res.decimal_grain(values) == 0.1
    assert res.decimal_grain(np.delete(values, 12_345)) == 10.0


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
        (lambda: res.shown_bound(0.0, 1.0), "value"),
        (lambda: res.shown_bound(float("inf"), None), "value"),
        (lambda: res.shown_bound(1.0, -1.0), "step"),
        (lambda: res.shown_bound(1.0, None, digits=0), "digits"),
    ],
)
def test_bad_arguments_raise_naming_them(call, match):
    with pytest.raises(ValueError, match=match):
        call()


@pytest.mark.parametrize(
    ("value", "step", "shown"),
    [
        (0.9, 1.0, 1.0),  # issue 35: ±0.9 on whole micrograms cannot show
        (0.95, 1.0, 1.0),
        (0.9, 0.01, 0.9),  # recorded in hundredths: ±0.9 shows
        (0.937, 0.001, 0.94),
        (12.3, 1.0, 13.0),
        (1234.0, 1000.0, 2000.0),
        (0.0374, None, 0.038),
        (0.3, 0.1, 0.3),  # 0.3 / 0.1 is 2.9999999999999996 in binary
        (0.35, 0.3, 0.6),  # a step that is not a power of ten: a multiple of it
    ],
)
def test_shown_bound_is_short_and_no_finer_than_the_step(value, step, shown):
    assert res.shown_bound(value, step) == shown


@given(
    hs.floats(1e-9, 1e9),
    hs.sampled_from([None, 1e-3, 0.01, 1.0, 10.0, 1000.0]),
)
def test_shown_bound_is_the_smallest_short_number_above(value, step):
    shown = res.shown_bound(value, step)
    assert shown >= value * (1 - 1e-12) and (step is None or shown >= step)
    assert float(f"{shown:.2g}") == shown or (step is not None and shown % step < 1e-9 * shown)
    v = max(value, step or 0.0)
    unit = max(10.0 ** (math.floor(math.log10(v)) - 1), step or 0.0)
    assert shown - unit < v * (1 + 1e-12)  # one unit less is too small: the smallest


def test_shown_bound_on_whole_and_decimal_populations():
    """The default target of issue 35 on a population recorded in whole numbers (the survey's
    zinc) and on one recorded in hundredths: 5 % of the IQR, then shown_bound."""
    whole = np.rint(np.random.default_rng(1).gamma(36.0, 86.0 / 36.0, 5_000))
    decimals = np.round(np.random.default_rng(1).gamma(36.0, 86.0 / 36.0, 5_000) / 5, 2)
    for values, expected in ((whole, 1.0), (decimals, None)):
        q1, q3 = np.quantile(values, [0.25, 0.75])
        share = 0.05 * float(q3 - q1)
        assert share < 1.0
        step = res.resolution(values)
        got = res.shown_bound(share, step)
        if expected is not None:
            assert step == 1.0 and got == expected
        else:  # the step does not bind: the share rounded up to two digits
            assert step == 0.01 and share <= got == res.shown_bound(share, None) < 1.0
