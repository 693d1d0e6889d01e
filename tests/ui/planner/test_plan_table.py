"""ui.planner.exports.plan_table and the table download ``release_plan.csv``.

Every column of the download is described once (the page's ``release_plan_columns.csv`` and
the README's table), core's ``is_best`` is named for what it marks (the best rate of each
design and mechanism) and ``recommended`` is true on exactly one row: the plan the page
recommends.
"""

from __future__ import annotations

import dataclasses
import io

import pandas as pd
import pytest

from core import planner
from core.planner.usability import is_usable
from core.populations import make_builtin
from tests.conftest import ROOT
from ui.downloads import frame_to_csv_bytes
from ui.planner import compare_text, text
from ui.planner import figures as figs
from ui.planner.exports import PLAN_TABLE_COLUMNS, columns_frame
from ui.planner.exports.plan_table import markdown_table

POP = make_builtin("establishments", seed=2, size=2000)
#: The share of the value a plan's 95 % bound may reach and still be usable.
USABLE = 0.2
#: The columns of a count, total or proportion released rounded (core.linear.post_errors).
POST_COLUMNS = ("rmse_post", "error_95_post", "post_method")


@pytest.fixture(scope="module", params=["median", "mean"])
def result(request: pytest.FixtureRequest) -> planner.PlanResult:
    return planner.plan(
        POP, statistic=request.param, eps_target=0.5, rates=(0.1, 0.4), reps=20, seed=3
    )


def _csv(result: planner.PlanResult) -> pd.DataFrame:
    """``release_plan.csv`` as the page writes it, read back."""
    table = figs.full_table(result, usable_share=USABLE, lower=POP.lower, upper=POP.upper)
    return pd.read_csv(io.BytesIO(frame_to_csv_bytes(table)))


def test_every_column_of_the_download_is_described_in_file_order(result):
    assert list(PLAN_TABLE_COLUMNS) == list(figs.TABLE_COLUMNS)
    table = _csv(result)
    assert list(table.columns) == [c for c in PLAN_TABLE_COLUMNS if c in table.columns]
    # core gives every described column on this population (clusters and strata included).
    # (the errors after rounding are a count's, total's or proportion's, asked for)
    assert set(PLAN_TABLE_COLUMNS) - set(POST_COLUMNS) == set(table.columns)
    assert "is_best" not in table.columns
    frame = columns_frame()
    assert list(frame.columns) == ["column", "meaning"]
    assert list(frame["column"]) == list(PLAN_TABLE_COLUMNS)
    assert all(len(m) > 20 for m in frame["meaning"])


def test_the_readme_table_is_the_column_list():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert markdown_table() in readme


def test_best_rate_marks_one_row_per_design_and_mechanism(result):
    table = _csv(result)
    best = table[table["best_rate_of_design_mechanism"]]
    pairs = table[["design", "mechanism"]].drop_duplicates()
    assert len(best) == len(pairs) > 1
    assert not best.duplicated(["design", "mechanism"]).any()
    key = "error_95" if result.objective == "error_95" else "rmse"
    smallest = table.groupby(["design", "mechanism"])[key].min()
    for row in best.itertuples():
        assert getattr(row, key) == pytest.approx(smallest[(row.design, row.mechanism)])


def test_exactly_one_row_is_recommended_and_it_is_the_pages_verdict(result):
    table = _csv(result)
    recommended = table[table["recommended"]]
    assert len(recommended) == 1
    row = recommended.iloc[0]
    assert bool(row["best_rate_of_design_mechanism"])
    best = result.recommended
    assert (row["design"], row["mechanism"]) == (best["design"], best["mechanism"])
    # The CSV keeps 12 significant digits.
    assert row["rate"] == pytest.approx(float(best["rate"]), rel=1e-11)
    assert row["error_95"] == pytest.approx(float(best["error_95"]), rel=1e-11)
    assert text.plan_phrase(row) in compare_text.recommendation(result)


def test_a_recommendation_matching_no_row_is_refused(result):
    ranked = result.best_by_design.copy()
    ranked["design"] = "nowhere"  # no census either: the first row is recommended
    lost = dataclasses.replace(result, best_by_design=ranked)
    with pytest.raises(ValueError, match="matches 0 rows"):
        figs.full_table(lost)


def test_usable_follows_the_pages_rule_row_by_row(result):
    table = _csv(result)
    value = float(result.population_value)
    expected = [is_usable(b, value, POP.lower, POP.upper, USABLE) for b in table["error_95"]]
    assert list(table["usable"]) == expected
    assert "usable" not in figs.full_table(result).columns  # only when the share is given
