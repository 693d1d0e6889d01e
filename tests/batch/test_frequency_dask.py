"""A frequency table in batch: the cells' sums on two local Dask workers, the page's numbers."""

from __future__ import annotations

import io
import json

import pandas as pd
import pytest
import yaml

from core.publication.config import build_population, load_config
from core.publication.frequency import plan_frequency
from tests.batch.helpers import run_batch, write_population

pytestmark = pytest.mark.xdist_group("dask")


def test_a_frequency_table_on_two_workers_equals_the_plain_plan(tmp_path) -> None:
    write_population(tmp_path)
    cfg = {
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
        "kind": "total",
        "eps_target": 1.0,
        "designs": ["census", "poisson"],
        "rates": [0.2, 0.5],
    }
    path = tmp_path / "freq.yaml"
    path.write_text(yaml.safe_dump(cfg), encoding="utf-8")
    out = tmp_path / "out"
    run = run_batch(path, out, workers=2)
    assert run.returncode == 0, run.stderr[-2000:]
    assert "45 cells" in run.stdout
    config = load_config(path)
    plan = plan_frequency(build_population(config), **config.frequency_kwargs())
    written = pd.read_csv(out / "plan.csv", keep_default_na=False, na_values=[""])
    mine = pd.read_csv(
        io.StringIO(plan.table.to_csv(index=False, float_format="%.12g")),
        keep_default_na=False,
        na_values=[""],
    )
    pd.testing.assert_frame_equal(written, mine)
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["table"] == "frequency" and summary["cells"] == 45
    assert (out / "designs.csv").exists()


def test_a_frequency_table_under_rho_runs_on_dask_with_the_discrete_gaussian(tmp_path) -> None:
    write_population(tmp_path)
    cfg = {
        "table": "frequency",
        "population": {
            "file": "register.csv",
            "value_column": "wage",
            "lower": 0,
            "upper": 100,
            "strata_column": "region",
        },
        "rows": ["strata"],
        "rho_target": 0.5,
    }
    path = tmp_path / "freq.yaml"
    path.write_text(yaml.safe_dump(cfg), encoding="utf-8")
    out = tmp_path / "out"
    run = run_batch(path, out, workers=1)
    assert run.returncode == 0, run.stderr[-2000:]
    assert "ρ = 0.5-zCDP, kept by discrete Gaussian noise on the census" in run.stdout
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["rho_target"] == 0.5 and summary["eps_target"] is None
    assert summary["mechanism"] == "discrete_gaussian" and summary["design"] == "census"
    assert summary["composition"]["sensitivity_l2"] == pytest.approx(2**0.5)
    designs = pd.read_csv(out / "designs.csv")
    assert designs["noise_parameter"].tolist() == pytest.approx([2**0.5])  # √2/√(2·0.5)


def test_a_table_with_row_margins_on_two_workers_equals_the_plain_plan(tmp_path) -> None:
    write_population(tmp_path)
    cfg = {
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
        "eps_target": 1.0,
        "designs": ["census", "poisson"],
        "rates": [0.2, 0.5],
        "margins": "rows",
        "margin_share": 0.25,
    }
    path = tmp_path / "freq.yaml"
    path.write_text(yaml.safe_dump(cfg), encoding="utf-8")
    out = tmp_path / "out"
    run = run_batch(path, out, workers=2)
    assert run.returncode == 0, run.stderr[-2000:]
    config = load_config(path)
    plan = plan_frequency(build_population(config), **config.frequency_kwargs())
    assert plan.margins is not None
    for name, frame in (("plan.csv", plan.table), ("margins.csv", plan.margins)):
        written = pd.read_csv(out / name, keep_default_na=False, na_values=[""])
        mine = pd.read_csv(
            io.StringIO(frame.to_csv(index=False, float_format="%.12g")),
            keep_default_na=False,
            na_values=[""],
        )
        pd.testing.assert_frame_equal(written, mine)
    assert "error_95_method" in pd.read_csv(out / "plan.csv").columns
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["margins"]["share"] == 0.25
