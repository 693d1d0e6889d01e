"""Summary table and histogram of the active population (Population page)."""

from __future__ import annotations

import math
import re
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from core.populations import Population, cluster_strata_note
from ui.theme import PALETTE, REFERENCE_COLOUR, chart_layout, make_figure


@st.cache_data(max_entries=32, show_spinner=False)
def population_summary(content_hash: str, _pop: Population) -> pd.DataFrame:
    """Summary statistics of ``_pop`` (cached by its content hash; the array is not hashed)."""
    v = _pop.values
    n = v.size
    mid = (n - 1) // 2
    rows = [
        ("Population size", "N", f"{n:,}"),
        ("Mean", "ȳ_N", f"{v.mean():.6g}"),
        ("Median (lower middle value)", "y_(⌈N/2⌉)", f"{v[mid]:.6g}"),
        ("Standard deviation", "S_N", f"{v.std(ddof=1):.6g}" if n > 1 else "—"),
        ("Smallest value", "y_(1)", f"{v[0]:.6g}"),
        ("Largest value", "y_(N)", f"{v[-1]:.6g}"),
        ("Declared lower bound", "L", f"{_pop.lower:.6g}"),
        ("Declared upper bound", "U", f"{_pop.upper:.6g}"),
        ("Declared range", "R = U − L", f"{_pop.upper - _pop.lower:.6g}"),
    ]
    if _pop.strata is not None:
        rows.append(("Strata", "H", f"{len(np.unique(_pop.strata)):,}"))
    if _pop.clusters is not None:
        rows.append(("Clusters", "K", f"{len(np.unique(_pop.clusters)):,}"))
    return pd.DataFrame(rows, columns=["quantity", "symbol", "value"])


@st.cache_data(max_entries=32, show_spinner=False)
def shared_cluster_note(content_hash: str, _pop: Population) -> str | None:
    """:func:`core.populations.cluster_strata_note` of ``_pop``, cached by its content hash."""
    return cluster_strata_note(_pop)


@st.cache_data(max_entries=32, show_spinner=False)
def histogram_data(content_hash: str, _pop: Population, bins: int, log_x: bool) -> pd.DataFrame:
    """Histogram counts of ``_pop`` between its declared bounds (log-spaced bins if asked)."""
    v = _pop.values
    if log_x:
        lo = max(_pop.lower, float(v[v > 0].min()) if np.any(v > 0) else 1e-12)
        edges = np.geomspace(lo, _pop.upper, bins + 1)
    else:
        edges = np.linspace(_pop.lower, _pop.upper, bins + 1)
    counts, edges = np.histogram(v, bins=edges)
    return pd.DataFrame({"bin_left": edges[:-1], "bin_right": edges[1:], "count": counts})


def _number(x: float) -> str:
    """A marker value for the legend: whole numbers with thousands separators, else 4 digits."""
    if float(x).is_integer() and abs(x) < 1e15:
        return f"{int(x):,}"
    return f"{x:.4g}"


def _marker_line(x: float, top: float, name: str, colour: str, dash: str) -> dict[str, Any]:
    """A vertical line from 0 to ``top`` at ``x``, named in the legend (never a floating label)."""
    return {
        "type": "scatter",
        "x": [x, x],
        "y": [0.0, top],
        "mode": "lines",
        "name": name,
        "line": {"color": colour, "dash": dash, "width": 2},
        "hovertemplate": f"{name}<extra></extra>",
        "showlegend": True,
    }


def histogram_figure(pop: Population, hist: pd.DataFrame, *, log_x: bool) -> go.Figure:
    """Bars of the histogram with the median, the mean and the declared bounds marked.

    The four markers are vertical lines named in the legend below the chart rather than
    labels drawn next to the lines: the median and the mean of a population are often a few
    pixels apart (and L sits next to them for a skewed population), so labels on the plot
    would overlap.
    """
    left = hist["bin_left"].to_numpy()
    right = hist["bin_right"].to_numpy()
    counts = hist["count"].to_numpy()
    centres = np.sqrt(left * right) if log_x else (left + right) / 2
    bars = {
        "type": "bar",
        "x": centres,
        "y": counts,
        "width": right - left,
        "marker": {"color": PALETTE[0], "line": {"width": 0}},
        "customdata": np.stack([left, right], axis=1),
        "hovertemplate": "%{customdata[0]:.4g} – %{customdata[1]:.4g}<br>%{y:,} records"
        "<extra></extra>",
        "name": "records",
        "showlegend": False,
    }
    v = pop.values
    median = float(v[(v.size - 1) // 2])
    mean = float(v.mean())
    top = float(max(counts.max(), 1)) * 1.05 if counts.size else 1.0
    markers = [
        _marker_line(median, top, f"median {_number(median)}", PALETTE[3], "dash"),
        _marker_line(mean, top, f"mean {_number(mean)}", PALETTE[2], "dot"),
    ]
    for bound, name in ((pop.lower, "L"), (pop.upper, "U")):
        if not (log_x and bound <= 0):
            line = _marker_line(bound, top, f"{name} = {_number(bound)}", REFERENCE_COLOUR, "solid")
            line["line"]["width"] = 1
            markers.append(line)
    layout = chart_layout(
        title=f"Distribution of {pop.value_label}",
        x_title=f"{pop.value_label} (y)",
        y_title="number of records",
        log_x=log_x,
        hovermode="closest",
    )
    layout.update({"bargap": 0})
    return make_figure([bars, *markers], layout)


_NUMBER_RUN = re.compile(r"(\d+(?:\.\d+)?)")


def label_sort_key(label: object) -> tuple[tuple[tuple[int, float, str], ...], ...]:
    """Natural order of a stratum or cluster label: numbers by value, text by its characters.

    A label that is a number ("10", "-1.5") sorts by its value; other labels sort by their
    runs of digits and text, so "5-9" comes before "10-19" and "R2" before "R10". A label
    built from several columns ("3 / 10") is compared part by part, so "3 / 2" comes before
    "3 / 10" and "2 / 1" before "10 / 1". Numbers come before text.
    """
    key = []
    for part in str(label).split(" / "):
        try:
            number = float(part)
        except ValueError:
            number = math.nan
        if math.isfinite(number):
            key.append(((0, number, ""), (2, 0.0, part)))
            continue
        runs = [t for t in _NUMBER_RUN.split(part) if t]
        tokens = [(0, float(t), "") if _NUMBER_RUN.fullmatch(t) else (1, 0.0, t) for t in runs]
        key.append((*tokens, (2, 0.0, part)))
    return tuple(key)


def group_counts(labels: np.ndarray, values: np.ndarray) -> pd.DataFrame:
    """Records, mean and standard deviation of the values per label (stratum or cluster).

    Rows are in natural order (:func:`label_sort_key`): 1, 2, …, 10 rather than 1, 10, 2.
    Labels that are all whole numbers are returned as integers, so a click on the column
    header sorts them by value too.
    """
    frame = pd.DataFrame({"label": labels, "value": values})
    out = (
        frame.groupby("label", sort=False)["value"]
        .agg(records="size", mean="mean", sd="std")
        .reset_index()
    )
    keys = [label_sort_key(x) for x in out["label"].tolist()]
    out = out.iloc[sorted(range(len(keys)), key=keys.__getitem__)].reset_index(drop=True)
    labels_in_order = [str(x) for x in out["label"].tolist()]
    if out["label"].dtype.kind not in "iu" and all(map(_is_plain_integer, labels_in_order)):
        out["label"] = [int(x) for x in labels_in_order]
    return out


def _is_plain_integer(text: str) -> bool:
    """True for text that is exactly the decimal form of an integer ("7", "-3"; not "07")."""
    try:
        return str(int(text)) == text
    except ValueError:
        return False
