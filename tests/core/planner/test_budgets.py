"""core.planner.budgets: designs available, mechanisms fitting, budgets both ways."""

from __future__ import annotations

import numpy as np
import pytest

from core.planner import budgets
from core.population import Population


def test_eps_sample_and_eps_target_invert_for_every_design_and_mechanism():
    cases = {
        "srs": {"rate": 0.1},
        "poisson": {"rate": 0.1},
        "stratified_proportional": {"rate": 0.1},
        "cluster": {"sizes": [4, 6, 9, 2], "clusters_sampled": 2},
        "poisson_cluster": {"rate": 0.3, "sizes": [4, 6, 9, 2]},
    }
    for design, kw in cases.items():
        for mechanism in (None, "exponential", "ht_mean"):
            e = budgets.eps_sample_for(design, 0.7, mechanism=mechanism, **kw)
            back = budgets.eps_target_for(design, e, mechanism=mechanism, **kw)
            assert back == pytest.approx(0.7, rel=1e-9), (design, mechanism)


def test_statuses_and_default_rates_fit_the_population():
    pop = Population("t", np.linspace(0, 1, 1_000), 0.0, 1.0)
    statuses = {s.name: s for s in budgets.design_statuses(pop)}
    assert statuses["census"].available and not statuses["neyman"].available
    assert "no cluster labels" in statuses["cluster"].reason
    rates = budgets.default_rates(pop)
    assert len(rates) == 8 and rates[0] == pytest.approx(0.02) and rates[-1] == 0.8
    assert budgets.mechanisms_for("median", "poisson", "replacement") == (
        "exponential",
        "global_laplace",
        "piecewise_laplace",
    )
    with pytest.raises(ValueError, match="> 0"):
        budgets.positive("eps_target", 0.0)


def test_a_mean_that_divides_by_n_needs_n_public_under_added_or_removed_records():
    """Issue 35: under "deletion" N differs between neighbours; ht_mean is refused (with the
    reason) unless sizes are public, and the size-free mean takes its place everywhere."""
    for design in ("census", "poisson", "cluster"):
        private = budgets.mechanisms_for("mean", design, "deletion")
        public = budgets.mechanisms_for("mean", design, "deletion", sizes_public=True)
        assert "ht_mean" not in private and "sum_count" in private, design
        assert "ht_mean" in public and "sum_count" in public, design
    # a changed record leaves N as it is: ht_mean fits Poisson under "replacement"
    assert "ht_mean" in budgets.mechanisms_for("mean", "poisson", "replacement")
    assert budgets.size_refusal("ht_mean", "replacement") == ""
    assert budgets.size_refusal("ht_mean", "deletion", sizes_public=True) == ""
    reason = budgets.size_refusal("ht_mean", "deletion")
    assert "differs by one" in reason and "public" in reason
    for name in (*budgets.QUANTILE_MECHANISMS, "laplace", "gaussian", "sum_count"):
        assert budgets.size_refusal(name, "deletion") == "", name  # none reads a size
    assert budgets.size_refusals("mean", "deletion") == {"ht_mean": reason}
    assert budgets.size_refusals("median", "deletion") == {}
    assert budgets.sizes_change("deletion", False)
    assert not budgets.sizes_change("deletion", True)
    assert not budgets.sizes_change("replacement", False)


def test_a_cluster_sample_states_that_its_list_of_clusters_is_public():
    """Issue 35: a record that opens a cluster of its own breaks Theorem 5.2's accounting
    (tests/core/planner/test_exact_privacy.py), so the cluster sample's guarantee is stated
    for a public, fixed list of clusters wherever the design list is shown."""
    from core.designs.cluster import CLUSTER_FRAME
    from core.populations import make_builtin

    pop = make_builtin("establishments", seed=1, size=2000)
    for relation in ("replacement", "deletion"):
        statuses = {s.name: s for s in budgets.design_statuses(pop, "median", relation)}
        assert statuses["cluster"].available
        assert CLUSTER_FRAME in statuses["cluster"].reason
        assert CLUSTER_FRAME not in statuses["poisson_cluster"].reason
