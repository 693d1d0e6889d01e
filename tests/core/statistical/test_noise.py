"""Tests for core.statistical.noise: Gaussian and Laplace noise by quadrature and enumeration."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import integrate, stats

from core import statistical as sp
from tests.core.statistical.brute_force import _datasets, brute_noisy_delta


@pytest.mark.parametrize("noise", ["gaussian", "laplace"])
@pytest.mark.parametrize(
    ("n", "pi", "nu"),
    [(1, 0.4, 1.0), (3, 0.5, 0.3), (5, 0.2, 1.0), (6, 0.5, 2.5), (4, 0.9, 0.7), (4, 0.3, 0.05)],
)
def test_noise_matches_quadrature_of_enumerated_densities(noise, n, pi, nu):
    func = sp.delta_gaussian if noise == "gaussian" else sp.delta_laplace
    for eps in (0.0, 0.05, 0.5, 1.2):
        want = brute_noisy_delta(n, pi, eps, nu, noise)
        assert func(n, pi, eps, nu) == pytest.approx(want, rel=2e-7, abs=1e-12)


@pytest.mark.parametrize("noise", ["gaussian", "laplace"])
def test_noisy_densities_match_enumeration(noise):
    n, pi, nu = 5, 0.3, 0.8
    dist = stats.norm if noise == "gaussian" else stats.laplace
    x = np.linspace(-0.5, 1.5, 41)
    f_plus, f_minus = sp.noisy_query_densities(n, pi, x, nu, noise)
    want_plus = np.zeros_like(x)
    want_minus = np.zeros_like(x)
    for bits, w in _datasets(n, pi):
        c = sum(bits)
        want_plus += w * dist.pdf(x, (c + 1) / n, nu / n)
        want_minus += w * dist.pdf(x, c / n, nu / n)
    assert np.allclose(f_plus, want_plus, rtol=1e-12, atol=1e-14)
    assert np.allclose(f_minus, want_minus, rtol=1e-12, atol=1e-14)
    assert integrate.trapezoid(f_plus, x) == pytest.approx(1.0, abs=0.02)
