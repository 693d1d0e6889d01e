"""The mean with global sensitivity: Hu, Drechsler & Kim, Sections 4.1 and 4.2.

The no-gain condition (:func:`no_gain_threshold`), the variances of the population and
sample releases, equations (6) and (7) (:func:`mean_variance_population`,
:func:`mean_variance_sample`), the table and best rate they give (:func:`mean_gain_table`,
:func:`best_rate_mean`), and a simulation that checks them (:func:`simulate_mean_release`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from .. import amplification as amp
from .._validation import (
    FloatArray,
    FloatOrArray,
    check_bounds,
    check_eps_list,
    check_rate_list,
    check_seed,
    check_whole,
    finite_scalar,
    values_in_bounds,
)
from ..amplification import sample_size

__all__ = [
    "best_rate_mean",
    "mean_gain_table",
    "mean_variance_population",
    "mean_variance_sample",
    "no_gain_threshold",
    "simulate_mean_release",
]


def mean_variance_population(
    eps_target: ArrayLike, N: int, lower: float, upper: float
) -> FloatOrArray:
    """Variance ``V_N`` of the Laplace-privatised population mean (Hu et al. eq. 6).

    The population mean has global sensitivity ``R / N`` with ``R = upper - lower``;
    Laplace noise with scale ``R / (eps N)`` has variance::

        V_N = 2 (R / (eps_target N))^2.

    There is no sampling variance: the whole population is used.

    Parameters
    ----------
    eps_target : float or array_like
        Privacy loss for the population, finite and > 0.
    N : int
        Population size, >= 1.
    lower, upper : float
        Public bounds of the variable (``lower < upper``).

    Returns
    -------
    float or ndarray
        ``V_N``, broadcast over ``eps_target``.
    """
    lo, hi = check_bounds(lower, upper)
    if N < 1:
        raise ValueError(f"N must be >= 1; got {N!r}")
    eps = np.asarray(eps_target, dtype=np.float64)
    if not (np.isfinite(eps) & (eps > 0)).all():
        raise ValueError(f"eps_target must be finite and > 0; got {eps_target!r}")
    out = 2.0 * ((hi - lo) / (eps * float(N))) ** 2
    return float(out) if np.ndim(eps_target) == 0 else out


def _mean_parts(
    eps_target: FloatArray, n: FloatArray, N: int, S2_N: float, R: float
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Return ``(sampling_part, noise_part, eps_sample)`` of eq. 7 (validated inputs)."""
    rate = n / N
    eps_s = np.asarray(amp.eps_sample(eps_target, rate), dtype=np.float64)
    sampling = (1.0 - rate) * S2_N / n
    noise = 2.0 * (R / (eps_s * n)) ** 2
    return sampling, noise, eps_s


def mean_variance_sample(
    eps_target: ArrayLike,
    n: ArrayLike,
    N: int,
    S2_N: float,
    lower: float,
    upper: float,
) -> FloatOrArray:
    """Variance ``V_n`` of the Laplace-privatised mean of an SRSWOR sample (Hu et al. eq. 7).

    The sample mean of ``n`` out of ``N`` records has sampling variance
    ``(1 - n/N) S_N^2 / n`` and global sensitivity ``R / n``; the Laplace noise uses the
    amplified budget ``eps_n = eps_sample(eps_target, n/N)`` (Theorem 1), so::

        V_n = (1 - n/N) S_N^2 / n + 2 (R / (eps_n n))^2.

    Parameters
    ----------
    eps_target : float or array_like
        Privacy loss for the population, finite and > 0.
    n : float or array_like
        Sample size(s), ``0 < n <= N`` (for a rate, pass ``rate * N``; non-integer values
        are accepted so that smooth curves can be drawn).
    N : int
        Population size.
    S2_N : float
        Population variance with divisor ``N - 1``, >= 0.
    lower, upper : float
        Public bounds of the variable.

    Returns
    -------
    float or ndarray
        ``V_n``, broadcast over ``eps_target`` and ``n``.  At ``n = N`` it equals
        :func:`mean_variance_population`.
    """
    lo, hi = check_bounds(lower, upper)
    if N < 1:
        raise ValueError(f"N must be >= 1; got {N!r}")
    s2 = finite_scalar("S2_N", S2_N)
    if s2 < 0:
        raise ValueError(f"S2_N must be >= 0; got {S2_N!r}")
    nn = np.asarray(n, dtype=np.float64)
    if not ((nn > 0) & (nn <= N)).all():
        raise ValueError(f"n must satisfy 0 < n <= N = {N}; got {n!r}")
    eps = np.asarray(eps_target, dtype=np.float64)
    if not (np.isfinite(eps) & (eps > 0)).all():
        raise ValueError(f"eps_target must be finite and > 0; got {eps_target!r}")
    e, m = np.broadcast_arrays(eps, nn)
    sampling, noise, _ = _mean_parts(e, m, N, s2, hi - lo)
    out = sampling + noise
    return float(out) if np.ndim(eps_target) == 0 and np.ndim(n) == 0 else out


def no_gain_threshold(
    eps_target: ArrayLike, rate: ArrayLike, global_sensitivity: ArrayLike
) -> FloatOrArray:
    """Sampling variance above which sampling cannot improve accuracy (Hu et al. Section 4.1).

    For any statistic released with the Laplace mechanism, whose global sensitivity on
    the sample is at least the population's ``Delta``, the sample release is never more
    accurate than the population release when::

        Var(g(S(Y_N))) >= 2 Delta^2 (1 / eps_target^2 - 1 / eps_sample^2).

    Computed as ``2 Delta^2 q / eps_target^2`` with ``q = 1 - (eps_target /
    eps_sample)^2`` from :func:`core.amplification.sampling_variance_bound`, which is free
    of cancellation near ``rate = 1``.

    Parameters
    ----------
    eps_target : float or array_like
        Privacy loss for the population, finite and > 0.
    rate : float or array_like
        Sampling rate n/N in (0, 1].
    global_sensitivity : float or array_like
        Global sensitivity ``Delta`` of the statistic on the population, finite and >= 0.

    Returns
    -------
    float or ndarray
        The threshold, >= 0 (0 at ``rate = 1``); it grows as ``eps_sample`` grows, i.e.
        as the rate falls.
    """
    delta = np.asarray(global_sensitivity, dtype=np.float64)
    if not (np.isfinite(delta) & (delta >= 0)).all():
        raise ValueError(f"global_sensitivity must be finite and >= 0; got {global_sensitivity!r}")
    q = amp.sampling_variance_bound(eps_target, rate)
    out = 2.0 * delta**2 * np.asarray(q) / np.asarray(eps_target, dtype=np.float64) ** 2
    scalar = all(np.ndim(v) == 0 for v in (eps_target, rate, global_sensitivity))
    return float(out) if scalar else np.asarray(out, dtype=np.float64)


def mean_gain_table(
    values: ArrayLike,
    lower: float,
    upper: float,
    eps_targets: ArrayLike,
    rates: ArrayLike,
) -> pd.DataFrame:
    """Tidy table of eq. 6 against eq. 7 for the mean of ``values`` (Hu et al. Section 4.2).

    For each pair (``eps_target``, ``rate``) the sample size is
    ``n = max(1, round(rate N))`` and every quantity uses the realised ``n / N``.

    Parameters
    ----------
    values : array_like
        The population (1-d, finite, inside ``[lower, upper]``).
    lower, upper : float
        Public bounds; ``R = upper - lower``.
    eps_targets : array_like
        Non-empty list of population privacy losses (> 0).
    rates : array_like
        Non-empty list of sampling rates in (0, 1].

    Returns
    -------
    pandas.DataFrame
        One row per (eps_target, rate), sorted, with columns ``eps_target, rate, n,
        eps_sample, V_n, V_N, sampling_part, noise_part, r, gain``: ``sampling_part =
        (1 - n/N) S_N^2 / n``, ``noise_part = 2 (R / (eps_sample n))^2``, ``r`` is the
        noise-variance ratio of eq. 8 and ``gain = V_N / V_n - 1`` (negative: the sample
        is less accurate).  ``gain`` is computed from ``V_n - V_N = sampling_part + V_N
        (1 - r) / r`` with the cancellation-free ``1 - r`` of
        :func:`core.amplification.noise_variance_gap`, so it is <= 0 even where ``r``
        rounds to 1.
    """
    lo, hi = check_bounds(lower, upper)
    pop = values_in_bounds(values, lo, hi)
    eps = check_eps_list("eps_targets", eps_targets)
    rr = check_rate_list("rates", rates)
    N = pop.size
    s2 = float(np.var(pop, ddof=1)) if N > 1 else 0.0
    R = hi - lo

    n = np.array([sample_size(N, r) for r in rr], dtype=np.float64)
    E, Nn = np.meshgrid(eps, n, indexing="ij")
    _, RR = np.meshgrid(eps, rr, indexing="ij")
    sampling, noise, eps_s = _mean_parts(E, Nn, N, s2, R)
    realised = Nn / N
    r = np.asarray(amp.noise_variance_ratio(E, realised), dtype=np.float64)
    gap = np.asarray(amp.noise_variance_gap(E, realised), dtype=np.float64)
    v_pop = 2.0 * (R / (E * N)) ** 2
    v_n = sampling + noise
    excess = sampling + v_pop * gap / (1.0 - gap)
    gain = -excess / v_n
    table = pd.DataFrame(
        {
            "eps_target": E.ravel(),
            "rate": RR.ravel(),
            "n": Nn.ravel().astype(np.int64),
            "eps_sample": eps_s.ravel(),
            "V_n": v_n.ravel(),
            "V_N": v_pop.ravel(),
            "sampling_part": sampling.ravel(),
            "noise_part": noise.ravel(),
            "r": r.ravel(),
            "gain": gain.ravel(),
        }
    )
    return table


def best_rate_mean(
    values: ArrayLike,
    lower: float,
    upper: float,
    eps_target: float,
    rates: ArrayLike,
) -> float:
    """Sampling rate that minimises ``V_n`` for the mean (Hu et al. Section 4.2).

    The candidates are ``rates`` plus 1 (the population).  The answer is always 1: for
    every rate < 1 the noise-variance ratio ``r`` of eq. 8 is < 1, so the sample's noise
    part alone, ``V_N / r``, already exceeds ``V_N``, before any sampling variance is
    added.  The function checks this on the data rather than assuming it.

    Parameters
    ----------
    values : array_like
        The population.
    lower, upper : float
        Public bounds.
    eps_target : float
        Population privacy loss, > 0.
    rates : array_like
        Candidate sampling rates in (0, 1].

    Returns
    -------
    float
        The minimising rate (1.0).
    """
    rr = np.append(check_rate_list("rates", rates), 1.0)
    table = mean_gain_table(values, lower, upper, [eps_target], rr)
    # Minimising V_n is maximising gain = V_N / V_n - 1, which mean_gain_table computes
    # without cancellation; the population has gain 0 and wins ties.
    gain = table["gain"].to_numpy()
    rate = table["rate"].to_numpy()
    best = float(gain.max())
    return float(rate[gain == best].max())


def simulate_mean_release(
    values: ArrayLike,
    lower: float,
    upper: float,
    eps_target: float,
    n: int,
    reps: int,
    seed: int = 0,
) -> float:
    """Monte Carlo variance of the privatised SRSWOR sample mean (checks Hu et al. eq. 7).

    Each repetition draws a simple random sample without replacement of size ``n``,
    computes its mean and adds Laplace noise with scale ``R / (eps_n n)``, where
    ``eps_n = eps_sample(eps_target, n / N)``.

    Parameters
    ----------
    values : array_like
        The population.
    lower, upper : float
        Public bounds.
    eps_target : float
        Population privacy loss, > 0.
    n : int
        Sample size, 1 <= n <= N.
    reps : int
        Number of repetitions, >= 2.
    seed : int
        Seed of ``numpy.random.Generator(PCG64(seed))``.

    Returns
    -------
    float
        Empirical variance (divisor ``reps - 1``) of the ``reps`` releases; its
        expectation is ``V_n`` of :func:`mean_variance_sample`.
    """
    lo, hi = check_bounds(lower, upper)
    pop = values_in_bounds(values, lo, hi)
    eps = finite_scalar("eps_target", eps_target)
    if eps <= 0:
        raise ValueError(f"eps_target must be > 0; got {eps_target!r}")
    N = pop.size
    if isinstance(n, bool) or not isinstance(n, int | np.integer) or not 1 <= n <= N:
        raise ValueError(f"n must be an integer with 1 <= n <= N = {N}; got {n!r}")
    reps = check_whole("reps", reps, 2, 2**31)
    rng = np.random.Generator(np.random.PCG64(check_seed(seed)))
    eps_s = float(amp.eps_sample(eps, n / N))
    means = np.empty(reps)
    for r in range(reps):
        means[r] = pop[rng.choice(N, int(n), replace=False, shuffle=False)].mean()
    releases = means + rng.laplace(0.0, (hi - lo) / (eps_s * n), size=reps)
    return float(np.var(releases, ddof=1))
