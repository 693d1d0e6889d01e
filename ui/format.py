"""Number formatting shared by every page's text, legends and tables (pure, no Streamlit)."""

from __future__ import annotations

import math

__all__ = ["adaptive_percent", "number", "percent", "readable", "significant"]


def number(x: float, digits: int = 6, *, grouping: bool = False) -> str:
    """A number for text: whole numbers with thousands separators, others to ``digits`` digits.

    ``grouping`` also puts thousands separators into the non-integer form (``1,234.5``).
    Whole numbers of magnitude 1e15 or more use the general form, as integers that large are
    no longer exact in floating point.
    """
    if digits < 1:
        raise ValueError(f"digits must be at least 1, got {digits}")
    x = float(x)
    if x.is_integer() and abs(x) < 1e15:
        return f"{int(x):,}"
    return f"{x:,.{digits}g}" if grouping else f"{x:.{digits}g}"


def significant(x: float, digits: int = 4) -> str:
    """``x`` to ``digits`` significant digits in the general form (``1000`` stays ``1000``)."""
    if digits < 1:
        raise ValueError(f"digits must be at least 1, got {digits}")
    return f"{float(x):.{digits}g}"


def readable(x: float, digits: int = 3) -> str:
    """``x`` to ``digits`` significant digits, written as a person reads it.

    The rule for an error in the data's units or a ratio a person reads ("6,360 times"):
    round to ``digits`` significant digits, then write the rounded number out in full —
    thousands separators from 1,000 on, no trailing zeros after the decimal point — so that
    ``6357.2`` reads ``6,360``, ``1590.4`` reads ``1,590``, ``4.80`` reads ``4.8`` and
    ``0.00213`` reads ``0.00213``. Only magnitudes below 1e-4 or from 1e15 on, which a full
    form would drown in zeros, keep the scientific form (``2.5e-07``). Infinity reads ``∞``.
    """
    if digits < 1:
        raise ValueError(f"digits must be at least 1, got {digits}")
    x = float(x)
    if x != x:
        return "nan"
    if x in (float("inf"), float("-inf")):
        return "∞" if x > 0 else "−∞"
    rounded = float(f"{x:.{digits}g}")
    size = abs(rounded)
    if size == 0.0:
        return "0"
    if size < 1e-4 or size >= 1e15:
        return f"{rounded:.{digits}g}"
    if size >= 10 ** (digits - 1):
        return f"{rounded:,.0f}"
    decimals = digits - 1 - math.floor(math.log10(size))
    return f"{rounded:,.{decimals}f}".rstrip("0").rstrip(".")


def percent(fraction: float, digits: int = 3) -> str:
    """A fraction as a percentage to ``digits`` significant digits, written out as
    :func:`readable` writes a number (``0.125`` → ``12.5 %``, ``1.8`` → ``180 %``, never
    ``1.8e+02 %``)."""
    if digits < 1:
        raise ValueError(f"digits must be at least 1, got {digits}")
    return f"{readable(100 * float(fraction), digits)} %"


def adaptive_percent(fraction: float) -> str:
    """A fraction as a short percentage: whole percent from 10 %, two digits down to 0.1 %,
    scientific notation below (``0.5`` → ``50 %``, ``0.0123`` → ``1.2 %``,
    ``2e-5`` → ``2.0e-03 %``).
    """
    x = float(fraction)
    if x >= 0.1:
        return f"{100 * x:.0f} %"
    if x >= 0.001:
        return f"{100 * x:.2g} %"
    return f"{100 * x:.1e} %"
