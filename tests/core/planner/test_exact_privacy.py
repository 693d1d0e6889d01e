"""Every privacy claim of the release planner, checked exactly on tiny populations.

For populations of six and eight records (values on a small grid inside public bounds,
ties, records at the bounds, two strata and three clusters), every design the planner
offers there, every mechanism :func:`core.planner.mechanisms_for` offers for the median,
a lower quantile and the mean, both relations and two rates: the exact law of the whole
release (every sample with its probability, then the mechanism's noise given the sample;
:mod:`tests.core.planner.exact_release`) on the population and on each neighbour -- a
record changed in value, moved to another stratum or cluster, removed, added -- and the
largest log ratio of the two laws against the ``eps_target`` the planner states (the
hockey-stick divergence against ``delta_target`` for an (ε, δ) mechanism).

Faithful to what the product does: the plan (design, rate, ``n``, ``ℓ``, ``eps_sample``) is
fixed from the population, and the release on a neighbour reads from the neighbour what the
product reads from the data -- its size ``N`` (the Horvitz–Thompson mean), its strata sizes
(the randomised rounding), its number of clusters, its sample size (a quantile's rank).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from core import mechanisms as mech
from core.designs.protocol import RELATIONS, PlannerDesign, Point
from core.designs.registry import DESIGNS
from core.planner import design_statuses, mechanisms_for
from core.planner.simulate import make_mechanism
from tests.core.planner import exact_release as ref

EPS_TARGET = 1.0
#: Relative and absolute slack of a check (rounding only: the partition gives lower bounds).
REL, ABS = 1e-6, 1e-9

TOYS: dict[str, ref.Toy] = {
    # (value, stratum, cluster): strata of 3 and 3, clusters of 2, 2 and 2.
    "six": ref.Toy(((0, 0, 0), (1, 0, 0), (1, 0, 1), (2, 1, 1), (3, 1, 2), (4, 1, 2)), 0.0, 4.0),
    # Ties, both bounds, strata of 4 and 4, clusters of 3, 3 and 2.
    "eight": ref.Toy(
        ((0, 0, 0), (0, 0, 1), (1, 0, 2), (2, 0, 0), (2, 1, 1), (2, 1, 2), (3, 1, 0), (4, 1, 1)),
        0.0,
        4.0,
    ),
}
#: Rates per population: the first makes the proportional allocation round at random.
RATES = {"six": (0.4, 0.5), "eight": (0.3, 0.5)}
STATISTICS = {"median": 0.5, "quantile": 0.25, "mean": 0.5}

HT_DELETION = "N is read from the data; sound only when N is declared public"


def _delta_target(toy: ref.Toy) -> float:
    return 1.0 / (2.0 * toy.N)  # the planner's default


@dataclass(frozen=True)
class Case:
    toy: str
    relation: str
    statistic: str
    design: str
    mechanism: str
    rate: float

    @property
    def id(self) -> str:
        parts = (self.toy, self.relation, self.statistic, self.design, self.mechanism)
        return "-".join(parts) + f"-{self.rate:g}"


def _cases() -> Iterator[Case]:
    for toy_name, toy in TOYS.items():
        frame = toy.frame()
        for relation in RELATIONS:
            for statistic in STATISTICS:
                statuses = design_statuses(frame, statistic, relation)
                for status in statuses:
                    if not status.available:
                        continue
                    d = DESIGNS[status.name]
                    rates = (1.0,) if d.reference else RATES[toy_name]
                    for m in mechanisms_for(statistic, status.name, relation):
                        for rate in rates:
                            yield Case(toy_name, relation, statistic, status.name, m, rate)


CASES = list(_cases())


def _marks(case: Case) -> list[pytest.MarkDecorator]:
    if case.mechanism == "ht_mean" and case.relation == "deletion":
        return [pytest.mark.xfail(strict=True, reason=HT_DELETION)]
    return []


@dataclass(frozen=True)
class Plan:
    """What the planner fixes for one case: the design's point and the budgets."""

    design: PlannerDesign
    point: Point
    eps_sample: float
    delta_sample: float
    delta_target: float
    quantile: float


def plan_of(case: Case) -> Plan:
    """The point and budgets :func:`core.planner.plan` uses (its ``_budgets`` loop)."""
    toy, d = TOYS[case.toy], DESIGNS[case.design]
    frame = toy.frame()
    point = d.point(frame, case.rate)
    assert point is not None
    acc = d.accounting(EPS_TARGET, case.relation, mech.MECHANISMS[case.mechanism], point)
    delta_target = _delta_target(toy)
    return Plan(
        d,
        point,
        acc.eps_sample,
        d.delta_sample(delta_target, point),
        delta_target,
        STATISTICS[case.statistic],
    )


@functools.lru_cache(maxsize=4096)
def _samples(toy: ref.Toy, design: str, point_size: float, point_rate: float) -> ref.SampleLaw:
    d = DESIGNS[design]
    return ref.sample_law(d, toy.frame(), Point(point_rate, point_size, math.nan))


def release_law(case: Case, p: Plan, toy: ref.Toy, *, public_size: int | None = None) -> ref.Law:
    """The exact law of the case's release on ``toy`` (the population or a neighbour)."""
    frame = toy.frame()
    if public_size is not None:  # N held as a public constant instead of read from the data
        frame = ref.Toy(toy.records[:1] * public_size, toy.lower, toy.upper).frame()
    m = make_mechanism(case.mechanism, frame, p.point.rate, p.quantile)
    samples = _samples(toy, case.design, p.point.size, p.point.rate)
    return ref.release_law(m, samples, p.eps_sample, p.delta_sample, toy.lower, toy.upper)


@dataclass(frozen=True)
class Outcome:
    worst: float  # largest log ratio over the neighbours
    worst_delta: float  # largest hockey-stick divergence at eps_target
    where: str  # the neighbour attaining it
    kinds: dict[str, float]  # the largest log ratio per kind of neighbour


def check(case: Case, *, public_size: bool = False, new_labels: bool = True) -> Outcome:
    """Compare the release on the population with the release on every neighbour."""
    p = plan_of(case)
    toy = TOYS[case.toy]
    size = toy.N if public_size else None
    base = release_law(case, p, toy, public_size=size)
    worst, worst_delta, where = 0.0, 0.0, ""
    kinds: dict[str, float] = {}
    for nb in ref.neighbours(toy, case.relation, new_labels=new_labels):
        got = ref.compare(
            base, release_law(case, p, nb.toy, public_size=size), EPS_TARGET, toy.lower, toy.upper
        )
        kinds[nb.kind] = max(kinds.get(nb.kind, 0.0), got.max_log_ratio)
        if got.max_log_ratio > worst:
            worst, where = got.max_log_ratio, f"{nb.kind} {nb.note} at y={got.where:.3g}"
        worst_delta = max(worst_delta, got.delta)
    return Outcome(worst, worst_delta, where, kinds)


def _assert_claim(case: Case, out: Outcome) -> None:
    m = mech.MECHANISMS[case.mechanism]
    if m.pure:
        assert out.worst <= EPS_TARGET * (1 + REL) + ABS, (
            f"{case.id}: log ratio {out.worst:.6g} > eps_target {EPS_TARGET} ({out.where}); "
            f"by kind {out.kinds}"
        )
    else:
        delta_target = _delta_target(TOYS[case.toy])
        assert out.worst_delta <= delta_target * (1 + REL) + 1e-12, (
            f"{case.id}: hockey-stick {out.worst_delta:.6g} > delta_target {delta_target:.6g}"
        )


@pytest.mark.parametrize("case", [pytest.param(c, id=c.id, marks=_marks(c)) for c in CASES])
def test_release_keeps_the_stated_eps_target(case: Case) -> None:
    _assert_claim(case, check(case))
