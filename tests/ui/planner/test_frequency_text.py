"""The frequency tab's pure parts: the heat map, the tables and the words."""

from __future__ import annotations

import numpy as np
import pytest

from core.populations import make_builtin
from core.publication.frequency import plan_frequency
from ui.planner import frequency_text as ft


@pytest.fixture(scope="module")
def plan():
    pop = make_builtin("establishments", seed=2, size=20_000)
    return plan_frequency(
        pop, ["clusters"], "strata", eps_target=0.5, designs=["poisson"], design="poisson",
        rates=[0.1, 0.5],
    )  # fmt: skip


@pytest.mark.parametrize("show", list(ft.HEAT_VALUES))
def test_the_heat_map_is_rows_by_columns_with_small_cells_marked(plan, show) -> None:
    fig, data = ft.heatmap_figure(plan, show)
    trace = fig.data[0]
    z = np.asarray(trace.z, dtype=float)
    assert z.shape == (plan.cells.n_rows, plan.cells.n_columns)
    assert len(data) == plan.cells.n_cells
    bad = ~plan.table["publishable"].to_numpy().reshape(z.shape)
    marked = np.char.startswith(np.asarray(trace.text, dtype=str), "✗")
    assert np.array_equal(marked, bad)
    if show == "relative_error":  # capped at max(1, 2 × threshold)
        assert np.nanmax(z) <= max(1.0, 2 * plan.settings["threshold"]) + 1e-12


def test_the_tables_and_words_say_the_census_wins(plan) -> None:
    cells = ft.shown_cells(plan)
    assert {"b₉₅", "publishable (census)", "note"} <= set(cells.columns)
    designs = ft.shown_designs(plan)
    assert designs["design"].iloc[0] == "Census" and len(designs) == 3
    words = ft.verdict_words(plan)
    assert "the census wins" in words and "Poisson" in words


def test_a_bad_heat_choice_is_refused(plan) -> None:
    with pytest.raises(ValueError, match="show must be one of"):
        ft.heatmap_figure(plan, "colour")


def test_the_csv_carries_the_released_margins_and_their_errors() -> None:
    pop = make_builtin("establishments", seed=2, size=5_000)
    plan = plan_frequency(
        pop, ["clusters"], "strata", eps_target=0.5, designs=["census"], margins="rows",
        margin_share=0.3,
    )  # fmt: skip
    assert plan.margins is not None
    got = ft.table_csv_frame(plan)
    n_cells, n_rows = plan.cells.n_cells, plan.cells.n_rows
    assert len(got) == n_cells + n_rows
    margins = got[got["released"] == "row margin"]
    np.testing.assert_allclose(margins["error_95"], plan.margins["error_95"])
    np.testing.assert_allclose(margins["rmse"], plan.margins["rmse"])
    assert (margins[plan.cells.column_name] == "row margin").all()
    assert list(got.columns[: len(plan.table.columns)]) == list(plan.table.columns)
    assert "row total" in ft.shown_margins(plan).columns
    words = ft.margin_words(0.3, 0.32)
    assert "post-processing" in words and "30 %" in words
    plain = plan_frequency(pop, ["clusters"], "strata", eps_target=0.5, designs=["census"])
    assert ft.table_csv_frame(plain) is plain.table
