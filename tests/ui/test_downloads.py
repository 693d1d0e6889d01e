"""CSV downloads keep numbers as numbers and neutralise spreadsheet formulas in text cells."""

from __future__ import annotations

import io

import pandas as pd
import plotly.graph_objects as go

from ui.downloads import figure_html_bytes, frame_to_csv_bytes


def test_numbers_stay_numbers_and_text_is_neutralised():
    frame = pd.DataFrame(
        {
            "=HYPERLINK()": [1.5, -2.0, 3.0],
            "label": ["=cmd|' /C calc'!A0", "+1", "plain"],
            "neg": [-1, -2, -3],
        }
    )
    text = frame_to_csv_bytes(frame).decode()
    back = pd.read_csv(io.StringIO(text))
    assert list(back.columns) == ["'=HYPERLINK()", "label", "neg"]
    assert back["label"].tolist() == ["'=cmd|' /C calc'!A0", "'+1", "plain"]
    assert back["neg"].tolist() == [-1, -2, -3]
    assert back["'=HYPERLINK()"].tolist() == [1.5, -2.0, 3.0]


def test_figure_html_is_standalone():
    html = figure_html_bytes(go.Figure(go.Scatter(x=[1, 2], y=[3, 4]))).decode()
    assert "<html>" in html[:100] and "plotly" in html.lower()
