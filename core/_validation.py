"""Argument checks shared by every core module: one contract, one wording.

Contract
--------
* **Scalars in, Python floats out; arrays broadcast.** Array checks (:func:`as_float_array`,
  :func:`check_eps`, :func:`check_rate`, …) return a float64 ``ndarray`` of the argument's
  own shape; a function evaluates on the :func:`broadcast` arrays and hands its result to
  :func:`finish`, which gives a Python ``float`` when every argument was a scalar
  (:func:`all_scalar`) and a fresh float64 ``ndarray`` otherwise.
* **Scalar checks return Python numbers** (:func:`finite_scalar`, :func:`check_whole`,
  :func:`check_seed`, :func:`check_bounds`).
* **Booleans are not numbers.** ``True`` is refused wherever a number is expected, so a
  mis-wired toggle cannot pass as a rate of 1.

Wording
-------
Every message reads ``"<name> must be <what is allowed>; got <offending value>"``; for an
array the first offending entry is named with its index, and when several entries are bad
their count is added: ``"eps_sample must be a finite number > 0; got -1.0 at index 2 (3 of 5
values are invalid)"``. The messages are meant to be shown to a user as they are.

This module is private to ``core``: it depends on numpy only and holds no mathematics.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Iterable
from typing import Any, TypeAlias

import numpy as np
from numpy.typing import ArrayLike, NDArray

FloatArray: TypeAlias = NDArray[np.float64]
FloatOrArray: TypeAlias = float | FloatArray

#: Largest whole number a float64 holds exactly (2^53); counts above it are refused.
MAX_EXACT_COUNT: float = float(2**53)


# ---------------------------------------------------------------------------------------
# Message pieces
# ---------------------------------------------------------------------------------------


def plural(n: int, noun: str) -> str:
    """``'1 row'``, ``'12 rows'``, ``'1,234 rows'`` (regular plurals only)."""
    return f"{n:,} {noun}" if n == 1 else f"{n:,} {noun}s"


def quoted(x: Any, limit: int = 40) -> str:
    """Quoted text cut to ``limit`` characters (column names can be arbitrarily long)."""
    text = str(x)
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return repr(text)


def number_text(x: float) -> str:
    """A short readable number: ``2,000`` for whole numbers, six significant digits else,
    ``∞`` for infinity (no public upper bound)."""
    x = float(x)
    if math.isinf(x):
        return "∞" if x > 0 else "−∞"
    if x == int(x) and abs(x) < 1e15:
        return f"{int(x):,}"
    return f"{x:.6g}"


def describe_bad(arr: FloatArray, bad: NDArray[np.bool_]) -> str:
    """``"got <value>[ at index <i>][ (k of m values are invalid)]"`` for the first bad entry."""
    flat_bad = np.flatnonzero(np.asarray(bad).reshape(-1))
    first = float(arr.reshape(-1)[flat_bad[0]])
    if arr.ndim == 0:
        return f"got {first!r}"
    index = np.unravel_index(flat_bad[0], arr.shape)
    where = int(index[0]) if len(index) == 1 else tuple(int(i) for i in index)
    more = f" ({flat_bad.size} of {arr.size} values are invalid)" if flat_bad.size > 1 else ""
    return f"got {first!r} at index {where}{more}"


# ---------------------------------------------------------------------------------------
# Arrays (broadcasting functions)
# ---------------------------------------------------------------------------------------


def _is_bool(value: object) -> bool:
    return isinstance(value, bool | np.bool_) or (
        isinstance(value, np.ndarray) and value.dtype == np.bool_
    )


def as_float_array(name: str, value: ArrayLike) -> FloatArray:
    """``value`` as a float64 array; ValueError naming ``name`` if it is not numeric."""
    if _is_bool(value):
        raise ValueError(f"{name} must be a number, not a boolean; got {value!r}")
    try:
        return np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be a number or an array of numbers; got {value!r}") from exc


def require(name: str, arr: FloatArray, ok: ArrayLike, allowed: str) -> FloatArray:
    """Return ``arr`` if every entry of ``ok`` is true, else raise the standard message."""
    good = np.asarray(ok)
    if arr.size and not good.all():
        raise ValueError(f"{name} must be {allowed}; {describe_bad(arr, ~good)}")
    return arr


def check_array(
    name: str, value: ArrayLike, test: Callable[[FloatArray], ArrayLike], allowed: str
) -> FloatArray:
    """:func:`as_float_array` then :func:`require` with ``test(arr)`` as the condition."""
    arr = as_float_array(name, value)
    with np.errstate(invalid="ignore"):
        ok = test(arr)
    return require(name, arr, ok, allowed)


def check_eps(name: str, value: ArrayLike) -> FloatArray:
    """A privacy-loss parameter (ε_sample or ε_target): finite and > 0."""
    return check_array(name, value, lambda a: np.isfinite(a) & (a > 0), "a finite number > 0")


def check_nonnegative(name: str, value: ArrayLike) -> FloatArray:
    """A finite number ≥ 0."""
    return check_array(name, value, lambda a: np.isfinite(a) & (a >= 0), "a finite number ≥ 0")


def check_rate(name: str, value: ArrayLike) -> FloatArray:
    """A sampling rate n/N (or an inclusion probability) in (0, 1]."""
    return check_array(
        name, value, lambda a: (a > 0) & (a <= 1), "in the interval (0, 1] (a sampling rate n/N)"
    )


def check_interval(
    name: str,
    value: ArrayLike,
    low: float,
    high: float,
    *,
    low_open: bool = False,
    high_open: bool = False,
    meaning: str = "",
) -> FloatArray:
    """Numbers in the interval from ``low`` to ``high``, ends closed unless said open."""

    def test(a: FloatArray) -> NDArray[np.bool_]:
        above = a > low if low_open else a >= low
        below = a < high if high_open else a <= high
        return above & below

    text = f"{'(' if low_open else '['}{low:g}, {high:g}{')' if high_open else ']'}"
    suffix = f" ({meaning})" if meaning else ""
    return check_array(name, value, test, f"in the interval {text}{suffix}")


def check_count(
    name: str, value: ArrayLike, minimum: float, maximum: float = MAX_EXACT_COUNT
) -> FloatArray:
    """Whole numbers in ``[minimum, maximum]`` (counts of records or clusters), as float64."""
    return check_array(
        name,
        value,
        lambda a: np.isfinite(a) & (a >= minimum) & (a <= maximum) & (np.floor(a) == a),
        f"a whole number ≥ {minimum:g}",
    )


def broadcast(**named: FloatArray) -> tuple[FloatArray, ...]:
    """Broadcast checked arguments together, naming them and their shapes if they clash."""
    try:
        return tuple(np.broadcast_arrays(*named.values()))
    except ValueError as exc:
        shapes = ", ".join(f"{k} with shape {np.shape(v)}" for k, v in named.items())
        raise ValueError(f"arguments cannot be broadcast together: {shapes}") from exc


def all_scalar(*values: ArrayLike) -> bool:
    """True if every argument is zero-dimensional (a plain number)."""
    return all(np.ndim(v) == 0 for v in values)


def finish(result: ArrayLike, scalar: bool) -> FloatOrArray:
    """A Python float for scalar calls, a fresh float64 ndarray otherwise."""
    if scalar:
        return float(np.asarray(result, dtype=np.float64).reshape(-1)[0])
    return np.array(result, dtype=np.float64)


def elementwise(func: Callable[..., FloatArray], *args: FloatArray) -> FloatArray:
    """Apply a flat-array kernel to broadcast arrays of one shape and restore that shape."""
    shape = np.shape(args[0])
    flat = [np.ascontiguousarray(a, dtype=np.float64).reshape(-1) for a in args]
    return func(*flat).reshape(shape)


def check_vector(name: str, value: ArrayLike) -> FloatArray:
    """A non-empty one-dimensional array of numbers (data values, sizes, weights)."""
    arr = as_float_array(name, value)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional; got shape {arr.shape}")
    if arr.size == 0:
        raise ValueError(f"{name} must not be empty: at least one value is needed")
    return arr


def check_list(
    name: str, value: ArrayLike, test: Callable[[FloatArray], ArrayLike], allowed: str
) -> FloatArray:
    """A non-empty 1-d list of numbers passing ``test``; returned sorted without repeats."""
    arr = np.atleast_1d(as_float_array(name, value))
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"{name} must be a non-empty list of numbers {allowed}")
    require(name, arr, test(arr), allowed)
    return np.unique(arr)


def check_eps_list(name: str, value: ArrayLike) -> FloatArray:
    """A non-empty list of privacy parameters, each finite and > 0; sorted, no repeats."""
    return check_list(name, value, lambda a: np.isfinite(a) & (a > 0), "a finite number > 0")


def check_rate_list(name: str, value: ArrayLike) -> FloatArray:
    """A non-empty list of sampling rates, each in (0, 1]; sorted, no repeats."""
    return check_list(name, value, lambda a: (a > 0) & (a <= 1), "in the interval (0, 1]")


# ---------------------------------------------------------------------------------------
# Scalars
# ---------------------------------------------------------------------------------------


def finite_scalar(name: str, value: object) -> float:
    """A single finite number as a Python float."""
    if _is_bool(value):
        raise ValueError(f"{name} must be a number, not a boolean; got {value!r}")
    try:
        x = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be a number; got {value!r}") from exc
    if not math.isfinite(x):
        raise ValueError(f"{name} must be a finite number; got {value!r}")
    return x


def check_whole(name: str, value: object, lo: int, hi: int) -> int:
    """A whole number in ``[lo, hi]`` as a Python int.

    Integers (Python or numpy) and floats with no fractional part are accepted; booleans,
    text and fractions are refused.
    """
    if _is_bool(value) or isinstance(value, str | bytes):
        raise ValueError(f"{name} must be a whole number; got {value!r}")
    try:
        v = operator.index(value)  # type: ignore[arg-type]
    except TypeError:
        try:
            x = float(value)  # type: ignore[arg-type]
        except (TypeError, ValueError):
            raise ValueError(f"{name} must be a whole number; got {value!r}") from None
        if not math.isfinite(x) or x != math.floor(x):
            raise ValueError(f"{name} must be a whole number; got {value!r}") from None
        v = int(x)
    if not lo <= v <= hi:
        raise ValueError(f"{name} must be a whole number between {lo:,} and {hi:,}; got {v:,}")
    return v


def check_seed(seed: object, name: str = "seed") -> int:
    """A seed for ``numpy.random``: a whole number in ``[0, 2^63 − 1]``."""
    return check_whole(name, seed, 0, 2**63 - 1)


def check_rng(rng: object) -> np.random.Generator:
    """``rng`` itself, checked to be a ``numpy.random.Generator``."""
    if not isinstance(rng, np.random.Generator):
        raise ValueError(f"rng must be a numpy.random.Generator; got {type(rng).__name__}")
    return rng


def check_delta_open(name: str, value: object) -> float:
    """A failure probability δ strictly between 0 and 1, as a Python float."""
    x = finite_scalar(name, value)
    if not 0.0 < x < 1.0:
        raise ValueError(f"{name} must be in the interval (0, 1); got {value!r}")
    return x


def check_bounds(lower: object, upper: object) -> tuple[float, float]:
    """Public bounds: finite, ``lower < upper`` and ``upper − lower`` finite."""
    lo = finite_scalar("lower", lower)
    hi = finite_scalar("upper", upper)
    if not lo < hi:
        raise ValueError(f"lower must be < upper; got lower={lo!r}, upper={hi!r}")
    if not math.isfinite(hi - lo):
        raise ValueError(f"upper - lower must be finite; got lower={lo!r}, upper={hi!r}")
    return lo, hi


def check_bounds_or_no_upper(lower: object, upper: object) -> tuple[float, float]:
    """Public bounds as :func:`check_bounds`, except that ``upper`` may be ``+inf`` (no public
    upper bound: only a mechanism that needs none can use them)."""
    try:
        hi = float(upper)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        hi = math.nan
    if hi == math.inf:
        return finite_scalar("lower", lower), hi
    return check_bounds(lower, upper)


def check_choice(name: str, value: object, options: Iterable[str]) -> str:
    """One of the strings ``options``."""
    allowed = tuple(options)
    if not isinstance(value, str) or value not in allowed:
        listed = ", ".join(repr(o) for o in allowed)
        raise ValueError(f"{name} must be one of {listed}; got {value!r}")
    return value


def values_in_bounds(values: ArrayLike, lower: float, upper: float) -> FloatArray:
    """Data values: 1-d, finite, non-empty, inside the public bounds; a sorted copy.

    Values that arrive sorted (every :class:`core.population.Population`) are copied, not
    sorted again: a check and a copy cost a fraction of a sort at 10^7 values.
    """
    arr = check_vector("values", values)
    require("values", arr, np.isfinite(arr), "finite (no NaN or infinity)")
    out = arr.copy() if bool(np.all(arr[1:] >= arr[:-1])) else np.sort(arr)
    if out[0] < lower or out[-1] > upper:
        raise ValueError(
            f"values must lie inside the public bounds [{lower!r}, {upper!r}]; "
            f"found values in [{float(out[0])!r}, {float(out[-1])!r}]"
        )
    return out
