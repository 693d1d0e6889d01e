"""Poisson cluster samples: each cluster kept independently with probability ``r``.

Every record of a kept cluster is in the sample; the number of clusters kept is random
(``Binomial(k, r)``).  Agencies draw area samples this way when the frame of clusters is
processed one cluster at a time.

Amplification (add or remove one record)
----------------------------------------
Let ``M`` be an ε-DP mechanism for added or removed records, and let the record ``x`` be
added to cluster ``i``, which held ``s`` records before.  Fix the clusters other than ``i``
(they are kept independently of ``i``) and write ``A``, ``B`` and ``B'`` for the chance of an
output set ``E`` when ``M`` runs on the kept other clusters alone, with cluster ``i``
added, and with cluster ``i`` and ``x`` added.  Then ``P(E) = (1 − r) A + r B'`` with the
record and ``(1 − r) A + r B`` without it.  The mechanism gives ``e^{−ε} B ≤ B' ≤ e^ε B``,
and group privacy over the ``s`` records of cluster ``i`` gives ``B ≤ e^{sε} A``.  So

    P_with(E) / P_without(E) ≤ ((1 − r) + r e^ε t) / ((1 − r) + r t),   t = B / A ≤ e^{sε},

which grows with ``t``; at ``t = e^{sε}`` it is
``ln((1 − r + r e^{(s+1)ε}) / (1 − r + r e^{sε}))``.  The reverse ratio is the same
expression at ``s − 1`` (removing ``x`` from a cluster of ``s`` records), which is smaller,
and averaging over the other clusters keeps the bound (a ratio of mixtures with a common
mixing law is at most the largest ratio).  The worst record of a population is one added to
its largest cluster, so with ``M`` the largest cluster size::

    eps_target = ln((1 − r + r e^{(M+1) ε}) / (1 − r + r e^{M ε}))
               = ln(1 + r (e^ε − 1) / (r + (1 − r) e^{−M ε})).

This is Bun et al.'s Theorem 5.2 expression with ``q = r`` and ``s = M``: the simple random
sample of ``ℓ`` clusters needs ``s`` = the two largest clusters together, because keeping
cluster ``i`` there pushes out another; independent draws push out none.  The bound is
attained by a noisy count in the limit of large outputs (tests/core/test_poisson_cluster.py
checks both by enumeration).  A changed record counts as a removal and an addition (group
privacy), as for the other cluster designs.

Windows: the kept clusters of a repetition are the drawn set of
:class:`core.designs.cluster_windows.ClusterWindows`; repetitions keep different numbers of
clusters, so each row is padded with clusters that hold no records.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray
from scipy.optimize import brentq

from .. import amplification as amp
from ..designs.cluster import _cluster_index, cluster_source, missing_clusters
from ..designs.cluster_windows import ClusterIndex
from ..designs.coupling import ClusterCoupling
from ..designs.frame import Frame
from ..designs.group_sums import shifted_sums
from ..designs.protocol import Point, WindowDraw

if TYPE_CHECKING:
    from ..linear.moments import LinearMoments
    from ..linear.sums import GroupSums

__all__ = ["PoissonCluster", "poisson_cluster_eps", "poisson_cluster_eps_sample"]


def _log_mix(rate: float, a: float) -> float:
    """``ln(1 − r + r e^a)`` for ``a ≥ 0``, without overflow or cancellation."""
    if a < 30.0:
        return math.log1p(rate * math.expm1(a))
    return a + math.log(rate) + math.log1p((1.0 - rate) / rate * math.exp(-a))


def poisson_cluster_eps(eps_sample: float, rate: float, largest: int) -> float:
    """``ln((1 − r + r e^{(M+1)ε}) / (1 − r + r e^{Mε}))`` (module docstring).

    Parameters
    ----------
    eps_sample : float
        ``ε`` of the mechanism for added or removed records, > 0.
    rate : float
        Probability ``r`` in (0, 1] of keeping each cluster.
    largest : int
        ``M``, the largest cluster's number of records.
    """
    e, r, m = float(eps_sample), float(rate), int(largest)
    if r >= 1.0:
        return e
    return _log_mix(r, (m + 1) * e) - _log_mix(r, m * e)


def poisson_cluster_eps_sample(eps_target: float, rate: float, largest: int) -> float:
    """The ``ε`` whose :func:`poisson_cluster_eps` is ``eps_target`` (Brent's method).

    The bound lies between ``ln(1 + r(e^ε − 1))`` and ``ε``, so the answer lies between
    ``eps_target`` and :func:`core.amplification.eps_sample`.
    """
    t, r = float(eps_target), float(rate)
    if r >= 1.0:
        return t
    hi = float(amp.eps_sample(t, r))

    def gap(e: float) -> float:
        return poisson_cluster_eps(e, r, largest) - t

    if hi <= t or gap(t) >= 0.0:  # the bound is ε itself to the last bit (large M ε)
        return t
    if gap(hi) <= 0.0:
        return hi
    return float(
        brentq(
            gap,
            t,
            hi,
            xtol=1e-15 * hi,
            rtol=4 * np.finfo(float).eps,
        )
    )


class PoissonCluster(ClusterCoupling):
    """Each of the ``k`` clusters kept independently with probability ``r``."""

    name = "poisson_cluster"
    label = "Poisson cluster sample (each cluster kept with probability r)"
    short_label = "Poisson clusters"
    description = (
        "Each of the population's k clusters is kept on its own coin flip with probability "
        "rate, and every record of a kept cluster is in the sample. Keeping one cluster "
        "pushes no other out, so the bound of Bun et al. Theorem 5.2 holds with s = M, the "
        "largest cluster alone: log(1 + rate·(e^ε − 1)/(rate + (1 − rate)·e^(−M·ε))), for "
        "neighbours that add or remove one record. With large clusters the amplification "
        "all but disappears."
    )
    theorem = (
        "Poisson cluster sampling, ln(1 + r(e^ε − 1) / (r + (1 − r) e^(−Mε))) with M the "
        "largest cluster (the argument of Bun et al. Theorem 5.2)"
    )
    proven_for = "deletion"
    has_mean_moments = True
    has_linear_moments = True
    mask_bytes = 8 + 1 + 32

    def unavailable(self, frame: Frame, relation: str) -> str:
        return missing_clusters(frame) or super().unavailable(frame, relation)

    def point(self, frame: Frame, rate: float) -> Point | None:
        assert frame.cluster_sizes is not None
        largest = int(frame.cluster_sizes.max())
        k = frame.cluster_sizes.size
        return Point(rate, rate, rate * frame.N, rate * k, theorem={"rate": rate, "M": largest})

    def theorem_keywords(self, frame: Frame, rate: float) -> dict[str, Any]:
        """The rate and the population's cluster sizes."""
        assert frame.cluster_sizes is not None
        return {"rate": float(rate), "sizes": frame.cluster_sizes}

    def theorem_point(self, keywords: dict[str, Any]) -> Point:
        """The point of ``rate=`` and ``sizes=`` (records per cluster)."""
        if set(keywords) != {"rate", "sizes"}:
            raise ValueError("the Poisson cluster design needs rate= and sizes=")
        r = float(keywords["rate"])
        if not (math.isfinite(r) and 0.0 < r <= 1.0):
            raise ValueError(f"rate must be a number in (0, 1]; got {keywords['rate']!r}")
        sizes = np.asarray(keywords["sizes"])
        if sizes.ndim != 1 or sizes.size < 2 or (sizes < 1).any():
            raise ValueError("sizes must list at least two clusters of at least one record")
        return Point(r, r, math.nan, theorem={"rate": r, "M": int(sizes.max())})

    def amplified(self, eps_sample: float, point: Point) -> float:
        return poisson_cluster_eps(eps_sample, point.rate, point.theorem["M"])

    def deamplified(self, eps_target: float, point: Point) -> float:
        return poisson_cluster_eps_sample(eps_target, point.rate, point.theorem["M"])

    def draw_keys(self, frame: Frame, rows: int, rng: np.random.Generator) -> Any:
        """A uniform number per cluster: below ``r``, the cluster is kept."""
        assert frame.cluster_sizes is not None
        return rng.random((rows, frame.cluster_sizes.size))

    def mask(self, frame: Frame, keys: Any, point: Point) -> NDArray[np.bool_]:
        assert frame.cluster_codes is not None
        return np.asarray(keys[:, frame.cluster_codes] < point.size)

    def window_draw(
        self, frame: Frame, point: Point, reps: int, rng: np.random.Generator
    ) -> WindowDraw:
        """The kept clusters of ``reps`` samples, read through padded cluster windows."""
        index = frame.prepared("poisson_cluster_index", _padded_index)
        k = index.k // 2
        kept = rng.random((reps, k)) < point.rate
        counts = kept.sum(axis=1)
        width = max(1, int(counts.max()) if reps else 1)
        # Each row: its kept clusters, then empty padding clusters k, k + 1, ... (distinct).
        order = np.argsort(~kept, axis=1, kind="stable")[:, :width]
        pad = k + np.arange(width)[None, :]
        drawn = np.where(np.arange(width)[None, :] < counts[:, None], order, pad)
        sizes = index.sizes[drawn].sum(axis=1).astype(np.int64)

        source = cluster_source(frame, index, drawn, "poisson_cluster_run_table")
        return WindowDraw(sizes, source)

    def window_cost(self, frame: Frame, point: Point) -> float:
        assert frame.cluster_sizes is not None
        largest = float(frame.cluster_sizes.max())
        kept = point.rate * frame.cluster_sizes.size
        return 12_000.0 + 40.0 * kept * math.log2(largest + 1.0)

    def mean_moments(self, frame: Frame, point: Point) -> tuple[float, float, float]:
        """The Horvitz–Thompson mean ``c + Σ_S (x − c) / (r N)``: unbiased, with variance
        ``(1 − r) / (r N²) Σ_c T_c²`` (``T_c`` the cluster totals of ``x − c``; each cluster
        kept independently, Särndal, Swensson & Wretman 1992, §3.3)."""
        totals = frame.prepared("poisson_cluster_totals", _centred_totals)
        r, N = point.rate, frame.N
        variance = (1.0 - r) / (r * N * N) * float(np.dot(totals, totals))
        return 0.0, variance, r * N

    def linear_moments(self, frame: Frame, sums: GroupSums, point: Point) -> LinearMoments:
        """Horvitz–Thompson over clusters (:func:`core.linear.moments.poisson_cluster_moments`)."""
        from ..linear import moments

        return moments.poisson_cluster_moments(sums, point.rate)


def _padded_index(frame: Frame) -> ClusterIndex:
    """The clusters' index with as many empty clusters appended (padding for the rows)."""
    index = frame.prepared("cluster_index", _cluster_index)  # shared with the cluster design
    k = index.k
    offsets = np.concatenate((index.offsets, np.full(k, index.offsets[-1], dtype=np.int64)))
    return ClusterIndex(index.positions, offsets)


def _centred_totals(frame: Frame) -> NDArray[np.float64]:
    """Cluster totals of ``x − c``, ``c`` the middle of the bounds."""
    assert frame.cluster_codes is not None and frame.cluster_sizes is not None
    centre = frame.lower + (frame.upper - frame.lower) / 2.0
    return shifted_sums(frame.values, centre, frame.cluster_codes, frame.cluster_sizes.size)
