"""Bytes for the download buttons: chart data as CSV, figures as standalone HTML.

:func:`exported_figure` lays a page's chart out for a page of its own; the planner's method
report embeds its chart through it too.
"""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from core.populations import csv_safe_text


def frame_to_csv_bytes(frame: pd.DataFrame) -> bytes:
    """CSV bytes of ``frame`` with text cells neutralised for spreadsheets.

    Column names and text cells that start with ``=``, ``+``, ``-``, ``@``, a tab or a carriage
    return get a leading apostrophe so a spreadsheet shows them instead of evaluating them;
    numeric columns are written unchanged so they stay numbers.
    """
    safe = frame.copy()
    safe.columns = [csv_safe_text(str(c)) for c in safe.columns]
    for col in safe.columns:
        if not pd.api.types.is_numeric_dtype(safe[col]) and not pd.api.types.is_bool_dtype(
            safe[col]
        ):
            safe[col] = safe[col].map(lambda v: csv_safe_text(v) if isinstance(v, str) else v)
    return safe.to_csv(index=False, float_format="%.12g").encode("utf-8")


#: Margins (pixels) of an exported chart at the least: room on the left for the y tick labels
#: and the y-axis title beside them, on the right for the last x tick label (such as "1" at
#: the right end of a rate axis). Plotly's automargin grows them when a label needs more.
EXPORT_MARGIN = {"l": 96, "r": 36}
#: Gap (pixels) between an axis title and its tick labels, so the title never sits on them.
TITLE_STANDOFF = 16


def exported_figure(fig: go.Figure) -> go.Figure:
    """A copy of a page's chart laid out for a page of its own; ``fig`` itself is unchanged.

    On a page a chart keeps its margins small (Streamlit gives it a column's width); exported
    (the figure download, the planner's method report) it is a plotly element on a plain
    page, so its margins are set here: at least :data:`EXPORT_MARGIN`, automargin on both
    axes (plotly widens a margin for long tick labels instead of clipping them at the
    figure's edge) and each axis title :data:`TITLE_STANDOFF` pixels from its tick labels.
    The traces are not touched.
    """
    layout = fig.layout.to_plotly_json()
    margin = dict(layout.get("margin") or {})
    for side, least in EXPORT_MARGIN.items():
        margin[side] = max(int(margin.get(side) or 0), least)
    layout["margin"] = margin
    for axis in ("xaxis", "yaxis"):
        settings = dict(layout.get(axis) or {})
        title = settings.get("title") or {}
        title = {"text": title} if isinstance(title, str) else dict(title)
        settings["title"] = {**title, "standoff": TITLE_STANDOFF}
        settings["automargin"] = True
        layout[axis] = settings
    return go.Figure(data=fig.data, layout=layout)


def figure_html_bytes(fig: go.Figure) -> bytes:
    """A self-contained interactive HTML copy of ``fig`` (plotly.js embedded, works offline),
    laid out by :func:`exported_figure`."""
    return exported_figure(fig).to_html(include_plotlyjs=True, full_html=True).encode("utf-8")
