"""Amplification by sampling for a *changed* record, from a mechanism's two budgets.

A promise made for "change one person's record" (bounded DP, Hu, Drechsler & Kim's
relation) can be derived from the theorems proven for an added or removed record (Bun et
al., "Controlling privacy loss in sampling schemes") by group privacy: a change is a
removal followed by an addition, so the bound doubles.  That is safe but loose.  This
module does better where the design allows it, using that every mechanism states two
budgets at the level it releases (:meth:`core.mechanisms.Mechanism.budget_factors`; the
exponential quantile's add/remove budget is ``max(q, 1 - q)``, 1/2 for the median, its
change budget 1):

* ``eps_ar``: the mechanism is ``eps_ar``-DP when one record is added to or removed from
  its input;
* ``eps_sub``: it is ``eps_sub``-DP when one record of its input is changed.

Both are multiples of the budget ``eps_sample`` the mechanism is told to spend:
``eps_ar = alpha * eps_sample`` and ``eps_sub = gamma * eps_sample`` (``None`` when the
mechanism has no guarantee for that relation).  Group privacy always gives
``eps_sub <= 2 eps_ar``, so only ``min(eps_sub, 2 eps_ar)`` matters
(:func:`effective_change_factor`).

The lemma
---------
Fix everything but one record's slot.  Let ``p_0(y)``, ``p_a(y)`` and ``p_b(y)`` be the
output densities of the mechanism on the rest of the sample alone, with record ``a``
added, and with record ``b`` added.  The mechanism's budgets say

    ``e^{-eps_ar} p_0 <= p_a, p_b <= e^{eps_ar} p_0``  and  ``p_a <= e^{eps_sub} p_b``.

If the slot is in the sample with probability ``r``, the population with ``a`` and the
population with ``b`` in that slot produce ``(1 - r) p_0 + r p_a`` and
``(1 - r) p_0 + r p_b``.  Write ``x = p_a / p_0`` and ``y = p_b / p_0``; the ratio is
``g(x, y) = (1 - r + r x) / (1 - r + r y)``, increasing in ``x`` and decreasing in ``y``.
For a given ``y`` the largest admissible ``x`` is ``min(e^{eps_ar}, e^{eps_sub} y)``.

* Where ``y >= e^{eps_ar - eps_sub}`` that is ``x = e^{eps_ar}``, and ``g`` falls as ``y``
  grows: the best ``y`` is the smallest one allowed there.
* Where ``y < e^{eps_ar - eps_sub}`` (only possible when ``eps_sub < 2 eps_ar``, since
  ``y >= e^{-eps_ar}``) it is ``x = e^{eps_sub} y`` and
  ``g = (1 - r + r e^{eps_sub} y) / (1 - r + r y)``, whose derivative in ``y`` has the sign
  of ``r (1 - r)(e^{eps_sub} - 1) >= 0``: ``g`` rises up to the boundary.

So the supremum is at ``y* = max(e^{-eps_ar}, e^{eps_ar - eps_sub})``, ``x* = e^{eps_ar}``.
With ``s = min(eps_sub, 2 eps_ar)``::

    eps_target = ln( (1 - r + r e^{eps_ar}) / (1 - r + r e^{eps_ar - s}) ).        (P)

When ``eps_sub > 2 eps_ar`` it is the removal constraint ``p_b >= e^{-eps_ar} p_0`` that
binds, and (P) is the group-privacy value ``s = 2 eps_ar`` of the change -- a larger
``eps_sub`` claims nothing the mechanism does not already have.  The ratio of two
mixtures over the rest of the sample is at most the largest ratio of its components, so
(P) holds for the whole population; it is attained (for every rest of the sample at once)
by a two-output mechanism whose output-1 probability is proportional to
``prod_i w(x_i)`` with ``w(a) = e^{eps_ar}`` and ``w(b) = e^{eps_ar - s}``, which is
``eps_ar``-DP for add/remove and ``s``-DP for a change (the tests build it).  Special cases:

* ``eps_ar = eps_sub = eps`` (a mechanism with ``alpha = gamma``, the piecewise-Laplace
  quantile): ``ln(1 + r(e^eps - 1))``, the add/remove theorem itself (Bun et al. eq. 3,
  Theorem 2.2) -- the change is free;
* ``eps_sub = 2 eps_ar = 2x`` (a centred sum, :class:`core.mechanisms.HorvitzThompsonMean`;
  the exponential median, ``alpha = 1/2`` and ``gamma = 1``):
  ``ln((1 - r + r e^x) / (1 - r + r e^{-x}))``, which is never above the group-privacy
  value ``2 ln(1 + r(e^x - 1))`` (their ratio of arguments is
  ``(1 - r + r e^x)(1 - r + r e^{-x}) >= 1``);
* no add/remove guarantee (``eps_ar = inf``): (P) tends to ``eps_sub``.  A mechanism that
  only holds for a changed record gains nothing from a random sample size, but loses
  nothing either (the slot's two branches differ by a change or not at all).

What it gives for each design
-----------------------------
``census``
    ``s_eff``, with ``s_eff = min(gamma, 2 alpha) * eps_sample``.
``srs``
    Hu, Drechsler & Kim Theorem 1 with the change budget:
    ``ln(1 + r(e^{s_eff} - 1))`` (the sample has a fixed size, so only the change budget
    enters).
``poisson``
    (P) with ``eps_ar = alpha eps_sample`` and ``eps_sub = gamma eps_sample``.
``stratified_proportional``
    Bun et al. Theorems 4.3/7.2 are proven for an added or removed record, which changes
    one stratum's size and hence its randomised allocation.  A changed record may move to
    another stratum: one stratum loses a record and another gains one, two allocations
    change, and the slot argument above has no common slot to couple.  Group privacy,
    ``2 B(alpha eps_sample)`` with ``B`` the theorem's bound, is what holds (both legs need
    ``r (N_j - 1) >= 1`` for the stratum that loses the record).  If stratum membership
    is public and fixed (``labels_public=True``), a change keeps every stratum size, the
    allocation's law does not depend on the data, and given the allocation the sample is a
    simple random sample of ``m_j`` of ``N_j`` in the changed record's stratum: Hu et al.
    Theorem 1 at the largest possible fraction ``max_j ceil(r N_j) / N_j`` with the change
    budget, or the group bound if smaller.
``cluster``
    Bun et al. Theorem 5.2 is for a record added to a cluster; a changed record may move to
    another cluster and change two cluster sizes: group privacy, twice Theorem 5.2 for the
    worst record (every cluster needs at least two records, or a move could remove a
    cluster).  If cluster membership is public and fixed (``labels_public=True``), the
    lemma applies with the record's cluster as the slot (drawn with probability
    ``q = l/k``): the sample with the cluster and without it differ by swapping it for
    another drawn cluster, i.e. by at most ``c`` records added or removed (``c`` the two
    largest cluster sizes added, as in Theorem 5.2), so (P) holds with ``rate = q``,
    ``eps_ar = c alpha eps_sample`` and ``eps_sub = gamma eps_sample``; the smaller of that
    and the group bound is used.
``neyman``
    Nothing: the allocation is computed from the data (Bun et al. Section 7).

Invariants
----------
* ``eps_target`` is strictly increasing in ``eps_sample``; :func:`poisson_eps_sample` and
  the ``eps_target``/``eps_sample`` directions of
  :func:`core.accounting.change_designs.change_accounting` are inverse to
  each other to about 1e-12 relative.
* (P) lies between ``ln(1 + r(e^{min(eps_ar, s)} - 1))`` and ``s``; it equals ``s`` at
  ``rate = 1`` and tends to 0 with the rate.
* For ``eps_sub <= 2 eps_ar`` it never exceeds the group-privacy bound
  ``2 ln(1 + r(e^{eps_ar} - 1))`` that the planner used before.
* Every value is a pure-ε statement.  An ``(eps, delta)`` mechanism's ``delta`` is not
  accounted for here.

Numerics
--------
(P) is evaluated as ``softplus(log w)`` with
``w = r e^{b} (e^{s} - 1) / (1 - r + r e^{b})`` and ``b = eps_ar - s``, i.e.
``log w = log(e^s - 1) - softplus(log((1 - r)/r) - b)``, a sum of terms without
cancellation: within 1e-13 relative of a 60-digit evaluation from ``eps = 1e-12`` to
``eps = 1000`` (tested), and finite there.
Its inverse has closed forms for ``gamma = alpha`` (:func:`core.amplification.eps_sample`)
and ``gamma = 2 alpha``, where the quadratic ``r u^2 - (1 - r)(e^t - 1) u - r e^t = 0`` in
``u = e^{alpha eps}`` has the root ``alpha eps = t/2 + asinh((1 - r) sinh(t/2) / r)``;
otherwise Brent's method on the logarithm of ``eps``, bracketed by the two inequalities of
the invariant above.  Scalars in give floats out, arrays broadcast with numpy rules; the
structure (a module docstring with the invariants, one kernel per formula) follows
google's ``dp_accounting`` package.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike
from scipy.optimize import brentq

from .. import amplification as amp
from .._validation import (
    FloatArray,
    FloatOrArray,
    all_scalar,
    as_float_array,
    broadcast,
    check_eps,
    check_rate,
    elementwise,
    finish,
    finite_scalar,
    require,
)

__all__ = [
    "effective_change_factor",
    "poisson_eps_sample",
    "poisson_eps_target",
]

# log(e^x - 1) switches from log(expm1(x)) to x + log1p(-e^-x) here.
_LOG_EXPM1_SWITCH = 30.0
# asinh(z) = log(2z) to double precision once log(z) exceeds this.
_ASINH_LOG_SWITCH = 30.0


# ---------------------------------------------------------------------------------------
# Kernels (flat float64 arrays, arguments already valid)
# ---------------------------------------------------------------------------------------


def _log_expm1(x: FloatArray) -> FloatArray:
    """``log(e^x - 1)`` for ``x > 0`` without overflow or cancellation."""
    small = x <= _LOG_EXPM1_SWITCH
    with np.errstate(over="ignore", divide="ignore"):
        return np.where(
            small, np.log(np.expm1(np.minimum(x, _LOG_EXPM1_SWITCH))), x + np.log1p(-np.exp(-x))
        )


def _softplus(x: FloatArray) -> FloatArray:
    """``log(1 + e^x)``."""
    return np.asarray(np.logaddexp(0.0, x), dtype=np.float64)


def _poisson_kernel(a: FloatArray, s: FloatArray, r: FloatArray) -> FloatArray:
    """(P) for ``eps_ar = a`` (may be inf), ``eps_sub = s`` (may be inf), ``rate = r``."""
    s_eff = np.minimum(s, 2.0 * a)
    out = np.array(s_eff, dtype=np.float64)  # a = inf or r = 1: no amplification
    mix = np.isfinite(a) & (r < 1.0)
    if mix.any():
        am, sm, rm = a[mix], s_eff[mix], r[mix]
        b = am - sm  # in [-a, a): the exponent of the denominator
        log_odds_out = np.log1p(-rm) - np.log(rm)
        log_w = _log_expm1(sm) - _softplus(log_odds_out - b)
        out[mix] = np.minimum(_softplus(log_w), sm)
    return out


def _log_sinh(h: FloatArray) -> FloatArray:
    """``log(sinh(h))`` for ``h > 0``."""
    return np.asarray(_log_expm1(2.0 * h) - h - math.log(2.0), dtype=np.float64)


def _double_root(t: FloatArray, r: FloatArray) -> FloatArray:
    """``x`` with ``ln((1 - r + r e^x) / (1 - r + r e^{-x})) = t``: ``t/2 + asinh(z)``.

    ``z = (1 - r) sinh(t/2) / r``; ``asinh(z)`` is taken as ``log 2 + log z`` when ``z`` is
    huge, so nothing overflows.
    """
    with np.errstate(divide="ignore"):
        log_z = np.log1p(-r) - np.log(r) + _log_sinh(t / 2.0)
    big = log_z > _ASINH_LOG_SWITCH
    with np.errstate(over="ignore"):
        moderate = np.arcsinh(np.exp(np.minimum(log_z, _ASINH_LOG_SWITCH)))
    return np.asarray(t / 2.0 + np.where(big, math.log(2.0) + log_z, moderate), dtype=np.float64)


def _poisson_inverse_one(t: float, r: float, alpha: float, gamma_eff: float) -> float:
    """``eps`` with (P)(alpha eps, gamma_eff eps) = t, by Brent's method on ``log eps``."""

    def gap(log_e: float) -> float:
        e = math.exp(log_e)
        value = float(
            _poisson_kernel(np.array([alpha * e]), np.array([gamma_eff * e]), np.array([r]))[0]
        )
        return math.log(value) - math.log(t)

    # (P) <= gamma_eff eps, and (P) >= ln(1 + r(e^{m eps} - 1)) with m = min(alpha, gamma_eff).
    lo = math.log(t / gamma_eff)
    hi = math.log(float(amp.eps_sample(t, r)) / min(alpha, gamma_eff))
    g_lo, g_hi = gap(lo), gap(hi)
    if g_lo >= 0.0:
        return math.exp(lo)
    if g_hi <= 0.0:
        return math.exp(hi)
    root = brentq(gap, lo, hi, xtol=1e-15, rtol=4.0 * np.finfo(float).eps, maxiter=300)
    return math.exp(root)


# ---------------------------------------------------------------------------------------
# Validation
# ---------------------------------------------------------------------------------------


def _check_budget(name: str, value: ArrayLike) -> FloatArray:
    arr = as_float_array(name, value)
    return require(name, arr, ~np.isnan(arr) & (arr > 0), "a number > 0 (inf: no guarantee)")


def _check_factor(name: str, value: object) -> float | None:
    if value is None:
        return None
    x = finite_scalar(name, value)
    if x <= 0:
        raise ValueError(f"{name} must be a finite number > 0 or None; got {value!r}")
    return x


def _check_factors(alpha: object, gamma: object) -> tuple[float | None, float | None]:
    a = _check_factor("add_remove_factor", alpha)
    g = _check_factor("change_factor", gamma)
    if a is None and g is None:
        raise ValueError(
            "a mechanism needs a guarantee for at least one relation: add_remove_factor and "
            "change_factor cannot both be None"
        )
    return a, g


# ---------------------------------------------------------------------------------------
# Public API: the Poisson bound
# ---------------------------------------------------------------------------------------


def effective_change_factor(add_remove_factor: float | None, change_factor: float | None) -> float:
    """``min(gamma, 2 alpha)``: the change budget the mechanism really has, per unit of ε.

    A change is a removal plus an addition, so a mechanism with add/remove factor ``alpha``
    has change factor at most ``2 alpha`` whatever it states (group privacy).

    Parameters
    ----------
    add_remove_factor, change_factor : float or None
        ``alpha`` and ``gamma`` (see the module docstring); not both ``None``.

    Returns
    -------
    float
        ``gamma`` if ``alpha`` is None, ``2 alpha`` if ``gamma`` is None, else the smaller.
    """
    a, g = _check_factors(add_remove_factor, change_factor)
    if a is None:
        assert g is not None
        return g
    return 2.0 * a if g is None else min(g, 2.0 * a)


def poisson_eps_target(
    eps_add_remove: ArrayLike, eps_change: ArrayLike, rate: ArrayLike
) -> FloatOrArray:
    """Guarantee for a changed record of a mechanism run on a Poisson sample.

    The lemma of the module docstring (equation (P)): with ``s = min(eps_change,
    2 eps_add_remove)``::

        eps_target = ln( (1 - r + r e^{eps_add_remove}) / (1 - r + r e^{eps_add_remove - s}) ).

    With ``eps_add_remove = eps_change`` it is Bun et al. eq. 3 / Theorem 2.2 (and Hu,
    Drechsler & Kim Theorem 1), ``ln(1 + r(e^eps - 1))``.

    Parameters
    ----------
    eps_add_remove : float or array_like
        ``eps_ar > 0``: the mechanism's budget for an added or removed record; ``inf`` when
        it has none (then the result is ``eps_change``: no amplification).
    eps_change : float or array_like
        ``eps_sub > 0``: its budget for a changed record; ``inf`` when it states none (then
        group privacy, ``2 eps_add_remove``, is used).  Not both ``inf``.
    rate : float or array_like
        Inclusion probability ``r`` in (0, 1].

    Returns
    -------
    float or numpy.ndarray
        ``eps_target`` in ``(0, s]``; exactly ``s`` at ``r = 1``.

    Raises
    ------
    ValueError
        For a budget that is not > 0, both budgets infinite, or a rate outside (0, 1].

    Examples
    --------
    >>> round(poisson_eps_target(1.0, 1.0, 0.05), 6) == round(math.log1p(0.05 * math.expm1(1)), 6)
    True
    """
    scalar = all_scalar(eps_add_remove, eps_change, rate)
    a, s, r = broadcast(
        eps_add_remove=_check_budget("eps_add_remove", eps_add_remove),
        eps_change=_check_budget("eps_change", eps_change),
        rate=check_rate("rate", rate),
    )
    both = np.isinf(a) & np.isinf(s)
    if both.any():
        raise ValueError(
            "eps_add_remove and eps_change cannot both be infinite (no guarantee at all)"
        )
    return finish(elementwise(_poisson_kernel, a, s, r), scalar)


def poisson_eps_sample(
    eps_target: ArrayLike,
    rate: ArrayLike,
    add_remove_factor: float | None = 1.0,
    change_factor: float | None = 1.0,
) -> FloatOrArray:
    """The largest ``eps_sample`` a two-budget mechanism may spend on a Poisson sample.

    Inverts :func:`poisson_eps_target` for ``eps_ar = alpha eps_sample`` and
    ``eps_sub = gamma eps_sample``, with ``gamma_eff = min(gamma, 2 alpha)``:

    * ``gamma_eff = alpha``: ``eps_sample = ln(1 + (e^t - 1)/r) / alpha``
      (:func:`core.amplification.eps_sample`);
    * ``gamma_eff = 2 alpha``: ``eps_sample = (t/2 + asinh((1 - r) sinh(t/2) / r)) / alpha``,
      the positive root of ``r u^2 - (1 - r)(e^t - 1) u - r e^t = 0`` in
      ``u = e^{alpha eps_sample}``;
    * ``alpha`` is None (no add/remove guarantee): ``t / gamma``;
    * otherwise Brent's method (relative tolerance ~1e-15) between ``t / gamma_eff`` and
      ``ln(1 + (e^t - 1)/r) / min(alpha, gamma_eff)``.

    Parameters
    ----------
    eps_target : float or array_like
        The promise for a changed record, finite and > 0.
    rate : float or array_like
        Inclusion probability ``r`` in (0, 1].
    add_remove_factor, change_factor : float or None
        ``alpha`` and ``gamma`` (:class:`core.mechanisms.BudgetFactors`, kept apart: for
        the exponential median 1/2 and 1); not both None.

    Returns
    -------
    float or numpy.ndarray
        ``eps_sample``; ``t / gamma_eff`` at ``r = 1``.

    Examples
    --------
    >>> round(poisson_eps_sample(1.0, 0.05), 2)  # the exponential mechanism
    3.57
    """
    alpha, gamma = _check_factors(add_remove_factor, change_factor)
    g_eff = effective_change_factor(alpha, gamma)
    scalar = all_scalar(eps_target, rate)
    t, r = broadcast(eps_target=check_eps("eps_target", eps_target), rate=check_rate("rate", rate))

    def kernel(tt: FloatArray, rr: FloatArray) -> FloatArray:
        if alpha is None:
            return tt / g_eff
        if g_eff == alpha:
            return np.asarray(amp.eps_sample(tt, rr), dtype=np.float64) / alpha
        if g_eff == 2.0 * alpha:
            return _double_root(tt, rr) / alpha
        out = np.empty_like(tt)
        for i in range(tt.size):
            out[i] = _poisson_inverse_one(float(tt[i]), float(rr[i]), alpha, g_eff)
        return out

    return finish(elementwise(kernel, t, r), scalar)
