"""The bad-file corpus and the outcome every CSV must have, shared by the tests of core.csv_io."""

from __future__ import annotations

import functools

import numpy as np

from core.csv_io import load_population_csv
from core.population import Population
from tests.core.bad_csv_corpus import build_corpus


@functools.cache
def _corpus() -> dict[str, bytes]:
    """The corpus, built once per session on first use (not at collection time)."""
    return build_corpus(include_large=True)


def _population_or_value_error(data: bytes) -> Population | None:
    try:
        pop = load_population_csv(data)
    except ValueError as exc:
        assert str(exc).strip()
        return None
    assert isinstance(pop, Population)
    assert pop.size >= 3 and np.all(np.isfinite(pop.values))
    assert pop.lower <= pop.values[0] and pop.values[-1] <= pop.upper
    return pop
