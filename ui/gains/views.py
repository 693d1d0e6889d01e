"""Tab views of the Mean and median gains page.

Each view draws one tab (its own controls, charts, verdict and snippet) from a frozen
:class:`GainsInputs` of the page-level inputs instead of reading page globals.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pandas as pd
import streamlit as st

from core import gains
from core.populations import Population
from core.sensitivity import median_of_sorted
from ui.charts import chart_block, drawn_when_opened, reproduce
from ui.downloads import frame_to_csv_bytes
from ui.format import fmt
from ui.gains import cache, text
from ui.gains import figures as figs
from ui.page_defaults import delta_target_default, follow_population_default
from ui.population.cache import histogram_data
from ui.population.figures import histogram_figure
from ui.state import no_upper_bound_notice
from ui.widgets import bound_toggle, float_list_input, log_float_control

#: Largest population on which the whole-sample simulations of the mean and sensitivity tabs
#: (the eq. (7) check, the Figure 11 sample medians) run without being asked: each of their
#: repetitions draws a sample from all N records, so their cost grows with N (seconds at 10⁶,
#: minutes at 10⁷). Every built-in population at its default size is below it.
AUTO_SIMULATION_MAX_N = 200_000


def simulation_switch(N: int, reps: int, key: str, what: str) -> bool:
    """Whether to run a simulation whose cost grows with N: always on small populations,
    on larger ones only when the URL-bound toggle ``key`` is on (off by default)."""
    if N <= AUTO_SIMULATION_MAX_N:
        return True
    run = bound_toggle(
        f"Run the {what}",
        key,
        default=False,
        help=f"Each of the {reps:,} repetitions draws a sample from all {N:,} records.",
    )
    if not run:
        st.info(
            f"The {what} is not run by default on a population of more than "
            f"{AUTO_SIMULATION_MAX_N:,} records: each of its {reps:,} repetitions draws a "
            f"whole sample from the {N:,} records, which takes minutes at this size. Switch it "
            "on above (or lower the repetitions first).",
            icon=":material/timer:",
        )
    return bool(run)


@dataclass(frozen=True)
class GainsInputs:
    """What every view of the page reads: the active population and its seed."""

    pop: Population
    seed: int


#: Cells of the r heat map along each axis (Hu et al. Figure 5).
HEAT_CELLS = 80


def mean_theory_view(ctx: GainsInputs) -> None:
    """r (eq. 8), its honest frontier, and q (§4.1) with the worked examples."""
    c1, c2 = st.columns(2, gap="large")
    with c1:
        eps_values = float_list_input(
            "ε_target values",
            "gain_eps",
            default=(0.01, 0.1, 0.5, 1.0, 3.0),
            min_value=1e-9,
            max_value=50.0,
        )
    with c2:
        rate_min = log_float_control(
            "Smallest sampling rate n/N shown",
            "gain_rate_min",
            default=1e-4,
            min_value=1e-6,
            max_value=0.5,
            help="The charts of this tab run from this rate to n/N = 1 (the whole population).",
        )
    st.caption(text.theory_population_caption(ctx.pop.name, ctx.pop.size, rate_min))
    rates = np.geomspace(rate_min, 1.0, 300)
    fig, data = figs.r_curves_figure(eps_values, rates)
    chart_block(
        fig,
        data,
        key="r_curves",
        explanation=(
            "r compares the Laplace noise variance of the private population mean with that of "
            "the private sample mean. A gain needs r > 1; but r < 1 for every sample (n < N): "
            "the sample's global sensitivity R/n grows faster than the amplified budget. Small "
            "ε pushes r towards 1 but never past it, and the sampling variance comes on top."
        ),
        formulas=[
            r"r\Big(\varepsilon, \tfrac{n}{N}\Big) = "
            r"\frac{2\,(R/(\varepsilon N))^2}{2\,(R/(\varepsilon_{\mathrm{sample}} n))^2}",
            r"= \Big(\frac{n}{N}\,\frac{\varepsilon_{\mathrm{sample}}}{\varepsilon}\Big)^2 < 1",
            r"\text{with } \varepsilon = \varepsilon_{\mathrm{target}}",
        ],
    )
    with st.expander("Advanced: the tolerance τ of the frontier below"):
        tau = log_float_control(
            "Tolerance τ for “r = 1”",
            "gain_tau",
            default=1e-6,
            min_value=1e-15,
            max_value=0.5,
            fmt="%.1e",
            help="The frontier marks where 1 − r falls below τ.",
        )
        st.caption(text.TAU_CAPTION)
    # Reach down far enough that the whole frontier (≈ τ·n/N for small rates) is on the map.
    # 80 × 80 cells: the frontier is its own line, so the map's colour needs no finer grid,
    # and the browser receives and draws under half of a 120 × 120 map.
    eps_grid = np.geomspace(max(1e-15, tau * 1e-5), 10.0, HEAT_CELLS)
    heat_rates = np.geomspace(rate_min, 1.0, HEAT_CELLS)
    fig, data = figs.r_heatmap_figure(eps_grid, heat_rates, tau)
    chart_block(
        fig,
        data,
        key="r_frontier",
        explanation=(
            "The paper's Figure 5 marks where r = 1. In exact arithmetic that never happens for "
            "n < N, so a computed “r = 1” is a rounding artefact whose position depends on "
            "how the formula was evaluated. Here the frontier is honest: below the dashed line "
            "1 − r ≤ τ (the two noises are within a factor 1 − τ), above it the sample is "
            "clearly noisier. For small ε, 1 − r ≈ ε(N/n − 1), so the line is ε ≈ τ·n/(N − n)."
        ),
        formulas=[
            r"1 - r \le \tau \iff \varepsilon \le \varepsilon_\tau(n/N)",
            r"\varepsilon_\tau(n/N) \approx \tau\,\frac{n/N}{1 - n/N}",
        ],
    )
    fig, data = figs.q_curves_figure(eps_values, rates, 0.6)
    chart_block(
        fig,
        data,
        key="q_curves",
        explanation=(
            "Even with a sensitivity that did not depend on n, a gain needs the sampling "
            "variance below q·V_N. The dots show where q = 0.6: at rate 16.77 % for ε = 3 and "
            "61.40 % for ε = 0.1 (Hu et al. §4.1). For ε below about 0.1, q ≈ 1 − (n/N)² no "
            "longer depends on ε."
        ),
        formulas=[
            r"\mathrm{Var}(g(\mathcal S)) \le q\,V_N",
            r"q = 1 - \frac{\varepsilon^2}{\varepsilon_{\mathrm{sample}}^2}",
        ],
    )
    # A static table: a handful of rows need no data grid, whose code would load with the tab.
    st.table(
        text.worked_examples(eps_values, 0.6).style.format(text.WORKED_FORMATS),
        hide_index=True,
    )
    drawn_when_opened(text.Q_HEATMAP_LABEL, "q_heatmap", q_heatmap_block, icon=":material/grid_on:")
    reproduce(text.theory_snippet(eps_values), key="gain_theory")


def q_heatmap_block() -> None:
    """q over every rate and ε at once (a heat map; drawn when its expander is opened)."""
    fig, data = figs.q_heatmap_figure(np.geomspace(1e-3, 10.0, 100), np.linspace(0.005, 1, 100))
    chart_block(
        fig,
        data,
        key="q_heatmap",
        explanation=(
            "The same bound over all rates and ε at once: bright means the sample may carry "
            "almost the whole V_N as sampling variance; dark means almost none."
        ),
        formulas=[r"q = 1 - \frac{\varepsilon^2}{\log^2\!\big(1 + (e^{\varepsilon}-1)\,N/n\big)}"],
    )


def mean_population_view(ctx: GainsInputs) -> None:
    """V_n against V_N on the active population (eqs. 6–7) and a simulation check."""
    if not ctx.pop.has_upper_bound:  # the mean's sensitivity is R/N = (U − L)/N
        no_upper_bound_notice("This tab")
        return
    pop, seed, N = ctx.pop, ctx.seed, ctx.pop.size
    eps_values = float_list_input(
        "ε_target values",
        "gain_mean_eps",
        default=(0.1, 1.0, 3.0),
        min_value=1e-6,
        max_value=50.0,
    )
    rates = tuple(float(r) for r in np.geomspace(max(2.0 / N, 1e-4), 1.0, 150))
    table = cache.mean_table(pop.content_hash, pop, tuple(eps_values), rates)
    chart_block(
        *figs.mean_variance_figure(table),
        key="mean_variance",
        explanation=(
            f"On {pop.name} (S_N² = "
            f"{fmt(cache.population_variance(pop.content_hash, pop), 'plain')}, R = "
            f"{fmt(pop.upper - pop.lower, 'value')}): each solid line is the variance of the "
            "private "
            "sample mean, sampling part plus Laplace part; the dotted line of the same colour is "
            "the private population mean. Every solid line stays above its dotted line — the "
            "best rate is always 1, the whole population."
        ),
        formulas=[
            r"V_N = 2\Big(\frac{R}{\varepsilon N}\Big)^2",
            r"V_n = \Big(1-\frac{n}{N}\Big)\frac{S_N^2}{n}"
            r" + 2\Big(\frac{R}{\varepsilon_{\mathrm{sample}} n}\Big)^2",
        ],
    )
    st.markdown(
        "**The no-gain condition (§4.1).** Whatever the statistic g, if its sampling variance "
        "is at least 2Δ²(1/ε² − 1/ε_sample²) (Δ the population's global sensitivity), no Laplace "
        "release of a sample can beat the population."
    )
    st.latex(
        r"\begin{aligned}&\mathrm{Var}(g(\mathcal S(Y_N))) \ge 2(\Delta_N^G)^2\Big("
        r"\frac{1}{\varepsilon^2} - \frac{1}{\varepsilon_{\mathrm{sample}}^2}\Big)"
        r"\\ &\implies V_n \ge V_N\end{aligned}"
    )
    with st.expander("Check eq. (7) by simulation", icon=":material/science:"):
        c1, c2 = st.columns(2)
        eps_check = c1.selectbox("ε_target", eps_values, key="gain_check_eps", bind="query-params")
        reps = c2.select_slider(
            "Repetitions",
            [500, 1000, 2000, 5000],
            value=2000,
            key="gain_check_reps",
            bind="query-params",
        )
        sizes = tuple(sorted({max(2, round(N * r)) for r in (0.01, 0.1, 0.5)}))
        if simulation_switch(N, int(reps), "gain_check_run", "simulation check"):
            check = cache.mean_simulation_check(
                pop.content_hash, pop, float(eps_check), sizes, int(reps), seed
            )
            st.dataframe(check, hide_index=True)
            st.caption(
                "The simulated variance of the private sample mean (SRSWOR plus Laplace noise) "
                "should match eq. (7) up to Monte Carlo error of about "
                f"±{fmt(2 / np.sqrt(reps), 'share', 1)}."
            )
    reproduce(text.mean_population_snippet(pop, eps_values), key="gain_population")


def release_violins(
    ctx: GainsInputs, eps_values: tuple[float, ...], reps: int, delta: float
) -> None:
    """Private means and medians, global against smooth sensitivity (Hu et al. Figs. 1–2)."""
    pop, seed = ctx.pop, ctx.seed
    data = cache.release_illustrations(pop.content_hash, pop, eps_values, reps, delta, seed)
    mean = float(pop.values.mean())
    median = median_of_sorted(pop.values)
    fig, _ = figs.release_violin_figure(
        data["means"],
        value="release",
        title="Private means, global sensitivity R/N",
        y_title="released mean",
        truth=mean,
        truth_text=f"true mean {fmt(mean, 'value')}",
    )
    chart_block(
        fig,
        data["means"],
        key="private_means",
        explanation=(
            "The mean's global sensitivity R/N is tiny for a large population, so even ε = 0.1 "
            "gives releases close to the truth (Hu et al. Figure 1)."
        ),
        formulas=[r"\tilde y = \bar y_N + \mathrm{Laplace}\big(0, R/(N\varepsilon)\big)"],
    )
    fig, _ = figs.release_violin_figure(
        data["medians_global"],
        value="release",
        title="Private medians, global sensitivity R",
        y_title="released median",
        truth=median,
        truth_text=f"true median {fmt(median, 'value')}",
    )
    chart_block(
        fig,
        data["medians_global"],
        key="private_medians_global",
        explanation=(
            "The median's global sensitivity is the whole range R: one record can move it from "
            "L to U. Laplace noise of that scale makes the release useless (Figure 2, left)."
        ),
        formulas=[r"\tilde m = m_N + \mathrm{Laplace}(0, R/\varepsilon)"],
    )
    fig, _ = figs.release_violin_figure(
        data["medians_smooth"],
        value="release",
        title="Private medians, smooth sensitivity",
        y_title="released median",
        truth=median,
        truth_text=f"true median {fmt(median, 'value')}",
    )
    chart_block(
        fig,
        data["medians_smooth"],
        key="private_medians_smooth",
        explanation=(
            f"Smooth sensitivity (δ = 1/(2N) = {fmt(delta, 'delta')}) looks at the gaps between "
            "order "
            "statistics around the median, discounted by e^(−kβ) with distance k. Where the "
            "data are dense the noise is a tiny fraction of R (Figure 2, right), at the price "
            "of (ε, δ)- instead of ε-differential privacy."
        ),
        formulas=[
            r"\begin{aligned}S &= \max_{k}\ e^{-k\beta}\,G_k,\\ "
            r"G_k &= \max_{0\le t\le k+1}\big(y_{(m+t)} - y_{(m+t-k-1)}\big)\end{aligned}",
            r"\beta = \frac{\varepsilon}{2\ln(2/\delta)}",
            r"\tilde m = m + \mathrm{Laplace}(0, 2S/\varepsilon)",
        ],
    )


def sample_medians_chart(ctx: GainsInputs, reps: int, median: float) -> None:
    """Unprivatised sample medians for n = 101 and 1,001 (Hu et al. Figure 11)."""
    pop, seed = ctx.pop, ctx.seed
    medians = cache.sample_medians(pop.content_hash, pop, (0.0101, 0.1001), reps, seed)
    medians = medians.assign(eps_target=0.0)
    fig, _ = figs.violin_by_rate_figure(
        medians,
        eps_target=0.0,
        column="sample_median",
        title="Unprivatised sample medians",
        y_title="sample median",
        reference=median,
        reference_text=f"population median {fmt(median, 'value')}",
        title_text="Unprivatised sample medians (Figure 11)",
    )
    chart_block(
        fig,
        medians,
        key="sample_medians",
        explanation=(
            "Where the population has a gap at its median (the bimodal preset), sample medians "
            "land in the dense parts on either side, where the smooth sensitivity is small — "
            "which is why samples can beat the population there."
        ),
    )


def sensitivity_view(ctx: GainsInputs) -> None:
    """Figures 1–2 (global vs smooth sensitivity) and Figure 11 (sample medians)."""
    if not ctx.pop.has_upper_bound:  # both sensitivities pad the data with U
        no_upper_bound_notice("This tab")
        return
    pop, seed, N = ctx.pop, ctx.seed, ctx.pop.size
    c1, c2 = st.columns(2)
    with c1:
        eps_values = float_list_input(
            "ε values", "gain_ill_eps", default=(0.1, 0.5, 1.0), min_value=1e-3, max_value=20.0
        )
    with c2:
        reps = st.select_slider(
            "Repetitions",
            [100, 200, 500, 1000],
            value=1000,
            key="gain_ill_reps",
            bind="query-params",
        )
    delta = 1.0 / (2 * N)
    hist = histogram_data(pop.content_hash, pop, 80, False)
    chart_block(
        *histogram_figure(pop, hist, log_x=False),
        key="population_median",
        explanation=(
            "The active population with its median marked (Hu et al. Figures 1 and 9). The "
            "smooth sensitivity of the median depends on how densely the data sit around the "
            "median: a gap there (the bimodal populations) makes it large."
        ),
        formulas=[r"m_N = y_{(\lceil N/2 \rceil)}"],
    )
    median = median_of_sorted(pop.values)
    release_violins(ctx, tuple(eps_values), int(reps), delta)
    if simulation_switch(N, int(reps), "gain_ill_samples_run", "sample-median simulation"):
        sample_medians_chart(ctx, int(reps), median)
    reproduce(
        text.sensitivity_snippet(pop, eps_values, int(reps), delta, seed), key="gain_sensitivity"
    )


@dataclass(frozen=True)
class ExperimentSettings:
    """The controls of the §4.3 experiment tab (Hu et al.), read once per run."""

    eps_values: tuple[float, ...]
    rates: tuple[float, ...]
    reps: int
    estimator: str
    delta_target: float
    amplify_delta: bool
    mechanism: str = "smooth_laplace"
    quantile: float = 0.5
    measure: str = "mse"


def quantile_control(key: str) -> float:
    """The quantile level q (URL-bound), 0.5 (the median) by default."""
    return float(
        st.number_input(
            "Quantile q (0.5 = median)",
            min_value=0.01,
            max_value=0.99,
            value=0.5,
            step=0.05,
            format="%.2f",
            key=key,
            bind="query-params",
            help=text.QUANTILE_HELP,
        )
    )


def measure_control(key: str) -> str:
    """The error measure (URL-bound): MSE by default."""
    return str(
        st.selectbox(
            "Error measure",
            list(gains.MEASURES),
            format_func=text.MEASURE_LABELS.__getitem__,
            key=key,
            bind="query-params",
            help=text.MEASURE_HELP,
        )
    )


def offered_mechanisms(bounded: bool) -> tuple[str, ...]:
    """The quantile mechanisms a population can run: every one with a public upper bound,
    only those that need none (:data:`core.gains.NO_UPPER_MECHANISMS`) without one."""
    return gains.QUANTILE_MECHANISMS if bounded else gains.NO_UPPER_MECHANISMS


def no_upper_note(bounded: bool) -> None:
    """Say, on a population without a public upper bound, why only some mechanisms run."""
    if not bounded:
        st.info(text.NO_UPPER_NOTE, icon=":material/vertical_align_top:")


def mechanism_controls(bounded: bool = True) -> tuple[str, float, str]:
    """Mechanism, quantile and error measure of the experiment tab (URL-bound); without a
    public upper bound (``bounded`` false) only the mechanisms that need none are offered."""
    no_upper_note(bounded)
    c1, c2, c3 = st.columns([2, 1, 2])
    with c1:
        mechanism = st.selectbox(
            "Mechanism",
            list(offered_mechanisms(bounded)),
            format_func=text.MECHANISM_LABELS.__getitem__,
            key="gain_mechanism",
            bind="query-params",
            help=text.MECHANISM_HELP,
        )
    with c2:
        quantile = quantile_control("gain_quantile")
    with c3:
        measure = measure_control("gain_measure")
    return str(mechanism), quantile, measure


def experiment_controls(N: int, bounded: bool = True) -> ExperimentSettings:
    """Draw the experiment's controls (URL-bound) for a population of ``N`` records, with a
    public upper bound or (``bounded`` false) without one."""
    mechanism, quantile, measure = mechanism_controls(bounded)
    c1, c2, c3 = st.columns([2, 2, 1])
    with c1:
        eps_values = float_list_input(
            "ε_target values",
            "gain_exp_eps",
            default=(0.1, 0.5, 1.0, 3.0),
            min_value=1e-3,
            max_value=20.0,
        )
    with c2:
        rates = float_list_input(
            "Sampling rates n/N",
            "gain_exp_rates",
            default=(0.01, 0.1, 0.3, 0.5, 0.7, 0.9),
            min_value=max(3.0 / N, 1e-6),
            max_value=0.999,
            max_items=12,
        )
    with c3:
        reps = st.select_slider(
            "Repetitions T",
            [50, 100, 200, 500, 1000],
            value=200,
            key="gain_reps",
            bind="query-params",
            help="The paper uses T = 1,000. Fewer repetitions run faster but widen the bands.",
        )
    c4, c5, c6 = st.columns([2, 2, 1])
    with c4:
        estimator = st.radio(
            "Monte Carlo estimator",
            ["exact_noise_variance", "drawn_noise"],
            format_func=lambda s: {
                "exact_noise_variance": "exact noise variance 8S²/ε² (less Monte Carlo error)",
                "drawn_noise": "drawn Laplace noise (plain Monte Carlo)",
            }[s],
            key="gain_estimator",
            bind="query-params",
        )
    with c5:
        delta_default = delta_target_default(N)
        follow_population_default("gain_delta", delta_default)
        delta_target = log_float_control(
            "δ_target",
            "gain_delta",
            default=delta_default,
            min_value=1e-12,
            max_value=0.1,
            fmt="%.3e",
            help=text.delta_help(N, delta_default),
        )
    with c6:
        amplify_delta = st.toggle(
            "δ_sample = δ/rate",
            value=True,
            key="gain_amp_delta",
            bind="query-params",
            help="Off: the sample keeps δ_target (only ε is amplified).",
        )
    return ExperimentSettings(
        eps_values=tuple(eps_values),
        rates=tuple(rates),
        reps=int(reps),
        estimator=str(estimator),
        delta_target=float(delta_target),
        amplify_delta=bool(amplify_delta),
        mechanism=mechanism,
        quantile=quantile,
        measure=measure,
    )


def run_experiment(ctx: GainsInputs, settings: ExperimentSettings) -> gains.MedianExperiment:
    """Warn about a vacuous δ_sample, then run the cached experiment with a progress bar."""
    pop, seed = ctx.pop, ctx.seed
    eps_values, rates, reps = settings.eps_values, settings.rates, settings.reps
    delta_target, amplify_delta = settings.delta_target, settings.amplify_delta
    estimator = settings.estimator
    vacuous = text.vacuous_delta_warning(float(delta_target), rates, bool(amplify_delta))
    if vacuous:
        st.warning(vacuous, icon=":material/warning:")
    bar = st.progress(0.0, text="Simulating…")

    def progress(fraction: float, message: str) -> None:
        bar.progress(min(max(fraction, 0.0), 1.0), text=f"Simulating: {message}")

    result = cache.median_experiment(
        pop,
        eps_targets=tuple(eps_values),
        rates=tuple(rates),
        reps=int(reps),
        delta_target=float(delta_target),
        seed=seed,
        amplify_delta=bool(amplify_delta),
        # None: the exact noise variance where the mechanism states one, drawn releases
        # otherwise (the exponential mechanism); result.estimator says which was used.
        estimator=None if estimator == "exact_noise_variance" else "drawn_noise",
        progress=progress,
        mechanism=settings.mechanism,
        quantile=settings.quantile,
    )
    bar.empty()
    return result


def experiment_verdict_section(
    ctx: GainsInputs, settings: ExperimentSettings, result: gains.MedianExperiment
) -> None:
    """The verdict per ε_target, the log-error chart (Figures 7, 8, 13) and the best-rate table."""
    pop, seed = ctx.pop, ctx.seed
    eps_values, reps, measure = settings.eps_values, settings.reps, settings.measure
    summary = result.summary
    st.subheader("Verdict")
    for e in eps_values:
        st.markdown(f"- {text.experiment_verdict(summary, e, measure)}")
    st.caption(
        f"{pop.name}; T = {reps:,} repetitions, seed {seed}; "
        + text.estimator_words(result.mechanism, settings.estimator, result.estimator)
        + " Around ε = 0.5–1 the verdict depends on the drawn population (its density at the "
        "median): change the seed in the sidebar to see how much."
    )
    chart_block(
        *figs.log_mse_figure(summary, measure=measure, quantile=settings.quantile),
        key="median_log_mse",
        explanation=text.log_error_text(measure, settings.quantile),
        formulas=text.error_formulas(measure, result.mechanism, result.estimator),
    )
    table = figs.best_rate_table(summary, measure)
    st.dataframe(
        table,
        hide_index=True,
        column_config={
            col: st.column_config.NumberColumn(format="percent")
            for col in table.columns
            if col.endswith("change vs population")
        }
        | {"best sampling rate": st.column_config.NumberColumn(format="%.3g")},
    )


def experiment_violins(
    per_rep: pd.DataFrame,
    eps_values: tuple[float, ...],
    mechanism: str = "smooth_laplace",
    quantile: float = 0.5,
) -> None:
    """Sensitivity-ratio and noise violins for one ε_target, and the per-repetition CSV."""
    st.subheader("Why: sensitivity and noise per design")
    eps_pick = st.selectbox(
        "ε_target for the violins", eps_values, key="gain_violin_eps", bind="query-params"
    )
    if mechanism in text.SMOOTH_MECHANISMS:
        sensitivity_violin(per_rep, float(eps_pick))
    else:
        st.caption(text.no_sensitivity_violin(mechanism))
    fig, _ = figs.violin_by_rate_figure(
        per_rep,
        eps_target=float(eps_pick),
        column="noise",
        title=text.noise_violin_title(mechanism, quantile),
        y_title="noise added",
        reference=0.0,
    )
    chart_block(
        fig,
        per_rep,
        key="noise_added",
        explanation=text.NOISE_VIOLIN_TEXT,
        formulas=text.noise_formulas(mechanism),
    )
    st.download_button(
        "Download all repetitions (CSV)",
        data=lambda: frame_to_csv_bytes(per_rep),
        file_name="median_experiment_repetitions.csv",
        mime="text/csv",
        on_click="ignore",
        icon=":material/table:",
        key="csv_per_rep",
    )


def sensitivity_violin(per_rep: pd.DataFrame, eps_target: float) -> None:
    """Violins of S_n / S_N per rate (Hu et al. Figures 6 and 10)."""
    fig, _ = figs.violin_by_rate_figure(
        per_rep[per_rep["rate"] < 1],
        eps_target=eps_target,
        column="sensitivity_ratio",
        title="Smooth sensitivity of the sample ÷ that of the population",
        y_title="S_n / S_N",
        log_y=True,
        reference=1.0,
        reference_text="equal sensitivity",
    )
    chart_block(
        fig,
        per_rep,
        key="sensitivity_ratio",
        explanation=(
            "Above 1, the sample's median is more sensitive than the population's and eats into "
            "the amplified budget. The paper reports median ratios of 1.28 (n = 1,001) and 3.72 "
            "(n = 101) at ε = 0.1 on Lognormal(5, 0.5) — Figures 6 and 10."
        ),
        formulas=[r"\beta_n = \varepsilon_{\mathrm{sample}} / (2\ln(2/\delta_n))"],
    )


def experiment_view(ctx: GainsInputs) -> None:
    """The §4.3 simulation: log(MSE) against the rate, verdict, and the violins."""
    settings = experiment_controls(ctx.pop.size, ctx.pop.has_upper_bound)
    if not gains.measure_exists(settings.mechanism, settings.measure):
        st.info(
            f"{text.missing_measure_note([settings.mechanism], settings.measure)} The chart and "
            "the verdicts below use the 95 % error bound instead.",
            icon=":material/info:",
        )
        settings = replace(settings, measure="error_95")
    result = run_experiment(ctx, settings)
    experiment_verdict_section(ctx, settings, result)
    experiment_violins(result.per_rep, settings.eps_values, result.mechanism, settings.quantile)
    reproduce(
        text.experiment_snippet(
            ctx.pop,
            eps_values=list(settings.eps_values),
            rates=list(settings.rates),
            reps=settings.reps,
            delta_target=settings.delta_target,
            seed=ctx.seed,
            amplify_delta=settings.amplify_delta,
            estimator=result.estimator,
            mechanism=settings.mechanism,
            quantile=settings.quantile,
            measure=settings.measure,
        ),
        key="gain_experiment",
    )


@dataclass(frozen=True)
class ComparisonSettings:
    """The controls of the mechanism comparison tab, read once per run."""

    eps_target: float
    rates: tuple[float, ...]
    reps: int
    quantile: float
    measure: str
    delta_target: float
    mechanisms: tuple[str, ...] = gains.QUANTILE_MECHANISMS


def comparison_mechanisms_control(bounded: bool = True) -> tuple[str, ...]:
    """The mechanisms compared (URL-bound multiselect), every quantile mechanism by default
    (only those that need no upper bound when ``bounded`` is false); each is described in
    one line under it."""
    no_upper_note(bounded)
    offered = offered_mechanisms(bounded)
    chosen = st.multiselect(
        "Mechanisms compared",
        list(offered),
        default=list(offered),
        format_func=text.MECHANISM_SHORT.__getitem__,
        key="gain_cmp_mechs",
        bind="query-params",
        help=text.MECHANISM_HELP,
    )
    if not chosen:
        st.info("No mechanism is chosen; comparing every one.", icon=":material/info:")
        return offered
    return tuple(m for m in offered if m in chosen)


def comparison_controls(N: int, bounded: bool = True) -> ComparisonSettings:
    """Draw the comparison's controls (URL-bound) for a population of ``N`` records, with a
    public upper bound or (``bounded`` false) without one."""
    c1, c2, c3 = st.columns([1, 2, 1])
    with c1:
        eps_target = st.number_input(
            "ε_target",
            min_value=1e-3,
            max_value=20.0,
            value=0.5,
            step=0.1,
            format="%.3g",
            key="gain_cmp_eps",
            bind="query-params",
            help="The guarantee every release meets for the population; the samples spend "
            "the larger ε_sample that amplification allows.",
        )
    with c2:
        rates = float_list_input(
            "Sampling rates n/N",
            "gain_cmp_rates",
            default=(0.01, 0.1, 0.3, 0.5, 0.7, 0.9),
            min_value=max(3.0 / N, 1e-6),
            max_value=0.999,
            max_items=12,
        )
    with c3:
        reps = st.select_slider(
            "Repetitions T",
            [50, 100, 200, 500, 1000],
            value=200,
            key="gain_cmp_reps",
            bind="query-params",
            help="Every mechanism sees the same T samples per rate.",
        )
    c4, c5 = st.columns(2)
    with c4:
        quantile = quantile_control("gain_cmp_quantile")
    with c5:
        measure = measure_control("gain_cmp_measure")
    mechanisms = comparison_mechanisms_control(bounded)
    return ComparisonSettings(
        float(eps_target),
        tuple(rates),
        int(reps),
        quantile,
        measure,
        delta_target_default(N),
        mechanisms,
    )


def compared_mechanisms(settings: ComparisonSettings) -> tuple[tuple[str, ...] | None, str]:
    """The mechanisms to run (None: the default set) and the measure, with a note on screen
    for every chosen mechanism whose measure does not exist (the unbounded quantile's MSE)."""
    measure = settings.measure
    left_out = [m for m in settings.mechanisms if not gains.measure_exists(m, measure)]
    run = tuple(m for m in settings.mechanisms if gains.measure_exists(m, measure))
    if not run:
        st.warning(
            f"{text.missing_measure_note(left_out, measure)} Showing the 95 % error bound instead.",
            icon=":material/warning:",
        )
        measure, run = "error_95", settings.mechanisms
    elif left_out:
        st.info(text.missing_measure_note(left_out, measure), icon=":material/info:")
    default = gains.mechanisms_with_measure(measure)
    return (None if run == default else run), measure


def comparison_view(ctx: GainsInputs) -> None:
    """Every quantile mechanism against the rate at one ε_target, with the best marked."""
    pop, seed = ctx.pop, ctx.seed
    settings = comparison_controls(pop.size, pop.has_upper_bound)
    bar = st.progress(0.0, text="Simulating…")

    def progress(fraction: float, message: str) -> None:
        bar.progress(min(max(fraction, 0.0), 1.0), text=f"Simulating: {message}")

    mechanisms, measure = compared_mechanisms(settings)
    result = cache.mechanism_comparison(
        pop,
        eps_target=settings.eps_target,
        rates=settings.rates,
        reps=settings.reps,
        delta_target=settings.delta_target,
        seed=seed,
        quantile=settings.quantile,
        measure=measure,
        progress=progress,
        mechanisms=mechanisms,
    )
    bar.empty()
    st.subheader("Verdict")
    st.markdown(text.comparison_verdict(result))
    value, tied = gains.tied_at_quantile(pop.values, settings.quantile)
    ties = text.ties_note(result, value, tied, pop.size, settings.quantile)
    if ties is not None:
        st.info(ties, icon=":material/stacks:")
    st.caption(text.comparison_caption(pop.name, settings.reps, seed, settings.delta_target))
    hidden = text.INFINITE_VARIANCE if measure == "mse" else frozenset()
    fig, data = figs.comparison_figure(
        result.table,
        labels=text.MECHANISM_SHORT,
        measure_label=text.MEASURE_WORDS[measure],
        hidden=hidden,
    )
    chart_block(
        fig,
        data,
        key="mechanism_comparison",
        explanation=text.COMPARISON_TEXT,
        formulas=text.error_formulas(measure, "", "exact_noise_variance"),
        note=text.no_mse_note(hidden & set(result.table["mechanism"])),
    )
    st.markdown(
        "\n".join(
            f"- **{text.MECHANISM_SHORT[m].capitalize()}**: {text.MECHANISM_LINES[m]}"
            for m in settings.mechanisms
        )
    )
    with st.expander("How each mechanism releases a quantile, and what it guarantees"):
        for name, (words, formulas) in text.MECHANISM_EXPLANATIONS.items():
            st.markdown(f"**{text.MECHANISM_LABELS[name]}.** {words}")
            for formula in formulas:
                st.latex(formula)
    reproduce(
        text.comparison_snippet(
            pop,
            eps_target=settings.eps_target,
            rates=settings.rates,
            reps=settings.reps,
            delta_target=settings.delta_target,
            seed=seed,
            quantile=settings.quantile,
            measure=measure,
            mechanisms=mechanisms,
        ),
        key="gain_comparison",
    )


#: The view of each tab, in the order of :data:`ui.gains.text.TABS`.
TAB_VIEWS = (
    mean_theory_view,
    mean_population_view,
    sensitivity_view,
    experiment_view,
    comparison_view,
)
