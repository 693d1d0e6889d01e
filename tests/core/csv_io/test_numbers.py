"""Tests for core.csv_io.numbers: text cells to numbers."""

from __future__ import annotations

import numpy as np
import pandas as pd

from core import csv_io


def test_to_numbers_matches_python_float_exactly():
    cells = ["0.1", "1e400", "-0", "4.9e-324", "2e-400", "+1", "2.", ".5", "Infinity", "-nan"]
    cells += [repr(x) for x in (np.random.default_rng(3).standard_normal(200) * 1e5).tolist()]
    got, _ = csv_io._to_numbers(pd.Series(cells, dtype="str"), ",", None)
    want = np.array([float(c) for c in cells])
    assert np.array_equal(got, want, equal_nan=True)
    assert np.array_equal(np.signbit(got), np.signbit(want))
