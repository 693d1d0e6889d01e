"""ui.planner.figures: the chart's data are the planner's table rows; the ranked table is
core's best rows; the composition chart draws the curve it is given."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from core import planner
from core.populations import make_builtin
from tests.pages.harness import array
from ui.planner import figures as figs

POP = make_builtin("lognormal", seed=1, size=3001)


@pytest.fixture(scope="module")
def result() -> planner.PlanResult:
    return planner.plan(POP, eps_target=0.3, designs=("census", "srs", "poisson"), reps=50)


@pytest.mark.parametrize("objective", ["error_95", "rmse"])
def test_chart_data_are_the_plan_table_rows(objective):
    res = planner.plan(POP, eps_target=0.3, designs=("census", "srs"), reps=50, objective=objective)
    fig, data = figs.objective_figure(res)
    pd.testing.assert_frame_equal(data, res.table.loc[:, list(data.columns)].reset_index(drop=True))
    value, se, _ = figs.objective_column(objective)
    lines = [t for t in fig.data if t.mode == "lines+markers"]
    drawn = sum(len(t.x) for t in lines)
    assert drawn == int((res.table["design"] != "census").sum())
    for trace in lines:
        names = [
            figs.series_name(d, m)
            for d, m in zip(res.table["design"], res.table["mechanism_label"], strict=True)
        ]
        rows = res.table[np.array(names) == trace.name].sort_values("rate")
        np.testing.assert_array_equal(array(trace.x), rows["rate"].to_numpy())
        np.testing.assert_array_equal(array(trace.y), rows[value].to_numpy())
        np.testing.assert_array_equal(array(trace.error_y.array), 2 * rows[se].to_numpy())
    best = next(t for t in fig.data if t.name == "best plan")
    assert (best.x[0], best.y[0]) == (res.best["rate"], res.best[value])
    assert fig.layout.shapes[0].y0 == res.census[value]
    assert fig.layout.xaxis.type == "log"


def test_target_line_is_drawn(result):
    fig, _ = figs.objective_figure(result, target=1.25)
    assert [s.y0 for s in fig.layout.shapes][-1] == 1.25


def test_ranked_table_is_cores_best_rows(result):
    ranked = figs.ranked_table(result)
    best = result.best_by_design
    assert list(ranked["design"]) == [figs.SHORT_DESIGNS[d] for d in best["design"]]
    assert all(
        m in label for m, label in zip(ranked["mechanism"], best["mechanism_label"], strict=True)
    )
    np.testing.assert_array_equal(ranked["best rate"], best["rate"])
    np.testing.assert_array_equal(ranked["95 % bound"], best["error_95"])
    np.testing.assert_array_equal(ranked["RMSE"], best["rmse"])
    np.testing.assert_array_equal(ranked["gain vs census"], best["gain"])
    mse = best["sampling_part"] + best["noise_part"]
    np.testing.assert_allclose(ranked["sampling part"], best["sampling_part"] / mse)
    np.testing.assert_allclose(ranked["sampling part"] + ranked["noise part"], 1.0)


def test_composition_figure_draws_its_curve():
    curve = pd.DataFrame(
        {
            "eps_target": [0.1, 1.0, 10.0],
            "eps_target_correct": [0.1, 1.0, 10.0],
            "eps_target_naive": [0.1, 0.8, 5.0],
        }
    )
    fig, data = figs.composition_figure(curve, eps_target=1.0)
    pd.testing.assert_frame_equal(data, curve)
    np.testing.assert_array_equal(array(fig.data[1].y), [0.1, 0.8, 5.0])
    assert fig.layout.shapes[0].x0 == 1.0


def test_short_names():
    assert figs.short_mechanism("median, exponential mechanism") == "exponential mechanism"
    assert figs.short_mechanism("odd label") == "odd label"
    assert figs.series_name("srs", "mean, Laplace noise") == "SRS, Laplace noise"
    assert figs.short_design("unknown") == "unknown"
