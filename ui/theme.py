"""One palette and one chart style for every figure in the app.

The palette is Okabe & Ito's eight colours, chosen because they stay distinguishable for the
common forms of colour blindness; every series also gets its own dash pattern so a chart still
reads in grey scale or on a projector.
"""

from __future__ import annotations

import plotly.graph_objects as go

#: Okabe–Ito colours, in the order series are assigned.
PALETTE: tuple[str, ...] = (
    "#0072B2",  # blue
    "#E69F00",  # orange
    "#009E73",  # bluish green
    "#D55E00",  # vermillion
    "#CC79A7",  # reddish purple
    "#56B4E9",  # sky blue
    "#000000",  # black
    "#F0E442",  # yellow (last: weak on white)
)

#: Dash patterns paired with the palette, so that colour is never the only cue.
DASHES: tuple[str, ...] = ("solid", "dash", "dot", "dashdot", "longdash", "longdashdot")

#: Colour of reference lines (bounds, "no amplification", floors).
REFERENCE_COLOUR = "#555555"

FONT_FAMILY = "Source Sans Pro, Helvetica, Arial, sans-serif"


def series_style(index: int) -> dict[str, object]:
    """Line style (colour and dash) of the ``index``-th series of a chart."""
    return {
        "color": PALETTE[index % len(PALETTE)],
        "dash": DASHES[index % len(DASHES)],
        "width": 2.5,
    }


def style_figure(
    fig: go.Figure,
    *,
    title: str,
    x_title: str,
    y_title: str,
    log_x: bool = False,
    log_y: bool = False,
    height: int = 420,
    legend_title: str | None = None,
) -> go.Figure:
    """Apply the app's single chart style to ``fig`` in place and return it.

    Axis titles should carry the symbol and, where there is one, the unit, e.g.
    ``"sampling rate n/N"`` or ``"ε_sample (sample budget)"``.
    """
    fig.update_layout(
        title={"text": title, "x": 0.0, "xanchor": "left", "font": {"size": 17}},
        template="plotly_white",
        font={"family": FONT_FAMILY, "size": 14},
        height=height,
        margin={"l": 10, "r": 10, "t": 60, "b": 10},
        hovermode="x unified",
        colorway=list(PALETTE),
        showlegend=True,
        legend={
            "title": {"text": legend_title or ""},
            "orientation": "h",
            "yanchor": "bottom",
            "y": 1.0,
            "xanchor": "right",
            "x": 1.0,
        },
    )
    fig.update_xaxes(
        title_text=x_title,
        type="log" if log_x else "linear",
        showline=True,
        linecolor="#888",
        gridcolor="#e6e6e6",
        exponentformat="power" if log_x else "none",
        zeroline=False,
    )
    fig.update_yaxes(
        title_text=y_title,
        type="log" if log_y else "linear",
        showline=True,
        linecolor="#888",
        gridcolor="#e6e6e6",
        exponentformat="power" if log_y else "none",
        zeroline=False,
    )
    return fig


#: Plotly configuration for every chart: the camera button saves a PNG named after the chart.
def chart_config(filename: str) -> dict[str, object]:
    """Plotly ``config`` dict: PNG download at twice the screen resolution, no logo."""
    return {
        "displaylogo": False,
        "toImageButtonOptions": {"format": "png", "filename": filename, "scale": 2},
        "modeBarButtonsToRemove": ["lasso2d", "select2d"],
    }
