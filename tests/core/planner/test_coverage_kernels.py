"""The compiled coverage of clamped Laplace releases equals numpy's closed form."""

from __future__ import annotations

import math

import numpy as np
import pytest

from core import mechanisms as mech
from core.mechanisms.clamping import clamped_abs_coverage
from core.planner import coverage_kernels as ck
from core.planner.errors import conditional_quantile


def _cases() -> list[tuple[np.ndarray, np.ndarray, float, float]]:
    rng = np.random.default_rng(3)
    err = rng.normal(0.0, 2.0, 60)
    scale = rng.uniform(0.0, 3.0, 60)
    scale[::7] = 0.0  # samples without noise (a smooth sensitivity of zero on ties)
    return [
        (err, scale, -math.inf, math.inf),
        (err, scale, -4.0, 3.0),
        (np.clip(err, -1.0, 0.5), scale, -1.0, 0.5),  # releases at the bounds
        (err, np.full(60, 0.7), -6.0, 6.0),
    ]


@pytest.mark.skipif(not ck.COMPILED, reason="numba is not installed")
@pytest.mark.parametrize("case", range(4))
def test_compiled_coverage_equals_numpy(case: int) -> None:
    err, scale, below, above = _cases()[case]
    cdf = mech.LaplaceMean().standard_noise_cdf
    assert ck.is_laplace(cdf)
    compiled = ck.coverage_per_row(err, scale, cdf, below, above)
    plain = clamped_abs_coverage(err, scale, cdf, below, above)
    for x in (0.0, 0.3, 1.0, 0.5, 3.0, 4.0, 6.0, 50.0):
        np.testing.assert_allclose(compiled(x), plain(x), rtol=0.0, atol=1e-14)


def test_other_noise_keeps_its_own_cdf() -> None:
    gauss = mech.GaussianMean().standard_noise_cdf
    assert not ck.is_laplace(gauss)
    err, scale, below, above = _cases()[1]
    got = ck.coverage_per_row(err, scale, gauss, below, above)(1.0)
    want = clamped_abs_coverage(err, scale, gauss, below, above)(1.0)
    np.testing.assert_allclose(got, want, rtol=0.0, atol=1e-15)


def test_the_bound_is_the_one_numpy_finds(monkeypatch: pytest.MonkeyPatch) -> None:
    err, scale, below, above = _cases()[1]
    got = conditional_quantile(err, scale, 0.95, None, below, above)
    monkeypatch.setattr(ck, "COMPILED", False)
    want = conditional_quantile(err, scale, 0.95, None, below, above)
    assert got[0] == pytest.approx(want[0], rel=1e-9)
    assert got[1] == pytest.approx(want[1], rel=1e-6)


def test_a_law_s_two_mses_are_about_theta_then_each_statistic() -> None:
    """summary_row's MSE about θ and its noise part about each sample's statistic, from one
    pass over the size-free mean's nodes, are the law's MSEs about each."""
    from core.planner.errors import _law_mse

    m = mech.SumCountMean(0.0, 10.0, sum_share=0.4)
    law = m.law([3.0, -8.0, 0.0], [4.0, 9.0, 0.0], 0.8)
    stat = np.array([5.5, 4.2, 5.0])
    about_theta, about_stat = _law_mse(law, 6.0, stat)
    np.testing.assert_allclose(about_theta, law.mse(6.0), rtol=1e-12)
    np.testing.assert_allclose(about_stat, law.mse(stat), rtol=1e-12)


@pytest.mark.parametrize("case", range(4))
def test_the_mean_coverage_is_the_mean_of_the_rows(case: int) -> None:
    err, scale, below, above = _cases()[case]
    cdf = mech.LaplaceMean().standard_noise_cdf
    per_row = ck.coverage_per_row(err, scale, cdf, below, above)
    mean = ck.mean_coverage(per_row)
    plain = clamped_abs_coverage(err, scale, cdf, below, above)
    for x in (0.0, 0.3, 1.0, 4.0, 50.0):
        assert mean(x) == pytest.approx(float(plain(x).mean()), rel=1e-13, abs=1e-15)


def test_a_size_free_mean_s_coverage_averaged_in_one_pass() -> None:
    m = mech.SumCountMean(0.0, 10.0, sum_share=0.4)
    law = m.law([3.0, -8.0, 0.0, 12.0], [4.0, 9.0, 0.0, 30.0], 0.8)
    mean = ck.law_mean_coverage(law, 5.5)
    for x in (0.0, 0.2, 1.5, 4.5, 10.0):
        assert mean(x) == pytest.approx(float(law.coverage(x, 5.5).mean()), rel=1e-13, abs=1e-15)
