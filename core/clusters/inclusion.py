"""Inclusion probabilities, PPS and systematic sampling: Bun et al. (2022), Section 6.

The inclusion-probability lower bound of Proposition 6.1 (:func:`inclusion_eps`), PPS
sampling (§6.1, :func:`pps_eps_lower`, :func:`pps_inclusion_probabilities`,
:func:`pps_max_inclusion`) and systematic sampling seen as cluster sampling (§6.3,
:func:`systematic_eps_bounds`).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from .. import amplification as amp
from .._validation import (
    FloatArray,
    FloatOrArray,
    all_scalar,
    broadcast,
    check_count,
    check_eps,
    check_interval,
    check_vector,
    finish,
    require,
)
from ..clusters.single_stage import EpsBounds, _log_odds_out, _mixture_eps

__all__ = [
    "inclusion_eps",
    "pps_eps_lower",
    "pps_inclusion_probabilities",
    "pps_max_inclusion",
    "systematic_eps_bounds",
]


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
