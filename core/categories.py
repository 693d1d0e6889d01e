"""The category column of a population: its limit and its counts.

A population may carry one categorical column (:attr:`core.population.Population.categories`),
the column counts, proportions and frequency tables count by: a size class, a sector, a
region. Stata and SPSS value labels are its text. This module holds what is shared by the
value type, the file readers and the pages: the largest number of categories a table can
show (:data:`MAX_CATEGORIES`), the check that enforces it, and the (non-private) counts per
category that the Population page shows.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ._validation import quoted

if TYPE_CHECKING:
    from .population import Population

__all__ = ["MAX_CATEGORIES", "MISSING_CATEGORY", "category_counts", "check_category_count"]

#: The most distinct categories a category column may have. A frequency table lists one row
#: per category (times the cells of its other columns); beyond a thousand rows it is no
#: longer a table a reader can take in, and a column with that many distinct entries is an
#: identifier or a measurement rather than a classification.
MAX_CATEGORIES = 1_000

#: The category of a record whose cell is blank: kept (and counted) as a category of its
#: own, so counts by category still add up to N; the loaders say how many rows got it.
MISSING_CATEGORY = "(missing)"


def check_category_count(n_categories: int, label: str) -> None:
    """Refuse a category column with more than :data:`MAX_CATEGORIES` distinct entries.

    Parameters
    ----------
    n_categories : int
        The number of distinct categories.
    label : str
        The column's name, for the message.

    Raises
    ------
    ValueError
        With a plain sentence naming the column, its number of categories and the limit.
    """
    if n_categories > MAX_CATEGORIES:
        raise ValueError(
            f"The category column {quoted(label)} has {n_categories:,} distinct entries; a "
            f"table of counts can show at most {MAX_CATEGORIES:,} categories. Choose a column "
            "that classifies the records (a size class, a sector, a region), not an "
            "identifier or a measurement."
        )


def category_counts(population: Population) -> pd.DataFrame | None:
    """The number of records in each category, most frequent first (ties by label).

    These are the population's exact counts, not a private release: the Population page
    shows them to whoever holds the data, as it shows the values themselves.

    Parameters
    ----------
    population : Population
        Any population; one without categories gives None.

    Returns
    -------
    pandas.DataFrame or None
        Columns ``population.category_label`` (the label text), ``"records"`` (int) and
        ``"share"`` (records / N).
    """
    coded = population.label_codes("categories")
    if coded is None:
        return None
    codes, uniques = coded
    counts = np.bincount(codes, minlength=len(uniques)).astype(np.int64)
    label = population.category_label
    frame = pd.DataFrame(
        {
            label: [str(u) for u in uniques.tolist()],
            "records": counts,
            "share": counts / population.size,
        }
    )
    frame = frame.sort_values(["records", label], ascending=[False, True], kind="stable")
    return frame.reset_index(drop=True)
