"""The plan: every design × mechanism × rate, evaluated, refined and ranked.

:func:`plan` is a loop over the designs of :mod:`core.designs.registry` that the population
supports, the mechanisms that fit each (:func:`core.planner.budgets.mechanisms_for`) and a
grid of rates.  For each it takes the budget from the design's accounting, then the errors:

* exactly, where a closed form exists -- the census (the mechanism's noise law on the
  population, :meth:`core.mechanisms.Mechanism.exact_error`) and the means
  (:mod:`core.planner.exact`);
* otherwise by Monte Carlo, on windows when the cost model prefers them
  (:func:`core.planner.simulate.use_windows`), else on whole samples in chunks that keep
  the memory budget (:mod:`core.planner.memory`).

It then refines the grid around each design's best rate and ranks the designs; errors
that are the same number to the root search's tolerance are ties, won by the smallest
rate, whichever search found them (:mod:`core.planner.ties`).  The loop
never branches on a design's or a mechanism's name: what differs lives in the design and
mechanism classes.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from .. import mechanisms as mech
from .. import sensitivity as sens
from .._validation import check_choice, check_delta_open, check_seed, check_whole, finite_scalar
from ..accounting.zcdp import Promise, rho_for_eps
from ..designs.frame import Frame
from ..designs.protocol import RELATIONS, PlannerDesign
from ..designs.registry import DESIGNS
from ..planner import claims, exact, memory, ties
from ..planner.budgets import (
    DESIGN_LABELS,
    MEAN_MECHANISMS,
    NO_UPPER_MECHANISMS,
    QUANTILE_MECHANISMS,
    STATISTICS,
    DesignStatus,
    default_rates,
    design_statuses,
    offered_mechanisms,
    positive,
)
from ..planner.errors import Draws, summary_row
from ..planner.setting import Setting, base_row, census_rows, point_budgets
from ..planner.simulate import (
    SAMPLERS,
    MaskJob,
    simulate_masks_many,
    simulate_windows,
    use_windows,
)

if TYPE_CHECKING:
    from ..populations import Population

__all__ = [
    "OBJECTIVES",
    "PlanJob",
    "PlanProgress",
    "PlanResult",
    "assemble",
    "evaluate_many",
    "plan",
    "prepare",
    "with_refinement_many",
]

OBJECTIVES = ("error_95", "rmse")


@dataclass(frozen=True, eq=False)
class PlanResult:
    """Result of :func:`plan`.

    Attributes
    ----------
    table : pandas.DataFrame
        One row per evaluated (design, mechanism, rate): ``design``, ``design_label``,
        ``mechanism``, ``mechanism_label``, ``rate``, ``n`` (expected sample size),
        ``clusters_sampled``, ``eps_sample``, ``delta_sample``, ``accounting`` (the bound
        that gives ``eps_sample``, in words), ``rmse``, ``rmse_se``, ``error_95``,
        ``error_95_se``, ``error_95_low`` and ``error_95_high`` (the Monte Carlo interval of
        ``error_95``, about ±2 standard errors, not always symmetric; both equal to it when
        it comes from a formula), ``error_95_method``, ``sampling_part``, ``noise_part``, ``exact``,
        ``refined``, ``is_best``.
    best_by_design : pandas.DataFrame
        The ``is_best`` rows ranked by the objective, best first, with ``gain`` =
        1 − objective / census objective (positive: tighter than the census) and
        ``beats_census``: whether the gain exceeds its Monte Carlo uncertainty
        (:func:`core.planner.claims.beats_reference`; false on census rows).
    best : pandas.Series
        The row with the smallest objective (ranked first).
    census : pandas.Series or None
        The best census row.
    statuses : tuple of DesignStatus
        Every design, available or not, with reasons.
    population_value : float
        The population's statistic every error is measured against.
    """

    table: pd.DataFrame
    best_by_design: pd.DataFrame
    best: pd.Series
    census: pd.Series | None
    statuses: tuple[DesignStatus, ...]
    population_value: float
    statistic: str
    eps_target: float
    delta_target: float
    reps: int
    seed: int
    relation: str
    objective: str
    budget_share: float
    N: int
    quantile: float = 0.5
    #: The population size was declared public (:attr:`Setting.sizes_public`).
    sizes_public: bool = False
    #: The promise was stated as ρ-zCDP with this ρ (``eps_target`` is then its sharp
    #: conversion, :mod:`core.accounting.zcdp`); None for a pure ε promise.
    rho_target: float | None = None

    @property
    def promise(self) -> Promise:
        """The promise as stated: pure ε_target, or ρ-zCDP (with its conversion named)."""
        return Promise.of(self.eps_target, self.rho_target)

    @functools.cached_property
    def recommended(self) -> pd.Series:
        """The plan to recommend (:func:`core.planner.claims.recommended_row`): the best
        row when it is the census or beats the census by more than its Monte Carlo
        uncertainty, otherwise the best census row (the simpler release). Found once per
        result (the page reads it for the verdict, the chart, the table and the exports)."""
        return claims.recommended_row(self.best_by_design, self.objective)


@dataclass(frozen=True, eq=False)
class PlanProgress:
    """What :func:`plan` has finished: ``done`` of ``total`` designs (the census first).

    Attributes
    ----------
    done, total : int
        Designs evaluated so far, and in all (the census counts as one).
    design : str
        The design just finished.
    table : pandas.DataFrame
        The rows known so far, with the columns and order of :attr:`PlanResult.table`.
    """

    done: int
    total: int
    design: str
    table: pd.DataFrame


def _evaluate(
    design: PlannerDesign, frame: Frame, rates: Sequence[float], setting: Setting
) -> list[dict[str, Any]]:
    """Rows of ``design`` at ``rates`` for every fitting mechanism."""
    return evaluate_many(design, frame, rates, [setting])[0]


def evaluate_many(
    design: PlannerDesign, frame: Frame, rates: Sequence[float], settings: Sequence[Setting]
) -> list[list[dict[str, Any]]]:
    """Rows of ``design`` at ``rates`` for each setting, whole samples drawn once for all.

    The settings differ in their statistic, budget or share (same seed, repetitions,
    sampler and memory budget).  Where masks are drawn, every setting's mechanisms run on
    the same samples (:func:`core.planner.simulate.simulate_masks_many`); the first
    setting's rows equal those of :func:`_evaluate` alone.  Windows are drawn per setting.
    """
    points = design.points(frame, rates)
    out: list[list[dict[str, Any]]] = [[] for _ in settings]
    if not points:
        return out
    windows = use_windows(design, frame, points, settings[0].sampler)
    seed = [settings[0].seed, list(DESIGNS).index(design.name)]
    plans = []
    for setting in settings:
        names = setting.names(design.name)
        budgets = point_budgets(design, names, points, setting) if names else []
        closed = [m for m in names if exact.has_closed_form(design, m)]
        rest = [m for m in names if m not in closed]
        windowed = [m for m in rest if mech.MECHANISMS[m].windowed] if windows else []
        masked = [m for m in rest if m not in windowed]
        plans.append((names, budgets, closed, windowed, masked))
    draws: list[dict[tuple[str, float], Draws]] = [{} for _ in settings]
    jobs = [(i, p) for i, p in enumerate(plans) if p[4]]
    if jobs:
        first = settings[jobs[0][0]]
        rows_per_chunk = memory.chunk_rows(
            frame.N, design.mask_bytes, first.reps, first.memory_budget
        )
        got = simulate_masks_many(
            design,
            frame,
            [MaskJob(p[4], p[1], settings[i].quantile) for i, p in jobs],
            memory.chunks(first.reps, rows_per_chunk),
            seed,
        )
        for (i, _), d in zip(jobs, got, strict=True):
            draws[i].update(d)
    for i, (setting, (names, budgets, closed, windowed, _)) in enumerate(
        zip(settings, plans, strict=True)
    ):
        if windowed:
            draws[i].update(
                simulate_windows(
                    design, windowed, frame, budgets, setting.reps, seed, setting.quantile
                )
            )
        for name in names:
            for pb in budgets:
                row = base_row(design, name, pb)
                if name in closed:
                    row.update(exact.mean_row(design, frame, pb, name), exact=True)
                else:
                    summary = summary_row(draws[i][(name, pb.rate)], setting.theta)
                    mean_size = summary.pop("mean_sample_size")
                    if not design.fixed_size:
                        row["n"] = mean_size
                    row.update(summary)
                out[i].append(row)
    return out


#: The signature of :func:`evaluate_many`: rows of a design at rates, per setting.
Evaluator = Callable[
    [PlannerDesign, Frame, Sequence[float], Sequence[Setting]], list[list[dict[str, Any]]]
]


def _refine(points_rates: Sequence[float], objective_values: Sequence[float]) -> list[float]:
    """Two rates halfway (geometrically) to the neighbours of the best rate (the smallest
    of tied rates, :func:`core.planner.ties.first_least`)."""
    if not points_rates:
        return []
    i = ties.first_least(objective_values)
    out = []
    if i > 0:
        out.append(math.sqrt(points_rates[i - 1] * points_rates[i]))
    if i + 1 < len(points_rates):
        out.append(math.sqrt(points_rates[i] * points_rates[i + 1]))
    else:
        out.append(math.sqrt(points_rates[i]))  # towards the census
    return out


def _with_refinement(
    design: PlannerDesign, frame: Frame, grid: Sequence[float], setting: Setting, objective: str
) -> list[dict[str, Any]]:
    """The grid rows of ``design`` plus two rates around each mechanism's best grid rate."""
    return with_refinement_many(design, frame, grid, [setting], objective)[0]


def with_refinement_many(
    design: PlannerDesign,
    frame: Frame,
    grid: Sequence[float],
    settings: Sequence[Setting],
    objective: str,
    evaluate: Evaluator | None = None,
) -> list[list[dict[str, Any]]]:
    """:func:`_with_refinement` for each setting, the samples of each rate drawn once.

    Each setting gets the refined rates of its own best grid rates; a rate several settings
    want is evaluated for them together (``evaluate``, default :func:`evaluate_many`, or a
    caller's version that returns the same rows, e.g. from a memo).
    """
    evaluate = evaluate_many if evaluate is None else evaluate
    got = evaluate(design, frame, grid, settings)
    wanted: list[list[float]] = []
    for rows in got:
        extra: list[float] = []
        for m in dict.fromkeys(r["mechanism"] for r in rows):
            mine = [r for r in rows if r["mechanism"] == m]
            extra += _refine([r["rate"] for r in mine], [r[objective] for r in mine])
        known = {r["rate"] for r in rows}
        wanted.append([r for r in dict.fromkeys(extra) if r not in known])
    # Each refined rate goes to the settings that want it: rates wanted by the same
    # settings are evaluated together (one setting alone: all of its rates in one call).
    groups: dict[tuple[int, ...], list[float]] = {}
    for rate in dict.fromkeys(r for w in wanted for r in w):
        groups.setdefault(tuple(i for i, w in enumerate(wanted) if rate in w), []).append(rate)
    for who, new_rates in groups.items():
        more = evaluate(design, frame, new_rates, [settings[i] for i in who])
        for i, new in zip(who, more, strict=True):
            known_rows = {(row["mechanism"], row["rate"]) for row in got[i]}
            for row in new:
                if (row["mechanism"], row["rate"]) not in known_rows:
                    row["refined"] = True
                    got[i].append(row)
    return got


def _check_rates(rates: Iterable[float] | None, frame: Frame) -> tuple[float, ...]:
    if rates is None:
        return default_rates(frame)
    out = []
    for r in rates:
        x = finite_scalar("rate", r)
        if not 0 < x <= 1:
            raise ValueError(f"rates must be numbers in (0, 1]; got {r!r}")
        out.append(x)
    if not out:
        raise ValueError("rates must list at least one rate in (0, 1]")
    return tuple(sorted(set(out)))


def _chosen_designs(
    designs: Sequence[str] | None, statuses: Sequence[DesignStatus]
) -> list[PlannerDesign]:
    """The sampled designs to compare (the census is always evaluated first)."""
    available = [st.name for st in statuses if st.available]
    wanted = available if designs is None else list(designs)
    chosen: list[PlannerDesign] = []
    for name in wanted:
        check_choice("design", name, DESIGN_LABELS)
        if name not in available:
            reason = next(st.reason for st in statuses if st.name == name)
            raise ValueError(f"the design {name!r} is not available here: {reason}")
        d = DESIGNS[name]
        if not d.reference and d not in chosen:
            chosen.append(d)
    return chosen


def _check_mechanisms(
    mechanisms: Sequence[str] | None, statistic: str, bounded: bool = True
) -> tuple[str, ...] | None:
    if mechanisms is None:
        return None
    allowed = offered_mechanisms(statistic, bounded=bounded)
    out = tuple(check_choice("mechanism", m, allowed) for m in mechanisms)
    if not out:
        raise ValueError(f"mechanisms must name at least one of {list(allowed)}")
    return out


#: Display order of the designs and of the mechanisms in a plan's table (:func:`_ranked`).
_DESIGN_ORDER = {name: i for i, name in enumerate(DESIGN_LABELS)}
_MECHANISM_ORDER = {
    name: i for i, name in enumerate(QUANTILE_MECHANISMS + NO_UPPER_MECHANISMS + MEAN_MECHANISMS)
}


def _ranked(table: pd.DataFrame, objective: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The table in display order with ``is_best``, and the best rows ranked with ``gain``.

    Display order: design (:data:`DESIGN_LABELS`' order), mechanism (the mechanisms'
    listed order), rate; a stable sort. The work is done on numpy columns and the frame
    is reordered once: the page ranks the rows known so far after every design.
    """
    n = len(table)
    refined = table["refined"] if "refined" in table else pd.Series(False, index=table.index)
    table["refined"] = refined.fillna(False).astype(bool)
    designs = table["design"].to_numpy(dtype=object)
    mechanisms = table["mechanism"].to_numpy(dtype=object)
    design_code = np.array([_DESIGN_ORDER.get(d, len(_DESIGN_ORDER)) for d in designs])
    mech_code = np.array([_MECHANISM_ORDER.get(m, len(_MECHANISM_ORDER)) for m in mechanisms])
    rate = table["rate"].to_numpy(dtype=np.float64)
    order = np.lexsort((rate, mech_code, design_code)) if n else np.arange(0)
    table = table.take(order).reset_index(drop=True)
    designs, mechanisms = designs[order], mechanisms[order]
    # The best row of each design and mechanism (contiguous runs after the sort), and
    # their ranking: tied objectives (the same number to the root search's tolerance) go
    # to the first row, the smallest rate (core.planner.ties).
    values = table[objective].to_numpy(dtype=np.float64)
    starts = [0] + [
        i for i in range(1, n) if designs[i] != designs[i - 1] or mechanisms[i] != mechanisms[i - 1]
    ]
    bounds = list(zip(starts, [*starts[1:], n], strict=True)) if n else []
    best_idx = [a + ties.first_least(values[a:z]) for a, z in bounds]
    is_best = np.zeros(n, dtype=bool)
    is_best[best_idx] = True
    table["is_best"] = is_best
    picked = np.asarray(best_idx, dtype=np.int64)
    picked = picked[ties.ranked(values[picked])]
    best = table.take(picked).reset_index(drop=True)
    best_values = values[picked]
    is_census = np.array([DESIGNS[d].reference for d in designs[picked]], dtype=bool)
    se = claims.standard_error_column(objective)
    ses = (
        table[se].to_numpy(dtype=np.float64)[picked]
        if se in table
        else np.full(len(picked), np.nan)
    )
    census_at = np.flatnonzero(is_census)
    ref = float(best_values[census_at[0]]) if len(census_at) else math.nan
    best["gain"] = 1.0 - best_values / ref if ref > 0 else math.nan
    ref_se = _zero_if_missing(ses[census_at[0]]) if len(census_at) and se in table else 0.0
    best["beats_census"] = [
        bool(len(census_at))
        and not reference
        and claims.beats_reference(float(v), _zero_if_missing(s), ref, ref_se)
        for v, s, reference in zip(best_values, ses, is_census, strict=True)
    ]
    return table, best


def _zero_if_missing(value: Any) -> float:
    """A standard error, 0 where the table has none (NaN or missing)."""
    x = math.nan if value is None else float(value)
    return 0.0 if math.isnan(x) else x


def plan(
    population: Population,
    *,
    statistic: str = "median",
    eps_target: float | None = None,
    delta_target: float | None = None,
    designs: Sequence[str] | None = None,
    rates: Sequence[float] | None = None,
    reps: int = 200,
    seed: int = 0,
    relation: str = "replacement",
    objective: str = "error_95",
    budget_share: float = 1.0,
    refine: bool = True,
    quantile: float = 0.5,
    mechanisms: Sequence[str] | None = None,
    sampler: str = "auto",
    progress: Callable[[PlanProgress], None] | None = None,
    memory_budget: int | None = None,
    frame: Frame | None = None,
    sizes_public: bool = False,
    rho_target: float | None = None,
) -> PlanResult:
    """Compare designs, rates and mechanisms for releasing ``statistic`` at ``eps_target``.

    For every available design (:func:`core.planner.budgets.design_statuses`) and fitting
    mechanism: the ε_sample the design's accounting allows at each rate, the release's RMSE
    and 95 % error bound about the population value, split into the sampling and the noise
    part (module docstring for how each is computed).  With ``refine``, two more rates are
    tried around each design's best grid rate.

    Parameters
    ----------
    population : Population
        The population (sorted values, bounds, optional strata and clusters).
    statistic : str
        ``"median"`` (lower median, Hu et al. §4.3), ``"quantile"`` (the order statistic
        of rank :func:`core.sensitivity.quantile_rank` for ``quantile``) or ``"mean"``.
    eps_target : float, optional
        The promised pure guarantee, finite and > 0.  Give it or ``rho_target``.
    delta_target : float, optional
        The promised δ, in (0, 1); default ``1 / (2N)``. Used by (ε, δ) mechanisms only.
    designs : sequence of str, optional
        Design names to compare (default: every available design). The census is always
        included as the reference.
    rates : sequence of float, optional
        Sampling rates in (0, 1] (default :func:`core.planner.budgets.default_rates`). For
        clusters a rate means ``ℓ = round(rate · k)`` clusters; for stratified samples
        rates with ``r N_h < 1`` in some stratum are skipped.
    reps : int
        Monte Carlo repetitions ``T`` per rate, 2 ≤ T ≤ 100,000.
    seed : int
        Seed: the same seed gives the same table.
    relation : str
        ``"replacement"`` (change one record, default) or ``"deletion"`` (add or remove one).
    objective : str
        ``"error_95"`` (default) or ``"rmse"``: what "best" means.
    budget_share : float
        Fraction in (0, 1] of the design's ε_sample (and δ_sample) this statistic spends;
        the rest goes to other statistics released from the same sample.  Below 1 the
        ε_sample is one whose shares add whatever mechanisms spend them: on a Poisson
        sample under ``"replacement"`` the bound from the add/remove budget alone
        (:meth:`core.designs.individual.Poisson.change_accounting`).
    refine : bool
        Refine around each design's best rate.
    quantile : float
        ``q`` in (0, 1) for ``statistic="quantile"`` (``"median"`` means 0.5).
    mechanisms : sequence of str, optional
        Compare these mechanism names, each on the designs it fits (default:
        :func:`core.planner.budgets.default_mechanisms`, Hu et al.'s four for a quantile;
        name ``"smooth_polyplace"`` or ``"piecewise_laplace"`` to compare them too).
    sampler : str
        ``"auto"`` (the cost model chooses windows or whole samples), ``"full"`` (whole
        samples) or ``"window"`` (windows wherever the design and mechanism have them).
    progress : callable, optional
        Called with a :class:`PlanProgress` after the census and after each design.
    memory_budget : int, optional
        Working memory in bytes (default :func:`core.planner.memory.budget_bytes`).
    frame : Frame, optional
        The population already prepared (:meth:`Frame.of`), to reuse across plans.
    sizes_public : bool
        The population size ``N`` is declared public: an invariant published with the
        release, the same for both neighbours.  Under ``relation="deletion"`` a mechanism
        that divides by ``N`` (the Horvitz–Thompson mean) is compared only then; otherwise
        the noisy sum over a noisy count (``"sum_count"``), which reads no size, takes its
        place (:func:`core.planner.budgets.size_refusal`).  Default False: sizes private.
    rho_target : float, optional
        The promise stated as ρ-zCDP instead of ``eps_target`` (finite and > 0): the plan
        is made at the largest pure ``eps_target`` that keeps it, by the sharp conversion
        ρ = ε·tanh(ε/2) (:func:`core.accounting.zcdp.eps_target_for_rho`), named in every
        row's ``accounting``; the (ε, δ) mechanisms, which imply no zCDP bound, are not
        planned (:func:`core.planner.budgets.promise_refusal`).

    Returns
    -------
    PlanResult

    Raises
    ------
    ValueError
        For bad arguments, or designs that are unknown or not available on the population;
        :class:`core.planner.memory.MemoryBudgetError` (a ValueError) for a plan that cannot
        fit the memory budget, saying what to lower.
    """
    job = prepare(
        population,
        statistic=statistic,
        eps_target=eps_target,
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
        sampler=sampler,
        memory_budget=memory_budget,
        frame=frame,
        sizes_public=sizes_public,
        rho_target=rho_target,
    )
    setting, frame = job.setting, job.frame
    rows = census_rows(job.census, frame, setting)
    total = 1 + len(job.chosen)
    if progress is not None and rows:
        progress(PlanProgress(1, total, job.census.name, _ranked(pd.DataFrame(rows), objective)[0]))
    for i, design in enumerate(job.chosen, start=2):
        if refine:
            rows.extend(_with_refinement(design, frame, job.grid, setting, objective))
        else:
            rows.extend(_evaluate(design, frame, job.grid, setting))
        if progress is not None and rows:
            progress(PlanProgress(i, total, design.name, _ranked(pd.DataFrame(rows), objective)[0]))
    return assemble(job, rows)


@dataclass(frozen=True, eq=False)
class PlanJob:
    """The checked arguments of one plan (:func:`prepare`), shared by the searches that
    evaluate many plans of the same population (:mod:`core.planner.accuracy_first`,
    :mod:`core.planner.composition`)."""

    frame: Frame
    grid: tuple[float, ...]
    statuses: tuple[DesignStatus, ...]
    chosen: tuple[PlannerDesign, ...]
    census: PlannerDesign
    setting: Setting
    objective: str

    def at(self, eps_target: float) -> PlanJob:
        """The same job at another ``eps_target`` (finite and > 0); under a ρ-zCDP promise
        the ρ that ``eps_target`` keeps (:func:`core.accounting.zcdp.rho_for_eps`)."""
        t = positive("eps_target", eps_target)
        rho = None if self.setting.rho_target is None else rho_for_eps(t)
        return replace(self, setting=replace(self.setting, eps_target=t, rho_target=rho))


def prepare(
    population: Population,
    *,
    statistic: str = "median",
    eps_target: float | None = None,
    delta_target: float | None = None,
    designs: Sequence[str] | None = None,
    rates: Sequence[float] | None = None,
    reps: int = 200,
    seed: int = 0,
    relation: str = "replacement",
    objective: str = "error_95",
    budget_share: float = 1.0,
    quantile: float = 0.5,
    mechanisms: Sequence[str] | None = None,
    sampler: str = "auto",
    memory_budget: int | None = None,
    frame: Frame | None = None,
    sizes_public: bool = False,
    rho_target: float | None = None,
) -> PlanJob:
    """The arguments of :func:`plan` checked (same names, same errors), ready to evaluate.

    Raises
    ------
    ValueError
        As :func:`plan`.
    """
    check_choice("statistic", statistic, STATISTICS)
    check_choice("relation", relation, RELATIONS)
    check_choice("objective", objective, OBJECTIVES)
    q = 0.5 if statistic == "median" else sens.check_quantile(quantile)
    promise = Promise.stated(eps_target=eps_target, rho_target=rho_target)
    t, rho = promise.eps_target, promise.rho
    N = population.size
    d = 1.0 / (2.0 * N) if delta_target is None else check_delta_open("delta_target", delta_target)
    share = positive("budget_share", budget_share)
    if share > 1:
        raise ValueError(f"budget_share must be a number in (0, 1]; got {budget_share!r}")
    if not isinstance(sizes_public, (bool, np.bool_)):
        raise ValueError(f"sizes_public must be True or False; got {sizes_public!r}")
    frame = Frame.of(population) if frame is None else frame
    bounded = math.isfinite(frame.upper)
    if not bounded and statistic == "mean":
        raise ValueError(
            "the mean needs a public upper bound U, and this population has none "
            "(upper = inf); plan a quantile instead (the unbounded quantile needs no U)"
        )
    grid = _check_rates(rates, frame)
    statuses = design_statuses(frame, statistic, relation)
    chosen = _chosen_designs(designs, statuses)
    setting = Setting(
        statistic=statistic,
        quantile=q,
        eps_target=t,
        delta_target=d,
        relation=relation,
        reps=check_whole("reps", reps, 2, 100_000),
        seed=check_seed(seed),
        share=share,
        theta=frame.value(statistic, q),
        mechanisms=_check_mechanisms(mechanisms, statistic, bounded),
        sampler=check_choice("sampler", sampler, SAMPLERS),
        memory_budget=memory_budget,
        bounded=bounded,
        sizes_public=bool(sizes_public),
        rho_target=rho,
    )
    census = next(x for x in DESIGNS.values() if x.reference)
    return PlanJob(frame, grid, tuple(statuses), tuple(chosen), census, setting, objective)


def assemble(job: PlanJob, rows: Sequence[dict[str, Any]]) -> PlanResult:
    """The :class:`PlanResult` of ``job`` from its rows (census and designs, any order)."""
    if not rows:
        why = (
            ""
            if job.setting.rho_target is None
            else " (under a ρ-zCDP promise the (ε, δ) mechanisms are not planned)"
        )
        raise ValueError(f"no mechanism fits the chosen designs, relation and statistic{why}")
    setting = job.setting
    table, best = _ranked(pd.DataFrame(list(rows)), job.objective)
    census_best = best[best["design"] == job.census.name]
    return PlanResult(
        table=table,
        best_by_design=best,
        best=best.iloc[0],
        census=census_best.iloc[0] if len(census_best) else None,
        statuses=job.statuses,
        population_value=setting.theta,
        statistic=setting.statistic,
        eps_target=setting.eps_target,
        delta_target=setting.delta_target,
        reps=setting.reps,
        seed=setting.seed,
        relation=setting.relation,
        objective=job.objective,
        budget_share=setting.share,
        N=job.frame.N,
        quantile=setting.quantile,
        sizes_public=setting.sizes_public,
        rho_target=setting.rho_target,
    )
