"""Single-stage cluster samples: ``ℓ`` of ``k`` clusters, every record of the drawn ones.

Bun et al. Theorem 5.2 bounds the guarantee of a record added to cluster ``i`` by
``ln(1 + q(e^ε − 1) / (q + (1 − q) e^{−s ε}))`` with ``q = ℓ/k`` and ``s`` the sizes of its
cluster and the largest other one added; the worst record of the population is in the
largest cluster (:class:`core.designs.ClusterSampling`).  A rate ``r`` means
``ℓ = round(r k)`` clusters.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from ..designs import ClusterSampling
from ..designs.cluster_windows import (
    ClusterIndex,
    ClusterRunWindows,
    ClusterWindows,
    draw_cluster_sets,
)
from ..designs.coupling import ClusterCoupling
from ..designs.frame import Frame
from ..designs.individual import permutations
from ..designs.protocol import Point, WindowDraw
from ..windowed.run_counts import RunCounts, counts_of_drawn
from ..windowed.runs import fits_group_table

if TYPE_CHECKING:
    from ..linear.moments import LinearMoments
    from ..linear.sums import GroupSums

__all__ = ["CLUSTER_FRAME", "ClusterDesign", "missing_clusters"]

#: The assumption a cluster sample's guarantee needs, stated wherever the guarantee is shown.
CLUSTER_FRAME = (
    "It assumes the list of clusters is public and fixed (the frame of primary sampling "
    "units): neighbouring populations differ by a record inside the existing clusters, "
    "never by a record that opens a cluster of its own."
)


def missing_clusters(frame: Frame) -> str:
    """Why a cluster design cannot run on ``frame`` (empty when it can)."""
    if frame.cluster_sizes is None:
        return "The population has no cluster labels (upload a file with a cluster column)."
    if frame.cluster_sizes.size < 2:
        return "The population has a single cluster: sampling it keeps all or nothing."
    return ""


class ClusterDesign(ClusterCoupling):
    """``ℓ = round(r k)`` of the population's ``k`` clusters, drawn without replacement."""

    has_mean_moments = True
    has_linear_moments = True

    name = "cluster"
    label = "Cluster sample"
    short_label = "Cluster"
    description = (
        "ℓ of the population's k clusters are drawn at random and every record of a drawn "
        "cluster is kept. Bun et al. Theorem 5.2 bounds the population's loss for neighbours "
        "that add or remove one record; the bound grows with the cluster sizes M, because a "
        "release computed from a few large clusters reveals which clusters were drawn "
        "(Theorem 5.1 shows this loss is unavoidable). With large clusters the amplification "
        "all but disappears."
    )
    theorem = "Bun et al. Theorem 5.2 (worst record: the two largest clusters)"
    proven_for = "deletion"
    mask_bytes = 4 + 1 + 32

    def unavailable(self, frame: Frame, relation: str) -> str:
        return missing_clusters(frame) or super().unavailable(frame, relation)

    def caveat(self, relation: str) -> str:
        """The group-privacy note of the base class, then the assumption of a fixed frame.

        Theorem 5.2 is proven for a fixed set of ``k`` clusters, and the plan fixes ``ℓ``.
        A neighbour whose extra record forms a cluster of its own has ``k + 1`` clusters:
        every cluster's chance of being drawn moves from ``ℓ/k`` to ``ℓ/(k + 1)``, and the
        one-record cluster can take the place of a cluster of ``M`` records.  The exact
        enumeration in ``tests/core/planner/test_exact_privacy.py`` finds a loss of 1.26
        against ``eps_target = 1`` for such a neighbour on six records in two clusters.  So
        the guarantee is stated for neighbours inside the existing clusters: the list of
        clusters (the frame of primary sampling units) is public.
        """
        return " ".join(part for part in (super().caveat(relation), CLUSTER_FRAME) if part)

    def point(self, frame: Frame, rate: float) -> Point | None:
        assert frame.cluster_sizes is not None
        k = int(frame.cluster_sizes.size)
        ell = min(k, max(1, round(rate * k)))
        return Point(
            ell / k,
            float(ell),
            ell / k * frame.N,
            float(ell),
            theorem={"sizes": frame.cluster_sizes, "clusters_sampled": ell},
        )

    def theorem_keywords(self, frame: Frame, rate: float) -> dict[str, Any]:
        """The population's cluster sizes and ``ℓ = round(rate · k)`` (at least 1)."""
        assert frame.cluster_sizes is not None
        k = int(frame.cluster_sizes.size)
        return {"sizes": frame.cluster_sizes, "clusters_sampled": min(k, max(1, round(rate * k)))}

    def theorem_point(self, keywords: dict[str, Any]) -> Point:
        """The point of ``sizes=`` (records per cluster) and ``clusters_sampled=`` (``ℓ``)."""
        if set(keywords) != {"sizes", "clusters_sampled"}:
            raise ValueError("the cluster design needs sizes= and clusters_sampled=")
        theorem = ClusterSampling(keywords["sizes"], keywords["clusters_sampled"])
        ell = theorem.clusters_sampled
        return Point(
            theorem.rate,
            float(ell),
            math.nan,
            float(ell),
            theorem={"sizes": theorem.sizes, "clusters_sampled": ell},
        )

    def _theorem(self, point: Point) -> ClusterSampling:
        return ClusterSampling(point.theorem["sizes"], point.theorem["clusters_sampled"])

    def amplified(self, eps_sample: float, point: Point) -> float:
        return float(self._theorem(point).eps_target(eps_sample))

    def deamplified(self, eps_target: float, point: Point) -> float:
        return float(self._theorem(point).eps_sample(eps_target))

    def window_draw(
        self, frame: Frame, point: Point, reps: int, rng: np.random.Generator
    ) -> WindowDraw:
        """The drawn clusters of ``reps`` samples; their order statistics by selection across
        the drawn clusters (:class:`core.designs.cluster_windows.ClusterWindows`)."""
        index = frame.prepared("cluster_index", _cluster_index)
        drawn = draw_cluster_sets(rng, index.k, round(point.size), reps)
        sizes = index.sizes[drawn].sum(axis=1).astype(np.int64)

        return WindowDraw(sizes, cluster_source(frame, index, drawn, "cluster_run_table"))

    def window_cost(self, frame: Frame, point: Point) -> float:
        """Record-equivalents of one windowed sample (a mask costs N): bisection steps of
        ``log2 M`` over the ``ℓ`` drawn clusters, measured about 40 per step."""
        assert frame.cluster_sizes is not None
        largest = float(frame.cluster_sizes.max())
        return 12_000.0 + 40.0 * point.size * math.log2(largest + 1.0)

    def draw_keys(self, frame: Frame, rows: int, rng: np.random.Generator) -> Any:
        """A uniform random rank per cluster: the clusters ranked below ``ℓ`` are drawn."""
        assert frame.cluster_sizes is not None
        return permutations(rng, rows, frame.cluster_sizes.size)

    def mask(self, frame: Frame, keys: Any, point: Point) -> NDArray[np.bool_]:
        assert frame.cluster_codes is not None
        return np.asarray(keys[:, frame.cluster_codes] < point.size)

    def linear_moments(self, frame: Frame, sums: GroupSums, point: Point) -> LinearMoments:
        """Expansion over clusters (:func:`core.linear.moments.cluster_moments`)."""
        from ..linear import moments

        return moments.cluster_moments(sums, round(point.clusters_sampled))


def cluster_source(
    frame: Frame, index: ClusterIndex, drawn: NDArray[np.int64], table_key: str
) -> Callable[[np.random.Generator, NDArray[np.int64]], ClusterWindows | RunCounts]:
    """The window source of cluster samples with the drawn clusters ``drawn`` (one row each).

    On a tied population: the samples' counts per run when they fit
    (:class:`core.windowed.run_counts.RunCounts`), else the run windows with the clusters'
    run table (kept with the frame under ``table_key``); otherwise the plain windows.
    """
    runs = frame.tied_runs()
    table = frame.prepared(table_key, lambda f: index.run_table(runs)) if runs is not None else None

    def per_run() -> NDArray[np.int64]:
        assert table is not None
        return frame.prepared(table_key + "_per_run", lambda f: np.diff(table, axis=1))

    def source(gen: np.random.Generator, rows: NDArray[np.int64]) -> ClusterWindows | RunCounts:
        if runs is not None and table is not None and fits_group_table(rows.size, runs):
            return RunCounts(runs, counts_of_drawn(per_run(), drawn[rows]))
        if runs is not None:
            return ClusterRunWindows(index, drawn[rows], runs, table)
        return ClusterWindows(index, drawn[rows])

    return source


def _cluster_index(frame: Frame) -> ClusterIndex:
    assert frame.cluster_codes is not None
    return ClusterIndex.of(frame.cluster_codes)
