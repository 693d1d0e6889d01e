"""AppTest of the Release planner's "Publication table" tab (issue 24, section 1).

The tab runs on the built-in establishments (12 size classes), shows the per-cell table and
the heat map, a control changes the table, a URL carrying the controls reproduces it, and
the YAML config it offers loads in the batch and gives the page's table through
:func:`core.publication.plan_table`. Poisson sampling and T = 50 keep it fast.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from core.populations import make_builtin
from core.publication import plan_table
from core.publication.config import build_population, load_config
from tests.pages.harness import array, charts, open_page
from ui.planner import publication_text as ptext
from ui.planner.text import PUBLICATION_TAB

PAGE = "app_pages/planner.py"
#: Establishments, Poisson sampling only, T = 50, the publication tab open.
BASE = {
    "population": "Establishments",
    "plan_view": PUBLICATION_TAB,
    "plan_designs": "Poisson sample",
    "plan_reps": "50",
}
#: A small establishments population: the same label column names as the built-in.
LABELS = make_builtin("establishments", seed=0, size=200)
NUMBERS = ["rate", "ε_sample", "RMSE", "b₉₅", "b₉₅ / value"]


def _table(at: AppTest) -> pd.DataFrame:
    frames = [d.value for d in at.dataframe if "b₉₅ / value" in d.value.columns]
    assert len(frames) == 1
    return frames[0]


def _grid(value: object) -> np.ndarray:
    """A 2-D plotly data array (nested lists, or plotly's typed array with a shape)."""
    if isinstance(value, dict):
        shape = tuple(int(k) for k in str(value["shape"]).split(","))
        return array(value).astype(float).reshape(shape)
    return np.array([array(row) for row in value], dtype=float)  # type: ignore[union-attr]


def _yaml(at: AppTest) -> str:
    return next(c.value for c in at.get("code") if "python -m batch" in c.value)


@pytest.fixture(scope="module")
def median_and_mean() -> AppTest:
    return open_page(PAGE, BASE)


def test_tab_shows_the_table_and_the_heat_map(median_and_mean: AppTest) -> None:
    at = median_and_mean
    table = _table(at)
    assert len(table) == 12 * 2 and set(table["statistic"]) == {"median", "mean"}
    assert (table["design"] != "—").all()
    heat = [c for c in charts(at) if c["data"][0]["type"] == "heatmap"]
    assert len(heat) == 1
    trace = heat[0]["data"][0]
    z = _grid(trace["z"])
    assert z.shape == (12, 2)
    # Colours are the relative errors, capped at max(1, 2 × share).
    rel = table.set_index(["size_class", "statistic"])["b₉₅ / value"]
    for i, cell in enumerate(trace["y"]):
        for j, stat in enumerate(trace["x"]):
            assert z[i, j] == pytest.approx(min(float(rel[(cell, stat)]), 1.0), rel=1e-9)
    words = " ".join(m.value for m in at.markdown)
    assert "ε_target / 2" in words and "publishable" in words


def test_downloaded_config_reproduces_the_table_in_batch(median_and_mean, tmp_path) -> None:
    at = median_and_mean
    labels = [b.proto.label for b in at.get("download_button")]
    assert "Download the table (CSV)" in labels
    assert "Batch config (YAML)" in labels
    assert "Python script (.py)" in labels
    assert "Everything (zip)" in labels
    path = tmp_path / "publication.yaml"
    path.write_text(_yaml(at), encoding="utf-8")
    config = load_config(path)
    assert config.population == {"builtin": "establishments", "seed": 0, "size": 100_000}
    # The page and core list the cells in the same reading order (numbers by value).
    batch = plan_table(build_population(config), **config.plan_kwargs()).table
    page = _table(at)
    assert list(page["size_class"]) == list(batch["size_class"])
    assert list(page["statistic"]) == list(batch["statistic"])
    assert list(page["publishable"]) == list(batch["publishable"])
    for shown, core_name in zip(NUMBERS, ["rate", "eps_sample", "rmse", "error_95"], strict=False):
        np.testing.assert_allclose(page[shown], batch[core_name], rtol=1e-9)


def test_a_control_changes_the_table_and_the_url_reproduces_it() -> None:
    at = open_page(PAGE, {**BASE, "plan_pub_stats": "median"})
    before = _table(at)
    at.number_input(key="plan_pub_share").set_value(0.5)
    at.toggle(key="plan_pub_fixed").set_value(True)
    at.run()
    assert not at.exception
    after = _table(at)
    # Fixed labels: each cell keeps the whole ε_target, so the errors shrink.
    assert (after["b₉₅"] <= before["b₉₅"] * (1 + 1e-9)).all()
    assert after["b₉₅"].sum() < before["b₉₅"].sum()
    assert after["publishable"].sum() > before["publishable"].sum()
    query = {
        **BASE,
        "plan_pub_stats": "median",
        "plan_pub_groups": ptext.group_label(LABELS, "strata"),
        "plan_pub_share": "0.5",
        "plan_pub_fixed": "true",
    }
    again = open_page(PAGE, query)
    assert again.number_input(key="plan_pub_share").value == 0.5
    assert again.toggle(key="plan_pub_fixed").value is True
    pd.testing.assert_frame_equal(_table(again), after, rtol=1e-12)


def test_too_many_cells_point_to_the_batch() -> None:
    at = open_page(PAGE, {**BASE, "plan_pub_groups": ptext.group_label(LABELS, "clusters")})
    assert any("python -m batch" in w.value for w in at.warning)
    assert not [d for d in at.dataframe if "b₉₅ / value" in d.value.columns]
    assert "Batch config (YAML)" in [b.proto.label for b in at.get("download_button")]


def test_population_without_labels_gets_words_and_the_establishments() -> None:
    at = open_page(PAGE, {"plan_view": PUBLICATION_TAB})
    assert any("no label columns" in i.value for i in at.info)
    assert any("establishments" in b.label for b in at.button)


def test_planning_off_offers_the_config_without_planning() -> None:
    at = open_page(PAGE, {**BASE, "plan_pub_run": "false"})
    assert any("Planning is off: 12 cells by size_class × 2 statistics" in i.value for i in at.info)
    assert not [d for d in at.dataframe if "b₉₅ / value" in d.value.columns]
    assert "python -m batch" in _yaml(at)


def test_weighted_optimised_split_travels_in_the_link_and_the_config(tmp_path) -> None:
    """Issue 24 §1: the optimised split minimises the largest *weighted* relative error."""
    query = {**BASE, "plan_pub_split": ptext.SPLIT_LABELS["optimal"], "plan_pub_weights": "1, 3"}
    at = open_page(PAGE, query)
    assert not at.exception
    assert "weighted by median 1, mean 3" in " ".join(m.value for m in at.markdown)
    path = tmp_path / "publication.yaml"
    path.write_text(_yaml(at), encoding="utf-8")
    config = load_config(path)
    assert config.split == "optimal" and config.error_weights == (1.0, 3.0)
    assert config.plan_kwargs()["error_weights"] == [1.0, 3.0]


def _weights_app() -> None:
    import streamlit as st

    from ui.planner.publication import error_weights_control

    st.write(f"weights={error_weights_control(['median', 'mean'])}")


@pytest.mark.parametrize(
    ("typed", "shown", "warned"),
    [
        ("", "None", False),
        ("2, 1", "(2.0, 1.0)", False),
        ("1, -3", "None", True),
        ("1", "None", True),
        ("a, b", "None", True),
    ],
)
def test_error_weights_are_one_positive_number_per_statistic(typed, shown, warned) -> None:
    at = AppTest.from_function(_weights_app).run()
    at.text_input(key="plan_pub_weights").set_value(typed).run()
    assert at.markdown[-1].value == f"weights={shown}"
    assert any("Weights: give 2 positive numbers" in w.value for w in at.warning) is warned


def test_cell_means_follow_the_sizes_toggle_and_the_config_carries_it(tmp_path) -> None:
    """Issue 35: labels that can move make the cells' sizes private, so each cell's mean is a
    noisy sum over a noisy count; declaring the sizes public (the planner's toggle, in the
    URL) lets a cell's mean divide by N_c, and the batch config says which."""
    query = {**BASE, "plan_pub_stats": "mean"}
    at = open_page(PAGE, query)
    assert not at.exception
    words = " ".join(m.value for m in at.markdown)
    assert "The cell sizes N_c are not public" in words
    config = load_config(_write(tmp_path / "private.yaml", _yaml(at)))
    assert config.sizes_public is False
    private = _table(at)
    at.toggle(key="plan_sizes").set_value(True)
    at.run()
    assert not at.exception
    public = _table(at)
    assert "declared public" in " ".join(m.value for m in at.markdown)
    assert not np.allclose(private["b₉₅"], public["b₉₅"])
    config = load_config(_write(tmp_path / "public.yaml", _yaml(at)))
    assert config.sizes_public is True
    again = open_page(PAGE, {**query, "plan_sizes": "true"})
    pd.testing.assert_frame_equal(_table(again), public, rtol=1e-12)


def _write(path, text_: str):
    path.write_text(text_, encoding="utf-8")
    return path
