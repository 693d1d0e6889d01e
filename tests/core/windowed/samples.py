"""Whole samples revealed through the windowed sampler, shared by the tests of core.windowed."""

from __future__ import annotations

import numpy as np

from core.windowed import SampleWindows


def subsets(rng, N: int, n: int, reps: int, steps: list[tuple[int, int]], leaf: int = 64):
    """Whole samples revealed through a sequence of widening windows ``(first, last)``; a
    step ``(-1, k)`` refines the unexpanded blocks around rank ``k`` instead
    (:meth:`SampleWindows.refine` with ``fine = 1``)."""
    w = SampleWindows(rng, N, np.full(reps, n), leaf=leaf)
    for first, last in steps:
        if first == -1:
            w.refine(np.arange(reps), np.full(reps, last), 1)
            continue
        w.ensure(np.full(reps, first), np.full(reps, last))
    return w.positions(np.ones(reps, dtype=np.int64), n)
