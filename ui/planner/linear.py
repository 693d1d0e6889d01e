"""The Compare designs tab for counts, totals and proportions, and the other tabs' note.

Every design and rate of a linear statistic is exact (:func:`core.linear.plan.plan_linear`),
so the tab answers at once, without a progress bar; the ranked list, the chart, the table
and the downloads are the planner's own (:mod:`ui.planner.figures`), with the verdict in
words of :mod:`ui.planner.linear_text`.
"""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from core import planner
from core.designs.registry import DESIGNS
from core.linear.mechanisms import LINEAR_MECHANISMS
from core.linear.verdict import SMALL_EPS, linear_verdict
from ui.charts import chart_block, reproduce
from ui.planner import cache, compare_text, linear_text, text
from ui.planner import figures as figs
from ui.planner.downloads import export_buttons, table_buttons
from ui.planner.inputs import PlannerInputs
from ui.planner.linear_controls import column_label
from ui.planner.text import too_noisy_reason
from ui.snippets import population_snippet


def statistic_range(ctx: PlannerInputs) -> tuple[float, float]:
    """The range the statistic can take, against which a zero value's error is read: [0, N]
    records for a count, [0, 1] for a proportion, [N·min(L, 0), N·U] for a total."""
    pop = ctx.pop
    kind = ctx.statistic
    if kind == "count":
        return 0.0, float(pop.size)
    if kind == "proportion":
        return 0.0, 1.0
    return pop.size * min(float(pop.lower), 0.0), pop.size * float(pop.upper)


def run_linear(ctx: PlannerInputs) -> planner.PlanResult:
    """The cached exact plan of the page's count, total or proportion."""
    return cache.plan_linear(ctx.pop.content_hash, ctx.pop, **ctx.linear_arguments())


def verdict_text(ctx: PlannerInputs, result: planner.PlanResult) -> str:
    """The verdict in words (:func:`ui.planner.linear_text.verdict_words`)."""
    small = None
    if ctx.eps_target > SMALL_EPS:
        args = {**ctx.linear_arguments(), "eps_target": SMALL_EPS, "rho_target": None}
        try:
            small = cache.plan_linear(ctx.pop.content_hash, ctx.pop, **args)
        except ValueError:  # nothing to say about small ε rather than no verdict at all
            small = None
    verdict = linear_verdict(result, small)
    return linear_text.verdict_words(
        result,
        ctx.statistic,
        linear_text.design_reasons(verdict),
        linear_text.closeness_words(verdict),
    )


def linear_compare_view(ctx: PlannerInputs) -> None:
    """Verdict, ranked list, chart, table and downloads of a count, total or proportion."""
    pop = ctx.pop
    stat = ctx.linear
    if stat is None:
        return
    try:
        result = run_linear(ctx)
    except ValueError as err:  # a selection or setting core cannot plan, in words
        st.error(str(err), icon=":material/error:")
        return
    words = linear_text.selection_words(
        stat.kind,
        None if stat.column is None else column_label(pop, stat.column),
        stat.category,
        stat.value_range,
        pop.value_label,
    )
    lower, upper = statistic_range(ctx)
    recommendation = verdict_text(ctx, result)
    too_noisy = too_noisy_reason(result, lower, upper, ctx.usable_share)
    if too_noisy is None:
        st.success(recommendation, icon=":material/recommend:")
    else:
        st.warning(f"{too_noisy}\n\n{recommendation}", icon=":material/warning:")
    if float(result.population_value) == 0:
        note = linear_text.empty_selection_note(stat.kind)
        if note:
            st.info(note, icon=":material/info:")
    st.caption(linear_text.population_value_line(result, words, stat.kind))
    st.caption(f"Errors are in {linear_text.unit_words(stat.kind, pop.value_label)}.")
    design_list(ctx)
    missing_notes(ctx, result)
    if ctx.linear_post != "none":
        st.info(linear_text.POST_NOTE, icon=":material/info:")
    st.markdown("**Best rate of each design and mechanism, ranked**")
    ranked = figs.ranked_table(result)
    usable = compare_text.usable_rows(
        ranked, result.population_value, lower, upper, ctx.usable_share
    )
    st.markdown(compare_text.ranked_list(ranked, None, usable))
    table_buttons(ctx, result)
    lines = lines_control(result)
    fig, data = figs.objective_figure(result, lines=lines)
    chart_block(
        fig,
        data,
        key="planner_compare",
        explanation=linear_text.CHART_EXPLANATION,
        note=figs.exact_note(result, lines=lines),
    )
    export_buttons(ctx, result, fig, recommendation, too_noisy=too_noisy)
    with st.expander("How the planner computes", icon=":material/function:"):
        st.markdown(linear_text.FORMULAS_EXPLANATION)
        for formula in linear_text.FORMULAS:
            st.latex(formula)
    reproduce(
        lambda: linear_text.python_snippet(population_snippet(pop), **ctx.linear_arguments()),
        key="planner",
    )


def missing_notes(ctx: PlannerInputs, result: planner.PlanResult) -> None:
    """A note for each chosen, available design that has no row in the plan."""
    planned = set(result.table["design"])
    available = {s.name for s in ctx.statuses if s.available}
    only_zcdp = ctx.rho_target is not None and all(
        LINEAR_MECHANISMS[str(m)].zcdp for m in set(result.table["mechanism"])
    )
    for design in ctx.designs:
        if design in planned or design not in available or DESIGNS[design].reference:
            continue
        smallest = cache.smallest_stratum(ctx.pop.content_hash, ctx.pop)
        st.info(linear_text.missing_design_note(design, only_zcdp, smallest))


def design_list(ctx: PlannerInputs) -> None:
    """Every design: its theorem, or the plain-words reason it is not planned; whether the
    sizes are public, and the promise."""
    lines = [compare_text.status_line(s) for s in ctx.statuses]
    with st.expander("The designs, their theorems and what is missing", expanded=True):
        st.markdown("\n".join(f"- {line}" for line in lines))
        st.markdown(f"**Sizes.** {text.sizes_words(ctx.relation, ctx.sizes_public)}")
        st.markdown(f"**Promise.** {text.promise_words(ctx.eps_target, ctx.rho_target)}")


def lines_control(result: planner.PlanResult) -> str:
    """What the chart draws (``plan_lines``, URL-bound): each design's best mechanism,
    every mechanism, or one mechanism across the designs."""
    table = result.table
    names = list(dict.fromkeys(str(m) for m in table["mechanism"]))
    labels_of = dict(
        zip(table["mechanism"].astype(str), table["mechanism_label"].astype(str), strict=True)
    )
    labels = {
        figs.BEST_LINES: "each design's best mechanism",
        figs.ALL_LINES: "every mechanism",
        **{name: "only " + figs.short_mechanism(labels_of[name]) for name in names},
    }
    if st.session_state.get("plan_lines", labels[figs.BEST_LINES]) not in labels.values():
        st.session_state["plan_lines"] = labels[figs.BEST_LINES]
    shown = st.selectbox(
        "Lines on the chart", list(labels.values()), key="plan_lines", bind="query-params"
    )
    return next(name for name, label in labels.items() if label == shown)


def not_for_linear_view(tab: str) -> Callable[[PlannerInputs], None]:
    """A tab's view for a linear statistic: one sentence saying where its plan is."""

    def view(ctx: PlannerInputs) -> None:
        st.info(linear_text.not_for_linear(tab, ctx.statistic), icon=":material/info:")

    return view
