"""Several statistics released from one sample: their budgets compose, then amplify once.

The k releases run on the same secret sample, so they compose there (basic composition)
and the design amplifies the total once.  Amplifying each part and adding understates the
loss when the design's bound is superadditive (OpenDP issue #2933 records this pitfall).
:func:`budget_split` gives the budgets; :func:`several_statistics` plans every statistic
with its share, drawing each design's samples once for all of them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from .._validation import check_choice
from ..designs.frame import Frame
from ..designs.registry import DESIGNS
from ..planner import engine, ties
from ..planner.budgets import eps_sample_for, eps_target_for
from ..planner.budgets import positive as _positive
from ..planner.engine import PlanResult
from ..planner.setting import census_rows

if TYPE_CHECKING:
    from ..populations import Population

__all__ = [
    "AT_RATE_COLUMNS",
    "BudgetSplit",
    "SeveralProgress",
    "at_rate",
    "budget_split",
    "several_statistics",
]


@dataclass(frozen=True)
class BudgetSplit:
    """Budgets of several statistics released from one sample (:func:`budget_split`).

    Attributes
    ----------
    design : str
    eps_target : float
        The promise for all statistics together.
    shares : tuple of float
        Each statistic's share of the sample budget (normalised to sum to 1).
    eps_sample_total : float
        The budget the design allows on the sample for ``eps_target``.
    eps_samples : tuple of float
        Each statistic's part of ``eps_sample_total``.
    eps_target_correct : float
        ``amp(ε_1 + … + ε_k)``: the budgets compose on the sample, then the design
        amplifies once (equals ``eps_target``).
    eps_target_naive : float
        ``amp(ε_1) + … + amp(ε_k)``: amplifying each and adding, which understates the
        loss when the design's bound is superadditive (always for SRS and Poisson).
    """

    design: str
    eps_target: float
    shares: tuple[float, ...]
    eps_sample_total: float
    eps_samples: tuple[float, ...]
    eps_target_correct: float
    eps_target_naive: float


def budget_split(
    design: str,
    eps_target: float,
    shares: Sequence[float],
    *,
    relation: str = "replacement",
    rate: float | None = None,
    sizes: Any = None,
    clusters_sampled: int | None = None,
) -> BudgetSplit:
    """Split the sample budget for ``eps_target`` across statistics released from one sample.

    The k releases run on the same secret sample, so they compose there (basic composition:
    ``ε_1 + … + ε_k``) and the sampling amplifies the total once:
    ``ε_target = amp(ε_1 + … + ε_k)``. The naive total ``Σ amp(ε_i)`` treats each release
    as if it had its own independent sample; for a convex ``amp`` with ``amp(0) = 0``
    (SRS and Poisson: ``ln(1 + r(e^ε − 1))``) it is never larger, so it understates the loss
    (OpenDP issue #2933 records this pitfall).

    Parameters
    ----------
    design, relation, rate, sizes, clusters_sampled
        As for :func:`eps_sample_for`.
    eps_target : float
        The promise for all statistics together.
    shares : sequence of float
        Positive weights, one per statistic (normalised).

    Returns
    -------
    BudgetSplit
    """
    w = np.asarray([_positive("share", x) for x in shares], dtype=np.float64)
    if w.size == 0:
        raise ValueError("shares must list at least one positive weight")
    w = w / w.sum()
    kw: dict[str, Any] = {
        "relation": relation,
        "rate": rate,
        "sizes": sizes,
        "clusters_sampled": clusters_sampled,
    }
    total = eps_sample_for(design, eps_target, **kw)
    parts = tuple(float(total * x) for x in w)
    correct = eps_target_for(design, total, **kw)
    naive = float(sum(eps_target_for(design, e, **kw) for e in parts))
    return BudgetSplit(
        design,
        _positive("eps_target", eps_target),
        tuple(map(float, w)),
        total,
        parts,
        correct,
        naive,
    )


@dataclass(frozen=True, eq=False)
class SeveralProgress:
    """What :func:`several_statistics` has finished: ``done`` of ``total`` designs.

    Attributes
    ----------
    done, total : int
        Designs evaluated for every statistic so far, and in all (the census counts as one).
    design : str
        The design just finished.
    """

    done: int
    total: int
    design: str


def several_statistics(
    population: Population,
    statistics: Sequence[tuple[str, float]],
    shares: Sequence[float],
    *,
    eps_target: float | None = None,
    delta_target: float | None = None,
    designs: Sequence[str] | None = None,
    rates: Sequence[float] | None = None,
    reps: int = 200,
    seed: int = 0,
    relation: str = "replacement",
    objective: str = "error_95",
    refine: bool = True,
    sampler: str = "auto",
    memory_budget: int | None = None,
    frame: Frame | None = None,
    sizes_public: bool = False,
    progress: Callable[[SeveralProgress], None] | None = None,
    rho_target: float | None = None,
) -> tuple[PlanResult, ...]:
    """One plan per statistic released from the same samples, each with its budget share.

    Statistic ``i`` spends the share ``w_i`` (normalised) of the design's ε_sample, so the
    releases compose to ``ε_sample`` on the sample and the design amplifies the total once
    to ``eps_target`` (:func:`budget_split`).  Each mechanism's ε_sample is from its own
    budgets at its level (:meth:`core.mechanisms.Mechanism.budget_factors`), by a bound of
    one budget whose shares add whatever mechanisms the other statistics use (the
    ``shared`` accounting of :meth:`core.designs.protocol.PlannerDesign.accounting`; it
    differs from a lone release's only on a Poisson sample under ``"replacement"``).
    Each plan equals ``plan(statistic=s_i, quantile=q_i, budget_share=w_i, ...)`` in law;
    the samples of a design at a rate are drawn once for all statistics where they are
    whole samples (masks: every statistic's mechanisms run on them, see
    :func:`core.planner.engine.evaluate_many`), and a rate refined for several statistics
    is evaluated for them at once.  Windows reveal only the order statistics near one
    rank, so each quantile draws its own (the windows of different ranks hardly overlap;
    the law of each is that of the whole sample).

    Parameters
    ----------
    statistics : sequence of (str, float)
        ``(statistic, quantile)`` pairs: ``("median", 0.5)``, ``("quantile", q)`` or
        ``("mean", 0.5)``, as :func:`core.planner.engine.plan` takes them.
    shares : sequence of float
        Positive weights, one per statistic (normalised to sum to 1).
    progress : callable, optional
        Called with a :class:`SeveralProgress` after the census and after each design.
    rho_target : float, optional
        The promise stated as ρ-zCDP instead of ``eps_target``: the releases compose as pure
        ε-DP on the sample, the design amplifies them once to the converted ``eps_target``
        (:func:`core.accounting.zcdp.eps_target_for_rho`), which keeps ρ.
    Other parameters
        As for :func:`core.planner.engine.plan`.

    Returns
    -------
    tuple of PlanResult
        One per statistic, in order.

    Raises
    ------
    ValueError
        For no statistic, shares not matching the statistics, or what :func:`plan` refuses.
    """
    w = np.asarray([_positive("share", x) for x in shares], dtype=np.float64)
    if not len(statistics):
        raise ValueError("statistics must list at least one (statistic, quantile) pair")
    if w.size != len(statistics):
        raise ValueError(
            f"shares must give one weight per statistic; got {w.size} for {len(statistics)}"
        )
    w = w / w.sum()
    frame = Frame.of(population) if frame is None else frame
    jobs = [
        engine.prepare(
            population,
            statistic=stat,
            quantile=q,
            budget_share=float(share),
            eps_target=eps_target,
            delta_target=delta_target,
            designs=designs,
            rates=rates,
            reps=reps,
            seed=seed,
            relation=relation,
            objective=objective,
            sampler=sampler,
            memory_budget=memory_budget,
            frame=frame,
            sizes_public=sizes_public,
            rho_target=rho_target,
        )
        for (stat, q), share in zip(statistics, w, strict=True)
    ]
    census = jobs[0].census
    rows = [census_rows(census, frame, j.setting) for j in jobs]
    order = [d for d in DESIGNS.values() if any(d in j.chosen for j in jobs)]
    total = 1 + len(order)
    if progress is not None:
        progress(SeveralProgress(1, total, census.name))
    for done, design in enumerate(order, start=2):
        mine = [i for i, j in enumerate(jobs) if design in j.chosen]
        settings = [jobs[i].setting for i in mine]
        if refine:
            got = engine.with_refinement_many(design, frame, jobs[0].grid, settings, objective)
        else:
            got = engine.evaluate_many(design, frame, jobs[0].grid, settings)
        for i, new in zip(mine, got, strict=True):
            rows[i].extend(new)
        if progress is not None:
            progress(SeveralProgress(done, total, design.name))
    return tuple(engine.assemble(j, r) for j, r in zip(jobs, rows, strict=True))


#: Columns of :func:`at_rate`: every number of a row is the plan table's at that row's rate.
AT_RATE_COLUMNS = (
    "statistic",
    "quantile",
    "design",
    "rate",
    "n",
    "mechanism",
    "mechanism_label",
    "eps_sample",
    "rmse",
    "rmse_se",
    "error_95",
    "error_95_se",
)


def at_rate(
    results: Sequence[PlanResult], design: str, rate: float, objective: str | None = None
) -> pd.DataFrame:
    """Each plan's row of ``design`` at the rate the user chose, its best mechanism there.

    A plan may hold more rates of a design than the one chosen (the grid, and the rates a
    refinement adds around each mechanism's best).  The row shown for a chosen rate must be
    that rate's: its ε_sample, RMSE and 95 % bound all belong to one realised rate, the
    one nearest ``rate`` on a log scale, ``argmin |log(r / rate)|`` over the design's
    realised rates (the census has one, ``r = 1``).  Among the mechanisms evaluated at that
    rate, the one with the smallest ``objective`` is kept.  Picking the design's best row
    of :attr:`PlanResult.best_by_design` instead mixes rates: its error may come from a
    refined rate that the chosen rate's budget does not buy.

    Parameters
    ----------
    results : sequence of PlanResult
        One plan per statistic (:func:`several_statistics`).
    design : str
        The design's name; every plan must have rows of it.
    rate : float
        The chosen rate, in (0, 1] (ignored by the census, which has one rate).
    objective : str, optional
        ``"error_95"`` or ``"rmse"``: which mechanism is best at that rate (default each
        plan's own objective).

    Returns
    -------
    pandas.DataFrame
        One row per plan, columns :data:`AT_RATE_COLUMNS` (``statistic`` and ``quantile``
        of the plan, the rest from its table's row).

    Raises
    ------
    ValueError
        For a rate outside (0, 1], an unknown objective, or a plan with no row of
        ``design``.
    """
    r = _positive("rate", rate)
    if r > 1:
        raise ValueError(f"rate must be a number in (0, 1]; got {rate!r}")
    rows = []
    for result in results:
        goal = (
            result.objective
            if objective is None
            else check_choice("objective", objective, engine.OBJECTIVES)
        )
        mine = result.table[result.table["design"] == design]
        if not len(mine):
            raise ValueError(f"a plan has no row of the design {design!r}")
        realised = mine["rate"].to_numpy(dtype=np.float64)
        nearest = realised[int(np.argmin(np.abs(np.log(realised / r))))]
        at = mine[mine["rate"] == nearest]
        best = at.iloc[ties.first_least(at[goal].to_numpy(dtype=np.float64))]
        row = {c: best[c] for c in AT_RATE_COLUMNS[2:]}
        rows.append({"statistic": result.statistic, "quantile": float(result.quantile), **row})
    return pd.DataFrame(rows, columns=list(AT_RATE_COLUMNS))
