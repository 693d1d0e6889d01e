"""Figures and display tables of the Release planner page.

Builders return ``(figure, data_frame)``: the data frame holds exactly the numbers drawn, as
rows of :attr:`core.planner.PlanResult.table`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from core.planner import PlanResult
from ui.theme import PALETTE, chart_layout, line_trace, make_figure, reference_line

#: Columns of the planner's table kept in the chart data and the CSV, in this order.
TABLE_COLUMNS = (
    "design",
    "design_label",
    "mechanism",
    "mechanism_label",
    "rate",
    "n",
    "clusters_sampled",
    "eps_sample",
    "delta_sample",
    "rmse",
    "rmse_se",
    "error_95",
    "error_95_se",
    "sampling_part",
    "noise_part",
    "exact",
    "refined",
    "is_best",
)

#: Short design names for the table and the legend (the design list gives the full ones).
SHORT_DESIGNS = {
    "census": "Census",
    "srs": "SRS",
    "poisson": "Poisson",
    "stratified_proportional": "Stratified, proportional",
    "cluster": "Cluster",
    "neyman": "Neyman",
}


def short_design(name: str) -> str:
    """The short name of a design (falls back to the name)."""
    return SHORT_DESIGNS.get(name, name)


def short_mechanism(label: str) -> str:
    """A mechanism label without its statistic ("quantile, exponential mechanism" →
    "exponential mechanism")."""
    head, sep, tail = str(label).partition(", ")
    return tail if sep and head in ("median", "quantile", "mean") else str(label)


def statistic_words(statistic: str, quantile: float = 0.5) -> str:
    """The released statistic inside a sentence: "median", "mean" or "0.9-quantile".

    ``quantile`` is the level q of ``statistic="quantile"`` (the order statistic of rank
    ⌈qN⌉, :func:`core.sensitivity.quantile_rank`); it is ignored for the median and the mean.
    """
    if statistic == "quantile":
        return f"{float(quantile):g}-quantile"
    return str(statistic)


def series_name(design: str, mechanism_label: str) -> str:
    """Legend name of one design and mechanism."""
    return f"{short_design(design)}, {short_mechanism(mechanism_label)}"


#: How many Monte Carlo standard errors the error bars span on each side.
SE_MULTIPLE = 2.0


def objective_column(objective: str) -> tuple[str, str, str]:
    """(value column, standard-error column, axis title) of an objective name."""
    if objective == "rmse":
        return "rmse", "rmse_se", "RMSE (root mean squared error)"
    return "error_95", "error_95_se", "95 % error bound ±b₉₅"


def full_table(result: PlanResult) -> pd.DataFrame:
    """Every evaluated (design, mechanism, rate) row, in the planner's column order."""
    columns = [c for c in TABLE_COLUMNS if c in result.table.columns]
    return result.table.loc[:, columns].reset_index(drop=True)


def _hover(y_title: str) -> str:
    return (
        "%{customdata[0]}<br>rate %{x:.3g}, n ≈ %{customdata[1]:,.0f}<br>"
        "ε_sample %{customdata[2]:.4g}<br>"
        f"{y_title}: %{{y:.4g}} ± %{{customdata[3]:.2g}}<extra></extra>"
    )


def objective_figure(
    result: PlanResult, *, target: float | None = None
) -> tuple[go.Figure, pd.DataFrame]:
    """The objective against the rate: one line per design and mechanism.

    Error bars span ±2 Monte Carlo standard errors; the census (the best census mechanism)
    is a dotted horizontal line; the best plan is a large marker. The data are the rows of
    ``result.table`` that are drawn (every row; the census rows as the reference).
    ``target`` (a 95 % error bound the user needs) adds a dashed horizontal line.
    """
    value, se, y_title = objective_column(result.objective)
    table = full_table(result)
    traces: list[dict[str, Any]] = []
    sampled = table[table["design"] != "census"]
    for i, ((_, _), group) in enumerate(
        sampled.groupby(["design", "mechanism"], sort=False, dropna=False)
    ):
        group = group.sort_values("rate")
        name = series_name(str(group["design"].iloc[0]), str(group["mechanism_label"].iloc[0]))
        custom = np.column_stack(
            [
                np.full(len(group), name, dtype=object),
                group["n"].to_numpy(dtype=float),
                group["eps_sample"].to_numpy(dtype=float),
                (SE_MULTIPLE * group[se]).to_numpy(dtype=float),
            ]
        )
        traces.append(
            line_trace(
                group["rate"].to_numpy(dtype=float),
                group[value].to_numpy(dtype=float),
                name,
                i,
                _hover(y_title),
                mode="lines+markers",
                customdata=custom,
                error_y={
                    "type": "data",
                    "array": (SE_MULTIPLE * group[se]).to_numpy(dtype=float),
                    "visible": True,
                    "thickness": 1.2,
                    "width": 3,
                },
            )
        )
    shapes = []
    if result.census is not None:
        census_value = float(result.census[value])
        shapes.append(reference_line(census_value, text="census"))
        # An invisible series so the census appears in the legend and on hover.
        traces.append(
            {
                "type": "scatter",
                "x": [float(table["rate"].min()), 1.0],
                "y": [census_value, census_value],
                "mode": "lines",
                "name": series_name("census", str(result.census["mechanism_label"])),
                "line": {"color": "#555555", "dash": "dot", "width": 1.5},
                "hovertemplate": f"census: {y_title} %{{y:.4g}}<extra></extra>",
            }
        )
    if target is not None:
        line = reference_line(float(target), text="your bound")
        line["line"] = {"color": PALETTE[2], "dash": "dash", "width": 1.5}
        line["label"] = {"text": "your bound", "textposition": "start", "font": {"size": 12}}
        shapes.append(line)
    best = result.best
    traces.append(
        {
            "type": "scatter",
            "x": [float(best["rate"])],
            "y": [float(best[value])],
            "mode": "markers",
            "name": "best plan",
            "marker": {
                "symbol": "star",
                "size": 16,
                "color": PALETTE[3],
                "line": {"color": "black", "width": 1},
            },
            "hovertemplate": (
                f"best plan: {series_name(str(best['design']), str(best['mechanism_label']))}<br>"
                f"rate %{{x:.3g}}, {y_title} %{{y:.4g}}<extra></extra>"
            ),
        }
    )
    layout = chart_layout(
        title=f"{y_title} of the released "
        f"{statistic_words(result.statistic, result.quantile)} against the sampling rate "
        f"(ε_target = {result.eps_target:g})",
        x_title="sampling rate n/N",
        y_title=y_title,
        log_x=True,
        log_y=True,
        height=460,
        hovermode="closest",
    )
    layout["shapes"] = shapes
    return make_figure(traces, layout), table


def ranked_table(result: PlanResult) -> pd.DataFrame:
    """The best rate of each design and mechanism, ranked, in the page's words.

    Sampling and noise parts are shares of the mean squared error (they add up to 1); the
    gain is 1 − objective/objective of the census (positive: tighter than the census).
    """
    best = result.best_by_design
    mse = best["sampling_part"] + best["noise_part"]
    with np.errstate(divide="ignore", invalid="ignore"):
        sampling_share = np.where(mse > 0, best["sampling_part"] / mse, 0.0)
    return pd.DataFrame(
        {
            "design": [short_design(d) for d in best["design"]],
            "mechanism": [short_mechanism(m) for m in best["mechanism_label"]],
            "best rate": best["rate"].to_numpy(dtype=float),
            "n": best["n"].to_numpy(dtype=float),
            "ε_sample": best["eps_sample"].to_numpy(dtype=float),
            "RMSE": best["rmse"].to_numpy(dtype=float),
            "± se": best["rmse_se"].to_numpy(dtype=float),
            "95 % bound": best["error_95"].to_numpy(dtype=float),
            "sampling part": sampling_share,
            "noise part": 1.0 - sampling_share,
            "gain vs census": best["gain"].to_numpy(dtype=float)
            if "gain" in best
            else np.full(len(best), np.nan),
        }
    )


def composition_figure(curve: pd.DataFrame, *, eps_target: float) -> tuple[go.Figure, pd.DataFrame]:
    """Correct against naive ε_target for several statistics from one sample.

    ``curve`` has columns ``eps_target``, ``eps_target_correct`` (amplify the sum) and
    ``eps_target_naive`` (sum of the amplified parts); the page's ε_target is marked.
    """
    x = curve["eps_target"].to_numpy(dtype=float)
    hover = "promised ε_target %{x:.3g}: %{y:.4g}<extra>%{fullData.name}</extra>"
    traces = [
        line_trace(
            x,
            curve["eps_target_correct"].to_numpy(dtype=float),
            "compose on the sample, amplify once (right)",
            0,
            hover,
        ),
        line_trace(
            x,
            curve["eps_target_naive"].to_numpy(dtype=float),
            "amplify each part, then add (understates)",
            1,
            hover,
        ),
    ]
    layout = chart_layout(
        title="Guarantee for the population: composed then amplified, or amplified then added",
        x_title="promised ε_target",
        y_title="ε_target the calculation gives",
        log_x=True,
        log_y=True,
        hovermode="x unified",
    )
    layout["shapes"] = [
        {
            "type": "line",
            "xref": "x",
            "x0": float(eps_target),
            "x1": float(eps_target),
            "yref": "paper",
            "y0": 0,
            "y1": 1,
            "line": {"color": "#555555", "dash": "dot", "width": 1.5},
            # Horizontal, at the bottom of the line: clear of the curves and of a phone's edge.
            "label": {
                "text": "your ε_target",
                "textposition": "start",
                "textangle": 0,
                "xanchor": "left",
                "font": {"size": 12},
            },
        }
    ]
    return make_figure(traces, layout), curve.copy()
