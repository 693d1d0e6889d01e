"""Histogram and per-group table of the active population (Population page)."""

from __future__ import annotations

import math
import re
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from core.populations import Population
from ui.format import number
from ui.theme import PALETTE, REFERENCE_COLOUR, chart_layout, make_figure

#: Points along each marker line, so that hovering anywhere on it names it (not only its ends).
_LINE_POINTS = 21


def _marker_line(
    x: float, top: float, name: str, colour: str, dash: str, *, label: str | None = None
) -> dict[str, Any]:
    """A vertical line from 0 to ``top`` at ``x``, named in the legend and on hover.

    ``label`` (``"top left"`` or ``"top right"``) also writes the name at the top of the line,
    on that side of it.
    """
    line: dict[str, Any] = {
        "type": "scatter",
        "x": [x] * _LINE_POINTS,
        "y": np.linspace(0.0, top, _LINE_POINTS).tolist(),
        "mode": "lines",
        "name": name,
        "line": {"color": colour, "dash": dash, "width": 2},
        "hovertemplate": f"{name}<extra></extra>",
        "showlegend": True,
    }
    if label:
        line["mode"] = "lines+text"
        line["text"] = [""] * (_LINE_POINTS - 1) + [name]
        line["textposition"] = label
        line["textfont"] = {"color": colour, "size": 12}
        line["cliponaxis"] = False
    return line


def _axis_share(x: float, first: float, last: float, log_x: bool) -> float:
    """Where ``x`` sits between ``first`` (0) and ``last`` (1) on the axis."""
    if log_x and min(x, first, last) > 0:
        x, first, last = math.log10(x), math.log10(first), math.log10(last)
    return (x - first) / (last - first) if last > first else 0.5


def _off_axis(bound: float, first: float, last: float, log_x: bool) -> bool:
    """Whether a declared bound lies outside the bins by more than a hundredth of their span."""
    if log_x:
        if bound <= 0:
            return True
        bound, first, last = math.log10(bound), math.log10(first), math.log10(last)
    slack = (last - first) / 100
    return bound < first - slack or bound > last + slack


def histogram_figure(
    pop: Population, hist: pd.DataFrame, *, log_x: bool
) -> tuple[go.Figure, pd.DataFrame]:
    """Bars of the histogram with the median, the mean and the declared bounds marked.

    The median and the mean are often a few pixels apart, so each is drawn in its own dash
    and colour, named in the legend and on hover along the whole line, and labelled at its top
    on a row of its own, so the two labels never overlap. The declared bounds L and U are
    grey lines named in the legend; when the bins span the data rather than the bounds
    (``histogram_data`` with ``to_bounds=False``) and a bound lies off the axis, the axis keeps
    to the bins and the bound's legend entry says on which side it lies. Returns the figure
    and ``hist`` (its data, for the CSV download).
    """
    left = hist["bin_left"].to_numpy()
    right = hist["bin_right"].to_numpy()
    counts = hist["count"].to_numpy()
    centres = np.sqrt(left * right) if log_x else (left + right) / 2
    bars = {
        "type": "bar",
        "x": centres,
        "y": counts,
        "width": right - left,
        "marker": {"color": PALETTE[0], "line": {"width": 0}},
        "customdata": np.stack([left, right], axis=1),
        "hovertemplate": "%{customdata[0]:,.3~r} – %{customdata[1]:,.3~r}<br>%{y:,} records"
        "<extra></extra>",
        "name": "records",
        "showlegend": False,
    }
    v = pop.values
    median = float(v[(v.size - 1) // 2])
    mean = float(v.mean())
    top = float(max(counts.max(), 1)) * 1.05 if counts.size else 1.0
    first, last = (float(left[0]), float(right[-1])) if left.size else (pop.lower, pop.upper)
    # Two label rows: the left line of the two reaches higher and is labelled on the upper
    # row, so the two labels never overlap however close the lines are. Labels point right,
    # or left when the lines sit in the right quarter of the axis (no label off the chart).
    side = "top left" if _axis_share(max(median, mean), first, last, log_x) > 0.75 else "top right"
    median_top = top * (1.12 if median <= mean else 1.0)
    mean_top = top * (1.0 if median <= mean else 1.12)
    if side == "top left":
        median_top, mean_top = mean_top, median_top  # the right line's label goes higher
    markers = [
        _marker_line(
            median, median_top, f"median {number(median, 4)}", PALETTE[3], "dash", label=side
        ),
        _marker_line(mean, mean_top, f"mean {number(mean, 4)}", PALETTE[2], "dot", label=side),
    ]
    clipped = False
    for bound, name, side in ((pop.lower, "L", "left"), (pop.upper, "U", "right")):
        if (log_x and bound <= 0) or not math.isfinite(bound):  # U = inf: no upper bound
            continue
        off = _off_axis(bound, first, last, log_x)
        clipped = clipped or off
        label = f"{name} = {number(bound, 4)}" + (f", off the axis to the {side}" if off else "")
        line = _marker_line(bound, top, label, REFERENCE_COLOUR, "solid")
        line["line"]["width"] = 1
        markers.append(line)
    layout = chart_layout(
        title=f"Distribution of {pop.value_label}",
        x_title=f"{pop.value_label} (y)",
        y_title="number of records",
        log_x=log_x,
        hovermode="closest",
    )
    layout.update({"bargap": 0})
    layout["yaxis"]["range"] = [0, top * 1.3]  # room for the two rows of labels
    if clipped:
        ends = (math.log10(first), math.log10(last)) if log_x else (first, last)
        pad = (ends[1] - ends[0]) / 50
        layout["xaxis"]["range"] = [ends[0] - pad, ends[1] + pad]
    return make_figure([bars, *markers], layout), hist


_NUMBER_RUN = re.compile(r"(\d+(?:\.\d+)?)")


def label_sort_key(label: object) -> tuple[tuple[tuple[int, float, str], ...], ...]:
    """Natural order of a stratum or cluster label: numbers by value, text by its characters.

    A label that is a number ("10", "-1.5") sorts by its value; other labels sort by their
    runs of digits and text, so "5-9" comes before "10-19" and "R2" before "R10". A label
    built from several columns ("3 / 10") is compared part by part, so "3 / 2" comes before
    "3 / 10" and "2 / 1" before "10 / 1". Numbers come before text.
    """
    key: list[tuple[tuple[int, float, str], ...]] = []
    for part in str(label).split(" / "):
        try:
            number = float(part)
        except ValueError:
            number = math.nan
        if math.isfinite(number):
            key.append(((0, number, ""), (2, 0.0, part)))
            continue
        runs = [t for t in _NUMBER_RUN.split(part) if t]
        tokens = [(0, float(t), "") if _NUMBER_RUN.fullmatch(t) else (1, 0.0, t) for t in runs]
        key.append((*tokens, (2, 0.0, part)))
    return tuple(key)


def group_counts(labels: np.ndarray, values: np.ndarray) -> pd.DataFrame:
    """Records, mean and standard deviation of the values per label (stratum or cluster).

    Rows are in natural order (:func:`label_sort_key`): 1, 2, …, 10 rather than 1, 10, 2.
    Labels that are all whole numbers are returned as integers, so a click on the column
    header sorts them by value too. For a :class:`~core.population.Population` use
    :func:`group_counts_from_codes` with its ``label_codes``: it skips hashing the labels.
    """
    codes, uniques = pd.factorize(np.asarray(labels), sort=False)
    return group_counts_from_codes(codes, np.asarray(uniques), values)


def group_counts_from_codes(
    codes: np.ndarray, uniques: np.ndarray, values: np.ndarray
) -> pd.DataFrame:
    """:func:`group_counts` of the labels ``uniques[codes]``, grouped by the integer codes.

    ``codes`` numbers the labels in order of first appearance (``pandas.factorize``), so the
    groups, their order and pandas' per-group sums are those of a group-by on the labels
    themselves; grouping 10⁷ small integers takes a fraction of the time that hashing 10⁷
    label strings does.
    """
    grouped = (
        pd.Series(values, copy=False)
        .groupby(codes, sort=False)
        .agg(records="size", mean="mean", sd="std")
    )
    label = pd.Series(uniques[grouped.index.to_numpy()], name="label")
    out = pd.concat([label, grouped.reset_index(drop=True)], axis=1)
    keys = [label_sort_key(x) for x in out["label"].tolist()]
    out = out.iloc[sorted(range(len(keys)), key=keys.__getitem__)].reset_index(drop=True)
    labels_in_order = [str(x) for x in out["label"].tolist()]
    if out["label"].dtype.kind not in "iu" and all(map(_is_plain_integer, labels_in_order)):
        out["label"] = [int(x) for x in labels_in_order]
    return out


def _is_plain_integer(text: str) -> bool:
    """True for text that is exactly the decimal form of an integer ("7", "-3"; not "07")."""
    try:
        return str(int(text)) == text
    except ValueError:
        return False
