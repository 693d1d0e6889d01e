"""core._checked: a read-only population checked once, trusted only inside its bounds."""

from __future__ import annotations

import numpy as np
import pytest

from core import _checked


def _values(low: float = 0.0, high: float = 1.0) -> np.ndarray:
    arr = np.linspace(low, high, 20)
    arr.flags.writeable = False
    return arr


def test_a_recorded_array_is_trusted_inside_its_bounds_only() -> None:
    arr = _values(0.2, 0.8)
    assert _checked.mark_checked(arr)
    assert _checked.is_checked(arr, 0.0, 1.0)
    assert _checked.is_checked(arr[np.newaxis, :], 0.2, 0.8)  # one row of the same buffer
    assert not _checked.is_checked(arr, 0.3, 1.0)  # values below the lower bound
    assert not _checked.is_checked(arr, 0.0, 0.5)  # values above the upper bound


def test_writeable_or_unsorted_arrays_are_not_trusted() -> None:
    writeable = np.linspace(0.0, 1.0, 20)
    assert not _checked.mark_checked(writeable)
    assert not _checked.is_checked(writeable, 0.0, 1.0)
    unsorted = _values()[::-1].copy()
    unsorted.flags.writeable = False
    with pytest.raises(ValueError, match="sorted"):
        _checked.mark_checked(unsorted)
    assert not _checked.is_checked(unsorted, 0.0, 1.0)


def test_extras_are_kept_with_a_recorded_array_only() -> None:
    arr = _values()
    _checked.mark_checked(arr)
    calls = [0]

    def build() -> int:
        calls[0] += 1
        return 7

    assert _checked.checked_extra(arr, "k", build) == 7
    assert _checked.checked_extra(arr, "k", build) == 7
    assert calls[0] == 1
    plain = np.linspace(0.0, 1.0, 20)
    _checked.checked_extra(plain, "k", build)
    _checked.checked_extra(plain, "k", build)
    assert calls[0] == 3
