"""core.designs.protocol: the seam every design implements (relations, fit, group privacy)."""

from __future__ import annotations

import pytest

from core import mechanisms as mech
from core.designs.protocol import Point
from core.designs.registry import DESIGNS


def test_fit_follows_the_mechanisms_guarantee_and_the_designs_size():
    srs, poisson = DESIGNS["srs"], DESIGNS["poisson"]
    assert srs.fits(mech.SmoothLaplaceQuantile, "replacement")
    assert not poisson.fits(mech.SmoothLaplaceQuantile, "replacement")  # needs add/remove
    assert poisson.fits(mech.HorvitzThompsonMean, "replacement")
    assert not srs.fits(mech.HorvitzThompsonMean, "replacement")


def test_group_privacy_is_the_default_for_a_changed_record_and_inverts():
    # The base class's group privacy, on the Poisson cluster design's theorem: small
    # clusters at a small rate, where twice the theorem's bound beats the coupling bound.
    design = DESIGNS["poisson_cluster"]
    point = design.theorem_point({"rate": 0.05, "sizes": [1, 2, 2]})
    factors = mech.GlobalLaplaceQuantile.budget_factors(0.5)
    acc = design.accounting(1.0, "replacement", factors, point)
    assert acc.eps_sample == pytest.approx(design.deamplified(0.5, point), rel=1e-12)
    assert acc.eps_sample > 1.0  # above the coupling bound's ε_target / max(α, γ)
    assert "group privacy" in acc.bound
    back = design.eps_target_of(acc.eps_sample, "replacement", factors, point)
    assert back == pytest.approx(1.0, rel=1e-9)


def test_the_coupling_bound_prices_a_changed_record_in_large_clusters():
    cluster = DESIGNS["cluster"]
    point = cluster.theorem_point({"sizes": [3, 4, 9], "clusters_sampled": 1})
    factors = mech.GlobalLaplaceQuantile.budget_factors(0.5)  # alpha = gamma = 1
    acc = cluster.accounting(1.0, "replacement", factors, point)
    group = cluster.deamplified(0.5, point)  # twice Theorem 5.2 at the add/remove budget
    assert acc.eps_sample == pytest.approx(1.0, rel=1e-12)  # ε_target / max(α, γ)
    assert acc.eps_sample > group
    assert "coupling" in acc.bound
    back = cluster.eps_target_of(acc.eps_sample, "replacement", factors, point)
    assert back == pytest.approx(1.0, rel=1e-9)
    # The exponential median (α = 1/2, γ = 1): the coupling bound is max(α, γ) = 1, while
    # group privacy lets it spend twice as much as global-Laplace; the larger is taken.
    median = mech.ExponentialQuantile.budget_factors(0.5)
    acc = cluster.accounting(1.0, "replacement", median, point)
    assert acc.eps_sample == pytest.approx(max(1.0, 2.0 * group), rel=1e-12)
    back = cluster.eps_target_of(acc.eps_sample, "replacement", median, point)
    assert back == pytest.approx(1.0, rel=1e-9)


def test_a_theorem_for_changed_records_refuses_added_ones():
    srs = DESIGNS["srs"]
    assert srs.unavailable_for_relation("deletion")
    with pytest.raises(ValueError, match="no theorem"):
        srs.accounting(1.0, "deletion", None, Point(0.1, 10.0, 10.0))
    with pytest.raises(ValueError, match="rate"):
        srs.theorem_point({"rate": 1.5})
