"""Release planner: which design, rate and mechanism gives the most accurate release?"""

from __future__ import annotations

import dataclasses

import streamlit as st

from core import planner
from ui.format import fmt
from ui.page_defaults import delta_target_default, follow_population_default
from ui.planner import cache, controls, inputs, linear_controls, linear_text, text
from ui.planner.tabs import LINEAR_TAB_VIEWS, TAB_VIEWS
from ui.state import active_population, active_seed
from ui.widgets import (
    log_float_control,
    parse_float_list,
    preset_buttons,
    reproducing_query,
    result_container,
)

st.title("Release planner: which design and rate for my ε_target?")
st.markdown(
    "You must promise the population a guarantee ε_target and want the most accurate "
    "released statistic. The planner tries privatising the whole register and several "
    "random sample designs at many rates, and tells you which one to use and how accurate "
    "the release will be."
)

pop = active_population()
seed = active_seed()
N = pop.size

preset_buttons(text.PRESETS, key="plan")

c1, c2, c3 = st.columns([1, 2, 2], gap="medium")
with c1:
    statistic, quantile = controls.statistic_control(pop.has_upper_bound)
    linear = statistic in linear_text.LINEAR_LABELS
    # A count, total or proportion: which records (None when they cannot be planned).
    linear_stat = linear_controls.statistic_control(pop, statistic) if linear else None
with c2:
    eps_target, rho_target = controls.promise_control()
with c3:
    delta_default = delta_target_default(max(N, 1))
    follow_population_default("plan_delta", delta_default)
    delta_target = log_float_control(
        "δ_target (used by the mechanisms with a δ)",
        "plan_delta",
        default=delta_default,
        min_value=1e-12,
        max_value=0.1,
        fmt="%.3e",
        help="Spent only by mechanisms whose guarantee is (ε, δ): the smooth-sensitivity "
        "median, and the discrete Gaussian for a count, total or proportion. "
        f"Defaults to 1/(2N) of the active population: N = {N:,} gives "
        f"{fmt(delta_default, 'delta')}. A value you type is kept and stored in the link.",
    )
c4, c5, c6 = st.columns([2, 2, 1], gap="medium")
with c4:
    relation = st.radio(
        "Neighbouring populations differ by",
        list(text.RELATION_LABELS.values()),
        key="plan_rel",
        bind="query-params",
        help=text.RELATION_HELP,
    )
    sizes_public = controls.sizes_public_control()
with c5:
    objective = st.radio(
        "Best rate minimises",
        list(text.OBJECTIVE_LABELS.values()),
        key="plan_obj",
        bind="query-params",
    )
    usable_share = controls.usable_share_control()
with c6:
    reps = st.select_slider(
        "Repetitions T",
        list(text.REPS_OPTIONS),
        value=text.REPS_DEFAULT,
        key="plan_reps",
        bind="query-params",
        help="Monte Carlo samples per design and rate; fewer run faster, with wider bars.",
    )
    if linear:
        st.caption(linear_text.REPS_NOTE)
c7, c8 = st.columns(2, gap="medium")
chosen = c7.multiselect(
    "Designs to compare",
    [text.design_label(d) for d in text.PICKABLE_DESIGNS],
    default=[text.design_label(d) for d in text.PICKABLE_DESIGNS],
    key="plan_designs",
    bind="query-params",
    help="Designs the population cannot support (no strata, no clusters) are listed below "
    "with the reason. Neyman allocation is always listed, never planned.",
)
with c8:
    if linear:
        mechanisms = None
        linear_mechanisms = linear_controls.mechanisms_control(pop, statistic, rho_target)
        linear_post = linear_controls.post_control(pop, linear_stat)
    else:
        linear_mechanisms = None
        linear_post = "none"
        mechanisms = controls.mechanisms_control(
            statistic,
            pop.has_upper_bound,
            text.name_of(text.RELATION_LABELS, relation),
            sizes_public,
        )
        if not pop.has_upper_bound:
            st.caption(text.NO_UPPER_NOTE)

problem = inputs.population_problem(pop)
if problem is not None:
    st.warning(problem, icon=":material/warning:")
elif linear and linear_stat is None:
    pass  # the selection's problem is on the page, under the statistic
else:
    defaults = cache.default_rates(pop.content_hash, pop)
    with st.expander("Rates", icon=":material/percent:"):
        rates_text = st.text_input(
            "Sampling rates n/N to try",
            value="",
            placeholder="automatic: " + ", ".join(f"{r:g}" for r in defaults),
            key="plan_rates",
            bind="query-params",
            help="Numbers in (0, 1], separated by commas; at least two records each "
            f"(rate ≥ {fmt(2 / N, 'plain')}). Empty: the planner's default rates, refined "
            "around the best one.",
        )
        rates_list, problems = parse_float_list(rates_text or "", min_value=2.0 / N, max_value=1.0)
        if len(rates_list) > 12:
            problems.append("only the first 12 values are used")
            rates_list = rates_list[:12]
        if problems:
            st.warning(
                "Sampling rates n/N to try: " + "; ".join(problems) + ".",
                icon=":material/warning:",
            )
        if rates_text and not rates_list:
            st.info("No usable rate; using the automatic rates.")
    rates = tuple(rates_list) if rates_list else None
    # The controls show (and the URL carries) labels; core takes names.
    relation = text.name_of(text.RELATION_LABELS, relation)
    objective = text.name_of(text.OBJECTIVE_LABELS, objective)
    chosen = [text.name_of(planner.DESIGN_LABELS, label) for label in chosen]
    # The designs' statuses do not depend on the statistic; a linear one reads the median's.
    statuses = cache.statuses(pop.content_hash, pop, "median" if linear else statistic, relation)
    designs = inputs.chosen_designs(chosen, statuses)
    ctx = inputs.PlannerInputs(
        pop=pop,
        seed=seed,
        statistic=statistic,
        eps_target=float(eps_target),
        rho_target=rho_target,
        delta_target=float(delta_target),
        relation=relation,
        designs=designs,
        rates=rates,
        reps=int(reps),
        objective=objective,
        statuses=statuses,
        quantile=quantile,
        mechanisms=None
        if linear
        else inputs.usable_mechanisms(
            mechanisms, statistic, relation, designs, sizes_public, rho_target
        ),
        usable_share=usable_share,
        sizes_public=sizes_public,
        linear=linear_stat,
        linear_mechanisms=linear_mechanisms,
        linear_post=linear_post,
    )
    # Only the open tab computes (bind= makes the tabs lazy and puts the open tab in the URL);
    # each tab's view is a fragment, so a control inside a tab reruns that tab only.
    with result_container("plan_view"):
        tabs = st.tabs(list(text.TABS), key="plan_view", bind="query-params")
        page_query = tuple((key, tuple(values)) for key, values in reproducing_query().items())
        ctx = dataclasses.replace(ctx, page_query=page_query)
        views = LINEAR_TAB_VIEWS if linear else TAB_VIEWS
        for tab, view in zip(tabs, views, strict=True):
            with tab:
                if tab.open:
                    view(ctx)
