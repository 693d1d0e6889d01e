"""The frame and the indexes a preparation keeps use compact integer types (issue 37: at
``N = 10^8`` an int64 per record is 800 MB), with the codes ``numpy.unique`` would give."""

from __future__ import annotations

import numpy as np

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


def test_frame_codes_are_narrow_and_number_the_sorted_labels():
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
    assert a.keys.dtype == np.int64
