"""Figures and display tables of the Release planner page.

Builders return ``(figure, data_frame)``: the data frame holds exactly the numbers drawn, as
rows of :attr:`core.planner.PlanResult.table`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from core.designs.registry import DESIGNS
from core.mechanisms import MECHANISMS
from core.planner import MEAN_MECHANISMS, QUANTILE_MECHANISMS, PlanResult
from core.planner.usability import is_usable
from core.resolution import exact_threshold
from ui.format import d3_format, fmt
from ui.theme import (
    DASHES,
    PALETTE,
    REFERENCE_COLOUR,
    band_trace,
    chart_layout,
    line_trace,
    make_figure,
    reference_line,
)

#: core's names of the planner's table that the chart data and the CSV rename for what they
#: mean (core's ``is_best`` marks the best rate of each design and mechanism, not one plan).
RENAMED_COLUMNS = {"is_best": "best_rate_of_design_mechanism"}

#: Columns of the planner's table kept in the chart data and the CSV, in this order (with
#: :data:`RENAMED_COLUMNS` applied; ``recommended`` is added by :func:`full_table`). Each is
#: described in :data:`ui.planner.exports.plan_table.PLAN_TABLE_COLUMNS` and the README.
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
    "error_95_low",
    "error_95_high",
    "error_95_method",
    "rmse_post",
    "error_95_post",
    "post_method",
    "sampling_part",
    "noise_part",
    "exact",
    "refined",
    "best_rate_of_design_mechanism",
    "recommended",
    "usable",
    "accounting",
)

#: Short design names for the table and the legend (the design list gives the full ones).
SHORT_DESIGNS = {name: d.short_label for name, d in DESIGNS.items()}


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


#: Mechanisms in the legend: a few words each, so one entry fits a phone's width (the
#: hover, the ranked list and the design list give the full names).
LEGEND_MECHANISMS = {
    "smooth_laplace": "smooth sensitivity (Laplace)",
    "smooth_pure": "smooth sensitivity (pure ε)",
    "exponential": "exponential mechanism",
    "global_laplace": "global Laplace",
    "smooth_polyplace": "PolyPlace smooth sensitivity",
    "piecewise_laplace": "piecewise Laplace",
    "unbounded": "unbounded quantile",
    "laplace": "Laplace (R/n)",
    "gaussian": "Gaussian (analytic)",
    "ht_mean": "noisy centred sum",
    "sum_count": "noisy sum / noisy count",
}
#: Designs in the legend (the stratified design's full short name is too long for a phone).
LEGEND_DESIGNS = {**SHORT_DESIGNS, "stratified_proportional": "Stratified"}
_LABEL_NAMES = {cls.label: name for name, cls in MECHANISMS.items()}


def legend_mechanism(mechanism_label: str) -> str:
    """A mechanism's legend words, from its label (falls back to the short label)."""
    name = _LABEL_NAMES.get(str(mechanism_label))
    return (
        LEGEND_MECHANISMS.get(name, short_mechanism(mechanism_label))
        if name
        else (short_mechanism(mechanism_label))
    )


def series_name(design: str, mechanism_label: str) -> str:
    """Legend name of one design and mechanism ("SRS, exponential mechanism")."""
    return f"{LEGEND_DESIGNS.get(design, design)}, {legend_mechanism(mechanism_label)}"


#: How many Monte Carlo standard errors the error bars span on each side.
SE_MULTIPLE = 2.0
#: Core's ends of a row's Monte Carlo interval, by objective: the 95 % bound's is an
#: order-statistic interval, not always symmetric about the estimate.
INTERVAL_COLUMNS = {"error_95": ("error_95_low", "error_95_high")}


def interval(rows: pd.DataFrame, value: str, se: str) -> tuple[np.ndarray, np.ndarray]:
    """The Monte Carlo interval of each row's ``value``: core's ends where the table has
    them (:data:`INTERVAL_COLUMNS`), else ``value ± SE_MULTIPLE · se``. The band drawn
    around a line is this interval."""
    ends = INTERVAL_COLUMNS.get(value)
    if ends is not None and all(c in rows.columns for c in ends):
        return rows[ends[0]].to_numpy(dtype=float), rows[ends[1]].to_numpy(dtype=float)
    y = rows[value].to_numpy(dtype=float)
    spread = SE_MULTIPLE * rows[se].to_numpy(dtype=float)
    return y - spread, y + spread


#: Space under the plot for the x tick labels and the x-axis title, and per legend line.
AXIS_BELOW_PX = 78
LEGEND_LINE_PX = 21


def axis_title(objective: str) -> str:
    """The short y-axis title of an objective (the chart title names it in full)."""
    return "RMSE" if objective == "rmse" else "±b₉₅, the 95 % error bound"


def objective_column(objective: str) -> tuple[str, str, str]:
    """(value column, standard-error column, axis title) of an objective name."""
    if objective == "rmse":
        return "rmse", "rmse_se", "RMSE (root mean squared error)"
    return "error_95", "error_95_se", "95 % error bound ±b₉₅"


def recommended_rows(result: PlanResult) -> np.ndarray:
    """A boolean per row of ``result.table``: true on the one row of the recommended plan.

    The recommendation is ``result.recommended``: the first of the best rows (one per design
    and mechanism, ranked by the objective) when it beats the census by more than its Monte
    Carlo uncertainty, else the best census row (:func:`core.planner.claims.recommended_row`);
    it is found as the best row of its design and mechanism (its rate too, should a table
    lack ``is_best``).
    """
    table, best = result.table, result.recommended
    flags = (table["design"].to_numpy(dtype=object) == best["design"]) & (
        table["mechanism"].to_numpy(dtype=object) == best["mechanism"]
    )
    if "is_best" in table.columns:
        flags &= table["is_best"].to_numpy(dtype=bool)
    else:
        flags &= table["rate"].to_numpy(dtype=np.float64) == float(best["rate"])
    if flags.sum() != 1:
        raise ValueError(
            f"the recommended plan ({best['design']}, {best['mechanism']}, rate {best['rate']}) "
            f"matches {int(flags.sum())} rows of the table, not one"
        )
    return flags


def full_table(
    result: PlanResult,
    *,
    usable_share: float | None = None,
    lower: float = 0.0,
    upper: float = math.inf,
) -> pd.DataFrame:
    """Every evaluated (design, mechanism, rate) row, in the planner's column order.

    Columns are :data:`TABLE_COLUMNS` (those core provides), core's ``is_best`` renamed
    ``best_rate_of_design_mechanism`` (true on one row per design and mechanism),
    ``recommended`` true on exactly one row, the plan the page recommends
    (:func:`recommended_rows`) and, given ``usable_share``, ``usable``: whether the row's 95 %
    bound is within that share of the population value (or of the declared range
    ``upper − lower`` when the value is 0), the rule of
    :func:`core.planner.usability.is_usable` that the page's verdict uses.
    """
    table = result.table.rename(columns=RENAMED_COLUMNS)
    table["recommended"] = recommended_rows(result)
    if usable_share is not None:
        value = float(result.population_value)
        table["usable"] = [
            is_usable(float(b), value, lower, upper, usable_share) for b in table["error_95"]
        ]
    columns = [c for c in TABLE_COLUMNS if c in table.columns]
    return table.loc[:, columns].reset_index(drop=True)


#: What the main chart draws: each design's best mechanism (default) or every mechanism; a
#: mechanism's name instead draws that mechanism across the designs.
BEST_LINES = "best"
ALL_LINES = "all"

#: A colour per design (Okabe–Ito), so a design keeps its colour whatever else is drawn; the
#: census is the grey reference line and the best plan the vermillion star.
DESIGN_COLOURS = dict(
    zip(
        [name for name, d in DESIGNS.items() if not d.reference],
        [c for i, c in enumerate(PALETTE) if i not in (3, 6)],
        strict=False,
    )
)
_OTHER_DESIGN_COLOUR = PALETTE[6]
BEST_COLOUR = PALETTE[3]
TARGET_COLOUR = PALETTE[6]

#: Dashes beyond the theme's five for the mechanisms (a plotly dash-length list).
_MORE_DASHES = ("8px,3px,2px,3px,2px,3px",)
#: A dash per mechanism ("dot" is kept for the reference lines).
MECHANISM_DASHES: dict[str, str] = {
    **{m: (DASHES[:5] + _MORE_DASHES)[i % 6] for i, m in enumerate(QUANTILE_MECHANISMS)},
    **{m: DASHES[i % 5] for i, m in enumerate(MEAN_MECHANISMS)},
}

#: The axis starts this factor below the smallest error that matters (room for its band).
FLOOR_MARGIN = 3.0
#: The axis ends this factor above the largest error drawn, and spans at least MIN_DECADES.
TOP_MARGIN = 1.5
MIN_DECADES = 1.0
#: Below this many decades plotly labels every digit of a log axis; only 2 and 5 are kept.
FEW_DECADES = 1.5
#: A band top counts for the range up to this factor above the largest error drawn.
BAND_TOP_LIMIT = 3.0


def design_colour(design: str) -> str:
    """The colour of a design's lines (the same in every chart mode)."""
    return DESIGN_COLOURS.get(design, _OTHER_DESIGN_COLOUR)


def mechanism_dash(mechanism: str) -> str:
    """The dash pattern of a mechanism's lines."""
    return MECHANISM_DASHES.get(mechanism, "solid")


def drawn_rows(result: PlanResult, lines: str = BEST_LINES) -> pd.DataFrame:
    """The sampled designs' rows the chart draws, in the planner's column order.

    ``lines``: :data:`BEST_LINES` keeps each design's best mechanism (the one of its best
    row), :data:`ALL_LINES` every mechanism, a mechanism's name that mechanism only (every
    design's best mechanism when no design has it).
    """
    table = full_table(result)
    designs = table["design"].to_numpy(dtype=object)
    mechanisms = table["mechanism"].to_numpy(dtype=object)
    keep = designs != "census"
    if lines != ALL_LINES:
        mine = keep & (mechanisms == lines) if lines != BEST_LINES else None
        if mine is not None and mine.any():
            keep = mine
        else:
            # Each design's best mechanism: that of its first row in the ranking.
            best = result.best_by_design
            chosen: dict[str, str] = {}
            for design, mechanism in zip(best["design"], best["mechanism"], strict=True):
                chosen.setdefault(str(design), str(mechanism))
            keep &= np.array(
                [chosen.get(d) == m for d, m in zip(designs, mechanisms, strict=True)], dtype=bool
            )
    return table[keep].reset_index(drop=True)


def census_reference(result: PlanResult, lines: str = BEST_LINES) -> pd.Series | None:
    """The census row drawn as the reference: the chosen mechanism's, else the best one."""
    if lines not in (BEST_LINES, ALL_LINES):
        table = result.table
        mine = table[(table["design"] == "census") & (table["mechanism"] == lines)]
        if len(mine):
            return mine.iloc[0]
    return result.census


@dataclass(frozen=True)
class ErrorScale:
    """The error axis: what counts as exact, where the axis starts and ends.

    Attributes
    ----------
    threshold
        Errors at or below it are exact to the data's resolution
        (:func:`core.resolution.exact_threshold`; 0 when the resolution is unknown).
    floor
        The bottom of the axis: a third of the smallest error that matters (above the
        threshold). Anything smaller is drawn at the floor.
    top
        The top of the axis.
    """

    threshold: float
    floor: float
    top: float

    def clip(self, values: np.ndarray) -> np.ndarray:
        """``values`` raised to the floor (what a log axis can show)."""
        return np.maximum(np.asarray(values, dtype=float), self.floor)


def error_scale(
    values: np.ndarray, uppers: np.ndarray, *, step: float | None, extra: tuple[float, ...] = ()
) -> ErrorScale:
    """The axis of errors ``values`` (with band tops ``uppers``) at a resolution ``step``.

    Only errors above the exactness threshold choose the range (``extra``: the census and
    the target lines); errors at or below it are exact and sit at the floor.
    """
    threshold = exact_threshold(step)
    every = np.concatenate([np.asarray(values, float), np.asarray(extra, float)])
    matter = every[np.isfinite(every) & (every > threshold)]
    tops = np.concatenate([np.asarray(uppers, float), matter])
    tops = tops[np.isfinite(tops) & (tops > threshold)]
    if matter.size:
        # A band far above its line (few repetitions) is cut by the top rather than
        # squeezing every line into the bottom of the chart.
        low = float(matter.min())
        high = min(float(tops.max()), float(matter.max()) * BAND_TOP_LIMIT)
    else:  # everything exact: one decade around the threshold
        low = high = threshold if threshold > 0 else 1.0
    floor = low / FLOOR_MARGIN
    top = max(high * TOP_MARGIN, floor * 10**MIN_DECADES)
    return ErrorScale(threshold=threshold, floor=floor, top=top)


def _scale_of(
    result: PlanResult, rows: pd.DataFrame, step: float | None, target: float | None
) -> ErrorScale:
    value, se, _ = objective_column(result.objective)
    census = census_reference(result, BEST_LINES if rows.empty else str(rows["mechanism"].iloc[0]))
    extra = [] if census is None else [float(census[value])]
    if target is not None:
        extra.append(float(target))
    values = rows[value].to_numpy(dtype=float)
    return error_scale(values, interval(rows, value, se)[1], step=step, extra=tuple(extra))


def exact_note(
    result: PlanResult,
    *,
    lines: str = BEST_LINES,
    resolution: float | None = None,
    target: float | None = None,
) -> str | None:
    """The caption under the chart when some error is drawn at the floor (None otherwise)."""
    value, _, _ = objective_column(result.objective)
    rows = drawn_rows(result, lines)
    census = census_reference(result, lines)
    scale = _scale_of(result, rows, resolution, target)
    drawn = rows[value].to_numpy(dtype=float)
    if census is not None:
        drawn = np.append(drawn, float(census[value]))
    if not (drawn < scale.floor).any():
        return None
    if resolution is None:
        return (
            f"Errors below {fmt(scale.floor, 'error')} are drawn on the bottom edge of the "
            "chart; hover a point for its value."
        )
    return (
        f"Errors at or below {fmt(scale.threshold, 'error')}, a hundredth of the data's "
        f"resolution ({fmt(resolution, 'value')}, the step in which its values are "
        "recorded), are exact to the data's resolution: they are drawn on the bottom edge of "
        "the chart, and only the larger errors set its range. Hover a point for its value."
    )


def _point_text(
    name: str, row: dict[str, Any], y_title: str, value: str, se: str, threshold: float
) -> str:
    error = float(row[value])
    ends = INTERVAL_COLUMNS.get(value, ("", ""))
    low, high = (float(row.get(c, math.nan)) for c in ends) if ends[0] else (math.nan,) * 2
    if math.isfinite(low) and math.isfinite(high) and high > low:
        words = f"{fmt(error, 'error')} (Monte Carlo interval {fmt(low, 'error')} to "
        words += f"{fmt(high, 'error')})"
    else:
        words = f"{fmt(error, 'error')} ± {fmt(SE_MULTIPLE * float(row[se]), 'error')}"
    lines = [
        name,
        f"rate {fmt(row['rate'], 'rate')}, n ≈ {fmt(row['n'], 'count')}",
        f"ε_sample {fmt(row['eps_sample'], 'guarantee')}",
        f"{y_title}: {words}",
    ]
    if error <= threshold:
        lines.append("exact to the data's resolution")
    accounting = row.get("accounting")
    if isinstance(accounting, str) and accounting:
        lines.append(f"accounting: {accounting}")
    return "<br>".join(lines)


def records_of(table: pd.DataFrame) -> list[dict[str, Any]]:
    """The rows of ``table`` as dictionaries of Python scalars (``to_dict("records")``,
    built from whole columns: pandas builds records a cell at a time)."""
    columns = [table[c].tolist() for c in table.columns]
    names = list(table.columns)
    return [dict(zip(names, values, strict=True)) for values in zip(*columns, strict=True)]


def _line_and_band(
    group: pd.DataFrame,
    name: str,
    scale: ErrorScale,
    value: str,
    se: str,
    y_title: str,
) -> list[dict[str, Any]]:
    design, mechanism = str(group["design"].iloc[0]), str(group["mechanism"].iloc[0])
    colour = design_colour(design)
    x = group["rate"].to_numpy(dtype=float)
    y = group[value].to_numpy(dtype=float)
    low, high = interval(group, value, se)
    records = records_of(group)
    # The band follows its own line: its Monte Carlo interval, in rate order, raised to
    # the axis floor, split where a rate has no estimate (ui.theme.band_trace).
    band = band_trace(
        x,
        low,
        high,
        colour=colour,
        name=f"{name} (Monte Carlo interval)",
        floor=scale.floor,
        legendgroup=name,
    )
    line = {
        "type": "scatter",
        "x": x,
        "y": scale.clip(y),
        "mode": "lines+markers",
        "name": name,
        "legendgroup": name,
        "line": {"color": colour, "dash": mechanism_dash(mechanism), "width": 2.5},
        "marker": {"color": colour, "size": 7},
        "cliponaxis": False,
        "text": [_point_text(name, r, y_title, value, se, scale.threshold) for r in records],
        "hovertemplate": "%{text}<extra></extra>",
    }
    return [band, line]


def objective_figure(
    result: PlanResult,
    *,
    target: float | None = None,
    lines: str = BEST_LINES,
    resolution: float | None = None,
) -> tuple[go.Figure, pd.DataFrame]:
    """The objective against the rate: a line per design (its colour) and mechanism (its dash).

    ``lines`` chooses the lines (:func:`drawn_rows`): by default each design's best
    mechanism. Each line carries a band of ±2 Monte Carlo standard errors. The census (the
    reference, :func:`census_reference`) is a dotted horizontal line labelled at the end
    away from the best plan's star. The y axis is chosen from the errors that matter
    (:func:`error_scale`, with the data's ``resolution``): errors exact to the resolution
    are drawn at the floor. ``target`` (a 95 % error bound the user needs) adds a dashed
    line. The data are the rows drawn (the census row last) with ``drawn_at``, the height
    drawn.
    """
    value, se, y_title = objective_column(result.objective)
    rows = drawn_rows(result, lines)
    census = census_reference(result, lines)
    scale = _scale_of(result, rows, resolution, target)
    traces: list[dict[str, Any]] = []
    for (design, _), group in rows.groupby(["design", "mechanism"], sort=False):
        group = group.sort_values("rate")
        name = series_name(str(design), str(group["mechanism_label"].iloc[0]))
        traces.extend(_line_and_band(group, name, scale, value, se, y_title))
    low_rate = float(rows["rate"].min()) if len(rows) else float(result.table["rate"].min())
    best = result.recommended  # the star marks the plan the verdict recommends
    star_x = float(best["rate"])
    shapes: list[dict[str, Any]] = []
    target_below = census_below = False
    if census is not None:
        census_value = float(census[value])
        exact = census_value <= scale.threshold
        drawn = float(scale.clip(np.array([census_value]))[0])
        # Label the end away from the star (the census star sits at rate 1, the right end).
        span = math.log10(1.0 / low_rate) if low_rate < 1 else 1.0
        star_right = math.log10(star_x / low_rate) > span / 2 if low_rate < 1 else True
        label = "census (exact)" if exact else "census"
        if target is not None:
            # Two lines, often close (accuracy first finds the ε_target at which the best
            # bound meets the user's): both labelled at the end away from the star, the
            # upper line's label above it, the lower one's below it (unless it lies on the
            # floor), so neither label sits on the other line or on the star.
            target_below = float(target) < drawn
            census_below = not target_below and drawn > scale.floor
        shapes.append(reference_line(drawn, text=label, at_start=star_right, below=census_below))
        name = series_name("census", str(census["mechanism_label"]))
        traces.append(
            {
                "type": "scatter",
                "x": [low_rate, 1.0],
                "y": [drawn, drawn],
                "mode": "lines",
                "name": name,
                "line": {"color": REFERENCE_COLOUR, "dash": "dot", "width": 1.5},
                "text": [_point_text(name, census.to_dict(), y_title, value, se, scale.threshold)]
                * 2,
                "hovertemplate": "%{text}<extra></extra>",
            }
        )
    if target is not None:
        # At the census label's end, away from the star (which sits on or below this line):
        # the two labels are on the outer sides of the two lines, so they never meet.
        at_start = True if census is None else star_right
        line = reference_line(
            float(target), text="your bound", at_start=at_start, below=target_below
        )
        line["line"] = {"color": TARGET_COLOUR, "dash": "dash", "width": 1.5}
        shapes.append(line)
    best_name = series_name(str(best["design"]), str(best["mechanism_label"]))
    traces.append(
        {
            "type": "scatter",
            "x": [star_x],
            "y": scale.clip(np.array([float(best[value])])),
            "mode": "markers",
            "name": "best plan",
            "cliponaxis": False,
            "marker": {
                "symbol": "star",
                "size": 16,
                "color": BEST_COLOUR,
                "line": {"color": "black", "width": 1},
            },
            "text": [
                "best plan: "
                + _point_text(best_name, best.to_dict(), y_title, value, se, scale.threshold)
            ],
            "hovertemplate": "%{text}<extra></extra>",
        }
    )
    layout = chart_layout(
        title=f"{y_title} of the released "
        f"{statistic_words(result.statistic, result.quantile)} against the sampling rate "
        f"(ε_target = {fmt(result.eps_target, 'guarantee')})",
        x_title="sampling rate n/N (log scale)",
        y_title=f"{axis_title(result.objective)} (data's units)",
        log_x=True,
        log_y=True,
        height=460,
        hovermode="closest",
    )
    layout["shapes"] = shapes
    # The legend sits at the bottom of the figure, in a margin reserved for one entry a line
    # (a phone's width): it can never ride up onto the axis titles, however it wraps.
    entries = sum(1 for t in traces if t.get("showlegend", True))
    layout["height"] += LEGEND_LINE_PX * entries
    layout["margin"]["b"] = AXIS_BELOW_PX + LEGEND_LINE_PX * entries
    layout["legend"]["font"] = {"size": 13}  # at the foot of the figure (chart_layout)
    layout["yaxis"]["range"] = [math.log10(scale.floor), math.log10(scale.top)]
    decades = math.log10(scale.top / scale.floor)
    if decades < FEW_DECADES:
        layout["yaxis"]["dtick"] = "D2"  # label 2 and 5 in each decade, not every digit
    else:
        layout["yaxis"]["dtick"] = 1  # decades only: a phone's axis has no room for more
    layout["yaxis"]["title"]["standoff"] = 8
    layout["xaxis"]["title"]["standoff"] = 14
    layout["xaxis"]["automargin"] = True
    layout["yaxis"]["automargin"] = True
    data = rows.copy()
    if census is not None:
        row = pd.DataFrame([census.to_dict()]).reindex(columns=data.columns)
        data = pd.concat([data, row], ignore_index=True)
    data["drawn_at"] = scale.clip(data[value].to_numpy(dtype=float))
    return make_figure(traces, layout), data


def ranked_table(result: PlanResult) -> pd.DataFrame:
    """The best rate of each design and mechanism, ranked, in the page's words.

    Sampling and noise parts are shares of the mean squared error (they add up to 1); the
    gain is 1 − objective/objective of the census (positive: tighter than the census), and
    ``beats census`` says whether it exceeds its Monte Carlo uncertainty
    (:func:`core.planner.claims.beats_reference`). The
    ``accounting`` column (the amplification bound behind ε_sample, in words) is kept when
    core's table has it.
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
            "beats census": best["beats_census"].to_numpy(dtype=bool)
            if "beats_census" in best
            else (
                best["gain"].to_numpy(dtype=float) > 0
                if "gain" in best
                else np.zeros(len(best), bool)
            ),
            **(
                {
                    "RMSE after rounding": best["rmse_post"].to_numpy(dtype=float),
                    "95 % bound after rounding": best["error_95_post"].to_numpy(dtype=float),
                }
                if "rmse_post" in best.columns
                else {}
            ),
            **(
                {"accounting": best["accounting"].astype(str).to_list()}
                if "accounting" in best.columns
                else {}
            ),
        }
    )


def composition_figure(curve: pd.DataFrame, *, eps_target: float) -> tuple[go.Figure, pd.DataFrame]:
    """Correct against naive ε_target for several statistics from one sample.

    ``curve`` has columns ``eps_target``, ``eps_target_correct`` (amplify the sum) and
    ``eps_target_naive`` (sum of the amplified parts); the page's ε_target is marked.
    """
    x = curve["eps_target"].to_numpy(dtype=float)
    hover = (
        f"promised ε_target %{{x:{d3_format('guarantee')}}}: %{{y:{d3_format('guarantee')}}}"
        "<extra>%{fullData.name}</extra>"
    )
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
    layout["yaxis"]["dtick"] = 1  # decades only: digits between them crowd a short axis
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
