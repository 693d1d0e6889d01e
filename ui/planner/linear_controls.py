"""Controls of the Release planner for counts, totals and proportions.

The selection (a category of a label column, a value range, or every record) and the
mechanisms of the linear statistics; all are bound to the URL like the page's other
controls, and their defaults follow the active population (its most common category, the
range from L to its median).
"""

from __future__ import annotations

import numpy as np
import streamlit as st

from core.linear.mechanisms import LINEAR_MECHANISMS
from core.linear.plan import default_linear_mechanisms
from core.linear.statistic import (
    LABEL_COLUMNS,
    LinearStatistic,
    check_statistic,
    whole_numbers,
    y_bounds,
)
from core.populations import Population
from ui.planner import linear_text
from ui.planner.text import name_of
from ui.widgets import bound_toggle

#: Session key of a category a link named that the data do not hold (and the one planned).
ABSENT_KEY = "_plan_cat_absent"


def label_columns(pop: Population) -> tuple[str, ...]:
    """The label columns of :data:`core.linear.statistic.LABEL_COLUMNS` that ``pop`` has."""
    return tuple(c for c in LABEL_COLUMNS if getattr(pop, c, None) is not None)


def column_label(pop: Population, column: str) -> str:
    """The name a label column has in the data ("size class", "region", "psu")."""
    attribute = {"categories": "category_label", "strata": "stratum_label"}.get(
        column, "cluster_label"
    )
    return str(getattr(pop, attribute, column))


@st.cache_data(max_entries=16, show_spinner=False)
def category_counts(
    content_hash: str, _pop: Population, column: str
) -> tuple[tuple[str, ...], tuple[int, ...]]:
    """The labels of ``column`` as text, most common first (ties in label order), with
    their numbers of records: one ``numpy.bincount`` over the label codes."""
    factorised = _pop.label_codes(column)
    if factorised is None:
        return (), ()
    codes, uniques = factorised
    counts = np.bincount(codes, minlength=len(uniques))
    texts = [str(u) for u in uniques]
    order = sorted(range(len(texts)), key=lambda i: (-int(counts[i]), texts[i]))
    return tuple(texts[i] for i in order), tuple(int(counts[i]) for i in order)


@st.cache_data(max_entries=16, show_spinner=False)
def default_range(content_hash: str, _pop: Population) -> tuple[float, float]:
    """The default range [L, median]: about half of the records, within the public bounds."""
    median = float(np.median(_pop.values))
    return float(_pop.lower), float(f"{median:.3g}") if median > _pop.lower else median


@st.cache_data(max_entries=16, show_spinner=False)
def whole_values(content_hash: str, _pop: Population) -> bool:
    """Whether every value is a whole number (:func:`core.linear.statistic.whole_numbers`),
    once per population."""
    return whole_numbers(_pop.values)


def integer_values(content_hash: str, _pop: Population) -> bool:
    """Whether every value (and the bounds) is a whole number: totals then take integer
    noise."""
    return whole_values(content_hash, _pop) and float(_pop.lower).is_integer()


def _reset_if_absent(key: str, options: list[str], default: str) -> None:
    """Put the control ``key`` back to ``default`` when its value is not an option (the
    statistic or the population changed)."""
    stored = st.session_state.get(key)
    if stored is not None and stored not in options:
        st.session_state[key] = default


def statistic_control(pop: Population, kind: str) -> LinearStatistic | None:
    """The selection of the records counted or summed, URL-bound (``plan_sel``,
    ``plan_col``, ``plan_cat``, ``plan_lo``, ``plan_hi``).

    Returns
    -------
    LinearStatistic or None
        The statistic to plan, checked (:func:`core.linear.statistic.check_statistic`); None
        with the plain-words reason on the page when it cannot be planned (a range outside
        the public bounds, a total without an upper bound).
    """
    columns = label_columns(pop)
    names = list(linear_text.SELECTION_LABELS)
    labels = [linear_text.SELECTION_LABELS[n] for n in names]
    default = "all" if kind == "total" else ("category" if columns else "range")
    shown = st.radio(
        "Records " + ("summed" if kind == "total" else "counted"),
        labels,
        index=names.index(default),
        key="plan_sel",
        bind="query-params",
        horizontal=True,
        help=linear_text.SELECTION_HELP,
    )
    selection = name_of(linear_text.SELECTION_LABELS, shown)
    if selection == "category" and not columns:
        st.warning(linear_text.no_label_column(kind), icon=":material/warning:")
        selection = "range"
    stat: LinearStatistic
    if selection == "category":
        column = st.selectbox(
            "Label column",
            list(columns),
            format_func=lambda c: column_label(pop, c),
            key="plan_col",
            bind="query-params",
            help=linear_text.COLUMN_HELP,
        )
        texts, _ = category_counts(pop.content_hash, pop, column)
        linked = st.query_params.get("plan_cat")
        _reset_if_absent("plan_cat", list(texts), texts[0])
        category = st.selectbox(
            "Category",
            list(texts),
            index=0,
            key="plan_cat",
            bind="query-params",
            help=linear_text.CATEGORY_HELP,
        )
        # A link's absent category: Streamlit drops it from the URL, and the page may run
        # again at once, so it is remembered until another category is chosen.
        if linked is not None and linked not in texts:
            st.session_state[ABSENT_KEY] = (linked, str(category))
        absent = st.session_state.get(ABSENT_KEY)
        if absent is not None and absent[1] == str(category):
            st.warning(
                linear_text.absent_category(absent[0], column_label(pop, column), str(category)),
                icon=":material/warning:",
            )
        else:
            st.session_state.pop(ABSENT_KEY, None)
        stat = LinearStatistic(kind, column=column, category=str(category))
    elif selection == "range":
        lo_default, hi_default = default_range(pop.content_hash, pop)
        left, right = st.columns(2)
        lo = left.number_input(
            "From a",
            value=lo_default,
            format="%g",
            key="plan_lo",
            bind="query-params",
            help=linear_text.RANGE_HELP,
        )
        hi = right.number_input(
            "To b",
            value=hi_default,
            format="%g",
            key="plan_hi",
            bind="query-params",
            help=linear_text.RANGE_HELP,
        )
        stat = LinearStatistic(kind, value_range=(float(lo), float(hi)))
    else:
        stat = LinearStatistic(kind)
    try:
        return check_statistic(pop, stat)
    except ValueError as err:
        st.error(str(err), icon=":material/error:")
        return None


def mechanisms_of(kind: str, integer: bool) -> tuple[str, ...]:
    """The linear mechanisms offered: integer noise only for integer sums (counts, and
    totals of whole numbers)."""
    return tuple(
        name
        for name, m in LINEAR_MECHANISMS.items()
        if not (m.integer and kind == "total" and not integer)
    )


def mechanisms_control(
    pop: Population, kind: str, rho_target: float | None = None
) -> tuple[str, ...]:
    """The linear mechanisms to compare (``plan_lmechs``, URL-bound).  Every offered one may
    be chosen; by default, and when none is chosen, those that keep the promise as stated
    (:func:`core.linear.plan.default_linear_mechanisms`: the pure ones for a pure ε promise,
    and the discrete Gaussian too for a ρ-zCDP promise)."""
    integer = integer_values(pop.content_hash, pop)
    options = mechanisms_of(kind, integer)
    default = [
        m for m in default_linear_mechanisms(kind != "total" or integer, rho_target) if m in options
    ]
    stored = st.session_state.get("plan_lmechs")
    if stored is not None and any(name not in options for name in stored):
        st.session_state["plan_lmechs"] = default
    chosen = st.multiselect(
        "Mechanisms",
        list(options),
        default=default,
        format_func=lambda name: str(LINEAR_MECHANISMS[name].label),
        key="plan_lmechs",
        bind="query-params",
        help=linear_text.LINEAR_MECHANISMS_HELP,
    )
    if not chosen:
        st.info(
            "No mechanism is chosen; comparing those that keep the promise as stated.",
            icon=":material/info:",
        )
        return tuple(default)
    return tuple(name for name in options if name in chosen)


def post_control(pop: Population, stat: LinearStatistic | None) -> str:
    """Whether the release is rounded to whole numbers ≥ 0 (``plan_post``, URL-bound; off by
    default): ``"round"`` or ``"none"``.  A total whose public lower bound is below 0 may be
    negative, so it is not offered there (a note says why)."""
    if stat is not None and stat.kind == "total" and y_bounds(pop, stat)[0] < 0.0:
        st.caption(linear_text.POST_REFUSED)
        return "none"
    on = bound_toggle(
        linear_text.POST_LABEL, "plan_post", default=False, help=linear_text.POST_HELP
    )
    return "round" if on else "none"
