"""Router of the privacy–accuracy explorer: page config, global sidebar, navigation.

Run with ``streamlit run app.py`` (or ``make run``). Each page is a small script in ``pages/``;
the sidebar (active population and seed) is shared by all of them and lives in the URL.
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from ui.state import population_sidebar

HERE = Path(__file__).resolve().parent

#: (script, title, material icon) of every page, in menu order.
PAGES: tuple[tuple[str, str, str], ...] = (
    ("pages/overview.py", "Population", ":material/groups:"),
    ("pages/amplification.py", "Amplification", ":material/zoom_in:"),
)


def main(default_page: str = "pages/overview.py") -> None:
    """Configure the page, draw the shared sidebar and run the selected page.

    ``default_page`` is the page shown at the root URL; tests use it to open a page directly.
    """
    st.set_page_config(
        page_title="Sampling & privacy explorer",
        page_icon=":material/insights:",
        layout="wide",
        initial_sidebar_state="expanded",
    )
    pages = [
        st.Page(str(HERE / script), title=title, icon=icon, default=script == default_page)
        for script, title, icon in PAGES
    ]
    navigation = st.navigation(pages)
    with st.sidebar:
        st.markdown("### Sampling & privacy explorer")
        st.caption(
            "Can an agency that holds the whole population release a more accurate private "
            "statistic by privatising a random sample instead?"
        )
        population_sidebar()
        st.caption(
            "A teaching and analysis tool: it computes what the papers' formulas imply; it does "
            "not release real private statistics."
        )
    navigation.run()


if __name__ == "__main__":
    main()
