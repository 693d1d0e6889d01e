"""The "Compare designs" tab of the Release planner: recommendation, ranked list, chart.

While a plan computes, the tab shows the progress bar and the rows known so far
(:class:`LiveRows`); then the finished comparison. Its downloads are in
:mod:`ui.planner.downloads`.
"""

from __future__ import annotations

import contextvars
from typing import Any

import streamlit as st

from core import planner, risk
from ui.charts import chart_block, reproduce
from ui.planner import cache, compare_text, controls, text
from ui.planner import figures as figs
from ui.planner.downloads import export_buttons, table_buttons
from ui.planner.inputs import (
    PlannerInputs,
    fitting,
    inputs_key,
)


class LiveRows:
    """The progress bar and the rows known so far, drawn into one slot while a plan runs.

    Each report replaces the slot's content with a container keyed by the inputs' digest,
    so nothing from an earlier run's view stays beside the new rows.

    The reports arrive inside the cached call (:func:`ui.planner.cache.plan`), and Streamlit
    records the elements a cached function draws in order to replay them on a cache hit.
    The live rows belong to this run only, so they are drawn in the context captured before
    the call: there Streamlit sees an ordinary script (not a cached function), records
    nothing and still stops a run whose inputs changed.
    """

    def __init__(self, slot: Any, ctx: PlannerInputs, resolution: float | None) -> None:
        self.slot = slot
        self.key = inputs_key(ctx)
        self.objective = ctx.objective
        self.resolution = resolution
        self.outside = contextvars.copy_context()

    def report(self, progress: planner.PlanProgress | None) -> None:
        """Show one progress report (None: the computation starts)."""
        self.outside.run(self._draw, progress)

    def _draw(self, progress: planner.PlanProgress | None) -> None:
        # A key per report: each replaces the last within one run, and keys must be unique.
        step = 0 if progress is None else progress.done
        with self.slot.container(key=f"plan_live_{self.key}_{step}"):
            if progress is None:
                st.progress(0.0, text="Comparing designs: the census first…")
                return
            shown = figs.short_design(progress.design)
            st.progress(
                progress.done / progress.total,
                text=f"Compared {progress.done} of {progress.total} designs (last: {shown})…",
            )
            st.markdown(
                compare_text.partial_list(
                    progress.table,
                    self.objective,
                    self.resolution,
                    progress.done,
                    progress.total,
                )
            )


def run_plan(
    ctx: PlannerInputs, progress: cache.ProgressCallback | None = None
) -> planner.PlanResult:
    """The cached comparison for the page's inputs (``progress`` hears a cache miss only)."""
    pop = ctx.pop
    return cache.plan(pop.content_hash, pop, **ctx.plan_arguments(), _progress=progress)


def design_list(ctx: PlannerInputs) -> None:
    """Every design: its theorem, or the plain-words reason it is not planned; whether the
    population size is public, and the mechanisms that leaves out."""
    lines = [compare_text.status_line(s) for s in ctx.statuses]
    with st.expander("The designs, their theorems and what is missing", expanded=True):
        st.markdown("\n".join(f"- {line}" for line in lines))
        st.markdown(f"**Sizes.** {text.sizes_words(ctx.relation, ctx.sizes_public)}")
        refused = planner.size_refusals(
            ctx.statistic, ctx.relation, ctx.sizes_public, bounded=ctx.pop.has_upper_bound
        )
        if refused:
            st.markdown(compare_text.refusal_lines(refused))
        st.markdown(f"**Promise.** {text.promise_words(ctx.eps_target, ctx.rho_target)}")
        left_out = planner.promise_refusals(
            ctx.statistic, ctx.promise, bounded=ctx.pop.has_upper_bound
        )
        if left_out:
            st.markdown(compare_text.refusal_lines(left_out, "planned"))


def compare_view(ctx: PlannerInputs) -> None:
    """Recommendation, ranked table, objective against rate, downloads and formulas.

    The whole tab is one slot: while a plan computes it holds the progress bar and the rows
    known so far (:class:`LiveRows`), then the finished view, both keyed by the inputs.
    """
    pop = ctx.pop
    step = cache.resolution(pop.content_hash, pop)
    slot = st.empty()
    live = LiveRows(slot, ctx, step)
    try:
        result = run_plan(ctx, live.report)
    except planner.MemoryBudgetError as err:  # a plan too large for the server's budget
        slot.error(str(err))
        return
    with slot.container(key=f"plan_view_{live.key}"):
        compare_body(ctx, result, step)


def compare_body(ctx: PlannerInputs, result: planner.PlanResult, step: float | None) -> None:
    """The finished comparison (see :func:`compare_view`)."""
    pop = ctx.pop
    k = cache.cluster_count(pop.content_hash, pop)
    recommendation = compare_text.recommendation(result, clusters=k, resolution=step)
    too_noisy = text.too_noisy_reason(result, pop.lower, pop.upper, ctx.usable_share)
    if too_noisy is None:
        st.success(recommendation, icon=":material/recommend:")
    else:
        st.warning(f"{too_noisy}\n\n{recommendation}", icon=":material/warning:")
    chosen = result.recommended
    heavy = compare_text.heavy_tail_note(float(chosen["rmse"]), float(chosen["error_95"]))
    if heavy is not None:
        st.info(heavy, icon=":material/info:")
    st.caption(compare_text.population_value_line(result))
    odds_block(ctx, result)
    design_list(ctx)
    for design in ctx.designs:
        if design != "census" and not (result.table["design"] == design).any():
            bounded = pop.has_upper_bound
            if not fitting(
                design, ctx.statistic, ctx.relation, ctx.mechanisms, bounded, ctx.sizes_public
            ):
                st.info(compare_text.no_mechanism_note(design, ctx.relation))
            else:
                st.info(
                    compare_text.no_rows_note(design, cache.smallest_stratum(pop.content_hash, pop))
                )
    st.markdown("**Best rate of each design and mechanism, ranked**")
    ranked = figs.ranked_table(result)
    usable = compare_text.usable_rows(
        ranked, result.population_value, pop.lower, pop.upper, ctx.usable_share
    )
    st.markdown(compare_text.ranked_list(ranked, step, usable))
    table_buttons(ctx, result)
    lines = controls.chart_lines_control(ctx.statistic, ctx.mechanisms, pop.has_upper_bound)
    fig, data = figs.objective_figure(result, lines=lines, resolution=step)
    chart_block(
        fig,
        data,
        key="planner_compare",
        explanation=compare_text.COMPARE_EXPLANATION,
        formulas=text.COMPARE_FORMULAS,
        note=figs.exact_note(result, lines=lines, resolution=step),
    )
    export_buttons(ctx, result, fig, recommendation, too_noisy=too_noisy, resolution=step)
    with st.expander("How the planner computes", icon=":material/function:"):
        st.markdown(compare_text.FORMULAS_EXPLANATION)
        for formula in compare_text.AMPLIFICATION_FORMULAS:
            st.latex(formula)
    reproduce(lambda: compare_text.python_snippet(pop, **ctx.plan_arguments()), key="planner")


def odds_block(ctx: PlannerInputs, result: planner.PlanResult) -> None:
    """The recommended design's ε_sample and the ε_target, read as an attacker's odds."""
    left, right = st.columns([1, 2], gap="medium", vertical_alignment="center")
    with left:
        prior = controls.prior_control()
    best = result.recommended
    with right:
        st.info(
            compare_text.odds_text(
                prior,
                ctx.eps_target,
                float(risk.posterior_bound(ctx.eps_target, prior, ctx.delta_target)),
                best,
                float(risk.posterior_bound(float(best["eps_sample"]), prior)),
                ctx.delta_target,
            ),
            icon=":material/casino:",
        )
