"""Words, tables, heat map and batch config of the Publication tab's frequency tables.

Pure functions of a :class:`core.publication.frequency.FrequencyPlan` (no Streamlit), tested
without an app. The tab's controls are in :mod:`ui.planner.frequency`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from core.linear.mechanisms import LINEAR_MECHANISMS
from core.publication.composition import zcdp_design_refusal
from core.publication.frequency import FrequencyPlan
from ui.format import d3_format, fmt
from ui.planner import figures as figs
from ui.planner.publication_text import colour_bar_ticks, colour_span, threshold_colour_scale
from ui.theme import chart_layout, make_figure

#: The table types of the Publication tab: core's name → on-screen label.
TABLE_TYPES = {
    "statistics": "statistics by cell (median, mean, …)",
    "count": "frequency table (counts)",
    "total": "totals by cell",
}

#: What the heat map colours: name → on-screen label.
HEAT_VALUES = {
    "value": "the true value",
    "error_95": "95 % error bound",
    "relative_error": "relative 95 % error",
}

#: The page's default publishability threshold (a control).
DEFAULT_THRESHOLD = 0.5

#: Label of "let the plan choose" in the design and rate controls.
BEST = "best"

#: Columns of the on-screen cell table after the labels (core's name → shown name).
SHOWN_CELLS = {
    "value": "value",
    "rmse": "RMSE",
    "error_95": "b₉₅",
    "relative_error": "b₉₅ / value",
    "publishable": "publishable",
    "census_error_95": "census b₉₅",
    "census_publishable": "publishable (census)",
}


#: Columns shown when the release is rounded (core's name → shown name).
ROUNDED_CELLS = {
    "rmse_rounded": "RMSE rounded",
    "rounded_method": "RMSE rounded is",
    "census_rmse_rounded": "census RMSE rounded",
}


def mechanism_label(name: str) -> str:
    """On-screen name of a linear mechanism."""
    mech = LINEAR_MECHANISMS.get(name)
    return str(getattr(mech, "label", name))


def mechanisms_for(kind: str, integer_values: bool) -> list[str]:
    """The mechanisms offered: integer noise needs whole numbers (counts, integer totals)."""
    return [
        n
        for n, m in LINEAR_MECHANISMS.items()
        if not m.integer or kind == "count" or integer_values
    ]


def row_names(plan: FrequencyPlan) -> list[str]:
    """One name per row of the table: its labels joined by " / "."""
    return [" / ".join(lab) for lab in plan.cells.row_labels]


def shown_cells(plan: FrequencyPlan) -> pd.DataFrame:
    """The on-screen table of cells: the labels, then :data:`SHOWN_CELLS` and the note."""
    t = plan.table
    labels = [*plan.cells.row_names, *([plan.cells.column_name] if plan.cells.column else [])]
    shown = t[[*labels, *SHOWN_CELLS]].rename(columns=SHOWN_CELLS)
    for column, name in ROUNDED_CELLS.items():
        if column in t:
            shown[name] = t[column].to_numpy()
    if "error_95_method" in t:
        shown["b₉₅ is"] = t["error_95_method"].to_numpy()
    shown["note"] = t["note"].to_numpy()
    return shown


#: Columns of the on-screen table of row margins after the labels (core's name → shown name).
SHOWN_MARGINS = {
    "value": "row total",
    "rmse": "RMSE",
    "error_95": "b₉₅",
    "relative_error": "b₉₅ / value",
    "publishable": "publishable",
    "census_error_95": "census b₉₅",
}


def margin_words(share: float, balanced: float | None) -> str:
    """What the row margins are, what they cost, and why the projection keeps the promise."""
    words = (
        "Each row's total over the columns is released too, from the same sample with its "
        f"own noise at {fmt(share, 'share')} of ε_sample; the cells get the rest, so their "
        "noise grows (at an equal budget the projected cells are never more accurate than "
        "the cells alone). The cells are then moved to add up to their row's released "
        "total: that reads only the released numbers (post-processing), so the guarantee "
        "is kept, and the table shows the errors after it."
    )
    if balanced is not None:
        words += (
            f" For this table's columns, {fmt(balanced, 'share')} of ε_sample makes the "
            "total squared error of the cells and the margins together the smallest."
        )
    else:
        words += " Choose a column: a table of one column has nothing to add up."
    return words


def shown_margins(plan: FrequencyPlan) -> pd.DataFrame:
    """The on-screen table of released row margins (:data:`SHOWN_MARGINS`)."""
    if plan.margins is None:
        raise ValueError("the plan releases no row margins")
    m = plan.margins
    return m[[*plan.cells.row_names, *SHOWN_MARGINS]].rename(columns=SHOWN_MARGINS)


def table_csv_frame(plan: FrequencyPlan) -> pd.DataFrame:
    """The table's CSV: the cells, then (with row margins) one line per released margin,
    its column label ``row margin`` and a column ``released`` saying which is which."""
    if plan.margins is None:
        return plan.table
    cells = plan.table.assign(released="cell (projected onto its row margin)")
    margins = plan.margins.assign(released="row margin")
    if plan.cells.column is not None:
        margins[plan.cells.column_name] = "row margin"
    return pd.concat([cells, margins], ignore_index=True)[
        [*cells.columns, *[c for c in margins.columns if c not in cells.columns]]
    ]


def shown_designs(plan: FrequencyPlan) -> pd.DataFrame:
    """Every design and rate: ε_sample, the noise, the total RMSE and publishable cells."""
    d = plan.designs
    shown = pd.DataFrame(
        {
            "design": [figs.short_design(x) for x in d["design"]],
            "rate": d["rate"].to_numpy(),
            "ε_sample": d["eps_sample"].to_numpy(),
            "noise sd × weight": d["noise_sd"].to_numpy(),
            "RMSE over cells": d["rmse_total"].to_numpy(),
            "median b₉₅ / value": d["median_relative_error"].to_numpy(),
            "publishable cells": d["publishable"].to_numpy(),
        }
    )
    if "margin_rmse_total" in d:
        shown["RMSE over row margins"] = d["margin_rmse_total"].to_numpy()
    if plan.settings.get("rho_target") is not None:  # ρ-zCDP: no ε is spent
        shown = shown.drop(columns="ε_sample")
    return shown


def verdict_words(plan: FrequencyPlan) -> str:
    """The census against each design's best rate, in words."""
    d = plan.designs
    census = d[d["design"] == "census"].iloc[0]
    lines = [
        f"**Census:** {int(census['publishable'])} of {len(plan.table)} cells publishable, "
        f"RMSE over the cells {fmt(float(census['rmse_total']), 'error')} "
        + (
            f"(noise on every count, ε_sample = {fmt(float(census['eps_sample']), 'guarantee')})."
            if plan.settings.get("rho_target") is None
            else "(discrete Gaussian noise of σ = "
            f"{fmt(float(census['noise_parameter']), 'plain', 4)} on every cell, ρ-zCDP)."
        )
    ]
    for name, rows in d[d["design"] != "census"].groupby("design", sort=False):
        best = rows.sort_values("rmse_total", kind="stable").iloc[0]
        ratio = float(best["rmse_total"]) / float(census["rmse_total"])
        lines.append(
            f"**{figs.short_design(str(name))}:** at best (rate "
            f"{fmt(float(best['rate']), 'rate')}, ε_sample = "
            f"{fmt(float(best['eps_sample']), 'guarantee')}) its RMSE over the cells is "
            f"{fmt(ratio, 'plain')} × the census's, with {int(best['publishable'])} cells "
            "publishable: its estimator multiplies the noise by the weight "
            f"{fmt(float(best['weight']), 'plain')} while amplification lets it spend "
            "at most 1/rate times the budget, and the sample adds its own error."
        )
    lines.append(
        "Over the whole table the census wins under the same mechanism: privatise the "
        "whole register. Amplification helps a median, whose noise does not grow with the "
        "weight; a count's estimator multiplies its noise by the weight."
    )
    return "\n\n".join(lines)


def heatmap_figure(plan: FrequencyPlan, show: str) -> tuple[go.Figure, pd.DataFrame]:
    """Rows × columns coloured by ``show`` (:data:`HEAT_VALUES`); ✗ marks small cells.

    Relative errors use the diverging scale of the statistics table, meeting at the
    threshold and capped at twice it (or 1) so that a few hopeless cells do not wash out
    the rest (the hover gives the uncapped numbers). Returns the figure and its data (one
    row per cell).
    """
    if show not in HEAT_VALUES:
        raise ValueError(f"show must be one of {list(HEAT_VALUES)}; got {show!r}")
    t = plan.table
    cells = plan.cells
    rows, cols = row_names(plan), cells.column_labels
    shape = (cells.n_rows, cells.n_columns)
    data = pd.DataFrame(
        {
            "row": np.repeat(rows, cells.n_columns),
            "column": np.tile(cols, cells.n_rows),
            "value": t["value"].to_numpy(dtype=float),
            "error_95": t["error_95"].to_numpy(dtype=float),
            "relative_error": t["relative_error"].to_numpy(dtype=float),
            "publishable": t["publishable"].to_numpy(dtype=bool),
        }
    )
    limit = float(plan.settings["threshold"])
    raw = data[show].to_numpy(dtype=float).reshape(shape)
    ok = data["publishable"].to_numpy().reshape(shape)
    trace: dict[str, Any] = {"type": "heatmap", "x": cols, "y": rows}
    if show == "relative_error":
        cap = max(1.0, 2.0 * limit)
        z = np.where(np.isfinite(raw), np.minimum(raw, cap), cap)
        low, high = colour_span(z, limit)
        values, texts = colour_bar_ticks(low, high, limit)
        trace.update(
            z=z,
            zmin=low,
            zmax=high,
            colorscale=threshold_colour_scale(low, high, limit),
            colorbar={"title": {"text": "b₉₅ / value"}, "tickvals": values, "ticktext": texts},
        )
    else:
        trace.update(z=raw, colorscale="Blues", colorbar={"title": {"text": HEAT_VALUES[show]}})
    small = cells.n_cells <= 400
    text = np.where(ok, "", "✗")
    if small:
        text = np.char.add(text, [[_short(v, show) for v in row] for row in raw])
    trace.update(
        text=text,
        texttemplate="%{text}",
        customdata=np.dstack(
            [
                data["value"].to_numpy().reshape(shape),
                data["error_95"].to_numpy().reshape(shape),
                np.where(
                    np.isfinite(data["relative_error"]), data["relative_error"], np.nan
                ).reshape(shape),
            ]
        ),
        hovertemplate="%{y}, %{x}<br>value: %{customdata[0]:"
        + d3_format("value")
        + "}<br>b₉₅: %{customdata[1]:"
        + d3_format("error")
        + "}<br>b₉₅ / value: %{customdata[2]:"
        + d3_format("share")
        + "}<extra></extra>",
        name=HEAT_VALUES[show],
    )
    what = {"count": "Counts", "total": "Totals"}[str(plan.settings["kind"])]
    layout = chart_layout(
        title=f"{what} by cell: {HEAT_VALUES[show]} (✗: relative 95 % error above "
        f"{fmt(limit, 'share')})",
        x_title=cells.column_name or "",
        y_title=" / ".join(cells.row_names),
        height=max(320, 22 * cells.n_rows + 160),
        hovermode="closest",
    )
    layout["showlegend"] = False
    layout["yaxis"]["autorange"] = "reversed"
    layout["yaxis"]["type"] = "category"
    layout["xaxis"]["type"] = "category"
    for axis in ("xaxis", "yaxis"):
        layout[axis]["automargin"] = True
    return make_figure([trace], layout), data


def _short(value: float, show: str) -> str:
    if not math.isfinite(value):
        return "—"
    if show == "relative_error":
        return fmt(value, "share", 2)
    return fmt(value, "value", 3)


def frequency_config(population: Mapping[str, Any], settings: Mapping[str, Any]) -> dict[str, Any]:
    """The batch config (``table: frequency``) of the tab's settings."""
    config: dict[str, Any] = {
        "table": "frequency",
        "name": "frequency table from the release planner",
        "population": dict(population),
        "rows": list(settings["rows"]),
    }
    if settings.get("column") is not None:
        config["column"] = settings["column"]
    config.update(
        kind=settings["kind"],
        mechanism=settings["mechanism"],
        **(
            {
                "eps_target": float(settings["eps_target"]),
                "delta_target": float(settings["delta_target"]),
            }
            if settings.get("rho_target") is None
            else {"rho_target": float(settings["rho_target"])}
        ),
        relation=settings["relation"],
        labels_fixed=bool(settings["labels_fixed"]),
    )
    for key in ("designs", "rates", "design", "rate"):
        if settings.get(key) is not None:
            config[key] = settings[key]
    config["threshold"] = float(settings["threshold"])
    if settings.get("round_release"):
        config["round"] = True
    if settings.get("margins", "none") != "none":
        config["margins"] = settings["margins"]
        config["margin_share"] = float(settings["margin_share"])
    return config


def zcdp_words(plan: FrequencyPlan, compared: Sequence[str] = ()) -> str:
    """Under a ρ-zCDP promise: what is promised, the noise that keeps it, and why only the
    census is offered (claim 8 of :mod:`core.publication.composition`); ``compared`` are the
    page's designs, those left out named."""
    rho = float(plan.settings["rho_target"])
    census = plan.designs[plan.designs["design"] == "census"].iloc[0]
    lines = [
        f"**The promise is ρ = {fmt(rho, 'guarantee', 6)}-zCDP** for the whole table: every "
        "Rényi divergence D_α between the tables released on two neighbouring registers is "
        f"at most ρ·α. The discrete Gaussian keeps it exactly, with σ = Δ₂/√(2ρ) = "
        f"{fmt(float(census['noise_parameter']), 'plain', 4)} in every cell, where Δ₂ = "
        f"{fmt(float(plan.settings['l2_sensitivity']), 'plain', 4)} is the L2 sensitivity of "
        "the whole table; no ε_target is converted and no δ is spent.",
        "**Only the census is offered.** The amplification by sampling this planner counts "
        "on is proven for ε-DP, not for zCDP, so a sample's saving cannot be counted under "
        "a ρ promise; for a count or a total the census wins under the same noise anyway.",
    ]
    left_out = [*plan.unavailable, *(d for d in compared if zcdp_design_refusal(d))]
    if left_out:
        lines.append(
            "Not available under ρ: "
            + ", ".join(figs.short_design(d) for d in dict.fromkeys(left_out))
            + "."
        )
    return "\n\n".join(lines)
