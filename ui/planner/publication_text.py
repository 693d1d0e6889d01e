"""Words, tables, heat map and batch config of the Release planner's Publication table tab.

Pure functions of numbers (no Streamlit), tested without an app: the groupings and
statistics offered, the composition of the table in words, the on-screen table, the heat map
of relative errors and the YAML config of ``python -m batch``. The tab itself is
:mod:`ui.planner.publication`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from core.population import LABEL_NAME_JOIN
from core.populations import BUILTIN_POPULATIONS, Population
from core.publication import GROUPS, TablePlan, sizes_statement
from core.publication.table import reading_order
from ui.format import fmt
from ui.planner import figures as figs
from ui.theme import chart_layout, make_figure

#: The statistics the tab offers: on-screen name → the statistic as core's config takes it.
STATISTICS: dict[str, Any] = {
    "median": "median",
    "mean": "mean",
    "lower quartile": {"quantile": 0.25},
    "upper quartile": {"quantile": 0.75},
    "10th percentile": {"quantile": 0.1},
    "90th percentile": {"quantile": 0.9},
}


DEFAULT_STATISTICS = ("median", "mean")


#: The tab's default designs (each design adds one plan per cell × statistic).
DEFAULT_DESIGNS = ("poisson",)


#: Default publishable share: the 95 % error bound at most this share of the cell's value.
DEFAULT_SHARE = 0.1


#: The budget splits across statistics: core's name → on-screen label.
SPLIT_LABELS = {"equal": "equal shares", "optimal": "optimised shares"}


#: Columns of the on-screen table after the cells' labels (core's names → shown names).
SHOWN_COLUMNS = {
    "statistic": "statistic",
    "N_cell": "N cell",
    "design": "design",
    "rate": "rate",
    "eps_sample": "ε_sample",
    "rmse": "RMSE",
    "error_95": "b₉₅",
    "relative_error": "b₉₅ / value",
    "publishable": "publishable",
}


def group_label(pop: Population, group: str) -> str:
    """On-screen name of a grouping: the label column and its kind (``"size_class (strata)"``)."""
    name = pop.stratum_label if group == "strata" else pop.cluster_label
    return f"{name} ({group})"


def groups_of(pop: Population) -> list[str]:
    """The groupings the population offers: those of :data:`core.publication.GROUPS` with labels."""
    return [g for g in GROUPS if getattr(pop, g) is not None]


def statistics_offered(bounded: bool) -> list[str]:
    """The statistics' on-screen names; the mean needs a public upper bound."""
    return [s for s in STATISTICS if bounded or s != "mean"]


def composition_words(result: TablePlan) -> str:
    """The composition of the table in words: across cells, across statistics, the check."""
    b = result.budget
    settings = result.settings
    relation = "an added or removed record" if b.relation == "deletion" else "a changed record"
    shares = ", ".join(
        f"{stat} {fmt(share, 'share')}"
        for stat, share in zip(result.statistics, result.shares, strict=True)
    )
    how = ""
    if settings["split"] == "optimal":
        weights = settings.get("error_weights")
        weighted = (
            ""
            if weights is None
            else " weighted by "
            + ", ".join(
                f"{stat} {fmt(w, 'plain')}"
                for stat, w in zip(result.statistics, weights, strict=True)
            )
        )
        how = (
            f", optimised to minimise the largest relative 95 % error{weighted} over the cells"
            if result.split_curves
            else "; equal, as the optimisation found no finite error to compare"
        )
    lines = [
        f"**Across cells.** {b.reason}",
        f"**Per cell.** Each cell is planned for {relation} at ε_target = "
        f"{fmt(b.eps_target, 'guarantee')} and δ_target = {fmt(b.delta_target, 'delta')}.",
        f"**Sizes.** {sizes_statement(bool(settings.get('sizes_public', False)), b.relation)}",
        "**Across statistics.** Each statistic of a cell is drawn from a sample of its own at "
        f"its share of the cell's budget ({shares}{how}); the shares add up to the cell's "
        "budget, so the statistics compose sequentially (their ε add up).",
        f"**Check.** Recomputed from the cells' spent budgets, the table keeps ε = "
        f"{fmt(result.eps_table, 'guarantee')} for the promised ε_target = "
        f"{fmt(settings['eps_target'], 'guarantee')}.",
    ]
    for design, reason in result.refused.items():
        lines.append(f"**{figs.short_design(design)} is not used.** {reason}")
    return "\n\n".join(lines)


def cell_names(table: pd.DataFrame, label_columns: Sequence[str]) -> list[str]:
    """One name per row of the table: its labels joined by " / "."""
    return [
        " / ".join(str(v) for v in row)
        for row in table[list(label_columns)].itertuples(index=False)
    ]


def number_or_text(label: Any) -> Any:
    """A label as a number when it reads as one ("12" → 12, "2.5" → 2.5), else as it is."""
    try:
        value = float(str(label))
    except ValueError:
        return label
    if not math.isfinite(value):
        return label
    return int(value) if value.is_integer() else value


def shown_table(result: TablePlan) -> pd.DataFrame:
    """The on-screen table: the cells' labels, then :data:`SHOWN_COLUMNS` (and notes if any).

    Rows are in core's reading order (:func:`core.publication.table.reading_order`); a
    label column whose labels all read as numbers is
    shown as numbers, so that sorting it by its header also goes 1, 2, …, 10, not 1, 10, 11.
    """
    t = result.table
    shown = t[[*result.label_columns, *SHOWN_COLUMNS]].rename(columns=SHOWN_COLUMNS)
    for column in result.label_columns:
        numbers = [number_or_text(v) for v in t[column]]
        if all(isinstance(v, (int, float)) for v in numbers):
            shown[column] = numbers
    shown["design"] = [figs.short_design(d) if d else "—" for d in t["design"]]
    if (t["note"] != "").any():
        shown["note"] = t["note"].to_numpy()
    return shown


#: The heat map's two sides, meeting at the publishable share: publishable squares in blues
#: (darker: further below it), the others in oranges (darker: further above); Okabe–Ito's
#: blue and vermillion, which stay apart for the common forms of colour blindness.
PUBLISHABLE_COLOURS = ("#0072B2", "#D8EAF6")


UNPUBLISHABLE_COLOURS = ("#FBE1CC", "#B34700")


#: An end of the colour bar is labelled only this share of its length away from the
#: threshold's label (closer, the two labels would overlap).
END_TICK_GAP = 0.14


def colour_span(values: np.ndarray, threshold: float) -> tuple[float, float]:
    """The colour scale's ends: the range of the finite ``values``, widened to hold the
    ``threshold`` (so the threshold is always on the colour bar)."""
    v = np.asarray(values, dtype=float)
    v = v[np.isfinite(v)]
    low = min(float(v.min()), threshold) if v.size else threshold
    high = max(float(v.max()), threshold) if v.size else threshold
    if high <= low:  # every value equal to the threshold
        low, high = low * 0.9, high * 1.1 if high > 0 else 1.0
    return low, high


def threshold_colour_scale(low: float, high: float, threshold: float) -> list[list[Any]]:
    """A diverging colour scale over ``[low, high]`` whose two sides meet at ``threshold``.

    Each side runs through its whole gradient however short its part of the range, so the
    step at the threshold is visible even when every value lies just below it.
    """
    at = (threshold - low) / (high - low)
    below = [[0.0, PUBLISHABLE_COLOURS[0]], [at, PUBLISHABLE_COLOURS[1]]]
    above = [[at, UNPUBLISHABLE_COLOURS[0]], [1.0, UNPUBLISHABLE_COLOURS[1]]]
    if at <= 0.0:
        return [[0.0, UNPUBLISHABLE_COLOURS[0]], [1.0, UNPUBLISHABLE_COLOURS[1]]]
    if at >= 1.0:
        return [[0.0, PUBLISHABLE_COLOURS[0]], [1.0, PUBLISHABLE_COLOURS[1]]]
    return below + above


def colour_bar_ticks(low: float, high: float, threshold: float) -> tuple[list[float], list[str]]:
    """Tick values and labels of the colour bar: the threshold (named), each end of the
    range, and round shares between them (about four steps of 1, 2 or 5 times a power of
    ten), each kept only if far enough from the labels already placed to stay clear."""
    span = high - low
    values, texts = [threshold], [f"{fmt(threshold, 'share')} limit"]
    candidates: list[tuple[float, int | None]] = [(low, 2), (high, 2)]
    step = 10.0 ** math.floor(math.log10(span / 4.0))
    step *= next(m for m in (1.0, 2.0, 5.0, 10.0) if span / (step * m) <= 5.0)
    candidates += [(k * step, None) for k in range(math.ceil(low / step), int(high // step) + 1)]
    for value, digits in candidates:
        if all(abs(value - v) >= END_TICK_GAP * span for v in values):
            values.append(value)
            texts.append(fmt(value, "share", digits) if digits else fmt(value, "share"))
    order = np.argsort(values)
    return [values[i] for i in order], [texts[i] for i in order]


def heatmap_figure(result: TablePlan) -> tuple[go.Figure, pd.DataFrame]:
    """Cells × statistics coloured by the relative 95 % error ``b₉₅ / |value|``.

    The colour scale is diverging, its two sides meeting at the publishable share (the
    threshold, named on the colour bar), and spans the range of the cells' relative errors
    (widened to hold the threshold), so that errors of 2 % to 10 % do not all look alike on
    a scale to 100 %. Relative errors above twice the share (or 1, whichever is larger) are
    drawn at that cap so that a few hopeless cells do not wash out the rest; the hover gives
    the uncapped numbers. Cells are in :func:`core.publication.table.reading_order`.
    Returns the figure and its data
    (one row per cell × statistic).
    """
    t = result.table
    data = pd.DataFrame(
        {
            "cell": cell_names(t, result.label_columns),
            "statistic": t["statistic"].to_numpy(),
            "relative_error": t["relative_error"].to_numpy(dtype=float),
            "error_95": t["error_95"].to_numpy(dtype=float),
            "value": t["value"].to_numpy(dtype=float),
            "design": [figs.short_design(d) for d in t["design"]],
            "rate": t["rate"].to_numpy(dtype=float),
            "publishable": t["publishable"].to_numpy(dtype=bool),
        }
    )
    cells = sorted(dict.fromkeys(data["cell"]), key=reading_order)
    stats = list(result.statistics)
    grid = data.set_index(["cell", "statistic"])
    share = float(result.settings["publish_share"])
    cap = max(1.0, 2.0 * share)
    z = np.full((len(cells), len(stats)), np.nan)
    texts = np.full((len(cells), len(stats)), "", dtype=object)
    custom = np.empty((len(cells), len(stats), 5), dtype=object)
    for i, cell in enumerate(cells):
        for j, stat in enumerate(stats):
            row = grid.loc[(cell, stat)]
            rel = float(row["relative_error"])
            z[i, j] = min(rel, cap) if math.isfinite(rel) else cap
            texts[i, j] = ("" if row["publishable"] else "✗ ") + (
                fmt(rel, "share", 2) if math.isfinite(rel) else "—"  # a short cell label
            )
            custom[i, j] = [
                fmt(rel, "share") if math.isfinite(rel) else "not planned",
                fmt(float(row["error_95"]), "error"),
                fmt(float(row["value"]), "value"),
                f"{row['design']} at rate {fmt(float(row['rate']), 'rate')}",
                "yes" if row["publishable"] else "no",
            ]
    low, high = colour_span(z, share)
    tick_values, tick_texts = colour_bar_ticks(low, high, share)
    trace = {
        "type": "heatmap",
        "x": stats,
        "y": cells,
        "z": z,
        "zmin": low,
        "zmax": high,
        "colorscale": threshold_colour_scale(low, high, share),
        "text": texts,
        "texttemplate": "%{text}",
        "customdata": custom,
        "colorbar": {
            "title": {"text": "b₉₅ / value"},
            "tickvals": tick_values,
            "ticktext": tick_texts,
            "ticks": "outside",
        },
        "hovertemplate": (
            "%{y}, %{x}<br>b₉₅ / value: %{customdata[0]}<br>b₉₅: %{customdata[1]}"
            "<br>value: %{customdata[2]}<br>%{customdata[3]}<br>publishable: %{customdata[4]}"
            "<extra></extra>"
        ),
        "name": "relative 95 % error",
    }
    layout = chart_layout(
        title=f"Relative 95 % error per cell and statistic (✗: above {fmt(share, 'share')})",
        x_title="statistic",
        y_title=" / ".join(result.label_columns),
        height=max(320, 28 * len(cells) + 160),
        hovermode="closest",
    )
    layout["showlegend"] = False
    layout["yaxis"]["autorange"] = "reversed"
    layout["yaxis"]["type"] = "category"
    layout["xaxis"]["type"] = "category"
    for axis in ("xaxis", "yaxis"):  # room for the cells' labels and the statistics
        layout[axis]["automargin"] = True
    return make_figure([trace], layout), data


def config_dict(
    population: Mapping[str, Any],
    settings: Mapping[str, Any],
    statistics: Sequence[Any],
) -> dict[str, Any]:
    """The batch config (``core.publication.config.load_config``) of a table plan's ``settings``.

    ``population`` is the config's population entry (:func:`population_entry`): a built-in
    with seed and size, or a file with its value column, public bounds and label columns.
    """
    config: dict[str, Any] = {
        "name": "publication table from the release planner",
        "population": dict(population),
        "groups": list(settings["groups"]),
        "statistics": list(statistics),
        **(
            {"eps_target": float(settings["eps_target"])}
            if settings.get("rho_target") is None
            else {"rho_target": float(settings["rho_target"])}
        ),
        "delta_target": float(settings["delta_target"]),
        "relation": settings["relation"],
        "labels_fixed": bool(settings["labels_fixed"]),
        "sizes_public": bool(settings.get("sizes_public", False)),
    }
    if settings.get("designs") is not None:
        config["designs"] = list(settings["designs"])
    if settings.get("rates") is not None:
        config["rates"] = [float(r) for r in settings["rates"]]
    config.update(
        T=int(settings["reps"]),
        seed=int(settings["seed"]),
        split=settings["split"],
        publish_share=float(settings["publish_share"]),
    )
    if settings.get("error_weights") is not None:
        config["error_weights"] = [float(w) for w in settings["error_weights"]]
    return config


def columns_entry(columns: Sequence[str]) -> str | list[str]:
    """A label field of the config: one column as its name, several as a list."""
    return columns[0] if len(columns) == 1 else list(columns)


def population_entry(pop: Population, choice: str, seed: int) -> dict[str, Any]:
    """The config's population entry: what the app knows about the active population.

    A built-in is named with its seed and size. A population read from a file (uploaded, or
    given on the server's command line) gets its file name as it was read, its value column,
    its declared bounds and its label and category columns (a list where several make one), so
    only the file's path is left to the user. A population built in code gets the same
    fields from the population itself, under the file name ``population.csv``.
    """
    if choice in BUILTIN_POPULATIONS:
        return {"builtin": choice, "seed": int(seed), "size": int(pop.size)}
    read = pop.file_settings
    if read is not None:
        file, value = read.file, read.value_column
        strata, clusters = read.stratum_columns, read.cluster_columns
        categories = read.category_column
    else:
        file, value = "population.csv", pop.value_label
        strata = tuple(pop.stratum_label.split(LABEL_NAME_JOIN)) if pop.strata is not None else ()
        clusters = (
            tuple(pop.cluster_label.split(LABEL_NAME_JOIN)) if pop.clusters is not None else ()
        )
        categories = (
            tuple(pop.category_label.split(LABEL_NAME_JOIN)) if pop.categories is not None else ()
        )
    entry: dict[str, Any] = {
        "file": file,
        "value_column": value,
        "lower": float(pop.lower),
        "upper": float(pop.upper),
    }
    if strata:
        entry["strata_column"] = columns_entry(strata)
    if clusters:
        entry["cluster_column"] = columns_entry(clusters)
    if categories:
        entry["category_column"] = columns_entry(categories)
    return entry


def progress_words(progress: tuple[int, int]) -> tuple[float, str]:
    """The progress bar's fraction and words after ``done`` of ``total`` plans."""
    done, total = progress
    return done / total, f"Planned {done} of {total} cells × statistics…"
