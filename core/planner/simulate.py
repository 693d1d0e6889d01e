"""Monte Carlo of one design at its rates: whole samples (masks) or windows.

Two samplers, both with the design's exact law (:mod:`core.designs.protocol`):

* **masks** -- random keys per chunk of repetitions, common to every rate (a record is in
  the sample when its key is below the rate's threshold), so curves against the rate are
  smooth and differences between rates are not noise.  Cost O(N) per repetition and rate,
  memory ``rows × N × design.mask_bytes`` per chunk (:mod:`core.planner.memory`).
* **windows** -- only the sample's order statistics near the released rank
  (:mod:`core.windowed`), for mechanisms whose release depends on nothing else
  (:attr:`core.mechanisms.Mechanism.windowed`), at a cost that does not grow with N.  Rates
  are drawn independently.

:func:`use_windows` chooses between them from a cost model.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import NDArray

from .. import mechanisms as mech
from ..designs.frame import Frame
from ..designs.protocol import PlannerDesign, Point
from ..planner.errors import Draws
from ..windowed import window_exponential_draws, window_quantile_draws

__all__ = [
    "SAMPLERS",
    "MaskJob",
    "PointBudget",
    "exponential_first_half",
    "make_mechanism",
    "simulate_census",
    "simulate_masks",
    "simulate_masks_many",
    "simulate_windows",
]

FloatArray = NDArray[np.float64]

SAMPLERS: tuple[str, ...] = ("auto", "full", "window")
#: The mechanisms whose windowed releases are drawn ring by ring
#: (:func:`core.windowed.window_exponential_draws`), not from the statistic and ``S``.
RING_DRAWN = (mech.ExponentialQuantile, mech.PiecewiseLaplaceQuantile)
#: Samples whose exponential-mechanism releases are drawn on windows at once.
EXPONENTIAL_CHUNK = 25
#: Least first half-width of an exponential-mechanism window, in units of
#: ``1 / eps_sample`` ranks (:func:`exponential_first_half`).
FIRST_HALF_EPS = 8.0


def exponential_first_half(eps_sample: float) -> int:
    """The first half-width (in ranks) of the windows of exponential-mechanism releases.

    The smallest power of two at least ``FIRST_HALF_EPS / eps_sample``: the weight beyond
    it, bounded block by block from the unexpanded blocks, is about
    ``e^(-FIRST_HALF_EPS / 2)`` of the ring's or less on smooth data, so most releases are
    decided in the first ring.  The law of the releases does not depend on
    it (:func:`core.windowed.window_exponential_draws`: a wider first window only reads
    more order statistics, a narrower one takes more rounds); the powers of two make it the
    same for every ``eps_sample`` within a factor of two, so releases at nearby budgets
    read the same samples (common random numbers for :mod:`core.planner.accuracy_first`).
    """
    target = min(FIRST_HALF_EPS / eps_sample, 2.0**40)
    return 1 << max(0, math.ceil(math.log2(target)))


class PointBudget:
    """A point of a design with the budget each mechanism spends there."""

    def __init__(
        self, point: Point, eps_sample: dict[str, float], delta_sample: float, bound: dict[str, str]
    ) -> None:
        self.point = point
        self.eps_sample = eps_sample
        self.delta_sample = delta_sample
        self.bound = bound

    @property
    def rate(self) -> float:
        return self.point.rate


def make_mechanism(name: str, frame: Frame, rate: float, quantile: float) -> mech.Mechanism:
    """The mechanism ``name`` as it runs on a sample drawn at ``rate`` from ``frame``."""
    cls = mech.MECHANISMS[name]
    accepted = inspect.signature(cls.__init__).parameters
    offered = {
        "rate": rate,
        "population_size": frame.N,
        "lower": frame.lower,
        "upper": frame.upper,
        "quantile": quantile,
    }
    return cls(**{k: v for k, v in offered.items() if k in accepted})


def noise_cdf(mechanism: mech.Mechanism) -> Callable[[FloatArray], FloatArray] | None:
    """The standard noise CDF of an additive mechanism with a stated variance, else None."""
    if not mechanism.additive or mechanism.unit_noise_variance is None:
        return None
    return mechanism.standard_noise_cdf


def use_windows(design: PlannerDesign, frame: Frame, points: Sequence[Point], sampler: str) -> bool:
    """Whether windows are cheaper than masks for ``design`` on ``frame`` (or forced).

    Cost model: a mask touches every record (cost ``N`` per repetition and rate, plus the
    sort of the sample); a window costs :meth:`PlannerDesign.window_cost` per repetition and
    rate.  ``sampler="full"`` forces masks and ``"window"`` windows where the design has them.
    """
    if sampler == "full" or not points:
        return False
    cost = max(design.window_cost(frame, p) for p in points)
    if not math.isfinite(cost):
        return False
    return sampler == "window" or cost < frame.N


def release_empty(
    mechanism: mech.Mechanism, eps_sample: float, frame: Frame, rng: np.random.Generator, out: Draws
) -> None:
    """The release of an empty sample (possible when the sample size is random), as the
    mechanism states it (:meth:`core.mechanisms.Mechanism.release_empty`); the sample's
    "statistic" is taken as the middle of the range (the lower bound when there is no
    upper one)."""
    c = 0.5 * (frame.lower + frame.upper) if math.isfinite(frame.upper) else frame.lower
    released, variance, scale = mechanism.release_empty(eps_sample, frame.lower, frame.upper, rng)
    out.statistic.append(np.full(1, c))
    out.released.append(np.full(1, released))
    out.noise_variance.append(np.full(1, variance))
    out.noise_scale.append(np.full(1, scale))


def _release_rows(
    mechanism: mech.Mechanism,
    rows: list[FloatArray],
    eps_sample: float,
    delta_sample: float,
    frame: Frame,
    rng: np.random.Generator,
    out: Draws,
) -> None:
    """Run ``mechanism`` on each sample (rows of equal length go as one batch)."""
    lengths = {r.size for r in rows}
    batches = [np.vstack(rows)] if len(lengths) == 1 else [r[None, :] for r in rows]
    for batch in batches:
        if batch.shape[1] == 0:
            release_empty(mechanism, eps_sample, frame, rng, out)
            continue
        rel = mechanism.release(batch, eps_sample, delta_sample, frame.lower, frame.upper, rng)
        out.statistic.append(rel.statistic)
        out.released.append(rel.released)
        nv = rel.noise_variance
        out.noise_variance.append(
            np.full(batch.shape[0], np.nan) if nv is None else np.asarray(nv, dtype=np.float64)
        )
        out.noise_scale.append(np.broadcast_to(rel.noise_scale, rel.released.shape).copy())
    out.sizes.append(np.array([r.size for r in rows], dtype=np.float64))


#: Records per chunk of :func:`simulate_census` (rows × N): the release of a fixed sample
#: may build an index array of the batch's shape.
CENSUS_CHUNK_RECORDS = 4_000_000


def simulate_census(
    mechanism: mech.Mechanism,
    frame: Frame,
    eps_sample: float,
    delta_sample: float,
    reps: int,
    seed: Sequence[int],
) -> Draws:
    """``reps`` releases of ``mechanism`` on the whole population, for a census row whose
    mechanism states no exact error (:meth:`core.mechanisms.Mechanism.exact_error` is None;
    the unbounded quantile).

    The population is one fixed sample, so only the noise varies: the batch is the sorted
    values repeated by a zero-stride view (no copy), in chunks of at most
    :data:`CENSUS_CHUNK_RECORDS` records so that a mechanism's per-record work arrays stay
    bounded.  Cost ``O(reps N)``.
    """
    out = Draws(noise_cdf=noise_cdf(mechanism))
    rng = np.random.default_rng([*seed, 47])
    rows = max(1, min(reps, CENSUS_CHUNK_RECORDS // max(frame.N, 1)))
    for start in range(0, reps, rows):
        size = min(rows, reps - start)
        batch = np.broadcast_to(frame.values, (size, frame.N))
        rel = mechanism.release(batch, eps_sample, delta_sample, frame.lower, frame.upper, rng)
        out.statistic.append(rel.statistic)
        out.released.append(rel.released)
        nv = rel.noise_variance
        out.noise_variance.append(
            np.full(size, np.nan) if nv is None else np.asarray(nv, dtype=np.float64)
        )
        out.noise_scale.append(np.broadcast_to(rel.noise_scale, rel.released.shape).copy())
        out.sizes.append(np.full(size, float(frame.N)))
    return out


class MaskJob(NamedTuple):
    """One statistic's part of :func:`simulate_masks_many`: its mechanisms, their budgets
    at the design's points and the quantile they release."""

    mechanisms: Sequence[str]
    points: Sequence[PointBudget]
    quantile: float


def simulate_masks(
    design: PlannerDesign,
    mechanisms: Sequence[str],
    frame: Frame,
    points: Sequence[PointBudget],
    chunks: Sequence[int],
    seed: Sequence[int],
    quantile: float,
) -> dict[tuple[str, float], Draws]:
    """Monte Carlo of ``design`` at ``points`` on whole samples, common random numbers.

    ``chunks`` lists the repetitions drawn at once (:func:`core.planner.memory.chunks`).
    """
    if not mechanisms:
        return {}
    job = MaskJob(mechanisms, points, quantile)
    return simulate_masks_many(design, frame, [job], chunks, seed)[0]


def simulate_masks_many(
    design: PlannerDesign,
    frame: Frame,
    jobs: Sequence[MaskJob],
    chunks: Sequence[int],
    seed: Sequence[int],
) -> list[dict[tuple[str, float], Draws]]:
    """:func:`simulate_masks` for several statistics released from the same samples.

    Each chunk's keys and each point's mask are drawn once and every job's mechanisms run
    on the same samples (the statistics are released from one sample); every job has its
    own noise, the first job exactly that of :func:`simulate_masks`.  The jobs' points must
    be the same points in the same order.
    """
    results = [
        {
            (m, p.rate): Draws(noise_cdf=noise_cdf(make_mechanism(m, frame, p.rate, job.quantile)))
            for m in job.mechanisms
            for p in job.points
        }
        for job in jobs
    ]
    if not jobs or not jobs[0].points:
        return results
    key_rng = np.random.default_rng(list(seed))
    for c, rows in enumerate(chunks):
        keys = design.draw_keys(frame, rows, key_rng)
        for at, p in enumerate(jobs[0].points):
            mask = design.mask(frame, keys, p.point)
            samples = [frame.values[mask[i]] for i in range(rows)]
            del mask
            for i, job in enumerate(jobs):
                pb = job.points[at]
                tail = [17] if i == 0 else [17, i]
                for j, name in enumerate(job.mechanisms):
                    noise_rng = np.random.default_rng([*seed, j, c, *tail])
                    _release_rows(
                        make_mechanism(name, frame, pb.rate, job.quantile),
                        samples,
                        pb.eps_sample[name],
                        pb.delta_sample,
                        frame,
                        noise_rng,
                        results[i][(name, pb.rate)],
                    )
        del keys
    return results


def _on_rows(source: Any, rows: NDArray[np.int64]) -> Any:
    """``source`` called with the design's repetitions for a chunk of non-empty samples."""

    def chunk_source(gen: np.random.Generator, chunk: NDArray[np.int64]) -> Any:
        return source(gen, rows[chunk])

    return chunk_source


def simulate_windows(
    design: PlannerDesign,
    mechanisms: Sequence[str],
    frame: Frame,
    points: Sequence[PointBudget],
    reps: int,
    seed: Sequence[int],
    quantile: float,
) -> dict[tuple[str, float], Draws]:
    """Monte Carlo of ``design`` at ``points`` on windows (:mod:`core.windowed`).

    Every mechanism of a rate sees the same samples (the exponential and piecewise-Laplace
    quantiles, drawn ring by ring, samples of their own, the same for both).  An empty
    sample is released as by :func:`release_empty`.  Additive releases: ``statistic +
    noise_scale(S, eps) × standard noise``.
    """
    results: dict[tuple[str, float], Draws] = {}
    for p in points:
        tag = round(p.rate * 2**40)
        rng = np.random.default_rng([*seed, 29, tag])
        draw = design.window_draw(frame, p.point, reps, rng)
        assert draw is not None
        sizes = draw.sizes
        rows = np.flatnonzero(sizes > 0)
        filled = sizes[rows]
        objects = [make_mechanism(m, frame, p.rate, quantile) for m in mechanisms]
        # Drawn ring by ring on samples of their own (the exponential mechanism, and the
        # piecewise-Laplace quantile, whose pieces are the exponential mechanism's).
        exponential = [isinstance(o, RING_DRAWN) for o in objects]
        betas = [
            o.window_beta(p.eps_sample[m], p.delta_sample)
            for m, o in zip(mechanisms, objects, strict=True)
        ]
        used = sorted(
            {b for b, x in zip(betas, exponential, strict=True) if b is not None and not x}
        )
        kw: dict[str, Any] = {}
        if draw.source is not None:
            kw["source"] = _on_rows(draw.source, rows)
        stat, S = window_quantile_draws(
            rng, frame.values, filled, quantile, used, frame.lower, frame.upper, **kw
        )
        ones = np.empty((filled.size, 1))
        for j, (name, o, beta) in enumerate(zip(mechanisms, objects, betas, strict=True)):
            eps = p.eps_sample[name]
            noise_rng = np.random.default_rng([*seed, 31, tag, j])
            out = Draws(noise_cdf=noise_cdf(o))
            if filled.size and exponential[j]:
                # In chunks of samples: on heavily tied data a window may have to span a
                # whole run of equal values, and the chunk keeps its memory bounded.  Each
                # chunk has its own samples and noise streams, so a chunk's draws do not
                # depend on how much the chunks before it read.
                for start in range(0, filled.size, EXPONENTIAL_CHUNK):
                    part = slice(start, start + EXPONENTIAL_CHUNK)
                    part_kw: dict[str, Any] = {}
                    if draw.source is not None:
                        part_kw["source"] = _on_rows(draw.source, rows[part])
                    x_stat, x_rel = window_exponential_draws(
                        np.random.default_rng([*seed, 37, tag, start]),
                        np.random.default_rng([*seed, 31, tag, j, start]),
                        frame.values, filled[part], quantile, [eps],
                        frame.lower, frame.upper, **part_kw,
                        first_half=exponential_first_half(eps),
                        piecewise=isinstance(o, mech.PiecewiseLaplaceQuantile),
                    )  # fmt: skip
                    out.statistic.append(x_stat)
                    out.released.append(x_rel[0])
                    out.noise_variance.append(np.full(x_stat.size, np.nan))
                    out.noise_scale.append(np.full(x_stat.size, 2.0 / eps))
            elif filled.size:
                sens_ = (
                    S[used.index(beta)] if beta is not None
                    else o.sensitivity(ones, eps, p.delta_sample, frame.lower, frame.upper)
                )  # fmt: skip
                scale = np.asarray(o.noise_scale(sens_, eps), dtype=np.float64)
                scale = np.broadcast_to(scale, stat.shape).copy()
                out.statistic.append(stat)
                out.released.append(stat + scale * o.standard_noise(noise_rng, stat.shape))
                nv = o.noise_variance(sens_, eps)
                out.noise_variance.append(
                    np.full(stat.size, np.nan) if nv is None
                    else np.broadcast_to(np.asarray(nv, dtype=np.float64), stat.shape).copy()
                )  # fmt: skip
                out.noise_scale.append(scale)
            for _ in range(int((sizes == 0).sum())):
                release_empty(o, eps, frame, noise_rng, out)
            out.sizes.append(sizes.astype(np.float64))
            results[(name, p.rate)] = out
    return results
