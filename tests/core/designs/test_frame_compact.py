"""The frame and the indexes a preparation keeps use compact integer types (issue 37: at
``N = 10^8`` an int64 per record is 800 MB), with the codes ``numpy.unique`` would give."""

from __future__ import annotations

import numpy as np
import pytest

from core.designs.cluster_windows import ClusterIndex
from core.designs.frame import Frame
from core.designs.stratified_windows import StrataIndex
from core.population import Population


def _population() -> Population:
    rng = np.random.default_rng(2)
    n = 3000
    return Population(
        name="t",
        values=np.sort(rng.random(n)),
        lower=0.0,
        upper=1.0,
        strata=rng.choice(["c", "a", "b"], n).astype(object),
        clusters=rng.integers(0, 40, n) * 7,
    )


@pytest.mark.parametrize("gather_slice", [7, 1 << 20])
def test_frame_codes_are_narrow_and_number_the_sorted_labels(monkeypatch, gather_slice):
    """Also when the codes are renumbered in slices that do not divide N (break caught:
    tests/break_checks.py ``frame-codes-skip-last-slice``)."""
    import core.designs.frame as frame_module

    monkeypatch.setattr(frame_module, "_GATHER_SLICE", gather_slice)
    pop = _population()
    frame = Frame._build(pop)
    for codes, sizes, labels in (
        (frame.strata_codes, frame.strata_sizes, pop.strata),
        (frame.cluster_codes, frame.cluster_sizes, pop.clusters),
    ):
        assert codes is not None and codes.dtype == np.int16
        np.testing.assert_array_equal(codes, np.unique(labels, return_inverse=True)[1])
        np.testing.assert_array_equal(sizes, np.unique(labels, return_counts=True)[1])


def test_indexes_of_narrow_codes_equal_those_of_int64_codes():
    frame = Frame._build(_population())
    assert frame.cluster_codes is not None and frame.strata_codes is not None
    narrow, wide = (
        ClusterIndex.of(frame.cluster_codes),
        ClusterIndex.of(frame.cluster_codes.astype(np.int64)),
    )
    assert narrow.positions.dtype == np.int32
    np.testing.assert_array_equal(narrow.positions, wide.positions)
    np.testing.assert_array_equal(narrow.offsets, wide.offsets)
    a = StrataIndex.from_labels(frame.strata_codes)
    b = StrataIndex.from_labels(frame.strata_codes.astype(np.int64))
    np.testing.assert_array_equal(a.keys, b.keys)
    assert a.keys.dtype == np.uint32  # 3 strata × 3,000 records: every key below 2^32


def test_strata_keys_are_32_bit_while_every_query_fits():
    """Break caught (tests/break_checks.py ``strata-keys-wrap``, ``strata-keys-wide``): the
    keys turn 32-bit where a query ``h N + at`` (up to ``H N``) no longer fits, so counts
    wrap; or they stay 64-bit where 32 bits hold them (800 MB instead of 400 MB for 31
    strata of 10^8 records)."""
    from core.designs.stratified_windows import _key_type

    assert _key_type(31, 10**8) is np.uint32
    assert _key_type(1, 2**32 - 1) is np.uint32
    assert _key_type(1, 2**32) is np.int64
    assert _key_type(2, 2**31) is np.int64
    assert _key_type(43, 10**8) is np.int64


def test_strata_counts_are_the_same_with_32_and_64_bit_keys(monkeypatch):
    """Both key types count every (stratum, position) pair as a direct count does, also
    with more strata than the stratum-by-stratum loop takes."""
    import core.designs.stratified_windows as sw

    rng = np.random.default_rng(5)
    for strata, loop in ((7, sw._STRATA_LOOP), (7, 2), (300, 16)):
        labels = rng.integers(0, strata, 2000)
        labels[:strata] = np.arange(strata)
        monkeypatch.setattr(sw, "_STRATA_LOOP", loop)
        narrow = StrataIndex.from_labels(labels)
        monkeypatch.setattr(sw, "_key_type", lambda H, N: np.int64)
        wide = StrataIndex.from_labels(labels)
        monkeypatch.undo()
        assert narrow.keys.dtype == np.uint32 and wide.keys.dtype == np.int64
        at = np.arange(labels.size + 1)
        h = np.arange(strata)[:, None]
        # Direct: records of stratum h at positions < at.
        direct = np.concatenate(
            (np.zeros((strata, 1), dtype=np.int64), np.cumsum(labels == h, axis=1)), axis=1
        )
        for index in (narrow, wide):
            np.testing.assert_array_equal(index.count_before(h, at[None, :]), direct)


def test_value_runs_refuse_values_out_of_order():
    """Break caught (tests/break_checks.py ``runs-order-unchecked``)."""
    from core.windowed.runs import ValueRuns

    with pytest.raises(ValueError, match="sorted ascending"):
        ValueRuns.of(np.array([1.0, 2.0, 2.0, 1.5]))
    runs = ValueRuns.of(np.array([-0.0, 0.0, 1.0, 1.0]))  # -0 and 0 are one value
    assert runs.D == 2 and list(runs.starts) == [0, 2, 4]
