"""Tests for ui.format: one role-based way of writing a number for a person (issue 27 §2)."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ui.format import DIGITS, ROLES, d3_format, fmt, number, percent, readable, significant


def _parse(text: str) -> float:
    """A string :func:`fmt` wrote, read back as a number (a share as its fraction)."""
    if text.endswith(" %"):
        return float(text[:-2].replace(",", "")) / 100
    return float(text.replace(",", ""))


@pytest.mark.parametrize(
    ("x", "role", "expected"),
    [
        # the examples: ratios and shares written out, never "6.36e+03 times"
        (6357.2, "ratio", "6,360"),
        (4.80, "ratio", "4.8"),
        (63.57, "share", "6,360 %"),
        (3.8, "share", "380 %"),
        (0.125, "share", "12.5 %"),
        (0.1, "share", "10 %"),
        # a guarantee to three digits: the accuracy-first title and its text agree
        (0.0232454, "guarantee", "0.0232"),
        (1.0, "guarantee", "1"),
        (1000.0, "guarantee", "1,000"),
        # δ keeps the scientific form when small, as the δ boxes write it
        (0.5 / 10_000, "delta", "5e-5"),
        (0.5 / 10_001, "delta", "5e-5"),
        (4.99e-5, "delta", "4.99e-5"),
        (1e-6, "delta", "1e-6"),
        (0.01, "delta", "0.01"),
        # an error in the data's units
        (1590.4, "error", "1,590"),
        (0.00213, "error", "0.00213"),
        (999.6, "error", "1,000"),
        (-1234.5, "error", "-1,230"),
        (2.5e-7, "error", "2.5e-7"),
        # a value of the data keeps six digits
        (147.7, "value", "147.7"),
        (1234567.0, "value", "1,234,570"),
        # rates are percentages, small ones written out
        (0.0213, "rate", "2.13 %"),
        (2e-5, "rate", "0.002 %"),
        (1.0, "rate", "100 %"),
        # counts are whole numbers; an expected count below 100 keeps three digits
        (12345, "count", "12,345"),
        (1234.5, "count", "1,234"),
        (37.44, "count", "37.4"),
        (2.0, "count", "2"),
        (0.0, "plain", "0"),
        (3e15, "plain", "3e15"),
        (float("inf"), "error", "∞"),
        (float("nan"), "error", "—"),
        (float("nan"), "share", "—"),
    ],
)
def test_fmt_by_role(x, role, expected):
    assert fmt(x, role) == expected


def test_fmt_refuses_an_unknown_role_and_too_few_digits():
    with pytest.raises(ValueError, match="role must be one of"):
        fmt(1.0, "percentage")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="digits must be at least 1"):
        fmt(1.0, "error", 0)


def test_digits_override_the_role():
    assert fmt(0.0123456, "error", 4) == "0.01235"
    assert fmt(123456.0, "error", 2) == "120,000"
    assert fmt(0.1234, "share", 2) == "12 %"


@pytest.mark.parametrize("role", ROLES)
def test_every_role_has_digits_and_a_d3_format(role):
    assert DIGITS[role] >= 1
    assert d3_format(role).startswith((",", "."))


@given(
    st.floats(min_value=1e-4, max_value=1e12, allow_nan=False),
    st.sampled_from(["ratio", "share", "rate", "error", "guarantee", "plain", "value"]),
    st.booleans(),
)
def test_no_scientific_form_where_a_person_reads_the_number(x, role, negative):
    """Ratios, shares, errors and guarantees in [1e-4, 1e12) are written out in full."""
    text = fmt(-x if negative else x, role)
    assert "e" not in text and "E" not in text


@given(
    st.floats(min_value=1e-300, max_value=1e300, allow_nan=False),
    st.sampled_from(ROLES),
    st.booleans(),
)
def test_the_text_parses_back_within_its_rounding(x, role, negative):
    """Read back, the text is the value to the role's significant digits."""
    value = -x if negative else x
    text = fmt(value, role)
    back = _parse(text)
    if role == "count" and 100 <= abs(value) < 1e15:
        assert abs(back - value) <= 0.5 + 1e-9 * abs(value)
        return
    digits = DIGITS[role]
    assert math.isclose(back, value, rel_tol=0.5 * 10 ** (1 - digits) * (1 + 1e-9))


@given(st.floats(allow_nan=True, allow_infinity=True), st.sampled_from(ROLES))
def test_the_same_value_reads_the_same_every_time(x, role):
    """The same value and role give one string, whatever the float's type."""
    assert fmt(x, role) == fmt(float(x), role)


def test_the_page_and_the_report_print_a_ratio_the_same_way():
    """The planner's words and the method report take the census ratio from one function."""
    from ui.planner.compare_text import relative_change
    from ui.planner.exports.report import _gain_words

    gain = 1 - 6357.2
    assert relative_change(gain) == "6,360 times the error of"
    assert _gain_words(gain) == "6,360 times the error of the census"
    assert "e+" not in _gain_words(1 - 4.8e5)


# The older helpers, kept as thin wrappers.


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
        (2.5e-7, "2.5e-7"),
        (3e15, "3e15"),
        (float("inf"), "∞"),
    ],
)
def test_readable_writes_numbers_out_without_scientific_notation(x, expected):
    assert readable(x) == expected


def test_readable_keeps_the_significant_digits_it_is_given():
    assert readable(0.0123456, 4) == "0.01235"
    assert readable(123456.0, 2) == "120,000"


# ------------------------------------------------------------------------------------------
# No new ad-hoc format spec in the screens' code (issue 27 §2: one rule for every number).

_ROOT = Path(__file__).resolve().parents[2]
#: A Python format spec that rounds a number: ``{x:.3g}``, ``{x:,.0f}``, ``{x:.1%}``, ``{x:.2e}``.
_PY_SPEC = re.compile(r"(?<![%{])\{[^{}]+?:,?\.\d+[gfe%]\}")
#: A plotly (d3) spec in hover text: ``%{y:,.3~r}``.
_D3_SPEC = re.compile(r"%\{[a-z]+(?:\[\d\])?:([^}]+)\}")
#: Specs hover text may use besides :func:`ui.format.d3_format`'s: thousands (``,``, ``,.0f``),
#: a signed step (``+d``), r near 1 (``,.6~r``, ``.6f``), q (``.4f``), two shares a page
#: test names (``.2%``, ``.3%``) and the user's own typed values echoed as typed (``g``).
_D3_ALLOWED = {",", ",.0f", "+d", ",.6~r", ".6f", ".4f", ".2%", ".3%", "g"}


def _exempt(line: str) -> bool:
    """Lines where a format spec is not text for a person: code a user copies and runs
    (snippets, notebooks print full precision), and numbers rounded as numbers."""
    return "print(" in line or "{{" in line or 'float(f"' in line


def _screen_modules() -> list[Path]:
    files = sorted((_ROOT / "ui").rglob("*.py")) + sorted((_ROOT / "app_pages").glob("*.py"))
    return [f for f in files if f.name != "format.py"]


def test_screens_write_numbers_through_fmt_not_ad_hoc_specs():
    ad_hoc = []
    for path in _screen_modules():
        lines = path.read_text(encoding="utf-8").splitlines()
        for line_no, line in enumerate(lines, start=1):
            if _exempt(line) or "eps_table:.6g" in line:  # a notebook cell's print
                continue
            ad_hoc += [f"{path.relative_to(_ROOT)}:{line_no}: {m}" for m in _PY_SPEC.findall(line)]
    assert not ad_hoc, "write these through ui.format.fmt(value, role):\n" + "\n".join(ad_hoc)


def test_hover_text_uses_the_roles_d3_formats():
    allowed = {d3_format(role) for role in ROLES} | _D3_ALLOWED
    odd = []
    for path in _screen_modules():
        for line_no, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            odd += [
                f"{path.relative_to(_ROOT)}:{line_no}: {spec}"
                for spec in _D3_SPEC.findall(line)
                if spec not in allowed
            ]
    assert not odd, "use ui.format.d3_format(role) in hover text:\n" + "\n".join(odd)


def test_the_scan_finds_an_ad_hoc_spec():
    """The scan itself: a spec is found, a d3 placeholder and a snippet's print are not."""
    assert _PY_SPEC.findall('f"{ratio:.3g} times"') == ["{ratio:.3g}"]
    assert _PY_SPEC.findall('"n/N %{x:.3g}"') == []
    assert _exempt('print(f"{{x:.6g}}")')
