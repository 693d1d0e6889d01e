"""Tests for core.strata.summary: the strata of a population."""

from __future__ import annotations

import math

import numpy as np
import pytest

from core import strata as S
from core.populations import ESTABLISHMENT_SIZE_CLASSES


def test_summary_hand_computed_and_ordering() -> None:
    values = [1.0, 2.0, 3.0, 10.0, 14.0]
    summ = S.stratum_summary(values, ["b", "b", "a", "a", "a"])
    assert summ.labels == ("b", "a")  # order of first appearance (smallest value first)
    assert summ.sizes.tolist() == [2, 3]
    assert summ.means == pytest.approx([1.5, 9.0])
    assert summ.sds == pytest.approx([math.sqrt(0.5), math.sqrt(31.0)])
    assert summ.codes.tolist() == [0, 0, 1, 1, 1]
    assert [g.tolist() for g in summ.groups()] == [[0, 1], [2, 3, 4]]
    numeric = S.stratum_summary([5.0, 6.0, 7.0], [3, 1, 3])
    assert numeric.labels == (1, 3)
    single = S.stratum_summary([4.0, 5.0], ["x", "y"])
    assert single.sds.tolist() == [0.0, 0.0]
    pop0 = S.stratum_summary(values, ["b", "b", "a", "a", "a"], ddof=0)
    assert pop0.sds == pytest.approx([0.5, math.sqrt(62.0 / 3)])


def test_establishment_strata_are_the_paper_size_classes(establishments) -> None:
    pop, summ = establishments
    assert summ.labels == tuple(label for label, _, _ in ESTABLISHMENT_SIZE_CLASSES)
    assert summ.population_size == pop.size == 100_000


def test_numeric_text_stratum_labels_sort_as_numbers():
    labels = np.array([str(i) for i in (10, 2, 1, 11, 2, 10, 1, 3)])
    summ = S.stratum_summary(np.arange(labels.size, dtype=float), labels)
    assert summ.labels == ("1", "2", "3", "10", "11")
    assert summ.sizes.tolist() == [2, 2, 1, 2, 1]
    # codes still point at the right stratum
    assert [summ.labels[c] for c in summ.codes] == labels.tolist()
