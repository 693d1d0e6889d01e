"""Sorted samples and the released statistics of every rate, for the median experiment.

SRSWOR samples of the sorted population, drawn whole (:func:`draw_sorted_samples`) or only
as the window of order statistics around the quantile's rank (:mod:`core.windowed`), in
chunks of bounded memory; for each rate the sample statistics, sensitivities and standard
noise draws that :mod:`core.gains.measures` summarises (Hu, Drechsler & Kim, Sections 4.3
and 4.4).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .. import amplification as amp
from .._validation import FloatArray
from ..amplification import sample_size
from ..mechanisms import (
    ExponentialQuantile,
    GaussianMean,
    Mechanism,
    PiecewiseLaplaceQuantile,
    exponential_quantile_distribution,
)
from ..windowed import window_exponential_draws, window_quantile_draws

__all__ = [
    "DELTA_SAMPLE_CAP",
    "draw_sorted_samples",
]

#: Mechanisms whose windowed releases are drawn ring by ring
#: (:func:`core.windowed.window_exponential_draws`).
_RING_DRAWN = (ExponentialQuantile, PiecewiseLaplaceQuantile)


#: Largest ``delta_sample`` handed to the smooth sensitivity.  ``delta_target / rate``
#: reaches 1 for tiny samples; a delta >= 1 places no constraint at all and the smooth
#: sensitivity's ``beta = eps / (2 log(2 / delta))`` needs ``delta < 1`` to stay in the
#: regime of Nissim et al., so the amplified delta is capped just below 1.
DELTA_SAMPLE_CAP = 1.0 - 1e-9


# Rows of the (reps x n) sample matrix handled at once: keeps the matrix of sorted sample
# values (and its index matrix) at about 16 MB each, whatever n and reps are.
_CHUNK_ELEMENTS = 2_000_000


def draw_sorted_samples(
    rng: np.random.Generator, sorted_values: FloatArray, n: int, reps: int
) -> FloatArray:
    """Draw ``reps`` SRSWOR samples of size ``n`` and return them sorted, one per row.

    Each row comes from ``rng.choice(N, n, replace=False, shuffle=False)``; sorting the
    *indices* into the sorted population yields the sorted sample values directly.

    Parameters
    ----------
    rng : numpy.random.Generator
        Source of randomness (advanced by ``reps`` draws).
    sorted_values : ndarray
        The population, sorted ascending.
    n : int
        Sample size, 1 <= n <= N.
    reps : int
        Number of samples.

    Returns
    -------
    ndarray, shape (reps, n)
        Sorted sample values.
    """
    N = sorted_values.size
    idx = np.empty((reps, n), dtype=np.intp)
    for r in range(reps):
        idx[r] = rng.choice(N, n, replace=False, shuffle=False)
    idx.sort(axis=1)
    return sorted_values[idx]


def _simulated_by_release(mech: Mechanism) -> bool:
    """Whether ``mech`` is simulated through its own ``release`` (drawn releases).

    Non-additive mechanisms (the exponential mechanism), and additive ones whose noise scale
    needs more than ``(S, eps)`` (the analytic Gaussian's depends on ``delta``), are; the
    others are simulated as ``statistic + noise_scale * standard_noise``.
    """
    if not mech.additive:
        return True
    try:
        mech.noise_scale(np.ones(1), 1.0)
    except ValueError:
        return True
    return False


@dataclass(frozen=True, eq=False)
class _RateDraws:
    """Everything simulated for one rate: shared by all eps_target (row j of 2-d arrays).

    Additive mechanisms keep the standard noise draws ``z``; the others (simulated through
    their own ``release``) keep the ``released`` values and, when the mechanism states it,
    the exact conditional ``noise_var``.
    """

    rate: float
    n: int
    eps_sample: FloatArray  # (n_eps,)
    delta_sample: float
    medians: FloatArray  # (T,)
    sensitivity: FloatArray  # (n_eps, T)
    z: FloatArray | None = None  # (n_eps, T) standard noise draws
    released: FloatArray | None = None  # (n_eps, T)
    noise_var: FloatArray | None = None  # (n_eps, T)


@dataclass(frozen=True)
class _Setup:
    """Validated inputs shared by every mechanism of one simulation."""

    pop: FloatArray
    lower: float
    upper: float
    eps: FloatArray
    sample_rates: FloatArray
    reps: int
    delta: float
    amplify_delta: bool
    seed: int
    sampler: str = "auto"


def _population_release(
    mech: Mechanism, s: _Setup, rng: np.random.Generator
) -> tuple[FloatArray, FloatArray | None, FloatArray]:
    """``(released, noise_var or None, sensitivity)``, each ``(n_eps, T)``, for the census.

    The exponential mechanism is drawn from its exact law on the population
    (:func:`core.mechanisms.exponential_quantile_distribution`: an interval by its
    probability, then a uniform point), which is the law of its ``release`` and costs
    ``O(N)`` instead of ``O(T N)``; other mechanisms release ``T`` copies in chunks.
    """
    N, T = s.pop.size, s.reps
    released = np.empty((s.eps.size, T))
    noise_var: FloatArray | None = None
    sensitivity = np.empty((s.eps.size, T))
    chunk = max(1, min(T, _CHUNK_ELEMENTS // N))
    for j, e in enumerate(s.eps):
        if isinstance(mech, ExponentialQuantile):
            edges, p = exponential_quantile_distribution(
                s.pop, float(e), s.lower, s.upper, mech.quantile
            )
            pick = np.minimum(np.searchsorted(np.cumsum(p), rng.random(T) * p.sum()), p.size - 1)
            left, right = edges[pick], edges[pick + 1]
            released[j] = np.clip(left + rng.random(T) * (right - left), left, right)
            sensitivity[j] = 1.0
            continue
        for start in range(0, T, chunk):
            stop = min(T, start + chunk)
            rows = np.broadcast_to(s.pop, (stop - start, N))
            out = mech.release(rows, float(e), s.delta, s.lower, s.upper, rng)
            released[j, start:stop] = out.released
            sensitivity[j, start:stop] = out.sensitivity
            if out.noise_variance is not None:
                noise_var = np.empty((s.eps.size, T)) if noise_var is None else noise_var
                noise_var[j, start:stop] = out.noise_variance
    return released, noise_var, sensitivity


def _population_draws(
    mech: Mechanism, s: _Setup, rng: np.random.Generator, m_N: float
) -> tuple[_RateDraws, FloatArray]:
    """The population "rate" (the sample is the census) and its sensitivity per eps."""
    n_eps, T, N = s.eps.size, s.reps, s.pop.size
    if _simulated_by_release(mech):
        released, noise_var, sensitivity = _population_release(mech, s, rng)
        draws = _RateDraws(
            1.0, N, s.eps, s.delta, np.full(T, m_N), sensitivity,
            released=released, noise_var=noise_var,
        )  # fmt: skip
        return draws, sensitivity[:, 0]
    # One eps at a time on the population itself: no (n_eps, N) copy of a large population.
    row = s.pop[np.newaxis, :]
    s_pop = np.array([mech.sensitivity(row, float(e), s.delta, s.lower, s.upper)[0] for e in s.eps])
    draws = _RateDraws(
        1.0, N, s.eps, s.delta, np.full(T, m_N),
        np.repeat(s_pop[:, np.newaxis], T, axis=1), z=mech.standard_noise(rng, (n_eps, T)),
    )  # fmt: skip
    return draws, s_pop


@dataclass
class _RateBuffers:
    """Arrays one mechanism fills chunk by chunk for one sampling rate."""

    medians: FloatArray
    sensitivity: FloatArray
    released: FloatArray | None
    noise_var: FloatArray | None


def _fill_chunk(
    mech: Mechanism,
    buf: _RateBuffers,
    samples: FloatArray,
    sl: slice,
    eps_s: FloatArray,
    delta_s: float,
    s: _Setup,
    rng: np.random.Generator,
) -> None:
    """Statistic and sensitivity (or releases) of one chunk of samples, every eps."""
    buf.medians[sl] = mech.statistic(samples)
    if buf.released is None:
        for j in range(eps_s.size):
            buf.sensitivity[j, sl] = mech.sensitivity(samples, eps_s[j], delta_s, s.lower, s.upper)
        return
    budgets = [float(e) for e in eps_s]
    for j, out in enumerate(mech.release_each(samples, budgets, delta_s, s.lower, s.upper, rng)):
        buf.released[j, sl] = out.released
        buf.sensitivity[j, sl] = out.sensitivity
        if buf.noise_var is not None and out.noise_variance is not None:
            buf.noise_var[j, sl] = out.noise_variance


#: Sample size from which ``sampler="auto"`` draws only the window around the quantile's
#: rank (:mod:`core.windowed`) instead of the whole sample: below it a whole sample is
#: cheap, above it the window's cost does not grow with ``n``.
WINDOW_FROM_N = 50_000

_SAMPLERS: tuple[str, ...] = ("auto", "full", "window")


def _use_window(mechs: Sequence[Mechanism], n: int, s: _Setup) -> bool:
    """Whether this rate's samples are drawn as windows (:mod:`core.windowed`)."""
    can = (
        all(
            m.windowed and (isinstance(m, _RING_DRAWN) or not _simulated_by_release(m))
            for m in mechs
        )
        and len({getattr(m, "quantile", None) for m in mechs}) == 1
    )
    if s.sampler == "window" and not can:
        names = [m.name for m in mechs if not m.windowed]
        raise ValueError(
            f"sampler='window' needs mechanisms whose release can be drawn from order "
            f"statistics near one rank (smooth_laplace, smooth_pure, global_laplace, "
            f"exponential, smooth_polyplace, piecewise_laplace); "
            f"{names or [m.name for m in mechs]} need the whole sample"
        )
    return can and (s.sampler == "window" or (s.sampler == "auto" and n >= WINDOW_FROM_N))


def _fill_from_windows(
    mechs: Sequence[Mechanism],
    buffers: Sequence[_RateBuffers],
    n: int,
    eps_s: FloatArray,
    delta_s: float,
    s: _Setup,
    sample_rng: np.random.Generator,
    noise_rngs: Sequence[np.random.Generator],
) -> None:
    """Statistic and sensitivity (or releases) of every mechanism from windows.

    The additive quantile mechanisms share one set of windows, hence the same samples for
    every mechanism and ``eps`` (common random numbers), as with whole samples.  The
    exponential and piecewise-Laplace quantiles are drawn ring by ring on samples of their
    own (:func:`core.windowed.window_exponential_draws`).
    """
    sizes = np.full(s.reps, n)
    quantile = float(getattr(mechs[0], "quantile", 0.5))
    additive = [a for a, m in enumerate(mechs) if not isinstance(m, _RING_DRAWN)]
    if additive:
        betas: list[float] = []
        index: dict[tuple[int, int], int] = {}
        for a in additive:
            for j, e in enumerate(eps_s):
                beta = mechs[a].window_beta(float(e), delta_s)
                if beta is not None:
                    index[(a, j)] = len(betas)
                    betas.append(beta)
        stat, sensitivity = window_quantile_draws(
            sample_rng, s.pop, sizes, quantile, betas, s.lower, s.upper
        )
        one = np.empty((s.reps, 1))
        for a in additive:
            buf = buffers[a]
            buf.medians[:] = stat
            for j, e in enumerate(eps_s):
                k = index.get((a, j))
                buf.sensitivity[j] = (
                    sensitivity[k] if k is not None
                    else mechs[a].sensitivity(one, float(e), delta_s, s.lower, s.upper)
                )  # fmt: skip
    for a, m in enumerate(mechs):
        if isinstance(m, _RING_DRAWN):
            buf = buffers[a]
            assert buf.released is not None
            stat, released = window_exponential_draws(
                sample_rng, noise_rngs[a], s.pop, sizes, quantile, eps_s, s.lower, s.upper,
                piecewise=isinstance(m, PiecewiseLaplaceQuantile),
            )  # fmt: skip
            buf.medians[:] = stat
            buf.released[:] = released
            buf.sensitivity[:] = 1.0


def _rate_draws(
    mechs: Sequence[Mechanism],
    rate: float,
    s: _Setup,
    sample_rng: np.random.Generator,
    noise_rngs: Sequence[np.random.Generator],
) -> list[_RateDraws]:
    """One sampling rate: the samples are drawn once and handed to every mechanism."""
    N, T, n_eps = s.pop.size, s.reps, s.eps.size
    n = sample_size(N, float(rate))
    realised = n / N
    eps_s = np.atleast_1d(np.asarray(amp.eps_sample(s.eps, realised), dtype=np.float64))
    delta_s = min(s.delta / realised, DELTA_SAMPLE_CAP) if s.amplify_delta else s.delta
    buffers = []
    for mech in mechs:
        by_release = _simulated_by_release(mech)
        buffers.append(
            _RateBuffers(
                np.empty(T), np.empty((n_eps, T)),
                np.empty((n_eps, T)) if by_release else None,
                np.empty((n_eps, T)) if by_release and isinstance(mech, GaussianMean) else None,
            )
        )  # fmt: skip
    if _use_window(mechs, n, s):
        _fill_from_windows(mechs, buffers, n, eps_s, delta_s, s, sample_rng, noise_rngs)
    else:
        chunk = max(1, min(T, _CHUNK_ELEMENTS // n))
        for start in range(0, T, chunk):
            stop = min(T, start + chunk)
            samples = draw_sorted_samples(sample_rng, s.pop, n, stop - start)
            for mech, buf, rng in zip(mechs, buffers, noise_rngs, strict=True):
                _fill_chunk(mech, buf, samples, slice(start, stop), eps_s, delta_s, s, rng)
    out = []
    for mech, buf, rng in zip(mechs, buffers, noise_rngs, strict=True):
        z = None if buf.released is not None else mech.standard_noise(rng, (n_eps, T))
        out.append(
            _RateDraws(
                float(rate), n, eps_s, delta_s, buf.medians, buf.sensitivity,
                z=z, released=buf.released, noise_var=buf.noise_var,
            )
        )  # fmt: skip
    return out
