"""Closeness and shorthands shared by the tests of :mod:`core.sensitivity`."""

from __future__ import annotations

import math

from core import sensitivity as cs

RTOL = 1e-12
# Values below ~1e-300 may be subnormal; there only absolute agreement is meaningful.
ATOL = 1e-300


def close(a: float, b: float, rtol: float = RTOL) -> bool:
    return abs(a - b) <= rtol * max(abs(a), abs(b)) + ATOL


def assert_close(a: float, b: float, rtol: float = RTOL) -> None:
    assert close(a, b, rtol), f"{a!r} != {b!r} (rel diff {abs(a - b) / max(abs(b), 1e-300):.3g})"


def fast(values, eps, delta, lower, upper):
    return cs.smooth_sensitivity_median(values, eps, delta, lower, upper)


def eps_for_beta(beta: float, delta: float) -> float:
    return beta * 2.0 * math.log(2.0 / delta)
