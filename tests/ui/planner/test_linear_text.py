"""The planner's words and exports for counts, totals and proportions: the selection in words,
the verdict, the code that names the statistic, and a notebook whose code plans exactly what
the page plans."""

from __future__ import annotations

import math

import nbformat
import numpy as np
import pandas as pd
import pytest

from core import planner
from core.linear.plan import plan_linear
from core.linear.statistic import LinearStatistic
from core.linear.verdict import SMALL_EPS, linear_verdict
from core.populations import make_builtin
from tests.notebooks import from_the_clone
from ui.format import fmt
from ui.planner import exports, linear_text
from ui.planner import figures as figs
from ui.planner.text import design_label

POP = make_builtin("establishments", seed=0)
DESIGNS = ("census", "srs", "poisson", "stratified_proportional", "cluster")


@pytest.fixture(scope="module")
def count_plan() -> planner.PlanResult:
    return plan_linear(
        POP,
        LinearStatistic("count", column="strata", category="10-19"),
        eps_target=1.0,
        delta_target=5e-6,
        designs=DESIGNS,
        rates=(0.05, 0.2),
        mechanisms=("laplace", "geometric"),
        relation="replacement",
    )


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (("count", "size class", "1-4", None), "count of records with size class = 1-4"),
        (
            ("proportion", None, None, (0.0, 12.5)),
            "proportion of records with employees in [0, 12.5]",
        ),
        (("total", None, None, None), "total of employees over every record"),
    ],
)
def test_the_selection_in_words(args, words):
    assert linear_text.selection_words(*args, value_label="employees") == words


@pytest.mark.parametrize(
    "stat",
    [
        LinearStatistic("count", column="strata", category="1-4"),
        LinearStatistic("proportion", value_range=(0.0, 12.5)),
        LinearStatistic("total"),
    ],
)
def test_the_statistic_code_builds_the_statistic(stat):
    code = linear_text.statistic_code(stat.kind, stat.column, stat.category, stat.value_range)
    assert eval(code, {"LinearStatistic": LinearStatistic}) == stat


def test_the_verdict_names_the_census_its_error_and_the_reasons(count_plan):
    words = linear_text.verdict_words(count_plan, "count", [("srs", "a reason")], "close")
    census = count_plan.census
    assert census is not None and count_plan.best["design"] == "census"
    assert words.startswith("Privatise the whole register")
    assert linear_text.error_text(float(census["error_95"]), "count") in words
    assert "r·ε_sample" in words
    assert f"- **{design_label('srs')}**: a reason" in words and words.endswith("close")


def test_an_empty_selection_is_explained_but_a_total_needs_no_note():
    assert "still defined" in (linear_text.empty_selection_note("proportion") or "")
    assert linear_text.empty_selection_note("count")
    assert linear_text.empty_selection_note("total") is None


def test_the_notebook_plans_exactly_the_pages_plan(count_plan, tmp_path):
    text = exports.linear_notebook(
        recipe=POP.recipe,
        kind="count",
        column="strata",
        category="10-19",
        value_range=None,
        eps_target=1.0,
        delta_target=5e-6,
        designs=DESIGNS,
        rates=(0.05, 0.2),
        mechanisms=("laplace", "geometric"),
        relation="replacement",
    )
    nb = nbformat.reads(text, as_version=4)
    nbformat.validate(nb)
    code = [from_the_clone(c.source) for c in nb.cells if c.cell_type == "code"]
    namespace: dict = {}
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(tmp_path)
        exec(compile("\n".join(code), "notebook", "exec"), namespace)
    got = namespace["result"]
    pd.testing.assert_frame_equal(got.table, count_plan.table)
    assert math.isclose(got.population_value, count_plan.population_value)
    assert np.isclose(float(got.census["error_95"]), float(count_plan.census["error_95"]))


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"kind": "median"}, "kind"),
        ({"relation": "swap"}, "relation"),
        ({"mechanisms": ("exponential",)}, "mechanism"),
        ({"eps_target": -1.0}, "eps_target"),
        ({"recipe": "import os"}, "recipe"),
    ],
)
def test_the_notebook_rejects_bad_input(changes, message):
    args = dict(
        recipe=POP.recipe,
        kind="count",
        column=None,
        category=None,
        value_range=(0.0, 4.0),
        eps_target=1.0,
        delta_target=None,
        designs=None,
        rates=None,
        mechanisms=None,
        relation="replacement",
    )
    with pytest.raises(ValueError, match=message):
        exports.linear_notebook(**{**args, **changes})


def test_each_sample_design_gets_its_reason_from_the_verdict(count_plan):
    verdict = linear_verdict(count_plan)
    reasons = dict(linear_text.design_reasons(verdict))
    samples = {str(d) for d in count_plan.best_by_design["design"] if d != "census"}
    assert set(reasons) == samples
    for design, words in reasons.items():
        mine = [d for d in verdict.designs if d.design == design]
        closest = min(mine, key=lambda d: d.error_ratio)  # the mechanism serving it best
        assert closest.census_wins and closest.efficiency < 1.0 < closest.noise_ratio
        assert f"at most {fmt(closest.efficiency, 'ratio')} times the census's ε" in words
        assert f"{fmt(closest.error_ratio, 'ratio')} times the census's." in words


def test_at_a_small_eps_the_closest_sample_is_named_with_its_excess(count_plan):
    small = plan_linear(
        POP,
        LinearStatistic("count", column="strata", category="10-19"),
        eps_target=SMALL_EPS,
        delta_target=5e-6,
        designs=DESIGNS,
        rates=(0.05, 0.2),
        mechanisms=("laplace", "geometric"),
        relation="replacement",
    )
    verdict = linear_verdict(count_plan, small)
    words = linear_text.closeness_words(verdict)
    closest = min(verdict.designs, key=lambda d: d.small_eps_ratio)
    assert 1.0 < closest.small_eps_ratio
    assert words is not None and linear_text.above_words(closest.small_eps_ratio) in words
    assert design_label(closest.design).lower()[:10] in words.lower()
    assert linear_text.closeness_words(linear_verdict(count_plan)) is None


def test_the_method_report_states_that_every_row_is_exact(count_plan):
    fig, _ = figs.objective_figure(count_plan)
    words = linear_text.verdict_words(count_plan, "count", [], None)
    html = exports.method_report(count_plan, fig, words, POP.name, None, POP)
    assert linear_text.LINEAR_EXACT_ROW in html
    assert "Monte Carlo repetitions T" not in html
    assert "Privatise the whole register" in html


def test_the_exports_reproduce_the_rounded_release(tmp_path):
    """Notebook, report and snippet of a count released rounded to whole numbers ≥ 0."""
    args = dict(
        kind="count",
        column="strata",
        category="10-19",
        value_range=None,
        eps_target=1.0,
        delta_target=5e-6,
        designs=DESIGNS,
        rates=(0.05, 0.2),
        mechanisms=("laplace", "geometric"),
        relation="replacement",
    )
    stat = LinearStatistic("count", column="strata", category="10-19")
    keep = {k: v for k, v in args.items() if k not in ("kind", "column", "category", "value_range")}
    rounded = plan_linear(POP, stat, **keep, post="round")
    text = exports.linear_notebook(recipe=POP.recipe, **args, post="round")
    nb = nbformat.reads(text, as_version=4)
    code = [from_the_clone(c.source) for c in nb.cells if c.cell_type == "code"]
    namespace: dict = {}
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(tmp_path)
        exec(compile("\n".join(code), "notebook", "exec"), namespace)
    pd.testing.assert_frame_equal(namespace["result"].table, rounded.table)
    assert "rmse_post" in rounded.table.columns
    with pytest.raises(ValueError, match="post"):
        exports.linear_notebook(recipe=POP.recipe, **args, post="floor")
    fig, _ = figs.objective_figure(rounded)
    html = exports.method_report(rounded, fig, "words", POP.name, None, POP)
    assert "after rounding" in html and "costs no privacy" in html
    snippet = linear_text.python_snippet("pop = None\n", **args, post="round")
    assert "post='round'" in snippet and "rmse_post" in snippet
    assert "post=" not in linear_text.python_snippet("pop = None\n", **args)
