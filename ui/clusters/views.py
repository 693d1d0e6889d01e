"""Tab views and headline metrics of the Cluster sampling page.

Each view draws one tab from a frozen :class:`ClusterInputs` of the page-level inputs
(the active population among them) instead of reading page globals or session state.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import streamlit as st

from core import amplification as amp
from core import clusters as cl
from core.populations import Population
from ui.charts import chart_block
from ui.clusters import cache, text
from ui.clusters import figures as figs
from ui.format import fmt
from ui.state import POPULATION_KEY
from ui.widgets import log_float_control, log_int_control


@dataclass(frozen=True)
class ClusterInputs:
    """The page-level inputs: the active population, ε_sample, k clusters of which ℓ are
    drawn, the protected person's cluster size M with the spread and the sizes it gives, the
    log-axis toggle, the headline numbers of :func:`ui.clusters.figures.summary` and whether
    the sliders show their exact-value boxes."""

    pop: Population
    eps_sample: float
    k: int
    ell: int
    size: int
    spread: float
    size_min: int
    size_max: int
    log_y: bool
    numbers: dict[str, float]
    exact: bool = True


def target_metrics(
    eps_target: float, k: int, ell: int, size: int, size_min: int, size_max: int
) -> float:
    """Metrics and reading when ε_target is given; returns the ε_sample the charts use.

    That ε_sample is the largest one Theorem 5.2 (Bun et al. §5) guarantees for
    ``eps_target`` when ℓ of k clusters are drawn and the person's cluster holds ``size``
    records, the others between ``size_min`` and ``size_max``.
    """
    safe, unsafe = (
        float(b)
        for b in cl.eps_sample_bounds_for_target(eps_target, k, ell, size, size_min, size_max)
    )
    poisson_sample = float(amp.eps_sample(eps_target, ell / k))
    eps = float(safe)
    t1, t2, t3, t4 = st.columns(4)
    t1.metric("ε_sample allowed, guaranteed (Thm 5.2)", fmt(safe, "guarantee"))
    t2.metric("ε_sample above which Thm 5.1 breaks it", fmt(unsafe, "guarantee"))
    t3.metric("ε_sample, Poisson sampling at ℓ/k (eq. 3)", fmt(poisson_sample, "guarantee"))
    t4.metric("ε_sample without sampling", fmt(eps_target, "guarantee"))
    st.markdown(
        "**Reading.** "
        + text.target_reading(eps_target, safe, unsafe, poisson_sample, k, ell)
        + f" The charts below use ε_sample = {fmt(eps, 'guarantee')}."
    )
    return eps


def sample_metrics(ctx: ClusterInputs) -> None:
    """Metrics and reading when ε_sample is given: the Theorem 5.1/5.2 bounds on ε_target."""
    numbers, eps = ctx.numbers, ctx.eps_sample
    m1, m2, m3, m4 = st.columns(4)
    m1.metric(
        "ε_target lower bound (Thm 5.1)",
        text.metric_value(numbers["lower"], eps),
        help=fmt(numbers["lower"], "guarantee", 6)
        + ("; " + text.NO_AMPLIFICATION if text.vacuous(numbers["lower"], eps) else ""),
    )
    m2.metric(
        "ε_target upper bound (Thm 5.2)",
        text.metric_value(numbers["upper"], eps),
        help=fmt(numbers["upper"], "guarantee", 6)
        + ("; " + text.NO_AMPLIFICATION if text.vacuous(numbers["upper"], eps) else ""),
    )
    m3.metric("Poisson sampling, same fraction (eq. 3)", fmt(numbers["srs"], "guarantee"))
    m4.metric("No sampling (ε_target = ε_sample)", fmt(eps, "guarantee"))
    st.markdown("**Reading.** " + text.reading(numbers, ctx.k, ctx.ell))


def size_view(ctx: ClusterInputs) -> None:
    eps, k, ell, size, spread, log_y = (
        ctx.eps_sample,
        ctx.k,
        ctx.ell,
        ctx.size,
        ctx.spread,
        ctx.log_y,
    )
    fig, data = figs.eps_vs_size_figure(eps, k, ell, spread, size, log_y=log_y)
    chart_block(
        fig,
        data,
        key="cluster_eps_vs_size",
        explanation=(
            "The shaded band lies between the lower bound on ε_target of Theorem 5.1 (some "
            "population and some ε_sample-private mechanism do this badly) and the upper bound "
            "of Theorem 5.2 (no mechanism does worse). With equal clusters (spread 1) the two "
            "coincide and the curve is exact. For clusters of one record the design samples "
            "single records; as clusters grow the curve leaves the dotted line and climbs to "
            "ε_sample — once the person's cluster and another hold together a few times "
            "1/ε_sample records, the sample gives no protection beyond ε_sample itself. "
            + text.SRS_EXPLANATION
        ),
        formulas=[*text.THEOREM_FORMULAS, text.SRS_FORMULA],
        note="M_min and M_max are the smallest and largest of the other clusters; the lower "
        "bound uses M_i + M_min, the upper bound M_i + M_max.",
    )


def fraction_view(ctx: ClusterInputs) -> None:
    eps, k, ell, size, spread, log_y = (
        ctx.eps_sample,
        ctx.k,
        ctx.ell,
        ctx.size,
        ctx.spread,
        ctx.log_y,
    )
    fig, data = figs.eps_vs_fraction_figure(eps, k, size, spread, ell, log_y=log_y)
    chart_block(
        fig,
        data,
        key="cluster_eps_vs_fraction",
        explanation=(
            "Drawing a smaller fraction of the clusters is how one would hope to buy privacy. "
            "For singleton clusters (long dashes) it works almost as well as Poisson "
            "sampling (dotted): ε_target ≈ (ℓ/k)·ε_sample for small ε_sample. Larger clusters "
            "lift the whole curve; once (M_i + M_min)·ε_sample is a few units it hugs "
            "ε_sample until ℓ/k drops below about exp(−(M_i + M_min)·ε_sample). Only below "
            "that does drawing fewer clusters buy privacy."
        ),
        formulas=list(text.THEOREM_FORMULAS),
        note="Every cluster is drawn with probability ℓ/k, so ℓ/k is also the expected "
        "fraction of records in the sample, whatever the sizes.",
    )


def switch_to_establishments() -> None:
    st.session_state[POPULATION_KEY] = "establishments"


def population_view(ctx: ClusterInputs) -> None:
    eps, k, ell, log_y = ctx.eps_sample, ctx.k, ctx.ell, ctx.log_y
    pop = ctx.pop
    sizes = cache.population_cluster_sizes(pop.content_hash, pop)
    if sizes is None:
        st.info(
            f"The active population ({pop.name}) has no cluster column. Choose "
            "**Establishments** (regions as clusters) in the sidebar, or upload a CSV with a "
            "cluster column on the Population page.",
            icon=":material/info:",
        )
        st.button(
            "Use the Establishments population",
            key="cl_use_establishments",
            on_click=switch_to_establishments,
            icon=":material/swap_horiz:",
        )
        return
    n_clusters = int(sizes.sizes.size)
    if n_clusters < 2:
        st.info(
            "The population has a single cluster: drawing it is taking everyone, so nothing "
            "is amplified (ε_target = ε_sample).",
            icon=":material/info:",
        )
        return
    ell_pop = figs.population_sampled(k, ell, n_clusters)
    frame = cache.population_bounds(pop.content_hash, pop, eps, ell_pop)
    st.markdown(
        f"**{pop.name}**: {pop.size:,} records in **{n_clusters:,} clusters** "
        f"(“{pop.cluster_label}”), from {int(frame['size'].min()):,} to "
        f"{int(frame['size'].max()):,} records. The design draws "
        f"{text.fraction_sentence(k, ell, n_clusters, ell_pop)}, ε_sample = "
        f"{fmt(eps, 'guarantee')}."
    )
    note = cache.shared_cluster_note(pop.content_hash, pop)
    if note:
        st.warning(note, icon=":material/warning:")
    worst = frame.iloc[0]
    chart_block(
        *figs.per_cluster_figure(frame, eps, log_y=log_y),
        key="cluster_per_cluster",
        explanation=(
            "Each point is a person in a cluster of that size (clusters of equal size share "
            "a point). Lower and upper bounds use that cluster's size and the smallest and "
            "largest of the other clusters. The squares are the lower bound §6.1 gives for "
            "PPS cluster sampling (§6.2), where a cluster is drawn with probability "
            "proportional to its size: large clusters are drawn more often, so their "
            "members' bound rises above Poisson sampling (dotted) before their size is even "
            f"used against them. The largest cluster here ({worst['cluster']}, "
            f"{int(worst['size']):,} records) leaves "
            f"{text.eps_range(worst['lower'], worst['upper'])}."
        ),
        formulas=[
            *text.THEOREM_FORMULAS,
            r"\text{§6.1: }\varepsilon_{\mathrm{target}} \ge \ln\!\big(1 + a_i\,"
            r"(e^{\varepsilon_{\mathrm{sample}}}-1)\big)",
            r"a_i = \min\!\big(1,\ \ell\,|C_i| / N\big)\ \text{(capped, πps)}",
        ],
    )
    st.dataframe(
        frame.head(500),
        hide_index=True,
        width="stretch",
        height=280,
        column_config={
            c: st.column_config.NumberColumn(format="%.5g")
            for c in ("lower", "upper", "srs", "pps inclusion", "pps lower")
        },
    )
    if n_clusters > 500:
        st.caption(f"The 500 largest of {n_clusters:,} clusters; the CSV download has all.")


def two_stage_view(ctx: ClusterInputs) -> None:
    eps, k, ell, size, spread, log_y = (
        ctx.eps_sample,
        ctx.k,
        ctx.ell,
        ctx.size,
        ctx.spread,
        ctx.log_y,
    )
    st.markdown(
        "Multi-stage designs keep only some records of the drawn clusters. Here each record "
        "of a drawn cluster is kept independently with probability **r** (Poisson sampling). "
        "That inner stage is a secret sample of records, so it amplifies whatever the "
        "cluster sizes."
    )
    r = log_float_control(
        "Within-cluster sampling probability r",
        "cl_r",
        default=0.1,
        min_value=1e-4,
        max_value=1.0,
        help="r = 1 is single-stage cluster sampling.",
        exact=ctx.exact,
    )
    fig, data = figs.two_stage_figure(eps, k, ell, spread, r, size, log_y=log_y)
    chart_block(
        fig,
        data,
        key="cluster_two_stage",
        explanation=(
            "The bound composes the two stages as Bun et al. suggest in §5.2: Poisson "
            "sampling with probability r turns the ε_sample-private mechanism into an "
            "ε_r-private one, ε_r = ln(1 + r(e^ε_sample − 1)) (amplification by Poisson "
            "sampling, Balle, Barthe & Gaboardi 2018), and Theorem 5.2 then applies to cluster "
            "sampling with ε_r in place of ε_sample. Large clusters still erase the cluster "
            "stage, but only down to ε_r ≈ r·ε_sample: the within-cluster stage keeps its "
            "amplification. This is an upper bound; "
            "the paper states no matching lower bound for two-stage designs."
        ),
        formulas=[
            r"\varepsilon_r = \ln\!\big(1 + r\,(e^{\varepsilon_{\mathrm{sample}}}-1)\big)",
            r"\begin{aligned}&\varepsilon_{\mathrm{target}} \le \ln\!\Big(1 + "
            r"\frac{q\,(e^{\varepsilon_r}-1)}{D_r}\Big),\\"
            r"&D_r = q + (1-q)\,e^{-(M_i + M_{\max})\varepsilon_r}\end{aligned}",
        ],
    )


def other_designs_view(ctx: ClusterInputs) -> None:
    eps, log_y = ctx.eps_sample, ctx.log_y
    pop = ctx.pop
    st.markdown(
        "Proposition 6.1 gives a lower bound for **any** design from the inclusion "
        "probabilities: a record included with probability a gives ε_target ≥ "
        "ln(1 + a(e^ε_sample − 1)). "
        "In **PPS sampling** records are drawn with probability proportional to a size "
        "measure, so the largest record caps the amplification (§6.1)."
    )
    if cache.positive_values(pop.content_hash, pop):
        fig, data = figs.pps_figure(eps, pop.values, pop.value_label, log_y=log_y)
        chart_block(
            fig,
            data,
            key="cluster_pps_records",
            explanation=(
                f"PPS sampling of the active population with “{pop.value_label}” as the size "
                "measure: the largest record's inclusion probability, min(1, n·max y/Σy), "
                "sets the bound. Where it is far above the simple-random-sampling line, "
                "PPS gives away most of the amplification; once the largest records are "
                "certainty units (probability 1), they get none."
            ),
            formulas=[
                r"\varepsilon_{\mathrm{target}} \ge \max_i \ln\!\big(1 + a_i\,"
                r"(e^{\varepsilon_{\mathrm{sample}}}-1)\big)",
                r"\max_i a_i = \min\!\Big(1,\ \frac{n \max_j y_j}{\sum_j y_j}\Big)",
            ],
        )
    else:
        st.info(
            f"“{pop.value_label}” has negative values or none above 0, so it cannot serve as "
            "a PPS size measure. Choose another population to see PPS sampling.",
            icon=":material/info:",
        )

    st.markdown(
        "**Systematic sampling** (§6.3) takes every k-th record after a random start. If the "
        "attacker knows the order (say, alphabetical), that is cluster sampling of one of k "
        "“clusters” of about N/k records each — no amplification unless the sample is tiny. "
        "With a random, secret order it is simple random sampling."
    )
    n_pop = pop.size
    if n_pop < 2:
        st.info("Systematic sampling needs at least two records.")
        return
    interval = log_int_control(
        "Sampling interval k (every k-th record)",
        "cl_sys_k",
        default=100,
        min_value=2,
        max_value=1_000_000,
        exact=ctx.exact,
    )
    if interval > n_pop:
        st.warning(
            f"The interval exceeds the population size N = {n_pop:,}; using k = N.",
            icon=":material/warning:",
        )
        interval = n_pop
    fig, data = figs.systematic_figure(eps, n_pop, interval, log_y=log_y)
    chart_block(
        fig,
        data,
        key="cluster_systematic",
        explanation=(
            f"With the active population's N = {n_pop:,} records and an interval of "
            f"{interval:,}, the sample holds about {fmt(n_pop / interval, 'count')} records. Known "
            "order: the bounds of Theorems 5.1–5.2 for k clusters of ⌊N/k⌋ or ⌈N/k⌉ records, "
            "one of them drawn. Secret random order: equation (3) at rate 1/k."
        ),
        formulas=[
            r"\begin{aligned}&\ell = 1,\\ &M_i, M_{\min}, M_{\max} \in \{\lfloor N/k \rfloor, "
            r"\lceil N/k \rceil\}\end{aligned}",
            r"\varepsilon_{\mathrm{target}}^{\text{random order}} = \ln\!\big(1 + "
            r"\tfrac1k(e^{\varepsilon_{\mathrm{sample}}}-1)\big)",
        ],
    )
    lo, up = (float(b) for b in cl.systematic_eps_bounds(eps, n_pop, interval))
    srs_sys = float(cl.srs_eps(eps, interval, 1))
    st.dataframe(
        figs.bounds_table(
            [
                ("systematic, order known to the attacker", lo, up),
                ("systematic, secret random order (eq. 3)", srs_sys, srs_sys),
                ("no sampling", eps, eps),
            ]
        ),
        hide_index=True,
        column_config={
            c: st.column_config.NumberColumn(format="%.5g")
            for c in ("ε_target lower bound", "ε_target upper bound")
        },
    )


def hypothesis_view(ctx: ClusterInputs) -> None:
    eps, k, ell, size, log_y = ctx.eps_sample, ctx.k, ctx.ell, ctx.size, ctx.log_y
    st.markdown(
        "Amplification by sampling rests on **secrecy of the sample**: an outsider does not "
        "know whether a given person was drawn. Cluster sampling gives that secret away when "
        "a private output can tell *which clusters* were drawn (§5.2). Suppose only the "
        f"members of cluster i, {size:,} records, have some property, and the agency "
        f"releases a private count of it (Laplace noise, ε_sample = {fmt(eps, 'guarantee')}). If "
        "the cluster was "
        f"drawn the count is about {size:,}; if not, about 0. A test that says “drawn” when "
        f"the noisy count exceeds {size:,} does so half of the time when the cluster was "
        f"drawn, and with probability {fmt(0.5 * math.exp(-eps * size), 'plain')} when it was not:"
    )
    table = figs.counting_test_table(eps, size)
    st.dataframe(
        table,
        hide_index=True,
        column_config={
            "Pr(count + noise > M)": st.column_config.NumberColumn(format="%.4g"),
        },
    )
    st.markdown(
        f"The ratio of the two probabilities is e^(M·ε_sample) = e^{fmt(eps * size, 'plain')} "
        f"≈ {text.exp_text(eps * size)}: the test's "
        "*sharpness* γ = M·ε_sample (the log of that ratio) grows with the cluster. "
        "Theorem 5.3 turns any such test into a lower bound on the population's guarantee: "
        "when the test is sharp, the person is as exposed as if everyone knew their cluster "
        "was drawn."
    )
    fig, data = figs.hypothesis_figure(eps, k, ell, size, log_y=log_y)
    chart_block(
        fig,
        data,
        key="cluster_hypothesis_test",
        explanation=(
            "For a test with sharpness γ near 0 the bound on ε_target is the Poisson-sampling "
            "value (dotted): nothing about the clusters leaks. As γ grows past ln(k/ℓ), the "
            "bound climbs to ε_sample: once the test is confident, the sampling adds no "
            "privacy. This is why Theorem 5.1's lower bound approaches ε_sample when "
            "(M_i + M_min)·ε_sample is large."
        ),
        formulas=[
            r"\begin{aligned}&\Pr(H = 0 \mid C_i \in S)\\ &\quad\ge e^{\gamma}\,"
            r"\Pr(H = 0 \mid C_i \notin S)\end{aligned}",
            r"\begin{aligned}&\varepsilon_{\mathrm{target}} \ge \ln\!\Big(1 + "
            r"(e^{\varepsilon_{\mathrm{sample}}}-1)\\ &\qquad\cdot\frac{q}{q + "
            r"e^{-\gamma}(1-q)}\Big),\quad q = \ell/k\end{aligned}",
        ],
    )


#: The view of each tab, in the order of :data:`ui.clusters.text.TABS`.
TAB_VIEWS = (
    size_view,
    fraction_view,
    population_view,
    two_stage_view,
    other_designs_view,
    hypothesis_view,
)
