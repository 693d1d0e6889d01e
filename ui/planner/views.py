"""Tab views of the Release planner page.

Each view draws one tab from a frozen :class:`PlannerInputs` of the page-level inputs
instead of reading page globals.
"""

from __future__ import annotations

import contextvars
import hashlib
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from core import planner, risk
from core.planner.usability import DEFAULT_USABLE_SHARE
from core.populations import Population
from core.resolution import shown_bound
from ui.charts import chart_block, reproduce
from ui.downloads import frame_to_csv_bytes
from ui.format import fmt
from ui.planner import cache, controls, exports, text
from ui.planner import figures as figs
from ui.planner.publication import publication_view
from ui.state import UPLOADED, active_choice
from ui.widgets import reproducing_link, result_container

#: Repetitions per plan in the accuracy-first search (it runs several plans in a row).
SEARCH_MAX_REPS = 200

#: Smallest population the planner accepts (fewer records leave no room for a sample).
MIN_POPULATION = 20


@dataclass(frozen=True)
class PlannerInputs:
    """The page-level inputs.

    Attributes
    ----------
    pop, seed
        The active population and the global seed.
    statistic
        ``"median"``, ``"quantile"`` or ``"mean"``.
    eps_target, delta_target
        The guarantee promised for the population.
    relation
        ``"replacement"`` (change one record) or ``"deletion"`` (add or remove one record).
    designs
        The designs to plan: chosen by the user and available for the population.
    rates
        The sampling rates to evaluate, or None for the planner's default rates.
    reps
        Monte Carlo repetitions T.
    objective
        ``"error_95"`` or ``"rmse"``: what the best rate minimises.
    statuses
        Every design's status on the population (available or not, with its reason).
    quantile
        The level q of ``statistic="quantile"`` (the order statistic of rank ⌈qN⌉); 0.5
        otherwise.
    mechanisms
        The mechanisms to compare, or None for every one fitting the statistic.
    usable_share
        A 95 % bound above this share of the population value (of the declared range when
        the value is 0) makes a plan too noisy (:func:`core.planner.usability.is_usable`).
    sizes_public
        The population size N (and the publication cells' sizes N_c) is declared public
        (:func:`core.planner.plan`'s ``sizes_public``).
    rho_target
        The promise stated as ρ-zCDP (None for a pure ε promise); ``eps_target`` is then
        its sharp conversion (:func:`core.accounting.zcdp.eps_target_for_rho`).
    """

    pop: Population
    seed: int
    statistic: str
    eps_target: float
    delta_target: float
    relation: str
    designs: tuple[str, ...]
    rates: tuple[float, ...] | None
    reps: int
    objective: str
    statuses: tuple[planner.DesignStatus, ...]
    quantile: float = 0.5
    mechanisms: tuple[str, ...] | None = None
    usable_share: float = DEFAULT_USABLE_SHARE
    sizes_public: bool = False
    rho_target: float | None = None

    @property
    def promise(self) -> str:
        """``"zcdp"`` for a promise stated as ρ-zCDP, ``"eps"`` for a pure ε promise."""
        return "eps" if self.rho_target is None else "zcdp"


def chosen_designs(
    chosen: list[str] | tuple[str, ...], statuses: tuple[planner.DesignStatus, ...]
) -> tuple[str, ...]:
    """The chosen designs the population supports; every supported one (with a warning)
    if none is chosen or none of the chosen is available."""
    available = [s.name for s in statuses if s.available and s.name in text.PICKABLE_DESIGNS]
    picked = tuple(d for d in chosen if d in available)
    if picked:
        return picked
    if not chosen:
        st.warning(
            "No design is chosen; comparing every design this population supports.",
            icon=":material/warning:",
        )
    else:
        st.warning(
            "None of the chosen designs is available for this population; comparing every "
            "design it supports.",
            icon=":material/warning:",
        )
    return tuple(available)


def fitting(
    design: str,
    statistic: str,
    relation: str,
    mechanisms: tuple[str, ...] | None,
    bounded: bool = True,
    sizes_public: bool = False,
) -> bool:
    """Whether some chosen mechanism (the default ones, for None) holds its guarantee for
    ``design`` (``bounded``: the population has a public upper bound; ``sizes_public``: N is
    declared public)."""
    fit = planner.mechanisms_for(
        statistic, design, relation, bounded=bounded, sizes_public=sizes_public
    )
    asked = (
        planner.default_mechanisms(
            statistic, bounded=bounded, relation=relation, sizes_public=sizes_public
        )
        if mechanisms is None
        else mechanisms
    )
    return any(m in asked for m in fit)


def usable_mechanisms(
    mechanisms: tuple[str, ...] | None,
    statistic: str,
    relation: str,
    designs: tuple[str, ...],
    sizes_public: bool = False,
    rho_target: float | None = None,
) -> tuple[str, ...] | None:
    """The chosen mechanisms if one of them fits a planned design (the census included),
    else None (the default mechanisms) with a note on the page.  Under a ρ-zCDP promise
    (``rho_target`` given) a choice of (ε, δ) mechanisms only is not planned either."""
    if mechanisms is None:
        return None
    promise = "eps" if rho_target is None else "zcdp"
    if not any(not planner.promise_refusal(m, promise) for m in mechanisms):
        st.info(
            "The chosen mechanisms are (ε, δ) mechanisms, which imply no ρ-zCDP bound; "
            "comparing the default pure mechanisms under the ρ-zCDP promise.",
            icon=":material/info:",
        )
        return None
    if any(
        fitting(d, statistic, relation, mechanisms, sizes_public=sizes_public)
        for d in ("census", *designs)
    ):
        return mechanisms
    st.info(
        "None of the chosen mechanisms fits the chosen designs when neighbouring populations "
        f"differ by {text.RELATION_LABELS.get(relation, relation)}; comparing the default "
        "mechanisms.",
        icon=":material/info:",
    )
    return None


def inputs_key(ctx: PlannerInputs) -> str:
    """A short digest of everything the comparison depends on (the population by its hash).

    The live rows and the final view are drawn into containers keyed by it, so what a run
    shows always belongs to that run's inputs.
    """
    parts = (
        ctx.pop.content_hash,
        ctx.seed,
        ctx.statistic,
        ctx.eps_target,
        ctx.delta_target,
        ctx.relation,
        ctx.designs,
        ctx.rates,
        ctx.reps,
        ctx.objective,
        ctx.quantile,
        ctx.mechanisms,
        ctx.sizes_public,
        ctx.rho_target,
    )
    return digest(*parts)


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
                text.partial_list(
                    progress.table,
                    self.objective,
                    self.resolution,
                    progress.done,
                    progress.total,
                )
            )


class StepBar:
    """A progress bar drawn into one slot while a cached search runs (as :class:`LiveRows`).

    ``words(progress)`` gives the bar's fraction and words for each core report (``start``
    is shown for None, as the computation starts).  Each report replaces the slot's
    content with a container keyed by ``key`` (a digest of the inputs) and a counter, so
    nothing of an earlier run's view stays beside it; it is drawn in the context captured
    before the cached call (see :class:`LiveRows`).
    """

    def __init__(
        self, slot: Any, key: str, start: str, words: Callable[[Any], tuple[float, str]]
    ) -> None:
        self.slot = slot
        self.key = key
        self.start = start
        self.words = words
        self.count = 0
        self.outside = contextvars.copy_context()

    def report(self, progress: Any) -> None:
        """Show one progress report (None: the computation starts)."""
        self.outside.run(self._draw, progress)

    def _draw(self, progress: Any) -> None:
        self.count += 1
        fraction, words = (0.0, self.start) if progress is None else self.words(progress)
        with self.slot.container(key=f"{self.key}_{self.count}"):
            st.progress(fraction, text=words)


def digest(*parts: object) -> str:
    """A short digest of ``parts`` (a tab's inputs), for the keys of its containers."""
    return hashlib.sha256(repr(parts).encode("utf-8")).hexdigest()[:12]


def run_plan(
    ctx: PlannerInputs, progress: cache.ProgressCallback | None = None
) -> planner.PlanResult:
    """The cached comparison for the page's inputs (``progress`` hears a cache miss only)."""
    pop = ctx.pop
    return cache.plan(
        pop.content_hash,
        pop,
        statistic=ctx.statistic,
        eps_target=ctx.eps_target,
        delta_target=ctx.delta_target,
        designs=ctx.designs,
        rates=ctx.rates,
        reps=ctx.reps,
        seed=ctx.seed,
        relation=ctx.relation,
        objective=ctx.objective,
        quantile=ctx.quantile,
        mechanisms=ctx.mechanisms,
        rho_target=ctx.rho_target,
        sizes_public=ctx.sizes_public,
        _progress=progress,
    )


def design_list(ctx: PlannerInputs) -> None:
    """Every design: its theorem, or the plain-words reason it is not planned; whether the
    population size is public, and the mechanisms that leaves out."""
    lines = [text.status_line(s) for s in ctx.statuses]
    with st.expander("The designs, their theorems and what is missing", expanded=True):
        st.markdown("\n".join(f"- {line}" for line in lines))
        st.markdown(f"**Sizes.** {text.sizes_words(ctx.relation, ctx.sizes_public)}")
        refused = planner.size_refusals(
            ctx.statistic, ctx.relation, ctx.sizes_public, bounded=ctx.pop.has_upper_bound
        )
        if refused:
            st.markdown(text.refusal_lines(refused))
        st.markdown(f"**Promise.** {text.promise_words(ctx.eps_target, ctx.rho_target)}")
        left_out = planner.promise_refusals(
            ctx.statistic, ctx.promise, bounded=ctx.pop.has_upper_bound
        )
        if left_out:
            st.markdown(text.refusal_lines(left_out, "planned"))


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
    recommendation = text.recommendation(result, clusters=k, resolution=step)
    too_noisy = text.too_noisy_reason(result, pop.lower, pop.upper, ctx.usable_share)
    if too_noisy is None:
        st.success(recommendation, icon=":material/recommend:")
    else:
        st.warning(f"{too_noisy}\n\n{recommendation}", icon=":material/warning:")
    chosen = result.recommended
    heavy = text.heavy_tail_note(float(chosen["rmse"]), float(chosen["error_95"]))
    if heavy is not None:
        st.info(heavy, icon=":material/info:")
    st.caption(text.population_value_line(result))
    odds_block(ctx, result)
    design_list(ctx)
    for design in ctx.designs:
        if design != "census" and not (result.table["design"] == design).any():
            bounded = pop.has_upper_bound
            if not fitting(
                design, ctx.statistic, ctx.relation, ctx.mechanisms, bounded, ctx.sizes_public
            ):
                st.info(text.no_mechanism_note(design, ctx.relation))
            else:
                st.info(text.no_rows_note(design, cache.smallest_stratum(pop.content_hash, pop)))
    st.markdown("**Best rate of each design and mechanism, ranked**")
    ranked = figs.ranked_table(result)
    usable = text.usable_rows(
        ranked, result.population_value, pop.lower, pop.upper, ctx.usable_share
    )
    st.markdown(text.ranked_list(ranked, step, usable))
    table = figs.full_table(result, usable_share=ctx.usable_share, lower=pop.lower, upper=pop.upper)
    left, right = st.columns(2)
    left.download_button(
        "Download the full table (CSV)",
        data=lambda: frame_to_csv_bytes(table),
        file_name="release_plan.csv",
        mime="text/csv",
        key="plan_table_csv",
        on_click="ignore",
        icon=":material/table:",
        help="Every evaluated design, mechanism and rate, with Monte Carlo standard errors; "
        "`recommended` marks the plan recommended above, `usable` the plans whose 95 % bound "
        "is within the usable error you set.",
    )
    right.download_button(
        "What its columns mean (CSV)",
        data=lambda: frame_to_csv_bytes(exports.columns_frame()),
        file_name="release_plan_columns.csv",
        mime="text/csv",
        key="plan_table_columns",
        on_click="ignore",
        icon=":material/help:",
        help="One row per column of release_plan.csv: its name and what it holds.",
    )
    lines = controls.chart_lines_control(ctx.statistic, ctx.mechanisms, pop.has_upper_bound)
    fig, data = figs.objective_figure(result, lines=lines, resolution=step)
    chart_block(
        fig,
        data,
        key="planner_compare",
        explanation=text.COMPARE_EXPLANATION,
        formulas=text.COMPARE_FORMULAS,
        note=figs.exact_note(result, lines=lines, resolution=step),
    )
    export_buttons(ctx, result, fig, recommendation, too_noisy=too_noisy, resolution=step)
    with st.expander("How the planner computes", icon=":material/function:"):
        st.markdown(text.FORMULAS_EXPLANATION)
        for formula in text.AMPLIFICATION_FORMULAS:
            st.latex(formula)
    reproduce(
        text.python_snippet(
            pop,
            statistic=ctx.statistic,
            eps_target=ctx.eps_target,
            delta_target=ctx.delta_target,
            designs=ctx.designs,
            rates=ctx.rates,
            reps=ctx.reps,
            seed=ctx.seed,
            relation=ctx.relation,
            objective=ctx.objective,
            quantile=ctx.quantile,
            mechanisms=ctx.mechanisms,
            sizes_public=ctx.sizes_public,
            rho_target=ctx.rho_target,
        )
    )


def odds_block(ctx: PlannerInputs, result: planner.PlanResult) -> None:
    """The recommended design's ε_sample and the ε_target, read as an attacker's odds."""
    left, right = st.columns([1, 2], gap="medium", vertical_alignment="center")
    with left:
        prior = controls.prior_control()
    best = result.recommended
    with right:
        st.info(
            text.odds_text(
                prior,
                ctx.eps_target,
                float(risk.posterior_bound(ctx.eps_target, prior, ctx.delta_target)),
                best,
                float(risk.posterior_bound(float(best["eps_sample"]), prior)),
                ctx.delta_target,
            ),
            icon=":material/casino:",
        )


def page_link() -> str | None:
    """A link that reproduces this plan: the page's address with every control drawn so far,
    defaults included (:func:`ui.widgets.reproducing_link`); None without a browser address."""
    return reproducing_link(st.context.url)


def notebook_bytes(ctx: PlannerInputs) -> bytes:
    """The reproducing notebook (:func:`ui.planner.exports.plan_notebook`) of the page's plan."""
    return exports.plan_notebook(
        recipe=ctx.pop.recipe,
        statistic=ctx.statistic,
        eps_target=ctx.eps_target,
        delta_target=ctx.delta_target,
        designs=ctx.designs,
        rates=ctx.rates,
        reps=ctx.reps,
        seed=ctx.seed,
        relation=ctx.relation,
        objective=ctx.objective,
        quantile=ctx.quantile,
        mechanisms=ctx.mechanisms,
        sizes_public=ctx.sizes_public,
        usable_share=ctx.usable_share,
        rho_target=ctx.rho_target,
    ).encode("utf-8")


def report_bytes(
    result: planner.PlanResult,
    fig: go.Figure,
    recommendation: str,
    population_label: str,
    link: str | None,
    population: Population | None = None,
    uploaded: bool = False,
    *,
    too_noisy: str | None = None,
    resolution: float | None = None,
) -> bytes:
    """The HTML method report (:func:`ui.planner.exports.method_report`) of the page's plan:
    a plan too noisy to use (``too_noisy``) is flagged, never in the green box."""
    return exports.method_report(
        result,
        fig,
        recommendation,
        population_label,
        link,
        population,
        uploaded,
        too_noisy=too_noisy,
        resolution=resolution,
    ).encode("utf-8")


def export_buttons(
    ctx: PlannerInputs,
    result: planner.PlanResult,
    fig: go.Figure,
    recommendation: str,
    *,
    too_noisy: str | None = None,
    resolution: float | None = None,
) -> None:
    """Downloads of the reproducing notebook (when the population has a recipe) and of the
    one-page HTML method report (both built only when clicked), and the link to this plan
    that the report carries (:func:`page_link`). A plan too noisy to use (``too_noisy``,
    the page's warning) is flagged in the report and the notebook as on the page."""
    pop = ctx.pop
    c1, c2 = st.columns(2)
    if pop.recipe:
        c1.download_button(
            "Download notebook (.ipynb)",
            data=lambda: notebook_bytes(ctx),
            file_name="release_plan.ipynb",
            mime="application/x-ipynb+json",
            key="plan_notebook",
            on_click="ignore",
            icon=":material/code_blocks:",
            help="A Jupyter notebook that rebuilds this population and calls core.planner "
            "with these parameters.",
        )
    else:
        c1.caption(
            "No notebook for this population: it was built in code, so a notebook could "
            "not rebuild it."
        )
    link = page_link()
    uploaded = active_choice() == UPLOADED
    c2.download_button(
        "Download method report (HTML)",
        data=lambda: report_bytes(
            result,
            fig,
            recommendation,
            pop.name,
            link,
            pop,
            uploaded,
            too_noisy=too_noisy,
            resolution=resolution,
        ),
        file_name="release_plan_report.html",
        mime="text/html",
        key="plan_report",
        on_click="ignore",
        icon=":material/description:",
        help="One page for a disclosure review board: parameters, designs and their "
        "theorems, the chart, the table, the recommendation and the seed.",
    )
    if link:
        with st.expander("Link to this plan", icon=":material/link:"):
            st.code(link, language=None, wrap_lines=True)
            st.caption(text.PLAN_LINK_NOTE)


def default_target(pop: Population) -> tuple[float, str]:
    """Default 95 % error bound and how it was chosen: 5 % of the population's
    interquartile range (or of R), rounded up to a short number no finer than the step in
    which the values are recorded (:func:`core.resolution.shown_bound`): ±0.9 on whole
    micrograms would ask for a precision the data cannot show."""
    iqr = cache.interquartile_range(pop.content_hash, pop)
    spread = iqr if iqr > 0 else float(pop.upper - pop.lower)
    share = text.TARGET_IQR_SHARE * spread
    heuristic = share if spread > 0 and math.isfinite(share) else 1.0
    step = cache.resolution(pop.content_hash, pop)
    target = shown_bound(heuristic, step)
    return target, text.default_target_reason(target, heuristic, step)


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
        text.SEARCH_STARTS,
        lambda progress: text.search_progress(progress, target),
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
    answer = text.accuracy_answer(target, found.eps_target, found.feasible, best, found.eps_limit)
    if found.feasible and found.rho_target is not None:
        answer += " " + text.accuracy_rho_words(found.rho_target)
    if found.feasible and found.plan is not None:
        # A bound the user asks for can itself be useless: the same rule as the verdict of
        # the comparison tab decides between a green answer and a warning.
        too_noisy = text.too_noisy_reason(
            found.plan, pop.lower, pop.upper, ctx.usable_share, remedy=text.ASK_SMALLER_BOUND
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
            list(text.COMPOSITION_STATISTICS),
            default=list(text.COMPOSITION_DEFAULT),
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
        stats = list(text.COMPOSITION_DEFAULT)
    if not ctx.pop.has_upper_bound and "mean" in stats:
        st.info(text.NO_UPPER_SEVERAL, icon=":material/info:")
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
        text.composition_verdict(ctx.eps_target, split.eps_target_correct, split.eps_target_naive)
    )
    # One slot: the progress bar while the plans run, then their table, keyed by the inputs.
    key = digest(inputs_key(ctx), design, rate, stats, shares)
    slot = st.empty()
    bar = StepBar(slot, f"plan_ms_live_{key}", text.SEVERAL_STARTS, text.several_progress)
    results = cache.several_statistics(
        pop.content_hash,
        pop,
        statistics=tuple(text.COMPOSITION_STATISTICS[s] for s in stats),
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
        formulas=text.COMPOSITION_FORMULAS,
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
        st.info(text.no_rate_row(design, rate), icon=":material/info:")
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
    chosen = text.composition_quantiles(stats)
    if len(chosen) < 2:
        return
    st.markdown("**Several quantiles at once: JointExp against separate releases**")
    if not ctx.pop.has_upper_bound:
        st.info(text.NO_UPPER_JOINT, icon=":material/info:")
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
        text.joint_verdict(
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
    st.caption(text.joint_caption(errors, used) + " " + text.JOINT_EXPLANATION)


#: The view of each tab, in the order of :data:`ui.planner.text.TABS`.
TAB_VIEWS = (compare_view, accuracy_view, several_view, publication_view)


def population_problem(pop: Population) -> str | None:
    """Why the planner cannot run on ``pop`` (None if it can)."""
    if pop.size < MIN_POPULATION:
        return (
            f"{pop.name} has only N = {pop.size:,} records; the planner needs at least "
            f"{MIN_POPULATION} to leave room for a sample. Pick a larger population in the "
            "sidebar."
        )
    # No public upper bound (U = inf) is allowed: the unbounded quantile needs only L.
    if not math.isfinite(float(pop.lower)) or not pop.upper > pop.lower:
        return f"{pop.name} has no usable public bounds [L, U]."
    return None
