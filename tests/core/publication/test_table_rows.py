"""plan_table hands each row to ``on_row`` as soon as it is planned."""

from __future__ import annotations

import numpy as np

from core.population import Population
from core.populations import make_builtin
from core.publication import plan_table

FAST = {"designs": ["poisson"], "rates": [0.2, 0.5], "reps": 10, "seed": 7}


def test_rows_arrive_one_by_one_and_make_the_table():
    pop = make_builtin("establishments", seed=2, size=600)
    keep = np.isin(pop.strata, ["1-4", "5-9"])
    small = Population(
        "two classes", pop.values[keep], pop.lower, pop.upper, strata=pop.strata[keep]
    )
    seen: list[dict] = []
    sizes: list[int] = []

    def lazy(fn, jobs):
        for job in jobs:  # a lazy executor: the rows come one at a time
            sizes.append(len(seen))
            yield fn(job)

    tp = plan_table(
        small, ["strata"], ["median", "mean"], 1.0, map_fn=lazy, on_row=seen.append, **FAST
    )
    assert sizes == [0, 1, 2, 3]  # each row reported before the next job starts
    assert len(seen) == len(tp.table) == 4
    got = sorted((r["cell"], r["statistic"], r["error_95"]) for r in seen)
    want = sorted(zip(tp.table["cell"], tp.table["statistic"], tp.table["error_95"], strict=True))
    assert [g[:2] for g in got] == [w[:2] for w in want]
    np.testing.assert_allclose([g[2] for g in got], [w[2] for w in want], rtol=1e-12)
