"""Summary table and histogram of the active population (Population page)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from core.populations import Population
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


def _vertical_line(x: float, colour: str, dash: str, text: str) -> dict[str, Any]:
    return {
        "type": "line",
        "xref": "x",
        "yref": "paper",
        "x0": x,
        "x1": x,
        "y0": 0,
        "y1": 1,
        "line": {"color": colour, "dash": dash, "width": 2},
        "label": {"text": text, "textposition": "end", "yanchor": "top", "font": {"size": 12}},
    }


def histogram_figure(pop: Population, hist: pd.DataFrame, *, log_x: bool) -> go.Figure:
    """Bars of the histogram with the median, the mean and the declared bounds marked."""
    left = hist["bin_left"].to_numpy()
    right = hist["bin_right"].to_numpy()
    centres = np.sqrt(left * right) if log_x else (left + right) / 2
    bars = {
        "type": "bar",
        "x": centres,
        "y": hist["count"].to_numpy(),
        "width": right - left,
        "marker": {"color": PALETTE[0], "line": {"width": 0}},
        "customdata": np.stack([left, right], axis=1),
        "hovertemplate": "%{customdata[0]:.4g} – %{customdata[1]:.4g}<br>%{y:,} records"
        "<extra></extra>",
        "name": "records",
    }
    v = pop.values
    median = float(v[(v.size - 1) // 2])
    mean = float(v.mean())
    shapes = [
        _vertical_line(median, PALETTE[3], "dash", f"median {median:.4g}"),
        _vertical_line(mean, PALETTE[2], "dot", f"mean {mean:.4g}"),
    ]
    shapes[1]["label"]["textposition"] = "middle"  # keep the two labels apart
    for bound, name in ((pop.lower, "L"), (pop.upper, "U")):
        if not (log_x and bound <= 0):
            shapes.append(_vertical_line(bound, REFERENCE_COLOUR, "solid", f"{name} = {bound:.4g}"))
            shapes[-1]["line"]["width"] = 1
    layout = chart_layout(
        title=f"Distribution of {pop.value_label}",
        x_title=f"{pop.value_label} (y)",
        y_title="number of records",
        log_x=log_x,
        hovermode="closest",
    )
    layout.update({"shapes": shapes, "bargap": 0, "showlegend": False})
    return make_figure([bars], layout)


def group_counts(labels: np.ndarray, values: np.ndarray) -> pd.DataFrame:
    """Records, mean and standard deviation of the values per label (stratum or cluster)."""
    frame = pd.DataFrame({"label": labels, "value": values})
    out = (
        frame.groupby("label", sort=True)["value"]
        .agg(records="size", mean="mean", sd="std")
        .reset_index()
    )
    return out


def population_snippet(pop: Population, choice: str, seed: int) -> str:
    """Python that rebuilds the active population with :mod:`core.populations`."""
    if choice == "uploaded":
        make = (
            f'pop = load_population_csv("your_file.csv", value_column="{pop.value_label}", '
            f"lower={pop.lower:g}, upper={pop.upper:g})"
        )
    else:
        make = f'pop = make_builtin("{choice}", seed={seed})'
    return f"""from core.populations import load_population_csv, make_builtin

{make}
print(pop.size, pop.lower, pop.upper, pop.content_hash[:12])
print(pop.values[(pop.size - 1) // 2])  # the median rank used throughout the app
"""
