"""core.mechanisms.rows: samples of unequal sizes released in one call.

:meth:`Mechanism.release_rows` must give what releasing each sample alone gives, in order:
the same values from the same draws (compared with a tolerance of a few ulps, never bit for
bit), and leave the generator where the sample-by-sample releases leave it.
"""

from __future__ import annotations

import numpy as np
import pytest

from core import mechanisms as mech
from core.mechanisms import rows as rows_mod
from core.mechanisms.base import _check_batch
from core.mechanisms.clamping import clamped_abs_coverage
from core.mechanisms.quantiles import _Quantile
from core.mechanisms.rows import SortedRows

LOWER, UPPER = 0.0, 10.0
FIELDS = ("released", "statistic", "sensitivity", "noise_scale", "noise_variance")
MOMENTS = ("noise_mean", "noise_square")


def _mechanism(name: str, quantile: float) -> mech.Mechanism:
    """Mechanism ``name`` with the parameters it needs (a quantile mechanism at ``quantile``)."""
    if name == "ht_mean":
        return mech.HorvitzThompsonMean(0.5, 100, LOWER, UPPER)
    if name == "sum_count":
        return mech.SumCountMean(LOWER, UPPER)
    cls = mech.MECHANISMS[name]
    return cls(quantile=quantile) if issubclass(cls, _Quantile) else cls()  # type: ignore[call-arg]


def _samples(seed: int) -> list[np.ndarray]:
    """Sorted samples of many sizes, empty ones among them (first, middle, last), a tied
    block around the median (which underflows the exponential mechanism's weights at a
    large budget) and values at both bounds."""
    rng = np.random.default_rng(seed)
    out: list[np.ndarray] = [np.empty(0)]
    for n in [1, 2, 3, 7, 7, 40, 0, 41, 120, 5]:
        out.append(np.sort(rng.uniform(LOWER, UPPER, n)))
    out.append(np.array([1.0] + [5.0] * 50 + [9.0]))
    out.append(np.array([LOWER, LOWER, 3.0, UPPER, UPPER]))
    out.append(np.empty(0))
    return out


def _one_by_one(
    m: mech.Mechanism, samples: list[np.ndarray], eps: float, rng: np.random.Generator
) -> mech.Release:
    """The reference: each sample released alone, in order (an empty one as the planner
    releases it)."""
    parts = [
        rows_mod.empty_release(m, eps, LOWER, UPPER, rng)
        if s.size == 0
        else m.release(s[np.newaxis, :], eps, 1e-3, LOWER, UPPER, rng)
        for s in samples
    ]
    return rows_mod.concatenate(parts)


def _assert_same(a: mech.Release, b: mech.Release) -> None:
    for name in FIELDS + MOMENTS:
        x, y = getattr(a, name), getattr(b, name)
        if x is None or y is None:
            assert x is None and y is None, name
            continue
        np.testing.assert_allclose(x, y, rtol=1e-12, atol=1e-300, equal_nan=True, err_msg=name)


NAMES = [n for n in mech.MECHANISMS if n != "unbounded"]


@pytest.mark.parametrize("eps", [0.05, 1.0, 100.0])
@pytest.mark.parametrize("name", NAMES)
def test_release_rows_equals_one_release_per_sample(name: str, eps: float) -> None:
    m = _mechanism(name, 0.3)
    samples = _samples(1)
    want_rng, got_rng = np.random.default_rng(7), np.random.default_rng(7)
    want = _one_by_one(m, samples, eps, want_rng)
    got = m.release_rows(samples, eps, 1e-3, LOWER, UPPER, got_rng)
    _assert_same(got, want)
    # The same number of draws: the generators are left in the same state.
    assert got_rng.bit_generator.state == want_rng.bit_generator.state


def test_the_unbounded_quantile_releases_rows_without_an_upper_bound() -> None:
    m = mech.UnboundedQuantile()
    samples = [np.sort(np.random.default_rng(i).uniform(0, 50, n)) for i, n in enumerate([3, 9])]
    samples.insert(1, np.empty(0))
    rng_a, rng_b = np.random.default_rng(3), np.random.default_rng(3)
    parts = [
        rows_mod.empty_release(m, 1.0, 0.0, np.inf, rng_a)
        if s.size == 0
        else m.release(s[np.newaxis, :], 1.0, 1e-3, 0.0, np.inf, rng_a)
        for s in samples
    ]
    got = m.release_rows(samples, 1.0, 1e-3, 0.0, np.inf, rng_b)
    _assert_same(got, rows_mod.concatenate(parts))


@pytest.mark.parametrize("name", ["exponential", "global_laplace", "smooth_laplace"])
def test_many_rows_of_near_sizes_agree_with_one_release_each(name: str) -> None:
    """The planner's case: 300 Poisson-like samples of sizes near 200 from one population,
    at a budget where the exponential weights reach far (a window cut too narrow shows)."""
    rng = np.random.default_rng(11)
    population = np.sort(rng.lognormal(1.0, 0.5, 2000).clip(LOWER, UPPER))
    mask = rng.random((300, population.size)) < 0.1
    rows = SortedRows.from_mask(population, mask)
    samples = rows.as_list()
    m = _mechanism(name, 0.5)
    for eps in (0.02, 0.5):
        want = _one_by_one(m, samples, eps, np.random.default_rng(5))
        got = m.release_rows(rows, eps, 1e-3, LOWER, UPPER, np.random.default_rng(5))
        _assert_same(got, want)


def test_rows_from_a_mask_are_the_masked_values_row_by_row() -> None:
    rng = np.random.default_rng(2)
    values = np.sort(rng.uniform(LOWER, UPPER, 500))
    for rate in (0.0, 0.01, 0.5, 1.0):
        mask = rng.random((40, values.size)) < rate
        rows = SortedRows.from_mask(values, mask)
        assert len(rows) == 40
        for i in range(40):
            np.testing.assert_array_equal(rows.row(i), values[mask[i]])
        assert rows.values.size == int(mask.sum())
        if mask.any():
            assert rows.low == values[mask.any(axis=0)].min()
            assert rows.high == values[mask.any(axis=0)].max()


def test_sorted_rows_check_each_sample_but_not_across_samples() -> None:
    rows = SortedRows.of([[5.0, 6.0], [], [1.0, 2.0, 2.0], [0.5]])
    assert rows.sizes.tolist() == [2, 0, 3, 1] and (rows.low, rows.high) == (0.5, 6.0)
    assert rows.equal_size() is None and SortedRows.of([[1.0], [0.0]]).equal_size() == 1
    part = rows.take(1, 3)
    assert [r.tolist() for r in part.as_list()] == [[], [1.0, 2.0, 2.0]]
    assert (part.low, part.high) == (1.0, 2.0)
    sizes = {int(b.shape[1]): idx.tolist() for idx, b in rows.by_size()}
    assert sizes == {1: [3], 2: [0], 3: [2]}
    with pytest.raises(ValueError, match="sorted"):
        SortedRows.of([[1.0, 3.0, 2.0]])
    with pytest.raises(ValueError, match="finite"):
        SortedRows.of([[1.0, np.nan]])
    with pytest.raises(ValueError, match="sorted"):
        SortedRows.from_mask(np.array([2.0, 1.0]), np.ones((1, 2), dtype=bool))


def test_release_rows_checks_the_bounds_once_for_all_samples() -> None:
    m = mech.GlobalLaplaceQuantile()
    with pytest.raises(ValueError, match="public bounds"):
        m.release_rows([[1.0], [2.0, 11.0]], 1.0, 1e-3, LOWER, UPPER, np.random.default_rng(0))
    with pytest.raises(ValueError, match="finite"):
        m.release_rows([[1.0]], 1.0, 1e-3, LOWER, np.inf, np.random.default_rng(0))
    got = m.release_rows([], 1.0, 1e-3, LOWER, UPPER, np.random.default_rng(0))
    assert got.released.size == 0


def test_a_batch_check_rejects_what_the_numpy_checks_reject() -> None:
    """The compiled one-pass check lets through only what the numpy checks would."""
    good = np.array([[0.0, 1.0, 10.0], [2.0, 2.0, 3.0]])
    assert _check_batch(good, LOWER, UPPER) is not None
    for bad, words in [
        ([[0.0, 2.0, 1.0]], "sorted"),
        ([[0.0, 1.0, 11.0]], "public bounds"),
        ([[0.0, np.nan, 1.0]], "finite"),
        ([[-1.0, 1.0, 2.0]], "public bounds"),
    ]:
        with pytest.raises(ValueError, match=words):
            _check_batch(np.array(bad), LOWER, UPPER)
    with pytest.raises(ValueError, match="finite"):
        _check_batch(np.array([[1.0, np.inf]]), 0.0, np.inf)


def test_coverage_prepared_once_equals_the_coverage_at_each_point() -> None:
    rng = np.random.default_rng(4)
    err = rng.normal(0.0, 1.0, 50)
    scale = np.abs(rng.normal(0.0, 1.0, 50))
    scale[::7] = 0.0  # rows released without noise
    cdf = mech.SmoothPureQuantile().standard_noise_cdf
    coverage = clamped_abs_coverage(err, scale, cdf, -2.0, 3.0)
    for x in (0.0, 0.3, 1.0, 2.5, 3.0, 10.0):
        slow = mech.clamped_abs_cdf(x, err, scale, cdf, -2.0, 3.0)
        np.testing.assert_allclose(coverage(x), slow, rtol=1e-14, atol=0)
        fixed = np.clip(err[::7], -2.0, 3.0)
        np.testing.assert_array_equal(coverage(x)[::7], (np.abs(fixed) <= x).astype(float))
