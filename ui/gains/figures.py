"""Figure builders for the Mean and median gains page; each returns a figure (and its data).

Numbers come from :mod:`core.amplification`, :mod:`core.gains` and :mod:`core.illustrations`;
this module only arranges them for plotly, in the app's single chart style.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.colors import sample_colorscale

from core import amplification as amp
from ui.format import fmt
from ui.theme import (
    PALETTE,
    REFERENCE_COLOUR,
    band_trace,
    chart_layout,
    line_trace,
    make_figure,
    reference_line,
    series_style,
)

#: Colour scale of the heat maps: perceptually uniform and colour-blind safe.
HEAT_SCALE = "Viridis"
#: Sequential scale of the sample violins (light = small sample, dark = large sample).
SAMPLE_SCALE = "Blues"
#: The population's violin: a neutral grey that no sample colour takes.
POPULATION_COLOUR = "#555555"


def sample_colours(count: int) -> list[str]:
    """``count`` colours from light to dark blue for the sample violins, in rate order."""
    if count <= 0:
        return []
    points = [0.35] if count == 1 else list(np.linspace(0.35, 1.0, count))
    return [_hex(c) for c in sample_colorscale(SAMPLE_SCALE, points)]


def _hex(colour: str) -> str:
    """``rgb(r, g, b)`` from plotly's colour scales as ``#rrggbb``."""
    if colour.startswith("#"):
        return colour
    r, g, b = (round(float(v)) for v in colour[colour.index("(") + 1 : -1].split(",")[:3])
    return f"#{r:02x}{g:02x}{b:02x}"


# --------------------------------------------------------------------------------------
# Mean: r (eq. 8) and q (§4.1)
# --------------------------------------------------------------------------------------


def r_curves_figure(
    eps_values: Sequence[float], rates: np.ndarray
) -> tuple[go.Figure, pd.DataFrame]:
    """r(ε, n/N) against the rate, one curve per ε (log rate axis)."""
    traces, frames = [], []
    for i, e in enumerate(eps_values):
        r = amp.noise_variance_ratio(e, rates)
        gap = amp.noise_variance_gap(e, rates)
        hover = (
            "n/N %{x:.3~%}<br>r %{y:,.6~r}<br>1 − r %{customdata:,.3~r}<extra>ε_target = "
            + f"{e:g}</extra>"
        )
        traces.append(line_trace(rates, r, f"ε_target = {e:g}", i, hover, customdata=gap))
        frames.append(pd.DataFrame({"eps_target": e, "rate": rates, "r": r, "one_minus_r": gap}))
    layout = chart_layout(
        title="Noise ratio r: population noise variance ÷ sample noise variance",
        x_title="sampling rate n/N",
        y_title="r(ε, n/N)",
        log_x=True,
    )
    layout["yaxis"]["range"] = [0, 1.05]
    layout["shapes"] = [
        reference_line(1.0, text="r = 1: equal noise (only at n = N)", below=True, at_start=True)
    ]
    return make_figure(traces, layout), pd.concat(frames, ignore_index=True)


#: The heat maps' cells are sent in single precision: their colour and the hover's four to
#: six decimals need no more, and the browser receives half the bytes (the r map was the
#: Gains page's largest message).
HEAT_DTYPE = np.float32


def r_heatmap_figure(
    eps_grid: np.ndarray, rates: np.ndarray, tau: float
) -> tuple[go.Figure, pd.DataFrame]:
    """Heat map of r over (n/N, ε) with the frontier where 1 − r = τ drawn on top."""
    e, p = np.meshgrid(eps_grid, rates, indexing="ij")
    r = amp.noise_variance_ratio(e, p)
    frontier = amp.eps_for_noise_gap(rates[rates < 1], tau)
    heat = {
        "type": "heatmap",
        "x": rates,
        "y": eps_grid,
        "z": np.asarray(r, dtype=HEAT_DTYPE),
        "colorscale": HEAT_SCALE,
        "zmin": 0,
        "zmax": 1,
        "colorbar": {"title": {"text": "r"}, "len": 0.8, "ticklabeloverflow": "allow"},
        "hovertemplate": "n/N %{x:.3~%}<br>ε %{y:,.3~r}<br>r %{z:.6f}<extra></extra>",
        "name": "r",
        "showlegend": False,
    }
    line = {
        "type": "scatter",
        "x": rates[rates < 1],
        "y": frontier,
        "mode": "lines",
        "line": {"color": "white", "width": 3, "dash": "dash"},
        "name": f"1 − r = τ = {fmt(tau, 'plain')}",
        "hovertemplate": "n/N %{x:.3~%}<br>ε %{y:,.3~r}<extra>1 − r = τ</extra>",
    }
    layout = chart_layout(
        title="Where the noise ratio r is within τ of 1",
        x_title="sampling rate n/N",
        y_title="ε_target",
        log_x=True,
        log_y=True,
        hovermode="closest",
    )
    layout["yaxis"]["range"] = [np.log10(eps_grid[0]), np.log10(eps_grid[-1])]
    layout["xaxis"]["range"] = [np.log10(rates[0]), np.log10(rates[-1])]
    data = pd.DataFrame({"rate": rates[rates < 1], "eps_frontier": frontier, "tau": tau})
    return make_figure([heat, line], layout), data


def q_curves_figure(
    eps_values: Sequence[float], rates: np.ndarray, q_mark: float
) -> tuple[go.Figure, pd.DataFrame]:
    """q(ε, n/N) against the rate (Hu et al. Figure 4) with the rate reaching ``q_mark``."""
    traces, frames, marks = [], [], []
    for i, e in enumerate(eps_values):
        q = amp.sampling_variance_bound(e, rates)
        hover = "n/N %{x:.3~%}<br>q %{y:,.3~r}<extra>ε_target = " + f"{e:g}</extra>"
        traces.append(line_trace(rates, q, f"ε_target = {e:g}", i, hover))
        frames.append(pd.DataFrame({"eps_target": e, "rate": rates, "q": q}))
        marks.append((i, e, float(amp.rate_for_q(e, q_mark))))
    traces.append(_q_marks_trace(marks, q_mark))
    layout = chart_layout(
        title="Largest sampling variance that still allows a gain, as a share q of V_N",
        x_title="sampling rate n/N",
        y_title="q = 1 − ε² / ε_sample²",
        hovermode="closest",
    )
    layout["yaxis"]["range"] = [0, 1.02]
    layout["shapes"] = [reference_line(q_mark, text=f"q = {q_mark:g}")]
    return make_figure(traces, layout), pd.concat(frames, ignore_index=True)


#: Marker shapes of the q = q_mark dots, one per ε_target, so that two dots at nearly the same
#: rate (ε = 0.01 and 0.1 sit within 2 % of each other) stay distinguishable.
MARK_SYMBOLS = ("circle", "diamond", "square", "triangle-up", "star", "hexagon", "cross", "x")


def _q_marks_trace(marks: list[tuple[int, float, float]], q_mark: float) -> dict[str, Any]:
    """Dots where q = ``q_mark``, one per ε_target, each labelled with its ε.

    ``marks`` holds (series index, ε_target, rate). In the order of the rate, labels go
    alternately above and below the line, so that neighbouring dots never share a label spot;
    on each side they sit to the left of their dot, except the rightmost, which sits to its
    right (away from the dot before it).
    """
    order = sorted(range(len(marks)), key=lambda j: marks[j][2])
    position = [""] * len(marks)
    for side, ranks in (("top", order[0::2]), ("bottom", order[1::2])):
        for j in ranks:
            position[j] = f"{side} {'right' if j == ranks[-1] else 'left'}"
    return {
        "type": "scatter",
        "x": [m[2] for m in marks],
        "y": [q_mark] * len(marks),
        "mode": "markers+text",
        "text": [f"ε {m[1]:g}" for m in marks],
        "textposition": position,
        "textfont": {"size": 12, "color": [series_style(i)["color"] for i, _, _ in marks]},
        "cliponaxis": False,
        "marker": {
            "size": 10,
            "symbol": [MARK_SYMBOLS[i % len(MARK_SYMBOLS)] for i, _, _ in marks],
            "color": [series_style(i)["color"] for i, _, _ in marks],
            "line": {"color": "black", "width": 1},
        },
        "name": f"rate where q = {q_mark:g}",
        "customdata": [m[1] for m in marks],
        "hovertemplate": "ε_target %{customdata:g}: q = "
        + f"{q_mark:g}"
        + " at n/N = %{x:.2%}<extra></extra>",
    }


def q_heatmap_figure(eps_grid: np.ndarray, rates: np.ndarray) -> tuple[go.Figure, pd.DataFrame]:
    """Heat map of q over (n/N, ε)."""
    e, p = np.meshgrid(eps_grid, rates, indexing="ij")
    q = amp.sampling_variance_bound(e, p)
    heat = {
        "type": "heatmap",
        "x": rates,
        "y": eps_grid,
        "z": np.asarray(q, dtype=HEAT_DTYPE),
        "colorscale": HEAT_SCALE,
        "zmin": 0,
        "zmax": 1,
        "colorbar": {"title": {"text": "q"}, "len": 0.8, "ticklabeloverflow": "allow"},
        "hovertemplate": "n/N %{x:.3~%}<br>ε %{y:,.3~r}<br>q %{z:.4f}<extra></extra>",
        "showlegend": False,
    }
    layout = chart_layout(
        title="q over rate and ε: below ε ≈ 0.1 it hardly depends on ε (q ≈ 1 − (n/N)²)",
        x_title="sampling rate n/N",
        y_title="ε_target",
        log_y=True,
        hovermode="closest",
    )
    frame = pd.DataFrame({"eps_target": e.ravel(), "rate": p.ravel(), "q": np.ravel(q)})
    return make_figure([heat], layout), frame


# --------------------------------------------------------------------------------------
# Mean on the active population (eqs. 6–7)
# --------------------------------------------------------------------------------------


def mean_variance_figure(table: pd.DataFrame) -> tuple[go.Figure, pd.DataFrame]:
    """V_n (eq. 7) against the rate for each ε, with V_N (eq. 6) as a dotted level."""
    traces = []
    for i, (e, sub) in enumerate(table.groupby("eps_target", sort=True)):
        style = series_style(i)
        hover = (
            "n/N %{x:.3~%}<br>V_n %{y:,.3~r}<br>sampling %{customdata[0]:,.3~r}"
            "<br>noise %{customdata[1]:,.3~r}<extra>ε_target = " + f"{e:g}</extra>"
        )
        traces.append(
            line_trace(
                sub["rate"].to_numpy(),
                sub["V_n"].to_numpy(),
                f"V_n, ε_target = {e:g}",
                i,
                hover,
                customdata=sub[["sampling_part", "noise_part"]].to_numpy(),
            )
        )
        traces[-1]["line"] = {**style, "dash": "solid"}
        v_pop = float(sub["V_N"].iloc[0])
        traces.append(
            {
                "type": "scatter",
                "x": [sub["rate"].min(), 1.0],
                "y": [v_pop, v_pop],
                "mode": "lines",
                "line": {"color": style["color"], "dash": "dot", "width": 1.5},
                "name": f"V_N, ε_target = {e:g}",
                "hovertemplate": f"V_N = {fmt(v_pop, 'plain')}"
                f"<extra>population, ε_target = {e:g}</extra>",
            }
        )
    layout = chart_layout(
        title="Variance of the private mean: sample (V_n) against population (V_N)",
        x_title="sampling rate n/N",
        y_title="variance of the released mean",
        log_x=True,
        log_y=True,
    )
    return make_figure(traces, layout), table


# --------------------------------------------------------------------------------------
# Median experiment (Figures 6–8, 10–13)
# --------------------------------------------------------------------------------------


#: Axis label of each error measure, on the log scale of the experiment chart.
MEASURE_AXIS = {
    "mse": "log(MSE)",
    "mae": "log(mean absolute error)",
    "error_95": "log(95 % error bound)",
}


def _log_measure(rows: pd.DataFrame, measure: str) -> tuple[np.ndarray, np.ndarray]:
    """log of the measure and its delta-method standard error (``se / value``)."""
    if measure == "mse":
        return rows["log_mse"].to_numpy(), rows["log_mse_se"].to_numpy()
    value = rows[measure].to_numpy(dtype=float)
    se = rows[f"{measure}_se"].to_numpy(dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.log(value), np.where(value > 0, se / value, np.nan)


def _statistic_words(quantile: float) -> str:
    """ "median" for q = 0.5, else "90 % quantile"."""
    return "median" if quantile == 0.5 else f"{100 * quantile:g} % quantile"


def log_mse_figure(
    summary: pd.DataFrame,
    *,
    band_se: float = 2.0,
    measure: str = "mse",
    quantile: float = 0.5,
) -> tuple[go.Figure, pd.DataFrame]:
    """log(error) against the rate per ε with ±``band_se`` Monte Carlo error bands.

    The error is the summary's ``measure`` (``core.gains.MEASURES``; log(MSE) by default,
    as in the paper). The population (rate 1) is drawn as a cross, as in the paper. Every
    sampling rate whose error is below the population's gets a small ring; the best of them
    a larger, thicker one (see :func:`_beating_rate_rings`).
    """
    axis = MEASURE_AXIS[measure]
    traces: list[dict[str, Any]] = []
    for i, (e, sub) in enumerate(summary.groupby("eps_target", sort=True)):
        style = series_style(i)
        samples = sub[~sub["is_population"]].sort_values("rate")
        pop = sub[sub["is_population"]]
        x = samples["rate"].to_numpy()
        y, se = _log_measure(samples, measure)
        traces.append(
            band_trace(
                x,
                y - band_se * se,
                y + band_se * se,
                colour=style["color"],
                name=f"±{band_se:g} SE, ε_target = {e:g}",
                opacity=0.18,
                legendgroup=f"eps{e:g}",
            )
        )
        traces.append(
            line_trace(
                x,
                y,
                f"ε_target = {e:g}",
                i,
                "n/N %{x:.3~%}<br>"
                + axis
                + " %{y:,.3~r} ± %{customdata:,.3~r}<extra>ε_target = "
                + f"{e:g}</extra>",
                customdata=se,
                mode="lines+markers",
                legendgroup=f"eps{e:g}",
            )
        )
        if not pop.empty:
            p_val = float(_log_measure(pop, measure)[0][0])
            traces.append(
                {
                    "type": "scatter",
                    "x": [1.0],
                    "y": [p_val],
                    "mode": "markers",
                    "marker": {"symbol": "x", "size": 12, "color": style["color"]},
                    "legendgroup": f"eps{e:g}",
                    "showlegend": False,
                    "name": f"population, ε_target = {e:g}",
                    "hovertemplate": "population<br>"
                    + axis
                    + " %{y:,.3~r}<extra>ε_target = "
                    + f"{e:g}</extra>",
                }
            )
            traces.extend(_beating_rate_rings(x, y, p_val, style["color"], e))
    layout = chart_layout(
        title=f"Error of the private {_statistic_words(quantile)}: samples (lines) against "
        "the population (×)",
        x_title="sampling rate n/N (× = population, rate 1)",
        y_title=f"{axis} of the released {_statistic_words(quantile)}",
        hovermode="closest",
        height=480,
    )
    return make_figure(traces, layout), summary


def _beating_rate_rings(
    x: np.ndarray, y: np.ndarray, population_log_mse: float, colour: str, eps: float
) -> list[dict[str, Any]]:
    """Rings on every rate that beats the population, a larger ring on the best rate.

    A rate "beats the population" when its log(MSE) is below the population's
    (Hu et al. §4.3, Figures 8 and 13).
    """
    beating = np.flatnonzero(y < population_log_mse)
    if beating.size == 0:
        return []
    best = int(beating[np.argmin(y[beating])])
    rings: list[dict[str, Any]] = [
        {
            "type": "scatter",
            "x": x[beating],
            "y": y[beating],
            "mode": "markers",
            "marker": {
                "symbol": "circle-open",
                "size": 14,
                "color": colour,
                "line": {"width": 1.5},
            },
            "legendgroup": f"eps{eps:g}",
            "showlegend": False,
            "name": f"beats the population, ε_target = {eps:g}",
            "hovertemplate": "rate %{x:.3~%} beats the population<extra>ε_target = "
            + f"{eps:g}</extra>",
        },
        {
            "type": "scatter",
            "x": [x[best]],
            "y": [y[best]],
            "mode": "markers",
            "marker": {"symbol": "circle-open", "size": 22, "color": colour, "line": {"width": 3}},
            "legendgroup": f"eps{eps:g}",
            "showlegend": False,
            "name": f"best rate, ε_target = {eps:g}",
            "hovertemplate": "best rate %{x:.3~%}: beats the population<extra>ε_target = "
            + f"{eps:g}</extra>",
        },
    ]
    return rings


def _rgba(hex_colour: str, alpha: float) -> str:
    h = hex_colour.lstrip("#")
    r, g, b = (int(h[k : k + 2], 16) for k in (0, 2, 4))
    return f"rgba({r},{g},{b},{alpha})"


def violin_by_rate_figure(
    per_rep: pd.DataFrame,
    *,
    eps_target: float,
    column: str,
    title: str,
    y_title: str,
    log_y: bool = False,
    reference: float | None = None,
    reference_text: str | None = None,
    title_text: str | None = None,
) -> tuple[go.Figure, pd.DataFrame]:
    """Violins of ``column`` per sampling rate for one ε (the paper's Figures 6, 7, 10–12).

    The title is ``"<title> (ε_target = …)"``; ``title_text``, when given, is shown in its
    place as it stands (not wrapped), with the margins sized for the generated title.
    """
    sub = per_rep[np.isclose(per_rep["eps_target"], eps_target)]
    groups = sorted(sub.groupby("rate", sort=True), key=lambda item: float(item[0]))
    sample_rates = [float(rate) for rate, _ in groups if rate < 1]
    colours = dict(zip(sample_rates, sample_colours(len(sample_rates)), strict=True))
    traces = []
    for rate, group in groups:
        is_population = rate >= 1
        label = (
            "population (rate 1)"
            if is_population
            else f"n/N = {fmt(rate, 'rate')}<br>(n = {int(group['n'].iloc[0]):,})"
        )
        values = group[column].to_numpy()
        if log_y:
            values = values[values > 0]
        colour = POPULATION_COLOUR if is_population else colours[float(rate)]
        traces.append(
            {
                "type": "violin",
                "y": values,
                "name": label,
                "box": {"visible": True},
                "meanline": {"visible": False},
                "points": False,
                "line": {"color": colour},
                "fillcolor": _rgba(colour, 0.45 if is_population else 0.3),
                "hoverinfo": "y+name",
                "spanmode": "hard",
            }
        )
    layout = chart_layout(
        title=f"{title} (ε_target = {eps_target:g})",
        x_title="design",
        y_title=y_title,
        log_y=log_y,
        hovermode="closest",
    )
    if title_text is not None:
        layout["title"]["text"] = title_text
    layout["showlegend"] = False
    layout["xaxis"]["type"] = "category"
    if log_y:  # label 2 and 5 in each decade: every digit crowds an axis under a decade
        layout["yaxis"]["dtick"] = "D2"
    if reference is not None:
        layout["shapes"] = [reference_line(reference, text=reference_text)]
    return make_figure(traces, layout), per_rep


def release_violin_figure(
    frame: pd.DataFrame,
    *,
    value: str,
    title: str,
    y_title: str,
    truth: float,
    truth_text: str,
) -> tuple[go.Figure, pd.DataFrame]:
    """Violins of private releases per ε with the true value as a dashed line (Figs. 1–2)."""
    traces = []
    for i, (e, group) in enumerate(frame.groupby("eps", sort=True)):
        traces.append(
            {
                "type": "violin",
                "y": group[value].to_numpy(),
                "name": f"ε_target = {e:g}",
                "box": {"visible": True},
                "points": False,
                "line": {"color": PALETTE[i % len(PALETTE)]},
                "hoverinfo": "y+name",
                "spanmode": "hard",
            }
        )
    layout = chart_layout(
        title=title, x_title="privacy parameter ε", y_title=y_title, hovermode="closest"
    )
    layout["showlegend"] = False
    layout["xaxis"]["type"] = "category"
    layout["shapes"] = [
        {
            **reference_line(truth, text=truth_text),
            "line": {"color": REFERENCE_COLOUR, "dash": "dash", "width": 1.5},
        }
    ]
    return make_figure(traces, layout), frame


def _relative_change(log_sample: float, log_population: float) -> float:
    """``exp(log_sample − log_population) − 1``; two zero errors (log = −∞) are no change.

    Releases without error (every record tied at the statistic) give log(MSE) = −∞ for both,
    whose difference would be NaN; a zero population error against a positive sample error
    is an infinite increase.
    """
    if math.isinf(log_sample) and math.isinf(log_population) and log_sample == log_population:
        return 0.0
    with np.errstate(invalid="ignore", over="ignore"):
        return float(np.expm1(log_sample - log_population))


def best_rate_table(summary: pd.DataFrame, measure: str = "mse") -> pd.DataFrame:
    """Per ε: population log(error), best sample rate and its log(error), change in error.

    ``measure`` is one of ``core.gains.MEASURES``; the column names say log(MSE) for the
    default and the measure's axis label otherwise.
    """
    axis = MEASURE_AXIS[measure]
    word = "MSE" if measure == "mse" else axis[4:-1]
    rows = []
    for e, sub in summary.groupby("eps_target", sort=True):
        pop = sub[sub["is_population"]]
        samples = sub[~sub["is_population"]]
        if pop.empty or samples.empty:
            continue
        log_s, se_s = _log_measure(samples, measure)
        log_p = float(_log_measure(pop, measure)[0][0])
        k = int(np.argmin(log_s))
        change = _relative_change(float(log_s[k]), log_p)
        rows.append(
            {
                "ε_target": e,
                f"{axis} population": log_p,
                "best sampling rate": float(samples["rate"].to_numpy()[k]),
                f"{axis} best sample": float(log_s[k]),
                "± SE": float(se_s[k]),
                f"{word} change vs population": change,
                "sample wins": change < 0,
            }
        )
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------------------
# Mechanism comparison (issue 14)
# --------------------------------------------------------------------------------------


def comparison_figure(
    table: pd.DataFrame,
    *,
    labels: dict[str, str],
    measure_label: str,
    hidden: frozenset[str] = frozenset(),
) -> tuple[go.Figure, pd.DataFrame]:
    """Error against the sampling rate, one line per mechanism, on a log axis.

    ``table`` is ``core.gains.MechanismComparison.table``. Each mechanism's population
    release (rate 1) is a dotted horizontal line of the line's colour (and a cross at rate
    1); the best (mechanism, rate) carries a star. Hover shows the value, its Monte Carlo
    standard error, n and ε_sample. Mechanisms in ``hidden`` are left out (their measure
    does not exist, e.g. an MSE of noise without finite variance).
    """
    traces: list[dict[str, Any]] = []
    hover = (
        "n/N %{x:.3~%} (n = %{customdata[0]:,})<br>"
        + measure_label
        + " %{y:,.3~r} ± %{customdata[1]:,.3~r}<br>ε_sample %{customdata[2]:,.3~r}"
        "<extra>%{fullData.name}</extra>"
    )
    x_min = float(table["rate"].min())
    for i, (name, rows) in enumerate(table.groupby("mechanism", sort=False)):
        if name in hidden:
            continue
        style = series_style(i)
        label = labels.get(str(name), str(name))
        samples = rows[~rows["is_population"]].sort_values("rate")
        custom = samples[["n", "se", "eps_sample"]].to_numpy()
        traces.append(
            line_trace(
                samples["rate"].to_numpy(), samples["value"].to_numpy(), label, i, hover,
                customdata=custom, mode="lines+markers", legendgroup=str(name),
            )
        )  # fmt: skip
        pop = rows[rows["is_population"]]
        if pop.empty:
            continue
        value = float(pop["value"].iloc[0])
        traces.append(
            {
                "type": "scatter",
                "x": [x_min, 1.0],
                "y": [value, value],
                "mode": "lines+markers",
                "marker": {"symbol": ["line-ew", "x"], "size": [1, 12], "color": style["color"]},
                "line": {"color": style["color"], "dash": "dot", "width": 1.5},
                "legendgroup": str(name),
                "showlegend": False,
                "name": f"{label}, whole population",
                "customdata": [pop[["n", "se", "eps_sample"]].to_numpy()[0]] * 2,
                "hovertemplate": "whole population<br>"
                + measure_label
                + " %{y:,.3~r} ± %{customdata[1]:,.3~r}<br>ε_sample %{customdata[2]:,.3~r}"
                "<extra>%{fullData.name}</extra>",
            }
        )
    best = table[table["is_best"] & ~table["mechanism"].isin(list(hidden))]
    if not best.empty:
        row = best.iloc[0]
        traces.append(
            {
                "type": "scatter",
                "x": [float(row["rate"])],
                "y": [float(row["value"])],
                "mode": "markers",
                "marker": {
                    "symbol": "star",
                    "size": 20,
                    "color": "#f5c518",
                    "line": {"color": "black", "width": 1.5},
                },
                "name": "best (mechanism, rate)",
                "hovertemplate": "best: "
                + labels.get(str(row["mechanism"]), str(row["mechanism"]))
                + "<br>n/N %{x:.3~%}<br>"
                + measure_label
                + " %{y:,.3~r}<extra></extra>",
            }
        )
    layout = chart_layout(
        title="Error of each mechanism against the sampling rate (dotted: whole population)",
        x_title="sampling rate n/N (× = population, rate 1)",
        y_title=f"{measure_label} (log scale)",
        log_y=True,
        hovermode="closest",
        height=480,
    )
    return make_figure(traces, layout), table
