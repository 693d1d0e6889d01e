"""Cached results never leak between populations or sessions (the README's isolation promise).

AppTest sessions in one process share ``st.cache_data`` (and the gains page's own LRU cache),
as the sessions of one server do. For every page and every tab (found generically, like
``test_url_reproduction.py`` does), with two uploads A and B that have the same file name,
bounds and labels but different values:

1. session 1 computes the tab on A (cold caches);
2. session 2 computes it on B while A's results are cached: two sessions, two uploads;
3. session 1 replaces its upload by B and reruns: one session switching populations;
4. after clearing every cache, session 3 computes it on B.

The chart data of 2 and 3 must equal that of 4. Tabs whose charts do not depend on the
population (A and B give the same data) are noted; every page that uses the population
must have at least one tab that does.

Break it on purpose: in ``ui/population/views.py`` call
``histogram_data("same", pop, ...)`` instead of ``histogram_data(pop.content_hash, pop, ...)``
(a constant cache key), or do the same in ``ui/gains/cache.py``'s ``median_experiment`` key:
B's warm run then shows A's histogram (or A's experiment) and this test fails.
"""

from __future__ import annotations

import json

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from core.populations import Population
from tests.pages.harness import UPLOAD_STATE, charts, open_page, tab_queries
from tests.populations import lognormal_register
from ui.router import PAGES

#: Pages whose charts do not depend on the population (formulas; the population only fills in
#: defaults such as N): checked all the same, but no tab needs to differ between A and B.
POPULATION_FREE_PAGES = (
    "app_pages/about.py",
    "app_pages/amplification.py",
    "app_pages/statistical.py",
    # the lessons draw their charts on each step's own built-in population, not the sidebar's
    "app_pages/lessons.py",
    # the game plays on its own small population of k clusters of M records
    "app_pages/game.py",
)
N = 600


def _population(seed: int) -> Population:
    """A small upload with strata and clusters; only its values depend on ``seed``."""
    return lognormal_register(
        N,
        seed,
        log_mean=3.0 + 0.4 * seed,
        name="upload.csv",
        value_label="value",
        stratum_label="stratum",
        cluster_label="cluster",
    )


POP_A = _population(1)
POP_B = _population(2)


def _clear_caches() -> None:
    from ui.gains import cache as gains_cache

    st.cache_data.clear()
    gains_cache._EXPERIMENTS.clear()


def _session(page: str, pop: Population, query: dict[str, str]) -> AppTest:
    return open_page(page, query, uploaded=pop)


def _chart_data(at: AppTest) -> str:
    """Every trace of every chart on the page (the numbers drawn), as canonical JSON."""
    return json.dumps([c["data"] for c in charts(at)], sort_keys=True)


@pytest.mark.parametrize("page", [spec.script for spec in PAGES])
def test_no_session_or_population_sees_another_ones_cached_numbers(page: str) -> None:
    dependent = []
    for query in tab_queries(_session(page, POP_A, {})):
        _clear_caches()
        first = _session(page, POP_A, query)
        data_a = _chart_data(first)
        data_b_other_session = _chart_data(_session(page, POP_B, query))
        first.session_state[UPLOAD_STATE] = POP_B  # a new upload in the same session
        first.run()
        assert not first.exception, [e.value for e in first.exception]
        data_b_switched = _chart_data(first)
        _clear_caches()
        data_b = _chart_data(_session(page, POP_B, query))
        where = f"{page} {query or 'default view'}"
        assert data_b_other_session == data_b, f"{where}: a second session saw A's numbers"
        assert data_b_switched == data_b, f"{where}: switching from A to B kept A's numbers"
        if data_a != data_b:
            dependent.append(query)
    if page not in POPULATION_FREE_PAGES:
        assert dependent, f"{page}: no tab's charts depend on the population; is it still used?"
