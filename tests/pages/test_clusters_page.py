"""Streamlit AppTest for the Cluster sampling page (issue 4)."""

from __future__ import annotations

import numpy as np
import pytest

from core import clusters as cl
from core.populations import BUILTIN_POPULATIONS
from tests.pages.harness import array, charts, open_page, printed_numbers, trace_names
from ui.clusters import figures as figs
from ui.clusters import text

PAGE = "app_pages/clusters.py"
SIZE_TAB = "ε_target vs cluster size"
FRACTION_TAB = "ε_target vs fraction drawn"
POPULATION_TAB = "This population's clusters"
TWO_STAGE_TAB = "Two-stage"
OTHER_TAB = "PPS & systematic"
TEST_TAB = "Hypothesis-testing view"
TABS = (SIZE_TAB, FRACTION_TAB, POPULATION_TAB, TWO_STAGE_TAB, OTHER_TAB, TEST_TAB)


def _metric_number(metric) -> float:
    """The metric's number; a vacuous bound shows words and keeps its number in the help."""
    try:
        return float(metric.value)
    except ValueError:
        return float(metric.proto.help.split(";")[0])


def _metrics(at) -> dict[str, float]:
    return {m.label: _metric_number(m) for m in at.metric}


def _reading(at) -> str:
    return next(m.value for m in at.markdown if m.value.startswith("**Reading.**"))


def _trace(at, name: str, chart: int = 0) -> dict:
    return next(t for t in charts(at)[chart]["data"] if t.get("name") == name)


def test_default_page_draws_the_size_chart_with_all_reference_lines():
    at = open_page(PAGE)
    assert not at.error, [e.value for e in at.error]
    names = trace_names(at)
    assert {figs.LOWER, figs.UPPER, figs.SRS, figs.NONE} <= names
    metrics = _metrics(at)
    assert metrics["No sampling (ε_target = ε_sample)"] == pytest.approx(0.1)
    lower, upper = cl.cluster_eps_bounds(0.1, 1000, 100, 10, 10, 10)
    assert metrics["ε_target lower bound (Thm 5.1)"] == pytest.approx(lower, rel=5e-3)
    assert metrics["ε_target upper bound (Thm 5.2)"] == pytest.approx(upper, rel=5e-3)
    assert "the two bounds coincide" in _reading(at)


def test_chart_values_are_the_theorems():
    at = open_page(PAGE, {"cl_spread": "4", "cl_eps": "0.5", "cl_k": "50", "cl_l": "5"})
    lower, upper = _trace(at, figs.LOWER), _trace(at, figs.UPPER)
    x = array(lower["x"])
    n_min, n_max = figs.other_sizes(x, 4.0)
    want_lo, want_hi = cl.cluster_eps_bounds(0.5, 50, 5, x, n_min, n_max)
    np.testing.assert_allclose(array(lower["y"]), want_lo, rtol=1e-12)
    np.testing.assert_allclose(array(upper["y"]), want_hi, rtol=1e-12)
    assert np.any(array(upper["y"]) > array(lower["y"]))  # unequal sizes: a real band
    assert np.all(np.diff(array(lower["y"])) >= 0)  # grows with the cluster size
    assert array(lower["y"])[-1] == pytest.approx(0.5)  # … up to ε
    srs = array(_trace(at, figs.SRS)["y"])
    assert srs[0] == pytest.approx(cl.srs_eps(0.5, 50, 5))


@pytest.mark.parametrize("tab", TABS)
@pytest.mark.parametrize("population", ["Lognormal", "Establishments"])
def test_every_tab_runs(tab, population):
    at = open_page(PAGE, {"cl_view": tab, "population": population})
    assert not at.error, [e.value for e in at.error]
    if tab == POPULATION_TAB and population == "Lognormal":
        assert any("no cluster column" in i.value for i in at.info)
    else:
        assert charts(at), tab


def test_larger_clusters_erase_the_amplification():
    at = open_page(PAGE)
    before = _metrics(at)["ε_target lower bound (Thm 5.1)"]
    at.number_input(key="cl_size").set_value(1000).run()
    assert not at.exception
    after = _metrics(at)
    assert after["ε_target lower bound (Thm 5.1)"] > before
    assert after["ε_target lower bound (Thm 5.1)"] == pytest.approx(0.1, rel=1e-4)
    assert "in effect none" in _reading(at)
    marker = next(t for t in charts(at)[0]["data"] if t["name"].startswith("your clusters"))
    assert array(marker["x"])[0] == 1000


def test_size_slider_and_exact_box_stay_in_sync():
    at = open_page(PAGE)
    at.number_input(key="cl_size").set_value(42).run()
    assert at.select_slider(key="cl_size__slider").value == 42  # a mark of its own
    assert "of 42 records each" in _reading(at)
    at.select_slider(key="cl_size__slider").set_value(500).run()
    assert at.number_input(key="cl_size").value == 500
    assert "of 500 records each" in _reading(at)


def test_url_state_reproduces_singleton_clusters():
    at = open_page(PAGE, {"cl_size": "1", "cl_k": "10", "cl_l": "1", "cl_eps": "1"})
    assert at.number_input(key="cl_size").value == 1
    assert at.select_slider(key="cl_size__slider").value == 1
    metrics = _metrics(at)
    lower, _ = cl.cluster_eps_bounds(1.0, 10, 1, 1, 1, 1)
    assert metrics["ε_target lower bound (Thm 5.1)"] == pytest.approx(lower, rel=5e-3)
    assert metrics["Poisson sampling, same fraction (eq. 3)"] == pytest.approx(
        cl.srs_eps(1.0, 10, 1), rel=5e-3
    )


def test_more_clusters_drawn_than_exist_is_explained():
    at = open_page(PAGE, {"cl_k": "10", "cl_l": "5"})
    assert not at.warning
    at.number_input(key="cl_l").set_value(50).run()
    assert not at.exception
    assert any("cannot be drawn" in w.value for w in at.warning)
    assert _metrics(at)["ε_target lower bound (Thm 5.1)"] == pytest.approx(0.1)


def test_presets_set_the_paper_settings():
    at = open_page(PAGE)
    next(b for b in at.button if b.label == "Regions").click().run()
    assert at.number_input(key="cl_size").value == 1000
    assert at.number_input(key="cl_k").value == 100
    assert at.select_slider(key="cl_size__slider").value == 1000
    assert "in effect none" in _reading(at)
    next(b for b in at.button if b.label == "Singletons = SRS").click().run()
    assert at.number_input(key="cl_size").value == 1
    next(b for b in at.button if b.label == "Systematic sampling").click().run()
    assert not at.exception
    assert any(n.startswith("your interval: every 100th") for n in trace_names(at))


def test_fraction_tab_marks_the_design_and_contrasts_singletons():
    at = open_page(PAGE, {"cl_view": FRACTION_TAB})
    names = trace_names(at)
    assert "clusters of 1 record (SRS, deletion model)" in names
    assert "your design: 100 of 1,000" in names
    at.number_input(key="cl_l").set_value(10).run()
    assert "your design: 10 of 1,000" in trace_names(at)


def test_population_tab_offers_a_population_with_clusters():
    at = open_page(PAGE, {"cl_view": POPULATION_TAB})
    at.button(key="cl_use_establishments").click().run()
    assert not at.exception
    assert at.selectbox(key="population").value == "establishments"
    table = next(df.value for df in at.dataframe if "pps lower" in df.value.columns)
    assert np.all(table["lower"] <= table["upper"])
    assert table["size"].is_monotonic_decreasing
    assert "PPS cluster sampling: lower bound (§6.1–6.2)" in trace_names(at)


def test_two_stage_rate_moves_the_curve():
    at = open_page(PAGE, {"cl_view": TWO_STAGE_TAB})
    assert "two stage, r = 0.1: upper bound" in trace_names(at)
    at.number_input(key="cl_r").set_value(0.01).run()
    names = trace_names(at)
    assert "two stage, r = 0.01: upper bound" in names
    curve = array(_trace(at, "two stage, r = 0.01: upper bound")["y"])
    single = array(_trace(at, "single stage: upper bound (Thm 5.2)")["y"])
    assert np.all(curve <= single)


def test_systematic_interval_changes_the_design_table():
    at = open_page(PAGE, {"cl_view": OTHER_TAB, "population": "Establishments"})
    assert "PPS: lower bound max ln(1 + aᵢ(e^ε_sample − 1))" in trace_names(at)
    at.number_input(key="cl_sys_k").set_value(20000).run()
    table = next(df.value for df in at.dataframe if "design" in df.value.columns)
    known = table.set_index("design").loc["systematic, order known to the attacker"]
    lo, up = cl.systematic_eps_bounds(0.1, 100_000, 20000)
    assert known["ε_target lower bound"] == pytest.approx(lo)
    assert known["ε_target upper bound"] == pytest.approx(up)


def test_hypothesis_tab_shows_the_counting_test():
    at = open_page(PAGE, {"cl_view": TEST_TAB, "cl_size": "20"})
    table = next(df.value for df in at.dataframe if "cluster i" in df.value.columns)
    p = dict(zip(table["cluster i"], table["Pr(count + noise > M)"], strict=True))
    assert p["drawn"] == 0.5 and p["not drawn"] == pytest.approx(0.5 * np.exp(-2.0))
    assert any(n.startswith("counting test, cluster of 20") for n in trace_names(at))


def test_extreme_values_stay_finite():
    at = open_page(
        PAGE,
        {"cl_eps": "1000", "cl_size": "100000", "cl_k": "1000000", "cl_l": "1", "cl_spread": "100"},
    )
    assert not at.exception and not at.error
    for chart in charts(at):
        for trace in chart["data"]:
            assert np.all(np.isfinite(array(trace["y"])))
    at = open_page(PAGE, {"cl_eps": "0.001", "cl_size": "1", "cl_view": TEST_TAB})
    assert not at.exception


def test_python_snippet_runs_and_reproduces_the_numbers():
    at = open_page(PAGE, {"cl_size": "7", "cl_spread": "2"})
    code = at.get("code")[0].proto.code_text
    assert "eps_sample, k, ell = 0.1, 1000, 100" in code
    assert "M_i, M_min, M_max = 7, 4, 14" in code
    printed: list[tuple] = []
    exec(compile(code, "snippet", "exec"), {"print": lambda *a: printed.append(a)})
    values = {a[0]: a[1] for a in printed if len(a) == 2 and isinstance(a[0], str)}
    metrics = _metrics(at)
    assert values["poisson ="] == pytest.approx(
        metrics["Poisson sampling, same fraction (eq. 3)"], rel=5e-3
    )
    assert values["lower ="] == pytest.approx(metrics["ε_target lower bound (Thm 5.1)"], rel=5e-3)
    assert values["upper ="] == pytest.approx(metrics["ε_target upper bound (Thm 5.2)"], rel=5e-3)


# --- issue 10 (merged from test_clusters_issue10.py) --------------------------------------
# Computed fraction wording, the cluster/stratum note, vocabulary (M for cluster size,
# ε_sample / ε_target by name), the ε_target → ε_sample direction, vacuous bounds in words, and
# snippets that rebuild the active population.


def _metric(at, label: str):
    return next(m for m in at.metric if m.label == label)


def _all_text(at) -> str:
    parts = [m.value for m in at.markdown] + [c.value for c in at.caption]
    parts += [w.value for w in at.warning] + [i.value for i in at.info]
    return "\n".join(parts)


# --- item 3: "the same fraction" is computed ---------------------------------------------


def test_fraction_sentence_says_same_only_when_it_is():
    assert "the same fraction" in text.fraction_sentence(1000, 100, 100, 10)
    two = text.fraction_sentence(1000, 100, 2, 1)  # the user's NHANES-style file: 2 "clusters"
    assert "the same fraction" not in two
    assert "ℓ = 1 of 2" in two and "50 %" in two and "10 %" in two


def test_population_tab_shows_the_cluster_stratum_note_and_computed_wording():
    at = open_page(PAGE, {"cl_view": POPULATION_TAB, "population": "Establishments"})
    assert not at.exception
    assert any("occur in more than one stratum" in w.value for w in at.warning)
    # 100 of 1,000 clusters drawn above, 10 of 100 regions here: genuinely the same fraction
    assert "the same fraction ℓ/k = 10 % as above" in _all_text(at)
    at.number_input(key="cl_l").set_value(3).run()  # 3/1000 of 100 regions → 1 region, 0.01
    body = _all_text(at)
    assert "the same fraction" not in body
    assert "ℓ = 1 of 100" in body


# --- item 7: vocabulary ------------------------------------------------------------------


@pytest.mark.parametrize(
    "tab",
    [
        "ε_target vs cluster size",
        "ε_target vs fraction drawn",
        POPULATION_TAB,
        "Two-stage",
        "PPS & systematic",
        "Hypothesis-testing view",
    ],
)
def test_no_bare_eps_prime_and_cluster_size_is_M(tab):
    at = open_page(PAGE, {"cl_view": tab, "population": "Establishments"})
    body = _all_text(at) + "\n".join(m.label for m in at.metric)
    body += "\n".join(
        str(c["layout"]) + str([t.get("name") for t in c["data"]]) for c in charts(at)
    )
    body += "\n".join(x.value for x in at.get("latex"))
    assert "ε′" not in body and "varepsilon'" not in body
    assert "cluster size n " not in body
    assert "M a cluster's size" in "\n".join(c.value for c in at.caption).replace("**", "")


def test_legend_and_explanation_say_poisson_sampling():
    at = open_page(PAGE)
    names = {t.get("name") for c in charts(at) for t in c["data"]}
    assert "Poisson sampling, same fraction (eq. 3)" in names
    assert "simple random sampling, same fraction (eq. 3)" not in names


# --- item 7: ε_target in → ε_sample out ----------------------------------------------------


def test_target_direction_inverts_theorem_5_2():
    at = open_page(
        PAGE,
        {"cl_dir": text.FROM_TARGET, "cl_eps_target": "0.2", "cl_size": "5", "cl_spread": "2"},
    )
    assert not at.exception and not at.error
    shown = float(_metric(at, "ε_sample allowed, guaranteed (Thm 5.2)").value)
    safe, unsafe = cl.eps_sample_bounds_for_target(0.2, 1000, 100, 5, 2, 10)
    assert shown == pytest.approx(safe, rel=5e-3)
    assert float(_metric(at, "ε_sample above which Thm 5.1 breaks it").value) == pytest.approx(
        unsafe, rel=5e-3
    )
    _, upper = cl.cluster_eps_bounds(safe, 1000, 100, 5, 2, 10)
    assert upper == pytest.approx(0.2, rel=1e-9)
    # switching the direction back brings the ε_sample metrics back
    at.radio(key="cl_dir").set_value(text.FROM_SAMPLE).run()
    assert any(m.label == "ε_target upper bound (Thm 5.2)" for m in at.metric)


def test_a_bound_that_does_not_amplify_is_said_in_words():
    at = open_page(PAGE, {"cl_size": "1000"})
    metric = _metric(at, "ε_target upper bound (Thm 5.2)")
    assert metric.value == "no amplification"
    assert text.NO_AMPLIFICATION in metric.proto.help


# --- item 6: the snippet rebuilds the active population ----------------------------------


@pytest.mark.parametrize("key", list(BUILTIN_POPULATIONS))
def test_snippet_rebuilds_each_builtin_and_prints_the_page_numbers(key):
    at = open_page(PAGE, {"cl_size": "7", "cl_spread": "2", "cl_eps": "0.3"})
    at.selectbox(key="population").set_value(key).run()
    code = at.get("code")[0].proto.code_text
    assert f"make_builtin({key!r}, seed=" in code
    printed = printed_numbers(code)
    upper = _metric(at, "ε_target upper bound (Thm 5.2)")
    assert printed["upper"] == pytest.approx(float(upper.value), rel=5e-3)


def test_snippet_in_the_target_direction_prints_the_allowed_eps_sample():
    at = open_page(PAGE, {"cl_dir": text.FROM_TARGET, "cl_eps_target": "0.05"})
    printed = printed_numbers(at.get("code")[0].proto.code_text)
    shown = float(_metric(at, "ε_sample allowed, guaranteed (Thm 5.2)").value)
    assert printed["eps_sample allowed"] == pytest.approx(shown, rel=5e-3)


#: The page-level log controls whose exact-value boxes sit behind the "Type exact values" toggle.
BOX_KEYS = ("cl_size", "cl_spread", "cl_eps", "cl_k", "cl_l")


def _box_holders(at) -> dict[str, str]:
    """The id of the block that directly holds each page-level exact-value box."""
    holders: dict[str, str] = {}

    def walk(node) -> None:
        for child in getattr(node, "children", {}).values():
            if getattr(child, "key", None) in BOX_KEYS and child.type == "number_input":
                holders[child.key] = str(getattr(node.proto, "id", "") or "")
            walk(child)

    walk(at.main)
    return holders


def test_exact_boxes_are_hidden_by_default_and_the_url_still_sets_them():
    """Issue 27: on a phone five slider-and-box pairs filled two screens before a result.

    By default each box is drawn inside a container the app's CSS hides (so a link's exact,
    off-grid value still holds); the URL-bound toggle shows them beside their sliders.
    """
    at = open_page(PAGE, {"cl_size": "37", "cl_k": "1234"})
    assert at.toggle(key="cl_exact").value is False
    holders = _box_holders(at)
    assert set(holders) == set(BOX_KEYS)
    assert all(holders[k].endswith(f"hidden_box_{k}") for k in BOX_KEYS), holders
    assert at.number_input(key="cl_size").value == 37
    assert at.number_input(key="cl_k").value == 1234
    assert _metrics(at)  # the result is computed from the exact values
    at = open_page(PAGE, {"cl_size": "37", "cl_exact": "true"})
    assert at.toggle(key="cl_exact").value is True
    assert not any("hidden_box_" in h for h in _box_holders(at).values())
    at.toggle(key="cl_exact").set_value(False).run()
    assert at.number_input(key="cl_size").value == 37  # hiding the box keeps its value


def test_app_css_hides_the_exact_boxes_kept_behind_the_toggle():
    from ui.theme import APP_CSS
    from ui.widgets import HIDDEN_BOX_PREFIX

    assert f'[class*="st-key-{HIDDEN_BOX_PREFIX}"] {{ display: none' in APP_CSS
