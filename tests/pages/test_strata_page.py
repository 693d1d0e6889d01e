"""AppTest for the Stratified sampling page: every tab runs, controls move the charts, bad
input is explained on the page, and a population without strata gets plain words."""

from __future__ import annotations

import numpy as np
import pytest

from core import strata
from core.populations import BUILTIN_POPULATIONS
from tests.pages.harness import array, charts, open_page, printed_numbers, snippet, trace_names
from ui.strata import text as views

PAGE = "app_pages/strata.py"
EST = {"population": "Establishments"}
TABS = (
    "Allocations and accuracy",
    "Privacy",
    "Simulation check",
    "Random sample size (Theorem 3.1)",
)


def _open(query: dict[str, str] | None = None):
    return open_page(PAGE, {**EST, **(query or {})})


def _chart(at, title_part: str) -> dict:
    for chart in charts(at):
        if title_part in chart["layout"]["title"]["text"]:
            return chart
    raise AssertionError(f"no chart titled like {title_part!r}")


def _bars(chart: dict, name: str) -> np.ndarray:
    trace = next(t for t in chart["data"] if t.get("name") == name)
    return array(trace["y"])


@pytest.mark.parametrize("tab", TABS)
def test_every_tab_runs_on_the_establishments(tab):
    at = _open({"strat_view": tab})
    assert charts(at), f"{tab} drew no chart"
    assert not at.error, [e.value for e in at.error]


def test_allocation_chart_shows_the_three_designs_on_twelve_strata():
    at = _open()
    chart = _chart(at, "Records drawn per stratum")
    assert chart["layout"]["xaxis"]["type"] == "category"
    neyman = _bars(chart, "Neyman")
    assert neyman.size == 12 and neyman.sum() == 10_000
    rounded = _bars(chart, "Proportional, rounded")
    assert rounded.sum() == pytest.approx(10_000, abs=6)
    assert {"Neyman", "Proportional, rounded", "Proportional, randomised rounding"} <= trace_names(
        at
    )
    verdict = next(s.value for s in at.success)
    assert "Accuracy" in verdict and "Privacy" in verdict


def test_moving_the_sample_size_changes_the_allocation():
    at = _open()
    before = _bars(_chart(at, "Records drawn per stratum"), "Neyman")
    at.number_input(key="strat_m").set_value(2000).run()
    assert not at.exception
    after = _bars(_chart(at, "Records drawn per stratum"), "Neyman")
    assert after.sum() == 2000 and not np.array_equal(before, after)


def test_rates_toggle_switches_the_chart():
    at = _open()
    at.toggle(key="strat_show_rates").set_value(True).run()
    chart = _chart(at, "Sampling rate n_i / N_i")
    assert np.all(_bars(chart, "Neyman") <= 1.0)


def test_sample_size_above_population_is_explained_not_raised():
    at = _open({"strat_m": "500000"})
    assert not at.exception
    assert any("exceeds the population size" in w.value for w in at.warning)
    assert _bars(_chart(at, "Records drawn per stratum"), "Neyman").sum() == 100_000


def test_population_without_strata_gets_plain_words_and_a_way_out():
    at = open_page(PAGE)  # default: the lognormal population, no strata
    assert not at.exception and not at.error
    assert any("has no strata" in i.value for i in at.info)
    button = next(b for b in at.button if b.label == "Use the establishments population")
    button.click().run()
    assert at.selectbox(key="population").value == "establishments"
    assert _bars(_chart(at, "Records drawn per stratum"), "Neyman").size == 12


def test_population_without_strata_shows_the_paper_example_at_once():
    """Issue 27: not only a message and a button: the establishments example, said to be one."""
    at = open_page(PAGE)  # the lognormal population has no strata
    notice = next(i.value for i in at.info if "has no strata" in i.value)
    assert "not the active population" in notice and "n = 10,000" in notice
    assert _bars(_chart(at, "Records drawn per stratum"), "Neyman").size == 12
    assert at.selectbox(key="population").value != "establishments"
    assert any(b.label == "Use the establishments population" for b in at.button)
    # the wide per-stratum table waits for a population with strata (a phone could not show it)
    assert not any("Neyman n_i" in df.value.columns for df in at.dataframe)
    assert any("allocation table" in c.value for c in at.caption)
    at = open_page(PAGE, {"strat_view": "Simulation check"})
    assert any("not the active population" in i.value for i in at.info)
    assert charts(at), "the simulation tab shows the example's chart"


def test_privacy_tab_without_strata_still_shows_the_theory():
    at = open_page(PAGE, {"strat_view": "Privacy"})
    assert not at.exception
    assert any("has no strata" in i.value for i in at.info)
    assert _chart(at, "Population guarantee against the rate")
    assert _chart(at, "Released noisy count")


def test_privacy_tab_shows_neyman_degradation_and_paper_example():
    at = _open({"strat_view": "Privacy"})
    assert any("Privacy degradation" in w.value for w in at.warning)
    shift_chart = _chart(at, "Sampled records that move")
    shifts = _bars(shift_chart, "Neyman")
    assert shifts.sum() == 0 and np.abs(shifts).sum() >= 2
    # The most moved stratum (the top class) is outlined.
    neyman = next(t for t in shift_chart["data"] if t["name"] == "Neyman")
    assert max(neyman["marker"]["line"]["width"]) == 4
    assert neyman["marker"]["line"]["width"][11] == 4
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Rounded: records drawn from P / P′"] == "1 / 2"
    names = trace_names(at)
    assert "Neyman: loss of noisy stratum sizes (lower bound)" in names


def test_privacy_eps_changes_the_bound_curve():
    at = _open({"strat_view": "Privacy"})
    before = array(_chart(at, "Population guarantee against the rate")["data"][0]["y"])
    at.number_input(key="strat_eps").set_value(0.05).run()
    assert not at.exception
    after = array(_chart(at, "Population guarantee against the rate")["data"][0]["y"])
    assert np.all(after < before)
    assert np.all(np.isfinite(after))


def test_extreme_eps_stays_finite():
    at = _open({"strat_view": "Privacy", "strat_eps": "1000"})
    assert not at.exception
    for trace in _chart(at, "Population guarantee against the rate")["data"]:
        assert np.all(np.isfinite(array(trace["y"])))


def test_rounding_counter_example_controls():
    at = _open({"strat_view": "Privacy"})
    at.number_input(key="strat_cx_size").set_value(20).run()
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Rounded: records drawn from P / P′"] == "2 / 2"
    preset = next(b for b in at.button if b.label.startswith("|P| = 14 vs 15"))
    preset.click().run()
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Rounded: records drawn from P / P′"] == "1 / 2"


def test_bad_neighbour_value_is_explained():
    at = _open({"strat_view": "Privacy"})
    at.number_input(key="strat_nb_value").set_value(-5.0).run()
    assert not at.exception
    assert any("outside the declared bounds" in w.value for w in at.warning)


def test_neighbour_target_stratum_changes_the_shift():
    at = _open({"strat_view": "Privacy", "strat_m": "1000"})
    before = _bars(_chart(at, "Sampled records that move"), "Neyman")
    at.selectbox(key="strat_nb_stratum").set_value(5).run()
    assert not at.exception
    after = _bars(_chart(at, "Sampled records that move"), "Neyman")
    assert not np.array_equal(before, after)


def test_simulation_matches_formula():
    at = _open({"strat_view": "Simulation check", "strat_reps": "1000"})
    table = next(df.value for df in at.dataframe if "simulated ÷ formula" in df.value.columns)
    ratios = table["simulated ÷ formula"].to_numpy()
    assert np.all(np.abs(ratios - 1) < 0.2)


def test_random_size_tab_reproduces_figure_2():
    at = _open({"strat_view": "Random sample size (Theorem 3.1)"})
    chart = _chart(at, "Random sample size")
    upper = array(next(t for t in chart["data"] if t["name"] == "upper bound")["y"])
    assert upper[0] == pytest.approx(0.005, rel=0.01)
    assert upper[-1] == pytest.approx(0.01, rel=0.05)
    at.number_input(key="strat_rs_eps").set_value(0.1).run()
    assert not at.exception
    upper_after = array(
        next(t for t in _chart(at, "Random sample size")["data"] if t["name"] == "upper bound")["y"]
    )
    assert upper_after[0] > upper[0]


def test_paper_preset_sets_the_establishments_and_m():
    at = open_page(PAGE, {"strat_m": "3000"})
    preset = next(b for b in at.button if b.label == "Paper's setting (App. E.1)")
    preset.click().run()
    assert not at.exception
    assert at.number_input(key="strat_m").value == 10_000
    assert at.selectbox(key="population").value == "establishments"


def test_reproduce_snippet_uses_current_parameters():
    at = _open({"strat_m": "2500"})
    code = snippet(at, "strata.neyman_allocation")
    assert "m, eps_sample = 2500, 0.5" in code and "make_builtin('establishments'" in code


@pytest.mark.parametrize("m", ["1", "12", "100000"])
@pytest.mark.parametrize("tab", TABS[:3])
def test_extreme_sample_sizes_are_handled(m, tab):
    at = _open({"strat_m": m, "strat_view": tab})
    assert not at.exception and not at.error, [e.value for e in at.error]
    if tab == TABS[0] and m == "1":
        verdict = next(s.value for s in at.success)
        assert "weighted mean is undefined" in verdict


def _uploaded(values, labels, name="my strata.csv"):
    from core.populations import Population

    order = np.argsort(values, kind="stable")
    return Population(
        name=name,
        values=np.asarray(values, dtype=float)[order],
        lower=0.0,
        upper=float(max(values)) + 10,
        strata=np.asarray(labels)[order],
        stratum_label="region",
    )


def _open_uploaded(pop, query=None):
    return open_page(PAGE, query, uploaded=pop)


@pytest.mark.parametrize("tab", TABS[:3])
def test_uploaded_population_with_a_stratum_column(tab):
    rng = np.random.default_rng(5)
    values = np.concatenate([rng.normal(50, 5, 300), rng.normal(80, 20, 120), [7.0, 7.0, 7.0]])
    labels = ["north"] * 300 + ["south"] * 120 + ["flat"] * 3  # "flat" has σ = 0
    at = _open_uploaded(_uploaded(np.abs(values), labels), {"strat_m": "60", "strat_view": tab})
    assert not at.error, [e.value for e in at.error]
    assert charts(at)
    if tab == TABS[0]:
        chart = _chart(at, "Records drawn per stratum")
        assert _bars(chart, "Neyman").sum() == 60
        assert set(chart["data"][0]["x"]) == {"flat", "north", "south"}


def test_uploaded_population_whose_smallest_record_is_alone_in_its_stratum():
    values = [1.0] + [float(v) for v in range(10, 60)]
    labels = ["tiny"] + ["a"] * 25 + ["b"] * 25
    at = _open_uploaded(_uploaded(values, labels), {"strat_m": "20", "strat_view": "Privacy"})
    assert any("cannot be built" in w.value for w in at.warning)
    assert _chart(at, "Population guarantee against the rate")


def test_many_strata_are_capped_in_the_charts():
    rng = np.random.default_rng(9)
    labels = np.repeat(np.arange(150), 20)
    values = rng.gamma(2.0, 10.0, labels.size) + labels
    pop = _uploaded(values, labels)
    at = _open_uploaded(pop, {"strat_m": "600"})
    assert not at.error
    chart = _chart(at, "Records drawn per stratum")
    assert len(chart["data"][0]["x"]) == 60
    table = next(df.value for df in at.dataframe if "Neyman n_i" in df.value.columns)
    assert len(table) == 150 and table["Neyman n_i"].sum() == 600
    at = _open_uploaded(pop, {"strat_m": "600", "strat_view": "Privacy"})
    assert not at.error
    assert len(_chart(at, "Sampled records that move")["data"][0]["x"]) <= 62


# --- issue 10 (merged from test_strata_issue10.py) ----------------------------------------
# A default sample size that fits the population, verdicts worded at n = N and at tiny n,
# vacuous bounds in words, the ε_target → ε_sample direction, numeric stratum labels in numeric
# order, and snippets that rebuild the active population and print the page's numbers.


BOUND = "ε_target bound, randomised proportional (Thm 7.2)"


def _neyman(at) -> np.ndarray:
    chart = _chart(at, "Records drawn per stratum")
    return array(next(t for t in chart["data"] if t.get("name") == "Neyman")["y"])


def _metric(at, label: str):
    return next(m for m in at.metric if m.label == label)


def _n9189():
    rng = np.random.default_rng(3)
    labels = np.repeat(["a", "b", "c"], [4000, 3189, 2000])
    values = rng.lognormal(3, 1, labels.size) + np.repeat([0.0, 50.0, 500.0], [4000, 3189, 2000])
    return _uploaded(values, labels, name="survey extract.csv")


# --- item 4: defaults that fit the active population -------------------------------------


def test_default_sample_size_is_a_share_of_n_with_two_per_stratum():
    assert views.default_sample_size(100_000, 12) == 10_000  # the paper's m
    assert views.default_sample_size(9_189, 3) == 919
    assert views.default_sample_size(30, 20) == 30  # 2 per stratum, capped at N
    assert views.default_sample_size(100, 20) == 40
    with pytest.raises(ValueError):
        views.default_sample_size(0, 1)


def test_small_population_gets_a_fitting_default_and_a_real_comparison():
    at = _open_uploaded(_n9189())
    assert not at.warning, [w.value for w in at.warning]  # no "exceeds N" fallback
    assert _neyman(at).sum() == 919
    variance = next(df.value for df in at.dataframe if "variance ÷ Neyman" in df.value.columns)
    assert np.all(variance["variance"] > 0) and variance["variance ÷ Neyman"].notna().all()
    verdict = next(s.value for s in at.success)
    assert "≥ ε" not in verdict and "None" not in verdict


def test_a_typed_sample_size_is_kept():
    at = open_page(PAGE, EST)
    at.number_input(key="strat_m").set_value(1234).run()
    assert _neyman(at).sum() == 1234
    at.toggle(key="strat_log_y").set_value(False).run()  # another control moves
    assert at.number_input(key="strat_m").value == 1234


def test_verdict_at_n_equal_to_big_n_says_census_and_no_amplification():
    at = open_page(PAGE, {**EST, "strat_m": "100000"})
    verdict = next(s.value for s in at.success)
    assert "n = N" in verdict and "no amplification" in verdict
    assert "≥ ε" not in verdict and "ε′" not in verdict


def test_verdict_at_tiny_n_is_worded():
    at = open_page(PAGE, {**EST, "strat_m": "5"})
    verdict = next(s.value for s in at.success)
    assert "weighted mean is undefined" in verdict and "raise n" in verdict
    at = open_page(PAGE, {**EST, "strat_m": "50", "strat_view": "Privacy"})
    warnings = " ".join(w.value for w in at.warning)
    assert "strata (" in warnings and "stratum(s)" not in warnings


def test_a_bound_that_does_not_amplify_is_said_in_words():
    at = open_page(PAGE, {**EST, "strat_eps": "5", "strat_view": "Privacy"})
    metric = _metric(at, BOUND)
    assert metric.value == "no amplification"
    assert views.NO_AMPLIFICATION in metric.proto.help
    at = open_page(PAGE, {**EST, "strat_eps": "0.1", "strat_view": "Privacy"})
    assert float(_metric(at, BOUND).value) == pytest.approx(
        strata.proportional_eps_bound(0.1, 0.1), rel=5e-3
    )


# --- item 7: ε_target in → ε_sample out ----------------------------------------------------


def test_target_direction_inverts_theorem_7_2():
    at = open_page(PAGE, {**EST, "strat_dir": views.FROM_TARGET, "strat_eps_target": "0.2"})
    assert not at.exception and not at.error
    shown = float(_metric(at, "ε_sample allowed, randomised proportional (Thm 7.2)").value)
    want = strata.proportional_eps_sample_for_target(0.2, 0.1)
    assert shown == pytest.approx(want, rel=5e-3)
    assert strata.proportional_eps_bound(want, 0.1) == pytest.approx(0.2, rel=1e-9)


# --- item 8: numeric stratum labels sort numerically -------------------------------------


def test_numeric_stratum_labels_are_in_numeric_order():
    labels = np.repeat([str(i) for i in range(1, 12)], 40)
    # stratum "10" holds the smallest values, so first-occurrence order would put it first
    values = np.where(labels == "10", 0.5, 5.0 + np.arange(labels.size) % 7)
    at = _open_uploaded(_uploaded(values, labels), {"strat_m": "200"})
    table = next(df.value for df in at.dataframe if "N_i" in df.value.columns)
    assert table["stratum"].tolist() == [str(i) for i in range(1, 12)]
    chart = _chart(at, "Records drawn per stratum")
    assert list(chart["data"][0]["x"]) == [str(i) for i in range(1, 12)]


# --- item 6: snippets rebuild the active population and print the page's numbers ------------


@pytest.mark.parametrize("key", list(BUILTIN_POPULATIONS))
def test_snippet_rebuilds_each_builtin_and_prints_the_page_bound(key):
    at = open_page(PAGE, {"strat_view": "Privacy", "strat_eps": "0.3"})
    at.selectbox(key="population").set_value(key).run()
    code = at.get("code")[0].proto.code_text
    assert f"make_builtin({key!r}, seed=" in code
    printed = printed_numbers(code)
    assert printed["bound"] == pytest.approx(float(_metric(at, BOUND).value), rel=5e-3)
    if key == "establishments":
        assert printed["neyman loss"] > 0
