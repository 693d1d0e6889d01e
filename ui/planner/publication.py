"""The "Publication table" tab of the Release planner: many cells × statistics, one ε_target.

The user groups the active population by one or two of its label columns (strata,
clusters), picks the statistics and the share of a cell's value its 95 % error bound may
reach; the tab plans every cell × statistic with :func:`core.publication.plan_table` under
the page's ε_target, δ_target and relation, states the composition in words, and offers the
table as CSV, the plan as the YAML config of ``python -m batch``, a Python script that plans
it from that config, and a zip package of config, script, notebook, table and records.

The pure parts (labels, the composition words, the heat map and the YAML text) are plain
functions of numbers, tested without Streamlit; :func:`publication_view` draws the tab.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from core.population import LABEL_NAME_JOIN
from core.populations import BUILTIN_POPULATIONS, Population
from core.publication import GROUPS, TablePlan, cells_of, plan_table, sizes_statement
from core.publication.table import reading_order
from ui.charts import chart_block
from ui.downloads import frame_to_csv_bytes
from ui.format import fmt
from ui.planner import figures as figs
from ui.planner import text
from ui.planner.exports.checks import INSTALL_COMMAND
from ui.planner.exports.publication_package import (
    BATCH_COMMAND,
    NOTEBOOK_NAME,
    SCRIPT_NAME,
    config_yaml,
    publication_script,
    publication_zip,
)
from ui.planner.inputs import PlannerInputs, StepBar, digest
from ui.state import active_choice
from ui.theme import chart_layout, make_figure
from ui.widgets import bound_toggle, result_container, set_controls

#: Most cells the tab plans; larger tables go to the batch command.
MAX_CELLS = 60
#: Monte Carlo repetitions per cell × statistic at most (the page's T if smaller).
MAX_REPS = 50
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


def _columns_entry(columns: Sequence[str]) -> str | list[str]:
    """A label field of the config: one column as its name, several as a list."""
    return columns[0] if len(columns) == 1 else list(columns)


def population_entry(pop: Population, choice: str, seed: int) -> dict[str, Any]:
    """The config's population entry: what the app knows about the active population.

    A built-in is named with its seed and size. A population read from a file (uploaded, or
    given on the server's command line) gets its file name as it was read, its value column,
    its declared bounds and its label columns (a list where several make one label), so
    only the file's path is left to the user. A population built in code gets the same
    fields from the population itself, under the file name ``population.csv``.
    """
    if choice in BUILTIN_POPULATIONS:
        return {"builtin": choice, "seed": int(seed), "size": int(pop.size)}
    read = pop.file_settings
    if read is not None:
        file, value = read.file, read.value_column
        strata, clusters = read.stratum_columns, read.cluster_columns
    else:
        file, value = "population.csv", pop.value_label
        strata = tuple(pop.stratum_label.split(LABEL_NAME_JOIN)) if pop.strata is not None else ()
        clusters = (
            tuple(pop.cluster_label.split(LABEL_NAME_JOIN)) if pop.clusters is not None else ()
        )
    entry: dict[str, Any] = {
        "file": file,
        "value_column": value,
        "lower": float(pop.lower),
        "upper": float(pop.upper),
    }
    if strata:
        entry["strata_column"] = _columns_entry(strata)
    if clusters:
        entry["cluster_column"] = _columns_entry(clusters)
    return entry


#: Called by :func:`table_plan` on a cache miss with (plans done, plans in all).
TableProgress = Callable[[tuple[int, int] | None], None]


@st.cache_data(max_entries=8, show_spinner=False)
def table_plan(
    content_hash: str,
    _pop: Population,
    *,
    groups: tuple[str, ...],
    statistics: tuple[Any, ...],
    eps_target: float,
    delta_target: float,
    relation: str,
    labels_fixed: bool,
    designs: tuple[str, ...],
    rates: tuple[float, ...] | None,
    reps: int,
    seed: int,
    publish_share: float,
    split: str = "equal",
    error_weights: tuple[float, ...] | None = None,
    sizes_public: bool = False,
    rho_target: float | None = None,
    _progress: TableProgress | None = None,
) -> TablePlan:
    """:func:`core.publication.plan_table` on the population, cached per scalar arguments.

    ``statistics`` holds core's specs as hashable values (``"median"``, ``("quantile", q)``).
    ``_progress`` (not part of the key) hears ``None`` as the plans start, then
    ``(done, total)`` after each cell × statistic.
    """
    if _progress is not None:
        _progress(None)

    def runner(fn: Callable[[Any], Any], jobs: Iterable[Any]) -> list[Any]:
        todo = list(jobs)
        rows = []
        for job in todo:
            rows.append(fn(job))
            if _progress is not None:
                _progress((len(rows), len(todo)))
        return rows

    return plan_table(
        _pop,
        list(groups),
        list(statistics),
        eps_target if rho_target is None else None,
        rho_target=rho_target,
        delta_target=delta_target,
        relation=relation,
        labels_fixed=labels_fixed,
        sizes_public=sizes_public,
        designs=list(designs),
        rates=None if rates is None else list(rates),
        reps=reps,
        seed=seed,
        publish_share=publish_share,
        split=split,
        error_weights=error_weights,
        max_cells=MAX_CELLS,
        map_fn=runner,
    )


def _core_spec(spec: Any) -> Any:
    """A config statistic as a hashable value for the cache (``{"quantile": q}`` → tuple)."""
    return ("quantile", float(spec["quantile"])) if isinstance(spec, dict) else spec


def progress_words(progress: tuple[int, int]) -> tuple[float, str]:
    """The progress bar's fraction and words after ``done`` of ``total`` plans."""
    done, total = progress
    return done / total, f"Planned {done} of {total} cells × statistics…"


def no_labels_notice(pop: Population) -> None:
    """Plain words and a way out when the active population has no label columns."""
    st.info(
        f"**{pop.name}** has no label columns (strata or clusters), so it has no cells to "
        "tabulate. Switch to the built-in **establishments** population (12 employee size "
        "classes, about 100 regions), or upload a CSV on the Population page and pick a "
        "stratum or cluster column.",
        icon=":material/info:",
    )
    if st.button(
        "Use the establishments population",
        key="plan_pub_nolabels_preset_0",
        on_click=set_controls,
        args=({"population": "establishments"},),
        icon=":material/tune:",
    ):
        # The tab runs in a fragment of its own, and the population is the sidebar's: the
        # whole page runs again with it.
        st.rerun()


def publication_view(ctx: PlannerInputs) -> None:
    """The publication table: controls, composition, per-cell table, heat map, downloads."""
    pop = ctx.pop
    offered = groups_of(pop)
    if not offered:
        no_labels_notice(pop)
        return
    c1, c2 = st.columns(2, gap="medium")
    groups = c1.multiselect(
        "Group the table by (one or two label columns)",
        offered,
        default=offered[:1],
        max_selections=2,
        format_func=lambda g: group_label(pop, g),
        key="plan_pub_groups",
        bind="query-params",
        help="Each combination of labels is one cell of the table.",
    )
    stat_options = statistics_offered(pop.has_upper_bound)
    names = c2.multiselect(
        "Statistics in every cell",
        stat_options,
        default=[s for s in DEFAULT_STATISTICS if s in stat_options],
        key="plan_pub_stats",
        bind="query-params",
    )
    c3, c4 = st.columns(2, gap="medium")
    share = c3.number_input(
        "Publishable when the 95 % error bound is at most this share of the cell's value",
        min_value=0.001,
        max_value=10.0,
        value=DEFAULT_SHARE,
        format="%g",
        key="plan_pub_share",
        bind="query-params",
    )
    with c4:
        labels_fixed = bound_toggle(
            "The grouping labels are public and never change",
            "plan_pub_fixed",
            default=False,
            help="Then a changed record stays in its cell, and each cell keeps the whole "
            "ε_target. Otherwise a record may move between cells, which costs two cells.",
        )
        st.caption(
            ("The cell sizes N_c are declared public" if ctx.sizes_public else "The cell "
             "sizes N_c are not public") + f" (set above: *{text.SIZES_LABEL}*)."
        )  # fmt: skip
    offered_designs = [d for d in ctx.designs if d != "neyman"]
    c5, c6 = st.columns(2, gap="medium")
    chosen_designs = c5.multiselect(
        "Designs for the table",
        offered_designs,
        default=[d for d in DEFAULT_DESIGNS if d in offered_designs] or offered_designs[:1],
        format_func=text.design_label,
        key="plan_pub_designs",
        bind="query-params",
        help="Those chosen above for the page. Poisson sampling by default: its restriction "
        "to a cell is a Poisson sample of the cell, so one sample serves every cell. Each "
        "design adds a plan per cell; the census is always planned as the reference.",
    )
    with c6:
        run = bound_toggle(
            "Plan every cell now",
            "plan_pub_run",
            default=True,
            help="Each change of a control plans the whole table again. Turn this off to set "
            "a large table up without waiting; the batch config below needs no plan.",
        )
    split = st.radio(
        "Budget split across the statistics",
        list(SPLIT_LABELS.values()),
        key="plan_pub_split",
        bind="query-params",
        horizontal=True,
        help="Optimised: each statistic's share is chosen to minimise the largest relative 95 "
        "% error over the cells, from plans at four trial shares (five times the plans).",
    )
    split = next((k for k, v in SPLIT_LABELS.items() if v == split), "equal")
    weights = error_weights_control(names) if split == "optimal" else None
    if not groups:
        st.info("No grouping is chosen; grouping by the first label column.")
        groups = offered[:1]
    if not names:
        st.info("No statistic is chosen; showing the median.")
        names = ["median"]
    specs = [STATISTICS[n] for n in names]
    reps = min(ctx.reps, MAX_REPS)
    designs = tuple(chosen_designs) or tuple(offered_designs[:1])
    promise = (
        f"ε_target = {fmt(ctx.eps_target, 'guarantee')}"
        if ctx.rho_target is None
        else f"ρ = {fmt(ctx.rho_target, 'guarantee', 6)}-zCDP (planned at the pure ε_target = "
        f"{fmt(ctx.eps_target, 'guarantee', 6)} that keeps it; the conversion is named above)"
    )
    st.caption(
        f"{promise} (set above) is the promise for the "
        f"whole table. Each cell × statistic is planned with T = {reps} repetitions, the "
        "best rate minimising the 95 % error bound."
    )
    with result_container("plan_pub"):
        publication_results(
            ctx,
            tuple(groups),
            specs,
            float(share),
            bool(labels_fixed),
            designs,
            run=bool(run),
            split=split,
            error_weights=weights,
        )


def error_weights_control(names: Sequence[str]) -> tuple[float, ...] | None:
    """How much each statistic's relative error counts in the optimised split, or None.

    Empty (the default) counts every statistic alike. A list that is not one positive number
    per chosen statistic is explained and equal weights are used.
    """
    text_in = st.text_input(
        "Weight of each statistic's error (in the order chosen)",
        value="",
        placeholder="equal: " + ", ".join("1" for _ in names),
        key="plan_pub_weights",
        bind="query-params",
        help="The optimised split minimises the largest weighted relative 95 % error: with "
        "weights 2, 1 the first statistic's error counts twice, so it gets more of the budget.",
    )
    parts = [t for t in re.split(r"[,;\s]+", (text_in or "").strip()) if t]
    if not parts:
        return None
    try:
        weights = tuple(float(t) for t in parts)
    except ValueError:
        weights = ()
    if len(weights) != len(names) or not all(math.isfinite(w) and w > 0 for w in weights):
        st.warning(
            f"Weights: give {len(names)} positive numbers, one per statistic "
            f"({', '.join(names)}); using equal weights.",
            icon=":material/warning:",
        )
        return None
    return weights


def publication_results(
    ctx: PlannerInputs,
    groups: tuple[str, ...],
    specs: list[Any],
    share: float,
    labels_fixed: bool,
    designs: tuple[str, ...],
    *,
    run: bool = True,
    split: str = "equal",
    error_weights: tuple[float, ...] | None = None,
) -> None:
    """The plan of the table and everything shown from it (see :func:`publication_view`).

    With ``run`` off only the cells are counted and the batch config offered.
    """
    pop = ctx.pop
    reps = min(ctx.reps, MAX_REPS)
    settings = {
        "groups": list(groups),
        "eps_target": ctx.eps_target,
        "rho_target": ctx.rho_target,
        "delta_target": ctx.delta_target,
        "relation": ctx.relation,
        "labels_fixed": labels_fixed,
        "sizes_public": ctx.sizes_public,
        "designs": list(designs),
        "rates": None if ctx.rates is None else list(ctx.rates),
        "reps": reps,
        "seed": ctx.seed,
        "split": split,
        "error_weights": None if error_weights is None else list(error_weights),
        "publish_share": share,
    }
    config = config_dict(population_entry(pop, active_choice(), ctx.seed), settings, specs)
    try:
        names, labels, _ = cells_of(pop, groups, max_cells=MAX_CELLS)
    except ValueError as exc:
        st.warning(
            f"{exc}. The page plans at most {MAX_CELLS} cells: download the config below "
            f"and run the whole table in batch (`{BATCH_COMMAND}`).",
            icon=":material/warning:",
        )
        yaml_block(config, pop)
        return
    if not run:
        st.info(
            f"Planning is off: {len(labels)} cells by {' × '.join(names)} × {len(specs)} "
            "statistics are set up. Turn on *Plan every cell now*, or run the config below "
            "in batch.",
            icon=":material/info:",
        )
        yaml_block(config, pop)
        return
    key = digest(pop.content_hash, settings, specs)
    slot = st.empty()
    bar = StepBar(slot, f"plan_pub_live_{key}", "Planning the cells…", progress_words)
    result = table_plan(
        pop.content_hash,
        pop,
        groups=groups,
        statistics=tuple(_core_spec(s) for s in specs),
        eps_target=ctx.eps_target,
        delta_target=ctx.delta_target,
        relation=ctx.relation,
        labels_fixed=labels_fixed,
        designs=designs,
        rates=ctx.rates,
        reps=reps,
        seed=ctx.seed,
        publish_share=share,
        split=split,
        error_weights=error_weights,
        sizes_public=ctx.sizes_public,
        rho_target=ctx.rho_target,
        _progress=bar.report,
    )
    t = result.table
    with slot.container(key=f"plan_pub_view_{key}"):
        ok = int(t["publishable"].sum())
        st.markdown(
            f"**{ok} of {len(t)}** cells × statistics are publishable at this ε_target "
            f"({len(labels)} cells by {' × '.join(names)}; publishable: the 95 % error "
            f"bound at most {fmt(share, 'share')} of the cell's value)."
        )
        with st.expander("How the table's releases compose", expanded=True):
            st.markdown(composition_words(result))
        st.dataframe(
            shown_table(result),
            hide_index=True,
            key="plan_pub_table",
            column_config={
                "rate": st.column_config.NumberColumn(format="%.3g"),
                "ε_sample": st.column_config.NumberColumn(format="%.4g"),
                "RMSE": st.column_config.NumberColumn(format="%.4g"),
                "b₉₅": st.column_config.NumberColumn(format="%.4g", help="95 % error bound"),
                "b₉₅ / value": st.column_config.NumberColumn(format="percent"),
            },
        )
        st.download_button(
            "Download the table (CSV)",
            data=lambda: frame_to_csv_bytes(result.table),
            file_name="publication_table.csv",
            mime="text/csv",
            key="plan_pub_csv",
            on_click="ignore",
        )
    fig, data = heatmap_figure(result)
    chart_block(
        fig,
        data,
        key="planner_publication",
        explanation=(
            "Each square is one cell and statistic, coloured by its 95 % error bound as a "
            "share of the cell's value: blue when it is within the publishable share, orange "
            "above it, darker further from it; the colour bar marks the limit. Small cells "
            "are noisy: the same "
            f"budget must hide one record among fewer. ✗ marks the squares above "
            f"{fmt(share, 'share')}, not publishable at this ε_target."
        ),
    )
    yaml_block(config, pop, result)


def yaml_block(config: Mapping[str, Any], pop: Population, result: TablePlan | None = None) -> None:
    """The plan as the batch config and as a script, the zip package, and the config's text.

    The zip (config, script, notebook, table, records and a README) needs the planned
    ``result``; without it only the config and the script are offered. Every file is built
    only when its button is clicked.
    """
    body = config_yaml(config, pop)
    st.caption("Download this plan to run it again outside the page:")
    c1, c2, c3 = st.columns(3, gap="small")
    c1.download_button(
        "Batch config (YAML)",
        data=lambda: body.encode("utf-8"),
        file_name="publication.yaml",
        mime="application/x-yaml",
        key="plan_pub_yaml",
        icon=":material/download:",
        on_click="ignore",
    )
    c2.download_button(
        "Python script (.py)",
        data=lambda: publication_script(config).encode("utf-8"),
        file_name=SCRIPT_NAME,
        mime="text/x-python",
        key="plan_pub_py",
        icon=":material/download:",
        on_click="ignore",
        help=f"Save it next to publication.yaml and run it with a Python that has the "
        f"explorer's core installed ({INSTALL_COMMAND}); {NOTEBOOK_NAME} in the zip runs "
        "the same steps.",
    )
    if result is not None:
        c3.download_button(
            "Everything (zip)",
            data=lambda: publication_zip(config, pop, result),
            file_name="publication_plan.zip",
            mime="application/zip",
            key="plan_pub_zip",
            icon=":material/download:",
            on_click="ignore",
            help="The config, the script, a notebook, the table, its summary, registry "
            "entry and report, with a README saying how to run each.",
        )
    with st.expander("Reproduce in batch", icon=":material/terminal:"):
        if "builtin" not in config["population"]:
            st.caption(
                f"{pop.name} is not a built-in population, and the config cannot carry the "
                f"file: put the path to `{config['population']['file']}` (relative to the "
                "config's folder) under `population: file:`. Its value column, public bounds "
                "and label columns are the ones this page used."
            )
        st.markdown(
            f"Save the config and run `{BATCH_COMMAND}` (for N = {fmt(pop.size, 'count')})."
        )
        st.code(body, language="yaml")
