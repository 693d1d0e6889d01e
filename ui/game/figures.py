"""The ROC chart of the Membership game: the student, the adversary and the DP bounds."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from core import games
from ui.format import fmt
from ui.theme import chart_layout, line_trace, make_figure, series_style

#: FPR grid of the bound curves: dense near 0, where large ε bend the curve sharply.
FPR_GRID = np.unique(np.r_[0.0, np.geomspace(1e-6, 1.0, 160), np.linspace(0.0, 1.0, 101)])
HOVER = "FPR %{x:,.3~r}<br>TPR %{y:,.3~r}<extra>%{fullData.name}</extra>"


def _rgba(hex_colour: str, alpha: float) -> str:
    h = hex_colour.lstrip("#")
    r, g, b = (int(h[i : i + 2], 16) for i in (0, 2, 4))
    return f"rgba({r},{g},{b},{alpha})"


def roc_figure(
    *,
    eps_target: float,
    cluster_eps: float | None,
    student: tuple[float, float] | None,
    adversary: pd.DataFrame | None,
    log_fpr: bool = False,
) -> tuple[go.Figure, pd.DataFrame]:
    """ROC chart and its data: bound region, cluster bound, adversary curves, student point.

    Parameters
    ----------
    eps_target : float
        The promise; its region is ``TPR ≤ core.games.tradeoff_bound(eps_target, 0, FPR)``.
    cluster_eps : float or None
        The loss clusters reach (Bun et al. Thm 5.3), drawn as a dashed bound; None for SRS.
    student : (fpr, tpr) or None
        The student's rates (None or NaN: not drawn).
    adversary : DataFrame or None
        Columns ``curve`` ("empirical", "exact"), ``fpr``, ``tpr``.
    log_fpr : bool
        A logarithmic FPR axis from 10⁻⁴ to 1, where the bound's slope e^ε is visible (a
        point with FPR = 0 is then off the chart).
    """
    frames = []
    traces: list[dict] = []
    bound = games.tradeoff_bound(eps_target, 0.0, FPR_GRID)
    name = f"allowed by ε_target = {fmt(eps_target, 'guarantee')}"
    colour = series_style(0)["color"]
    traces.append(
        line_trace(
            FPR_GRID,
            bound,
            name,
            0,
            HOVER,
            fill="tozeroy",
            fillcolor=_rgba(colour, 0.15),
        )
    )
    frames.append(pd.DataFrame({"series": name, "fpr": FPR_GRID, "tpr": bound}))
    diag = "coin toss (no information)"
    traces.append(
        line_trace(
            FPR_GRID,
            FPR_GRID,
            diag,
            5,
            HOVER,
            line={"color": "#888888", "dash": "dot", "width": 1},
        )
    )
    if cluster_eps is not None:
        cb = games.tradeoff_bound(cluster_eps, 0.0, FPR_GRID)
        cname = f"what clusters allow: ε = {fmt(cluster_eps, 'guarantee')} (Thm 5.3)"
        traces.append(
            line_trace(FPR_GRID, cb, cname, 1, HOVER, line={**series_style(1), "dash": "dash"})
        )
        frames.append(pd.DataFrame({"series": cname, "fpr": FPR_GRID, "tpr": cb}))
    if adversary is not None:
        labels = {
            "exact": "best test, exact",
            "empirical": "automatic adversary, 10,000 rounds",
        }
        for i, curve in ((2, "exact"), (3, "empirical")):
            part = adversary[adversary["curve"] == curve]
            extra = {"mode": "lines+markers", "marker": {"size": 4}} if curve == "empirical" else {}
            traces.append(line_trace(part["fpr"], part["tpr"], labels[curve], i, HOVER, **extra))
            frames.append(
                pd.DataFrame({"series": labels[curve], "fpr": part["fpr"], "tpr": part["tpr"]})
            )
    if student is not None and not any(math.isnan(v) for v in student):
        sname = "you"
        traces.append(
            {
                "type": "scatter",
                "x": [student[0]],
                "y": [student[1]],
                "mode": "markers",
                "name": sname,
                "marker": {"size": 16, "symbol": "star", "color": series_style(4)["color"]},
                "hovertemplate": HOVER,
            }
        )
        frames.append(pd.DataFrame({"series": [sname], "fpr": [student[0]], "tpr": [student[1]]}))
    layout = chart_layout(
        title="Your guesses against what ε allows",
        x_title="false-positive rate FPR",
        y_title="true-positive rate TPR",
        hovermode="closest",
        height=460,
        log_x=log_fpr,
    )
    layout["xaxis"] = {**layout["xaxis"], "range": [-4, 0.01] if log_fpr else [-0.02, 1.02]}
    layout["yaxis"] = {**layout["yaxis"], "range": [-0.02, 1.04]}
    return make_figure(traces, layout), pd.concat(frames, ignore_index=True)
