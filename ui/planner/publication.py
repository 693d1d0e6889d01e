"""The "Publication table" tab of the Release planner: many cells × statistics, one ε_target.

The user groups the active population by one or two of its label columns (strata,
clusters), picks the statistics and the share of a cell's value its 95 % error bound may
reach; the tab plans every cell × statistic with :func:`core.publication.plan_table` under
the page's ε_target, δ_target and relation, states the composition in words, and offers the
table as CSV, the plan as the YAML config of ``python -m batch``, a Python script that plans
it from that config, and a zip package of config, script, notebook, table and records.

The pure parts (labels, the composition words, the heat map and the batch config) are in
:mod:`ui.planner.publication_text`; :func:`publication_view` draws the tab.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import pandas as pd
import streamlit as st

from core.populations import Population
from core.publication import TablePlan, cells_of, plan_table
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
from ui.planner.frequency import frequency_view
from ui.planner.frequency_text import TABLE_TYPES
from ui.planner.inputs import PlannerInputs, StepBar, digest
from ui.planner.publication_text import (
    DEFAULT_DESIGNS,
    DEFAULT_SHARE,
    DEFAULT_STATISTICS,
    SHOWN_COLUMNS,
    SPLIT_LABELS,
    STATISTICS,
    composition_words,
    config_dict,
    group_label,
    groups_of,
    heatmap_figure,
    population_entry,
    progress_words,
    shown_table,
    statistics_offered,
)
from ui.state import active_choice
from ui.widgets import bound_toggle, result_container, set_controls

#: Most cells the tab plans; larger tables go to the batch command.
MAX_CELLS = 60
#: Monte Carlo repetitions per cell × statistic at most (the page's T if smaller).
MAX_REPS = 50


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
    _on_row: Callable[[dict[str, Any]], None] | None = None,
) -> TablePlan:
    """:func:`core.publication.plan_table` on the population, cached per scalar arguments.

    ``statistics`` holds core's specs as hashable values (``"median"``, ``("quantile", q)``).
    ``_progress`` (not part of the key) hears ``None`` as the plans start, then
    ``(done, total)`` after each cell × statistic; ``_on_row`` (not part of the key either)
    hears each row of the final table as soon as it is planned (``plan_table``'s ``on_row``).
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
        on_row=_on_row,
    )


class LiveTable(StepBar):
    """The progress bar and, below it, the table's rows planned so far (while the cached
    :func:`table_plan` runs).

    Each row (``plan_table``'s ``on_row``) and each progress report redraws the slot with
    the bar and the rows so far, the cell's labels first; the finished table replaces both.
    """

    def __init__(
        self, slot: Any, key: str, names: Sequence[str], labels: Sequence[Sequence[Any]]
    ) -> None:
        super().__init__(slot, key, "Planning the cells…", progress_words)
        self.names = list(names)
        self.labels = list(labels)
        self.rows: list[dict[str, Any]] = []
        self.progress: Any = None

    def row(self, row: dict[str, Any]) -> None:
        """Show one more planned row."""
        self.rows.append(row)
        self.outside.run(self._draw, self.progress)

    def _draw(self, progress: Any) -> None:
        self.progress = progress
        self.count += 1
        fraction, words = (0.0, self.start) if progress is None else self.words(progress)
        with self.slot.container(key=f"{self.key}_{self.count}"):
            st.progress(fraction, text=words)
            if self.rows:
                st.dataframe(self.partial(), hide_index=True)

    def partial(self) -> pd.DataFrame:
        """The rows planned so far as the finished table shows them (labels, then
        :data:`~ui.planner.publication_text.SHOWN_COLUMNS`)."""
        columns: dict[str, list[Any]] = {name: [] for name in self.names}
        for row in self.rows:
            for name, label in zip(self.names, self.labels[int(row["cell"])], strict=True):
                columns[name].append(label)
        for column, shown in SHOWN_COLUMNS.items():
            columns[shown] = [row.get(column) for row in self.rows]
        columns["design"] = [figs.short_design(d) if d else "—" for d in columns["design"]]
        return pd.DataFrame(columns)


def _core_spec(spec: Any) -> Any:
    """A config statistic as a hashable value for the cache (``{"quantile": q}`` → tuple)."""
    return ("quantile", float(spec["quantile"])) if isinstance(spec, dict) else spec


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
    kind = st.radio(
        "Table",
        list(TABLE_TYPES),
        format_func=TABLE_TYPES.__getitem__,
        horizontal=True,
        key="plan_pub_type",
        bind="query-params",
        help="Statistics by cell are planned cell by cell (Monte Carlo for the quantiles); "
        "a frequency table or totals by cell are one histogram from one sample, every cell "
        "exact.",
    )
    if kind in ("count", "total"):
        frequency_view(ctx, str(kind))
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
    bar = LiveTable(slot, f"plan_pub_live_{key}", names, labels)
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
        _on_row=bar.row,
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
