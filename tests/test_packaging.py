"""core/ installs as the package ``dp_sampling``, and the exported notebook and script run from it
anywhere.

Issue 27 §4: an analyst runs the Release planner's exports on another machine, outside the
repository. So the test builds a wheel of the project, installs it into a new virtual
environment in a temporary folder (with the pinned versions of numpy, scipy, pandas, numba and
PyYAML, and nbclient and ipykernel to run the notebook), executes the notebook there with that
environment's own kernel and compares the printed best plan with :func:`core.planner.plan` run
here with the same parameters. In the same environment, the Publication table tab's zip package
is unpacked into a folder of its own and its ``plan_publication.py`` run as exported; the
``plan/plan.csv`` it writes is compared with the page's table.

Issue 35 §5: the same for an uploaded file. The labelled Stata survey of
:mod:`tests.survey_file` is uploaded through the Population page in AppTest, every export of
the planner and of its publication table is downloaded from the page's buttons, the notebook
and the script run in the same fresh environment (built once for this module) with only the
file put beside them, the config runs in ``python -m batch`` too, and every number is
compared with the page's.
"""

from __future__ import annotations

import dataclasses
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pandas as pd
import pytest

from core.planner import plan
from core.populations import make_builtin
from tests.conftest import ROOT
from tests.notebooks import best_values, printed_text
from ui.planner import publication as pub
from ui.planner import publication_text as ptext
from ui.planner.exports import plan_notebook
from ui.planner.exports import publication_package as pkg

# One xdist worker runs this module, so the fresh environment (a wheel, a new venv and the
# pinned packages installed into it: the module's slowest step) is built once, not per worker.
pytestmark = pytest.mark.xdist_group("fresh-environment")

#: A small population and few repetitions: the fresh kernel also compiles numba's loops.
RECIPE = "make_builtin('establishments', seed=4, size=3000)"
PARAMS: dict = {
    "statistic": "median",
    "eps_target": 1.0,
    "delta_target": None,
    "designs": ("census", "srs", "poisson"),
    "rates": (0.1, 0.3),
    "reps": 20,
    "seed": 3,
    "relation": "replacement",
    "objective": "error_95",
}

#: The publication table the script plans: 3,000 records in 11 strata, two statistics, T = 20.
TABLE_SEED, TABLE_SIZE, TABLE_STATISTICS = 1, 3000, ("median", "mean")
TABLE: dict = {
    "groups": ("strata",),
    "statistics": TABLE_STATISTICS,
    "eps_target": 1.0,
    "delta_target": 1e-6,
    "relation": "replacement",
    "labels_fixed": False,
    "designs": ("poisson",),
    "rates": (0.3, 0.7),
    "reps": 20,
    "seed": 2,
    "publish_share": 0.1,
}

#: Runs inside the fresh environment: execute the notebook with its own python3 kernel.
RUNNER = """
import sys, nbformat
from nbclient import NotebookClient
path, out, work = sys.argv[1:4]
nb = nbformat.read(path, as_version=4)
NotebookClient(nb, kernel_name="python3", timeout=900,
               resources={"metadata": {"path": work}}).execute()
nbformat.write(nb, out)
"""


def test_every_package_under_core_is_in_the_distribution() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    setup = config["tool"]["setuptools"]
    assert setup["package-dir"] == {"dp_sampling": "core"}
    found = {
        ".".join(("dp_sampling", *init.parent.relative_to(ROOT / "core").parts))
        for init in (ROOT / "core").rglob("__init__.py")
    }
    assert set(setup["packages"]) == found


def _pins() -> list[str]:
    """The project's pinned versions (``name==version`` lines of the requirements files)."""
    pins = []
    for name in ("requirements.txt", "requirements-dev.txt"):
        for line in (ROOT / name).read_text(encoding="utf-8").splitlines():
            line = line.split("#")[0].strip()
            if "==" in line and not line.startswith("-"):
                pins.append(line)
    return pins


def _run(cmd: list[str], **kw) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(cmd, capture_output=True, text=True, **kw)
    assert done.returncode == 0, f"{cmd[:4]}…\n{done.stdout[-2000:]}\n{done.stderr[-4000:]}"
    return done


@dataclasses.dataclass(frozen=True)
class FreshEnvironment:
    """A virtual environment outside the repository with the wheel of ``dp_sampling``."""

    python: Path
    env: dict[str, str]
    folder: Path

    def run(self, *args: str, cwd: Path, timeout: float = 900) -> subprocess.CompletedProcess[str]:
        """Run this environment's python with ``args`` in ``cwd``; it must succeed."""
        return _run([str(self.python), *args], env=self.env, cwd=cwd, timeout=timeout)


@pytest.fixture(scope="session")
def fresh_environment(tmp_path_factory) -> FreshEnvironment:
    """Built once per test process (the module's tests share one xdist group, so one
    worker): the wheel of core, installed with the pinned versions, nbclient and ipykernel
    (to run notebooks) and pyreadstat (to read a Stata file, the one reader of the
    package's ``files`` extra these tests need). Session scope, not module: a worker may
    run other modules' tests between this module's, which would build it again."""
    tmp_path = tmp_path_factory.mktemp("fresh")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    dist, venv, work = tmp_path / "dist", tmp_path / "venv", tmp_path / "probe"
    work.mkdir()
    # Built from a copy of what the wheel holds, so the build writes nothing into the clone.
    source = tmp_path / "source"
    shutil.copytree(ROOT / "core", source / "core", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", source / "pyproject.toml")
    _run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
         "--wheel-dir", str(dist), str(source)],
        env=env, cwd=tmp_path,
    )  # fmt: skip
    (wheel,) = dist.glob("dp_sampling_explorer-*.whl")
    _run([sys.executable, "-m", "venv", str(venv)], env=env, cwd=tmp_path)
    python = venv / "bin" / "python"
    constraints = tmp_path / "constraints.txt"
    constraints.write_text("\n".join(p for p in _pins() if not p.startswith("dask")) + "\n")
    _run(
        [str(python), "-m", "pip", "install", "--quiet", str(wheel), "nbclient", "ipykernel",
         "pyreadstat", "-c", str(constraints)],
        env=env, cwd=tmp_path, timeout=900,
    )  # fmt: skip
    # Nothing of the repository (core, batch) is importable there: only the installed package.
    probe = _run(
        [str(python), "-c", "import importlib.util as u, dp_sampling; "
         "print(u.find_spec('core') is None and u.find_spec('batch') is None, "
         "dp_sampling.__file__)"],
        env=env, cwd=work,
    )  # fmt: skip
    first, location = probe.stdout.split()
    assert first == "True" and not location.startswith(str(ROOT))
    return FreshEnvironment(python, env, tmp_path)


@pytest.mark.slow
def test_exported_notebook_and_script_run_in_a_fresh_environment_outside_the_repository(
    tmp_path, fresh_environment
) -> None:
    python, env = fresh_environment.python, fresh_environment.env
    work = tmp_path / "work"
    work.mkdir()

    notebook, executed = work / "plan.ipynb", work / "executed.ipynb"
    notebook.write_text(plan_notebook(recipe=RECIPE, **PARAMS), encoding="utf-8")
    _run(
        [str(python), "-c", RUNNER, str(notebook), str(executed), str(work)],
        env=env, cwd=work, timeout=900,
    )  # fmt: skip

    import nbformat

    nb = nbformat.read(executed, as_version=4)
    printed = printed_text(nb)
    values = best_values(printed)
    best = plan(make_builtin("establishments", seed=4, size=3000), **PARAMS).best
    assert values["best design"] == best["design"]
    assert values["best mechanism"] == best["mechanism"]
    for name in ("rate", "eps_sample", "rmse", "error_95"):
        assert float(values[name]) == pytest.approx(float(best[name]), rel=1e-9, abs=1e-300)

    _publication_script_runs_in(python, tmp_path / "publication", env)


def _publication_script_runs_in(python, folder, env) -> None:
    """The Publication table tab's zip, unpacked into ``folder``: its script, run as exported
    by ``python`` (the fresh environment's), writes the page's table to plan/plan.csv."""
    population = make_builtin("establishments", seed=TABLE_SEED, size=TABLE_SIZE)
    page = pub.table_plan(population.content_hash, population, **TABLE)
    entry = ptext.population_entry(population, "establishments", TABLE_SEED)
    config = ptext.config_dict(entry, page.settings, list(TABLE_STATISTICS))
    folder.mkdir()
    with zipfile.ZipFile(io.BytesIO(pkg.publication_zip(config, population, page))) as archive:
        archive.extractall(folder)
    run = _run(
        [str(python), pkg.SCRIPT_NAME], env={**env, "OPENBLAS_NUM_THREADS": "1"}, cwd=folder,
        timeout=600,
    )  # fmt: skip
    assert f"{len(page.table)} cell x statistic plans" in run.stdout
    written, shipped, want = (
        pd.read_csv(source, keep_default_na=False, na_values=[""])
        for source in (
            folder / "plan" / "plan.csv",
            folder / "plan.csv",
            io.StringIO(page.table.to_csv(index=False)),
        )
    )
    # Labels and flags equal, numbers to a relative 1e-9 (the CSV keeps 12 digits).
    assert len(written) == len(page.table) > 10
    for got in (written, shipped):
        pd.testing.assert_frame_equal(got, want, check_exact=False, rtol=1e-9, check_dtype=False)


# ------------------------------------------------------------------------------------------
# Every export of an uploaded labelled Stata file (issue 35 §5)
# ------------------------------------------------------------------------------------------

PLANNER = "app_pages/planner.py"
#: The planner's controls for the upload: Poisson sampling (the census is always compared)
#: at two rates, the publication table by stratum with the median and the mean.
UPLOAD_QUERY = {"plan_designs": "Poisson sample", "plan_reps": "30", "plan_rates": "0.1, 0.3"}
#: A ranked line of the planner's notebook: rank, design, mechanism and the four numbers.
RANKED_LINE = (
    r"^(\d+)\. (\w+) / (\w+): rate = (\S+), eps_sample = (\S+), rmse = (\S+), error_95 = (\S+)$"
)


def _uploaded_survey(folder: Path):
    """The survey uploaded through the Population page's form, as a new user does it: value
    zinc, bounds 0-250, stratum stratid, cluster stratid + psuid; the population it made
    active."""
    from tests import survey_file as survey
    from tests.pages.harness import open_page

    at = open_page("app_pages/overview.py")
    at.file_uploader[0].set_value(
        (survey.FILENAME, survey.write_survey(folder).read_bytes(), "application/octet-stream")
    )
    at.run()
    value = next(s for s in at.selectbox if s.label.startswith("Value column"))
    value.set_value(survey.VALUE)
    at.run()
    bounds = {n.label.split(" (")[0]: n for n in at.number_input}
    bounds["Lower bound L"].set_value(survey.LOWER)
    bounds["Upper bound U"].set_value(survey.UPPER)
    labels = {m.label: m for m in at.multiselect}
    labels["Stratum column(s) (optional)"].set_value([survey.STRATUM])
    labels["Cluster column(s) (optional)"].set_value(list(survey.CLUSTER))
    at.run()
    next(b for b in at.button if b.label == "Use this population").click()
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert any(f"computes on {survey.FILENAME}" in s.value for s in at.success)
    pop = at.session_state["uploaded_population"]
    assert pop.size == survey.ROWS_WITH_ZINC
    return pop


@pytest.mark.slow
def test_every_export_of_an_uploaded_stata_file_runs_outside_the_repository(
    tmp_path, fresh_environment, monkeypatch
) -> None:
    """Upload the labelled survey in AppTest, open the planner and its publication table,
    download each export, run them with the fresh environment's package (the page's
    "Reproduce in Python" script and the batch with the clone's) and compare their numbers
    with the page's, to a relative 1e-9 (the report's as the page formats them)."""
    import nbformat

    from tests import survey_file as survey
    from tests.pages.harness import Downloads, open_page, snippet
    from ui.format import fmt
    from ui.planner.text import PUBLICATION_TAB

    downloads = Downloads(monkeypatch)
    pop = _uploaded_survey(tmp_path)
    data_file = tmp_path / survey.FILENAME

    # The planner: the table the page computed, the notebook and the method report.
    planner_page = open_page(PLANNER, UPLOAD_QUERY, uploaded=pop)
    page_rows = pd.read_csv(
        io.BytesIO(downloads.data(planner_page, "Download the full table (CSV)"))
    )
    page_best = page_rows[page_rows["best_rate_of_design_mechanism"]].set_index(
        ["design", "mechanism"]
    )
    notebook_dir = tmp_path / "notebook"
    notebook_dir.mkdir()
    shutil.copy(data_file, notebook_dir)
    notebook = notebook_dir / "release_plan.ipynb"
    notebook.write_bytes(downloads.data(planner_page, "Download notebook (.ipynb)"))
    executed = notebook_dir / "executed.ipynb"
    fresh_environment.run(
        "-c", RUNNER, str(notebook), str(executed), str(notebook_dir), cwd=notebook_dir
    )
    printed = printed_text(nbformat.read(executed, as_version=4))
    assert f"N = {survey.ROWS_WITH_ZINC:,}" in printed
    ranked = re.findall(RANKED_LINE, printed, flags=re.MULTILINE)
    assert len(ranked) == len(page_best) >= 2
    for _rank, design, mechanism, *numbers in ranked:
        row = page_best.loc[(design, mechanism)]
        for name, value in zip(("rate", "eps_sample", "rmse", "error_95"), numbers, strict=True):
            assert float(value) == pytest.approx(float(row[name]), rel=1e-9), (design, name)

    # The page's "Reproduce in Python" script imports the clone's core: run it from the
    # data's folder with the clone on the path; it prints the notebook's best plan.
    best = best_values(printed)
    script_code = snippet(planner_page, "planner.plan(")
    shown = subprocess.run(
        [sys.executable, "-c", script_code],
        cwd=notebook_dir,
        env={**fresh_environment.env, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert shown.returncode == 0, shown.stderr[-2000:]
    script_best = dict(re.findall(r"^best (\w+) = (\S+)$", shown.stdout, flags=re.MULTILINE))
    for name in ("rate", "rmse", "error_95"):
        assert float(script_best[name]) == pytest.approx(float(best[name]), rel=1e-9), name

    report = downloads.data(planner_page, "Download method report (HTML)").decode("utf-8")
    for words in (
        "<th>Value column</th><td>zinc</td>",
        "<td>[0, 250] (declared as public",
        "<td>stratid (31 strata)</td>",
        "<td>stratid × psuid (62 clusters)</td>",
        "<td>health_survey.dta: 10,351 rows</td>",
        "<td>14 (their zinc was blank",
        "cannot reopen the uploaded file",
    ):
        assert words in report, words
    for row in page_best.itertuples():
        assert f"<td>{fmt(float(row.rmse), 'error')}" in report

    # The publication table: its config, script and zip; the script and the batch run them.
    table_page = open_page(PLANNER, {**UPLOAD_QUERY, "plan_view": PUBLICATION_TAB}, uploaded=pop)
    page_table = pd.read_csv(
        io.BytesIO(downloads.data(table_page, "Download the table (CSV)")),
        keep_default_na=False,
        na_values=[""],
    )
    assert len(page_table) == 31 * 2
    config = downloads.data(table_page, "Batch config (YAML)").decode("utf-8")
    script = downloads.data(table_page, "Python script (.py)").decode("utf-8")
    package = tmp_path / "package"
    with zipfile.ZipFile(io.BytesIO(downloads.data(table_page, "Everything (zip)"))) as archive:
        archive.extractall(package)
    assert (package / pkg.CONFIG_NAME).read_text(encoding="utf-8") == config
    assert (package / pkg.SCRIPT_NAME).read_text(encoding="utf-8") == script
    assert "file: health_survey.dta" in config and "value_column: zinc" in config
    assert "cluster_column:\n  - stratid\n  - psuid" in config
    assert "# - 14 rows dropped" in config
    shutil.copy(data_file, package)  # the one thing the user fills in: the file's path
    run = fresh_environment.run(pkg.SCRIPT_NAME, cwd=package, timeout=600)
    assert f"{len(page_table)} cell x statistic plans" in run.stdout
    assert "warning" not in run.stdout
    summary = json.loads((package / "summary.json").read_text(encoding="utf-8"))
    assert summary["population"]["read_from_file"]["rows_dropped"] == 14
    batch = subprocess.run(
        [sys.executable, "-m", "batch", str(package / pkg.CONFIG_NAME), "--out",
         str(tmp_path / "batch"), "--workers", "1", "--no-progress"],
        cwd=ROOT, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert batch.returncode == 0 and "Traceback" not in batch.stderr, batch.stderr[-3000:]
    for written in (
        package / "plan" / "plan.csv",
        package / "plan.csv",
        tmp_path / "batch" / "plan.csv",
    ):
        got = pd.read_csv(written, keep_default_na=False, na_values=[""])
        pd.testing.assert_frame_equal(
            got, page_table, check_exact=False, rtol=1e-9, check_dtype=False
        )
