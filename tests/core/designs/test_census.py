"""core.designs.census: no sampling, no amplification."""

from __future__ import annotations

import numpy as np
import pytest

from core import mechanisms as mech
from core.designs.census import Census
from core.designs.frame import Frame
from core.population import Population


def test_census_spends_eps_target_divided_by_the_mechanisms_factor():
    frame = Frame.of(Population("t", np.linspace(0, 1, 20), 0.0, 1.0))
    census = Census()
    point = census.point(frame, 0.3)
    assert point is not None and point.rate == 1.0 and point.n == 20
    median = mech.ExponentialQuantile.budget_factors(0.5)
    assert census.accounting(0.8, "replacement", median, point).eps_sample == 0.8
    # ht_mean holds 2ε for a changed record: the census may spend only half.
    ht = mech.HorvitzThompsonMean.budget_factors(0.5)
    acc = census.accounting(0.8, "replacement", ht, point)
    assert acc.eps_sample == pytest.approx(0.4)
    assert census.eps_target_of(0.4, "replacement", ht, point) == 0.8
    assert census.mask(frame, census.draw_keys(frame, 3, np.random.default_rng(0)), point).all()


@pytest.mark.parametrize("q", [0.1, 0.25, 0.5, 0.75, 0.9])
def test_census_under_deletion_spends_eps_target_over_max_q_one_minus_q(q: float) -> None:
    """The exponential quantile is ``max(q, 1 − q) ε``-DP for an added or removed record,
    so the census may spend ``eps_target / max(q, 1 − q)``: twice it for the median."""
    census = Census()
    point = census.point(Frame.of(Population("t", np.linspace(0, 1, 20), 0.0, 1.0)), 1.0)
    assert point is not None
    factors = mech.ExponentialQuantile.budget_factors(q)
    acc = census.accounting(0.8, "deletion", factors, point)
    assert acc.eps_sample == pytest.approx(0.8 / max(q, 1.0 - q), rel=1e-12)
    assert census.eps_target_of(acc.eps_sample, "deletion", factors, point) == pytest.approx(0.8)
