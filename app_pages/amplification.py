"""Amplification: how much budget a secret random sample buys, and where that stops being free."""

from __future__ import annotations

import streamlit as st

from ui.amplification import text, views
from ui.page_defaults import delta_target_default, follow_population_default
from ui.state import active_population
from ui.widgets import float_list_input, log_float_control, preset_buttons, result_container

st.title("Amplification by sampling")
st.markdown(
    "If the agency privatises a **secret simple random sample** instead of the whole population, "
    "an outsider does not know whether a given person was drawn. That uncertainty is worth "
    "privacy: the mechanism run on the sample may use a larger budget **ε_sample** and still "
    "give the population the promised guarantee **ε_target** (Hu, Drechsler & Kim, Theorem 1)."
)

pop = active_population()
N = pop.size
preset_buttons(text.PRESETS, key="amp")

c1, c2 = st.columns(2, gap="large")
with c1:
    eps_targets = float_list_input(
        "Target ε values (ε_target)",
        "amp_eps_targets",
        default=(0.1, 0.5, 1.0),
        min_value=1e-6,
        max_value=50.0,
    )
    rate_min = log_float_control(
        "Smallest sampling rate shown",
        "amp_rate_min",
        default=0.001,
        min_value=1e-6,
        max_value=0.5,
    )
with c2:
    delta_default = delta_target_default(N)
    follow_population_default("amp_delta", delta_default)
    delta_target = log_float_control(
        "Target δ (δ_target)",
        "amp_delta",
        default=delta_default,
        min_value=1e-12,
        max_value=0.1,
        help=text.delta_help(N, delta_default),
        fmt="%.3e",
    )


inputs = views.AmplificationInputs(
    pop=pop,
    eps_targets=tuple(eps_targets),
    rate_min=float(rate_min),
    delta_target=float(delta_target),
)

# Only the open tab computes (bind= makes the tabs lazy and puts the open tab in the URL).
with result_container("amp_view"):
    tabs = st.tabs(list(text.TABS), key="amp_view", bind="query-params")
    for tab, view in zip(tabs, views.TAB_VIEWS, strict=True):
        with tab:
            if tab.open:
                view(inputs)
