"""Router of the privacy–accuracy explorer: page config, global sidebar, navigation.

Run with ``streamlit run app.py`` (or ``make run``). Each page is a small script in ``pages/``;
the sidebar (active population and seed) is shared by all of them and lives in the URL.
"""

from __future__ import annotations

import streamlit as st

from ui.state import population_sidebar

st.set_page_config(
    page_title="Sampling & privacy explorer",
    page_icon=":material/insights:",
    layout="wide",
    initial_sidebar_state="expanded",
)

PAGES = [
    st.Page("pages/overview.py", title="Population", icon=":material/groups:", default=True),
    st.Page("pages/amplification.py", title="Amplification", icon=":material/zoom_in:"),
]

navigation = st.navigation(PAGES)

with st.sidebar:
    st.markdown("### Sampling & privacy explorer")
    st.caption(
        "Can an agency that holds the whole population release a more accurate private "
        "statistic by privatising a random sample instead?"
    )
    population_sidebar()
    st.caption(
        "A teaching and analysis tool: it computes what the papers' formulas imply; it does not "
        "release real private statistics."
    )

navigation.run()
