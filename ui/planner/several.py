"""The "Several statistics" tab of the Release planner: several statistics released from one
sample compose on the sample and are amplified once; JointExp against separate releases."""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from core import planner
from ui.charts import chart_block
from ui.format import fmt
from ui.planner import cache, several_text, text
from ui.planner import figures as figs
from ui.planner.inputs import (
    PlannerInputs,
    StepBar,
    digest,
    inputs_key,
)
from ui.widgets import result_container


def several_controls(ctx: PlannerInputs) -> tuple[str, float, tuple[str, ...], tuple[float, ...]]:
    """Design, rate, statistics and their shares of the budget for the composition tab."""
    c1, c2 = st.columns(2)
    with c1:
        # Sampling designs first: the census has no amplification to compose.
        ordered = [d for d in ctx.designs if d != "census"] + ["census"]
        shown = st.selectbox(
            "Design",
            [text.design_label(d) for d in ordered if d in ctx.designs],
            key="plan_ms_design",
            bind="query-params",
        )
        stats = st.multiselect(
            "Statistics released from the same sample",
            list(several_text.COMPOSITION_STATISTICS),
            default=list(several_text.COMPOSITION_DEFAULT),
            key="plan_ms_stats",
            bind="query-params",
            help="Choose two quantiles or more to compare one JointExp release of all of "
            "them with separate releases.",
        )
    with c2:
        rate = st.number_input(
            "Sampling rate n/N",
            min_value=0.001,
            max_value=1.0,
            value=0.1,
            format="%g",
            key="plan_ms_rate",
            bind="query-params",
            help="Ignored by the census, which uses every record. For a cluster sample: "
            "ℓ = rate·k clusters (rounded, at least one).",
        )
        share = st.slider(
            "Share of the budget spent on the first statistic",
            min_value=0.05,
            max_value=0.95,
            value=0.5,
            step=0.05,
            key="plan_ms_share",
            bind="query-params",
        )
    design = text.name_of(planner.DESIGN_LABELS, shown) if shown is not None else ctx.designs[0]
    if not stats:
        st.info("No statistic is chosen; showing the median and the mean.")
        stats = list(several_text.COMPOSITION_DEFAULT)
    if not ctx.pop.has_upper_bound and "mean" in stats:
        st.info(several_text.NO_UPPER_SEVERAL, icon=":material/info:")
        stats = [s for s in stats if s != "mean"] or ["median"]
    if len(stats) == 2:
        shares: tuple[float, ...] = (float(share), 1.0 - float(share))
    else:
        shares = tuple(1.0 / len(stats) for _ in stats)
        if len(stats) > 2:
            st.caption(f"With {len(stats)} statistics each spends an equal share of the budget.")
    return str(design), float(rate), tuple(stats), shares


def several_view(ctx: PlannerInputs) -> None:
    """Several statistics from one sample: compose on the sample, amplify once."""
    design, rate, stats, shares = several_controls(ctx)
    with result_container("plan_several"):
        several_results(ctx, design, rate, stats, shares)


def several_results(
    ctx: PlannerInputs, design: str, rate: float, stats: tuple[str, ...], shares: tuple[float, ...]
) -> None:
    """The budget split and the plans of the composition tab (see :func:`several_view`)."""
    pop = ctx.pop
    if design != "census" and rate * pop.size < 2:
        st.warning(
            f"A rate of {rate:g} leaves fewer than two records of N = {pop.size:,}; using "
            f"rate = {fmt(min(1.0, 2 / pop.size), 'plain')} instead.",
            icon=":material/warning:",
        )
        rate = min(1.0, 2 / pop.size)
    split = cache.budget_split(
        pop.content_hash,
        pop,
        design=design,
        eps_target=ctx.eps_target,
        shares=shares,
        rate=rate,
        relation=ctx.relation,
    )
    m1, m2, m3 = st.columns(3)
    m1.metric("ε_sample in total", fmt(split.eps_sample_total, "guarantee"))
    m2.metric(
        "ε_target, composed then amplified (right)", fmt(split.eps_target_correct, "guarantee")
    )
    m3.metric("ε_target, amplified then added (wrong)", fmt(split.eps_target_naive, "guarantee"))
    st.markdown(
        several_text.composition_verdict(
            ctx.eps_target, split.eps_target_correct, split.eps_target_naive
        )
    )
    # One slot: the progress bar while the plans run, then their table, keyed by the inputs.
    key = digest(inputs_key(ctx), design, rate, stats, shares)
    slot = st.empty()
    bar = StepBar(
        slot, f"plan_ms_live_{key}", several_text.SEVERAL_STARTS, several_text.several_progress
    )
    results = cache.several_statistics(
        pop.content_hash,
        pop,
        statistics=tuple(several_text.COMPOSITION_STATISTICS[s] for s in stats),
        shares=shares,
        eps_target=ctx.eps_target,
        delta_target=ctx.delta_target,
        design=design,
        rate=rate,
        reps=ctx.reps,
        seed=ctx.seed,
        relation=ctx.relation,
        objective=ctx.objective,
        sizes_public=ctx.sizes_public,
        rho_target=ctx.rho_target,
        _progress=bar.report,
    )
    with slot.container(key=f"plan_ms_view_{key}"):
        several_table(design, rate, stats, shares, results)
    joint_block(ctx, design, rate, stats, shares, split, results)
    fig, data = figs.composition_figure(
        cache.composition_curve(
            pop.content_hash,
            pop,
            design=design,
            shares=shares,
            rate=rate,
            relation=ctx.relation,
        ),
        eps_target=ctx.eps_target,
    )
    chart_block(
        fig,
        data,
        key="planner_composition",
        explanation=(
            "For each promised ε_target (x axis): the guarantee the population really gets "
            "when the budgets are added on the sample and amplified once (the diagonal), and "
            "the smaller number one gets by amplifying each statistic's part alone and adding "
            "the results. The gap grows with ε_target: the naive sum understates the loss."
        ),
        formulas=several_text.COMPOSITION_FORMULAS,
    )


def several_table(
    design: str,
    rate: float,
    stats: tuple[str, ...],
    shares: tuple[float, ...],
    results: tuple[planner.PlanResult, ...],
) -> None:
    """Each statistic's budget and errors on ``design`` at the chosen ``rate`` (see
    :func:`several_view`): every number of a row is that of the rate it names."""
    try:
        chosen = planner.at_rate(results, design, rate)
    except ValueError:  # e.g. a sampling design at rate 1: no sample, so no row
        st.info(several_text.no_rate_row(design, rate), icon=":material/info:")
        return
    rows = []
    notes = []
    for stat, share, result, (_, row) in zip(
        stats, shares, results, chosen.iterrows(), strict=True
    ):
        rows.append(
            {
                "statistic": stat,
                "rate": float(row["rate"]),
                "share": share,
                "ε_sample": float(row["eps_sample"]),
                "RMSE": float(row["rmse"]),
                "b₉₅": float(row["error_95"]),
            }
        )
        notes.append(
            f"{stat}: {figs.short_mechanism(str(row['mechanism_label']))}, population value "
            f"{fmt(result.population_value, 'value')}"
        )
    # Six short columns: the table fits a phone's width; the rest goes in the caption.
    st.dataframe(
        pd.DataFrame(rows),
        hide_index=True,
        column_config={
            "rate": st.column_config.NumberColumn(
                format="%.4g", help="The realised sampling rate n/N every number of the row is for"
            ),
            "share": st.column_config.NumberColumn(format="percent", help="Share of ε_sample"),
            "ε_sample": st.column_config.NumberColumn(format="%.4g"),
            "RMSE": st.column_config.NumberColumn(format="%.4g"),
            "b₉₅": st.column_config.NumberColumn(format="%.4g", help="95 % error bound ±b₉₅"),
        },
    )
    st.caption("Mechanisms: " + "; ".join(notes) + ". b₉₅: the 95 % error bound.")


def joint_block(
    ctx: PlannerInputs,
    design: str,
    rate: float,
    stats: tuple[str, ...],
    shares: tuple[float, ...],
    split: planner.BudgetSplit,
    results: tuple[planner.PlanResult, ...],
) -> None:
    """Two quantiles or more: one JointExp release of them all at their combined budget,
    next to the separate releases, and which is more accurate (largest and mean RMSE)."""
    chosen = several_text.composition_quantiles(stats)
    if len(chosen) < 2:
        return
    st.markdown("**Several quantiles at once: JointExp against separate releases**")
    if not ctx.pop.has_upper_bound:
        st.info(several_text.NO_UPPER_JOINT, icon=":material/info:")
        return
    index = {label: i for i, label in enumerate(stats)}
    share = float(sum(shares[index[label]] for _, label in chosen))
    try:
        errors = cache.joint_exp(
            ctx.pop.content_hash,
            ctx.pop,
            quantiles=tuple(level for level, _ in chosen),
            design=design,
            rate=rate,
            eps_target=ctx.eps_target,
            share=min(share, 1.0),
            relation=ctx.relation,
            reps=ctx.reps,
            seed=ctx.seed,
        )
        separate = planner.separate_rmse(
            [results[index[label]] for _, label in chosen], design, errors.rate
        )
    except ValueError as exc:
        st.info(f"JointExp is not compared here: {exc}.", icon=":material/info:")
        return
    verdict = planner.joint_against_separate(errors.rmse, separate["rmse"])
    gap = np.abs(np.asarray(errors.rmse) - separate["rmse"].to_numpy())
    noise = 2.0 * np.hypot(np.asarray(errors.rmse_se), separate["rmse_se"].to_numpy())
    st.markdown(
        several_text.joint_verdict(
            verdict,
            [label for _, label in chosen],
            errors.eps_sample,
            within_error=bool((gap <= noise).all()),
        )
    )
    rows = [
        {
            "quantile": label,
            "JointExp RMSE": float(errors.rmse[j]),
            "± (JointExp)": 2.0 * float(errors.rmse_se[j]),
            "separate RMSE": float(separate["rmse"].iloc[j]),
            "± (separate)": 2.0 * float(separate["rmse_se"].iloc[j]),
        }
        for j, (_, label) in enumerate(chosen)
    ]
    number = st.column_config.NumberColumn(format="%.4g")
    st.dataframe(
        pd.DataFrame(rows),
        hide_index=True,
        column_config={c: number for c in rows[0] if c != "quantile"},
    )
    used = [
        f"{label}: {figs.short_mechanism(str(separate['mechanism_label'].iloc[j]))}"
        for j, (_, label) in enumerate(chosen)
    ]
    st.caption(several_text.joint_caption(errors, used) + " " + several_text.JOINT_EXPLANATION)
