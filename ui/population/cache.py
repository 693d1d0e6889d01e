"""Cached summaries of the active population (Population page), keyed by its content hash."""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from core.categories import category_counts
from core.populations import Population, cluster_strata_note
from ui.format import fmt
from ui.population.figures import group_counts_from_codes

#: The summary table's upper bound when none is public.
NO_UPPER = "none public"


@st.cache_data(max_entries=32, show_spinner=False)
def population_summary(content_hash: str, _pop: Population) -> pd.DataFrame:
    """Summary statistics of ``_pop`` (cached by its content hash; the array is not hashed)."""
    v = _pop.values
    n = v.size
    mid = (n - 1) // 2
    rows = [
        ("Population size", "N", f"{n:,}"),
        ("Mean", "ȳ_N", fmt(v.mean(), "value")),
        ("Median (lower middle value)", "y_(⌈N/2⌉)", fmt(v[mid], "value")),
        ("Standard deviation", "S_N", fmt(v.std(ddof=1), "value") if n > 1 else "—"),
        ("Smallest value", "y_(1)", fmt(v[0], "value")),
        ("Largest value", "y_(N)", fmt(v[-1], "value")),
        ("Declared lower bound", "L", fmt(_pop.lower, "value")),
        (
            "Declared upper bound",
            "U",
            fmt(_pop.upper, "value") if _pop.has_upper_bound else NO_UPPER,
        ),
        (
            "Declared range",
            "R = U − L",
            fmt(_pop.upper - _pop.lower, "value") if _pop.has_upper_bound else "unbounded",
        ),
    ]
    # Distinct labels from the population's factorisation: np.unique would sort 10⁷ labels.
    for which, quantity, symbol in (
        ("strata", "Strata", "H"),
        ("clusters", "Clusters", "K"),
        ("categories", "Categories", "C"),
    ):
        codes = _pop.label_codes(which)
        if codes is not None:
            rows.append((quantity, symbol, f"{len(codes[1]):,}"))
    return pd.DataFrame(rows, columns=["quantity", "symbol", "value"])


@st.cache_data(max_entries=32, show_spinner=False)
def group_table(content_hash: str, _pop: Population, which: str) -> pd.DataFrame | None:
    """Records, mean and SD per stratum or cluster (``which``) of ``_pop``; None without."""
    codes = _pop.label_codes(which)
    if codes is None:
        return None
    return group_counts_from_codes(codes[0], codes[1], _pop.values)


@st.cache_data(max_entries=32, show_spinner=False)
def category_table(content_hash: str, _pop: Population) -> pd.DataFrame | None:
    """Records and share per category of ``_pop`` (:func:`core.categories.category_counts`)."""
    return category_counts(_pop)


@st.cache_data(max_entries=32, show_spinner=False)
def shared_cluster_note(content_hash: str, _pop: Population) -> str | None:
    """:func:`core.populations.cluster_strata_note` of ``_pop``, cached by its content hash."""
    return cluster_strata_note(_pop)


@st.cache_data(max_entries=32, show_spinner=False)
def histogram_data(
    content_hash: str, _pop: Population, bins: int, log_x: bool, to_bounds: bool = True
) -> pd.DataFrame:
    """Histogram counts of ``_pop`` between its declared bounds (log-spaced bins if asked).

    With ``to_bounds=False`` the bins span the data instead, from the smallest to the largest
    value (the smallest positive one on a log axis), so that a population far inside its
    declared bounds fills the axis; a population whose values are all equal keeps the bounds.

    The counts are those of ``numpy.histogram(values, bins=edges)`` (bins closed on the left,
    the last one on both sides; values outside the edges not counted), read off the sorted
    values with ``numpy.searchsorted`` in O(bins · log N): numpy.histogram would sort the N
    values again (half a second at 10⁷) and copy them.
    """
    v = _pop.values
    lo, hi = _pop.lower, _pop.upper
    if not _pop.has_upper_bound:  # no public upper bound: the axis ends at the data
        hi = float(v[-1]) if float(v[-1]) > lo else lo + 1.0
    if log_x:
        first_positive = int(np.searchsorted(v, 0.0, side="right"))
        smallest = float(v[first_positive]) if first_positive < v.size else 1e-12
        lo = max(lo, smallest)
        if not to_bounds and smallest < float(v[-1]):
            lo, hi = smallest, float(v[-1])
        edges = np.geomspace(lo, hi, bins + 1)
    else:
        if not to_bounds and float(v[0]) < float(v[-1]):
            lo, hi = float(v[0]), float(v[-1])
        edges = np.linspace(lo, hi, bins + 1)
    counts = sorted_histogram(v, edges)
    return pd.DataFrame({"bin_left": edges[:-1], "bin_right": edges[1:], "count": counts})


def sorted_histogram(sorted_values: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """``numpy.histogram(sorted_values, bins=edges)[0]`` for ascending values and edges."""
    cuts = np.searchsorted(sorted_values, edges[:-1], side="left")
    cuts = np.append(cuts, np.searchsorted(sorted_values, edges[-1], side="right"))
    return np.diff(cuts).astype(np.int64)
