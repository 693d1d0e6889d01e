"""AppTest for the Amplification page: presets open their tab, defaults fit the population."""

from __future__ import annotations

import numpy as np
import pytest

from tests.pages.harness import array, charts, open_page, trace_names
from ui.format import fmt

PAGE = "app_pages/amplification.py"
FORWARD = "ε_sample against the rate"
REVERSE = "Reverse view and calculator"
STEINKE = "Steinke: limits of amplification"

#: Every preset of the page and the tab that holds the controls it sets.
PRESET_TABS = {
    "Hu et al. Figure 3": FORWARD,
    "Paper example: 101 of 10,001": REVERSE,
    "Steinke's figures": STEINKE,
}
#: Controls each preset sets that live inside its tab (not the shared ones on top).
TAB_CONTROLS = {
    "Hu et al. Figure 3": ("amp_log_x", "amp_log_y"),
    "Paper example: 101 of 10,001": ("amp_N", "amp_n"),
    "Steinke's figures": ("amp_st_eps", "amp_st_p", "amp_st_c"),
}


def _widget_keys(at) -> set[str]:
    kinds = ("text_input", "number_input", "toggle", "select_slider", "selectbox")
    return {w.key for kind in kinds for w in getattr(at, kind) if w.key}


@pytest.mark.parametrize("start", [FORWARD, REVERSE, STEINKE])
@pytest.mark.parametrize(("label", "tab"), list(PRESET_TABS.items()))
def test_every_preset_opens_the_tab_of_its_controls(label, tab, start):
    """Item 2: from any tab, a preset opens the tab whose controls it sets."""
    at = open_page(PAGE, {"amp_view": start})
    next(b for b in at.button if b.label == label).click().run()
    assert not at.exception
    assert at.session_state["amp_view"] == tab
    assert set(TAB_CONTROLS[label]) <= _widget_keys(at)  # its controls are on screen
    assert len([b for b in at.button if (b.key or "").startswith("amp_preset_")]) == len(
        PRESET_TABS
    )


def test_paper_example_preset_shows_the_paper_numbers():
    at = open_page(PAGE)
    next(b for b in at.button if b.label == "Paper example: 101 of 10,001").click().run()
    table = next(df.value for df in at.dataframe if "ε_sample" in df.value.columns)
    assert table["ε_sample"].round(2).tolist() == [2.43, 5.14]


@pytest.mark.parametrize(
    ("population", "size"), [("Lognormal", 10_001), ("Establishments", 100_000)]
)
def test_delta_and_calculator_default_to_the_active_population(population, size):
    """Item 4: δ_target = 1/(2N) and the calculator's N of the active population."""
    at = open_page(PAGE, {"amp_view": REVERSE, "population": population})
    assert at.number_input(key="amp_delta").value == pytest.approx(1 / (2 * size), rel=1e-5)
    assert "1/(2N)" in at.number_input(key="amp_delta").help + str(
        at.select_slider(key="amp_delta__slider").help
    )
    assert at.number_input(key="amp_N").value == size
    assert at.number_input(key="amp_n").value == -(-size // 100)


def test_vacuous_delta_bound_is_said_so():
    """Item 4: a δ_sample of 1 or more is shown as vacuous, not as a number to trust."""
    at = open_page(
        PAGE, {"amp_view": REVERSE, "amp_delta": "0.05", "amp_N": "10001", "amp_n": "10"}
    )
    table = next(df.value for df in at.dataframe if "ε_sample" in df.value.columns)
    assert table["δ on the sample"].str.startswith("vacuous").all()
    assert any("vacuous" in w.value for w in at.warning)
    at.number_input(key="amp_n").set_value(5000).run()
    table = next(df.value for df in at.dataframe if "ε_sample" in df.value.columns)
    assert not table["δ on the sample"].str.startswith("vacuous").any()
    assert not any("vacuous" in w.value for w in at.warning)


# --- moved from test_pages_apptest.py -----------------------------------------------------


def test_page_runs_without_exception():
    at = open_page(PAGE)
    assert charts(at), f"{PAGE} drew no chart"
    assert not at.error, [e.value for e in at.error]


def test_amplification_eps_list_changes_curves():
    at = open_page(PAGE)
    assert {"ε_target = 0.1", "ε_target = 0.5", "ε_target = 1"} <= trace_names(at)
    at.text_input(key="amp_eps_targets").set_value("0.2, 3").run()
    names = trace_names(at)
    assert {"ε_target = 0.2", "ε_target = 3"} <= names
    assert "ε_target = 0.5" not in names


def test_amplification_invalid_entries_are_explained_not_raised():
    at = open_page(PAGE)
    at.text_input(key="amp_eps_targets").set_value("abc, -3, 1e9").run()
    assert not at.exception
    assert any("not a number" in w.value for w in at.warning)
    assert {"ε_target = 0.1", "ε_target = 0.5"} <= trace_names(at)  # falls back to the defaults


def test_amplification_calculator_reproduces_paper_numbers():
    at = open_page(PAGE, {"amp_eps_targets": "0.1, 1", "amp_view": REVERSE})
    table = next(df.value for df in at.dataframe if "ε_sample" in df.value.columns)
    eps = dict(zip(table["ε_target"], table["ε_sample"], strict=True))
    assert eps[0.1] == pytest.approx(2.43, abs=0.005)
    assert eps[1.0] == pytest.approx(5.14, abs=0.005)


def test_amplification_n_larger_than_N_is_explained():
    at = open_page(PAGE, {"amp_view": REVERSE})
    at.number_input(key="amp_n").set_value(20000).run()
    assert not at.exception
    assert any("exceeds the population size" in e.value for e in at.error)


def test_amplification_log_slider_and_exact_box_stay_in_sync():
    at = open_page(PAGE)
    at.number_input(key="amp_rate_min").set_value(0.0042).run()
    # A typed value between two marks becomes a mark: the slider shows the box's number.
    slider = at.select_slider(key="amp_rate_min__slider")
    assert slider.value == pytest.approx(0.0042)
    assert "0.0042" in slider.options and "0.005" in slider.options
    figs = charts(at)
    assert array(figs[0]["data"][0]["x"]).min() == pytest.approx(0.0042)
    at.select_slider(key="amp_rate_min__slider").set_value(0.02).run()
    assert at.number_input(key="amp_rate_min").value == pytest.approx(0.02)
    # δ_target's default 1/(2N) lies between marks: the slider stands on it too.
    assert at.select_slider(key="amp_delta__slider").value == pytest.approx(
        at.number_input(key="amp_delta").value, rel=1e-12
    )


def test_amplification_preset_sets_paper_values():
    at = open_page(PAGE, {"amp_eps_targets": "2"})
    preset = next(b for b in at.button if b.label == "Hu et al. Figure 3")
    preset.click().run()
    assert at.text_input(key="amp_eps_targets").value == "0.1, 0.5, 1"
    assert {"ε_target = 0.1", "ε_target = 0.5", "ε_target = 1"} <= trace_names(at)


def test_amplification_extreme_values_do_not_break():
    at = open_page(
        PAGE,
        {"amp_eps_targets": "0.000001, 50", "amp_rate_min": "0.000001", "amp_log_y": "true"},
    )
    assert not at.exception
    for chart in charts(at):
        for trace in chart["data"]:
            if "y" in trace:
                assert np.all(np.isfinite(array(trace["y"])))


@pytest.mark.parametrize("tab", [REVERSE, STEINKE])
def test_amplification_tabs_compute_only_when_open(tab):
    at = open_page(PAGE, {"amp_view": tab})
    names = trace_names(at)
    if tab == STEINKE:
        assert "c = 2" in names and "ε_target = 0.5" not in names
        at.text_input(key="amp_st_c").set_value("1, 10").run()
        assert {"c = 1", "c = 10"} <= trace_names(at)
    else:
        assert "ε_sample = 5" in names and "ε_target = 0.5" not in names
        at.text_input(key="amp_eps_samples").set_value("3").run()
        assert "ε_sample = 3" in trace_names(at)


# ---------------------------------------------------------------------------------------
# ε as odds (issue 16, item 3)
# ---------------------------------------------------------------------------------------

ODDS = "ε as odds"


def _odds_sentence(at) -> str:
    return next(m.value for m in at.info if "can become at most" in m.value)


def _odds_table(at):
    return next(t.value for t in at.table if "with ε_target: at most" in t.value)


def test_odds_tab_shows_the_bound_of_core_for_both_budgets():
    from core import amplification as amp
    from core import risk
    from ui.amplification.text import in_100

    at = open_page(PAGE, {"amp_view": ODDS})
    words = _odds_sentence(at)
    e_s = amp.eps_sample(1.0, 0.01)
    assert "thought it 1 in 100" in words
    assert f"at most **{in_100(risk.posterior_bound(1.0, 0.01))} in 100** sure" in words
    assert f"at most **{in_100(risk.posterior_bound(e_s, 0.01))} in 100**" in words
    assert "2.67 in 100" in words and "63.6 in 100" in words  # the default state, by hand
    table = _odds_table(at)
    assert table["ε_target"].tolist() == ["0.1", "0.5", "1"]
    want = [f"{in_100(risk.posterior_bound(e, 0.01))} in 100" for e in (0.1, 0.5, 1.0)]
    assert table["with ε_target: at most"].tolist() == want
    want = [
        f"{in_100(risk.posterior_bound(amp.eps_sample(e, 0.01), 0.01))} in 100"
        for e in (0.1, 0.5, 1.0)
    ]
    assert table["with ε_sample: at most"].tolist() == want
    curve = next(t for c in charts(at) for t in c["data"] if t.get("name") == "ε_target = 1")
    np.testing.assert_allclose(
        array(curve["y"]), risk.posterior_bound(1.0, array(curve["x"])), rtol=1e-15
    )


def test_odds_change_with_the_prior_and_with_eps_target():
    at = open_page(PAGE, {"amp_view": ODDS})
    before, table_before = _odds_sentence(at), _odds_table(at)
    at.number_input(key="amp_prior").set_value(0.1).run()
    assert not at.exception
    after_prior = _odds_sentence(at)
    assert "thought it 1 in 10 " in after_prior and after_prior != before
    assert _odds_table(at)["with ε_target: at most"].tolist() != (
        table_before["with ε_target: at most"].tolist()
    )
    at.number_input(key="amp_odds_eps").set_value(0.1).run()
    assert _odds_sentence(at) != after_prior
    assert "With ε_target = 0.1," in _odds_sentence(at)
    at.text_input(key="amp_eps_targets").set_value("2, 3").run()
    assert _odds_table(at)["ε_target"].tolist() == ["2", "3"]


def test_odds_url_reproduces_the_prior_and_rate():
    from core import amplification as amp
    from core import risk
    from ui.amplification.text import in_100

    query = {"amp_view": ODDS, "amp_prior": "0.001", "amp_odds_rate": "0.05"}
    at = open_page(PAGE, query)
    assert at.number_input(key="amp_prior").value == 0.001
    assert at.number_input(key="amp_odds_rate").value == 0.05
    assert "thought it 1 in 1,000" in _odds_sentence(at)
    table = _odds_table(at)
    assert table["with ε_target: at most"].tolist() == [
        f"{in_100(risk.posterior_bound(e, 0.001))} in 100" for e in (0.1, 0.5, 1.0)
    ]
    assert table["ε_sample"].tolist() == [
        fmt(amp.eps_sample(e, 0.05), "guarantee") for e in (0.1, 0.5, 1)
    ]


def test_odds_snippet_prints_the_numbers_of_the_page():
    from core import risk
    from tests.pages.harness import run_snippet, snippet

    at = open_page(PAGE, {"amp_view": ODDS, "amp_prior": "0.05", "amp_odds_rate": "0.1"})
    printed = run_snippet(snippet(at, "risk.posterior_bound"))
    assert "rate, prior = 0.1, 0.05" in snippet(at, "risk.posterior_bound")
    assert f"at most {100 * risk.posterior_bound(1.0, 0.05):.6g} /" in printed


def test_delta_chart_names_the_vacuous_level_in_legend_and_hover():
    """Issue 27: the dotted line at δ_sample = 1 is a named trace, not an unnamed shape."""
    at = open_page(PAGE, {"amp_view": FORWARD})
    chart = next(c for c in charts(at) if c["layout"]["title"]["text"].startswith("δ you may"))
    level = next(t for t in chart["data"] if t["name"].startswith("δ_sample = 1"))
    assert "no constraint" in level["name"]
    assert np.all(array(level["y"]) == 1.0)
    assert array(level["x"]).size == array(chart["data"][0]["x"]).size  # hover at every rate
    assert "δ_sample = 1" in level["hovertemplate"]
    assert level.get("showlegend", True)
