"""The batch's files: ``plan.csv``, ``summary.json``, ``registry.json`` and ``report.html``.

Their text comes from :mod:`core.publication.records` (shared with the planner page's zip
package); this module writes it.  Each file is written to a temporary name and moved into
place, so an interrupted run leaves either the previous file or the new one, and a re-run
into the same folder overwrites.
"""

from __future__ import annotations

import os
from pathlib import Path

from core.population import Population
from core.publication import TablePlan, records
from core.publication.config import Config

__all__ = ["OUTPUTS", "write_outputs"]

OUTPUTS = records.RECORD_FILES


def _write(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def write_outputs(out: Path, config: Config, population: Population, tp: TablePlan) -> list[Path]:
    """Write the four files into ``out`` (created if needed); their paths."""
    out.mkdir(parents=True, exist_ok=True)
    texts = records.record_files(
        tp,
        population,
        name=config.name,
        T=config.T,
        seed=config.seed,
        eps_target=config.eps_target,
        relation=config.relation,
        labels_fixed=config.labels_fixed,
        publish_share=config.publish_share,
        run_by="python -m batch",
    )
    files = [out / name for name in OUTPUTS]
    for path in files:
        _write(path, texts[path.name])
    return files
