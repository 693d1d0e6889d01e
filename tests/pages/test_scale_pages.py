"""Pages on a large population (issue 15 §4), injected as the session's uploaded population.

* The Population page sends pre-binned counts: the histogram has one bar per bin and the
  chart's points do not grow with N.
* On the gains page, the simulations whose every repetition draws from all N records (the
  eq. (7) check, the Figure 11 sample medians) wait for a URL-bound switch above
  ``AUTO_SIMULATION_MAX_N`` records, and run once it is on; below it they run as before.
"""

from __future__ import annotations

import numpy as np
from streamlit.testing.v1 import AppTest

from core.populations import Population, make_builtin
from tests.pages.harness import array, charts, open_page
from ui.gains.views import AUTO_SIMULATION_MAX_N
from ui.population import figures as population_figures

BIG = AUTO_SIMULATION_MAX_N + 50_001


def open_with_population(page: str, pop: Population, query: dict[str, str]) -> AppTest:
    """``page`` through the router with ``pop`` as this session's uploaded population."""
    return open_page(page, query, uploaded=pop)


def test_population_page_histogram_points_do_not_grow_with_n():
    pop = make_builtin("establishments", seed=0, size=BIG)
    at = open_with_population("app_pages/overview.py", pop, {"pop_bins": "40"})
    (fig,) = charts(at)
    bars = [t for t in fig["data"] if t["type"] == "bar"]
    assert len(bars) == 1 and array(bars[0]["y"]).size == 40
    assert int(array(bars[0]["y"]).sum()) == pop.size
    # The 40 bars, plus at most four marker lines (median, mean, L, U) of a fixed number of
    # hover points each: nothing grows with N.
    line_points = population_figures._LINE_POINTS
    assert sum(array(t["x"]).size for t in fig["data"]) <= 40 + 4 * line_points
    tables = [t.value for t in at.dataframe]
    assert {len(t) for t in tables} == {12, 100}  # size classes and regions


def test_gains_simulations_wait_for_the_switch_on_a_large_population():
    pop = make_builtin("lognormal", seed=0, size=BIG)
    at = open_with_population("app_pages/gains.py", pop, {"gain_view": "Mean on this population"})
    assert at.toggle(key="gain_check_run").value is False
    assert not at.dataframe  # the check's table is not computed
    assert any("not run by default" in i.value for i in at.info)

    at = open_with_population(
        "app_pages/gains.py",
        pop,
        {"gain_view": "Median: smooth sensitivity", "gain_ill_reps": "100"},
    )
    assert at.toggle(key="gain_ill_samples_run").value is False
    assert charts(at)  # the histogram and the release violins are drawn
    assert not any("Unprivatised sample medians" in str(c["layout"]) for c in charts(at))

    at = open_with_population(
        "app_pages/gains.py",
        pop,
        {
            "gain_view": "Median: smooth sensitivity",
            "gain_ill_reps": "100",
            "gain_ill_samples_run": "true",
        },
    )
    assert at.toggle(key="gain_ill_samples_run").value is True
    assert any("Unprivatised sample medians" in str(c["layout"]) for c in charts(at))


def test_gains_simulations_run_without_a_switch_on_a_small_population():
    pop = make_builtin("lognormal", seed=1, size=5_001)
    at = open_with_population(
        "app_pages/gains.py",
        pop,
        {"gain_view": "Mean on this population", "gain_check_reps": "500"},
    )
    assert not [t for t in at.toggle if t.key == "gain_check_run"]
    (table,) = [d.value for d in at.dataframe]
    assert np.all(np.abs(table["simulated ÷ formula"].to_numpy() - 1) < 0.3)


def test_strata_neighbour_leaves_the_smallest_and_joins_the_first_largest_record():
    # The top value is tied across strata "b" and "c": np.argmax of the sorted values (the
    # first tied record, stratum "b") decides, not the last record (stratum "c").
    n = 600
    values = np.concatenate([np.linspace(1.0, 50.0, n - 100), np.full(100, 90.0)])
    strata = ["a"] * 200 + ["b"] * 350 + ["c"] * 50
    pop = Population(name="tied", values=values, lower=0.0, upper=100.0, strata=strata)
    at = open_with_population("app_pages/strata.py", pop, {"strat_view": "Privacy"})
    text = " ".join(m.value for m in [*at.markdown, *at.caption])
    assert "leaves stratum a and joins stratum b" in text
