"""core.designs.individual: simple random and Poisson samples."""

from __future__ import annotations

import math

import numpy as np
import pytest

from core import amplification as amp
from core import mechanisms as mech
from core.designs.frame import Frame
from core.designs.individual import Poisson, SimpleRandom
from core.population import Population

FRAME = Frame.of(Population("t", np.linspace(0.0, 1.0, 1_000), 0.0, 1.0))


def test_srs_point_rounds_n_and_scales_delta():
    srs = SimpleRandom()
    point = srs.point(FRAME, 0.0123)
    assert point is not None and point.size == 12 and point.rate == 0.012
    assert srs.delta_sample(1e-6, point) == pytest.approx(1e-6 / 0.012)
    assert srs.delta_sample(0.4, point) == 0.5  # capped


def test_srs_masks_hold_n_records_and_poisson_masks_the_rate():
    rng = np.random.default_rng(2)
    srs, poi = SimpleRandom(), Poisson()
    p = srs.point(FRAME, 0.1)
    assert p is not None
    assert (srs.mask(FRAME, srs.draw_keys(FRAME, 50, rng), p).sum(axis=1) == 100).all()
    q = poi.point(FRAME, 0.1)
    assert q is not None
    share = poi.mask(FRAME, poi.draw_keys(FRAME, 200, rng), q).mean()
    assert abs(share - 0.1) < 4 * math.sqrt(0.1 * 0.9 / 200_000)


def test_poisson_change_accounting_is_exact_and_inverts():
    poi = Poisson()
    p = poi.point(FRAME, 0.05)
    assert p is not None
    factors = mech.GlobalLaplaceQuantile.budget_factors(0.5)  # alpha = gamma = 1
    acc = poi.accounting(1.0, "replacement", factors, p)
    assert acc.eps_sample == pytest.approx(float(amp.eps_sample(1.0, 0.05)), rel=1e-12)
    assert "exact for a changed record" in acc.bound
    back = poi.eps_target_of(acc.eps_sample, "replacement", factors, p)
    assert back == pytest.approx(1.0, rel=1e-12)
    # The exponential median: ε_ar = ε_sample / 2 and ε_sub = ε_sample, the closed form
    # ln((1 − r + r e^x) / (1 − r + r e^{−x})) = 1 at x = ε_sample / 2.
    median = mech.ExponentialQuantile.budget_factors(0.5)
    acc = poi.accounting(1.0, "replacement", median, p)
    x = acc.eps_sample / 2.0
    got = math.log((0.95 + 0.05 * math.exp(x)) / (0.95 + 0.05 * math.exp(-x)))
    assert got == pytest.approx(1.0, rel=1e-12)
    assert acc.eps_sample > float(amp.eps_sample(1.0, 0.05))
    # Without a mechanism: group privacy, the theorem at ε_target / 2.
    group = poi.accounting(1.0, "replacement", None, p)
    assert group.eps_sample == pytest.approx(float(amp.eps_sample(0.5, 0.05)), rel=1e-12)


def test_window_draws_have_the_designs_sizes():
    rng = np.random.default_rng(3)
    srs, poi = SimpleRandom(), Poisson()
    p = srs.point(FRAME, 0.2)
    assert p is not None
    assert (srs.window_draw(FRAME, p, 7, rng).sizes == 200).all()
    q = poi.point(FRAME, 0.2)
    assert q is not None
    sizes = poi.window_draw(FRAME, q, 4_000, rng).sizes
    assert abs(sizes.mean() - 200) < 4 * math.sqrt(200 * 0.8 / 4_000)
