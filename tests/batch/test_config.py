"""Bad configs stop with a message naming the field and exit code 2; a good one loads."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from batch.cli import main
from batch.config import build_population, load_config
from tests.batch.helpers import config_dict, write_config
from tests.conftest import ROOT


def _run(tmp_path: Path, cfg: dict, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    path = write_config(tmp_path, cfg)
    code = main([str(path), "--out", str(tmp_path / "out"), "--no-progress"])
    return code, capsys.readouterr().err


def _population(**kw: object) -> dict:
    pop = config_dict()["population"]
    pop.update(kw)
    return pop


BAD = [
    ("population.builtin", {"population": {"builtin": "unicorns", "seed": 1}}),
    ("population.value_column", {"population": _population(value_column="salary")}),
    ("population.strata_column", {"population": _population(strata_column="county")}),
    ("population.upper", {"population": _population(upper="high")}),
    ("population.file", {"population": _population(file="missing.csv")}),
    ("eps_target", {"eps_target": 0}),
    ("eps_target", {"eps_target": -1.5}),
    ("delta_target", {"delta_target": 1.0}),
    ("relation", {"relation": "swap"}),
    ("designs", {"designs": ["lottery"]}),
    ("statistics[1]", {"statistics": ["median", "mode"]}),
    ("T", {"T": 1}),
    ("groups", {"groups": ["clusters"], "max_cells": 4}),
    ("groups", {"groups": ["regions"]}),
    ("colour", {"colour": "blue"}),
    ("error_weights", {"error_weights": [1, 2]}),
    ("error_weights[1]", {"split": "optimal", "error_weights": [1, -2]}),
    ("error_weights", {"split": "optimal", "error_weights": [1]}),
]


@pytest.mark.parametrize(("field", "change"), BAD, ids=[f for f, _ in BAD])
def test_a_bad_config_names_its_field(tmp_path, capsys, field, change) -> None:
    code, err = _run(tmp_path, config_dict(**change), capsys)
    assert code == 2
    assert f"config error in {field!r}" in err
    assert "Traceback" not in err
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("key", ["population", "groups", "statistics", "eps_target"])
def test_a_missing_key_is_named(tmp_path, capsys, key) -> None:
    cfg = config_dict()
    del cfg[key]
    code, err = _run(tmp_path, cfg, capsys)
    assert code == 2 and f"config error in {key!r}: missing" in err


def test_unreadable_yaml_and_missing_file(tmp_path, capsys) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("eps_target: [1, 2\n", encoding="utf-8")
    assert main([str(bad), "--out", str(tmp_path / "o")]) == 2
    assert main([str(tmp_path / "nope.yaml"), "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert err.count("config error in 'config'") == 2 and "Traceback" not in err


def test_a_good_config_builds_the_population(tmp_path) -> None:
    cfg = load_config(write_config(tmp_path, config_dict(statistics=["median", {"quantile": 0.9}])))
    pop = build_population(cfg)
    assert pop.size == 150 and set(pop.strata) == {"north", "south", "west"}
    kw = cfg.plan_kwargs()
    assert kw["reps"] == 10 and kw["statistics"][1] == {"quantile": 0.9}
    assert kw["error_weights"] is None
    weighted = config_dict(split="optimal", error_weights=[2, 1])
    assert load_config(write_config(tmp_path, weighted)).plan_kwargs()["error_weights"] == [2, 1]


def test_the_example_config_loads() -> None:
    cfg = load_config(ROOT / "assets" / "publication_example.yaml")
    assert cfg.population["builtin"] == "establishments" and cfg.groups == ("strata",)


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
