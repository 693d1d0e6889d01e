"""The cluster index's grid: counts and selections through it equal the plain binary searches,
and the selections equal the sample's sorted positions."""

from __future__ import annotations

import numpy as np
import pytest

from core.designs import cluster_grid as cg
from core.designs import cluster_windows as cw


@pytest.mark.parametrize(
    ("N", "k", "ell", "cells"),
    [(3000, 30, 7, 64), (3000, 30, 7, 1 << 22), (20000, 240, 100, 5000), (900, 899, 450, 3000)],
)
def test_grid_scan_and_select_equal_the_plain_kernels(
    monkeypatch: pytest.MonkeyPatch, N: int, k: int, ell: int, cells: int
) -> None:
    rng = np.random.default_rng(N + k)
    codes = rng.integers(0, k, N)
    codes[:k] = np.arange(k)
    monkeypatch.setattr(cw, "GRID_CELLS", cells)
    ix = cw.ClusterIndex.of(codes)
    step, grid = ix.grid
    assert grid.shape == (k, -(-N // step) + 1)
    for c in (0, k - 1):
        cuts = np.minimum(np.arange(grid.shape[1]) * step, N)
        assert grid[c].tolist() == np.searchsorted(ix.members(c), cuts).tolist()
    drawn = cw.draw_cluster_sets(rng, k, ell, 12)
    sizes = ix.sizes[drawn].sum(axis=1)
    rows = np.repeat(np.arange(12), 40)
    cuts = np.concatenate(([0, N], rng.integers(0, N + 1, rows.size - 2)))
    plain = [np.empty(rows.size, dtype=np.int64) for _ in range(3)]
    fast = [np.empty(rows.size, dtype=np.int64) for _ in range(3)]
    cw._scan(ix.positions, ix.offsets, drawn, rows, cuts, *plain)
    cg._scan_grid(ix.positions, ix.offsets, grid, step, drawn, rows, cuts, *fast)
    for a, b in zip(plain, fast, strict=True):
        np.testing.assert_array_equal(a, b)
    inner = np.array([rng.integers(1, sizes[r] + 1) for r in rows])
    # each sample's positions in order: rank j sits at the (j − 1)-th (both kernels share
    # one bisection, so they are also checked against this)
    whole = [np.sort(np.concatenate([ix.members(c) for c in drawn[r]])) for r in range(12)]
    for ranks in (inner, np.ones(rows.size, dtype=np.int64), sizes[rows].astype(np.int64)):
        want = np.empty(rows.size, dtype=np.int64)
        got = np.empty(rows.size, dtype=np.int64)
        lo, hi = np.zeros(rows.size, dtype=np.int64), np.full(rows.size, N - 1, dtype=np.int64)
        cw._select(ix.positions, ix.offsets, drawn, rows, ranks, lo, hi, want)
        cg._select_grid(ix.positions, ix.offsets, grid, step, drawn, rows, ranks, got)
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(
            want, [whole[r][j - 1] for r, j in zip(rows, ranks, strict=True)]
        )
