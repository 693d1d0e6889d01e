"""The reveal chart of each lesson step, drawn by the figure code of the page it links to.

Each builder reads the step's own URL parameters (:attr:`ui.lessons.content.Step.query`),
parses them as the page's controls do, and calls that page's cached computations and figure
builder with them, so the chart in the lesson is the chart the link opens. Parameters a step
leaves out take the page's defaults, repeated here (``tests/pages/test_lessons_page.py``
compares the two charts trace by trace).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np
import plotly.graph_objects as go

from core import planner, strata
from core import statistical as sp
from core.linear.plan import plan_linear
from core.linear.statistic import LinearStatistic
from ui.amplification import figures as amp_figs
from ui.clusters import figures as cl_figs
from ui.gains import cache as gain_cache
from ui.gains import figures as gain_figs
from ui.gains import text as gain_text
from ui.lessons.content import Step
from ui.page_defaults import delta_target_default
from ui.planner import figures as planner_figs
from ui.planner import linear_controls
from ui.planner import text as planner_text
from ui.state import builtin_population
from ui.statistical import cache as sp_cache
from ui.statistical import figures as sp_figs
from ui.strata import cache as st_cache
from ui.strata import figures as st_figs
from ui.strata.text import AUTO_STRATUM
from ui.widgets import parse_float_list


def _floats(query: Mapping[str, str], key: str, default: str, lo: float, hi: float) -> list[float]:
    """A comma-separated list parameter, parsed as ``ui.widgets.float_list_input`` does."""
    values, problems = parse_float_list(query.get(key, default), min_value=lo, max_value=hi)
    if problems or not values:
        raise ValueError(f"lesson parameter {key}={query.get(key)!r}: {'; '.join(problems)}")
    return values


def amp_forward(step: Step) -> go.Figure:
    """ε_sample against the rate (Amplification page, first tab; default rate axis)."""
    eps_targets = _floats(step.query, "amp_eps_targets", "0.1, 0.5, 1", 1e-6, 50.0)
    rate_min = float(step.query.get("amp_rate_min", 0.001))
    rates = amp_figs.rate_grid(rate_min, log_spacing=rate_min < 0.01)
    return amp_figs.eps_sample_figure(eps_targets, rates, log_x=False, log_y=False)[0]


def _steinke_rates() -> np.ndarray:
    return np.geomspace(1e-4, 1.0, amp_figs.CURVE_POINTS)


def amp_steinke_p(step: Step) -> go.Figure:
    """Steinke's ratio p·ε_p/ε against p (Amplification page, Steinke tab)."""
    eps_values = _floats(step.query, "amp_st_eps", "0.01, 0.1, 1, 2", 1e-6, 100.0)
    return amp_figs.steinke_vs_p_figure(eps_values, _steinke_rates(), log_x=True)[0]


def amp_steinke_regime(step: Step) -> go.Figure:
    """The regime ε = c·p with its floor log(1+c)/c (Amplification page, Steinke tab)."""
    constants = _floats(step.query, "amp_st_c", "0.2, 0.5, 2, 5", 1e-4, 1e4)
    return amp_figs.steinke_regime_figure(constants, _steinke_rates(), log_x=True)[0]


def _gain_eps(step: Step) -> list[float]:
    return _floats(step.query, "gain_eps", "0.01, 0.1, 0.5, 1, 3", 1e-9, 50.0)


def gain_r(step: Step) -> go.Figure:
    """The noise ratio r of the mean against the rate (Hu et al. eq. 8)."""
    return gain_figs.r_curves_figure(_gain_eps(step), np.geomspace(1e-4, 1.0, 300))[0]


def gain_q(step: Step) -> go.Figure:
    """The bound q on the sampling variance against the rate (Hu et al. §4.1), q = 0.6 marked."""
    return gain_figs.q_curves_figure(_gain_eps(step), np.geomspace(1e-4, 1.0, 300), 0.6)[0]


def gain_log_mse(step: Step) -> go.Figure:
    """log(MSE) of the private sample median against the rate (Hu et al. §4.3, Figure 8)."""
    pop = builtin_population(step.population, step.seed)
    eps_values = _floats(step.query, "gain_exp_eps", "0.1, 0.5, 1, 3", 1e-3, 20.0)
    rates = _floats(
        step.query,
        "gain_exp_rates",
        "0.01, 0.1, 0.3, 0.5, 0.7, 0.9",
        max(3.0 / pop.size, 1e-6),
        0.999,
    )
    result = gain_cache.median_experiment(
        pop,
        eps_targets=tuple(eps_values),
        rates=tuple(rates),
        reps=int(step.query.get("gain_reps", 200)),
        delta_target=delta_target_default(pop.size),
        seed=step.seed,
        amplify_delta=True,
        estimator=None,
    )
    return gain_figs.log_mse_figure(result.summary, measure="mse", quantile=0.5)[0]


def gain_compare(step: Step) -> go.Figure:
    """Every quantile mechanism's error against the rate at one ε_target ("which mechanism?")."""
    pop = builtin_population(step.population, step.seed)
    q = step.query
    rates = _floats(q, "gain_cmp_rates", "0.01, 0.1, 0.3, 0.5, 0.7, 0.9", 3.0 / pop.size, 0.999)
    measure = q.get("gain_cmp_measure", "mse")
    result = gain_cache.mechanism_comparison(
        pop,
        eps_target=float(q.get("gain_cmp_eps", 0.5)),
        rates=tuple(rates),
        reps=int(q.get("gain_cmp_reps", 200)),
        delta_target=delta_target_default(pop.size),
        seed=step.seed,
        quantile=float(q.get("gain_cmp_quantile", 0.5)),
        measure=measure,
    )
    return gain_figs.comparison_figure(
        result.table,
        labels=gain_text.MECHANISM_SHORT,
        measure_label=gain_text.MEASURE_WORDS[measure],
        hidden=gain_text.INFINITE_VARIANCE if measure == "mse" else frozenset(),
    )[0]


def _cluster_args(step: Step) -> tuple[float, int, int, int, float]:
    q = step.query
    return (
        float(q["cl_eps"]),
        int(q.get("cl_k", 1000)),
        int(q.get("cl_l", 100)),
        int(q.get("cl_size", 10)),
        float(q.get("cl_spread", 1.0)),
    )


def cl_size(step: Step) -> go.Figure:
    """ε_target against the cluster size M (Bun et al. Theorems 5.1–5.2)."""
    eps, k, ell, size, spread = _cluster_args(step)
    return cl_figs.eps_vs_size_figure(eps, k, ell, spread, size, log_y=False)[0]


def cl_fraction(step: Step) -> go.Figure:
    """ε_target against the fraction of clusters drawn ℓ/k (Bun et al. Theorems 5.1–5.2)."""
    eps, k, ell, size, spread = _cluster_args(step)
    return cl_figs.eps_vs_fraction_figure(eps, k, size, spread, ell, log_y=False)[0]


def st_neighbour(step: Step) -> go.Figure:
    """Neyman's allocation on P and on the paper's neighbour P′ (Bun et al. §7.2, App. E.1)."""
    pop = builtin_population(step.population, step.seed)
    summ = st_cache.summary(pop.content_hash, pop)
    if summ is None:
        raise ValueError(f"population {step.population!r} has no strata")
    m = int(step.query["strat_m"])
    cmp = st_cache.neighbour(pop.content_hash, pop, m, pop.upper, AUTO_STRATUM)
    # As on the page: the smallest record leaves its stratum and joins the largest record's.
    largest = int(np.searchsorted(pop.values, pop.values[-1], side="left"))
    changed = (int(summ.codes[0]), int(summ.codes[largest]))
    return st_figs.neighbour_figure(cmp, changed)[0]


def st_rounding(step: Step) -> go.Figure:
    """Deterministic against randomised rounding of r·|P| (Bun et al. §4.3)."""
    q = step.query
    example = strata.rounding_example(int(q["strat_cx_size"]), float(q["strat_cx_rate"]))
    return st_figs.rounding_figure(example, float(q.get("strat_eps", 0.5)))[0]


def _sp_args(step: Step) -> tuple[int, float, float, float]:
    q = step.query
    n = int(q.get("sp_n", 1000))
    return (
        n,
        float(q.get("sp_pi", 0.5)),
        float(q.get("sp_eps", 0.01)),
        float(q.get("sp_lambda", 0.1)),
    )


def sp_curve(step: Step) -> go.Figure:
    """δ(ε) of every mechanism against the worst case (Breutigam & Reischuk)."""
    n, pi, eps, lam = _sp_args(step)
    m = sp.sample_size(n, lam)
    nu = float(step.query.get("sp_nu", 1.0))
    curves = sp_cache.privacy_curves(n, pi, m, nu, float(step.query.get("sp_eps_max", 2.0)))
    return sp_figs.privacy_curve_figure(
        curves, nu=nu, m=m, n=n, log_x=True, log_y=True, eps_mark=eps
    )[0]


def sp_pi(step: Step) -> go.Figure:
    """Statistical δ against π with Gaussian noise, and the worst case (Figures 1–2)."""
    n, _, eps, _ = _sp_args(step)
    nus = _floats(step.query, "sp_nus", "1, 3", sp.MIN_NOISE_MULTIPLIER, 1000.0)[:4]
    data = sp_cache.delta_vs_pi(n, eps, "gaussian", tuple(nus))
    return sp_figs.delta_vs_pi_figure(data, noise="gaussian", n=n, eps=eps, log_x=False)[0]


def plan_count_result(step: Step) -> planner.PlanResult:
    """The planner's exact plan of a count by the population's most common label (the
    Release planner's Compare designs tab, its default selection, mechanisms and designs)."""
    pop = builtin_population(step.population, step.seed)
    kind = step.query.get("plan_stat", "count")
    columns = linear_controls.label_columns(pop)
    if not columns:
        raise ValueError(f"{pop.name} has no label column to count")
    texts, _ = linear_controls.category_counts(pop.content_hash, pop, columns[0])
    stat = LinearStatistic(kind, column=columns[0], category=texts[0])
    statuses = planner.design_statuses(pop, "median", "replacement")
    designs = tuple(
        s.name for s in statuses if s.available and s.name in planner_text.PICKABLE_DESIGNS
    )
    rates = step.query.get("plan_rates")
    result = plan_linear(
        pop,
        stat,
        eps_target=float(step.query.get("plan_eps", planner_text.EPS_TARGET_DEFAULT)),
        delta_target=delta_target_default(pop.size),
        designs=designs,
        rates=None if rates is None else tuple(_floats(step.query, "plan_rates", "", 0.0, 1.0)),
        mechanisms=linear_controls.mechanisms_of(
            kind, linear_controls.integer_values(pop.content_hash, pop)
        ),
        relation="replacement",
        sizes_public=False,
        rho_target=None,
    )
    return result


def plan_count(step: Step) -> go.Figure:
    """The planner's chart of :func:`plan_count_result` (each design's best mechanism)."""
    return planner_figs.objective_figure(plan_count_result(step))[0]


#: Figure key of a step → its builder.
REVEALS: dict[str, Callable[[Step], go.Figure]] = {
    "amp_forward": amp_forward,
    "amp_steinke_p": amp_steinke_p,
    "amp_steinke_regime": amp_steinke_regime,
    "gain_r": gain_r,
    "gain_q": gain_q,
    "gain_log_mse": gain_log_mse,
    "gain_compare": gain_compare,
    "cl_size": cl_size,
    "cl_fraction": cl_fraction,
    "st_neighbour": st_neighbour,
    "st_rounding": st_rounding,
    "sp_curve": sp_curve,
    "sp_pi": sp_pi,
    "plan_count": plan_count,
}


def reveal_figure(step: Step) -> go.Figure:
    """The reveal chart of ``step``.

    Raises
    ------
    ValueError
        If the step names a figure that has no builder, or its parameters do not parse.
    """
    builder = REVEALS.get(step.figure)
    if builder is None:
        raise ValueError(f"no reveal chart is called {step.figure!r}; known: {sorted(REVEALS)}")
    return builder(step)
