"""AppTest of the Publication tab's frequency tables (counts and totals by cell).

On the built-in establishments (about 100 regions × 12 size classes): the tab shows the
heat map and the table of cells, a control changes them, a URL carrying the controls
reproduces them, and the YAML config it offers gives the page's table in batch.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from core.population import Population
from core.publication.config import build_population, load_config
from core.publication.frequency import plan_frequency
from tests.pages.harness import charts, open_page
from ui.planner.frequency_text import TABLE_TYPES
from ui.planner.text import PROMISE_LABELS, PUBLICATION_TAB, design_label

PAGE = "app_pages/planner.py"
BASE = {
    "population": "Establishments",
    "plan_view": PUBLICATION_TAB,
    "plan_designs": "Poisson sample",
    "plan_pub_type": TABLE_TYPES["count"],
}


def _cells(at: AppTest) -> pd.DataFrame:
    frames = [d.value for d in at.dataframe if "publishable (census)" in d.value.columns]
    assert len(frames) == 1
    return frames[0]


@pytest.fixture(scope="module")
def counts() -> AppTest:
    return open_page(PAGE, BASE, snippets=False)


def test_the_tab_shows_the_heat_map_and_the_cells(counts: AppTest) -> None:
    at = counts
    cells = _cells(at)
    assert list(cells.columns[:2]) == ["region", "size_class"]
    assert len(cells) == 100 * 12
    heat = [c for c in charts(at) if c["data"][0]["type"] == "heatmap"]
    assert len(heat) == 1
    words = " ".join(m.value for m in at.markdown)
    assert "L1 sensitivity 2" in words and "census" in words.lower()
    assert not cells["publishable"].all() and cells["publishable"].any()
    labels = [b.proto.label for b in at.get("download_button")]
    assert "Download the table (CSV)" in labels and "Batch config (YAML)" in labels


def test_controls_change_the_table_and_the_url_reproduces_it(tmp_path) -> None:
    at = open_page(PAGE, BASE, snippets=False)
    before = _cells(at)
    at.number_input(key="plan_pub_freq_threshold").set_value(0.2)
    at.toggle(key="plan_pub_freq_fixed").set_value(True)
    at.selectbox(key="plan_pub_freq_design").set_value("poisson")
    at.toggle(key="plan_pub_freq_round").set_value(True)
    at.run()
    assert not at.exception
    after = _cells(at)
    assert after["publishable"].sum() < before["publishable"].sum()
    assert not np.allclose(after["b₉₅"], before["b₉₅"])
    assert "RMSE rounded" in after.columns and "RMSE rounded" not in before.columns
    words = " ".join(m.value for m in at.markdown)
    assert "invariants" in words and "from a Poisson" in words
    query = {
        **BASE,
        "plan_pub_freq_threshold": "0.2",
        "plan_pub_freq_fixed": "true",
        "plan_pub_freq_design": design_label("poisson"),
        "plan_pub_freq_round": "true",
    }
    again = open_page(PAGE, query, snippets=False)
    assert again.number_input(key="plan_pub_freq_threshold").value == 0.2
    assert again.toggle(key="plan_pub_freq_fixed").value is True
    assert again.selectbox(key="plan_pub_freq_design").value == "poisson"
    pd.testing.assert_frame_equal(_cells(again), after)
    body = next(c.value for c in again.get("code") if "table: frequency" in c.value)
    path = tmp_path / "frequency.yaml"
    path.write_text(body, encoding="utf-8")
    config = load_config(path)
    assert config.frequency is not None and config.frequency.round_release
    plan = plan_frequency(build_population(config), **config.frequency_kwargs())
    np.testing.assert_allclose(plan.table["error_95"], after["b₉₅"], rtol=1e-12)


def test_totals_by_cell_and_a_total_without_an_upper_bound() -> None:
    at = open_page(PAGE, {**BASE, "plan_pub_type": TABLE_TYPES["total"]}, snippets=False)
    assert not at.exception
    totals = _cells(at)["value"]
    assert totals.sum() > 100_000  # employees, not establishments
    rng = np.random.default_rng(1)
    values = np.sort(rng.lognormal(3, 1, 400))
    unbounded = Population(
        name="no upper bound", values=values, lower=0.0, upper=math.inf,
        clusters=rng.choice(["a", "b", "c"], 400),
    )  # fmt: skip
    query = {k: v for k, v in BASE.items() if k != "population"}
    query["plan_pub_type"] = TABLE_TYPES["total"]
    at = open_page(PAGE, query, uploaded=unbounded, snippets=False)
    assert not at.exception
    assert any("public upper bound" in w.value for w in at.warning)
    assert any("Batch config" in b.proto.label for b in at.get("download_button"))


def test_a_column_with_too_many_categories_gets_words_and_the_config() -> None:
    query = {
        **BASE,
        "plan_pub_freq_rows": "size_class (strata)",
        "plan_pub_freq_column": "region (clusters)",
    }
    at = open_page(PAGE, query, snippets=False)
    assert not at.exception
    assert any("100 categories, more than the 50" in w.value for w in at.warning)
    assert "Batch config (YAML)" in [b.proto.label for b in at.get("download_button")]


@pytest.mark.parametrize("bad", ["50", "-1", "half"])
def test_a_threshold_out_of_range_in_a_link_is_named(bad: str) -> None:
    at = open_page(PAGE, {**BASE, "plan_pub_freq_threshold": bad}, snippets=False)
    assert at.number_input(key="plan_pub_freq_threshold").value == 0.5
    assert any("publishability threshold" in w.value for w in at.warning)
    assert _cells(at)["publishable"].any()


def test_a_rho_promise_in_the_url_plans_the_census_with_the_discrete_gaussian(tmp_path) -> None:
    query = {**BASE, "plan_promise": PROMISE_LABELS["zcdp"], "plan_rho": "0.5"}
    at = open_page(PAGE, query, snippets=False)
    assert not at.exception
    assert at.selectbox(key="plan_pub_freq_mech").options == ["discrete Gaussian"]
    words = " ".join(m.value for m in at.markdown)
    assert "The promise is ρ = 0.5-zCDP" in words and "Only the census is offered" in words
    assert "L2 sensitivity" in words and "planned at the pure ε_target" not in words
    designs = next(d.value for d in at.dataframe if "RMSE over cells" in d.value.columns)
    assert len(designs) == 1 and "ε_sample" not in designs.columns
    body = next(c.value for c in at.get("code") if "table: frequency" in c.value)
    assert "rho_target: 0.5" in body and "eps_target" not in body
    path = tmp_path / "frequency.yaml"
    path.write_text(body, encoding="utf-8")
    config = load_config(path)
    plan = plan_frequency(build_population(config), **config.frequency_kwargs())
    assert plan.design == "census" and plan.settings["rho_target"] == 0.5
    # σ = Δ₂/√(2ρ) = √2 for counts whose records may move between cells
    assert plan.designs["noise_parameter"].iloc[0] == pytest.approx(math.sqrt(2.0))
    np.testing.assert_allclose(plan.table["error_95"], _cells(at)["b₉₅"], rtol=1e-12)


def test_row_margins_change_the_errors_and_a_link_reproduces_them(tmp_path) -> None:
    at = open_page(PAGE, BASE, snippets=False)
    before = _cells(at)
    at.toggle(key="plan_pub_freq_margins").set_value(True)
    at.run()
    at.number_input(key="plan_pub_freq_margin_share").set_value(0.25)
    at.run()
    assert not at.exception
    after = _cells(at)
    assert np.all(after["RMSE"].to_numpy() > before["RMSE"].to_numpy())
    assert "b₉₅ is" in after.columns and "b₉₅ is" not in before.columns
    designs = [d.value for d in at.dataframe if "RMSE over row margins" in d.value.columns]
    assert len(designs) == 1
    margins = [d.value for d in at.dataframe if "row total" in d.value.columns]
    assert len(margins) == 1 and len(margins[0]) == 100
    words = " ".join(c.value for c in at.caption)
    assert "post-processing" in words and "25 %" in words
    query = {**BASE, "plan_pub_freq_margins": "true", "plan_pub_freq_margin_share": "0.25"}
    again = open_page(PAGE, query, snippets=False)
    assert again.toggle(key="plan_pub_freq_margins").value is True
    pd.testing.assert_frame_equal(_cells(again), after)
    body = next(c.value for c in again.get("code") if "table: frequency" in c.value)
    path = tmp_path / "frequency.yaml"
    path.write_text(body, encoding="utf-8")
    config = load_config(path)
    assert config.frequency is not None and config.frequency.margins == "rows"
    plan = plan_frequency(build_population(config), **config.frequency_kwargs())
    np.testing.assert_allclose(plan.table["error_95"], after["b₉₅"], rtol=1e-12)


@pytest.mark.parametrize("bad", ["1.5", "half"])
def test_a_bad_margin_share_in_a_link_is_named(bad: str) -> None:
    query = {**BASE, "plan_pub_freq_margins": "true", "plan_pub_freq_margin_share": bad}
    at = open_page(PAGE, query, snippets=False)
    assert not at.exception
    assert any("share of ε for the margins" in w.value for w in at.warning)
    assert len(_cells(at)) == 1200


def test_rounding_with_margins_is_refused_in_words() -> None:
    query = {**BASE, "plan_pub_freq_margins": "true", "plan_pub_freq_round": "true"}
    at = open_page(PAGE, query, snippets=False)
    assert not at.exception
    assert any("rounding after the projection breaks the sums" in w.value for w in at.warning)
