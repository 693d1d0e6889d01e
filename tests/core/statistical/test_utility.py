"""Tests for core.statistical.utility: utility loss and the equal-utility calibration (§4.4, §6)."""

from __future__ import annotations

import itertools
import math

import pytest

from core import statistical as sp


def test_section6_equal_utility_subsampling_matches_gaussian_and_beats_laplace():
    # Figures 5 and 8: at equal utility loss subsampling and Gaussian noise give practically
    # the same δ, Laplace noise a larger one, and relatively worse for smaller λ.
    n, eps = 1000, 0.01
    worse = []
    for lam in (0.05, 0.1, 0.3):
        for pi in (0.5, 0.1):
            m = sp.sample_size(n, lam)
            d_s = sp.delta_subsampling(n, m, pi, eps)
            d_g = sp.delta_gaussian(
                n, pi, eps, sp.equal_utility_noise_multiplier(n, m, pi, "gaussian")
            )
            d_l = sp.delta_laplace(
                n, pi, eps, sp.equal_utility_noise_multiplier(n, m, pi, "laplace")
            )
            assert d_g == pytest.approx(d_s, rel=0.03)
            assert d_l > 1.1 * d_s
            if pi == 0.5:
                worse.append(d_l / d_s)
    assert worse[0] > worse[1] > worse[2]


def test_utility_loss_matches_enumeration():
    # Lemma 7: E[(Y_samp − Y)²] over databases and samples equals π(1−π)(1/m − 1/n).
    for n, m, pi in ((4, 2, 0.3), (5, 1, 0.5), (6, 4, 0.8)):
        total = 0.0
        subsets = list(itertools.combinations(range(n), m))
        for bits in itertools.product((0, 1), repeat=n):
            w = pi ** sum(bits) * (1 - pi) ** (n - sum(bits))
            y = sum(bits) / n
            total += w * sum((sum(bits[i] for i in s) / m - y) ** 2 for s in subsets) / len(subsets)
        assert sp.utility_loss_subsampling(n, m, pi) == pytest.approx(total, rel=1e-12)


def test_equal_utility_calibration():
    n, m, pi = 1000, 100, 0.5
    loss = sp.utility_loss_subsampling(n, m, pi)
    assert loss == pytest.approx(0.25 * (1 / 100 - 1 / 1000))
    nu_g = sp.equal_utility_noise_multiplier(n, m, pi, "gaussian")
    nu_l = sp.equal_utility_noise_multiplier(n, m, pi, "laplace")
    assert sp.utility_loss_noise(n, nu_g, "gaussian") == pytest.approx(loss, rel=1e-13)
    assert sp.utility_loss_noise(n, nu_l, "laplace") == pytest.approx(loss, rel=1e-13)
    assert nu_g == pytest.approx(math.sqrt(2) * nu_l)
    # §4.4: ε = sqrt(2/(π(1−π))) sqrt(λ/(n − m)) is 1/ν of the calibrated Laplace noise.
    assert sp.laplace_eps_at_equal_utility(n, m, pi) == pytest.approx(1 / nu_l, rel=1e-13)
    assert sp.equal_utility_noise_multiplier(n, n, pi, "gaussian") == 0.0
