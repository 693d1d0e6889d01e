"""The command line: a bad config stops with a message naming the field and exit code 2.

Which field each bad config names is tested on the config itself
(tests/core/publication/test_config.py); here the command turns that into its message and
exit code, never a traceback, and writes nothing.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from batch.cli import main
from tests.batch.helpers import config_dict, run_batch, write_config
from tests.conftest import ROOT


def _run(tmp_path: Path, cfg: dict, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    path = write_config(tmp_path, cfg)
    code = main([str(path), "--out", str(tmp_path / "out"), "--no-progress"])
    return code, capsys.readouterr().err


BAD = [
    # Refused reading the config, and only building its population.
    ("eps_target", {"eps_target": 0}),
    ("population.file", {"population": {**config_dict()["population"], "file": "missing.csv"}}),
    ("groups", {"groups": ["clusters"], "max_cells": 4}),
]


@pytest.mark.parametrize(("field", "change"), BAD, ids=[f for f, _ in BAD])
def test_a_bad_config_names_its_field(tmp_path, capsys, field, change) -> None:
    code, err = _run(tmp_path, config_dict(**change), capsys)
    assert code == 2
    assert f"config error in {field!r}" in err
    assert "Traceback" not in err
    assert not (tmp_path / "out").exists()


def test_a_missing_key_is_named(tmp_path, capsys) -> None:
    cfg = config_dict()
    del cfg["statistics"]
    code, err = _run(tmp_path, cfg, capsys)
    assert code == 2 and "config error in 'statistics': missing" in err


def test_unreadable_yaml_and_missing_file(tmp_path, capsys) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("eps_target: [1, 2\n", encoding="utf-8")
    assert main([str(bad), "--out", str(tmp_path / "o")]) == 2
    assert main([str(tmp_path / "nope.yaml"), "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert err.count("config error in 'config'") == 2 and "Traceback" not in err


def test_bad_arguments_exit_with_2(tmp_path, capsys) -> None:
    path = write_config(tmp_path, config_dict())
    assert main([str(path), "--out", str(tmp_path / "o"), "--workers", "0"]) == 2
    assert "--workers must be at least 1" in capsys.readouterr().err


def test_batch_never_imports_ui_or_streamlit() -> None:
    for path in (ROOT / "batch").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            for name in names:
                top = name.split(".")[0]
                assert top not in {"ui", "streamlit", "plotly", "app_pages"}, (path.name, name)


def test_a_list_of_label_columns_runs_and_clipping_is_reported(tmp_path) -> None:
    """Issue 35 §5: ``cluster_column: [stratid, psuid]`` crashed the batch with a TypeError
    traceback; bounds clipping most values ran without a word. Both now end well: the plan
    runs, and the clipping is printed and kept in summary.json."""
    import json

    population = {
        **config_dict()["population"],
        "cluster_column": ["region", "district"],
        "upper": 50,
    }
    cfg = config_dict(population=population, groups=["clusters"])
    path = write_config(tmp_path, cfg)
    # A process of its own, as a user runs it: the local cluster's spawned worker re-runs its
    # parent's __main__, which in a test process may be an AppTest page (see test_dask_runs).
    run = run_batch(path, tmp_path / "out", workers=1)
    assert run.returncode == 0, run.stderr[-2000:]
    assert "Traceback" not in run.stderr
    assert "warning: population: the bounds [0, 50] clipped" in run.stderr
    record = json.loads((tmp_path / "out" / "summary.json").read_text(encoding="utf-8"))
    assert len(record["warnings"]) == 1 and "[0, 50] clipped" in record["warnings"][0]
    assert record["population"]["read_from_file"]["cluster_columns"] == ["region", "district"]
    assert record["cells"] == 15


def test_a_bad_label_field_is_a_config_error(tmp_path, capsys) -> None:
    population = {**config_dict()["population"], "cluster_column": {"stratid": 1}}
    code, err = _run(tmp_path, config_dict(population=population), capsys)
    assert code == 2 and "Traceback" not in err
    assert "config error in 'population.cluster_column'" in err
