"""A frequency table in batch: the cells' sums on two local Dask workers, the page's numbers."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pandas as pd
import pytest

from core.publication.config import build_population, load_config
from core.publication.frequency import plan_frequency
from tests.batch.helpers import frequency_config_dict, run_batch, write_config

pytestmark = pytest.mark.xdist_group("dask")


def _same_csv(path: Path, frame: pd.DataFrame) -> None:
    """The CSV the batch wrote holds ``frame`` as the batch writes it."""
    written = pd.read_csv(path, keep_default_na=False, na_values=[""])
    mine = pd.read_csv(
        io.StringIO(frame.to_csv(index=False, float_format="%.12g")),
        keep_default_na=False,
        na_values=[""],
    )
    pd.testing.assert_frame_equal(written, mine)


def test_a_frequency_table_on_two_workers_equals_the_plain_plan(tmp_path) -> None:
    cfg = frequency_config_dict(kind="total", mechanism=None, threshold=None)
    path = write_config(tmp_path, cfg, "freq.yaml")
    out = tmp_path / "out"
    run = run_batch(path, out, workers=2)
    assert run.returncode == 0, run.stderr[-2000:]
    assert "45 cells" in run.stdout
    config = load_config(path)
    plan = plan_frequency(build_population(config), **config.frequency_kwargs())
    _same_csv(out / "plan.csv", plan.table)
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["table"] == "frequency" and summary["cells"] == 45
    assert (out / "designs.csv").exists()


def test_a_frequency_table_under_rho_runs_on_dask_with_the_discrete_gaussian(tmp_path) -> None:
    cfg = frequency_config_dict(
        column=None, kind=None, mechanism=None, eps_target=None, designs=None, rates=None,
        threshold=None, rho_target=0.5,
    )  # fmt: skip
    del cfg["population"]["cluster_column"]
    path = write_config(tmp_path, cfg, "freq.yaml")
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
    cfg = frequency_config_dict(mechanism=None, threshold=None, margins="rows", margin_share=0.25)
    path = write_config(tmp_path, cfg, "freq.yaml")
    out = tmp_path / "out"
    run = run_batch(path, out, workers=2)
    assert run.returncode == 0, run.stderr[-2000:]
    config = load_config(path)
    plan = plan_frequency(build_population(config), **config.frequency_kwargs())
    assert plan.margins is not None
    for name, frame in (("plan.csv", plan.table), ("margins.csv", plan.margins)):
        _same_csv(out / name, frame)
    assert "error_95_method" in pd.read_csv(out / "plan.csv").columns
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["margins"]["share"] == 0.25
