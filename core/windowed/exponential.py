"""The exponential mechanism's quantile release, drawn exactly from windows, ring by ring.

The piecewise-Laplace quantile (:class:`core.mechanisms.PiecewiseLaplaceQuantile`, Durfee
2025) draws its piece with the exponential mechanism's interval weights centred on the rank
``k - 1/2`` instead of ``q n``, then a point inside the piece from a truncated exponential
leaning towards the statistic; the same rings draw it (``piecewise=True``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from .. import sensitivity as sens
from .._validation import FloatArray, check_bounds, check_whole
from ..windowed.runs import Blocks, RunView, next_window, run_view
from ..windowed.sampler import IntArray, SourceFactory, _open_source, _ranks

__all__ = ["window_exponential_draws"]


@dataclass
class _ExpState:
    """Per (eps, sample) state of the lazy draw of one exponential-mechanism release.

    The current ring is the intervals ``ring_lo .. ring_hi`` minus the excluded (earlier
    rings) ``cut_lo .. cut_hi`` (empty while ``cut_hi < cut_lo``); ``u`` decides whether the
    release falls in the ring.
    """

    u: FloatArray
    eps: float
    rank: IntArray
    piecewise: bool
    ring_lo: IntArray
    ring_hi: IntArray
    cut_lo: IntArray
    cut_hi: IntArray


@dataclass
class _Intervals:
    """The known intervals of some samples: column ``c`` of row ``r`` is interval
    ``index[r, c]`` (``[left, right]``, increasing in ``c``), known for columns ``c_lo ..
    c_hi``; the intervals between them lie inside runs of equal values and weigh 0."""

    left: FloatArray
    right: FloatArray
    weights: FloatArray
    rest: FloatArray
    index: IntArray
    c_lo: IntArray
    c_hi: IntArray


def _intervals(
    view: RunView,
    n: IntArray,
    eps: float,
    centre: FloatArray,
    lower: float,
    upper: float,
    log_rest: FloatArray | None = None,
) -> _Intervals:
    """Weights of the known intervals of each row, and a bound on the unknown rest.

    Row ``r`` knows the order statistics of ranks ``first .. last`` as runs of equal values
    (``view``).  Interval ``i`` is ``[z_i, z_{i+1}]`` with ``z_0 = lower``, ``z_{n+1} =
    upper`` (:class:`core.mechanisms.ExponentialQuantile`); it is known when both ends are,
    and weighs ``(z_{i+1} - z_i) e^{-eps |i - c| / 2}`` (``c = centre``, one per row: ``q n``
    for the exponential mechanism, ``k - 1/2`` for the piecewise-Laplace pieces): 0 inside a
    run, so only the
    intervals between runs are listed (interval ``last`` of a run joins it to the next),
    one column each, and a tie block of any length costs nothing.  The unknown intervals below span
    ``[lower, y_first]`` at rank distance ``>= c - first + 1`` from ``c`` (when
    positive), so together they weigh at most ``(y_first - lower)
    e^{-eps max(0, q n - first + 1) / 2}``; above likewise.  ``log_rest``, when given, is
    another bound on the log of the unknown intervals' weight, from the unexpanded blocks
    (:func:`_log_rest_of_blocks`); the smaller of the two is used.  Every row is scaled by
    its largest log-weight, so no ``eps`` overflows or underflows a whole row.
    """
    cells, length = view.value, view.count
    reps, width = cells.shape
    rows = np.arange(reps)
    first, last = view.first[:, 0], view.last[rows, length - 1]
    z = np.full((reps, width + 2), np.nan)
    z[:, 1 : width + 1] = cells
    z[first == 1, 0] = lower
    z[rows, length + 1] = np.where(last == n, upper, np.nan)
    left, right = z[:, :-1], z[:, 1:]
    c_lo = np.where(first == 1, 0, 1)
    c_hi = np.where(last == n, length, length - 1)
    col = np.arange(width + 1)[None, :]
    known = (col >= c_lo[:, None]) & (col <= c_hi[:, None])
    index = np.concatenate(((first - 1)[:, None], view.last), axis=1)
    qn = np.asarray(centre, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        logw = np.where(
            known, np.log(right - left) - 0.5 * eps * np.abs(index - qn[:, None]), -np.inf
        )
        span_below = np.where(first > 1, cells[:, 0] - lower, 0.0)
        span_above = np.where(last < n, upper - cells[rows, length - 1], 0.0)
        log_below = np.log(span_below) - 0.5 * eps * np.maximum(0.0, qn - first + 1)
        log_above = np.log(span_above) - 0.5 * eps * np.maximum(0.0, last - qn)
    log_ends = np.logaddexp(log_below, log_above)
    if log_rest is not None:
        log_ends = np.minimum(log_ends, log_rest)
    top = np.maximum(np.max(logw, axis=1), log_ends)
    weights = np.exp(logw - top[:, None])
    rest = np.exp(log_ends - top)
    return _Intervals(left, right, weights, rest, index, c_lo, c_hi)


def _log_rest_of_blocks(
    view: RunView,
    n: IntArray,
    eps: float,
    centre: FloatArray,
    lower: float,
    upper: float,
    blocks: Blocks,
) -> FloatArray:
    """A bound on the log of the unknown intervals' weight of each row, block by block.

    Row ``r`` knows ranks ``f .. l`` (values ``y_f .. y_l``) around its rank; the unexpanded
    blocks, in rank order, cover every unknown rank, block ``[a, b]`` holding values in
    ``[low, high]`` (:class:`core.windowed.WindowSource`, ``outside``); known ranks may lie
    between far blocks.  Give block ``[a, b]`` the intervals ``e .. b - 1``, ``e`` the last
    rank of the block before it on its side (``0`` below, ``l`` above): they join ``z_e``
    to ``z_b``, so together they are at most ``high - low'`` long, ``low'`` the previous
    block's ``low`` (``z_0 = lower`` before the first block below, ``z_l = y_l`` before the
    first above), and each weighs at most its length times ``e^{-eps d / 2}``, ``d`` the
    least ``|i - c|`` over its indices ``i``.  What is left is interval ``f - 1`` (``[z_{f-1},
    y_f]``, the block below ends at ``f - 1``: at most ``y_f`` minus its ``low``) and the
    intervals from the last block above's end ``e`` to ``n`` (at most ``upper`` minus its
    ``low``).  Every unknown interval is counted once, so the sum bounds their weight; a far
    block counts for little, so the bound is much tighter than the one of :func:`_intervals`,
    which puts the whole remaining span at the nearest distance.
    """
    offsets, _, b_last, b_low, b_high = blocks
    rows = view.count.size
    reps = np.arange(rows)
    f = view.first[:, 0]
    l_ = view.last[reps, view.count - 1]
    row = np.repeat(reps, np.diff(offsets))
    c = np.asarray(centre, dtype=np.float64)[row]
    below = b_last < f[row]
    first_of_side = np.ones(row.size, dtype=bool)
    first_of_side[1:] = (row[1:] != row[:-1]) | (below[1:] != below[:-1])
    prev_end = np.empty_like(b_last)
    prev_end[1:] = b_last[:-1]
    prev_end = np.where(first_of_side, np.where(below, 0, l_[row]), prev_end)
    prev_low = np.empty_like(b_low)
    prev_low[1:] = b_low[:-1]
    y_l = view.value[reps, view.count - 1]
    prev_low = np.where(first_of_side, np.where(below, lower, y_l[row]), prev_low)
    # Each block's intervals and the two ranges left, as (low index, high index, length).
    last_below = below & (b_last == f[row] - 1)
    last_above = ~below & np.append(row[1:] != row[:-1], True)  # the row's last block
    i_lo = np.concatenate((prev_end, f[row] - 1, b_last))
    i_hi = np.concatenate((b_last - 1, f[row] - 1, n[row]))
    length = np.concatenate(
        (b_high - prev_low, view.value[row, 0] - b_low, np.full(row.size, upper) - b_low)
    )
    used = np.concatenate((np.ones(row.size, dtype=bool), last_below, last_above))
    cc = np.concatenate((c, c, c))
    dist = np.where(cc < i_lo, i_lo - cc, np.where(cc > i_hi, cc - i_hi, 0.0))
    with np.errstate(divide="ignore"):
        terms = np.log(np.maximum(length, 0.0)) - 0.5 * eps * dist
    terms = np.where(used & (i_hi >= i_lo), terms, -np.inf)
    all_rows = np.concatenate((row, row, row))
    top = np.full(rows, -np.inf)
    np.maximum.at(top, all_rows, terms)
    safe = np.where(np.isfinite(top), top, 0.0)
    total = np.bincount(all_rows, weights=np.exp(terms - safe[all_rows]), minlength=rows)
    with np.errstate(divide="ignore"):
        return np.where(np.isfinite(top), safe + np.log(total), -np.inf)


def window_exponential_draws(
    sample_rng: np.random.Generator,
    noise_rng: np.random.Generator,
    sorted_values: FloatArray,
    sizes: ArrayLike,
    quantile: float,
    eps: ArrayLike,
    lower: float,
    upper: float,
    *,
    first_half: int | None = None,
    source: SourceFactory | None = None,
    piecewise: bool = False,
) -> tuple[FloatArray, FloatArray]:
    """Exponential-mechanism quantiles of SRSWOR samples, drawn exactly from windows.

    The release of :class:`core.mechanisms.ExponentialQuantile` weighs every interval
    between the sample's order statistics, so it depends on the whole sample -- but the far
    intervals weigh little.  Each release is drawn ring by ring around the quantile's rank.
    With ``C`` the weight of the current ring and ``W'`` the weight of everything not in an
    earlier ring, the release falls in the ring with probability ``C / W'``, decided by a
    fresh uniform ``u < C / W'``.  ``W'`` is known only up to a bound on the unknown
    intervals (the smaller of :func:`_intervals`' and :func:`_log_rest_of_blocks`'); while
    ``u`` lies between the two possible ratios the window widens -- the comparison is
    exact: ``u`` stays fixed and more of the same sample is revealed.  When ``u`` says "not
    in the ring", the next ring is what is known beyond it.  In the chosen ring an interval
    is drawn by its weight and the release uniformly inside it.  So every release has
    exactly the mechanism's law on the whole sample; most are decided in the first ring.

    Parameters
    ----------
    sample_rng, noise_rng : numpy.random.Generator
        Randomness of the samples and of the releases.
    sorted_values : ndarray, shape (N,)
        The population, sorted, inside ``[lower, upper]``.
    sizes : array_like of int, shape (reps,)
        Sample sizes in ``[1, N]``.
    quantile : float
        Level ``q`` in (0, 1).
    eps : array_like, shape (n_eps,)
        ``eps_sample`` of each release (one release per sample and eps), finite and > 0.
    lower, upper : float
        Public bounds.
    first_half : int, optional
        Half-width (in ranks) of the first window; default ``80 / min(eps)``, at which the
        unknown rest is negligible on smooth data.  Smaller values only cost more rounds
        (the tests use them to exercise every ring).
    source : SourceFactory, optional
        Where the samples come from, called once with ``sample_rng`` and every row
        (:func:`window_quantile_draws`); default simple random samples of ``sizes``.
    piecewise : bool, default False
        Draw the piecewise-Laplace quantile instead
        (:class:`core.mechanisms.PiecewiseLaplaceQuantile`): interval weights
        ``(z_{i+1} - z_i) e^{-eps |i - (k - 1/2)| / 2}`` (the same rings, centred on
        ``k - 1/2``), and inside the chosen interval the distance ``T (z_{i+1} - z_i)``
        from its end nearer ``y_(k)`` with ``T`` on ``[0, 1]`` of density
        ``∝ e^{-eps T / 2}`` (inverse CDF of the same uniform that places the uniform
        release).  Its piece law is that of :func:`piecewise_laplace_distribution
        <core.mechanisms.piecewise_laplace.piecewise_laplace_distribution>`, so the release
        has the mechanism's law on the whole sample, as for the exponential mechanism.

    Returns
    -------
    statistic : ndarray, shape (reps,)
        The order statistic of rank ``quantile_rank(n, q)`` of each sample.
    released : ndarray, shape (n_eps, reps)
    """
    lo, hi = check_bounds(lower, upper)
    q = sens.check_quantile(quantile)
    n = np.asarray(sizes, dtype=np.int64).reshape(-1)
    e = np.asarray(eps, dtype=np.float64).reshape(-1)
    if not e.size or not np.all(np.isfinite(e) & (e > 0)):
        raise ValueError("eps must be a non-empty list of finite numbers > 0")
    reps = n.size
    k = _ranks(n, q)
    windows = _open_source(source, sample_rng, sorted_values.size, n, np.arange(reps))
    runs = hasattr(windows, "window_runs")
    # A first half-width at which the rest weighs about e^-20 of the ring on smooth data.
    start = (
        int(min(80.0 / float(e.min()), 2.0**40)) + 1
        if first_half is None
        else check_whole("first_half", first_half, 0, 2**62)
    )
    half = np.minimum(np.full(reps, start, dtype=np.int64), n)
    # The ranks each round makes known: k ± half, then, on runs, half beyond what is known.
    low, high = k - half, k + half
    statistic = np.full(reps, np.nan)
    released = np.empty((e.size, reps))
    centre = np.asarray((k - 0.5) if piecewise else q * n, dtype=np.float64)
    states = [
        _ExpState(
            noise_rng.random(reps),
            float(eps_j),
            k,
            piecewise,
            np.zeros(reps, dtype=np.int64),
            np.full(reps, -1, dtype=np.int64),
            np.zeros(reps, dtype=np.int64),
            np.full(reps, -1, dtype=np.int64),
        )
        for eps_j in e
    ]
    todo = [np.arange(reps) for _ in e]
    while any(t.size for t in todo):
        need = np.unique(np.concatenate(todo))
        windows.ensure(low, high)
        view, blocks = run_view(windows, need, k[need], sorted_values)
        fresh = np.isnan(statistic[need])
        statistic[need[fresh]] = view.at(k[need])[fresh]
        row_of = np.full(reps, -1, dtype=np.int64)
        row_of[need] = np.arange(need.size)
        for j, eps_j in enumerate(e):
            if todo[j].size:
                r = row_of[todo[j]]
                log_rest = _log_rest_of_blocks(
                    view, n[need], float(eps_j), centre[need], lo, hi, blocks
                )[r]
                iv = _intervals(
                    view.rows(r), n[todo[j]], float(eps_j), centre[todo[j]], lo, hi, log_rest
                )
                todo[j] = _decide(states[j], todo[j], iv, noise_rng, released[j])
        if any(t.size for t in todo):
            pending = np.unique(np.concatenate(todo))
            half[pending] = np.minimum(np.maximum(half[pending] * 2, 1), n[pending])
            low[pending], high[pending] = next_window(
                view if runs else None, row_of[pending], k[pending], half[pending]
            )
    return statistic, released


def _decide(
    st: _ExpState, todo: IntArray, iv: _Intervals, rng: np.random.Generator, out: FloatArray
) -> IntArray:
    """One round of ring decisions for the samples ``todo``; returns the undecided ones."""
    rows = np.arange(todo.size)
    cols = iv.weights.shape[1]
    known_lo = iv.index[rows, iv.c_lo]
    known_hi = iv.index[rows, iv.c_hi]
    unset = st.ring_hi[todo] < st.ring_lo[todo]
    st.ring_lo[todo] = np.where(unset, known_lo, st.ring_lo[todo])
    st.ring_hi[todo] = np.where(unset, known_hi, st.ring_hi[todo])
    cum = np.concatenate((np.zeros((todo.size, 1)), np.cumsum(iv.weights, axis=1)), axis=1)

    def columns(a: IntArray, b: IntArray) -> tuple[IntArray, IntArray]:
        """Half-open column range of intervals ``a .. b`` (empty when ``b < a``)."""
        ca = (iv.index < a[:, None]).sum(axis=1)
        cb = (iv.index <= b[:, None]).sum(axis=1)
        return ca, np.maximum(ca, cb)

    ring_a, ring_b = columns(st.ring_lo[todo], st.ring_hi[todo])
    cut_a, cut_b = columns(st.cut_lo[todo], st.cut_hi[todo])
    excluded = cum[rows, cut_b] - cum[rows, cut_a]
    ring = cum[rows, ring_b] - cum[rows, ring_a] - excluded
    known_rest = cum[:, -1] - excluded  # W' if the unknown intervals weighed nothing
    u = st.u[todo]
    yes = u * (known_rest + iv.rest) < ring
    no = ~yes & (u * known_rest >= ring)
    if yes.any():
        y = np.flatnonzero(yes)
        w = iv.weights[y].copy()
        col = np.arange(cols)[None, :]
        w[(col < ring_a[y, None]) | (col >= ring_b[y, None])] = 0.0
        w[(col >= cut_a[y, None]) & (col < cut_b[y, None])] = 0.0
        c = np.cumsum(w, axis=1)
        target = rng.random(y.size) * c[:, -1]
        pick = np.minimum((c <= target[:, None]).sum(axis=1), cols - 1)
        left = iv.left[y, pick]
        right = iv.right[y, pick]
        v = rng.random(y.size)
        if st.piecewise:
            # Right of the statistic (interval i >= k) the piece leans to its left end.
            toward_left = iv.index[y, pick] >= st.rank[todo[y]]
            rate = st.eps / 2.0
            t = np.clip(np.log1p(v * np.expm1(-rate)) / (-rate), 0.0, 1.0)
            v = np.asarray(np.where(toward_left, t, 1.0 - t), dtype=np.float64)
        out[todo[y]] = np.clip(left + v * (right - left), left, right)
    if no.any():
        t = todo[no]
        st.cut_lo[t] = st.ring_lo[t]  # rings are nested: the excluded set is the old ring
        st.cut_hi[t] = st.ring_hi[t]
        st.ring_lo[t] = known_lo[no]
        st.ring_hi[t] = known_hi[no]
        st.u[t] = rng.random(t.size)
    return todo[~yes]
