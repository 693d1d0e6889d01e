"""Tests for core.statistical.distributions: exact PMFs against enumeration of every database."""

from __future__ import annotations

import numpy as np
import pytest

from core import statistical as sp
from tests.core.statistical.brute_force import brute_delta_sets, brute_pmfs


@pytest.mark.parametrize("n", [1, 2, 3, 5, 7])
@pytest.mark.parametrize("pi", [0.05, 0.3, 0.5, 0.9])
def test_no_mechanism_matches_enumeration(n, pi):
    plus, minus = brute_pmfs(n, n, pi)
    pmfs = sp.pmfs_no_mechanism(n, pi)
    for j, y in zip(pmfs.counts, pmfs.values, strict=True):
        assert pmfs.plus[j - pmfs.counts[0]] == pytest.approx(plus.get(y, 0.0), abs=1e-15)
        assert pmfs.minus[j - pmfs.counts[0]] == pytest.approx(minus.get(y, 0.0), abs=1e-15)
    for eps in (0.0, 1e-12, 0.05, 0.4, 2.0):
        assert sp.delta_no_mechanism(n, pi, eps) == pytest.approx(
            brute_delta_sets(plus, minus, eps), rel=1e-12, abs=1e-15
        )


@pytest.mark.parametrize(("n", "m"), [(2, 1), (4, 2), (5, 3), (6, 1), (7, 4), (7, 7)])
@pytest.mark.parametrize("pi", [0.1, 0.5, 0.8])
def test_subsampling_matches_enumeration(n, m, pi):
    plus, minus = brute_pmfs(n, m, pi)
    pmfs = sp.pmfs_subsampling(n, m, pi)
    assert np.allclose(pmfs.plus, [plus.get(y, 0.0) for y in pmfs.values], atol=1e-15)
    assert np.allclose(pmfs.minus, [minus.get(y, 0.0) for y in pmfs.values], atol=1e-15)
    for eps in (0.0, 0.1, 0.7, 3.0):
        assert sp.delta_subsampling(n, m, pi, eps) == pytest.approx(
            brute_delta_sets(plus, minus, eps), rel=1e-11, abs=1e-15
        )
