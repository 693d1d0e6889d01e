"""The Release planner's downloads: a notebook that reproduces the plan, and a method report.

* :mod:`ui.planner.exports.notebook`: :func:`plan_notebook`, a Jupyter notebook that rebuilds
  the active population from its recipe and calls :func:`core.planner.plan` with exactly the
  page's parameters;
* :mod:`ui.planner.exports.linear_notebook`: :func:`linear_notebook`, the same for a count,
  total or proportion (:func:`core.linear.plan.plan_linear`);
* :mod:`ui.planner.exports.report`: :func:`method_report`, one self-contained HTML page for a
  disclosure review board;
* :mod:`ui.planner.exports.plan_table`: what each column of the table download
  ``release_plan.csv`` means;
* :mod:`ui.planner.exports.publication_package`: the Publication table tab's script,
  notebook and zip package (:func:`publication_zip`);
* :mod:`ui.planner.exports.checks`: the checks of their arguments and the words both share.

All are pure functions of their arguments (no Streamlit) and neither export writes a date.
"""

from ui.planner.exports.checks import DESIGN_EXPLANATIONS, GROUP_PRIVACY_NOTE
from ui.planner.exports.linear_notebook import linear_notebook
from ui.planner.exports.notebook import plan_notebook
from ui.planner.exports.plan_table import PLAN_TABLE_COLUMNS, columns_frame
from ui.planner.exports.report import method_report

__all__ = [
    "DESIGN_EXPLANATIONS",
    "GROUP_PRIVACY_NOTE",
    "PLAN_TABLE_COLUMNS",
    "columns_frame",
    "linear_notebook",
    "method_report",
    "plan_notebook",
]
