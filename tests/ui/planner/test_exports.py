"""The Release planner's exports: the reproducing notebook and the HTML method report.

The notebook is executed with nbclient (kernel ``python3``, from the repository root, its
imports of the package ``dp_sampling`` read from this clone's ``core``) and its printed best
plan must equal :func:`core.planner.plan` called here with the same parameters;
tests/test_packaging.py runs it as exported in a fresh virtual environment outside the
repository, with the package installed from a wheel.
The report must carry every ranked row's numbers and the recommendation, and must never let
user text (a population or column name, a link) become markup.
"""

from __future__ import annotations

import dataclasses
import html
import importlib.util
import re
import subprocess
import sys
from html import escape as html_escape
from html.parser import HTMLParser

import nbformat
import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest

from core.planner import PlanResult, plan
from core.planner.usability import is_usable
from core.populations import make_builtin
from tests.conftest import ROOT, skip_unless
from tests.notebooks import best_values, from_the_clone, printed_text
from ui.downloads import TITLE_STANDOFF
from ui.format import fmt
from ui.planner import compare_text
from ui.planner import text as planner_text
from ui.planner.exports import (
    DESIGN_EXPLANATIONS,
    GROUP_PRIVACY_NOTE,
    method_report,
    plan_notebook,
)
from ui.planner.text import sizes_words

PAYLOAD = "<script>alert(1)</script>"

#: A small built-in population and few repetitions keep the executed notebook fast.
RECIPE = "make_builtin('establishments', seed=4, size=5000)"
PARAMS: dict = {
    "statistic": "median",
    "eps_target": 0.05,
    "delta_target": None,
    "designs": None,
    "rates": (0.1, 0.3, 0.6),
    "reps": 30,
    "seed": 7,
    "relation": "replacement",
    "objective": "error_95",
}
#: The same plan for the 0.9-quantile with two of the four quantile mechanisms.
QUANTILE_PARAMS: dict = {
    **PARAMS,
    "statistic": "quantile",
    "quantile": 0.9,
    "mechanisms": ("smooth_laplace", "exponential"),
}


@pytest.fixture(scope="module")
def population():
    return make_builtin("establishments", seed=4, size=5000)


@pytest.fixture(scope="module")
def result(population) -> PlanResult:
    return plan(population, **PARAMS)


def _figure(result: PlanResult, name: str = "error against rate") -> go.Figure:
    table = result.table
    return go.Figure(
        data=[
            go.Scatter(x=group["rate"], y=group["error_95"], name=f"{design} {name}")
            for design, group in table.groupby("design")
        ]
    )


class _Tables(HTMLParser):
    """Every ``<table>`` of a page as rows of cell texts (headings included)."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: list[list[list[str]]] = []
        self._cell: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        if tag == "table":
            self.tables.append([])
        elif tag == "tr" and self.tables:
            self.tables[-1].append([])
        elif tag in ("td", "th"):
            self._cell = []

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None:
            self.tables[-1][-1].append("".join(self._cell).strip())
            self._cell = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)


def _tables(page: str) -> list[list[list[str]]]:
    parser = _Tables()
    parser.feed(page)
    return parser.tables


def _number(cell: str) -> float:
    return float(cell.replace(",", "").replace("%", "").strip())


# ------------------------------------------------------------------------------------------
# Notebook
# ------------------------------------------------------------------------------------------


def test_notebook_is_valid_and_calls_plan_with_the_parameters():
    text = plan_notebook(recipe=RECIPE, **PARAMS)
    nb = nbformat.reads(text, as_version=4)
    nbformat.validate(nb)
    assert nb.metadata.kernelspec.name == "python3"
    kinds = [cell.cell_type for cell in nb.cells]
    assert kinds[0] == "markdown" and "code" in kinds
    assert "pip install" in nb.cells[0].source and "dp_sampling" in nb.cells[0].source
    code = "\n".join(cell.source for cell in nb.cells if cell.cell_type == "code")
    assert "from dp_sampling.populations import make_builtin\n" in code  # the recipe's builder
    assert "from dp_sampling.planner import plan" in code
    assert f"pop = {RECIPE}" in code
    for name, value in PARAMS.items():
        assert f"{name}={value!r}" in code
    markdown = "\n".join(cell.source for cell in nb.cells if cell.cell_type == "markdown")
    for explanation in DESIGN_EXPLANATIONS.values():
        assert explanation in markdown
    assert GROUP_PRIVACY_NOTE in markdown  # a change-one-record promise: ε_target/2 rule


def test_notebook_passes_quantile_and_mechanisms_only_when_used():
    median = nbformat.reads(plan_notebook(recipe=RECIPE, **PARAMS), as_version=4)
    code = "\n".join(cell.source for cell in median.cells if cell.cell_type == "code")
    assert "quantile=" not in code and "mechanisms=" not in code
    nb = nbformat.reads(plan_notebook(recipe=RECIPE, **QUANTILE_PARAMS), as_version=4)
    code = "\n".join(cell.source for cell in nb.cells if cell.cell_type == "code")
    assert "statistic='quantile'" in code and "quantile=0.9" in code
    assert "mechanisms=('smooth_laplace', 'exponential')" in code
    assert "- statistic: quantile q = 0.9" in nb.cells[0].source
    assert "- mechanisms: Laplace noise scaled to the smooth sensitivity, exponential " in (
        nb.cells[0].source
    )
    # q is ignored for the median: the call stays the median's.
    other = nbformat.reads(plan_notebook(recipe=RECIPE, **{**PARAMS, "quantile": 0.9}), 4)
    assert [c.source for c in other.cells] == [c.source for c in median.cells]


def test_notebook_for_add_remove_neighbours_leaves_out_the_group_privacy_note():
    nb = nbformat.reads(plan_notebook(recipe=RECIPE, **{**PARAMS, "relation": "deletion"}), 4)
    code = "\n".join(cell.source for cell in nb.cells if cell.cell_type == "code")
    markdown = "\n".join(cell.source for cell in nb.cells if cell.cell_type == "markdown")
    assert "relation='deletion'" in code
    assert "group privacy" not in markdown


def test_notebook_accepts_numpy_numbers_and_lists():
    arguments = {
        **PARAMS,
        "eps_target": np.float64(0.05),
        "rates": [np.float64(0.1), 0.3],
        "designs": ["srs", "census"],
        "reps": np.int64(30),
        "seed": np.int32(7),
    }
    code = plan_notebook(recipe=RECIPE, **arguments)
    assert "np." not in code
    nb = nbformat.reads(code, as_version=4)
    call = next(cell.source for cell in nb.cells if "result = plan(" in cell.source)
    for text in ("eps_target=0.05", "rates=(0.1, 0.3)", "designs=('srs', 'census')", "reps=30,"):
        assert text in call


def _setup_cell() -> str:
    nb = nbformat.reads(plan_notebook(recipe=RECIPE, **PARAMS), as_version=4)
    return next(
        cell.source
        for cell in nb.cells
        if cell.cell_type == "code" and "dp_sampling" in cell.source
    )


def test_notebook_explains_a_missing_package(tmp_path):
    """Without the package dp_sampling the setup stops with a message saying what to do
    (tests/test_packaging.py installs it in a fresh environment and runs the notebook)."""
    missing = subprocess.run(
        [sys.executable, "-S", "-c", _setup_cell()], cwd=tmp_path, capture_output=True, text=True
    )
    assert missing.returncode != 0
    assert "ImportError: This notebook needs the package dp_sampling" in missing.stderr
    assert "pip install" in missing.stderr


def _from_the_clone(nb) -> None:
    """The notebook's imports of the installed package read from this clone's core/ instead."""
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.source = from_the_clone(cell.source)


def _population_of(notebook: str, folder) -> object:
    """The population the notebook's setup and recipe build, run from ``folder`` (its imports
    of the package read from this clone's core)."""
    nb = nbformat.reads(notebook, as_version=4)
    code = [from_the_clone(c.source) for c in nb.cells if c.cell_type == "code"]
    setup, build = code[0], code[1].split("result = plan(")[0]
    namespace: dict = {}
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(folder)
        exec(compile(setup + "\n" + build, "notebook", "exec"), namespace)
    return namespace["pop"]


def test_notebook_imports_the_loader_its_recipe_calls(tmp_path):
    """Issue 35 §5: an uploaded Stata file's recipe calls load_population_file; the notebook
    imported load_population_csv and stopped with a NameError."""
    from core.populations import load_population_file
    from tests import survey_file as survey

    path = survey.write_survey(tmp_path)
    page = load_population_file(
        str(path),
        value_column=survey.VALUE,
        lower=survey.LOWER,
        upper=survey.UPPER,
        stratum_column=survey.STRATUM,
        cluster_column=list(survey.CLUSTER),
    )
    assert page.recipe.startswith(f"load_population_file('{survey.FILENAME}'")
    csv = tmp_path / "small.csv"
    csv.write_text("x\n1\n2\n3\n5\n", encoding="utf-8")
    for recipe, want in (
        (page.recipe, page),
        ("load_population_csv('small.csv', value_column='x', lower=0.0, upper=9.0)", None),
        ("make_builtin('establishments', seed=4, size=500)", None),
    ):
        notebook = plan_notebook(recipe=recipe, **PARAMS)
        built = _population_of(notebook, tmp_path)
        if want is not None:
            assert built.content_hash == want.content_hash
            assert built.size == survey.ROWS_WITH_ZINC
        assert built.recipe == recipe


def test_notebook_keeps_user_text_literal_in_markdown():
    recipe = f"load_population_csv('{PAYLOAD}.csv', value_column='`x`', lower=0.0, upper=1.0)"
    nb = nbformat.reads(plan_notebook(recipe=recipe, **PARAMS), as_version=4)
    line = next(s for s in nb.cells[0].source.splitlines() if s.startswith("- population"))
    # The recipe sits in a code span whose fence is longer than any backtick run inside it.
    assert line == f"- population: ``{recipe}``"


@pytest.mark.parametrize(
    "params",
    [PARAMS, QUANTILE_PARAMS, {**PARAMS, "eps_target": 0.001}],
    ids=["median", "quantile", "too-noisy"],
)
def test_notebook_executes_and_prints_the_plans_numbers(params, result, population):
    """Runs the notebook for real; under CI (CI=true) a missing kernel fails instead of skipping."""
    skip_unless(
        importlib.util.find_spec("ipykernel") is not None
        and importlib.util.find_spec("nbclient") is not None,
        "ipykernel and nbclient are installed (requirements-dev.txt): they execute the notebook",
    )
    from nbclient import NotebookClient

    if params is not PARAMS:
        result = plan(population, **params)
        if "mechanisms" in params:
            assert set(result.best_by_design["mechanism"]) <= set(params["mechanisms"])
    nb = nbformat.reads(plan_notebook(recipe=RECIPE, **params), as_version=4)
    _from_the_clone(nb)
    NotebookClient(
        nb, kernel_name="python3", timeout=600, resources={"metadata": {"path": str(ROOT)}}
    ).execute()

    printed = printed_text(nb)
    values = best_values(printed)
    best = result.best
    assert values["best design"] == best["design"]
    assert values["best mechanism"] == best["mechanism"]
    for name in ("rate", "eps_sample", "rmse", "error_95"):
        assert float(values[name]) == float(best[name]), name
    assert f"N = {result.N:,}" in printed
    # The recommended plan and the page's usability flag (issue 35), at the default share.
    chosen = result.recommended
    assert f"recommended design = {chosen['design']}" in printed
    assert f"recommended error_95 = {float(chosen['error_95'])!r}" in printed
    pop = make_builtin("establishments", seed=4, size=5000)
    usable = is_usable(
        float(chosen["error_95"]), result.population_value, pop.lower, pop.upper, 0.5
    )
    assert ("usable: its 95 % error bound is within 50 %" in printed) == usable
    assert ("TOO NOISY TO USE" in printed) == (not usable)
    assert usable == (params["eps_target"] > 0.001)  # both branches run

    # Every ranked row (Monte Carlo rows too, whatever wins) is printed with the plan's numbers.
    ranked = re.findall(
        r"^(\d+)\. (\w+) / (\w+): rate = (\S+), eps_sample = (\S+), rmse = (\S+), "
        r"error_95 = (\S+)$",
        printed,
        flags=re.MULTILINE,
    )
    expected = result.best_by_design
    assert len(ranked) == len(expected)
    assert not expected["exact"].all()  # some rows are simulated: the seed matters
    for line, row in zip(ranked, expected.to_dict("records"), strict=True):
        assert line[1:3] == (row["design"], row["mechanism"])
        numbers = [float(x) for x in line[3:]]
        assert numbers == [row["rate"], row["eps_sample"], row["rmse"], row["error_95"]]
    shown = [
        output["data"]["text/plain"]
        for cell in nb.cells
        if cell.cell_type == "code"
        for output in cell.outputs
        if output.output_type == "execute_result" and "ranked = " in cell.source
    ]
    assert len(shown) == 1 and "design_label" in shown[0]


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"recipe": ""}, "recipe"),
        ({"recipe": "   "}, "recipe"),
        ({"recipe": "make_builtin("}, "recipe"),
        ({"recipe": "__import__('os').system('echo hi')"}, "recipe"),
        ({"recipe": "make_builtin('beta'); print(1)"}, "recipe"),
        ({"recipe": "make_builtin(open('secrets').read())"}, "recipe"),
        ({"recipe": "make_builtin(**kw)"}, "recipe"),
        ({"statistic": "variance"}, "statistic"),
        ({"relation": "swap"}, "relation"),
        ({"objective": "mse"}, "objective"),
        ({"designs": ("srs", "systematic")}, "design"),
        ({"designs": ()}, "designs"),
        ({"designs": "srs"}, "designs"),
        ({"rates": ()}, "rates"),
        ({"rates": (0.0, 0.5)}, "rate"),
        ({"rates": (0.5, 1.5)}, "rate"),
        ({"eps_target": 0.0}, "eps_target"),
        ({"eps_target": float("nan")}, "eps_target"),
        ({"eps_target": "a lot"}, "eps_target"),
        ({"delta_target": 1.0}, "delta_target"),
        ({"reps": 0}, "reps"),
        ({"reps": 2.5}, "reps"),
        ({"reps": "30"}, "reps"),
        ({"reps": float("nan")}, "reps"),
        ({"seed": -1}, "seed"),
        ({"statistic": "quantile", "quantile": 0.0}, "quantile"),
        ({"statistic": "quantile", "quantile": 1.0}, "quantile"),
        ({"statistic": "quantile", "quantile": "0.9"}, "quantile"),
        ({"mechanisms": ()}, "mechanisms"),
        ({"mechanisms": "exponential"}, "mechanisms"),
        ({"mechanisms": ("laplace",)}, "mechanism for the median"),
        ({"statistic": "mean", "mechanisms": ("exponential",)}, "mechanism for the mean"),
    ],
)
def test_notebook_rejects_bad_input(changes, message):
    arguments = {"recipe": RECIPE, **PARAMS, **changes}
    with pytest.raises(ValueError, match=message):
        plan_notebook(**arguments)


# ------------------------------------------------------------------------------------------
# Method report
# ------------------------------------------------------------------------------------------


def test_report_holds_parameters_ranked_rows_and_recommendation(result, population):
    recommendation = "Privatise a **30 %** simple random sample: 95 % of releases within ±3."
    page = method_report(
        result, _figure(result), recommendation, population.name, link="https://example.org/p?a=1"
    )
    assert page.startswith("<!DOCTYPE html>")
    assert "Privatise a <strong>30 %</strong> simple random sample" in page
    assert '<a href="https://example.org/p?a=1">' in page
    # plotly.js is inline (the file works offline): no script is loaded from anywhere.
    assert "Plotly.newPlot" in page and len(page) > 1_000_000
    assert re.search(r"<script[^>]*\bsrc=", page) is None

    tables = _tables(page)
    parameters = {row[0]: row[1] for row in tables[0]}
    assert parameters["Population"] == population.name
    assert _number(parameters["N (population size)"]) == result.N
    assert parameters["Seed"] == str(result.seed)
    assert _number(parameters["Monte Carlo repetitions T"]) == result.reps
    assert parameters["Statistic"] == result.statistic

    designs = tables[1]
    for status in result.statuses:
        row = next(r for r in designs if r[0] == status.label)
        assert row[2] == status.theorem
        assert row[1] == ("yes" if status.available else "no")

    ranked = tables[2]
    heading, rows = ranked[0], ranked[1:]
    best = result.best_by_design
    assert len(rows) == len(best)
    column = {name: heading.index(name) for name in heading}
    for cells, (_, expected) in zip(rows, best.iterrows(), strict=True):
        assert cells[column["Design"]] == expected["design_label"]
        assert cells[column["Mechanism"]] == expected["mechanism_label"]
        assert cells[column["Bound that gives ε_sample"]] == expected["accounting"]
        # Each number as the page writes it: ui.format.fmt with the number's role.
        assert cells[column["Rate n/N"]] == fmt(expected["rate"], "rate")
        for name, field, role in (
            ("RMSE ± MC s.e.", "rmse", "error"),
            ("95 % error bound ± MC s.e.", "error_95", "error"),
            ("ε_sample", "eps_sample", "guarantee"),
            ("Noise part (MSE)", "noise_part", "plain"),
        ):
            shown = [part.strip() for part in cells[column[name]].split("±")]
            assert shown[0] == fmt(expected[field], role), name
            assert _number(shown[0]) == pytest.approx(expected[field], rel=5e-3), name
            if len(shown) > 1:  # the Monte Carlo standard error beside a simulated error
                assert shown[1] == fmt(expected[f"{field}_se"], role), name

    rmse_cells = [cells[column["RMSE ± MC s.e."]] for cells in rows]
    assert any("±" in cell for cell in rmse_cells)  # simulated rows carry their s.e.
    # Every gain names its reference: the best census, by its mechanism (issue 35).
    reference = result.census
    named = f"the census with {compare_text.mechanism_words(str(reference['mechanism_label']))}"
    gains = [cells[column["Against the census"]] for cells in rows]
    assert any(named in cell for cell in gains)
    assert not any(cell.endswith("the census") for cell in gains)
    assert 'class="recommendation"' in page and 'class="too-noisy"' not in page

    method = page.split("<h2>Method</h2>", 1)[1]
    assert f"T = {result.reps}" in method and str(result.seed) in method


def test_report_names_the_quantile_and_its_rank(result, population):
    assert "Released order statistic" not in method_report(result, _figure(result), "x", "p")
    quantile = dataclasses.replace(result, statistic="quantile", quantile=0.9)
    page = method_report(quantile, _figure(quantile), "Privatise it.", population.name)
    parameters = {row[0]: row[1] for row in _tables(page)[0]}
    assert parameters["Statistic"] == "quantile q = 0.9"
    assert (
        parameters["Released order statistic"]
        == "rank ⌈qN⌉ = 4,500 of N = 5,000 (sorted ascending)"
    )
    assert f"Quantile q = 0.9 of {population.name}" in page


def test_report_escapes_user_text(result):
    status = dataclasses.replace(result.statuses[-1], reason=f"needs the column {PAYLOAD}")
    hostile = dataclasses.replace(result, statuses=(*result.statuses[:-1], status))
    page = method_report(
        hostile,
        _figure(result, name=PAYLOAD),
        f"Release it {PAYLOAD}",
        f"upload {PAYLOAD}.csv",
        link='https://example.org/?q="><script>alert(2)</script>',
    )
    assert PAYLOAD not in page
    assert "alert(2)</script>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert 'href="https://example.org/?q=&quot;&gt;&lt;script&gt;' in page
    # The only script elements are plotly's own (its library, the chart config and the plot).
    scripts = re.findall(r"<script[^>]*>", page)
    assert all("alert" not in s for s in scripts)
    assert len(scripts) <= 3


def test_report_link_without_http_is_plain_text(result):
    page = method_report(result, _figure(result), "Use the census.", "pop", link="javascript:x()")
    assert "javascript:x()" in page and 'href="javascript' not in page


def test_report_mean_names_the_exact_formulas(population):
    mean = plan(
        population,
        statistic="mean",
        eps_target=1.0,
        designs=("census", "srs"),
        rates=(0.2, 0.5),
        reps=30,
        seed=1,
    )
    page = method_report(mean, _figure(mean), "Use the census.", "pop")
    assert "eqs. 6–7" in page and "closed formula" in page
    median = method_report(
        plan(population, statistic="median", eps_target=1.0, designs=("census",), reps=30, seed=1),
        go.Figure(),
        "Use the census.",
        "pop",
    )
    assert "eqs. 6–7" not in median


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"result": pd.DataFrame()}, "result"),
        ({"figure": {"data": []}}, "figure"),
        ({"recommendation": " "}, "recommendation"),
        ({"population_label": None}, "population_label"),
        ({"link": 3}, "link"),
    ],
)
def test_report_rejects_bad_input(result, changes, message):
    arguments = {
        "result": result,
        "figure": go.Figure(),
        "recommendation": "Use the census.",
        "population_label": "pop",
        **changes,
    }
    with pytest.raises(ValueError, match=message):
        method_report(**arguments)


def test_report_states_the_group_privacy_rule_once(result, population):
    """A change-one-record promise: the ε_target/2 rule appears, from core or from the report."""
    page = method_report(result, go.Figure(), "Use the census.", "pop")
    assert "group privacy" in page and GROUP_PRIVACY_NOTE not in page  # core's reasons say it
    quiet = dataclasses.replace(
        result, statuses=tuple(dataclasses.replace(s, reason="") for s in result.statuses)
    )
    assert GROUP_PRIVACY_NOTE in method_report(quiet, go.Figure(), "Use the census.", "pop")
    deletion = plan(
        population, statistic="median", eps_target=1.0, relation="deletion", reps=30, seed=1
    )
    quiet_deletion = dataclasses.replace(
        deletion, statuses=tuple(dataclasses.replace(s, reason="") for s in deletion.statuses)
    )
    page = method_report(quiet_deletion, go.Figure(), "Use the census.", "pop")
    assert "group privacy" not in page


def test_report_lays_its_chart_out_as_an_export(result):
    chart = go.Figure(layout={"yaxis": {"title": {"text": "error", "standoff": 0}}})
    page = method_report(result, chart, "Use the census.", "pop")
    assert f'"standoff":{TITLE_STANDOFF}' in page.replace(" ", "")


def test_report_states_the_data_a_review_board_checks_first(result, tmp_path):
    """Issue 35 §5: the report left out the value column, the declared bounds, the label
    columns and the rows dropped and clipped; its link (population=Uploaded) cannot reopen an
    upload, and now it says so and lists the upload's settings instead."""
    from core.populations import load_population_file
    from tests import survey_file as survey

    path = survey.write_survey(tmp_path)
    pop = load_population_file(
        path.read_bytes(),
        filename=survey.FILENAME,
        value_column=survey.VALUE,
        lower=survey.LOWER,
        upper=survey.UPPER,
        stratum_column=[survey.STRATUM],
        cluster_column=list(survey.CLUSTER),
    )
    link = "http://localhost:8501/planner?population=Uploaded&plan_eps=1"
    page = method_report(
        result, _figure(result), "**Use it.**", pop.name, link, population=pop, uploaded=True
    )
    assert "<h2>Data</h2>" in page
    assert page.index("<h2>Data</h2>") < page.index("<h2>Parameters</h2>")
    data = {row[0]: row[1] for row in _tables(page)[0]}
    assert data["Value column"] == "zinc"
    assert data["Public bounds [L, U]"].startswith("[0, 250] (declared as public")
    assert data["Stratum column(s)"] == "stratid (31 strata)"
    assert data["Cluster column(s)"] == "stratid × psuid (62 clusters)"
    assert data["File (uploaded)"] == "health_survey.dta: 10,351 rows"
    assert data["Rows dropped"].startswith("14 (their zinc was blank")
    assert "N = 10,337 records remain" in data["Rows dropped"]
    assert data["Values clipped to the bounds"] == "0 of 10,337 (0 below L, 0 above U)"
    parameters = {row[0]: row[1] for row in _tables(page)[1]}
    linked = parameters["Link to this plan in the app"]
    assert linked.startswith(link) and "cannot reopen the uploaded file" in linked
    assert "upload health_survey.dta again" in linked

    # A built-in's link reopens it: no such note, and no file rows.
    built_in = make_builtin("establishments", seed=4, size=5000)
    plain = method_report(result, _figure(result), "ok", built_in.name, link, built_in)
    assert "cannot reopen" not in plain
    rows = {row[0]: row[1] for row in _tables(plain)[0]}
    assert rows["Value column"] == built_in.value_label and "Rows dropped" not in rows


def test_report_escapes_the_files_column_and_file_names(result):
    import io

    from core.populations import load_population_csv

    text = f'"{PAYLOAD}",g\n1,a\n2,b\n3,a\n4,b\n'
    pop = load_population_csv(
        io.BytesIO(text.encode()), value_column=PAYLOAD, lower=0, upper=9, stratum_column="g"
    )
    page = method_report(result, _figure(result), "ok", PAYLOAD, None, pop, uploaded=True)
    assert PAYLOAD not in page
    data = {row[0]: row[1] for row in _tables(page)[0]}
    assert data["Value column"] == PAYLOAD  # shown as text


def test_notebook_and_report_state_whether_the_population_size_is_public(population):
    """Issue 35: the choice that N is public (or not) travels with the guarantee."""
    for public in (False, True):
        nb = nbformat.reads(
            plan_notebook(
                recipe=RECIPE, **{**PARAMS, "relation": "deletion", "sizes_public": public}
            ),
            4,
        )
        code = "\n".join(cell.source for cell in nb.cells if cell.cell_type == "code")
        markdown = "\n".join(cell.source for cell in nb.cells if cell.cell_type == "markdown")
        assert f"sizes_public={public}" in code
        assert sizes_words("deletion", public) in markdown
    for public in (False, True):
        mean = plan(
            population,
            statistic="mean",
            eps_target=1.0,
            relation="deletion",
            designs=("poisson",),
            rates=(0.3,),
            reps=20,
            seed=1,
            refine=False,
            sizes_public=public,
        )
        page = method_report(mean, _figure(mean), "Use the census.", "pop")
        assert "Population size N public" in page
        assert html_escape(sizes_words("deletion", public)) in page


# ------------------------------------------------------------------------------------------
# A recommendation is a claim (issue 35): the reference named, errors below the data's
# resolution compared in its units, no green box for a plan too noisy to use.
# ------------------------------------------------------------------------------------------


def test_a_plan_too_noisy_to_use_gets_a_warning_not_the_green_box():
    pop = make_builtin("lognormal", seed=0, size=2000)
    noisy = plan(pop, eps_target=0.001, designs=("census", "srs"), reps=30)
    reason = planner_text.too_noisy_reason(noisy, pop.lower, pop.upper, 0.5)
    assert reason is not None
    words = compare_text.recommendation(noisy)
    page = method_report(noisy, _figure(noisy), words, pop.name, too_noisy=reason)
    assert 'class="recommendation"' not in page  # no green box
    assert '<p class="too-noisy">Too noisy to use' in page
    assert "<h2>Recommendation: too noisy to use</h2>" in page
    assert html.escape(compare_text.CLAIM_RULE) in page
    with pytest.raises(ValueError, match="too_noisy"):
        method_report(noisy, _figure(noisy), words, pop.name, too_noisy="  ")


def test_report_compares_in_the_datas_units_below_its_resolution():
    """A census exact to the data's resolution (ties at the median): no "138,000 times the
    error of the census" against a practically-zero bound."""
    values = np.sort(np.repeat(np.arange(0.0, 11.0), 400))
    from core.population import Population

    tied = Population("tied", values, 0.0, 10.0)
    result = plan(tied, eps_target=1.0, designs=("census", "srs"), rates=(0.1, 0.5), reps=30)
    assert result.census["error_95"] < 1e-2  # exact to the resolution 1
    page = method_report(result, _figure(result), "x", "tied", resolution=1.0)
    ranked = _tables(page)[2]
    column = ranked[0].index("Against the census")
    gains = [row[column] for row in ranked[1:]]
    assert not any("times the error of" in g for g in gains)
    assert any("census exact to the data" in g for g in gains)
    # Without the resolution the ratio is written, against the census named by mechanism.
    ratio = method_report(result, _figure(result), "x", "tied")
    assert "times the error of the census with" in ratio
