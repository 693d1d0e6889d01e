"""The census beats every sample for a linear statistic: the lemmas, the grid, the verdict."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.designs.frame import Frame
from core.designs.registry import DESIGNS
from core.linear.mechanisms import LINEAR_MECHANISMS
from core.linear.plan import plan_linear
from core.linear.statistic import LinearStatistic
from core.linear.verdict import linear_verdict
from tests.core.linear.test_plan import POP, _population


def _phi(x: float, r: float) -> float:
    """The simple random / Poisson sample's budget ``ln(1 + (e^x − 1)/r)``."""
    return (
        x + math.log1p(-math.exp(-x) * (1.0 - r)) - math.log(r)
        if x > 30
        else math.log1p(math.expm1(x) / r)
    )


@settings(max_examples=60, deadline=None)
@given(x=st.floats(1e-12, 1000.0), r=st.floats(1e-4, 0.9999))
def test_lemma_1_amplification_never_beats_the_weight(x: float, r: float) -> None:
    assert r * _phi(x, r) <= x * (1 + 1e-12)


@settings(max_examples=60, deadline=None)
@given(x=st.floats(1e-6, 40.0), r=st.floats(1e-3, 0.999), delta=st.integers(1, 5))
def test_lemma_2_geometric_noise_of_a_sample_is_larger(x: float, r: float, delta: int) -> None:
    geo = LINEAR_MECHANISMS["geometric"]
    census = geo.variance(geo.parameter(x, None, delta))
    sample = geo.variance(geo.parameter(_phi(x, r), None, delta)) / (r * r)
    assert sample >= census * (1 - 1e-9)
    if delta == 1:  # the ratio is exactly e^{ε_s − ε_c}
        assert sample / census == pytest.approx(math.exp(_phi(x, r) - x), rel=1e-6)


RELATIONS = ("replacement", "deletion")
GRID_EPS = (1e-9, 1e-3, 0.1, 1.0, 5.0, 20.0, 100.0, 1000.0)


@pytest.mark.parametrize("relation", RELATIONS)
@pytest.mark.parametrize("factors", [(1.0, 1.0), (2.0, 1.0), (1.0, 0.5)])
def test_every_design_spends_at_most_the_census_over_its_weight(
    relation: str, factors: tuple[float, float]
) -> None:
    """``r ε_sample ≤ ε_census`` for every design, relation, budget pair (a total with
    ``0 < L``: α = U/(U − L) under a change, γ = (U − L)/U under add/remove) and ε."""
    from core.mechanisms.base import BudgetFactors

    frame = Frame.of(POP)
    f = BudgetFactors("laplace", *factors)
    census = DESIGNS["census"]
    for eps in GRID_EPS:
        c = census.accounting(eps, relation, f, census.point(frame, 1.0)).eps_sample
        for d in DESIGNS.values():
            if d.reference or not d.has_linear_moments or d.unavailable(frame, relation):
                continue
            for p in d.points(frame, np.geomspace(0.01, 0.99, 12)):
                e = d.accounting(eps, relation, f, p).eps_sample
                assert p.rate * e <= c * (1 + 1e-9), (d.name, eps, p.rate)


@pytest.mark.parametrize("relation", RELATIONS)
@pytest.mark.parametrize(
    "stat", [LinearStatistic("count", "strata", "b"), LinearStatistic("total")]
)
def test_the_verdict_finds_the_census_best_and_close_at_small_eps(
    relation: str, stat: LinearStatistic
) -> None:
    pop = _population(800, seed=3)
    res = plan_linear(pop, stat, eps_target=1.0, relation=relation)
    small = plan_linear(pop, stat, eps_target=1e-4, relation=relation)
    v = linear_verdict(res, small)
    assert v.census_wins and not v.exceptions
    for d in v.designs:
        assert d.efficiency <= 1 + 1e-9
        assert d.noise_ratio >= 1 - 1e-9
        assert d.error_ratio >= 1 - 1e-9
        assert 1 - 1e-9 <= d.small_eps_ratio
    near = {d.design: d.small_eps_ratio for d in v.designs if d.mechanism == "laplace"}
    if "poisson" in near:  # φ_r(x) = x/r + O(x²): the noise of the best rate nears the census's
        assert near["poisson"] < 1.3


def test_a_sample_that_beat_the_census_would_be_reported() -> None:
    res = plan_linear(POP, LinearStatistic("total"), eps_target=1.0)
    t = res.table.copy()
    at = t.index[t["design"] == "poisson"][0]
    t.loc[at, ["rmse", "error_95"]] = 0.0
    forged = type(res)(**{**res.__dict__, "table": t})
    v = linear_verdict(forged)
    assert not v.census_wins
    assert {d.design for d in v.exceptions} == {"poisson"}
    assert math.isnan(v.small_eps)
