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
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass

import numpy as np

__all__ = ["ValueColumnChoice", "choose_value_column", "column_role"]

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
#: Name fragments of the columns of a sampling design.
_DESIGN = re.compile(
    r"^(strat\w*|\w*strata?|sdmv\w*|psu\w*|\w*psu|clust\w*|p?weights?|\w*wgt\w*|p?wt\w*|fpc\w*)$"
)
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
    if x.size >= 3 and distinct.size == x.size and distinct[-1] - distinct[0] == x.size - 1:
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
