"""Single-stage cluster sampling: Bun et al. (2022), Section 5, Theorems 5.1 and 5.2.

``ℓ`` of ``k`` clusters drawn without replacement, every record of the drawn ones kept:
the lower and upper bounds on ``ε'`` (:func:`cluster_eps_bounds`, :func:`cluster_eps`), the
simple-random-sampling comparison (:func:`srs_eps`), and the inverses from ``eps_target`` to
``eps_sample`` (:func:`eps_sample_for_target`, :func:`eps_sample_bounds_for_target`).  The
numerical kernels here (the log-odds form of the bound) serve the other modules of
:mod:`core.clusters`.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike
from scipy.optimize import brentq

from .. import amplification as amp
from .._validation import (
    FloatArray,
    FloatOrArray,
    all_scalar,
    broadcast,
    check_count,
    check_eps,
    check_interval,
    check_nonnegative,
    finish,
)

__all__ = [
    "EpsBounds",
    "cluster_eps",
    "cluster_eps_bounds",
    "combined_size_for_eps",
    "eps_sample_bounds_for_target",
    "eps_sample_for_target",
    "records_fraction",
    "srs_eps",
]


#: Above this ε, ``expm1`` is replaced by ``ε + log1p(−e^{−ε})`` (both exact to rounding).
_LOG_EXPM1_SWITCH = 30.0
#: Up to this ε, ``expm1(ε)`` is formed directly (``exp`` overflows just above 709.78).
_EXP_SAFE = 700.0


class EpsBounds(NamedTuple):
    """Lower and upper bound on ``ε'`` (unpacks as ``lower, upper = ...``)."""

    lower: FloatOrArray
    upper: FloatOrArray


def _check_design(clusters_total: ArrayLike, clusters_sampled: ArrayLike) -> tuple[FloatArray, ...]:
    k = check_count("clusters_total", clusters_total, 1)
    ell = check_count("clusters_sampled", clusters_sampled, 1)
    k_b, ell_b = broadcast(clusters_total=k, clusters_sampled=ell)
    if np.any(ell_b > k_b):
        bad = int(np.flatnonzero((ell_b > k_b).reshape(-1))[0])
        raise ValueError(
            "clusters_sampled must not exceed clusters_total; got "
            f"{ell_b.reshape(-1)[bad]:g} of {k_b.reshape(-1)[bad]:g} clusters"
        )
    return k, ell


def _log_expm1(x: FloatArray | float) -> FloatArray:
    """``log(e^x − 1)`` for ``x > 0`` without overflow or cancellation."""
    x = np.asarray(x, dtype=np.float64)
    small = x <= _LOG_EXPM1_SWITCH
    with np.errstate(over="ignore", divide="ignore"):
        return np.where(
            small, np.log(np.expm1(np.minimum(x, _LOG_EXPM1_SWITCH))), x + np.log1p(-np.exp(-x))
        )


def _log_odds_out(k: FloatArray, ell: FloatArray) -> FloatArray:
    """``log((1 − q)/q) = log(k − ℓ) − log ℓ``; ``−inf`` when every cluster is drawn."""
    with np.errstate(divide="ignore"):
        return np.log(k - ell) - np.log(ell)


def _mixture_eps(
    eps_sample: FloatArray, log_odds_out: FloatArray, exponent: FloatArray
) -> FloatArray:
    """``ln(1 + q (e^ε − 1) / (q + (1 − q) e^{−t}))`` without overflow, clamped to ``[0, ε]``.

    ``log_odds_out = log((1 − q)/q)`` and ``exponent = t``. With ``u = log_odds_out − t``
    the value is ``ln(1 + (e^ε − 1)/(1 + e^u))``:

    * for ``ε ≤ 700`` it is evaluated as ``log1p(expm1(ε) / (1 + exp(u)))``, accurate to a
      few ulps even when ε' is tiny (``exp(u)`` cannot overflow: ``u ≤ log k < 37``);
    * beyond, where ``e^ε`` would overflow, as ``softplus(log(e^ε − 1) − softplus(u))``,
      ``softplus(x) = log(1 + e^x)`` (``ε'`` is then at least ``ε − 37``, so the log form
      loses nothing).
    """
    u = log_odds_out - exponent  # exponent is finite, so no inf - inf
    moderate = eps_sample <= _EXP_SAFE
    with np.errstate(over="ignore"):
        direct = np.log1p(np.expm1(np.minimum(eps_sample, _EXP_SAFE)) / (1.0 + np.exp(u)))
    if np.all(moderate):
        value = direct
    else:
        in_logs = np.logaddexp(0.0, _log_expm1(eps_sample) - np.logaddexp(0.0, u))
        value = np.where(moderate, direct, in_logs)
    # Drawing every cluster (q = 1) changes nothing: keep ε' = ε exact.
    value = np.where(np.isneginf(log_odds_out), eps_sample, value)
    return np.clip(value, 0.0, eps_sample)


def cluster_eps(
    eps_sample: ArrayLike,
    clusters_total: ArrayLike,
    clusters_sampled: ArrayLike,
    combined_size: ArrayLike,
) -> FloatOrArray:
    """The expression shared by Theorems 5.1 and 5.2 (Bun et al. §5.1) at combined size ``s``.

    ::

        ε'(s) = ln( 1 + (ℓ/k) (e^ε − 1) / (ℓ/k + (1 − ℓ/k) e^{−s ε}) )

    ``s = n_i + n_min`` gives the lower bound of Theorem 5.1, ``s = n_i + n_max`` the upper
    bound of Theorem 5.2 (see :func:`cluster_eps_bounds`). ``s = 0`` gives simple random
    sampling, equation (3); ``s → ∞`` gives ``ε`` (no amplification).

    Parameters
    ----------
    eps_sample : float or array_like
        ε of the ε-deletion-DP mechanism run on the sample, finite and > 0.
    clusters_total, clusters_sampled : int or array_like
        ``k`` and ``ℓ``, whole numbers with ``1 ≤ ℓ ≤ k``.
    combined_size : float or array_like
        ``s ≥ 0``, a number of records (not necessarily whole, so curves can be drawn).

    Returns
    -------
    float or numpy.ndarray
        ``ε'`` in ``[ln(1 + (ℓ/k)(e^ε − 1)), ε]``; exactly ``ε`` when ``ℓ = k``.
    """
    scalar = all_scalar(eps_sample, clusters_total, clusters_sampled, combined_size)
    e = check_eps("eps_sample", eps_sample)
    k, ell = _check_design(clusters_total, clusters_sampled)
    s = check_nonnegative("combined_size", combined_size)
    e, k, ell, s = broadcast(eps_sample=e, clusters_total=k, clusters_sampled=ell, combined_size=s)
    return finish(_mixture_eps(e, _log_odds_out(k, ell), s * e), scalar)


def cluster_eps_bounds(
    eps_sample: ArrayLike,
    clusters_total: ArrayLike,
    clusters_sampled: ArrayLike,
    size_i: ArrayLike,
    size_min: ArrayLike,
    size_max: ArrayLike,
) -> EpsBounds:
    """Bounds on ε' of single-stage cluster sampling (Bun et al. Theorems 5.1 and 5.2).

    ``ℓ`` of ``k`` clusters are drawn uniformly without replacement and every record of the
    drawn clusters enters the ε-deletion-DP mechanism ``M``. For the person added to cluster
    ``i`` (``n_i`` records before the addition), with ``n_min``/``n_max`` the smallest/largest
    size among the other clusters::

        Theorem 5.1 (lower):  ε' ≥ ln(1 + (ℓ/k)(e^ε − 1) / (ℓ/k + (1 − ℓ/k) e^{−(n_i + n_min) ε}))
        Theorem 5.2 (upper):  ε' ≤ ln(1 + (ℓ/k)(e^ε − 1) / (ℓ/k + (1 − ℓ/k) e^{−(n_i + n_max) ε}))

    The lower bound is attained by a population with every other cluster of size ``n_min``
    and the Laplace sum mechanism of the proof (:func:`witness_eps`); the upper bound holds
    for every ε-deletion-DP mechanism. With equal sizes (``n_min = n_max``) they coincide.
    With singleton clusters (all sizes 1) the design is simple random sampling of ``ℓ`` out
    of ``k`` records, and the common value ``ln(1 + q(e^ε − 1)/(q + (1 − q)e^{−2ε}))`` is
    the deletion-model counterpart of equation (3) (the paper's remark after Theorem 5.2);
    it agrees with equation (3) to first order in ε.

    Parameters
    ----------
    eps_sample : float or array_like
        ε of the mechanism on the sample, finite and > 0.
    clusters_total, clusters_sampled : int or array_like
        ``k`` and ``ℓ``, whole numbers with ``1 ≤ ℓ ≤ k``.
    size_i, size_min, size_max : int or array_like
        Cluster sizes, whole numbers ≥ 1 with ``size_min ≤ size_max``. ``size_i`` may lie
        anywhere relative to the other two.

    Returns
    -------
    EpsBounds
        ``(lower, upper)`` with ``ln(1 + (ℓ/k)(e^ε − 1)) ≤ lower ≤ upper ≤ ε``.

    Raises
    ------
    ValueError
        For a non-positive or non-finite ε, counts that are not whole numbers, ``ℓ > k`` or
        ``size_min > size_max``.
    """
    scalar = all_scalar(eps_sample, clusters_total, clusters_sampled, size_i, size_min, size_max)
    e = check_eps("eps_sample", eps_sample)
    k, ell = _check_design(clusters_total, clusters_sampled)
    ni = check_count("size_i", size_i, 1)
    lo = check_count("size_min", size_min, 1)
    hi = check_count("size_max", size_max, 1)
    lo_b, hi_b = broadcast(size_min=lo, size_max=hi)
    if np.any(lo_b > hi_b):
        bad = int(np.flatnonzero((lo_b > hi_b).reshape(-1))[0])
        raise ValueError(
            "size_min must not exceed size_max; got size_min = "
            f"{lo_b.reshape(-1)[bad]:g} > size_max = {hi_b.reshape(-1)[bad]:g}"
        )
    e, k, ell, ni, lo, hi = broadcast(
        eps_sample=e,
        clusters_total=k,
        clusters_sampled=ell,
        size_i=ni,
        size_min=lo,
        size_max=hi,
    )
    odds = _log_odds_out(k, ell)
    lower = _mixture_eps(e, odds, (ni + lo) * e)
    upper = np.maximum(_mixture_eps(e, odds, (ni + hi) * e), lower)
    return EpsBounds(finish(lower, scalar), finish(upper, scalar))


def records_fraction(
    clusters_total: ArrayLike, clusters_sampled: ArrayLike, within_rate: ArrayLike = 1.0
) -> FloatOrArray:
    """Expected fraction of records in the sample: ``r·ℓ/k``.

    Every cluster is drawn with probability ``ℓ/k`` whatever the sizes, and a record of a
    drawn cluster is kept with probability ``r`` (``r = 1``: single stage), so each record is
    in the sample with probability ``r·ℓ/k``.
    """
    scalar = all_scalar(clusters_total, clusters_sampled, within_rate)
    k, ell = _check_design(clusters_total, clusters_sampled)
    r = check_interval("within_rate", within_rate, 0.0, 1.0, low_open=True)
    k, ell, r = broadcast(clusters_total=k, clusters_sampled=ell, within_rate=r)
    return finish(r * (ell / k), scalar)


def srs_eps(
    eps_sample: ArrayLike,
    clusters_total: ArrayLike,
    clusters_sampled: ArrayLike,
    within_rate: ArrayLike = 1.0,
) -> FloatOrArray:
    """ε' of simple random sampling at the same expected fraction of records (eq. 3).

    ::

        ε'_SRS = ln(1 + (r ℓ/k)(e^ε − 1))

    Bun et al. equation (3) (Theorem 2.2; Balle, Barthe & Gaboardi 2018), evaluated with
    :func:`core.amplification.eps_target` (Hu, Drechsler & Kim, Theorem 1). The same
    expression is the exact amplification of Poisson sampling with probability ``r ℓ/k`` for a
    deletion-DP mechanism, so it is the fair "individual sampling" comparison for the
    cluster bounds. It is also :func:`cluster_eps` at combined size 0.
    """
    rate = records_fraction(clusters_total, clusters_sampled, within_rate)
    check_eps("eps_sample", eps_sample)
    return amp.eps_target(eps_sample, rate)


def combined_size_for_eps(
    eps_sample: ArrayLike,
    clusters_total: ArrayLike,
    clusters_sampled: ArrayLike,
    eps_target: ArrayLike,
) -> FloatOrArray:
    """Inverse of :func:`cluster_eps` in ``s``: the combined size at which ε' reaches a level.

    Solving ``(*)`` for ``s``::

        s = ( ln((k − ℓ)/ℓ) − ln((e^ε − e^{ε'}) / (e^{ε'} − 1)) ) / ε

    Returns ``0`` when ``ε'`` is at or below the simple-random-sampling value (every size
    reaches it) and ``inf`` when ``ε' ≥ ε`` (no finite size does). With equal cluster sizes
    ``n``, ``s = 2n``.
    """
    scalar = all_scalar(eps_sample, clusters_total, clusters_sampled, eps_target)
    e = check_eps("eps_sample", eps_sample)
    k, ell = _check_design(clusters_total, clusters_sampled)
    t = check_eps("eps_target", eps_target)
    e, k, ell, t = broadcast(eps_sample=e, clusters_total=k, clusters_sampled=ell, eps_target=t)
    below = t < e
    tt = np.where(below, t, e * 0.5)  # placeholder where ε' ≥ ε; replaced below
    with np.errstate(divide="ignore", invalid="ignore"):
        # log((e^ε − e^t)/(e^t − 1)) = ε + log(−expm1(t − ε)) − log(expm1(t))
        u = e + np.log(-np.expm1(tt - e)) - _log_expm1(tt)
        s = (_log_odds_out(k, ell) - u) / e
    s = np.where(below, np.maximum(s, 0.0), np.inf)
    s = np.where(np.isnan(s), 0.0, s)
    return finish(s, scalar)


def _inverse_one(
    target: float, log_odds_out: float, combined_size: float, srs_inverse: float
) -> float:
    """The ε with ``_mixture_eps(ε, log_odds_out, s ε) = target`` (one point; see caller)."""
    if math.isinf(-log_odds_out):  # every cluster drawn: no amplification
        return target

    def gap(log_e: float) -> float:
        e = np.array(math.exp(log_e))
        value = float(_mixture_eps(e, np.array(log_odds_out), combined_size * e))
        return math.log(value) - math.log(target) if value > 0 else -math.inf

    lo, hi = math.log(target), math.log(srs_inverse)
    g_lo, g_hi = gap(lo), gap(hi)
    if g_lo >= 0:  # the bound already equals ε at ε = target (huge clusters)
        return target
    if g_hi <= 0:  # the bound is the simple-random-sampling value here
        return srs_inverse
    return math.exp(brentq(gap, lo, hi, xtol=1e-14, rtol=4 * np.finfo(float).eps, maxiter=200))


def eps_sample_for_target(
    eps_target: ArrayLike,
    clusters_total: ArrayLike,
    clusters_sampled: ArrayLike,
    combined_size: ArrayLike,
) -> FloatOrArray:
    """Inverse of :func:`cluster_eps` in ε: the ε_sample whose bound equals ``eps_target``.

    Solves ``ε'(ε_sample; s) = ε_target`` for ``ε_sample``, where ``ε'(ε; s)`` is the
    expression shared by Bun et al. (2022), Theorems 5.1 and 5.2::

        ε_target = ln(1 + (ℓ/k)(e^{ε_sample} − 1) / (ℓ/k + (1 − ℓ/k) e^{−s ε_sample}))

    With ``s = n_i + n_max`` (Theorem 5.2) the result is the largest budget that is
    *guaranteed* to give ``ε_target``; with ``s = n_i + n_min`` (Theorem 5.1) the budget above
    which some ε_sample-DP mechanism breaks ``ε_target``.

    The right-hand side grows strictly with ``ε_sample`` and lies between the
    simple-random-sampling value ``ln(1 + q(e^ε − 1))`` (equation 3) and ``ε`` itself, so the
    root lies in ``[ε_target, ln(1 + (e^{ε_target} − 1)/q)]``: ``ε_sample = ε_target`` for
    huge clusters (no amplification) and the Poisson/SRS inverse for ``s = 0``. The root is
    found by ``scipy.optimize.brentq`` on the logarithms of both sides (relative tolerance
    about 10⁻¹⁴), so tiny and large budgets are solved equally well.

    Parameters
    ----------
    eps_target : float or array_like
        Guarantee promised for the population, finite and > 0.
    clusters_total, clusters_sampled : int or array_like
        ``k`` and ``ℓ``, whole numbers with ``1 ≤ ℓ ≤ k``.
    combined_size : float or array_like
        ``s ≥ 0``, a number of records.

    Returns
    -------
    float or numpy.ndarray
        ``ε_sample ≥ ε_target``; equal to it when ``ℓ = k``.

    Raises
    ------
    ValueError
        For a non-positive or non-finite ``eps_target``, invalid counts or a negative size.
    """
    scalar = all_scalar(eps_target, clusters_total, clusters_sampled, combined_size)
    t = check_eps("eps_target", eps_target)
    k, ell = _check_design(clusters_total, clusters_sampled)
    s = check_nonnegative("combined_size", combined_size)
    t, k, ell, s = broadcast(eps_target=t, clusters_total=k, clusters_sampled=ell, combined_size=s)
    odds = _log_odds_out(k, ell)
    srs_inverse = np.asarray(amp.eps_sample(t, ell / k), dtype=np.float64).reshape(t.shape)
    out = np.empty(t.shape, dtype=np.float64)
    for idx in np.ndindex(t.shape):
        out[idx] = _inverse_one(
            float(t[idx]), float(odds[idx]), float(s[idx]), float(srs_inverse[idx])
        )
    # Sampling never costs privacy: keep ε_sample ≥ ε_target against a last-bit rounding.
    return finish(np.maximum(out, t), scalar)


def eps_sample_bounds_for_target(
    eps_target: ArrayLike,
    clusters_total: ArrayLike,
    clusters_sampled: ArrayLike,
    size_i: ArrayLike,
    size_min: ArrayLike,
    size_max: ArrayLike,
) -> EpsBounds:
    """The budgets ε_sample that cluster sampling allows for a promised ``eps_target``.

    Inverts :func:`cluster_eps_bounds` (Bun et al. 2022, Theorems 5.1 and 5.2) with
    :func:`eps_sample_for_target`:

    * ``lower``: Theorem 5.2 inverted at ``s = n_i + n_max`` — every mechanism with this
      ε_sample gives the population ``eps_target`` or better (the safe budget);
    * ``upper``: Theorem 5.1 inverted at ``s = n_i + n_min`` — above this ε_sample some
      population and mechanism with these sizes exceed ``eps_target``.

    Equal cluster sizes make the two coincide. Arguments as in :func:`cluster_eps_bounds`.
    """
    scalar = all_scalar(eps_target, clusters_total, clusters_sampled, size_i, size_min, size_max)
    ni = check_count("size_i", size_i, 1)
    lo = check_count("size_min", size_min, 1)
    hi = check_count("size_max", size_max, 1)
    ni, lo, hi = broadcast(size_i=ni, size_min=lo, size_max=hi)
    if np.any(lo > hi):
        raise ValueError(
            f"size_min must not exceed size_max; got size_min = {lo.max():g}, "
            f"size_max = {hi.min():g}"
        )
    safe = np.asarray(eps_sample_for_target(eps_target, clusters_total, clusters_sampled, ni + hi))
    unsafe = np.asarray(
        eps_sample_for_target(eps_target, clusters_total, clusters_sampled, ni + lo)
    )
    return EpsBounds(finish(safe, scalar), finish(np.maximum(unsafe, safe), scalar))
