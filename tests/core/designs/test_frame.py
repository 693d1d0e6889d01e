"""core.designs.frame: the population prepared once."""

from __future__ import annotations

import numpy as np

from core.designs.frame import Frame
from core.population import Population


def _pop() -> Population:
    labels = np.array(["b", "a", "c", "a", "b", "b"], dtype=object)
    return Population("t", np.arange(6.0), 0.0, 10.0, strata=labels, clusters=labels)


def test_codes_follow_the_sorted_labels_and_count_records():
    frame = Frame.of(_pop())
    assert frame.N == 6
    assert frame.cluster_codes is not None and frame.cluster_sizes is not None
    assert frame.cluster_codes.tolist() == [1, 0, 2, 0, 1, 1]
    assert frame.cluster_sizes.tolist() == [2, 3, 1]


def test_prepared_builds_once_per_key():
    frame = Frame.of(_pop())
    calls = []
    first = frame.prepared("k", lambda f: calls.append(1) or f.N)
    assert frame.prepared("k", lambda f: calls.append(1) or -1) == first == 6
    assert len(calls) == 1


def test_population_value_is_the_mean_or_the_order_statistic():
    frame = Frame.of(_pop())
    assert frame.value("mean") == 2.5
    assert frame.value("median") == 2.0  # lower median of 0..5
    assert frame.value("quantile", 0.9) == 5.0
