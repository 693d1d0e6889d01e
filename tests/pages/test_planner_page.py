"""AppTest for the Release planner page: every tab runs, controls change the numbers, the
recommendation and the table are core.planner's, designs the population lacks are listed with
their reason, bad input is explained on the page, and the snippet prints the page's numbers."""

from __future__ import annotations

import math
from urllib.parse import parse_qs, urlsplit

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from core import gains, planner
from core.mechanisms import MECHANISMS
from core.population import Population
from core.populations import make_builtin
from tests.pages.harness import (
    app_test,
    array,
    charts,
    open_page,
    open_snippets,
    printed_numbers,
    snippet,
)
from tests.populations import lognormal_register
from ui.format import fmt
from ui.page_defaults import delta_target_default
from ui.planner import accuracy_text, compare_text, several_text, text
from ui.planner import figures as figs

PAGE = "app_pages/planner.py"
LOGNORMAL = make_builtin("lognormal", seed=0)
#: Designs the page plans on the lognormal population (no strata, no clusters).
LOGNORMAL_DESIGNS = ("census", "srs", "poisson")


def _upload(pop: Population, query: dict[str, str] | None = None) -> AppTest:
    """The page with ``pop`` uploaded into the session (the URL cannot carry it)."""
    return open_page(PAGE, query, uploaded=pop)


def _strata_and_clusters(size: int = 3000) -> Population:
    """A small upload with three equal strata and thirty equal clusters."""
    return lognormal_register(size, 5)


def _downloads(at: AppTest) -> list[str]:
    return [b.proto.label for b in at.get("download_button")]


def _ranked(at: AppTest) -> str:
    """The ranked list of plans (Markdown, one numbered line per plan)."""
    return next(m.value for m in at.markdown if m.value.startswith("1. **"))


def _listed(result: planner.PlanResult, share: float = 0.5) -> str:
    """The ranked list the page shows for ``result`` (lognormal bounds), each plan flagged
    usable or too noisy at ``share``."""
    ranked = figs.ranked_table(result)
    flags = compare_text.usable_rows(
        ranked, result.population_value, LOGNORMAL.lower, LOGNORMAL.upper, share
    )
    return compare_text.ranked_list(ranked, None, flags)


def _chart(at: AppTest, title_part: str) -> dict:
    return next(c for c in charts(at) if title_part in c["layout"]["title"]["text"])


def _line(chart: dict, name: str) -> tuple[np.ndarray, np.ndarray]:
    trace = next(t for t in chart["data"] if t.get("name") == name)
    return array(trace["x"]), array(trace["y"])


def _page_plan(**changes) -> planner.PlanResult:
    """core.planner.plan with the page's defaults on the lognormal population."""
    args = dict(
        statistic="median",
        eps_target=1.0,
        delta_target=delta_target_default(LOGNORMAL.size),
        designs=LOGNORMAL_DESIGNS,
        rates=None,
        reps=200,
        seed=0,
        relation="replacement",
        objective="error_95",
    )
    args.update(changes)
    return planner.plan(LOGNORMAL, **args)


# The publication table needs label columns, which the default lognormal population lacks
# (it then shows words and no chart): test_planner_publication.py opens it on establishments.
@pytest.mark.parametrize("tab", [t for t in text.TABS if t != text.PUBLICATION_TAB])
def test_every_tab_runs_without_errors(tab):
    at = open_page(PAGE, {"plan_view": tab})
    assert charts(at), f"{tab} drew no chart"
    assert not at.error and not at.warning, [m.value for m in [*at.error, *at.warning]]


def test_recommendation_and_table_are_cores_best_rows():
    at = open_page(PAGE)
    result = _page_plan()
    best = result.best
    words = at.success[0].value
    assert words == compare_text.recommendation(result)
    assert f"±{fmt(best['error_95'], 'error')}" in words
    assert _ranked(at) == _listed(result)
    assert {
        "Download the full table (CSV)",
        "What its columns mean (CSV)",
        "Download notebook (.ipynb)",
        "Download method report (HTML)",
    } <= set(_downloads(at))
    # release_plan.csv: one recommended row, the plan of the page's verdict.
    table = figs.full_table(result)
    recommended = table[table["recommended"]]
    assert len(recommended) == 1
    assert text.plan_phrase(recommended.iloc[0]) in words
    assert recommended.iloc[0]["error_95"] == best["error_95"]


def test_eps_target_changes_the_table_and_the_chart():
    first, other = open_page(PAGE), open_page(PAGE, {"plan_eps": "0.3"})
    assert _ranked(other) == _listed(_page_plan(eps_target=0.3))
    assert _ranked(other) != _ranked(first)
    census = [_chart(at, "95 % error bound")["layout"]["shapes"][0]["y0"] for at in (first, other)]
    assert census[1] > census[0]  # a smaller ε_target: a wider census bound


def test_mean_rows_are_hu_et_al_eqs_6_and_7_exactly():
    at = open_page(PAGE, {"plan_stat": "mean", "plan_obj": "RMSE"})
    chart = _chart(at, "RMSE")
    N, L, U = LOGNORMAL.size, LOGNORMAL.lower, LOGNORMAL.upper
    census = chart["layout"]["shapes"][0]["y0"]
    assert census == pytest.approx(
        math.sqrt(gains.mean_variance_population(1.0, N, L, U)), rel=1e-12
    )
    rates, rmse = _line(chart, figs.series_name("srs", MECHANISMS["laplace"].label))
    s2 = float(LOGNORMAL.values.var(ddof=1))
    v_n = gains.mean_variance_sample(1.0, rates * N, N, s2, L, U)
    # Where a release can reach a bound (the smallest samples) it is clamped to [L, U] and
    # its error is never larger; elsewhere eqs. 6 and 7 hold exactly (issue 35).
    n = rates * N
    reach = 40 * (U - L) / (n * (np.log1p(np.expm1(1.0) / rates))) + 10 * np.sqrt(
        (1 - rates) * s2 / n
    )
    theta = float(LOGNORMAL.values.mean())
    far = (theta - reach >= L) & (theta + reach <= U)
    assert far.sum() >= 8
    np.testing.assert_allclose(rmse[far], np.sqrt(v_n[far]), rtol=1e-12)
    assert (rmse[~far] <= np.sqrt(v_n[~far]) * (1 + 1e-12)).all()
    assert rates.size >= 8
    assert "population mean" in at.success[0].value


def test_designs_the_population_lacks_are_listed_with_their_reason():
    at = open_page(PAGE)
    notes = " ".join(m.value for m in at.markdown)
    label = planner.DESIGN_LABELS["stratified_proportional"]
    assert f"**{label}**: not available here. The population has no stratum labels" in notes
    assert f"**{planner.DESIGN_LABELS['cluster']}**: not available here." in notes
    assert "Bun et al. §7" in notes and "earlier census" in notes  # Neyman and what it needs
    assert "add/remove and change budgets" in notes  # Poisson's exact bound for a change
    assert "**Stratified, proportional" not in _ranked(at)


def test_population_with_strata_and_clusters_plans_them():
    pop = make_builtin("establishments", seed=0, size=3000)
    at = _upload(pop, {"plan_reps": "50"})
    # One stratum holds a single record: only rate 1 satisfies rate·N_i ≥ 1 (Thm 7.2).
    assert "**Stratified, proportional" not in _ranked(at)
    assert any("smallest stratum has a single record" in i.value for i in at.info)
    at = _upload(_strata_and_clusters(), {"plan_reps": "50"})
    assert "Download notebook (.ipynb)" not in _downloads(at)  # built in code: no recipe
    assert any("No notebook for this population" in c.value for c in at.caption)
    planned = _ranked(at)
    assert "**Stratified, proportional, exponential mechanism**" in planned
    assert "**Cluster, exponential mechanism**" in planned
    several = _upload(
        pop,
        {"plan_reps": "50", "plan_view": text.SEVERAL_TAB, "plan_ms_design": "Cluster sample"},
    )
    assert not several.error and not several.warning
    assert several.selectbox(key="plan_ms_design").value == "Cluster sample"


def test_several_statistics_show_correct_and_naive_targets():
    at = open_page(PAGE, {"plan_view": text.SEVERAL_TAB})
    # The first sampling design is the default (the census has nothing to amplify).
    assert at.selectbox(key="plan_ms_design").value == planner.DESIGN_LABELS["srs"]
    split = planner.budget_split("srs", 1.0, (0.5, 0.5), relation="replacement", rate=0.1)
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["ε_target, composed then amplified (right)"] == fmt(1.0, "guarantee")
    assert metrics["ε_target, amplified then added (wrong)"] == fmt(
        split.eps_target_naive, "guarantee"
    )
    assert split.eps_target_naive < 1.0
    table = at.dataframe[0].value
    assert list(table["statistic"]) == ["median", "mean"]
    assert list(table["share"]) == [0.5, 0.5]
    # The budget of the realised rate n/N (round(0.1 N) records), which the row names.
    assert table["rate"].iloc[0] == pytest.approx(round(0.1 * LOGNORMAL.size) / LOGNORMAL.size)
    realised = planner.budget_split(
        "srs", 1.0, (0.5, 0.5), relation="replacement", rate=float(table["rate"].iloc[0])
    )
    np.testing.assert_allclose(table["ε_sample"], realised.eps_samples, rtol=1e-9)
    np.testing.assert_allclose(table["ε_sample"], split.eps_samples, rtol=1e-3)
    mean = planner.plan(
        LOGNORMAL,
        statistic="mean",
        eps_target=1.0,
        delta_target=delta_target_default(LOGNORMAL.size),
        designs=("srs",),
        rates=(0.1,),
        reps=200,
        budget_share=0.5,
    )
    # The SRS row at the chosen rate: not the census reference, nor a refined rate.
    srs = mean.table[(mean.table["design"] == "srs") & (mean.table["rate"] == table["rate"][1])]
    assert table["RMSE"].iloc[1] == pytest.approx(srs["rmse"].min(), rel=1e-12)
    refined_best = mean.best_by_design[mean.best_by_design["design"] == "srs"].iloc[0]
    assert refined_best["rate"] != pytest.approx(table["rate"][1])  # what the table once showed


def test_accuracy_first_answer_is_cores_search():
    at = open_page(PAGE, {"plan_view": text.ACCURACY_TAB, "plan_target_err": "3"})
    found = planner.smallest_eps_target(
        LOGNORMAL,
        statistic="median",
        target_error_95=3.0,
        delta_target=delta_target_default(LOGNORMAL.size),
        designs=LOGNORMAL_DESIGNS,
        reps=200,
    )
    assert found.feasible
    assert f"**{fmt(found.eps_target, 'guarantee')}**" in at.success[0].value
    # Issue 27: the chart's title gives ε_target as the answer does (not 0.0232454).
    titles = [c["layout"]["title"]["text"] for c in charts(at)]
    assert any(f"(ε_target = {fmt(found.eps_target, 'guarantee')})" in t for t in titles), titles
    unreachable = open_page(PAGE, {"plan_view": text.ACCURACY_TAB, "plan_target_err": "1e-9"})
    assert "No plan reaches" in unreachable.info[0].value


def test_accuracy_first_warns_when_the_bound_asked_for_is_useless():
    """Issue 27 §2: a reachable bound that is useless gets a warning, not a green answer.

    Asked for ±1,000 around a median of about 148, the search stops at the smallest ε_target
    it tries, whose plan is off by about ±13; a user who accepts 5 % of the value is warned.
    """
    query = {
        "plan_view": text.ACCURACY_TAB,
        "plan_target_err": "1000",
        "plan_reps": "50",
        "plan_usable": "5",
    }
    at = open_page(PAGE, query)
    assert not at.success and not at.exception
    warning = next(w.value for w in at.warning if "Too noisy to use" in w.value)
    assert accuracy_text.ASK_SMALLER_BOUND in warning and "The smallest ε_target" in warning


def test_delta_target_follows_the_population_until_typed():
    at = open_page(PAGE)
    assert at.number_input(key="plan_delta").value == delta_target_default(LOGNORMAL.size)
    # The composition tab computes little, so switching to the 100,000 establishments is quick.
    at = open_page(PAGE, {"plan_view": text.SEVERAL_TAB})
    at.selectbox(key="population").set_value("establishments").run()
    assert not at.exception
    assert at.number_input(key="plan_delta").value == delta_target_default(100_000)
    typed = open_page(PAGE, {"plan_delta": "1e-07", "plan_view": text.SEVERAL_TAB})
    assert typed.number_input(key="plan_delta").value == pytest.approx(1e-7)
    typed.selectbox(key="population").set_value("establishments").run()
    assert typed.number_input(key="plan_delta").value == pytest.approx(1e-7)


def test_bad_inputs_are_explained_not_raised():
    at = open_page(PAGE, {"plan_rates": "abc, 2, 0.1"})
    warning = " ".join(w.value for w in at.warning)
    assert "“abc” is not a number" in warning and "2 is outside" in warning
    rates, _ = _line(_chart(at, "95 % error bound"), "SRS, exponential mechanism")
    # 0.1 and one rate refined towards 1 (SRS rates are whole n over N)
    np.testing.assert_allclose(rates, [0.1, math.sqrt(0.1)], rtol=1e-3)
    at.multiselect(key="plan_designs").set_value([]).run()
    assert not at.exception
    assert any("No design is chosen" in w.value for w in at.warning)
    tiny = Population(name="tiny.csv", values=np.arange(10.0), lower=0.0, upper=10.0)
    small = _upload(tiny)
    assert any("needs at least 20" in w.value for w in small.warning)
    assert not charts(small)


def test_snippet_prints_the_pages_numbers():
    at = open_page(PAGE, {"plan_reps": "50"})
    printed = printed_numbers(snippet(at, "planner.plan"))
    result = _page_plan(reps=50)
    assert printed["best error_95"] == pytest.approx(float(result.best["error_95"]), rel=1e-9)
    assert printed["best rate"] == pytest.approx(float(result.best["rate"]), rel=1e-9)


def test_a_rerun_does_not_recompute_the_comparison(monkeypatch):
    at = open_page(PAGE)
    shown = _ranked(at)

    def refuse(*args, **kwargs):
        raise AssertionError("core.planner.plan called again on a rerun")

    monkeypatch.setattr(planner, "plan", refuse)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert _ranked(at) == shown


def test_another_quantile_is_cores_quantile_plan():
    query = {"plan_stat": "another quantile", "plan_q": "0.9", "plan_reps": "50"}
    at = open_page(PAGE, {**query, "plan_lines": "every mechanism"})
    assert at.number_input(key="plan_q").value == pytest.approx(0.9)
    result = _page_plan(statistic="quantile", quantile=0.9, reps=50)
    words = at.success[0].value
    assert words == compare_text.recommendation(result)
    assert f"±{fmt(result.best['error_95'], 'error')} of the population 0.9-quantile" in words
    assert _ranked(at) == _listed(result)
    # The population value is the order statistic of rank ⌈0.9 N⌉ of the sorted records.
    rank = math.ceil(0.9 * LOGNORMAL.size)
    assert result.population_value == np.sort(LOGNORMAL.values)[rank - 1]
    caption = next(c.value for c in at.caption if "every error is measured" in c.value)
    assert caption == compare_text.population_value_line(result)
    assert f"{fmt(result.population_value, 'value')}, the value of rank {rank:,}" in caption
    chart = _chart(at, "0.9-quantile")
    names = {t.get("name") for t in chart["data"]}
    for name in planner.DEFAULT_QUANTILE_MECHANISMS:  # SRS has the four default ones
        assert figs.series_name("srs", MECHANISMS[name].label) in names
    code = snippet(at, "planner.plan")
    assert "statistic='quantile'" in code and "quantile=0.9," in code
    # Another level: another population value and other numbers.
    other = open_page(PAGE, {"plan_stat": "another quantile", "plan_q": "0.25", "plan_reps": "50"})
    assert "of the population 0.25-quantile" in other.success[0].value
    assert other.success[0].value == compare_text.recommendation(
        _page_plan(statistic="quantile", quantile=0.25, reps=50)
    )


def _series(at: AppTest) -> set[str]:
    """The named series of the main chart (lines, the census and the star; no bands)."""
    data = _chart(at, "95 % error bound")["data"]
    return {t.get("name") for t in data if t.get("fill") != "toself"}


def test_mechanisms_filter_changes_the_charts_series():
    at = open_page(PAGE, {"plan_reps": "50", "plan_lines": "every mechanism"})
    every = _series(at)
    assert figs.series_name("srs", MECHANISMS["smooth_laplace"].label) in every
    at.multiselect(key="plan_mechs").set_value(["exponential", "global_laplace"]).run()
    assert not at.exception
    restricted = _page_plan(reps=50, mechanisms=("exponential", "global_laplace"))
    kept = _series(at) - {"best plan"}
    census = figs.series_name("census", str(restricted.census["mechanism_label"]))
    assert kept == {
        figs.series_name(d, MECHANISMS[m].label)
        for d in ("srs", "poisson")
        for m in ("exponential", "global_laplace")
    } | {census}
    assert _ranked(at) == _listed(restricted)
    assert "mechanisms=('exponential', 'global_laplace')," in snippet(at, "planner.plan")
    # The smooth-sensitivity Laplace quantile fits a fixed-size sample only: Poisson is left
    # out with that reason, not with a note about its rates.
    at.multiselect(key="plan_mechs").set_value(["smooth_laplace"]).run()
    infos = " ".join(i.value for i in at.info)
    assert compare_text.no_mechanism_note("poisson", "replacement") in infos
    # Nothing chosen: every mechanism, with a note.
    at.multiselect(key="plan_mechs").set_value([]).run()
    assert any("No mechanism is chosen" in i.value for i in at.info)
    assert _ranked(at) == _listed(_page_plan(reps=50))
    # The mean offers the mean's mechanisms; a quantile choice does not carry over.
    at.multiselect(key="plan_mechs").set_value(["exponential"]).run()
    at.radio(key="plan_stat").set_value("mean").run()
    assert not at.exception
    mechs = at.multiselect(key="plan_mechs")
    assert mechs.options == [text.MECHANISM_SHORT[m] for m in planner.MEAN_MECHANISMS]
    assert mechs.value == list(planner.DEFAULT_MEAN_MECHANISMS)


# ---------------------------------------------------------------------------------------
# ε as odds next to the recommendation (issue 16, item 3)
# ---------------------------------------------------------------------------------------


def _odds(at: AppTest) -> str:
    return next(m.value for m in at.info if "can become at most" in m.value)


def test_odds_are_cores_posterior_bound_for_eps_target_and_the_best_eps_sample():
    """On the paper's bimodal draw at ε_target = 0.03 a sample wins: both budgets are read."""
    from core import risk
    from ui.amplification.text import in_100

    # Smooth-sensitivity Laplace: a sample beats its census by far more than the Monte Carlo
    # noise, so a sample is recommended (the exponential mechanism's lead here is noise).
    query = {
        "plan_eps": "0.1",
        "plan_reps": "50",
        "plan_mechs": [text.MECHANISM_SHORT["smooth_laplace"]],
    }
    at = open_page(PAGE, query)
    best = planner.plan(
        LOGNORMAL,
        eps_target=0.1,
        delta_target=float(at.number_input(key="plan_delta").value),
        designs=("census", "srs", "poisson"),
        reps=50,
        seed=0,
        mechanisms=("smooth_laplace",),
    ).recommended
    assert best["design"] != "census"
    words = _odds(at)
    assert "thought it 1 in 100" in words and "With ε_target = 0.1," in words
    assert f"**{in_100(risk.posterior_bound(0.1, 0.01))} in 100** sure" in words
    assert f"ε_sample = {fmt(float(best['eps_sample']), 'guarantee')}" in words
    assert f"**{in_100(risk.posterior_bound(float(best['eps_sample']), 0.01))} in 100**" in words
    assert "worst-case attacker" in words and "exceeded on rare releases" in words


def test_odds_for_the_census_read_eps_target_only():
    from core import risk
    from ui.amplification.text import in_100

    at = open_page(PAGE)
    assert _page_plan().best["design"] == "census"
    words = _odds(at)
    assert "With ε_target = 1," in words and "ε_sample" not in words
    assert f"**{in_100(risk.posterior_bound(1.0, 0.01))} in 100** sure" in words


def test_odds_follow_the_prior_and_eps_target_and_the_url_keeps_the_prior():
    at = open_page(PAGE)
    first = _odds(at)
    at.number_input(key="plan_prior").set_value(0.2).run()
    assert not at.exception
    assert "thought it 1 in 5 " in _odds(at) and _odds(at) != first
    linked = open_page(PAGE, {"plan_prior": "0.2"})
    assert linked.number_input(key="plan_prior").value == 0.2
    assert _odds(linked) == _odds(at)
    lower = open_page(PAGE, {"plan_prior": "0.2", "plan_eps": "0.3"})
    assert "With ε_target = 0.3," in _odds(lower) and _odds(lower) != _odds(at)


# ---------------------------------------------------------------------------------------
# The chart's lines (issue 22, part 6)
# ---------------------------------------------------------------------------------------


def test_chart_lines_control_changes_the_chart_and_the_url_reproduces_it():
    at = open_page(PAGE, {"plan_reps": "50"})
    assert at.selectbox(key="plan_lines").value == "each design's best mechanism"
    default = _series(at) - {"best plan"}
    result = _page_plan(reps=50)
    census = figs.series_name("census", str(result.census["mechanism_label"]))
    best = result.best_by_design.drop_duplicates("design")
    assert default == {
        figs.series_name(d, m) for d, m in zip(best["design"], best["mechanism_label"], strict=True)
    } | {census}
    global_laplace = text.chart_lines_label("global_laplace")
    at.selectbox(key="plan_lines").set_value(global_laplace).run()
    assert not at.exception
    only = _series(at) - {"best plan"}
    assert only != default
    assert {name.rsplit(", ", 1)[1] for name in only} == {figs.LEGEND_MECHANISMS["global_laplace"]}
    linked = open_page(PAGE, {"plan_reps": "50", "plan_lines": global_laplace})
    assert linked.selectbox(key="plan_lines").value == global_laplace
    assert _chart(linked, "95 % error bound") == _chart(at, "95 % error bound")
    every = open_page(PAGE, {"plan_reps": "50", "plan_lines": "every mechanism"})
    assert len(_series(every)) > len(default)
    # A mechanism of the median is no choice for the mean: back to the default.
    every.selectbox(key="plan_lines").set_value(text.chart_lines_label("smooth_laplace")).run()
    every.radio(key="plan_stat").set_value("mean").run()
    assert not every.exception
    assert every.selectbox(key="plan_lines").value == "each design's best mechanism"


def test_a_plan_beyond_the_memory_budget_is_refused_in_words(monkeypatch):
    """A whole-sample plan that cannot fit the server's budget says what to lower."""
    import streamlit as st

    monkeypatch.setenv("PLANNER_MEMORY_BUDGET_MB", "128")
    monkeypatch.setattr("core.planner.memory.MARGIN_BYTES", 128 << 20)  # no room left
    st.cache_data.clear()  # the default plan may be cached by an earlier test
    at = open_page(PAGE, query={"plan_reps": "20"})
    assert not at.exception
    errors = " ".join(e.value for e in at.error)
    assert "memory budget" in errors and "windows" in errors


def test_accuracy_and_several_tabs_end_without_a_progress_bar_and_show_cores_numbers():
    """The progress bar (fed by core while the search or the plans run) gives way to the
    answer; the several statistics' table is core.planner.several_statistics's."""
    at = open_page(PAGE, {"plan_view": text.SEVERAL_TAB, "plan_reps": "50"})
    assert not at.exception and not at.get("progress")
    results = planner.several_statistics(
        LOGNORMAL,
        [("median", 0.5), ("mean", 0.5)],
        [0.5, 0.5],
        eps_target=1.0,
        delta_target=delta_target_default(LOGNORMAL.size),
        designs=("srs",),
        rates=(0.1,),
        reps=50,
    )
    table = at.dataframe[0].value
    # Every row names its rate, and all of its numbers are core's at that rate (issue 35).
    chosen = planner.at_rate(results, "srs", 0.1)
    for column, name in (("rate", "rate"), ("ε_sample", "eps_sample"), ("RMSE", "rmse"),
                         ("b₉₅", "error_95")):  # fmt: skip
        np.testing.assert_allclose(table[column], chosen[name], rtol=1e-12)
    np.testing.assert_allclose(table["rate"], 0.1, rtol=1e-3)
    at = open_page(PAGE, {"plan_view": text.ACCURACY_TAB, "plan_target_err": "3"})
    assert not at.exception and not at.get("progress")
    assert at.success and charts(at)


#: The browser's address of the page (AppTest has no browser; the link needs an address).
PAGE_URL = "http://localhost:8501/planner"


def _plan_link(query: dict[str, str | list[str]]) -> tuple[AppTest, str]:
    """The page opened at ``query`` with a browser address, and its link to this plan."""
    at = app_test(PAGE)
    at.context = {"url": PAGE_URL}
    at.query_params.update(query)
    at.run()
    # The link's code block is sent only once its expander is open (no code highlighter
    # to load when the page opens).
    assert not [c for c in at.code if c.value.startswith(PAGE_URL)]
    open_snippets(at)
    assert not at.exception, [e.value for e in at.exception]
    links = [c.value for c in at.code if c.value.startswith(PAGE_URL)]
    assert len(links) == 1, links
    return at, links[0]


def test_the_reports_link_reproduces_the_plan_with_every_control():
    """The report's link (shown under the downloads) carries every control, defaults included,
    and opening it gives the same controls, the same plan and the same link."""
    at, link = _plan_link({"plan_eps": "0.3", "plan_reps": "50", "plan_obj": "RMSE"})
    parts = urlsplit(link)
    assert f"{parts.scheme}://{parts.netloc}{parts.path}" == PAGE_URL
    query = parse_qs(parts.query, keep_blank_values=True)
    # The controls left at their defaults are in it as well as the three set above.
    assert {
        "population", "seed", "plan_stat", "plan_eps", "plan_delta", "plan_rel", "plan_obj",
        "plan_reps", "plan_designs", "plan_mechs", "plan_rates", "plan_view", "plan_lines",
    } <= set(query)  # fmt: skip
    assert query["plan_eps"] == ["0.3"] and query["plan_reps"] == ["50"]
    assert query["plan_obj"] == [text.OBJECTIVE_LABELS["rmse"]]
    assert query["population"] == ["Lognormal"] and query["seed"] == ["0"]
    assert float(query["plan_delta"][0]) == pytest.approx(delta_target_default(LOGNORMAL.size))
    assert query["plan_designs"] == at.multiselect(key="plan_designs").value
    assert len(query["plan_mechs"]) == len(at.multiselect(key="plan_mechs").value)
    opened, again = _plan_link(query)
    for key in query:
        assert opened.session_state[key] == at.session_state[key], key
    assert opened.success[0].value == at.success[0].value
    assert _ranked(opened) == _ranked(at)
    assert again == link


# ---------------------------------------------------------------------------------------
# The newer quantile mechanisms and JointExp (issue 23, "everywhere a mechanism is chosen")
# ---------------------------------------------------------------------------------------


def test_new_mechanisms_are_offered_and_the_link_reproduces_the_choice():
    at = open_page(PAGE, {"plan_reps": "50", "plan_lines": "every mechanism"})
    mechs = at.multiselect(key="plan_mechs")
    assert mechs.options == [text.MECHANISM_SHORT[m] for m in planner.QUANTILE_MECHANISMS]
    assert mechs.value == list(planner.DEFAULT_QUANTILE_MECHANISMS)  # the default is kept
    chosen = ["exponential", "smooth_polyplace", "piecewise_laplace"]
    mechs.set_value(chosen).run()
    assert not at.exception
    # The link carries the choice as repeated parameters of the shown names.
    link = {
        "plan_reps": "50",
        "plan_lines": "every mechanism",
        "plan_mechs": [text.MECHANISM_SHORT[m] for m in chosen],
    }
    fresh = open_page(PAGE, link)
    assert fresh.multiselect(key="plan_mechs").value == chosen
    assert _ranked(fresh) == _ranked(at)
    want = _page_plan(reps=50, mechanisms=tuple(chosen))
    assert _ranked(fresh) == _listed(want)
    names = _series(fresh)
    for d, m in (("srs", "smooth_polyplace"), ("srs", "piecewise_laplace"),
                 ("poisson", "piecewise_laplace")):  # fmt: skip
        assert figs.series_name(d, MECHANISMS[m].label) in names
    assert "mechanisms=('exponential', 'smooth_polyplace', 'piecewise_laplace')," in snippet(
        fresh, "planner.plan"
    )


def test_several_quantiles_compare_joint_exp_with_separate_releases():
    query = {"plan_view": text.SEVERAL_TAB, "plan_reps": "50"}
    at = open_page(PAGE, query)
    # The median and the mean: one quantile, so no JointExp comparison.
    assert not any("Several quantiles at once" in m.value for m in at.markdown)
    chosen = ["lower quartile", "median", "upper quartile"]
    at.multiselect(key="plan_ms_stats").set_value(chosen).run()
    assert not at.exception and not at.warning
    fresh = open_page(PAGE, {**query, "plan_ms_stats": chosen})
    assert fresh.multiselect(key="plan_ms_stats").value == chosen
    levels = (0.25, 0.5, 0.75)
    errors = planner.joint_exp_errors(
        LOGNORMAL, levels, design="srs", rate=0.1, eps_target=1.0, reps=50
    )
    results = planner.several_statistics(
        LOGNORMAL,
        [("quantile", 0.25), ("median", 0.5), ("quantile", 0.75)],
        [1 / 3] * 3,
        eps_target=1.0,
        delta_target=delta_target_default(LOGNORMAL.size),
        designs=("srs",),
        rates=(0.1,),
        reps=50,
    )
    separate = planner.separate_rmse(results, "srs", errors.rate)
    verdict = planner.joint_against_separate(errors.rmse, separate["rmse"])
    gap = np.abs(np.asarray(errors.rmse) - separate["rmse"].to_numpy())
    noise = 2 * np.hypot(errors.rmse_se, separate["rmse_se"].to_numpy())
    words = several_text.joint_verdict(
        verdict, chosen, errors.eps_sample, within_error=bool((gap <= noise).all())
    )
    assert any("Several quantiles at once" in m.value for m in fresh.markdown)
    assert any(m.value == words for m in fresh.markdown)
    assert "largest per-quantile RMSE" in words and "mean per-quantile RMSE" in words
    joint_table = fresh.dataframe[1].value
    assert list(joint_table["quantile"]) == chosen
    np.testing.assert_allclose(joint_table["JointExp RMSE"], errors.rmse, rtol=1e-12)
    np.testing.assert_allclose(joint_table["separate RMSE"], separate["rmse"], rtol=1e-12)
    assert any("each spends an equal share" in c.value for c in fresh.caption)


# ---------------------------------------------------------------------------------------
# A useless release is a warning, not a green box (issue 27, "Numbers for people")
# ---------------------------------------------------------------------------------------


def test_a_tiny_eps_target_gives_a_too_noisy_warning_not_a_success_box():
    query = {"plan_reps": "50", "plan_eps": "0.001"}
    at = open_page(PAGE, query)
    result = _page_plan(eps_target=0.001, reps=50)
    assert not at.success
    reason = text.too_noisy_reason(result, LOGNORMAL.lower, LOGNORMAL.upper, 0.5)
    assert reason is not None
    assert [w.value for w in at.warning] == [f"{reason}\n\n{compare_text.recommendation(result)}"]
    assert _ranked(at) == _listed(result)
    assert compare_text.TOO_NOISY_FLAG in _ranked(at)
    # The default ε_target gives a usable plan: the green box and a usable first row (the
    # global-sensitivity Laplace rows stay too noisy even there).
    default = open_page(PAGE, {"plan_reps": "50"})
    assert default.success and not default.warning
    lines = _ranked(default).splitlines()
    assert compare_text.USABLE_FLAG in lines[0]
    assert any(compare_text.TOO_NOISY_FLAG in line for line in lines[1:])


def test_the_usable_share_changes_the_verdict_and_the_url_keeps_it():
    at = open_page(PAGE, {"plan_reps": "50", "plan_eps": "0.001"})
    assert at.number_input(key="plan_usable").value == text.USABLE_SHARE_DEFAULT
    result = _page_plan(eps_target=0.001, reps=50)
    share = float(result.best["error_95"]) / result.population_value  # as a fraction
    wide = math.ceil(100 * share) + 1  # in %, just above the best plan's bound
    at.number_input(key="plan_usable").set_value(wide).run()
    assert not at.exception
    assert [s.value for s in at.success] == [compare_text.recommendation(result)]
    assert not at.warning
    assert _ranked(at) == _listed(result, wide / 100)
    # The link to this plan carries the share, and opening it gives the same verdict.
    query = {"plan_reps": "50", "plan_eps": "0.001", "plan_usable": str(wide)}
    linked, link = _plan_link(query)
    assert parse_qs(urlsplit(link).query)["plan_usable"] == [str(wide)]
    assert linked.number_input(key="plan_usable").value == wide
    assert linked.success[0].value == at.success[0].value


def test_heavy_tailed_noise_is_explained_next_to_the_recommended_row(monkeypatch):
    """Wiring only (core.planner.usability tests the rule): with every row read as
    heavy-tailed, the verdict is followed by the note and each ranked line says why."""
    monkeypatch.setattr(compare_text, "is_heavy_tailed", lambda rmse, bound: True)
    at = open_page(PAGE, {"plan_reps": "50"})
    result = _page_plan(reps=50)
    note = compare_text.heavy_tail_note(float(result.best["rmse"]), float(result.best["error_95"]))
    assert note is not None and note.startswith("Heavy-tailed noise: the RMSE")
    assert note in [i.value for i in at.info]
    lines = _ranked(at).splitlines()
    assert all("heavy-tailed noise: rare large errors dominate the RMSE" in s for s in lines)


def _mechanisms_on_chart(at: AppTest) -> set[str]:
    """The mechanisms whose lines the comparison chart draws (every mechanism's lines)."""
    chart = _chart(at, "95 % error bound")
    names = {str(t.get("name")) for t in chart["data"]}
    return {
        m
        for m, cls in MECHANISMS.items()
        for d in LOGNORMAL_DESIGNS
        if figs.series_name(d, cls.label) in names
    }


def test_sizes_public_toggle_decides_whether_a_mean_may_divide_by_n():
    """Issue 35: under added/removed records the population size is not public by default,
    so the mean that divides by N is not offered (the page says why) and the size-free mean
    is; declaring N public (a URL-bound toggle) brings it back, and the link reproduces it."""
    query = {
        "plan_stat": "mean",
        "plan_rel": text.RELATION_LABELS["deletion"],
        "plan_reps": "50",
        "plan_rates": "0.05, 0.2",
        "plan_lines": text.chart_lines_label(figs.ALL_LINES),
    }
    at = open_page(PAGE, query)
    assert not at.exception
    assert at.toggle(key="plan_sizes").value is False
    assert _mechanisms_on_chart(at) == {"sum_count"}
    # the Mechanisms control shows the default this relation compares (sum_count included)
    assert at.multiselect(key="plan_mechs").value == list(planner.MEAN_MECHANISMS)
    notes = " ".join(m.value for m in at.markdown)
    assert text.sizes_words("deletion", False) in notes
    assert "is not offered" in notes and "differs by one" in notes
    at.toggle(key="plan_sizes").set_value(True)
    at.run()
    assert not at.exception
    assert "ht_mean" in _mechanisms_on_chart(at)
    assert text.sizes_words("deletion", True) in " ".join(m.value for m in at.markdown)
    again = open_page(PAGE, {**query, "plan_sizes": "true"})
    assert again.toggle(key="plan_sizes").value is True
    assert _mechanisms_on_chart(again) == _mechanisms_on_chart(at)
    first = _chart(at, "95 % error bound")
    second = _chart(again, "95 % error bound")
    assert [t.get("name") for t in first["data"]] == [t.get("name") for t in second["data"]]
