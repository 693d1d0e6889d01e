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
