"""core.designs.grouped: positions grouped by code, against numpy's stable argsort, and the
indexes built from them (issue 37: the 10^8 preparation's peak memory)."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.designs.cluster_windows import ClusterIndex
from core.designs.grouped import grouped_positions
from core.designs.stratified_windows import StrataIndex


def _offsets(codes: np.ndarray) -> np.ndarray:
    sizes = np.bincount(codes.astype(np.int64))
    offsets = np.zeros(sizes.size + 1, dtype=np.int64)
    np.cumsum(sizes, out=offsets[1:])
    return offsets


@settings(max_examples=60, deadline=None)
@given(
    codes=st.lists(st.integers(0, 12), min_size=1, max_size=200),
    code_type=st.sampled_from([np.uint8, np.int16, np.int32, np.int64]),
    out_type=st.sampled_from([np.int32, np.uint32, np.int64]),
)
def test_grouped_positions_are_the_stable_argsort(codes, code_type, out_type) -> None:
    """Ties (records of one code) keep their order; empty codes take no slot."""
    arr = np.asarray(codes, dtype=code_type)
    got = grouped_positions(arr, _offsets(arr), out_type)
    assert got.dtype == out_type
    np.testing.assert_array_equal(got, np.argsort(arr, kind="stable"))


@pytest.mark.parametrize("build", ["clusters", "strata"])
def test_indexes_of_a_million_records_keep_no_int64_per_record(build: str) -> None:
    """Break caught (tests/break_checks.py ``grouped-by-argsort``): the cluster index's
    int32 positions and the strata's 32-bit keys are built without the int64 array of a
    stable argsort (8 bytes per record beside the 4 kept)."""
    rng = np.random.default_rng(4)
    codes = rng.integers(0, 500 if build == "clusters" else 31, 1_000_000).astype(np.int16)
    make = ClusterIndex.of if build == "clusters" else StrataIndex.from_labels
    make(np.arange(1000, dtype=np.int16) % 7)  # the compiled kernels, loaded before the count
    tracemalloc.start()
    try:
        index = make(codes)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    kept = index.positions if isinstance(index, ClusterIndex) else index.keys
    assert kept.itemsize == 4
    assert peak < 6 * codes.size, f"peak {peak / 1e6:.1f} MB for {codes.size:,} records"
