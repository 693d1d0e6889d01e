"""The exponential mechanism for a quantile (McSherry & Talwar 2007; Smith 2011).

:class:`ExponentialQuantile` (pure ``eps`` for a changed record, ``max(q, 1 - q) eps`` for
an added or removed one), its interval draw (a compiled inverse-CDF pass with a log-domain
fallback), and the exact piecewise-uniform law of its release on one sample
(:func:`exponential_quantile_distribution`) with the exact errors that law gives
(:func:`exponential_quantile_error`).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .. import sensitivity as sens
from .._checked import is_checked
from .._validation import (
    check_bounds,
    check_eps,
    check_interval,
    finite_scalar,
    values_in_bounds,
)
from ..mechanisms import rows as _rows
from ..mechanisms.base import BudgetFactors, FloatArray, Mechanism, Release, _check_release_args
from ..mechanisms.quantiles import _RankScoreQuantile
from ..mechanisms.rows import SortedRows

__all__ = [
    "ExponentialQuantile",
    "exponential_median_distribution",
    "exponential_median_error",
    "exponential_quantile_distribution",
    "exponential_quantile_error",
]


def _exponential_log_weights(
    edges: FloatArray, eps_sample: FloatArray, quantile: float = 0.5
) -> FloatArray:
    """Unnormalised log-probabilities of the ``n + 1`` intervals of each row.

    ``edges`` has shape ``(reps, n + 2)`` (``lower``, the sorted sample, ``upper``) and
    ``eps_sample`` shape ``(reps,)``.  Entry ``i`` is ``log(z_{i+1} - z_i) - eps |i - q n| / 2``
    shifted so that the best interval of positive width has penalty 0; zero-width intervals
    get ``-inf``.  The shift keeps at least one finite entry per row even when
    ``eps |i - q n|`` overflows.
    """
    n = edges.shape[1] - 2
    width = np.diff(edges, axis=1)
    distance = np.abs(np.arange(n + 1, dtype=np.float64) - quantile * n)
    positive = width > 0
    nearest = np.where(positive, distance, np.inf).min(axis=1)
    with np.errstate(divide="ignore", over="ignore"):
        log_width = np.where(positive, np.log(np.where(positive, width, 1.0)), -np.inf)
        penalty = (eps_sample[:, np.newaxis] / 2.0) * (distance - nearest[:, np.newaxis])
    return np.asarray(log_width - penalty, dtype=np.float64)


def _choose_kernel(
    batch: FloatArray,
    lower: float,
    upper: float,
    decay: FloatArray,
    group: NDArray[np.int64],
    u: FloatArray,
    chosen: NDArray[np.int64],
    total: FloatArray,
) -> None:  # pragma: no cover - compiled by numba; the numpy path is tested without it
    """Per row: the total weight and the first interval whose running sum reaches ``u`` of it."""
    reps, n = batch.shape
    for r in range(reps):
        g = group[r]
        s = 0.0
        previous = lower
        for i in range(n + 1):
            edge = batch[r, i] if i < n else upper
            s += (edge - previous) * decay[g, i]
            previous = edge
        total[r] = s
        target = u[r] * s
        acc = 0.0
        previous = lower
        pick = n
        for i in range(n + 1):
            edge = batch[r, i] if i < n else upper
            w = (edge - previous) * decay[g, i]
            acc += w
            previous = edge
            if w > 0.0 and acc >= target:
                pick = i
                break
        chosen[r] = pick


_choose_compiled = sens._njit(_choose_kernel) if sens.HAVE_NUMBA else None


def _exponential_choose(
    batch: FloatArray,
    lower: float,
    upper: float,
    eps_sample: FloatArray,
    quantile: float,
    u: FloatArray,
) -> NDArray[np.int64]:
    """Index ``i`` of the interval ``[z_i, z_{i+1}]`` drawn for each row by inverse CDF.

    Interval ``i`` has weight ``(z_{i+1} − z_i) exp(−eps (|i − q n| − d_min) / 2)``; the
    decay factors are computed once per distinct ``eps``, and a compiled loop (numba) makes
    one pass for the total and one, stopped early, for the draw ``u · total``.  Rows whose
    weights underflow (large ``eps`` with every positive-width interval far from the
    quantile's rank) are drawn from the log-domain weights instead
    (:func:`_exponential_log_weights`), as is every row without numba.
    """
    reps, n = batch.shape
    distance = np.abs(np.arange(n + 1, dtype=np.float64) - quantile * n)
    shifted = distance - distance.min()
    values, group = np.unique(eps_sample, return_inverse=True)
    decay = np.exp(-(values[:, np.newaxis] / 2.0) * shifted[np.newaxis, :])
    chosen = np.empty(reps, dtype=np.int64)
    total = np.zeros(reps)
    if _choose_compiled is not None:
        _choose_compiled(
            batch, lower, upper, decay, group.astype(np.int64).reshape(reps), u, chosen, total
        )
        redo = np.flatnonzero(~(total > 1e-250 * (upper - lower)))
    else:  # pragma: no cover - numba is a pinned dependency
        redo = np.arange(reps)
    if redo.size:
        edges = _edges(batch[redo], lower, upper)
        log_w = _exponential_log_weights(edges, eps_sample[redo], quantile)
        cumulative = np.cumsum(np.exp(log_w - log_w.max(axis=1, keepdims=True)), axis=1)
        target = u[redo] * cumulative[:, -1]
        found = (cumulative < target[:, np.newaxis]).sum(axis=1)
        chosen[redo] = np.minimum(found, n)
    return chosen


#: ``e^(-x)`` is exactly 0 in double precision for every ``x`` beyond this (the smallest
#: subnormal is ``e^(-744.4)``): intervals whose decay exponent passes it weigh nothing.
_UNDERFLOW = 800.0


def _choose_rows_kernel(
    values: FloatArray,
    starts: NDArray[np.int64],
    sizes: NDArray[np.int64],
    lower: float,
    upper: float,
    eps: float,
    quantile: float,
    u: FloatArray,
    chosen: NDArray[np.int64],
    total: FloatArray,
) -> None:  # pragma: no cover - compiled by numba
    """:func:`_choose_kernel` for samples of any sizes stored end to end (one ``eps``).

    The decay of interval ``i`` of a sample of size ``n`` is ``exp(-(eps / 2) (|i - q n| -
    d_min))``, as in :func:`_exponential_choose`; only the intervals whose exponent stays
    below :data:`_UNDERFLOW` are visited (the others weigh exactly 0, so the sums and the
    interval drawn are those of the pass over every interval), and each weight is computed
    once, for the total, and read again for the draw.
    """
    half = eps / 2.0
    weights = np.empty(sizes.max() + 1 if sizes.size else 1)
    for r in range(sizes.size):
        n = sizes[r]
        first = starts[r]
        c = quantile * n
        below = min(max(np.floor(c), 0.0), float(n))
        above = min(max(np.ceil(c), 0.0), float(n))
        d_min = min(abs(below - c), abs(above - c))
        reach = d_min + _UNDERFLOW / half if half > 0.0 else np.inf
        a = int(max(0.0, np.floor(c - reach) - 1.0)) if np.isfinite(reach) else 0
        b = int(min(float(n), np.ceil(c + reach) + 1.0)) if np.isfinite(reach) else n
        s = 0.0
        previous = lower if a == 0 else values[first + a - 1]
        for i in range(a, b + 1):
            edge = values[first + i] if i < n else upper
            w = (edge - previous) * np.exp(-half * (abs(i - c) - d_min))
            weights[i - a] = w
            s += w
            previous = edge
        total[r] = s
        target = u[r] * s
        acc = 0.0
        pick = n
        for i in range(a, b + 1):
            w = weights[i - a]
            acc += w
            if w > 0.0 and acc >= target:
                pick = i
                break
        chosen[r] = pick


_choose_rows_compiled = sens._njit(_choose_rows_kernel) if sens.HAVE_NUMBA else None


def _edges(batch: FloatArray, lower: float, upper: float) -> FloatArray:
    """``[lower, x_1, ..., x_n, upper]`` for each sorted row, shape ``(reps, n + 2)``."""
    reps = batch.shape[0]
    return np.concatenate([np.full((reps, 1), lower), batch, np.full((reps, 1), upper)], axis=1)


def _chosen_interval(
    batch: FloatArray, lower: float, upper: float, chosen: NDArray[np.int64]
) -> tuple[FloatArray, FloatArray]:
    """Ends ``(z_i, z_{i+1})`` of the interval ``i = chosen`` of each row (see :func:`_edges`)."""
    n = batch.shape[1]
    rows = np.arange(batch.shape[0])
    left = np.where(chosen == 0, lower, batch[rows, np.maximum(chosen - 1, 0)])
    right = np.where(chosen == n, upper, batch[rows, np.minimum(chosen, n - 1)])
    return left, right


def _check_one_sample(
    sorted_values: ArrayLike, eps_sample: float, lower: float, upper: float, quantile: float
) -> tuple[float, float, FloatArray, float, float]:
    """The checked ``(lo, hi, sorted values, eps, q)`` of the one-sample laws: a non-empty,
    finite sample inside ``[lower, upper]`` (sorted here), a budget > 0, a level in (0, 1)."""
    lo, hi = check_bounds(lower, upper)
    if is_checked(sorted_values, lo, hi):  # the population, checked once
        values = np.asarray(sorted_values).reshape(-1)
    else:
        values = np.sort(values_in_bounds(sorted_values, lo, hi))
    eps = float(check_eps("eps_sample", finite_scalar("eps_sample", eps_sample)))
    return lo, hi, values, eps, sens.check_quantile(quantile)


def _interval_law(
    values: FloatArray, lower: float, upper: float, eps: float, level: float
) -> tuple[FloatArray, FloatArray]:
    """Edges ``z_0 .. z_{n+1}`` of the sorted ``values`` and the interval probabilities
    ``∝ (z_{i+1} - z_i) exp(-eps |i - level n| / 2)`` (:func:`_exponential_log_weights`)."""
    edges = _edges(values[np.newaxis, :], lower, upper)
    log_w = _exponential_log_weights(edges, np.array([eps]), level)[0]
    weights = np.exp(log_w - log_w.max())
    return edges[0], weights / weights.sum()


def exponential_quantile_distribution(
    sorted_values: ArrayLike,
    eps_sample: float,
    lower: float,
    upper: float,
    quantile: float = 0.5,
) -> tuple[FloatArray, FloatArray]:
    """Exact output distribution of :class:`ExponentialQuantile` on one sample.

    The release is piecewise uniform: with ``z_0 = lower``, ``z_i = x_(i)`` (the sorted
    sample) and ``z_{n+1} = upper``, it falls in interval ``i = [z_i, z_{i+1}]`` with
    probability ``p_i`` proportional to ``(z_{i+1} - z_i) exp(-eps_sample |i - q n| / 2)``
    and is uniform inside it (Smith 2011; McSherry & Talwar 2007).

    Parameters
    ----------
    sorted_values : array_like, shape (n,)
        The sample, ``n >= 1``, inside ``[lower, upper]`` (sorted here if it is not).
    eps_sample : float
        Budget spent on the sample, finite and > 0.
    lower, upper : float
        Public bounds, ``lower < upper``.
    quantile : float, default 0.5
        The level ``q`` in (0, 1).

    Returns
    -------
    edges : ndarray, shape (n + 2,)
        ``z_0, ..., z_{n+1}``.
    probabilities : ndarray, shape (n + 1,)
        ``p_0, ..., p_n`` (zero for zero-width intervals), summing to 1.

    Raises
    ------
    ValueError
        For empty or non-finite values, values outside the bounds, bad bounds, budget or
        quantile.
    """
    lo, hi, values, eps, q = _check_one_sample(sorted_values, eps_sample, lower, upper, quantile)
    return _interval_law(values, lo, hi, eps, q)


def exponential_quantile_error(
    sorted_values: ArrayLike,
    eps_sample: float,
    lower: float,
    upper: float,
    centre: float,
    level: float = 0.95,
    quantile: float = 0.5,
) -> tuple[float, float]:
    """Exact mean squared error and ``level``-quantile of the error of the exponential quantile.

    For one fixed sample (the census, say) the release ``Y`` of :class:`ExponentialQuantile`
    has the piecewise-uniform law of :func:`exponential_quantile_distribution`, so

    * ``E[(Y - c)^2] = sum_i p_i ((m_i - c)^2 + w_i^2 / 12)`` with ``m_i`` and ``w_i`` the
      midpoint and width of interval ``i``;
    * ``F(t) = P(|Y - c| <= t) = G(c + t) - G(c - t)``, with ``G`` the piecewise-linear CDF
      of ``Y``, is linear in ``t`` between the distances ``|z_j - c|``; the quantile is the
      smallest ``t`` with ``F(t) >= level``, found on those breakpoints and interpolated.

    No Monte Carlo; ``O(n log n)`` (one sort of the breakpoints), fine for ``n = 10^6``.

    Parameters
    ----------
    sorted_values : array_like, shape (n,)
        The sample, ``n >= 1``, inside ``[lower, upper]`` (sorted here if it is not).
    eps_sample : float
        Budget spent on the sample, finite and > 0.
    lower, upper : float
        Public bounds, ``lower < upper``.
    centre : float
        The value the error is measured from (e.g. the population median).
    level : float, default 0.95
        In (0, 1).
    quantile : float, default 0.5
        The quantile ``q`` the mechanism releases, in (0, 1).

    Returns
    -------
    mse : float
        ``E[(Y - centre)^2]``.
    quantile : float
        The ``level``-quantile of ``|Y - centre|``.

    Raises
    ------
    ValueError
        For bad values, bounds, budget, a non-finite ``centre`` or ``level`` outside (0, 1).
    """
    c = finite_scalar("centre", centre)
    q = float(check_interval("level", level, 0.0, 1.0, low_open=True, high_open=True))
    lo, hi, values, eps, qq = _check_one_sample(sorted_values, eps_sample, lower, upper, quantile)
    edges, p = _kept_law(values, lo, hi, eps, qq)
    return _piecewise_uniform_errors(edges, p, c, q)


#: ``log(1e-30)``: intervals below this share of the most likely one are dropped.
_LOG_NEGLIGIBLE = math.log(1e-30)


def _kept_law(
    values: FloatArray,
    lower: float,
    upper: float,
    eps: float,
    level: float,
    first_half: float | None = None,
) -> tuple[FloatArray, FloatArray]:
    """The intervals ``a .. b`` of :func:`_interval_law` that can hold mass, and their weights.

    Only intervals within ``1e-30`` of the most likely one matter for the errors: the rest
    hold less than ``n · 1e-30`` of the mass together, far below double precision
    (:func:`_piecewise_uniform_errors` drops them).  They are found without weighing all
    ``n + 1`` intervals: interval ``i`` weighs ``(z_{i+1} - z_i) e^{-eps |i - level n| / 2}
    <= (upper - lower) e^{-eps |i - level n| / 2}``, so once a window of intervals around
    ``level n`` holds one of log-weight ``top`` with ``log(upper - lower) - eps r / 2 <
    top + log(1e-30) - log(n + 1)`` (``r`` the least distance from ``level n`` of an
    interval outside the window), no interval outside it can be kept.  The window starts
    at ``256 / eps`` intervals each side (enough on smooth data) and doubles -- straight
    across a block of tied values -- until that holds or it covers every interval
    (``first_half`` sets another start: the tests use 1 to exercise the growth).

    Returns
    -------
    edges : ndarray, shape (b - a + 2,)
        ``z_a .. z_{b + 1}``.
    weights : ndarray, shape (b - a + 1,)
        Proportional to the probabilities of intervals ``a .. b`` (largest 1).
    """
    n = values.size
    centre = level * n
    log_range = math.log(upper - lower)
    half = min(256.0 / eps if first_half is None else first_half, float(n + 1))
    while True:
        a = max(0, math.floor(centre - half))
        b = min(n, math.ceil(centre + half))
        i = np.arange(a, b + 2)
        z = np.where(i == 0, lower, np.where(i == n + 1, upper, values[np.clip(i - 1, 0, n - 1)]))
        width = np.diff(z)
        positive = width > 0
        if a == 0 and b == n:
            break
        if positive.any():
            with np.errstate(divide="ignore"):
                log_w = np.log(width) - 0.5 * eps * np.abs(i[:-1] - centre)
            top = float(log_w.max())
            reach = min(
                centre - (a - 1) if a > 0 else math.inf, b + 1 - centre if b < n else math.inf
            )
            if log_range - 0.5 * eps * reach < top + _LOG_NEGLIGIBLE - math.log(n + 1.0):
                return z, np.exp(log_w - top)
        half *= 2.0
    log_w = _exponential_log_weights(z[np.newaxis, :], np.array([eps]), level)[0]
    return z, np.exp(log_w - log_w.max())


def _piecewise_uniform_errors(
    edges: FloatArray, weights: FloatArray, centre: float, level: float
) -> tuple[float, float]:
    """Mean squared error and ``level``-quantile of ``|Y - centre|`` for ``Y`` uniform on
    interval ``[edges[i], edges[i + 1]]`` with probability ``∝ weights[i]``
    (:func:`exponential_quantile_error`)."""
    c, q, p = centre, level, weights / weights.max()
    # Only intervals within 1e-30 of the most likely one matter: the rest hold less than
    # n · 1e-30 of the mass together, far below double precision of either result, and
    # dropping them spares sorting all n + 2 edges of a large population.
    kept = np.flatnonzero(p > 1e-30)
    p = p[kept[0] : kept[-1] + 1]
    edges = edges[kept[0] : kept[-1] + 2]
    p = p / p.sum()
    left, right = edges[:-1], edges[1:]
    width = right - left
    mid = left + width / 2.0
    mse = float(np.sum(p * ((mid - c) ** 2 + width**2 / 12.0)))

    cdf = np.concatenate([[0.0], np.cumsum(p)])
    cdf /= cdf[-1]
    # np.interp needs increasing abscissae: keep the last CDF value at each repeated edge
    # (the CDF is flat across zero-width intervals, so any copy gives the same value).
    knots, last = np.unique(edges[::-1], return_index=True)
    knot_cdf = cdf[::-1][last]
    t = np.unique(np.concatenate([[0.0], np.abs(knots - c)]))
    f = np.interp(c + t, knots, knot_cdf) - np.interp(c - t, knots, knot_cdf)
    f = np.maximum.accumulate(np.clip(f, 0.0, 1.0))
    k = int(np.searchsorted(f, q, side="left"))
    if k >= f.size:  # rounding left F(max distance) a hair below 1
        return mse, float(t[-1])
    if k == 0:
        return mse, 0.0
    share = (q - f[k - 1]) / (f[k] - f[k - 1])
    return mse, float(t[k - 1] + share * (t[k] - t[k - 1]))


def exponential_median_distribution(
    sorted_values: ArrayLike, eps_sample: float, lower: float, upper: float
) -> tuple[FloatArray, FloatArray]:
    """:func:`exponential_quantile_distribution` of the median (``quantile = 0.5``)."""
    return exponential_quantile_distribution(sorted_values, eps_sample, lower, upper, 0.5)


def exponential_median_error(
    sorted_values: ArrayLike,
    eps_sample: float,
    lower: float,
    upper: float,
    centre: float,
    level: float = 0.95,
) -> tuple[float, float]:
    """:func:`exponential_quantile_error` of the median (``quantile = 0.5``)."""
    return exponential_quantile_error(sorted_values, eps_sample, lower, upper, centre, level, 0.5)


class ExponentialQuantile(_RankScoreQuantile):
    """The exponential mechanism for a quantile (McSherry & Talwar 2007; Smith 2011).

    With the sorted sample ``x_1 <= ... <= x_n`` padded by ``z_0 = lower`` and
    ``z_{n+1} = upper``, interval ``i = [z_i, z_{i+1}]`` (``i = 0..n``) has ``i`` sample
    values at or below its left end.  The release picks interval ``i`` with probability
    proportional to ``(z_{i+1} - z_i) exp(-eps_sample |i - q n| / 2)`` and then a point
    uniformly inside it.  Equivalently the output density at ``y`` is proportional to
    ``exp(eps_sample u(x, y) / 2)`` with the score ``u(x, y) = -|c_x(y) - q n|``, where
    ``c_x(y)`` counts the sample values ``<= y`` -- the exponential mechanism on
    ``[lower, upper]`` with the uniform base measure.

    Privacy: pure ``eps_sample``-DP for a changed record and ``max(q, 1 - q) eps_sample``-DP
    for an added or removed one.  For neighbours ``x, x'`` whose scores differ by at most
    ``Delta`` at every output, ``|u(x, y) - u(x', y)| <= Delta``, the density ratio is

        ``p_x(y) / p_x'(y) = exp(eps (u(x, y) - u(x', y)) / 2) * Z(x') / Z(x)``,

    with ``Z(x)`` the integral of ``exp(eps u(x, .) / 2)`` over ``[lower, upper]`` (the
    base measure does not depend on the data).  The first factor is at most
    ``e^(eps Delta / 2)`` and so is the second, since ``u(x', .) <= u(x, .) + Delta``
    everywhere: the ratio is at most ``e^(eps Delta)`` (McSherry & Talwar 2007).
    Fix ``y``:

    * one record changed (``n`` fixed): removing the old value lowers ``c(y)`` by 0 or 1 and
      inserting the new one raises it by 0 or 1, so ``c(y)`` moves by at most 1 and ``q n``
      not at all: ``|u|`` moves by at most 1, so ``Delta = 1`` and the release is
      ``eps``-DP;
    * one record with value ``z`` added (removal is the same pair read backwards):
      ``c(y)`` rises by 1 if ``z <= y`` and by 0 otherwise, while ``q n`` rises by exactly
      ``q``; so ``c(y) - q n`` moves by ``1 - q`` (for ``y >= z``) or ``-q`` (for
      ``y < z``) and ``|u|`` by at most ``max(q, 1 - q)``.  (Adding the two moves
      separately would give ``1 + q``; they are not independent.)  So ``Delta =
      max(q, 1 - q)`` and the release is ``max(q, 1 - q) eps``-DP: ``eps / 2`` for the
      median, ``3 eps / 4`` for a quartile.

    The normaliser keeps its factor ``e^(eps Delta / 2)``: the score does not move the same
    way at every output (where ``c(y) - q n >= 0`` an added record at or below ``y`` pushes
    ``|u|`` up by ``1 - q``, where ``c(y) - q n <= -(1 - q)`` it pulls it down by as much),
    so the normaliser can shrink by ``e^(-eps Delta / 2)`` while the density at one output
    grows by ``e^(eps Delta / 2)``.  Both happen together when nearly all the mass sits in
    one wide interval whose ``|u|`` grows and a narrow interval next to it has its ``|u|``
    shrink: the bound ``max(q, 1 - q) eps`` is then approached (the tests enumerate such
    pairs).  ``delta_sample`` is ignored.  An empty sample (``n = 0``, possible when the
    sample size is random) has the score 0 everywhere, i.e. the uniform law on
    ``[lower, upper]``; adding one record moves the score by ``q`` or ``1 - q``, so it is
    covered too.

    Budgets: ``change_factor = 1``; the class attribute ``add_remove_factor = 1`` holds at
    every level (``max(q, 1 - q) < 1``), and :meth:`budget_factors` gives the level's own,
    ``max(q, 1 - q)``, which the accounting uses.  The change budget is unaffected: group
    privacy gives ``min(1, 2 max(q, 1 - q)) = 1``.

    The centre :meth:`statistic` is the order statistic ``y_(k)``,
    ``k = quantile_rank(n, q)`` (the lower median for ``q = 1/2``); the release is not
    unbiased for it and its conditional noise variance has no simple closed form
    (:func:`exponential_quantile_error` gives exact errors for one sample).

    Parameters
    ----------
    quantile : float, default 0.5
        The level ``q`` in (0, 1).
    """

    name = "exponential"
    label = "quantile, exponential mechanism"
    additive = False
    unit_noise_variance = None
    pure = True
    add_remove_factor = 1.0
    change_factor = 1.0
    windowed = True  # drawn ring by ring (core.windowed.window_exponential_draws)

    @classmethod
    def budget_factors(cls, quantile: float) -> BudgetFactors:
        """``add_remove = max(q, 1 - q)``, ``change = 1`` at level ``q`` (class docstring)."""
        q = sens.check_quantile(quantile)
        return BudgetFactors(cls.name, max(q, 1.0 - q), cls.change_factor)

    def exact_error(
        self,
        sample: FloatArray,
        eps_sample: float,
        delta_sample: float,
        lower: float,
        upper: float,
        level: float,
    ) -> tuple[float, float] | None:
        """Exact errors from the release's piecewise-uniform law
        (:func:`exponential_quantile_error`) about the sample's order statistic."""
        arr = np.asarray(sample, dtype=np.float64)
        theta = float(arr[sens.quantile_rank(arr.size, self.quantile) - 1])
        mse, e95 = exponential_quantile_error(
            arr, eps_sample, lower, upper, theta, level=level, quantile=self.quantile
        )
        return float(mse), float(e95)

    def release(
        self,
        samples: ArrayLike,
        eps_sample: float | ArrayLike,
        delta_sample: float,
        lower: float,
        upper: float,
        rng: np.random.Generator,
    ) -> Release:
        """Release one exponential-mechanism quantile per row (see the class docstring).

        Vectorised over the batch: the interval of each row is drawn by inverting the
        cumulative sum of the weights ``exp(log w_i - eps |i - q n| / 2)`` (divided by the
        largest; zero-width intervals have weight 0) at one uniform draw, then a uniform
        point inside it.  ``O(n)`` per row; the log-weights keep ``eps = 1000`` and
        ``eps = 1e-12`` exact.  ``rng`` is advanced by ``2 reps`` uniform draws.
        Parameters, return value and errors as :meth:`Mechanism.release`;
        ``noise_variance`` is ``None`` and ``noise_scale`` is the score scale ``2 / eps``.
        """
        lo, hi, batch, eps, _ = _check_release_args(
            samples, eps_sample, delta_sample, lower, upper, rng
        )
        u = np.asarray(1.0 - rng.random(batch.shape[0]), dtype=np.float64)
        chosen = _exponential_choose(batch, lo, hi, np.ascontiguousarray(eps), self.quantile, u)
        left, right = _chosen_interval(batch, lo, hi, chosen)
        released = np.clip(left + rng.random(batch.shape[0]) * (right - left), left, right)
        return self._score_release(released, batch, eps, lo, hi)

    def release_in_order(
        self,
        rows: SortedRows,
        eps_sample: float,
        delta_sample: float,
        lower: float,
        upper: float,
        rng: np.random.Generator,
    ) -> Release:
        """:meth:`release` of each non-empty sample of ``rows`` alone, in order, at once.

        The draws of releasing sample after sample (two uniforms each, the interval's then
        the point's) are taken in one call and dealt out in that order; the interval of
        every sample is drawn by one compiled pass over the samples end to end
        (:func:`_choose_rows_kernel`), a sample whose weights underflow by the log-domain
        weights of :func:`_exponential_choose`, as :meth:`release` draws it.
        """
        if _choose_rows_compiled is None:  # pragma: no cover - numba is a pinned dependency
            return super().release_in_order(rows, eps_sample, delta_sample, lower, upper, rng)
        uniforms = rng.random(2 * len(rows))
        return self._in_order(rows, eps_sample, lower, upper, uniforms[0::2], uniforms[1::2])

    def release_with_empty(
        self,
        rows: SortedRows,
        eps_sample: float,
        delta_sample: float,
        lower: float,
        upper: float,
        rng: np.random.Generator,
    ) -> Release | None:
        """:meth:`release_in_order` with empty samples among ``rows``, in one call: a
        non-empty sample takes two uniforms, an empty one the one of its uniform release
        (:meth:`Mechanism.release_empty`, ``lower + (upper − lower) u``), so the draws of
        every sample are taken at once and dealt out in order."""
        if _choose_rows_compiled is None or type(self).release_empty is not Mechanism.release_empty:
            return None  # pragma: no cover - numba is a pinned dependency
        empty = rows.sizes == 0
        used = np.where(empty, 1, 2)
        at = np.cumsum(used) - used
        uniforms = rng.random(int(used.sum()))
        first = at[~empty]
        filled = self._in_order(
            rows.filled(), eps_sample, lower, upper, uniforms[first], uniforms[first + 1]
        )
        released = lower + (upper - lower) * uniforms[at[empty]]
        return _rows.with_empty(self, rows, filled, released, math.nan, math.nan, lower, upper)

    def _in_order(
        self,
        rows: SortedRows,
        eps_sample: float,
        lower: float,
        upper: float,
        first: FloatArray,
        second: FloatArray,
    ) -> Release:
        """The releases of the non-empty samples of ``rows`` from each sample's two uniforms
        ``first`` (the interval's) and ``second`` (the point's)."""
        assert _choose_rows_compiled is not None
        count = len(rows)
        u = np.asarray(1.0 - first, dtype=np.float64)
        eps = float(eps_sample)
        chosen = np.empty(count, dtype=np.int64)
        total = np.zeros(count)
        _choose_rows_compiled(
            rows.values, rows.starts, rows.sizes, lower, upper, eps, self.quantile, u, chosen, total
        )
        for r in np.flatnonzero(~(total > 1e-250 * (upper - lower))):
            one = rows.row(int(r))[np.newaxis, :]
            chosen[r] = _exponential_choose(
                one, lower, upper, np.array([eps]), self.quantile, u[r : r + 1]
            )[0]
        at = rows.starts + chosen
        left = np.where(chosen == 0, lower, rows.values[np.maximum(at - 1, 0)])
        right = np.where(
            chosen == rows.sizes, upper, rows.values[np.minimum(at, rows.values.size - 1)]
        )
        released = np.clip(left + second * (right - left), left, right)
        s = np.ones(count, dtype=np.float64)
        eps_rows = np.full(count, eps)
        return Release(released, self.statistic_rows(rows), s, self.noise_scale(s, eps_rows), None)
