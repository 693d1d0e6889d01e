"""Exact output distributions of a property query, and their discrete hockey sticks.

Breutigam & Reischuk, "Statistical Privacy", §4.1 and §4.2 (Lemma 4): the PMFs of the count
without a mechanism and after subsampling, under a positive and a negative critical record;
the hockey-stick divergence of two discrete laws as a log-sum-exp of positive terms.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from scipy import special
from scipy.stats import binom

from .._validation import FloatArray
from ..statistical.checks import _check_m, _check_n, _check_pi

__all__ = [
    "OutputPmfs",
    "pmfs_no_mechanism",
    "pmfs_subsampling",
]


#: Atoms of B with a smaller log-probability are dropped (e^-800 ≈ 1e-348 < smallest double).
_LOG_TINY = -800.0


# ---------------------------------------------------------------------------------------
# Exact output distributions
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class OutputPmfs:
    """The query's answer distribution with the critical record positive or negative.

    Attributes
    ----------
    counts
        Possible counts ``j`` of positive records in what the query looks at (the whole
        database, or the sample); atoms with both probabilities below e^-800 are dropped.
    values
        The answers ``j / size`` (``size`` is ``n``, or ``m`` for subsampling).
    log_plus, log_minus
        Natural logs of ``P[answer = j/size]`` under μ+ and μ− (``-inf`` for impossible).
    log_ratio
        ``log(P+/P−)`` (``log Q+(j)`` of Lemma 4), ``±inf`` where one side is impossible.
    """

    counts: NDArray[np.int64]
    values: FloatArray
    log_plus: FloatArray
    log_minus: FloatArray
    log_ratio: FloatArray

    @property
    def plus(self) -> FloatArray:
        """P[answer = j/size | critical record positive]."""
        return np.exp(self.log_plus)

    @property
    def minus(self) -> FloatArray:
        """P[answer = j/size | critical record negative]."""
        return np.exp(self.log_minus)


def _binom_logpmf(k: NDArray[np.int64], trials: int, pi: float) -> FloatArray:
    with np.errstate(divide="ignore"):
        return np.asarray(binom.logpmf(k, trials, pi), dtype=np.float64)


def _trim(*logs: FloatArray) -> slice:
    """The contiguous index range where any of the log-probabilities is above e^-800."""
    keep = np.zeros(logs[0].shape, dtype=bool)
    for lg in logs:
        keep |= lg >= _LOG_TINY
    idx = np.flatnonzero(keep)
    return slice(int(idx[0]), int(idx[-1]) + 1)


def _subsampling_pmfs(n: int, m: int, pi: float) -> OutputPmfs:
    """Lemma 4: the count in a sample of ``m`` of ``n`` records, critical record ±."""
    lam = m / n
    j = np.arange(m + 1, dtype=np.int64)
    with np.errstate(divide="ignore"):
        log_lam = math.log(lam)
        log_rest = math.log1p(-lam) if lam < 1 else -math.inf
    drawn_plus = _binom_logpmf(j - 1, m - 1, pi)
    drawn_minus = _binom_logpmf(j, m - 1, pi)
    not_drawn = _binom_logpmf(j, m, pi)
    log_plus = np.logaddexp(log_lam + drawn_plus, log_rest + not_drawn)
    log_minus = np.logaddexp(log_lam + drawn_minus, log_rest + not_drawn)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = log_plus - log_minus
        if 0.0 < pi < 1.0:
            # Lemma 4: Q+(j) = (λj + (1 − λ)mπ) / (λ(m − j)ξ + (1 − λ)mπ), ξ = π/(1 − π);
            # more accurate than a difference of two log-PMFs.
            xi = pi / (1.0 - pi)
            jf = j.astype(np.float64)
            ratio = np.log(lam * jf + (1.0 - lam) * m * pi) - np.log(
                lam * (m - jf) * xi + (1.0 - lam) * m * pi
            )
    keep = _trim(log_plus, log_minus)
    counts = j[keep]
    return OutputPmfs(
        counts=counts,
        values=counts / float(m),
        log_plus=log_plus[keep],
        log_minus=log_minus[keep],
        log_ratio=ratio[keep],
    )


def pmfs_no_mechanism(n: int, pi: float) -> OutputPmfs:
    """Exact answer distributions of the plain property query (§4.2).

    With ``B ~ Binomial(n − 1, π)`` the other records' count, the answer is ``(1 + B)/n``
    under μ+ and ``B/n`` under μ−, so ``P+(j) = C(n−1, j−1) π^{j−1}(1−π)^{n−j}`` and
    ``P−(j) = C(n−1, j) π^j (1−π)^{n−1−j}``; their ratio is
    ``j(1 − π) / ((n − j) π)`` (Lemma 4 with λ = 1).

    Parameters
    ----------
    n
        Number of records (1 to ``MAX_N``).
    pi
        Probability π that a record has the property, in [0, 1].
    """
    n = _check_n(n)
    pi = _check_pi(pi)
    return _subsampling_pmfs(n, n, pi)


def pmfs_subsampling(n: int, m: int, pi: float) -> OutputPmfs:
    """Exact answer distributions when the query runs on a simple random sample (§4.1).

    A sample of ``m`` out of ``n`` records is drawn without replacement; the critical record
    is in it with probability ``λ = m/n``.  The other sampled records are i.i.d.
    Bernoulli(π), so (Lemma 4)::

        P+(j) = λ C(m−1, j−1) π^{j−1}(1−π)^{m−j} + (1 − λ) C(m, j) π^j (1−π)^{m−j}
        P−(j) = λ C(m−1, j) π^j (1−π)^{m−1−j}   + (1 − λ) C(m, j) π^j (1−π)^{m−j}

    and the answer is ``j/m``.  At ``m = n`` this is :func:`pmfs_no_mechanism`.

    Parameters
    ----------
    n
        Number of records.
    m
        Sample size, 1 ≤ m ≤ n.
    pi
        Property probability π in [0, 1].
    """
    n = _check_n(n)
    m = _check_m(m, n)
    pi = _check_pi(pi)
    return _subsampling_pmfs(n, m, pi)


# ---------------------------------------------------------------------------------------
# Discrete hockey sticks
# ---------------------------------------------------------------------------------------


def _log_hockey_discrete(log_a: FloatArray, log_ratio: FloatArray, eps: FloatArray) -> FloatArray:
    """log Σ_j a_j · max(0, 1 − e^{ε − L_j}) for each ε (eq. 3 for a PMF; L = log a/b)."""
    useful = log_ratio > 0  # only atoms with L > ε >= 0 contribute
    la, lr = log_a[useful], log_ratio[useful]
    if la.size == 0:
        return np.full(eps.shape, -np.inf)
    with np.errstate(divide="ignore", invalid="ignore"):
        gap = np.minimum(eps[:, None] - lr[None, :], 0.0)  # −inf where b_j = 0
        terms = la[None, :] + np.log(-np.expm1(gap))
    return np.asarray(special.logsumexp(terms, axis=1), dtype=np.float64)


def _discrete_deltas(pmfs: OutputPmfs, eps: FloatArray) -> tuple[FloatArray, FloatArray]:
    plus = np.exp(_log_hockey_discrete(pmfs.log_plus, pmfs.log_ratio, eps))
    minus = np.exp(_log_hockey_discrete(pmfs.log_minus, -pmfs.log_ratio, eps))
    return np.minimum(plus, 1.0), np.minimum(minus, 1.0)
