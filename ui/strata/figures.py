"""Figure builders for the Stratified sampling page; each returns a figure and its data.

Numbers come from :mod:`core.strata` and :mod:`core.amplification`; this module only
arranges them for plotly in the app's single chart style (figures built once from dicts).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from core import amplification as amp
from core import strata
from core.accounting.stratified_profile import stratified_eps_target
from ui.format import fmt
from ui.strata.cache import DESIGNS, NEYMAN, PROP_DET, PROP_RAND, SRS
from ui.theme import (
    PALETTE,
    REFERENCE_COLOUR,
    category_ticks,
    chart_layout,
    line_trace,
    make_figure,
    reference_line,
    series_style,
)

#: Most strata drawn in a bar chart (an uploaded file may have thousands; tables keep all).
MAX_BARS = 60

#: Colour index and bar pattern per design, the same on every chart of the page.
_INDEX = {NEYMAN: 0, PROP_DET: 1, PROP_RAND: 2, SRS: 3}
_PATTERN = {NEYMAN: "", PROP_DET: "/", PROP_RAND: ".", SRS: "x"}

HIGHLIGHT = "#000000"


def _bar(x: Any, y: Any, design: str, hover: str, **extra: Any) -> dict[str, Any]:
    colour = PALETTE[_INDEX[design]]
    return {
        "type": "bar",
        "x": x,
        "y": y,
        "name": design,
        "marker": {
            "color": colour,
            "pattern": {
                "shape": _PATTERN[design],
                "fillmode": "overlay",
                "fgcolor": "white",
                "size": 7,
                "solidity": 0.25,
            },
            "line": {"color": colour, "width": 1},
        },
        "hovertemplate": hover,
        **extra,
    }


def shown_strata(table: pd.DataFrame) -> pd.DataFrame:
    """The strata drawn in bar charts: all, or the :data:`MAX_BARS` largest by N_i σ_i."""
    if len(table) <= MAX_BARS:
        return table
    weight = table["N_i"] * table["σ_i"]
    return table.loc[weight.nlargest(MAX_BARS).index].sort_index()


# --------------------------------------------------------------------------------------------
# Allocations and accuracy
# --------------------------------------------------------------------------------------------


def allocation_figure(
    table: pd.DataFrame, *, show_rates: bool, log_y: bool
) -> tuple[go.Figure, pd.DataFrame]:
    """Grouped bars: each design's sample size (or sampling rate) per stratum."""
    shown = shown_strata(table)
    x = shown["stratum"].tolist()
    custom = np.column_stack([shown["N_i"], shown["σ_i"], shown["r·N_i"]])
    traces = []
    for design in DESIGNS:
        n_i = shown[f"{design} n_i"].to_numpy()
        rate = shown[f"{design} rate"].to_numpy()
        y = rate if show_rates else n_i
        hover = (
            "stratum %{x}<br>n_i %{customdata[3]:,}<br>n_i/N_i %{customdata[4]:.3%}"
            "<br>N_i %{customdata[0]:,}<br>σ_i %{customdata[1]:,.3~r}"
            "<br>r·N_i %{customdata[2]:,.3~r}"
            f"<extra>{design}</extra>"
        )
        traces.append(_bar(x, y, design, hover, customdata=np.column_stack([custom, n_i, rate])))
    layout = chart_layout(
        title=(
            "Sampling rate n_i / N_i per stratum"
            if show_rates
            else "Records drawn per stratum, n_i, under each allocation"
        ),
        x_title="stratum",
        y_title="sampling rate n_i / N_i" if show_rates else "records drawn n_i",
        log_y=log_y,
        hovermode="x unified",
    )
    layout["xaxis"]["type"] = "category"
    layout["barmode"] = "group"
    if show_rates and not log_y:
        layout["yaxis"]["tickformat"] = ".0%"
    return make_figure(traces, layout), table


def variance_figure(var_table: pd.DataFrame) -> tuple[go.Figure, pd.DataFrame]:
    """Bars: variance of the weighted mean per design (infinite ones are left out)."""
    traces = []
    for _, row in var_table.iterrows():
        design = str(row["design"])
        value = float(row["variance"])
        if not np.isfinite(value):
            continue
        traces.append(
            _bar(
                [design],
                [value],
                design,
                "%{x}<br>variance %{y:,.3~r}<br>standard error %{customdata:,.3~r}<extra></extra>",
                customdata=[float(row["standard error"])],
                showlegend=False,
                text=[fmt(value, "plain")],
                textposition="outside",
                cliponaxis=False,
            )
        )
    layout = chart_layout(
        title="Variance of the estimated population mean",
        x_title="design (same total sample size)",
        y_title="Var(θ̂), squared value units (log)",
        log_y=True,
        hovermode="closest",
    )
    layout["yaxis"]["dtick"] = 1  # decades only: a phone's short axis has no room for more
    layout["xaxis"]["type"] = "category"
    finite = np.isfinite(var_table["variance"].to_numpy(dtype=np.float64))
    layout["xaxis"].update(category_ticks([str(d) for d in var_table["design"][finite]]))
    layout["showlegend"] = False
    return make_figure(traces, layout), var_table


def simulation_figure(
    sim: pd.DataFrame, truth: float, value_label: str
) -> tuple[go.Figure, pd.DataFrame]:
    """Violins of the simulated weighted means per design, the population mean dotted."""
    frame, sim = sim, sim.dropna()  # rows without an estimate are not drawn
    traces = []
    for design in DESIGNS:
        y = sim.loc[sim["design"] == design, "weighted mean"].to_numpy()
        colour = PALETTE[_INDEX[design]]
        traces.append(
            {
                "type": "violin",
                "x": [design] * y.size,
                "y": y,
                "name": design,
                "line": {"color": colour},
                "fillcolor": colour,
                "opacity": 0.6,
                "box": {"visible": True},
                "meanline": {"visible": True},
                "points": False,
                "hoverinfo": "y",
                "showlegend": False,
            }
        )
    layout = chart_layout(
        title="Weighted means of simulated stratified samples",
        x_title="design",
        y_title=f"estimated mean of {value_label}",
        hovermode="closest",
    )
    layout["xaxis"]["type"] = "category"
    layout["xaxis"].update(category_ticks(list(DESIGNS)))
    layout["showlegend"] = False
    line = reference_line(truth, text=f"population mean {fmt(truth, 'value')}")
    line["label"] = {**line["label"], "textposition": "start"}  # type: ignore[dict-item]
    layout["shapes"] = [line]
    return make_figure(traces, layout), frame


# --------------------------------------------------------------------------------------------
# Privacy
# --------------------------------------------------------------------------------------------


def privacy_rate_frame(eps: float, rate: float, sizes: Any = None) -> pd.DataFrame:
    """ε_target against the rate: Theorem 7.2, its 6rε form, simple random sampling and,
    given the population's stratum sizes, the exact worst loss for them
    (:func:`core.accounting.stratified_profile.stratified_eps_target`, an ε_sample-DP
    mechanism for added or removed records, so 2ε_sample for a changed one)."""
    rates = np.union1d(np.geomspace(1e-4, 1.0, 240), [rate])
    data = pd.DataFrame(
        {
            "rate": rates,
            "Theorem 7.2 bound": strata.proportional_eps_bound(eps, rates),
            "6rε": strata.proportional_eps_approx(eps, rates),
            "simple random sample": amp.eps_target(eps, rates),
            "ε (no sampling)": eps,
        }
    )
    if sizes is not None:
        data["exact for these strata"] = [
            stratified_eps_target(eps, 2.0 * eps, float(r), sizes, "deletion") if r < 1 else eps
            for r in rates
        ]
    return data


def privacy_rate_figure(
    eps: float, rate: float, markers: list[tuple[str, float, str]], sizes: Any = None
) -> tuple[go.Figure, pd.DataFrame]:
    """ε_target against the sampling rate, with this population's designs marked at its rate.

    ``markers`` holds (label, privacy loss at ``rate``, design) for the noisy-count attack;
    losses of 0 cannot be drawn on the log axis and are left out.
    """
    data = privacy_rate_frame(eps, rate, sizes)
    r = data["rate"].to_numpy()
    traces = [
        line_trace(
            r,
            data["Theorem 7.2 bound"],
            "proportional, randomised rounding: upper bound (Thm 4.3/7.2)",
            2,
            "r %{x:,.3~r}<br>ε_target ≤ %{y:,.3~r}<extra>Theorem 7.2</extra>",
        ),
        line_trace(
            r,
            data["6rε"],
            "its small-ε form 6rε",
            4,
            "r %{x:,.3~r}<br>6rε = %{y:,.3~r}<extra></extra>",
        ),
        line_trace(
            r,
            data["simple random sample"],
            "simple random sample (Thm 2.2)",
            3,
            "r %{x:,.3~r}<br>ε_target = %{y:,.3~r}<extra>simple random sample</extra>",
        ),
    ]
    if "exact for these strata" in data:
        traces.append(
            line_trace(
                r,
                data["exact for these strata"],
                "proportional, randomised rounding: exact for these stratum sizes",
                5,
                "r %{x:,.3~r}<br>ε_target = %{y:,.3~r}<extra>exact for these strata</extra>",
            )
        )
    symbols = {NEYMAN: "x", PROP_DET: "diamond", PROP_RAND: "circle"}
    for label, value, design in markers:
        if not value > 0:
            continue
        traces.append(
            {
                "type": "scatter",
                "x": [rate],
                "y": [value],
                "mode": "markers",
                "name": label,
                "marker": {
                    "size": 14,
                    "symbol": symbols.get(design, "square"),
                    "color": PALETTE[_INDEX.get(design, 6)],
                    "line": {"color": "black", "width": 1},
                },
                "hovertemplate": "r %{x:,.3~r}<br>loss %{y:,.3~r}<extra>" + label + "</extra>",
            }
        )
    layout = chart_layout(
        title=f"Population guarantee against the rate (ε_sample = {fmt(eps, 'guarantee')})",
        x_title="sampling rate r = n / N",
        y_title="ε_target (guarantee for the population)",
        log_x=True,
        log_y=True,
        hovermode="closest",
        height=460,
    )
    eps_line = reference_line(eps, text=f"ε_sample = {fmt(eps, 'guarantee')}: no sampling")
    eps_line["label"]["textposition"] = "start"  # type: ignore[index]
    layout["shapes"] = [
        eps_line,
        {
            "type": "line",
            "xref": "x",
            "x0": rate,
            "x1": rate,
            "yref": "paper",
            "y0": 0,
            "y1": 1,
            "line": {"color": REFERENCE_COLOUR, "dash": "dash", "width": 1},
        },
    ]
    return make_figure(traces, layout), data


def neighbour_table(cmp: strata.NeighbourComparison) -> pd.DataFrame:
    """Per stratum: sizes, σ_i and both allocations on P and P′, with the shifts."""
    return pd.DataFrame(
        {
            "stratum": [str(label) for label in cmp.labels],
            "N_i": cmp.sizes,
            "N′_i": cmp.sizes_neighbour,
            "σ_i": cmp.sds,
            "σ′_i": cmp.sds_neighbour,
            "Neyman n_i": cmp.neyman,
            "Neyman n′_i": cmp.neyman_neighbour,
            "Neyman shift": cmp.neyman_shift,
            "proportional n_i": cmp.proportional,
            "proportional n′_i": cmp.proportional_neighbour,
            "proportional shift": cmp.proportional_shift,
        }
    )


def neighbour_figure(
    cmp: strata.NeighbourComparison, changed: tuple[int, int]
) -> tuple[go.Figure, pd.DataFrame]:
    """Bars of n′_i − n_i per stratum; the stratum that moves most is outlined and labelled.

    ``changed`` holds the strata the changed record left and joined.
    """
    table = neighbour_table(cmp)
    idx = list(range(len(table)))
    if len(table) > MAX_BARS:
        keep = set(np.argsort(-np.abs(cmp.neyman_shift), kind="stable")[:MAX_BARS].tolist())
        keep |= {cmp.most_moved, *changed}
        idx = sorted(keep)
    shown = table.iloc[idx]
    x = shown["stratum"].tolist()
    top = cmp.most_moved
    widths = [4 if i == top else 1 for i in idx]
    traces = []
    for design, column in ((NEYMAN, "Neyman shift"), (PROP_DET, "proportional shift")):
        bar = _bar(
            x,
            shown[column].tolist(),
            design,
            "stratum %{x}<br>shift %{y:+d} records<extra>" + design + "</extra>",
        )
        if design == NEYMAN:
            bar["marker"]["line"] = {
                "color": [HIGHLIGHT if i == top else PALETTE[0] for i in idx],
                "width": widths,
            }
        traces.append(bar)
    layout = chart_layout(
        title="Sampled records that move when one record changes",
        x_title="stratum",
        y_title="n′_i − n_i (records)",
        hovermode="x unified",
    )
    layout["xaxis"]["type"] = "category"
    layout["barmode"] = "group"
    biggest = int(max(np.abs(cmp.neyman_shift).max(), np.abs(cmp.proportional_shift).max(), 1))
    layout["yaxis"]["dtick"] = max(1, int(np.ceil(biggest / 5)))
    shift = int(cmp.neyman_shift[top])
    annotations = []
    if shift:
        annotations.append(
            {
                "x": table["stratum"].iloc[top],
                "y": shift,
                "xref": "x",
                "yref": "y",
                "text": f"moves most: {shift:+d}",
                "showarrow": True,
                "arrowhead": 2,
                "ax": 0,
                "ay": -30 if shift > 0 else 30,
                "font": {"size": 13},
            }
        )
    layout["annotations"] = annotations
    layout["shapes"] = [reference_line(0.0)]
    return make_figure(traces, layout), table


def rounding_density_frame(example: strata.RoundingExample, eps: float) -> pd.DataFrame:
    """Densities of the released noisy count on P and P′ under both roundings."""
    (da, db), (fa, fb), (pa, pb) = example.deterministic, example.floors, example.p_up
    lo = min(da, fa) - 6.0 / eps
    hi = max(db, fb + 1) + 6.0 / eps
    y = np.union1d(np.linspace(lo, hi, 601), np.arange(int(np.ceil(lo)), int(hi) + 1))

    def lap(c: float) -> np.ndarray:
        return 0.5 * eps * np.exp(-eps * np.abs(y - c))

    return pd.DataFrame(
        {
            "released count": y,
            f"rounded, |P| = {example.size}": lap(da),
            f"rounded, |P′| = {example.size + 1}": lap(db),
            f"randomised, |P| = {example.size}": (1 - pa) * lap(fa) + pa * lap(fa + 1),
            f"randomised, |P′| = {example.size + 1}": (1 - pb) * lap(fb) + pb * lap(fb + 1),
        }
    )


def rounding_figure(example: strata.RoundingExample, eps: float) -> tuple[go.Figure, pd.DataFrame]:
    """What an observer of the noisy sample count sees on P and on P′."""
    data = rounding_density_frame(example, eps)
    y = data["released count"]
    traces = []
    # Colour: the rounding (rounded = orange, randomised = green); dash: P solid, P′ dotted.
    for k, column in enumerate(data.columns[1:]):
        index = 1 if k < 2 else 2
        trace = line_trace(
            y, data[column], column, index, "count %{x:,.3~r}<br>density %{y:,.3~r}<extra></extra>"
        )
        trace["line"] = {**series_style(index), "dash": "solid" if k % 2 == 0 else "dot"}
        traces.append(trace)
    layout = chart_layout(
        title="Released noisy count |S| + Laplace(1/ε), strata of |P| and |P| + 1",
        x_title="released noisy sample count",
        y_title="probability density",
        hovermode="closest",
    )
    return make_figure(traces, layout), data


def random_size_figure(table: pd.DataFrame, eps: float, n: int) -> tuple[go.Figure, pd.DataFrame]:
    """Theorem 3.1 bounds against the spread of a truncated Gaussian size (Figure 2)."""
    x = table["σ of the size"]
    traces = [
        line_trace(
            x,
            table["upper bound"],
            "upper bound",
            0,
            "σ %{x:,.3~r}<br>ε_target ≤ %{y:,.3~r}",
        ),
        line_trace(
            x,
            table["lower bound"],
            "lower bound",
            1,
            "σ %{x:,.3~r}<br>ε_target ≥ %{y:,.3~r}",
        ),
        line_trace(
            x,
            table["fixed size (Thm 2.2)"],
            "fixed size at the mean (Thm 2.2)",
            2,
            "σ %{x:,.3~r}<br>ε_target = %{y:,.3~r}<extra>fixed size</extra>",
        ),
    ]
    layout = chart_layout(
        title=f"Random sample size, N = {n:,}, ε_sample = {eps:g} (Fig. 2)",
        x_title="standard deviation σ of the sample size (records)",
        y_title="ε_target (population guarantee)",
        log_x=True,
        hovermode="x unified",
    )
    line = reference_line(eps, text=f"ε_sample = {eps:g}: no amplification")
    line["label"] = {**line["label"], "textposition": "start", "yanchor": "top"}  # type: ignore[dict-item]
    layout["shapes"] = [line]
    return make_figure(traces, layout), table
