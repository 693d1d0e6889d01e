"""CSV downloads keep numbers as numbers and neutralise spreadsheet formulas in text cells."""

from __future__ import annotations

import io

import pandas as pd
import plotly.graph_objects as go

from ui.downloads import (
    EXPORT_MARGIN,
    TITLE_STANDOFF,
    exported_figure,
    figure_html_bytes,
    frame_to_csv_bytes,
)


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


def test_exported_figure_makes_room_for_the_axes_and_leaves_the_page_chart_alone():
    page_chart = go.Figure(
        data=[go.Scatter(x=[0.1, 1.0], y=[1e3, 2e3], name="srs")],
        layout={
            "margin": {"l": 10, "r": 10, "t": 60, "b": 150},
            "xaxis": {"title": {"text": "sampling rate n/N", "standoff": 2}},
            "yaxis": {"title": {"text": "error", "standoff": 0}, "automargin": False},
        },
    )
    before = page_chart.to_plotly_json()
    laid_out = exported_figure(page_chart)
    assert page_chart.to_plotly_json() == before
    margin = laid_out.layout.margin
    assert (margin.l, margin.r) == (EXPORT_MARGIN["l"], EXPORT_MARGIN["r"])
    assert (margin.t, margin.b) == (60, 150)  # kept
    layout = laid_out.layout
    for axis, title in ((layout.xaxis, "sampling rate n/N"), (layout.yaxis, "error")):
        assert axis.automargin is True
        assert axis.title.standoff == TITLE_STANDOFF and axis.title.text == title
    assert laid_out.data == page_chart.data
    assert exported_figure(go.Figure(layout={"margin": {"l": 200}})).layout.margin.l == 200
    html = figure_html_bytes(page_chart).decode()
    assert f'"standoff":{TITLE_STANDOFF}' in html.replace(" ", "")
