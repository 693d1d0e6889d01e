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


DELETION_CASES = {
    "census": {},
    "poisson": {"rate": 0.1},
    "stratified_proportional": {"rate": 0.1},
    "cluster": {"sizes": [4, 6, 9, 2], "clusters_sampled": 2},
    "poisson_cluster": {"rate": 0.3, "sizes": [4, 6, 9, 2]},
}


@pytest.mark.parametrize("q", [0.25, 0.5, 0.9])
@pytest.mark.parametrize("design", sorted(DELETION_CASES))
def test_exponential_quantile_spends_over_max_q_one_minus_q_under_deletion(
    design: str, q: float
) -> None:
    """Under "deletion" every design's theorem takes the mechanism's add/remove budget
    ``α ε_sample``, and the exponential quantile's ``α`` is ``max(q, 1 − q)``: it may spend
    ``1 / max(q, 1 − q)`` times what a mechanism with ``α = 1`` spends (the global-Laplace
    quantile, or none named): twice for the median, 4/3 for a quartile."""
    kw = DELETION_CASES[design]
    t = 0.7
    plain = budgets.eps_sample_for(design, t, relation="deletion", **kw)
    laplace = budgets.eps_sample_for(
        design, t, relation="deletion", mechanism="global_laplace", quantile=q, **kw
    )
    assert laplace == pytest.approx(plain, rel=1e-12)
    got = budgets.eps_sample_for(
        design, t, relation="deletion", mechanism="exponential", quantile=q, **kw
    )
    assert got == pytest.approx(plain / max(q, 1.0 - q), rel=1e-12)
    back = budgets.eps_target_for(
        design, got, relation="deletion", mechanism="exponential", quantile=q, **kw
    )
    assert back == pytest.approx(t, rel=1e-9)


@pytest.mark.parametrize(("statistic", "q"), [("median", 0.5), ("quantile", 0.9)])
def test_plan_under_deletion_gives_the_exponential_quantile_its_levels_budget(
    statistic: str, q: float
) -> None:
    """The planner passes the level it plans to the accounting: on the built-in
    establishments (strata and clusters, so every design proven for added or removed
    records is offered) each row of the exponential quantile spends ``1 / max(q, 1 − q)``
    times the global-Laplace quantile's ``ε_sample`` at the same design and rate."""
    from core import planner
    from core.populations import make_builtin

    pop = make_builtin("establishments", seed=0, size=3000)
    result = planner.plan(
        pop, statistic=statistic, quantile=q, eps_target=1.0, relation="deletion", reps=20,
        refine=False, rates=(0.1, 0.3), mechanisms=("exponential", "global_laplace"),
    )  # fmt: skip
    table = result.table.pivot_table(
        index=["design", "rate"], columns="mechanism", values="eps_sample"
    )
    assert {"census", "poisson", "cluster"} <= set(table.index.get_level_values("design"))
    np.testing.assert_allclose(
        table["exponential"], table["global_laplace"] / max(q, 1.0 - q), rtol=1e-12
    )
    assert table.loc[("census", 1.0), "exponential"] == pytest.approx(1.0 / max(q, 1.0 - q))
