"""Number formatting shared by every page's text, legends, tables and exports (pure, no Streamlit).

One entry point, :func:`fmt`, writes a number for a person by its *role*; the other helpers
are thin wrappers kept for their callers. Its docstring is the rule.
"""

from __future__ import annotations

import math
from typing import Literal, SupportsFloat, get_args

__all__ = [
    "ROLES",
    "Role",
    "d3_format",
    "fmt",
    "number",
    "percent",
    "readable",
    "significant",
]

#: What a number means to the person reading it; :func:`fmt` holds the rule for each.
Role = Literal["guarantee", "delta", "error", "value", "share", "rate", "ratio", "count", "plain"]
ROLES: tuple[str, ...] = get_args(Role)

#: Significant digits of each role (``count`` writes whole numbers, see :func:`fmt`).
DIGITS: dict[str, int] = {
    "guarantee": 3,
    "delta": 3,
    "error": 3,
    "value": 6,
    "share": 3,
    "rate": 3,
    "ratio": 3,
    "count": 3,
    "plain": 3,
}

#: Below this magnitude a role that may use the scientific form uses it (``2.5e-7``):
#: δ from 1e-3 down, every other role from 1e-4 down. From 1e15 on every role does, as
#: floats that large no longer hold whole numbers exactly.
_SMALL: dict[str, float] = {"delta": 1e-3}
_SMALL_DEFAULT = 1e-4
_LARGE = 1e15


def _scientific(rounded: float, digits: int) -> str:
    """``rounded`` as ``m e k`` with trailing zeros dropped and the exponent unpadded
    (``2.5e-7``, ``3e15``), the way the app's number boxes write it."""
    mantissa, exponent = f"{rounded:.{digits - 1}e}".split("e")
    if "." in mantissa:
        mantissa = mantissa.rstrip("0").rstrip(".")
    return f"{mantissa}e{int(exponent)}"


def _written(x: float, digits: int, small: float = _SMALL_DEFAULT) -> str:
    """``x`` rounded to ``digits`` significant digits and written out in full: thousands
    separators, no trailing zeros; scientific only below ``small`` or from 1e15 on."""
    if digits < 1:
        raise ValueError(f"digits must be at least 1, got {digits}")
    x = float(x)
    if math.isnan(x):
        return "—"
    if math.isinf(x):
        return "∞" if x > 0 else "−∞"
    rounded = float(f"{x:.{digits}g}")
    if math.isinf(rounded):  # rounding up past the largest float: keep the float itself
        rounded = x
    size = abs(rounded)
    if size == 0.0:
        return "0"
    if size < small or size >= _LARGE:
        return _scientific(rounded, digits)
    exponent = int(f"{rounded:.{digits - 1}e}".split("e")[1])
    decimals = digits - 1 - exponent
    if decimals <= 0:
        return f"{rounded:,.0f}"
    return f"{rounded:,.{decimals}f}".rstrip("0").rstrip(".")


def fmt(value: SupportsFloat, role: Role, digits: int | None = None) -> str:
    """``value`` written for a person, by what it means (``role``).

    The rule, the same on the page, in its metrics and tables, in its charts' titles,
    legends and annotations, in the method report and in the publication package's text:

    - every role rounds to a number of *significant* digits, then writes the rounded number
      out in full: thousands separators from 1,000 on, no trailing zeros after the decimal
      point (``6357.2`` → ``6,360``, ``4.80`` → ``4.8``, ``0.00213`` → ``0.00213``);
    - the scientific form (``2.5e-7``, exponent unpadded as the number boxes write it) only
      for magnitudes below 1e-4 (below 1e-3 for δ) or from 1e15 on. So ratios and shares a
      person reads are never scientific (``6,360 times``, never ``6.36e+03 times``);
    - NaN reads ``—``, infinity ``∞``; the minus sign is ``-`` so that the text parses back.

    Roles and their significant digits (three for everything a person compares at a glance,
    six for a value of the data they may check against their own numbers):

    ``guarantee`` (3)
        An ε: ε_target, ε_sample, a bound on either (``0.0232``, ``1.06``).
    ``delta`` (3)
        A δ, often tiny: scientific below 1e-3 (``5e-5``, ``4.99e-5``, ``0.01``). The δ
        boxes and their sliders write δ with four digits (``5.000e-5``), the same number.
    ``error`` (3)
        An error in the data's units: RMSE, a 95 % bound, a standard error (``1,590``).
    ``value`` (6)
        A value of the data a person may want to check against their own numbers: the
        population's mean, median, bounds (``147.7``, ``1,234,570``).
    ``share`` (3)
        A fraction of something, written as a percentage (``0.125`` → ``12.5 %``,
        ``63.57`` → ``6,360 %``), never scientific above 1e-6.
    ``rate`` (3)
        A sampling rate n/N (or a fraction of clusters), as a percentage like a share
        (``0.0213`` → ``2.13 %``, ``2e-5`` → ``0.002 %``).
    ``ratio`` (3)
        A multiple, "times" or "×" (``4.8``, ``6,360``), never scientific.
    ``count`` (whole)
        Records, samples, clusters: whole numbers with separators (``12,345``); an expected
        count that is not whole keeps three significant digits below 100 (``2.5``, ``37.4``)
        and is rounded to a whole number from 100 on (``1,235``).
    ``plain`` (3)
        Anything else a person reads: a noise scale, a test statistic, a variance.

    ``digits`` overrides the role's digits where a page must tell two close values apart;
    use it rarely, as the same value then reads differently elsewhere.

    Chart hover text uses plotly's d3 formats (``%{y:,.3~r}``), which cannot call this
    function; :func:`d3_format` gives the d3 spec that follows the same digits per role
    (d3 writes a share as ``12.5%``, without the space). Not covered, on purpose: code a
    person copies ("Reproduce in Python" snippets, the exported notebook), which prints
    six digits or ``repr`` so that its output can be compared with the page; the user's
    own typed values echoed back (``{eps:g}``); core's CSV columns, which are data and
    keep full precision.
    """
    if role not in DIGITS:
        raise ValueError(f"role must be one of {', '.join(ROLES)}, got {role!r}")
    places = DIGITS[role] if digits is None else int(digits)
    if places < 1:
        raise ValueError(f"digits must be at least 1, got {places}")
    x = float(value)
    if role in ("share", "rate"):
        if math.isnan(x):
            return "—"
        return f"{_written(100.0 * x, places)} %"
    if role == "count" and math.isfinite(x) and (x.is_integer() or abs(x) >= 100):
        if abs(x) >= _LARGE:
            return _written(x, places)
        return f"{round(x):,}"
    return _written(x, places, _SMALL.get(role, _SMALL_DEFAULT))


def d3_format(role: Role) -> str:
    """The d3 format (plotly hover text, ``"%{y:" + d3_format("error") + "}"``) that writes
    a role's significant digits as :func:`fmt` does where d3 can: rounded, separators,
    trailing zeros trimmed (``,.3~r``); a share or rate is a percentage (``.3~%``)."""
    if role not in DIGITS:
        raise ValueError(f"role must be one of {', '.join(ROLES)}, got {role!r}")
    if role in ("share", "rate"):
        return f".{DIGITS[role]}~%"
    if role == "count":
        return ",.0f"
    if role == "delta":
        return f".{DIGITS[role]}~g"
    return f",.{DIGITS[role]}~r"


def number(x: float, digits: int = 6, *, grouping: bool = False) -> str:
    """A number for text: whole numbers with thousands separators, others to ``digits`` digits.

    ``grouping`` also puts thousands separators into the non-integer form (``1,234.5``).
    Whole numbers of magnitude 1e15 or more use the general form, as integers that large are
    no longer exact in floating point. Prefer :func:`fmt` with a role for text a person reads.
    """
    if digits < 1:
        raise ValueError(f"digits must be at least 1, got {digits}")
    x = float(x)
    if x.is_integer() and abs(x) < 1e15:
        return f"{int(x):,}"
    return f"{x:,.{digits}g}" if grouping else f"{x:.{digits}g}"


def significant(x: float, digits: int = 4) -> str:
    """``x`` to ``digits`` significant digits in the general form (``1000`` stays ``1000``).

    For code a person copies (snippets), not prose: prose goes through :func:`fmt`.
    """
    if digits < 1:
        raise ValueError(f"digits must be at least 1, got {digits}")
    return f"{float(x):.{digits}g}"


def readable(x: float, digits: int = 3) -> str:
    """``x`` to ``digits`` significant digits, written out as :func:`fmt` writes every role
    (``6357.2`` → ``6,360``, ``0.00213`` → ``0.00213``, ``2.5e-07`` → ``2.5e-7``)."""
    return _written(x, digits)


def percent(fraction: float, digits: int = 3) -> str:
    """A fraction as a percentage to ``digits`` significant digits, as :func:`fmt` writes a
    share (``0.125`` → ``12.5 %``, ``1.8`` → ``180 %``, never ``1.8e+02 %``)."""
    if digits < 1:
        raise ValueError(f"digits must be at least 1, got {digits}")
    return fmt(fraction, "share", digits)
