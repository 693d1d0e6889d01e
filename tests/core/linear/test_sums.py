"""The sums a design's closed form reads: for many cells at once and for a selection, against
the sums of the variables written out record by record."""

from __future__ import annotations

import numpy as np
import pytest

from core.linear.sums import (
    KEPT_SELECTIONS,
    cell_sums,
    group_sums,
    kept_selection_sums,
    selection_sums,
)
from tests.core.planner import exact_release as ref

TOY = ref.Toy(
    ((0, 0, 0), (1, 0, 0), (1, 0, 1), (3, 0, 1), (4, 1, 2), (2, 1, 2), (5, 1, 3)),
    0.0,
    5.0,
)


def test_cell_sums_equal_the_indicators_sums() -> None:
    frame = TOY.frame()
    cells = np.array([0, 1, 1, -1, 2, 0, 2])
    weights = frame.values + 1.0
    got = cell_sums(frame, cells, 3, weights)
    want = group_sums(frame, np.stack([(cells == c) * weights for c in range(3)]))
    for field in ("total", "square", "strata_total", "strata_square", "cluster_total"):
        np.testing.assert_allclose(getattr(got, field), getattr(want, field), rtol=1e-12)
    counts = cell_sums(frame, cells, 3)
    np.testing.assert_allclose(counts.total, [2, 2, 2])
    with pytest.raises(ValueError, match="cell codes"):
        cell_sums(frame, np.full(frame.N, 3), 3)


@pytest.mark.parametrize("keep_all", [True, False])
@pytest.mark.parametrize("total", [True, False])
def test_selection_sums_equal_the_sums_of_y(keep_all: bool, total: bool) -> None:
    frame = TOY.frame()
    keep = np.ones(frame.N, bool) if keep_all else frame.values >= 2
    y = np.where(keep, frame.values if total else 1.0, 0.0)
    got = selection_sums(frame, keep, frame.values if total else None)
    want = group_sums(frame, y)
    for field in ("total", "square", "strata_total", "strata_square", "cluster_total"):
        np.testing.assert_allclose(getattr(got, field), getattr(want, field), rtol=1e-12)


def test_kept_selection_sums_are_computed_once_per_selection_and_value() -> None:
    frame = TOY.frame()
    calls = []

    def keep() -> np.ndarray:
        calls.append(1)
        return frame.values >= 2

    count = kept_selection_sums(frame, "at least 2", keep)
    total = kept_selection_sums(frame, "at least 2", keep, values=True)
    assert kept_selection_sums(frame, "at least 2", keep) is count
    assert len(calls) == 2  # a count and a total of one selection are two sums
    for got, y in ((count, None), (total, frame.values)):
        want = selection_sums(frame, frame.values >= 2, y)
        for field in ("total", "square", "strata_total", "strata_square", "cluster_total"):
            np.testing.assert_allclose(getattr(got, field), getattr(want, field), rtol=1e-12)
    for i in range(KEPT_SELECTIONS):  # the oldest selections make room for new ones
        kept_selection_sums(frame, i, keep)
    assert kept_selection_sums(frame, KEPT_SELECTIONS - 1, keep) is not None
    before = len(calls)
    kept_selection_sums(frame, "at least 2", keep)
    assert len(calls) == before + 1
