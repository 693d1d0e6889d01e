"""A publication table: many cells × statistics under one ``eps_target``.

Agencies publish tables (the median and mean wage by region and size class), and promise one
``(eps_target, delta_target)`` for the whole table.  This package derives how the table's
releases compose and plans every cell × statistic with the single-statistic planner
(:func:`core.planner.plan`).

=====================================  ===================================================
:mod:`core.publication.composition`    the composition across cells and statistics, the
                                       budget split, which designs serve a table (proofs)
:mod:`core.publication.table`          :func:`plan_table`: one plan per cell × statistic
:mod:`core.publication.records`        a planned table's summary, registry entry, report
:mod:`core.publication.config`         the plan's YAML config read and checked, its
                                       population built (``python -m batch`` and the
                                       exported ``plan_publication.py``)
:mod:`core.publication.frequency`      :func:`plan_frequency`: a frequency table (counts
                                       or totals by cell) as one histogram from one
                                       sample, every cell's error exact
:mod:`core.publication.cells`          a frequency table's cells: rows × a column's
                                       categories, each record's cell in O(N)
:mod:`core.publication.cell_errors`    the cells' 95 % bounds for one noise law
:mod:`core.publication.frequency_config`  the ``table: frequency`` fields of a config
:mod:`core.publication.margins`        a frequency table's row margins and its cells
                                       projected onto them (claim 8), their exact errors
=====================================  ===================================================
"""

from ..publication.composition import (
    CellBudget,
    HistogramBudget,
    cell_budget,
    design_refusal,
    histogram_budget,
    optimal_shares,
    sizes_statement,
    split_shares,
    table_eps,
)
from ..publication.frequency import FrequencyPlan, plan_frequency
from ..publication.table import (
    GROUPS,
    TABLE_COLUMNS,
    CellJob,
    TablePlan,
    cell_seed,
    cells_of,
    parse_statistic,
    plan_table,
    run_cell_job,
)

__all__ = [
    "GROUPS",
    "TABLE_COLUMNS",
    "CellBudget",
    "CellJob",
    "FrequencyPlan",
    "HistogramBudget",
    "TablePlan",
    "cell_budget",
    "cell_seed",
    "cells_of",
    "design_refusal",
    "histogram_budget",
    "optimal_shares",
    "parse_statistic",
    "plan_frequency",
    "plan_table",
    "run_cell_job",
    "sizes_statement",
    "split_shares",
    "table_eps",
]
