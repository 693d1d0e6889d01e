"""Tests for core.clusters.multi_stage: two-stage designs and Theorem 5.3."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from core import amplification as amp
from core import clusters as cl
from tests.core.clusters.references import EPS, FAST, LN2, LN3, SIZES, designs


def test_hand_computed_two_stage() -> None:
    # ε = ln 3 and r = 1/2: ε_r = ln(1 + (1/2)(2)) = ln 2. Then Theorem 5.2 with ε_r at
    # k = 2, ℓ = 1, n_i + n_max = 2 is the second example: ln 1.8.
    assert cl.two_stage_eps_upper(LN3, 2, 1, 1, 1, 0.5) == pytest.approx(math.log(1.8), rel=1e-14)


def test_hand_computed_hypothesis_test_bound() -> None:
    # Theorem 5.3 with ε'' = ln 2, a test of sharpness ε' = ln 4 (e^{−ε'} = 1/4), q = 1/2:
    # ln(1 + 1 · (1/2)/(1/2 + 1/8)) = ln 1.8.
    assert cl.hypothesis_test_bound(LN2, math.log(4.0), 2, 1) == pytest.approx(
        math.log(1.8), rel=1e-15
    )


@FAST
@given(eps=EPS, design=designs(), ni=SIZES, hi=SIZES, r=st.floats(1e-6, 1.0))
def test_two_stage_bound(eps, design, ni, hi, r) -> None:
    k, ell = design
    two = cl.two_stage_eps_upper(eps, k, ell, ni, hi, r)
    _, single = cl.cluster_eps_bounds(eps, k, ell, ni, 1, hi)
    eps_r = amp.eps_target(eps, r)
    assert two <= single * (1 + 1e-13)  # the inner stage only helps
    assert two <= eps_r * (1 + 1e-13)  # at most the Poisson stage's ε_r
    # At combined size 0 the composition is SRS at r·ℓ/k exactly, so it is a floor.
    assert two >= cl.srs_eps(eps, k, ell, r) * (1 - 1e-12)


def test_two_stage_limits() -> None:
    # r = 1 is Theorem 5.2; huge clusters leave only ε_r, which is ≈ rε for small ε.
    assert (
        cl.two_stage_eps_upper(0.5, 100, 10, 20, 30, 1.0)
        == cl.cluster_eps_bounds(0.5, 100, 10, 20, 1, 30).upper
    )
    eps_r = amp.eps_target(0.05, 0.01)
    assert cl.two_stage_eps_upper(0.05, 100, 10, 10**5, 10**5, 0.01) == pytest.approx(eps_r)
    assert eps_r == pytest.approx(0.01 * 0.05, rel=0.03)


@FAST
@given(eps=EPS, design=designs(), s=st.floats(0, 1e5))
def test_hypothesis_test_bound_is_theorem_51_for_the_counting_test(eps, design, s) -> None:
    k, ell = design
    # A test of sharpness sε gives the same expression as Theorems 5.1/5.2 at size s.
    assert cl.hypothesis_test_bound(eps, s * eps, k, ell) == pytest.approx(
        cl.cluster_eps(eps, k, ell, s), rel=1e-14
    )


def test_hypothesis_test_bound_limits() -> None:
    assert cl.hypothesis_test_bound(0.3, 0.0, 10, 2) == pytest.approx(cl.srs_eps(0.3, 10, 2))
    assert cl.hypothesis_test_bound(0.3, 1e3, 10, 2) == pytest.approx(0.3, rel=1e-15)
    grid = np.geomspace(1e-3, 1e3, 50)
    values = cl.hypothesis_test_bound(0.3, grid, 10, 2)
    assert np.all(np.diff(values) >= 0)
