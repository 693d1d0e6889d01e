"""The cells of a frequency table: which label columns a population offers, and their codes."""

from __future__ import annotations

import numpy as np
import pytest

from core.population import Population
from core.publication.cells import LABEL_COLUMNS, frequency_cells, label_columns_of


def _pop(categories: bool) -> Population:
    values = np.arange(8, dtype=float)
    return Population(
        "eight",
        values,
        0.0,
        10.0,
        strata=np.array(["b", "a", "b", "a", "c", "c", "a", "b"], dtype=object),
        categories=np.array(["x", "y"] * 4, dtype=object) if categories else None,
    )


def test_label_columns_are_those_the_population_has() -> None:
    assert label_columns_of(_pop(False)) == ["strata"]
    assert label_columns_of(_pop(True)) == ["strata", "categories"]
    assert set(label_columns_of(_pop(True))) <= set(LABEL_COLUMNS)


def test_every_record_falls_in_the_cell_of_its_two_labels() -> None:
    pop = _pop(True)
    cells = frequency_cells(pop, ["strata"], "categories")
    assert (cells.n_rows, cells.n_columns, cells.n_cells) == (3, 2, 6)
    labels = cells.cell_labels()
    names = list(labels)
    for c in range(cells.n_cells):
        mine = (pop.strata == labels[names[0]][c]) & (pop.categories == labels[names[1]][c])
        assert int(np.sum(cells.codes == c)) == int(mine.sum())
    assert np.bincount(cells.codes, minlength=6).sum() == pop.size


def test_a_column_the_population_lacks_is_named() -> None:
    with pytest.raises(ValueError, match="no clusters labels"):
        frequency_cells(_pop(False), ["clusters"])
