"""Figure builders and texts for the Cluster sampling page: each figure returns ``(fig, data)``.

All numbers come from :mod:`core.clusters` (Bun et al. §5–6) and :mod:`core.amplification`;
this module only arranges them for plotly and words them for the reader.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from numpy.typing import NDArray

from core import clusters as cl
from ui.format import fmt
from ui.theme import (
    REFERENCE_COLOUR,
    band_trace,
    chart_layout,
    line_trace,
    make_figure,
    series_style,
)

#: Points per curve (before removing duplicate whole-number sizes).
CURVE_POINTS = 300
#: Cluster sizes shown on the size axis.
SIZE_MIN, SIZE_MAX = 1, 100_000

LOWER = "lower bound (Thm 5.1)"
UPPER = "upper bound (Thm 5.2)"
SRS = "Poisson sampling, same fraction (eq. 3)"
NONE = "no amplification (ε_target = ε_sample)"
#: The shaded band between the two bounds (no legend entry), in the upper bound's colour.
BOUNDS_BAND = "between the bounds"
BOUNDS_COLOUR = series_style(1)["color"]


def whole_grid(lo: int, hi: int, points: int = CURVE_POINTS) -> np.ndarray:
    """Whole numbers from ``lo`` to ``hi`` (both included), log-spaced, without repeats."""
    if hi <= lo:
        return np.array([float(lo)])
    return np.unique(np.round(np.geomspace(lo, hi, points)))


def other_sizes(size: Any, spread: float) -> tuple[np.ndarray, np.ndarray]:
    """Smallest and largest size of the *other* clusters: ``size/spread`` and ``size·spread``.

    Rounded to whole records, at least 1; ``spread = 1`` means equal sizes.
    """
    n = np.asarray(size, dtype=np.float64)
    n_min = np.maximum(1.0, np.round(n / spread))
    n_max = np.maximum(n_min, np.round(n * spread))
    return n_min, n_max


def _hline(x0: float, x1: float, y: float, name: str, *, colour: str, dash: str) -> dict[str, Any]:
    """A named horizontal line as a trace, so it shows in the legend and on hover."""
    return {
        "type": "scatter",
        "x": [x0, x1],
        "y": [y, y],
        "mode": "lines",
        "name": name,
        "line": {"color": colour, "dash": dash, "width": 2},
        "hovertemplate": f"{name}<br>ε_target = {fmt(y, 'guarantee')}<extra></extra>",
    }


def _marker(x: float, y: float | NDArray[np.float64], name: str, hover: str) -> dict[str, Any]:
    """The diamond marking the current design, in the fourth series colour."""
    return {
        "type": "scatter",
        "x": [x],
        "y": [y],
        "mode": "markers",
        "name": name,
        "marker": {
            "size": 11,
            "color": series_style(3)["color"],
            "symbol": "diamond",
            "line": {"width": 0},
        },
        "hovertemplate": hover + "<extra></extra>",
    }


def _eps_layout(title: str, x_title: str, eps: float, log_y: bool) -> dict[str, Any]:
    """Layout of every figure: log x-axis, ε_target axis from 0 to just above ε_sample (or
    log), legend clear of the x-axis title."""
    layout = chart_layout(
        title=title,
        x_title=x_title,
        y_title="ε_target (guarantee for the population)",
        log_x=True,
        hovermode="closest",
    )
    layout["height"] = 500
    layout["legend"]["traceorder"] = "normal"
    if log_y:
        layout["yaxis"]["type"] = "log"
    else:
        layout["yaxis"]["range"] = [0, eps * 1.05]
    return layout


# ---------------------------------------------------------------------------------------
# ε_target against cluster size
# ---------------------------------------------------------------------------------------


def eps_vs_size_figure(
    eps: float,
    clusters_total: int,
    clusters_sampled: int,
    spread: float,
    current_size: int,
    *,
    log_y: bool = False,
) -> tuple[go.Figure, pd.DataFrame]:
    """ε_target bounds of Theorems 5.1/5.2 against the size ``M`` of the person's cluster.

    The other clusters hold between ``n/spread`` and ``n·spread`` records. Flat lines: simple
    random sampling of the same fraction ``ℓ/k`` of records (eq. 3) and ``ε`` itself.
    """
    sizes = whole_grid(SIZE_MIN, SIZE_MAX)
    n_min, n_max = other_sizes(sizes, spread)
    lower, upper = cl.cluster_eps_bounds(eps, clusters_total, clusters_sampled, sizes, n_min, n_max)
    srs = float(cl.srs_eps(eps, clusters_total, clusters_sampled))
    hover = "cluster size %{x:,.0f}<br>ε_target %{y:,.3~r}<extra>%{fullData.name}</extra>"
    traces: list[dict[str, Any]] = [
        band_trace(sizes, lower, upper, colour=BOUNDS_COLOUR, name=BOUNDS_BAND, opacity=0.15),
        line_trace(sizes, lower, LOWER, 0, hover),
        line_trace(sizes, upper, UPPER, 1, hover),
        _hline(SIZE_MIN, SIZE_MAX, srs, SRS, colour=series_style(2)["color"], dash="dot"),
        _hline(SIZE_MIN, SIZE_MAX, eps, NONE, colour=REFERENCE_COLOUR, dash="dash"),
    ]
    c_min, c_max = other_sizes(current_size, spread)
    lo_now, up_now = cl.cluster_eps_bounds(
        eps, clusters_total, clusters_sampled, current_size, float(c_min), float(c_max)
    )
    traces.append(
        _marker(
            current_size,
            up_now,
            f"your clusters: {current_size:,} records",
            f"cluster size {current_size:,}<br>ε_target between {fmt(lo_now, 'guarantee')} and "
            f"{fmt(up_now, 'guarantee')}",
        )
    )
    q = clusters_sampled / clusters_total
    layout = _eps_layout(
        f"Larger clusters erase amplification (ℓ/k = {fmt(q, 'rate')})",
        "cluster size M (records in the person's cluster)",
        eps,
        log_y,
    )
    data = pd.DataFrame(
        {
            "cluster_size": sizes.astype(np.int64),
            "smallest_other": n_min.astype(np.int64),
            "largest_other": n_max.astype(np.int64),
            "eps": eps,
            "clusters_total": clusters_total,
            "clusters_sampled": clusters_sampled,
            "fraction_sampled": q,
            "eps_lower_thm51": lower,
            "eps_upper_thm52": upper,
            "eps_srs_eq3": srs,
        }
    )
    return make_figure(traces, layout), data


# ---------------------------------------------------------------------------------------
# ε_target against the fraction of clusters sampled
# ---------------------------------------------------------------------------------------


def eps_vs_fraction_figure(
    eps: float,
    clusters_total: int,
    size: int,
    spread: float,
    current_sampled: int,
    *,
    log_y: bool = False,
) -> tuple[go.Figure, pd.DataFrame]:
    """ε_target against ``ℓ/k`` for the chosen sizes; singleton clusters and eq. (3) to compare."""
    ells = whole_grid(1, clusters_total)
    q = ells / clusters_total
    n_min, n_max = other_sizes(size, spread)
    lower, upper = cl.cluster_eps_bounds(eps, clusters_total, ells, size, n_min, n_max)
    single, _ = cl.cluster_eps_bounds(eps, clusters_total, ells, 1, 1, 1)
    srs = cl.srs_eps(eps, clusters_total, ells)
    hover = "fraction of clusters %{x:,.3~r}<br>ε_target %{y:,.3~r}<extra>%{fullData.name}</extra>"
    traces: list[dict[str, Any]] = [
        band_trace(q, lower, upper, colour=BOUNDS_COLOUR, name=BOUNDS_BAND, opacity=0.15),
        line_trace(q, lower, LOWER, 0, hover),
        line_trace(q, upper, UPPER, 1, hover),
        line_trace(q, single, "clusters of 1 record (SRS, deletion model)", 4, hover),
        line_trace(q, srs, SRS, 2, hover),
        _hline(float(q[0]), 1.0, eps, NONE, colour=REFERENCE_COLOUR, dash="dash"),
    ]
    q_now = current_sampled / clusters_total
    lo_now, up_now = cl.cluster_eps_bounds(
        eps, clusters_total, current_sampled, size, float(n_min), float(n_max)
    )
    traces.append(
        _marker(
            q_now,
            up_now,
            f"your design: {current_sampled:,} of {clusters_total:,}",
            f"ℓ/k = {fmt(q_now, 'rate')}<br>ε_target between {fmt(lo_now, 'guarantee')} and "
            f"{fmt(up_now, 'guarantee')}",
        )
    )
    layout = _eps_layout(
        f"Fewer clusters help while clusters are small (M = {size:,})",
        "fraction of clusters drawn ℓ/k (= expected fraction of records)",
        eps,
        log_y,
    )
    data = pd.DataFrame(
        {
            "clusters_sampled": ells.astype(np.int64),
            "fraction_sampled": q,
            "cluster_size": size,
            "smallest_other": int(n_min),
            "largest_other": int(n_max),
            "eps": eps,
            "eps_lower_thm51": lower,
            "eps_upper_thm52": upper,
            "eps_singleton_clusters": single,
            "eps_srs_eq3": srs,
        }
    )
    return make_figure(traces, layout), data


# ---------------------------------------------------------------------------------------
# The active population's clusters
# ---------------------------------------------------------------------------------------


def population_sampled(clusters_total: int, clusters_sampled: int, pop_clusters: int) -> int:
    """``ℓ`` for the population: the same fraction ``ℓ/k`` of its clusters, at least 1."""
    share = clusters_sampled / clusters_total
    return int(min(pop_clusters, max(1, round(share * pop_clusters))))


def per_cluster_figure(
    frame: pd.DataFrame, eps: float, *, log_y: bool = False
) -> tuple[go.Figure, pd.DataFrame]:
    """Per-cluster bounds for the population, one point per distinct cluster size.

    Clusters of equal size share a point: every column plotted depends on the size alone
    (the other clusters' extremes and the πps probability are the same for equal sizes).
    """
    sizes = frame["size"].to_numpy()
    x, first, custom = np.unique(sizes, return_index=True, return_counts=True)
    x = x.astype(np.float64)
    by_size = {c: frame[c].to_numpy()[first] for c in ("lower", "upper", "pps lower")}
    by_size["pps_lower"] = by_size.pop("pps lower")
    srs = float(frame["srs"].iloc[0])

    def points(y: Any, name: str, index: int, symbol: str) -> dict[str, Any]:
        style = series_style(index)
        return {
            "type": "scatter",
            "x": x,
            "y": y,
            "mode": "markers",
            "name": name,
            "customdata": custom,
            "marker": {"color": style["color"], "size": 9, "symbol": symbol, "opacity": 0.85},
            "hovertemplate": "cluster size %{x:,.0f} (%{customdata} clusters)"
            "<br>ε_target %{y:,.3~r}<extra>%{fullData.name}</extra>",
        }

    x0, x1 = float(x.min()), float(x.max())
    if x0 == x1:
        x0, x1 = x0 / 1.5, x1 * 1.5
    traces = [
        points(by_size["lower"], LOWER, 0, "circle"),
        points(by_size["upper"], UPPER, 1, "triangle-up"),
        points(by_size["pps_lower"], "PPS cluster sampling: lower bound (§6.1–6.2)", 4, "square"),
        _hline(x0, x1, srs, SRS, colour=series_style(2)["color"], dash="dot"),
        _hline(x0, x1, eps, NONE, colour=REFERENCE_COLOUR, dash="dash"),
    ]
    layout = _eps_layout(
        "Each cluster: the guarantee of a person in it",
        "size of the person's cluster (records)",
        eps,
        log_y,
    )
    return make_figure(traces, layout), frame


# ---------------------------------------------------------------------------------------
# Two-stage sampling
# ---------------------------------------------------------------------------------------


def two_stage_figure(
    eps: float,
    clusters_total: int,
    clusters_sampled: int,
    spread: float,
    within_rate: float,
    current_size: int,
    *,
    log_y: bool = False,
) -> tuple[go.Figure, pd.DataFrame]:
    """Upper bounds of single- and two-stage designs against cluster size."""
    sizes = whole_grid(SIZE_MIN, SIZE_MAX)
    n_min, n_max = other_sizes(sizes, spread)
    _, single = cl.cluster_eps_bounds(eps, clusters_total, clusters_sampled, sizes, n_min, n_max)
    two = cl.two_stage_eps_upper(eps, clusters_total, clusters_sampled, sizes, n_max, within_rate)
    srs = float(cl.srs_eps(eps, clusters_total, clusters_sampled, within_rate))
    poisson = float(cl.srs_eps(eps, 1, 1, within_rate))  # ε_r: Poisson stage alone
    hover = "cluster size %{x:,.0f}<br>ε_target %{y:,.3~r}<extra>%{fullData.name}</extra>"
    traces: list[dict[str, Any]] = [
        line_trace(sizes, single, "single stage: upper bound (Thm 5.2)", 1, hover),
        line_trace(sizes, two, f"two stage, r = {within_rate:g}: upper bound", 0, hover),
        _hline(
            SIZE_MIN,
            SIZE_MAX,
            poisson,
            f"Poisson stage alone: ε_r = ln(1 + r(e^ε − 1)) = {fmt(poisson, 'guarantee')}",
            colour=series_style(4)["color"],
            dash="dashdot",
        ),
        _hline(
            SIZE_MIN,
            SIZE_MAX,
            srs,
            "simple random sampling, same fraction r·ℓ/k (eq. 3)",
            colour=series_style(2)["color"],
            dash="dot",
        ),
        _hline(SIZE_MIN, SIZE_MAX, eps, NONE, colour=REFERENCE_COLOUR, dash="dash"),
    ]
    _, c_max = other_sizes(current_size, spread)
    now = cl.two_stage_eps_upper(
        eps, clusters_total, clusters_sampled, current_size, float(c_max), within_rate
    )
    traces.append(
        _marker(
            current_size,
            now,
            f"your clusters: {current_size:,} records",
            f"cluster size {current_size:,}<br>two-stage ε_target ≤ {fmt(now, 'guarantee')}",
        )
    )
    layout = _eps_layout(
        f"Sampling inside drawn clusters (r = {within_rate:g}) amplifies",
        "cluster size M (records in the person's cluster)",
        eps,
        log_y,
    )
    data = pd.DataFrame(
        {
            "cluster_size": sizes.astype(np.int64),
            "largest_other": n_max.astype(np.int64),
            "eps": eps,
            "within_rate": within_rate,
            "eps_upper_single_stage": single,
            "eps_upper_two_stage": two,
            "eps_poisson_stage_alone": poisson,
            "eps_srs_same_fraction": srs,
        }
    )
    return make_figure(traces, layout), data


# ---------------------------------------------------------------------------------------
# PPS and systematic sampling (§6)
# ---------------------------------------------------------------------------------------


def pps_figure(
    eps: float, size_measures: np.ndarray, label: str, *, log_y: bool = False
) -> tuple[go.Figure, pd.DataFrame]:
    """§6.1: PPS on records with the population's values as size measure, against SRS."""
    n = int(size_measures.size)
    positive = int(np.count_nonzero(size_measures > 0))
    m = whole_grid(1, positive)
    rate = m / n
    a_max = cl.pps_max_inclusion(size_measures, m)
    pps = cl.inclusion_eps(eps, a_max)
    srs = cl.inclusion_eps(eps, rate)
    hover = "sample %{customdata:,} of " + f"{n:,}" + " (rate %{x:.3~%})<br>ε_target %{y:,.3~r}"
    hover += "<extra>%{fullData.name}</extra>"
    traces = [
        line_trace(rate, pps, "PPS: lower bound max ln(1 + aᵢ(e^ε_sample − 1))", 0, hover),
        line_trace(rate, srs, "simple random sampling, same size (eq. 3)", 2, hover),
        _hline(float(rate[0]), float(rate[-1]), eps, NONE, colour=REFERENCE_COLOUR, dash="dash"),
    ]
    for t in traces[:2]:
        t["customdata"] = m.astype(np.int64)
    layout = _eps_layout(
        f"PPS on “{label}”: the largest record caps the amplification",
        "sampling rate n/N",
        eps,
        log_y,
    )
    data = pd.DataFrame(
        {
            "sample_size": m.astype(np.int64),
            "rate": rate,
            "largest_inclusion_probability": a_max,
            "eps_pps_lower": pps,
            "eps_srs": srs,
        }
    )
    return make_figure(traces, layout), data


def systematic_figure(
    eps: float, population_size: int, current_interval: int, *, log_y: bool = False
) -> tuple[go.Figure, pd.DataFrame]:
    """§6.3: systematic sampling of a known ordering against interval k, and SRS (secret order)."""
    intervals = whole_grid(2, population_size)
    lower, upper = cl.systematic_eps_bounds(eps, population_size, intervals)
    srs = cl.srs_eps(eps, intervals, 1)
    hover = "interval %{x:,.0f}<br>ε_target %{y:,.3~r}<extra>%{fullData.name}</extra>"
    traces: list[dict[str, Any]] = [
        line_trace(intervals, lower, "known order: lower bound (Thm 5.1)", 0, hover),
        line_trace(intervals, upper, "known order: upper bound (Thm 5.2)", 1, hover),
        line_trace(intervals, srs, "random secret order = SRS (eq. 3)", 2, hover),
        _hline(2, population_size, eps, NONE, colour=REFERENCE_COLOUR, dash="dash"),
    ]
    lo, up = cl.systematic_eps_bounds(eps, population_size, current_interval)
    traces.append(
        _marker(
            current_interval,
            up,
            f"your interval: every {current_interval:,}th record",
            f"interval {current_interval:,}<br>ε_target between {fmt(lo, 'guarantee')} and "
            f"{fmt(up, 'guarantee')}",
        )
    )
    layout = _eps_layout(
        f"Systematic sampling: every k-th of N = {population_size:,}",
        "sampling interval k (sample ≈ N/k records)",
        eps,
        log_y,
    )
    data = pd.DataFrame(
        {
            "interval": intervals.astype(np.int64),
            "sample_size_about": population_size / intervals,
            "eps_known_order_lower": lower,
            "eps_known_order_upper": upper,
            "eps_random_order_srs": srs,
        }
    )
    return make_figure(traces, layout), data


# ---------------------------------------------------------------------------------------
# The hypothesis-testing view (§5.2, Theorem 5.3)
# ---------------------------------------------------------------------------------------


def hypothesis_figure(
    eps: float,
    clusters_total: int,
    clusters_sampled: int,
    current_size: int,
    *,
    log_y: bool = False,
) -> tuple[go.Figure, pd.DataFrame]:
    """Theorem 5.3's lower bound against the sharpness γ of a test for "cluster i drawn?"."""
    tests = np.geomspace(1e-3, 1e3, CURVE_POINTS)
    bound = cl.hypothesis_test_bound(eps, tests, clusters_total, clusters_sampled)
    srs = float(cl.srs_eps(eps, clusters_total, clusters_sampled))
    hover = "test sharpness γ %{x:,.3~r}<br>ε_target ≥ %{y:,.3~r}<extra>%{fullData.name}</extra>"
    traces: list[dict[str, Any]] = [
        line_trace(tests, bound, "Theorem 5.3: lower bound on ε_target", 0, hover),
        _hline(1e-3, 1e3, srs, SRS, colour=series_style(2)["color"], dash="dot"),
        _hline(1e-3, 1e3, eps, NONE, colour=REFERENCE_COLOUR, dash="dash"),
    ]
    test_now = eps * current_size
    if 1e-3 <= test_now <= 1e3:
        y_now = cl.hypothesis_test_bound(eps, test_now, clusters_total, clusters_sampled)
        traces.append(
            _marker(
                test_now,
                y_now,
                f"counting test, cluster of {current_size:,}: γ = M·ε_sample = "
                f"{fmt(test_now, 'plain')}",
                f"γ = {fmt(test_now, 'plain')}<br>ε_target ≥ {fmt(y_now, 'guarantee')}",
            )
        )
    layout = _eps_layout(
        "Sharper tests of “cluster i drawn?” leave less amplification",
        "sharpness γ of the test (log of its likelihood ratio)",
        eps,
        log_y,
    )
    data = pd.DataFrame(
        {
            "test_eps": tests,
            "eps_known": eps,
            "clusters_total": clusters_total,
            "clusters_sampled": clusters_sampled,
            "eps_lower_thm53": bound,
        }
    )
    return make_figure(traces, layout), data


def counting_test_table(eps: float, size: int) -> pd.DataFrame:
    """Threshold test on a Laplace count: how often it says "drawn" in each case."""
    p_in = 0.5
    log_out = math.log(0.5) - eps * size
    return pd.DataFrame(
        {
            "cluster i": ["drawn", "not drawn"],
            "Pr(count + noise > M)": [p_in, math.exp(log_out)],
        }
    )


# ---------------------------------------------------------------------------------------
# Summary numbers, the plain-words reading, and the Python snippet
# ---------------------------------------------------------------------------------------


def summary(
    eps: float, clusters_total: int, clusters_sampled: int, size: int, spread: float
) -> dict[str, float]:
    """The headline numbers of the page for the current controls."""
    n_min, n_max = other_sizes(size, spread)
    lower, upper = cl.cluster_eps_bounds(
        eps, clusters_total, clusters_sampled, size, float(n_min), float(n_max)
    )
    srs = float(cl.srs_eps(eps, clusters_total, clusters_sampled))
    gap = eps - srs
    kept_low = (eps - upper) / gap if gap > 0 else 0.0
    kept_high = (eps - lower) / gap if gap > 0 else 0.0
    half = (
        float(cl.combined_size_for_eps(eps, clusters_total, clusters_sampled, srs + gap / 2))
        if gap > 0
        else 0.0
    )
    return {
        "eps": eps,
        "fraction": clusters_sampled / clusters_total,
        "size": float(size),
        "size_min": float(n_min),
        "size_max": float(n_max),
        "lower": float(lower),
        "upper": float(upper),
        "srs": srs,
        "kept_low": float(kept_low),
        "kept_high": float(kept_high),
        "half_combined_size": half,
    }


def bounds_table(rows: Sequence[tuple[str, float, float]]) -> pd.DataFrame:
    """A small table of designs with their lower and upper bounds on ε_target."""
    return pd.DataFrame(rows, columns=["design", "ε_target lower bound", "ε_target upper bound"])
