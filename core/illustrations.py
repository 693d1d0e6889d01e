"""Data behind the illustrative figures of Hu, Drechsler & Kim.

* Section 2.4, Figure 1 (right) and Figure 2: repeated Laplace releases of the population
  mean (global sensitivity ``R / N``) and of the population median (global sensitivity
  ``R``, or smooth sensitivity, eq. 4) for a few values of epsilon
  (:func:`privatized_means`, :func:`privatized_medians`).
* Section 4.4, Figure 11: the unprivatised medians of repeated simple random samples
  without replacement (:func:`sample_medians`).

Every function returns a long (tidy) :class:`pandas.DataFrame`, ready for violin plots,
and is reproducible from its ``seed`` (``numpy.random.Generator(PCG64(seed))``).
"""

from __future__ import annotations

from typing import Literal

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from . import sensitivity as sens
from ._validation import (
    check_bounds,
    check_delta_open,
    check_eps_list,
    check_rate_list,
    check_seed,
    check_whole,
    values_in_bounds,
)
from .amplification import sample_size
from .gains import draw_sorted_samples
from .mechanisms import GlobalLaplaceQuantile, LaplaceMean, Mechanism, SmoothLaplaceQuantile

__all__ = ["privatized_means", "privatized_medians", "sample_medians"]

_CHUNK_ELEMENTS = 2_000_000


def _rng(seed: int) -> np.random.Generator:
    return np.random.Generator(np.random.PCG64(check_seed(seed)))


def _long_frame(eps: np.ndarray, reps: int, releases: np.ndarray) -> pd.DataFrame:
    """Long frame (eps, rep, release) from a (len(eps), reps) array of releases."""
    return pd.DataFrame(
        {
            "eps": np.repeat(eps, reps),
            "rep": np.tile(np.arange(reps, dtype=np.int64), eps.size),
            "release": releases.reshape(-1),
        }
    )


def _population_releases(
    mechanism: Mechanism,
    pop: np.ndarray,
    lo: float,
    hi: float,
    eps: np.ndarray,
    delta: float,
    reps: int,
    rng: np.random.Generator,
) -> tuple[np.ndarray, np.ndarray]:
    """``(releases, scale)``: ``reps`` releases of the whole population per epsilon.

    ``releases`` has shape ``(len(eps), reps)``; row ``i`` is the mechanism's statistic of
    the population plus ``reps`` standard noise draws times the scale at ``eps[i]``.
    """
    if not isinstance(mechanism, Mechanism) or not mechanism.additive:
        raise ValueError(
            f"mechanism must be an additive core.mechanisms.Mechanism; got {mechanism!r}"
        )
    statistic = float(mechanism.statistic(pop[np.newaxis, :])[0])
    s = mechanism.sensitivity(np.broadcast_to(pop, (eps.size, pop.size)), eps, delta, lo, hi)
    scale = np.asarray(mechanism.noise_scale(s, eps), dtype=np.float64)
    noise = mechanism.standard_noise(rng, (eps.size, reps)) * scale[:, np.newaxis]
    return statistic + noise, scale


def privatized_means(
    values: ArrayLike,
    lower: float,
    upper: float,
    eps_values: ArrayLike,
    reps: int,
    seed: int = 0,
    mechanism: Mechanism | None = None,
) -> pd.DataFrame:
    """Repeated Laplace releases of the population mean (Hu et al. Section 2.4, Figure 1).

    Each release is ``mean(values) + Laplace(0, (R / N) / eps)`` with the global
    sensitivity ``R / N`` of the mean, ``R = upper - lower`` (Definition 6): the
    :class:`core.mechanisms.LaplaceMean` mechanism applied to the whole population.

    Parameters
    ----------
    values : array_like
        The population (1-d, finite, inside ``[lower, upper]``).
    lower, upper : float
        Public bounds.
    eps_values : array_like
        Non-empty list of privacy losses (> 0); duplicates are dropped, sorted.
    reps : int
        Releases per epsilon, >= 2.
    seed : int
        Seed.
    mechanism : core.mechanisms.Mechanism, optional
        Another additive mechanism to release with (default
        :class:`core.mechanisms.LaplaceMean`); pure-DP mechanisms only, as no delta is
        passed (``1 / (2 N)`` is used if the mechanism asks for one).

    Returns
    -------
    pandas.DataFrame
        Columns ``eps, rep, release``; the true mean is ``np.mean(values)``.
    """
    lo, hi = check_bounds(lower, upper)
    pop = values_in_bounds(values, lo, hi)
    eps = check_eps_list("eps_values", eps_values)
    T = check_whole("reps", reps, 2, 2**31)
    rng = _rng(seed)
    mech = LaplaceMean() if mechanism is None else mechanism
    releases, _ = _population_releases(mech, pop, lo, hi, eps, 1.0 / (2.0 * pop.size), T, rng)
    return _long_frame(eps, T, releases)


def privatized_medians(
    values: ArrayLike,
    lower: float,
    upper: float,
    eps_values: ArrayLike,
    reps: int,
    delta: float | None = None,
    seed: int = 0,
    sensitivity: Literal["global", "smooth"] = "global",
    mechanism: Mechanism | None = None,
) -> pd.DataFrame:
    """Repeated Laplace releases of the population median (Hu et al. Section 2.4, Figure 2).

    The median is the lower median ``y_(m)``, ``m = (N + 1) // 2``.

    * ``sensitivity="global"`` (Figure 2, left): ``median + Laplace(0, R / eps)``, the
      global sensitivity of the median being the whole range ``R = upper - lower``.
    * ``sensitivity="smooth"`` (Figure 2, right): ``median + Laplace(0, 2 S / eps)`` with
      ``S`` the smooth sensitivity (eq. 4) at ``(eps, delta)``; (eps, delta)-DP.

    These are :class:`core.mechanisms.GlobalLaplaceQuantile` and
    :class:`core.mechanisms.SmoothLaplaceQuantile`; ``mechanism`` releases with any other
    additive :class:`core.mechanisms.Mechanism` instead.

    Parameters
    ----------
    values : array_like
        The population (1-d, finite, inside ``[lower, upper]``).
    lower, upper : float
        Public bounds.
    eps_values : array_like
        Non-empty list of privacy losses (> 0); duplicates are dropped, sorted.
    reps : int
        Releases per epsilon, >= 2.
    delta : float, optional
        Delta in (0, 1) for the smooth sensitivity; default ``1 / (2 N)`` as in the paper.
        Ignored for the global sensitivity.
    seed : int
        Seed.
    sensitivity : {"global", "smooth"}
        Which sensitivity scales the noise; ignored when ``mechanism`` is given.
    mechanism : core.mechanisms.Mechanism, optional
        The release mechanism; by default the one ``sensitivity`` names.

    Returns
    -------
    pandas.DataFrame
        Columns ``eps, rep, release, scale`` (``scale`` is the Laplace scale used).
    """
    if sensitivity not in ("global", "smooth"):
        raise ValueError(f"sensitivity must be 'global' or 'smooth'; got {sensitivity!r}")
    lo, hi = check_bounds(lower, upper)
    pop = values_in_bounds(values, lo, hi)
    eps = check_eps_list("eps_values", eps_values)
    T = check_whole("reps", reps, 2, 2**31)
    N = pop.size
    delta = 1.0 / (2.0 * N) if delta is None else check_delta_open("delta", delta)
    rng = _rng(seed)
    if mechanism is not None:
        mech = mechanism
    elif sensitivity == "global":
        mech = GlobalLaplaceQuantile()
    else:
        mech = SmoothLaplaceQuantile()
    releases, scale = _population_releases(mech, pop, lo, hi, eps, delta, T, rng)
    frame = _long_frame(eps, T, releases)
    frame["scale"] = np.repeat(scale, T)
    return frame


def sample_medians(
    values: ArrayLike,
    rates: ArrayLike,
    reps: int,
    seed: int = 0,
) -> pd.DataFrame:
    """Medians of repeated SRSWOR samples, not privatised (Hu et al. Section 4.4, Figure 11).

    For each rate, ``reps`` simple random samples without replacement of size
    ``n = max(1, round(rate N))`` are drawn and their lower median (rank
    ``(n + 1) // 2``) is recorded -- the same draws and the same median as
    :func:`core.gains.median_gain_experiment` uses for the sample releases.

    Parameters
    ----------
    values : array_like
        The population (1-d, finite).
    rates : array_like
        Non-empty list of sampling rates in (0, 1]; duplicates are dropped, sorted.
    reps : int
        Samples per rate, >= 2.
    seed : int
        Seed.

    Returns
    -------
    pandas.DataFrame
        Columns ``rate, rep, n, sample_median``.
    """
    try:
        arr = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError("values must be an array of numbers") from exc
    if arr.ndim != 1 or arr.size == 0 or not np.isfinite(arr).all():
        raise ValueError("values must be a non-empty 1-d array of finite numbers")
    pop = np.sort(arr)
    rr = check_rate_list("rates", rates)
    T = check_whole("reps", reps, 2, 2**31)
    rng = _rng(seed)
    N = pop.size
    parts = []
    for rate in rr:
        n = sample_size(N, float(rate))
        m_idx = sens.median_rank(n) - 1
        med = np.empty(T)
        chunk = max(1, min(T, _CHUNK_ELEMENTS // n))
        for start in range(0, T, chunk):
            stop = min(T, start + chunk)
            med[start:stop] = draw_sorted_samples(rng, pop, n, stop - start)[:, m_idx]
        parts.append(
            pd.DataFrame(
                {
                    "rate": np.full(T, float(rate)),
                    "rep": np.arange(T, dtype=np.int64),
                    "n": np.full(T, n, dtype=np.int64),
                    "sample_median": med,
                }
            )
        )
    return pd.concat(parts, ignore_index=True)
