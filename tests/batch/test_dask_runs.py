"""The batch on Dask: a local cluster, and an external scheduler with two workers.

Both give the same plan.csv as each other and as the plain in-process ``map``.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from batch.cli import main
from core.publication import plan_table
from core.publication.config import build_population, load_config
from tests.batch.helpers import config_dict, run_batch, write_config
from tests.conftest import ROOT

pytestmark = pytest.mark.xdist_group("dask")

DASK = Path(sys.executable).with_name("dask")


@pytest.fixture(scope="module")
def local_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """``python -m batch`` on a local cluster of two worker processes, as a user runs it.

    A process of its own: the local cluster's workers are spawned, and a spawned process
    first re-runs its parent's ``__main__``, which in a test worker is whatever script ran
    last (an AppTest page, say), not the batch.
    """
    folder = tmp_path_factory.mktemp("local")
    config = write_config(folder, config_dict())
    out = folder / "out"
    run = run_batch(config, out, workers=2)
    assert run.returncode == 0, run.stderr[-2000:]
    return config, out


def test_a_local_run_writes_its_files(local_run) -> None:
    _config, out = local_run
    plan = pd.read_csv(out / "plan.csv")
    assert len(plan) == 6 and set(plan["region"]) == {"north", "south", "west"}
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["composition"]["eps_table"] == pytest.approx(1.0)
    assert summary["rows"] == 6 and summary["population"]["N"] == 150
    registry = json.loads((out / "registry.json").read_text(encoding="utf-8"))
    assert registry["epsilon"] == 1.0 and registry["delta"] == 1e-5
    assert "move between cells" in registry["neighboring_relation"]
    assert "<table" in (out / "report.html").read_text(encoding="utf-8")


def test_the_local_cluster_equals_the_plain_map(local_run) -> None:
    config, out = local_run
    cfg = load_config(config)
    tp = plan_table(build_population(cfg), **cfg.plan_kwargs())
    plan = pd.read_csv(out / "plan.csv", keep_default_na=False, na_values=[""])
    mine = pd.read_csv(
        pd.io.common.StringIO(tp.table.to_csv(index=False, float_format="%.12g")),
        keep_default_na=False,
        na_values=[""],
    )
    pd.testing.assert_frame_equal(plan, mine)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_an_external_scheduler_gives_the_local_numbers(local_run, tmp_path: Path) -> None:
    config, out = local_run
    port = _free_port()
    address = f"tcp://127.0.0.1:{port}"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OPENBLAS_NUM_THREADS": "1"}
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL, "cwd": ROOT, "env": env}
    procs = [
        subprocess.Popen(
            [str(DASK), "scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"],
            **quiet,
        )
    ]
    try:
        for _ in range(2):
            procs.append(
                subprocess.Popen(
                    [
                        str(DASK),
                        "worker",
                        address,
                        "--nthreads",
                        "1",
                        "--host",
                        "127.0.0.1",
                        "--no-dashboard",
                        "--no-nanny",
                    ],
                    **quiet,
                )
            )
        deadline = time.monotonic() + 30
        while True:  # the scheduler listens
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)
        again = tmp_path / "again"
        for _ in range(2):  # a re-run into the same folder works
            code = main([str(config), "--out", str(again), "--scheduler", address, "--no-progress"])
            assert code == 0
        assert (again / "plan.csv").read_text() == (out / "plan.csv").read_text()
    finally:
        for p in reversed(procs):
            p.terminate()
        for p in reversed(procs):
            try:
                p.wait(timeout=15)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait(timeout=5)
