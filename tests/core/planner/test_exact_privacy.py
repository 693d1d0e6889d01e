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
import itertools
import math
from collections.abc import Iterator
from dataclasses import dataclass, replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core import mechanisms as mech
from core.designs.protocol import RELATIONS, PlannerDesign, Point
from core.designs.registry import DESIGNS
from core.planner import design_statuses, mechanisms_for, offered_mechanisms, plan
from core.planner.simulate import make_mechanism
from core.publication.table import TablePlan, plan_table
from tests.core.enumerated_cases import EPS_TARGET, EnumeratedCase, random_toy
from tests.core.enumerated_cases import delta_target as _delta_target
from tests.core.planner import exact_release as ref

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


class Case(EnumeratedCase):
    """A checked quantile or mean (:class:`tests.core.enumerated_cases.EnumeratedCase`)."""

    TOYS = TOYS
    RATE_IN_ID = True


def _cases(sizes_public: bool = False) -> Iterator[Case]:
    """Every case the planner offers on the toys (with the sizes declared public or not:
    :func:`core.planner.mechanisms_for`)."""
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
                    offered = mechanisms_for(
                        statistic, status.name, relation, sizes_public=sizes_public
                    )
                    for m in offered:
                        for rate in rates:
                            yield Case(toy_name, relation, statistic, status.name, m, rate)


CASES = list(_cases())


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
    toy, d = case.population, DESIGNS[case.design]
    frame = toy.frame()
    point = d.point(frame, case.rate)
    assert point is not None
    factors = mech.MECHANISMS[case.mechanism].budget_factors(STATISTICS[case.statistic])
    acc = d.accounting(EPS_TARGET, case.relation, factors, point)
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


def law_of(
    toy: ref.Toy,
    design: str,
    mechanism: str,
    point: Point,
    eps_sample: float,
    delta_sample: float,
    quantile: float,
    *,
    public_size: int | None = None,
    planned_on: ref.Toy | None = None,
) -> ref.Law:
    """The exact law of a planned release on ``toy`` (the population or a neighbour).

    The mechanism is built as the planner builds it
    (:func:`core.planner.simulate.make_mechanism`) from ``toy``'s own frame -- so a size
    it reads is the neighbour's -- unless ``public_size`` holds ``N`` as a public constant.
    What the plan fixes is read from ``planned_on`` (the population planned; default
    ``toy``), as the rate and budgets are: the noisy sum over a noisy count's share of the
    budget (:meth:`core.mechanisms.SumCountMean.share`, chosen from the planned size and
    mean, part of the published plan).
    """
    frame = toy.frame()
    if public_size is not None:
        frame = ref.Toy(toy.records[:1] * public_size, toy.lower, toy.upper).frame()
    m = make_mechanism(mechanism, frame, point.rate, quantile)
    if isinstance(m, mech.SumCountMean):
        planned = make_mechanism(mechanism, (planned_on or toy).frame(), point.rate, quantile)
        m = mech.SumCountMean(m.lower, m.upper, sum_share=planned.share(eps_sample))  # type: ignore[attr-defined]
    samples = _samples(toy, design, point.size, point.rate)
    return ref.release_law(m, samples, eps_sample, delta_sample, toy.lower, toy.upper)


def release_law(case: Case, p: Plan, toy: ref.Toy, *, public_size: int | None = None) -> ref.Law:
    """The exact law of the case's release on ``toy`` (planned on the case's population)."""
    return law_of(
        toy,
        case.design,
        case.mechanism,
        p.point,
        p.eps_sample,
        p.delta_sample,
        p.quantile,
        public_size=public_size,
        planned_on=case.population,
    )


@dataclass(frozen=True)
class Outcome:
    worst: float  # largest log ratio over the neighbours
    worst_delta: float  # largest hockey-stick divergence at eps_target
    where: str  # the neighbour attaining it
    kinds: dict[str, float]  # the largest log ratio per kind of neighbour


def check(case: Case, *, public_size: bool = False, new_labels: bool = True) -> Outcome:
    """Compare the release on the population with the release on every neighbour."""
    p = plan_of(case)
    toy = case.population
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
    """Pure mechanisms: the largest log ratio within ``eps_target``; (ε, δ) ones: the
    hockey-stick divergence at ``eps_target`` within ``delta_target``."""
    delta_target = _delta_target(case.population)
    m = mech.MECHANISMS[case.mechanism]
    if m.pure:
        assert out.worst <= EPS_TARGET * (1 + REL) + ABS, (
            f"{case.id}: log ratio {out.worst:.6g} > eps_target {EPS_TARGET} ({out.where}); "
            f"by kind {out.kinds}"
        )
    else:
        assert out.worst_delta <= delta_target * (1 + REL) + 1e-12, (
            f"{case.id}: hockey-stick {out.worst_delta:.6g} > delta_target {delta_target:.6g}"
        )


@pytest.mark.parametrize("case", [pytest.param(c, id=c.id) for c in CASES])
def test_release_keeps_the_stated_eps_target(case: Case) -> None:
    _assert_claim(case, check(case))


#: The Horvitz–Thompson mean under added or removed records: offered only when the sizes
#: are declared public (``sizes_public=True``), since it divides by ``N``.
HT_DELETION_CASES = [
    c for c in _cases(sizes_public=True) if c.mechanism == "ht_mean" and c.relation == "deletion"
]


def test_ht_mean_under_deletion_is_offered_only_when_N_is_public() -> None:
    assert HT_DELETION_CASES  # the test below is never an empty parametrisation
    assert not [c for c in CASES if c.mechanism == "ht_mean" and c.relation == "deletion"]


@pytest.mark.parametrize("case", [pytest.param(c, id=c.id) for c in HT_DELETION_CASES])
def test_ht_mean_under_deletion_holds_when_N_is_public(case: Case) -> None:
    """The same release with ``N`` a public constant (the neighbour's release divides by
    the population's ``N``, not its own) keeps ``eps_target``: the unsound part of the
    mean read with its ``N`` from the data (below) is that size, nothing else."""
    out = check(case, public_size=True)
    _assert_claim(case, out)
    assert out.worst > 0.1 * EPS_TARGET  # and the check is not vacuous


def test_ht_mean_reading_N_fails_by_far_in_the_tails() -> None:
    """With ``N`` read from the data (the sizes declared public, but the neighbour's own
    ``N`` used) the log ratio is not a little above ``eps_target``: Laplace laws of scales
    ``∝ 1/N`` and ``1/(N ± 1)`` part in the tails, which the clamp to the bounds cuts off
    but the atoms at the bounds keep (twice ``eps_target`` on this census)."""
    case = next(c for c in HT_DELETION_CASES if c.design == "census" and c.toy == "six")
    out = check(case)
    assert out.worst > 1.5 * EPS_TARGET, out


#: Cases whose claim the enumeration finds attained (to 5 %): the checks are not vacuous,
#: and a claim loosened there would be caught.
TIGHT = (
    Case("eight", "replacement", "mean", "census", "laplace", 1.0),
    Case("six", "deletion", "mean", "census", "sum_count", 1.0),
    Case("six", "replacement", "mean", "poisson", "ht_mean", 0.5),
)


@pytest.mark.parametrize("case", [pytest.param(c, id=c.id) for c in TIGHT])
def test_some_claims_are_attained(case: Case) -> None:
    assert case in CASES
    out = check(case)
    assert 0.95 * EPS_TARGET <= out.worst <= EPS_TARGET * (1 + REL) + ABS, out


@settings(max_examples=12, deadline=None)
@given(data=st.data())
def test_random_tiny_populations_keep_the_claims(data: st.DataObject) -> None:
    """Random populations of 4 to 6 records (values on the grid 0..4, two strata, clusters
    of at least two records), a random relation, design, mechanism and rate."""
    toy = random_toy(data, 4)
    relation = data.draw(st.sampled_from(RELATIONS), label="relation")
    statistic = data.draw(st.sampled_from(sorted(STATISTICS)), label="statistic")
    sizes_public = data.draw(st.booleans(), label="sizes_public")
    frame = toy.frame()
    offered = [
        (s.name, m)
        for s in design_statuses(frame, statistic, relation)
        if s.available
        for m in mechanisms_for(statistic, s.name, relation, sizes_public=sizes_public)
    ]
    design, mechanism = data.draw(st.sampled_from(offered), label="design, mechanism")
    rate = 1.0 if DESIGNS[design].reference else data.draw(st.sampled_from((0.5, 0.67)))
    if DESIGNS[design].point(frame, rate) is None:
        return  # a stratum too small for the rate: the planner skips it too
    case = Case("random", relation, statistic, design, mechanism, rate, toy)
    public = mechanism == "ht_mean" and relation == "deletion"  # offered with N public
    opens = design != "cluster"  # a cluster opened by a record: the known xfail above
    _assert_claim(case, check(case, public_size=public, new_labels=opens))


#: Clusters of 2, 2, 1 and 1 records: removing a record can empty a cluster, so the number
#: of clusters ``k`` a cluster design draws from falls by one (and rises for a record added
#: to a cluster of its own).
SINGLES = ref.Toy(((0, 0, 0), (1, 0, 0), (2, 1, 1), (2, 1, 1), (3, 0, 2), (4, 1, 3)), 0.0, 4.0)
SINGLE_CASES = [
    Case("singles", relation, statistic, design, m, 0.5, SINGLES)
    for design in ("cluster", "poisson_cluster")
    for relation in RELATIONS
    for statistic in ("median", "mean")
    for m in mechanisms_for(statistic, design, relation, sizes_public=True)
]


@pytest.mark.parametrize("case", [pytest.param(c, id=c.id) for c in SINGLE_CASES])
def test_cluster_designs_when_a_record_empties_or_opens_a_cluster(case: Case) -> None:
    public = case.mechanism == "ht_mean" and case.relation == "deletion"  # offered with N public
    _assert_claim(case, check(case, public_size=public))


#: No public upper bound: the planner offers the unbounded quantile (AboveThreshold) alone
#: (the lower quantile on two designs only: its exact law is the slowest to integrate).
UNBOUNDED = ref.Toy(((0, 0, 0), (1, 0, 0), (2, 1, 1), (2, 1, 1), (4, 0, 2)), 0.0, math.inf)
UNBOUNDED_CASES = [
    Case("unbounded", relation, statistic, s.name, m, 1.0 if DESIGNS[s.name].reference else 0.5)
    for relation in RELATIONS
    for statistic in ("median", "quantile")
    for s in design_statuses(UNBOUNDED.frame(), statistic, relation)
    if s.available and (statistic == "median" or s.name in ("census", "poisson"))
    for m in mechanisms_for(statistic, s.name, relation, bounded=False)
]
UNBOUNDED_CASES = [replace(c, own=UNBOUNDED) for c in UNBOUNDED_CASES]


@pytest.mark.parametrize("case", [pytest.param(c, id=c.id) for c in UNBOUNDED_CASES])
def test_unbounded_quantile_keeps_the_stated_eps_target(case: Case) -> None:
    _assert_claim(case, check(case))


NEW_CLUSTER = (
    "a record that opens a cluster of its own changes the number of clusters k while the "
    "plan fixes ℓ, so every cluster's inclusion probability moves from ℓ/k to ℓ/(k+1): "
    "Bun et al. Theorem 5.2 is for a fixed set of clusters (sound only when the cluster "
    "frame is declared public)"
)
#: Six records at the lower bound in two clusters of three: the mean of a sample is at its
#: most extreme, and a record at the upper bound in a cluster of its own moves it most.
ZEROS = ref.Toy(tuple((0, i // 3, i // 3) for i in range(6)), 0.0, 4.0)
NEW_CLUSTER_CASES = [
    Case("zeros", "replacement", "mean", "cluster", "ht_mean", 0.5, ZEROS),
    Case("zeros", "deletion", "mean", "cluster", "ht_mean", 0.5, ZEROS),  # N held public
]


@pytest.mark.parametrize("case", [pytest.param(c, id=c.id) for c in NEW_CLUSTER_CASES])
@pytest.mark.xfail(strict=True, raises=AssertionError, reason=NEW_CLUSTER)
def test_cluster_sample_when_a_record_opens_a_cluster(case: Case) -> None:
    """Found by the random populations below: with a new cluster the HT mean of a cluster
    sample loses 1.26 (replacement, as the planner runs it today) and 2.94 (deletion, even
    with N public) against eps_target 1."""
    _assert_claim(case, check(case, public_size=case.relation == "deletion"))


@pytest.mark.parametrize("case", [pytest.param(c, id=c.id) for c in NEW_CLUSTER_CASES])
def test_cluster_sample_keeps_its_claim_when_the_clusters_are_fixed(case: Case) -> None:
    """The same releases against every neighbour that keeps the set of clusters."""
    out = check(case, public_size=case.relation == "deletion", new_labels=False)
    _assert_claim(case, out)


# ---------------------------------------------------------------------------------------
# The harness is faithful to the product
# ---------------------------------------------------------------------------------------


def test_every_design_has_an_enumerated_law_or_makes_no_claim() -> None:
    for name, d in DESIGNS.items():
        if d.proven_for == "none":
            for statistic in STATISTICS:
                for relation in RELATIONS:
                    assert mechanisms_for(statistic, name, relation) == ()
        else:
            assert name in ref.ENUMERATORS, f"add the enumerated law of {name!r}"


def test_every_offered_design_and_mechanism_is_checked() -> None:
    """Each (design, relation, mechanism) the planner offers on the toys has a case."""
    seen = {(c.design, c.relation, c.mechanism) for c in CASES}
    for relation in RELATIONS:
        for statistic in STATISTICS:
            for status in design_statuses(TOYS["eight"].frame(), statistic, relation):
                if status.available:
                    for m in mechanisms_for(statistic, status.name, relation):
                        assert (status.name, relation, m) in seen
    designs = {c.design for c in CASES}
    assert designs == {n for n, d in DESIGNS.items() if d.proven_for != "none"}


@pytest.mark.parametrize("design", [n for n in DESIGNS if n in ref.ENUMERATORS])
def test_enumerated_law_is_the_law_of_the_designs_masks(design: str) -> None:
    """The enumeration against 20,000 samples of the design's own masks (5 standard errors),
    on the population and on a neighbour whose strata and clusters changed size."""
    toy = TOYS["eight"]
    moved = ref.neighbours(toy, "deletion")[0].toy  # one record removed
    for t in (toy, moved):
        frame = t.frame()
        d = DESIGNS[design]
        point = d.point(TOYS["eight"].frame(), 0.3 if not d.reference else 1.0)
        assert point is not None
        exact = ref.sample_law(d, frame, point)
        reps = 20_000
        drawn = ref.masks_law(d, frame, point, reps, seed=3)
        assert set(drawn) <= set(exact)
        for s, p in exact.items():
            se = math.sqrt(p * (1 - p) / reps)
            assert abs(drawn.get(s, 0.0) - p) <= 5 * se + 1e-12, (design, s, p)


def test_non_additive_references_match_the_products_laws() -> None:
    """The laws written from the definitions agree with the modules' own exact laws."""
    from core.mechanisms.exponential import exponential_quantile_distribution
    from core.mechanisms.piecewise_laplace import piecewise_laplace_distribution

    sample = (0.0, 1.0, 1.0, 2.0, 4.0)
    for q in (0.5, 0.25):
        for eps in (0.3, 2.0):
            got = ref.exponential_law(mech.ExponentialQuantile(q), sample, eps, 0.0, 4.0)
            assert isinstance(got, ref.PiecewiseUniform)
            _, p = exponential_quantile_distribution(sample, eps, 0.0, 4.0, q)
            np.testing.assert_allclose(got.p, p, rtol=1e-12, atol=1e-15)
            pl = ref.piecewise_laplace_law(mech.PiecewiseLaplaceQuantile(q), sample, eps, 0.0, 4.0)
            assert isinstance(pl, ref.PiecewiseExponential)
            _, p2, direction = piecewise_laplace_distribution(sample, eps, 0.0, 4.0, q)
            np.testing.assert_allclose(pl.p, p2, rtol=1e-12, atol=1e-15)
            np.testing.assert_array_equal(pl.s, direction)


def _sum_count_cell_by_quad(comp: ref.SumCount, a: float, b: float) -> float:
    """``P(a < Y ≤ b)`` for ``L < a < b < U`` by adaptive quadrature over the count (scipy's
    QUADPACK, split at the kinks), with the conditional Laplace interval of the reference."""
    from scipy import integrate

    c = comp.lower + (comp.upper - comp.lower) / 2.0
    T, m, b1, b2 = comp.total, comp.size, comp.b_sum, comp.b_count

    def given(u: float) -> float:
        alpha, beta = ((a - c) * u - T) / b1, ((b - c) * u - T) / b1
        return float(ref._laplace_interval(np.array(alpha), np.array(beta)))

    atom = float(ref._laplace_interval(np.array(-np.inf), np.array((1.0 - m) / b2)))
    kinks = [m] + [T / (e - c) for e in (a, b) if e != c]
    cuts = [*sorted({1.0, *(k for k in kinks if 1.0 < k < 1e9)}), math.inf]
    total = atom * given(1.0)
    for x, y in itertools.pairwise(cuts):
        total += integrate.quad(
            lambda u: given(u) * math.exp(-abs(u - m) / b2) / (2.0 * b2),
            x, y, epsabs=0.0, epsrel=1e-12, limit=500,
        )[0]  # fmt: skip
    return total


@pytest.mark.parametrize("sample", [(), (4.0,), (0.0, 1.0, 1.0, 2.0, 4.0), (0.0, 0.0, 0.0)])
@pytest.mark.parametrize("eps", [0.3, 1.5])
def test_sum_count_reference_matches_quadrature_and_the_products_law(
    sample: tuple[float, ...], eps: float
) -> None:
    """The noisy sum over a noisy count integrated from its definition (graded
    Gauss–Legendre over the count) agrees with adaptive quadrature to 1e-9 on intervals
    about a value, and, at every sum share from 0.02 to the 0.98 the planner often picks (a
    very noisy count), with the module's own law (closed-form clipped Laplace, the count
    integrated exactly for the coverage, piecewise between its kinks for the MSE) on those
    intervals and both atoms to 1e-6 absolute: the same mechanism, no swapped scale or
    share.  (The module's former fixed 64-point rules over the count were off by up to
    11 % relative at the share 0.98: P(0.05 < Y ≤ 0.55) of the sample (0, 0, 0) at ε 1.5
    was 0.02109 against 0.01906 here and by adaptive quadrature.)"""
    lo, hi = 0.0, 4.0
    for share in (0.02, 0.3, 0.7, 0.98):
        m = mech.SumCountMean(lo, hi, sum_share=share)
        got = ref.sum_count_law(m, sample, eps, lo, hi)
        assert isinstance(got, ref.SumCount)
        law = m.law([got.total], [got.size], eps)
        for theta, x in ((1.5, 0.2), (1.5, 0.9), (2.7, 1.2), (0.3, 0.25)):
            inside = got.masses(np.array([theta - x, theta + x]))[1]
            if share in (0.3, 0.98):
                by_quad = _sum_count_cell_by_quad(got, theta - x, theta + x)
                assert inside == pytest.approx(by_quad, rel=1e-9, abs=1e-15)
            assert inside == pytest.approx(float(law.coverage(x, theta)[0]), abs=1e-6)
        at_lower = got.masses(np.array([lo]))[0]
        at_upper = got.masses(np.array([hi - 1e-12]))[1]  # the atom (and ~1e-12 density)
        assert at_lower == pytest.approx(float(law.coverage(0.0, lo)[0]), abs=1e-6)
        assert at_upper == pytest.approx(float(law.coverage(0.0, hi)[0]), abs=1e-6)
    assert _p_of_the_docstring_example() == pytest.approx(0.01906, abs=1e-5)


def _p_of_the_docstring_example() -> float:
    """``P(0.05 < Y ≤ 0.55)`` of the sample (0, 0, 0) at ε 1.5, share 0.98, bounds 0..4."""
    law = mech.SumCountMean(0.0, 4.0, sum_share=0.98).law([-6.0], [3.0], 1.5)
    return float(law.coverage(0.25, 0.3)[0])


@pytest.mark.parametrize("name", sorted(mech.MECHANISMS))
def test_every_non_additive_mechanism_has_an_exact_law(name: str) -> None:
    """The reference's rule (:func:`~tests.core.planner.exact_release.release_law`): an
    additive mechanism is read from its own release, any other needs :data:`NON_ADDITIVE`."""
    m = make_mechanism(name, TOYS["eight"].frame(), 0.5, 0.5)
    assert m.additive or any(isinstance(m, cls) for cls in ref.NON_ADDITIVE), name


@pytest.mark.parametrize("name", sorted(n for n, c in mech.MECHANISMS.items() if c.additive))
def test_additive_releases_are_statistic_plus_scaled_standard_noise(name: str) -> None:
    """What the reference reads from an additive mechanism is what it releases: ``statistic +
    noise_scale · standard_noise`` on the same draws, clamped to the bounds, and the noise
    CDF is symmetric."""
    frame = TOYS["eight"].frame()
    m = make_mechanism(name, frame, 0.5, 0.5)
    assert m.additive
    batch = np.array([[0.0, 1.0, 2.0, 2.0], [1.0, 2.0, 3.0, 4.0], [0.0, 0.0, 0.0, 4.0]])
    rel = m.release(batch, 0.8, 0.01, frame.lower, frame.upper, np.random.default_rng(5))
    z = m.standard_noise(np.random.default_rng(5), (3,))
    want = np.clip(rel.statistic + rel.noise_scale * z, frame.lower, frame.upper)
    np.testing.assert_allclose(rel.released, want, rtol=1e-12)
    grid = np.linspace(-30.0, 30.0, 61)
    np.testing.assert_allclose(
        m.standard_noise_cdf(grid) + m.standard_noise_cdf(-grid), 1.0, atol=1e-12
    )


@pytest.mark.parametrize("relation", RELATIONS)
@pytest.mark.parametrize("statistic", sorted(STATISTICS))
def test_the_checked_budgets_are_the_ones_the_planner_states(statistic: str, relation: str):
    """:func:`core.planner.plan` states the ``eps_sample`` the checks spend."""
    toy = TOYS["eight"]
    for rate in RATES["eight"]:
        result = plan(
            toy.population(),
            statistic=statistic,
            quantile=STATISTICS[statistic],
            eps_target=EPS_TARGET,
            relation=relation,
            rates=[rate],
            reps=2,
            refine=False,
            mechanisms=[m for m in offered_mechanisms(statistic)],
            sampler="full",
        )
        for c in CASES:
            if (c.toy, c.statistic, c.relation) != ("eight", statistic, relation):
                continue
            if c.rate not in (rate, 1.0):
                continue
            p = plan_of(c)
            rows = result.table[
                (result.table["design"] == c.design) & (result.table["mechanism"] == c.mechanism)
            ]
            assert len(rows) == 1, c.id
            assert float(rows["eps_sample"].iloc[0]) == pytest.approx(p.eps_sample, rel=1e-12)
            assert float(rows["rate"].iloc[0]) == pytest.approx(p.point.rate, rel=1e-12)


# ---------------------------------------------------------------------------------------
# A whole publication table, end to end
# ---------------------------------------------------------------------------------------

#: Three cells (the strata 0, 1, 2) of 3, 3 and 2 records; two clusters in each cell.
TABLE_TOY = ref.Toy(
    ((0, 0, 0), (1, 0, 0), (3, 0, 1), (1, 1, 2), (2, 1, 3), (4, 1, 3), (2, 2, 4), (4, 2, 5)),
    0.0,
    4.0,
)
#: Pure mechanisms only: the joint check below composes pure log ratios.
TABLE_MECHANISMS = (
    "exponential",
    "global_laplace",
    "piecewise_laplace",
    "laplace",
    "ht_mean",
    "sum_count",
)


def _cell(toy: ref.Toy, label: int) -> ref.Toy:
    return ref.Toy(tuple(r for r in toy.records if r[1] == label), toy.lower, toy.upper)


def table_check(
    statistics: tuple[str, ...],
    relation: str,
    labels_fixed: bool,
    *,
    public_sizes: bool = False,
    sizes_held: bool | None = None,
    designs: tuple[str, ...] | None = None,
    mechanisms: tuple[str, ...] = TABLE_MECHANISMS,
) -> tuple[float, float, str, TablePlan]:
    """The table planned by :func:`core.publication.plan_table`, then the exact joint law of
    its releases on the population and on each neighbour: the cells (and the statistics of
    a cell) are independent, so the joint log ratio's extremes are the sums of theirs.

    ``public_sizes`` is the table's ``sizes_public``; ``sizes_held`` (default the same)
    whether the releases on a neighbour divide by the population's cell sizes ``N_c`` (held
    public) or by the neighbour's own (read from the data).

    Returns the largest joint log ratio, the table's stated ``eps_target``, the neighbour
    attaining it, and the plan.
    """
    held = public_sizes if sizes_held is None else sizes_held
    pop = TABLE_TOY.population()
    table = plan_table(
        pop,
        ["strata"],
        list(statistics),
        EPS_TARGET,
        relation=relation,
        labels_fixed=labels_fixed,
        sizes_public=public_sizes,
        mechanisms=mechanisms,
        designs=designs,
        rates=(0.5,),
        reps=40,
        seed=1,
    )
    rows = table.table
    assert (rows["note"] == "").all(), rows["note"].tolist()
    levels = {"median": 0.5, "mean": 0.5}
    releases = []  # (cell label, design, mechanism, point, eps_sample, delta_sample, q)
    for _, row in rows.iterrows():
        label = int(row[table.label_columns[0]])
        cell = _cell(TABLE_TOY, label)
        d = DESIGNS[str(row["design"])]
        point = d.point(cell.frame(), float(row["rate"]))
        assert point is not None
        stat = str(row["statistic"])
        q = levels.get(stat, float(stat.split(" ")[-1]) if stat.startswith("quantile") else 0.5)
        releases.append(
            (label, d.name, str(row["mechanism"]), point, float(row["eps_sample"]),
             float(row["delta_sample"]) or 0.5, q)
        )  # fmt: skip

    def laws(toy: ref.Toy) -> list[ref.Law]:
        out = []
        for label, d, m, point, eps, delta, q in releases:
            size = _cell(TABLE_TOY, label).N if held else None
            planned = _cell(TABLE_TOY, label)
            got = law_of(
                _cell(toy, label), d, m, point, eps, delta, q, public_size=size, planned_on=planned
            )
            out.append(got)
        return out

    base = laws(TABLE_TOY)
    worst, where = 0.0, ""
    for nb in ref.neighbours(TABLE_TOY, relation, new_labels=False):
        if labels_fixed and nb.kind != "changed value":
            continue
        if any(r[1] not in {0, 1, 2} for r in nb.toy.records):
            continue
        up = down = 0.0
        for (label, *_), a, b in zip(releases, base, laws(nb.toy), strict=True):
            if _cell(nb.toy, label) == _cell(TABLE_TOY, label):
                continue  # the cell's records, so its release's law, did not change
            got = ref.compare(a, b, EPS_TARGET, TABLE_TOY.lower, TABLE_TOY.upper)
            up, down = up + got.up, down + got.down
        if max(up, down) > worst:
            worst, where = max(up, down), f"{nb.kind} {nb.note}"
    return worst, float(table.settings["eps_target"]), where, table


@pytest.mark.parametrize(
    ("statistics", "relation", "labels_fixed"),
    [
        (("median",), "replacement", False),
        (("median", "quantile 0.25"), "deletion", False),
        (("median",), "replacement", True),
        (("mean",), "replacement", True),
        # Sizes private (the default): each cell's mean is a noisy sum over a noisy count.
        (("mean",), "replacement", False),
        (("mean",), "deletion", False),
    ],
)
def test_publication_table_keeps_its_eps_target(statistics, relation, labels_fixed) -> None:
    worst, stated, where, table = table_check(statistics, relation, labels_fixed)
    assert worst <= stated * (1 + REL) + ABS, (
        f"joint log ratio {worst:.6g} > the table's eps_target {stated} ({where}); cells "
        f"{table.table[['cell', 'design', 'mechanism', 'rate', 'eps_sample']].to_dict('records')}"
    )
    assert table.eps_table <= stated * (1 + REL)


def test_publication_table_of_census_medians_is_tight() -> None:
    """Cells privatised whole: a record moved between two cells costs both cells' budgets,
    ``eps_target / 2`` each, and the enumeration finds most of it (the composition is not
    loose here, so halving the cell budget is needed).  The exponential median spends
    ``(eps_target / 2) / (1/2)`` on each cell (its add/remove budget is 1/2): the move
    costs 0.77 of ``eps_target`` here (with the piecewise-Laplace median, α = 1, 0.68)."""
    worst, stated, where, table = table_check(
        ("median",), "replacement", False, designs=("census",), mechanisms=("exponential",)
    )
    assert set(table.table["design"]) == {"census"}
    assert table.table["eps_sample"].to_numpy() == pytest.approx(stated)
    assert 0.6 * stated <= worst <= stated * (1 + REL) + ABS, (worst, where)


def test_publication_table_of_means_with_private_sizes_uses_the_size_free_mean() -> None:
    """Labels that can change, sizes not declared public: no cell's mean divides by its
    size (the two table checks of means above are of these releases)."""
    for relation in RELATIONS:
        table = plan_table(
            TABLE_TOY.population(), ["strata"], ["mean"], EPS_TARGET, relation=relation,
            mechanisms=TABLE_MECHANISMS, rates=(0.5,), reps=40, seed=1,
        )  # fmt: skip
        assert "ht_mean" not in set(table.table["mechanism"]), relation
        assert "sum_count" in set(table.table["mechanism"]), relation


@pytest.mark.parametrize("relation", RELATIONS)
def test_publication_table_of_means_holds_when_cell_sizes_are_public(relation: str) -> None:
    worst, stated, where, _ = table_check(("mean",), relation, False, public_sizes=True)
    assert worst <= stated * (1 + REL) + ABS, (worst, where)
    assert worst > 0.1 * stated


@pytest.mark.parametrize("relation", RELATIONS)
def test_publication_table_of_ht_means_reading_cell_sizes_is_caught(relation: str) -> None:
    """The sizes declared public, so each cell's mean may divide by its size ``N_c``; if the
    release read ``N_c`` from the data (the neighbour's) instead of the published one, the
    check finds the log ratio well above the table's ``eps_target`` (a record added,
    removed or moved between cells changes ``N_c``; about twice the target here)."""
    worst, stated, where, table = table_check(
        ("mean",), relation, False, public_sizes=True, sizes_held=False, mechanisms=("ht_mean",)
    )
    assert set(table.table["mechanism"]) == {"ht_mean"}
    assert worst > 1.5 * stated, (worst, where)


def tightness() -> dict[tuple[str, str, str], tuple[float, float]]:
    """How tight each claim is: the least and largest share of the claim the enumeration
    finds, over the toys, statistics and rates (``eps`` for pure mechanisms, ``δ`` for the
    others).  ``python -m tests.core.planner.test_exact_privacy`` prints it."""
    shares: dict[tuple[str, str, str], list[float]] = {}
    for case in CASES:
        out = check(case)
        pure = mech.MECHANISMS[case.mechanism].pure
        share = out.worst / EPS_TARGET if pure else out.worst_delta / _delta_target(case.population)
        shares.setdefault((case.design, case.relation, case.mechanism), []).append(share)
    return {k: (min(v), max(v)) for k, v in shares.items()}


if __name__ == "__main__":
    for (design, relation, name), (low, high) in sorted(tightness().items()):
        print(f"{design:<24} {relation:<12} {name:<18} {low:8.3f} {high:8.3f}")
