"""Bytes for the download buttons: chart data as CSV, figures as standalone HTML."""

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


def figure_html_bytes(fig: go.Figure) -> bytes:
    """A self-contained interactive HTML copy of ``fig`` (plotly.js embedded, works offline)."""
    return fig.to_html(include_plotlyjs=True, full_html=True).encode("utf-8")
