"""Accuracy first started at the census's exact bound finds what the plain search finds."""

from __future__ import annotations

import math

import numpy as np
import pytest

from core import planner
from core.planner import accuracy_first
from core.population import Population
from core.populations import make_builtin


def _survey_like() -> Population:
    """Whole numbers (ties), 8 strata, 16 clusters: the shape of a small survey."""
    rng = np.random.default_rng(11)
    n = 1_500
    stratum = rng.integers(0, 8, n)
    cluster = stratum * 2 + rng.integers(0, 2, n)
    values = np.clip(np.rint(rng.gamma(36.0, 86.0 / 36.0, n)), 0, 250)
    order = np.argsort(values, kind="stable")
    return Population(
        "survey-like", values[order], 0.0, 250.0, strata=stratum[order], clusters=cluster[order]
    )


CASES = [
    ("survey", "median", 2.0),
    ("survey", "mean", 1.5),
    ("lognormal", "median", 8.0),
]


@pytest.mark.parametrize(("which", "statistic", "target"), CASES)
def test_the_census_start_finds_the_plain_searchs_answer(monkeypatch, which, statistic, target):
    pop = _survey_like() if which == "survey" else make_builtin("lognormal", seed=2, size=2_000)
    kw = {"statistic": statistic, "target_error_95": target, "reps": 40, "seed": 5}
    fast = planner.smallest_eps_target(pop, **kw)
    monkeypatch.setattr(accuracy_first, "_census_start", lambda error, x, u, ua, ub: u)
    plain = planner.smallest_eps_target(pop, **kw)
    assert fast.feasible and plain.feasible
    # Both are the upper end of a bracket narrower than the 2 % tolerance around a root of
    # the same (common-sample) error curve.
    assert abs(math.log(fast.eps_target) - math.log(plain.eps_target)) <= 2 * math.log1p(0.02)
    assert fast.best_error_95 <= target and plain.best_error_95 <= target


def test_the_census_start_meets_the_census_bound():
    """Steps assuming a 1/ε bound land where the census's exact bound meets the target."""
    bound = {}

    def census(u: float) -> float:
        bound[u] = 3.0 / math.exp(u) + 0.1
        return bound[u]

    u = accuracy_first._census_start(census, 1.0, 0.0, math.log(1e-3), math.log(50.0))
    assert abs(census(u) - 1.0) < 0.05
    # A census already exact (an error of 0) sends the search to the bottom of the range.
    assert accuracy_first._census_start(lambda u: 0.0, 1.0, 0.0, -3.0, 2.0) == -3.0
