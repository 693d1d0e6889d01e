"""The Publication tab's frequency tables: counts or totals by cell, one histogram, exact.

The user picks the row label column(s), the column whose categories make the table's
columns, the mechanism, the design and rate of the released table and the publishability
threshold; :func:`core.publication.frequency.plan_frequency` plans every cell exactly under
the page's ε_target, δ_target and relation.  Under a promise stated as ρ-zCDP the table is
planned under ρ itself: discrete Gaussian noise on the census, the only design whose
guarantee holds in zCDP here (claim 8 of :mod:`core.publication.composition`).  The tab
shows the composition in words, the census against every design, the heat map with the
small cells marked, the table of cells (CSV) and the batch config. The pure parts are in
:mod:`ui.planner.frequency_text`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import streamlit as st

from core.planner.budgets import default_rates
from core.populations import Population
from core.publication.cells import label_columns_of
from core.publication.frequency import (
    ZCDP_MECHANISM,
    FrequencyPlan,
    check_threshold,
    plan_frequency,
)
from core.publication.margins import DEFAULT_MARGIN_SHARE, balanced_share
from ui.charts import chart_block
from ui.downloads import frame_to_csv_bytes
from ui.format import fmt
from ui.planner import figures as figs
from ui.planner import text
from ui.planner.exports.publication_package import BATCH_COMMAND, config_yaml
from ui.planner.frequency_text import (
    BEST,
    DEFAULT_THRESHOLD,
    HEAT_VALUES,
    frequency_config,
    heatmap_figure,
    margin_words,
    mechanism_label,
    mechanisms_for,
    shown_cells,
    shown_designs,
    shown_margins,
    table_csv_frame,
    verdict_words,
    zcdp_words,
)
from ui.planner.inputs import PlannerInputs
from ui.planner.linear_controls import whole_values
from ui.planner.publication_text import population_entry
from ui.state import active_choice
from ui.widgets import bound_toggle, result_container

__all__ = ["MAX_FREQUENCY_CELLS", "frequency_plan", "frequency_view"]

#: Most cells the tab plans (larger tables go to the batch command).
MAX_FREQUENCY_CELLS = 2_400
NONE = "none"
#: The smallest threshold the control takes.
THRESHOLD_MIN = 0.01
#: The range of the margins' share control.
MARGIN_SHARE_MIN, MARGIN_SHARE_MAX = 0.01, 0.99


@st.cache_data(max_entries=8, show_spinner=False)
def frequency_plan(content_hash: str, _pop: Population, **settings: Any) -> FrequencyPlan:
    """:func:`core.publication.frequency.plan_frequency`, cached per population and settings."""
    return plan_frequency(_pop, max_cells=MAX_FREQUENCY_CELLS, **settings)


def _column_label(pop: Population, which: str) -> str:
    if which == NONE:
        return "none (one column)"
    names = {
        "strata": pop.stratum_label,
        "clusters": pop.cluster_label,
        "categories": getattr(pop, "category_label", "category"),
    }
    return f"{names[which]} ({which})"


def frequency_view(ctx: PlannerInputs, kind: str) -> None:
    """The controls and results of a frequency table of ``kind`` ("count" or "total")."""
    pop = ctx.pop
    offered = label_columns_of(pop)
    c1, c2 = st.columns(2, gap="medium")
    default_rows = ["clusters"] if "clusters" in offered else offered[:1]
    rows = c1.multiselect(
        "Rows of the table (one or two label columns)",
        offered,
        default=default_rows,
        max_selections=2,
        format_func=lambda g: _column_label(pop, g),
        key="plan_pub_freq_rows",
        bind="query-params",
    )
    col_options = [NONE, *offered]
    column = c2.selectbox(
        "Columns of the table: the categories of",
        col_options,
        index=col_options.index("strata") if "strata" in offered else 0,
        format_func=lambda g: _column_label(pop, g),
        key="plan_pub_freq_column",
        bind="query-params",
    )
    integer_values = kind != "total" or whole_values(pop.content_hash, pop)
    mechs = mechanisms_for(kind, integer_values)
    if ctx.rho_target is not None:  # the discrete Gaussian keeps a ρ-zCDP promise
        mechs = [ZCDP_MECHANISM]
    c3, c4, c5 = st.columns(3, gap="medium")
    mechanism = c3.selectbox(
        "Noise",
        mechs,
        format_func=mechanism_label,
        key="plan_pub_freq_mech",
        bind="query-params",
        help="Added to every cell's sum on the sample, calibrated to one record.",
    )
    designs = ["census", *[d for d in ctx.designs if d not in ("census", "neyman")]]
    if ctx.rho_target is not None:  # no amplification by sampling is proven for zCDP
        designs = ["census"]
    design = c4.selectbox(
        "Design of the released table",
        [BEST, *designs],
        format_func=lambda d: "the best of those compared" if d == BEST else text.design_label(d),
        key="plan_pub_freq_design",
        bind="query-params",
        help="One sample for the whole table. The census is always compared.",
    )
    rates = list(ctx.rates) if ctx.rates is not None else list(default_rates(pop))
    rate = c5.selectbox(
        "Its sampling rate",
        [BEST, *[f"{r:g}" for r in rates]],
        format_func=lambda r: "the best" if r == BEST else r,
        key="plan_pub_freq_rate",
        bind="query-params",
        help="The rate of the sampled design chosen beside it (the census samples everyone).",
        disabled=ctx.rho_target is not None,
    )
    c6, c7 = st.columns(2, gap="medium")
    _check_link(
        "plan_pub_freq_threshold",
        lambda x: check_threshold(x) >= THRESHOLD_MIN,
        f"publishability threshold {{}} is not a number in [{THRESHOLD_MIN:g}, 10]; using "
        f"{DEFAULT_THRESHOLD:g}",
    )
    threshold = c6.number_input(
        "Publishable when the 95 % error is at most this share of the cell's value",
        min_value=THRESHOLD_MIN,
        max_value=10.0,
        value=DEFAULT_THRESHOLD,
        format="%g",
        key="plan_pub_freq_threshold",
        bind="query-params",
    )
    with c7:
        labels_fixed = bound_toggle(
            "The table's labels are public and never change",
            "plan_pub_freq_fixed",
            default=False,
            help="Then a changed record stays in its cell. Otherwise it may move between "
            "cells, which changes two cells.",
        )
        rounded = bound_toggle(
            "Round the released cells to non-negative integers",
            "plan_pub_freq_round",
            default=False,
            help="Post-processing of the release (the guarantee is kept): the table adds "
            "each cell's RMSE after rounding, exact for the census.",
        )
    margins_on, margin_share = _margin_controls(pop, column)
    if not rows:
        st.info("No row column is chosen; using the first label column.")
        rows = offered[:1]
    col = None if column in (NONE, None) else str(column)
    if col is not None and col in rows:
        st.warning(
            f"{_column_label(pop, col)} is a row already; the table has one column.",
            icon=":material/warning:",
        )
        col = None
    settings = {
        "rows": tuple(rows),
        "column": col,
        "kind": kind,
        "eps_target": ctx.eps_target,
        "delta_target": ctx.delta_target,
        "relation": ctx.relation,
        "labels_fixed": bool(labels_fixed),
        "mechanism": str(mechanism),
        "designs": tuple(designs),
        "rates": None if ctx.rates is None else tuple(ctx.rates),
        "design": None if design == BEST else str(design),
        "rate": None if rate == BEST or design in (BEST, "census") else float(str(rate)),
        "threshold": float(threshold),
        "round_release": bool(rounded),
        "margins": "rows" if margins_on else "none",
        "margin_share": float(margin_share),
    }
    if ctx.rho_target is not None:
        settings.update(eps_target=None, delta_target=None, rho_target=ctx.rho_target)
    with result_container("plan_pub_freq"):
        frequency_results(ctx, settings)


def _check_link(key: str, fits: Callable[[float], bool], words: str) -> None:
    """A warning when the link's value for the number box ``key`` does not fit it (the box
    then shows its default): "The link's " + ``words`` with the value put in its ``{}``."""
    linked = st.query_params.get(key)
    if linked is None:
        return
    try:
        bad = not fits(float(linked))
    except ValueError:
        bad = True
    if bad:
        st.warning(f"The link's {words.format(repr(linked))}.", icon=":material/warning:")


def _margin_controls(pop: Population, column: object) -> tuple[bool, float]:
    """The row margins' toggle and share, both bound to the URL, with their words."""
    c1, c2 = st.columns(2, gap="medium")
    with c1:
        on = bound_toggle(
            "Cells add up to released row margins",
            "plan_pub_freq_margins",
            default=False,
            help="Each row's total over the columns is released too, and the cells are "
            "moved to add up to it.",
        )
    _check_link(
        "plan_pub_freq_margin_share",
        lambda x: 0.0 < x < 1.0,
        "share of ε for the margins {} is not a number strictly between 0 and 1; using "
        f"{DEFAULT_MARGIN_SHARE:g}",
    )
    share = c2.number_input(
        "Share of ε for the margins",
        min_value=MARGIN_SHARE_MIN,
        max_value=MARGIN_SHARE_MAX,
        value=DEFAULT_MARGIN_SHARE,
        step=0.05,
        format="%g",
        key="plan_pub_freq_margin_share",
        bind="query-params",
        disabled=not on,
    )
    if on:
        st.caption(margin_words(float(share), _balanced(pop, column)))
    return bool(on), float(share)


def _balanced(pop: Population, column: object) -> float | None:
    """The balanced share of the column's categories (None without a column)."""
    if column in (NONE, None):
        return None
    got = pop.label_codes(str(column))
    k = 0 if got is None else len(got[1])
    return balanced_share(k) if k >= 2 else None


def frequency_results(ctx: PlannerInputs, settings: dict[str, Any]) -> None:
    """The plan of the frequency table and everything shown from it."""
    pop = ctx.pop
    config = frequency_config(
        population_entry(pop, active_choice(), ctx.seed),
        {**settings, "rows": list(settings["rows"]), "designs": list(settings["designs"])},
    )
    try:
        plan = frequency_plan(pop.content_hash, pop, **settings)
    except ValueError as exc:
        st.warning(f"{exc}.", icon=":material/warning:")
        if "cells" in str(exc):
            st.caption(
                f"Larger tables run in batch: download the config below (`{BATCH_COMMAND}`)."
            )
        _config_block(config, pop)
        return
    s = plan.summary()
    where = (
        "the census"
        if plan.design == "census"
        else f"a {figs.short_design(plan.design)} at rate {fmt(plan.rate, 'rate')}"
    )
    spent = (
        f"ε_sample = {fmt(s['eps_sample'], 'guarantee')}"
        if ctx.rho_target is None
        else f"ρ = {fmt(ctx.rho_target, 'guarantee', 6)}-zCDP"
    )
    st.markdown(
        f"**{s['publishable']} of {s['cells']}** cells are publishable from {where} "
        f"({spent}, "
        f"{mechanism_label(settings['mechanism'])} noise); from the census, "
        f"**{s['census_publishable']}**. Publishable: the 95 % error at most "
        f"{fmt(settings['threshold'], 'share')} of the cell's value"
        + (f"; {s['empty_cells']} cells are empty." if s["empty_cells"] else ".")
    )
    if ctx.rho_target is not None:
        st.markdown(zcdp_words(plan, ctx.designs))
    with st.expander("How the table's cells compose", expanded=True):
        b = plan.budget
        reason = b.reason if ctx.rho_target is None else plan.settings["zcdp_reason"]
        st.markdown(
            f"**Across cells.** {reason}\n\n"
            + (
                "**One sample.** The table is one histogram drawn from one sample of the "
                "whole population and amplified once: "
                if ctx.rho_target is None
                else "**The noise.** The table is one histogram of the whole register: "
            )
            + f"{plan.designs.loc[plan.designs['design'] == plan.design, 'bound'].iloc[0]}."
        )
    with st.expander("The census against every design", expanded=True):
        st.markdown(verdict_words(plan))
        st.dataframe(shown_designs(plan), hide_index=True, key="plan_pub_freq_designs_table")
    show = st.radio(
        "Colour the cells by",
        list(HEAT_VALUES),
        index=2,
        format_func=HEAT_VALUES.__getitem__,
        horizontal=True,
        key="plan_pub_freq_heat",
        bind="query-params",
    )
    fig, data = heatmap_figure(plan, str(show))
    chart_block(
        fig,
        data,
        key="planner_frequency",
        explanation=(
            "Each square is one cell of the table. Every cell gets the same noise, so the "
            "small cells have the largest relative errors: ✗ marks those above the "
            f"threshold of {fmt(settings['threshold'], 'share')}, not publishable. The "
            "errors are exact: the design's variance of each cell's estimator and the "
            "noise's own law (the sampling error taken as normal for the 95 % bound)."
            + (
                " With row margins the cells are shown after their projection onto them: "
                "their noise mixes the row's noises, and the 95 % bound is a proven bound "
                "on that mixture (Chernoff or Chebyshev, named in the table)."
                if settings.get("margins") == "rows"
                else ""
            )
        ),
        formulas=(
            r"\hat t_c = w\,\Bigl(\sum_{i \in S \cap c} y_i + Z_c\Bigr),\quad "
            r"\mathrm{MSE}_c = V_{\text{design}}(c) + w^2\,\mathrm{Var}(Z)",
        ),
    )
    st.dataframe(shown_cells(plan), hide_index=True, key="plan_pub_freq_cells")
    if plan.margins is not None:
        st.markdown(
            f"**Row margins.** {int(plan.margins['publishable'].sum())} of "
            f"{len(plan.margins)} released margins are publishable; the cells above are "
            "shown after their projection onto them."
        )
        st.dataframe(shown_margins(plan), hide_index=True, key="plan_pub_freq_margins_table")
    st.download_button(
        "Download the table (CSV)",
        data=lambda: frame_to_csv_bytes(table_csv_frame(plan)),
        file_name="frequency_table.csv",
        mime="text/csv",
        key="plan_pub_freq_csv",
        on_click="ignore",
    )
    _config_block(config, pop)


def _config_block(config: dict[str, Any], pop: Population) -> None:
    body = config_yaml(config, pop)
    st.download_button(
        "Batch config (YAML)",
        data=lambda: body.encode("utf-8"),
        file_name="frequency.yaml",
        mime="application/x-yaml",
        key="plan_pub_freq_yaml",
        icon=":material/download:",
        on_click="ignore",
    )
    with st.expander("Reproduce in batch", icon=":material/terminal:"):
        st.markdown(
            f"Save the config and run `{BATCH_COMMAND}` (for N = {fmt(pop.size, 'count')})."
        )
        st.code(body, language="yaml")
