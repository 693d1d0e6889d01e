"""Several quantiles at once: the joint exponential mechanism (Gillenwater, Joseph & Kulesza 2021).

:class:`JointExpQuantiles` releases ``m`` quantiles ``q_1 < ... < q_m`` of each sorted
sample of a batch with one exponential mechanism over non-decreasing output vectors
(JointExp, "Differentially Private Quantiles", ICML 2021, Section 3), drawn exactly by a
dynamic program over the ``n + 1`` intervals between consecutive order statistics.
:func:`joint_exp_cell_log_probability` gives the exact law of the release on one sample,
cell by cell, and :meth:`JointExpQuantiles.rmse` the per-quantile error from draws.

Sampling cost: ``O(m^2 n)`` per sample for the forward pass (the paper's FFT product is
replaced by an exact linear-time recursion, see :func:`_move_in`) and ``O(m n)`` per draw.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from numpy.typing import ArrayLike
from scipy import special

from .. import sensitivity as sens
from .._validation import (
    as_float_array,
    check_bounds,
    check_delta_open,
    check_eps,
    check_rng,
    check_vector,
    check_whole,
    finite_scalar,
    require,
    values_in_bounds,
)
from ..mechanisms.base import (
    BudgetFactors,
    FloatArray,
    _check_batch,
    _check_eps_rows,
    relations_from_factors,
)
from ..mechanisms.exponential import _edges

__all__ = [
    "JointExpQuantiles",
    "QuantilesRelease",
    "joint_exp_cell_log_probability",
]

#: Largest change of the utility between neighbouring samples (one record changed, added
#: or removed); see the proof in :class:`JointExpQuantiles`.
UTILITY_SENSITIVITY = 2.0

#: Log-weights this far below the largest are dropped from a sum: ``e^-40 < 2^-57``, less
#: than the rounding of the sum itself.
_NEGLIGIBLE = -40.0


# ---------------------------------------------------------------------------------------
# Kernels (compiled by numba when it is installed; plain Python otherwise)
# ---------------------------------------------------------------------------------------


def _log_add(a: float, b: float) -> float:
    """``log(e^a + e^b)`` without overflow; ``-inf`` is the log of zero."""
    if a < b:
        a, b = b, a
    if b == -math.inf or b - a < _NEGLIGIBLE:
        return a
    return a + math.log1p(math.exp(b - a))


def _move_in(total: FloatArray, c: float, t: float, out: FloatArray, scratch: FloatArray) -> None:
    """``out[i] = log sum_{d >= 1} exp(-c |d - t|) exp(total[i - d])`` for every ``i``, in O(n).

    The kernel ``exp(-c |d - t|)`` is a two-sided geometric sequence, so the product by the
    lower-triangular Toeplitz matrix needs no FFT.  With ``D = max(1, ceil(t))`` and
    ``L = D - 1``:

    * the terms ``d >= D`` weigh ``exp(-c (d - t))``; their sum ``P_i`` obeys
      ``P_i = e^{-c} P_{i-1} + e^{-c (D - t)} S_{i-D}``;
    * the terms ``1 <= d <= L`` weigh ``exp(-c (t - d))`` over a sliding window of ``L``
      sources.  The sources are cut into blocks of ``L``; within a block a running sum from
      its start (``pre``, the sum so far multiplied by ``e^{c}`` at each step: the weight
      grows with the distance ``d``) and one from its end (``suf``, multiplied by
      ``e^{-c}``) are kept, and every window is one suffix plus one prefix, each scaled once.

    Every step adds non-negative terms in log space (no subtraction), so the result keeps
    full relative precision whatever ``c`` is.  ``scratch`` has shape ``(2, n + 1)``.
    """
    n1 = total.size
    big = max(1, math.ceil(t))
    acc = -math.inf
    for i in range(n1):
        if i >= big:
            acc = _log_add(acc - c, total[i - big] - c * (big - t))
        out[i] = acc
    width = big - 1
    if width == 0:
        return
    pre = scratch[0]
    suf = scratch[1]
    for p in range(n1):
        if p % width == 0:
            pre[p] = total[p]
        else:
            pre[p] = _log_add(pre[p - 1] + c, total[p])
    for s in range(n1 - 1, -1, -1):
        if s % width == width - 1 or s == n1 - 1:
            suf[s] = total[s]
        else:
            suf[s] = _log_add(suf[s + 1] - c, total[s])
    for i in range(1, n1):
        lo = i - width
        if lo < 0:
            window = pre[i - 1] - c * (t - 1.0)
        elif lo % width == 0:
            window = suf[lo] - c * (t - width)
        else:
            window = _log_add(suf[lo] - c * (t - width), pre[i - 1] - c * (t - 1.0))
        out[i] = _log_add(out[i], window)


def _run_total(
    log_first: FloatArray, stay: FloatArray, lw: float, j: int, i: int, terms: FloatArray
) -> float:
    """``log sum_k A_j[i, k]`` over the run lengths ``k = 1..j+1`` (terms kept in ``terms``).

    ``A_j[i, k] = A_{j-k+1}[i, 1] w_i^{k-1} e^{stay[j, k-1]}``: the last ``k`` outputs share
    interval ``i``.
    """
    top = -math.inf
    for k in range(1, j + 2):
        v = log_first[j - k + 1, i] + stay[j, k - 1] + ((k - 1) * lw if k > 1 else 0.0)
        terms[k - 1] = v
        top = max(top, v)
    if top == -math.inf:
        return top
    s = 0.0
    for k in range(j + 1):
        if terms[k] - top >= _NEGLIGIBLE:
            s += math.exp(terms[k] - top)
    return top + math.log(s)


def _forward_kernel(
    log_width: FloatArray,
    c: float,
    targets: FloatArray,
    stay: FloatArray,
    log_first: FloatArray,
    log_total: FloatArray,
) -> float:
    """Fill the forward tables of one sample and return the log normaliser ``log Z``.

    ``log_first[j, i]`` is the log total weight of the first ``j + 1`` outputs with output
    ``j`` alone so far in interval ``i``; ``log_total[j, i]`` the same summed over every run
    length.  The weight of a cell sequence is ``prod_j exp(-c |i_j - i_{j-1} - t_j|)`` times
    the volume ``prod w_i^{k_i} / k_i!`` of the ordered outputs it holds.
    """
    m, n1 = log_first.shape
    n = n1 - 1
    scratch = np.empty((2, n1))
    terms = np.empty(m)
    for i in range(n1):
        log_first[0, i] = log_width[i] - c * abs(i - targets[0])
        log_total[0, i] = log_first[0, i]
    for j in range(1, m):
        _move_in(log_total[j - 1], c, targets[j], log_first[j], scratch)
        for i in range(n1):
            lw = log_width[i]
            if lw == -math.inf:
                log_first[j, i] = -math.inf
                log_total[j, i] = -math.inf
            else:
                log_first[j, i] += lw
                log_total[j, i] = _run_total(log_first, stay, lw, j, i, terms)
    top = -math.inf
    for i in range(n1):
        top = max(top, log_total[m - 1, i] - c * abs(n - i - targets[m]))
    s = 0.0
    for i in range(n1):
        s += math.exp(log_total[m - 1, i] - c * abs(n - i - targets[m]) - top)
    return top + math.log(s)


def _pick(log_w: FloatArray, count: int, u: float) -> int:
    """Index below ``count`` drawn with probability proportional to ``exp(log_w)`` (inverse CDF).

    ``log_w[:count]`` is overwritten by the weights relative to the largest.
    """
    top = -math.inf
    for i in range(count):
        top = max(top, log_w[i])
    total = 0.0
    for i in range(count):
        w = math.exp(log_w[i] - top) if log_w[i] - top >= _NEGLIGIBLE else 0.0
        log_w[i] = w
        total += w
    target = u * total
    acc = 0.0
    last = -1
    for i in range(count):
        w = log_w[i]
        if w > 0.0:
            last = i
            acc += w
            if acc >= target:
                return i
    return last


def _draw_kernel(
    edges: FloatArray,
    log_width: FloatArray,
    c: float,
    targets: FloatArray,
    stay: FloatArray,
    log_first: FloatArray,
    log_total: FloatArray,
    uniforms: FloatArray,
    out: FloatArray,
) -> None:
    """Draw ``out.shape[0]`` releases from the forward tables, last output first.

    Each draw picks the interval of the last unassigned output ``j`` with weight
    ``S_j[i] exp(-c |b - i - t_{j+1}|)`` (``b`` the interval above, or ``n`` at the top),
    then how many outputs end there (run length ``k``, weight ``A_j[i, k]``), places those
    ``k`` outputs uniformly in the interval and sorts them.  ``uniforms`` has shape
    ``(draws, 3 m)``: two per step, then one per output.
    """
    m, n1 = log_first.shape
    n = n1 - 1
    log_w = np.empty(n1)
    terms = np.empty(m)
    for r in range(out.shape[0]):
        j = m - 1
        limit = n1
        above = n
        step = 0
        while j >= 0:
            for i in range(limit):
                log_w[i] = log_total[j, i] - c * abs(above - i - targets[j + 1])
            i = _pick(log_w, limit, uniforms[r, 2 * step])
            _run_total(log_first, stay, log_width[i], j, i, terms)
            k = _pick(terms, j + 1, uniforms[r, 2 * step + 1]) + 1
            left = edges[i]
            right = edges[i + 1]
            for a in range(j - k + 1, j + 1):
                v = left + uniforms[r, 2 * m + a] * (right - left)
                out[r, a] = min(max(v, left), right)
            j -= k
            limit = i
            above = i
            step += 1
        out[r, :] = np.sort(out[r, :])


# The helpers are rebound to their compiled versions, which the kernels then call; the
# plain ``_forward_kernel`` and ``_draw_kernel`` stay importable for the tests.
_log_add = sens._njit(_log_add)
_move_in = sens._njit(_move_in)
_run_total = sens._njit(_run_total)
_pick = sens._njit(_pick)
_forward = sens._njit(_forward_kernel)
_draw = sens._njit(_draw_kernel)


# ---------------------------------------------------------------------------------------
# Python side
# ---------------------------------------------------------------------------------------


def _check_quantiles(quantiles: ArrayLike) -> FloatArray:
    """Quantile levels: a non-empty, strictly increasing list inside (0, 1)."""
    q = check_vector("quantiles", np.atleast_1d(as_float_array("quantiles", quantiles)))
    require("quantiles", q, np.isfinite(q) & (q > 0) & (q < 1), "inside the interval (0, 1)")
    if q.size > 1 and not bool(np.all(np.diff(q) > 0)):
        raise ValueError(f"quantiles must be strictly increasing; got {q.tolist()!r}")
    return q


def _targets(n: int, quantiles: FloatArray) -> FloatArray:
    """Target counts ``t_j = n (q_j - q_{j-1})`` of the ``m + 1`` gaps, at index ``j - 1``.

    ``q_0 = 0`` and ``q_{m+1} = 1``.
    """
    return n * np.diff(np.concatenate([[0.0], quantiles, [1.0]]))


def _stay_table(c: float, targets: FloatArray, m: int) -> FloatArray:
    """``stay[j, k-1] = -c (g_{j-k+2} + ... + g_j) - log k!``: outputs ``j-k+1..j`` share a cell.

    Outputs are counted from 0 here and ``g_l = targets[l]`` is the target of the gap just
    below output ``l``.  Two outputs in one interval are ``0`` records apart, so each of the
    ``k - 1`` later ones pays ``c g_l``; ``1 / k!`` is the share of ``w^k`` taken by ordered
    outputs.
    """
    stay = np.full((m, m), -np.inf)
    gaps = targets[:m]
    for j in range(m):
        k = np.arange(1, j + 2)
        shared = np.array([gaps[j - kk + 2 : j + 1].sum() for kk in k])
        stay[j, : j + 1] = -c * shared - special.gammaln(k + 1.0)
    return stay


@dataclass(frozen=True)
class _Tables:
    """The forward tables of one sample at one budget."""

    edges: FloatArray
    log_width: FloatArray
    c: float
    targets: FloatArray
    stay: FloatArray
    log_first: FloatArray
    log_total: FloatArray
    log_normaliser: float


def _tables(row: FloatArray, eps: float, lower: float, upper: float, q: FloatArray) -> _Tables:
    """Forward pass for one checked sorted sample at ``c = eps / (2 Delta)``, ``Delta = 2``."""
    n, m = row.size, q.size
    edges = _edges(row[np.newaxis, :], lower, upper)[0]
    width = np.diff(edges)
    with np.errstate(divide="ignore"):
        log_width = np.log(width)
    c = eps / (2.0 * UTILITY_SENSITIVITY)
    targets = _targets(n, q)
    stay = _stay_table(c, targets, m)
    log_first = np.empty((m, n + 1))
    log_total = np.empty((m, n + 1))
    log_z = _forward(log_width, c, targets, stay, log_first, log_total)
    return _Tables(edges, log_width, c, targets, stay, log_first, log_total, float(log_z))


def _rows(samples: ArrayLike | Sequence[ArrayLike], lower: float, upper: float) -> list[FloatArray]:
    """The samples as a list of sorted rows: a 2-d array, or a list of 1-d samples.

    A list may hold samples of different sizes, empty ones included (a random-size design
    can draw no record); every row is checked as :meth:`Mechanism.release` checks a batch.
    """
    if isinstance(samples, np.ndarray):
        return list(_check_batch(samples, lower, upper))
    if not isinstance(samples, Sequence) or isinstance(samples, str | bytes) or not samples:
        raise ValueError(
            "samples must be a 2-d array (one sorted sample per row) or a non-empty list "
            f"of sorted samples; got {type(samples).__name__}"
        )
    rows = []
    for index, sample in enumerate(samples):
        try:
            row = np.asarray(sample, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"samples[{index}] must be a list of numbers") from exc
        if row.ndim != 1:
            raise ValueError(f"samples[{index}] must be one-dimensional; got shape {row.shape}")
        rows.append(row if row.size == 0 else _check_batch(row[np.newaxis, :], lower, upper)[0])
    return rows


def _order_statistics(row: FloatArray, quantiles: FloatArray) -> FloatArray:
    """``y_(k_j)`` with ``k_j = ceil(q_j n)`` (NaN for an empty sample)."""
    if row.size == 0:
        return np.full(quantiles.size, np.nan)
    ranks = np.array([sens.quantile_rank(row.size, q) for q in quantiles])
    return np.asarray(row[ranks - 1], dtype=np.float64)


@dataclass(frozen=True, eq=False)
class QuantilesRelease:
    """What :meth:`JointExpQuantiles.release` returns for a batch of ``reps`` samples.

    Attributes
    ----------
    released : ndarray, shape (reps, m)
        The released quantiles of each sample, non-decreasing along a row.
    statistic : ndarray, shape (reps, m)
        The order statistics ``y_(k_j)``, ``k_j = ceil(q_j n)``, of each sample (NaN for an
        empty one): the values the release estimates.
    quantiles : ndarray, shape (m,)
        The levels ``q_1 < ... < q_m``.
    """

    released: FloatArray
    statistic: FloatArray
    quantiles: FloatArray


class JointExpQuantiles:
    """``m`` quantiles released jointly by one exponential mechanism (JointExp).

    Gillenwater, Joseph & Kulesza, "Differentially Private Quantiles", ICML 2021, Section 3.
    Pad the sorted sample with ``z_0 = lower`` and ``z_{n+1} = upper``; interval
    ``i = [z_i, z_{i+1}]`` (``i = 0..n``, width ``w_i``) has ``i`` records at or below its
    left end.  For levels ``q_1 < ... < q_m`` (``q_0 = 0``, ``q_{m+1} = 1``) the output
    ``o_1 <= ... <= o_m`` in ``[lower, upper]^m`` has the density proportional to
    ``exp(eps u(x, o) / (2 Delta))`` with ``Delta = 2`` and the utility

        ``u(x, o) = - sum_{j=1}^{m+1} | #{x_r in (o_{j-1}, o_j]} - n (q_j - q_{j-1}) |``

    (``o_0 = lower`` with the records at ``lower`` counted in the first gap, ``o_{m+1} =
    upper``).  If ``o_j`` lies in interval ``i_j`` the count of gap ``j`` is
    ``i_j - i_{j-1}`` (``i_0 = 0``, ``i_{m+1} = n``), so the density is constant on each cell
    ``I_{i_1} x ... x I_{i_m}`` (``i_1 <= ... <= i_m``) intersected with the ordered outputs,
    whose volume is ``prod_i w_i^{k_i} / k_i!`` (``k_i`` outputs in interval ``i``).  The
    release draws a cell with probability ``exp(-c sum_j |i_j - i_{j-1} - t_j|)`` times
    that volume over ``Z`` (``c = eps / 4``, ``t_j = n (q_j - q_{j-1})``), by a forward
    dynamic program over (output, interval, run length) and a backward draw, then ordered
    uniform points inside it.  Intervals of width 0 (ties, records at a bound) have volume 0
    and are never drawn.  For ``m = 1`` the utility is ``-2 |i - q n|`` and the law is that of
    :class:`core.mechanisms.ExponentialQuantile`.

    Privacy: pure ``eps_sample``-DP for a changed record and for an added or removed one.
    The exponential mechanism with weights ``exp(eps u / (2 Delta))`` over a base measure
    that does not depend on the data (Lebesgue measure on ordered vectors of
    ``[lower, upper]^m``) is ``eps``-DP when ``|u(x, o) - u(x', o)| <= Delta`` for every
    output ``o`` and neighbours ``x, x'``: the numerator moves by ``e^{eps/2}`` at most and
    the normaliser too.  Fix ``o`` and write ``g_j`` for the count of gap ``j``:

    * one record changed (``n`` fixed, targets fixed): the old value leaves one gap and the
      new one joins one gap, so at most two ``g_j`` move, each by 1, and ``|u|`` moves by at
      most ``2``;
    * one record added (removal is the same pair read backwards): the gap ``a`` receiving it
      has ``g_a + 1`` against the target ``t_a + (q_a - q_{a-1})``, so its term moves by at
      most ``1 - (q_a - q_{a-1})``; every other target moves by ``q_j - q_{j-1}`` and its
      count not at all, so those terms move by at most ``sum_{j != a} (q_j - q_{j-1}) =
      1 - (q_a - q_{a-1})``.  Together ``2 (1 - min_j (q_j - q_{j-1})) < 2``.

    Hence ``Delta = 2`` covers both relations (:data:`UTILITY_SENSITIVITY`).  An empty
    sample (``n = 0``) has the utility ``0`` everywhere (the uniform law on ordered
    vectors), and the add/remove bound covers it.  ``delta_sample`` is ignored.

    For an added or removed record the utility moves by at most ``2 (1 - d)`` with
    ``d = min_j (q_j - q_{j-1})`` (``j = 1 .. m + 1``), so the numerator and the normaliser
    each move by at most ``e^{eps 2 (1 - d) / (2 Delta)} = e^{eps (1 - d) / 2}`` and the
    release is ``(1 - d) eps``-DP: ``max(q, 1 - q) eps`` for ``m = 1``, as for
    :class:`core.mechanisms.ExponentialQuantile`, and ``0.9 eps`` for the nine deciles.

    Budgets: ``change_factor = 1``; the class attribute ``add_remove_factor = 1`` holds for
    every list of levels, and :meth:`budget_factors` gives the levels' own, ``1 - d``, which
    the accounting uses.  Group privacy leaves the change budget at
    ``min(1, 2 (1 - d)) = 1`` (``d <= 1/2``).

    Not a :class:`core.mechanisms.Mechanism`: it releases ``m`` values per sample, not one.
    It states the same budget attributes, and :meth:`budget_factors` gives the accounting
    what :meth:`core.mechanisms.Mechanism.budget_factors` gives for one level.

    Parameters
    ----------
    quantiles : array_like, shape (m,)
        The levels, strictly increasing inside (0, 1) (e.g. the nine deciles).

    Raises
    ------
    ValueError
        For an empty, unsorted or repeated list, or a level outside (0, 1).
    """

    name: ClassVar[str] = "joint_exp"
    label: ClassVar[str] = "several quantiles at once, joint exponential mechanism"
    pure: ClassVar[bool] = True
    uses_delta: ClassVar[bool] = False
    add_remove_factor: ClassVar[float | None] = 1.0
    change_factor: ClassVar[float | None] = 1.0
    relations: ClassVar[frozenset[str]] = relations_from_factors(1.0, 1.0)

    def __init__(self, quantiles: ArrayLike) -> None:
        self.quantiles: FloatArray = _check_quantiles(quantiles)

    def budget_factors(self) -> BudgetFactors:
        """``add_remove = 1 - min_j (q_j - q_{j-1})`` (``q_0 = 0``, ``q_{m+1} = 1``) and
        ``change = 1`` for these levels (class docstring)."""
        gaps = np.diff(np.concatenate([[0.0], self.quantiles, [1.0]]))
        return BudgetFactors(self.name, float(1.0 - gaps.min()), self.change_factor)

    def release_draws(
        self,
        samples: ArrayLike | Sequence[ArrayLike],
        eps_sample: float | ArrayLike,
        delta_sample: float,
        lower: float,
        upper: float,
        rng: np.random.Generator,
        draws: int,
    ) -> tuple[FloatArray, FloatArray]:
        """Release every sample ``draws`` times; the forward tables are built once per sample.

        Parameters as for :meth:`release`, and ``draws``, the releases per sample (``>= 1``).

        Returns
        -------
        released : ndarray, shape (reps, draws, m)
            Independent releases, each non-decreasing along its last axis.
        statistic : ndarray, shape (reps, m)
            The order statistics ``y_(k_j)`` of each sample (NaN for an empty one).

        Raises
        ------
        ValueError
            As :meth:`release`, and for ``draws`` not a whole number >= 1.
        """
        count = check_whole("draws", draws, 1, 10**9)
        lo, hi = check_bounds(lower, upper)
        rows = _rows(samples, lo, hi)
        eps = _check_eps_rows(eps_sample, len(rows))
        check_delta_open("delta_sample", delta_sample)
        check_rng(rng)
        m = self.quantiles.size
        out = np.empty((len(rows), count, m))
        for r, row in enumerate(rows):
            tab = _tables(row, float(eps[r]), lo, hi, self.quantiles)
            uniforms = rng.random((count, 3 * m))
            uniforms[:, : 2 * m] = 1.0 - uniforms[:, : 2 * m]  # (0, 1]: a zero never picks
            _draw(
                tab.edges, tab.log_width, tab.c, tab.targets, tab.stay,
                tab.log_first, tab.log_total, uniforms, out[r],
            )  # fmt: skip
        stats = np.array([_order_statistics(row, self.quantiles) for row in rows])
        return out, stats.reshape(len(rows), m)

    def release(
        self,
        samples: ArrayLike | Sequence[ArrayLike],
        eps_sample: float | ArrayLike,
        delta_sample: float,
        lower: float,
        upper: float,
        rng: np.random.Generator,
    ) -> QuantilesRelease:
        """Release the ``m`` quantiles of every sample, jointly (see the class docstring).

        Parameters
        ----------
        samples : array_like, shape (reps, n), or a list of 1-d array_like
            One sample per row, sorted ascending, inside ``[lower, upper]`` (checked); a
            list may hold samples of different sizes, empty ones included.
        eps_sample : float or array_like, shape (reps,)
            Budget spent on each sample, finite and > 0 (the whole vector costs it once).
        delta_sample : float
            In (0, 1); ignored (pure DP), accepted like :meth:`Mechanism.release`.
        lower, upper : float
            Public bounds, ``lower < upper``.
        rng : numpy.random.Generator
            Source of randomness (``3 m`` uniforms per sample).

        Returns
        -------
        QuantilesRelease
            Released vectors ``(reps, m)`` and the order statistics they estimate.

        Raises
        ------
        ValueError
            For malformed samples, bounds, budget or delta.
        """
        out, stats = self.release_draws(samples, eps_sample, delta_sample, lower, upper, rng, 1)
        return QuantilesRelease(out[:, 0, :], stats, self.quantiles.copy())

    def rmse(
        self,
        samples: ArrayLike | Sequence[ArrayLike],
        eps_sample: float | ArrayLike,
        delta_sample: float,
        lower: float,
        upper: float,
        rng: np.random.Generator,
        draws: int = 100,
        centre: ArrayLike | None = None,
    ) -> FloatArray:
        """Per-quantile root mean squared error from ``draws`` releases of every sample.

        ``RMSE_j = sqrt(mean over samples r and draws d of (o_{r,d,j} - c_{r,j})^2)``; the
        forward tables of a sample are built once for all its draws.

        Parameters
        ----------
        samples, eps_sample, delta_sample, lower, upper, rng
            As for :meth:`release`.
        draws : int, default 100
            Releases per sample, ``>= 1``.
        centre : array_like, shape (m,) or (reps, m), optional
            The values the errors are measured from (e.g. the population quantiles); by
            default each sample's own order statistics ``y_(k_j)``.

        Returns
        -------
        ndarray, shape (m,)
            One RMSE per quantile level.

        Raises
        ------
        ValueError
            As :meth:`release`; for ``draws`` not a whole number >= 1, a ``centre`` of the
            wrong shape or not finite, or no centre given with an empty sample.
        """
        out, stats = self.release_draws(samples, eps_sample, delta_sample, lower, upper, rng, draws)
        if centre is None:
            if np.isnan(stats).any():
                raise ValueError("centre must be given when a sample is empty")
            ref = stats
        else:
            given = np.asarray(centre, dtype=np.float64)
            if given.shape not in {(self.quantiles.size,), stats.shape}:
                raise ValueError(
                    f"centre must have shape ({self.quantiles.size},) or {stats.shape}; "
                    f"got {given.shape}"
                )
            ref = np.broadcast_to(
                require("centre", given, np.isfinite(given), "finite"), stats.shape
            )
        errors = out - ref[:, np.newaxis, :]
        return np.asarray(np.sqrt(np.mean(errors**2, axis=(0, 1))), dtype=np.float64)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(quantiles={self.quantiles.tolist()!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, JointExpQuantiles) and np.array_equal(
            self.quantiles, other.quantiles
        )

    def __hash__(self) -> int:
        return hash((type(self).__name__, tuple(self.quantiles.tolist())))


def joint_exp_cell_log_probability(
    sorted_values: ArrayLike,
    cells: ArrayLike,
    eps_sample: float,
    lower: float,
    upper: float,
    quantiles: ArrayLike,
) -> FloatArray:
    """Exact log-probability that :class:`JointExpQuantiles` puts its output in given cells.

    With ``z_0 = lower``, ``z_i = x_(i)``, ``z_{n+1} = upper`` and ``w_i = z_{i+1} - z_i``, the
    cell ``(i_1, ..., i_m)`` (``i_1 <= ... <= i_m``, output ``j`` in ``[z_{i_j}, z_{i_j+1}]``)
    has probability

        ``exp(-(eps/4) sum_{j=1}^{m+1} |i_j - i_{j-1} - n (q_j - q_{j-1})|)
        prod_i w_i^{k_i} / k_i!  /  Z``

    (``i_0 = 0``, ``i_{m+1} = n``, ``k_i`` outputs in interval ``i``); ``Z`` comes from the
    forward dynamic program, so summing this over every cell checks it.  Inside a cell the
    output is uniform on the ordered vectors (Gillenwater, Joseph & Kulesza 2021, Section 3).

    Parameters
    ----------
    sorted_values : array_like, shape (n,)
        The sample inside ``[lower, upper]`` (sorted here if it is not; may be empty).
    cells : array_like of int, shape (K, m)
        Interval indices in ``[0, n]``, non-decreasing along a row.
    eps_sample : float
        Budget, finite and > 0.
    lower, upper : float
        Public bounds, ``lower < upper``.
    quantiles : array_like, shape (m,)
        Levels, strictly increasing inside (0, 1).

    Returns
    -------
    ndarray, shape (K,)
        ``log P(cell)``; ``-inf`` for a cell with a zero-width interval.

    Raises
    ------
    ValueError
        For bad values, bounds, budget or levels, or cells of the wrong shape, outside
        ``[0, n]`` or decreasing.
    """
    lo, hi = check_bounds(lower, upper)
    raw = np.asarray(sorted_values, dtype=np.float64)
    values = raw.reshape(0) if raw.size == 0 else values_in_bounds(raw, lo, hi)
    eps = float(check_eps("eps_sample", finite_scalar("eps_sample", eps_sample)))
    q = _check_quantiles(quantiles)
    n, m = values.size, q.size
    idx = np.asarray(cells)
    if idx.ndim != 2 or idx.shape[1] != m or not np.issubdtype(idx.dtype, np.integer):
        raise ValueError(f"cells must be integers of shape (K, {m}); got {idx.dtype} {idx.shape}")
    if idx.size and (idx.min() < 0 or idx.max() > n or (np.diff(idx, axis=1) < 0).any()):
        raise ValueError(f"cells must be non-decreasing interval indices in [0, {n}]")
    tab = _tables(values, eps, lo, hi, q)
    bounded = np.concatenate(
        [np.zeros((idx.shape[0], 1), dtype=np.int64), idx, np.full((idx.shape[0], 1), n)], axis=1
    )
    penalty = tab.c * np.abs(np.diff(bounded, axis=1) - tab.targets).sum(axis=1)
    position = np.ones(idx.shape, dtype=np.float64)  # 1-based place of each output in its run
    for j in range(1, m):
        position[:, j] = np.where(idx[:, j] == idx[:, j - 1], position[:, j - 1] + 1.0, 1.0)
    log_volume = tab.log_width[idx].sum(axis=1) - np.log(position).sum(axis=1)
    return np.asarray(log_volume - penalty - tab.log_normaliser, dtype=np.float64)
