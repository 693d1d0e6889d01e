"""The publication tab's script, notebook and zip package (ui.planner.exports.publication_package).

The zip holds exactly its files, and its plan.csv is the page's table; the script, run in a
process of its own from a folder holding it and the config (its imports of the package
``dp_sampling`` read from this clone's core: tests/test_packaging.py runs it as exported, in a
fresh environment outside the repository), writes the table that
:func:`core.publication.plan_table` gives; without the package it says what to install; the
notebook's code cells are the script's steps; one plan gives the same zip bytes. A built-in
population of 3,000 records in 11 cells, the median and mean at T = 50, keeps each plan well
under a second.
"""

from __future__ import annotations

import functools
import io
import json
import os
import subprocess
import sys
import zipfile

import nbformat
import pandas as pd
import pytest

from core.populations import make_builtin
from core.publication import TablePlan, plan_table
from tests.conftest import ROOT
from tests.notebooks import from_the_clone
from ui.planner import publication as pub
from ui.planner import publication_text as ptext
from ui.planner.exports import publication_package as pkg
from ui.planner.exports.publication_package import config_yaml

POP = make_builtin("establishments", seed=1, size=3000)
STATS = ["median", "mean"]
ARGS = {
    "eps_target": 1.0,
    "delta_target": 1e-6,
    "designs": ["poisson"],
    "rates": [0.3, 0.7],
    "reps": 50,
    "seed": 2,
}


@functools.cache
def _direct() -> TablePlan:
    """The table as core plans it, called directly (once per test process, when first
    needed, not while the suite is collected)."""
    return plan_table(POP, ["strata"], STATS, **ARGS)


@pytest.fixture(scope="module")
def page_plan():
    """The page's plan (the tab's cached :func:`pub.table_plan`) and its config."""
    result = pub.table_plan(
        POP.content_hash,
        POP,
        groups=("strata",),
        statistics=tuple(STATS),
        relation="replacement",
        labels_fixed=False,
        designs=tuple(ARGS["designs"]),
        rates=tuple(ARGS["rates"]),
        publish_share=0.1,
        **{k: ARGS[k] for k in ("eps_target", "delta_target", "reps", "seed")},
    )
    entry = ptext.population_entry(POP, "establishments", 1)
    return result, ptext.config_dict(entry, result.settings, STATS)


def _read(text: str) -> pd.DataFrame:
    return pd.read_csv(io.StringIO(text), keep_default_na=False, na_values=[""])


def _same_table(got: pd.DataFrame, want: pd.DataFrame) -> None:
    """Equal labels and flags; numbers equal to a relative 1e-9 (the CSV keeps 12 digits)."""
    pd.testing.assert_frame_equal(
        got.reset_index(drop=True),
        _read(want.to_csv(index=False)),
        check_exact=False,
        rtol=1e-9,
        check_dtype=False,
    )


def _files(data: bytes) -> dict[str, str]:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return {name: archive.read(name).decode("utf-8") for name in archive.namelist()}


def test_the_zip_holds_exactly_its_files_and_the_pages_table(page_plan) -> None:
    result, config = page_plan
    files = _files(pkg.publication_zip(config, POP, result))
    assert list(files) == list(pkg.PACKAGE_FILES)
    assert set(files) == {
        "README.md",
        "publication.yaml",
        "plan_publication.py",
        "plan_publication.ipynb",
        "plan.csv",
        "summary.json",
        "registry.json",
        "report.html",
    }
    _same_table(_read(files["plan.csv"]), result.table)
    assert files["publication.yaml"] == config_yaml(config)
    readme = files["README.md"]
    assert "one record of the population" in readme and "ε_target = 1," in readme
    assert all(f"`{name}`" in readme for name in pkg.PACKAGE_FILES)
    # whether the cell sizes are public travels with the promise (issue 35)
    sizes = result.summary()["sizes"]
    assert "not public" in sizes and sizes in readme
    assert "sizes_public: false" in files["publication.yaml"]
    registry = json.loads(files["registry.json"])
    assert registry["sizes_public"] is False and registry["sizes"] == sizes


def test_the_script_reproduces_plan_table_in_a_process_of_its_own(page_plan, tmp_path) -> None:
    result, config = page_plan
    _same_table(_read(_direct().table.to_csv(index=False)), result.table)  # the page's is core's
    files = _files(pkg.publication_zip(config, POP, result))
    (tmp_path / "publication.yaml").write_text(files["publication.yaml"], encoding="utf-8")
    script = from_the_clone(files["plan_publication.py"])
    (tmp_path / "plan_publication.py").write_text(script, encoding="utf-8")
    run = subprocess.run(
        [sys.executable, "plan_publication.py"],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT), "OPENBLAS_NUM_THREADS": "1"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    assert "22 cell x statistic plans" in run.stdout
    written = (tmp_path / "plan" / "plan.csv").read_text(encoding="utf-8")
    _same_table(_read(written), _direct().table)


def test_the_script_of_a_file_population_says_when_the_file_is_missing(page_plan, tmp_path):
    """Issue 35 §5: a file population's package cannot carry the file; run without it, the
    script stops with the config field to fix, not a traceback."""
    result, _config = page_plan
    entry = ptext.population_entry(POP, "uploaded", 0)
    with_file = ptext.config_dict(entry, result.settings, STATS)
    files = _files(pkg.publication_zip(with_file, POP, result))
    assert "First put the file population.csv in this folder" in files["README.md"]
    (tmp_path / "publication.yaml").write_text(files["publication.yaml"], encoding="utf-8")
    script = from_the_clone(files["plan_publication.py"])
    (tmp_path / "plan_publication.py").write_text(script, encoding="utf-8")
    run = subprocess.run(
        [sys.executable, "plan_publication.py"],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 1
    assert "config error in 'population.file'" in run.stderr and "population.csv" in run.stderr
    assert "Traceback" not in run.stderr


def test_the_notebook_is_valid_and_runs_the_scripts_steps(page_plan) -> None:
    _result, config = page_plan
    notebook = nbformat.reads(pkg.publication_notebook(config), as_version=4)
    nbformat.validate(notebook)
    code = [cell.source for cell in notebook.cells if cell.cell_type == "code"]
    assert code == [step for _title, step in pkg.script_steps("notebook")]
    assert "This notebook needs the package dp_sampling" in code[0]
    script = pkg.publication_script(config)
    compile(script, pkg.SCRIPT_NAME, "exec")
    assert all(step in script for _title, step in pkg.script_steps("script"))
    assert "python -m batch publication.yaml --out plan" in script


def test_the_script_imports_only_the_package_and_says_how_to_install_it(
    page_plan, tmp_path
) -> None:
    """Nothing of the repository (core, batch) is imported: only dp_sampling; without it the
    script stops at once with what to pip install."""
    _result, config = page_plan
    script = pkg.publication_script(config)
    lines = [line.strip() for line in script.splitlines()]
    imports = [line for line in lines if line.startswith(("from ", "import "))]
    assert imports == [
        "from dp_sampling.publication import plan_table",
        "from dp_sampling.publication.config import ConfigError, build_population, load_config",
        "from dp_sampling.publication.records import input_warnings, plan_csv",
        "from pathlib import Path",
        "import pandas as pd",
    ]
    assert "pip install" in script.split('"""')[1]
    (tmp_path / pkg.SCRIPT_NAME).write_text(script, encoding="utf-8")
    missing = subprocess.run(
        [sys.executable, "-S", pkg.SCRIPT_NAME], cwd=tmp_path, capture_output=True, text=True
    )
    assert missing.returncode != 0
    assert "ImportError: This script needs the package dp_sampling" in missing.stderr
    assert "pip install" in missing.stderr
    assert not (tmp_path / "plan").exists()


def test_the_same_plan_gives_the_same_zip_bytes(page_plan) -> None:
    result, config = page_plan
    again = plan_table(POP, ["strata"], STATS, **ARGS)
    first = pkg.publication_zip(config, POP, result)
    assert pkg.publication_zip(dict(config), POP, again) == first
    other = pkg.publication_zip({**config, "name": "another table"}, POP, result)
    assert other != first
