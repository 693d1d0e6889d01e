"""Stratified sampling: Neyman against proportional allocation, accuracy against privacy."""

from __future__ import annotations

import streamlit as st

from ui.charts import reproduce
from ui.format import fmt
from ui.state import active_population, active_seed
from ui.strata import cache, text, views
from ui.widgets import log_float_control, preset_buttons, result_container

st.title("Stratified sampling: Neyman or proportional allocation?")
st.markdown(
    "A stratified design splits the population into strata (for example establishments by "
    "number of employees) and draws a simple random sample inside each. **How many** records "
    "to take from each stratum is the allocation. **Neyman allocation** follows each "
    "stratum's spread and gives the most accurate weighted mean; **proportional allocation** "
    "takes the same fraction everywhere. Bun, Drechsler, Gaboardi, McMillan & Sarathy show "
    "that the first depends on the data and can *leak* privacy, while the second, with "
    "randomised rounding, amplifies it."
)

pop = active_population()
seed = active_seed()
N = pop.size
summ = cache.summary(pop.content_hash, pop)

preset_buttons(text.PRESETS, key="strat")

default_m = text.default_sample_size(N, summ.k if summ is not None else 1)
direction = st.radio(
    "Which ε do you give?",
    text.DIRECTIONS,
    horizontal=True,
    key="strat_dir",
    bind="query-params",
    help="ε_sample in: the budget of the mechanism on the sample; the page shows the "
    "guarantee ε_target. ε_target in: the guarantee you promise; the page shows the ε_sample "
    "randomised proportional allocation allows (Theorems 4.3/7.2 inverted exactly).",
)
c1, c2 = st.columns([1, 2], gap="large")
with c1:
    n_input = st.number_input(
        "Total sample size n (the paper's m)",
        min_value=1,
        max_value=5_000_000,
        value=None,
        step=500,
        placeholder=f"automatic: {default_m:,}",
        key="strat_m",
        bind="query-params",
        help=f"Empty: {default_m:,}, i.e. {fmt(text.DEFAULT_SHARE, 'share')} of this population's "
        f"N = {N:,} records (at least 2 per stratum). A number you type is kept. The paper "
        "draws 10,000 establishments. Proportional allocation uses the rate r = n/N.",
    )
with c2:
    if direction == text.FROM_TARGET:
        eps_target = log_float_control(
            "ε_target: the guarantee promised for the population",
            "strat_eps_target",
            default=0.1,
            min_value=1e-3,
            max_value=1000.0,
            help="The page computes the ε_sample that randomised proportional allocation "
            "allows for it (Theorem 7.2 solved for ε_sample).",
        )
    else:
        eps = log_float_control(
            "ε_sample: budget of the mechanism run on the sample",
            "strat_eps",
            default=0.5,
            min_value=1e-3,
            max_value=1000.0,
            help="The budget of the differentially private mechanism applied to the sample.",
        )
m = int(n_input) if n_input is not None else default_m
if m > N:
    st.warning(
        f"The sample size n = {m:,} exceeds the population size N = {N:,}; using n = N "
        "(the whole population) instead.",
        icon=":material/warning:",
    )
    m = N
rate = m / N
# The results: faded while a number box above holds a refused value.
with result_container("strat_view"):
    if direction == text.FROM_TARGET:
        eps = views.target_metrics(eps_target, rate)
    inputs = views.StrataInputs(
        pop=pop, seed=seed, summ=summ, m=m, rate=rate, eps_sample=float(eps)
    )

    # Only the open tab computes (bind= makes the tabs lazy and puts the open tab in the URL).
    tabs = st.tabs(list(text.TABS), key="strat_view", bind="query-params")
    for tab, view in zip(tabs, views.TAB_VIEWS, strict=True):
        with tab:
            if tab.open:
                view(inputs)

    reproduce(text.python_snippet(pop, m, eps, seed), key="strat")
