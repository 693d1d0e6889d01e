"""The smooth sensitivity of an order statistic: one sample, a batch of samples (one ``beta``
or one per row) and a window of order statistics (Hu, Drechsler & Kim, equation (4))."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._checked import checked_extra, is_checked
from .._validation import (
    FloatArray,
    check_bounds,
    check_vector,
    describe_bad,
    finite_scalar,
)
from ..sensitivity.checks import HAVE_NUMBA, _check_data
from ..sensitivity.kernels import (
    _batch_core,
    _smooth_core,
    _smooth_numpy,
    _window_core,
)
from ..sensitivity.local import check_quantile, quantile_rank, smooth_beta
from ..sensitivity.run_kernels import _runs_whole
from ..threads import by_rows


def smooth_sensitivity_quantile(
    values: ArrayLike,
    eps: float,
    delta: float,
    lower: float,
    upper: float,
    *,
    quantile: float = 0.5,
    assume_sorted: bool = False,
) -> float:
    """Smooth sensitivity of a quantile's order statistic: eq. (4) of Hu et al. at rank ``k``.

    ``S = max_{j=0..n} exp(-j beta) max_{t=0..j+1} (y_(k+t) - y_(k+t-j-1))`` with
    ``y_(r) = lower`` for ``r <= 0``, ``y_(r) = upper`` for ``r >= n+1``,
    ``k`` = :func:`quantile_rank` ``(n, quantile)`` and ``beta`` = :func:`smooth_beta`.
    Hu et al. (Section 2.2, eq. 4) state it for the median's rank; the argument of Nissim,
    Raskhodnikova & Smith (2007, Section 3.1) never uses that the rank is central, so the
    same formula with the median's rank replaced by ``k`` is the smooth sensitivity of the
    order statistic ``y_(k)``.  Adding ``Laplace(0, 2 S / eps)`` to ``y_(k)`` gives
    (eps, delta)-DP for one record changed.

    Exact: divide and conquer over monotone optimal partners (module docstring; the proof
    holds for any rank), equal to the O(n^2) definition up to rounding (~1e-13 relative).
    About 0.02-0.3 ms at n = 10,001 once compiled, for any quantile.

    Parameters
    ----------
    values : array_like
        One-dimensional data, finite and inside ``[lower, upper]``.
    eps : float
        Privacy-loss parameter of the release, > 0.
    delta : float
        In (0, 1).
    lower, upper : float
        Public bounds of the data, ``lower < upper``.
    quantile : float, default 0.5
        In (0, 1); 0.5 gives :func:`smooth_sensitivity_median`.
    assume_sorted : bool, optional
        The values are already sorted in non-decreasing order (checked, not re-sorted).

    Returns
    -------
    float
        ``S``, with ``local_sensitivity_quantile <= S <= upper - lower``.

    Raises
    ------
    ValueError
        Empty or non-finite data, data outside the bounds, unsorted data with
        ``assume_sorted=True``, ``lower >= upper``, ``eps <= 0``, ``delta`` not in (0, 1)
        or ``quantile`` not in (0, 1).
    """
    beta = smooth_beta(eps, delta)
    q = check_quantile(quantile)
    lo, hi = check_bounds(lower, upper)
    arr = check_vector("values", values)
    # C-contiguous and writeable: one compiled specialisation serves every call.
    y = np.require(arr if assume_sorted else np.sort(arr), np.float64, ["C", "W"])
    _check_data(y, lo, hi, sorted_=assume_sorted, name="values", report=arr)
    k = quantile_rank(y.size, q)
    if not HAVE_NUMBA:  # pragma: no cover
        return _smooth_numpy(y, lo, hi, beta, k)
    w = np.empty(y.size + 2)
    return float(_smooth_core(y, lo, hi, beta, w, k))


def smooth_sensitivity_median(
    values: ArrayLike,
    eps: float,
    delta: float,
    lower: float,
    upper: float,
    *,
    assume_sorted: bool = False,
) -> float:
    """Smooth sensitivity of the median, equation (4) of Hu et al. (Section 2.2, 4.3).

    ``S = max_{k=0..n} exp(-k beta) max_{t=0..k+1} (y_(m+t) - y_(m+t-k-1))`` with
    ``y_(0) = lower``, ``y_(n+1) = upper``, ``m`` = :func:`median_rank` and
    ``beta`` = :func:`smooth_beta` (Nissim, Raskhodnikova & Smith 2007).  Adding
    ``Laplace(0, 2 S / eps)`` to the median ``y_(m)`` gives (eps, delta)-DP.

    :func:`smooth_sensitivity_quantile` at ``quantile = 0.5`` (``quantile_rank(n, 0.5) =
    median_rank(n)``); parameters, result and errors as there.
    """
    return smooth_sensitivity_quantile(
        values, eps, delta, lower, upper, quantile=0.5, assume_sorted=assume_sorted
    )


def _check_batch_samples(samples_sorted: ArrayLike, lo: float, hi: float) -> FloatArray:
    """A C-contiguous, writeable 2-d float array of sorted rows inside the bounds."""
    try:
        samples = np.asarray(samples_sorted, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError("samples_sorted must be a 2-D array of numbers") from exc
    if samples.ndim != 2:
        raise ValueError(
            f"samples_sorted must be 2-D (reps x n); got {samples.ndim}-D shape {samples.shape}"
        )
    if samples.shape[1] == 0:
        raise ValueError("samples_sorted has rows of length 0: each sample needs a value")
    if is_checked(samples, lo, hi):  # the population, checked once: no writeable copy
        return samples
    return np.require(samples, np.float64, ["C", "W"])


def _batch_at_betas(
    samples: FloatArray, betas: FloatArray, lo: float, hi: float, k: int
) -> FloatArray:
    """Smooth sensitivity of rank ``k`` of every (checked) row at its own ``beta``."""
    _check_data(samples, lo, hi, sorted_=True, name="samples_sorted")
    reps = samples.shape[0]
    out = np.empty(reps)
    if reps == 0:
        return out
    if not HAVE_NUMBA:  # pragma: no cover
        for r in range(reps):
            out[r] = _smooth_numpy(samples[r], lo, hi, float(betas[r]), k)
        return out
    b = np.ascontiguousarray(betas, dtype=np.float64)
    if samples.shape[1] >= RUNS_FROM:
        # Long rows (a census of a register) with heavy ties: one pair per pair of runs.
        rest = [r for r in range(reps) if not _by_runs(samples[r], lo, hi, float(b[r]), k, out, r)]
        if not rest:
            return out
        samples = np.require(samples, np.float64, ["C", "W"])  # the kernels' array type
        if len(rest) < reps:
            for r in rest:
                _batch_core(samples[r : r + 1], lo, hi, b[r : r + 1], k, out[r : r + 1])
            return out
    samples = np.require(samples, np.float64, ["C", "W"])

    def rows(a: int, z: int) -> None:
        _batch_core(samples[a:z], lo, hi, b[a:z], k, out[a:z])

    by_rows(rows, reps, samples.size)
    return out


#: Rows at least this long are checked for ties before the record-by-record kernel.
RUNS_FROM = 1 << 16
#: A row is computed on its runs when it has at most 1 / RUNS_RATIO as many runs as records.
RUNS_RATIO = 8


def _by_runs(
    row: FloatArray, lo: float, hi: float, beta: float, k: int, out: FloatArray, r: int
) -> bool:
    """``out[r]`` = the smooth sensitivity of rank ``k`` of the sorted ``row`` computed on its
    runs of equal values (:func:`core.sensitivity.run_kernels._runs_whole`, the same maximum
    as :func:`_batch_core`'s, one pair per pair of runs); False, and nothing written, when
    the row has too few ties for that to pay."""
    n = row.size
    runs = checked_extra(row, "smooth_runs", lambda: _runs_of(row))
    if runs is None:
        return False
    value, first, last = runs
    out[r] = _runs_whole(value, first, last, n, k, beta, lo, hi)
    return True


def _runs_of(row: FloatArray) -> tuple[FloatArray, NDArray[np.int64], NDArray[np.int64]] | None:
    """``(value, first rank, last rank)`` of each run of equal values of the sorted ``row``
    (ranks from 1), or None when the row has too few ties for runs to pay."""
    n = row.size
    change = row[1:] != row[:-1]
    if np.count_nonzero(change) + 1 > n // RUNS_RATIO:
        return None
    ends = np.flatnonzero(change)
    last = np.append(ends + 1, n).astype(np.int64)
    first = np.concatenate(([1], ends + 2)).astype(np.int64)
    return np.ascontiguousarray(row[last - 1]), first, last


def smooth_sensitivity_quantile_batch(
    samples_sorted: ArrayLike,
    eps: float | ArrayLike,
    delta: float | ArrayLike,
    lower: float,
    upper: float,
    *,
    quantile: float = 0.5,
) -> FloatArray:
    """Smooth sensitivity of a quantile (eq. 4 of Hu et al. at rank ``k``) for many samples.

    One compiled loop over the rows; no Python work per row.  Row ``r`` gets
    :func:`smooth_sensitivity_quantile` of that row at ``beta = smooth_beta(eps_r, delta_r)``.

    Parameters
    ----------
    samples_sorted : array_like, shape (reps, n)
        Each row one sample, sorted in non-decreasing order (checked), finite and inside
        ``[lower, upper]``.
    eps : float or array_like, shape (reps,)
        Privacy-loss parameter, one for all rows or one per row; > 0.
    delta : float or array_like, shape (reps,)
        In (0, 1), one for all rows or one per row.
    lower, upper : float
        Public bounds, ``lower < upper``.
    quantile : float, default 0.5
        In (0, 1); the rank is ``quantile_rank(n, quantile)``.

    Returns
    -------
    ndarray, shape (reps,)
        ``S`` of every row, equal to :func:`smooth_sensitivity_quantile` on that row.

    Raises
    ------
    ValueError
        As :func:`smooth_sensitivity_quantile`, and for ``eps`` or ``delta`` arrays whose
        length is not the number of rows.
    """
    lo, hi = check_bounds(lower, upper)
    q = check_quantile(quantile)
    samples = _check_batch_samples(samples_sorted, lo, hi)
    reps, n = samples.shape
    betas = _batch_betas(eps, delta, reps)
    return _batch_at_betas(samples, betas, lo, hi, quantile_rank(n, q))


def smooth_sensitivity_beta_batch(
    samples_sorted: ArrayLike,
    beta: float | ArrayLike,
    lower: float,
    upper: float,
    *,
    quantile: float = 0.5,
) -> FloatArray:
    """The ``beta``-smooth sensitivity of a quantile for many samples, ``beta`` given directly.

    The same maximum as :func:`smooth_sensitivity_quantile_batch`,
    ``max_j exp(-j beta) A^(j)``, for calibrations whose ``beta`` is not
    ``eps / (2 ln(2 / delta))`` -- e.g. ``beta = eps / gamma`` for the pure-DP heavy-tailed
    noise of Nissim, Raskhodnikova & Smith (2007, Lemma 2.10).

    Parameters
    ----------
    samples_sorted : array_like, shape (reps, n)
        Sorted rows inside ``[lower, upper]`` (checked).
    beta : float or array_like, shape (reps,)
        Smoothing parameter, finite and > 0, one for all rows or one per row.
    lower, upper : float
        Public bounds, ``lower < upper``.
    quantile : float, default 0.5
        In (0, 1).

    Returns
    -------
    ndarray, shape (reps,)

    Raises
    ------
    ValueError
        For bad samples, bounds, quantile or a ``beta`` that is not finite and > 0.
    """
    lo, hi = check_bounds(lower, upper)
    q = check_quantile(quantile)
    samples = _check_batch_samples(samples_sorted, lo, hi)
    reps, n = samples.shape
    try:
        b = np.asarray(beta, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError("beta must be a number or a 1-D array of numbers") from exc
    if b.ndim == 0:
        b = np.full(reps, float(b))
    elif b.shape != (reps,):
        raise ValueError(
            f"beta must be a scalar or have shape ({reps},) (one per row); got shape {b.shape}"
        )
    bad = ~(np.isfinite(b) & (b > 0))
    if bad.any():
        raise ValueError(f"beta must be a finite number > 0; {describe_bad(b, bad)}")
    return _batch_at_betas(samples, b, lo, hi, quantile_rank(n, q))


def _check_window_args(lower: float, upper: float, beta: float) -> tuple[float, float, float]:
    """The checked ``(lower, upper, beta)`` of the window sensitivities: public bounds and a
    finite ``beta > 0``."""
    lo, hi = check_bounds(lower, upper)
    b = finite_scalar("beta", beta)
    if not b > 0:
        raise ValueError(f"beta must be a finite number > 0; got {beta!r}")
    return lo, hi, b


def _block_arrays(
    blocks: tuple[ArrayLike, ArrayLike, ArrayLike, ArrayLike, ArrayLike],
) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64], FloatArray, FloatArray]:
    """``(offsets, first, last, low, high)`` of the blocks outside the windows, as contiguous
    int64 and float64 arrays for the compiled kernels."""
    off, bf, bl = (np.ascontiguousarray(np.asarray(x, dtype=np.int64)) for x in blocks[:3])
    blow, bhigh = (np.ascontiguousarray(np.asarray(x, dtype=np.float64)) for x in blocks[3:])
    return off, bf, bl, blow, bhigh


def smooth_sensitivity_window_batch(
    cells: FloatArray,
    first: ArrayLike,
    length: ArrayLike,
    n: ArrayLike,
    k: ArrayLike,
    beta: float,
    lower: float,
    upper: float,
    *,
    blocks: tuple[ArrayLike, ArrayLike, ArrayLike, ArrayLike, ArrayLike] | None = None,
) -> tuple[FloatArray, NDArray[np.bool_]]:
    """The ``beta``-smooth sensitivity of rank ``k`` from a window of the order statistics.

    Row ``r`` of ``cells`` holds, in its first ``length[r]`` entries, the order statistics
    of ranks ``a = first[r] .. b = first[r] + length[r] - 1`` of a sorted sample of
    ``n[r]`` values, with ``a <= k[r] <= b``.  The other ranks are unknown; ``blocks`` says
    what is known about them: ``(offsets, first, last, low, high)`` lists, for row ``r``,
    blocks ``offsets[r] .. offsets[r + 1] - 1``, each a range of ranks ``first .. last``
    entirely below ``a`` or above ``b`` whose values lie in ``[low, high]``; together they
    must cover every rank outside the window.  Default: one block ``1 .. a - 1`` and one
    ``b + 1 .. n`` with values in ``[lower, upper]``.  (:mod:`core.windowed` passes the
    unexpanded blocks of its tree: a block of the sorted population holds values between
    its first and last record.)

    Equation (4) of Hu et al. is a maximum over pairs of padded ranks ``i <= k <= j`` of
    ``(y_(j) - y_(i)) e^{-beta (j - i - 1)}``.  Returned ``S`` is the maximum over the pairs
    whose values are known: both ranks in the window (with the bounds as padding where the
    window reaches rank 1 or ``n``), and the window's ranks paired with the padding ranks 0
    and ``n + 1``.  Each pair with an unknown rank is bounded through its block: a block
    ``p1 .. p2`` below the window with values ``>= low`` and ``j`` in a segment
    ``j1 .. j2`` of the window give at most ``(y_(j2) - low) e^{-beta (j1 - p2 - 1)}``
    (segments of doubling length from ``k``); symmetrically above; a block below and one
    above (``q1 ..``, values ``<= high``) at most ``(high - low) e^{-beta (q1 - p2 - 1)}``;
    a block and a padding rank likewise.  When ``S`` reaches the largest bound it is the
    smooth sensitivity of the whole sample, and the row is *certified*.

    Returns
    -------
    S : ndarray, shape (reps,)
        The largest known pair value (``S`` itself where certified, a lower bound otherwise).
    certified : ndarray of bool, shape (reps,)
        Whether ``S`` is the smooth sensitivity of the whole sample.
    """
    lo, hi, b = _check_window_args(lower, upper, beta)
    y = np.ascontiguousarray(cells, dtype=np.float64)
    reps = y.shape[0]
    f_, m_, n_, k_ = (
        np.ascontiguousarray(np.asarray(a, dtype=np.int64).reshape(reps))
        for a in (first, length, n, k)
    )
    out = np.empty(reps)
    ok = np.zeros(reps, dtype=np.bool_)
    if not reps:
        return out, ok
    if blocks is None:
        f, m, nn = f_, m_, n_
        lastw = f + m - 1
        bf = np.stack([np.ones(reps, dtype=np.int64), lastw + 1], axis=1).ravel()
        bl = np.stack([f - 1, nn], axis=1).ravel()
        keep = bf <= bl
        offsets = np.concatenate(([0], np.cumsum(keep.reshape(reps, 2).sum(axis=1))))
        blocks = (offsets, bf[keep], bl[keep], np.full(keep.sum(), lo), np.full(keep.sum(), hi))
    off, bf, bl, blow, bhigh = _block_arrays(blocks)

    def rows(a: int, z: int) -> None:
        # Row r's blocks are off[r] .. off[r + 1] - 1 of the whole block arrays.
        _window_core(
            y[a:z], f_[a:z], m_[a:z], n_[a:z], k_[a:z], b, lo, hi, off[a : z + 1],
            bf, bl, blow, bhigh, out[a:z], ok[a:z],
        )  # fmt: skip

    by_rows(rows, reps, y.size)
    return out, ok


def smooth_sensitivity_median_batch(
    samples_sorted: ArrayLike,
    eps: float | ArrayLike,
    delta: float | ArrayLike,
    lower: float,
    upper: float,
) -> FloatArray:
    """Smooth sensitivity of the median (equation (4), Hu et al.) for many sorted samples.

    :func:`smooth_sensitivity_quantile_batch` at ``quantile = 0.5``; parameters, result
    and errors as there.  Row ``r`` equals :func:`smooth_sensitivity_median` on that row.
    """
    return smooth_sensitivity_quantile_batch(samples_sorted, eps, delta, lower, upper, quantile=0.5)


def _batch_betas(eps: float | ArrayLike, delta: float | ArrayLike, reps: int) -> FloatArray:
    """``beta`` per row from scalar or per-row ``eps`` and ``delta``."""
    result = []
    for name, value in (("eps", eps), ("delta", delta)):
        try:
            arr = np.asarray(value, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"{name} must be a number or a 1-D array of numbers") from exc
        if arr.ndim == 0:
            arr = np.full(reps, float(arr))
        elif arr.shape != (reps,):
            raise ValueError(
                f"{name} must be a scalar or have shape ({reps},) (one per row); "
                f"got shape {arr.shape}"
            )
        result.append(arr)
    e, d = result
    bad_e = ~(np.isfinite(e) & (e > 0))
    if bad_e.any():
        raise ValueError(f"eps must be a finite number > 0; {describe_bad(e, bad_e)}")
    bad_d = ~((d > 0) & (d < 1))
    if bad_d.any():
        raise ValueError(f"delta must be in the interval (0, 1); {describe_bad(d, bad_d)}")
    return np.ascontiguousarray(e / (2.0 * (np.log(2.0) - np.log(d))))


def warm_up() -> None:
    """Compile the numba kernels (or load them from the on-disk cache) on a tiny input.

    Call once at start-up so that the first real request does not pay the compile time.
    Does nothing without numba.
    """
    y = np.array([0.1, 0.2, 0.2, 0.7])
    smooth_sensitivity_median(y, 1.0, 1e-3, 0.0, 1.0, assume_sorted=True)
    smooth_sensitivity_median_batch(y[None, :], 1.0, 1e-3, 0.0, 1.0)
    smooth_sensitivity_quantile(y, 1.0, 1e-3, 0.0, 1.0, quantile=0.9, assume_sorted=True)
