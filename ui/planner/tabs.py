"""The Release planner's tabs: each tab's name and the view that draws it.

One module per tab (:mod:`ui.planner.compare`, :mod:`ui.planner.accuracy`,
:mod:`ui.planner.several`, :mod:`ui.planner.publication`); what they share is in
:mod:`ui.planner.inputs`, which imports none of them.
"""

from __future__ import annotations

from ui.planner.accuracy import accuracy_view
from ui.planner.compare import compare_view
from ui.planner.publication import publication_view
from ui.planner.several import several_view

#: The view of each tab, in the order of :data:`ui.planner.text.TABS`.
TAB_VIEWS = (compare_view, accuracy_view, several_view, publication_view)
