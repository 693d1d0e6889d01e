"""The batch's files: ``plan.csv``, ``summary.json``, ``registry.json`` and ``report.html``.

Each file is written to a temporary name and moved into place, so an interrupted run leaves
either the previous file or the new one, and a re-run into the same folder overwrites.
"""

from __future__ import annotations

import html
import json
import math
import os
from pathlib import Path
from typing import Any

from batch.config import Config
from core.designs.registry import DESIGNS
from core.mechanisms.registry import MECHANISMS
from core.population import Population
from core.publication import TablePlan

__all__ = ["registry_entry", "report_html", "summary", "write_outputs"]

OUTPUTS = ("plan.csv", "summary.json", "registry.json", "report.html")

RELATION_WORDS = {
    "replacement": "change one record (bounded differential privacy)",
    "deletion": "add or remove one record (unbounded differential privacy)",
}


def summary(config: Config, population: Population, tp: TablePlan) -> dict[str, Any]:
    """The composition and totals, with the population and the config's name."""
    out = tp.summary()
    out["name"] = config.name
    out["population"] = {"name": population.name, "N": population.size, "recipe": population.recipe}
    out["groups"] = list(tp.label_columns)
    out["statistics"] = list(tp.statistics)
    out["T"] = config.T
    out["seed"] = config.seed
    return out


def registry_entry(config: Config, population: Population, tp: TablePlan) -> dict[str, Any]:
    """An entry in the style of the DP Deployments Registry for the planned table."""
    t = tp.table[tp.table["design"] != ""]
    relation = RELATION_WORDS[config.relation]
    if config.relation == "replacement":
        relation += (
            "; the grouping labels are fixed"
            if config.labels_fixed
            else "; a changed record may move between cells"
        )
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
        "deployment": config.name,
        "data_product": (
            f"table of {', '.join(tp.statistics)} of {population.value_label} by "
            f"{' × '.join(tp.label_columns)} ({tp.table['cell'].nunique()} cells)"
        ),
        "model": "central",
        "privacy_unit": "one record of the population",
        "epsilon": config.eps_target,
        "delta": tp.settings["delta_target"],
        "neighboring_relation": relation,
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
        "implementation": "core.publication.plan_table, run by python -m batch",
    }


def report_html(config: Config, population: Population, tp: TablePlan) -> str:
    """A short self-contained HTML report: the promise, the composition, the table."""
    s = tp.summary()
    esc = html.escape
    rows = tp.table.to_html(index=False, float_format=lambda x: f"{x:.4g}", border=0)
    refused = "".join(f"<li><b>{esc(k)}</b>: {esc(v)}</li>" for k, v in tp.refused.items())
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{esc(config.name)}: publication plan</title>
<style>body{{font-family:sans-serif;margin:2em;max-width:80em}}
table{{border-collapse:collapse;font-size:90%}}td,th{{padding:2px 8px;border-bottom:1px solid #ddd}}
</style></head><body>
<h1>Publication plan: {esc(config.name)}</h1>
<p>Population: {esc(population.name)} (N = {population.size:,}).
Cells: {s["cells"]} by {esc(" × ".join(tp.label_columns))}; statistics:
{esc(", ".join(tp.statistics))}.</p>
<p>Promise for the whole table: ε_target = {config.eps_target:g},
δ_target = {tp.settings["delta_target"]:.3g},
neighbours: {esc(RELATION_WORDS[config.relation])}.</p>
<h2>Composition</h2>
<p>{esc(tp.budget.reason)}</p>
<p>{esc(s["composition"]["across_statistics"])} Shares:
{esc(", ".join(f"{k} {v:.3f}" for k, v in s["composition"]["shares"].items()))}.</p>
<p>Refused designs:</p><ul>{refused or "<li>none</li>"}</ul>
<h2>Cells</h2>
<p>{s["publishable"]} of {s["rows"]} cell × statistic releases are publishable (95 % error bound
at most {config.publish_share:g} of the cell's value).</p>
{rows}
</body></html>
"""


def _json(data: Any) -> str:
    """Strict JSON: NaN and infinities (a cell that could not be planned) become null."""

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


def _write(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def write_outputs(out: Path, config: Config, population: Population, tp: TablePlan) -> list[Path]:
    """Write the four files into ``out`` (created if needed); their paths."""
    out.mkdir(parents=True, exist_ok=True)
    files = [out / name for name in OUTPUTS]
    _write(files[0], tp.table.to_csv(index=False, float_format="%.12g"))
    _write(files[1], _json(summary(config, population, tp)))
    _write(files[2], _json(registry_entry(config, population, tp)))
    _write(files[3], report_html(config, population, tp))
    return files
