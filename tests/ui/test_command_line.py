"""ui.command_line: the server's ``--population`` arguments, parsed, checked and read once.

The page tests (``tests/pages/test_command_line_population.py``) check the sidebar and every
page; the browser test (``tests/e2e/test_browser_command_line.py``) a real server.
"""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

import pandas as pd
import pytest

from core.populations import load_population_file
from tests.populations import write_register
from ui import command_line as cl


def call_recipe(recipe: str):
    """Run a ``load_population_file(...)`` recipe whose arguments are plain values."""
    call = ast.parse(recipe, mode="eval").body
    assert isinstance(call, ast.Call) and call.func.id == "load_population_file"
    args = [ast.literal_eval(a) for a in call.args]
    kwargs = {k.arg: ast.literal_eval(k.value) for k in call.keywords}
    return load_population_file(*args, **kwargs)


# --------------------------------------------------------------------------------------------
# parse_command_line
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("argv", [[], [""], ["", "  "]])
def test_no_arguments_mean_no_command_line_population(argv):
    assert cl.parse_command_line(argv) is None


def test_every_argument_is_parsed():
    settings = cl.parse_command_line(
        [
            "--population",
            "data/register.csv",
            "--value",
            "income",
            "--lower",
            "0",
            "--upper=1e6",
            "--stratum",
            "region",
            "--cluster",
            "region",
            "--cluster",
            "district",
        ]
    )
    assert settings == cl.CommandLineSettings(
        path="data/register.csv",
        value_column="income",
        lower=0.0,
        upper=1_000_000.0,
        stratum_columns=("region",),
        cluster_columns=("region", "district"),
    )
    assert settings.file_name == "register.csv"


def test_blank_optional_arguments_are_left_to_the_loader():
    settings = cl.parse_command_line(["--population", "r.csv", "--value", " ", "--lower", ""])
    assert settings == cl.CommandLineSettings(path="r.csv")


def test_home_directory_is_expanded():
    settings = cl.parse_command_line(["--population", "~/register.csv"])
    assert settings is not None
    assert settings.path == str(Path("~/register.csv").expanduser())


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--population", "r.csv", "--lower", "abc"], "--lower must be a number; got 'abc'"),
        (["--population", "r.csv", "--upper", "inf"], "--upper must be a finite number"),
        (["--population", "r.csv", "--lower"], "--lower: expected one argument"),
        (["--populaton", "r.csv"], "unrecognized arguments: --populaton r.csv"),
        (["--pop", "r.csv"], "unrecognized arguments: --pop"),
        (["--help"], "unrecognized arguments: --help"),
        (["--value", "income"], "--population FILE is missing"),
        (["--population", " "], "--population FILE is missing"),
        (["--population", "r.csv", "--cluster", ""], "--cluster needs a column name"),
    ],
)
def test_bad_arguments_raise_a_value_error_naming_them(argv, message):
    with pytest.raises(ValueError) as err:
        cl.parse_command_line(argv)
    assert message in str(err.value)


# --------------------------------------------------------------------------------------------
# read_command_line_population
# --------------------------------------------------------------------------------------------


def test_read_gives_the_loaders_population_with_a_recipe_from_the_typed_path(tmp_path):
    path = write_register(tmp_path / "register.csv")
    settings = cl.CommandLineSettings(
        path=str(path),
        value_column="income",
        lower=0.0,
        upper=2e6,
        stratum_columns=("region",),
        cluster_columns=("district",),
    )
    load = cl.read_command_line_population(settings)
    assert load.error is None and load.settings == settings
    pop = load.population
    expected = load_population_file(
        path,
        value_column="income",
        lower=0.0,
        upper=2e6,
        stratum_column="region",
        cluster_column="district",
    )
    assert pop.content_hash == expected.content_hash
    assert pop.size == 600 and pop.strata is not None and pop.clusters is not None
    assert repr(str(path)) in pop.recipe
    # The recipe rebuilds exactly this population.
    rebuilt = call_recipe(pop.recipe)
    assert rebuilt.content_hash == pop.content_hash
    # The exports name the file by the path as typed, with the loader's reading of it.
    assert pop.file_settings == dataclasses.replace(expected.file_settings, file=str(path))


def test_recipe_carries_bounds_read_from_the_data_and_a_combined_cluster_id(tmp_path):
    path = write_register(tmp_path / "register.csv")
    settings = cl.CommandLineSettings(path=str(path), cluster_columns=("region", "district"))
    pop = cl.read_command_line_population(settings).population
    assert pop is not None
    assert f"lower={pop.lower!r}" in pop.recipe and f"upper={pop.upper!r}" in pop.recipe
    assert "value_column='income'" in pop.recipe
    assert "cluster_column=['region', 'district']" in pop.recipe
    rebuilt = call_recipe(pop.recipe)
    assert rebuilt.content_hash == pop.content_hash


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"path": "missing.csv"}, "There is no file at"),
        ({"value_column": "salary"}, "salary"),
        ({"stratum_columns": ("county",)}, "county"),
        ({"lower": 5.0, "upper": 1.0}, "must be smaller than the upper bound"),
    ],
)
def test_a_file_that_cannot_be_read_gives_the_loaders_message(tmp_path, change, message):
    path = write_register(tmp_path / "register.csv")
    fields = {"path": str(path), "value_column": "income", **change}
    if fields["path"] == "missing.csv":
        fields["path"] = str(tmp_path / "missing.csv")
    load = cl.read_command_line_population(cl.CommandLineSettings(**fields))
    assert load.population is None
    assert load.error is not None and message in load.error


def test_a_parquet_file_is_read_with_its_labels(tmp_path):
    csv = write_register(tmp_path / "register.csv")
    parquet = tmp_path / "register.parquet"
    pd.read_csv(csv).to_parquet(parquet)
    labels = ["--stratum", "region", "--cluster", "district"]
    settings = cl.parse_command_line(
        ["--population", str(parquet), "--value", "income", "--upper", "1e7", *labels]
    )
    pop = cl.read_command_line_population(settings).population
    assert pop is not None and pop.size == 600
    assert pop.strata is not None and len(set(pop.strata)) == 4
    assert pop.recipe.startswith(f"load_population_file({str(parquet)!r}")
    assert call_recipe(pop.recipe).content_hash == pop.content_hash


# --------------------------------------------------------------------------------------------
# command_line_population: once per server process
# --------------------------------------------------------------------------------------------


def test_the_file_is_read_once_per_process(tmp_path, monkeypatch):
    path = write_register(tmp_path / "register.csv")
    argv = ["--population", str(path), "--value", "income"]
    calls = []
    real = cl.read_command_line_population

    def counting(settings):
        calls.append(settings)
        return real(settings)

    monkeypatch.setattr(cl, "read_command_line_population", counting)
    first = cl.command_line_population(argv)
    second = cl.command_line_population(list(argv))
    assert first is second and first.population is not None
    assert len(calls) == 1


def test_no_arguments_and_bad_arguments(tmp_path):
    assert cl.command_line_population([]) is None
    bad = cl.command_line_population(["--population", str(tmp_path / "r.csv"), "--upper", "x"])
    assert bad is not None and bad.settings is None and bad.population is None
    assert "--upper must be a number" in bad.error


def test_the_background_read_is_the_one_the_run_takes_and_a_large_file_is_prepared(
    tmp_path, monkeypatch
):
    """Breaks caught (tests/break_checks.py ``command-line-read-twice``,
    ``command-line-not-prepared``, ``command-line-prepared-before-the-plan``): the run
    reads the file a second time instead of taking the background read, or the background
    thread no longer prepares the population for the planner (its frame, the page's
    recorded step and its first plan), so the first plan builds them, or it prepares every
    statistic before the first plan, which then waits for the mean's preparation."""
    import core.planner
    from ui.planner import cache, first_plan

    path = write_register(tmp_path / "register.csv", size=300)
    argv = ["--population", str(path), "--value", "income", "--cluster", "district"]
    reads, prepared = [], []
    real_read = cl.read_command_line_population
    monkeypatch.setattr(cl, "PREPARE_MIN_RECORDS", 200)
    monkeypatch.setattr(
        cl, "read_command_line_population", lambda s: reads.append(s) or real_read(s)
    )
    monkeypatch.setattr(core.planner, "prepare_population", lambda p: prepared.append(("all", p)))
    monkeypatch.setattr(first_plan, "plan_page_defaults", lambda p: prepared.append(("plan", p)))
    thread = cl.start_preparation(argv)
    assert thread is not None and cl.start_preparation(list(argv)) is None
    load = cl.command_line_population(argv)
    thread.join(60)
    assert len(reads) == 1 and load.population is not None
    # The first plan first: it prepares what it reads; the other statistics' part after it.
    assert prepared == [("plan", load.population), ("all", load.population)]
    # The page's cached step was filled by the thread: asking again computes nothing.
    monkeypatch.setattr(cache.core_resolution, "resolution", lambda values: 1 / 0)
    assert cache.resolution(load.population.content_hash, load.population) == 0.01


def test_a_small_file_is_left_for_its_first_plan(tmp_path, monkeypatch):
    import core.planner

    path = write_register(tmp_path / "register.csv", size=300)
    prepared = []
    monkeypatch.setattr(core.planner, "prepare_population", prepared.append)
    thread = cl.start_preparation(["--population", str(path), "--value", "income"])
    assert thread is not None
    thread.join(60)
    assert prepared == []


def test_reading_is_true_only_while_the_background_read_runs(tmp_path, monkeypatch):
    """Break caught (tests/break_checks.py ``command-line-reading-never``): ``reading``
    answers False while the file is read, so the server's first run no longer imports its
    page's modules beside the read."""
    import threading

    path = write_register(tmp_path / "register.csv", size=300)
    argv = ["--population", str(path), "--value", "income"]
    release = threading.Event()
    real_load = cl._load
    monkeypatch.setattr(cl, "_load", lambda key: release.wait(60) and real_load(key))
    assert not cl.reading(argv) and not cl.reading([])
    thread = cl.start_preparation(argv)
    assert thread is not None
    assert cl.reading(argv) and cl.reading(tuple(argv))
    assert not cl.reading(["--population", str(path)])  # other arguments: no read of theirs
    release.set()
    load = cl.command_line_population(argv)
    assert load is not None and load.population is not None
    assert not cl.reading(argv)
    thread.join(60)
