"""Navigation and the shared sidebar of the app, used by ``app.py`` (and by the page tests).

Streamlit executes ``app.py`` as a script (its ``__name__`` is not ``"__main__"``), so the
router lives here as a function: ``app.py`` calls :func:`run_app`, and the tests call it with
another landing page.
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from ui.glossary import glossary_expander
from ui.state import page_notices, population_sidebar
from ui.theme import APP_CSS
from ui.widgets import write_presets_to_url

ROOT = Path(__file__).resolve().parents[1]

#: Title of the About page; the glossary under it starts open.
ABOUT_TITLE = "About and references"

#: (script, title, material icon) of every page, in menu order.
PAGES: tuple[tuple[str, str, str], ...] = (
    ("app_pages/overview.py", "Population", ":material/groups:"),
    ("app_pages/amplification.py", "Amplification", ":material/zoom_in:"),
    ("app_pages/gains.py", "Mean & median gains", ":material/query_stats:"),
    ("app_pages/clusters.py", "Cluster sampling", ":material/workspaces:"),
    ("app_pages/strata.py", "Stratified sampling", ":material/stacked_bar_chart:"),
    ("app_pages/statistical.py", "Statistical privacy", ":material/casino:"),
    ("app_pages/about.py", ABOUT_TITLE, ":material/info:"),
)


def run_app(default_page: str = "app_pages/overview.py") -> None:
    """Configure the page, draw the shared sidebar, run the selected page, add the glossary.

    ``default_page`` is the page shown at the root URL; tests use it to open a page directly.
    The sidebar starts collapsed on narrow (phone) screens and open on wider ones.
    """
    st.set_page_config(
        page_title="Sampling & privacy explorer",
        page_icon=":material/insights:",
        layout="wide",
        initial_sidebar_state="auto",  # collapsed on phones, open on wider screens
    )
    pages = [
        st.Page(str(ROOT / script), title=title, icon=icon, default=script == default_page)
        for script, title, icon in PAGES
        if (ROOT / script).exists()  # pages under construction appear once their file exists
    ]
    navigation = st.navigation(pages)
    st.html(f"<style>{APP_CSS}</style>")
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
    page_notices()
    navigation.run()
    glossary_expander(expanded=navigation.title == ABOUT_TITLE)
    write_presets_to_url()
