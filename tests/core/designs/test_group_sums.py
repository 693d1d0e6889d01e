"""The compiled per-group sums against numpy's ``bincount`` formulation, and the mean
population they build against the one built through label coding."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.designs import group_sums, mean_error


def _bincount_two_pass(d: np.ndarray, codes: np.ndarray, groups: int) -> tuple[np.ndarray, ...]:
    """The reference: the same two passes written with ``numpy.bincount`` on int64 codes."""
    c = codes.astype(np.int64)
    counts = np.bincount(c, minlength=groups)
    sums = np.bincount(c, weights=d, minlength=groups)
    with np.errstate(invalid="ignore", divide="ignore"):
        means = np.where(counts > 0, sums / np.maximum(counts, 1), 0.0)
    e = d - means[c]
    t1 = np.bincount(c, weights=e, minlength=groups)
    t2 = np.bincount(c, weights=e * e, minlength=groups)
    return counts, sums, t1, t2


@pytest.mark.parametrize("dtype", [np.uint8, np.int16, np.int32, np.int64, np.uint32])
def test_two_pass_sums_agree_with_bincount_for_every_code_type(dtype: type) -> None:
    rng = np.random.default_rng(3)
    d = rng.normal(5.0, 3.0, 5_000)
    codes = rng.integers(0, 40, d.size).astype(dtype)
    codes[codes == 7] = 8  # one code without records
    got = group_sums.two_pass_sums(d, codes, 41)
    want = _bincount_two_pass(d, codes, 41)
    np.testing.assert_array_equal(got[0], want[0])
    for g, w in zip(got[1:], want[1:], strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-9)
    assert got[0][7] == 0 and got[1][7] == 0.0 and got[3][7] == 0.0


@settings(max_examples=40, deadline=None)
@given(
    values=st.lists(st.floats(-1e3, 1e3), min_size=1, max_size=60),
    shift=st.floats(-1e3, 1e3),
    seed=st.integers(0, 2**16),
)
def test_shifted_sums_equal_bincount_of_shifted_values(
    values: list[float], shift: float, seed: int
) -> None:
    x = np.asarray(values)
    codes = np.random.default_rng(seed).integers(0, 5, x.size).astype(np.int16)
    got = group_sums.shifted_sums(x, shift, codes, 6)
    want = np.bincount(codes.astype(np.int64), weights=x - shift, minlength=6)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-9)


def test_mean_population_from_frame_codes_equals_the_coded_labels_one() -> None:
    """Narrow codes with gaps (compiled path) and the same labels as strings (label coding
    through ``numpy.unique``) give the same per-group sums, empty groups dropped."""
    rng = np.random.default_rng(11)
    x = rng.uniform(0.0, 50.0, 3_000)
    codes = rng.integers(0, 30, x.size).astype(np.int16)
    codes[codes == 4] = 5
    codes[codes == 29] = 28
    labels = np.array([f"g{c:03d}" for c in codes])
    fast = mean_error.prepare_mean_population(x, 0.0, 50.0, strata=codes, clusters=codes)
    slow = mean_error.prepare_mean_population(x, 0.0, 50.0, strata=labels, clusters=labels)
    assert fast.strata is not None and slow.strata is not None
    assert fast.strata.sizes.size == 28
    for a, b in ((fast.strata, slow.strata), (fast.clusters, slow.clusters)):
        assert a is not None and b is not None
        np.testing.assert_array_equal(a.sizes, b.sizes)
        np.testing.assert_allclose(a.offsets, b.offsets, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(a.within, b.within, rtol=1e-10, atol=1e-9)


def test_sparse_integer_labels_are_coded_not_counted() -> None:
    """Labels far sparser than the records (a code of 10¹²) go through label coding, not an
    array of 10¹² counts."""
    x = np.array([1.0, 2.0, 3.0, 4.0])
    labels = np.array([0, 10**12, 0, 10**12], dtype=np.int64)
    pop = mean_error.prepare_mean_population(x, 0.0, 5.0, strata=labels)
    assert pop.strata is not None
    np.testing.assert_array_equal(pop.strata.sizes, [2.0, 2.0])
    np.testing.assert_allclose(pop.strata.within, [2.0, 2.0])


@settings(max_examples=40, deadline=None)
@given(
    values=st.lists(st.floats(-1e3, 1e3), min_size=1, max_size=60),
    first=st.floats(-1e3, 1e3),
    second=st.floats(-1.0, 1.0),
    seed=st.integers(0, 2**16),
)
def test_two_pass_sums_of_shifted_values_are_those_of_the_deviations(
    values: list[float], first: float, second: float, seed: int
) -> None:
    """``shifts=(a, b)`` forms ``(x − a) − b`` record by record: the sums of the deviations
    numpy forms the same way (``d = x - a; d -= b``)."""
    x = np.asarray(values)
    codes = np.random.default_rng(seed).integers(0, 5, x.size).astype(np.int16)
    d = x - first
    d -= second
    got = group_sums.two_pass_sums(x, codes, 6, (first, second))
    want = group_sums.two_pass_sums(d, codes, 6)
    np.testing.assert_array_equal(got[0], want[0])
    for g, w in zip(got[1:], want[1:], strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-14, atol=1e-12)


def _direct_mean_population(x: np.ndarray, codes: np.ndarray) -> tuple[float, float, tuple]:
    """The reference: the deviations stored whole, as the module once did."""
    first = float(np.mean(x))
    d = x - first
    correction = float(np.mean(d))
    sum_squares = float(np.dot(d, d)) - x.size * correction * correction
    d -= correction
    return first + correction, sum_squares, _bincount_two_pass(d, codes, int(codes.max()) + 1)


@pytest.mark.parametrize("chunk", [7, 1000, 1 << 20])
def test_mean_population_read_slice_by_slice_is_the_whole_arrays(monkeypatch, chunk: int) -> None:
    """Break caught (tests/break_checks.py ``mean-sums-skip-a-slice``): the sums over
    slices miss records when N is not a multiple of the slice."""
    monkeypatch.setattr(mean_error, "_CHUNK", chunk)
    rng = np.random.default_rng(8)
    x = 1e6 + rng.lognormal(2.0, 1.0, 5_003)  # far from 0: the centring matters
    x = np.minimum(x, 1e6 + 1e3)
    codes = rng.integers(0, 9, x.size).astype(np.int16)
    pop = mean_error.prepare_mean_population(x, 1e6, 1e6 + 1e3, strata=codes)
    mean, sum_squares, (counts, sums, t1, t2) = _direct_mean_population(x, codes)
    assert pop.N == x.size
    np.testing.assert_allclose(pop.mean, mean, rtol=1e-15)
    np.testing.assert_allclose(pop.sum_squares, sum_squares, rtol=1e-11)
    assert pop.strata is not None
    np.testing.assert_array_equal(pop.strata.sizes, counts)
    within = np.maximum(t2 - t1 * t1 / counts, 0.0)
    np.testing.assert_allclose(pop.strata.within, within, rtol=1e-11)
    np.testing.assert_allclose(pop.strata.offsets, (sums + t1) / counts, rtol=1e-9, atol=1e-9)


def test_mean_population_keeps_no_array_of_n_floats(monkeypatch) -> None:
    """Issue 37 (the 10^8 preparation's peak): the sums of 10^6 values with strata and
    clusters peak below one float per record (the deviations are never stored).  Break
    caught (tests/break_checks.py ``mean-deviations-stored``)."""
    import tracemalloc

    monkeypatch.setattr(mean_error, "_CHUNK", 1 << 16)  # slices well below N
    rng = np.random.default_rng(1)
    x = rng.uniform(0.0, 10.0, 1_000_000)
    codes = rng.integers(0, 30, x.size).astype(np.int16)
    mean_error.prepare_mean_population(x[:1000], 0.0, 10.0, strata=codes[:1000])  # compiled
    tracemalloc.start()
    try:
        mean_error.prepare_mean_population(x, 0.0, 10.0, strata=codes, clusters=codes)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 4 * x.size, f"peak {peak / 1e6:.1f} MB for {x.size:,} values"
