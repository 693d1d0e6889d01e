"""core.planner.engine: the loop over design × mechanism × rate and its ranking."""

from __future__ import annotations

import numpy as np

from core.planner import engine
from core.population import Population


def test_every_row_names_its_bound_and_the_best_rows_are_ranked():
    rng = np.random.default_rng(1)
    clusters = rng.integers(0, 12, 1_500)
    pop = Population(
        "t", np.sort(rng.uniform(0, 100, 1_500)), 0.0, 100.0, strata=clusters % 3, clusters=clusters
    )
    result = engine.plan(pop, eps_target=1.0, reps=20, refine=False, mechanisms=["exponential"])
    table = result.table
    assert table["accounting"].str.len().gt(0).all()
    assert set(table["design"]) >= {"census", "srs", "poisson", "cluster", "poisson_cluster"}
    best = result.best_by_design
    assert best["error_95"].is_monotonic_increasing
    assert (best.groupby("design").size() == 1).all()
    assert result.census is not None and result.census["exact"]
