"""Tests for ui.format: the one home of the number, percent and digit helpers."""

from __future__ import annotations

import pytest

from ui.format import adaptive_percent, number, percent, readable, significant


@pytest.mark.parametrize(
    ("x", "kwargs", "expected"),
    [
        (100_000.0, {}, "100,000"),
        (-3.0, {}, "-3"),
        (1234.56789, {}, "1234.57"),
        (1234.56789, {"grouping": True}, "1,234.57"),
        (0.000123456, {"digits": 4}, "0.0001235"),
        (2.5, {"digits": 10}, "2.5"),
        (1e16, {}, "1e+16"),
    ],
)
def test_number(x, kwargs, expected):
    assert number(x, **kwargs) == expected


def test_significant_and_percent():
    assert significant(1000.0) == "1000"
    assert significant(3.14159, 3) == "3.14"
    assert percent(0.125) == "12.5 %"
    assert percent(0.1) == "10 %"
    # A share a person reads is never in scientific notation (issue 27 §2).
    assert percent(1.8, 2) == "180 %"
    assert percent(63.57) == "6,360 %"


@pytest.mark.parametrize(
    ("x", "expected"), [(0.5, "50 %"), (0.1, "10 %"), (0.0123, "1.2 %"), (2e-5, "2.0e-03 %")]
)
def test_adaptive_percent(x, expected):
    assert adaptive_percent(x) == expected


@pytest.mark.parametrize("fn", [number, significant, percent, readable])
def test_digits_below_one_is_a_clear_error(fn):
    with pytest.raises(ValueError, match="digits must be at least 1"):
        fn(1.5, 0)


@pytest.mark.parametrize(
    ("x", "expected"),
    [
        (6357.2, "6,360"),
        (1590.4, "1,590"),
        (4.80, "4.8"),
        (0.00213, "0.00213"),
        (999.6, "1,000"),
        (-1234.5, "-1,230"),
        (0.0, "0"),
        (2.5e-7, "2.5e-07"),
        (3e15, "3e+15"),
        (float("inf"), "∞"),
    ],
)
def test_readable_writes_numbers_out_without_scientific_notation(x, expected):
    assert readable(x) == expected


def test_readable_keeps_the_significant_digits_it_is_given():
    assert readable(0.0123456, 4) == "0.01235"
    assert readable(123456.0, 2) == "120,000"
