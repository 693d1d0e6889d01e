"""Which column of an uploaded table holds the values to release: the default of the form.

A survey file opens with identifiers and design columns (a respondent number, the stratum and
PSU of the sampling design, a weight, coded answers with value labels) before the variables
that measure something. :func:`choose_value_column` skips those and picks the first column
that measures something, with the reason in words; :func:`column_role` says why one column
is not a measurement. The rules look at the column's name and at its values:

* **value labels** (Stata, SPSS): a coded variable, a label column;
* **identifier**: every value a distinct whole number and the values consecutive
  (1, 2, …, N in any order, or any run m, m + 1, …), or a name such as ``id``, ``seqn``,
  ``respid``, ``hhid``;
* **design column**: a name naming a stratum, PSU, cluster, weight or finite-population
  correction (``stratid``, ``sdmvstra``, ``psuid``, ``cluster``, ``wtmec2yr``, ``fpc``);
* **code**: a name naming a code, group, class or category (``code``, ``size_class``), or
  a 0/1 flag (at most two distinct whole numbers).

Counts with few distinct values (children in a household, 0 to 8) stay measurements: a
column is a label only by its name, its value labels or its two-valued flag.

The same form offers stratum and cluster columns. :func:`group_columns` offers only the
columns that label groups (:func:`group_column_role`: text or categories, value labels, a
stratum, PSU or cluster name, or a short whole-number code), never a sampling weight, a
measurement with decimals or many values, or an identifier with a value per row; and it
pre-selects the columns whose names look like a survey design: the stratum column as the
strata, and the stratum and PSU columns together as the clusters (survey files number
their PSUs 1, 2, … within each stratum, so the PSU column alone would merge PSUs of
different strata).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass

import numpy as np

__all__ = [
    "MAX_CODE_VALUES",
    "GroupColumns",
    "ValueColumnChoice",
    "choose_value_column",
    "column_role",
    "group_column_role",
    "group_columns",
]

#: Name tokens of identifiers.
_ID_TOKENS = frozenset({"id", "ids", "uid", "uuid", "seqn", "serial", "key", "rowid", "index"})
#: Words ending in "id" that are not identifiers (``fluid``, ``acid``).
_ID_WORDS = frozenset(
    {
        "acid",
        "aid",
        "arid",
        "avid",
        "fluid",
        "humid",
        "hybrid",
        "liquid",
        "lipid",
        "opioid",
        "paid",
        "rapid",
        "solid",
        "steroid",
        "thyroid",
        "unpaid",
        "valid",
        "vivid",
    }
)
#: Name fragments of the columns of a sampling design, by kind.
_STRATUM_NAME = r"strat\w*|\w*strata?|sdmvstra"
_PSU_NAME = r"psu\w*|\w*psu|clust\w*"
_WEIGHT_NAME = r"p?weights?|\w*wgt\w*|p?wt\w*|fpc\w*"
_DESIGN = re.compile(rf"^({_STRATUM_NAME}|sdmv\w*|{_PSU_NAME}|{_WEIGHT_NAME})$")
_STRATUM = re.compile(rf"^({_STRATUM_NAME})$")
_PSU = re.compile(rf"^({_PSU_NAME})$")
_WEIGHT = re.compile(rf"^({_WEIGHT_NAME})$")
#: Name tokens of codes and groups.
_CODE_TOKENS = frozenset(
    {"code", "codes", "cd", "class", "cat", "category", "group", "grp", "type", "flag"}
)


def _tokens(name: str) -> list[str]:
    """The lower-case words of a column name (``sizeClass`` and ``size_class``: size, class)."""
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", name)
    return [t for t in re.split(r"[^a-z0-9]+", spaced.lower()) if t]


def _is_id_name(tokens: list[str]) -> bool:
    for token in tokens:
        if token in _ID_TOKENS:
            return True
        if token.endswith("id") and len(token) > 2 and token not in _ID_WORDS:
            return True  # respid, hhid, stratid (the design rule names strata first)
    return False


@dataclass(frozen=True)
class ValueColumnChoice:
    """The default value column and why.

    Attributes
    ----------
    column : str
        The column chosen.
    reason : str
        One sentence for the user: why this column.
    skipped : tuple of (str, str)
        The columns before it that were passed over, each with the reason.
    """

    column: str
    reason: str
    skipped: tuple[tuple[str, str], ...] = ()


def column_role(name: str, values: np.ndarray, *, has_value_labels: bool = False) -> str | None:
    """Why a numeric column is an identifier or a label rather than a measurement, or None.

    The rules of the module docstring, in this order: value labels, a design name, an
    identifier name, a code name, consecutive distinct whole numbers, a 0/1 flag.

    Parameters
    ----------
    name : str
        The column's name.
    values : numpy.ndarray
        The column as numbers (NaN where a cell is missing or not a number).
    has_value_labels : bool, optional
        Whether the file gives the column value labels (Stata, SPSS).

    Returns
    -------
    str or None
        The reason in words ("an identifier (its values are 1, 2, …, 500)"), or None for a
        measurement.
    """
    if has_value_labels:
        return "a coded label column (it has value labels)"
    tokens = _tokens(name)
    if any(_DESIGN.match(token) for token in tokens):
        return "a sampling-design column (stratum, PSU, cluster or weight, by its name)"
    if _is_id_name(tokens):
        return "an identifier (by its name)"
    if any(token in _CODE_TOKENS for token in tokens):
        return "a code or group column (by its name)"
    x = np.asarray(values, dtype=np.float64)
    x = x[np.isfinite(x)]
    if x.size == 0 or not np.all(x == np.round(x)):
        return None
    distinct = np.unique(x)
    with np.errstate(over="ignore"):  # values near ±1e308: their span is inf, not a run
        span = distinct[-1] - distinct[0]
    if x.size >= 3 and distinct.size == x.size and span == x.size - 1:
        return (
            f"an identifier (its values are the whole numbers {distinct[0]:.0f} to "
            f"{distinct[-1]:.0f}, each once)"
        )
    if distinct.size <= 2 and x.size > 2:
        shown = " and ".join(f"{v:.0f}" for v in distinct)
        return f"a flag (its only values are {shown})"
    return None


def choose_value_column(
    columns: Sequence[str],
    values: Callable[[str], np.ndarray],
    *,
    labelled: Collection[str] = (),
) -> ValueColumnChoice:
    """The first column that measures something: the default value column of an upload.

    Each column in order is judged by :func:`column_role`; the first that is neither an
    identifier nor a label is chosen. When every column is one of those, the first column
    is chosen and the reason says so (the user picks another).

    Parameters
    ----------
    columns : sequence of str
        The candidate columns in the file's order (those holding at least a few numbers).
    values : callable
        ``values(column)``: the column as float64, NaN where not a number.
    labelled : collection of str, optional
        The columns with value labels.

    Returns
    -------
    ValueColumnChoice

    Raises
    ------
    ValueError
        If ``columns`` is empty.
    """
    if not columns:
        raise ValueError("columns must name at least one column, got none.")
    skipped: list[tuple[str, str]] = []
    for column in columns:
        role = column_role(column, values(column), has_value_labels=column in labelled)
        if role is None:
            reason = f"{column!r} is the first column that measures something"
            if skipped:
                reason += "; passed over: " + "; ".join(f"{c!r}, {why}" for c, why in skipped)
            return ValueColumnChoice(column, reason + ".", tuple(skipped))
        skipped.append((column, role))
    first = columns[0]
    return ValueColumnChoice(
        first,
        f"Every numeric column looks like an identifier or a label ({first!r} is "
        f"{skipped[0][1]}); {first!r} is shown first: choose the column to release.",
        tuple(skipped),
    )


#: Most distinct values of a whole-number column offered as a group label by its values
#: alone (region, age group, size class); beyond it a column without a label-like name or
#: value labels is a measurement (age in years, a count of micrograms).
MAX_CODE_VALUES = 20

#: Least rows per distinct value, on average, of a group label: a column with a value in
#: nearly every row (an identifier, a free-text field) forms no groups.
_MIN_ROWS_PER_VALUE = 2


@dataclass(frozen=True)
class GroupColumns:
    """The stratum and cluster columns an upload form offers, and those it pre-selects.

    Attributes
    ----------
    offered : tuple of str
        The columns that label groups, in the file's order.
    left_out : tuple of (str, str)
        The other columns, each with the reason in words.
    stratum : tuple of str
        Pre-selected stratum columns: the first offered column named like a stratum.
    cluster : tuple of str
        Pre-selected cluster columns: the first offered column named like a PSU or cluster,
        after the pre-selected stratum column (PSUs are numbered within strata).
    """

    offered: tuple[str, ...]
    left_out: tuple[tuple[str, str], ...]
    stratum: tuple[str, ...]
    cluster: tuple[str, ...]

    @property
    def preselected(self) -> tuple[str, ...]:
        """Every pre-selected column once, in the order stratum, then cluster."""
        return tuple(dict.fromkeys(self.stratum + self.cluster))


def group_column_role(
    name: str,
    entries: np.ndarray,
    counts: np.ndarray,
    *,
    has_value_labels: bool = False,
) -> tuple[bool, str]:
    """Whether a column can label strata or clusters, and why (in words).

    The column is given by its distinct entries (as numbers) and the rows holding each;
    ``N`` is the number of rows and ``k`` of distinct entries (a blank counting as one).
    The rules, in order:

    1. ``k < 2``: no (no groups);
    2. a sampling weight or finite-population correction by its name (``finalwgt``,
       ``wtmec2yr``, ``fpc``): no, whatever its values;
    3. ``k > N / 2``: no (a value in nearly every row, like an identifier);
    4. value labels (Stata, SPSS), a stratum, PSU or cluster name, or mostly text (fewer
       than half the rows numbers): yes;
    5. numbers with decimals: no (a measurement);
    6. whole numbers: yes under an identifier or code name (``hhid``, ``size_class``) or
       with at most :data:`MAX_CODE_VALUES` distinct numbers; otherwise no (a measurement
       such as age in years).

    Parameters
    ----------
    name : str
        The column's name.
    entries : numpy.ndarray
        The column's distinct entries as numbers (NaN for a blank or a text entry).
    counts : numpy.ndarray
        The rows holding each entry (≥ 1 each), aligned with ``entries``.
    has_value_labels : bool, optional
        Whether the file gives the column value labels.

    Returns
    -------
    (bool, str)
        Whether the column is offered, and the reason ("a stratum, PSU or cluster column
        (by its name)", "a sampling weight (by its name)", ...).

    Raises
    ------
    ValueError
        If ``entries`` and ``counts`` differ in length or a count is below 1.
    """
    x = np.asarray(entries, dtype=np.float64).ravel()
    n = np.asarray(counts).ravel()
    if n.shape != x.shape or (n.size and (not np.issubdtype(n.dtype, np.integer) or n.min() < 1)):
        raise ValueError(
            f"counts must be whole numbers ≥ 1, one per entry; got {n.size} counts for "
            f"{x.size} entries"
        )
    distinct, rows = int(x.size), int(n.sum())
    numbers = np.isfinite(x)
    tokens = _tokens(name)
    if distinct < 2:
        return False, "a single value (no groups)"
    if any(_WEIGHT.match(t) for t in tokens):
        return False, "a sampling weight (by its name)"
    if distinct * _MIN_ROWS_PER_VALUE > rows:
        return False, f"{distinct:,} different values in {rows:,} rows, like an identifier"
    if has_value_labels:
        return True, "coded, with value labels"
    if any(_STRATUM.match(t) or _PSU.match(t) for t in tokens):
        return True, "a stratum, PSU or cluster column (by its name)"
    if 2 * int(n[numbers].sum()) < rows:
        return True, f"text with {distinct:,} different values"
    finite = x[numbers]
    if not np.all(finite == np.round(finite)):
        return False, "a measurement (numbers with decimals)"
    if _is_id_name(tokens) or any(t in _CODE_TOKENS for t in tokens):
        return True, "a group code (by its name)"
    codes = int(numbers.sum())
    if codes <= MAX_CODE_VALUES:
        return True, f"a whole-number code with {codes:,} values"
    return False, f"a measurement ({codes:,} different whole numbers)"


def group_columns(
    columns: Sequence[str],
    entries: Callable[[str], tuple[np.ndarray, np.ndarray]],
    *,
    labelled: Collection[str] = (),
    value_column: str | None = None,
) -> GroupColumns:
    """The columns an upload form offers as stratum and cluster columns, and its defaults.

    Each column but ``value_column`` is judged by :func:`group_column_role`. Among the
    offered ones, the first named like a stratum (``stratid``, ``sdmvstra``, ``varstrat``)
    is pre-selected as the stratum column, and the first named like a PSU or cluster
    (``psuid``, ``sdmvpsu``, ``cluster``), after that stratum column, as the cluster
    columns: design files number their PSUs within each stratum, and when the PSU
    numbers are unique across strata the pair gives the same clusters as the PSU alone.

    Parameters
    ----------
    columns : sequence of str
        The candidate columns in the file's order.
    entries : callable
        ``entries(column)``: its distinct entries as float64 (NaN where blank or not a
        number) and the rows holding each (``distinct_entries`` of the tables of
        :func:`core.populations.read_file_table`).
    labelled : collection of str, optional
        The columns with value labels.
    value_column : str, optional
        The column released, never offered as a label.

    Returns
    -------
    GroupColumns
    """
    offered: list[str] = []
    left_out: list[tuple[str, str]] = []
    for column in columns:
        if column == value_column:
            continue
        ok, why = group_column_role(column, *entries(column), has_value_labels=column in labelled)
        if ok:
            offered.append(column)
        else:
            left_out.append((column, why))

    def first(pattern: re.Pattern[str]) -> tuple[str, ...]:
        named = (c for c in offered if any(pattern.match(t) for t in _tokens(c)))
        return tuple(itertools.islice(named, 1))

    stratum = first(_STRATUM)
    psu = first(_PSU)
    cluster = tuple(dict.fromkeys(stratum + psu)) if psu else ()
    return GroupColumns(tuple(offered), tuple(left_out), stratum, cluster)
