"""A population from a table: value column, bounds, and stratum and cluster labels.

:func:`load_population_csv` reads a CSV file into a :class:`~core.population.Population`;
:func:`population_from_table` builds one from any table of text cells (also the other file
formats of :mod:`core.file_io`).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np
import pandas as pd

from .._validation import number_text, plural, quoted
from ..categories import MISSING_CATEGORY, check_category_count
from ..csv_io.parsing import _IRREGULAR_QUOTING
from ..csv_io.table import _MIN_VALUES, CsvTable, _unknown_column, read_csv_table
from ..population import (
    LABEL_NAME_JOIN,
    FileSettings,
    Population,
    cluster_strata_message,
    suggest_bounds,
)

__all__ = [
    "load_population_csv",
]


_MISSING_LABEL = MISSING_CATEGORY
#: Joins the parts of a label built from several columns ("3 / 1").
_LABEL_JOIN = " / "


def load_population_csv(
    source: Any,
    *,
    value_column: str | None = None,
    lower: float | None = None,
    upper: float | None = None,
    stratum_column: str | Sequence[str] | None = None,
    cluster_column: str | Sequence[str] | None = None,
    name: str | None = None,
    category_column: str | Sequence[str] | None = None,
) -> Population:
    """Build a :class:`Population` from a CSV file.

    Parameters
    ----------
    source : str, os.PathLike, bytes, binary file-like or CsvTable
        As for :func:`read_csv_table`; an already read :class:`CsvTable` is used as is.
    value_column : str, optional
        Column of values; default the first numeric column. Blank, non-numeric and infinite
        cells are dropped (with their rows) and counted in a note.
    lower, upper : float, optional
        Declared public bounds (Hu et al. (2023), §2.2: the range R must not be read from the data).
        Values outside are clipped to them, with a note. A bound left as None is taken from
        the data with :func:`suggest_bounds`, with a warning that such bounds are not
        differentially private. ``upper=float("inf")`` declares that no upper bound is
        public (only the unbounded quantile mechanism runs on such a population).
    stratum_column, cluster_column : str or sequence of str, optional
        Label columns for stratified sampling (Bun et al. (2022), §7) and cluster sampling
        (§5). A list of several columns builds one id from all of them: survey files number
        their PSUs 1, 2, ... within each stratum, so ``cluster_column=["stratid", "psuid"]``
        is the cluster id there. Combined labels read ``"3 / 1"`` (the parts joined by
        ``" / "``) and the label name ``"stratid × psuid"``. Blank cells become
        ``"(missing)"``. Labels are reordered together with the values (stable sort). When
        cluster labels occur in more than one stratum, the text of
        :func:`cluster_strata_note` is added to the notes.
    name : str, optional
        Display name; default built from the file name and the value column.
    category_column : str or sequence of str, optional
        The column of categories that counts, proportions and frequency tables count by
        (:attr:`Population.categories`), read as the label columns are (several columns
        joined, value labels as text). A blank cell gets the category ``"(missing)"``,
        counted like any other so that the counts still add up to N, and the notes say how
        many rows got it. At most :data:`core.categories.MAX_CATEGORIES` categories.

    Returns
    -------
    Population

    Raises
    ------
    ValueError
        Any problem with the file (see :func:`read_csv_table`), an unknown column, a value
        column with fewer than 3 usable numbers, bounds that are not finite with
        lower < upper, or a category column that is the value column, is blank in every
        row kept, or has more than :data:`core.categories.MAX_CATEGORIES` categories.
    """
    table = source if isinstance(source, CsvTable) else read_csv_table(source)
    return population_from_table(
        table,
        value_column=value_column,
        lower=lower,
        upper=upper,
        stratum_column=stratum_column,
        cluster_column=cluster_column,
        name=name,
        category_column=category_column,
    )


class PopulationTable(Protocol):
    """What :func:`population_from_table` needs of a table read from a file.

    :class:`CsvTable` and :class:`core.file_io.FileTable` provide it.
    """

    @property
    def frame(self) -> pd.DataFrame: ...

    @property
    def numeric_columns(self) -> list[str]: ...

    @property
    def notes(self) -> tuple[str, ...]: ...

    @property
    def source_name(self) -> str | None: ...

    def column_values(self, column: str) -> np.ndarray: ...

    def label_cells(self, column: str) -> np.ndarray: ...

    def label_codes(self, column: str) -> tuple[np.ndarray, np.ndarray]: ...


def population_from_table(
    table: PopulationTable,
    *,
    value_column: str | None = None,
    lower: float | None = None,
    upper: float | None = None,
    stratum_column: str | Sequence[str] | None = None,
    cluster_column: str | Sequence[str] | None = None,
    name: str | None = None,
    loader: str = "load_population_csv",
    default_file: str = "population.csv",
    category_column: str | Sequence[str] | None = None,
) -> Population:
    """The :class:`Population` of a table read from a file (CSV or any other format).

    The arguments from ``value_column`` to ``name``, and ``category_column``, are those of
    :func:`load_population_csv`, with the same meaning and checks. ``loader`` names the
    public function whose call, with the file's name (``default_file`` when the table has
    none) and the chosen arguments, becomes the population's ``recipe``.

    Returns
    -------
    Population

    Raises
    ------
    ValueError
        An unknown column, a value column with fewer than 3 usable numbers, bounds that
        are not finite with lower < upper, or a category column that cannot be one.
    """
    columns = list(table.frame.columns)
    if value_column is None:
        if not table.numeric_columns:
            hint = (
                " The file has irregular quoting (an unmatched '\"' can swallow the rest of "
                "the file); check the quotes."
                if any(n.startswith(_IRREGULAR_QUOTING) for n in table.notes)
                else ""
            )
            raise ValueError(
                "No column holds at least 3 numbers, so there is no value column. Columns: "
                + ", ".join(quoted(c) for c in columns[:20])
                + "."
                + hint
            )
        value_column = table.numeric_columns[0]
    stratum_columns = _column_list(stratum_column, "stratum")
    cluster_columns = _column_list(cluster_column, "cluster")
    category_columns = _column_list(category_column, "category")
    for col in [value_column, *stratum_columns, *cluster_columns, *category_columns]:
        if col not in columns:
            raise ValueError(_unknown_column(col, columns))
    if value_column in category_columns:
        raise ValueError(
            f"Column {quoted(value_column)} is the value column; it cannot also be the category "
            "column. Choose a column that classifies the records (a size class, a sector), "
            "or a range of values for a count of the values themselves."
        )
    numbers = table.column_values(value_column)
    usable = np.isfinite(numbers)
    n_usable = int(np.count_nonzero(usable))
    notes: list[str] = []
    if n_usable < _MIN_VALUES:
        raise ValueError(
            f"Column {quoted(value_column)} has {plural(n_usable, 'usable number')}; at least "
            f"{_MIN_VALUES} are needed."
        )
    dropped = numbers.size - n_usable
    if dropped:
        notes.append(
            f"Dropped {plural(dropped, 'row')} whose value was blank, not a number or infinite."
        )
    for col in category_columns:
        _check_category_column(table, col, usable)
    values = numbers[usable]
    declared_lo, declared_hi = _check_bound(lower, "lower"), _check_bound(upper, "upper")
    if declared_lo is not None and declared_hi is not None and not declared_lo < declared_hi:
        raise ValueError(
            f"The lower bound ({number_text(declared_lo)}) must be smaller than the upper bound "
            f"({number_text(declared_hi)})."
        )
    # Read from the data only when a bound is missing (a pass over every value otherwise).
    data_lo, data_hi = (
        suggest_bounds(values)
        if declared_lo is None or declared_hi is None
        else (declared_lo, declared_hi)
    )
    lo = declared_lo if declared_lo is not None else data_lo
    hi = declared_hi if declared_hi is not None else data_hi
    if declared_lo is None and declared_hi is not None and lo >= hi:
        lo = min(data_lo, hi - max(1.0, abs(hi)))
    if declared_hi is None and declared_lo is not None and hi <= lo:
        hi = max(data_hi, lo + max(1.0, abs(lo)))
    if not lo < hi:
        raise ValueError(f"The bounds [{number_text(lo)}, {number_text(hi)}] are empty.")
    n_below = n_above = 0
    if declared_lo is not None or declared_hi is not None:
        n_below = int(np.count_nonzero(values < lo))
        n_above = int(np.count_nonzero(values > hi))
        if n_below or n_above:
            notes.append(
                f"Clipped {plural(n_below + n_above, 'value')} to the declared bounds "
                f"[{number_text(lo)}, {number_text(hi)}] ({n_below:,} below, {n_above:,} above)."
            )
            values = np.clip(values, lo, hi)
        notes.append(
            "Declared bounds must be public knowledge (a legal limit, a top-code, a physical "
            "range), not read from this data."
        )
    if declared_lo is None or declared_hi is None:
        which = (
            "Both bounds were"
            if declared_lo is None and declared_hi is None
            else ("The lower bound was" if declared_lo is None else "The upper bound was")
        )
        notes.append(
            f"{which} read from the data (range rounded outward to "
            f"[{number_text(lo)}, {number_text(hi)}]). "
            "Bounds read from the data are not differentially private; declare public bounds "
            "instead."
        )
    if stratum_columns or cluster_columns or category_columns:
        order, values = _stable_order(values)
    else:
        order = np.arange(0)  # no labels to reorder: sort the values alone (faster)
        values = np.sort(values, kind="stable")
    strata = _labels(table, stratum_columns, usable, order, notes, "stratum")
    clusters = _labels(table, cluster_columns, usable, order, notes, "cluster")
    categories = _labels(table, category_columns, usable, order, notes, "category")
    category_label = LABEL_NAME_JOIN.join(category_columns) or "category"
    if categories is not None:  # the categories used (a blank's entry may be unused)
        used = np.bincount(categories.codes, minlength=len(categories.categories))
        check_category_count(int(np.count_nonzero(used)), category_label)
    stratum_label = LABEL_NAME_JOIN.join(stratum_columns) or "stratum"
    cluster_label = LABEL_NAME_JOIN.join(cluster_columns) or "cluster"
    if strata is not None and clusters is not None:
        shared = cluster_strata_message(strata, clusters, stratum_label, cluster_label)
        if shared is not None:
            notes.append(shared)
    if name is None:
        origin = table.source_name or "the uploaded file"
        name = f"{value_column} from {origin}, N = {n_usable:,}"
    file_name = table.source_name or default_file
    args = [
        repr(file_name),
        f"value_column={str(value_column)!r}",
        f"lower={lo!r}",
        "upper=float('inf')" if hi == math.inf else f"upper={hi!r}",
    ]
    for keyword, chosen in (
        ("stratum_column", stratum_columns),
        ("cluster_column", cluster_columns),
        ("category_column", category_columns),
    ):
        if len(chosen) == 1:
            args.append(f"{keyword}={chosen[0]!r}")
        elif chosen:
            args.append(f"{keyword}={chosen!r}")
    return Population(
        name=name,
        values=values,
        lower=lo,
        upper=hi,
        strata=strata,
        clusters=clusters,
        value_label=str(value_column),
        notes=tuple(list(table.notes) + notes),
        stratum_label=stratum_label,
        cluster_label=cluster_label,
        categories=categories,
        category_label=category_label,
        recipe=f"{loader}({', '.join(args)})",
        file_settings=FileSettings(
            file=file_name,
            value_column=str(value_column),
            lower=lo,
            upper=hi,
            bounds_declared=declared_lo is not None and declared_hi is not None,
            stratum_columns=tuple(stratum_columns),
            cluster_columns=tuple(cluster_columns),
            rows_read=int(numbers.size),
            rows_dropped=int(dropped),
            clipped_below=n_below,
            clipped_above=n_above,
            category_column=tuple(category_columns),
        ),
    )


def _check_category_column(table: PopulationTable, column: str, usable: np.ndarray) -> None:
    """Refuse a category column blank in every row kept, or with too many categories.

    Both are checked on the column's codes, before any record is sorted.
    """
    codes, text = table.label_codes(column)
    kept = codes[usable] if not usable.all() else codes
    present = np.zeros(len(text), dtype=bool)
    present[kept] = True  # code -1 (a missing cell) marks the last entry, ""
    present &= text != ""
    n_categories = int(np.count_nonzero(present))
    if n_categories == 0:
        raise ValueError(
            f"The category column {quoted(column)} is blank in every row kept, so it has no "
            "category to count. Choose a column that holds categories."
        )
    check_category_count(n_categories, column)


def _check_bound(x: Any, which: str) -> float | None:
    if x is None:
        return None
    try:
        v = float(x)
    except (TypeError, ValueError):
        raise ValueError(f"The {which} bound must be a number, got {quoted(x)}.") from None
    if which == "upper" and v == math.inf:
        return v  # no public upper bound
    if not math.isfinite(v):
        raise ValueError(f"The {which} bound must be a finite number, got {x!r}.")
    return v


def _column_list(column: Any, what: str) -> list[str]:
    """The label column argument as a list of column names (empty for None)."""
    if column is None:
        return []
    if isinstance(column, str):
        return [column]
    if not isinstance(column, (list, tuple)):
        raise ValueError(
            f"The {what} column must be a column name or a list of column names, got "
            f"{quoted(column)}."
        )
    names = list(column)
    for c in names:
        if not isinstance(c, str):
            raise ValueError(f"The {what} columns must be column names, got {quoted(c)}.")
    twice = [c for c, k in Counter(names).items() if k > 1]
    if twice:
        raise ValueError(f"The {what} columns name {quoted(twice[0])} more than once.")
    return names


def _stable_order(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``order = numpy.argsort(values, kind="stable")`` and ``values[order]``, faster.

    An unstable sort (about three times faster than the stable one on 10⁶ floats), then the
    records of each run of equal values put back in their file order: only the tied
    records are sorted again, by (run, position), and only their runs are numbered.
    """
    order = np.argsort(values)
    ordered = values[order]
    tied = ordered[1:] == ordered[:-1]  # tied[i]: ordered[i + 1] equals ordered[i]
    first = np.flatnonzero(tied)
    if first.size:
        n = order.size
        in_run = np.zeros(n, dtype=bool)
        in_run[first] = True
        in_run[first + 1] = True
        where = np.flatnonzero(in_run)
        starts = np.ones(where.size, dtype=bool)  # a tied record not tied to the one before
        starts[1:] = ~tied[where[1:] - 1]
        keys = np.cumsum(starts, dtype=np.int64) * n + order[where]
        keys.sort()
        order[where] = keys % n
        ordered[where] = values[order[where]]  # 0.0 and -0.0 tie but are not the same bits
    return order, ordered


def _distinct_text(codes: np.ndarray, text: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Codes into ``text`` renumbered so that no text occurs twice (-1 reads the last)."""
    renumber, distinct = pd.factorize(text, sort=False)
    if len(distinct) == len(text):
        return codes, text
    return renumber[codes], np.asarray(distinct, dtype=object)


def _labels(
    table: PopulationTable,
    columns: list[str],
    usable: np.ndarray,
    order: np.ndarray,
    notes: list[str],
    what: str,
) -> pd.Categorical | None:
    """Label cells of the usable rows in value order; several columns joined as "a / b".

    The labels stay codes into their distinct text until the end: a register of 10⁶ rows
    has a few distinct labels, and its rows are reordered as integers, not as strings.
    """
    if not columns:
        return None
    codes = np.zeros(0, dtype=np.int64)
    text = np.zeros(0, dtype=object)
    blank_text = np.zeros(0, dtype=bool)  # the labels with a blank part
    for number, column in enumerate(columns):
        cell_codes, cells = table.label_codes(column)
        cell_codes = np.where(cell_codes < 0, len(cells) - 1, cell_codes)  # blank: last, ""
        blank = cells == ""
        if blank.any():
            cells = cells.copy()
            cells[blank] = _MISSING_LABEL
        if number == 0:
            codes, text, blank_text = cell_codes, cells, blank
            continue
        pairs, first = pd.factorize(codes.astype(np.int64) * len(cells) + cell_codes, sort=False)
        left, right = first // len(cells), first % len(cells)
        parts = [text[left].astype(str), cells[right].astype(str)]
        text = np.char.add(np.char.add(parts[0], _LABEL_JOIN), parts[1]).astype(object)
        codes, blank_text = pairs, blank_text[left] | blank[right]
    codes = codes[order] if usable.all() else codes[usable][order]
    blanks = int(np.bincount(codes, minlength=len(text))[blank_text].sum())
    if blanks:
        where = " or ".join(quoted(c) for c in columns)
        part = "label part" if len(columns) > 1 else "label"
        if what == "category":  # counted: say so, the counts by category include them
            part = "part" if len(columns) > 1 else ""
            counted = f" They are counted as the category {_MISSING_LABEL!r}, not dropped."
        else:
            counted = ""
        notes.append(
            f"Gave the {' '.join(filter(None, (what, part)))} {_MISSING_LABEL!r} to "
            f"{plural(blanks, 'row')} whose cell in {where} is blank.{counted}"
        )
    codes, text = _distinct_text(codes, text)
    return pd.Categorical.from_codes(codes, categories=pd.Index(text, dtype=object))
