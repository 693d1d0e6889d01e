"""Global, local and smooth sensitivity of the mean, the median and any quantile.

Sources
-------
* Hu, Drechsler & Kim, "Accuracy gains from privacy amplification through sampling",
  Section 2.2 (global, local and smooth sensitivity, equation (4)) and Section 4.3 (the
  median released with Laplace noise scaled to its smooth sensitivity).
* Nissim, Raskhodnikova & Smith (2007), "Smooth sensitivity and sampling in private data
  analysis", STOC: the smooth sensitivity of the median, and the observation that its
  optimal partner ranks are monotone, which allows an O(n log n) divide and conquer.

The smooth sensitivity of the median
------------------------------------
Sort the data, ``y_(1) <= ... <= y_(n)``, and pad with the public bounds,
``y_(0) = lower`` and ``y_(n+1) = upper``.  With median rank ``m`` and
``beta = eps / (2 log(2 / delta))``, equation (4) of Hu et al. reads::

    S = max_{k=0..n} exp(-k beta) * max_{t=0..k+1} ( y_(m+t) - y_(m+t-k-1) ).

The inner maximum is the largest local sensitivity of any data set at distance ``k``
(Nissim et al.).  Writing ``i = m+t-k-1`` and ``j = m+t`` turns it into a maximum over
pairs of ranks on both sides of the median::

    S = max { (y_(j) - y_(i)) * exp(-beta (j - i - 1)) : 0 <= i <= m <= j <= n+1, j > i }.

(Ranks outside 0..n+1 would repeat a bound at a larger distance, so they never win.)
The released median is ``y_(m) + Laplace(0, 2 S / eps)``; that is (eps, delta)-DP.

Any quantile.  The same formula with the median's rank ``m`` replaced by the rank ``k`` of
another order statistic (:func:`quantile_rank`, ``k = ceil(q n)``) is the smooth
sensitivity of ``y_(k)``: ``A^(j) = max_{t=0..j+1} (y_(k+t) - y_(k+t-j-1))`` is the largest
local sensitivity of ``y_(k)`` over data sets at distance ``j`` -- ``j`` changed records
can push ``y_(k)`` to any order statistic between ``y_(k-j)`` and ``y_(k+j)``, and one
more change moves it to a neighbouring one -- whatever ``k`` is.  Every algorithm below
takes the rank as an argument (:func:`smooth_sensitivity_quantile`); the median functions
call it with ``k = m``.

Median rank.  For odd ``n`` the median is ``y_(m)`` with ``m = (n+1)/2``, the case the
paper states.  For even ``n`` this module uses the *lower* median, ``m = n/2``, both for
the released value and for its sensitivity.  Equation (4) is the smooth sensitivity of
the order statistic of rank ``m`` for any ``m`` (the argument of Nissim et al. never uses
that ``m`` is central), so the lower median keeps the guarantee; the average of the two
middle values would need a different sensitivity.

Algorithm (exact)
-----------------
Row ``i`` (a rank at or below the median) looks for its best partner ``j`` (a rank at or
above it).  Up to the row factor ``exp(beta (i+1))`` the value of a pair is
``h_i(j) = (y_(j) - y_(i)) a_j`` with ``a_j = exp(-beta j)`` decreasing in ``j``.  For
``j < j'`` and rows ``i < i'``::

    [h_i'(j') - h_i'(j)] - [h_i(j') - h_i(j)] = (y_(i') - y_(i)) (a_j - a_j') >= 0,

so a later partner only gains ground as the row moves up.  Hence if ``j*`` is the
*largest* maximiser of row ``i``, every ``j < j*`` is no better than ``j*`` in row
``i'``, and the largest maximiser of row ``i'`` is ``>= j*``: the optimal partner is
non-decreasing in the row.  Divide and conquer over rows (solve the middle row over the
allowed columns, then the rows below it over columns ``<= j*`` and the rows above over
columns ``>= j*``) finds every row maximum with O(n log n) evaluations.  The pair
``(m, m)`` is allowed in every row with value 0 (its difference is 0), which gives all
rows the same column set ``m..n+1`` without changing the maximum.

Two exact prunings make typical calls much cheaper, without ever being needed for
correctness (data with many ties at the median defeat them and the divide and conquer
alone does the work):

* A pair at distance ``d = j - i - 1`` is worth at most ``(upper - lower) exp(-beta d)``.
  After a cheap lower bound ``best`` (the local sensitivity, pairs at doubling distances
  from the median and the nearest values that differ from the median), only distances
  with ``(upper - lower) exp(-beta d) > best`` are searched.
* A block of rows and columns is skipped when its largest possible value
  ``(y_(col_hi) - y_(row_lo)) * exp(-beta * (smallest distance))`` does not exceed the best
  value found so far, and a row scan stops when no later column can reach the row's best.

Floating point.  The weights ``exp(-beta d)`` are made non-increasing and rounding is
monotone, so the prunings are valid for the computed values too.  Where rounding blurs
the exact monotonicity of the partners, a split can only cost a few rounding errors per
level (the Monge inequality above bounds the loss by the rounding error of the middle
row), so the result agrees with the definitional O(n^2) maximum to ~1e-13 relative (the
tests use 1e-12; most of that is the conditioning of ``exp(-beta d)`` for large
``beta d``).  Underflow is the one way rounding could do real harm: a row whose products
all underflow to 0 (ties at the median with a large ``beta``) would have an arbitrary
maximiser and a wrong split.  Such rows are rescanned with weights rescaled to the row's
first column and, if even those underflow, in the log domain, so splits stay exact.

The compiled kernels use numba (``cache=True``: compiled once, then loaded from disk).
Importing this module compiles nothing; :func:`warm_up` compiles (or loads) the kernels
on a tiny input.  Without numba a vectorised numpy version of the same divide and conquer
is used (exact, slower).

The package's modules: :mod:`~core.sensitivity.local` (ranks, ``beta``, global and local
sensitivities), :mod:`~core.sensitivity.smooth` (the smooth sensitivity of one sample, a
batch and a window), :mod:`~core.sensitivity.kernels` (the compiled divide and conquer and
its numpy fallback) and :mod:`~core.sensitivity.checks` (argument checks, the numba
compiler).
"""

from __future__ import annotations

from ..sensitivity.checks import HAVE_NUMBA
from ..sensitivity.checks import _njit as _njit
from ..sensitivity.kernels import _batch_core as _batch_core
from ..sensitivity.kernels import _smooth_core as _smooth_core
from ..sensitivity.kernels import _smooth_numpy as _smooth_numpy
from ..sensitivity.local import (
    check_quantile,
    global_sensitivity_mean,
    global_sensitivity_median,
    local_sensitivity_mean,
    local_sensitivity_median,
    local_sensitivity_quantile,
    median_of_sorted,
    median_rank,
    quantile_rank,
    quantile_ranks,
    smooth_beta,
)
from ..sensitivity.smooth import (
    smooth_sensitivity_beta_batch,
    smooth_sensitivity_median,
    smooth_sensitivity_median_batch,
    smooth_sensitivity_quantile,
    smooth_sensitivity_quantile_batch,
    smooth_sensitivity_window_batch,
    warm_up,
)

__all__ = [
    "HAVE_NUMBA",
    "check_quantile",
    "global_sensitivity_mean",
    "global_sensitivity_median",
    "local_sensitivity_mean",
    "local_sensitivity_median",
    "local_sensitivity_quantile",
    "median_of_sorted",
    "median_rank",
    "quantile_rank",
    "quantile_ranks",
    "smooth_beta",
    "smooth_sensitivity_beta_batch",
    "smooth_sensitivity_median",
    "smooth_sensitivity_median_batch",
    "smooth_sensitivity_quantile",
    "smooth_sensitivity_quantile_batch",
    "smooth_sensitivity_window_batch",
    "warm_up",
]
