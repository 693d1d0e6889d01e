"""Downloads of the Compare designs tab: the full table and its columns (CSV), the reproducing
notebook, the HTML method report and the link to the plan. Every file is built only when its
button is clicked.
"""

from __future__ import annotations

from urllib.parse import urlencode

import plotly.graph_objects as go
import streamlit as st

from core import planner
from core.populations import Population
from ui.charts import drawn_when_opened
from ui.downloads import frame_to_csv_bytes
from ui.planner import compare_text, exports
from ui.planner import figures as figs
from ui.planner.inputs import (
    PlannerInputs,
)
from ui.state import UPLOADED, active_choice
from ui.widgets import reproducing_query


def page_link(ctx: PlannerInputs) -> str | None:
    """A link that reproduces this plan: the page's address with every control, defaults
    included: those of the sidebar and the page as the page's run drew them
    (``ctx.page_query``) and those of the tab as this run (perhaps the tab's fragment alone)
    drew them (:func:`ui.widgets.reproducing_query`); None without a browser address."""
    url = st.context.url
    if not url:
        return None
    query = reproducing_query()
    for key, values in ctx.page_query:
        query.setdefault(key, list(values))
    base = url.split("?", 1)[0].split("#", 1)[0]
    return f"{base}?{urlencode(query, doseq=True)}" if query else base


def notebook_bytes(ctx: PlannerInputs) -> bytes:
    """The reproducing notebook (:func:`ui.planner.exports.plan_notebook`, or
    :func:`ui.planner.exports.linear_notebook` for a count, total or proportion) of the
    page's plan."""
    if ctx.linear is not None:
        return exports.linear_notebook(recipe=ctx.pop.recipe, **ctx.linear_arguments()).encode(
            "utf-8"
        )
    return exports.plan_notebook(
        recipe=ctx.pop.recipe, **ctx.plan_arguments(), usable_share=ctx.usable_share
    ).encode("utf-8")


def report_bytes(
    result: planner.PlanResult,
    fig: go.Figure,
    recommendation: str,
    population_label: str,
    link: str | None,
    population: Population | None = None,
    uploaded: bool = False,
    *,
    too_noisy: str | None = None,
    resolution: float | None = None,
) -> bytes:
    """The HTML method report (:func:`ui.planner.exports.method_report`) of the page's plan:
    a plan too noisy to use (``too_noisy``) is flagged, never in the green box."""
    return exports.method_report(
        result,
        fig,
        recommendation,
        population_label,
        link,
        population,
        uploaded,
        too_noisy=too_noisy,
        resolution=resolution,
    ).encode("utf-8")


def export_buttons(
    ctx: PlannerInputs,
    result: planner.PlanResult,
    fig: go.Figure,
    recommendation: str,
    *,
    too_noisy: str | None = None,
    resolution: float | None = None,
) -> None:
    """Downloads of the reproducing notebook (when the population has a recipe) and of the
    one-page HTML method report (both built only when clicked), and the link to this plan
    that the report carries (:func:`page_link`). A plan too noisy to use (``too_noisy``,
    the page's warning) is flagged in the report and the notebook as on the page."""
    pop = ctx.pop
    c1, c2 = st.columns(2)
    if pop.recipe:
        c1.download_button(
            "Download notebook (.ipynb)",
            data=lambda: notebook_bytes(ctx),
            file_name="release_plan.ipynb",
            mime="application/x-ipynb+json",
            key="plan_notebook",
            on_click="ignore",
            icon=":material/code_blocks:",
            help="A Jupyter notebook that rebuilds this population and calls core.planner "
            "with these parameters.",
        )
    else:
        c1.caption(
            "No notebook for this population: it was built in code, so a notebook could "
            "not rebuild it."
        )
    link = page_link(ctx)
    uploaded = active_choice() == UPLOADED
    c2.download_button(
        "Download method report (HTML)",
        data=lambda: report_bytes(
            result,
            fig,
            recommendation,
            pop.name,
            link,
            pop,
            uploaded,
            too_noisy=too_noisy,
            resolution=resolution,
        ),
        file_name="release_plan_report.html",
        mime="text/html",
        key="plan_report",
        on_click="ignore",
        icon=":material/description:",
        help="One page for a disclosure review board: parameters, designs and their "
        "theorems, the chart, the table, the recommendation and the seed.",
    )
    if link:
        # Like a "Reproduce in Python" snippet, the link's code block is sent only once the
        # reader opens it: the page then opens without loading the code highlighter.
        drawn_when_opened(
            "Link to this plan", "plan_link", lambda: link_block(link), icon=":material/link:"
        )


def link_block(link: str) -> None:
    """The link to this plan (:func:`page_link`) as a copyable block, and what it keeps."""
    st.code(link, language=None, wrap_lines=True)
    st.caption(compare_text.PLAN_LINK_NOTE)


def table_buttons(ctx: PlannerInputs, result: planner.PlanResult) -> None:
    """Downloads of the full table of the plan (:func:`ui.planner.figures.full_table`, every
    evaluated design, mechanism and rate) and of what its columns mean, both built only when
    clicked."""
    pop = ctx.pop
    left, right = st.columns(2)
    left.download_button(
        "Download the full table (CSV)",
        data=lambda: frame_to_csv_bytes(
            figs.full_table(result, usable_share=ctx.usable_share, lower=pop.lower, upper=pop.upper)
        ),
        file_name="release_plan.csv",
        mime="text/csv",
        key="plan_table_csv",
        on_click="ignore",
        icon=":material/table:",
        help="Every evaluated design, mechanism and rate, with Monte Carlo standard errors; "
        "`recommended` marks the plan recommended above, `usable` the plans whose 95 % bound "
        "is within the usable error you set.",
    )
    right.download_button(
        "What its columns mean (CSV)",
        data=lambda: frame_to_csv_bytes(exports.columns_frame()),
        file_name="release_plan_columns.csv",
        mime="text/csv",
        key="plan_table_columns",
        on_click="ignore",
        icon=":material/help:",
        help="One row per column of release_plan.csv: its name and what it holds.",
    )
