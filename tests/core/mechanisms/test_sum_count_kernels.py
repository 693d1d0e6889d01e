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


@pytest.mark.skipif(not kernels.COMPILED, reason="numba is not installed")
def test_repeated_rows_give_the_numbers_of_each_row_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    """A law whose rows repeat (a planner's small samples), some alike but for one field or
    for the point asked about: each row's MSE and the mean coverage equal numpy's row by row."""
    rng = np.random.default_rng(11)
    base = np.array(
        [[-4.0, 2.0, 3.0, 1.5], [-4.0, 2.0, 3.0, 0.5], [-4.0, 2.0, 0.7, 1.5], [6.0, 2.0, 3.0, 1.5]]
    )
    pick = rng.integers(0, len(base), 60)
    t, m, b1, b2 = base[pick].T.copy()
    law = sc.SumCountLaw(t, m, b1, b2, -3.0, 12.0)
    about = np.where(rng.random(60) < 0.5, 1.0, 2.0)  # alike rows asked about two points
    monkeypatch.setattr(kernels, "COMPILED", True)
    got = law.mse_at([4.5, about])
    coverage = [law.mean_coverage(x, 4.5) for x in (0.5, 2.0, 6.0)]
    monkeypatch.setattr(kernels, "COMPILED", False)
    for mse, point in zip(got, (4.5, about), strict=True):
        np.testing.assert_allclose(mse, law.mse(point), rtol=1e-12, atol=1e-12)
    for x, mean in zip((0.5, 2.0, 6.0), coverage, strict=True):
        assert mean == pytest.approx(float(law.coverage(x, 4.5).mean()), rel=1e-12, abs=1e-14)
