"""The windowed sampler (core.windowed.sampler) draws exactly the law of a whole SRSWOR sample.

Checked three ways: the subsets it produces are uniform (exact enumeration, chi-square at
fixed seeds), the position of one order statistic follows its exact law at a large N, and
the smooth sensitivity certified with the tree's unexpanded blocks equals that of the same
sample revealed whole.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest
from scipy import stats

from core import sensitivity as sens
from core.windowed import SampleWindows
from tests.core.windowed.samples import subsets as _subsets

# A p-value below this fails a goodness-of-fit test; the seeds are fixed, so a pass is stable.
P_MIN = 1e-4


def test_long_sparse_blocks_draw_distinct_uniform_records() -> None:
    """Blocks longer than the mark table compare each pick with the earlier ones."""
    from core.windowed.sampler import _MARK_TABLE, _floyd_subsets

    blocks, top, c = 20_000, _MARK_TABLE + 7, 3
    length = np.full(blocks, top, dtype=np.int64)
    count = np.full(blocks, c, dtype=np.int64)
    offsets = np.arange(blocks + 1, dtype=np.int64) * c
    out = np.empty(blocks * c, dtype=np.int64)
    _floyd_subsets(np.random.default_rng(5), length, count, offsets, out)
    picks = out.reshape(blocks, c)
    assert (np.diff(picks, axis=1) > 0).all() and picks.min() >= 0 and picks.max() < top
    assert stats.chisquare(np.bincount(picks.ravel() * 50 // top, minlength=50)).pvalue > P_MIN
    # The smallest of 3 picks out of L has P(min >= x) = C(L - x, 3) / C(L, 3).
    x = top // 3
    expected = blocks * np.prod([(top - x - i) / (top - i) for i in range(c)])
    assert abs((picks[:, 0] >= x).sum() - expected) < 4.5 * np.sqrt(expected)


@pytest.mark.parametrize(
    ("N", "n", "steps", "leaf"),
    [
        (9, 4, [(1, 4)], 64),  # whole sample at once, one block (selection sampling)
        (9, 2, [(1, 2)], 64),  # one sparse block (Floyd)
        (9, 7, [(1, 7)], 64),  # a dense block more than half taken: the left-out records drawn
        (9, 4, [(1, 4)], 1),  # split down to single records (halves of 4 and 5, ...)
        (9, 4, [(2, 2), (1, 3), (1, 4)], 1),  # a window widened twice, frontier reused
        (7, 3, [(3, 3), (1, 3)], 2),
        (200, 3, [(2, 2), (1, 3)], 1),  # many splits, sparse
        (140, 70, [(35, 36), (1, 70)], 64),  # one split, then dense blocks
        (9, 4, [(2, 2), (-1, 2), (1, 4)], 1),  # a window, its blocks refined, the rest
        (200, 5, [(3, 3), (-1, 3), (1, 5)], 1),
    ],
)
def test_subsets_are_uniform(N: int, n: int, steps: list[tuple[int, int]], leaf: int) -> None:
    """Whole samples revealed through widening windows (a step ``(-1, k)`` refines the
    blocks around rank ``k`` instead) are uniform subsets."""
    rng = np.random.default_rng(20261123)
    if N <= 9:
        reps = 60_000
        pos = _subsets(rng, N, n, reps, steps, leaf)
        index = {c: i for i, c in enumerate(combinations(range(N), n))}
        counts = np.bincount([index[tuple(r)] for r in pos.tolist()], minlength=len(index))
        assert stats.chisquare(counts).pvalue > P_MIN
        return
    # Too many subsets to enumerate: every record is sampled with probability n / N, and
    # every pair with probability n (n - 1) / (N (N - 1)) (checked on neighbouring pairs).
    reps = 20_000
    pos = _subsets(rng, N, n, reps, steps, leaf)
    assert (pos >= 0).all() and (np.diff(pos, axis=1) > 0).all()
    hits = np.bincount(pos.ravel(), minlength=N)
    assert stats.chisquare(hits).pvalue > P_MIN
    taken = np.zeros((reps, N), dtype=bool)
    taken[np.arange(reps)[:, None], pos] = True
    pairs = (taken[:, :-1] & taken[:, 1:]).sum(axis=0)
    p_pair = n * (n - 1) / (N * (N - 1))
    z = (pairs - reps * p_pair) / np.sqrt(reps * p_pair * (1 - p_pair))
    assert stats.chisquare(pairs).pvalue > P_MIN or np.abs(z).max() < 4.5


@pytest.mark.parametrize(("N", "n", "q"), [(10**6, 1_000, 0.5), (10**7, 200_000, 0.9)])
def test_one_order_statistic_has_its_exact_law(N: int, n: int, q: float) -> None:
    """P(X_k <= i) = P(Hypergeometric(N, n, i + 1) >= k) for the record X_k of rank k."""
    reps = 4_000
    k = sens.quantile_rank(n, q)
    w = SampleWindows(np.random.default_rng(7), N, np.full(reps, n))
    w.ensure(np.full(reps, k), np.full(reps, k))
    x = w.positions(np.full(reps, k), 1)[:, 0]
    assert (x >= 0).all()
    u = stats.hypergeom.sf(k - 1, N, n, x + 1)  # P(X_k <= x), continuous enough here
    assert stats.kstest(u, "uniform").pvalue > P_MIN


def test_sample_sizes_are_checked() -> None:
    with pytest.raises(ValueError, match="sample sizes"):
        SampleWindows(np.random.default_rng(0), 10, [0, 3])


@pytest.mark.parametrize(
    ("N", "n", "half", "leaf"),
    [(5_000, 400, 8, 64), (5_000, 4_000, 3, 2), (100_000, 2_000, 40, 16), (300, 250, 1, 1)],
)
@pytest.mark.parametrize("beta", [0.0005, 0.02, 0.5, 5.0])
@pytest.mark.parametrize("shape", ["lognormal", "steps"])
@pytest.mark.parametrize("refine", [False, True])
def test_unexpanded_blocks_certify_the_same_samples_sensitivity(
    N, n, half, leaf, beta, shape, refine
) -> None:
    """Certify S from a window and the tree's blocks, then reveal the whole same sample.

    "steps": long runs of ties with jumps between them, so that the largest pair often
    reaches far outside a narrow window (a bound that understates a block is caught).
    ``refine``: the blocks beside the window are split first (``SampleWindows.refine``).
    """
    rng = np.random.default_rng(N + n + half)
    if shape == "steps":
        levels = np.array([0.0, 1.0, 40.0, 41.0, 41.5, 90.0, 200.0])
        values = np.sort(rng.choice(levels, N, p=[0.1, 0.15, 0.2, 0.1, 0.15, 0.2, 0.1]))
    else:
        values = np.sort(np.round(rng.lognormal(3, 1, N), 1))  # ties
    lo, hi = 0.0, float(np.ceil(values[-1])) + 5.0
    reps, q = 200, 0.3
    k = np.full(reps, sens.quantile_rank(n, q))
    w = SampleWindows(rng, N, np.full(reps, n), leaf=leaf)
    todo = np.arange(reps)
    steps = []  # (S, certified) after each widening, checked once the sample is revealed
    while True:
        w.ensure(k - half, k + half)
        if refine:
            w.refine(todo, k[todo], 3)
        first, last, blocks = w.outside(todo, k, values)
        offsets, bf, bl = blocks[:3]
        for r in range(0, reps, 17):  # the blocks and the window cover every rank once
            spans = zip(
                bf[offsets[r] : offsets[r + 1]], bl[offsets[r] : offsets[r + 1]], strict=True
            )
            covered = np.concatenate(
                [np.arange(first[r], last[r] + 1), *(np.arange(f, e + 1) for f, e in spans)]
            )
            assert np.array_equal(np.sort(covered), np.arange(1, n + 1))
        width = int((last - first).max()) + 1
        p = w.positions(first, width, todo)
        cells = np.where(p >= 0, values[np.maximum(p, 0)], np.nan)
        s, ok = sens.smooth_sensitivity_window_batch(
            cells, first, last - first + 1, np.full(reps, n), k, beta, lo, hi, blocks=blocks
        )
        steps.append((s, ok))
        if ok.all():
            break
        half *= 2
    w.ensure(np.ones(reps, dtype=np.int64), np.full(reps, n))
    whole = values[w.positions(np.ones(reps, dtype=np.int64), n)]
    full = sens.smooth_sensitivity_beta_batch(whole, beta, lo, hi, quantile=q)
    for s, ok in steps:
        assert (s <= full * (1 + 1e-12)).all()
        np.testing.assert_allclose(s[ok], full[ok], rtol=1e-12, atol=0)
