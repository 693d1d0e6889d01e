"""Which designs and mechanisms a plan compares, and what each may spend.

A design's theorem is proven for one neighbouring relation (:mod:`core.designs.protocol`):
``"replacement"`` (change one person's record; Hu et al.'s bounded DP, the default) or
``"deletion"`` (add or remove one person; Bun et al.).  A mechanism fits a design when its
own guarantee is the one the theorem needs; the budget it may spend is the design's
accounting for that mechanism (the theorem itself, the mechanism's two budgets, or group
privacy), named in words in every plan row.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import mechanisms as mech
from .._validation import check_choice, finite_scalar
from ..accounting.zcdp import PROMISE_KINDS
from ..designs.frame import Frame
from ..designs.protocol import RELATIONS, Accounting, PlannerDesign, Point
from ..designs.registry import DESIGNS, design_named

if TYPE_CHECKING:
    from ..populations import Population

__all__ = [
    "DEFAULT_MEAN_MECHANISMS",
    "DEFAULT_QUANTILE_MECHANISMS",
    "DESIGN_LABELS",
    "MEAN_MECHANISMS",
    "NO_UPPER_MECHANISMS",
    "QUANTILE_MECHANISMS",
    "RELATIONS",
    "STATISTICS",
    "DesignStatus",
    "default_mechanisms",
    "default_rates",
    "design_statuses",
    "eps_sample_for",
    "eps_target_for",
    "mechanisms_for",
    "offered_mechanisms",
    "promise_refusal",
    "promise_refusals",
    "size_refusal",
    "size_refusals",
    "sizes_change",
    "theorem_keywords",
]

#: Plain-words names of the designs, in the order the planner lists them.
DESIGN_LABELS: dict[str, str] = {name: d.label for name, d in DESIGNS.items()}
STATISTICS = ("median", "quantile", "mean")
#: Mechanisms the planner offers for a quantile (the median included) and for the mean, in
#: display order.  The quantile list holds the four of Hu et al. and two pure mechanisms of
#: issue 23: the smooth-sensitivity quantile with polynomial-Laplace noise (Hladík & Tětek
#: 2025; change one record only, like ``smooth_pure``) and the piecewise-Laplace quantile
#: (Durfee 2025; both relations, like ``exponential``).  Their budgets are the mechanisms'
#: own at the level released (:meth:`core.mechanisms.Mechanism.budget_factors`).
QUANTILE_MECHANISMS = (
    "smooth_laplace",
    "smooth_pure",
    "exponential",
    "global_laplace",
    "smooth_polyplace",
    "piecewise_laplace",
)
MEAN_MECHANISMS = ("laplace", "gaussian", "ht_mean", "sum_count")
#: The mean mechanisms compared when none are named and the sizes cannot change between
#: neighbours (or are public): the three with closed-form errors.  Where sizes are private
#: and can change, the size-free mean (:class:`core.mechanisms.SumCountMean`) is compared
#: too (:func:`default_mechanisms`); it needs Monte Carlo of whole samples, so it is not
#: compared by default where the Horvitz–Thompson mean already holds.
DEFAULT_MEAN_MECHANISMS = ("laplace", "gaussian", "ht_mean")
#: The quantile mechanisms for a population with no public upper bound (``upper = inf``):
#: those whose release does not use U (``needs_upper`` false), i.e. the unbounded quantile
#: (Durfee 2023; ``add_remove_factor = change_factor = 1``, so it fits every design).
NO_UPPER_MECHANISMS = tuple(name for name, cls in mech.MECHANISMS.items() if not cls.needs_upper)
#: The quantile mechanisms a plan compares when none are named (the page's default choice):
#: Hu et al.'s four.  The others are compared when asked for, so that a default plan costs
#: what it did before they were offered.
DEFAULT_QUANTILE_MECHANISMS = QUANTILE_MECHANISMS[:4]


@dataclass(frozen=True)
class DesignStatus:
    """Whether the planner can compare a design on a population, and why not.

    Attributes
    ----------
    name, label : str
        Design name (a key of :data:`DESIGN_LABELS`) and its plain-words label.
    available : bool
        The planner evaluates it.
    reason : str
        Plain words: why it is not available (empty when it is), or a caveat.
    theorem : str
        The amplification theorem with its paper section.
    relation : str
        The neighbouring relation the theorem is proven for.
    """

    name: str
    label: str
    available: bool
    reason: str
    theorem: str
    relation: str


def positive(name: str, value: object) -> float:
    """``value`` as a finite float > 0, or ValueError naming ``name``."""
    x = finite_scalar(name, value)
    if x <= 0:
        raise ValueError(f"{name} must be a finite number > 0; got {value!r}")
    return x


def offered_mechanisms(statistic: str, *, bounded: bool = True) -> tuple[str, ...]:
    """Every mechanism the planner offers for ``statistic``, in display order.

    :data:`MEAN_MECHANISMS` for the mean; for a quantile :data:`QUANTILE_MECHANISMS`, or
    :data:`NO_UPPER_MECHANISMS` when the population has no public upper bound
    (``bounded=False``; the mean then has none).
    """
    check_choice("statistic", statistic, STATISTICS)
    if statistic == "mean":
        return MEAN_MECHANISMS if bounded else ()
    return QUANTILE_MECHANISMS if bounded else NO_UPPER_MECHANISMS


def sizes_change(relation: str, sizes_public: bool) -> bool:
    """Whether the size of the data a mechanism runs on may differ between neighbours.

    Under ``"deletion"`` (a record added or removed) the population's ``N`` (a cell's
    ``N_c``) differs by one, unless the sizes are declared public: then they are an
    invariant published with the release, the same for both neighbours.  Under
    ``"replacement"`` the sizes never change.
    """
    check_choice("relation", relation, RELATIONS)
    return relation == "deletion" and not sizes_public


def size_refusal(mechanism: str, relation: str, sizes_public: bool = False) -> str:
    """Why ``mechanism`` is not offered because it divides by a size that is not public.

    Empty when it is offered: it reads no size (:attr:`core.mechanisms.Mechanism.
    needs_public_size` false), or the sizes cannot change between neighbours
    (:func:`sizes_change`).
    """
    cls = mech.MECHANISMS[check_choice("mechanism", mechanism, mech.MECHANISMS)]
    if not cls.needs_public_size or not sizes_change(relation, sizes_public):
        return ""
    return (
        f"{cls.label}: it divides by the size N (a cell's N_c) of the data, which differs by "
        "one when a record is added or removed; its releases on two such neighbours have "
        "different noise scales and no ε bounds their ratio. It is offered when the sizes "
        "are declared public (an invariant published with the table) or when neighbours "
        "differ by a changed record; the noisy sum over a noisy count needs no size."
    )


def promise_refusal(mechanism: str, promise: str = "eps") -> str:
    """Why ``mechanism`` is not planned under a promise stated as ``promise``.

    Empty under a pure ε promise (``"eps"``), and under a ρ-zCDP promise (``"zcdp"``) for a
    pure ε-DP mechanism, which keeps ρ once ε_target is converted
    (:mod:`core.accounting.zcdp`).  An (ε, δ) mechanism (``uses_delta``) with δ > 0 implies
    no zCDP bound at all: its privacy loss may be unbounded with probability up to δ, and
    zCDP bounds every Rényi divergence.  So it is not planned with a converted ε.
    """
    cls = mech.MECHANISMS[check_choice("mechanism", mechanism, mech.MECHANISMS)]
    check_choice("promise", promise, PROMISE_KINDS)
    if promise == "eps" or not cls.uses_delta:
        return ""
    return (
        f"{cls.label}: it is (ε, δ)-DP with δ > 0, and an (ε, δ) guarantee implies no "
        "ρ-zCDP bound (with probability up to δ its privacy loss is unbounded, while zCDP "
        "bounds every Rényi divergence). Under a ρ-zCDP promise only pure ε-DP mechanisms "
        "are planned, at the ε_target the sharp conversion gives."
    )


def promise_refusals(
    statistic: str, promise: str = "eps", *, bounded: bool = True
) -> dict[str, str]:
    """Every mechanism offered for ``statistic`` that :func:`promise_refusal` refuses, with why."""
    return {
        m: r
        for m in offered_mechanisms(statistic, bounded=bounded)
        if (r := promise_refusal(m, promise))
    }


def size_refusals(
    statistic: str, relation: str, sizes_public: bool = False, *, bounded: bool = True
) -> dict[str, str]:
    """Every mechanism offered for ``statistic`` that :func:`size_refusal` refuses, with why."""
    return {
        m: r
        for m in offered_mechanisms(statistic, bounded=bounded)
        if (r := size_refusal(m, relation, sizes_public))
    }


def default_mechanisms(
    statistic: str,
    *,
    bounded: bool = True,
    relation: str = "replacement",
    sizes_public: bool = False,
) -> tuple[str, ...]:
    """The mechanisms a plan of ``statistic`` compares when none are named.

    :data:`DEFAULT_QUANTILE_MECHANISMS` for the median and another quantile; for the mean
    :data:`DEFAULT_MEAN_MECHANISMS`, and every mean mechanism offered when the sizes may
    change between neighbours (:func:`sizes_change`: the size-free mean replaces the ones
    refused); with no public upper bound (``bounded=False``) every mechanism offered
    (:func:`offered_mechanisms`).
    """
    if not bounded:
        return offered_mechanisms(statistic, bounded=False)
    check_choice("statistic", statistic, STATISTICS)
    if statistic != "mean":
        return DEFAULT_QUANTILE_MECHANISMS
    return MEAN_MECHANISMS if sizes_change(relation, sizes_public) else DEFAULT_MEAN_MECHANISMS


def mechanisms_for(
    statistic: str,
    design: str,
    relation: str,
    *,
    bounded: bool = True,
    sizes_public: bool = False,
) -> tuple[str, ...]:
    """Names of the mechanisms whose guarantee fits ``design``'s theorem under ``relation``.

    A fixed-size design (census, SRS) takes a mechanism proven for ``relation`` itself; a
    design with a random sample size (Poisson, stratified, cluster) takes a mechanism proven
    for added or removed records (:meth:`core.designs.protocol.PlannerDesign.fits`).  So the
    smooth-sensitivity quantiles and the ``R/n`` means fit the census and SRS under
    ``"replacement"`` (the polynomial-Laplace one included); the exponential, global-Laplace
    and piecewise-Laplace quantiles fit every design; the noisy centred sum (``"ht_mean"``)
    fits random-size designs and the census under ``"deletion"`` (the latter only when
    the population size is public, ``sizes_public``: :func:`size_refusal`), and the noisy
    sum over a noisy count (``"sum_count"``) fits the same designs whatever the sizes.
    With ``bounded=False`` (no public upper bound) only :data:`NO_UPPER_MECHANISMS` are
    considered.
    """
    check_choice("statistic", statistic, STATISTICS)
    d = design_named(design)
    check_choice("relation", relation, RELATIONS)
    if d.unavailable_for_relation(relation):
        return ()
    names = offered_mechanisms(statistic, bounded=bounded)
    return tuple(
        m
        for m in names
        if d.fits(mech.MECHANISMS[m], relation) and not size_refusal(m, relation, sizes_public)
    )


def _point(d: PlannerDesign, rate: float | None, sizes: Any, clusters_sampled: int | None) -> Point:
    """The point of ``d`` that :func:`eps_sample_for`'s keyword arguments describe."""
    given = {"rate": rate, "sizes": sizes, "clusters_sampled": clusters_sampled}
    return d.theorem_point({k: v for k, v in given.items() if v is not None})


def _factors(name: str | None, quantile: float) -> mech.BudgetFactors | None:
    """The budgets of mechanism ``name`` releasing level ``quantile`` (None when unnamed)."""
    if name is None:
        return None
    cls = mech.MECHANISMS[check_choice("mechanism", name, mech.MECHANISMS)]
    return cls.budget_factors(quantile)


def accounting_for(
    design: str,
    eps_target: float,
    *,
    relation: str = "replacement",
    mechanism: str | None = None,
    rate: float | None = None,
    sizes: Any = None,
    clusters_sampled: int | None = None,
    quantile: float = 0.5,
) -> Accounting:
    """:func:`eps_sample_for` with the bound it used, in words."""
    d = design_named(design)
    check_choice("relation", relation, RELATIONS)
    t = positive("eps_target", eps_target)
    reason = d.unavailable_for_relation(relation)
    if reason:
        raise ValueError(reason)
    return d.accounting(
        t, relation, _factors(mechanism, quantile), _point(d, rate, sizes, clusters_sampled)
    )


def eps_sample_for(
    design: str,
    eps_target: float,
    *,
    relation: str = "replacement",
    mechanism: str | None = None,
    rate: float | None = None,
    sizes: Any = None,
    clusters_sampled: int | None = None,
    quantile: float = 0.5,
) -> float:
    """The largest ``eps_sample`` that ``design`` may spend and still promise ``eps_target``.

    The design's theorem inverted exactly (closed forms for SRS, Poisson and proportional
    stratified sampling, Brent's method for clusters).  Under ``relation="replacement"`` a
    design proven for added or removed records uses the mechanism's two budgets where a bound
    is proven (:mod:`core.accounting.change_one`, Poisson sampling), and otherwise group
    privacy (``eps_target / 2`` through the theorem); with no ``mechanism`` named, group
    privacy.  The mechanism's budgets are those at the level ``quantile`` it releases
    (:meth:`core.mechanisms.Mechanism.budget_factors`): under ``"deletion"`` the census
    gives the exponential median ``eps_target / (1/2)``.

    Parameters
    ----------
    design : str
        A key of :data:`DESIGN_LABELS` (not ``"neyman"``).
    eps_target : float
        The promised guarantee, finite and > 0.
    relation : str
        ``"replacement"`` (default) or ``"deletion"``.
    mechanism : str, optional
        The mechanism that spends the budget (a key of :data:`core.mechanisms.MECHANISMS`).
    rate : float, optional
        ``r`` for SRS, Poisson and stratified designs.
    sizes : array_like of int, optional
        Records per cluster (cluster design).
    clusters_sampled : int, optional
        ``ℓ`` (cluster design).
    quantile : float, default 0.5
        The level the mechanism releases, in (0, 1) (0.5 for the median; a mean mechanism
        ignores it).

    Raises
    ------
    ValueError
        For an unknown design or relation, a missing design parameter, a design without a
        theorem for ``relation`` (Neyman; SRS under deletion) or a bad ``eps_target``.
    """
    return accounting_for(
        design,
        eps_target,
        relation=relation,
        mechanism=mechanism,
        rate=rate,
        sizes=sizes,
        clusters_sampled=clusters_sampled,
        quantile=quantile,
    ).eps_sample


def eps_target_for(
    design: str,
    eps_sample: float,
    *,
    relation: str = "replacement",
    mechanism: str | None = None,
    rate: float | None = None,
    sizes: Any = None,
    clusters_sampled: int | None = None,
    quantile: float = 0.5,
) -> float:
    """The guarantee ``eps_target`` that ``design`` gives when the mechanism spends ``eps_sample``.

    The inverse of :func:`eps_sample_for` (same parameters).
    """
    d = design_named(design)
    check_choice("relation", relation, RELATIONS)
    e = positive("eps_sample", eps_sample)
    reason = d.unavailable_for_relation(relation)
    if reason:
        raise ValueError(reason)
    return d.eps_target_of(
        e, relation, _factors(mechanism, quantile), _point(d, rate, sizes, clusters_sampled)
    )


def theorem_keywords(population: Population | Frame, design: str, rate: float) -> dict[str, Any]:
    """The keyword arguments of :func:`eps_sample_for` that ``design`` takes at ``rate`` on
    ``population`` (a rate, cluster sizes and ``ℓ``, or nothing for the census)."""
    frame = population if isinstance(population, Frame) else Frame.of(population)
    d = design_named(design)
    reason = d.unavailable(frame, d.proven_for if d.proven_for in RELATIONS else "replacement")
    if reason:
        raise ValueError(reason)
    return d.theorem_keywords(frame, rate)


def design_statuses(
    population: Population | Frame, statistic: str = "median", relation: str = "replacement"
) -> tuple[DesignStatus, ...]:
    """Every design with whether the planner compares it on ``population`` and why not.

    Parameters
    ----------
    population : Population or Frame
        The active population (strata and clusters decide what is available).
    statistic : str
        ``"median"``, ``"quantile"`` or ``"mean"``.
    relation : str
        ``"replacement"`` or ``"deletion"``.

    Returns
    -------
    tuple of DesignStatus
        One per key of :data:`DESIGN_LABELS`, in that order.
    """
    check_choice("statistic", statistic, STATISTICS)
    check_choice("relation", relation, RELATIONS)
    frame = population if isinstance(population, Frame) else Frame.of(population)
    out = []
    for name, d in DESIGNS.items():
        reason = d.unavailable(frame, relation)
        available = not reason
        if available:
            reason = d.caveat(relation)
        out.append(DesignStatus(name, d.label, available, reason, d.theorem, d.proven_for))
    return tuple(out)


def default_rates(population: Population | Frame) -> tuple[float, ...]:
    """Eight sampling rates, geometric from about 20 records (at least 0.5 %) to 80 %."""
    N = population.N if isinstance(population, Frame) else population.size
    lo = min(0.5, max(0.005, 20.0 / N))
    return tuple(float(f"{r:.3g}") for r in np.geomspace(lo, 0.8, 8))
