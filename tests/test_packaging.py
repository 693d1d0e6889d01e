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
"""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import sys
import tomllib
import zipfile

import pandas as pd
import pytest

from core.planner import plan
from core.populations import make_builtin
from tests.conftest import ROOT
from tests.notebooks import best_values, printed_text
from ui.planner import publication as pub
from ui.planner.exports import plan_notebook
from ui.planner.exports import publication_package as pkg

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


@pytest.mark.slow
def test_exported_notebook_and_script_run_in_a_fresh_environment_outside_the_repository(
    tmp_path,
) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    dist, venv, work = tmp_path / "dist", tmp_path / "venv", tmp_path / "work"
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
         "-c", str(constraints)],
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
    entry = pub.population_entry(population, "establishments", TABLE_SEED)
    config = pub.config_dict(entry, page.settings, list(TABLE_STATISTICS))
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
