"""Order statistics of a random sample near one rank, drawn without drawing the whole sample.

Why
---
A private quantile of a sample (Hu, Drechsler & Kim 2023, Section 4.3: the median with
Laplace noise scaled to its smooth sensitivity, equation (4); other quantiles and noise
calibrations in :mod:`core.mechanisms`) depends only on the sample's order statistics in a
window around the quantile's rank ``k``:

* the released value is ``y_(k)``;
* the smooth sensitivity is ``S = max { (y_(j) - y_(i)) e^{-beta (j - i - 1)} : i <= k <= j }``
  over padded ranks ``0..n+1`` (:mod:`core.sensitivity`).  A pair that reaches below rank
  ``a`` or above rank ``b`` has ``j - i - 1 >= min(k - a, b - k)`` and is worth at most
  ``(upper - lower) e^{-beta min(k - a, b - k)}``.  So the maximum over the pairs inside the
  window ``[a, b]`` is the exact ``S`` as soon as it is at least that bound
  (:func:`core.sensitivity.smooth_sensitivity_window_batch`).

Drawing a simple random sample of ``n`` of ``N`` records costs ``O(n)`` at least, which
grows with ``N`` at a fixed rate.  This module draws only the window, at a cost that does not
depend on ``N`` (apart from ``log N`` hypergeometric splits).

The sampler (exact)
-------------------
Label the sorted population's records ``0..N-1``.  A simple random sample without
replacement (SRSWOR) of size ``n`` is a uniformly random ``n``-subset.  For any split of a
block of records ``[s, t)`` that holds ``c`` sampled records into ``[s, m)`` and ``[m, t)``,
the number ``h`` of sampled records in ``[s, m)`` is hypergeometric
``(ngood = m - s, nbad = t - m, nsample = c)``, and, given ``h``, the sampled records of the
two halves are independent uniform subsets of sizes ``h`` and ``c - h``.  Applying this
recursively (a binary tree over ``[0, N)``) reproduces the uniform ``n``-subset exactly: the
law of the whole tree is the product of these conditionals, whose product is ``1 / C(N, n)``
for every subset.

The sample ranks of the records in a block are ``below + 1 .. below + c``, where ``below``
counts the sampled records to its left, known from the splits above it.  So only the blocks
whose rank range meets the wanted window ``[a, b]`` need splitting; the others stay
unexpanded with their counts (the *frontier*).  A block of at most :data:`LEAF` records is
resolved by a uniform ``c``-subset of its records (the first ``c`` of a random permutation).

A window that turns out too narrow is widened by splitting frontier blocks that meet the new
window -- conditionally on everything drawn so far, exactly as they would have been split
with the wider window from the start.  A draw is never discarded and redrawn (that would
favour samples the narrow window suits).  The result has the law of drawing the whole
sample and reading its order statistics.

Poisson sampling (each record independently with probability ``rate``) is the same given its
size: draw ``n ~ Binomial(N, rate)``; given ``n`` the sample is a uniform ``n``-subset.

Cost: about ``2 log2(N / w) + w`` splits per sample for a window of ``w`` sampled records;
the population's values are read only at the ``w`` positions.  Memory is proportional to
the number of samples times the window, never to ``N``.

Modules
-------
* :mod:`core.windowed.sampler` -- :class:`SampleWindows` (the tree above) and the
  :class:`WindowSource` interface every design's source follows;
* :mod:`core.windowed.quantile` -- :func:`window_quantile_draws` (``y_(k)`` and ``S``);
* :mod:`core.windowed.exponential` -- :func:`window_exponential_draws` (the exponential
  mechanism, and with ``piecewise=True`` the piecewise-Laplace quantile, ring by ring);
* :mod:`core.windowed.runs` -- tied populations: the windows as runs of equal values, so a
  tie block of any length costs one run (:class:`core.windowed.runs.RunWindows`), and
  :mod:`core.windowed.run_sensitivity` -- ``S`` computed on those runs.
"""

from __future__ import annotations

from ..windowed.exponential import window_exponential_draws
from ..windowed.quantile import window_quantile_draws
from ..windowed.sampler import (
    FIRST_HALF_WIDTH,
    LEAF,
    SampleWindows,
    SourceFactory,
    WindowSource,
)

__all__ = [
    "FIRST_HALF_WIDTH",
    "LEAF",
    "SampleWindows",
    "SourceFactory",
    "WindowSource",
    "window_exponential_draws",
    "window_quantile_draws",
]
