"""Mean and median gains: does privatising a sample ever beat privatising the population?"""

from __future__ import annotations

import streamlit as st

from ui.gains import text, views
from ui.state import active_population, active_seed
from ui.widgets import preset_buttons, result_container

st.title("Mean and median: is a private sample more accurate?")
st.markdown(
    "Sampling buys a larger budget ε_sample but costs sampling variance, and the statistic's "
    "sensitivity can grow as the data shrink. Hu, Drechsler & Kim show that the **mean** never "
    "gains, while the **median** with smooth-sensitivity noise can, for small ε or when the "
    "population is sparse around its median."
)

preset_buttons(text.PRESETS, key="gain")
inputs = views.GainsInputs(pop=active_population(), seed=active_seed())

# Only the open tab computes (bind= makes the tabs lazy and puts the open tab in the URL).
with result_container("gain_view"):
    tabs = st.tabs(list(text.TABS), key="gain_view", bind="query-params")
    for tab, view in zip(tabs, views.TAB_VIEWS, strict=True):
        with tab:
            if tab.open:
                view(inputs)
