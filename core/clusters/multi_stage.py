"""Multi-stage cluster designs and the hypothesis-testing view: Bun et al. (2022), Section 5.2.

Two-stage designs with Poisson sampling inside the drawn clusters
(:func:`two_stage_eps_upper`) and the bound of Theorem 5.3 (:func:`hypothesis_test_bound`).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from .. import amplification as amp
from .._validation import (
    FloatOrArray,
    all_scalar,
    broadcast,
    check_count,
    check_eps,
    check_interval,
    check_nonnegative,
    finish,
)
from ..clusters.single_stage import _check_design, _log_odds_out, _mixture_eps

__all__ = [
    "hypothesis_test_bound",
    "two_stage_eps_upper",
]


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
