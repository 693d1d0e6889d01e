"""Which linear statistic is released: a count, a total or a proportion, and of which records.

A :class:`LinearStatistic` selects records (those with one label of a label column, those
with a value in a range, or all) and names what is summed over them:

* **count** -- the number of selected records, ``Σ y`` with ``y = 1{selected}``;
* **total** -- the sum of the selected records' values, ``y = x·1{selected}``;
* **proportion** -- the count divided by the population size ``N``.

Everything a design or mechanism needs is the vector ``y`` (:func:`y_values`) with public
bounds ``[y_lower, y_upper]`` on each record's contribution, and from them the sensitivity of
``Σ y`` under each neighbouring relation (:func:`sensitivity`): a record added or removed
moves the sum by at most ``max(|y_lower|, |y_upper|)``; a record changed (which may also
change its label, so leave or join the selection) by at most ``y_upper − y_lower``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from .._validation import number_text
from ..population import Population

__all__ = [
    "KINDS",
    "LABEL_COLUMNS",
    "LinearStatistic",
    "check_statistic",
    "indicator",
    "label_names",
    "sensitivities",
    "sensitivity",
    "whole_numbers",
    "y_bounds",
    "y_values",
]

#: The linear statistics, in display order.
KINDS = ("count", "total", "proportion")
#: The label columns a selection may name (those the population has).
LABEL_COLUMNS = ("categories", "strata", "clusters")
#: The neighbouring relations: a changed record, an added or removed one.
_RELATIONS = ("replacement", "deletion")


@dataclass(frozen=True)
class LinearStatistic:
    """A count, total or proportion of the records a selection keeps.

    Parameters
    ----------
    kind : {"count", "total", "proportion"}
    column : {"categories", "strata", "clusters"} or None
        A label column: keep the records whose label is ``category``.
    category : str or None
        The label kept, as text (as the population's labels print).
    value_range : (lo, hi) or None
        Keep the records with ``lo ≤ x ≤ hi``, inside the public bounds.
    """

    kind: str
    column: str | None = None
    category: str | None = None
    value_range: tuple[float, float] | None = None

    @property
    def selects(self) -> bool:
        """Whether some records are left out (a label or a range is named)."""
        return self.column is not None or self.value_range is not None


def _labels(population: Population, column: str) -> NDArray[np.object_] | NDArray[np.int64] | None:
    return getattr(population, column, None)


def label_names(population: Population, column: str) -> list[str]:
    """The distinct labels of ``column`` as text, in the order the population numbers them."""
    got = population.label_codes(column) if column in LABEL_COLUMNS else None
    if got is None:
        return []
    return [str(u) for u in got[1]]


def check_statistic(population: Population, stat: LinearStatistic) -> LinearStatistic:
    """``stat`` if it can be released from ``population``; ValueError in plain words if not.

    Checked: the kind; a label column the population has, with the category among its
    labels; a range inside the public bounds, lower end first; a public upper bound for a
    total (its sensitivity needs one).
    """
    if stat.kind not in KINDS:
        raise ValueError(f"The statistic must be one of {', '.join(KINDS)}; got {stat.kind!r}.")
    if stat.column is not None:
        if stat.column not in LABEL_COLUMNS:
            raise ValueError(
                f"A count selects by a label column ({', '.join(LABEL_COLUMNS)}); "
                f"got {stat.column!r}."
            )
        if _labels(population, stat.column) is None:
            raise ValueError(f"This population has no {stat.column} column to select by.")
        if stat.category is None or str(stat.category) not in label_names(population, stat.column):
            raise ValueError(
                f"The category {stat.category!r} does not occur in this population's "
                f"{stat.column}; choose one of its labels."
            )
    elif stat.category is not None:
        raise ValueError("A category needs the label column it belongs to.")
    if stat.value_range is not None:
        lo, hi = (float(v) for v in stat.value_range)
        if not (math.isfinite(lo) and not math.isnan(hi)):
            raise ValueError("The range's ends must be numbers.")
        if lo > hi:
            raise ValueError(
                f"The range's lower end {number_text(lo)} is above its upper end {number_text(hi)}."
            )
        if lo < population.lower or hi > population.upper:
            raise ValueError(
                f"The range [{number_text(lo)}, {number_text(hi)}] reaches outside the public "
                f"bounds [{number_text(population.lower)}, {number_text(population.upper)}]."
            )
    if stat.kind == "total" and not population.has_upper_bound:
        raise ValueError(
            "A total needs a public upper bound U on each value (one record can move it by "
            "up to U); this population declares none."
        )
    return stat


def indicator(population: Population, stat: LinearStatistic) -> NDArray[np.bool_]:
    """Which records the selection keeps (aligned with ``population.values``), in O(N)."""
    keep = np.ones(population.size, dtype=bool)
    if stat.column is not None:
        got = population.label_codes(stat.column)
        if got is not None:
            codes, uniques = got
            at = [i for i, u in enumerate(uniques) if str(u) == str(stat.category)]
            keep = codes == at[0] if at else np.zeros(population.size, dtype=bool)
    if stat.value_range is not None:
        lo, hi = stat.value_range
        v = population.values  # sorted: the range is one slice
        a, b = np.searchsorted(v, lo, "left"), np.searchsorted(v, hi, "right")
        in_range = np.zeros(population.size, dtype=bool)
        in_range[a:b] = True
        keep &= in_range
    return keep


def y_bounds(population: Population, stat: LinearStatistic) -> tuple[float, float]:
    """Public bounds ``[y_lower, y_upper]`` on one record's ``y`` (:func:`y_values`)."""
    if stat.kind != "total":
        return 0.0, 1.0
    lo, hi = population.lower, population.upper
    if stat.value_range is not None:
        lo, hi = float(stat.value_range[0]), float(stat.value_range[1])
    if stat.selects:  # a record left out contributes 0
        lo, hi = min(lo, 0.0), max(hi, 0.0)
    return lo, hi


def y_values(
    population: Population, stat: LinearStatistic
) -> tuple[NDArray[np.float64], float, float]:
    """``y`` per record and public bounds ``[y_lower, y_upper]`` on it.

    Counts and proportions: ``y = 1{selected} ∈ [0, 1]``.  Totals: ``y = x·1{selected}``,
    bounded by the public bounds (by the range when one is named), widened to hold 0 when
    records are left out.
    """
    keep = indicator(population, stat)
    lo, hi = y_bounds(population, stat)
    if stat.kind == "total":
        y = np.where(keep, population.values, 0.0) if stat.selects else population.values
        return np.asarray(y, dtype=np.float64), lo, hi
    return keep.astype(np.float64), lo, hi


def sensitivities(population: Population, stat: LinearStatistic) -> dict[str, float]:
    """The sensitivity of ``Σ y`` under each relation (module docstring)."""
    lo, hi = y_bounds(population, stat)
    return {"deletion": max(abs(lo), abs(hi)), "replacement": hi - lo}


def sensitivity(stat: LinearStatistic, population: Population, relation: str) -> float:
    """The sensitivity of ``Σ y`` under ``relation`` (``"deletion"`` or ``"replacement"``)."""
    if relation not in _RELATIONS:
        raise ValueError(f"relation must be one of {_RELATIONS}; got {relation!r}")
    return sensitivities(population, stat)[relation]


def whole_numbers(values: NDArray[np.float64]) -> bool:
    """Whether every value is a whole number: a total of them may take integer noise (the
    geometric and the discrete Gaussian add whole numbers)."""
    v = np.asarray(values, dtype=np.float64)
    return bool(np.all(np.floor(v) == v))
