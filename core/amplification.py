"""Privacy amplification by sampling and the noise-variance quantities built on it.

A mechanism that spends ``eps_sample`` on a secret simple random sample of ``n`` out of
``N`` records (or on a Poisson sample with inclusion probability ``rate``) protects the
population with the smaller ``eps_target``.  This module converts between the two
budgets and derives the accuracy quantities of Hu, Drechsler & Kim and of Steinke:

* Hu, Drechsler & Kim, "Accuracy gains from privacy amplification through sampling",
  Theorem 1 (Section 3): ``eps_target = log(1 + rate * (exp(eps_sample) - 1))`` and
  ``delta_target = rate * delta_sample``;
  Section 4.1: the bound ``q`` on the sampling variance;
  Section 4.2, equation (8): the Laplace noise-variance ratio ``r``.
* Steinke, "Limits of privacy amplification by subsampling": the ratio
  ``p * eps_p / eps`` (equation 5) and its floor ``log(1 + c) / c`` (equation 6).

Naming: ``eps_target`` is the guarantee for the population, ``eps_sample`` the budget
spent on the sample, ``rate`` is n/N (or the Poisson inclusion probability p).

Numerics
--------
Everything is written around the *excess* ``L = eps_sample - eps_target``, which has the
exact closed form::

    L = log1p(v),    v = (1 - rate) * (1 - exp(-eps_target)) / rate.

It follows from ``1 + (e^eps - 1)/rate = e^eps * (1 + (1 - rate)(1 - e^-eps)/rate)``.
Both factors of ``v`` are computed without cancellation (``-expm1(-eps)``, and
``1 - rate`` is exact for rate >= 1/2), ``v`` only overflows for subnormal rates (a
logarithmic fallback covers them), and ``eps_sample = eps_target + L`` is a sum of two
non-negative terms, so it is accurate to a few units in the last place from
``eps = 1e-300`` to ``eps = 1e300`` and for every rate in (0, 1].  The same ``L`` gives
cancellation-free forms of ``q``, of ``1 - sqrt(r)`` and of ``1 - r`` (see the private
helpers), which matter where those quantities round to 0 or 1.

All public functions broadcast their arguments with numpy rules; they return a Python
``float`` when every argument is a scalar and an ``ndarray`` otherwise.  Invalid
arguments raise ``ValueError`` naming the argument, the allowed range and the bad value.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from ._validation import (
    FloatArray,
    FloatOrArray,
    all_scalar,
    as_float_array,
    broadcast,
    check_eps,
    check_interval,
    check_nonnegative,
    check_rate,
    check_whole,
    elementwise,
    finish,
    require,
)

__all__ = [
    "delta_sample",
    "delta_target",
    "eps_for_noise_gap",
    "eps_sample",
    "eps_target",
    "noise_variance_gap",
    "noise_variance_ratio",
    "rate_for_eps_sample",
    "rate_for_q",
    "sample_size",
    "sampling_variance_bound",
    "steinke_floor",
    "steinke_ratio",
]


# Above this exponent exp() of a double is close to overflowing (exp(709.78) = max float).
_EXP_SAFE = 700.0
# Series thresholds and lengths for the two Taylor series in _sqrt_ratio_gap; the term
# counts keep the truncation error below 1e-17 relative on each range.
_X_SERIES_MAX = 1.0
_X_SERIES_TERMS = 20
_V_SERIES_MAX = 0.1
_V_SERIES_TERMS = 18


# ---------------------------------------------------------------------------------------
# Validation helpers
# ---------------------------------------------------------------------------------------


# ---------------------------------------------------------------------------------------
# Numerical kernels (flat float64 arrays in, flat arrays out; arguments already valid)
# ---------------------------------------------------------------------------------------


def _excess_parts(eps: FloatArray, rate: FloatArray) -> tuple[FloatArray, ...]:
    """Return ``(b, c, v, L)`` for the target budget ``eps`` and ``rate``.

    ``b = 1 - exp(-eps)``, ``c = 1 - rate``, ``v = c * b / rate`` and
    ``L = log1p(v) = eps_sample - eps``.  ``v`` may be ``inf`` for subnormal rates; ``L``
    is then taken from ``log(c * b) - log(rate)``, which is exact to rounding there.
    """
    b = -np.expm1(-eps)
    c = 1.0 - rate
    cb = c * b
    with np.errstate(over="ignore"):
        v = cb / rate
    L = np.log1p(v)
    huge = np.isinf(v)
    if huge.any():
        L[huge] = np.log(cb[huge]) - np.log(rate[huge])
    return b, c, v, L


def _poly(x: FloatArray, coefficients: FloatArray) -> FloatArray:
    """Evaluate sum_k coefficients[k] * x**k by Horner's rule."""
    out = np.full_like(x, coefficients[-1])
    for coef in coefficients[-2::-1]:
        out = out * x + coef
    return out


# (x + expm1(-x)) / x**2 = sum_{k>=2} (-x)^(k-2) / k!
_A_COEFFS = np.array(
    [(-1.0) ** j / math.factorial(j + 2) for j in range(_X_SERIES_TERMS)], dtype=np.float64
)
# (v - log1p(v)) / v**2 = sum_{k>=2} (-v)^(k-2) / k
_B_COEFFS = np.array([(-1.0) ** j / (j + 2) for j in range(_V_SERIES_TERMS)], dtype=np.float64)


def _sqrt_ratio_gap(eps: FloatArray, rate: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Return ``(gap, L)`` with ``gap = 1 - rate * eps_sample / eps`` (i.e. 1 - sqrt(r)).

    With ``x = eps``, ``b = 1 - e^-x``, ``c = 1 - rate`` and ``v = c b / rate``::

        x - rate * eps_sample = c x - rate log1p(v) = c (x - b) + rate (v - log1p(v)),

    because ``rate * v = c b``.  Both terms are non-negative, so their sum is free of
    cancellation.  Each term is itself evaluated without cancellation: ``x - b`` and
    ``v - log1p(v)`` by their Taylor series when ``x`` or ``v`` is small, directly
    otherwise.  For small ``eps / rate`` this gives ``gap ~ eps (1/rate - 1) / 2``.
    """
    x = eps
    b, c, v, L = _excess_parts(x, rate)
    gap = np.empty_like(x)

    # First term: c * (x - b) / x.
    small_x = x < _X_SERIES_MAX
    xs = x[small_x]
    term1 = np.empty_like(x)
    term1[small_x] = c[small_x] * xs * _poly(xs, _A_COEFFS)
    xl = x[~small_x]
    term1[~small_x] = c[~small_x] * (xl + np.expm1(-xl)) / xl

    # Second term: rate * (v - log1p(v)) / x.
    small_v = v < _V_SERIES_MAX
    term2 = np.empty_like(x)
    vs = v[small_v]
    # rate * v**2 / x = v * c * (b / x); b / x is accurate for every x > 0.
    term2[small_v] = vs * c[small_v] * (b[small_v] / x[small_v]) * _poly(vs, _B_COEFFS)
    big = ~small_v
    term2[big] = (c[big] * b[big] - rate[big] * L[big]) / x[big]

    gap[:] = term1 + term2
    return gap, L


def _sqrt_ratio(eps: FloatArray, rate: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Return ``(s, gap)``: ``s = rate * eps_sample / eps`` and ``gap = 1 - s``.

    ``s`` is taken as ``1 - gap`` when ``s >= 1/2`` (so it never exceeds 1 through
    rounding) and from the direct product otherwise (keeping small ``s`` accurate).
    """
    gap, L = _sqrt_ratio_gap(eps, rate)
    direct = rate * (eps + L) / eps
    s = np.where(gap <= 0.5, 1.0 - gap, direct)
    return s, gap


def _eps_sample_kernel(eps: FloatArray, rate: FloatArray) -> FloatArray:
    return eps + _excess_parts(eps, rate)[3]


def _eps_target_kernel(eps_s: FloatArray, rate: FloatArray) -> FloatArray:
    out = np.empty_like(eps_s)
    moderate = eps_s <= _EXP_SAFE
    es, rs = eps_s[moderate], rate[moderate]
    out[moderate] = np.log1p(rs * np.expm1(es))
    el, rl = eps_s[~moderate], rate[~moderate]
    with np.errstate(divide="ignore"):
        # log(rate e^eps_s + (1 - rate)); log1p(-1) = -inf is harmless in logaddexp.
        out[~moderate] = np.logaddexp(el + np.log(rl), np.log1p(-rl))
    # Sampling everything changes nothing: keep rate = 1 exact.
    return np.where(rate == 1.0, eps_s, out)


def _expm1_ratio(a: FloatArray, d: FloatArray, d_lo: FloatArray | None = None) -> FloatArray:
    """Return ``expm1(a) / expm1(a + d)`` for ``a > 0``, ``d >= 0`` without overflow.

    Written as ``exp(-d) * expm1(-a) / expm1(-(a + d))``; ``d_lo`` is an optional
    low-order correction to ``d`` (``d + d_lo`` is the exact difference).
    """
    with np.errstate(over="ignore"):
        total = a + d
    scale = np.exp(-d)
    if d_lo is not None:
        scale = scale * np.exp(-d_lo)
    return scale * np.expm1(-a) / np.expm1(-total)


def _rate_for_eps_sample_kernel(eps_t: FloatArray, eps_s: FloatArray) -> FloatArray:
    out = np.empty_like(eps_t)
    moderate = eps_s <= _EXP_SAFE
    out[moderate] = np.expm1(eps_t[moderate]) / np.expm1(eps_s[moderate])
    a, bs = eps_t[~moderate], eps_s[~moderate]
    # Error-free difference (TwoSum): d_hi + d_lo == bs - a exactly.
    d_hi = bs - a
    bb = d_hi - bs
    d_lo = (bs - (d_hi - bb)) + (-a - bb)
    out[~moderate] = _expm1_ratio(a, d_hi, d_lo)
    return out


def _rate_for_q_kernel(eps: FloatArray, q: FloatArray) -> FloatArray:
    w = np.sqrt(1.0 - q)
    # d = eps_sample - eps = eps (1/w - 1) = eps q / (w (1 + w)): no cancellation near q = 0.
    with np.errstate(over="ignore", divide="ignore"):
        d = eps * q / (w * (1.0 + w))
    return _expm1_ratio(eps, d)


# ---------------------------------------------------------------------------------------
# Public API
# ---------------------------------------------------------------------------------------


def eps_sample(eps_target: ArrayLike, rate: ArrayLike) -> FloatOrArray:
    """Budget a mechanism may spend on the sample so that the population gets ``eps_target``.

    Inverts Theorem 1 of Hu, Drechsler & Kim (Section 3; Li et al. 2012, Balle et al.
    2020) for simple random sampling without replacement at ``rate = n/N`` (the same
    formula holds for Poisson sampling with inclusion probability ``rate``)::

        eps_sample = log(1 + (exp(eps_target) - 1) / rate).

    Parameters
    ----------
    eps_target : float or array_like
        Privacy loss promised for the population, finite and > 0.
    rate : float or array_like
        Sampling rate n/N in (0, 1].

    Returns
    -------
    float or numpy.ndarray
        ``eps_sample >= eps_target``, with equality at ``rate = 1``.

    Notes
    -----
    Computed as ``eps_target + log1p((1 - rate) * (1 - exp(-eps_target)) / rate)``, an
    algebraically identical sum of two non-negative terms (for ``eps > 1`` it is the
    familiar ``eps - log(rate) + log1p(-(1 - rate) exp(-eps))`` with the logarithms
    merged).  It never overflows: at ``eps_target = 1000`` and ``rate = 1e-9`` it returns
    ``1000 + log(1e9)``, and at ``eps_target = 1e-12`` it keeps full relative precision.

    Examples
    --------
    >>> round(eps_sample(1.0, 0.01), 2)  # Hu et al., Section 3: a 1 % sample
    5.15
    """
    scalar = all_scalar(eps_target, rate)
    e, r = broadcast(eps_target=check_eps("eps_target", eps_target), rate=check_rate("rate", rate))
    return finish(elementwise(_eps_sample_kernel, e, r), scalar)


def eps_target(eps_sample: ArrayLike, rate: ArrayLike) -> FloatOrArray:
    """Population guarantee obtained by spending ``eps_sample`` on a secret sample.

    Theorem 1 of Hu, Drechsler & Kim (Section 3), amplification by sampling::

        eps_target = log(1 + rate * (exp(eps_sample) - 1)).

    Parameters
    ----------
    eps_sample : float or array_like
        Privacy loss of the mechanism run on the sample, finite and > 0.
    rate : float or array_like
        Sampling rate n/N in (0, 1].

    Returns
    -------
    float or numpy.ndarray
        ``eps_target <= eps_sample``, with equality at ``rate = 1``.

    Notes
    -----
    ``log1p(rate * expm1(eps_sample))`` for ``eps_sample <= 700``; beyond, where
    ``exp`` would overflow, ``logaddexp(eps_sample + log(rate), log1p(-rate))``, which is
    ``log(rate e^eps_sample + 1 - rate)`` evaluated in the log domain.  This is the exact
    inverse of :func:`eps_sample` up to rounding (about 1e-15 relative).
    """
    scalar = all_scalar(eps_sample, rate)
    e, r = broadcast(eps_sample=check_eps("eps_sample", eps_sample), rate=check_rate("rate", rate))
    return finish(elementwise(_eps_target_kernel, e, r), scalar)


def delta_sample(delta_target: ArrayLike, rate: ArrayLike) -> FloatOrArray:
    """Failure probability the sample mechanism may have: ``delta_target / rate``.

    Theorem 1 of Hu, Drechsler & Kim (Section 3) gives ``delta_target = rate *
    delta_sample``; this is its inverse.

    Parameters
    ----------
    delta_target : float or array_like
        Failure probability promised for the population, in [0, 1).
    rate : float or array_like
        Sampling rate n/N in (0, 1].

    Returns
    -------
    float or numpy.ndarray
        ``delta_target / rate``.  The value is deliberately not capped: a result >= 1
        means that the sample mechanism is unconstrained in delta (every mechanism is
        (eps, 1)-DP), i.e. the target delta is met by sampling alone.  For subnormal
        rates (below ~1e-308) the quotient may overflow to ``inf``, which means the same.
    """
    scalar = all_scalar(delta_target, rate)
    d, r = broadcast(
        delta_target=check_interval("delta_target", delta_target, 0.0, 1.0, high_open=True),
        rate=check_rate("rate", rate),
    )
    with np.errstate(over="ignore"):
        return finish(d / r, scalar)


def delta_target(delta_sample: ArrayLike, rate: ArrayLike) -> FloatOrArray:
    """Population failure probability when the sample mechanism has ``delta_sample``.

    Theorem 1 of Hu, Drechsler & Kim (Section 3)::

        delta_target = rate * delta_sample.

    Parameters
    ----------
    delta_sample : float or array_like
        Failure probability of the mechanism run on the sample: finite and >= 0.  Values
        >= 1 are accepted because :func:`delta_sample` can return them (they mean "no
        constraint"); the product is then returned as is, without capping, so that the
        two functions stay exact inverses.
    rate : float or array_like
        Sampling rate n/N in (0, 1].

    Returns
    -------
    float or numpy.ndarray
        ``rate * delta_sample``.
    """
    scalar = all_scalar(delta_sample, rate)
    d, r = broadcast(
        delta_sample=check_nonnegative("delta_sample", delta_sample),
        rate=check_rate("rate", rate),
    )
    return finish(r * d, scalar)


def noise_variance_ratio(eps_target: ArrayLike, rate: ArrayLike) -> FloatOrArray:
    """Ratio r of Laplace noise variances, population over sample (Hu et al. eq. 8).

    Section 4.2 of Hu, Drechsler & Kim, for the mean with global sensitivity R/N on
    the population and R/n on the sample::

        r(eps, n/N) = (rate * eps_sample / eps_target) ** 2,

    with ``eps_sample`` from :func:`eps_sample`.  ``r < 1`` means that the sample mean
    gets *more* noise than the population mean, so no accuracy gain is possible.

    Parameters
    ----------
    eps_target : float or array_like
        Privacy loss promised for the population, finite and > 0.
    rate : float or array_like
        Sampling rate n/N in (0, 1].

    Returns
    -------
    float or numpy.ndarray
        r in (0, 1]; it underflows to 0.0 only below ~1e-308, which needs rates below
        ~1e-150.  In exact arithmetic ``r < 1`` for every ``rate < 1``, because
        ``p * log(1 + (e^eps - 1)/p)`` increases in p and equals eps at p = 1.  Values
        that print as exactly 1 are floating-point rounding; use
        :func:`noise_variance_gap` for an accurate ``1 - r``.
    """
    scalar = all_scalar(eps_target, rate)
    e, r = broadcast(eps_target=check_eps("eps_target", eps_target), rate=check_rate("rate", rate))
    s = elementwise(lambda a, b: _sqrt_ratio(a, b)[0], e, r)
    return finish(s * s, scalar)


def noise_variance_gap(eps_target: ArrayLike, rate: ArrayLike) -> FloatOrArray:
    """``1 - r`` (Hu et al. eq. 8) computed without cancellation.

    With ``s = sqrt(r) = rate * eps_sample / eps_target``, ``1 - r = (1 - s)(1 + s)``
    and ``1 - s`` is evaluated through the identity::

        eps (1 - s) = (1 - rate) (eps - b) + rate (v - log1p(v)),
        b = 1 - exp(-eps),  v = (1 - rate) b / rate,

    whose two terms are non-negative (Taylor series for small ``eps`` or ``v``).  For
    small ``eps / rate`` this gives ``1 - s ~ eps (1/rate - 1) / 2``.  The result keeps
    full relative precision where ``r`` itself rounds to 1, e.g. about ``5e-13`` at
    ``eps = 1e-12``, ``rate = 1/2``; it is what a "r within tau of 1" frontier needs.

    Parameters
    ----------
    eps_target : float or array_like
        Privacy loss promised for the population, finite and > 0.
    rate : float or array_like
        Sampling rate n/N in (0, 1].

    Returns
    -------
    float or numpy.ndarray
        ``1 - r`` in [0, 1]: exactly 0 at ``rate = 1`` and > 0 for every ``rate < 1``
        (unless it underflows, which needs ``eps`` below about 1e-300).  It rounds to
        1.0 when ``r`` is below ~1e-16 (large eps at tiny rates).
    """
    scalar = all_scalar(eps_target, rate)
    e, r = broadcast(eps_target=check_eps("eps_target", eps_target), rate=check_rate("rate", rate))

    def kernel(a: FloatArray, b: FloatArray) -> FloatArray:
        gap = _sqrt_ratio_gap(a, b)[0]
        return gap * (2.0 - gap)

    return finish(elementwise(kernel, e, r), scalar)


def sampling_variance_bound(eps_target: ArrayLike, rate: ArrayLike) -> FloatOrArray:
    """Upper bound q on the sampling variance, as a fraction of V_N (Hu et al. Section 4.1).

    When the sensitivity does not grow on the sample, an accuracy gain ``V_n <= V_N``
    requires ``Var(g(S(Y_N))) <= q V_N`` with::

        q = 1 - (eps_target / eps_sample) ** 2.

    Parameters
    ----------
    eps_target : float or array_like
        Privacy loss promised for the population, finite and > 0.
    rate : float or array_like
        Sampling rate n/N in (0, 1].

    Returns
    -------
    float or numpy.ndarray
        q in [0, 1): 0 at ``rate = 1``.

    Notes
    -----
    With ``L = eps_sample - eps_target`` (see the module notes) and
    ``u = L / eps_sample = 1 - eps_target/eps_sample``, ``q = u (2 - u)``: accurate for
    ``rate`` near 1 where the textbook form cancels.  When ``eps_target/eps_sample`` is
    below ~1e-8 (tiny eps at tiny rates) q rounds to 1.0 although it is < 1 exactly.
    """
    scalar = all_scalar(eps_target, rate)
    e, r = broadcast(eps_target=check_eps("eps_target", eps_target), rate=check_rate("rate", rate))

    def kernel(a: FloatArray, b: FloatArray) -> FloatArray:
        L = _excess_parts(a, b)[3]
        u = L / (a + L)
        return u * (2.0 - u)

    return finish(elementwise(kernel, e, r), scalar)


def rate_for_q(eps_target: ArrayLike, q: ArrayLike) -> FloatOrArray:
    """Sampling rate at which the bound q of Hu et al. Section 4.1 takes a given value.

    Solving ``q = 1 - (eps/eps_sample)^2`` gives ``eps_sample = eps / sqrt(1 - q)`` and,
    through Theorem 1, ::

        rate = (exp(eps) - 1) / (exp(eps_sample) - 1).

    q decreases as the rate grows, so at every rate below the returned one the bound
    exceeds the given q.  Hu et al. read it as: if the sampling variance is ``q V_N``,
    accuracy gains need a rate below this value (16.77 % for eps = 3 and 61.4 % for
    eps = 0.1 at q = 0.6).

    Parameters
    ----------
    eps_target : float or array_like
        Privacy loss promised for the population, finite and > 0.
    q : float or array_like
        Fraction of V_N in [0, 1); q = 0 gives rate 1.

    Returns
    -------
    float or numpy.ndarray
        Rate in (0, 1]; it underflows to 0.0 when the exact rate is below ~1e-308.

    Notes
    -----
    With ``d = eps_sample - eps = eps q / (sqrt(1-q) (1 + sqrt(1-q)))`` (no cancellation
    at small q) the rate is ``exp(-d) expm1(-eps) / expm1(-eps - d)``, which cannot
    overflow.  Its relative error is about ``d`` units in the last place, which is
    inherent: ``d`` itself cannot be represented more precisely.
    """
    scalar = all_scalar(eps_target, q)
    e, qq = broadcast(
        eps_target=check_eps("eps_target", eps_target),
        q=check_interval("q", q, 0.0, 1.0, high_open=True, meaning="a fraction of the variance"),
    )
    return finish(elementwise(_rate_for_q_kernel, e, qq), scalar)


def rate_for_eps_sample(eps_target: ArrayLike, eps_sample: ArrayLike) -> FloatOrArray:
    """Sampling rate at which spending ``eps_sample`` on the sample meets ``eps_target``.

    Theorem 1 of Hu, Drechsler & Kim (Section 3) solved for the rate::

        rate = (exp(eps_target) - 1) / (exp(eps_sample) - 1).

    Parameters
    ----------
    eps_target : float or array_like
        Privacy loss promised for the population, finite and > 0.
    eps_sample : float or array_like
        Privacy loss of the sample mechanism, finite and >= ``eps_target``.

    Returns
    -------
    float or numpy.ndarray
        Rate in (0, 1] (1 when the budgets are equal); it underflows to 0.0 when the
        exact rate is below ~1e-308.

    Notes
    -----
    ``expm1(eps_target) / expm1(eps_sample)`` for ``eps_sample <= 700``; beyond,
    ``exp(-(eps_sample - eps_target)) expm1(-eps_target) / expm1(-eps_sample)`` with the
    difference taken exactly (two-sum), so no overflow and no loss of accuracy.
    """
    scalar = all_scalar(eps_target, eps_sample)
    et, es = broadcast(
        eps_target=check_eps("eps_target", eps_target),
        eps_sample=check_eps("eps_sample", eps_sample),
    )
    bad = es < et
    if bad.any():
        i = np.flatnonzero(bad.reshape(-1))[0]
        where = "" if bad.ndim == 0 else f" at index {np.unravel_index(i, bad.shape)}"
        raise ValueError(
            "eps_sample must be >= eps_target (sampling can only lower the privacy loss); "
            f"got eps_sample={float(es.reshape(-1)[i])!r} < "
            f"eps_target={float(et.reshape(-1)[i])!r}{where}"
        )
    return finish(elementwise(_rate_for_eps_sample_kernel, et, es), scalar)


def steinke_ratio(eps: ArrayLike, p: ArrayLike) -> FloatOrArray:
    """Steinke's ratio ``p * eps_p / eps`` (his equation 5).

    ``eps_p = log(1 + (e^eps - 1)/p)`` is the budget a Poisson-subsampled mechanism may
    spend (:func:`eps_sample`).  The subsampled Laplace mechanism adds ``1/ratio`` times
    the noise of the mechanism run on everything, so 1 means amplification is free.  It
    is ``sqrt(r)`` of :func:`noise_variance_ratio`.

    Parameters
    ----------
    eps : float or array_like
        Privacy loss promised for the whole data set, finite and > 0.
    p : float or array_like
        Inclusion probability in (0, 1].

    Returns
    -------
    float or numpy.ndarray
        Ratio in (0, 1]: 1 at p = 1, tends to 1 as eps -> 0 for fixed p, and is at least
        :func:`steinke_floor` ``(c)`` whenever ``eps <= c p``.
    """
    scalar = all_scalar(eps, p)
    e, pp = broadcast(eps=check_eps("eps", eps), p=check_rate("p", p))
    return finish(elementwise(lambda a, b: _sqrt_ratio(a, b)[0], e, pp), scalar)


def steinke_floor(c: ArrayLike) -> FloatOrArray:
    """Steinke's floor ``log(1 + c) / c`` on the ratio when ``eps = c p`` (his equation 6).

    It is the infimum of :func:`steinke_ratio` over p in (0, 1] with ``eps = c p``, so
    the subsampled Laplace mechanism adds at most ``c / log(1 + c)`` times the noise of
    the full-data mechanism whenever ``eps <= c p``.

    Parameters
    ----------
    c : float or array_like
        Constant of proportionality, finite and >= 0.  ``c = 0`` returns the limit 1.

    Returns
    -------
    float or numpy.ndarray
        ``log1p(c) / c`` in (0, 1].
    """
    scalar = all_scalar(c)
    cc = check_nonnegative("c", c)

    def kernel(x: FloatArray) -> FloatArray:
        out = np.ones_like(x)
        nz = x > 0
        out[nz] = np.log1p(x[nz]) / x[nz]
        return out

    return finish(elementwise(kernel, cc), scalar)


#: Search interval (log10 of eps) for :func:`eps_for_noise_gap`.
_GAP_LOG10_EPS = (-300.0, 3.0)
_GAP_BISECTIONS = 80


def eps_for_noise_gap(rate: ArrayLike, tau: ArrayLike) -> FloatOrArray:
    """The largest ``eps_target`` with ``1 - r(eps_target, rate) <= tau`` (Hu et al. eq. 8).

    Hu, Drechsler & Kim (Figure 5) plot the pairs (eps, n/N) where ``r = 1``.  In exact
    arithmetic ``r < 1`` for every rate below 1, so that frontier only exists in floating
    point.  This function draws it honestly: for a tolerance ``tau`` it returns the eps
    below which the sample's Laplace noise variance is within a factor ``1 - tau`` of the
    population's (``r >= 1 - tau``).  ``1 - r`` increases with eps (Steinke's ratio
    ``sqrt(r)`` falls as eps grows), so the frontier is found by bisection on ``log10 eps``
    over [1e-300, 1e3] using the cancellation-free :func:`noise_variance_gap`.

    For small eps, ``1 - r ~ eps (1/rate - 1)``, so the frontier is close to
    ``tau * rate / (1 - rate)``.

    Parameters
    ----------
    rate : float or array_like
        Sampling rate n/N in (0, 1).  At rate 1 the gap is 0 for every eps, and ``inf``
        is returned.
    tau : float or array_like
        Tolerance in (0, 1).

    Returns
    -------
    float or numpy.ndarray
        The frontier eps (relative accuracy ~1e-15 from the bisection), ``inf`` at rate 1,
        and 1e3 when even eps = 1e3 keeps the gap below ``tau``.
    """
    scalar = all_scalar(rate, tau)
    rr = check_rate("rate", rate)
    tt = as_float_array("tau", tau)
    require("tau", tt, (tt > 0) & (tt < 1), "in the interval (0, 1)")
    r, t = broadcast(rate=rr, tau=tt)
    r = r.astype(np.float64).ravel()
    t = t.astype(np.float64).ravel()
    lo = np.full(r.shape, _GAP_LOG10_EPS[0])
    hi = np.full(r.shape, _GAP_LOG10_EPS[1])
    inner = r < 1.0
    for _ in range(_GAP_BISECTIONS):
        mid = 0.5 * (lo + hi)
        gap = np.zeros_like(mid)
        if inner.any():
            gap[inner] = np.asarray(noise_variance_gap(10.0 ** mid[inner], r[inner]))
        below = gap <= t
        lo = np.where(below, mid, lo)
        hi = np.where(below, hi, mid)
    out = 10.0**lo
    out[~inner] = np.inf
    shape = np.broadcast_shapes(np.shape(rr), np.shape(tt))
    return finish(out.reshape(shape), scalar)


def sample_size(N: int, rate: float) -> int:
    """Sample size for a sampling rate: ``n = round(rate · N)``, kept between 1 and ``N``.

    The sampling rate ``rate = n/N`` of Hu, Drechsler & Kim (2023), §3, turned back into a
    whole number of records; both the accuracy experiments (:mod:`core.gains`) and the
    statistical-privacy pages (:mod:`core.statistical`, where it is ``m = round(λ n)``)
    use this one rounding.

    Parameters
    ----------
    N : int
        Population size, a whole number ≥ 1.
    rate : float
        Sampling rate in (0, 1].

    Returns
    -------
    int
        ``min(N, max(1, round(rate · N)))`` (Python's round: halves go to the even number).

    Raises
    ------
    ValueError
        If ``N`` is not a whole number ≥ 1 or ``rate`` lies outside (0, 1].
    """
    big_n = check_whole("N", N, 1, 2**53)
    r = float(check_rate("rate", rate))
    if np.ndim(rate) != 0:
        raise ValueError(f"rate must be a single number; got {rate!r}")
    return int(min(big_n, max(1, round(r * big_n))))
