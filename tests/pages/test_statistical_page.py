"""AppTest for the Statistical privacy page: tabs, controls, presets, bad input."""

from __future__ import annotations

import numpy as np
import pytest

from tests.pages.harness import array, charts, open_page, trace_names

PAGE = "app_pages/statistical.py"
CURVE_TAB = "Privacy curve δ(ε)"
PI_TAB = "δ against π (Figures 1–4, 6)"
EU_TAB = "Equal utility (Figures 5, 7, 8)"


def _trace(at, name: str) -> dict:
    return next(t for c in charts(at) for t in c["data"] if t.get("name") == name)


@pytest.mark.parametrize("tab", [CURVE_TAB, PI_TAB, EU_TAB])
def test_every_tab_runs(tab):
    at = open_page(PAGE, {"sp_view": tab})
    assert charts(at), tab
    assert not at.error, [e.value for e in at.error]
    assert not at.warning, [w.value for w in at.warning]
    assert any("does not use the population" in c.value for c in at.caption)


def test_tabs_are_lazy():
    at = open_page(PAGE)
    names = trace_names(at)
    assert "no mechanism" in names and not any(n.startswith("ν = ") for n in names)


def test_curve_reacts_to_n_and_nu():
    at = open_page(PAGE)
    before = array(_trace(at, "Gaussian noise, ν = 1")["y"])
    assert "subsampling, n = 100 of N = 1,000" in trace_names(at)
    at.number_input(key="sp_n").set_value(200).run()
    assert not at.exception
    names = trace_names(at)
    assert "subsampling, n = 20 of N = 200" in names
    after = array(_trace(at, "Gaussian noise, ν = 1")["y"])
    assert not np.allclose(before, after)
    at.number_input(key="sp_nu").set_value(3.0).run()
    assert "Gaussian noise, ν = 3" in trace_names(at)
    reading = next(m.value for m in at.markdown if "an adversary who knows only" in m.value)
    assert "N = 200" in reading and "ν = 3" in reading


def test_curve_reading_and_table_show_the_worst_case():
    at = open_page(PAGE)
    rows = next(t.value for t in at.table if "δ = max" in t.value.columns).astype(float)
    # the table writes δ to three significant digits (ui.format.fmt)
    assert rows.loc["Gaussian noise", "worst-case δ (DP)"] == pytest.approx(0.3798, rel=5e-3)
    assert rows.loc["no mechanism", "worst-case δ (DP)"] == 1.0
    assert rows.loc["subsampling", "worst-case δ (DP)"] == pytest.approx(0.1)
    assert rows.loc["Gaussian noise", "δ = max"] < 0.1 * 0.3798  # π = 1/2: far below


def test_pi_tab_reproduces_section5_numbers():
    at = open_page(PAGE, {"sp_view": PI_TAB})
    names = trace_names(at)
    assert {"ν = 1, worst case (DP) δ = 0.38", "ν = 3, worst case (DP) δ = 0.128"} <= names
    curve = array(_trace(at, "ν = 1, statistical")["y"])
    assert curve[0] == pytest.approx(0.3798, abs=1e-4)  # π = 0: the worst case
    assert curve[-1] < 0.03  # π = 1/2
    at.selectbox(key="sp_noise").set_value("laplace").run()
    assert not at.exception
    assert "ν = 1, worst case (DP) δ = 0.39" in trace_names(at)
    at.toggle(key="sp_pi_log").set_value(True).run()
    assert not at.exception and charts(at)[0]["layout"]["xaxis"]["type"] == "log"


def test_pi_tab_ratio_curves_follow_the_list():
    at = open_page(PAGE, {"sp_view": PI_TAB})
    assert {"π = 0.5", "π = 0.1", "π = 0.01"} <= trace_names(at)
    at.text_input(key="sp_ratio_pis").set_value("0.3").run()
    names = trace_names(at)
    assert "π = 0.3" in names and "π = 0.01" not in names
    ratio = array(_trace(at, "π = 0.3")["y"])
    assert np.all(ratio > 1)


def test_equal_utility_tab_reading_and_lambda():
    at = open_page(PAGE, {"sp_view": EU_TAB})
    reading = next(m.value for m in at.markdown if m.value.startswith("**Reading (π"))
    assert "ν = 47.4 (Gaussian)" in reading and "ν = 33.5 (Laplace)" in reading
    before = array(_trace(at, "Laplace noise")["y"])
    at.number_input(key="sp_lambda").set_value(0.3).run()
    assert not at.exception
    after = array(_trace(at, "Laplace noise")["y"])
    assert not np.allclose(before, after)
    at.number_input(key="sp_lambda").set_value(1.0).run()
    assert not at.exception
    assert any("no noise level to match" in i.value for i in at.info)
    assert charts(at)  # the λ sweep and the conjecture still draw


def test_presets_set_the_paper_settings():
    at = open_page(PAGE, {"sp_n": "300", "sp_eps": "0.5"})
    next(b for b in at.button if b.label == "Figs 3–4: Laplace").click().run()
    assert not at.exception
    assert at.number_input(key="sp_n").value == 1000
    assert at.number_input(key="sp_eps").value == pytest.approx(0.01)
    assert at.selectbox(key="sp_noise").value == "laplace"
    assert "ν = 3, statistical" in trace_names(at)
    next(b for b in at.button if b.label == "Fig 7: conjecture").click().run()
    assert not at.exception
    assert at.number_input(key="sp_eps").value == pytest.approx(0.1)


def test_bad_input_is_explained_not_raised():
    at = open_page(
        PAGE, {"sp_view": PI_TAB, "sp_nus": "abc, -1, 3", "sp_n": "5", "sp_lambda": "0.01"}
    )
    assert not at.exception
    warnings = [w.value for w in at.warning]
    assert any("not a number" in w for w in warnings)
    assert any("empty sample" in w for w in warnings)
    names = trace_names(at)
    assert "ν = 3, statistical" in names and "ν = 1, statistical" not in names


def test_tiny_and_extreme_settings_do_not_break():
    for query in (
        {"sp_n": "1", "sp_pi": "0.0001", "sp_eps": "10"},
        {"sp_n": "100000", "sp_pi": "0.99", "sp_nu": "0.01", "sp_eps_max": "50"},
        {"sp_view": EU_TAB, "sp_n": "2", "sp_lambda": "0.5", "sp_pi": "0.0001"},
    ):
        at = open_page(PAGE, query)
        assert not at.exception and not at.error, query
        for chart in charts(at):
            for trace in chart["data"]:
                y = trace.get("y")
                if y is None:
                    continue
                if isinstance(y, dict):
                    vals = array(y)
                else:
                    vals = np.array([np.nan if v is None else v for v in y], dtype=float)
                assert not np.any(np.isinf(vals)), (query, trace.get("name"))


def test_reproduce_code_uses_current_parameters():
    at = open_page(PAGE, {"sp_n": "250", "sp_pi": "0.2"})
    code = next(c.value for c in at.get("code") if "core import statistical" in c.value)
    assert "N, pi, eps = 250, 0.2, 0.01" in code and "nu = 1.0" in code
    namespace: dict = {}
    exec(code, namespace)  # the snippet runs as shown


#: Every preset of the page and the tab that holds the controls it sets.
PRESET_TABS = {
    "Figs 1–2: Gaussian": PI_TAB,
    "Figs 3–4: Laplace": PI_TAB,
    "Fig 6: N = 100": PI_TAB,
    "Figs 5, 8: utility": EU_TAB,
    "Fig 7: conjecture": EU_TAB,
}


@pytest.mark.parametrize(("label", "tab"), list(PRESET_TABS.items()))
def test_every_preset_opens_the_tab_of_its_controls(label, tab):
    """Item 2: a preset opens the tab whose controls it sets."""
    at = open_page(PAGE, {"sp_view": CURVE_TAB})
    next(b for b in at.button if b.label == label).click().run()
    assert not at.exception
    assert at.session_state["sp_view"] == tab
    assert len([b for b in at.button if (b.key or "").startswith("sp_preset_")]) == len(PRESET_TABS)


def _all_text(at) -> str:
    parts = [m.value for m in at.markdown] + [c.value for c in at.caption]
    parts += [str(x.value) for x in at.get("code")]
    for chart in charts(at):
        parts.append(str(chart["layout"].get("title", {}).get("text", "")))
        parts += [str(t.get("name", "")) for t in chart["data"]]
    return "\n".join(parts)


@pytest.mark.parametrize("tab", [CURVE_TAB, PI_TAB, EU_TAB])
def test_one_vocabulary_no_bare_eps_prime(tab):
    """Item 7: N records, n sampled; ε_target and ε_sample by name, never a bare ε′."""
    at = open_page(PAGE, {"sp_view": tab})
    text = _all_text(at)
    assert "ε'" not in text and "ε′" not in text
    assert "m = " not in text  # the sample size is n, the records N
    assert "N = 1,000" in text or "N records" in text
    if tab == EU_TAB:
        names = trace_names(at)
        assert any("ε_target" in n for n in names) and any("ε_sample" in n for n in names)


def test_privacy_curve_legend_has_one_entry_per_mechanism_and_one_for_the_worst_cases():
    """Issue 27: not eight entries: the four dotted worst-case lines share one legend group."""
    at = open_page(PAGE, {"sp_view": CURVE_TAB})
    chart = next(c for c in charts(at) if c["layout"]["title"]["text"].startswith("Privacy curve"))
    legend = [t["name"] for t in chart["data"] if t.get("showlegend", True)]
    assert len(legend) == 5 and sum("worst case" in n for n in legend) == 1
    dotted = [t for t in chart["data"] if t["name"].endswith("worst case (DP)")]
    assert len(dotted) == 4
    assert all(t["legendgroup"] == "worst case" and t["showlegend"] is False for t in dotted)
    entry = next(t for t in chart["data"] if "worst case" in t["name"] and t.get("showlegend", 1))
    assert entry["legendgroup"] == "worst case"
    # hovering a dotted line still names its mechanism
    assert all(t["name"] in t["hovertemplate"] for t in dotted)
