"""The piecewise-Laplace quantile (Durfee 2025), its exact law and its exact errors.

Source: D. Durfee, "Unifying Laplace Mechanism with Instance Optimality in Differential
Privacy" (arXiv 2505.02798): Laplace noise drawn in pieces, each piece scaled to the local
sensitivity at its distance from the data, obtained as an exponential mechanism whose score
is the inverse sensitivity made continuous.  For a quantile the pieces are the gaps between
order statistics, the output law is piecewise exponential on ``[lower, upper]``, and the
piece probabilities are those of the inverse-sensitivity mechanism of Asi & Duchi (2020);
inside each piece the mass leans towards the statistic, which is why it dominates that
mechanism.  :class:`PiecewiseLaplaceQuantile` draws it exactly;
:func:`piecewise_laplace_distribution` returns the law and
:func:`piecewise_laplace_error` the exact MSE and error quantile on one sample.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike
from scipy import optimize

from .. import sensitivity as sens
from .._validation import (
    check_interval,
    finite_scalar,
)
from ..mechanisms.base import FloatArray, Release, _check_release_args
from ..mechanisms.exponential import (
    _check_one_sample,
    _chosen_interval,
    _exponential_choose,
    _interval_law,
)
from ..mechanisms.quantiles import _RankScoreQuantile

__all__ = [
    "PiecewiseLaplaceQuantile",
    "piecewise_laplace_distribution",
    "piecewise_laplace_error",
]

#: Below this decay rate ``c`` the moments of the truncated exponential use their series.
_SMALL_RATE = 1e-3


def _centre_rank(n: int, quantile: float) -> float:
    """``(k - 1/2) / n``: the level whose rank distance ``|i - (k - 1/2)|`` is ``j + 1/2``."""
    return (sens.quantile_rank(n, quantile) - 0.5) / n


def _truncated_exponential_moments(rate: float) -> tuple[float, float]:
    """``E[T]`` and ``E[T^2]`` for ``T`` on ``[0, 1]`` with density ``∝ e^(-rate t)``.

    ``E[T] = 1/c - 1/expm1(c)`` and ``E[T^2] = 2/c^2 - (1 + 2/c)/expm1(c)``; below
    ``c = 1e-3`` the ratio of the series ``∫ t^m e^(-c t)`` to ``∫ e^(-c t)`` (to ``c^3``,
    error ``O(c^4)``) avoids the cancellation.
    """
    c = rate
    if c < _SMALL_RATE:
        mass = 1.0 - c / 2.0 + c * c / 6.0 - c**3 / 24.0
        first = 0.5 - c / 3.0 + c * c / 8.0 - c**3 / 30.0
        second = 1.0 / 3.0 - c / 4.0 + c * c / 10.0 - c**3 / 36.0
        return first / mass, second / mass
    em = float(np.expm1(c))
    return 1.0 / c - 1.0 / em, 2.0 / (c * c) - (1.0 + 2.0 / c) / em


def piecewise_laplace_distribution(
    sorted_values: ArrayLike,
    eps_sample: float,
    lower: float,
    upper: float,
    quantile: float = 0.5,
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Exact output law of :class:`PiecewiseLaplaceQuantile` on one sample.

    With ``z_0 = lower``, ``z_i = x_(i)`` and ``z_{n+1} = upper``, piece ``i = [z_i, z_{i+1}]``
    lies ``j_i = |i - (k - 1/2)| - 1/2`` records from the statistic ``x_(k)`` (pieces right of
    it: ``i >= k``; left: ``i < k``).  The score ``l(y)`` rises linearly from ``j_i`` at the
    end nearer ``x_(k)`` to ``j_i + 1`` at the far end, and the density is
    ``∝ exp(-eps l(y) / 2)``; so piece ``i`` has probability
    ``∝ w_i e^(-eps j_i / 2)`` (``w_i`` its width; zero-width pieces have none) and, inside,
    the distance ``T w_i`` from its near end has ``T`` on ``[0, 1]`` with density
    ``∝ e^(-eps T / 2)``.

    Parameters
    ----------
    sorted_values : array_like, shape (n,)
        The sample, ``n >= 1``, inside ``[lower, upper]`` (sorted here if it is not).
    eps_sample : float
        Budget spent on the sample, finite and > 0.
    lower, upper : float
        Public bounds, ``lower < upper``.
    quantile : float, default 0.5
        The level ``q`` in (0, 1); ``k = ceil(q n)``.

    Returns
    -------
    edges : ndarray, shape (n + 2,)
        ``z_0, ..., z_{n+1}``.
    probabilities : ndarray, shape (n + 1,)
        Piece probabilities, summing to 1.
    direction : ndarray, shape (n + 1,)
        ``+1`` for a piece right of the statistic (near end ``z_i``), ``-1`` for one left of
        it (near end ``z_{i+1}``).

    Raises
    ------
    ValueError
        For empty or non-finite values, values outside the bounds, bad bounds, budget or
        quantile.
    """
    lo, hi, values, eps, q = _check_one_sample(sorted_values, eps_sample, lower, upper, quantile)
    n = values.size
    edges, probabilities = _interval_law(values, lo, hi, eps, _centre_rank(n, q))
    k = sens.quantile_rank(n, q)
    direction = np.where(np.arange(n + 1) >= k, 1.0, -1.0)
    return edges, probabilities, direction


def _inside(
    direction: FloatArray, left: FloatArray, right: FloatArray, t: FloatArray
) -> FloatArray:
    """The point at fraction ``t`` of the width from each piece's near end."""
    width = right - left
    return np.asarray(
        np.clip(np.where(direction > 0, left + t * width, right - t * width), left, right),
        dtype=np.float64,
    )


def _truncated_exponential_draw(rate: FloatArray, v: FloatArray) -> FloatArray:
    """Inverse CDF of ``T`` on ``[0, 1]`` with density ``∝ e^(-rate t)`` at uniforms ``v``.

    ``T = log1p(v expm1(-c)) / (-c)``: exact for ``c = 5e-13`` and ``c = 500`` alike.
    """
    c = np.asarray(rate, dtype=np.float64)
    return np.asarray(np.clip(np.log1p(v * np.expm1(-c)) / (-c), 0.0, 1.0), dtype=np.float64)


def piecewise_laplace_error(
    sorted_values: ArrayLike,
    eps_sample: float,
    lower: float,
    upper: float,
    centre: float,
    level: float = 0.95,
    quantile: float = 0.5,
) -> tuple[float, float]:
    """Exact MSE and ``level``-quantile of ``|Y - centre|`` for the piecewise-Laplace quantile.

    With ``Y = a_i + s_i w_i T`` in piece ``i`` (near end ``a_i``, direction ``s_i``, width
    ``w_i``; :func:`piecewise_laplace_distribution`) and ``c = eps / 2``:
    ``E[(Y - m)^2] = sum_i p_i ((a_i - m)^2 + 2 s_i w_i (a_i - m) E[T] + w_i^2 E[T^2])``, the
    truncated-exponential moments in closed form.  The CDF of ``Y`` is
    ``G(y) = P_before + p_i expm1(-c tau) / expm1(-c)`` (``tau`` the fraction of piece ``i``
    from its left end, read from the right end for left pieces), so
    ``P(|Y - m| <= t) = G(m + t) - G(m - t)`` is continuous and increasing in ``t``, and its
    ``level`` crossing is found by bracketing root search.

    Parameters and errors as :func:`piecewise_laplace_distribution`, plus ``centre`` (finite)
    and ``level`` in (0, 1).

    Returns
    -------
    mse, quantile : float
    """
    m = finite_scalar("centre", centre)
    lvl = float(check_interval("level", level, 0.0, 1.0, low_open=True, high_open=True))
    edges, p, direction = piecewise_laplace_distribution(
        sorted_values, eps_sample, lower, upper, quantile
    )
    c = float(eps_sample) / 2.0
    mean_t, square_t = _truncated_exponential_moments(c)
    left, right = edges[:-1], edges[1:]
    width = right - left
    near = np.where(direction > 0, left, right)
    mse = float(np.sum(p * ((near - m) ** 2 + 2 * direction * width * (near - m) * mean_t)))
    mse += float(np.sum(p * width**2)) * square_t
    before = np.concatenate([[0.0], np.cumsum(p)])
    em = float(np.expm1(-c))

    def cdf(y: float) -> float:
        i = int(np.clip(np.searchsorted(right, y, side="left"), 0, p.size - 1))
        if y <= left[0]:
            return 0.0
        if y >= right[-1]:
            return 1.0
        if width[i] <= 0:
            return float(before[i + 1])
        frac = min(max((y - left[i]) / width[i], 0.0), 1.0)
        if direction[i] > 0:
            share = np.expm1(-c * frac) / em
        else:
            share = 1.0 - np.expm1(-c * (1.0 - frac)) / em
        return float(before[i] + p[i] * share)

    def coverage(t: float) -> float:
        return cdf(m + t) - cdf(m - t)

    far = max(abs(edges[0] - m), abs(edges[-1] - m))
    if coverage(0.0) >= lvl:
        return mse, 0.0
    if coverage(far) < lvl:  # rounding left the whole range a hair below the level
        return mse, float(far)
    t = float(optimize.brentq(lambda v: coverage(v) - lvl, 0.0, far, xtol=1e-15 * far + 1e-300))
    return mse, t


class PiecewiseLaplaceQuantile(_RankScoreQuantile):
    """The piecewise-Laplace mechanism for a quantile (Durfee 2025): pure ``eps``, both relations.

    Score.  With ``x_(m) = lower`` for ``m <= 0`` and ``upper`` for ``m >= n + 1``, changing
    ``j`` records can move the order statistic ``y_(k)`` anywhere in
    ``[x_(k-j), x_(k+j)]`` and no further.  The score ``l(y)`` is the piecewise-linear
    function through the points ``(x_(k+j), j)`` and ``(x_(k-j), j)``: the number of records
    to change, made continuous (the inverse sensitivity ``len(y)`` of Asi & Duchi is its
    ceiling, so ``l <= len``).  Output density ``∝ exp(-eps l(y) / 2)`` on
    ``[lower, upper]``: on the piece between ``x_(k+j)`` and ``x_(k+j+1)`` it is a Laplace
    tail of scale ``2 (x_(k+j+1) - x_(k+j)) / eps``, the gap there being the local
    sensitivity ``j`` records away (:func:`piecewise_laplace_distribution`).  With all gaps
    equal to ``R`` it is the Laplace mechanism with scale ``2 R / eps`` truncated to the
    bounds.

    Privacy: if ``|l_x(y) - l_x'(y)| <= 1`` at every ``y`` for neighbours ``x, x'``, the
    numerator of the density moves by at most ``e^(eps/2)`` and so does the normaliser, so
    the mechanism is ``eps``-DP.  Write ``b_j = x_(k+j)`` (right side; the left side is the
    mirror image) and ``h`` for the piecewise-linear map ``r -> b_r`` whose inverse is
    ``l``.  If ``b'_j <= b_{j+1}`` for every ``j``, then ``h'(r) <= h(r + 1)`` at every real
    ``r`` (both sides are linear on ``[j, j + 1]`` and the inequality holds at its ends),
    i.e. ``l_x(y) <= l_x'(y) + 1``.  The interlacing holds for both relations:

    * one record changed: the padded order statistics satisfy
      ``x_(m-1) <= x'_(m) <= x_(m+1)`` and ``k`` is unchanged, so ``b_{j-1} <= b'_j <= b_{j+1}``;
    * one record added (removal is the same pair read backwards): ``x_(m-1) <= x'_(m) <=
      x_(m)`` and ``k' = ceil(q (n + 1))`` is ``k`` or ``k + 1``; with ``k' = k``,
      ``b'_j in [b_{j-1}, b_j]``, and with ``k' = k + 1``, ``b'_j in [b_j, b_{j+1}]``; the left
      side alike.

    So the score moves by at most 1, and the release is ``eps_sample``-DP for a changed and
    for an added or removed record.  An empty sample (``n = 0``) is released uniformly on
    ``[lower, upper]`` (score 0); one record gives a score in ``[0, 1]``, so that pair is
    covered too.  Budgets: ``change_factor = add_remove_factor = 1``.

    Sampler: the piece is drawn with weights ``w_i e^(-eps j_i / 2)``, which are the
    exponential mechanism's weights at the rank ``k - 1/2`` (the compiled inverse-CDF draw of
    :class:`ExponentialQuantile` is reused), then ``T`` by the inverse CDF of the truncated
    exponential; ``rng`` is advanced by ``2 reps`` uniforms.  ``O(n)`` per row.

    Windows: the piece weights reach every gap, like the exponential mechanism's, and they
    are that mechanism's weights centred on the rank ``k - 1/2``; so the release is drawn
    exactly ring by ring around the rank, reading only the order statistics the rings
    reach (:func:`core.windowed.window_exponential_draws` with ``piecewise=True``), and
    :attr:`windowed` is true: the planner and the Gains page draw it on windows.
    """

    name = "piecewise_laplace"
    label = "quantile, piecewise Laplace (inverse sensitivity made continuous)"
    additive = False
    unit_noise_variance = None
    pure = True
    add_remove_factor = 1.0
    change_factor = 1.0
    windowed = True

    def exact_error(
        self,
        sample: FloatArray,
        eps_sample: float,
        delta_sample: float,
        lower: float,
        upper: float,
        level: float,
    ) -> tuple[float, float] | None:
        """Exact errors about the sample's order statistic (:func:`piecewise_laplace_error`)."""
        arr = np.asarray(sample, dtype=np.float64)
        theta = float(np.sort(arr)[sens.quantile_rank(arr.size, self.quantile) - 1])
        return piecewise_laplace_error(
            arr, eps_sample, lower, upper, theta, level=level, quantile=self.quantile
        )

    def release(
        self,
        samples: ArrayLike,
        eps_sample: float | ArrayLike,
        delta_sample: float,
        lower: float,
        upper: float,
        rng: np.random.Generator,
    ) -> Release:
        """Release one piecewise-Laplace quantile per row (see the class docstring).

        Parameters, return value and errors as :meth:`Mechanism.release`;
        ``noise_variance`` is ``None`` and ``noise_scale`` is the score scale ``2 / eps``.
        """
        lo, hi, batch, eps, _ = _check_release_args(
            samples, eps_sample, delta_sample, lower, upper, rng
        )
        reps, n = batch.shape
        u = np.asarray(1.0 - rng.random(reps), dtype=np.float64)
        level = _centre_rank(n, self.quantile)
        chosen = _exponential_choose(batch, lo, hi, np.ascontiguousarray(eps), level, u)
        left, right = _chosen_interval(batch, lo, hi, chosen)
        direction = np.where(chosen >= self.rank(n), 1.0, -1.0)
        t = _truncated_exponential_draw(eps / 2.0, np.asarray(rng.random(reps), dtype=np.float64))
        released = _inside(direction, left, right, t)
        return self._score_release(released, batch, eps, lo, hi)
