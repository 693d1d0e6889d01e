"""Which bound a changed record gets under each design, from a mechanism's two budgets.

:mod:`core.accounting.change_one` proves the exact Poisson bound for a changed record; this
module applies it design by design, with the alternatives that also hold, and keeps the
smallest: simple random samples (Hu et al. Theorem 1 at the effective change budget),
Poisson samples (the exact bound), proportional stratified and cluster samples (group
privacy over Bun et al.'s add/remove theorems, since a changed record may move to another
stratum or cluster; with public labels, the within-stratum or within-cluster bounds), the
census, and Neyman allocation (no bound).  Every answer names its bound and, where none
applies, says why (:class:`ChangeAccounting`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeAlias

import numpy as np
from numpy.typing import ArrayLike

from .. import amplification as amp
from .. import clusters as cl
from .. import strata as st
from .._validation import (
    FloatArray,
    as_float_array,
    check_choice,
    check_eps,
    check_rate,
    finite_scalar,
    require,
)
from ..accounting.change_one import (
    _check_factors,
    effective_change_factor,
    poisson_eps_sample,
    poisson_eps_target,
)
from ..accounting.stratified_profile import stratified_eps_sample, stratified_eps_target
from ..designs import ClusterSampling

__all__ = ["DESIGNS", "ChangeAccounting", "change_accounting"]

#: A bound as ``(eps_sample -> eps_target, eps_target -> eps_sample)``, both increasing.
_Bound: TypeAlias = tuple[Callable[[float], float], Callable[[float], float]]
_Named: TypeAlias = list[tuple[str, _Bound]]
_Done: TypeAlias = Callable[[_Named, str], "ChangeAccounting"]

#: The designs :func:`change_accounting` knows (the planner's names).
DESIGNS = ("census", "srs", "poisson", "stratified_proportional", "cluster", "neyman")


@dataclass(frozen=True)
class ChangeAccounting:
    """What a design promises for a changed record, and which bound says so.

    Attributes
    ----------
    design : str
        One of :data:`DESIGNS`.
    eps_sample : float or None
        The budget the mechanism spends on the sample; ``None`` when no bound exists.
    eps_target : float or None
        The guarantee for a changed record of the population; ``None`` likewise.
    bound_name : str
        The bound used, with its paper (short, for a table).
    reason : str
        Plain words for the page: why this bound, and what it would take to do better.
    """

    design: str
    eps_sample: float | None
    eps_target: float | None
    bound_name: str
    reason: str

    @property
    def available(self) -> bool:
        """A bound exists (``eps_sample`` and ``eps_target`` are numbers)."""
        return self.eps_sample is not None


_GROUP_NOTE = (
    " The mechanism states no separate budget for a changed record, so a change is "
    "counted as a removal plus an addition (twice its add/remove budget)."
)


def _unavailable(design: str, bound: str, reason: str) -> ChangeAccounting:
    return ChangeAccounting(design, None, None, bound, reason)


def _solve(
    bounds: _Named,
    eps_target: float | None,
    eps_sample: float | None,
) -> tuple[float, float, str]:
    """Apply the smallest of several valid bounds, in the direction asked for.

    ``bounds`` lists ``(name, (f, f_inverse))`` pairs of increasing functions, each a valid
    bound; the guarantee is ``min_i f_i(eps_sample)`` and its inverse
    ``max_i f_i^{-1}(eps_target)`` (the inverse of a minimum of increasing functions).
    """
    if eps_sample is not None:
        t, name = min((float(f(eps_sample)), name) for name, (f, _) in bounds)
        return eps_sample, t, name
    assert eps_target is not None
    e, name = max((float(inv(eps_target)), name) for name, (_, inv) in bounds)
    return e, eps_target, name


def linear_(factor: float) -> _Bound:
    """``eps_target = factor · eps_sample`` and its inverse."""
    return (lambda x: factor * x, lambda y: y / factor)


def _stratum_sizes(stratum_sizes: ArrayLike) -> FloatArray:
    arr = as_float_array("stratum_sizes", stratum_sizes)
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError("stratum_sizes must list the records of each stratum (1-d, non-empty)")
    return require(
        "stratum_sizes",
        arr,
        np.isfinite(arr) & (arr >= 1) & (np.floor(arr) == arr),
        "whole numbers >= 1",
    )


def change_accounting(
    design: str,
    *,
    add_remove_factor: float | None,
    change_factor: float | None,
    eps_target: float | None = None,
    eps_sample: float | None = None,
    rate: float | None = None,
    stratum_sizes: ArrayLike | None = None,
    sizes: ArrayLike | None = None,
    clusters_sampled: int | None = None,
    labels_public: bool = False,
) -> ChangeAccounting:
    """The guarantee for a changed record that ``design`` gives a two-budget mechanism.

    Give exactly one of ``eps_target`` (the planner's question: how much may the mechanism
    spend?) and ``eps_sample`` (what does spending it promise?); the other is computed.
    The bound for each design, with its proof, is in the module docstring: Hu, Drechsler &
    Kim Theorem 1 with the change budget (census, SRS), the exact two-budget bound (P)
    (Poisson), group privacy over Bun et al. Theorems 4.3/7.2 and 5.2 (stratified and
    cluster samples whose strata or clusters a changed record may leave), and the sharper
    bounds for public, fixed strata or clusters (``labels_public=True``).

    Parameters
    ----------
    design : str
        One of :data:`DESIGNS`.
    add_remove_factor, change_factor : float or None
        The mechanism's ``alpha`` and ``gamma`` at the level it releases
        (:meth:`core.mechanisms.Mechanism.budget_factors`).
    eps_target, eps_sample : float, optional
        Exactly one, finite and > 0.
    rate : float, optional
        ``r`` for ``"srs"``, ``"poisson"`` and ``"stratified_proportional"``.
    stratum_sizes : array_like of int, optional
        ``N_j`` of every stratum: needed with ``labels_public=True``; when given otherwise,
        the condition ``r (N_j - 1) >= 1`` of the group-privacy legs is checked.
    sizes : array_like of int, optional
        Records per cluster (``"cluster"``).
    clusters_sampled : int, optional
        ``l`` (``"cluster"``).
    labels_public : bool, default False
        A person's stratum or cluster is public and cannot change with their record.

    Returns
    -------
    ChangeAccounting
        Budget, guarantee, the bound's name and a plain-words reason; ``eps_sample`` and
        ``eps_target`` are ``None`` when no bound covers the mechanism on this design.

    Raises
    ------
    ValueError
        For an unknown design, both or neither of ``eps_target``/``eps_sample``, bad
        factors, or a missing or invalid design parameter.
    """
    check_choice("design", design, DESIGNS)
    alpha, gamma = _check_factors(add_remove_factor, change_factor)
    if (eps_target is None) == (eps_sample is None):
        raise ValueError("give exactly one of eps_target and eps_sample")
    t = (
        None
        if eps_target is None
        else float(check_eps("eps_target", finite_scalar("eps_target", eps_target)))
    )
    e = (
        None
        if eps_sample is None
        else float(check_eps("eps_sample", finite_scalar("eps_sample", eps_sample)))
    )
    g_eff = effective_change_factor(alpha, gamma)
    group_note = _GROUP_NOTE if gamma is None or gamma > 2.0 * (alpha or math.inf) else ""

    def done(bounds: _Named, reason: str) -> ChangeAccounting:
        es, et, name = _solve(bounds, t, e)
        return ChangeAccounting(design, es, et, name, reason)

    def linear(factor: float) -> _Bound:
        return (lambda x: factor * x, lambda y: y / factor)

    if design == "neyman":
        return _unavailable(
            design,
            "none (Bun et al. Section 7)",
            "Neyman allocation sets each stratum's sample size from the data itself, so "
            "changing one record can change every stratum's sample size; no amplification "
            "theorem covers it.",
        )
    if design == "census":
        return done(
            [("no sampling: the mechanism's change budget", linear(g_eff))],
            "Without sampling the population gets the mechanism's own guarantee for a "
            "changed record." + group_note,
        )
    if design in ("srs", "poisson", "stratified_proportional"):
        if rate is None:
            raise ValueError(f"the {design!r} design needs rate=")
        r = float(check_rate("rate", finite_scalar("rate", rate)))
    if design == "srs":
        return done(
            [
                (
                    "Hu, Drechsler & Kim Theorem 1 with the change budget",
                    (
                        lambda x: float(amp.eps_target(g_eff * x, r)),
                        lambda y: float(amp.eps_sample(y, r)) / g_eff,
                    ),
                )
            ],
            "A simple random sample has a fixed size, so a changed record is a changed "
            "record of the sample, drawn with probability n/N (Hu, Drechsler & Kim "
            "Theorem 1)." + group_note,
        )
    if design == "poisson":
        if alpha is None:
            return done(
                [("no amplification: no add/remove guarantee", linear(g_eff))],
                "The mechanism holds only for a changed record in a sample of fixed size. "
                "On a Poisson sample the changed record's slot is either in the sample "
                "(the two samples differ by a change) or not (they are equal), so the "
                "population keeps the mechanism's budget, but the random sample size "
                "brings no amplification without an add/remove guarantee.",
            )
        a_, g_ = alpha, gamma
        return done(
            [
                (
                    "exact two-budget Poisson bound (Bun et al. eq. 3 extended)",
                    (
                        lambda x: float(
                            poisson_eps_target(a_ * x, math.inf if g_ is None else g_ * x, r)
                        ),
                        lambda y: float(poisson_eps_sample(y, r, a_, g_)),
                    ),
                )
            ],
            "Each record is in the sample with probability r independently of the others, "
            "so a changed record either enters the sample in place of the old one or "
            "neither does; the bound combines the mechanism's add/remove and change "
            "budgets exactly (it equals the add/remove bound when the two budgets agree)."
            + group_note,
        )
    if design == "stratified_proportional":
        return _stratified(done, alpha, g_eff, r, stratum_sizes, labels_public, group_note)
    return _cluster(done, alpha, gamma, g_eff, sizes, clusters_sampled, labels_public, group_note)


def _stratified(
    done: _Done,
    alpha: float | None,
    g_eff: float,
    r: float,
    stratum_sizes: ArrayLike | None,
    labels_public: bool,
    group_note: str,
) -> ChangeAccounting:
    design = "stratified_proportional"
    sizes = None if stratum_sizes is None else _stratum_sizes(stratum_sizes)
    bounds: _Named = []
    group_ok = alpha is not None and (sizes is None or bool(np.all(r * (sizes - 1.0) >= 1.0)))
    if alpha is not None and group_ok:
        a_ = alpha
        bounds.append(
            (
                "group privacy: twice Bun et al. Theorems 4.3/7.2",
                (
                    lambda x: 2.0 * float(st.proportional_eps_bound(a_ * x, r)),
                    lambda y: float(st.proportional_eps_sample_for_target(y / 2.0, r)) / a_,
                ),
            )
        )
    if alpha is not None and sizes is not None:
        a_, sizes_ = alpha, sizes
        bounds.append(
            (
                "exact privacy profile for these stratum sizes",
                (
                    lambda x: stratified_eps_target(
                        a_ * x, g_eff * x, r, sizes_, "replacement", labels_public
                    ),
                    lambda y: float(
                        stratified_eps_sample(y, r, sizes_, a_, g_eff, "replacement", labels_public)
                    ),
                ),
            )
        )
    if not labels_public:
        if not bounds:
            why = (
                "the mechanism has no add/remove guarantee"
                if alpha is None
                else "a stratum would fall below 1/r records once it loses one (the theorems "
                "need r × stratum size ≥ 1 before and after)"
            )
            return _unavailable(
                design,
                "none",
                "A changed record may move to another stratum, which changes two strata's "
                f"sizes and so their randomised allocations; group privacy over Bun et al. "
                f"Theorems 4.3/7.2 would cover it, but {why}. With public, fixed strata "
                "the within-stratum bound would apply.",
            )
        return done(
            bounds,
            "A changed record may move to another stratum: one stratum loses a record and "
            "another gains one, so two allocations change and Bun et al.'s theorems (for "
            "one added or removed record) only cover the change as a removal plus an "
            "addition (group privacy: twice their bound). If the strata were public and "
            "fixed, a change would keep every allocation and the sample would be a simple "
            "random sample within the record's stratum.",
        )
    if sizes is None:
        raise ValueError("labels_public=True needs stratum_sizes= (records in each stratum)")
    x = r * sizes
    floors = np.floor(x)
    largest = np.minimum(floors + (x > floors), sizes)
    share = float(np.max(largest / sizes))
    bounds.append(
        (
            "within-stratum simple random sampling (Hu et al. Theorem 1, largest share)",
            (
                lambda v: float(amp.eps_target(g_eff * v, share)),
                lambda y: float(amp.eps_sample(y, share)) / g_eff,
            ),
        )
    )
    return done(
        bounds,
        "Strata are public and fixed, so a changed record stays in its stratum, every "
        "stratum keeps its size and the randomised allocation does not depend on the data. "
        "Given the allocation the record's stratum is a simple random sample of m of N, "
        f"drawn with probability at most {share:.4g} (the largest ⌈rN⌉/N): Hu, Drechsler "
        "& Kim Theorem 1 with the change budget, or group privacy over Bun et al. "
        "Theorems 4.3/7.2 where that is smaller." + group_note,
    )


def _cluster(
    done: _Done,
    alpha: float | None,
    gamma: float | None,
    g_eff: float,
    sizes: ArrayLike | None,
    clusters_sampled: int | None,
    labels_public: bool,
    group_note: str,
) -> ChangeAccounting:
    design = "cluster"
    if sizes is None or clusters_sampled is None:
        raise ValueError("the cluster design needs sizes= and clusters_sampled=")
    cs = ClusterSampling(sizes, clusters_sampled)
    k, ell, c = cs.clusters_total, cs.clusters_sampled, cs.combined_size
    q = ell / k
    bounds: _Named = []
    move_ok = alpha is not None and int(cs.sizes[0]) >= 2
    if alpha is not None and move_ok:
        a_ = alpha
        bounds.append(
            (
                "group privacy: twice Bun et al. Theorem 5.2 (worst record)",
                (
                    lambda x: 2.0 * float(cl.cluster_eps(a_ * x, k, ell, c)),
                    lambda y: float(cl.eps_sample_for_target(y / 2.0, k, ell, c)) / a_,
                ),
            )
        )
    if alpha is not None:
        coupling = g_eff if labels_public else max(alpha, g_eff)
        bounds.append(
            (
                "coupling: the cluster draw does not depend on the records",
                linear_(coupling),
            )
        )
    if not labels_public:
        if not bounds:
            why = (
                "the mechanism has no add/remove guarantee"
                if alpha is None
                else "a cluster has a single record, so a move could remove a whole cluster"
            )
            return _unavailable(
                design,
                "none",
                "A changed record may move to another cluster, changing two cluster sizes; "
                f"group privacy over Bun et al. Theorem 5.2 would cover it, but {why}.",
            )
        return done(
            bounds,
            "A changed record may move to another cluster, changing two cluster sizes; Bun "
            "et al. Theorem 5.2 (for one added record) then covers the change only as a "
            "removal plus an addition (group privacy: twice its bound). With public, fixed "
            "clusters a sharper bound would apply.",
        )
    if alpha is None:
        bounds.append(
            (
                "no amplification: no add/remove guarantee",
                (lambda x: g_eff * x, lambda y: y / g_eff),
            )
        )
        reason = (
            "Clusters are public and fixed: the changed record's cluster is drawn or not, and "
            "the two samples differ by that change or are equal, so the mechanism's change "
            "budget holds; without an add/remove guarantee the cluster draw cannot be "
            "related to samples without the cluster, so there is no amplification."
        )
    else:
        a_c, g_ = c * alpha, gamma
        bounds.append(
            (
                "two-budget bound with the cluster as the slot (cluster swaps by group privacy)",
                (
                    lambda x: float(
                        poisson_eps_target(a_c * x, math.inf if g_ is None else g_ * x, q)
                    ),
                    lambda y: float(poisson_eps_sample(y, q, a_c, g_)),
                ),
            )
        )
        reason = (
            "Clusters are public and fixed, so a changed record stays in its cluster, which "
            "is drawn with probability l/k. Samples with and without that cluster differ by "
            "swapping it for another drawn cluster (at most the two largest clusters' records "
            "added or removed, as in Bun et al. Theorem 5.2), and the samples with the old "
            "and the new record differ by one change: the two-budget bound applies, or group "
            "privacy over Theorem 5.2 where that is smaller." + group_note
        )
    return done(bounds, reason)
