"""core.planner.accuracy_first: the smallest ε_target that reaches an error bound."""

from __future__ import annotations

import numpy as np

from core.planner import accuracy_first, engine
from core.population import Population


def test_the_found_eps_reaches_the_bound_and_a_little_less_does_not():
    pop = Population("t", np.sort(np.random.default_rng(0).lognormal(3, 0.5, 2_000)), 0.0, 200.0)
    kw = dict(designs=["srs"], reps=40, rates=[0.2, 0.5], mechanisms=["global_laplace"])
    found = accuracy_first.smallest_eps_target(pop, target_error_95=20.0, **kw)
    assert found.feasible and found.plan is not None
    assert found.plan.best["error_95"] <= 20.0
    less = engine.plan(pop, eps_target=found.eps_target / 1.1, refine=False, **kw)
    assert less.best["error_95"] > 20.0
    assert 1 <= found.evaluations <= 16
