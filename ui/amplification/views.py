"""Tab views of the Amplification page.

Each view draws one tab (its own controls, charts and snippet) from a frozen
:class:`AmplificationInputs` of the page-level inputs instead of reading page globals.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import streamlit as st

from core import amplification as amp
from core import risk
from core.populations import Population
from ui.amplification import figures as figs
from ui.amplification import text
from ui.charts import chart_block, reproduce
from ui.format import fmt
from ui.page_defaults import follow_population_default
from ui.widgets import bound_toggle, float_list_input, log_float_control


@dataclass(frozen=True)
class AmplificationInputs:
    """The page-level inputs: the active population, the ε_target values, the smallest rate
    shown and δ_target."""

    pop: Population
    eps_targets: tuple[float, ...]
    rate_min: float
    delta_target: float


def forward_view(ctx: AmplificationInputs) -> None:
    """ε_sample and δ_sample against the sampling rate (Hu et al. Figure 3)."""
    eps_targets, rate_min, delta_target = ctx.eps_targets, ctx.rate_min, ctx.delta_target
    t1, t2, _ = st.columns([1, 1, 2])
    with t1:
        log_x = bound_toggle("Log rate axis", "amp_log_x", default=False)
    with t2:
        log_y = bound_toggle("Log ε axis", "amp_log_y", default=False)

    rates = figs.rate_grid(rate_min, log_spacing=log_x or rate_min < 0.01)
    fig, data = figs.eps_sample_figure(eps_targets, rates, log_x=log_x, log_y=log_y)
    chart_block(
        fig,
        data,
        key="eps_sample_vs_rate",
        explanation=(
            "Each curve fixes the guarantee promised to the population and shows the budget the "
            "mechanism may spend on a sample of that rate. At rate 1 (the whole population) the "
            "two are equal; the smaller the sample, the larger the allowed budget, growing like "
            "log(1/rate) once the sample is small. Example: ε_target = 1 with a 1 % sample "
            "allows ε_sample ≈ 5.15."
        ),
        formulas=[
            r"\varepsilon_{\mathrm{sample}} = \log\!\Big(1 + "
            r"\frac{e^{\varepsilon_{\mathrm{target}}} - 1}{n/N}\Big)"
        ],
    )
    fig, data = figs.delta_sample_figure(delta_target, rates, log_x=log_x)
    chart_block(
        fig,
        data,
        key="delta_sample_vs_rate",
        explanation=(
            "The δ part amplifies linearly: a sample of rate n/N may use δ divided by the rate. "
            "Once δ_sample reaches 1 the constraint is empty, which happens only for samples "
            "smaller than δ_target·N records — a sign the rate is implausibly small."
        ),
        formulas=[r"\delta_{\mathrm{sample}} = \frac{\delta_{\mathrm{target}}}{n/N}"],
    )
    reproduce(text.forward_snippet(eps_targets, rate_min, delta_target), key="amp_forward")


def reverse_view(ctx: AmplificationInputs) -> None:
    """ε_target for fixed sample budgets, and the calculator for a given n and N."""
    eps_targets, rate_min, delta_target = ctx.eps_targets, ctx.rate_min, ctx.delta_target
    N = ctx.pop.size
    n_default = text.default_sample_size(N)
    follow_population_default("amp_N", N)
    follow_population_default("amp_n", n_default)
    st.markdown(
        "Read the formula the other way round: a mechanism tuned to **ε_sample** on the sample, "
        "what guarantee does it give the population? And for your own sample size, what may "
        "you spend?"
    )
    c1, c2 = st.columns(2)
    with c1:
        eps_samples = float_list_input(
            "Sample budgets (ε_sample)",
            "amp_eps_samples",
            default=(1.0, 2.0, 5.0),
            min_value=1e-6,
            max_value=1000.0,
        )
    with c2:
        n_pop = st.number_input(
            "Population size N",
            min_value=2,
            max_value=10**10,
            value=N,
            step=1,
            key="amp_N",
            bind="query-params",
            help=f"Defaults to the active population's N = {N:,}.",
        )
        n_sample = st.number_input(
            "Sample size n",
            min_value=1,
            max_value=10**10,
            value=n_default,
            step=1,
            key="amp_n",
            bind="query-params",
            help=f"Defaults to a 1 % sample of the active population, n = {n_default:,}.",
        )
    rates_rev = figs.rate_grid(rate_min, log_spacing=True)
    fig, data = figs.eps_target_figure(eps_samples, rates_rev, log_x=True, log_y=True)
    chart_block(
        fig,
        data,
        key="eps_target_vs_rate",
        explanation=(
            "A mechanism that is ε_sample-private on the sample protects the population at the "
            "smaller level ε_target. For small ε_sample the protection improves in proportion "
            "to the rate; for large ε_sample the gain is only additive: ε_target ≈ ε_sample + "
            "log(rate)."
        ),
        formulas=[
            r"\varepsilon_{\mathrm{target}} = \log\!\big(1 + \tfrac{n}{N}\,(e^{\varepsilon_"
            r"{\mathrm{sample}}} - 1)\big)"
        ],
    )
    st.subheader("Calculator")
    if n_sample > n_pop:
        st.error(
            f"The sample size n = {n_sample:,} exceeds the population size N = {n_pop:,}. "
            "Choose n ≤ N."
        )
    else:
        table = figs.calculator_table(int(n_pop), int(n_sample), eps_targets, delta_target)
        st.dataframe(
            table,
            hide_index=True,
            # n/N and δ_target are the inputs above, the same in every row: not repeated.
            column_order=[c for c in table.columns if c not in ("n/N", "δ_target")],
            column_config={
                "n/N": st.column_config.NumberColumn(format="%.5f"),
                "ε_sample": st.column_config.NumberColumn(format="%.4f"),
                "ε_sample / ε_target": st.column_config.NumberColumn(format="%.2f"),
                "δ_sample": st.column_config.NumberColumn(format="%.3e"),
                "δ_target": st.column_config.NumberColumn(format="%.3e"),
                "noise variance ratio r": st.column_config.NumberColumn(format="%.6f"),
            },
        )
        if not (table["δ_sample"] < 1).all():
            st.warning(
                f"δ_sample = δ_target·N/n = {fmt(table['δ_sample'].iloc[0], 'delta')} is at least "
                "1: the "
                "δ bound is vacuous, it puts no constraint on the mechanism run on the sample. "
                "Lower δ_target or raise n.",
                icon=":material/warning:",
            )
        st.caption(
            "r is the ratio of the Laplace noise variance on the population to that on the "
            "sample for a mean (Hu et al. eq. 8). It is below 1 for every n < N: the sample mean "
            "always carries more noise. Values that print as 1.000000 are rounding."
        )
        reproduce(
            text.reverse_snippet(eps_targets, delta_target, int(n_pop), int(n_sample)),
            key="amp_reverse",
        )


def steinke_view(ctx: AmplificationInputs) -> None:
    """Steinke's ratio p·ε_p/ε and its floor in the regime ε = c·p."""
    st.markdown(
        "The usual shorthand says a p-sample buys ε_p ≈ ε/p. Steinke's ratio **p·ε_p/ε** measures "
        "how true that is: 1 means amplification is free, ½ means the subsampled Laplace "
        "mechanism adds twice the noise the shorthand promises. In the names used on the "
        "other tabs, ε is ε_target, p the sampling rate n/N and ε_p the ε_sample it allows."
    )
    c1, c2, c3 = st.columns(3)
    with c1:
        st_eps = float_list_input(
            "ε values",
            "amp_st_eps",
            default=(0.01, 0.1, 1.0, 2.0),
            min_value=1e-6,
            max_value=100.0,
        )
    with c2:
        st_p = float_list_input(
            "Sampling probabilities p",
            "amp_st_p",
            default=(0.001, 0.01, 0.1, 0.5),
            min_value=1e-9,
            max_value=1.0,
        )
    with c3:
        st_c = float_list_input(
            "Constants c (ε = c·p)",
            "amp_st_c",
            default=(0.2, 0.5, 2.0, 5.0),
            min_value=1e-4,
            max_value=1e4,
        )
    p_grid = np.geomspace(1e-4, 1.0, figs.CURVE_POINTS)
    fig, data = figs.steinke_vs_p_figure(st_eps, p_grid, log_x=True)
    chart_block(
        fig,
        data,
        key="steinke_ratio_vs_p",
        explanation=(
            "For a fixed ε the ratio is close to 1 only when p is close to 1 or ε is tiny. At "
            "ε = 1 and p = 1 % the subsample may use ε_p ≈ 5.15, about 5 % of the ε/p = 100 "
            "the shorthand suggests; at ε = 0.01 and p = 10 % it keeps about 96 %."
        ),
        formulas=[
            r"\frac{p\,\varepsilon_p}{\varepsilon} = \frac{p}{\varepsilon}\log\!\Big(1 + "
            r"\frac{e^{\varepsilon}-1}{p}\Big)"
        ],
    )
    eps_grid = np.geomspace(1e-4, 10.0, figs.CURVE_POINTS)
    fig, data = figs.steinke_vs_eps_figure(st_p, eps_grid)
    chart_block(
        fig,
        data,
        key="steinke_ratio_vs_eps",
        explanation=(
            "Holding p fixed, the ratio falls as ε grows: amplification is nearly free while ε "
            "is much smaller than p and fades once ε is comparable to p or larger."
        ),
        formulas=[
            r"\frac{\varepsilon}{p+\varepsilon} \le \log(1+\varepsilon/p) \le"
            r" \varepsilon_p \le \frac{\varepsilon}{p}"
        ],
    )
    fig, data = figs.steinke_regime_figure(st_c, p_grid, log_x=True)
    chart_block(
        fig,
        data,
        key="steinke_regime_c",
        explanation=(
            "Tie ε to the rate, ε = c·p, and the ratio never drops below log(1+c)/c (dotted "
            "lines). With c = 2, i.e. ε ≤ 2p, subsampled Laplace adds at most about 1.8 times "
            "the noise of the shorthand; for large c the floor, and the amplification, vanish."
        ),
        formulas=[
            r"\inf_{p\in(0,1],\ \varepsilon = c p} \frac{p\,\varepsilon_p}{\varepsilon} = "
            r"\frac{\log(1+c)}{c}"
        ],
    )
    fig, data = figs.noise_factor_figure(np.geomspace(1e-2, 1e3, figs.CURVE_POINTS))
    chart_block(
        fig,
        data,
        key="steinke_noise_factor",
        explanation=(
            "The same floor read as a cost: when ε ≤ c·p, the subsampled Laplace mechanism adds "
            "at most c/log(1+c) times the noise of the standard one. The factor grows without "
            "bound, so amplification is nearly free only for ε of the order of p."
        ),
        formulas=[r"\text{noise factor} \le \frac{c}{\log(1+c)}"],
    )
    reproduce(text.steinke_snippet(st_eps, st_p, st_c), key="amp_steinke")


def prior_control(key: str) -> float:
    """The attacker's prior, URL-bound under ``key`` (log scale, default 1 in 100)."""
    prior = log_float_control(
        text.PRIOR_LABEL,
        key,
        default=text.PRIOR_DEFAULT,
        min_value=text.PRIOR_MIN,
        max_value=text.PRIOR_MAX,
        help=text.PRIOR_HELP,
    )
    st.caption(f"Prior: {text.one_in(prior)}.")
    return prior


def odds_view(ctx: AmplificationInputs) -> None:
    """Each ε as the most an attacker with a given prior can believe after the release."""
    st.markdown(text.ODDS_INTRO)
    c1, c2, c3 = st.columns(3, gap="medium")
    with c1:
        prior = prior_control("amp_prior")
    with c2:
        rate = log_float_control(
            "Sampling rate n/N", "amp_odds_rate", default=0.01, min_value=1e-6, max_value=1.0
        )
    with c3:
        eps_target = log_float_control(
            "ε_target of the chart",
            "amp_odds_eps",
            default=1.0,
            min_value=1e-3,
            max_value=50.0,
            help="The chart shows this ε_target and the ε_sample it allows at the rate n/N.",
        )
    eps_sample = float(amp.eps_sample(eps_target, rate))
    st.info(
        text.odds_summary(
            prior,
            eps_target,
            float(risk.posterior_bound(eps_target, prior, ctx.delta_target)),
            eps_sample,
            float(risk.posterior_bound(eps_sample, prior)),
            ctx.delta_target,
        ),
        icon=":material/casino:",
    )
    st.markdown(
        f"**The page's ε_target values at n/N = {fmt(rate, 'rate')}, prior {text.one_in(prior)}**"
    )
    table = figs.odds_table(ctx.eps_targets, rate, prior, ctx.delta_target)
    st.table(text.odds_display(table), hide_index=True)
    if prior < 0.5:
        eps_even = float(risk.eps_for_posterior(prior, 0.5))
        st.markdown(text.even_odds_sentence(prior, eps_even, eps_target, eps_sample))
    fig, data = figs.posterior_figure(eps_target, rate, figs.prior_grid(), marker_prior=prior)
    chart_block(
        fig,
        data,
        key="amp_odds_posterior",
        explanation=text.ODDS_EXPLANATION + "\n\n" + text.ODDS_FORMULA_WORDS,
        formulas=list(text.ODDS_FORMULAS),
    )
    reproduce(text.odds_snippet(ctx.eps_targets, rate, prior, ctx.delta_target), key="amp_odds")


#: The view of each tab, in the order of :data:`ui.amplification.text.TABS`.
TAB_VIEWS = (forward_view, reverse_view, steinke_view, odds_view)
