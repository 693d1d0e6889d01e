"""Plan a publication table: every cell × statistic, each with the single-statistic planner.

:func:`plan_table` groups the population by one or two label columns into cells, gives each
cell the budget of :func:`core.publication.composition.cell_budget` (parallel composition
across cells), splits it across the statistics (sequential composition, equal or optimised
shares), and runs :func:`core.planner.plan` on each cell's records with its share.  Every
cell × statistic is an independent job (:class:`CellJob`, run by :func:`run_cell_job`) with
its own seed, derived from the table's seed and the job's indices by
``numpy.random.SeedSequence``; any executor (the built-in ``map``, a process pool, Dask)
therefore gives the same numbers.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from .._validation import check_choice, check_seed, check_whole
from ..accounting.zcdp import Promise
from ..designs.frame import Frame
from ..designs.registry import DESIGNS
from ..planner import design_statuses, plan
from ..planner.budgets import (
    MEAN_MECHANISMS,
    QUANTILE_MECHANISMS,
    default_mechanisms,
    positive,
    promise_refusal,
)
from ..population import Population
from ..publication.composition import (
    CellBudget,
    cell_budget,
    design_refusal,
    optimal_shares,
    sizes_statement,
    split_shares,
    table_eps,
)
from ..sensitivity import check_quantile

__all__ = [
    "GROUPS",
    "TABLE_COLUMNS",
    "CellJob",
    "TablePlan",
    "cell_seed",
    "cells_of",
    "in_reading_order",
    "parse_statistic",
    "plan_table",
    "reading_order",
    "run_cell_job",
]

#: The label columns a population can be grouped by.
GROUPS = ("strata", "clusters")
#: The columns of :attr:`TablePlan.table` after the cells' label columns.
TABLE_COLUMNS = (
    "cell",
    "N_cell",
    "statistic",
    "share",
    "eps_target",
    "delta_target",
    "design",
    "mechanism",
    "rate",
    "n",
    "eps_sample",
    "delta_sample",
    "rmse",
    "error_95",
    "value",
    "relative_error",
    "publishable",
    "seed",
    "note",
)


def reading_order(name: str) -> tuple[tuple[int, float, str], ...]:
    """A key that sorts cell names as a person reads them: numbers by value.

    The name is split into runs of digits (with an optional decimal part) and the text
    between them; runs compare by value, text as text.  So stratum "2" comes before "10",
    and the size classes "5-9", "10-19", "100-249" follow each other in that order, not
    as text ("10-19", "100-249", "5-9").
    """
    parts = re.split(r"(\d+(?:\.\d+)?)", name)
    return tuple(
        (0, float(part), "") if i % 2 else (1, 0.0, part) for i, part in enumerate(parts) if part
    )


def in_reading_order(
    table: pd.DataFrame, label_columns: Sequence[str], statistics: Sequence[str]
) -> pd.DataFrame:
    """``table``'s rows with the cells in :func:`reading_order` of each label column, then
    the statistics in the plan's order (rows move whole; the cells keep their indices and
    so their seeds)."""
    rank = {s: i for i, s in enumerate(statistics)}
    keys = [
        (tuple(reading_order(str(v)) for v in labels), rank.get(stat, len(rank)), position)
        for position, (*labels, stat) in enumerate(
            table[[*label_columns, "statistic"]].itertuples(index=False)
        )
    ]
    order = [k[-1] for k in sorted(keys)]
    return table.iloc[order].reset_index(drop=True)


def parse_statistic(spec: Any) -> tuple[str, float, str]:
    """``(statistic, quantile, label)`` of ``"median"``, ``"mean"`` or ``("quantile", q)``.

    Also accepts ``{"quantile": q}`` and the text ``"quantile 0.9"``.
    """
    if isinstance(spec, str) and spec.startswith("quantile "):
        spec = ("quantile", spec.split(" ", 1)[1])
    if isinstance(spec, dict) and set(spec) == {"quantile"}:
        spec = ("quantile", spec["quantile"])
    if spec in ("median", "mean"):
        return str(spec), 0.5, str(spec)
    if isinstance(spec, (tuple, list)) and len(spec) == 2 and spec[0] == "quantile":
        level = spec[1]
        if isinstance(level, str):
            try:
                level = float(level)
            except ValueError:
                raise ValueError(f"quantile must be a number in (0, 1); got {level!r}") from None
        q = check_quantile(level)
        return "quantile", q, f"quantile {q:g}"
    raise ValueError(f"a statistic must be 'median', 'mean' or ('quantile', q); got {spec!r}")


def cell_seed(seed: int, cell_index: int, stat_index: int) -> int:
    """The seed of one cell × statistic job: ``SeedSequence(seed, spawn_key=(cell, stat))``.

    Independent of the executor and of the order jobs run in; a whole number in
    ``[0, 2^63 − 1]``.
    """
    ss = np.random.SeedSequence(check_seed(seed), spawn_key=(int(cell_index), int(stat_index)))
    return int(ss.generate_state(1, dtype=np.uint64)[0] >> np.uint64(1))


def _group_labels(population: Population, group: str) -> tuple[np.ndarray, str]:
    check_choice("group", group, GROUPS)
    labels = population.strata if group == "strata" else population.clusters
    name = population.stratum_label if group == "strata" else population.cluster_label
    if labels is None:
        raise ValueError(f"groups: the population has no {group} labels to group by ({group!r})")
    return labels, name


def cells_of(
    population: Population, groups: Sequence[str], *, max_cells: int = 10_000
) -> tuple[list[str], list[tuple[Any, ...]], list[np.ndarray]]:
    """The cells of ``population`` grouped by one or two label columns, in sorted label order.

    Returns
    -------
    (names, labels, indices)
        The column names of the labels, each cell's labels, and each cell's record indices
        (ascending, so each cell's values stay sorted).

    Raises
    ------
    ValueError
        For an unknown or repeated group, a population without those labels, or more than
        ``max_cells`` cells (naming the column).
    """
    if isinstance(groups, str):
        groups = (groups,)
    groups = tuple(groups)
    if not 1 <= len(groups) <= 2 or len(set(groups)) != len(groups):
        raise ValueError(f"groups must name one or two of {GROUPS}; got {list(groups)!r}")
    limit = check_whole("max_cells", max_cells, 1, 10**7)
    data: dict[str, np.ndarray] = {}
    names = []
    for g in groups:
        labels, name = _group_labels(population, g)
        distinct = len(population.label_codes(g)[1])  # type: ignore[index]
        if distinct > limit:
            raise ValueError(
                f"groups: the column {name!r} ({g}) has {distinct:,} labels, more than the "
                f"{limit:,} cells allowed"
            )
        key = name if name not in data else f"{name} ({g})"
        data[key] = np.asarray(labels)
        names.append(key)
    grouped = pd.DataFrame(data).groupby(names, sort=True).indices
    if len(grouped) > limit:
        raise ValueError(
            f"groups: {' × '.join(names)} gives {len(grouped):,} cells, more than {limit:,}"
        )
    labels_out = [k if isinstance(k, tuple) else (k,) for k in grouped]
    return names, labels_out, [np.sort(v) for v in grouped.values()]


def _cell_population(
    population: Population, idx: np.ndarray, labels: tuple[Any, ...]
) -> Population:
    return Population(
        name=f"{population.name} [{' / '.join(map(str, labels))}]",
        values=population.values[idx],
        lower=population.lower,
        upper=population.upper,
        strata=None if population.strata is None else population.strata[idx],
        clusters=None if population.clusters is None else population.clusters[idx],
        value_label=population.value_label,
        stratum_label=population.stratum_label,
        cluster_label=population.cluster_label,
    )


@dataclass(frozen=True, eq=False)
class CellJob:
    """One cell × statistic to plan (picklable; :func:`run_cell_job` runs it)."""

    cell: int
    labels: tuple[Any, ...]
    population: Population
    stat_index: int
    statistic: str
    quantile: float
    stat_label: str
    share: float
    eps_target: float
    delta_target: float
    relation: str
    designs: tuple[str, ...] | None
    mechanisms: tuple[str, ...] | None
    rates: tuple[float, ...] | None
    reps: int
    seed: int
    objective: str
    publish_share: float
    refused: tuple[str, ...] = field(default=())
    #: The cell sizes ``N_c`` are declared public (:func:`core.planner.plan`'s
    #: ``sizes_public``).
    sizes_public: bool = False
    #: The table's promise is ρ-zCDP: only pure ε-DP mechanisms are planned
    #: (:func:`core.planner.budgets.promise_refusal`).
    pure_only: bool = False

    def plan_kwargs(self) -> dict[str, Any]:
        """The keyword arguments of the :func:`core.planner.plan` call this job makes."""
        frame = Frame.of(self.population)
        statuses = design_statuses(frame, self.statistic, self.relation)
        ok = [s.name for s in statuses if s.available and s.name not in self.refused]
        designs = ok if self.designs is None else [d for d in self.designs if d in ok]
        mechanisms = self.mechanisms
        if self.pure_only:
            asked = mechanisms or default_mechanisms(
                self.statistic,
                bounded=math.isfinite(frame.upper),
                relation=self.relation,
                sizes_public=self.sizes_public,
            )
            mechanisms = tuple(m for m in asked if not promise_refusal(m, "zcdp"))
        return {
            "statistic": self.statistic,
            "quantile": self.quantile,
            "eps_target": self.eps_target,
            "delta_target": self.delta_target,
            "relation": self.relation,
            "designs": designs,
            "mechanisms": mechanisms,
            "rates": self.rates,
            "reps": self.reps,
            "seed": self.seed,
            "objective": self.objective,
            "frame": frame,
            "sizes_public": self.sizes_public,
        }


def run_cell_job(job: CellJob) -> dict[str, Any]:
    """Plan one cell × statistic with :func:`core.planner.plan`; one row of the table.

    A cell the planner cannot plan (too few records, no mechanism fits) gives a row with
    NaN numbers, ``publishable=False`` and the planner's message in ``note``.
    """
    row: dict[str, Any] = {
        "cell": job.cell,
        "N_cell": job.population.size,
        "statistic": job.stat_label,
        "share": job.share,
        "eps_target": job.eps_target,
        "delta_target": job.delta_target,
        "seed": job.seed,
    }
    try:
        result = plan(job.population, **job.plan_kwargs())
    except ValueError as exc:
        nan = math.nan
        row.update(
            design="",
            mechanism="",
            rate=nan,
            n=nan,
            eps_sample=nan,
            delta_sample=nan,
            rmse=nan,
            error_95=nan,
            value=nan,
            relative_error=nan,
            publishable=False,
            note=str(exc),
        )
        return row
    best = result.best
    value = float(result.population_value)
    err = float(best["error_95"])
    rel = err / abs(value) if value != 0 else math.inf
    row.update(
        design=str(best["design"]),
        mechanism=str(best["mechanism"]),
        rate=float(best["rate"]),
        n=float(best["n"]),
        eps_sample=float(best["eps_sample"]),
        delta_sample=float(best["delta_sample"]),
        rmse=float(best["rmse"]),
        error_95=err,
        value=value,
        relative_error=rel,
        publishable=bool(err <= job.publish_share * abs(value)),
        note="",
    )
    return row


@dataclass(frozen=True, eq=False)
class TablePlan:
    """Result of :func:`plan_table`.

    Attributes
    ----------
    table : pandas.DataFrame
        One row per cell × statistic: the cell's label columns, then :data:`TABLE_COLUMNS`.
    label_columns : tuple of str
    statistics : tuple of str
        The statistics' labels, in order.
    shares : tuple of float
        Each statistic's share of the cell budget.
    budget : CellBudget
        What each cell keeps, with the composition in words.
    refused : dict of str to str
        Designs refused for the table, with the reason.
    eps_table : float
        The table's ε recomputed from the cells' spent budgets (:func:`table_eps`).
    settings : dict
        The arguments, for reports.
    split_curves : dict
        For an optimised split: per statistic the budgets tried and the largest relative
        error over the cells at each.
    """

    table: pd.DataFrame
    label_columns: tuple[str, ...]
    statistics: tuple[str, ...]
    shares: tuple[float, ...]
    budget: CellBudget
    refused: dict[str, str]
    eps_table: float
    settings: dict[str, Any]
    split_curves: dict[str, Any]

    def summary(self) -> dict[str, Any]:
        """The composition and totals as plain JSON-ready values."""
        t = self.table
        return {
            "eps_target": self.settings["eps_target"],
            "rho_target": self.settings.get("rho_target"),
            "conversion": self.settings.get("conversion", ""),
            "delta_target": self.settings["delta_target"],
            "relation": self.settings["relation"],
            "labels_fixed": self.settings["labels_fixed"],
            "composition": {
                "across_cells": self.budget.reason,
                "cell_relation": self.budget.relation,
                "cell_eps_target": self.budget.eps_target,
                "cell_delta_target": self.budget.delta_target,
                "across_statistics": (
                    "Each statistic is released from its own independent sample at its share "
                    "of the cell's budget; the shares add up to the cell's budget (basic "
                    "composition)."
                ),
                "shares": dict(zip(self.statistics, self.shares, strict=True)),
                "split": self.settings["split"],
                "eps_table": self.eps_table,
            },
            "refused_designs": dict(self.refused),
            "cells": int(t["cell"].nunique()),
            "rows": len(t),
            "sizes_public": self.settings["sizes_public"],
            "sizes": sizes_statement(self.settings["sizes_public"], self.budget.relation),
            "publishable": int(t["publishable"].sum()),
            "not_publishable": int((~t["publishable"].astype(bool)).sum()),
            "unplanned": int((t["note"] != "").sum()),
            "designs_chosen": {str(k): int(v) for k, v in t["design"].value_counts().items()},
            "split_curves": self.split_curves,
        }


def _mechanisms_for_stat(
    mechanisms: tuple[str, ...] | None, statistic: str
) -> tuple[str, ...] | None:
    if mechanisms is None:
        return None
    family = MEAN_MECHANISMS if statistic == "mean" else QUANTILE_MECHANISMS
    mine = tuple(m for m in mechanisms if m in family)
    return mine or None


def plan_table(
    population: Population,
    groups: Sequence[str],
    statistics: Sequence[Any],
    eps_target: float | None = None,
    *,
    rho_target: float | None = None,
    delta_target: float | None = None,
    relation: str = "replacement",
    labels_fixed: bool = False,
    sizes_public: bool = False,
    designs: Sequence[str] | None = None,
    mechanisms: Sequence[str] | None = None,
    rates: Sequence[float] | None = None,
    reps: int = 200,
    seed: int = 0,
    split: str | Sequence[float] = "equal",
    split_grid: Sequence[float] = (0.15, 0.35, 0.6, 0.85),
    error_weights: Sequence[float] | None = None,
    publish_share: float = 0.1,
    objective: str = "error_95",
    max_cells: int = 10_000,
    map_fn: Callable[[Callable[[CellJob], dict[str, Any]], Iterable[CellJob]], Iterable[Any]]
    | None = None,
    on_row: Callable[[dict[str, Any]], None] | None = None,
) -> TablePlan:
    """Plan a table of statistics by cells under one ``(eps_target, delta_target)``.

    Composition (proved in :mod:`core.publication.composition`): each cell keeps
    :func:`cell_budget` (``ε/2`` for added or removed records when a changed record may move
    between cells, else ``ε``); statistic ``s`` of a cell spends the share ``w_s`` of it, on
    a sample of its own.  Each cell × statistic is then :func:`core.planner.plan` on the
    cell's records at ``(w_s ε_cell, w_s δ_cell)`` under the cell's relation, with the designs
    that can serve a table (:func:`design_refusal`).

    Parameters
    ----------
    population : Population
    groups : sequence of str
        One or two of ``"strata"``, ``"clusters"``.
    statistics : sequence
        ``"median"``, ``"mean"``, ``("quantile", q)`` (:func:`parse_statistic`).
    eps_target : float, optional
        The promise for the whole table, pure ε-DP.  Give it or ``rho_target``.
    rho_target : float, optional
        The promise for the whole table stated as ρ-zCDP: the table is planned at the
        largest pure ``eps_target`` that keeps it (:func:`core.accounting.zcdp.
        eps_target_for_rho`; the pure table composes as before and ε-DP implies
        ρ(ε)-zCDP), with the pure mechanisms only (an (ε, δ) one implies no zCDP bound).
    delta_target : float, optional
        Default ``1 / (2N)``.
    relation : {"replacement", "deletion"}
    labels_fixed : bool
        Grouping labels are public and never change between neighbours.
    sizes_public : bool
        The population size ``N`` and every cell size ``N_c`` are declared public (published
        with the table as invariants).  When the cells are planned for added or removed
        records (the default, labels that can change), a mean that divides by ``N_c`` is
        used only then; otherwise each cell's mean is a noisy sum over a noisy count
        (claim 6 of :mod:`core.publication.composition`).  Default False.
    designs, mechanisms, rates, reps, objective
        As for :func:`core.planner.plan` (mechanisms are filtered per statistic family).
    seed : int
        The table's seed; job seeds follow from it (:func:`cell_seed`).
    split : "equal", "optimal" or sequence of float
        The statistics' shares: equal, optimised to minimise the largest relative 95 %
        error over cells and statistics (:func:`optimal_shares`, from plans at the shares of
        ``split_grid``), or the given weights.
    split_grid : sequence of float
        Shares in (0, 1) tried for an optimised split.
    error_weights : sequence of float, optional
        For the optimised split: one positive weight per statistic; the split minimises the
        largest weighted relative error (:func:`optimal_shares`).  Default: all equal.
    publish_share : float
        A cell × statistic is publishable when its 95 % error bound is at most this share of
        the cell's value.
    max_cells : int
        Refuse groupings with more cells than this.
    map_fn : callable, optional
        ``map_fn(run_cell_job, jobs)`` returns the rows in the order of ``jobs``; default the
        built-in ``map``.
    on_row : callable, optional
        Called with each row of the final table (a dict of :data:`TABLE_COLUMNS`, without
        the label columns; ``row["cell"]`` indexes :func:`cells_of`'s cells) as soon as it
        is planned, in the order of the jobs, so that a page can show the rows as they
        finish (with the built-in ``map``, one cell × statistic at a time).

    Returns
    -------
    TablePlan
    """
    promise = Promise.stated(eps_target=eps_target, rho_target=rho_target)
    eps_target = promise.eps_target
    N = population.size
    delta = 1.0 / (2.0 * N) if delta_target is None else delta_target
    budget = cell_budget(eps_target, delta, relation, labels_fixed=labels_fixed)
    sizes_note = sizes_statement(sizes_public, budget.relation)  # checks sizes_public
    stats = [parse_statistic(s) for s in statistics]
    if not stats:
        raise ValueError("statistics must name at least one statistic")
    labels_seen = [s[2] for s in stats]
    if len(set(labels_seen)) != len(labels_seen):
        raise ValueError(f"statistics are repeated: {labels_seen!r}")
    share_cap = positive("publish_share", publish_share)
    check_choice("objective", objective, ("error_95", "rmse"))
    names, cell_labels, cell_idx = cells_of(population, groups, max_cells=max_cells)
    cells = [
        _cell_population(population, i, lab) for i, lab in zip(cell_idx, cell_labels, strict=True)
    ]
    refused = {d: r for d in DESIGNS if (r := design_refusal(d, budget.relation))}
    design_t = None if designs is None else tuple(designs)
    for d in design_t or ():
        check_choice("design", d, tuple(DESIGNS))
    mech_t = None if mechanisms is None else tuple(mechanisms)
    rates_t = None if rates is None else tuple(float(r) for r in rates)
    runner = map if map_fn is None else map_fn
    seed = check_seed(seed)

    def jobs_at(shares: Sequence[float]) -> list[CellJob]:
        return [
            CellJob(
                cell=c,
                labels=cell_labels[c],
                population=cells[c],
                stat_index=s,
                statistic=stats[s][0],
                quantile=stats[s][1],
                stat_label=stats[s][2],
                share=float(shares[s]),
                eps_target=budget.eps_target * shares[s],
                delta_target=budget.delta_target * shares[s],
                relation=budget.relation,
                designs=design_t,
                mechanisms=_mechanisms_for_stat(mech_t, stats[s][0]),
                rates=rates_t,
                reps=reps,
                seed=cell_seed(seed, c, s),
                objective=objective,
                publish_share=share_cap,
                refused=tuple(refused),
                pure_only=promise.kind == "zcdp",
                sizes_public=sizes_public,
            )
            for c in range(len(cells))
            for s in range(len(stats))
        ]

    k = len(stats)
    curves: dict[str, Any] = {}
    weights_t = None if error_weights is None else tuple(float(w) for w in error_weights)
    if weights_t is not None:
        if split != "optimal":
            raise ValueError("error_weights apply to the optimised split (split='optimal') only")
        if len(weights_t) != k or not all(math.isfinite(w) and w > 0 for w in weights_t):
            raise ValueError(
                f"error_weights needs {k} positive numbers, one per statistic; "
                f"got {error_weights!r}"
            )
    if isinstance(split, str):
        check_choice("split", split, ("equal", "optimal"))
        shares = split_shares(k)
        if split == "optimal" and k > 1:
            grid = sorted(float(g) for g in split_grid)
            if len(grid) < 2 or not all(0.0 < g < 1.0 for g in grid):
                raise ValueError(f"split_grid must hold ≥ 2 shares in (0, 1); got {split_grid!r}")
            trial = [jobs_at([g] * k) for g in grid]
            rows = list(runner(run_cell_job, [j for js in trial for j in js]))
            worst = pd.DataFrame(rows).groupby(["statistic", "share"])["relative_error"].max()
            pairs = []
            for _, _, lab in stats:
                errs = [float(worst.get((lab, g), math.nan)) for g in grid]
                curves[lab] = {"eps_target": [budget.eps_target * g for g in grid], "error": errs}
                pairs.append(([budget.eps_target * g for g in grid], errs))
            if all(np.all(np.isfinite(e)) and min(e) > 0 for _, e in pairs):
                shares = optimal_shares(pairs, budget.eps_target, weights_t)
    else:
        shares = split_shares(k, list(split))
    rows = []
    for row in runner(run_cell_job, jobs_at(shares)):
        rows.append(row)
        if on_row is not None:
            on_row(row)
    table = pd.DataFrame(rows, columns=list(TABLE_COLUMNS))
    for j, name in enumerate(names):
        table.insert(j, name, [cell_labels[c][j] for c in table["cell"]])
    table = in_reading_order(table, names, [s[2] for s in stats])
    spent = table.groupby("cell")["eps_target"].sum().to_numpy()
    # Each cell's spent budget is its loss under the cell's relation (claims 1-4).
    change = spent if budget.relation == "replacement" else None
    eps_tab = table_eps(spent, change, relation, labels_fixed=labels_fixed)
    settings = {
        "groups": list(groups) if not isinstance(groups, str) else [groups],
        "statistics": [s[2] for s in stats],
        "eps_target": float(eps_target),
        "rho_target": promise.rho,
        "conversion": promise.conversion,
        "delta_target": float(delta),
        "relation": relation,
        "labels_fixed": bool(labels_fixed),
        "sizes_public": bool(sizes_public),
        "sizes": sizes_note,
        "designs": None if design_t is None else list(design_t),
        "mechanisms": None if mech_t is None else list(mech_t),
        "rates": None if rates_t is None else list(rates_t),
        "reps": int(reps),
        "seed": seed,
        "split": split if isinstance(split, str) else list(map(float, split)),
        "error_weights": None if weights_t is None else list(weights_t),
        "publish_share": share_cap,
        "objective": objective,
    }
    return TablePlan(
        table=table,
        label_columns=tuple(names),
        statistics=tuple(s[2] for s in stats),
        shares=tuple(float(x) for x in shares),
        budget=budget,
        refused=refused,
        eps_table=float(eps_tab),
        settings=settings,
        split_curves=curves,
    )
