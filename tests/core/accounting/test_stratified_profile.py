"""core.accounting.stratified_profile: the exact price of a proportional stratified sample.

Checked against the linear program over every sample of tiny populations
(``profile_reference``), against Hu, Drechsler & Kim's Theorem 1 where the allocation is
fixed, and against Bun et al.'s Theorems 4.3/7.2, which must never be below it.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core import amplification as amp
from core import strata
from core.accounting.stratified_profile import (
    added_record_losses,
    changed_record_loss,
    stratified_eps_sample,
    stratified_eps_target,
)
from tests.core.accounting.profile_reference import design_worst_loss, population_from_sizes

# (stratum sizes, rate): unequal strata, allocations that round both ways, a stratum of one.
CASES = [([2, 3], 0.5), ([3, 3, 2], 0.7), ([1, 3], 0.6), ([2, 2], 0.3)]
# (a, c): a change at its group-privacy price, a change as cheap as an addition, between.
BUDGETS = [(0.5, 1.0), (1.0, 1.0), (1.0, 1.5), (0.8, 4.0)]


def _reference(sizes: list[int], rate: float, relation: str, public: bool, a: float, c: float):
    pop, frame = population_from_sizes(sizes)
    loss, worst = design_worst_loss("stratified", pop, frame, relation, public, a, c, rate=rate)
    return loss, worst


@pytest.mark.parametrize(("sizes", "rate"), CASES)
@pytest.mark.parametrize(("a", "c"), BUDGETS)
def test_added_and_removed_records_cost_exactly_the_enumerated_worst_loss(sizes, rate, a, c):
    ref, _ = _reference(sizes, rate, "deletion", False, a, c)
    assert stratified_eps_target(a, c, rate, sizes, "deletion") == pytest.approx(ref, abs=1e-7)


@pytest.mark.parametrize(("sizes", "rate"), CASES)
@pytest.mark.parametrize(("a", "c"), BUDGETS)
def test_changed_records_cost_exactly_the_enumerated_worst_loss(sizes, rate, a, c):
    public, _ = _reference(sizes, rate, "replacement", True, a, c)
    claim = stratified_eps_target(a, c, rate, sizes, "replacement", labels_public=True)
    assert claim == pytest.approx(public, abs=1e-7)
    private, worst = _reference(sizes, rate, "replacement", False, a, c)
    claim = stratified_eps_target(a, c, rate, sizes, "replacement")
    assert claim >= private - 1e-9  # sound
    exact = stratified_eps_sample(1.0, rate, sizes, 1.0, min(c, 2 * a) / a, "replacement").exact
    if min(c, 2 * a) == 2 * a:  # a move priced as a removal and an addition is then exact
        assert exact and claim == pytest.approx(private, abs=1e-7), worst.neighbour.change
    else:
        assert not exact


def test_a_fixed_allocation_gives_hu_drechsler_kims_theorem_for_a_changed_record():
    # r M whole: the stratum's sample is a simple random sample of rM of M (Theorem 1).
    for m, rate in ((10, 0.3), (4, 0.5), (100, 0.07)):
        for c in (1e-6, 0.3, 2.0, 40.0):
            got = changed_record_loss(c, c, rate, [m])[0]
            assert got == pytest.approx(float(amp.eps_target(c, rate)), rel=1e-9)


@settings(max_examples=60, deadline=None)
@given(
    sizes=st.lists(st.integers(1, 400), min_size=2, max_size=6),
    rate=st.floats(0.02, 0.98),
    eps=st.floats(0.01, 8.0),
)
def test_never_above_bun_et_al(sizes, rate, eps):
    if min(sizes) * rate < 1:
        return
    # An ε-DP mechanism for added/removed records keeps 2ε for a change (Bun et al.'s setting).
    exact = stratified_eps_target(eps, 2 * eps, rate, sizes, "deletion")
    assert exact <= float(strata.proportional_eps_bound(eps, rate)) * (1 + 1e-9)


@settings(max_examples=60, deadline=None)
@given(
    sizes=st.lists(st.integers(1, 2_000), min_size=1, max_size=8),
    rate=st.floats(0.01, 0.99),
    t=st.floats(1e-3, 20.0),
    alpha=st.sampled_from([0.5, 0.75, 1.0]),
    gamma=st.sampled_from([1.0, 2.0]),
    relation=st.sampled_from(["deletion", "replacement"]),
)
def test_the_inverse_inverts_and_the_loss_grows_with_the_budget(
    sizes, rate, t, alpha, gamma, relation
):
    e = stratified_eps_sample(t, rate, sizes, alpha, gamma, relation)
    back = stratified_eps_target(alpha * e, gamma * e, rate, sizes, relation)
    assert back == pytest.approx(t, rel=1e-9)
    assert stratified_eps_target(alpha * e * 1.01, gamma * e * 1.01, rate, sizes, relation) > back


def test_tiny_and_huge_budgets():
    sizes = [7, 13, 250]
    small = stratified_eps_target(1e-12, 2e-12, 0.3, sizes, "deletion")
    smaller = stratified_eps_target(1e-14, 2e-14, 0.3, sizes, "deletion")
    assert 0.0 < small and small / smaller == pytest.approx(100.0, rel=1e-6)
    up, down = added_record_losses(1000.0, 2000.0, 0.3, sizes)
    assert np.all(np.isfinite(up)) and np.all(np.isfinite(down))
    assert stratified_eps_target(1000.0, 2000.0, 0.3, sizes, "replacement") < 4000.0
    assert math.isfinite(stratified_eps_sample(1e-12, 0.3, sizes, 1.0, 1.0, "deletion"))
    assert math.isfinite(stratified_eps_sample(500.0, 0.3, sizes, 1.0, 1.0, "deletion"))


def test_bad_input_is_refused_in_words():
    with pytest.raises(ValueError, match="rate"):
        stratified_eps_target(1.0, 1.0, 1.0, [3, 4], "deletion")
    with pytest.raises(ValueError, match="stratum_sizes"):
        stratified_eps_target(1.0, 1.0, 0.5, [0, 4], "deletion")
    with pytest.raises(ValueError, match="relation"):
        stratified_eps_target(1.0, 1.0, 0.5, [3, 4], "moved")
    with pytest.raises(ValueError, match="eps_target"):
        stratified_eps_sample(-1.0, 0.5, [3, 4], 1.0, 1.0, "deletion")


@pytest.mark.parametrize("relation", ["deletion", "replacement"])
def test_releases_that_share_a_stratified_sample_compose_within_eps_target(relation):
    from core import mechanisms as mech
    from core.designs.registry import DESIGNS

    d = DESIGNS["stratified_proportional"]
    sizes = np.array([5, 40, 300])
    point = d.theorem_point({"rate": 0.3, "sizes": sizes})
    # The exponential median (α = 1/2, γ = 1), the global-Laplace quantile (α = γ = 1) and
    # the sum-and-count mean (α = 1, γ = 2), each at its share of its own budget.
    mechanisms = [mech.ExponentialQuantile, mech.GlobalLaplaceQuantile, mech.SumCountMean]
    shares = [0.2, 0.5, 0.3]
    total_a = total_c = 0.0
    for m, share in zip(mechanisms, shares, strict=True):
        f = m.budget_factors(0.5)
        e = d.accounting(1.0, relation, f, point, shared=True).eps_sample * share
        total_a += f.add_remove * e
        total_c += min(f.change, 2 * f.add_remove) * e
    loss = stratified_eps_target(total_a, total_c, 0.3, sizes, relation)
    assert loss <= 1.0 + 1e-9
