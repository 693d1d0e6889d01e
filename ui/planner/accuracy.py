"""The "Accuracy first" tab of the Release planner: the smallest ε_target whose 95 % error
bound is at most the one the user needs, with its design and rate."""

from __future__ import annotations

import math

import streamlit as st

from core import planner
from core.populations import Population
from core.resolution import shown_bound
from ui.charts import chart_block
from ui.planner import accuracy_text, cache, text
from ui.planner import figures as figs
from ui.planner.inputs import (
    PlannerInputs,
    StepBar,
    digest,
    inputs_key,
)
from ui.widgets import result_container

#: Repetitions per plan in the accuracy-first search (it runs several plans in a row).
SEARCH_MAX_REPS = 200


def default_target(pop: Population) -> tuple[float, str]:
    """Default 95 % error bound and how it was chosen: 5 % of the population's
    interquartile range (or of R), rounded up to a short number no finer than the step in
    which the values are recorded (:func:`core.resolution.shown_bound`): ±0.9 on whole
    micrograms would ask for a precision the data cannot show."""
    iqr = cache.interquartile_range(pop.content_hash, pop)
    spread = iqr if iqr > 0 else float(pop.upper - pop.lower)
    share = accuracy_text.TARGET_IQR_SHARE * spread
    heuristic = share if spread > 0 and math.isfinite(share) else 1.0
    step = cache.resolution(pop.content_hash, pop)
    target = shown_bound(heuristic, step)
    return target, accuracy_text.default_target_reason(target, heuristic, step)


def accuracy_view(ctx: PlannerInputs) -> None:
    """The smallest ε_target (with its design and rate) whose 95 % bound is at most X."""
    pop = ctx.pop
    default, reason = default_target(pop)
    typed = st.number_input(
        "95 % error bound I need (±X, in the value's units)",
        min_value=1e-9,
        value=None,
        placeholder=f"automatic: {default:g}",
        format="%g",
        key="plan_target_err",
        bind="query-params",
        help=reason,
    )
    target = float(typed) if typed is not None else default
    # One slot: the progress bar while the search runs, then the answer, both keyed by
    # the inputs, so a control moved mid-run never shows an old answer beside new ones.
    key = digest(inputs_key(ctx), target)
    slot = st.empty()
    bar = StepBar(
        slot,
        f"plan_acc_live_{key}",
        accuracy_text.SEARCH_STARTS,
        lambda progress: accuracy_text.search_progress(progress, target),
    )
    found = cache.smallest_eps_target(
        pop.content_hash,
        pop,
        statistic=ctx.statistic,
        target_error_95=target,
        delta_target=ctx.delta_target,
        designs=ctx.designs,
        rates=ctx.rates,
        reps=min(ctx.reps, SEARCH_MAX_REPS),
        seed=ctx.seed,
        relation=ctx.relation,
        quantile=ctx.quantile,
        mechanisms=ctx.mechanisms,
        sizes_public=ctx.sizes_public,
        promise=ctx.promise,
        _progress=bar.report,
    )
    with slot.container(key=f"plan_acc_view_{key}"), result_container("plan_accuracy"):
        accuracy_body(ctx, found, target)


def accuracy_body(ctx: PlannerInputs, found: planner.AccuracyFirst, target: float) -> None:
    """The answer of the accuracy-first search (see :func:`accuracy_view`)."""
    pop = ctx.pop
    if ctx.reps > SEARCH_MAX_REPS:
        st.caption(
            f"The search runs T = {SEARCH_MAX_REPS} repetitions per plan (it computes several "
            f"plans); the Compare designs tab uses your T = {ctx.reps:,}."
        )
    best = found.plan.best if found.plan is not None else None
    answer = accuracy_text.accuracy_answer(
        target, found.eps_target, found.feasible, best, found.eps_limit
    )
    if found.feasible and found.rho_target is not None:
        answer += " " + accuracy_text.accuracy_rho_words(found.rho_target)
    if found.feasible and found.plan is not None:
        # A bound the user asks for can itself be useless: the same rule as the verdict of
        # the comparison tab decides between a green answer and a warning.
        too_noisy = text.too_noisy_reason(
            found.plan,
            pop.lower,
            pop.upper,
            ctx.usable_share,
            remedy=accuracy_text.ASK_SMALLER_BOUND,
        )
        if too_noisy is None:
            st.success(answer, icon=":material/target:")
        else:
            st.warning(f"{too_noisy}\n\n{answer}", icon=":material/warning:")
        step = cache.resolution(pop.content_hash, pop)
        fig, data = figs.objective_figure(found.plan, target=target, resolution=step)
        chart_block(
            fig,
            data,
            key="planner_accuracy",
            explanation=(
                "The comparison at the ε_target found: every design's error against the "
                "rate, your bound as a dashed line. The best plan's marker sits on or below "
                f"it. The search evaluated the planner {found.evaluations:,} times."
            ),
            formulas=text.COMPARE_FORMULAS[1:],
            note=figs.exact_note(found.plan, resolution=step, target=target),
        )
    else:
        st.info(answer, icon=":material/info:")
