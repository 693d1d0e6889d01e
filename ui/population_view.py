"""Summary table and histogram of the active population (Population page)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st
from core.populations import Population

from ui.theme import PALETTE, REFERENCE_COLOUR, style_figure


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


def histogram_figure(pop: Population, hist: pd.DataFrame, *, log_x: bool) -> go.Figure:
    """Bars of the histogram with the median, the mean and the declared bounds marked."""
    centres = (hist["bin_left"] + hist["bin_right"]) / 2
    fig = go.Figure(
        go.Bar(
            x=centres,
            y=hist["count"],
            width=hist["bin_right"] - hist["bin_left"],
            marker={"color": PALETTE[0], "line": {"width": 0}},
            customdata=np.stack([hist["bin_left"], hist["bin_right"]], axis=1),
            hovertemplate="%{customdata[0]:.4g} – %{customdata[1]:.4g}<br>%{y:,} records"
            "<extra></extra>",
            name="records",
        )
    )
    v = pop.values
    median = float(v[(v.size - 1) // 2])
    fig.add_vline(
        x=median,
        line={"color": PALETTE[3], "dash": "dash", "width": 2},
        annotation_text=f"median {median:.4g}",
        annotation_position="top right",
    )
    fig.add_vline(
        x=float(v.mean()),
        line={"color": PALETTE[2], "dash": "dot", "width": 2},
        annotation_text=f"mean {v.mean():.4g}",
        annotation_position="top left",
    )
    for bound, name in ((pop.lower, "L"), (pop.upper, "U")):
        if not (log_x and bound <= 0):
            fig.add_vline(x=bound, line={"color": REFERENCE_COLOUR, "width": 1})
            fig.add_annotation(
                x=np.log10(bound) if log_x else bound,
                y=0,
                yref="paper",
                text=f"{name} = {bound:.4g}",
                showarrow=False,
                yanchor="top",
                yshift=-2,
                font={"size": 11, "color": REFERENCE_COLOUR},
            )
    style_figure(
        fig,
        title=f"Distribution of {pop.value_label}",
        x_title=f"{pop.value_label} (y)",
        y_title="number of records",
        log_x=log_x,
    )
    fig.update_layout(hovermode="closest", bargap=0, showlegend=False)
    return fig


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
