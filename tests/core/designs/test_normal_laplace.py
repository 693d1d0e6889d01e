"""core.designs.normal_laplace: the bound of a normal sampling error plus noise."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import integrate, stats

from core.designs import normal_laplace as nl


def test_limits_are_the_laplace_and_normal_quantiles():
    assert nl.error_bound("ht_mean", 0.0, 0.0, 2.0) == (pytest.approx(2.0 * math.log(20)), True)
    x, exact = nl.error_bound("gaussian", 0.0, 4.0, 0.0)
    assert x == pytest.approx(2.0 * stats.norm.ppf(0.975)) and not exact
    assert nl.normal_laplace_abs_quantile(0.95, 1.0, 0.0) == pytest.approx(stats.norm.ppf(0.975))


def test_normal_laplace_tail_against_quadrature():
    sigma, b = 0.7, 1.3
    for x in (0.0, 0.5, 2.0, 6.0):
        ref, _ = integrate.quad(
            lambda z, x=x: stats.norm.sf(x - z, scale=sigma) * 0.5 / b * math.exp(-abs(z) / b),
            -60, 60, points=[0.0, x], limit=200,
        )  # fmt: skip
        assert float(nl.normal_laplace_tail(np.array([x]), sigma, b)[0]) == pytest.approx(
            ref, rel=1e-8
        )
