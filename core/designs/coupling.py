"""Cluster samples drawn by public labels: the coupling bound for a changed record.

Cluster designs (:class:`core.designs.cluster.ClusterDesign`, ``ℓ`` of ``k`` clusters, and
:class:`core.designs.poisson_cluster.PoissonCluster`, each cluster on its own coin) draw
*clusters*, and which clusters are drawn does not depend on the records: the list of
clusters is public and fixed (:data:`core.designs.cluster.CLUSTER_FRAME`).

The bound
---------
Let a record move from cluster ``j`` to cluster ``j'`` (or stay in ``j`` and change).  Draw
the same set of clusters for both populations.  Given that set, the two samples are equal
(neither cluster drawn), differ by the record removed (only ``j`` drawn), by the record
added (only ``j'``) or by the record changed (both, or ``j = j'`` drawn).  A mechanism with
budgets ``a`` (add/remove) and ``c`` (change) has, for every output set ``E``,
``Pr[M(s) ∈ E] <= e^{max(a, c_eff)} Pr[M(s') ∈ E]`` for each such pair, with
``c_eff = min(c, 2a)``.  The population's probability is the average over the common
cluster draw, and a ratio of two averages with the same weights is at most the largest
ratio of their terms.  So the population keeps ``max(a, c_eff)`` (``c_eff`` when labels
are public and a change stays in its cluster) -- for every cluster size.

Group privacy over Bun et al.'s Theorem 5.2 (twice its bound at ``a``) is smaller for
small clusters at small rates, larger once ``a`` times the cluster size is more than a
few: the accounting takes the smaller and names it.

It is tight for large clusters
------------------------------
The bound gives up amplification altogether, and rightly so once clusters are large: a
mechanism can tell whether cluster ``j`` was drawn.  With ``c_eff >= a``, let ``M`` have
output 1 with probability ``κ exp(a·[x ∈ s] − (c_eff − a)·[x' ∈ s] + a·|s ∩ C_j|)``,
``C_j`` the other ``m`` records of cluster ``j`` (``κ`` small).  Adding or removing one
record moves the exponent by at most ``a``, changing one by at most ``c_eff`` (check each
pair of record kinds: ``x``, ``x'``, ``C_j``, others), so it keeps both budgets.  Changing
``x`` into ``x'`` inside cluster ``j``, drawn with probability ``q``, gives the loss

    ``ln((q e^{a(m+1)} + 1 − q) / (q e^{a m − (c_eff − a)} + 1 − q))``
    (:func:`attained_change_loss`),

which tends to ``c_eff`` as ``a m`` grows.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from ..designs.protocol import Accounting, PlannerDesign, Point, factor_pair

if TYPE_CHECKING:
    from ..mechanisms import BudgetFactors

__all__ = ["ClusterCoupling", "attained_change_loss", "coupling_factor"]

COUPLING_BOUND = (
    "the cluster draw does not depend on the records: given it, the two samples differ by "
    "one change, one removal, one addition or nothing (a coupling), so the mechanism's own "
    "budget holds"
)


def coupling_factor(factors: BudgetFactors | None, shared: bool = False) -> float | None:
    """``max(α, min(γ, 2α))``: the population's loss per unit of ``eps_sample`` under the
    coupling bound for a record that may change cluster (None without an add/remove
    guarantee).

    ``shared`` (releases share the sample): ``2α``.  Each release then picks between group
    privacy and this bound by ``α`` alone, so whichever it picks, the releases' add/remove
    budgets add up to what that bound allows; with ``γ`` in the choice, a release priced by
    one bound and another priced by the other could together exceed both.
    """
    alpha, gamma_eff = factor_pair(factors, shared)
    if alpha is None:
        return None
    return max(alpha, gamma_eff)


def attained_change_loss(eps_ar: float, eps_sub: float, drawn: float, others: int) -> float:
    """The loss of the module docstring's mechanism: a record changed inside a cluster of
    ``others + 1`` records that is drawn with probability ``drawn``.

    A lower bound on the worst loss of the design (it tends to ``min(eps_sub, 2 eps_ar)``
    as ``eps_ar · others`` grows); needs ``min(eps_sub, 2 eps_ar) >= eps_ar``.
    """
    a, c = eps_ar, min(eps_sub, 2.0 * eps_ar)
    if not (a > 0.0 and c >= a and 0.0 < drawn <= 1.0 and others >= 0):
        raise ValueError("needs eps_ar > 0, min(eps_sub, 2 eps_ar) >= eps_ar, 0 < drawn <= 1")
    q = drawn
    log_q, log_rest = math.log(q), math.log1p(-q) if q < 1.0 else -math.inf
    high = _logaddexp(log_q + a * (others + 1), log_rest)
    low = _logaddexp(log_q + a * others - (c - a), log_rest)
    return high - low


def _logaddexp(x: float, y: float) -> float:
    if y == -math.inf:
        return x
    top = max(x, y)
    return top + math.log1p(math.exp(min(x, y) - top))


class ClusterCoupling(PlannerDesign):
    """A cluster design whose changed-record accounting also offers the coupling bound."""

    def caveat(self, relation: str) -> str:
        """How a changed record is priced: the smaller of two bounds."""
        if relation != "replacement":
            return super().caveat(relation)
        return (
            "A changed record may move to another cluster. Its price is the smaller of group "
            "privacy (twice the theorem's bound for an added or removed record) and the "
            "coupling bound: the clusters drawn do not depend on the records, so the two "
            "samples differ by one change, one removal, one addition or nothing, and the "
            "population keeps the mechanism's own budget for those."
        )

    def change_accounting(
        self,
        eps_target: float,
        factors: BudgetFactors | None,
        point: Point,
        *,
        shared: bool = False,
    ) -> Accounting:
        """Group privacy over the design's theorem, or the coupling bound where it lets the
        mechanism spend more (module docstring; ``shared`` as in :func:`coupling_factor`)."""
        group = super().change_accounting(eps_target, factors, point, shared=shared)
        factor = coupling_factor(factors, shared)
        if factor is None or eps_target / factor <= group.eps_sample:
            return group
        return Accounting(eps_target / factor, COUPLING_BOUND)

    def change_eps_target(
        self,
        eps_sample: float,
        factors: BudgetFactors | None,
        point: Point,
        *,
        shared: bool = False,
    ) -> float:
        """The inverse of :meth:`change_accounting`: the smaller guarantee."""
        group = super().change_eps_target(eps_sample, factors, point, shared=shared)
        factor = coupling_factor(factors, shared)
        return group if factor is None else min(group, factor * eps_sample)
