"""The records of a planned table: its summary, its registry entry and its HTML report.

Pure text and dictionaries from a :class:`~core.publication.table.TablePlan`, its population
and a few plain settings, shared by the batch (which writes them as files) and the planner
page (which packs them into a zip). No file is written here.
"""

from __future__ import annotations

import html
import json
import math
from typing import Any

from ..designs.registry import DESIGNS
from ..mechanisms.registry import MECHANISMS
from ..population import Population
from ..publication.composition import sizes_statement
from ..publication.table import TablePlan

__all__ = [
    "CLIPPED_SHARE_WARNING",
    "RECORD_FILES",
    "RELATION_WORDS",
    "input_record",
    "input_warnings",
    "plan_csv",
    "promise_words",
    "record_files",
    "registry_entry",
    "relation_words",
    "report_html",
    "strict_json",
    "summary",
]

#: The neighbouring relation in words, by core's name.
RELATION_WORDS = {
    "replacement": "change one record (bounded differential privacy)",
    "deletion": "add or remove one record (unbounded differential privacy)",
}


#: A file population whose bounds clip more than this share of its values gets a warning.
CLIPPED_SHARE_WARNING = 0.01


def input_warnings(population: Population) -> list[str]:
    """Warnings about how a file population was read: bounds that clip many of its values.

    Clipping to public bounds is what makes the mean's sensitivity finite, and a top-code
    that touches a few values is normal; bounds that clip more than
    :data:`CLIPPED_SHARE_WARNING` of the values change the statistics themselves (a
    placeholder ``[0, 1]`` clips nearly all), so a run says so rather than plan on them.

    Parameters
    ----------
    population : Population
        The population; one not read from a file (no ``file_settings``) gets none.

    Returns
    -------
    list of str
        One sentence per warning; empty when there is nothing to say.
    """
    settings = population.file_settings
    if settings is None or settings.clipped_share <= CLIPPED_SHARE_WARNING:
        return []
    kept = settings.rows_read - settings.rows_dropped
    return [
        f"the bounds [{settings.lower:g}, {settings.upper:g}] clipped "
        f"{settings.values_clipped:,} of the {kept:,} values of {settings.value_column!r} "
        f"({settings.clipped_share:.1%}: {settings.clipped_below:,} below, "
        f"{settings.clipped_above:,} above); check lower and upper under population: they "
        "must be the column's public range, in its units"
    ]


def input_record(population: Population) -> dict[str, Any] | None:
    """How a file population was read, for ``summary.json`` (None for another population)."""
    settings = population.file_settings
    if settings is None:
        return None
    record: dict[str, Any] = {
        "file": settings.file,
        "value_column": settings.value_column,
        "lower": settings.lower,
        "upper": settings.upper,
        "bounds_declared": settings.bounds_declared,
        "strata_columns": list(settings.stratum_columns),
        "cluster_columns": list(settings.cluster_columns),
        "rows_read": settings.rows_read,
        "rows_dropped": settings.rows_dropped,
        "values_clipped": settings.values_clipped,
        "clipped_below": settings.clipped_below,
        "clipped_above": settings.clipped_above,
    }
    if settings.category_column:  # only when chosen: older summaries keep their keys
        record["category_columns"] = list(settings.category_column)
    return record


def plan_csv(tp: TablePlan) -> str:
    """The plan's table as CSV text (one row per cell × statistic, 12 significant digits)."""
    return str(tp.table.to_csv(index=False, float_format="%.12g"))


def summary(
    tp: TablePlan, population: Population, *, name: str, T: int, seed: int
) -> dict[str, Any]:
    """The composition and totals, with the population and the plan's name.

    Parameters
    ----------
    tp : TablePlan
        The planned table.
    population : Population
        The population it was planned on.
    name : str
        The plan's name (the config's ``name``).
    T : int
        Monte Carlo repetitions per cell × statistic.
    seed : int
        The plan's seed.

    Returns
    -------
    dict
        :meth:`TablePlan.summary` with the name, population (for a file: how it was read,
        :func:`input_record`), groups, statistics, T, seed and ``warnings``
        (:func:`input_warnings`).
    """
    out = tp.summary()
    out["name"] = name
    out["population"] = {"name": population.name, "N": population.size, "recipe": population.recipe}
    read = input_record(population)
    if read is not None:
        out["population"]["read_from_file"] = read
    out["warnings"] = input_warnings(population)
    out["groups"] = list(tp.label_columns)
    out["statistics"] = list(tp.statistics)
    out["T"] = T
    out["seed"] = seed
    return out


def relation_words(relation: str, labels_fixed: bool) -> str:
    """The neighbouring relation of the whole table in words (and whether labels move)."""
    words = RELATION_WORDS[relation]
    if relation == "replacement":
        words += (
            "; the grouping labels are fixed"
            if labels_fixed
            else "; a changed record may move between cells"
        )
    return words


def _zcdp_entry(tp: TablePlan) -> dict[str, Any]:
    """The registry's fields for a promise stated as ρ-zCDP (none for a pure ε promise):
    ``epsilon`` is then the converted pure ε_target, and the conversion is named."""
    rho = tp.settings.get("rho_target")
    if rho is None:
        return {}
    return {
        "privacy_definition": "zero-concentrated DP (ρ-zCDP), kept by a pure ε-DP table",
        "rho": rho,
        "conversion": tp.settings.get("conversion", ""),
    }


def promise_words(tp: TablePlan, eps_target: float) -> str:
    """The table's promise in one sentence: ε_target, or ρ-zCDP with its conversion."""
    rho = tp.settings.get("rho_target")
    if rho is None:
        return f"ε_target = {eps_target:g}"
    return (
        f"ρ = {rho:g}-zCDP, kept by the pure ε_target = {eps_target:.6g} "
        f"({tp.settings.get('conversion', '')})"
    )


def registry_entry(
    tp: TablePlan,
    population: Population,
    *,
    name: str,
    eps_target: float,
    relation: str,
    labels_fixed: bool,
    run_by: str = "python -m batch",
) -> dict[str, Any]:
    """An entry in the style of the DP Deployments Registry for the planned table.

    Parameters
    ----------
    tp : TablePlan
        The planned table.
    population : Population
        The population it was planned on.
    name : str
        The deployment's name.
    eps_target : float
        The promise for the whole table.
    relation : str
        ``"replacement"`` or ``"deletion"``.
    labels_fixed : bool
        Whether the grouping labels are public and never change.
    run_by : str
        What ran :func:`core.publication.plan_table` (the entry's ``implementation``).

    Returns
    -------
    dict
        The entry, ready for :func:`strict_json`.
    """
    t = tp.table[tp.table["design"] != ""]
    mechanisms = sorted({MECHANISMS[m].label for m in t["mechanism"]})
    designs = {
        DESIGNS[d].label: {
            "cells_x_statistics": int((t["design"] == d).sum()),
            "rate_min": float(t.loc[t["design"] == d, "rate"].min()),
            "rate_max": float(t.loc[t["design"] == d, "rate"].max()),
            "theorem": DESIGNS[d].theorem,
        }
        for d in sorted(set(t["design"]))
    }
    return {
        "deployment": name,
        "data_product": (
            f"table of {', '.join(tp.statistics)} of {population.value_label} by "
            f"{' × '.join(tp.label_columns)} ({tp.table['cell'].nunique()} cells)"
        ),
        "model": "central",
        "privacy_unit": "one record of the population",
        "epsilon": eps_target,
        "delta": tp.settings["delta_target"],
        **_zcdp_entry(tp),
        "neighboring_relation": relation_words(relation, labels_fixed),
        "sizes_public": bool(tp.settings.get("sizes_public", False)),
        "sizes": sizes_statement(bool(tp.settings.get("sizes_public", False)), tp.budget.relation),
        "mechanisms": mechanisms,
        "sampling": {
            "design_per_cell": designs,
            "note": "each cell × statistic draws its own secret sample; rates are per cell",
        },
        "accounting": {
            "across_cells": tp.budget.reason,
            "across_statistics": "basic (sequential) composition of the statistics' shares",
            "shares": dict(zip(tp.statistics, tp.shares, strict=True)),
            "per_cell_eps_target": tp.budget.eps_target,
            "per_cell_relation": tp.budget.relation,
            "amplification": "by sampling, per cell (the design's theorem)",
            "eps_table_recomputed": tp.eps_table,
        },
        "refused_designs": dict(tp.refused),
        "implementation": f"core.publication.plan_table, run by {run_by}",
    }


def report_html(
    tp: TablePlan,
    population: Population,
    *,
    name: str,
    eps_target: float,
    relation: str,
    publish_share: float,
) -> str:
    """A short self-contained HTML report: the promise, the composition, the table.

    Parameters
    ----------
    tp : TablePlan
        The planned table.
    population : Population
        The population it was planned on.
    name : str
        The plan's name (escaped in the page).
    eps_target : float
        The promise for the whole table.
    relation : str
        ``"replacement"`` or ``"deletion"``.
    publish_share : float
        A cell × statistic is publishable when its 95 % error bound is at most this share
        of the cell's value.

    Returns
    -------
    str
        One HTML page, with no script and no outside resource.
    """
    s = tp.summary()
    esc = html.escape
    rows = tp.table.to_html(index=False, float_format=lambda x: f"{x:.4g}", border=0)
    read = population.file_settings
    reading = ""
    if read is not None:
        labels = "; ".join(
            f"{what}: {' × '.join(columns)}"
            for what, columns in (
                ("strata", read.stratum_columns),
                ("clusters", read.cluster_columns),
                ("categories", read.category_column),
            )
            if columns
        )
        reading = (
            f"<p>Read from {esc(read.file)}: value column {esc(read.value_column)}, public "
            f"bounds [{read.lower:g}, {read.upper:g}]"
            + ("" if read.bounds_declared else " (read from the data, not declared)")
            + (f"; {esc(labels)}" if labels else "")
            + f". {read.rows_read:,} rows, {read.rows_dropped:,} dropped (value blank, not a "
            f"number or infinite), {read.values_clipped:,} values clipped to the bounds "
            f"({read.clipped_below:,} below, {read.clipped_above:,} above).</p>"
        )
    reading += "".join(
        f"<p><strong>Warning:</strong> {esc(w)}.</p>" for w in input_warnings(population)
    )
    refused = "".join(f"<li><b>{esc(k)}</b>: {esc(v)}</li>" for k, v in tp.refused.items())
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{esc(name)}: publication plan</title>
<style>body{{font-family:sans-serif;margin:2em;max-width:80em}}
table{{border-collapse:collapse;font-size:90%}}td,th{{padding:2px 8px;border-bottom:1px solid #ddd}}
</style></head><body>
<h1>Publication plan: {esc(name)}</h1>
<p>Population: {esc(population.name)} (N = {population.size:,}).
Cells: {s["cells"]} by {esc(" × ".join(tp.label_columns))}; statistics:
{esc(", ".join(tp.statistics))}.</p>
{reading}
<p>Promise for the whole table: {esc(promise_words(tp, eps_target))},
δ_target = {tp.settings["delta_target"]:.3g},
neighbours: {esc(RELATION_WORDS[relation])}.</p>
<p>Sizes: {esc(s["sizes"])}</p>
<h2>Composition</h2>
<p>{esc(tp.budget.reason)}</p>
<p>{esc(s["composition"]["across_statistics"])} Shares:
{esc(", ".join(f"{k} {v:.3f}" for k, v in s["composition"]["shares"].items()))}.</p>
<p>Refused designs:</p><ul>{refused or "<li>none</li>"}</ul>
<h2>Cells</h2>
<p>{s["publishable"]} of {s["rows"]} cell × statistic releases are publishable (95 % error bound
at most {publish_share:g} of the cell's value).</p>
{rows}
</body></html>
"""


def strict_json(data: Any) -> str:
    """Indented strict JSON text: NaN and infinities (a cell not planned) become null."""

    def clean(x: Any) -> Any:
        if isinstance(x, dict):
            return {str(k): clean(v) for k, v in x.items()}
        if isinstance(x, (list, tuple)):
            return [clean(v) for v in x]
        if isinstance(x, float) and not math.isfinite(x):
            return None
        if hasattr(x, "item"):  # numpy scalars
            return clean(x.item())
        return x

    return json.dumps(clean(data), indent=2, allow_nan=False) + "\n"


#: The plan's record files, in the order :func:`record_files` returns them.
RECORD_FILES = ("plan.csv", "summary.json", "registry.json", "report.html")


def record_files(
    tp: TablePlan,
    population: Population,
    *,
    name: str,
    T: int,
    seed: int,
    eps_target: float,
    relation: str,
    labels_fixed: bool,
    publish_share: float,
    run_by: str,
) -> dict[str, str]:
    """The text of each of :data:`RECORD_FILES`: what the batch writes to its folder and the
    planner page's zip package holds (:func:`plan_csv`, :func:`summary` and
    :func:`registry_entry` as strict JSON, :func:`report_html`)."""
    return {
        "plan.csv": plan_csv(tp),
        "summary.json": strict_json(summary(tp, population, name=name, T=T, seed=seed)),
        "registry.json": strict_json(
            registry_entry(
                tp,
                population,
                name=name,
                eps_target=eps_target,
                relation=relation,
                labels_fixed=labels_fixed,
                run_by=run_by,
            )
        ),
        "report.html": report_html(
            tp,
            population,
            name=name,
            eps_target=eps_target,
            relation=relation,
            publish_share=publish_share,
        ),
    }
