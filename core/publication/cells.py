"""The cells of a frequency table: one or two row label columns × the categories of a column.

A frequency table's cells are every combination of the labels of its row columns and of its
column (all combinations, the empty ones included: a table shows every cell, and the labels
are taken as the public domain of each column).  :func:`frequency_cells` numbers them and
gives each record its cell's code in O(N), from the codes the population already keeps
(:meth:`core.population.Population.label_codes`), so a register of 10⁷ records is never
grouped by hashing its labels again.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._validation import check_whole
from ..population import Population
from ..publication.table import reading_order

__all__ = [
    "LABEL_COLUMNS",
    "MAX_COLUMN_CATEGORIES",
    "FrequencyCells",
    "frequency_cells",
    "label_columns_of",
]

#: The label columns a frequency table can be built from (those the population has).
LABEL_COLUMNS = ("strata", "clusters", "categories")
#: A table's column shows at most this many categories (a wider table cannot be read).
MAX_COLUMN_CATEGORIES = 50


def label_columns_of(population: Population) -> list[str]:
    """The label columns of :data:`LABEL_COLUMNS` that ``population`` has."""
    return [c for c in LABEL_COLUMNS if getattr(population, c, None) is not None]


def _column_name(population: Population, which: str) -> str:
    names = {
        "strata": population.stratum_label,
        "clusters": population.cluster_label,
        "categories": getattr(population, "category_label", "category"),
    }
    return str(names[which])


def _ranked_codes(population: Population, which: str) -> tuple[np.ndarray, list[str]]:
    """Each record's label as a code in the labels' reading order, and the labels' text."""
    got = None if getattr(population, which, None) is None else population.label_codes(which)
    if got is None:
        raise ValueError(
            f"the population has no {which} labels; its label columns are "
            f"{', '.join(label_columns_of(population)) or 'none'}"
        )
    codes, uniques = got
    texts = [str(u) for u in np.asarray(uniques)]
    order = sorted(range(len(texts)), key=lambda i: reading_order(texts[i]))
    rank = np.empty(len(texts), dtype=np.int64)
    rank[order] = np.arange(len(texts))
    return rank[np.asarray(codes)], [texts[i] for i in order]


@dataclass(frozen=True, eq=False)
class FrequencyCells:
    """The cells of a frequency table (:func:`frequency_cells`).

    Attributes
    ----------
    row_columns : tuple of str
        The row label columns (``"strata"``, ``"clusters"``, ``"categories"``).
    row_names : tuple of str
        Their names as the population shows them (``"region"``).
    column : str or None
        The column's label column, or None for a table of one column.
    column_name : str
        Its name ("" without a column).
    row_labels : list of tuple
        Each row's labels, in reading order (the first row column varies slowest).
    column_labels : list of str
        The column's categories in reading order (``[""]`` without a column).
    codes : ndarray of int64, shape (N,)
        Each record's cell, ``row * n_columns + column``, aligned with the population's
        (sorted) values.
    """

    row_columns: tuple[str, ...]
    row_names: tuple[str, ...]
    column: str | None
    column_name: str
    row_labels: list[tuple[str, ...]]
    column_labels: list[str]
    codes: np.ndarray

    @property
    def n_rows(self) -> int:
        """Number of rows."""
        return len(self.row_labels)

    @property
    def n_columns(self) -> int:
        """Number of columns (1 without a column)."""
        return len(self.column_labels)

    @property
    def n_cells(self) -> int:
        """Number of cells, ``rows × columns``."""
        return self.n_rows * self.n_columns

    def cell_labels(self) -> dict[str, list[Any]]:
        """Each cell's labels by column name, cells in code order (row-major)."""
        out: dict[str, list[Any]] = {}
        for j, name in enumerate(self.row_names):
            out[name] = [lab[j] for lab in self.row_labels for _ in self.column_labels]
        if self.column is not None:
            out[self.column_name] = [c for _ in self.row_labels for c in self.column_labels]
        return out


def frequency_cells(
    population: Population,
    rows: Sequence[str],
    column: str | None = None,
    *,
    max_cells: int = 100_000,
    max_columns: int = MAX_COLUMN_CATEGORIES,
) -> FrequencyCells:
    """The cells of a table of ``rows`` (one or two label columns) × ``column``'s categories.

    Parameters
    ----------
    population : Population
    rows : sequence of str
        One or two distinct of :data:`LABEL_COLUMNS` that the population has.
    column : str, optional
        A label column not among ``rows`` whose categories make the table's columns.
    max_cells : int
        Refuse tables with more cells than this.
    max_columns : int
        Refuse a column with more categories than this (a table cannot show them).

    Returns
    -------
    FrequencyCells

    Raises
    ------
    ValueError
        A plain sentence: an unknown or repeated column, one the population lacks, a column
        with more categories than ``max_columns``, or more cells than ``max_cells``.
    """
    if isinstance(rows, str):
        rows = (rows,)
    rows = tuple(rows)
    limit = check_whole("max_cells", max_cells, 1, 10**8)
    wide = check_whole("max_columns", max_columns, 1, 10**6)
    for r in (*rows, *(() if column is None else (column,))):
        if r not in LABEL_COLUMNS:
            raise ValueError(f"a table's label column must be one of {LABEL_COLUMNS}; got {r!r}")
    if not 1 <= len(rows) <= 2 or len(set(rows)) != len(rows):
        raise ValueError(f"rows must name one or two distinct label columns; got {list(rows)!r}")
    if column is not None and column in rows:
        raise ValueError(f"the column {column!r} is also a row; choose another column")
    ranked = [_ranked_codes(population, r) for r in rows]
    col_codes: np.ndarray | None = None
    col_labels = [""]
    if column is not None:
        col_codes, col_labels = _ranked_codes(population, column)
        if len(col_labels) > wide:
            raise ValueError(
                f"the column {_column_name(population, column)!r} ({column}) has "
                f"{len(col_labels):,} categories, more than the {wide} a table can show; "
                "choose a column with fewer categories, or make it a row"
            )
    n_rows = int(np.prod([len(lab) for _, lab in ranked]))
    n_cells = n_rows * len(col_labels)
    names = tuple(_column_name(population, r) for r in rows)
    col_name = "" if column is None else _column_name(population, column)
    every = [*names, *([col_name] if column is not None else [])]
    if len(set(every)) < len(every):
        # two label columns with one name: tell them apart by their kinds
        names = tuple(f"{n} ({r})" for n, r in zip(names, rows, strict=True))
        col_name = "" if column is None else f"{col_name} ({column})"
    if n_cells > limit:
        shape = " × ".join(
            [*(f"{len(lab):,} {n}" for (_, lab), n in zip(ranked, names, strict=True))]
            + ([f"{len(col_labels):,} {_column_name(population, column)}"] if column else [])
        )
        raise ValueError(f"the table has {n_cells:,} cells ({shape}), more than {limit:,}")
    row_code = ranked[0][0]
    if len(ranked) == 2:
        row_code = row_code * len(ranked[1][1]) + ranked[1][0]
    codes = row_code * len(col_labels)
    if col_codes is not None:
        codes = codes + col_codes
    row_labels: list[tuple[str, ...]]
    if len(ranked) == 2:
        row_labels = [(a, b) for a in ranked[0][1] for b in ranked[1][1]]
    else:
        row_labels = [(a,) for a in ranked[0][1]]
    return FrequencyCells(
        row_columns=rows,
        row_names=names,
        column=column,
        column_name=col_name,
        row_labels=row_labels,
        column_labels=col_labels,
        codes=np.ascontiguousarray(codes, dtype=np.int64),
    )
