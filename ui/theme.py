"""One palette and one chart style for every figure in the app.

The palette is Okabe & Ito's eight colours, chosen because they stay distinguishable for the
common forms of colour blindness; every series also gets its own dash pattern so a chart still
reads in grey scale or on a projector.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from typing import Any, TypedDict

import numpy as np
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
#: "dot" comes last: dotted lines are reserved for references (bounds, worst cases, floors).
DASHES: tuple[str, ...] = ("solid", "dash", "dashdot", "longdash", "longdashdot", "dot")

#: Colour of reference lines (bounds, "no amplification", floors).
REFERENCE_COLOUR = "#555555"

FONT_FAMILY = "Source Sans Pro, Helvetica, Arial, sans-serif"


class SeriesStyle(TypedDict):
    """Colour, dash and width of one series (see :func:`series_style`)."""

    color: str
    dash: str
    width: float


def series_style(index: int) -> SeriesStyle:
    """Line style (colour and dash) of the ``index``-th series of a chart."""
    return {
        "color": PALETTE[index % len(PALETTE)],
        "dash": DASHES[index % len(DASHES)],
        "width": 2.5,
    }


def _axis(title: str, log: bool) -> dict[str, object]:
    return {
        "title": {"text": title},
        "type": "log" if log else "linear",
        "showline": True,
        "linecolor": "#888",
        "gridcolor": "#e6e6e6",
        "exponentformat": "power" if log else "none",
        "zeroline": False,
        "ticks": "outside",
        "tickcolor": "#888",
        # Plotly's default ("hide past div") measures every tick label in the page after each
        # draw, and each measurement makes the browser lay out the whole page again: on a page
        # of several charts that is most of the time spent drawing them. The figure's margins
        # (automargin) already keep the labels inside the chart.
        "ticklabeloverflow": "allow",
    }


#: A small template (white background, our font and colours). Plotly's built-in
#: ``plotly_white`` costs ~10 ms to apply per figure; this one costs well under 1 ms.
TEMPLATE = go.layout.Template(
    layout={
        "paper_bgcolor": "white",
        "plot_bgcolor": "white",
        "font": {"family": FONT_FAMILY, "size": 14, "color": "#1F2933"},
        "colorway": list(PALETTE),
        "hoverlabel": {"font": {"family": FONT_FAMILY}},
    }
)


#: Longest chart-title line, in characters. A chart sits in 3/5 of the main column on a
#: laptop (about 560 px at 1280 px wide) and takes the full width on a phone, so longer
#: titles are broken into lines at word boundaries instead of running off the figure.
TITLE_LINE_CHARS = 52
#: Longest line of an axis title: a phone's chart is about 330 px wide.
AXIS_LINE_CHARS = 46

#: Space above the plot area: the title starts below plotly's toolbar (the modebar, about
#: 25 px high in the top-right corner), so the toolbar never covers a long title.
TITLE_TOP_PAD = 36


def _balanced_lines(text: str, width: int) -> list[str]:
    """Word-wrap ``text`` into as few lines as ``width`` allows, of similar lengths."""
    n_lines = len(textwrap.wrap(text, width=width, break_long_words=False)) or 1
    target = max(10, -(-len(text) // n_lines))  # ceil: the shortest width giving n_lines
    for w in range(target, width + 1):
        lines = textwrap.wrap(text, width=w, break_long_words=False)
        if len(lines) <= n_lines:
            return lines
    return textwrap.wrap(text, width=width, break_long_words=False)


def wrap_title(title: str, width: int = TITLE_LINE_CHARS) -> str:
    """Break a chart title into lines of at most ``width`` characters, joined by ``<br>``.

    A trailing parenthesis (the parameters, e.g. ``"(ε = 1, n = 100)"``) goes on a line of
    its own when that is enough; otherwise words are spread evenly over the fewest lines.
    Existing ``<br>`` breaks are kept; a single word longer than ``width`` is never split.
    """
    if width < 10:
        raise ValueError(f"width must be at least 10 characters, got {width}")
    lines: list[str] = []
    for part in title.split("<br>"):
        part = " ".join(part.split())
        head, paren, tail = part.rpartition(" (")
        if len(part) <= width:
            lines.append(part)
        elif paren and tail.endswith(")") and len(head) <= width and len(tail) + 1 <= width:
            lines.extend([head, "(" + tail])
        else:
            lines.extend(_balanced_lines(part, width) or [""])
    return "<br>".join(lines)


def category_ticks(labels: Sequence[str], width: int = 12) -> dict[str, list[str]]:
    """Tick values and texts of a category axis whose long labels wrap onto lines of at most
    ``width`` characters (:func:`wrap_title`): a phone gives a category 60–90 px, so
    "Proportional, randomised rounding" on one line runs into its neighbours."""
    return {"tickvals": list(labels), "ticktext": [wrap_title(x, width) for x in labels]}


def chart_layout(
    *,
    title: str,
    x_title: str,
    y_title: str,
    log_x: bool = False,
    log_y: bool = False,
    height: int = 420,
    legend_title: str | None = None,
    hovermode: str = "x unified",
) -> dict[str, Any]:
    """The app's one chart style as a plotly layout dict.

    Axis titles should carry the symbol and, where there is one, the unit, e.g.
    ``"sampling rate n/N"`` or ``"ε_sample (budget on the sample)"``. Long titles are
    wrapped (:func:`wrap_title`) and placed below the chart toolbar; the top margin grows
    with the number of title lines so the plot keeps its height for the data.
    """
    wrapped = wrap_title(title)
    n_lines = wrapped.count("<br>") + 1
    return {
        "template": TEMPLATE,
        "title": {
            "text": wrapped,
            "x": 0.0,
            "xanchor": "left",
            "xref": "container",
            "y": 1.0,
            "yanchor": "top",
            "yref": "container",
            # plotly lifts a multi-line title by about half a line per extra line
            "pad": {"t": TITLE_TOP_PAD + 13 * (n_lines - 1), "l": 8},
            "font": {"size": 17},
        },
        "height": height + 22 * (n_lines - 1),
        "margin": {"l": 10, "r": 10, "t": TITLE_TOP_PAD + 26 * n_lines + 10, "b": 10},
        "hovermode": hovermode,
        "showlegend": True,
        "legend": {
            "title": {"text": legend_title or ""},
            "orientation": "h",
            # At the foot of the figure, whatever the plot's height: plotly grows the
            # bottom margin to hold it below the tick labels and the x-axis title.
            "yref": "container",
            "yanchor": "bottom",
            "y": 0.0,
            "xanchor": "left",
            "x": 0.0,
        },
        "xaxis": _axis(wrap_title(x_title, AXIS_LINE_CHARS), log_x),
        "yaxis": _axis(wrap_title(y_title, AXIS_LINE_CHARS), log_y),
    }


def make_figure(traces: Sequence[dict[str, Any]], layout: dict[str, Any]) -> go.Figure:
    """Build a figure in one validated step from trace dicts and a :func:`chart_layout`.

    Building from dicts once is ~5x cheaper than ``add_trace``/``update_layout`` calls on an
    existing figure, which keeps every page interaction well under 100 ms.
    """
    return go.Figure(data=list(traces), layout=layout)


def line_trace(x: Any, y: Any, name: str, index: int, hover: str, **extra: Any) -> dict[str, Any]:
    """A line series in the ``index``-th colour and dash, with a hover template."""
    style = series_style(index)
    return {
        "type": "scatter",
        "x": x,
        "y": y,
        "mode": "lines",
        "name": name,
        "line": style,
        "marker": {"color": style["color"], "size": 7},
        "hovertemplate": hover,
        **extra,
    }


def rgba(colour: str, alpha: float) -> str:
    """A ``#rrggbb`` colour as a CSS ``rgba(...)`` string of opacity ``alpha``."""
    red, green, blue = (int(colour[i : i + 2], 16) for i in (1, 3, 5))
    return f"rgba({red}, {green}, {blue}, {alpha})"


#: Opacity of an uncertainty band's fill.
BAND_OPACITY = 0.16


def band_segments(
    x: Any, lower: Any, upper: Any, *, floor: float | None = None
) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """The pieces of a band between ``lower`` and ``upper`` over ``x``, as drawn.

    The points are put in the order of ``x``; a point where ``x``, ``lower`` or ``upper``
    is not a finite number (a rate with no estimate) is a gap that ends one piece and starts
    the next, so no fill ever spans it. With ``floor`` (the bottom of a log axis, which can
    show nothing at or below 0) both edges are raised to it. Returns ``(x, lower, upper)``
    of each piece, ``x`` increasing.
    """
    xs = np.asarray(x, dtype=float).ravel()
    lo = np.asarray(lower, dtype=float).ravel()
    hi = np.asarray(upper, dtype=float).ravel()
    if not xs.size == lo.size == hi.size:
        raise ValueError(
            f"x, lower and upper must have one value per point; got {xs.size}, {lo.size} "
            f"and {hi.size}"
        )
    if floor is not None and not (np.isfinite(floor) and floor > 0):
        raise ValueError(f"floor must be a finite number > 0; got {floor!r}")
    order = np.argsort(xs, kind="stable")
    xs, lo, hi = xs[order], lo[order], hi[order]
    if floor is not None:
        lo, hi = np.maximum(lo, floor), np.maximum(hi, floor)  # NaN stays NaN: a gap
    known = np.isfinite(xs) & np.isfinite(lo) & np.isfinite(hi)
    pieces = []
    start = None
    for i, ok in enumerate([*known, False]):
        if ok and start is None:
            start = i
        elif not ok and start is not None:
            pieces.append((xs[start:i], lo[start:i], hi[start:i]))
            start = None
    return pieces


def band_trace(
    x: Any,
    lower: Any,
    upper: Any,
    *,
    colour: str,
    name: str,
    floor: float | None = None,
    opacity: float = BAND_OPACITY,
    legendgroup: str | None = None,
) -> dict[str, Any]:
    """An uncertainty band as one filled scatter trace: the app's one band builder.

    Each piece of :func:`band_segments` is closed on itself (its upper edge in the order of
    ``x``, then its lower edge back), the pieces joined by gaps (``None``), so a band
    follows its own line and never fills across a point with no estimate. The band has no
    legend entry and no hover of its own (its line carries both). For a line with a
    Monte Carlo interval pass ``lower = y − spread`` and ``upper = y + spread``.
    """
    xs: list[float | None] = []
    ys: list[float | None] = []
    for px, lo, hi in band_segments(x, lower, upper, floor=floor):
        if xs:
            xs.append(None)
            ys.append(None)
        xs.extend([*px.tolist(), *px[::-1].tolist()])
        ys.extend([*hi.tolist(), *lo[::-1].tolist()])
    trace: dict[str, Any] = {
        "type": "scatter",
        "x": xs,
        "y": ys,
        "mode": "lines",
        "fill": "toself",
        "fillcolor": rgba(colour, opacity),
        "line": {"width": 0, "color": rgba(colour, 0.0)},
        "connectgaps": False,
        "hoverinfo": "skip",
        "showlegend": False,
        "name": name,
    }
    if legendgroup is not None:
        trace["legendgroup"] = legendgroup
    return trace


def reference_line(
    y: float, *, text: str | None = None, below: bool = False, at_start: bool = False
) -> dict[str, object]:
    """A dotted horizontal line across the plot as a layout shape (cheaper than add_hline).

    ``text`` labels its right end (its left end with ``at_start``), above the line, or below
    it with ``below`` (for a line at the top of the plot, whose label would otherwise be cut
    off).
    """
    shape: dict[str, object] = {
        "type": "line",
        "xref": "paper",
        "x0": 0,
        "x1": 1,
        "yref": "y",
        "y0": y,
        "y1": y,
        "line": {"color": REFERENCE_COLOUR, "dash": "dot", "width": 1.5},
    }
    if text:
        position = "start" if at_start else "end"
        label: dict[str, object] = {"text": text, "textposition": position, "font": {"size": 12}}
        if below:
            label["yanchor"] = "top"
        shape["label"] = label
    return shape


#: Plotly configuration for every chart: the camera button saves a PNG named after the chart.
def chart_config(filename: str) -> dict[str, object]:
    """Plotly ``config`` dict: PNG download at twice the screen resolution, no logo."""
    return {
        "displaylogo": False,
        "toImageButtonOptions": {"format": "png", "filename": filename, "scale": 2},
        "modeBarButtonsToRemove": ["lasso2d", "select2d"],
    }


#: Key prefix of the containers that hold a page's results (``ui.widgets.result_container``).
RESULT_PREFIX = "result_"
#: Result containers drawn only inside another result container (the planner's tabs, inside
#: ``plan_view``). They carry no rules of their own: the container that holds them fades, or
#: fades what follows a box inside it, and a nested container styled too would be faded twice.
NESTED_RESULTS = frozenset({"plan_accuracy", "plan_several", "plan_pub"})
#: The caption of a greyed-out result (see :func:`stale_css`).
STALE_RESULT_TEXT = (
    "Out of date: a number box holds a value outside its range (marked in red). "
    "Fix it and this result is recomputed."
)
#: The caption under a refused number box inside a result container (a box on a tab; the
#: results after a box above every result container carry :data:`STALE_RESULT_TEXT`).
STALE_BOX_TEXT = "Not applied: the results below are out of date."
_INVALID = ':has(input[aria-invalid="true"])'
#: What a Streamlit block holds: an element, a column, tabs, a tab's panel, or a layout wrapper
#: (containers, expanders, rows of columns). Every "after the box" relation is between two of
#: these; the rules name them instead of ``*`` so that the browser tests them only on a
#: block's children and not on every node of a chart.
BLOCK_CHILDREN = (
    ".stElementContainer",
    ".stColumn",
    ".stTabs",
    '[data-testid="stTabPanel"]',
    '[data-testid="stLayoutWrapper"]',
)
_HOLDER = f":is({', '.join(BLOCK_CHILDREN)}){_INVALID}"


def stale_css(name: str) -> str:
    """The CSS that greys out the result container ``name`` while a number box before it is
    refused.

    A number box whose typed value is outside its range turns red (``aria-invalid``) and the
    browser never sends the value, so the results after it still belong to the last valid
    input: the container is faded, cannot be clicked, and carries :data:`STALE_RESULT_TEXT`
    until the value is fixed. "After" means a later sibling, or inside a later sibling, of a
    block child holding the box in the page's main area, or anywhere on the page when the box
    is in the sidebar (the seed). Content after a box inside the container is faded too, and
    the box says so (:data:`STALE_BOX_TEXT`).

    The rules name the container by its own class and the block children by theirs, so that
    they cost the browser nothing while no box is red: each page sends only its own
    containers' rules (``ui.widgets.result_container``), and no rule matches every element
    or reads every element's class attribute.

    Parameters
    ----------
    name : str
        The container's name (its key is ``RESULT_PREFIX + name``).

    Returns
    -------
    str
        The rules, for a ``<style>`` element.
    """
    box = f".st-key-{RESULT_PREFIX}{name}"
    stale = [
        f".stMain {_HOLDER} ~ {box}",
        f".stMain {_HOLDER} ~ * {box}",
        f'[data-testid="stSidebar"]{_INVALID} ~ * .stMain {box}',
    ]
    faded = [f"{rule} > {child}" for rule in stale for child in BLOCK_CHILDREN]
    after = [f".stMain {box} {_HOLDER} ~ {child}" for child in BLOCK_CHILDREN]
    lines = ",\n".join
    return f"""{lines(stale)} {{ pointer-events: none; user-select: none;
  border-top: 3px solid #D55E00; }}
{lines(faded)} {{ opacity: 0.3; filter: grayscale(1); }}
{lines(rule + "::before" for rule in stale)} {{ content: "{STALE_RESULT_TEXT}"; display: block;
  font-weight: 600; padding-top: 0.25rem; }}
{lines(after)} {{ opacity: 0.3; filter: grayscale(1); pointer-events: none; user-select: none; }}
.stMain {box} .stElementContainer{_INVALID}::after {{ content: "{STALE_BOX_TEXT}";
  display: block; font-size: 0.875rem; color: #B33F00; padding-top: 0.25rem; }}
"""


#: Labels that would end in "…" in a narrow column wrap onto a second line instead: button
#: labels (presets, downloads), metric labels, widget labels and the upload widget's hint;
#: tab bars and the chips of a multiselect wrap onto more lines instead of scrolling. A
#: label cut short hides the words that tell two choices apart ("Poisson sampling, same
#: fracti…"); tests/e2e/test_layout.py fails on any that is.
WRAP_CSS = """
.stButton button p, .stDownloadButton button p, [data-testid="stMetricLabel"] p,
[data-testid="stMetricLabel"] div, [data-testid="stWidgetLabel"] p,
[data-testid="stFileUploaderDropzoneInstructions"] span {
  white-space: normal !important; overflow: visible !important;
  text-overflow: clip !important; overflow-wrap: anywhere;
}
[data-testid="stTabs"] [role="tablist"] { flex-wrap: wrap; overflow: visible !important; }
[data-testid="stMultiSelectTagsContainer"],
[data-testid="stMultiSelectTagsContainer"] > [role="group"] {
  flex-wrap: wrap !important; overflow: visible !important; height: auto !important;
}
[data-testid="stMultiSelect"] [role="group"]:has(> [data-testid="stMultiSelectTagsContainer"]) {
  height: auto !important; max-height: none !important;
}
[data-testid="stMultiSelectTagsContainer"] [data-tag] { max-width: 100%; height: auto; }
[data-testid="stMultiSelectTagsContainer"] [data-tag] > span {
  white-space: normal !important; overflow: visible !important; text-overflow: clip !important;
}
"""

#: On a phone a table of many columns cannot fit the screen; it scrolls sideways, and a line
#: under it says so (tests/e2e/test_layout.py lets a table scroll only at phone widths).
TABLE_HINT_CSS = """
@media (max-width: 640px) {
  [data-testid="stDataFrame"]::after {
    content: "Swipe the table sideways to see every column.";
    display: block; font-size: 0.8rem; color: #5b6770; padding-top: 0.25rem;
  }
}
"""

#: App-wide CSS, injected once by the router (ui/router.py). Phones (≤ 640 px) get smaller
#: page and chart titles; long formulas scroll inside their column instead of being cut;
#: long words in headings wrap instead of running off the screen; the exact-value boxes that
#: a page keeps behind a toggle (``ui.widgets`` with ``exact=False``) are drawn but not shown.
#: Nothing is cut short (:data:`WRAP_CSS`). The rules that grey out results after a refused
#: number box come with each result container (:func:`stale_css`).
APP_CSS = (
    """
h1, h2, h3 { overflow-wrap: anywhere; }
[class*="st-key-hidden_box_"] { display: none !important; }
.katex-display { overflow-x: auto; overflow-y: hidden; padding-bottom: 2px; }
@media (max-width: 640px) {
  h1 { font-size: 1.75rem !important; }
  h2 { font-size: 1.4rem !important; }
  .js-plotly-plot .gtitle { font-size: 14px !important; }
  .katex-display > .katex { font-size: 1em; }
}
"""
    + WRAP_CSS
    + TABLE_HINT_CSS
)
