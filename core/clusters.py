"""Cluster sampling and other data-dependent designs: how much privacy amplification survives.

Bun, Drechsler, Gaboardi, McMillan & Sarathy, "Controlling privacy loss in sampling schemes:
an analysis of stratified and cluster sampling" (Bun et al. 2022, Sections 5 and 6).
Notation follows the paper:

* the population ``P = C_1 ⊔ … ⊔ C_k`` is split into ``k`` clusters (``clusters_total``);
* single-stage cluster sampling ``C_ℓ`` draws ``ℓ`` of the ``k`` clusters uniformly without
  replacement (``clusters_sampled``) and keeps every record of the drawn clusters;
* ``M`` is ``ε``-**deletion** differentially private on the sample (``eps_sample``);
  neighbouring populations differ by one record added to one cluster,
  ``C_i' = C_i ∪ {x}`` with ``n_i = |C_i|``;
* ``ε'`` is the privacy loss of the sampled mechanism ``M_{C_ℓ}`` on the population
  (``eps_target`` where it is an argument);
* ``n_min`` and ``n_max`` are the smallest and largest sizes among the *other* clusters
  ``j ≠ i``.

The two theorems of §5.1 share one expression. With ``q = ℓ/k`` and a "combined size"
``s`` (a number of records)::

    ε'(s) = ln( 1 + q (e^ε − 1) / (q + (1 − q) e^{−s ε}) )                         (*)

* Theorem 5.1 (lower bound): some populations with these sizes and some ε-deletion-DP ``M``
  give ``ε' ≥ (*)`` with ``s = n_i + n_min``;
* Theorem 5.2 (upper bound): every ε-deletion-DP ``M`` gives ``ε' ≤ (*)`` with
  ``s = n_i + n_max``.

``(*)`` grows with ``s`` from the simple-random-sampling value ``ln(1 + q (e^ε − 1))`` at
``s = 0`` (equation 3 of the paper, Theorem 2.2; Hu, Drechsler & Kim, Theorem 1) to ``ε`` as
``s → ∞``: large clusters erase the amplification. Equal cluster sizes make the two bounds
coincide (``n_min = n_max``), so ``(*)`` is then the exact worst case.

Also here: the simple-random-sampling comparison at the same expected fraction of records
(:func:`srs_eps`), two-stage designs with Poisson sampling inside the drawn clusters
(:func:`two_stage_eps_upper`), the hypothesis-testing bound of Theorem 5.3
(:func:`hypothesis_test_bound`), the inclusion-probability lower bound of Proposition 6.1 and
§6.1 for PPS sampling (:func:`inclusion_eps`, :func:`pps_eps_lower`), PPS cluster sampling
(§6.2, :func:`per_cluster_bounds`), systematic sampling as cluster sampling (§6.3,
:func:`systematic_eps_bounds`), per-cluster bounds for a population with a cluster column, and
the exact privacy loss of the lower-bound construction of Theorem 5.1 (:func:`witness_eps`).

Numerics
--------
No intermediate quantity overflows or cancels:

* ``(*)`` is rewritten as ``ln(1 + (e^ε − 1)/(1 + e^u))`` with the log-odds
  ``u = log(k − ℓ) − log ℓ − s ε``, so ``e^{sε}`` (``s ε`` can be 10⁸ and more) is never
  formed and ``e^u ≤ k`` cannot overflow. For ``ε ≤ 700`` it is evaluated as
  ``log1p(expm1(ε)/(1 + exp(u)))`` — a few ulps even when ε' is 10⁻³⁰⁰; beyond, where ``e^ε``
  would overflow, as ``softplus(log(e^ε − 1) − softplus(u))`` with
  ``softplus(x) = log(1 + e^x)`` (``numpy.logaddexp(0, x)``) and
  ``log(e^ε − 1) = ε + log1p(−e^{−ε})``. Agreement with a 60-digit evaluation of the
  theorems is tested to ~2·10⁻¹⁴ relative for ε from 10⁻¹² to 10³, k up to 10⁹.
* Binomial coefficients of huge cluster counts (:func:`witness_eps`) are summed as
  ``logsumexp`` of ``scipy.special.gammaln`` terms.

Results are clamped to the interval the mathematics guarantees (``0 ≤ ε' ≤ ε`` and
``lower ≤ upper``) so a last-bit rounding difference can never invert an inequality.

All public functions broadcast their numeric arguments with numpy rules and return a Python
``float`` when every argument is a scalar, an ``ndarray`` otherwise. Invalid arguments raise
``ValueError`` naming the argument, the allowed range and the bad value.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray
from scipy.optimize import brentq
from scipy.special import gammaln, logsumexp

from core import amplification as amp
from core._validation import (
    FloatArray,
    FloatOrArray,
    all_scalar,
    broadcast,
    check_count,
    check_eps,
    check_interval,
    check_nonnegative,
    check_vector,
    finish,
    require,
)

__all__ = [
    "ClusterSizes",
    "EpsBounds",
    "cluster_eps",
    "cluster_eps_bounds",
    "cluster_sizes",
    "combined_size_for_eps",
    "eps_sample_bounds_for_target",
    "eps_sample_for_target",
    "hypothesis_test_bound",
    "inclusion_eps",
    "per_cluster_bounds",
    "pps_eps_lower",
    "pps_inclusion_probabilities",
    "pps_max_inclusion",
    "records_fraction",
    "srs_eps",
    "systematic_eps_bounds",
    "two_stage_eps_upper",
    "witness_eps",
]


#: Above this ε, ``expm1`` is replaced by ``ε + log1p(−e^{−ε})`` (both exact to rounding).
_LOG_EXPM1_SWITCH = 30.0
#: Up to this ε, ``expm1(ε)`` is formed directly (``exp`` overflows just above 709.78).
_EXP_SAFE = 700.0


class EpsBounds(NamedTuple):
    """Lower and upper bound on ``ε'`` (unpacks as ``lower, upper = ...``)."""

    lower: FloatOrArray
    upper: FloatOrArray


class ClusterSizes(NamedTuple):
    """Cluster labels (sorted) and the number of records in each."""

    labels: np.ndarray
    sizes: NDArray[np.int64]


# ---------------------------------------------------------------------------------------
# Validation
# ---------------------------------------------------------------------------------------


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


# ---------------------------------------------------------------------------------------
# Kernels (validated float arrays in)
# ---------------------------------------------------------------------------------------


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


# ---------------------------------------------------------------------------------------
# Section 5: single-stage cluster sampling
# ---------------------------------------------------------------------------------------


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


# ---------------------------------------------------------------------------------------
# Section 5.2: multi-stage designs and the hypothesis-testing view
# ---------------------------------------------------------------------------------------


def two_stage_eps_upper(
    eps_sample: ArrayLike,
    clusters_total: ArrayLike,
    clusters_sampled: ArrayLike,
    size_i: ArrayLike,
    size_max: ArrayLike,
    within_rate: ArrayLike,
) -> FloatOrArray:
    """Upper bound on ε' of two-stage sampling: ``ℓ`` of ``k`` clusters, then Poisson(r) inside.

    The bound composes the two amplifications as Bun et al. §5.2 suggest ("the privacy
    amplification from this stage can be immediately incorporated into the upper bound in
    Theorem 5.2"):

    1. Poisson sampling with probability ``r`` followed by the ε-deletion-DP ``M`` is
       ``ε_r``-deletion-DP with ``ε_r = ln(1 + r(e^ε − 1))`` (amplification by Poisson
       sampling: Balle, Barthe & Gaboardi 2018, Theorem 10; Li, Qardaji & Su 2012; the same
       expression as Hu et al. Theorem 1, :func:`core.amplification.eps_target`).
    2. Keeping each record of the drawn clusters independently with probability ``r`` is the
       same as Poisson-sampling the union of the drawn clusters, so the design is single-stage
       cluster sampling followed by that ``ε_r``-DP mechanism, and Theorem 5.2 applies with
       ``ε_r`` in place of ``ε`` (group privacy inside its proof then uses ``e^{(n_i+n_j)ε_r}``)::

           ε' ≤ ln(1 + (ℓ/k)(e^{ε_r} − 1) / (ℓ/k + (1 − ℓ/k) e^{−(n_i + n_max) ε_r}))

    For large clusters this tends to ``ε_r ≈ r ε`` (the paper's "approximately rε"): only the
    within-cluster stage still amplifies. ``r = 1`` gives Theorem 5.2. This is an upper bound
    only; no matching lower bound is stated in the paper.
    """
    scalar = all_scalar(eps_sample, clusters_total, clusters_sampled, size_i, size_max, within_rate)
    e = check_eps("eps_sample", eps_sample)
    k, ell = _check_design(clusters_total, clusters_sampled)
    ni = check_count("size_i", size_i, 1)
    hi = check_count("size_max", size_max, 1)
    r = check_interval("within_rate", within_rate, 0.0, 1.0, low_open=True)
    e, k, ell, ni, hi, r = broadcast(
        eps_sample=e, clusters_total=k, clusters_sampled=ell, size_i=ni, size_max=hi, within_rate=r
    )
    eps_r = np.asarray(amp.eps_target(e, r), dtype=np.float64).reshape(e.shape)
    # eps_target is exact at r = 1 and returns a tiny positive ε_r otherwise (never 0 for ε > 0).
    eps_r = np.maximum(eps_r, np.finfo(np.float64).tiny)
    return finish(_mixture_eps(eps_r, _log_odds_out(k, ell), (ni + hi) * eps_r), scalar)


def hypothesis_test_bound(
    eps_known: ArrayLike,
    test_eps: ArrayLike,
    clusters_total: ArrayLike,
    clusters_sampled: ArrayLike,
) -> FloatOrArray:
    """Theorem 5.3 (Bun et al. §5.2): a good test for "was cluster i drawn?" caps amplification.

    If a test ``H`` on the output of ``M_{C_ℓ}`` satisfies
    ``Pr(H = 0 | C_i drawn) ≥ e^{ε'} Pr(H = 0 | C_i not drawn)`` (``test_eps`` = ε'), and
    ``ε'' ∈ [0, ε]`` (``eps_known``) is the privacy loss of some event when ``C_i`` is known
    to be in the sample, then the sampled mechanism is no better than ``ε̃``-indistinguishable
    with::

        ε̃ ≥ ln(1 + (e^{ε''} − 1) (ℓ/k) / (ℓ/k + e^{−ε'} (1 − ℓ/k)))

    As the test gets sharper (``ε' → ∞``) the bound tends to ``ε''``: secrecy of the sample is
    gone. For a counting mechanism and a cluster of ``n_i`` records that all have the counted
    property, the threshold test "output above n_i" has ``ε' = ε n_i``.
    """
    scalar = all_scalar(eps_known, test_eps, clusters_total, clusters_sampled)
    e = check_eps("eps_known", eps_known)
    t = check_nonnegative("test_eps", test_eps)
    k, ell = _check_design(clusters_total, clusters_sampled)
    e, t, k, ell = broadcast(eps_known=e, test_eps=t, clusters_total=k, clusters_sampled=ell)
    return finish(_mixture_eps(e, _log_odds_out(k, ell), t), scalar)


# ---------------------------------------------------------------------------------------
# Section 6: inclusion probabilities, PPS and systematic sampling
# ---------------------------------------------------------------------------------------


def inclusion_eps(eps_sample: ArrayLike, inclusion_probability: ArrayLike) -> FloatOrArray:
    """``ln(1 + a (e^ε − 1))``: the lower bound one record with inclusion probability ``a`` forces.

    Bun et al. Proposition 6.1 applied as in §6.1: the mechanism that outputs
    ``Bernoulli(e^ε/(e^ε + 1))`` when record ``i`` is in the sample and
    ``Bernoulli(1/(e^ε + 1))`` otherwise, against a neighbour on which it cannot see ``i``,
    gives ``ε̃ ≥ ln(1 + a_i(e^ε − 1))`` for **any** sampling design (eq. 5). For simple
    random sampling (``a = m/n``) this equals equation (3), which is tight. ``a = 0`` gives 0.
    """
    scalar = all_scalar(eps_sample, inclusion_probability)
    e = check_eps("eps_sample", eps_sample)
    a = check_interval("inclusion_probability", inclusion_probability, 0.0, 1.0)
    e, a = broadcast(eps_sample=e, inclusion_probability=a)
    out = np.zeros(e.shape, dtype=np.float64)
    pos = a > 0
    if pos.any():
        out[pos] = np.asarray(amp.eps_target(e[pos], a[pos]), dtype=np.float64)
    return finish(out, scalar)


def pps_eps_lower(eps_sample: float, inclusion_probabilities: ArrayLike) -> float:
    """§6.1: ``ε̃ ≥ max_i ln(1 + a_i (e^ε − 1))`` from the inclusion probabilities ``a_i``.

    Bun et al. §6.1 (from Proposition 6.1, eq. 5): the amplification of PPS sampling — and
    of any design — is capped by the largest inclusion probability of any record. Since the
    bound increases with ``a``, it is evaluated at ``max_i a_i``.
    """
    if np.ndim(eps_sample) != 0:
        raise ValueError("eps_sample must be a single number here")
    a = check_interval("inclusion_probabilities", inclusion_probabilities, 0.0, 1.0)
    if a.size == 0:
        raise ValueError("inclusion_probabilities must contain at least one probability")
    return float(inclusion_eps(eps_sample, float(np.max(a))))


def _check_size_measures(size_measures: ArrayLike) -> FloatArray:
    r = check_vector("size_measures", size_measures)
    require("size_measures", r, np.isfinite(r) & (r >= 0), "finite numbers ≥ 0")
    if not np.any(r > 0):
        raise ValueError("size_measures must contain at least one positive number")
    return r


def _check_sample_size(sample_size: int, positive_units: int) -> int:
    m = check_count("sample_size", sample_size, 1)
    if m > positive_units:
        raise ValueError(
            f"sample_size must not exceed the {positive_units:,} units with a positive size "
            f"measure; got {float(m):g}"
        )
    return int(m)


def pps_inclusion_probabilities(size_measures: ArrayLike, sample_size: int) -> FloatArray:
    """Inclusion probabilities of PPS sampling without replacement (πps) of ``m`` units.

    ``a_i = m r_i / Σ_j r_j``, except that units whose value would exceed 1 are taken with
    certainty (``a_i = 1``) and the rest of the sample is spread proportionally over the
    others — the usual capping, so that ``Σ a_i = m`` and ``0 ≤ a_i ≤ 1``. Bun et al. §6.1
    (PPS on records) and §6.2 (PPS on clusters, ``r_i = |C_i|``).

    The ``c`` certainty units are the ``c`` largest, with ``c`` the smallest count for which
    the largest remaining unit fits: ``(m − c) r_(c+1) ≤ Σ_{j > c} r_(j)`` (sizes sorted in
    decreasing order).
    """
    r = _check_size_measures(size_measures)
    m = _check_sample_size(sample_size, int(np.count_nonzero(r > 0)))
    order = np.argsort(-r, kind="stable")
    rs = r[order]
    tail = np.cumsum(rs[::-1])[::-1]  # tail[c] = Σ_{j ≥ c} rs[j]
    c_range = np.arange(m)
    fits = (m - c_range) * rs[:m] <= tail[:m]
    c = int(np.argmax(fits))  # fits[m - 1] always holds, so argmax finds the first True
    a_sorted = np.empty_like(rs)
    a_sorted[:c] = 1.0
    a_sorted[c:] = np.minimum((m - c) * rs[c:] / tail[c], 1.0)
    a = np.empty_like(a_sorted)
    a[order] = a_sorted
    return a


def pps_max_inclusion(size_measures: ArrayLike, sample_size: ArrayLike) -> FloatOrArray:
    """Largest πps inclusion probability, ``min(1, m · max r / Σ r)``, for one or many ``m``.

    If ``m · max r ≤ Σ r`` nothing is capped and the largest unit has ``m max r/Σ r``;
    otherwise the largest unit is a certainty unit (probability 1). Equal to
    ``pps_inclusion_probabilities(r, m).max()`` without computing the others.
    """
    r = _check_size_measures(size_measures)
    scalar = np.ndim(sample_size) == 0
    m = check_count("sample_size", sample_size, 1)
    positive = int(np.count_nonzero(r > 0))
    if np.any(m > positive):
        raise ValueError(
            f"sample_size must not exceed the {positive:,} units with a positive size measure; "
            f"got {float(np.max(m)):g}"
        )
    return finish(np.minimum(1.0, m * (float(np.max(r)) / float(np.sum(r)))), scalar)


def _other_extremes(values: FloatArray, counts: FloatArray) -> tuple[FloatArray, FloatArray]:
    """For each size class, the smallest and largest size among the *other* clusters."""
    smallest, largest = values[0], values[-1]
    second_smallest = values[0] if counts[0] > 1 else values[min(1, values.size - 1)]
    second_largest = values[-1] if counts[-1] > 1 else values[max(-2, -values.size)]
    n_min = np.where(values == smallest, second_smallest, smallest)
    n_max = np.where(values == largest, second_largest, largest)
    return n_min, n_max


def systematic_eps_bounds(
    eps_sample: ArrayLike, population_size: int, interval: ArrayLike
) -> EpsBounds:
    """§6.3: systematic sampling of an ordering known to the attacker, as cluster sampling.

    Every ``interval``-th record (interval ``k``) from a random start among the first ``k``
    is the single-stage cluster design with ``k`` "clusters" ``{j, j + k, j + 2k, …}`` of which
    ``ℓ = 1`` is drawn (Bun et al. §6.3). With ``N = population_size = f k + rem``
    (``0 ≤ rem < k``), ``rem`` clusters hold ``f + 1`` records and ``k − rem`` hold ``f``.
    Theorems 5.1 and 5.2 bound each person's ε′; returned are the bounds for the worst person
    (the maximum over clusters ``i`` of each bound), so ``lower ≤ ε′ ≤ upper`` for the design.
    As the expression ``(*)`` increases with the combined size ``s``, the maximum sits at::

        lower:  s = 2f + [rem ≥ 1]                 (a larger cluster next to a smaller one)
        upper:  s = 2f + [rem ≥ 1] + [rem ≥ 2]     (two larger clusters)

    The sample holds about ``N/k`` records, so these bounds are essentially ε unless the
    sample is tiny. If the order is random and secret, systematic sampling *is* simple random
    sampling: compare with ``srs_eps(eps_sample, k, 1)``.
    """
    scalar = all_scalar(eps_sample, interval)
    n = float(check_count("population_size", population_size, 2))
    e = check_eps("eps_sample", eps_sample)
    k = check_count("interval", interval, 2)
    if np.any(k > n):
        raise ValueError(
            f"interval must not exceed population_size; got {float(np.max(k)):g} > {n:g}"
        )
    e, k = broadcast(eps_sample=e, interval=k)
    f = np.floor(n / k)
    rem = n - f * k
    s_lower = 2.0 * f + (rem >= 1)
    s_upper = s_lower + (rem >= 2)
    odds = _log_odds_out(k, np.ones_like(k))
    lower = _mixture_eps(e, odds, s_lower * e)
    upper = np.maximum(_mixture_eps(e, odds, s_upper * e), lower)
    return EpsBounds(finish(lower, scalar), finish(upper, scalar))


# ---------------------------------------------------------------------------------------
# A population's own clusters
# ---------------------------------------------------------------------------------------


def cluster_sizes(labels: ArrayLike) -> ClusterSizes:
    """Distinct cluster labels (sorted) and the number of records with each."""
    arr = np.asarray(labels)
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError("labels must be a non-empty one-dimensional array")
    if arr.dtype.kind == "O":
        codes, uniques = pd.factorize(pd.Series(arr), sort=True)
        counts = np.bincount(codes, minlength=len(uniques))
        return ClusterSizes(np.asarray(uniques, dtype=object), counts.astype(np.int64))
    uniques, counts = np.unique(arr, return_counts=True)
    return ClusterSizes(uniques, counts.astype(np.int64))


def per_cluster_bounds(
    eps_sample: float,
    sizes: ArrayLike,
    clusters_sampled: int,
    labels: ArrayLike | None = None,
) -> pd.DataFrame:
    """Theorem 5.1/5.2 bounds and the §6.2 PPS bound for a person in each cluster.

    Parameters
    ----------
    eps_sample : float
        ε of the ε-deletion-DP mechanism on the sample.
    sizes : array_like of int
        Records in each of the ``k ≥ 2`` clusters.
    clusters_sampled : int
        ``ℓ``, with ``1 ≤ ℓ ≤ k``.
    labels : array_like, optional
        Cluster names, aligned with ``sizes`` (default ``0 … k − 1``).

    Returns
    -------
    pandas.DataFrame
        One row per cluster, in the order given: ``cluster``, ``size`` (``n_i``),
        ``smallest other`` / ``largest other`` (``n_min`` / ``n_max`` over ``j ≠ i``),
        ``lower`` (Theorem 5.1), ``upper`` (Theorem 5.2), ``srs`` (eq. 3 at ``ℓ/k``),
        ``pps inclusion`` (πps probability of the cluster when ``ℓ`` clusters are drawn with
        probability proportional to size, §6.2) and ``pps lower`` (the §6.1 bound
        ``ln(1 + a_i(e^ε − 1))`` for a record of that cluster).
    """
    if np.ndim(eps_sample) != 0:
        raise ValueError("eps_sample must be a single number here")
    s = check_count("sizes", sizes, 1)
    if s.ndim != 1 or s.size < 2:
        raise ValueError("sizes must list at least two clusters")
    k = s.size
    ell = check_count("clusters_sampled", clusters_sampled, 1)
    if ell > k:
        raise ValueError(f"clusters_sampled must not exceed the {k:,} clusters; got {ell:g}")
    values, counts = np.unique(s, return_counts=True)
    n_min_c, n_max_c = _other_extremes(values, counts.astype(np.float64))
    idx = np.searchsorted(values, s)
    n_min, n_max = n_min_c[idx], n_max_c[idx]
    lower_c, upper_c = cluster_eps_bounds(eps_sample, k, ell, values, n_min_c, n_max_c)
    a = pps_inclusion_probabilities(s, int(ell))
    names = np.arange(k) if labels is None else np.asarray(labels)
    if names.shape != (k,):
        raise ValueError(f"labels must have one entry per cluster ({k:,}); got shape {names.shape}")
    return pd.DataFrame(
        {
            "cluster": names,
            "size": s.astype(np.int64),
            "smallest other": n_min.astype(np.int64),
            "largest other": n_max.astype(np.int64),
            "lower": np.asarray(lower_c)[idx],
            "upper": np.asarray(upper_c)[idx],
            "srs": srs_eps(eps_sample, k, ell),
            "pps inclusion": a,
            "pps lower": inclusion_eps(eps_sample, a),
        }
    )


# ---------------------------------------------------------------------------------------
# The lower-bound construction of Theorem 5.1, evaluated exactly
# ---------------------------------------------------------------------------------------


def _log_binom(n: FloatArray | float, j: FloatArray | float) -> FloatArray:
    return gammaln(n + 1.0) - gammaln(j + 1.0) - gammaln(n - j + 1.0)


def _log_esp(eps_sample: float, m: int, values: FloatArray, counts: FloatArray) -> float:
    """``log Σ_{|J| = m} e^{−ε Σ_{j∈J} n_j}`` over ``m``-subsets of the other clusters.

    The clusters come in at most two size classes (``values`` with ``counts``); the sum runs
    over how many of the ``m`` come from the first class, with binomial weights in log space.
    """
    if m == 0:
        return 0.0
    if values.size == 1:
        return float(_log_binom(counts[0], float(m)) - eps_sample * m * values[0])
    (a, b), (ca, cb) = values, counts
    j = np.arange(max(0, m - int(cb)), min(int(ca), m) + 1, dtype=np.float64)
    terms = _log_binom(ca, j) + _log_binom(cb, m - j) - eps_sample * (j * a + (m - j) * b)
    return float(logsumexp(terms))


def witness_eps(
    eps_sample: float,
    clusters_sampled: int,
    size_i: int,
    other_sizes: Sequence[int],
    other_counts: Sequence[int],
) -> float:
    """Exact privacy loss, on a tail event, of the construction in the proof of Theorem 5.1.

    Cluster ``i`` holds ``n_i`` records equal to ``+1``, every other cluster records equal to
    ``−1``; ``M(S) = Σ_{x∈S} x + Lap(1/ε)`` is ε-deletion-DP; the neighbour adds one ``+1``
    to cluster ``i``. For an event ``{output > t}`` with ``t`` above every possible mean, the
    ratio of its probabilities under the neighbour and the population is, exactly::

        e^{ε_w} = 1 + (e^ε − 1) / (1 + e^{−ε n_i} S_ℓ / S_{ℓ−1}),
        S_m = Σ_{J ⊂ others, |J| = m} e^{−ε Σ_{j∈J} n_j}

    (each Laplace tail is ``½ e^{−ε(t − μ)}``, so every mixture component contributes
    ``e^{ε μ_I}``). So ``ε' ≥ ε_w`` for this population and mechanism; with every other
    cluster of size ``n_min`` this is the value of Theorem 5.1, and Theorem 5.2 caps it, so
    ``lower ≤ ε_w ≤ upper`` whatever the mix of sizes.

    The neighbour *adds* a record, as in the statement of Theorem 5.1. (The written proof in
    Appendix D switches a ``+1`` to a ``−1`` instead, a replacement, which would move the sum
    by 2; adding one record reproduces the theorem's expression exactly.)

    The other ``k − 1`` clusters come in one or two size classes (``other_sizes`` with
    ``other_counts``; ``k = 1 + Σ counts``). ``S_m`` sums binomial coefficients of the counts,
    evaluated with ``gammaln`` and ``logsumexp`` so that ``k = 10⁶``, sizes ``10⁵`` and
    ``ε = 1000`` do not overflow.
    """
    e = float(check_eps("eps_sample", eps_sample))
    ni = float(check_count("size_i", size_i, 1))
    sizes = check_count("other_sizes", other_sizes, 1).reshape(-1)
    counts = check_count("other_counts", other_counts, 0).reshape(-1)
    if sizes.size != counts.size or not 1 <= sizes.size <= 2:
        raise ValueError("other_sizes and other_counts must be one or two aligned entries")
    keep = counts > 0
    sizes, counts = sizes[keep], counts[keep]
    if sizes.size == 0:
        raise ValueError("there must be at least one other cluster")
    if sizes.size == 2 and sizes[0] == sizes[1]:
        sizes, counts = sizes[:1], np.array([counts.sum()])
    order = np.argsort(sizes)
    sizes, counts = sizes[order], counts[order]
    k = 1 + int(counts.sum())
    ell = int(check_count("clusters_sampled", clusters_sampled, 1))
    if ell > k:
        raise ValueError(f"clusters_sampled must not exceed the {k:,} clusters; got {ell:,}")
    if ell == k:
        return e
    log_ratio = -e * ni + _log_esp(e, ell, sizes, counts) - _log_esp(e, ell - 1, sizes, counts)
    value = float(np.logaddexp(0.0, _log_expm1(np.float64(e)) - np.logaddexp(0.0, log_ratio)))
    return min(max(value, 0.0), e)
