"""Controls of the Release planner page that need more than one widget call.

The statistic (with the level q of "another quantile"), the mechanisms to compare and the
lines of the main chart; all are bound to the URL. Kept here so the page script stays a
short list of inputs and tabs.
"""

from __future__ import annotations

import streamlit as st

from core import planner
from core.accounting.zcdp import eps_target_for_rho
from ui.amplification import views as amp_views
from ui.planner import figures as figs
from ui.planner import linear_text, text
from ui.widgets import bound_toggle, log_float_control


def statistic_control(bounded: bool = True) -> tuple[str, float]:
    """The statistic radio and, for "another quantile", the level q (both URL-bound).

    ``bounded``: the population has a public upper bound; without one the mean cannot be
    released, and choosing it gives a warning and the median.

    Returns
    -------
    tuple of (str, float)
        The statistic's name (``"median"``, ``"mean"`` or ``"quantile"``, or a linear
        statistic's kind: ``"count"``, ``"total"``, ``"proportion"``) and q: the typed level
        for ``"quantile"``, 0.5 otherwise (the median's level, ignored for the others).
    """
    labels = {**text.STATISTIC_LABELS, **linear_text.LINEAR_LABELS}
    shown = st.radio(
        "Statistic",
        list(labels.values()),
        key="plan_stat",
        bind="query-params",
    )
    statistic = text.name_of(labels, shown)
    if statistic in linear_text.LINEAR_LABELS:
        return statistic, 0.5
    if statistic == "mean" and not bounded:
        st.warning(text.NO_UPPER_MEAN, icon=":material/warning:")
        return "median", 0.5
    if statistic != "quantile":
        return statistic, 0.5
    q = st.number_input(
        "Quantile q",
        min_value=0.01,
        max_value=0.99,
        value=text.DEFAULT_QUANTILE,
        step=0.05,
        format="%.2f",
        key="plan_q",
        bind="query-params",
        help=text.QUANTILE_HELP,
    )
    return statistic, float(q)


def promise_control() -> tuple[float, float | None]:
    """How the promise is stated (``plan_promise``) and its value (``plan_eps`` for pure
    ε-DP, ``plan_rho`` for ρ-zCDP), all URL-bound.

    Returns
    -------
    tuple of (float, float or None)
        ε_target the planner plans with and the promised ρ (None for a pure ε promise);
        under ρ-zCDP, ε_target is the sharp conversion of ρ
        (:func:`core.accounting.zcdp.eps_target_for_rho`), shown under the control.
    """
    shown = st.radio(
        "Promise stated as",
        list(text.PROMISE_LABELS.values()),
        key="plan_promise",
        bind="query-params",
        horizontal=True,
        help=text.PROMISE_HELP,
    )
    if text.name_of(text.PROMISE_LABELS, shown) == "eps":
        eps = log_float_control(
            "ε_target: the guarantee promised for the population",
            "plan_eps",
            default=text.EPS_TARGET_DEFAULT,
            min_value=1e-3,
            max_value=50.0,
            help="Each design spends the largest ε_sample its theorem allows for this ε_target.",
        )
        return float(eps), None
    linked = st.query_params.get("plan_rho")  # as the link wrote it, before the box reads it
    rho = log_float_control(
        text.RHO_LABEL,
        "plan_rho",
        default=text.RHO_DEFAULT,
        min_value=text.RHO_MIN,
        max_value=text.RHO_MAX,
        help=text.RHO_HELP,
    )
    problem = text.rho_link_problem(linked, rho)
    if problem is not None:
        st.warning(problem, icon=":material/warning:")
    eps = eps_target_for_rho(rho)
    st.caption(text.promise_words(eps, float(rho)))
    return eps, float(rho)


def mechanisms_control(
    statistic: str, bounded: bool = True, relation: str = "replacement", sizes_public: bool = False
) -> tuple[str, ...] | None:
    """The mechanisms to compare (URL-bound multiselect of those fitting ``statistic``).

    Every mechanism the planner offers is listed; the default choice is
    :func:`core.planner.default_mechanisms` (Hu et al.'s four for a quantile), which keeps
    the default page as fast as before the newer mechanisms were offered.  Returns None for
    that default choice (or none chosen, with a note on the page); otherwise the chosen
    names in core.planner's order.  With no public upper bound (``bounded`` false) the
    list is the mechanisms that need none (the unbounded quantile).  The default choice
    follows ``relation`` and ``sizes_public`` (the size-free mean joins it where N is private
    and can change).
    """
    options = text.mechanisms_of(statistic, bounded)
    defaults = planner.default_mechanisms(
        statistic, bounded=bounded, relation=relation, sizes_public=sizes_public
    )
    other_defaults = {
        frozenset(planner.default_mechanisms(statistic, bounded=bounded, relation=r))
        for r in planner.RELATIONS
    }
    # The widget keeps its value when the options change (median ↔ mean): a choice made for
    # the other statistic goes back to the default, and so does another relation's default.
    stored = st.session_state.get("plan_mechs")
    if stored is not None and (
        any(name not in options for name in stored) or frozenset(stored) in other_defaults
    ):
        st.session_state["plan_mechs"] = list(defaults)
    chosen = st.multiselect(
        "Mechanisms",
        list(options),
        default=list(defaults),
        format_func=lambda name: text.MECHANISM_SHORT.get(name, name),
        key="plan_mechs",
        bind="query-params",
        help=text.MECHANISMS_HELP,
    )
    if not chosen:
        st.info("No mechanism is chosen; comparing the default mechanisms.", icon=":material/info:")
        return None
    picked = tuple(name for name in options if name in chosen)
    return None if set(picked) == set(defaults) else picked


def sizes_public_control() -> bool:
    """Whether the population size N and the cell sizes N_c are declared public
    (``plan_sizes``, URL-bound; off by default: the sound choice)."""
    return bool(bound_toggle(text.SIZES_LABEL, "plan_sizes", default=False, help=text.SIZES_HELP))


def usable_share_control() -> float:
    """The share of the value above which a 95 % bound makes a release unusable
    (``plan_usable``, URL-bound, in %; returned as a fraction, e.g. 0.5)."""
    percent = st.number_input(
        text.USABLE_SHARE_LABEL,
        min_value=1,
        max_value=10_000,
        value=text.USABLE_SHARE_DEFAULT,
        step=10,
        key="plan_usable",
        bind="query-params",
        help=text.USABLE_SHARE_HELP,
    )
    return float(percent) / 100.0


def prior_control() -> float:
    """The attacker's prior for reading ε as odds (``plan_prior``): the Amplification page's
    control under the planner's key."""
    return amp_views.prior_control("plan_prior")


def chart_lines_control(
    statistic: str, mechanisms: tuple[str, ...] | None, bounded: bool = True
) -> str:
    """What the main chart draws (URL-bound as ``plan_lines``; the URL carries the label).

    Returns :data:`ui.planner.figures.BEST_LINES` (each design's best mechanism, the
    default), :data:`ui.planner.figures.ALL_LINES` (every mechanism) or one mechanism's
    name (that mechanism across the designs), from the mechanisms compared.
    """
    asked = (
        planner.default_mechanisms(statistic, bounded=bounded) if mechanisms is None else mechanisms
    )
    compared = [m for m in text.mechanisms_of(statistic, bounded) if m in asked]
    labels = {c: text.chart_lines_label(c) for c in (figs.BEST_LINES, figs.ALL_LINES, *compared)}
    # A mechanism of the other statistic (median ↔ mean) or one no longer compared.
    if st.session_state.get("plan_lines", labels[figs.BEST_LINES]) not in labels.values():
        st.session_state["plan_lines"] = labels[figs.BEST_LINES]
    shown = st.selectbox(
        "Lines on the chart",
        list(labels.values()),
        key="plan_lines",
        bind="query-params",
        help=text.CHART_LINES_HELP,
    )
    return text.name_of(labels, shown)
