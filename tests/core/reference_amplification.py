"""Slow, obviously correct reference for core.amplification, in 60-digit mpmath.

Every function evaluates the textbook formula literally (no log1p/expm1 tricks), on the
exact value of its float arguments, with 60 significant digits, and rounds the result to
a float only at the end.  Cancellation in the textbook forms costs at most ~30 of those
digits for the arguments used in the tests (eps >= 1e-12, rate <= 1 - 1e-16), which
leaves the reference far more accurate than a double.

Scalars only: these are called point by point from the tests.
"""

from __future__ import annotations

import mpmath
from mpmath import mp, mpf

DIGITS = 60


def _mp(x: float) -> mpf:
    # mpf(float) is exact: the binary value of the double is kept.
    return mpf(float(x))


def eps_sample(eps: float, rate: float) -> float:
    """log(1 + (e^eps - 1) / rate)  (Hu et al., Theorem 1 inverted)."""
    with mp.workdps(DIGITS):
        e, p = _mp(eps), _mp(rate)
        return float(mpmath.log(1 + (mpmath.exp(e) - 1) / p))


def eps_sample_mp(eps: float, rate: float) -> mpf:
    """Same as eps_sample, kept as a 60-digit mpf (caller must be inside workdps)."""
    e, p = _mp(eps), _mp(rate)
    return mpmath.log(1 + (mpmath.exp(e) - 1) / p)


def eps_target(eps_s: float, rate: float) -> float:
    """log(1 + rate (e^eps_s - 1))  (Hu et al., Theorem 1)."""
    with mp.workdps(DIGITS):
        e, p = _mp(eps_s), _mp(rate)
        return float(mpmath.log(1 + p * (mpmath.exp(e) - 1)))


def delta_sample(delta: float, rate: float) -> float:
    with mp.workdps(DIGITS):
        return float(_mp(delta) / _mp(rate))


def delta_target(delta: float, rate: float) -> float:
    with mp.workdps(DIGITS):
        return float(_mp(delta) * _mp(rate))


def noise_variance_ratio(eps: float, rate: float) -> float:
    """r = (rate * eps_sample / eps)^2  (Hu et al., eq. 8)."""
    with mp.workdps(DIGITS):
        s = _mp(rate) * eps_sample_mp(eps, rate) / _mp(eps)
        return float(s**2)


def noise_variance_gap(eps: float, rate: float) -> float:
    """1 - r, by subtraction at 60 digits."""
    with mp.workdps(DIGITS):
        s = _mp(rate) * eps_sample_mp(eps, rate) / _mp(eps)
        return float(1 - s**2)


def sampling_variance_bound(eps: float, rate: float) -> float:
    """q = 1 - (eps / eps_sample)^2  (Hu et al., Section 4.1)."""
    with mp.workdps(DIGITS):
        return float(1 - (_mp(eps) / eps_sample_mp(eps, rate)) ** 2)


def rate_for_q(eps: float, q: float) -> float:
    """(e^eps - 1) / (e^eps_s - 1) with eps_s = eps / sqrt(1 - q)."""
    with mp.workdps(DIGITS):
        e = _mp(eps)
        es = e / mpmath.sqrt(1 - _mp(q))
        return float((mpmath.exp(e) - 1) / (mpmath.exp(es) - 1))


def rate_for_eps_sample(eps_t: float, eps_s: float) -> float:
    """(e^eps_t - 1) / (e^eps_s - 1)."""
    with mp.workdps(DIGITS):
        return float((mpmath.exp(_mp(eps_t)) - 1) / (mpmath.exp(_mp(eps_s)) - 1))


def steinke_ratio(eps: float, p: float) -> float:
    """p * eps_p / eps  (Steinke, eq. 5)."""
    with mp.workdps(DIGITS):
        return float(_mp(p) * eps_sample_mp(eps, p) / _mp(eps))


def steinke_floor(c: float) -> float:
    """log(1 + c) / c, and its limit 1 at c = 0  (Steinke, eq. 6)."""
    if c == 0:
        return 1.0
    with mp.workdps(DIGITS):
        cc = _mp(c)
        # mpmath.log1p rather than log(1 + c): 1 + 1e-300 would round away c at 60 digits.
        return float(mpmath.log1p(cc) / cc)
