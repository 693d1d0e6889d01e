"""The resolution of a data set: the finest step in which its values are recorded.

A register of employee counts is recorded in whole persons; a file of amounts in cents. An
error far below that step cannot show in any value the data could hold, so a release with
such an error is exact for every practical purpose, however small or large the error's
ratio to another tiny error may be. Two measures of the step are offered:

* the *decimal grain* (:func:`decimal_grain`): the largest power of ten ``10^k`` of which
  every value is a whole multiple (1 for whole numbers, 0.01 for amounts in cents, 1000 for
  amounts in whole thousands);
* the *smallest gap* (:func:`smallest_gap`): the smallest positive difference between two
  distinct values.

The grain never exceeds the smallest gap (two distinct multiples of ``g`` are at least ``g``
apart), so it is the cautious choice. :func:`resolution` takes the grain when the values
have one within :data:`MAX_DIGITS` significant digits, and the smallest gap otherwise (values
measured to full floating-point precision, such as draws from a continuous distribution).

A release error counts as exact to the data's resolution when it is at most
:data:`EXACT_SHARE` of the resolution (:func:`is_exact`). An error bound asked of a release
reads best in steps the data can show: :func:`shown_bound` rounds a bound up to a short
number that is not finer than the step (a bound of ±0.9 on whole numbers becomes ±1).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from ._validation import check_vector, require

__all__ = [
    "EXACT_SHARE",
    "MAX_DIGITS",
    "decimal_grain",
    "exact_threshold",
    "is_exact",
    "resolution",
    "shown_bound",
    "smallest_gap",
]

#: An error at most this share of the resolution is exact for every practical purpose: a
#: hundredth of the step between recorded values changes no value the data could hold.
EXACT_SHARE = 0.01

#: The decimal grain is searched down to this many significant digits of the largest value;
#: finer grids cannot be told apart from floating-point rounding.
MAX_DIGITS = 10

#: How far a value may sit from a whole multiple of the grain and still count as one, in
#: floating-point roundings of the quotient: decimal fractions such as 0.1 are stored as the
#: nearest binary number, so 0.3 / 0.1 is 2.9999999999999996.
_GRAIN_ULPS = 64


def _finite_values(values: ArrayLike) -> np.ndarray:
    arr = check_vector("values", values)
    require("values", arr, np.isfinite(arr), "finite numbers")
    return arr


def decimal_grain(values: ArrayLike, max_digits: int = MAX_DIGITS) -> float | None:
    """The largest power of ten of which every value is a whole multiple.

    Parameters
    ----------
    values : array_like
        One-dimensional, finite numbers.
    max_digits : int
        Search from the power of ten of the largest magnitude down ``max_digits`` decades.

    Returns
    -------
    float or None
        ``10^k`` for the largest ``k`` with every ``values / 10^k`` a whole number (to a
        relative rounding of 1e-4 of the grain); None when all values are 0 or no grain of
        at most ``max_digits`` significant digits fits.

    Examples
    --------
    ``[1, 2, 40]`` → 1; ``[0.25, 1.5]`` → 0.01; ``[3000, 12000]`` → 1000.
    """
    arr = np.abs(_finite_values(values))
    if isinstance(max_digits, bool) or not isinstance(max_digits, int) or max_digits < 1:
        raise ValueError(f"max_digits must be a whole number ≥ 1; got {max_digits!r}")
    largest = float(arr.max())
    if largest == 0.0:
        return None
    # Every value must be a multiple: a spread-out sample turns most grains down before
    # the one pass over all the values that confirms a grain.
    sample = arr[:: max(1, arr.size // _GRAIN_SAMPLE)]
    top = math.floor(math.log10(largest))
    for k in range(top, top - max_digits, -1):
        grain = 10.0**k
        if _multiples(sample, grain) and _multiples(arr, grain):
            return float(f"{grain:.0e}")
    return None


#: Values :func:`decimal_grain` tries each grain on before it tries all of them.
_GRAIN_SAMPLE = 4096


def _multiples(values: np.ndarray, grain: float) -> bool:
    """Whether every one of ``values`` is a whole multiple of ``grain``, to rounding."""
    scaled = values / grain
    tolerance = _GRAIN_ULPS * np.finfo(np.float64).eps * np.maximum(1.0, scaled)
    return bool(np.all(np.abs(scaled - np.round(scaled)) <= tolerance))


def smallest_gap(values: ArrayLike) -> float | None:
    """The smallest positive difference between two distinct values (None if all are equal).

    Parameters
    ----------
    values : array_like
        One-dimensional, finite numbers (in any order, repeats allowed).
    """
    distinct = np.unique(_finite_values(values))
    if distinct.size < 2:
        return None
    return float(np.diff(distinct).min())


def resolution(values: ArrayLike) -> float | None:
    """The step in which the values are recorded: their decimal grain, else the smallest gap.

    Parameters
    ----------
    values : array_like
        One-dimensional, finite numbers.

    Returns
    -------
    float or None
        :func:`decimal_grain` when the values lie on a decimal grid of at most
        :data:`MAX_DIGITS` significant digits, otherwise :func:`smallest_gap`; None when
        neither exists (a single value 0, repeated).
    """
    grain = decimal_grain(values)
    return grain if grain is not None else smallest_gap(values)


def exact_threshold(step: float | None) -> float:
    """The largest error still exact to a resolution ``step``: ``EXACT_SHARE · step``.

    0 when the resolution is unknown (None): then only an error of exactly 0 is exact.
    """
    if step is None:
        return 0.0
    if isinstance(step, bool) or not math.isfinite(float(step)) or float(step) <= 0:
        raise ValueError(f"step must be a finite number > 0 or None; got {step!r}")
    return EXACT_SHARE * float(step)


def is_exact(error: float, step: float | None) -> bool:
    """Whether a release ``error`` (≥ 0, in the data's units) is exact to the resolution
    ``step``: at most :data:`EXACT_SHARE` of it (:func:`exact_threshold`)."""
    value = float(error)
    if math.isnan(value) or value < 0:
        raise ValueError(f"error must be a number ≥ 0; got {error!r}")
    return value <= exact_threshold(step)


def shown_bound(value: float, step: float | None, digits: int = 2) -> float:
    """The smallest short number at least ``value`` that the data's resolution can show.

    The result is at least ``value`` and at least ``step``, has at most ``digits``
    significant digits, and is a whole multiple of ``step`` when ``step`` is coarser than
    its last digit: with ``u = 10^(⌊log10 v⌋ − digits + 1)`` for ``v = max(value, step)``,
    it is ``⌈v / s⌉ · s`` with ``s = max(u, step)``. A bound of ±0.9 on values recorded in
    whole numbers is ±1 (an error finer than the step cannot show in any value the data
    holds); on values recorded in hundredths it stays ±0.9.

    Parameters
    ----------
    value : float
        A bound, finite and > 0 (in the data's units).
    step : float or None
        The data's resolution (:func:`resolution`); None when unknown (then only the
        rounding to ``digits`` applies).
    digits : int
        Significant digits kept (≥ 1).

    Examples
    --------
    ``(0.9, 1)`` → 1; ``(0.9, 0.01)`` → 0.9; ``(12.3, 1)`` → 13; ``(1234, 1000)`` → 2000;
    ``(0.0374, None)`` → 0.038.
    """
    v = float(value)
    if isinstance(value, bool) or not math.isfinite(v) or v <= 0:
        raise ValueError(f"value must be a finite number > 0; got {value!r}")
    if step is not None:
        s = float(step)
        if isinstance(step, bool) or not math.isfinite(s) or s <= 0:
            raise ValueError(f"step must be a finite number > 0 or None; got {step!r}")
        v = max(v, s)
    if isinstance(digits, bool) or not isinstance(digits, int) or digits < 1:
        raise ValueError(f"digits must be a whole number ≥ 1; got {digits!r}")
    unit = 10.0 ** (math.floor(math.log10(v)) - digits + 1)
    if step is not None:
        unit = max(unit, float(step))
    # A quotient a rounding above a whole number (0.3 / 0.1) is that whole number.
    count = math.ceil(v / unit * (1.0 - 4.0 * np.finfo(np.float64).eps))
    return float(f"{count * unit:.12g}")
