"""Tab views of the Statistical privacy page.

Each view draws one tab (its own controls, charts and snippet) from a frozen
:class:`StatisticalInputs` of the page-level inputs instead of reading page globals.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd
import streamlit as st

from core import statistical as sp
from ui.charts import chart_block, drawn_when_opened, reproduce
from ui.format import fmt
from ui.statistical import cache, text
from ui.statistical import figures as figs
from ui.widgets import (
    bound_toggle,
    float_list_input,
    log_float_control,
)


@dataclass(frozen=True)
class StatisticalInputs:
    """The page-level inputs: records N (``n``), property probability π, ε, sampling rate λ
    and the sample size it gives (``m``, the paper's m)."""

    n: int
    pi: float
    eps: float
    lam: float
    m: int


#: Key of the choice of answer distributions shown (inside an expander drawn when opened).
DISTRIBUTIONS_KEY = "sp_dist"


def curve_view(ctx: StatisticalInputs) -> None:
    """δ(ε) of every mechanism, the worst-case curves, and what the adversary compares."""
    n, pi, eps, lam, m = ctx.n, ctx.pi, ctx.eps, ctx.lam, ctx.m
    t1, t2, t3, t4 = st.columns([2, 2, 1, 1], vertical_alignment="bottom")
    with t1:
        nu = log_float_control(
            "Noise multiplier ν",
            "sp_nu",
            default=1.0,
            min_value=sp.MIN_NOISE_MULTIPLIER,
            max_value=1000.0,
            help="Gaussian standard deviation or Laplace scale, in units of the sensitivity "
            "1/N of the query.",
        )
    with t2:
        eps_max = log_float_control(
            "Largest ε shown", "sp_eps_max", default=2.0, min_value=0.01, max_value=50.0
        )
    with t3:
        log_x = bound_toggle("Log ε axis", "sp_log_x", default=True)
    with t4:
        log_y = bound_toggle("Log δ axis", "sp_log_y", default=True)

    summary = cache.point_summary(n, pi, m, nu, eps)
    st.markdown(figs.privacy_reading(summary, n=n, pi=pi, eps=eps, nu=nu, m=m))
    curves = cache.privacy_curves(n, pi, m, nu, eps_max)
    chart_block(
        *figs.privacy_curve_figure(curves, nu=nu, m=m, n=n, log_x=log_x, log_y=log_y, eps_mark=eps),
        key="sp_privacy_curve",
        explanation=(
            "Each solid line is the privacy curve against an adversary who knows the "
            "distribution of the data but not the other records; the dotted lines are the "
            "worst case of differential privacy for the same noise (all other records known), "
            "in the same colour; they share one legend entry, which hides or shows them all. "
            "A mechanism is (ε, δ)-private for every point on or above its curve. The exact "
            "answer already has a finite curve because the other records are random; added "
            "noise or a random sample pushes it down. Laplace noise reaches δ = 0 at ε = 1/ν "
            "(Lemma 5); on a log axis the line then stops."
        ),
        formulas=[
            r"\delta(\varepsilon) = \max_{a \ne b}\int \big(f_a - e^{\varepsilon} f_b\big)_+\,dz",
            r"Y = \tfrac{1}{N}\big(\mathbb 1[\text{critical}] + B\big)",
            r"B \sim \mathrm{Bin}(N-1, \pi)",
        ],
        note=(
            f"n = {m:,} sampled records (λ = {fmt(m / n, 'plain')}). δ is computed from the "
            "definition: "
            "exact sums over the binomial probabilities, exact integrals for the noise. The log "
            "axis stops at 10⁻¹²; the data download has every value. In the worst case the "
            "exact answer gives the record away (δ = 1) and a noiseless sample only hides it "
            "when the record is not drawn (δ = λ)."
        ),
    )
    # A static table wraps its long column names on a phone instead of hiding columns.
    st.table(summary.set_index(summary.columns[0]).map(lambda v: fmt(v, "delta")))
    st.caption(
        f"At ε = {eps:g}. δ(+,−) bounds what the answer reveals when the critical record is "
        "positive, δ(−,+) when it is negative; the guarantee is their maximum (eq. 4)."
    )
    drawn_when_opened(
        text.DISTRIBUTIONS_LABEL,
        "sp_distributions",
        lambda: distributions_block(ctx, nu),
        icon=":material/bar_chart:",
        # A link that picks the distributions shown opens them, so its choice is drawn.
        expanded=DISTRIBUTIONS_KEY in st.query_params,
    )
    reproduce(text.curve_snippet(size=n, pi=pi, eps=eps, nu=nu, lam=lam), key="sp_curve")


def distributions_block(ctx: StatisticalInputs, nu: float) -> None:
    """What the adversary compares: the answer's two distributions for one mechanism (drawn
    when its expander is opened, :func:`ui.charts.drawn_when_opened`)."""
    n, pi, m = ctx.n, ctx.pi, ctx.m
    shown = st.selectbox(
        "Answer distributions to show",
        list(cache.MECHANISMS),
        format_func=lambda k: cache.MECHANISMS[k],
        key=DISTRIBUTIONS_KEY,
        bind="query-params",
    )
    dist = cache.distributions(n, pi, m, nu, shown)
    name = cache.MECHANISMS[shown] + (f", ν = {nu:g}" if shown in ("gaussian", "laplace") else "")
    chart_block(
        *figs.distributions_figure(dist, title=f"What the adversary compares: {name}"),
        key="sp_distributions",
        explanation=(
            "The answer's distribution when the critical record has the property (+) and when "
            "it does not (−). Without a mechanism the two are the same binomial shape moved by "
            "one record (1/N); subsampling mixes in a sample that misses the record; noise "
            "smears both. δ(ε) is the mass by which one curve exceeds e^ε times the other."
        ),
        formulas=[
            r"\begin{aligned}P_+(j) &= \lambda\, b_{n-1}(j-1)\\ &\quad + (1-\lambda)\, b_n(j)"
            r"\end{aligned}",
            r"\begin{aligned}P_-(j) &= \lambda\, b_{n-1}(j)\\ &\quad + (1-\lambda)\, b_n(j)"
            r"\end{aligned}",
            r"b_k(j) = \tbinom{k}{j}\pi^j(1-\pi)^{k-j},\quad \lambda = n/N",
        ],
    )


def pi_view(ctx: StatisticalInputs) -> None:
    """Figures 1–4 and 6: δ against π with the worst case, and the DP/SP ratio against ν."""
    n, eps = ctx.n, ctx.eps
    p1, p2, p3 = st.columns([1, 2, 2])
    with p1:
        noise = st.selectbox(
            "Noise",
            ["gaussian", "laplace"],
            format_func=lambda k: figs.NOISE_LABEL[k],
            key="sp_noise",
            bind="query-params",
        )
    with p2:
        nus = float_list_input(
            "Noise levels ν (one curve each)",
            "sp_nus",
            default=(1.0, 3.0),
            min_value=sp.MIN_NOISE_MULTIPLIER,
            max_value=1000.0,
            max_items=4,
        )
    with p3:
        ratio_pis = float_list_input(
            "π values for the ratio",
            "sp_ratio_pis",
            default=(0.5, 0.1, 0.01),
            min_value=1e-6,
            max_value=0.5,
            max_items=5,
        )
    data = cache.delta_vs_pi(n, eps, noise, tuple(nus))
    st.markdown(figs.pi_reading(data, noise=noise, eps=eps))
    log_pi = bound_toggle("Log π axis", "sp_pi_log", default=False)
    chart_block(
        *figs.delta_vs_pi_figure(data, noise=noise, n=n, eps=eps, log_x=log_pi),
        key="sp_delta_vs_pi",
        explanation=(
            "Solid: δ at the chosen ε for an adversary who knows only π; dotted: the worst case "
            "of differential privacy for the same noise, which does not depend on π. Near "
            "π = 1/2 the other records are most uncertain and δ is far below the worst case; as "
            "π → 0 everyone else is almost surely negative and the two meet (at π = 0 exactly). "
            "The paper's Figures 1 (Gaussian) and 3 (Laplace) use N = 1,000 and ε = 0.01; §5 "
            "quotes δ_DP = 0.38 (ν = 1) and 0.128 (ν = 3) for Gaussian noise."
        ),
        formulas=[
            r"\begin{aligned}\delta_{\mathrm{DP}}^{\mathrm{Gauss}}(\varepsilon) &= "
            r"\Phi\!\Big(\tfrac{1}{2\nu} - \varepsilon\nu\Big)\\ &\quad - e^{\varepsilon}"
            r"\Phi\!\Big(-\tfrac{1}{2\nu} - \varepsilon\nu\Big)\end{aligned}",
            r"\delta_{\mathrm{DP}}^{\mathrm{Lap}}(\varepsilon) = "
            r"1 - e^{(\varepsilon - 1/\nu)/2}\ \ (\varepsilon < 1/\nu)",
        ],
    )
    log_ratio = bound_toggle("Log ratio axis", "sp_ratio_log", default=False)
    ratios = cache.ratio_vs_nu(n, eps, noise, tuple(ratio_pis))
    chart_block(
        *figs.ratio_vs_nu_figure(ratios, noise=noise, n=n, eps=eps, log_y=log_ratio),
        key="sp_ratio_vs_nu",
        explanation=(
            "How many times larger the worst-case δ is than the statistical δ, as the added "
            "noise grows from ν = 1 to 10. Stronger noise drowns the data's own randomness, so "
            "the ratio falls towards 1, but it stays above 1; the more uncertain the records "
            "(π near 1/2), the larger it is (Figures 2 and 4; Figure 6 with N = 100)."
        ),
        formulas=[
            r"\text{ratio} = \delta_{\mathrm{DP}}(\varepsilon) / \delta_{\mathrm{SP}}(\varepsilon)"
        ],
    )
    reproduce(text.pi_snippet(size=n, eps=eps, noise=noise, nus=nus), key="sp_pi")


def equal_utility_view(ctx: StatisticalInputs) -> None:
    """Figures 5, 7, 8: subsampling against noise of the same utility loss."""
    n, pi, eps, lam, m = ctx.n, ctx.pi, ctx.eps, ctx.lam, ctx.m
    e1, e2 = st.columns([3, 1], vertical_alignment="bottom")
    with e1:
        eu_pis = float_list_input(
            "π values for the λ chart",
            "sp_eu_pis",
            default=(0.5, 0.1),
            min_value=1e-4,
            max_value=0.5,
            max_items=3,
        )
    with e2:
        log_y = bound_toggle("Log δ axis", "sp_eu_log", default=False)
    if m >= n:
        st.info(
            "With λ = 1 the whole database is used: subsampling adds no error, so there is no "
            "noise level to match. Lower λ to compare the mechanisms at this point; the λ chart "
            "below sweeps λ anyway."
        )
    else:
        row = pd.Series(cache.equal_utility_point(n, m, pi, eps))
        st.markdown(figs.equal_utility_reading(row, pi=pi, lam=m / n, eps=eps))
        table = figs.equal_utility_table(row, n=n, m=m, eps=eps)
        st.dataframe(
            table,
            hide_index=True,
            column_config={
                c: st.column_config.NumberColumn(format="%.4g") for c in table.columns[2:]
            },
        )
        data = cache.equal_utility_vs_pi(n, m, eps)
        chart_block(
            *figs.equal_utility_pi_figure(data, n=n, m=m, eps=eps, log_y=log_y),
            key="sp_equal_utility_pi",
            explanation=(
                "Each mechanism is tuned to cost the same accuracy: the noise's variance equals "
                "the mean squared error that answering from the sample adds (Lemmas 7–9). "
                "Subsampling and Gaussian noise then give practically the same δ; Laplace noise "
                "gives a larger one (the paper's Figure 5, λ = 0.1)."
            ),
            formulas=[
                r"\mathrm{UL}(\mathrm{SAMP}) = \pi(1-\pi)\Big(\frac1n - \frac1N\Big)",
                r"\Big(\frac{\nu_G}{N}\Big)^2 = \mathrm{UL} = 2\Big(\frac{\nu_L}{N}\Big)^2",
            ],
        )
    reproduce(text.equal_utility_snippet(size=n, pi=pi, eps=eps, lam=lam), key="sp_eu")
    data = cache.equal_utility_vs_lambda(n, eps, tuple(eu_pis))
    if data.empty:
        st.info(
            f"With N = {n} record(s) no sample is smaller than the data set, so there is no "
            "sampling rate λ < 1 to compare. Choose N ≥ 2."
        )
        return
    chart_block(
        *figs.equal_utility_lambda_figure(data, n=n, eps=eps, log_y=log_y),
        key="sp_equal_utility_lambda",
        explanation=(
            "The same comparison across sampling rates, one line style per π: colour is the "
            "mechanism. Smaller samples cost more accuracy, so the matched noise grows and every "
            "δ falls; subsampling and Gaussian noise stay together while Laplace noise stays "
            "above them, relatively more so for small λ (the paper's Figure 8)."
        ),
        formulas=[r"\nu_G = N\sqrt{\pi(1-\pi)(1/n - 1/N)}", r"\nu_L = \nu_G/\sqrt2"],
    )
    data = cache.conjecture_vs_lambda(n, pi, eps)
    chart_block(
        *figs.conjecture_figure(data, n=n, pi=pi, eps=eps),
        key="sp_conjecture",
        explanation=(
            "In differential privacy a mechanism with budget ε_sample on a λ-sample gives the "
            "population ε_target = log(1 + λ(e^ε_sample − 1)) and λδ. The paper conjectures the "
            "same for statistical privacy even though a sample of n records has less randomness "
            "of its own. Here ε_sample is the ε chosen above. Blue: δ of subsampling n of N "
            "records at ε_target; orange: λ times the δ of the n sampled records with no "
            "mechanism at ε_sample. Blue below orange supports the conjecture (the paper's "
            "Figure 7 uses N = 1,000, π = 0.5, ε = 0.1)."
        ),
        formulas=[
            r"\delta_{\mathrm{SAMP}(\lambda), N}(\varepsilon_{\mathrm{target}})"
            r"\ \le\ \lambda\,\delta_{n}(\varepsilon_{\mathrm{sample}})\ ?",
            r"\begin{aligned}&\varepsilon_{\mathrm{target}} = \log\big(1+\lambda("
            r"e^{\varepsilon_{\mathrm{sample}}}-1)\big),\\ "
            r"&\varepsilon_{\mathrm{sample}} = \varepsilon\end{aligned}",
        ],
    )


#: The view of each tab, in the order of :data:`ui.statistical.text.TABS`.
TAB_VIEWS = (curve_view, pi_view, equal_utility_view)
