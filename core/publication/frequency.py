"""A frequency table: counts (or totals of a value) by cell, released as one noisy histogram.

The cells are the cross of one or two label columns and the categories of a column
(:mod:`core.publication.cells`); the table counts the records of each cell, or totals a
bounded value over them.  One design and one rate serve the whole table: one sample ``S``
is drawn and released as a histogram, each cell's estimate
``w (Σ_{i∈S∩c} y_i + Z_c)`` with the design's estimator weight ``w`` and independent noise
``Z_c`` of one law (Laplace, geometric or discrete Gaussian) calibrated to one record's
contribution.  Cells are disjoint, so the histogram composes in parallel and each cell is
released at the whole budget; how a changed record that moves between cells is priced, for
both relations, is claim 7 of :mod:`core.publication.composition`
(:func:`~core.publication.composition.histogram_budget`).

Every cell's error is exact, without Monte Carlo: the design variance of its
design-unbiased estimator (:meth:`core.designs.protocol.PlannerDesign.linear_moments` on the
cells' sufficient sums, :func:`core.linear.sums.cell_sums`, O(N) once) plus ``w²`` times the
noise's variance, so a plan costs O(N) once and then O(cells × groups) per design and rate.
The 95 % bound takes the sampling error as normal (:mod:`core.publication.cell_errors`).

For these linear statistics the census is expected to win under the same mechanism: a
sample's estimator multiplies the noise by its weight ``w`` (``1/r`` for Poisson sampling)
while amplification lets it spend about ``ε_target / r`` at most, and the sample adds its own
error.  :attr:`FrequencyPlan.designs` shows the comparison at every design and rate (the
total RMSE over the cells); the tests check that the census's is the smallest.  A single
empty cell has no sampling error, and under a change a Poisson sample's exact accounting
can give its noise alone a slightly smaller variance than the census's (group privacy
prices the census's change at twice its budget), so the claim is made for the table.

A cell is publishable when its relative 95 % error ``error_95 / value`` is at most the
``threshold`` (an empty cell never is).

With ``margins="rows"`` each row's total is released too and the cells are projected to add
up to it (:mod:`core.publication.margins`); the table's errors are then those after the
projection.

Under a promise stated as ρ-zCDP (``rho_target``) the noise is the discrete Gaussian of
``σ = Δ₂/√(2ρ)``, ``Δ₂`` the L2 sensitivity of the whole histogram (claim 8 of
:mod:`core.publication.composition`,
:func:`~core.publication.composition.histogram_l2_sensitivity`), on the census only: no
amplification theorem for zCDP is used (:func:`~core.publication.composition.zcdp_design_refusal`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from .._validation import check_choice, check_delta_open
from ..designs.frame import Frame
from ..designs.registry import DESIGNS, design_named
from ..linear.mechanisms import LINEAR_MECHANISMS
from ..linear.statistic import whole_numbers
from ..linear.sums import GroupSums, cell_sums
from ..mechanisms.base import BudgetFactors
from ..planner.budgets import default_rates, positive
from ..population import Population
from ..publication.cell_errors import cell_error_bounds, rounded_rmse
from ..publication.cells import MAX_COLUMN_CATEGORIES, FrequencyCells, frequency_cells
from ..publication.composition import (
    HistogramBudget,
    histogram_budget,
    histogram_l2_sensitivity,
    zcdp_design_refusal,
    zcdp_histogram_reason,
)
from ..publication.margins import DEFAULT_MARGIN_SHARE, check_margins, margin_errors, row_sums

__all__ = [
    "CELL_COLUMNS",
    "DEFAULT_THRESHOLD",
    "DESIGN_COLUMNS",
    "FREQUENCY_KINDS",
    "ZCDP_MECHANISM",
    "FrequencyPlan",
    "check_rho_promise",
    "check_threshold",
    "frequency_sums",
    "plan_frequency",
    "y_bounds",
]

#: What a frequency table holds in each cell.
FREQUENCY_KINDS = ("count", "total")
#: The mechanism a ρ-zCDP promise uses (claim 8 of :mod:`core.publication.composition`).
ZCDP_MECHANISM = "discrete_gaussian"
#: Default publishability threshold: a cell's 95 % error at most half its value.
DEFAULT_THRESHOLD = 0.5
#: Columns of :attr:`FrequencyPlan.table` after the cells' label columns.
CELL_COLUMNS = (
    "cell",
    "value",
    "design",
    "rate",
    "rmse",
    "error_95",
    "relative_error",
    "publishable",
    "census_rmse",
    "census_error_95",
    "census_publishable",
    "note",
)
#: Columns of :attr:`FrequencyPlan.designs` (one row per design and rate).
DESIGN_COLUMNS = (
    "design",
    "rate",
    "n",
    "eps_sample",
    "delta_sample",
    "noise_parameter",
    "noise_sd",
    "weight",
    "rmse_total",
    "median_relative_error",
    "publishable",
    "bound",
)


def check_threshold(threshold: object) -> float:
    """The publishability threshold as a float in (0, 10], or ValueError in words."""
    try:
        t = positive("threshold", threshold)
    except ValueError:
        t = -1.0
    if not 0.0 < t <= 10.0:
        raise ValueError(
            "the threshold is the largest relative 95 % error of a publishable cell: a "
            f"number in (0, 10] (0.5 = half the cell's value); got {threshold!r}"
        )
    return t


def y_bounds(population: Population, kind: str) -> tuple[float, float]:
    """The public bounds of ``y``: ``[0, 1]`` for counts, the value's bounds for totals
    (ValueError in words when a total has no public upper bound)."""
    check_choice("kind", kind, FREQUENCY_KINDS)
    if kind == "count":
        return 0.0, 1.0
    lo, hi = float(population.lower), float(population.upper)
    if not math.isfinite(hi):
        raise ValueError(
            "a total by cell needs a public upper bound of the values; this population has "
            "none, so only counts can be tabulated"
        )
    return lo, hi


def frequency_sums(
    population: Population,
    cells: FrequencyCells,
    kind: str = "count",
    *,
    frame: Frame | None = None,
) -> GroupSums:
    """The cells' sufficient sums (:func:`core.linear.sums.cell_sums`), O(N).

    ``y = 1`` for counts; for totals ``y`` is the value (within the public bounds).
    """
    check_choice("kind", kind, FREQUENCY_KINDS)
    y_bounds(population, kind)
    fr = Frame.of(population) if frame is None else frame
    weights = None if kind == "count" else fr.values
    return cell_sums(fr, cells.codes, cells.n_cells, weights)


@dataclass(frozen=True, eq=False)
class FrequencyPlan:
    """Result of :func:`plan_frequency`.

    Attributes
    ----------
    table : pandas.DataFrame
        One row per cell: its labels, then :data:`CELL_COLUMNS` for the chosen design and
        rate, with the census's errors beside them.
    designs : pandas.DataFrame
        One row per design and rate (:data:`DESIGN_COLUMNS`), the census first: what the
        table costs under each, summed over the cells.
    cells : FrequencyCells
    budget : HistogramBudget
        The sensitivities and the composition in words.
    design, rate : str, float
        The design and rate of :attr:`table`.
    settings : dict
        The arguments, for reports and configs.
    margins : pandas.DataFrame or None
        With ``margins="rows"``: one row per row of the table, its released margin's value
        and errors for the chosen design and the census (:mod:`core.publication.margins`).
    unavailable : dict
        Under a ρ-zCDP promise, every design asked for but not planned, with why
        (:func:`~core.publication.composition.zcdp_design_refusal`); else empty.
    """

    table: pd.DataFrame
    designs: pd.DataFrame
    cells: FrequencyCells
    budget: HistogramBudget
    design: str
    rate: float
    settings: dict[str, Any]
    margins: pd.DataFrame | None = None
    unavailable: dict[str, str] = field(default_factory=dict)

    def summary(self) -> dict[str, Any]:
        """The composition and totals as plain JSON-ready values."""
        t = self.table
        chosen = self.designs[
            (self.designs["design"] == self.design) & (self.designs["rate"] == self.rate)
        ].iloc[0]
        census = self.designs[self.designs["design"] == "census"].iloc[0]
        out = {
            "table": "frequency",
            "kind": self.settings["kind"],
            "eps_target": self.settings["eps_target"],
            "delta_target": self.settings["delta_target"],
            "rho_target": self.settings.get("rho_target"),
            "relation": self.settings["relation"],
            "labels_fixed": self.settings["labels_fixed"],
            "composition": {
                "across_cells": self.budget.reason,
                "planned_relation": self.budget.relation,
                "sensitivity_add_remove": self.budget.sensitivity,
                "sensitivity_change": self.budget.change_sensitivity,
            },
            "mechanism": self.settings["mechanism"],
            "design": self.design,
            "rate": self.rate,
            "eps_sample": float(chosen["eps_sample"]),
            "cells": len(t),
            "rows": self.cells.n_rows,
            "columns": self.cells.n_columns,
            "threshold": self.settings["threshold"],
            "publishable": int(t["publishable"].sum()),
            "not_publishable": int((~t["publishable"].astype(bool)).sum()),
            "empty_cells": int((t["value"] == 0).sum()),
            "census_publishable": int(census["publishable"]),
            "rmse_total": float(chosen["rmse_total"]),
            "census_rmse_total": float(census["rmse_total"]),
        }
        if self.margins is not None:
            out["margins"] = {
                "released": self.settings["margins"],
                "share": self.settings["margin_share"],
                "projection": "cells moved to add up to their row's released margin "
                "(generalised least squares; post-processing)",
                "rmse_total": float(chosen["margin_rmse_total"]),
                "publishable": int(self.margins["publishable"].sum()),
            }
        if self.settings.get("rho_target") is not None:
            out["composition"] = {
                "across_cells": self.settings["zcdp_reason"],
                "planned_relation": self.budget.relation,
                "sensitivity_l2": self.settings["l2_sensitivity"],
            }
            out["designs_not_available"] = dict(self.unavailable)
        return out


def _design_rows(
    frame: Frame,
    sums: GroupSums,
    budget: HistogramBudget,
    mechanism: Any,
    eps_target: float,
    delta_target: float,
    design_names: Sequence[str],
    rates: Sequence[float],
    margins: tuple[GroupSums, int, float] | None = None,
) -> list[tuple[dict[str, Any], np.ndarray, np.ndarray, list[str]]]:
    """Per design and rate: the summary row and each cell's variance, bound and methods
    (after the projection onto the row margins when ``margins`` gives the rows' sums, the
    columns and the margins' share; the row then keeps the margins' errors)."""
    factors = BudgetFactors(f"{mechanism.name} histogram", budget.add_remove, budget.change)
    value = np.abs(np.asarray(sums.total, dtype=np.float64))
    out = []
    for name in design_names:
        d = design_named(name)
        points = [d.point(frame, 1.0)] if d.reference else d.points(frame, rates)
        for point in points:
            if point is None:
                continue
            acct = d.accounting(eps_target, budget.relation, factors, point)
            delta_s = d.delta_sample(delta_target, point)
            if budget.relation == "replacement":
                # An (ε, δ) noise calibrated to one record's Δ_ar: a move shifts two cells
                # (basic composition, 2δ) and a change inside a cell shifts one by up to
                # 2 Δ_ar (group privacy, (1 + e^ε) δ); 1 + e^ε ≥ 2 covers both.
                delta_s = delta_s / (1.0 + math.exp(min(acct.eps_sample, 700.0)))
            param = mechanism.parameter(
                acct.eps_sample, delta_s if mechanism.uses_delta else None, budget.sensitivity
            )
            moments = d.linear_moments(frame, sums, point)
            noise = float(mechanism.variance(param))
            w = float(moments.weight)
            var = np.asarray(moments.variance, dtype=np.float64) + w * w * noise
            extra: dict[str, Any] = {}
            if margins is None:
                bound, methods = cell_error_bounds(moments.variance, mechanism, param, w)
            else:
                rows_sums, k, share = margins
                got = margin_errors(
                    mechanism,
                    acct.eps_sample,
                    delta_s if mechanism.uses_delta else None,
                    budget.sensitivity,
                    share,
                    k,
                    moments,
                    d.linear_moments(frame, rows_sums, point),
                )
                param, noise = got.cell_parameter, float(mechanism.variance(got.cell_parameter))
                var, bound, methods = got.cell_variance, got.cell_bound, got.cell_methods
                extra = {
                    "margin_noise_parameter": got.margin_parameter,
                    "margin_rmse_total": float(math.sqrt(got.margin_variance.sum())),
                    "_margins": got,
                }
            with np.errstate(divide="ignore", invalid="ignore"):
                rel = np.where(value > 0, bound / value, np.inf)
            row = {
                "design": name,
                "rate": float(point.rate),
                "n": float(moments.n),
                "eps_sample": float(acct.eps_sample),
                "delta_sample": float(delta_s) if mechanism.uses_delta else 0.0,
                "noise_parameter": float(param),
                "noise_sd": w * math.sqrt(noise),
                "weight": w,
                "rmse_total": float(math.sqrt(var.sum())),
                "median_relative_error": float(np.median(rel)),
                "bound": acct.bound,
                **extra,
            }
            out.append((row, var, bound, methods))
    return out


def plan_frequency(
    population: Population,
    rows: Sequence[str],
    column: str | None = None,
    *,
    kind: str = "count",
    eps_target: float | None = None,
    delta_target: float | None = None,
    relation: str = "replacement",
    labels_fixed: bool = False,
    mechanism: str = "laplace",
    designs: Sequence[str] | None = None,
    rates: Sequence[float] | None = None,
    design: str | None = None,
    rate: float | None = None,
    threshold: float = DEFAULT_THRESHOLD,
    max_cells: int = 100_000,
    max_columns: int = MAX_COLUMN_CATEGORIES,
    frame: Frame | None = None,
    sums: GroupSums | None = None,
    round_release: bool = False,
    rho_target: float | None = None,
    margins: str = "none",
    margin_share: float = DEFAULT_MARGIN_SHARE,
) -> FrequencyPlan:
    """Plan a frequency table under one ``(eps_target, delta_target)``, every cell exact.

    Parameters
    ----------
    population : Population
    rows, column
        The cells (:func:`core.publication.cells.frequency_cells`).
    kind : {"count", "total"}
        Counts of records, or totals of the population's value, per cell.
    eps_target : float
        The promise for the whole table (pure ε-DP); give it or ``rho_target``.
    delta_target : float, optional
        Default ``1 / (2N)`` (used by the discrete Gaussian only).
    relation : {"replacement", "deletion"}
    labels_fixed : bool
        The cells' labels are public and never change between neighbours.
    mechanism : str
        A name of :data:`core.linear.mechanisms.LINEAR_MECHANISMS`.
    designs : sequence of str, optional
        The designs compared (the census always); default every design available under
        the planned relation, Neyman allocation left out (it states no amplification).
    rates : sequence of float, optional
        Default :func:`core.planner.budgets.default_rates`.
    design, rate : optional
        The design and rate of the released table; default the design and rate with the
        most publishable cells (then the smallest total RMSE).
    threshold : float
        A cell is publishable when ``error_95 / value ≤ threshold`` (:func:`check_threshold`).
    max_cells, max_columns
        Limits of :func:`frequency_cells`.
    frame, sums : optional
        The population's frame and the cells' sums when already known (the batch computes
        the sums on Dask); they must be those of ``population`` and these cells.
    round_release : bool
        The released cells are rounded to non-negative integers (post-processing): the
        table gains ``rmse_rounded`` and ``census_rmse_rounded``
        (:func:`core.publication.cell_errors.rounded_rmse`: exact without sampling error,
        else the bound RMSE + ½) and ``rounded_method``.
    rho_target : float, optional
        The promise stated as ρ-zCDP instead of ``eps_target`` (finite and > 0): the noise
        is the discrete Gaussian (the only ``mechanism`` accepted) of ``σ = Δ₂/√(2ρ)``
        (claim 8 of :mod:`core.publication.composition`) on the census, the other designs
        listed in :attr:`FrequencyPlan.unavailable`; ``delta_target`` is not used.
    margins : {"none", "rows"}
        ``"rows"``: each row's total over the columns is released too, and the cells are
        projected to add up to it (:mod:`core.publication.margins`, claim 9 of
        :mod:`core.publication.composition`).  The table's ``rmse``, ``error_95``,
        ``publishable`` (and the census's) are then those after the projection, with a column
        ``error_95_method``; :attr:`FrequencyPlan.designs` compares the designs under the
        same settings (columns ``margin_noise_parameter``, ``margin_rmse_total``) and
        :attr:`FrequencyPlan.margins` holds the margins.  Refused with ``round_release``, and
        under a ρ-zCDP promise.
    margin_share : float
        The margins' share of the budget spent on the sample, in (0, 1).

    Returns
    -------
    FrequencyPlan
    """
    check_choice("kind", kind, FREQUENCY_KINDS)
    rho = check_rho_promise(eps_target, rho_target, mechanism)
    eps = positive("eps_target", eps_target) if rho is None else math.nan
    if rho is not None:
        _check_rho_table(population, kind, delta_target)
    N = population.size
    delta = (
        1.0 / (2.0 * N) if delta_target is None else check_delta_open("delta_target", delta_target)
    )
    check_choice("mechanism", mechanism, tuple(LINEAR_MECHANISMS))
    mech = LINEAR_MECHANISMS[mechanism]
    limit = check_threshold(threshold)
    lo, hi = y_bounds(population, kind)
    if mech.integer and kind == "total" and not whole_numbers(population.values):
        raise ValueError(
            f"the {mech.label} adds integer noise, which needs integer values for a total; "
            "choose the Laplace mechanism"
        )
    budget = histogram_budget(kind, relation, labels_fixed=labels_fixed, y_lower=lo, y_upper=hi)
    cells = frequency_cells(population, rows, column, max_cells=max_cells, max_columns=max_columns)
    margins, margin_share = check_margins(
        margins, margin_share, round_release=round_release is True, n_columns=cells.n_columns
    )
    fr = Frame.of(population) if frame is None else frame
    s = frequency_sums(population, cells, kind, frame=fr) if sums is None else sums
    if s.total.shape != (cells.n_cells,):
        raise ValueError("sums must hold one total per cell of the table")
    asked = list(DESIGNS) if designs is None else list(designs)
    for name in asked:
        design_named(name)
    names = ["census"] + [
        n
        for n in asked
        if n not in ("census", "neyman") and not DESIGNS[n].unavailable(fr, budget.relation)
    ]
    unavailable: dict[str, str] = {}
    if rho is not None:
        unavailable = {n: zcdp_design_refusal(n) for n in names if zcdp_design_refusal(n)}
        if design is not None and design in unavailable:
            raise ValueError(unavailable[design])
        names = ["census"]
    if design is not None and design not in names:
        raise ValueError(
            f"the design {design!r} cannot serve this table (it is not among {names}); "
            "Neyman allocation states no amplification, and a design proven for one "
            "relation cannot serve the other"
        )
    rate_list = default_rates(fr) if rates is None else [float(r) for r in rates]
    with_margins = None
    if margins == "rows":
        if rho is not None:
            raise ValueError(
                "row margins split an ε promise between the cells and the margins; under a "
                "ρ-zCDP promise the table releases its cells alone: turn the margins off"
            )
        with_margins = (row_sums(s, cells.n_columns), cells.n_columns, margin_share)
    results = (
        _design_rows(fr, s, budget, mech, eps, delta, names, rate_list, with_margins)
        if rho is None
        else _rho_rows(fr, s, mech, rho, kind, relation, labels_fixed, lo, hi)
    )
    value = np.asarray(s.total, dtype=np.float64)
    for row, _var, bound, _ in results:
        row["publishable"] = int(np.sum((value != 0) & (bound <= limit * np.abs(value))))
    design_columns = list(DESIGN_COLUMNS)
    if with_margins is not None:
        design_columns += ["margin_noise_parameter", "margin_rmse_total"]
    summary = pd.DataFrame([r for r, *_ in results], columns=design_columns)
    pick = _choose(summary, design, rate)
    row, var, bound, methods = results[pick]
    _census_row, census_var, census_bound, _ = results[0]
    labels = cells.cell_labels()
    table = pd.DataFrame(labels)
    publishable = (value != 0) & (bound <= limit * np.abs(value))
    with np.errstate(divide="ignore", invalid="ignore"):
        rel = np.where(value != 0, bound / np.abs(value), np.inf)
    notes = np.where(
        value == 0,
        "empty cell: its noisy count is released, its relative error is infinite",
        np.where(publishable, "", "relative 95 % error above the threshold"),
    )
    extra = {
        "cell": np.arange(cells.n_cells),
        "value": value,
        "design": row["design"],
        "rate": row["rate"],
        "rmse": np.sqrt(var),
        "error_95": bound,
        "relative_error": rel,
        "publishable": publishable,
        "census_rmse": np.sqrt(census_var),
        "census_error_95": census_bound,
        "census_publishable": (value != 0) & (census_bound <= limit * np.abs(value)),
        "note": notes,
    }
    for key in CELL_COLUMNS:
        table[key] = extra[key]
    margin_table = None
    if with_margins is not None:
        table["error_95_method"] = methods
        margin_table = margins_table(cells, with_margins[0], row, results[0][0], limit, mech)
    if not isinstance(round_release, bool):
        raise ValueError(f"round_release must be True or False; got {round_release!r}")
    if round_release:
        for name, (r, _, _, _), target in (
            ("rmse_rounded", results[pick], row),
            ("census_rmse_rounded", results[0], results[0][0]),
        ):
            d = design_named(str(target["design"]))
            point = d.point(fr, 1.0) if d.reference else d.point(fr, float(target["rate"]))
            assert point is not None
            moments = d.linear_moments(fr, s, point)
            got, how = rounded_rmse(
                value,
                moments.variance,
                mech,
                float(r["noise_parameter"]),
                float(r["weight"]),
            )
            table[name] = got
            if name == "rmse_rounded":
                table["rounded_method"] = how
    settings = {
        "rows": list(cells.row_columns),
        "column": column,
        "kind": kind,
        "eps_target": eps,
        "delta_target": float(delta),
        "relation": relation,
        "labels_fixed": bool(labels_fixed),
        "mechanism": mechanism,
        "designs": None if designs is None else list(designs),
        "rates": None if rates is None else rate_list,
        "design": design,
        "rate": None if rate is None else float(rate),
        "threshold": limit,
        "error_95_method": sorted(set(methods)),
        "round_release": round_release,
        "margins": margins,
        "margin_share": margin_share,
    }
    if rho is not None:
        l2 = histogram_l2_sensitivity(
            kind, relation, labels_fixed=labels_fixed, y_lower=lo, y_upper=hi
        )
        settings.update(
            eps_target=None,
            delta_target=None,
            rho_target=rho,
            l2_sensitivity=l2,
            zcdp_reason=zcdp_histogram_reason(kind, budget.relation, labels_fixed, l2),
        )
    return FrequencyPlan(
        table=table,
        designs=summary,
        cells=cells,
        budget=budget,
        design=str(row["design"]),
        rate=float(row["rate"]),
        settings=settings,
        margins=margin_table,
        unavailable=unavailable,
    )


def margins_table(
    cells: FrequencyCells,
    rows: GroupSums,
    chosen: dict[str, Any],
    census: dict[str, Any],
    threshold: float,
    mechanism: Any,
) -> pd.DataFrame:
    """One row per row of the table: its margin's value and errors under the chosen design
    and the census (the rows of :func:`_design_rows` with margins)."""
    out = pd.DataFrame(
        {name: [lab[j] for lab in cells.row_labels] for j, name in enumerate(cells.row_names)}
    )
    value = np.asarray(rows.total, dtype=np.float64)
    got, cen = chosen["_margins"], census["_margins"]
    bound, methods = got.margin_bounds(mechanism)
    census_bound, _ = cen.margin_bounds(mechanism)
    with np.errstate(divide="ignore", invalid="ignore"):
        rel = np.where(value != 0, bound / np.abs(value), np.inf)
    out["value"] = value
    out["design"] = chosen["design"]
    out["rate"] = chosen["rate"]
    out["rmse"] = np.sqrt(got.margin_variance)
    out["error_95"] = bound
    out["relative_error"] = rel
    out["publishable"] = (value != 0) & (bound <= threshold * np.abs(value))
    out["census_rmse"] = np.sqrt(cen.margin_variance)
    out["census_error_95"] = census_bound
    out["error_95_method"] = methods
    return out


def _choose(summary: pd.DataFrame, design: str | None, rate: float | None) -> int:
    """The row of the released table: the design and rate asked, else the most publishable
    cells and then the smallest total RMSE (a rate asked is matched to the nearest one the
    design realises)."""
    rows = summary if design is None else summary[summary["design"] == design]
    if rate is not None:
        r = float(rate)
        if not (math.isfinite(r) and 0.0 < r <= 1.0):
            raise ValueError(f"rate must be a number in (0, 1]; got {rate!r}")
        gap = (rows["rate"] - r).abs()
        return int(gap.idxmin())
    best = rows.sort_values(["publishable", "rmse_total"], ascending=[False, True], kind="stable")
    return int(best.index[0])


def check_rho_promise(
    eps_target: float | None, rho_target: float | None, mechanism: str
) -> float | None:
    """The ρ of a promise stated as ρ-zCDP, None for a pure ε promise (ValueError in words).

    Exactly one of ``eps_target`` and ``rho_target``; under ρ the mechanism must be the
    discrete Gaussian, the one whose guarantee is stated in zCDP (claim 8 of
    :mod:`core.publication.composition`).
    """
    if rho_target is None:
        if eps_target is None:
            raise ValueError(
                "state the table's promise: eps_target (pure ε-DP) or rho_target (ρ-zCDP)"
            )
        return None
    if eps_target is not None:
        raise ValueError(
            "state the table's promise once: eps_target (pure ε-DP) or rho_target (ρ-zCDP), "
            "not both"
        )
    try:
        rho = positive("rho_target", rho_target)
    except ValueError:
        rho = -1.0
    if not (math.isfinite(rho) and rho > 0.0):
        raise ValueError(f"rho_target must be a finite number above 0; got {rho_target!r}")
    if mechanism != ZCDP_MECHANISM:
        label = LINEAR_MECHANISMS[mechanism].label if mechanism in LINEAR_MECHANISMS else mechanism
        raise ValueError(
            f"under a ρ-zCDP promise the table's noise is the discrete Gaussian, whose "
            f"guarantee is stated in zCDP; the {label} mechanism is planned under a pure ε "
            "promise (state eps_target instead, or choose the discrete Gaussian)"
        )
    return rho


def _rho_rows(
    frame: Frame,
    sums: GroupSums,
    mechanism: Any,
    rho: float,
    kind: str,
    relation: str,
    labels_fixed: bool,
    lo: float,
    hi: float,
) -> list[tuple[dict[str, Any], np.ndarray, np.ndarray, list[str]]]:
    """The census's row under a ρ-zCDP promise (claim 8): the discrete Gaussian of
    ``σ = Δ₂/√(2ρ)``, found as the σ that is ``ρ/Δ₂²``-zCDP at a unit shift (the Rényi
    divergences of the histogram depend on the shift of the cell sums only through
    ``‖s‖₂²``, so ``Δ₂`` need not be a whole number)."""
    if not (float(lo).is_integer() and float(hi).is_integer()):
        raise ValueError(
            "the discrete Gaussian adds integer noise, which keeps ρ-zCDP only for whole-number "
            f"totals between whole-number bounds; the bounds are [{lo:g}, {hi:g}]"
        )
    l2 = histogram_l2_sensitivity(kind, relation, labels_fixed=labels_fixed, y_lower=lo, y_upper=hi)
    sigma = float(mechanism.parameter_for_rho(rho / (l2 * l2), 1.0))
    d = design_named("census")
    point = d.point(frame, 1.0)
    assert point is not None
    moments = d.linear_moments(frame, sums, point)
    noise = float(mechanism.variance(sigma))
    w = float(moments.weight)
    var = w * w * noise + np.asarray(moments.variance, dtype=np.float64)
    bound, methods = cell_error_bounds(moments.variance, mechanism, sigma, w)
    value = np.abs(np.asarray(sums.total, dtype=np.float64))
    with np.errstate(divide="ignore", invalid="ignore"):
        rel = np.where(value > 0, bound / value, np.inf)
    row = {
        "design": "census",
        "rate": float(point.rate),
        "n": float(moments.n),
        "eps_sample": math.nan,
        "delta_sample": 0.0,
        "noise_parameter": sigma,
        "noise_sd": w * math.sqrt(noise),
        "weight": w,
        "rmse_total": float(math.sqrt(var.sum())),
        "median_relative_error": float(np.median(rel)),
        "bound": (
            f"ρ = {rho:.6g}-zCDP on the whole population: discrete Gaussian noise of "
            f"σ = Δ₂/√(2ρ) = {sigma:.6g} in every cell, Δ₂ = {l2:.6g} the L2 sensitivity "
            "of the whole table"
        ),
    }
    return [(row, var, bound, methods)]


def _check_rho_table(population: Population, kind: str, delta_target: float | None) -> None:
    """What a ρ-zCDP promise cannot take, in words: a δ (the discrete Gaussian's zCDP spends
    none) and a total of values that are not whole numbers (its noise is on the integers)."""
    if delta_target is not None:
        raise ValueError(
            "delta_target is not used under a ρ-zCDP promise (the discrete Gaussian's ρ-zCDP "
            "needs no δ); leave it out, or state the promise as eps_target"
        )
    if kind == "total" and not whole_numbers(population.values):
        raise ValueError(
            "under a ρ-zCDP promise the table's noise is the discrete Gaussian, which adds "
            "whole numbers and keeps ρ only for a total of whole-number values; these values "
            "are not all whole numbers: tabulate counts, or state the promise as eps_target"
        )
