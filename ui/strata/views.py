"""Tab views of the Stratified sampling page.

Each view draws one tab (its own controls, charts and verdict) from a frozen
:class:`StrataInputs` of the page-level inputs instead of reading page globals.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd
import streamlit as st

from core import amplification as amp
from core import strata
from core.accounting.stratified_profile import stratified_eps_target
from core.populations import ESTABLISHMENT_SIZE_CLASSES, Population
from ui.charts import chart_block
from ui.format import fmt, number
from ui.state import builtin_population
from ui.strata import cache, text
from ui.strata import figures as figs
from ui.widgets import bound_toggle, log_float_control, preset_buttons


@dataclass(frozen=True)
class StrataInputs:
    """The page-level inputs: the active population and seed, its stratum summary (None
    without strata), the total sample size n (the paper's m), the rate n/N and ε_sample."""

    pop: Population
    seed: int
    summ: strata.StratumSummary | None
    m: int
    rate: float
    eps_sample: float


def target_metrics(eps_target: float, rate: float) -> float:
    """Metrics and reading when ε_target is given; returns the ε_sample the tabs use.

    That ε_sample is the largest one randomised proportional allocation at ``rate`` allows
    for ``eps_target`` (Bun et al. Theorem 7.2 solved for ε_sample), shown next to Poisson
    sampling at the same rate (Hu et al. eq. 3) and no sampling.
    """
    eps = float(strata.proportional_eps_sample_for_target(eps_target, rate))
    poisson_sample = float(amp.eps_sample(eps_target, rate))
    t1, t2, t3 = st.columns(3)
    t1.metric("ε_sample allowed, randomised proportional (Thm 7.2)", fmt(eps, "guarantee"))
    t2.metric("ε_sample allowed, Poisson sampling at n/N (eq. 3)", fmt(poisson_sample, "guarantee"))
    t3.metric("ε_sample without sampling", fmt(eps_target, "guarantee"))
    st.markdown(
        text.target_reading(eps_target, rate, eps, poisson_sample)
        + f" The tabs below use ε_sample = {fmt(eps, 'guarantee')}."
    )
    return eps


def _num(x: float) -> str:
    """:func:`ui.format.number` with six digits and thousands separators."""
    return number(x, 6, grouping=True)


def _table_height(rows: int) -> int | Literal["auto"]:
    """Show every row of a short table (up to 20), scroll longer ones."""
    return 35 * (rows + 1) + 3 if rows <= 20 else "auto"


def no_strata_notice(ctx: StrataInputs) -> None:
    """Plain words and a way out when the active population has no stratum labels."""
    pop = ctx.pop
    st.info(
        f"**{pop.name}** has no strata, so there is nothing to allocate: stratified sampling "
        "needs a stratum label on every record. Switch to the built-in **establishments** "
        "population (12 employee size classes, as in the paper), or upload a CSV on the "
        "Population page and pick its *Stratum column*. The privacy curves and the rounding "
        "example on the Privacy tab, and the Theorem 3.1 tab, work without strata.",
        icon=":material/info:",
    )
    switch_button()


def switch_button() -> None:
    """The button that makes the built-in establishments the active population."""
    preset_buttons(
        {"Use the establishments population": {"population": "establishments"}},
        key="strat_nostrata",
    )


def establishment_example(ctx: StrataInputs) -> StrataInputs:
    """The paper's example, shown at once when the active population has no strata.

    Says plainly that the tab now shows the built-in establishments (same seed, the paper's
    n = 10,000 of N = 100,000 records, the page's ε_sample), not the active population, and
    offers the button that makes them the active population. Returns the example's inputs.
    """
    pop = builtin_population("establishments", ctx.seed)
    summ = cache.summary(pop.content_hash, pop)
    k = summ.k if summ is not None else 1
    m = text.default_sample_size(pop.size, k)
    st.info(text.example_notice(ctx.pop.name, pop.size, k, m, ctx.eps_sample))
    switch_button()
    return StrataInputs(
        pop=pop, seed=ctx.seed, summ=summ, m=m, rate=m / pop.size, eps_sample=ctx.eps_sample
    )


def allocation_table(table: pd.DataFrame, m: int) -> None:
    """The allocation of every design, stratum by stratum, and the totals under it."""
    st.dataframe(
        table,
        hide_index=True,
        height=_table_height(len(table)),
        column_config={
            "mean": st.column_config.NumberColumn(format="%.4g"),
            "σ_i": st.column_config.NumberColumn(format="%.4g"),
            "Neyman share x_i": st.column_config.NumberColumn(format="%.2f"),
            "r·N_i": st.column_config.NumberColumn(format="%.2f"),
            **{f"{d} rate": st.column_config.NumberColumn(format="percent") for d in cache.DESIGNS},
        },
    )
    totals = {d: int(table[f"{d} n_i"].sum()) for d in cache.DESIGNS}
    st.caption(
        f"Totals: Neyman {totals[cache.NEYMAN]:,} (always n), proportional rounded "
        f"{totals[cache.PROP_DET]:,}, randomised {totals[cache.PROP_RAND]:,} (n = {m:,} on "
        "average). Neyman's integer sizes are the exact variance minimiser among whole-record "
        "allocations of total n."
    )


def allocation_view(ctx: StrataInputs) -> None:
    """Allocation table, grouped bars, variance of the weighted mean and the verdict."""
    example = ctx.summ is None
    if example:
        ctx = establishment_example(ctx)
    pop, seed, summ, m, rate, eps = ctx.pop, ctx.seed, ctx.summ, ctx.m, ctx.rate, ctx.eps_sample
    if summ is None:  # the establishments always have strata; kept for the type checker
        return
    table = cache.allocation_table(pop.content_hash, pop, m, seed)
    var_table = cache.variance_table(pop.content_hash, pop, m)
    cmp = neighbour_comparison(ctx, None, text.AUTO_STRATUM, quiet=True)
    st.success(text.verdict(var_table, cmp, summ, m, pop.size, eps), icon=":material/gavel:")
    t1, t2, _ = st.columns([1, 1, 2])
    with t1:
        show_rates = bound_toggle("Show sampling rates n_i/N_i", "strat_show_rates", default=False)
    with t2:
        log_y = bound_toggle("Log axis", "strat_log_y", default=True)
    whole = table.loc[
        (table[f"{cache.NEYMAN} n_i"] == table["N_i"]) & (table["σ_i"] > 0), "stratum"
    ].tolist()
    whole_text = ""
    if whole:
        names = ", ".join(whole[:6]) + ("…" if len(whole) > 6 else "")
        whole_text = f" — here {len(whole)} of {len(table)} strata ({names})"
    note = None
    if len(table) > figs.MAX_BARS:
        note = (
            f"{len(table):,} strata: the chart shows the {figs.MAX_BARS} with the largest "
            "N_i·σ_i; the table and the CSV have all of them."
        )
    chart_block(
        *figs.allocation_figure(table, show_rates=show_rates, log_y=log_y),
        key="strata_allocations",
        explanation=(
            f"Each group of bars is one stratum of {pop.name}. Proportional allocation draws the "
            f"same share r = n/N = {fmt(rate, 'rate')} of every stratum; Neyman draws more where "
            "the "
            "stratum is both large and spread out (N_i·σ_i) and takes a stratum whole when its "
            f"share would exceed its size{whole_text}. The randomised rounding is one draw "
            "(seed from the sidebar)."
        ),
        formulas=[
            r"\begin{aligned}&n_i^{\mathrm{Neyman}} \propto N_i\,\sigma_i,\\"
            r"&n_i \le N_i,\quad \textstyle\sum_i n_i = n\end{aligned}",
            r"n_i^{\mathrm{rounded}} = \lfloor r N_i + \tfrac12 \rfloor",
            r"\begin{aligned}n_i^{\mathrm{rand}} &= \lceil rN_i\rceil \text{ w.p. } "
            r"rN_i - \lfloor rN_i\rfloor,\\ &= \lfloor rN_i\rfloor \text{ otherwise}\end{aligned}",
        ],
        note=note,
    )
    if not example:  # the wide tables are for the active population's own strata
        allocation_table(table, m)
    chart_block(
        *figs.variance_figure(var_table),
        key="strata_variance",
        explanation=(
            "How far the weighted mean of the sample is expected to fall from the population "
            "mean, for the same number of records. Stratifying removes the differences between "
            "strata from the error; Neyman also puts the records where the spread is. "
            + (
                "A design with an infinite variance (a stratum with spread may get no record) "
                "is left out of the chart."
                if not np.all(np.isfinite(var_table["variance"]))
                else "The randomised rounding's variance is averaged over the rounding."
            )
        ),
        formulas=[
            r"\hat\theta = \sum_i \frac{N_i}{N}\,\bar y_{S_i}",
            r"\mathrm{Var}(\hat\theta) = \sum_i \Big(\frac{N_i}{N}\Big)^2"
            r"\Big(1 - \frac{n_i}{N_i}\Big)\frac{\sigma_i^2}{n_i}",
        ],
    )
    if example:
        st.caption(text.EXAMPLE_TABLE_CAPTION)
        return
    st.dataframe(
        var_table,
        hide_index=True,
        column_config={
            "variance": st.column_config.NumberColumn(format="%.5g"),
            "standard error": st.column_config.NumberColumn(format="%.5g"),
            "variance ÷ Neyman": st.column_config.NumberColumn(format="%.3f"),
        },
    )


def neighbour_comparison(
    ctx: StrataInputs, new_value: float | None, target: int, *, quiet: bool = False
) -> strata.NeighbourComparison | None:
    """The Appendix E.1 neighbour, or None (with a warning unless ``quiet``) if impossible."""
    pop, m = ctx.pop, ctx.m
    value = pop.upper if new_value is None else float(new_value)
    try:
        return cache.neighbour(pop.content_hash, pop, m, value, int(target))
    except ValueError as exc:
        if not quiet:
            st.warning(f"This neighbour cannot be built: {exc}.", icon=":material/warning:")
        return None


def neighbour_controls(ctx: StrataInputs, summ: strata.StratumSummary) -> tuple[float | None, int]:
    """The changed record's new value (None: the upper bound U) and the stratum it joins."""
    pop = ctx.pop
    c1, c2 = st.columns(2)
    with c1:
        new_value = st.number_input(
            "New value of the changed record (empty: the upper bound U)",
            value=None,
            placeholder=f"U = {_num(pop.upper)}",
            key="strat_nb_value",
            bind="query-params",
        )
    with c2:
        options = [text.AUTO_STRATUM, *range(summ.k)]
        target = st.selectbox(
            "Stratum it joins",
            options,
            format_func=lambda i: (
                "automatic: the stratum of the largest record"
                if i == text.AUTO_STRATUM
                else f"stratum {summ.labels[i]}"
            ),
            key="strat_nb_stratum",
            bind="query-params",
        )
    if new_value is not None and not (pop.lower <= new_value <= pop.upper):
        st.warning(
            f"{new_value:g} lies outside the declared bounds [{pop.lower:g}, {pop.upper:g}]; "
            "using the upper bound instead.",
            icon=":material/warning:",
        )
        new_value = None
    return new_value, text.AUTO_STRATUM if target is None else int(target)


def neighbour_chart(
    cmp: strata.NeighbourComparison, summ: strata.StratumSummary, left: int, joined: int
) -> None:
    """Bars of n′_i − n_i (§7.2, Appendix E.1) and the per-stratum table with notes."""
    top = cmp.most_moved
    fig, table = figs.neighbour_figure(cmp, (left, joined))
    chart_block(
        fig,
        table,
        key="strata_neighbour",
        explanation=(
            f"Bars show n′_i − n_i. The changed record leaves stratum {cmp.labels[left]} and "
            f"joins stratum {cmp.labels[joined]}; Neyman reacts through the sizes and the "
            "spreads of both, and through the re-allocation of every stratum that is not taken "
            "whole. Rounded proportional allocation moves at most one record in each of the "
            f"two strata (here: {int(np.abs(cmp.proportional_shift).sum())} in total). The "
            "outlined bar is the stratum that moves most. In the paper (CBP data) the same "
            "change moved 19 records in the top stratum."
        ),
        formulas=[
            r"M(S) = \big(|S_i| + \mathrm{Lap}(1/\varepsilon)\big)_{i=1}^k",
            r"\text{loss}(P, P') = \varepsilon \sum_i |n'_i - n_i|",
        ],
    )
    # A note column marks the strata that matter (cheaper than a pandas Styler).
    notes = [""] * summ.k
    notes[left] = "record leaves"
    notes[joined] = "record joins" if joined != left else "record changes"
    notes[top] = f"★ moves most; {notes[top]}" if notes[top] else "★ moves most"
    st.dataframe(
        table.assign(note=notes),
        hide_index=True,
        height=_table_height(summ.k),
        column_config={
            "σ_i": st.column_config.NumberColumn(format="%.4g"),
            "σ′_i": st.column_config.NumberColumn(format="%.4g"),
            "note": st.column_config.TextColumn(width="medium"),
        },
        column_order=["stratum", "note", *table.columns[1:]],
    )


def paper_e1_expander(summ: strata.StratumSummary) -> None:
    """The paper's Neyman allocations on P and P′ (Appendix E.1), next to ours."""
    with st.expander("The paper's numbers (Appendix E.1, CBP establishments, n = 10,000)"):
        p, q = (np.array(a) for a in strata.PAPER_NEYMAN_E1)
        st.dataframe(
            {
                "stratum": [label for label, *_ in ESTABLISHMENT_SIZE_CLASSES],
                "Neyman on P": p,
                "Neyman on P′": q,
                "shift": q - p,
            },
            hide_index=True,
        )
        st.caption(
            "The top stratum gains 19 records, so releasing its noisy sample size leaks 19ε. "
            "The paper's vectors sum to 10,004 and 10,005: each stratum was rounded on its own. "
            f"Our establishments are synthetic; their top class has only {summ.sizes[-1]:,} "
            "units and is taken whole, so the shifts here are smaller — the leak is not."
        )


def neighbour_section(ctx: StrataInputs) -> strata.NeighbourComparison | None:
    """Section 7.2 / Appendix E.1: both allocations on P and on a neighbour P′."""
    pop, summ, eps = ctx.pop, ctx.summ, ctx.eps_sample
    st.subheader("Neyman's allocation depends on the data (§7.2, Appendix E.1)")
    assert summ is not None
    st.markdown(
        "Take the population P and a neighbour P′ that differs in one record: as in the paper, "
        f"the smallest unit ({_num(pop.values[0])}) is raised to the upper bound "
        f"U = {_num(pop.upper)} (for establishments: the 10,000-employee top code) and joins "
        "the stratum of the largest records. Both allocations are recomputed on P′."
    )
    new_value, target = neighbour_controls(ctx, summ)
    cmp = neighbour_comparison(ctx, new_value, target)
    if cmp is None:
        return None
    # The values are sorted: the first record is the smallest, and the first record equal to
    # the last is the (first) largest, as np.argmin / np.argmax give, without a pass over N.
    largest = int(np.searchsorted(pop.values, pop.values[-1], side="left"))
    left = int(summ.codes[0])
    joined = int(summ.codes[largest]) if target == text.AUTO_STRATUM else target
    degradation = text.neighbour_degradation(cmp, eps, summ.k)
    if degradation is not None:
        st.warning(degradation, icon=":material/priority_high:")
    else:
        st.info(
            "With this change Neyman's allocation does not move; try another sample size or "
            "another neighbour.",
            icon=":material/info:",
        )
    neighbour_chart(cmp, summ, left, joined)
    paper_e1_expander(summ)
    return cmp


def rounding_section(ctx: StrataInputs) -> None:
    """Section 4.3: deterministic rounding of r·|P| on |P| = 14 against |P′| = 15."""
    eps = ctx.eps_sample
    st.subheader("Rounding decides (§4.3): a stratum of |P| against one of |P| + 1 records")
    c1, c2 = st.columns(2)
    with c1:
        size = st.number_input(
            "Stratum size |P|",
            min_value=1,
            max_value=10**9,
            value=14,
            step=1,
            key="strat_cx_size",
            bind="query-params",
        )
    with c2:
        r_cx = st.number_input(
            "Sampling fraction r",
            min_value=1e-6,
            max_value=1.0,
            value=0.1,
            step=0.01,
            format="%.4g",
            key="strat_cx_rate",
            bind="query-params",
        )
    example = strata.rounding_example(int(size or 14), float(r_cx or 0.1))
    (da, db), (fa, fb), (pa, pb) = example.deterministic, example.floors, example.p_up
    det_loss = example.deterministic_loss(eps)
    rnd_loss = example.randomized_loss(eps)
    k1, k2, k3 = st.columns(3)
    k1.metric("Rounded: records drawn from P / P′", f"{da} / {db}")
    k2.metric(
        "Loss of the noisy count, rounded",
        fmt(det_loss, "guarantee"),
        help="The released count |S| + Laplace(1/ε) on P against P′.",
    )
    k3.metric("Loss of the noisy count, randomised", fmt(rnd_loss, "guarantee"))
    if da != db:
        st.markdown(
            f"Rounding r·|P| = {fmt(example.rate * example.size, 'plain')} and r·|P′| = "
            f"{fmt(example.rate * (example.size + 1), 'plain')} to the nearest integer draws {da} "
            "and "
            f"{db} records: the sample size itself reveals which population it came from, and "
            f"the noisy count leaks {fmt(det_loss, 'guarantee')} = {abs(db - da)}ε — no "
            "amplification at all. "
            f"Randomised rounding draws {fa} or {fa + 1} records from P ({fa + 1} with "
            f"probability {fmt(pa, 'share')}) and {fb} or {fb + 1} from P′ ({fb + 1} with "
            "probability "
            f"{fmt(pb, 'share')}), so the two are hard to tell apart: the same noisy count leaks "
            "only "
            f"{fmt(rnd_loss, 'guarantee')}."
        )
    else:
        st.markdown(
            f"Here both sizes round to {da}, so this pair does not expose the rounding; the "
            f"paper's example is |P| = 14 at r = 1/10. Randomised rounding leaks "
            f"{fmt(rnd_loss, 'guarantee')} on the noisy count."
        )
    fig, data = figs.rounding_figure(example, eps)
    chart_block(
        fig,
        data,
        key="strata_rounding",
        explanation=(
            "What someone who sees the noisy sample size observes, on P (solid) and on P′ "
            "(dotted). With rounding (orange) the two curves are Laplace densities centred on "
            "different counts: their log-ratio reaches ε. With randomised rounding (green) both "
            "are mixtures of the same two counts with nearly equal weights, and the curves "
            "almost coincide."
        ),
        formulas=[
            r"\begin{aligned}&\Pr\big[\tilde f_{\mathrm{rand}}(P) = \lceil r|P|\rceil\big]"
            r"\\ &= r|P| - \lfloor r|P|\rfloor\end{aligned}",
            r"\text{loss} = \sup_y \Big|\log\frac{f_P(y)}{f_{P'}(y)}\Big|",
        ],
    )


def privacy_view(ctx: StrataInputs) -> None:
    """ε_target of randomised proportional allocation, Neyman's neighbour, the rounding example."""
    summ, rate, eps = ctx.summ, ctx.rate, ctx.eps_sample
    # The markers use the paper's neighbour (smallest record raised to U).
    cmp = (
        neighbour_comparison(ctx, None, text.AUTO_STRATUM, quiet=True) if summ is not None else None
    )
    markers: list[tuple[str, float, str]] = []
    if cmp is not None:
        markers = [
            (
                "Neyman: loss of noisy stratum sizes (lower bound)",
                cmp.count_loss(eps, "neyman"),
                cache.NEYMAN,
            ),
            (
                "proportional, rounded: same attack",
                cmp.count_loss(eps, "proportional"),
                cache.PROP_DET,
            ),
            (
                "proportional, randomised: same attack",
                cmp.count_loss(eps, "randomized"),
                cache.PROP_RAND,
            ),
        ]
    bound = float(strata.proportional_eps_bound(eps, rate))
    srs = float(amp.eps_target(eps, rate))
    approx = float(strata.proportional_eps_approx(eps, rate))
    exact = (
        stratified_eps_target(eps, 2.0 * eps, rate, summ.sizes, "deletion")
        if summ is not None and 0.0 < rate < 1.0
        else None
    )
    k1, k2, k3, k4, k5 = st.columns(5)
    k1.metric("ε_sample (budget on the sample)", fmt(eps, "guarantee"))
    k2.metric(
        "ε_target bound, randomised proportional (Thm 7.2)",
        text.bound_value(bound, eps),
        delta=f"{bound - eps:+.3g} vs ε_sample",
        delta_color="inverse",
        help=text.bound_help(bound, eps),
    )
    k3.metric("6·r·ε_sample (small-ε form)", fmt(approx, "guarantee"))
    k4.metric("ε_target, Poisson sampling (eq. 3)", fmt(srs, "guarantee"))
    k5.metric(
        "ε_target, exact for these strata",
        "—" if exact is None else fmt(exact, "guarantee"),
        help=(
            "The largest loss any ε_sample-DP mechanism can have on a randomised proportional "
            "sample of this population's stratum sizes, computed exactly (a small linear "
            "program per stratum; the release planner uses it). It assumes the list of "
            "strata is public and fixed."
        ),
    )
    fig, data = figs.privacy_rate_figure(eps, rate, markers, None if summ is None else summ.sizes)
    chart_block(
        fig,
        data,
        key="strata_privacy_rate",
        explanation=(
            "For each sampling rate, the guarantee the population gets when the mechanism on "
            f"the sample spends ε_sample = {fmt(eps, 'guarantee')}. Randomised proportional "
            "allocation "
            "(green) is guaranteed roughly 6·r·ε_sample — six times the Poisson-sampling value "
            "(eq. 3) for small budgets, and below ε_sample only for small rates: a bound for "
            "every stratum size at once. For this population's stratum sizes the exact worst "
            "loss over every ε_sample-DP mechanism is the dotted curve named for them: below "
            "the theorem, above simple random sampling (the random stratum sizes cost a "
            "little privacy), and it wobbles with how r·N_h rounds in each stratum. The markers "
            "at this page's rate are the loss of one concrete ε_sample-DP mechanism (noisy "
            "stratum sample sizes) between the population and "
            "the paper's neighbour (smallest record raised to U): a lower bound for Neyman, "
            "which no theorem bounds from above. A loss of 0 (rounded proportional allocation "
            "when the neighbour does not move it) has no marker on the log axis."
        ),
        formulas=[
            r"\begin{aligned}\varepsilon_{\mathrm{target}} &\le L_2 + L_1"
            r"\approx 6r\,\varepsilon_{\mathrm{sample}},\\"
            r"L_c &= \log\big(1 + c\,r\,(e^{2\varepsilon_{\mathrm{sample}}}-1)\big)\end{aligned}",
            r"\varepsilon_{\mathrm{target}}^{\mathrm{Poisson}} = \log\big(1 + "
            r"r(e^{\varepsilon_{\mathrm{sample}}}-1)\big)",
        ],
    )
    if summ is not None:
        small = np.flatnonzero(rate * summ.sizes < 1)
        if small.size:
            names = ", ".join(str(summ.labels[i]) for i in small[:8])
            st.warning(
                f"Theorem 7.2 needs r·N_i ≥ 1 in every stratum; at r = {fmt(rate, 'rate')} it "
                "fails for "
                f"{small.size} {'stratum' if small.size == 1 else 'strata'} "
                f"({names}{'…' if small.size > 8 else ''}), so the bound does not cover this "
                "design. Raise n.",
                icon=":material/warning:",
            )
        st.caption(
            "Changing a record (as in the neighbour below) removes it from one stratum and adds "
            "it to another; Theorem 7.2 bounds one addition or removal, so the guarantee for a "
            "change is at most twice the bound."
        )
        neighbour_section(ctx)
    else:
        no_strata_notice(ctx)
    rounding_section(ctx)


def simulation_view(ctx: StrataInputs) -> None:
    """Simulated weighted means against the variance formula."""
    if ctx.summ is None:
        ctx = establishment_example(ctx)
    pop, seed, m = ctx.pop, ctx.seed, ctx.m
    reps = st.select_slider(
        "Samples per design",
        [100, 200, 500, 1000, 2000],
        value=500,
        key="strat_reps",
        bind="query-params",
        help="Each sample is drawn without replacement inside every stratum (seed in the sidebar).",
    )
    sim = cache.simulation(pop.content_hash, pop, m, int(reps), seed)
    var_table = cache.variance_table(pop.content_hash, pop, m)
    truth = float(pop.values.mean())
    rows = []
    for design in cache.DESIGNS:
        values = sim.loc[sim["design"] == design, "weighted mean"].to_numpy()
        formula = float(var_table.loc[var_table["design"] == design, "variance"].iloc[0])
        empty = int(np.isnan(values).sum())
        ok = values[~np.isnan(values)]
        simulated = float(ok.var(ddof=1)) if ok.size > 1 else float("nan")
        rows.append(
            {
                "design": design,
                "variance (formula)": formula,
                "variance (simulated)": simulated,
                "simulated ÷ formula": simulated / formula
                if np.isfinite(formula) and formula > 0
                else np.nan,
                "mean of the estimates": float(ok.mean()) if ok.size else np.nan,
                "samples with an empty stratum": empty,
            }
        )
    chart_block(
        *figs.simulation_figure(sim, truth, pop.value_label),
        key="strata_simulation",
        explanation=(
            f"{reps:,} stratified samples of {m:,} records per design, each stratum sampled "
            "without replacement; for randomised rounding every sample redraws its allocation. "
            "All three estimates centre on the population mean (dotted); their spread is the "
            "variance of the formula."
        ),
        formulas=[
            r"\widehat{\mathrm{Var}} = \frac{1}{R-1}\sum_{t=1}^R(\hat\theta_t - \bar\theta)^2"
        ],
    )
    st.dataframe(
        rows,
        hide_index=True,
        column_config={
            "design": st.column_config.TextColumn(width="medium"),
            "samples with an empty stratum": st.column_config.NumberColumn(
                "empty strata", help="Samples with an empty stratum (no estimate)"
            ),
            "variance (formula)": st.column_config.NumberColumn(format="%.5g"),
            "variance (simulated)": st.column_config.NumberColumn(format="%.5g"),
            "simulated ÷ formula": st.column_config.NumberColumn(format="%.3f"),
            "mean of the estimates": st.column_config.NumberColumn(
                "mean", format="%.6g", help="Mean of the simulated estimates"
            ),
        },
    )
    st.caption(
        f"With {reps:,} samples the simulated variance is within about "
        f"±{fmt(2 * np.sqrt(2 / (reps - 1)), 'share', 1)} of the formula (two standard errors)."
    )


def random_size_view(ctx: StrataInputs) -> None:
    """Theorem 3.1: a random, data-independent sample size, and Figure 2."""
    st.markdown(
        "Before data-dependent sizes, the paper asks what a *random* but data-independent "
        "sample size does. The answer (Theorem 3.1) depends on one number: the mean size "
        "after tilting the size distribution by e^(εm), which favours large samples — so a "
        "small chance of a large sample can undo the amplification."
    )
    c1, c2, c3 = st.columns(3)
    with c1:
        n_rs = st.number_input(
            "Population size N",
            min_value=10,
            max_value=1_000_000,
            value=10_000,
            step=1000,
            key="strat_rs_n",
            bind="query-params",
        )
    with c2:
        eps_rs = log_float_control(
            "ε_sample (budget on the sample)",
            "strat_rs_eps",
            default=0.01,
            min_value=1e-4,
            max_value=10.0,
        )
    with c3:
        mean_fraction = st.slider(
            "Mean sample size, as a fraction of N",
            0.05,
            0.95,
            0.5,
            step=0.05,
            key="strat_rs_mean",
            bind="query-params",
        )
    n_rs = int(n_rs or 10_000)
    table = cache.random_size_curve(n_rs, float(eps_rs), float(mean_fraction))
    chart_block(
        *figs.random_size_figure(table, float(eps_rs), n_rs),
        key="strata_random_size",
        explanation=(
            f"The sample size is a Gaussian with mean {mean_fraction:g}·N, cut to 0…N, and "
            "the x-axis is its spread. A tightly concentrated size behaves like a fixed one "
            f"(ε_target ≈ {fmt(table['fixed size (Thm 2.2)'].iloc[0], 'guarantee')}); as the "
            "spread grows, "
            "the tilted mean creeps towards N and ε_target towards ε_sample. With N = 10⁴ and "
            "ε_sample = 0.01 a spread of about 800 already gives ε_target close to ε_sample "
            "(Bun et al. Figure 2). The upper bound "
            "holds for every ε-DP mechanism; the lower bound is reached by one of them, so the "
            "two together pin ε_target down."
        ),
        formulas=[
            r"\tilde t(m) \propto e^{\varepsilon m}\,t(m),\qquad "
            r"a = \mathbb{E}_{m\sim\tilde t}[m]/n",
            r"\varepsilon_{\mathrm{target}} \le \log\big(1 + "
            r"a(e^{\varepsilon_{\mathrm{sample}}}-1)\big)",
            r"\varepsilon_{\mathrm{target}} \ge -\log\big(1 - "
            r"a(1-e^{-\varepsilon_{\mathrm{sample}}})\big)",
        ],
    )


#: The view of each tab, in the order of :data:`ui.strata.text.TABS`.
TAB_VIEWS = (allocation_view, privacy_view, simulation_view, random_size_view)
