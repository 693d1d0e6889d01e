"""Cluster sampling: how cluster size erases privacy amplification (Bun et al. §5–6)."""

from __future__ import annotations

import streamlit as st

from ui.charts import reproduce
from ui.clusters import figures as figs
from ui.clusters import text, views
from ui.state import active_population
from ui.widgets import (
    bound_toggle,
    log_float_control,
    log_int_control,
    preset_buttons,
    result_container,
)

st.title("Cluster sampling: how cluster size erases amplification")
st.markdown(
    "Surveys often draw whole **clusters** — households, schools, regions — instead of "
    "individual records, and keep everyone in the drawn clusters. Drawing ℓ of k clusters "
    "looks like a secret sample of ℓ/k of the records, but Bun, Drechsler, Gaboardi, McMillan "
    "& Sarathy (§5) show that the privacy amplification of such a sample **collapses to no "
    "amplification as the clusters grow**: a private output can reveal which clusters were "
    "drawn, and with them who is in the sample."
)

preset_buttons(text.PRESETS, key="cl")

direction = st.radio(
    "Which ε do you give?",
    text.DIRECTIONS,
    horizontal=True,
    key="cl_dir",
    bind="query-params",
    help="ε_sample in: the budget of the mechanism on the sample, and the page shows the "
    "guarantee ε_target the population gets. ε_target in: the guarantee you promise, and the "
    "page shows the ε_sample each design allows (Theorems 5.1–5.2 and eq. 3 inverted exactly).",
)
from_target = direction == text.FROM_TARGET
exact = bound_toggle(
    "Type exact values",
    "cl_exact",
    default=False,
    help="Adds a box beside each slider below, for values between the slider's marks.",
)
c1, c2 = st.columns(2, gap="large")
with c1:
    size = log_int_control(
        "Cluster size M (records in the person's cluster)",
        "cl_size",
        default=10,
        min_value=1,
        max_value=100_000,
        help="M_i of Theorems 5.1–5.2 (the paper's n_i): the cluster the protected person "
        "belongs to.",
        exact=exact,
    )
    spread = log_float_control(
        "Size spread: other clusters hold M/spread to M·spread records",
        "cl_spread",
        default=1.0,
        min_value=1.0,
        max_value=100.0,
        help="1 = all clusters equal, where the lower and upper bounds coincide. Otherwise "
        "M_min = M/spread and M_max = M·spread (rounded, at least 1).",
        exact=exact,
    )
    if from_target:
        eps_target = log_float_control(
            "ε_target: the guarantee promised for the population",
            "cl_eps_target",
            default=0.1,
            min_value=1e-3,
            max_value=1000.0,
            help="The page finds the largest ε_sample for which Theorem 5.2 guarantees this "
            "ε_target, by solving the theorem's equation numerically.",
            exact=exact,
        )
    else:
        eps = log_float_control(
            "ε_sample: budget of the mechanism run on the sample",
            "cl_eps",
            default=0.1,
            min_value=1e-3,
            max_value=1000.0,
            help="The mechanism is ε_sample-differentially private in the deletion model "
            "(adding or removing one record), as in Bun et al. §5.",
            exact=exact,
        )
with c2:
    k = log_int_control(
        "Number of clusters k",
        "cl_k",
        default=1000,
        min_value=2,
        max_value=1_000_000,
        exact=exact,
    )
    ell = log_int_control(
        "Clusters drawn ℓ (uniformly, without replacement)",
        "cl_l",
        default=100,
        min_value=1,
        max_value=1_000_000,
        exact=exact,
    )
    log_y = bound_toggle("Log ε_target axis", "cl_log_y", default=False)
st.caption(text.SYMBOLS_CAPTION)

if ell > k:
    st.warning(
        f"ℓ = {ell:,} clusters cannot be drawn from k = {k:,}; showing ℓ = k (every cluster "
        "drawn, no amplification). Lower ℓ or raise k.",
        icon=":material/warning:",
    )
    ell = k

# The results: faded while a number box above holds a refused value.
with result_container("cl_view"):
    size_min, size_max = (int(v) for v in figs.other_sizes(size, spread))
    if from_target:
        eps = views.target_metrics(eps_target, k, ell, size, size_min, size_max)
    inputs = views.ClusterInputs(
        pop=active_population(),
        eps_sample=float(eps),
        k=k,
        ell=ell,
        size=size,
        spread=float(spread),
        size_min=size_min,
        size_max=size_max,
        log_y=bool(log_y),
        numbers=figs.summary(eps, k, ell, size, spread),
        exact=bool(exact),
    )
    if not from_target:
        views.sample_metrics(inputs)

    # Only the open tab computes (bind= makes the tabs lazy and puts the open tab in the URL).
    tabs = st.tabs(list(text.TABS), key="cl_view", bind="query-params")
    for tab, view in zip(tabs, views.TAB_VIEWS, strict=True):
        with tab:
            if tab.open:
                view(inputs)

    reproduce(
        text.python_snippet(
            inputs.pop,
            eps,
            k,
            ell,
            size,
            size_min,
            size_max,
            eps_target=eps_target if from_target else None,
        ),
        key="cl",
    )
