"""The smooth sensitivity on runs (core.windowed.run_sensitivity) equals the definition.

Hu, Drechsler & Kim eq. (4) by brute force over every pair of padded ranks, on tied samples
given as runs: the whole sample (no blocks, always certified), and every window ``a .. b``
around ``k`` with the default blocks (never above the true value; equal when certified).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core import sensitivity as sens
from core.windowed.run_sensitivity import smooth_sensitivity_runs
from core.windowed.runs import RunView


def _brute(y: np.ndarray, k: int, beta: float, lo: float, hi: float) -> float:
    z = np.concatenate(([lo], y, [hi]))
    n = y.size
    return max(
        (z[j] - z[i]) * np.exp(-beta * (j - i - 1)) for i in range(k + 1) for j in range(k, n + 2)
    )


def _window(y: np.ndarray, a: int, b: int, lo: float, hi: float):
    """The runs of ranks ``a .. b`` and one block below and above, values in the bounds."""
    n = y.size
    view = RunView.of_cells(y[None, a - 1 : b], np.array([a]), np.array([b]))
    below, above = a > 1, b < n
    blocks = (
        np.array([0, int(below) + int(above)]),
        np.array([1] * below + [b + 1] * above, dtype=np.int64),
        np.array([a - 1] * below + [n] * above, dtype=np.int64),
        np.array([lo] * below + [y[min(b, n - 1)]] * above),
        np.array([y[a - 2]] * below + [hi] * above),
    )
    return view, blocks


@settings(max_examples=80, deadline=None)
@given(
    n=st.integers(1, 30),
    levels=st.integers(1, 6),
    beta=st.sampled_from([1e-4, 0.05, 0.7, 6.0, 400.0]),
    q=st.sampled_from([0.1, 0.5, 0.8]),
    seed=st.integers(0, 2**32 - 1),
)
def test_runs_give_the_definition_on_every_window(n, levels, beta, q, seed) -> None:
    rng = np.random.default_rng(seed)
    y = np.sort(rng.integers(0, levels, n).astype(float))
    lo, hi = -1.0, float(levels) + 1.0
    k = sens.quantile_rank(n, q)
    full = _brute(y, k, beta, lo, hi)
    for a in range(1, k + 1):
        for b in range(k, n + 1):
            view, blocks = _window(y, a, b, lo, hi)
            s, ok = smooth_sensitivity_runs(view, [n], [k], beta, lo, hi, blocks)
            assert s[0] <= full * (1 + 1e-12)
            if ok[0]:
                assert s[0] == pytest.approx(full, rel=1e-12, abs=1e-300)
            if a == 1 and b == n:
                assert ok[0]


def test_a_long_tie_block_does_not_underflow_the_comparison() -> None:
    """Pairs across a block of 10^6 tied ranks: the exact pair is found in the log domain
    and its value is the definition's (here a normal number)."""
    beta, n = 1e-4, 2_000_003
    view = RunView(
        np.array([[1.0, 2.0, 3.0]]),
        np.array([[1, 2, n]]),
        np.array([[1, n - 1, n]]),
        np.array([3]),
    )
    none = (np.array([0, 0]), *(np.empty(0, dtype=np.int64),) * 2, np.empty(0), np.empty(0))
    s, ok = smooth_sensitivity_runs(view, [n], [n // 2], beta, 0.0, 4.0, none)
    assert 0.0 < s[0] < 1e-40
    k = n // 2
    lows = [(0, 0.0), (1, 1.0), (k, 2.0)]
    highs = [(k, 2.0), (n, 3.0), (n + 1, 4.0)]
    best = max((v - u) * np.exp(-beta * (j - i - 1)) for i, u in lows for j, v in highs if v > u)
    assert ok[0] and s[0] == pytest.approx(best, rel=1e-9)


def test_arguments_are_checked() -> None:
    view = RunView(np.array([[1.0]]), np.array([[1]]), np.array([[3]]), np.array([1]))
    none = (np.array([0, 0]), *(np.empty(0, dtype=np.int64),) * 2, np.empty(0), np.empty(0))
    with pytest.raises(ValueError, match="beta"):
        smooth_sensitivity_runs(view, [3], [2], 0.0, 0.0, 2.0, none)
    with pytest.raises(ValueError, match="rank k"):
        smooth_sensitivity_runs(view, [5], [4], 0.1, 0.0, 2.0, none)
    with pytest.raises(ValueError):
        smooth_sensitivity_runs(view, [3], [2], 0.1, 2.0, 0.0, none)
