"""The batch's files: ``plan.csv``, ``summary.json``, ``registry.json`` and ``report.html``.

Their text comes from :mod:`core.publication.records` (shared with the planner page's zip
package); this module writes it.  Each file is written to a temporary name and moved into
place, so an interrupted run leaves either the previous file or the new one, and a re-run
into the same folder overwrites.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from batch.config import Config
from core.population import Population
from core.publication import TablePlan, records

__all__ = ["OUTPUTS", "registry_entry", "report_html", "summary", "write_outputs"]

OUTPUTS = ("plan.csv", "summary.json", "registry.json", "report.html")


def summary(config: Config, population: Population, tp: TablePlan) -> dict[str, Any]:
    """The composition and totals, with the population and the config's name."""
    return records.summary(tp, population, name=config.name, T=config.T, seed=config.seed)


def registry_entry(config: Config, population: Population, tp: TablePlan) -> dict[str, Any]:
    """An entry in the style of the DP Deployments Registry for the planned table."""
    return records.registry_entry(
        tp,
        population,
        name=config.name,
        eps_target=config.eps_target,
        relation=config.relation,
        labels_fixed=config.labels_fixed,
        run_by="python -m batch",
    )


def report_html(config: Config, population: Population, tp: TablePlan) -> str:
    """A short self-contained HTML report: the promise, the composition, the table."""
    return records.report_html(
        tp,
        population,
        name=config.name,
        eps_target=config.eps_target,
        relation=config.relation,
        publish_share=config.publish_share,
    )


def _write(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def write_outputs(out: Path, config: Config, population: Population, tp: TablePlan) -> list[Path]:
    """Write the four files into ``out`` (created if needed); their paths."""
    out.mkdir(parents=True, exist_ok=True)
    files = [out / name for name in OUTPUTS]
    _write(files[0], records.plan_csv(tp))
    _write(files[1], records.strict_json(summary(config, population, tp)))
    _write(files[2], records.strict_json(registry_entry(config, population, tp)))
    _write(files[3], report_html(config, population, tp))
    return files
