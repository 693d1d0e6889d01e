"""What a linear statistic selects, its bounds and sensitivities, and its plain refusals."""

from __future__ import annotations

import numpy as np
import pytest

from core.linear.statistic import LinearStatistic, check_statistic, sensitivities, y_values
from core.population import Population
from core.populations import make_builtin


def test_statistics_select_and_bound() -> None:
    pop = make_builtin("establishments", seed=1, size=2000)
    label = str(pop.label_codes("strata")[1][0])
    count = check_statistic(pop, LinearStatistic("count", "strata", label))
    y, lo, hi = y_values(pop, count)
    assert (lo, hi) == (0.0, 1.0)
    assert y.sum() == np.count_nonzero(pop.strata == label)
    assert sensitivities(pop, count) == {"deletion": 1.0, "replacement": 1.0}
    total = LinearStatistic("total")
    assert sensitivities(pop, total) == {"deletion": 10_000.0, "replacement": 10_000.0}
    ranged = LinearStatistic("total", value_range=(10.0, 50.0))
    y, lo, hi = y_values(pop, ranged)
    assert (lo, hi) == (0.0, 50.0)
    assert y.sum() == pytest.approx(pop.values[(pop.values >= 10) & (pop.values <= 50)].sum())
    for bad, words in [
        (LinearStatistic("count", "strata", "no such class"), "does not occur"),
        (LinearStatistic("count", value_range=(-5.0, 3.0)), "outside the public"),
        (LinearStatistic("count", value_range=(5.0, 3.0)), "above its upper"),
        (LinearStatistic("count", "categories", "x"), "no categories"),
        (LinearStatistic("mode"), "must be one of"),
    ]:
        with pytest.raises(ValueError, match=words):
            check_statistic(pop, bad)


def test_a_proportion_of_an_empty_population_is_refused_in_words() -> None:
    # No population of zero records exists to divide by: it is refused where it is built
    # (a file or a command line), so a proportion's N is always at least 1.
    with pytest.raises(ValueError, match="at least one value"):
        Population(name="empty", values=np.array([]), lower=0.0, upper=1.0)
