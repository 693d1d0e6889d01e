"""The planner's tab views (ui.planner.inputs, accuracy, downloads): the page's inputs reach
the exports unchanged, and the population checks.

The notebook is parsed (not executed: tests/ui/planner/test_exports.py executes one) and its
code must call core.planner.plan with the page's parameters; the report must carry the
recommendation and every ranked design.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from core import planner
from core.population import Population
from core.populations import make_builtin
from ui.planner import accuracy, accuracy_text, compare_text, downloads, inputs
from ui.planner import figures as figs

POP = make_builtin("lognormal", seed=3, size=2001)


def _inputs(**changes) -> inputs.PlannerInputs:
    args = dict(
        pop=POP,
        seed=7,
        statistic="mean",
        eps_target=0.25,
        delta_target=1e-5,
        relation="replacement",
        designs=("census", "srs"),
        rates=(0.1, 0.3),
        reps=60,
        objective="rmse",
        statuses=planner.design_statuses(POP, "mean", "replacement"),
    )
    args.update(changes)
    return inputs.PlannerInputs(**args)


def test_notebook_carries_the_pages_parameters():
    notebook = json.loads(downloads.notebook_bytes(_inputs()).decode("utf-8"))
    code = "\n".join("".join(c["source"]) for c in notebook["cells"] if c["cell_type"] == "code")
    assert POP.recipe in code
    for fragment in ("'mean'", "0.25", "1e-05", "(0.1, 0.3)", "60", "'rmse'", "'srs'"):
        assert fragment in code, fragment
    assert "seed=7" in code.replace(" ", "")


def test_notebook_carries_the_quantile_and_the_mechanisms():
    ctx = _inputs(statistic="quantile", quantile=0.75, mechanisms=("exponential",))
    notebook = json.loads(downloads.notebook_bytes(ctx).decode("utf-8"))
    code = "\n".join("".join(c["source"]) for c in notebook["cells"] if c["cell_type"] == "code")
    assert "statistic='quantile'" in code and "quantile=0.75" in code
    assert "mechanisms=('exponential',)" in code


def test_report_carries_the_recommendation_and_every_ranked_design():
    ctx = _inputs()
    result = planner.plan(
        POP,
        statistic="mean",
        eps_target=0.25,
        designs=ctx.designs,
        rates=ctx.rates,
        reps=60,
        seed=7,
        objective="rmse",
    )
    words = compare_text.recommendation(result)
    fig, _ = figs.objective_figure(result)
    html = downloads.report_bytes(result, fig, words, POP.name, "http://x/planner?plan_eps=0.25")
    page = html.decode("utf-8")
    assert "plan_eps=0.25" in page
    for label in result.best_by_design["design_label"]:
        assert label in page
    assert words.split(":")[0] in page


def test_population_problem():
    assert inputs.population_problem(POP) is None
    tiny = Population(name="tiny.csv", values=np.arange(5.0), lower=0.0, upper=5.0)
    assert "needs at least 20" in inputs.population_problem(tiny)


def test_default_target_is_a_bound_the_data_can_show():
    """Issue 35 §6: 5 % of the IQR, rounded up to a short number no finer than the step
    in which the values are recorded: whole numbers give ±1 (not ±0.95); values in
    hundredths keep a bound finer than 1."""
    rng = np.random.default_rng(3)
    draws = rng.gamma(36.0, 86.0 / 36.0, 4_000)
    whole = Population("whole", np.sort(np.rint(draws)), 0.0, 250.0)
    decimals = Population("cents", np.sort(np.round(draws / 5, 2)), 0.0, 50.0)
    target, reason = accuracy.default_target(whole)
    q1, q3 = np.quantile(whole.values, [0.25, 0.75])
    assert accuracy_text.TARGET_IQR_SHARE * (q3 - q1) < 1.0 and target == 1.0
    assert "finer than the data can show" in reason and "steps of 1" in reason
    target, reason = accuracy.default_target(decimals)
    q1, q3 = np.quantile(decimals.values, [0.25, 0.75])
    share = accuracy_text.TARGET_IQR_SHARE * (q3 - q1)
    assert share <= target < 1.0 and target == float(f"{target:.2g}")
    assert round(target / 0.01) * 0.01 == pytest.approx(target)
    assert "can show" not in reason
