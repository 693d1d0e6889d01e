"""AppTest for the Amplification page: presets open their tab, defaults fit the population."""

from __future__ import annotations

import pytest

from tests.pages.harness import open_page

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
