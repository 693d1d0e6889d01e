"""AppTest for the Release planner's counts, totals and proportions: every kind runs without
an exception and gives the exact plan of :func:`core.linear.plan.plan_linear`, the controls
change the numbers, a link reproduces the state, the tabs that plan only medians, quantiles
and means say so, and bad input is explained without a traceback."""

from __future__ import annotations

import time
from urllib.parse import parse_qs, urlsplit

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from core import planner
from core.linear.plan import default_linear_mechanisms, plan_linear
from core.linear.statistic import LinearStatistic
from core.population import Population
from core.populations import make_builtin
from tests.pages.harness import app_test, open_page, open_snippets
from ui.page_defaults import delta_target_default
from ui.planner import figures as figs
from ui.planner import linear_controls, linear_text, text

PAGE = "app_pages/planner.py"
ESTABLISHMENTS = make_builtin("establishments", seed=0)
PAGE_URL = "http://localhost:8501/planner"


def _verdict(at: AppTest) -> str:
    boxes = [b.value for b in (*at.success, *at.warning) if "whole register" in b.value]
    assert boxes, [b.value for b in (*at.success, *at.warning, *at.error)]
    return boxes[0]


def _captions(at: AppTest) -> list[str]:
    return [c.value for c in at.caption]


def _value_line(at: AppTest) -> str:
    return next(c for c in _captions(at) if c.startswith("The population "))


def _ranked(at: AppTest) -> str:
    return next(m.value for m in at.markdown if m.value.startswith("1. **"))


@pytest.mark.parametrize("kind", ["count", "total", "proportion"])
def test_each_linear_statistic_plans_every_design_exactly(kind):
    at = open_page(PAGE, {"population": "Establishments", "plan_stat": kind})
    assert not at.get("progress")  # exact: no progress bar
    assert "Privatise the whole register" in _verdict(at)
    # A count and a proportion start at the most common size class; a total at every record.
    assert at.radio(key="plan_sel").value == ("every record" if kind == "total" else "a category")
    if kind == "total":
        stat = LinearStatistic(kind)
    else:
        assert at.selectbox(key="plan_cat").value == "1-4"
        stat = LinearStatistic(kind, column="strata", category="1-4")
    integer = linear_controls.integer_values(ESTABLISHMENTS.content_hash, ESTABLISHMENTS)
    offered = linear_controls.mechanisms_of(kind, integer)
    assert "discrete_gaussian" in offered  # offered, but an (ε, δ) mechanism is not a default
    mechanisms = default_linear_mechanisms(True)  # under a pure ε promise: the pure ones
    assert mechanisms == ("laplace", "geometric")
    assert tuple(at.multiselect(key="plan_lmechs").value) == mechanisms
    designs = tuple(
        s.name
        for s in planner.design_statuses(ESTABLISHMENTS, "median", "replacement")
        if s.available and s.name in text.PICKABLE_DESIGNS
    )
    result = plan_linear(
        ESTABLISHMENTS,
        stat,
        eps_target=1.0,
        delta_target=delta_target_default(ESTABLISHMENTS.size),
        designs=designs,
        rates=None,
        mechanisms=mechanisms,
        relation="replacement",
    )
    shown = linear_text.population_value_line(result, "", kind).split(": ")[-1]
    assert shown in _value_line(at)
    ranked = figs.ranked_table(result)
    assert _ranked(at).startswith("1. **")
    assert len(_ranked(at).splitlines()) == len(ranked)


def test_the_controls_change_the_numbers():
    at = open_page(PAGE, {"population": "Establishments", "plan_stat": "count"})
    before_value, before_verdict = _value_line(at), _verdict(at)
    at.selectbox(key="plan_cat").set_value("10-19").run()
    assert not at.exception
    assert _value_line(at) != before_value and "11,500" in _value_line(at)
    at.number_input(key="plan_eps").set_value(0.1).run()
    assert not at.exception
    assert _verdict(at) != before_verdict
    at.radio(key="plan_sel").set_value("a value range").run()
    assert not at.exception
    assert at.number_input(key="plan_lo").value == ESTABLISHMENTS.lower
    at.number_input(key="plan_hi").set_value(4.0).run()
    assert not at.exception and "[0, 4]" in _value_line(at)


def _plan_link(query: dict[str, str | list[str]]) -> tuple[AppTest, str]:
    at = app_test(PAGE)
    at.context = {"url": PAGE_URL}
    at.query_params.update(query)
    at.run()
    open_snippets(at)
    assert not at.exception, [e.value for e in at.exception]
    links = [c.value for c in at.code if c.value.startswith(PAGE_URL)]
    assert len(links) == 1, links
    return at, links[0]


@pytest.mark.parametrize(
    "query",
    [
        {"plan_stat": "count", "plan_cat": "100-249", "plan_eps": "0.5"},
        {"plan_stat": "proportion", "plan_sel": "a value range", "plan_lo": "5", "plan_hi": "50"},
        {"plan_stat": "total", "plan_sel": "a category", "plan_col": "region"},
    ],
)
def test_the_link_reproduces_a_linear_plan(query):
    at, link = _plan_link({"population": "Establishments", **query})
    # The link's choice, not the default (the label column by its name in the data).
    shown = {"plan_col": {"strata": "size_class", "clusters": "region"}}
    for key in ("plan_cat", "plan_col", "plan_sel"):
        if key in query:
            value = str(at.session_state[key])
            assert shown.get(key, {}).get(value, value) == query[key], key
    carried = parse_qs(urlsplit(link).query, keep_blank_values=True)
    assert {"plan_stat", "plan_sel", "plan_lmechs", "plan_eps", "plan_view"} <= set(carried)
    opened, again = _plan_link(carried)
    for key in carried:
        assert opened.session_state[key] == at.session_state[key], key
    assert _verdict(opened) == _verdict(at)
    assert _ranked(opened) == _ranked(at)
    assert again == link


def test_the_accuracy_first_tab_says_it_plans_medians_in_one_sentence():
    tab = text.ACCURACY_TAB
    at = open_page(PAGE, {"plan_stat": "count", "plan_view": tab})
    assert linear_text.not_for_linear(tab, "count") in [i.value for i in at.info]


@pytest.mark.parametrize("tab", [text.SEVERAL_TAB, text.PUBLICATION_TAB])
def test_the_tabs_with_their_own_statistics_still_work(tab):
    at = open_page(PAGE, {"plan_stat": "count", "plan_view": tab, "plan_reps": "50"})
    assert not any(i.value == linear_text.not_for_linear(tab, "count") for i in at.info)


def test_snippet_and_notebook_name_plan_linear():
    at = open_page(PAGE, {"population": "Establishments", "plan_stat": "count"})
    code = "\n".join(c.value for c in at.code)
    assert "plan_linear(" in code and "LinearStatistic('count', column='strata'" in code


# --- bad input: a message, never a traceback, and the rest of the page works ----------------


def test_a_category_absent_from_the_data_is_named_and_the_most_common_planned():
    at = open_page(
        PAGE, {"population": "Establishments", "plan_stat": "count", "plan_cat": "no such"}
    )
    said = [w.value for w in at.warning]
    assert any("“no such”" in w and "does not hold" in w for w in said), said
    assert at.selectbox(key="plan_cat").value == "1-4"
    assert "Privatise the whole register" in _verdict(at)


def test_a_range_outside_the_public_bounds_is_refused_in_words():
    at = open_page(
        PAGE,
        {
            "population": "Establishments",
            "plan_stat": "proportion",
            "plan_sel": "a value range",
            "plan_lo": "-5",
            "plan_hi": "50",
        },
    )
    assert at.error and "bounds" in at.error[0].value
    # The rest of the page still works: back to a good range, the plan is there.
    at.number_input(key="plan_lo").set_value(0.0).run()
    assert not at.exception and not at.error
    assert "Privatise the whole register" in _verdict(at)


def test_an_empty_selection_is_planned_and_explained():
    at = open_page(
        PAGE,
        {
            "population": "Establishments",
            "plan_stat": "proportion",
            "plan_sel": "a value range",
            "plan_lo": "0.25",
            "plan_hi": "0.75",
        },
    )
    infos = [i.value for i in at.info]
    assert linear_text.empty_selection_note("proportion") in infos
    assert "Privatise the whole register" in _verdict(at)


def test_a_total_without_a_public_upper_bound_is_refused_in_words():
    rng = np.random.default_rng(3)
    pop = Population(
        name="no upper",
        values=np.sort(rng.integers(0, 50, 400).astype(float)),
        lower=0.0,
        upper=np.inf,
    )
    at = open_page(PAGE, {"plan_stat": "total"}, uploaded=pop)
    assert at.error, [w.value for w in at.warning]
    assert not at.exception
    at.radio(key="plan_stat").set_value("count").run()
    assert not at.exception and "Privatise the whole register" in _verdict(at)


def test_a_population_without_labels_counts_a_value_range():
    at = open_page(PAGE, {"plan_stat": "count", "plan_sel": "a category"})
    said = [w.value for w in at.warning]
    assert linear_text.no_label_column("count") in said
    assert "Privatise the whole register" in _verdict(at)


@pytest.mark.parametrize("population", ["Lognormal", "Establishments"])
def test_a_change_of_a_linear_control_settles_fast(population):
    at = open_page(PAGE, {"population": population, "plan_stat": "count"})
    start = time.perf_counter()
    at.number_input(key="plan_eps").set_value(0.3).run()
    elapsed = time.perf_counter() - start
    assert not at.exception and not at.get("progress")
    # Exact rows: well under the seconds a Monte Carlo plan takes, even on a loaded machine.
    assert elapsed < 10.0, f"{population}: a count's ε_target change took {elapsed:.2f} s"


def test_an_upload_with_categories_counts_its_most_common_category():
    rng = np.random.default_rng(5)
    values = np.sort(rng.integers(0, 100, 600).astype(float))
    kinds = np.array(["retail", "industry", "services"], dtype=object)
    pop = Population(
        name="with categories",
        values=values,
        lower=0.0,
        upper=100.0,
        categories=kinds[rng.choice(3, 600, p=[0.2, 0.3, 0.5])],
        category_label="sector",
    )
    at = open_page(PAGE, {"plan_stat": "proportion"}, uploaded=pop)
    assert at.selectbox(key="plan_col").value == "categories"
    assert at.selectbox(key="plan_cat").value == "services"
    assert "sector = services" in _value_line(at)
    assert "Privatise the whole register" in _verdict(at)


def test_a_proportion_with_a_private_size_under_added_records_is_refused_in_words():
    query = {
        "population": "Establishments",
        "plan_stat": "proportion",
        "plan_rel": text.RELATION_LABELS["deletion"],
    }
    at = open_page(PAGE, query)
    assert at.error and "population size N" in at.error[0].value
    at.toggle(key="plan_sizes").set_value(True).run()
    assert not at.exception and not at.error
    assert "Privatise the whole register" in _verdict(at)


def test_a_design_without_rows_is_named_with_its_reason():
    rng = np.random.default_rng(11)
    strata = np.where(np.arange(500) == 0, "lone", rng.choice(["a", "b"], 500)).astype(object)
    pop = Population(
        name="one lone record",
        values=np.sort(rng.integers(0, 50, 500).astype(float)),
        lower=0.0,
        upper=50.0,
        strata=strata,
        stratum_label="group",
    )
    at = open_page(PAGE, {"plan_stat": "count", "plan_sel": "a value range"}, uploaded=pop)
    infos = " ".join(i.value for i in at.info)
    assert "Proportional stratified sample" in infos and "single record" in infos
    assert "Privatise the whole register" in _verdict(at)


def test_under_a_rho_promise_the_samples_left_out_are_named():
    at = open_page(
        PAGE,
        {
            "population": "Establishments",
            "plan_stat": "count",
            "plan_promise": text.PROMISE_LABELS["zcdp"],
            "plan_rho": "0.5",
        },
    )
    assert not " ".join(i.value for i in at.info)  # Laplace and geometric plan the samples
    at.multiselect(key="plan_lmechs").set_value(["discrete_gaussian"]).run()
    infos = " ".join(i.value for i in at.info)
    assert "is not planned under a ρ promise" in infos and "Poisson sample" in infos
    assert "Privatise the whole register (census, discrete Gaussian)" in _verdict(at)
