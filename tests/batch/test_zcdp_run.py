"""``python -m batch`` with a promise stated as ρ-zCDP (``rho_target`` in the config): the
run plans at the converted ε_target and every file it writes states ρ and the conversion."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from core import mechanisms as mech
from core.accounting.zcdp import eps_target_for_rho
from tests.batch.helpers import config_dict, run_batch, write_config

pytestmark = pytest.mark.xdist_group("dask")


def test_a_zcdp_config_runs_and_its_files_state_the_promise(tmp_path) -> None:
    cfg = config_dict(rho_target=0.5, labels_fixed=True)
    del cfg["eps_target"]
    config = write_config(tmp_path, cfg)
    out = tmp_path / "out"
    run = run_batch(config, out, workers=1)
    assert run.returncode == 0, run.stderr[-2000:]
    assert "promise: ρ = 0.5-zCDP, kept by pure ε_target = 1.04363-DP" in run.stdout
    eps = eps_target_for_rho(0.5)
    plan = pd.read_csv(out / "plan.csv")
    assert len(plan) == 6
    assert plan.groupby("cell")["eps_target"].sum().to_numpy() == pytest.approx(eps)
    assert not any(mech.MECHANISMS[m].uses_delta for m in plan["mechanism"].dropna())
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["rho_target"] == 0.5 and summary["eps_target"] == pytest.approx(eps)
    assert summary["composition"]["eps_table"] == pytest.approx(eps)
    registry = json.loads((out / "registry.json").read_text(encoding="utf-8"))
    assert registry["rho"] == 0.5 and registry["epsilon"] == pytest.approx(eps)
    assert "Steinke 2024" in registry["conversion"]
    report = (out / "report.html").read_text(encoding="utf-8")
    assert "ρ = 0.5-zCDP" in report and "tanh" in report


def test_a_config_stating_both_promises_is_refused(tmp_path, capsys) -> None:
    from batch.cli import main

    path = write_config(tmp_path, config_dict(rho_target=0.5))
    assert main([str(path), "--out", str(tmp_path / "out"), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "config error in 'eps_target': state the promise once" in err
    assert not (tmp_path / "out").exists()
