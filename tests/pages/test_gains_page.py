"""AppTest for the Mean and median gains page: URL-bound controls, presets, defaults, charts."""

from __future__ import annotations

import pytest

from tests.pages.harness import array, charts, open_page

PAGE = "app_pages/gains.py"
MEAN_TAB = "Mean: noise ratio r and bound q"
MEAN_POP_TAB = "Mean on this population"
SENS_TAB = "Median: smooth sensitivity"
EXP_TAB = "Median: sample or population?"

#: Every preset of the page and the tab that holds the controls it sets.
PRESET_TABS = {
    "Figure 4–5 (r and q)": MEAN_TAB,
    "Figures 6–7 (lognormal)": EXP_TAB,
    "Figure 8 (lognormal)": EXP_TAB,
    "Figure 13 (bimodal)": EXP_TAB,
}


def test_simulation_check_controls_live_in_the_url():
    """Item 1: the controls inside "Check eq. (7) by simulation" are read from a link.

    (AppTest does not run the browser code that writes bound widgets into the URL, so the
    test checks the other direction: a link carrying the values sets the controls.)
    """
    query = {
        "gain_view": MEAN_POP_TAB,
        "gain_mean_eps": "0.1, 1, 3",
        "gain_check_eps": "3.0",
        "gain_check_reps": "500",
    }
    at = open_page(PAGE, query)
    assert at.selectbox(key="gain_check_eps").value == 3.0
    assert at.select_slider(key="gain_check_reps").value == 500


@pytest.mark.parametrize(("label", "tab"), list(PRESET_TABS.items()))
def test_every_preset_opens_the_tab_of_its_controls(label, tab):
    """Item 2: a preset opens the tab whose controls it sets, and the URL says so."""
    at = open_page(PAGE, {"gain_view": MEAN_POP_TAB})
    next(b for b in at.button if b.label == label).click().run()
    assert not at.exception
    assert at.session_state["gain_view"] == tab
    assert len([b for b in at.button if b.key and b.key.startswith("gain_preset_")]) == len(
        PRESET_TABS
    )


@pytest.mark.parametrize(("population", "size"), [("Beta", 10_001), ("Establishments", 100_000)])
def test_delta_target_defaults_to_half_over_active_population_size(population, size):
    """Item 4: δ_target defaults to 1/(2N) of the active population, and the help says so."""
    at = open_page(
        PAGE,
        {"gain_view": EXP_TAB, "population": population, "gain_reps": "50",
         "gain_exp_eps": "1", "gain_exp_rates": "0.1"},
    )  # fmt: skip
    box = at.number_input(key="gain_delta")
    assert box.value == pytest.approx(1 / (2 * size), rel=1e-5)
    assert "1/(2N)" in box.help or "1/(2N)" in at.select_slider(key="gain_delta__slider").help


def test_delta_target_follows_a_population_change_unless_typed():
    at = open_page(
        PAGE,
        {"gain_view": EXP_TAB, "gain_reps": "50", "gain_exp_eps": "1", "gain_exp_rates": "0.1"},
    )
    at.selectbox(key="population").set_value("establishments").run()
    assert at.number_input(key="gain_delta").value == pytest.approx(5e-6)
    at.number_input(key="gain_delta").set_value(1e-3).run()
    at.selectbox(key="population").set_value("beta").run()
    assert at.number_input(key="gain_delta").value == pytest.approx(1e-3)


def _experiment(at):
    return next(
        c for c in charts(at) if "Error of the private median" in c["layout"]["title"]["text"]
    )


def test_every_rate_that_beats_the_population_is_ringed():
    """Item 7: rings mark every beating rate, not only the best one."""
    at = open_page(
        PAGE,
        {
            "gain_view": EXP_TAB,
            "population": "Bimodal (paper's draw)",
            "gain_exp_eps": "3",
            "gain_exp_rates": "0.1, 0.3, 0.5",
            "gain_reps": "200",
        },
    )
    chart = _experiment(at)
    line = next(t for t in chart["data"] if t.get("name") == "ε_target = 3")
    pop = next(t for t in chart["data"] if t.get("name") == "population, ε_target = 3")
    pop_value = float(array(pop["y"])[0])
    beating = {
        round(float(x), 6)
        for x, y in zip(array(line["x"]), array(line["y"]), strict=True)
        if y < pop_value
    }
    assert len(beating) >= 2, "this setting should have several rates below the population"
    ringed = {
        round(float(x), 6)
        for t in chart["data"]
        if t.get("marker", {}).get("symbol") == "circle-open"
        for x in array(t["x"])
    }
    assert ringed == beating
    explanation = " ".join(m.value for m in at.markdown) + " ".join(c.value for c in at.caption)
    assert "every" in explanation and "best" in explanation


def test_noise_violins_population_last_and_distinct_colour():
    """Item 7: the text says where the population is; its colour is not a sample's colour."""
    rates = "0.01, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9"
    at = open_page(
        PAGE,
        {"gain_view": EXP_TAB, "gain_exp_eps": "1", "gain_exp_rates": rates, "gain_reps": "50"},
    )
    chart = next(c for c in charts(at) if c["layout"]["title"]["text"].startswith("Laplace noise"))
    violins = chart["data"]
    assert violins[-1]["name"].startswith("population")
    colours = [v["line"]["color"] for v in violins]
    assert len(set(colours[:-1])) == len(colours) - 1  # ten distinct sample colours
    assert colours[-1] not in colours[:-1]
    texts = " ".join(m.value for m in at.markdown) + " ".join(c.value for c in at.caption)
    assert "population first" not in texts
    assert "population (rate 1) last" in texts


def test_vacuous_delta_sample_is_said_so():
    """Item 4: a δ_sample = δ_target/rate of 1 or more is shown as vacuous."""
    query = {"gain_view": EXP_TAB, "gain_exp_eps": "1", "gain_exp_rates": "0.01, 0.5"}
    at = open_page(PAGE, {**query, "gain_reps": "50", "gain_delta": "0.05"})
    assert any("vacuous" in w.value and "0.01" in w.value for w in at.warning)
    assert not any("0.5" in w.value for w in at.warning if "vacuous" in w.value)
    at = open_page(PAGE, {**query, "gain_reps": "50"})
    assert not any("vacuous" in w.value for w in at.warning)
