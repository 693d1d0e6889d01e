"""What the Release planner's tabs share: the page's inputs, their digest, the progress bar.

Each tab's view (:mod:`ui.planner.compare`, :mod:`ui.planner.accuracy`,
:mod:`ui.planner.several`, :mod:`ui.planner.publication`) draws from one frozen
:class:`PlannerInputs` of the page-level inputs instead of reading page globals. This module
imports no tab.
"""

from __future__ import annotations

import contextvars
import hashlib
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import streamlit as st

from core import planner
from core.linear.statistic import LinearStatistic
from core.planner.usability import DEFAULT_USABLE_SHARE
from core.populations import Population
from ui.planner import text

#: Smallest population the planner accepts (fewer records leave no room for a sample).
MIN_POPULATION = 20


@dataclass(frozen=True)
class PlannerInputs:
    """The page-level inputs.

    Attributes
    ----------
    pop, seed
        The active population and the global seed.
    statistic
        ``"median"``, ``"quantile"`` or ``"mean"``.
    eps_target, delta_target
        The guarantee promised for the population.
    relation
        ``"replacement"`` (change one record) or ``"deletion"`` (add or remove one record).
    designs
        The designs to plan: chosen by the user and available for the population.
    rates
        The sampling rates to evaluate, or None for the planner's default rates.
    reps
        Monte Carlo repetitions T.
    objective
        ``"error_95"`` or ``"rmse"``: what the best rate minimises.
    statuses
        Every design's status on the population (available or not, with its reason).
    quantile
        The level q of ``statistic="quantile"`` (the order statistic of rank ⌈qN⌉); 0.5
        otherwise.
    mechanisms
        The mechanisms to compare, or None for every one fitting the statistic.
    usable_share
        A 95 % bound above this share of the population value (of the declared range when
        the value is 0) makes a plan too noisy (:func:`core.planner.usability.is_usable`).
    sizes_public
        The population size N (and the publication cells' sizes N_c) is declared public
        (:func:`core.planner.plan`'s ``sizes_public``).
    rho_target
        The promise stated as ρ-zCDP (None for a pure ε promise); ``eps_target`` is then
        its sharp conversion (:func:`core.accounting.zcdp.eps_target_for_rho`).
    page_query
        The URL parameters of the sidebar's and the page's controls and of the open tab,
        defaults included (:func:`ui.widgets.reproducing_query`), taken after they are
        drawn. A tab runs in a fragment of its own, and a rerun of that fragment draws only
        the tab's controls: the link to the plan adds them to these.
    linear
        The count, total or proportion planned (``statistic`` is then its kind); None for
        a median, quantile or mean.
    linear_mechanisms
        The linear mechanisms to compare (names of
        :data:`core.linear.mechanisms.LINEAR_MECHANISMS`).
    linear_post
        ``"round"`` when the count, total or proportion is released rounded to a whole
        number ≥ 0 (:func:`core.linear.plan.plan_linear`'s ``post``), else ``"none"``.
    """

    pop: Population
    seed: int
    statistic: str
    eps_target: float
    delta_target: float
    relation: str
    designs: tuple[str, ...]
    rates: tuple[float, ...] | None
    reps: int
    objective: str
    statuses: tuple[planner.DesignStatus, ...]
    quantile: float = 0.5
    mechanisms: tuple[str, ...] | None = None
    usable_share: float = DEFAULT_USABLE_SHARE
    sizes_public: bool = False
    rho_target: float | None = None
    page_query: tuple[tuple[str, tuple[str, ...]], ...] = ()
    linear: LinearStatistic | None = None
    linear_mechanisms: tuple[str, ...] | None = None
    linear_post: str = "none"

    @property
    def promise(self) -> str:
        """``"zcdp"`` for a promise stated as ρ-zCDP, ``"eps"`` for a pure ε promise."""
        return "eps" if self.rho_target is None else "zcdp"

    def plan_arguments(self) -> dict[str, Any]:
        """The keyword arguments of :func:`core.planner.plan` these inputs give (the
        population apart), as the comparison, its notebook and its snippet pass them."""
        return {
            "statistic": self.statistic,
            "eps_target": self.eps_target,
            "delta_target": self.delta_target,
            "designs": self.designs,
            "rates": self.rates,
            "reps": self.reps,
            "seed": self.seed,
            "relation": self.relation,
            "objective": self.objective,
            "quantile": self.quantile,
            "mechanisms": self.mechanisms,
            "sizes_public": self.sizes_public,
            "rho_target": self.rho_target,
        }

    def linear_arguments(self) -> dict[str, Any]:
        """The keyword arguments of :func:`ui.planner.cache.plan_linear` (the population
        apart): the statistic by its parts, then what :func:`core.linear.plan.plan_linear`
        takes."""
        stat = self.linear
        if stat is None:
            raise ValueError("these inputs plan no count, total or proportion")
        return {
            "kind": stat.kind,
            "column": stat.column,
            "category": stat.category,
            "value_range": None if stat.value_range is None else tuple(stat.value_range),
            "eps_target": self.eps_target,
            "delta_target": self.delta_target,
            "designs": self.designs,
            "rates": self.rates,
            "mechanisms": self.linear_mechanisms,
            "relation": self.relation,
            "objective": self.objective,
            "sizes_public": self.sizes_public,
            "rho_target": self.rho_target,
            "post": self.linear_post,
        }


def chosen_designs(
    chosen: list[str] | tuple[str, ...], statuses: tuple[planner.DesignStatus, ...]
) -> tuple[str, ...]:
    """The chosen designs the population supports; every supported one (with a warning)
    if none is chosen or none of the chosen is available."""
    available = [s.name for s in statuses if s.available and s.name in text.PICKABLE_DESIGNS]
    picked = tuple(d for d in chosen if d in available)
    if picked:
        return picked
    if not chosen:
        st.warning(
            "No design is chosen; comparing every design this population supports.",
            icon=":material/warning:",
        )
    else:
        st.warning(
            "None of the chosen designs is available for this population; comparing every "
            "design it supports.",
            icon=":material/warning:",
        )
    return tuple(available)


def fitting(
    design: str,
    statistic: str,
    relation: str,
    mechanisms: tuple[str, ...] | None,
    bounded: bool = True,
    sizes_public: bool = False,
) -> bool:
    """Whether some chosen mechanism (the default ones, for None) holds its guarantee for
    ``design`` (``bounded``: the population has a public upper bound; ``sizes_public``: N is
    declared public)."""
    fit = planner.mechanisms_for(
        statistic, design, relation, bounded=bounded, sizes_public=sizes_public
    )
    asked = (
        planner.default_mechanisms(
            statistic, bounded=bounded, relation=relation, sizes_public=sizes_public
        )
        if mechanisms is None
        else mechanisms
    )
    return any(m in asked for m in fit)


def usable_mechanisms(
    mechanisms: tuple[str, ...] | None,
    statistic: str,
    relation: str,
    designs: tuple[str, ...],
    sizes_public: bool = False,
    rho_target: float | None = None,
) -> tuple[str, ...] | None:
    """The chosen mechanisms if one of them fits a planned design (the census included),
    else None (the default mechanisms) with a note on the page.  Under a ρ-zCDP promise
    (``rho_target`` given) a choice of (ε, δ) mechanisms only is not planned either."""
    if mechanisms is None:
        return None
    promise = "eps" if rho_target is None else "zcdp"
    if not any(not planner.promise_refusal(m, promise) for m in mechanisms):
        st.info(
            "The chosen mechanisms are (ε, δ) mechanisms, which imply no ρ-zCDP bound; "
            "comparing the default pure mechanisms under the ρ-zCDP promise.",
            icon=":material/info:",
        )
        return None
    if any(
        fitting(d, statistic, relation, mechanisms, sizes_public=sizes_public)
        for d in ("census", *designs)
    ):
        return mechanisms
    st.info(
        "None of the chosen mechanisms fits the chosen designs when neighbouring populations "
        f"differ by {text.RELATION_LABELS.get(relation, relation)}; comparing the default "
        "mechanisms.",
        icon=":material/info:",
    )
    return None


def inputs_key(ctx: PlannerInputs) -> str:
    """A short digest of everything the comparison depends on (the population by its hash).

    The live rows and the final view are drawn into containers keyed by it, so what a run
    shows always belongs to that run's inputs.
    """
    parts = (
        ctx.pop.content_hash,
        ctx.seed,
        ctx.statistic,
        ctx.eps_target,
        ctx.delta_target,
        ctx.relation,
        ctx.designs,
        ctx.rates,
        ctx.reps,
        ctx.objective,
        ctx.quantile,
        ctx.mechanisms,
        ctx.sizes_public,
        ctx.rho_target,
        ctx.linear,
        ctx.linear_mechanisms,
        ctx.linear_post,
    )
    return digest(*parts)


class StepBar:
    """A progress bar drawn into one slot while a cached search runs (as :class:`LiveRows`).

    ``words(progress)`` gives the bar's fraction and words for each core report (``start``
    is shown for None, as the computation starts).  Each report replaces the slot's
    content with a container keyed by ``key`` (a digest of the inputs) and a counter, so
    nothing of an earlier run's view stays beside it; it is drawn in the context captured
    before the cached call (see :class:`LiveRows`).
    """

    def __init__(
        self, slot: Any, key: str, start: str, words: Callable[[Any], tuple[float, str]]
    ) -> None:
        self.slot = slot
        self.key = key
        self.start = start
        self.words = words
        self.count = 0
        self.outside = contextvars.copy_context()

    def report(self, progress: Any) -> None:
        """Show one progress report (None: the computation starts)."""
        self.outside.run(self._draw, progress)

    def _draw(self, progress: Any) -> None:
        self.count += 1
        fraction, words = (0.0, self.start) if progress is None else self.words(progress)
        with self.slot.container(key=f"{self.key}_{self.count}"):
            st.progress(fraction, text=words)


def digest(*parts: object) -> str:
    """A short digest of ``parts`` (a tab's inputs), for the keys of its containers."""
    return hashlib.sha256(repr(parts).encode("utf-8")).hexdigest()[:12]


def population_problem(pop: Population) -> str | None:
    """Why the planner cannot run on ``pop`` (None if it can)."""
    if pop.size < MIN_POPULATION:
        return (
            f"{pop.name} has only N = {pop.size:,} records; the planner needs at least "
            f"{MIN_POPULATION} to leave room for a sample. Pick a larger population in the "
            "sidebar."
        )
    # No public upper bound (U = inf) is allowed: the unbounded quantile needs only L.
    if not math.isfinite(float(pop.lower)) or not pop.upper > pop.lower:
        return f"{pop.name} has no usable public bounds [L, U]."
    return None
