"""The Release planner's tabs: the view that draws each, run as a fragment of its own.

A control inside a tab reruns that tab's fragment only (:func:`streamlit.fragment`): neither
the page's controls above the tabs nor another tab is drawn or computed again. A control
above the tabs reruns the whole page, and the tabs' cached computations
(:mod:`ui.planner.cache`) answer whatever it did not change.

One module per tab (:mod:`ui.planner.compare`, :mod:`ui.planner.accuracy`,
:mod:`ui.planner.several`, :mod:`ui.planner.publication`); what they share is in
:mod:`ui.planner.inputs`, which imports none of them.
"""

from __future__ import annotations

import streamlit as st

from ui.planner import text
from ui.planner.accuracy import accuracy_view
from ui.planner.compare import compare_view
from ui.planner.linear import linear_compare_view, not_for_linear_view
from ui.planner.publication import publication_view
from ui.planner.several import several_view

#: The view of each tab, in the order of :data:`ui.planner.text.TABS`, each a fragment.
TAB_VIEWS = tuple(
    st.fragment(view) for view in (compare_view, accuracy_view, several_view, publication_view)
)
#: The view of each tab for a count, total or proportion (:mod:`ui.planner.linear`): the
#: exact comparison, and a sentence on the accuracy-first tab, which searches ε_target for
#: the page's median, quantile or mean only. The other two tabs choose their own statistics.
LINEAR_TAB_VIEWS = (
    st.fragment(linear_compare_view),
    st.fragment(not_for_linear_view(text.ACCURACY_TAB)),
    TAB_VIEWS[2],
    TAB_VIEWS[3],
)
