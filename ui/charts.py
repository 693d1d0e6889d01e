"""Render a chart the way every page does: figure, downloads, plain words and the formula."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from ui.downloads import figure_html_bytes, frame_to_csv_bytes
from ui.theme import chart_config


def chart_block(
    fig: go.Figure,
    data: pd.DataFrame,
    *,
    key: str,
    explanation: str,
    formulas: Sequence[str] = (),
    note: str | None = None,
) -> None:
    """Show ``fig`` with its data and figure downloads, and beside it what it shows.

    Parameters
    ----------
    fig
        A figure built with :func:`ui.theme.make_figure` and :func:`ui.theme.chart_layout`.
    data
        The numbers plotted, in tidy form; offered as a CSV download (converted only when
        the button is clicked, so a large frame costs nothing on reruns).
    key
        Unique widget key stem, also used as the download file name.
    explanation
        One paragraph in plain words: what the reader sees and why.
    formulas
        LaTeX strings shown under the explanation with ``st.latex``.
    note
        Optional caption under the chart (e.g. a warning about rounding).
    """
    left, right = st.columns([3, 2], gap="medium")
    with left:
        st.plotly_chart(fig, key=f"chart_{key}", config=chart_config(key), width="stretch")
        if note:
            st.caption(note)
        c1, c2 = st.columns(2)
        c1.download_button(
            "Download data (CSV)",
            data=lambda: frame_to_csv_bytes(data),
            file_name=f"{key}.csv",
            mime="text/csv",
            key=f"csv_{key}",
            on_click="ignore",
            icon=":material/table:",
        )
        c2.download_button(
            "Download figure (HTML)",
            data=lambda: figure_html_bytes(fig),
            file_name=f"{key}.html",
            mime="text/html",
            key=f"html_{key}",
            on_click="ignore",
            icon=":material/image:",
            help="An interactive copy of the chart. For a PNG, use the camera icon on the chart.",
        )
    with right:
        st.markdown("**What you see**")
        st.markdown(explanation)
        for formula in formulas:
            st.latex(formula)


#: Key prefix of the expanders whose content is built and sent only once they are opened
#: (:func:`drawn_when_opened`): the "Reproduce in Python" snippets, secondary charts, links.
OPENED_PREFIX = "opened_"

#: The icon of a "Reproduce in Python" expander.
CODE_ICON = ":material/code:"


def drawn_when_opened(
    label: str, key: str, draw: Callable[[], None], icon: str, *, expanded: bool = False
) -> None:
    """A closed expander ``label`` whose content ``draw()`` is built and sent only once opened.

    For what a page offers beyond its first screen (a second view of the same numbers, the
    code that reproduces it): the page then opens without the browser drawing it, and a
    change of a control does not resend what nobody reads. Opening the expander reruns the
    page (or the fragment it sits in), which keeps it open. ``key`` (prefixed with
    :data:`OPENED_PREFIX`) must be unique on the page. With ``expanded`` it opens open (e.g.
    when a link sets a control it holds, which a closed expander would not draw).
    """
    box = st.expander(
        label, expanded=expanded, icon=icon, key=f"{OPENED_PREFIX}{key}", on_change="rerun"
    )
    with box:
        if box.open:
            draw()


def reproduce(code: str | Callable[[], str], key: str | None = None) -> None:
    """A "Reproduce in Python" expander holding ``code`` (a snippet calling core).

    With ``key`` the expander is drawn closed and empty, and its code (built then, when
    ``code`` is a function) is sent only once the reader opens it
    (:func:`drawn_when_opened`): a page then opens without the browser loading and running
    the code highlighter. Without ``key`` the code is always sent.
    """

    def show() -> None:
        st.code(code() if callable(code) else code, language="python")

    if key is None:
        with st.expander("Reproduce in Python", icon=CODE_ICON):
            show()
        return
    drawn_when_opened("Reproduce in Python", key, show, icon=CODE_ICON)
