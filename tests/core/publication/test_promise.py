"""A publication table promised in ρ-zCDP: planned at the converted pure ε_target, with the
pure mechanisms only, and the promise with its conversion in every record."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from core import mechanisms as mech
from core.accounting import zcdp
from core.publication import plan_table, records
from core.publication.config import build_population, load_config
from tests.batch.helpers import config_dict, write_config


def _plan(folder: Path, **promise: float) -> tuple[Any, list[dict[str, Any]]]:
    cfg = load_config(write_config(folder, config_dict(labels_fixed=True, rates=[0.5])))
    kw = {k: v for k, v in cfg.plan_kwargs().items() if k != "eps_target"}
    jobs: list[dict[str, Any]] = []

    def capture(fn: Any, todo: Any) -> list[Any]:
        out = []
        for job in todo:
            jobs.append(job.plan_kwargs())
            out.append(fn(job))
        return out

    tp = plan_table(build_population(cfg), map_fn=capture, **kw, **promise)
    return tp, jobs


def test_a_zcdp_table_plans_pure_mechanisms_at_the_converted_eps(tmp_path: Path) -> None:
    tp, jobs = _plan(tmp_path, rho_target=0.5)
    eps = zcdp.eps_target_for_rho(0.5)
    assert tp.settings["eps_target"] == pytest.approx(eps, rel=1e-15)
    assert tp.table["eps_target"].sum() == pytest.approx(3 * eps)  # 3 cells, shares add up
    for kw in jobs:
        assert kw["mechanisms"], "the pure mechanisms are named"
        assert not any(mech.MECHANISMS[m].uses_delta for m in kw["mechanisms"])
        assert "rho_target" not in kw  # each cell is planned at its pure share
    summary = tp.summary()
    assert summary["rho_target"] == 0.5 and "Steinke 2024" in summary["conversion"]


def test_a_pure_table_keeps_its_delta_mechanisms(tmp_path: Path) -> None:
    tp, jobs = _plan(tmp_path, eps_target=1.0)
    assert all(kw["mechanisms"] is None for kw in jobs)  # the defaults, (ε, δ) ones included
    assert tp.summary()["rho_target"] is None and tp.summary()["conversion"] == ""


def test_records_state_the_zcdp_promise(tmp_path: Path) -> None:
    tp, _ = _plan(tmp_path, rho_target=0.5)
    files = records.record_files(
        tp,
        build_population(load_config(write_config(tmp_path, config_dict()))),
        name="t",
        T=10,
        seed=3,
        eps_target=tp.settings["eps_target"],
        relation="replacement",
        labels_fixed=True,
        publish_share=0.1,
        run_by="test",
    )
    registry = json.loads(files["registry.json"])
    assert registry["rho"] == 0.5 and "ρ-zCDP" in registry["privacy_definition"]
    assert registry["epsilon"] == pytest.approx(zcdp.eps_target_for_rho(0.5))
    assert "ρ = ε·tanh(ε/2)" in registry["conversion"]
    assert json.loads(files["summary.json"])["rho_target"] == 0.5
    assert "ρ = 0.5-zCDP" in files["report.html"] and "Steinke 2024" in files["report.html"]
