"""Plan a count, total or proportion: every design × mechanism × rate, exactly.

The release of a design at one rate is ``c · w · (Σ_S y + Z)``: the sample's sum, a noise
``Z`` calibrated to ``eps_sample`` (the design's own amplification,
:meth:`core.designs.protocol.PlannerDesign.accounting`, with the mechanism's two budgets
calibrated to the relation planned, :meth:`core.linear.mechanisms.LinearMechanism.budget_factors`),
the design's weight ``w`` (:mod:`core.linear.moments`) and ``c = 1/N`` for a proportion
(1 otherwise).  It is unbiased for ``c Σ y``, and its mean squared error splits exactly::

    MSE = c² (Var_design(w Σ_S y) + w² Var Z),

so every row's RMSE is exact.  The 95 % bound is exact for the census (the noise's own
quantile); for a sample it convolves the noise's exact law with the sampling error taken as
normal (:data:`NORMAL_SAMPLING`), the approximation the planner uses for the mean: the
normal–Laplace law in closed form for Laplace noise, an exact sum over the lattice for
integer noise (:mod:`core.linear.errors`).

A proportion divides by ``N``.  Under a changed record ``N`` never changes; under added or
removed records it does, so it is used only when declared public (``sizes_public``), as the
planner's rule for sizes says (:func:`core.planner.budgets.size_refusal`); otherwise the
plan refuses with the reason (:data:`PROPORTION_NEEDS_N`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from .._validation import check_choice, check_delta_open, finite_scalar
from ..designs.frame import Frame
from ..designs.protocol import RELATIONS, Accounting
from ..designs.registry import DESIGNS
from ..planner import claims, ties
from ..planner.budgets import DesignStatus, default_rates, design_statuses
from ..planner.engine import PlanResult
from ..planner.errors import LEVEL
from ..population import Population
from . import errors
from .errors import release_error
from .mechanisms import LINEAR_MECHANISMS
from .moments import LinearMoments
from .post_errors import check_post, post_errors
from .statistic import (
    LinearStatistic,
    check_statistic,
    indicator,
    sensitivities,
    whole_numbers,
    y_bounds,
)
from .sums import GroupSums, kept_selection_sums

__all__ = [
    "EXACT",
    "NORMAL_SAMPLING",
    "PROPORTION_NEEDS_N",
    "default_linear_mechanisms",
    "fitting_linear_mechanisms",
    "linear_rows",
    "plan_linear",
]

#: How a row's 95 % bound was found.
EXACT = errors.EXACT
NORMAL_SAMPLING = errors.NORMAL_APPROXIMATION
PROPORTION_NEEDS_N = (
    "A proportion divides the count by the population size N. When records can be added or "
    "removed, N itself changes with them, so dividing by it is private only if N is declared "
    "public (published anyway); declare it public, plan under a changed record, or plan the "
    "count."
)


def default_linear_mechanisms(integer: bool, rho_target: float | None = None) -> tuple[str, ...]:
    """The mechanisms planned unless others are asked for: those that keep the promise as
    stated.  A pure ε promise gets the pure mechanisms (an (ε, δ) mechanism such as the
    discrete Gaussian is planned only when asked for, spending ``delta_target``); a ρ-zCDP
    promise also gets the mechanisms that state zCDP.  The integer mechanisms only for
    whole-number sums."""
    out = []
    for name, m in LINEAR_MECHANISMS.items():
        if m.integer and not integer:
            continue
        if m.uses_delta and not (rho_target is not None and m.zcdp):
            continue
        out.append(name)
    return tuple(out)


def fitting_linear_mechanisms(integer: bool, rho_target: float | None = None) -> tuple[str, ...]:
    """Every mechanism that may be asked for: the integer ones only for whole-number sums;
    under a ρ-zCDP promise not those that are (ε, δ) only."""
    return tuple(
        name
        for name, m in LINEAR_MECHANISMS.items()
        if not (m.integer and not integer)
        and not (rho_target is not None and m.uses_delta and not m.zcdp)
    )


def linear_rows(
    design_name: str,
    frame: Frame,
    sums: GroupSums,
    points: Sequence[Any],
    mechanisms: Sequence[str],
    *,
    sens: dict[str, float],
    eps_target: float,
    delta_target: float,
    relation: str,
    scale: float = 1.0,
    rho_target: float | None = None,
    post: str = "none",
) -> list[dict[str, Any]]:
    """The plan-table rows of one design at ``points`` (first variable of ``sums``); with
    ``post="round"`` also the errors after rounding (:mod:`core.linear.post_errors`)."""
    design = DESIGNS[design_name]
    rows = []
    census = design.reference
    for point in points:
        moments: LinearMoments = design.linear_moments(frame, sums, point)
        var_design = float(moments.variance[0])
        spent: dict[tuple[float | None, float | None], Accounting] = {}
        for name in mechanisms:
            m = LINEAR_MECHANISMS[name]
            factors = m.budget_factors(sens, relation)
            if rho_target is not None and m.zcdp:
                if not census:
                    continue  # no amplification theorem for zCDP here: census only
                eps_s, delta_s = math.nan, 0.0
                param = m.parameter_for_rho(rho_target, sens[relation])
                bound = f"ρ = {rho_target:.6g}-zCDP on the whole population"
            else:
                key = (factors.add_remove, factors.change)
                if key not in spent:  # mechanisms with the same two budgets spend alike
                    spent[key] = design.accounting(eps_target, relation, factors, point)
                acc = spent[key]
                eps_s = acc.eps_sample
                delta_s = (
                    (delta_target if census else design.delta_sample(delta_target, point))
                    if m.uses_delta
                    else 0.0
                )
                param = m.parameter(eps_s, delta_s if m.uses_delta else None, sens[relation])
                bound = acc.bound
            w = moments.weight
            noise = w * w * m.variance(param)
            e95, method = release_error(m, param, w, var_design, LEVEL)
            rmse = math.sqrt(var_design + noise)
            rows.append(
                {
                    "design": design.name,
                    "design_label": design.label,
                    "mechanism": name,
                    "mechanism_label": m.label,
                    "rate": point.rate,
                    "n": moments.n,
                    "clusters_sampled": point.clusters_sampled,
                    "eps_sample": eps_s,
                    "delta_sample": delta_s,
                    "accounting": bound,
                    "rmse": scale * rmse,
                    "rmse_se": 0.0,
                    "error_95": scale * e95,
                    "error_95_se": 0.0,
                    "error_95_low": scale * e95,
                    "error_95_high": scale * e95,
                    "error_95_method": method,
                    "sampling_part": scale * scale * var_design,
                    "noise_part": scale * scale * noise,
                    "weight": w,
                    "noise_parameter": param,
                    "exact": True,
                    "refined": False,
                }
            )
            if post == "round":
                r_post, e_post, how = post_errors(
                    m, param, w, var_design, float(sums.total[0]), rmse, e95, LEVEL
                )
                rows[-1].update(
                    rmse_post=scale * r_post, error_95_post=scale * e_post, post_method=how
                )
    return rows


def _ranked(
    table: pd.DataFrame, objective: str, mechanisms: Sequence[str]
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Display order (design, mechanism, rate), ``is_best`` per design × mechanism, and the
    best rows ranked with ``gain`` and ``beats_census`` (:func:`core.planner.claims`)."""
    d_order = {d: i for i, d in enumerate(DESIGNS)}
    m_order = {m: i for i, m in enumerate(mechanisms)}
    table = table.assign(
        _d=table["design"].map(d_order), _m=table["mechanism"].map(m_order)
    ).sort_values(["_d", "_m", "rate"], kind="stable")
    table = table.drop(columns=["_d", "_m"]).reset_index(drop=True)
    table["is_best"] = False
    picked = []
    for _, grp in table.groupby(["design", "mechanism"], sort=False):
        picked.append(int(grp.index[ties.first_least(grp[objective].to_list())]))
    table.loc[picked, "is_best"] = True
    values = table.loc[picked, objective].to_numpy(dtype=np.float64)
    order = [picked[i] for i in ties.ranked(values.tolist())]
    best = table.loc[order].reset_index(drop=True)
    is_census = best["design"].map(lambda d: DESIGNS[d].reference).to_numpy(dtype=bool)
    at = np.flatnonzero(is_census)
    ref = float(best[objective].iloc[at[0]]) if len(at) else math.nan
    best["gain"] = 1.0 - best[objective] / ref if ref > 0 else math.nan
    best["beats_census"] = [
        bool(len(at)) and not c and claims.beats_reference(float(v), 0.0, ref, 0.0)
        for v, c in zip(best[objective], is_census, strict=True)
    ]
    return table, best


def plan_linear(
    population: Population,
    stat: LinearStatistic,
    *,
    eps_target: float,
    delta_target: float | None = None,
    designs: Sequence[str] | None = None,
    rates: Sequence[float] | None = None,
    mechanisms: Sequence[str] | None = None,
    relation: str = "replacement",
    sizes_public: bool = False,
    rho_target: float | None = None,
    objective: str = "error_95",
    frame: Frame | None = None,
    sums: GroupSums | None = None,
    post: str = "none",
) -> PlanResult:
    """Every design × mechanism × rate for a count, total or proportion, with exact errors.

    Parameters
    ----------
    population : Population
    stat : LinearStatistic
        What is released (:func:`core.linear.statistic.check_statistic` checks it).
    eps_target, delta_target : float
        The promise for the population (``delta_target`` by default ``1/(2N)``, spent only
        by mechanisms whose guarantee is (ε, δ)).  With ``rho_target`` the promise is
        ρ-zCDP: ``eps_target`` is then its pure conversion for the pure mechanisms, and the
        zCDP mechanisms run on the census at ``ρ``.
    designs, rates, mechanisms : sequences or None
        Subsets (default: every available design with a closed form, the planner's
        :func:`core.planner.default_rates`, :func:`default_linear_mechanisms`).
    relation : {"replacement", "deletion"}
    sizes_public : bool
        Whether ``N`` is public (a proportion under ``"deletion"`` needs it).
    objective : {"error_95", "rmse"}
    frame, sums : optional
        The population's frame and the sums of ``y`` when the caller keeps them.
    post : {"none", "round"}
        ``"round"``: the release is rounded to the nearest whole number ≥ 0 (a proportion:
        its count, then divided by ``N``), post-processing that costs no privacy; the table
        then also has ``rmse_post``, ``error_95_post`` and ``post_method``, exact without
        sampling error and a proven bound with it (:mod:`core.linear.post_errors`).  The
        plans are ranked by the errors before rounding either way.

    Returns
    -------
    PlanResult
        Its table has the planner's columns, every row ``exact``, plus ``weight`` and
        ``noise_parameter`` (and the errors after rounding when asked).

    Raises
    ------
    ValueError
        In plain words: a statistic the population cannot give, a proportion needing a
        public N, a budget or rate out of range, no design or mechanism left.
    """
    stat = check_statistic(population, stat)
    check_choice("relation", relation, RELATIONS)
    check_choice("objective", objective, ("error_95", "rmse"))
    eps = finite_scalar("eps_target", eps_target)
    if eps <= 0.0:
        raise ValueError(f"eps_target must be above 0; got {eps_target!r}")
    frame = frame if frame is not None else Frame.of(population)
    N = frame.N
    delta = (
        1.0 / (2.0 * N) if delta_target is None else check_delta_open("delta_target", delta_target)
    )
    if stat.kind == "proportion" and relation == "deletion" and not sizes_public:
        raise ValueError(PROPORTION_NEEDS_N)
    scale = 1.0 / N if stat.kind == "proportion" else 1.0
    lo, hi = y_bounds(population, stat)
    post = check_post(post, stat.kind, lo)
    sens = sensitivities(population, stat)
    integer = stat.kind != "total" or bool(
        float(lo).is_integer()
        and float(hi).is_integer()
        and frame.prepared("whole_values", lambda f: whole_numbers(f.values))
    )
    fits = fitting_linear_mechanisms(integer, rho_target)
    names = (
        default_linear_mechanisms(integer, rho_target)
        if mechanisms is None
        else tuple(m for m in mechanisms if m in fits)
    )
    unknown = [m for m in (mechanisms or ()) if m not in LINEAR_MECHANISMS]
    if unknown:
        raise ValueError(
            f"unknown mechanism {unknown[0]!r}; choose from {', '.join(LINEAR_MECHANISMS)}"
        )
    if not names:
        raise ValueError(
            "none of the mechanisms asked fits this statistic (the integer mechanisms need "
            "whole-number values and bounds)"
        )
    if sums is None:
        selection = (stat.column, stat.category, stat.value_range)
        sums = kept_selection_sums(
            frame, selection, lambda: indicator(population, stat), stat.kind == "total"
        )
    statuses: tuple[DesignStatus, ...] = design_statuses(frame, "mean", relation)
    chosen = [
        s.name
        for s in statuses
        if s.available
        and DESIGNS[s.name].has_linear_moments
        and (designs is None or s.name in designs or DESIGNS[s.name].reference)
    ]
    grid = tuple(rates) if rates is not None else default_rates(frame)
    for r in grid:
        if not (math.isfinite(r) and 0.0 < r <= 1.0):
            raise ValueError(f"every rate must lie in (0, 1]; got {r!r}")
    rows: list[dict[str, Any]] = []
    for name in chosen:
        design = DESIGNS[name]
        pts = [design.point(frame, 1.0)] if design.reference else design.points(frame, grid)
        rows += linear_rows(
            name,
            frame,
            sums,
            [p for p in pts if p is not None],
            names,
            sens=sens,
            eps_target=eps,
            delta_target=delta,
            relation=relation,
            scale=scale,
            rho_target=rho_target,
            post=post,
        )
    table, best = _ranked(pd.DataFrame(rows), objective, tuple(LINEAR_MECHANISMS))
    census = best[best["design"].map(lambda d: DESIGNS[d].reference)]
    return PlanResult(
        table=table,
        best_by_design=best,
        best=best.iloc[0],
        census=census.iloc[0] if len(census) else None,
        statuses=statuses,
        population_value=scale * float(sums.total[0]),
        statistic=stat.kind,
        eps_target=eps,
        delta_target=delta,
        reps=0,
        seed=0,
        relation=relation,
        objective=objective,
        budget_share=1.0,
        N=N,
        sizes_public=sizes_public,
        rho_target=rho_target,
    )
