"""Statistical privacy: δ(ε) when the adversary knows the data distribution, not the data."""

from __future__ import annotations

import streamlit as st

from core import statistical as sp
from ui.format import fmt
from ui.statistical import text, views
from ui.widgets import (
    log_float_control,
    preset_buttons,
    result_container,
)

st.title("Statistical privacy: an adversary who knows only the distribution")
st.markdown(
    "Differential privacy assumes the adversary knows **every other record**. Breutigam & "
    "Reischuk ask what happens when the adversary knows only **how the data were generated**: "
    "N records, each with some property (a rare disease, say) with probability **π**. The "
    "query is the fraction of records with the property. The other records' randomness then "
    "acts as noise of its own, and the privacy curve δ(ε) can be far below the worst case."
)
st.caption(
    "This page does not use the population chosen in the sidebar: it is about a property "
    "query over N records that are each positive with probability π. N is the number of "
    "records and n the number sampled (the paper calls them n and m)."
)

preset_buttons(text.PRESETS, key="sp")

c1, c2, c3, c4 = st.columns([1, 2, 2, 2], gap="medium")
with c1:
    n = int(
        st.number_input(
            "Records N",
            min_value=1,
            max_value=100_000,
            value=1000,
            step=100,
            key="sp_n",
            bind="query-params",
            help="Database size N. The paper uses 1,000 records (and 100 for Figure 6).",
        )
    )
with c2:
    pi = log_float_control(
        "Property probability π",
        "sp_pi",
        default=0.5,
        min_value=1e-4,
        max_value=0.99,
        help="Each record has the property independently with this probability. δ is "
        "symmetric in π ↔ 1 − π.",
    )
with c3:
    eps = log_float_control(
        "Privacy parameter ε",
        "sp_eps",
        default=0.01,
        min_value=1e-4,
        max_value=10.0,
        help="The ε at which δ is read off. The paper uses ε = 0.01 (0.1 for Figure 7).",
    )
with c4:
    lam = log_float_control(
        "Sampling rate λ = n/N",
        "sp_lambda",
        default=0.1,
        min_value=1e-3,
        max_value=1.0,
        help="Subsampling answers the query on n = λ·N records drawn without replacement.",
    )

m = sp.sample_size(n, lam)
if lam * n < 0.5:
    st.warning(
        f"λ·N = {fmt(lam * n, 'plain')} rounds to an empty sample; using the smallest possible "
        "sample, "
        f"n = 1 (rate {fmt(1 / n, 'rate')}).",
        icon=":material/warning:",
    )


inputs = views.StatisticalInputs(n=n, pi=float(pi), eps=float(eps), lam=float(lam), m=m)

# Only the open tab computes (bind= makes the tabs lazy and puts the open tab in the URL).
with result_container("sp_view"):
    tabs = st.tabs(list(text.TABS), key="sp_view", bind="query-params")
    for tab, view in zip(tabs, views.TAB_VIEWS, strict=True):
        with tab:
            if tab.open:
                view(inputs)
