"""Streamlit AppTest for every page: no exception, and moving a control changes the output."""

from __future__ import annotations

import numpy as np
import pytest

from tests.pages.harness import array, charts, open_page, trace_names

REVERSE = "Reverse view and calculator"
STEINKE = "Steinke: limits of amplification"


_open = open_page
_charts = charts
_array = array
_names = trace_names


@pytest.mark.parametrize("page", ["app_pages/overview.py", "app_pages/amplification.py"])
def test_every_page_runs_without_exception(page):
    at = _open(page)
    assert _charts(at), f"{page} drew no chart"
    assert not at.error, [e.value for e in at.error]


# The Population page's own tests are in test_overview_page.py.


def test_amplification_eps_list_changes_curves():
    at = _open("app_pages/amplification.py")
    assert {"ε_target = 0.1", "ε_target = 0.5", "ε_target = 1"} <= _names(at)
    at.text_input(key="amp_eps_targets").set_value("0.2, 3").run()
    names = _names(at)
    assert {"ε_target = 0.2", "ε_target = 3"} <= names
    assert "ε_target = 0.5" not in names


def test_amplification_invalid_entries_are_explained_not_raised():
    at = _open("app_pages/amplification.py")
    at.text_input(key="amp_eps_targets").set_value("abc, -3, 1e9").run()
    assert not at.exception
    assert any("not a number" in w.value for w in at.warning)
    assert {"ε_target = 0.1", "ε_target = 0.5"} <= _names(at)  # falls back to the defaults


def test_amplification_calculator_reproduces_paper_numbers():
    at = _open("app_pages/amplification.py", {"amp_eps_targets": "0.1, 1", "amp_view": REVERSE})
    table = next(df.value for df in at.dataframe if "ε_sample" in df.value.columns)
    eps = dict(zip(table["ε_target"], table["ε_sample"], strict=True))
    assert eps[0.1] == pytest.approx(2.43, abs=0.005)
    assert eps[1.0] == pytest.approx(5.14, abs=0.005)


def test_amplification_n_larger_than_N_is_explained():
    at = _open("app_pages/amplification.py", {"amp_view": REVERSE})
    at.number_input(key="amp_n").set_value(20000).run()
    assert not at.exception
    assert any("exceeds the population size" in e.value for e in at.error)


def test_amplification_log_slider_and_exact_box_stay_in_sync():
    at = _open("app_pages/amplification.py")
    at.number_input(key="amp_rate_min").set_value(0.0042).run()
    assert at.select_slider(key="amp_rate_min__slider").value == pytest.approx(0.005)
    charts = _charts(at)
    assert _array(charts[0]["data"][0]["x"]).min() == pytest.approx(0.0042)
    at.select_slider(key="amp_rate_min__slider").set_value(0.02).run()
    assert at.number_input(key="amp_rate_min").value == pytest.approx(0.02)


def test_amplification_preset_sets_paper_values():
    at = _open("app_pages/amplification.py", {"amp_eps_targets": "2"})
    preset = next(b for b in at.button if b.label == "Hu et al. Figure 3")
    preset.click().run()
    assert at.text_input(key="amp_eps_targets").value == "0.1, 0.5, 1"
    assert {"ε_target = 0.1", "ε_target = 0.5", "ε_target = 1"} <= _names(at)


def test_amplification_extreme_values_do_not_break():
    at = _open(
        "app_pages/amplification.py",
        {"amp_eps_targets": "0.000001, 50", "amp_rate_min": "0.000001", "amp_log_y": "true"},
    )
    assert not at.exception
    for chart in _charts(at):
        for trace in chart["data"]:
            if "y" in trace:
                assert np.all(np.isfinite(_array(trace["y"])))


@pytest.mark.parametrize("tab", [REVERSE, STEINKE])
def test_amplification_tabs_compute_only_when_open(tab):
    at = _open("app_pages/amplification.py", {"amp_view": tab})
    names = _names(at)
    if tab == STEINKE:
        assert "c = 2" in names and "ε_target = 0.5" not in names
        at.text_input(key="amp_st_c").set_value("1, 10").run()
        assert {"c = 1", "c = 10"} <= _names(at)
    else:
        assert "ε_sample = 5" in names and "ε_target = 0.5" not in names
        at.text_input(key="amp_eps_samples").set_value("3").run()
        assert "ε_sample = 3" in _names(at)


GAINS = "app_pages/gains.py"
MEAN_TAB = "Mean: noise ratio r and bound q"
MEAN_POP_TAB = "Mean on this population"
SENS_TAB = "Median: smooth sensitivity"
EXP_TAB = "Median: sample or population?"


@pytest.mark.parametrize("tab", [MEAN_TAB, MEAN_POP_TAB, SENS_TAB, EXP_TAB])
def test_gains_every_tab_runs(tab):
    at = _open(GAINS, {"gain_view": tab, "gain_reps": "50", "gain_ill_reps": "100"})
    assert _charts(at), tab
    assert not at.error, [e.value for e in at.error]


def test_gains_q_table_reproduces_worked_examples():
    at = _open(GAINS, {"gain_view": MEAN_TAB})
    table = next(df.value for df in at.dataframe if "largest rate n/N" in df.value.columns)
    rates = dict(zip(table["ε_target"], table["largest rate n/N"], strict=True))
    assert rates[3.0] == pytest.approx(0.1677, abs=5e-5)
    assert rates[0.1] == pytest.approx(0.614, abs=5e-4)


def test_gains_tau_moves_the_frontier():
    at = _open(GAINS, {"gain_view": MEAN_TAB})
    before = _array(_charts(at)[1]["data"][1]["y"])
    at.number_input(key="gain_tau").set_value(1e-2).run()
    after = _array(_charts(at)[1]["data"][1]["y"])
    assert np.all(after > before)


def test_gains_mean_population_never_gains():
    at = _open(GAINS, {"gain_view": MEAN_POP_TAB})
    chart = _charts(at)[0]
    solid = [t for t in chart["data"] if t["name"].startswith("V_n")]
    dotted = [t for t in chart["data"] if t["name"].startswith("V_N")]
    for vn, vN in zip(solid, dotted, strict=True):
        assert np.all(_array(vn["y"])[:-1] > _array(vN["y"])[0])


def test_gains_experiment_controls_change_verdict_and_chart():
    at = _open(GAINS, {"gain_view": EXP_TAB, "gain_reps": "50"})
    assert any("At ε_target = 0.5" in m.value for m in at.markdown)
    at.text_input(key="gain_exp_eps").set_value("0.05, 2").run()
    assert not at.exception
    names = _names(at)
    assert {"ε_target = 0.05", "ε_target = 2"} <= names and "ε_target = 0.5" not in names
    assert any("At ε_target = 2" in m.value for m in at.markdown)
    at.radio(key="gain_estimator").set_value("drawn_noise").run()
    assert not at.exception


def test_gains_bimodal_preset_finds_a_gain_at_eps_3():
    at = _open(
        GAINS,
        {
            "gain_view": EXP_TAB,
            "population": "Bimodal",
            "gain_exp_eps": "3, 5",
            "gain_exp_rates": "0.1, 0.3, 0.5",
            "gain_reps": "200",
        },
    )
    table = next(df.value for df in at.dataframe if "sample wins" in df.value.columns)
    wins = dict(zip(table["ε_target"], table["sample wins"], strict=True))
    assert wins[3.0] and not wins[5.0]


def test_gains_bad_rates_are_explained():
    at = _open(GAINS, {"gain_view": EXP_TAB, "gain_exp_rates": "0, 1.5, x", "gain_reps": "50"})
    assert any("outside" in w.value or "not a number" in w.value for w in at.warning)
    assert _charts(at)
