"""core.designs.stratified: proportional allocation with randomised rounding."""

from __future__ import annotations

import math

import numpy as np
import pytest

from core import strata as st
from core.designs.frame import Frame
from core.designs.stratified import ProportionalStratifiedDesign, rounded_allocation
from core.population import Population

SIZES = np.array([30, 45, 125])
FRAME = Frame.of(
    Population("t", np.linspace(0, 1, 200), 0.0, 1.0, strata=np.repeat([0, 1, 2], SIZES))
)


def test_rounding_is_unbiased_and_stays_next_to_r_n_h():
    u = np.random.default_rng(0).random((20_000, 3))
    alloc = rounded_allocation(SIZES, 0.1, u)
    assert set(np.unique(alloc[:, 1])) == {4, 5}
    assert alloc.mean(axis=0) == pytest.approx(0.1 * SIZES, abs=0.02)


def test_rates_below_one_record_per_stratum_are_skipped():
    d = ProportionalStratifiedDesign()
    assert d.point(FRAME, 0.02) is None  # 0.02 × 30 < 1
    p = d.point(FRAME, 0.1)
    assert p is not None
    assert d.amplified(0.5, p) == pytest.approx(float(st.proportional_eps_bound(0.5, 0.1)))
    assert d.amplified(d.deamplified(0.3, p), p) == pytest.approx(0.3, rel=1e-9)


def test_masks_and_windows_hold_the_allocation():
    d = ProportionalStratifiedDesign()
    p = d.point(FRAME, 0.1)
    assert p is not None
    rng = np.random.default_rng(1)
    masks = d.mask(FRAME, d.draw_keys(FRAME, 100, rng), p)
    for h, size in enumerate(SIZES):
        counts = masks[:, FRAME.strata_codes == h].sum(axis=1)
        assert set(np.unique(counts)) <= {math.floor(0.1 * size), math.ceil(0.1 * size)}
    sizes = d.window_draw(FRAME, p, 100, rng).sizes
    assert set(np.unique(sizes)) <= {19, 20, 21}


def test_a_population_without_two_strata_is_refused_in_words():
    plain = Frame.of(Population("t", np.linspace(0, 1, 10), 0.0, 1.0))
    assert "no stratum labels" in ProportionalStratifiedDesign().unavailable(plain, "deletion")
