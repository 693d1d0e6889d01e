"""Figure builders for the Amplification page: each returns ``(figure, tidy data frame)``.

All numbers come from :mod:`core.amplification`; this module only arranges them for plotly.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from core import amplification as amp
from core import risk
from ui.amplification.text import delta_sample_status, in_100, one_in
from ui.format import fmt
from ui.theme import (
    REFERENCE_COLOUR,
    chart_layout,
    line_trace,
    make_figure,
    reference_line,
    series_style,
)

#: Points per curve: enough for smooth lines on log axes, cheap to compute and send.
CURVE_POINTS = 300


def rate_grid(rate_min: float, *, log_spacing: bool, points: int = CURVE_POINTS) -> np.ndarray:
    """Sampling rates from ``rate_min`` to 1 (both included), log- or evenly spaced."""
    if log_spacing:
        return np.geomspace(rate_min, 1.0, points)
    return np.linspace(rate_min, 1.0, points)


def eps_sample_figure(
    eps_targets: Sequence[float],
    rates: np.ndarray,
    *,
    log_x: bool,
    log_y: bool,
    marker_rate: float | None = None,
) -> tuple[go.Figure, pd.DataFrame]:
    """ε_sample = log(1 + (e^ε_target − 1)/rate) against the rate, one curve per ε_target."""
    traces = []
    frames = []
    for i, e in enumerate(eps_targets):
        y = amp.eps_sample(e, rates)
        hover = "rate %{x:.3~%}<br>ε_sample %{y:,.3~r}<extra>ε_target = " + f"{e:g}</extra>"
        traces.append(line_trace(rates, y, f"ε_target = {e:g}", i, hover))
        frames.append(pd.DataFrame({"eps_target": e, "rate": rates, "eps_sample": y}))
        if marker_rate is not None:
            traces.append(
                {
                    "type": "scatter",
                    "x": [marker_rate],
                    "y": [amp.eps_sample(e, marker_rate)],
                    "mode": "markers",
                    "marker": {"size": 10, "color": series_style(i)["color"]},
                    "name": f"n/N = {fmt(marker_rate, 'rate')}",
                    "showlegend": i == 0,
                    "legendgroup": "marker",
                    "hovertemplate": "n/N %{x:.3~%}<br>ε_sample %{y:,.3~r}"
                    "<extra>your sample</extra>",
                }
            )
    layout = chart_layout(
        title="Budget you may spend on the sample",
        x_title="sampling rate n/N",
        y_title="ε_sample (budget on the sample)",
        log_x=log_x,
        log_y=log_y,
    )
    return make_figure(traces, layout), pd.concat(frames, ignore_index=True)


def delta_sample_figure(
    delta_target: float, rates: np.ndarray, *, log_x: bool
) -> tuple[go.Figure, pd.DataFrame]:
    """δ_sample = δ_target / rate against the rate, with the vacuous level δ = 1 marked."""
    y = amp.delta_sample(delta_target, rates)
    hover = "rate %{x:.3~%}<br>δ_sample %{y:.3~g}<extra></extra>"
    layout = chart_layout(
        title="δ you may spend on the sample",
        x_title="sampling rate n/N",
        y_title="δ_sample",
        log_x=log_x,
        log_y=True,
    )
    # δ_sample = 1 is a named line (legend and hover at every rate), not an anonymous shape.
    vacuous = {
        "type": "scatter",
        "x": rates,
        "y": np.ones_like(rates, dtype=float),
        "mode": "lines",
        "name": "δ_sample = 1: no constraint left (any mechanism qualifies)",
        "line": {"color": REFERENCE_COLOUR, "dash": "dot", "width": 1.5},
        "hovertemplate": "δ_sample = 1: the guarantee allows anything<extra></extra>",
    }
    trace = line_trace(rates, y, f"δ_target = {fmt(delta_target, 'delta')}", 0, hover)
    fig = make_figure([trace, vacuous], layout)
    return fig, pd.DataFrame({"delta_target": delta_target, "rate": rates, "delta_sample": y})


def eps_target_figure(
    eps_samples: Sequence[float], rates: np.ndarray, *, log_x: bool, log_y: bool
) -> tuple[go.Figure, pd.DataFrame]:
    """Reverse view: ε_target = log(1 + rate·(e^ε_sample − 1)) for fixed sample budgets."""
    traces = []
    frames = []
    for i, e in enumerate(eps_samples):
        y = amp.eps_target(e, rates)
        hover = "rate %{x:.3~%}<br>ε_target %{y:,.3~r}<extra>ε_sample = " + f"{e:g}</extra>"
        traces.append(line_trace(rates, y, f"ε_sample = {e:g}", i, hover))
        frames.append(pd.DataFrame({"eps_sample": e, "rate": rates, "eps_target": y}))
    layout = chart_layout(
        title="Guarantee the population gets",
        x_title="sampling rate n/N",
        y_title="ε_target (population guarantee)",
        log_x=log_x,
        log_y=log_y,
    )
    return make_figure(traces, layout), pd.concat(frames, ignore_index=True)


def _ratio_layout(title: str, x_title: str, *, log_x: bool) -> dict[str, Any]:
    layout = chart_layout(title=title, x_title=x_title, y_title="p·ε_p / ε", log_x=log_x)
    layout["yaxis"]["range"] = [0, 1.05]
    layout["shapes"] = [reference_line(1.0)]
    return layout


def steinke_vs_p_figure(
    eps_values: Sequence[float], rates: np.ndarray, *, log_x: bool
) -> tuple[go.Figure, pd.DataFrame]:
    """Steinke's ratio p·ε_p/ε against p, one curve per ε (his first figure)."""
    traces = []
    frames = []
    for i, e in enumerate(eps_values):
        y = amp.steinke_ratio(e, rates)
        hover = "p %{x:,.3~r}<br>p·ε_p/ε %{y:,.3~r}<extra>ε = " + f"{e:g}</extra>"
        traces.append(line_trace(rates, y, f"ε = {e:g}", i, hover))
        frames.append(pd.DataFrame({"eps": e, "p": rates, "ratio": y}))
    layout = _ratio_layout(
        "How much of the amplification is real: p·ε_p/ε against p",
        "sampling probability p",
        log_x=log_x,
    )
    layout["yaxis"]["title"]["text"] = "p·ε_p / ε (1 = free amplification)"
    return make_figure(traces, layout), pd.concat(frames, ignore_index=True)


def steinke_vs_eps_figure(
    rates: Sequence[float], eps_grid: np.ndarray
) -> tuple[go.Figure, pd.DataFrame]:
    """Steinke's ratio p·ε_p/ε against ε, one curve per p (his second figure)."""
    traces = []
    frames = []
    for i, p in enumerate(rates):
        y = amp.steinke_ratio(eps_grid, p)
        hover = "ε %{x:,.3~r}<br>p·ε_p/ε %{y:,.3~r}<extra>p = " + f"{p:g}</extra>"
        traces.append(line_trace(eps_grid, y, f"p = {p:g}", i, hover))
        frames.append(pd.DataFrame({"p": p, "eps": eps_grid, "ratio": y}))
    layout = _ratio_layout(
        "p·ε_p/ε against ε: amplification fades as ε grows", "privacy parameter ε", log_x=True
    )
    return make_figure(traces, layout), pd.concat(frames, ignore_index=True)


def steinke_regime_figure(
    constants: Sequence[float], rates: np.ndarray, *, log_x: bool
) -> tuple[go.Figure, pd.DataFrame]:
    """The regime ε = c·p: ratio against p with its floor log(1+c)/c (Steinke eq. 6)."""
    traces = []
    frames = []
    for i, c in enumerate(constants):
        y = amp.steinke_ratio(c * rates, rates)
        floor = float(amp.steinke_floor(c))
        hover = "p %{x:,.3~r}<br>p·ε_p/ε %{y:,.3~r}<extra>ε = " + f"{c:g}·p</extra>"
        traces.append(line_trace(rates, y, f"c = {c:g}", i, hover))
        traces.append(
            {
                "type": "scatter",
                "x": [rates[0], rates[-1]],
                "y": [floor, floor],
                "mode": "lines",
                "line": {"color": series_style(i)["color"], "dash": "dot", "width": 1.5},
                "name": f"floor log(1+{c:g})/{c:g} = {fmt(floor, 'ratio')}",
                "hovertemplate": f"floor {fmt(floor, 'ratio')}<extra>c = {c:g}</extra>",
            }
        )
        frames.append(
            pd.DataFrame({"c": c, "p": rates, "eps": c * rates, "ratio": y, "floor": floor})
        )
    layout = _ratio_layout(
        "Keep ε = c·p and the ratio stays above log(1+c)/c", "sampling probability p", log_x=log_x
    )
    layout["shapes"] = []
    return make_figure(traces, layout), pd.concat(frames, ignore_index=True)


def noise_factor_figure(c_grid: np.ndarray) -> tuple[go.Figure, pd.DataFrame]:
    """c / log(1+c): the most extra Laplace noise subsampling costs when ε ≤ c·p."""
    y = 1.0 / amp.steinke_floor(c_grid)
    hover = "c %{x:,.3~r}<br>noise factor %{y:,.3~r}<extra></extra>"
    layout = chart_layout(
        title="Worst-case noise factor of subsampled Laplace when ε ≤ c·p",
        x_title="c (ε measured in units of p)",
        y_title="noise factor c / log(1+c)",
        log_x=True,
    )
    fig = make_figure([line_trace(c_grid, y, "c / log(1+c)", 0, hover)], layout)
    return fig, pd.DataFrame({"c": c_grid, "noise_factor": y})


def calculator_table(
    population_size: int, sample_size: int, eps_targets: Sequence[float], delta_target: float
) -> pd.DataFrame:
    """One row per ε_target: what a sample of ``sample_size`` out of ``population_size`` may use."""
    rate = sample_size / population_size
    delta_s = float(amp.delta_sample(delta_target, rate))
    rows = []
    for e in eps_targets:
        e_s = float(amp.eps_sample(e, rate))
        rows.append(
            {
                "ε_target": e,
                "n/N": rate,
                "ε_sample": e_s,
                "ε_sample / ε_target": e_s / e,
                "δ_target": delta_target,
                "δ_sample": delta_s,
                "δ on the sample": delta_sample_status(delta_s),
                "noise variance ratio r": float(amp.noise_variance_ratio(e, rate)),
            }
        )
    return pd.DataFrame(rows)


def prior_grid(points: int = CURVE_POINTS) -> np.ndarray:
    """Attacker priors from one in a million to 99 in 100, log-spaced."""
    return np.geomspace(1e-6, 0.99, points)


def odds_table(
    eps_targets: Sequence[float], rate: float, prior: float, delta_target: float
) -> pd.DataFrame:
    """One row per ε_target: ε_sample at ``rate`` and the posterior bound of each, in 100.

    The bounds are :func:`core.risk.posterior_bound` times 100 (read "at most X in 100").
    """
    rows = []
    for e in eps_targets:
        e_s = float(amp.eps_sample(e, rate))
        rows.append(
            {
                "ε_target": float(e),
                "ε_sample": e_s,
                "prior": one_in(prior),
                "ε_target: at most … in 100": 100 * risk.posterior_bound(e, prior, delta_target),
                "ε_sample: at most … in 100": 100 * risk.posterior_bound(e_s, prior),
            }
        )
    return pd.DataFrame(rows)


def posterior_figure(
    eps_target: float, rate: float, priors: np.ndarray, *, marker_prior: float
) -> tuple[go.Figure, pd.DataFrame]:
    """The posterior bound against the prior for ε_target and its ε_sample at ``rate``.

    Log axes; a dotted diagonal for "no release" (posterior = prior) and a marker on each
    curve at the page's prior.
    """
    e_s = float(amp.eps_sample(eps_target, rate))
    traces: list[dict[str, Any]] = [
        {
            "type": "scatter",
            "x": [priors[0], priors[-1]],
            "y": [priors[0], priors[-1]],
            "mode": "lines",
            "line": {"color": "#888", "dash": "dot", "width": 1.5},
            "name": "no release (posterior = prior)",
            "hoverinfo": "skip",
        }
    ]
    frames = []
    for i, (label, e) in enumerate(
        (
            (f"ε_target = {fmt(eps_target, 'guarantee')}", eps_target),
            (f"ε_sample = {fmt(e_s, 'guarantee')}", e_s),
        )
    ):
        bound = risk.posterior_bound(e, priors)
        hover = "prior %{x:,.3~r}<br>at most %{y:,.3~r}<extra>" + label + "</extra>"
        traces.append(line_trace(priors, bound, label, i, hover))
        at_prior = float(risk.posterior_bound(e, marker_prior))
        traces.append(
            {
                "type": "scatter",
                "x": [marker_prior],
                "y": [at_prior],
                "mode": "markers",
                "marker": {"size": 10, "color": series_style(i)["color"]},
                "name": f"prior {one_in(marker_prior)}",
                "showlegend": i == 0,
                "legendgroup": "marker",
                "hovertemplate": f"prior {one_in(marker_prior)}: at most {in_100(at_prior)} "
                f"in 100<extra>{label}</extra>",
            }
        )
        frames.append(
            pd.DataFrame(
                {
                    "budget": "eps_target" if i == 0 else "eps_sample",
                    "eps": e,
                    "rate": rate,
                    "prior": priors,
                    "posterior_bound": bound,
                    "increase": risk.posterior_increase(e, priors),
                }
            )
        )
    layout = chart_layout(
        title=f"How sure an attacker can become (ε_target = {fmt(eps_target, 'guarantee')}, "
        f"n/N = {fmt(rate, 'rate')})",
        x_title="prior: belief before the release",
        y_title="posterior: at most, after the release",
        log_x=True,
        log_y=True,
        hovermode="closest",
    )
    return make_figure(traces, layout), pd.concat(frames, ignore_index=True)
