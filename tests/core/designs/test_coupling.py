"""core.designs.coupling: a changed record in a cluster sample keeps the mechanism's budget.

Sound against the linear program over every sample of tiny populations
(``tests/core/accounting/profile_reference.py``); tight for large clusters, by the mechanism
the module docstring builds, checked here on the sample graph itself.
"""

from __future__ import annotations

import itertools
import math

import pytest

from core import mechanisms as mech
from core.designs.coupling import attained_change_loss, coupling_factor
from tests.core.accounting.profile_reference import (
    design_worst_loss,
    population_from_sizes,
    sample_distance,
    sample_law,
)

BUDGETS = [(0.5, 1.0), (1.0, 1.0), (1.0, 1.5), (0.6, 4.0)]
DESIGNS = [
    ("cluster", [1, 2, 2], {"clusters_sampled": 1}),
    ("cluster", [2, 3], {"clusters_sampled": 1}),
    ("cluster", [3, 1, 2], {"clusters_sampled": 2}),
    ("poisson_cluster", [2, 3], {"rate": 0.5}),
    ("poisson_cluster", [1, 2, 2], {"rate": 0.3}),
]


@pytest.mark.parametrize(("design", "sizes", "params"), DESIGNS)
@pytest.mark.parametrize(("a", "c"), BUDGETS)
def test_the_coupling_bound_is_never_below_the_enumerated_worst_loss(design, sizes, params, a, c):
    pop, frame = population_from_sizes(sizes)
    c_eff = min(c, 2 * a)
    private, worst = design_worst_loss(design, pop, frame, "replacement", False, a, c, **params)
    assert max(a, c_eff) >= private - 1e-9, worst.neighbour.change
    public, worst = design_worst_loss(design, pop, frame, "replacement", True, a, c, **params)
    assert c_eff >= public - 1e-9, worst.neighbour.change
    # The constructed mechanism is one of the mechanisms the enumeration maximises over.
    if c_eff >= a:
        q = params.get("rate", params.get("clusters_sampled", 0) / len(sizes))
        assert attained_change_loss(a, c, q, max(sizes) - 1) <= public + 1e-9


def test_the_constructed_mechanism_keeps_its_budgets_and_attains_its_loss():
    sizes, a, c = [3, 2, 2], 0.9, 1.4
    pop, frame = population_from_sizes(sizes)
    members = [r for r, lab in pop.items() if lab == "h0"]
    x, others = members[0], set(members[1:])
    new = "new"

    def log_f(s: frozenset) -> float:
        return a * (x in s) - (c - a) * (new in s) + a * len(s & others)

    universe = [*pop, new]
    samples = [
        frozenset(comb)
        for k in range(len(universe) + 1)
        for comb in itertools.combinations(universe, k)
    ]
    for s, t in itertools.combinations(samples, 2):
        assert abs(log_f(s) - log_f(t)) <= sample_distance(s, t, a, c) + 1e-12
    for q_cls, params in ((1, {"clusters_sampled": 1}), (2, {"clusters_sampled": 2})):
        before = sample_law("cluster", pop, frame, **params)
        after = sample_law(
            "cluster", {**{r: lab for r, lab in pop.items() if r != x}, new: "h0"}, frame, **params
        )
        ratio = sum(p * math.exp(log_f(s)) for s, p in before.items()) / sum(
            p * math.exp(log_f(s)) for s, p in after.items()
        )
        assert math.log(ratio) == pytest.approx(
            attained_change_loss(a, c, q_cls / len(sizes), len(others)), rel=1e-12
        )


def test_it_is_tight_for_large_clusters():
    # A cluster of 50 records drawn with probability 1/10: within 1 % of the claim.
    for a, c in ((1.0, 1.0), (0.5, 1.0), (0.2, 0.3)):
        claim = min(c, 2 * a)
        assert attained_change_loss(a, c, 0.1, 50) >= 0.99 * claim
        assert attained_change_loss(a, c, 0.1, 50) <= claim
    assert attained_change_loss(1e-12, 1e-12, 0.5, 10) <= 1e-12


def test_the_factor_is_the_larger_budget():
    for m in (mech.ExponentialQuantile, mech.PiecewiseLaplaceQuantile, mech.HorvitzThompsonMean):
        f = m.budget_factors(0.5)
        alpha = f.add_remove
        assert coupling_factor(f) == max(alpha, min(f.change, 2 * alpha))
        assert coupling_factor(f, shared=True) == 2 * alpha  # the choice reads α alone
    assert coupling_factor(mech.HorvitzThompsonMean.budget_factors(0.5)) == 2.0
    assert coupling_factor(None) == 1.0
    with pytest.raises(ValueError, match="eps_ar"):
        attained_change_loss(1.0, 0.5, 0.5, 3)


@pytest.mark.parametrize("mechanism", [mech.ExponentialQuantile, mech.HorvitzThompsonMean])
def test_the_planners_claim_for_a_changed_record_holds_on_tiny_cluster_samples(mechanism):
    from core.designs.registry import DESIGNS as PLANNER

    e = 0.7
    factors = mechanism.budget_factors(0.5)
    alpha = factors.add_remove
    gamma = min(factors.change, 2 * alpha)
    for design, sizes, params in DESIGNS:
        d = PLANNER[design]
        keywords = {"sizes": sizes, **params}
        point = d.theorem_point(keywords)
        claim = d.eps_target_of(e, "replacement", factors, point)
        pop, frame = population_from_sizes(sizes)
        loss, worst = design_worst_loss(
            design, pop, frame, "replacement", False, alpha * e, gamma * e, **params
        )
        assert claim >= loss - 1e-9, (design, sizes, worst.neighbour.change)
