"""The lower-bound construction of Theorem 5.1, evaluated exactly (Bun et al. 2022).

:func:`witness_eps` computes the privacy loss of the construction with binomial
coefficients of huge cluster counts summed as ``logsumexp`` of ``gammaln`` terms.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy.special import gammaln, logsumexp

from .._validation import FloatArray, check_count, check_eps
from ..clusters.single_stage import _log_expm1

__all__ = [
    "witness_eps",
]


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
