"""Sections of the Population page.

Each view draws one section from a frozen :class:`PopulationInputs` of the page-level
inputs instead of reading page globals.
"""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from core.populations import Population, population_to_csv_bytes
from ui.charts import CODE_ICON, drawn_when_opened
from ui.downloads import frame_to_csv_bytes
from ui.population import text
from ui.population.cache import (
    category_table,
    group_table,
    histogram_data,
    population_summary,
    shared_cluster_note,
)
from ui.population.figures import histogram_figure
from ui.state import UPLOADED
from ui.widgets import bound_toggle


@dataclass(frozen=True)
class PopulationInputs:
    """The page-level inputs: the active population, the global seed and the sidebar's
    population choice (a built-in key or ``"uploaded"``)."""

    pop: Population
    seed: int
    choice: str


def notes_view(ctx: PopulationInputs) -> None:
    """The population's name and its notes (the shared-cluster note as a warning)."""
    pop = ctx.pop
    st.subheader(pop.name)
    shared_clusters = shared_cluster_note(pop.content_hash, pop)
    for note in pop.notes:
        if note == shared_clusters:
            st.warning(note, icon=":material/warning:")
        else:
            st.info(note, icon=":material/info:")


def summary_view(ctx: PopulationInputs) -> None:
    """Summary table of the population and its CSV download."""
    pop = ctx.pop
    summary = population_summary(pop.content_hash, pop)
    # A static table wraps its cells instead of cutting them, whatever the column width.
    st.table(summary.set_index("quantity"))
    st.download_button(
        "Download population (CSV)",
        data=lambda: population_to_csv_bytes(pop),
        file_name="population.csv",
        mime="text/csv",
        on_click="ignore",
        icon=":material/download:",
        key="download_population",
    )


def histogram_view(ctx: PopulationInputs) -> None:
    """Bins and log-axis controls, the histogram and its CSV download."""
    pop = ctx.pop
    c1, c2 = st.columns(2)
    bins = c1.slider("Histogram bins", 10, 200, 60, step=5, key="pop_bins", bind="query-params")
    with c2:
        log_x = bound_toggle("Log value axis", "pop_log_x", default=False, help=text.LOG_AXIS_HELP)
        to_bounds = bound_toggle(
            "Axis from L to U (declared bounds)",
            "pop_to_bounds",
            default=False,
            help=text.TO_BOUNDS_HELP,
        )
    if log_x and pop.upper <= 0:
        st.warning(text.LOG_AXIS_WARNING)
        log_x = False
    hist = histogram_data(pop.content_hash, pop, int(bins), bool(log_x), bool(to_bounds))
    st.plotly_chart(histogram_figure(pop, hist, log_x=log_x)[0], key="chart_histogram")
    st.caption(text.range_caption(pop, to_bounds=bool(to_bounds)))
    st.download_button(
        "Download histogram (CSV)",
        data=frame_to_csv_bytes(hist),
        file_name="histogram.csv",
        mime="text/csv",
        on_click="ignore",
        key="csv_histogram",
        icon=":material/table:",
    )


def distribution_view(ctx: PopulationInputs) -> None:
    """Summary (left) and histogram (right) side by side, then how to read them."""
    left, right = st.columns([2, 3], gap="large")
    with left:
        summary_view(ctx)
    with right:
        histogram_view(ctx)
    st.markdown(text.HISTOGRAM_READING)
    st.latex(text.MEAN_SENSITIVITY_LATEX)


def groups_view(ctx: PopulationInputs) -> None:
    """Records, mean and SD per stratum and per cluster (nothing without either)."""
    pop = ctx.pop
    if pop.strata is None and pop.clusters is None:
        return
    st.subheader("Strata and clusters")
    cols = st.columns(2)
    for col, which, what in ((cols[0], "strata", "Stratum"), (cols[1], "clusters", "Cluster")):
        counts = group_table(pop.content_hash, pop, which)
        if counts is None:
            continue
        with col:
            column = pop.stratum_label if what == "Stratum" else pop.cluster_label
            st.markdown(text.group_heading(what, column, len(counts)))
            st.dataframe(
                counts.rename(columns={"label": what.lower()}),
                hide_index=True,
                height=260,
                width="stretch",
            )


def categories_view(ctx: PopulationInputs) -> None:
    """Records and share per category (nothing without a category column)."""
    pop = ctx.pop
    counts = category_table(pop.content_hash, pop)
    if counts is None:
        return
    st.subheader("Categories")
    st.markdown(text.category_heading(pop.category_label, len(counts)))
    st.dataframe(
        counts,
        hide_index=True,
        height=min(260, 38 + 35 * len(counts)),
        column_config={"share": st.column_config.NumberColumn("share", format="percent")},
    )
    st.caption(text.CATEGORIES_CAPTION)


def snippet_view(ctx: PopulationInputs) -> None:
    """The "Reproduce in Python" expander (with a note on the file name for an upload); its
    code is sent only to a reader who opens it (:func:`ui.charts.drawn_when_opened`)."""

    def show() -> None:
        if ctx.choice == UPLOADED:
            st.caption(text.UPLOADED_SNIPPET_CAPTION)
        st.code(text.python_snippet(ctx.pop), language="python")

    drawn_when_opened("Reproduce in Python", "pop", show, icon=CODE_ICON)
