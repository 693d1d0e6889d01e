"""The compiled coverage of :class:`SumCountLaw` equals its numpy closed form."""

from __future__ import annotations

import numpy as np
import pytest

from core.mechanisms import sum_count as sc
from core.mechanisms import sum_count_kernels as kernels


@pytest.mark.skipif(not kernels.COMPILED, reason="numba is not installed")
def test_compiled_coverage_equals_numpy(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(7)
    for _ in range(40):
        n = int(rng.integers(1, 30))
        lo, hi = -3.0, float(rng.uniform(1.0, 100.0))
        m = rng.integers(0, 40, n).astype(float)  # empty samples included
        t = (rng.uniform(lo, hi, n) - (lo + hi) / 2.0) * m
        law = sc.SumCountLaw(t, m, rng.uniform(0.01, 50, n), rng.uniform(0.01, 20, n), lo, hi)
        for x in (0.0, float(rng.uniform(0.0, hi - lo)), hi - lo, 2.0 * (hi - lo)):
            theta = float(rng.uniform(lo, hi))
            monkeypatch.setattr(kernels, "COMPILED", True)
            compiled = law.coverage(x, theta)
            monkeypatch.setattr(kernels, "COMPILED", False)
            plain = law.coverage(x, theta)
            np.testing.assert_allclose(compiled, plain, rtol=0.0, atol=1e-12)


@pytest.mark.skipif(not kernels.COMPILED, reason="numba is not installed")
def test_compiled_mse_equals_numpy(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(8)
    for _ in range(30):
        n = int(rng.integers(1, 20))
        lo, hi = -3.0, float(rng.uniform(1.0, 100.0))
        m = rng.integers(0, 40, n).astype(float)
        t = (rng.uniform(lo, hi, n) - (lo + hi) / 2.0) * m
        args = (t, m, rng.uniform(0.01, 50, n), rng.uniform(0.01, 20, n), lo, hi)
        for about in (lo, float(rng.uniform(lo, hi)), hi):
            monkeypatch.setattr(kernels, "COMPILED", True)
            compiled = sc.SumCountLaw(*args).mse(about)
            monkeypatch.setattr(kernels, "COMPILED", False)
            plain = sc.SumCountLaw(*args).mse(about)
            np.testing.assert_allclose(compiled, plain, rtol=1e-12, atol=1e-12 * (hi - lo) ** 2)


@pytest.mark.parametrize("compiled", [True, False])
def test_mse_about_several_points_at_once_equals_one_at_a_time(
    monkeypatch: pytest.MonkeyPatch, compiled: bool
) -> None:
    """The planner's two MSEs of a law (about θ and about each sample's statistic) from one
    pass over the nodes equal the numpy closed form about each point alone."""
    if compiled and not kernels.COMPILED:
        pytest.skip("numba is not installed")
    rng = np.random.default_rng(9)
    n = 12
    lo, hi = -3.0, 40.0
    m = rng.integers(0, 40, n).astype(float)
    t = (rng.uniform(lo, hi, n) - (lo + hi) / 2.0) * m
    args = (t, m, rng.uniform(0.01, 50, n), rng.uniform(0.01, 20, n), lo, hi)
    theta, stat = 7.5, rng.uniform(lo, hi, n)
    monkeypatch.setattr(kernels, "COMPILED", compiled)
    got = sc.SumCountLaw(*args).mse_at([theta, stat])
    monkeypatch.setattr(kernels, "COMPILED", False)
    for about, mse in zip((theta, stat), got, strict=True):
        want = sc.SumCountLaw(*args).mse(about)
        np.testing.assert_allclose(mse, want, rtol=1e-12, atol=1e-12 * (hi - lo) ** 2)


@pytest.mark.skipif(not kernels.COMPILED, reason="numba is not installed")
def test_compiled_nodes_equal_numpy() -> None:
    """The compiled nodes are numpy's: the same pieces in the same order (the block's
    widest row sets the graded steps of every row), to the last bits."""
    rng = np.random.default_rng(10)
    for n in (1, 2, 7, 30):
        m = rng.integers(0, 300, n).astype(float)
        b2 = rng.uniform(0.05, 60, n)
        kinks = rng.uniform(0, 400, (n, 1))
        rate = rng.uniform(0.01, 30, n)
        nodes, weights = sc._nodes(m, b2, kinks, rate)
        want_nodes, want_weights = sc._denominator_nodes(m, b2, kinks, rate)
        assert nodes.shape == want_nodes.shape
        np.testing.assert_allclose(nodes, want_nodes, rtol=1e-14)
        np.testing.assert_allclose(weights, want_weights, rtol=1e-12, atol=1e-16)
