"""Validation of the data and the parameters (core.sensitivity.checks)."""

from __future__ import annotations

import numpy as np
import pytest

from core import sensitivity as cs
from tests.core import reference_sensitivity as ref

# ---------------------------------------------------------------------------------------
# Validation
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("values", "lower", "upper", "match"),
    [
        ([], 0.0, 1.0, "empty"),
        ([0.5, np.nan], 0.0, 1.0, "finite"),
        ([0.5, np.inf], 0.0, 1.0, "finite"),
        ([0.5], 1.0, 1.0, "lower must be < upper"),
        ([0.5], 2.0, 1.0, "lower must be < upper"),
        ([0.5], -np.inf, 1.0, "finite"),
        ([0.5, 1.5], 0.0, 1.0, r"inside the public bounds \[lower, upper\]"),
        ([-0.1, 0.5], 0.0, 1.0, "inside the public bounds"),
        ([[0.5, 0.6]], 0.0, 1.0, "one-dimensional"),
        (["a"], 0.0, 1.0, "numbers"),
    ],
)
def test_rejects_bad_data(values, lower, upper, match):
    with pytest.raises(ValueError, match=match):
        cs.smooth_sensitivity_median(values, 1.0, 0.1, lower, upper)


def test_rejects_unsorted_when_assumed_sorted():
    with pytest.raises(ValueError, match="sorted"):
        cs.smooth_sensitivity_median([0.3, 0.1], 1.0, 0.1, 0.0, 1.0, assume_sorted=True)
    # Without the promise it sorts.
    assert cs.smooth_sensitivity_median([0.3, 0.1], 1.0, 0.1, 0.0, 1.0) == pytest.approx(
        ref.smooth_sensitivity_pairs([0.1, 0.3], 1.0, 0.1, 0.0, 1.0)
    )


def test_out_of_bounds_message_names_value():
    with pytest.raises(ValueError, match=r"1\.5 at index 1"):
        cs.smooth_sensitivity_median([0.5, 1.5], 1.0, 0.1, 0.0, 1.0)
    # The index is the caller's, not the one after sorting.
    with pytest.raises(ValueError, match=r"1\.5 at index 0"):
        cs.smooth_sensitivity_median([1.5, 0.5, 0.7], 1.0, 0.1, 0.0, 1.0)
    with pytest.raises(ValueError, match=r"nan at index 0"):
        cs.smooth_sensitivity_median([np.nan, 0.5, 0.7], 1.0, 0.1, 0.0, 1.0)
    with pytest.raises(ValueError, match=r"index \(1, 2\)"):
        cs.smooth_sensitivity_median_batch([[0.1, 0.2, 0.3], [0.1, 0.2, 0.1]], 1.0, 0.1, 0, 1)


def test_the_compiled_all_valid_scan_agrees_with_numpy_on_planted_faults():
    """The branch-free scan answers as the plain checks: in bounds (NaN is not), sorted."""
    from core.sensitivity.checks import _all_valid

    rng = np.random.default_rng(7)
    for case in range(300):
        a = np.sort(rng.random((3, 6)), axis=1)
        r, k = rng.integers(3), rng.integers(6)
        kind = case % 6
        if kind == 1:
            a[r, k] = np.nan
        elif kind == 2:
            a[r, k] = 1.5
        elif kind == 3:
            a[r, k] = -np.inf
        elif kind == 4:
            a[r] = a[r][::-1].copy()
        elif kind == 5:
            a[r, k] = 1.0  # the upper bound itself is inside
        inside = bool(((a >= 0.0) & (a <= 1.0)).all())
        ordered = bool((np.diff(a, axis=1) >= 0).all())
        assert _all_valid(a, 0.0, 1.0, False) == inside
        assert _all_valid(a, 0.0, 1.0, True) == (inside and ordered)
