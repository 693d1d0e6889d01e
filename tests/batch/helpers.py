"""A tiny population file and config for the batch tests."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import yaml


def write_population(folder: Path) -> Path:
    """A CSV of 150 records in three regions (values 0-100)."""
    rng = np.random.default_rng(11)
    region = np.repeat(["north", "south", "west"], [60, 50, 40])
    wage = np.round(rng.uniform(10, 90, region.size), 1)
    path = folder / "register.csv"
    lines = ["wage,region,district"]
    lines += [f"{w},{r},{r[0]}{i % 5}" for i, (w, r) in enumerate(zip(wage, region, strict=True))]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def config_dict(**changes: Any) -> dict[str, Any]:
    """A valid config for :func:`write_population`'s file, with ``changes`` applied."""
    cfg: dict[str, Any] = {
        "name": "tiny table",
        "population": {
            "file": "register.csv",
            "value_column": "wage",
            "lower": 0,
            "upper": 100,
            "strata_column": "region",
            "cluster_column": "district",
        },
        "groups": ["strata"],
        "statistics": ["median", "mean"],
        "eps_target": 1.0,
        "delta_target": 1e-5,
        "relation": "replacement",
        "designs": ["poisson"],
        "rates": [0.2, 0.5],
        "T": 10,
        "seed": 3,
    }
    cfg.update(changes)
    return cfg


def frequency_config_dict(**changes: Any) -> dict[str, Any]:
    """A valid ``table: frequency`` config for :func:`write_population`'s file, with
    ``changes`` applied; a change to None leaves its key out."""
    cfg: dict[str, Any] = {
        "table": "frequency",
        "population": {
            "file": "register.csv",
            "value_column": "wage",
            "lower": 0,
            "upper": 100,
            "strata_column": "region",
            "cluster_column": "district",
        },
        "rows": ["strata"],
        "column": "clusters",
        "kind": "count",
        "mechanism": "laplace",
        "eps_target": 1.0,
        "designs": ["census", "poisson"],
        "rates": [0.2, 0.5],
        "threshold": 0.5,
    }
    cfg.update(changes)
    return {k: v for k, v in cfg.items() if v is not None}


def write_config(folder: Path, cfg: dict[str, Any], name: str = "table.yaml") -> Path:
    """``cfg`` written as YAML beside the population file."""
    write_population(folder)
    path = folder / name
    path.write_text(yaml.safe_dump(cfg, sort_keys=False), encoding="utf-8")
    return path


def run_batch(config: Path, out: Path, workers: int) -> subprocess.CompletedProcess[str]:
    """``python -m batch CONFIG --out OUT`` in a process of its own, as a user runs it.

    The local cluster's spawned workers re-run their parent's ``__main__``, which in a test
    process may be an AppTest page, so the batch never runs inside the test process.
    """
    root = Path(__file__).resolve().parents[2]
    command = [sys.executable, "-m", "batch", str(config), "--out", str(out)]
    return subprocess.run(
        [*command, "--workers", str(workers), "--no-progress"],
        cwd=root,
        env={**os.environ, "PYTHONPATH": str(root), "OPENBLAS_NUM_THREADS": "1"},
        capture_output=True,
        text=True,
        timeout=600,
    )
