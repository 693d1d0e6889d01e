"""What the exact privacy checks on tiny populations share: the case, the targets, the toys.

``tests/core/planner/test_exact_privacy.py`` (the release planner's quantiles and means) and
``tests/core/linear/test_privacy_enumeration.py`` (counts and totals) both compare the exact
law of a planned release on a tiny population (:mod:`tests.core.planner.exact_release`)
with its law on every neighbour. Each names a case by its population, relation, statistic,
design, mechanism and rate (:class:`EnumeratedCase`), promises :data:`EPS_TARGET` and the
planner's default :func:`delta_target`, and draws random populations the same way
(:func:`random_toy`); what each releases and compares stays in its own module.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

from hypothesis import strategies as st

from tests.core.planner import exact_release as ref

#: The ε every checked plan promises for the population.
EPS_TARGET = 1.0


def delta_target(toy: ref.Toy) -> float:
    """The planner's default ``delta_target``: ``1 / (2N)``."""
    return 1.0 / (2.0 * toy.N)


@dataclass(frozen=True)
class EnumeratedCase:
    """One checked plan: a population, a relation, a statistic, a design, a mechanism, a rate.

    A module subclasses it with its named populations (:attr:`TOYS`) and whether its test
    ids end with the rate (:attr:`RATE_IN_ID`).
    """

    toy: str
    relation: str
    statistic: str
    design: str
    mechanism: str
    rate: float
    #: A population of the case's own (otherwise ``TOYS[toy]``).
    own: ref.Toy | None = None

    TOYS: ClassVar[Mapping[str, ref.Toy]] = {}
    RATE_IN_ID: ClassVar[bool] = False

    @property
    def population(self) -> ref.Toy:
        return self.own if self.own is not None else self.TOYS[self.toy]

    @property
    def id(self) -> str:
        parts = (self.toy, self.relation, self.statistic, self.design, self.mechanism)
        return "-".join(parts) + (f"-{self.rate:g}" if self.RATE_IN_ID else "")


def random_toy(data: st.DataObject, smallest: int) -> ref.Toy:
    """A random population of ``smallest`` to 6 records inside the bounds [0, 4].

    Values on the grid 0..4, two strata (both used), clusters of two records in order, the
    last three when the number of records is odd (2 + 1 for three records).
    """
    n = data.draw(st.integers(smallest, 6), label="N")
    values = data.draw(st.lists(st.integers(0, 4), min_size=n, max_size=n), label="values")
    strata = data.draw(
        st.lists(st.integers(0, 1), min_size=n, max_size=n).filter(lambda s: len(set(s)) == 2),
        label="strata",
    )
    clusters = [i // 2 for i in range(n)]
    if n % 2 and n > 3:
        clusters[-1] = clusters[-2]
    return ref.Toy(tuple(zip(values, strata, clusters, strict=True)), 0.0, 4.0)
