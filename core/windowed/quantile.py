"""Sample quantiles and their smooth sensitivities, drawn from windows (package docstring)."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from .. import sensitivity as sens
from .._validation import FloatArray, check_bounds, check_whole
from ..windowed.run_sensitivity import smooth_sensitivity_runs
from ..windowed.runs import next_window, run_view
from ..windowed.sampler import (
    _CELL_BUDGET,
    _PILOT,
    FIRST_HALF_WIDTH,
    REFINE_FINE,
    IntArray,
    SourceFactory,
    _open_source,
    _ranks,
    record_values,
)

__all__ = ["window_quantile_draws"]


def window_quantile_draws(
    rng: np.random.Generator,
    sorted_values: FloatArray,
    sizes: ArrayLike,
    quantile: float,
    betas: ArrayLike,
    lower: float,
    upper: float,
    *,
    source: SourceFactory | None = None,
) -> tuple[FloatArray, FloatArray]:
    """Sample quantiles and their smooth sensitivities for SRSWOR samples, window only.

    For each sample ``r`` of size ``n_r`` (``sizes``), the order statistic of rank
    ``k_r = quantile_rank(n_r, quantile)`` and, for every ``beta`` in ``betas``, its
    ``beta``-smooth sensitivity (Hu et al. eq. 4 at rank ``k``; :mod:`core.sensitivity`),
    exactly as if the whole sample had been drawn (module docstring).  The window starts at
    :data:`FIRST_HALF_WIDTH` ranks on each side of ``k`` and widens by half for the samples
    whose window cannot yet certify every ``S``.

    Parameters
    ----------
    rng : numpy.random.Generator
    sorted_values : ndarray, shape (N,)
        The population, sorted ascending, inside ``[lower, upper]``.
    sizes : array_like of int, shape (reps,)
        Sample sizes in ``[1, N]``.
    quantile : float
        Level in (0, 1).
    betas : array_like, shape (n_beta,)
        Smoothing parameters, each finite and > 0; may be empty (then only the order
        statistics are drawn and the window is the single rank ``k``).
    lower, upper : float
        Public bounds.
    source : SourceFactory, optional
        Where the samples come from (:class:`WindowSource`): called once per chunk of
        samples with ``rng`` and the chunk's rows; default simple random samples of
        ``sizes`` (:class:`SampleWindows`).  Any other design whose source reveals exactly
        its samples' order statistics (e.g. :mod:`core.designs.stratified_windows`) gets
        exactly its statistic and ``S``.  A run-aware source
        (:class:`core.windowed.runs.RunWindows`, for tied populations) is read as runs of
        equal values and its ``S`` computed on runs
        (:func:`core.windowed.run_sensitivity.smooth_sensitivity_runs`), so a tie block of
        any length costs one run.

    Returns
    -------
    statistic : ndarray, shape (reps,)
    sensitivity : ndarray, shape (n_beta, reps)
    """
    lo, hi = check_bounds(lower, upper)
    q = sens.check_quantile(quantile)
    n = np.asarray(sizes, dtype=np.int64).reshape(-1)
    reps = n.size
    b = np.asarray(betas, dtype=np.float64).reshape(-1)
    if b.size and not np.all(np.isfinite(b) & (b > 0)):
        raise ValueError("betas must be finite numbers > 0")
    check_whole("reps", reps, 1, 2**31)
    k = _ranks(n, q)
    statistic = np.empty(reps)
    sensitivity = np.empty((b.size, reps))
    half = 0 if not b.size else FIRST_HALF_WIDTH
    width = 2 * half + 1
    start = 0
    while start < reps:
        # A few samples first: their widest window starts the others, saving rounds.
        size = _PILOT if start == 0 and b.size else max(1, _CELL_BUDGET // (4 * width))
        stop = min(reps, start + size)
        sl = slice(start, stop)
        half, width = _draw_chunk(
            rng, sorted_values, n[sl], k[sl], b, lo, hi, half, statistic[sl], sensitivity[:, sl],
            rows=np.arange(start, stop), source=source,
        )  # fmt: skip
        start = stop
    return statistic, sensitivity


def _draw_chunk(
    rng: np.random.Generator,
    values: FloatArray,
    n: IntArray,
    k: IntArray,
    betas: FloatArray,
    lower: float,
    upper: float,
    half: int,
    statistic: FloatArray,
    sensitivity: FloatArray,
    *,
    rows: IntArray,
    source: SourceFactory | None = None,
) -> tuple[int, int]:
    """One chunk of samples; returns the half-width the widest sample needed, and the
    columns per sample of its widest window (ranks, or runs on a run-aware source).

    Every round makes ranks ``k - h .. k + h`` known, splits the unexpanded blocks beside
    them (``refine`` of the source: blocks of at most ``REFINE_FINE / beta`` records near
    the window, finer than their distance beyond) so that their value ranges bound the rest
    tightly, takes the whole run of known ranks around ``k`` as the window and bounds the
    rest through those blocks; the samples whose ``S`` is not yet certified for every
    ``beta`` widen ``h`` by half (:func:`core.windowed.runs.next_window`).
    """
    windows = _open_source(source, rng, values.size, n, rows)
    runs = hasattr(windows, "window_runs")
    todo = np.arange(n.size)
    half_of = np.full(n.size, half, dtype=np.int64)
    low, high = k - half_of, k + half_of
    widest = half
    columns = 1
    fine = max(1, int(REFINE_FINE / float(betas.min()))) if betas.size else 1
    while True:
        windows.ensure(low, high)
        # Split the blocks beside the window: tighter bounds for the same window.
        windows.refine(todo, k[todo], fine)
        kt = k[todo]
        if runs:
            view, blocks = run_view(windows, todo, kt, values)
            statistic[todo] = view.at(kt)
            columns = max(columns, view.value.shape[1])
        else:
            first, last, blocks = windows.outside(todo, kt, values)
            width = int((last - first).max()) + 1
            pos = windows.positions(first, width, todo)
            cells = record_values(values, pos)
            statistic[todo] = cells[np.arange(todo.size), kt - first]
        if not betas.size:
            return widest, columns if runs else 2 * widest + 1
        ok = np.ones(todo.size, dtype=bool)
        for j, beta in enumerate(betas):
            if runs:
                s, good = smooth_sensitivity_runs(view, n[todo], kt, beta, lower, upper, blocks)
            else:
                s, good = sens.smooth_sensitivity_window_batch(
                    cells, first, last - first + 1, n[todo], kt, beta, lower, upper, blocks=blocks
                )
            sensitivity[j, todo] = s
            ok &= good
        if ok.all():
            return widest, columns if runs else 2 * widest + 1
        at = np.flatnonzero(~ok)  # the failing samples' rows of this round's view
        todo = todo[at]
        # Widen by half (the blocks beside the window are fine, so the width needed is
        # known more closely than to a factor of two); over runs, from the known runs' ends.
        half_of[todo] = np.maximum(half_of[todo] * 3 // 2, half_of[todo] + 1)
        low[todo], high[todo] = next_window(view if runs else None, at, k[todo], half_of[todo])
        widest = max(widest, int(half_of[todo].max()))
