"""Cached calls of :mod:`core.planner` behind the Release planner page.

Every call is keyed by scalars (tuples of them) and the population's own ``content_hash``
(Streamlit hashes only a sample of a large array); the population is passed unhashed as
``_pop``. A rerun with the same inputs therefore never recomputes the comparison.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd
import streamlit as st

from core import planner
from core import resolution as core_resolution
from core.linear.plan import plan_linear as linear_plan
from core.linear.statistic import LinearStatistic
from core.populations import Population

#: Called by :func:`plan` on a cache miss: None when the computation starts, then core's
#: :class:`core.planner.PlanProgress` after the census and after each design.
ProgressCallback = Callable[[planner.PlanProgress | None], None]


@st.cache_data(max_entries=16, show_spinner=False)
def statuses(
    content_hash: str, _pop: Population, statistic: str, relation: str
) -> tuple[planner.DesignStatus, ...]:
    """Every design's status on the population (available or not, with its reason)."""
    return planner.design_statuses(_pop, statistic, relation)


@st.cache_data(max_entries=16, show_spinner=False)
def default_rates(content_hash: str, _pop: Population) -> tuple[float, ...]:
    """The planner's default rates for the population."""
    return tuple(float(r) for r in planner.default_rates(_pop))


@st.cache_data(max_entries=16, show_spinner=False)
def resolution(content_hash: str, _pop: Population) -> float | None:
    """The step in which the population's values are recorded
    (:func:`core.resolution.resolution`)."""
    return core_resolution.resolution(_pop.values)


@st.cache_data(max_entries=24, show_spinner=False)
def plan(
    content_hash: str,
    _pop: Population,
    *,
    statistic: str,
    eps_target: float,
    delta_target: float,
    designs: tuple[str, ...],
    rates: tuple[float, ...] | None,
    reps: int,
    seed: int,
    relation: str,
    objective: str,
    budget_share: float = 1.0,
    quantile: float = 0.5,
    mechanisms: tuple[str, ...] | None = None,
    sizes_public: bool = False,
    rho_target: float | None = None,
    _progress: ProgressCallback | None = None,
) -> planner.PlanResult:
    """:func:`core.planner.plan` on the population, cached per scalar arguments.

    ``quantile`` (q of ``statistic="quantile"``) and ``mechanisms`` (None: every fitting
    mechanism) are part of the cache key like every other argument. ``_progress`` is not
    (its leading underscore keeps it out of the key): a cache miss calls it with None as the
    computation starts and then with each of core's progress reports; a hit returns the
    stored result without calling it. With ``rho_target`` (a ρ-zCDP promise) the plan is
    core's for that ρ, and ``eps_target`` (its conversion) is not passed on.
    """
    if _progress is not None:
        _progress(None)
    return planner.plan(
        _pop,
        statistic=statistic,
        eps_target=eps_target if rho_target is None else None,
        rho_target=rho_target,
        delta_target=delta_target,
        designs=designs,
        rates=rates,
        reps=reps,
        seed=seed,
        relation=relation,
        objective=objective,
        budget_share=budget_share,
        quantile=quantile,
        mechanisms=mechanisms,
        sizes_public=sizes_public,
        progress=_progress,
    )


#: Called by :func:`smallest_eps_target` on a cache miss: None as the search starts, then
#: core's :class:`core.planner.SearchProgress` after each ε_target tried and each design.
SearchCallback = Callable[[planner.SearchProgress | None], None]
#: Called by :func:`several_statistics` on a cache miss: None as it starts, then core's
#: :class:`core.planner.SeveralProgress` after the census and after each design.
SeveralCallback = Callable[[planner.SeveralProgress | None], None]


@st.cache_data(max_entries=16, show_spinner=False)
def smallest_eps_target(
    content_hash: str,
    _pop: Population,
    *,
    statistic: str,
    target_error_95: float,
    delta_target: float,
    designs: tuple[str, ...],
    rates: tuple[float, ...] | None,
    reps: int,
    seed: int,
    relation: str,
    quantile: float = 0.5,
    mechanisms: tuple[str, ...] | None = None,
    sizes_public: bool = False,
    promise: str = "eps",
    _progress: SearchCallback | None = None,
) -> planner.AccuracyFirst:
    """:func:`core.planner.smallest_eps_target` on the population, cached (``quantile`` and
    ``mechanisms`` in the key; ``_progress`` hears a cache miss only, as for :func:`plan`)."""
    if _progress is not None:
        _progress(None)
    return planner.smallest_eps_target(
        _pop,
        statistic=statistic,
        target_error_95=target_error_95,
        delta_target=delta_target,
        designs=designs,
        rates=rates,
        reps=reps,
        seed=seed,
        relation=relation,
        quantile=quantile,
        mechanisms=mechanisms,
        sizes_public=sizes_public,
        promise=promise,
        progress=_progress,
    )


@st.cache_data(max_entries=16, show_spinner=False)
def several_statistics(
    content_hash: str,
    _pop: Population,
    *,
    statistics: tuple[str | tuple[str, float], ...],
    shares: tuple[float, ...],
    eps_target: float,
    delta_target: float,
    design: str,
    rate: float,
    reps: int,
    seed: int,
    relation: str,
    objective: str,
    sizes_public: bool = False,
    rho_target: float | None = None,
    _progress: SeveralCallback | None = None,
) -> tuple[planner.PlanResult, ...]:
    """:func:`core.planner.several_statistics` for ``design`` at ``rate`` only (the census:
    every record; no refined rates: the user chose the rate), one plan per statistic (a
    name at q = 0.5, or a ``(statistic, q)`` pair), cached; ``_progress`` hears a cache miss
    only, as for :func:`plan`."""
    if _progress is not None:
        _progress(None)
    return planner.several_statistics(
        _pop,
        [(stat, 0.5) if isinstance(stat, str) else (stat[0], stat[1]) for stat in statistics],
        shares,
        eps_target=eps_target if rho_target is None else None,
        rho_target=rho_target,
        delta_target=delta_target,
        designs=(design,),
        rates=None if design == "census" else (rate,),
        reps=reps,
        seed=seed,
        relation=relation,
        objective=objective,
        sizes_public=sizes_public,
        refine=False,
        progress=_progress,
    )


@st.cache_data(max_entries=16, show_spinner=False)
def joint_exp(
    content_hash: str,
    _pop: Population,
    *,
    quantiles: tuple[float, ...],
    design: str,
    rate: float,
    eps_target: float,
    share: float,
    relation: str,
    reps: int,
    seed: int,
) -> planner.JointErrors:
    """:func:`core.planner.joint_exp_errors` on the population, cached."""
    return planner.joint_exp_errors(
        _pop,
        quantiles,
        design=design,
        rate=rate,
        eps_target=eps_target,
        share=share,
        relation=relation,
        reps=reps,
        seed=seed,
    )


@st.cache_data(max_entries=16, show_spinner=False)
def interquartile_range(content_hash: str, _pop: Population) -> float:
    """The population's interquartile range Q3 − Q1 (for the default target error)."""
    q1, q3 = np.quantile(_pop.values, [0.25, 0.75])
    return float(q3 - q1)


def cluster_sizes(pop: Population) -> np.ndarray | None:
    """Records per cluster (M of each of the k clusters), or None without clusters."""
    return label_counts(pop.content_hash, pop, "clusters")


@st.cache_data(max_entries=16, show_spinner=False)
def label_counts(content_hash: str, _pop: Population, which: str) -> np.ndarray | None:
    """Records per distinct stratum or cluster label (``which``), labels in sorted order.

    Equal to ``numpy.unique(labels, return_counts=True)[1]``, counted with
    ``numpy.bincount`` over the population's label codes: only the distinct labels are
    sorted, never the N records. None without such labels.
    """
    factorised = _pop.label_codes(which)
    if factorised is None:
        return None
    codes, uniques = factorised
    counts = np.bincount(codes, minlength=len(uniques)).astype(np.int64)
    return counts[np.argsort(uniques, kind="stable")]


@st.cache_data(max_entries=16, show_spinner=False)
def smallest_stratum(content_hash: str, _pop: Population) -> int | None:
    """Records in the smallest stratum (min N_i), or None without strata."""
    counts = label_counts(content_hash, _pop, "strata")
    return None if counts is None else int(counts.min())


@st.cache_data(max_entries=16, show_spinner=False)
def cluster_count(content_hash: str, _pop: Population) -> int | None:
    """The number of clusters k, or None without clusters."""
    sizes = cluster_sizes(_pop)
    return None if sizes is None else int(sizes.size)


def budget_split(
    content_hash: str,
    _pop: Population,
    *,
    design: str,
    eps_target: float,
    shares: tuple[float, ...],
    rate: float,
    relation: str,
) -> planner.BudgetSplit:
    """:func:`core.planner.budget_split` with the design's parameters from the population.

    The design says which parameters its theorem takes at ``rate`` on the population
    (:func:`core.planner.theorem_keywords`): none for the census, cluster sizes and
    ℓ = round(rate·k) for a cluster sample, the rate for the others.
    """
    keywords = theorem_keywords(content_hash, _pop, design, rate)
    return planner.budget_split(design, eps_target, shares, relation=relation, **keywords)


@st.cache_data(max_entries=32, show_spinner=False)
def theorem_keywords(content_hash: str, _pop: Population, design: str, rate: float) -> dict:
    """:func:`core.planner.theorem_keywords`, cached (it reads the population's labels)."""
    return planner.theorem_keywords(_pop, design, rate)


#: Promised ε_target values of the composition chart: 0.01 to about 42, eight per decade.
COMPOSITION_GRID = tuple(float(f"{10 ** (e / 8):.6g}") for e in range(-16, 14))


@st.cache_data(max_entries=16, show_spinner=False)
def composition_curve(
    content_hash: str,
    _pop: Population,
    *,
    design: str,
    shares: tuple[float, ...],
    rate: float,
    relation: str,
) -> pd.DataFrame:
    """Correct (compose, then amplify) and naive (amplify, then add) ε_target on a grid.

    One :func:`core.planner.budget_split` per promised ε_target of :data:`COMPOSITION_GRID`.
    """
    rows = []
    for eps in COMPOSITION_GRID:
        split = budget_split(
            content_hash,
            _pop,
            design=design,
            eps_target=eps,
            shares=shares,
            rate=rate,
            relation=relation,
        )
        rows.append(
            {
                "eps_target": eps,
                "eps_target_correct": float(split.eps_target_correct),
                "eps_target_naive": float(split.eps_target_naive),
            }
        )
    return pd.DataFrame(rows)


@st.cache_data(max_entries=24, show_spinner=False)
def plan_linear(
    content_hash: str,
    _pop: Population,
    *,
    kind: str,
    column: str | None,
    category: str | None,
    value_range: tuple[float, float] | None,
    eps_target: float,
    delta_target: float,
    designs: tuple[str, ...],
    rates: tuple[float, ...] | None,
    mechanisms: tuple[str, ...] | None,
    relation: str,
    objective: str = "error_95",
    sizes_public: bool = False,
    rho_target: float | None = None,
    post: str = "none",
) -> planner.PlanResult:
    """:func:`core.linear.plan.plan_linear` on the population, cached per scalar arguments
    (the statistic by its kind, label column, category and range). Every row is exact, so
    no progress is reported. With ``rho_target`` the plan is core's for that ρ."""
    stat = LinearStatistic(kind, column=column, category=category, value_range=value_range)
    return linear_plan(
        _pop,
        stat,
        eps_target=eps_target,
        delta_target=delta_target,
        designs=designs,
        rates=rates,
        mechanisms=mechanisms,
        relation=relation,
        objective=objective,
        sizes_public=sizes_public,
        rho_target=rho_target,
        post=post,
    )
