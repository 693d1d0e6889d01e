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
    assert census.accounting(0.8, "replacement", mech.ExponentialQuantile, point).eps_sample == 0.8
    # ht_mean holds 2ε for a changed record: the census may spend only half.
    acc = census.accounting(0.8, "replacement", mech.HorvitzThompsonMean, point)
    assert acc.eps_sample == pytest.approx(0.4)
    assert census.eps_target_of(0.4, "replacement", mech.HorvitzThompsonMean, point) == 0.8
    assert census.mask(frame, census.draw_keys(frame, 3, np.random.default_rng(0)), point).all()
