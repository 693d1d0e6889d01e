"""Figure builders and plain-words readings for the Statistical privacy page.

Every number comes from :mod:`ui.statistical.cache` (which calls :mod:`core.statistical`);
this module only draws the data frames in the app's single chart style and turns a few
numbers into sentences.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from ui.format import fmt
from ui.theme import chart_layout, line_trace, make_figure, reference_line, series_style

#: Colour index of each mechanism, shared by every chart of the page.
MECHANISM_INDEX = {"no mechanism": 0, "subsampling": 1, "Gaussian noise": 2, "Laplace noise": 3}
NOISE_LABEL = {"gaussian": "Gaussian", "laplace": "Laplace"}


def _for_log(values: Any, log: bool) -> list[float | None]:
    """Values for a log axis: zeros (δ = 0 exactly) become gaps instead of errors."""
    arr = np.asarray(values, dtype=float)
    if not log:
        return arr.tolist()
    return [float(v) if v > 0 and math.isfinite(v) else None for v in arr]


#: Dash patterns of the statistical curves; "dot" is kept for worst-case (DP) lines only.
_SOLID_DASHES = ("solid", "dash", "dashdot", "longdash", "longdashdot")


def _dotted(index: int) -> dict[str, object]:
    """A worst-case (differential privacy) line in the colour of series ``index``."""
    return {"color": series_style(index)["color"], "dash": "dot", "width": 2.0}


def _plain(index: int, dash_index: int | None = None) -> dict[str, object]:
    """A statistical-privacy line: the series colour, never dotted."""
    dash = _SOLID_DASHES[(index if dash_index is None else dash_index) % len(_SOLID_DASHES)]
    return {**series_style(index), "dash": dash}


def fmt_delta(value: float) -> str:
    """δ in readable form: 0.0206, 3.1·10⁻⁵, or 0."""
    if not math.isfinite(value):
        return "—"
    return fmt(value, "delta")


# --------------------------------------------------------------------------------------
# Privacy curves
# --------------------------------------------------------------------------------------


#: The one legend entry of the dotted worst-case lines of the privacy-curve chart.
WORST_CASE_LEGEND = "dotted: worst case (DP), in each mechanism's colour"


def privacy_curve_figure(
    curves: pd.DataFrame, *, nu: float, m: int, n: int, log_x: bool, log_y: bool, eps_mark: float
) -> tuple[go.Figure, pd.DataFrame]:
    """δ(ε) for every mechanism (solid) and the worst-case curves of the noises (dotted)."""
    traces = []
    labels = {
        "no mechanism": "no mechanism",
        "subsampling": f"subsampling, n = {m:,} of N = {n:,}",
        "Gaussian noise": f"Gaussian noise, ν = {nu:g}",
        "Laplace noise": f"Laplace noise, ν = {nu:g}",
    }
    # One legend entry per mechanism (its solid line) and one for all the dotted worst-case
    # lines together: a click on it hides or shows the four of them at once.
    traces.append(
        {
            "type": "scatter",
            "x": [None],
            "y": [None],
            "mode": "lines",
            "name": WORST_CASE_LEGEND,
            "line": {"color": "#555555", "dash": "dot", "width": 2.0},
            "legendgroup": "worst case",
            "hoverinfo": "skip",
        }
    )
    for (mech, setting), part in curves.groupby(["mechanism", "setting"], sort=False):
        i = MECHANISM_INDEX[str(mech)]
        worst = setting != "statistical"
        name = labels[str(mech)] + (" — worst case (DP)" if worst else "")
        hover = "ε %{x:,.3~r}<br>δ %{y:.3~g}<extra>" + name + "</extra>"
        extra: dict[str, Any] = {"line": _dotted(i) if worst else _plain(i)}
        if worst:
            extra.update({"legendgroup": "worst case", "showlegend": False})
        traces.append(
            line_trace(
                part["eps"].to_numpy(), _for_log(part["delta"], log_y), name, i, hover, **extra
            )
        )
    layout = chart_layout(
        title="Privacy curve: the smallest δ for each ε",
        x_title="ε (privacy-loss bound)",
        y_title="δ(ε) (probability the bound fails)",
        log_x=log_x,
        log_y=log_y,
        height=520,
        hovermode="closest",
    )
    if log_y:  # below 10⁻¹² a δ is negligible; without a floor the axis spans 300 decades
        layout["yaxis"]["range"] = [-12, 0.2]
    layout["shapes"] = [
        {
            "type": "line",
            "xref": "x",
            "yref": "paper",
            "x0": eps_mark,
            "x1": eps_mark,
            "y0": 0,
            "y1": 1,
            "line": {"color": "#555555", "dash": "dot", "width": 1.5},
            "label": {
                "text": f"ε = {eps_mark:g}",
                "textposition": "end",
                "textangle": 0,
                "yanchor": "bottom",
                "font": {"size": 12},
            },
        }
    ]
    return make_figure(traces, layout), curves


def distributions_figure(dist: pd.DataFrame, *, title: str) -> tuple[go.Figure, pd.DataFrame]:
    """The answer's distribution with the critical record positive and negative."""
    discrete = bool((dist["kind"] == "probability").all())
    traces = []
    for i, column in enumerate(("critical record positive", "critical record negative")):
        hover = (
            "answer %{x:,.3~r}<br>"
            + ("probability" if discrete else "density")
            + " %{y:,.3~r}<extra>"
            + column
            + "</extra>"
        )
        extra: dict[str, Any] = {"mode": "lines+markers", "marker": {"size": 4}} if discrete else {}
        if discrete:
            extra["line"] = {**series_style(i), "width": 1.5, "shape": "hvh"}
        traces.append(
            line_trace(
                dist["answer"].to_numpy(), dist[column].to_numpy(), column, i, hover, **extra
            )
        )
    layout = chart_layout(
        title=title,
        x_title="answer y (fraction of records with the property)",
        y_title="P[answer = y]" if discrete else "density of the answer",
        hovermode="x unified",
    )
    return make_figure(traces, layout), dist


# --------------------------------------------------------------------------------------
# δ against π and the DP / SP ratio (Figures 1–4, 6)
# --------------------------------------------------------------------------------------


def delta_vs_pi_figure(
    data: pd.DataFrame, *, noise: str, n: int, eps: float, log_x: bool = False
) -> tuple[go.Figure, pd.DataFrame]:
    """Statistical δ against π for each ν (solid) and the worst-case δ (dotted, flat)."""
    traces = []
    for i, (nu, part) in enumerate(data.groupby("nu", sort=True)):
        name = f"ν = {nu:g}, statistical"
        hover = "π %{x:,.3~r}<br>δ %{y:.3~g}<extra>" + name + "</extra>"
        part = part[part["pi"] > 0] if log_x else part
        traces.append(
            line_trace(
                part["pi"].to_numpy(), part["delta"].to_numpy(), name, i, hover, line=_plain(i)
            )
        )
        worst = float(part["delta_dp"].iloc[0])
        traces.append(
            line_trace(
                [float(part["pi"].min()), 0.5],
                [worst, worst],
                f"ν = {nu:g}, worst case (DP) δ = {fmt(worst, 'delta')}",
                i,
                f"DP δ {fmt(worst, 'delta')}<extra>ν = {nu:g}</extra>",
                line=_dotted(i),
            )
        )
    layout = chart_layout(
        title=f"{NOISE_LABEL[noise]} noise: δ against π (N = {n:,}, ε = {eps:g})",
        x_title="π (probability a record has the property)",
        y_title="δ at the chosen ε",
        log_x=log_x,
        hovermode="closest",
    )
    if not log_x:
        layout["xaxis"]["range"] = [0, 0.5]
    layout["yaxis"]["rangemode"] = "tozero"
    return make_figure(traces, layout), data


def ratio_vs_nu_figure(
    data: pd.DataFrame, *, noise: str, n: int, eps: float, log_y: bool
) -> tuple[go.Figure, pd.DataFrame]:
    """Worst-case δ ÷ statistical δ against ν, one curve per π."""
    traces = []
    for i, (pi, part) in enumerate(data.groupby("pi", sort=False)):
        name = f"π = {pi:g}"
        hover = "ν %{x:,.3~r}<br>DP δ ÷ SP δ %{y:,.3~r}<extra>" + name + "</extra>"
        traces.append(
            line_trace(
                part["nu"].to_numpy(),
                _for_log(part["ratio"], log_y),
                name,
                i,
                hover,
                line=_plain(i),
            )
        )
    layout = chart_layout(
        title=f"{NOISE_LABEL[noise]} noise: how much larger the worst-case δ is "
        f"(N = {n:,}, ε = {eps:g})",
        x_title="ν (noise scale in units of the sensitivity 1/N)",
        y_title="δ_DP / δ_SP",
        log_y=log_y,
    )
    layout["shapes"] = [reference_line(1.0, text="equal δ")]
    return make_figure(traces, layout), data


# --------------------------------------------------------------------------------------
# Equal utility (Figures 5, 7, 8)
# --------------------------------------------------------------------------------------

_EU_COLUMNS = (
    ("subsampling", "subsampling"),
    ("gaussian", "Gaussian noise"),
    ("laplace", "Laplace noise"),
)


def equal_utility_pi_figure(
    data: pd.DataFrame, *, n: int, m: int, eps: float, log_y: bool = False
) -> tuple[go.Figure, pd.DataFrame]:
    """δ of the three mechanisms at the same utility loss, against π (Figure 5)."""
    traces = []
    for column, label in _EU_COLUMNS:
        i = MECHANISM_INDEX[label]
        hover = "π %{x:,.3~r}<br>δ %{y:.3~g}<extra>" + label + "</extra>"
        traces.append(
            line_trace(
                data["pi"].to_numpy(),
                _for_log(data[column], log_y),
                label,
                i,
                hover,
                line=_plain(i),
            )
        )
    layout = chart_layout(
        title=f"Same utility loss as a {fmt(m / n, 'rate')} sample: δ against π "
        f"(N = {n:,}, ε = {eps:g})",
        x_title="π (probability a record has the property)",
        y_title="δ at the chosen ε",
        log_y=log_y,
    )
    layout["xaxis"]["range"] = [0, 0.5]
    if not log_y:
        layout["yaxis"]["rangemode"] = "tozero"
    return make_figure(traces, layout), data


def equal_utility_lambda_figure(
    data: pd.DataFrame, *, n: int, eps: float, log_y: bool
) -> tuple[go.Figure, pd.DataFrame]:
    """δ of the three mechanisms at the same utility loss, against λ, per π (Figure 8)."""
    traces = []
    for j, (pi, part) in enumerate(data.groupby("pi", sort=False)):
        for column, label in _EU_COLUMNS:
            i = MECHANISM_INDEX[label]
            name = f"{label}, π = {pi:g}"
            hover = "λ %{x:,.3~r}<br>δ %{y:.3~g}<extra>" + name + "</extra>"
            style = _plain(i, j)
            traces.append(
                line_trace(
                    part["lambda"].to_numpy(),
                    _for_log(part[column], log_y),
                    name,
                    i,
                    hover,
                    line=style,
                )
            )
    layout = chart_layout(
        title=f"Same utility loss: δ against the sampling rate λ (N = {n:,}, ε = {eps:g})",
        x_title="λ = n/N (sampling rate)",
        y_title="δ at the chosen ε",
        log_x=True,
        log_y=log_y,
        height=480,
        hovermode="closest",
    )
    return make_figure(traces, layout), data


def conjecture_figure(
    data: pd.DataFrame, *, n: int, pi: float, eps: float
) -> tuple[go.Figure, pd.DataFrame]:
    """Subsampling's δ at the amplified ε_target against λ times the pure δ of n records (Fig. 7).

    ε_target = log(1 + λ(e^ε_sample − 1)) with ε_sample the page's ε (Breutigam & Reischuk §7).
    """
    x = data["lambda"].to_numpy()
    traces = [
        line_trace(
            x,
            _for_log(data["subsampling_at_eps_target"], True),
            "subsampling at ε_target = log(1 + λ(e^ε_sample − 1))",
            0,
            "λ %{x:,.3~r}<br>δ %{y:.3~g}<extra>subsampling at ε_target</extra>",
        ),
        line_trace(
            x,
            _for_log(data["lambda_times_pure_m"], True),
            "λ · δ of the n sampled records<br>without a mechanism, at ε_sample",
            1,
            "λ %{x:,.3~r}<br>λ·δ %{y:.3~g}<extra>scaled pure δ</extra>",
            line=_plain(1),
        ),
    ]
    layout = chart_layout(
        title=f"Conjecture (§7): amplification as in DP? (N = {n:,}, π = {pi:g}, "
        f"ε_sample = {eps:g})",
        x_title="λ = n/N (sampling rate)",
        y_title="δ",
        log_x=True,
        log_y=True,
        height=480,
        hovermode="x unified",
    )
    return make_figure(traces, layout), data


# --------------------------------------------------------------------------------------
# Readings in plain words
# --------------------------------------------------------------------------------------


def privacy_reading(
    summary: pd.DataFrame, *, n: int, pi: float, eps: float, nu: float, m: int
) -> str:
    """Markdown bullets: δ of each mechanism at ε, and how far below the worst case."""
    settings = {
        "no mechanism": "no mechanism (the exact answer)",
        "subsampling": f"subsampling n = {m:,} of N = {n:,} records",
        "Gaussian noise": f"Gaussian noise, ν = {nu:g}",
        "Laplace noise": f"Laplace noise, ν = {nu:g}",
    }
    lines = [
        f"With **N = {n:,}** records, each positive with probability **π = {pi:g}**, an "
        f"adversary who knows only that distribution faces at **ε = {eps:g}**:",
    ]
    for r in summary.to_dict("records"):
        d, w = r["δ = max"], r["worst-case δ (DP)"]
        if w > 0 and d > 0:
            compare = f"{fmt(w / d, 'ratio')} times below the worst case (δ_DP = {fmt_delta(w)})"
        elif w > 0:
            compare = f"while the worst case has δ_DP = {fmt_delta(w)}"
        else:
            compare = "and the worst case is also 0"
        lines.append(f"- **{settings[r['mechanism']]}**: δ = {fmt_delta(d)}, {compare}")
    expected = n * min(pi, 1 - pi)
    if expected < 5:
        lines.append(
            f"\nOnly about {fmt(expected, 'count')} records are expected on the rarer side, so the "
            "data "
            "hide little and the statistical δ stays close to the worst case."
        )
    else:
        lines.append(
            f"\nAbout {fmt(expected, 'count')} records are expected on the rarer side: the other "
            "records' "
            "randomness already hides the critical one, so little or no added noise is needed."
        )
    return "\n".join(lines)


def pi_reading(data: pd.DataFrame, *, noise: str, eps: float) -> str:
    """One sentence per ν: the δ at π = 1/2 and near 0 against the worst case."""
    lines = []
    for nu, part in data.groupby("nu", sort=True):
        worst = float(part["delta_dp"].iloc[0])
        half = float(part.loc[part["pi"].idxmax(), "delta"])
        small = part[part["pi"] > 0].sort_values("pi").iloc[0]
        lines.append(
            f"- ν = {nu:g}: worst case δ = {fmt_delta(worst)}; statistical δ = "
            f"{fmt_delta(half)} at π = 1/2"
            + (f" ({fmt(worst / half, 'ratio')}× smaller)" if half > 0 else "")
            + f", {fmt_delta(float(small['delta']))} at π = {small['pi']:g}."
        )
    return (
        f"**Reading ({NOISE_LABEL[noise]} noise, ε = {eps:g}).** The statistical δ is smallest "
        "at π = 1/2, where the other records are most uncertain, and climbs to the worst case "
        "as π → 0, where everyone else is known to be negative.\n" + "\n".join(lines)
    )


def equal_utility_reading(row: pd.Series, *, pi: float, lam: float, eps: float) -> str:
    """How the three mechanisms compare at one (π, λ)."""
    s, g, lap = row["subsampling"], row["gaussian"], row["laplace"]
    if not (math.isfinite(g) and math.isfinite(lap)):
        return (
            "At this sampling rate subsampling loses (almost) nothing, so there is no noise "
            "level to match."
        )
    parts = [
        f"**Reading (π = {pi:g}, λ = {fmt(lam, 'plain')}, ε = {eps:g}).** Noise with the same mean "
        f"squared error as the sample ({fmt(row['utility_loss'], 'plain')}) needs ν = "
        f"{fmt(row['nu_gaussian'], 'plain')} (Gaussian) or ν = {fmt(row['nu_laplace'], 'plain')} "
        "(Laplace).",
        f"Subsampling gives δ = {fmt_delta(s)}, Gaussian noise δ = {fmt_delta(g)}"
        + (f" ({100 * (g / s - 1):+.1f} %)" if s > 0 else "")
        + f", Laplace noise δ = {fmt_delta(lap)}"
        + (f" ({100 * (lap / s - 1):+.1f} %)." if s > 0 else "."),
    ]
    if lap == 0:
        parts.append(
            f"Laplace noise this strong is ({fmt(1 / row['nu_laplace'], 'guarantee')}, 0)-private "
            "(Lemma 5), "
            f"so at ε = {eps:g} its δ is exactly 0."
        )
    else:
        parts.append(
            "Subsampling and Gaussian noise behave almost alike (a binomial sample count is "
            "nearly normal); Laplace noise of the same variance leaks more at small ε. The paper "
            "reports about 20 % for Laplace in Figure 5; the exact computation here, with "
            "Laplace variance 2ψ² as in Lemma 9, gives the gap shown."
        )
    return " ".join(parts)


def equal_utility_table(row: pd.Series, *, n: int, m: int, eps: float) -> pd.DataFrame:
    """The three mechanisms at one (π, λ): setting, shared utility loss and δ."""
    return pd.DataFrame(
        {
            "mechanism": ["subsampling", "Gaussian noise", "Laplace noise"],
            "setting": [
                f"n = {m:,} of N = {n:,}",
                f"ν = {fmt(row['nu_gaussian'], 'plain')}",
                f"ν = {fmt(row['nu_laplace'], 'plain')}",
            ],
            "utility loss (MSE)": [row["utility_loss"]] * 3,
            f"δ at ε = {eps:g}": [row["subsampling"], row["gaussian"], row["laplace"]],
        }
    )
