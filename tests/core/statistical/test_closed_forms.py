"""Tests for core.statistical.closed_forms: the paper's closed forms against the exact curves."""

from __future__ import annotations

import numpy as np
import pytest

from core import statistical as sp
from tests.core.statistical.brute_force import EPS_GRID


@pytest.mark.parametrize(
    ("n", "pi"), [(10, 0.5), (57, 0.13), (1000, 0.5), (1000, 0.01), (4000, 0.3)]
)
def test_theorem_4_2_closed_form_agrees(n, pi):
    ours = sp.delta_no_mechanism(n, pi, EPS_GRID)
    paper = sp.delta_no_mechanism_closed_form(n, pi, EPS_GRID)
    assert np.allclose(ours, paper, rtol=1e-9, atol=1e-300)


@pytest.mark.parametrize(
    ("n", "m", "pi"),
    [(10, 3, 0.5), (100, 10, 0.2), (1000, 100, 0.5), (1000, 999, 0.05), (500, 1, 0.4)],
)
def test_theorem_4_1_closed_form_agrees(n, m, pi):
    ours = sp.delta_subsampling(n, m, pi, EPS_GRID)
    paper = sp.delta_subsampling_closed_form(n, m, pi, EPS_GRID)
    assert np.allclose(ours, paper, rtol=1e-9, atol=1e-300)


@pytest.mark.parametrize("nu", [0.5, 1.0, 3.0])
def test_lemma_5_laplace_is_pure_at_one_over_nu_and_tight(nu):
    eps0 = sp.laplace_pure_eps(nu)
    assert eps0 == pytest.approx(1.0 / nu)
    for pi in (0.01, 0.5):
        assert sp.delta_laplace(200, pi, [eps0, eps0 * 1.5, 1000.0], nu).tolist() == [0, 0, 0]
        assert sp.delta_laplace(200, pi, eps0 * (1 - 1e-3), nu) > 0
    assert sp.delta_dp_laplace(eps0, nu) == 0.0


@pytest.mark.parametrize(("n", "pi"), [(1000, 0.5), (10_000, 0.5), (10_000, 0.1), (100_000, 0.3)])
def test_lemma_6_normal_approximation_close_for_large_n(n, pi):
    # An approximation (the binomial's skew is ignored): within a few per cent here.
    eps = np.array([1e-3, 0.01, 0.02])
    for nu in (1.0, 3.0):
        exact = sp.delta_gaussian(n, pi, eps, nu)
        approx = sp.delta_gaussian_normal_approx(n, pi, eps, nu)
        assert np.allclose(exact, approx, rtol=0.03)
