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

import functools
import inspect
import math
import weakref
from collections.abc import Callable, Iterator, Sequence
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import NDArray

from .. import mechanisms as mech
from ..designs.frame import Frame
from ..designs.protocol import PlannerDesign, Point
from ..mechanisms.rows import EmptyParts, SortedRows, concatenate, empty_release
from ..planner.errors import Draws
from ..threads import each
from ..windowed import window_exponential_draws, window_quantile_draws

__all__ = [
    "SAMPLERS",
    "MaskJob",
    "PointBudget",
    "chunk_keys",
    "exponential_first_half",
    "make_mechanism",
    "mask_samples",
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
#: Order statistics (or runs) the windows of one chunk of ring-drawn releases may hold at
#: first: a chunk has ``EXPONENTIAL_CELLS // width`` samples (at least one), ``width`` the
#: first window's width plus, on windows of records, twice the longest tie block a sample
#: of the rate holds (a window may have to span it).  About 32 MiB per array of a chunk.
EXPONENTIAL_CELLS = 1 << 22
#: Least first half-width of an exponential-mechanism window, in units of
#: ``1 / eps_sample`` ranks (:func:`exponential_first_half`).
FIRST_HALF_EPS = 4.0


def exponential_first_half(eps_sample: float) -> int:
    """The first half-width (in ranks) of the windows of exponential-mechanism releases.

    The smallest power of two at least ``FIRST_HALF_EPS / eps_sample``: the weight beyond
    it, bounded block by block from the unexpanded blocks, is about
    ``e^(-FIRST_HALF_EPS / 2)`` (one seventh) of the ring's or less on smooth data, so most
    releases are decided in the first ring and nearly all others in the second; that reads
    fewer order statistics in all than a first window wide enough to decide nearly every
    release (``bench.bench_planner``, accuracy first at N = 10^7).  The law of the
    releases does not depend on it (:func:`core.windowed.window_exponential_draws`: a wider
    first window only reads more order statistics, a narrower one takes more rounds); the
    powers of two make it the same for every ``eps_sample`` within a factor of two, so
    releases at nearby budgets read the same samples (common random numbers for
    :mod:`core.planner.accuracy_first`).
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


@functools.cache
def _parameters(cls: type[mech.Mechanism]) -> frozenset[str]:
    """The names ``cls.__init__`` accepts (read once per class: ``inspect.signature`` is
    slow, and a plan makes a mechanism per design, rate and name)."""
    return frozenset(inspect.signature(cls.__init__).parameters)


def make_mechanism(name: str, frame: Frame, rate: float, quantile: float) -> mech.Mechanism:
    """The mechanism ``name`` as it runs on a sample drawn at ``rate`` from ``frame``."""
    cls = mech.MECHANISMS[name]
    accepted = _parameters(cls)
    offered: dict[str, Any] = {
        "rate": rate,
        "population_size": frame.N,
        "lower": frame.lower,
        "upper": frame.upper,
        "quantile": quantile,
    }
    if "size_hint" in accepted:  # a mechanism that plans its own split (SumCountMean)
        offered["size_hint"] = rate * frame.N
        offered["offset_hint"] = frame.value("mean") - 0.5 * (frame.lower + frame.upper)
    return cls(**{k: v for k, v in offered.items() if k in accepted})


def noise_cdf(mechanism: mech.Mechanism) -> Callable[[FloatArray], FloatArray] | None:
    """The standard noise CDF of an additive mechanism with a stated variance, else None."""
    if not mechanism.additive or mechanism.unit_noise_variance is None:
        return None
    return mechanism.standard_noise_cdf


def new_draws(mechanism: mech.Mechanism, frame: Frame) -> Draws:
    """Empty :class:`Draws` of ``mechanism`` on ``frame``: its noise CDF and the public bounds
    every release is clamped to."""
    return Draws(noise_cdf=noise_cdf(mechanism), lower=frame.lower, upper=frame.upper)


def append_release(out: Draws, rel: mech.Release) -> None:
    """Append one batch's release (statistic, clamped release, noise law) to ``out``."""
    size = rel.released.shape[0]

    def column(values: Any) -> FloatArray:
        if values is None:
            return np.full(size, np.nan)
        return np.broadcast_to(np.asarray(values, dtype=np.float64), (size,)).copy()

    out.statistic.append(rel.statistic)
    out.released.append(rel.released)
    out.noise_variance.append(column(rel.noise_variance))
    out.noise_mean.append(column(rel.noise_mean))
    out.noise_square.append(column(rel.noise_square))
    out.noise_scale.append(column(rel.noise_scale))
    out.laws.append(rel.law)


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
    mechanism: mech.Mechanism,
    eps_sample: float,
    frame: Frame,
    rng: np.random.Generator,
    out: Draws,
    known: dict[tuple[float, float], EmptyParts] | None = None,
) -> None:
    """Append the release of an empty sample (possible when the sample size is random) to
    ``out`` (:func:`core.mechanisms.rows.empty_release`).

    ``known``, shared by the empty samples of one mechanism and budget, keeps the parts of
    the release that do not depend on the draw (the clamped noise's moments and the law),
    so they are computed once rather than once per empty sample; the draws are the same.
    """
    append_release(out, empty_release(mechanism, eps_sample, frame.lower, frame.upper, rng, known))


def release_empties(
    mechanism: mech.Mechanism,
    eps_sample: float,
    frame: Frame,
    rng: np.random.Generator,
    out: Draws,
    count: int,
) -> None:
    """Append the releases of ``count`` empty samples to ``out`` as one batch: each drawn
    by :func:`core.mechanisms.rows.empty_release` in turn from ``rng`` (the same draws as
    ``count`` calls of :func:`release_empty`, sharing their draw-free parts), joined by
    :func:`core.mechanisms.rows.concatenate`."""
    if count <= 0:
        return
    known: dict[tuple[float, float], EmptyParts] = {}
    lo, hi = frame.lower, frame.upper
    pieces = [empty_release(mechanism, eps_sample, lo, hi, rng, known) for _ in range(count)]
    append_release(out, concatenate(pieces))


def mask_samples(frame: Frame, mask: NDArray[np.bool_]) -> SortedRows:
    """The samples of ``mask`` (one row per repetition, one column per record), end to end:
    the population's sorted values where the row is true (:meth:`SortedRows.from_mask`)."""
    return SortedRows.from_mask(frame.values, mask)


def _release_rows(
    mechanism: mech.Mechanism,
    rows: SortedRows,
    eps_sample: float,
    delta_sample: float,
    frame: Frame,
    rng: np.random.Generator,
    out: Draws,
) -> None:
    """Run ``mechanism`` on each sample: samples of one size as one batch
    (:meth:`core.mechanisms.Mechanism.release`), samples of different sizes by
    :meth:`core.mechanisms.Mechanism.release_rows` (the draws of one release per sample,
    in one call), or all at once by a mechanism that releases samples of any sizes
    together (:attr:`core.mechanisms.Mechanism.ragged`)."""
    size = rows.equal_size()
    if mechanism.ragged:
        rel = mechanism.release_ragged(rows, eps_sample, frame.lower, frame.upper, rng)
    elif size:  # one batch, already checked
        rel = mechanism.release(rows, eps_sample, delta_sample, frame.lower, frame.upper, rng)
    else:
        rel = mechanism.release_rows(rows, eps_sample, delta_sample, frame.lower, frame.upper, rng)
    append_release(out, rel)
    out.sizes.append(rows.sizes.astype(np.float64))


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
    out = new_draws(mechanism, frame)
    rng = np.random.default_rng([*seed, 47])
    rows = max(1, min(reps, CENSUS_CHUNK_RECORDS // max(frame.N, 1)))
    for start in range(0, reps, rows):
        size = min(rows, reps - start)
        batch = np.broadcast_to(frame.values, (size, frame.N))
        rel = mechanism.release(batch, eps_sample, delta_sample, frame.lower, frame.upper, rng)
        append_release(out, rel)
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
            (m, p.rate): new_draws(make_mechanism(m, frame, p.rate, job.quantile), frame)
            for m in job.mechanisms
            for p in job.points
        }
        for job in jobs
    ]
    if not jobs or not jobs[0].points:
        return results
    for c, keys in enumerate(chunk_keys(design, frame, chunks, seed)):
        for at, p in enumerate(jobs[0].points):
            samples = mask_samples(frame, design.mask(frame, keys, p.point))
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


#: Bytes of a design's keys that :func:`chunk_keys` keeps for the next call with the same
#: design, population, seed and chunks (the refinement's rates evaluated after the grid's,
#: a search over ε_target): at most this per design, so little is held between plans.
KEYS_MEMO_BYTES = 16 << 20
#: Per design name: the population (weakly), seed, chunks and keys of the last call kept.
_KEYS_MEMO: dict[str, tuple[weakref.ref[Frame], tuple[int, ...], tuple[int, ...], list[Any]]] = {}


def chunk_keys(
    design: PlannerDesign, frame: Frame, chunks: Sequence[int], seed: Sequence[int]
) -> Iterator[Any]:
    """Each chunk's keys (:meth:`PlannerDesign.draw_keys`), drawn in turn from the stream
    ``seed``.

    Keys are a function of the design, the population, the seed and the chunks alone, so
    the keys of the last call are kept (when they are arrays of at most
    :data:`KEYS_MEMO_BYTES` in all, made read-only) and given again to a call that asks for
    the same: the same numbers, without drawing them twice.
    """
    tag = (tuple(int(x) for x in seed), tuple(int(x) for x in chunks))
    kept = _KEYS_MEMO.get(design.name)
    if kept is not None and kept[0]() is frame and kept[1:3] == tag:
        yield from kept[3]
        return
    key_rng = np.random.default_rng(list(seed))
    drawn: list[Any] = []
    size = 0
    for rows in chunks:
        keys = design.draw_keys(frame, rows, key_rng)
        if isinstance(keys, np.ndarray) and size + keys.nbytes <= KEYS_MEMO_BYTES:
            keys.flags.writeable = False
            size += keys.nbytes
            drawn.append(keys)
        else:
            size = KEYS_MEMO_BYTES + 1
            drawn = []
        yield keys
    if drawn and len(drawn) == len(chunks):
        _KEYS_MEMO[design.name] = (weakref.ref(frame), *tag, drawn)


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

    The work of each point is a few independent tasks, each with random streams of its own
    (the smooth-sensitivity windows and the additive releases; each chunk of each
    ring-drawn mechanism).  When the windows are wide (:data:`PARALLEL_RECORDS`) the tasks
    of all points run on two threads (:func:`core.threads.each`, costliest first); the
    draws are the same either way.
    """
    prepared = [_WindowPoint(design, mechanisms, frame, p, reps, seed, quantile) for p in points]
    tasks = [(w, part) for w in prepared for part in w.parts()]
    cost = [w.cost(part) for w, part in tasks]
    wide = sum(cost) >= PARALLEL_RECORDS and frame.tied_runs() is None
    if wide:
        each(lambda task: task[0].run(task[1]), tasks, cost=cost)
    else:
        for w, part in tasks:
            w.run(part)
    results: dict[tuple[str, float], Draws] = {}
    for w in prepared:
        results.update(w.draws())
    return results


#: Records the windows of one plan's design must read in all (:meth:`_WindowPoint.cost`)
#: from which :func:`simulate_windows` runs its tasks on two threads at once.  Below it the
#: work is many small numpy steps that hold the GIL, and two threads take longer than one.
PARALLEL_RECORDS = float(1 << 23)
#: Half-width of a smooth-sensitivity window in units of ``1 / beta`` (about what
#: :func:`core.windowed.window_quantile_draws` reads on smooth data).
_SMOOTH_HALF_BETAS = 3.0

#: A task of a point: ``None`` for the smooth-sensitivity windows and the additive
#: releases, ``(j, start)`` for the chunk of ring-drawn mechanism ``j`` from sample ``start``.
_Part = tuple[int, int] | None


class _WindowPoint:
    """One point of :func:`simulate_windows`: its samples' sizes, and its tasks' results.

    The sizes and the sources are drawn when the point is made, from the point's own
    stream (``[*seed, 29, tag]``); the smooth-sensitivity windows then continue that
    stream, and each ring-drawn chunk has streams of its own, so the tasks may run in any
    order.
    """

    def __init__(
        self,
        design: PlannerDesign,
        mechanisms: Sequence[str],
        frame: Frame,
        p: PointBudget,
        reps: int,
        seed: Sequence[int],
        quantile: float,
    ) -> None:
        self.mechanisms, self.frame, self.p = list(mechanisms), frame, p
        self.seed, self.quantile = list(seed), quantile
        self.tag = round(p.rate * 2**40)
        self.rng = np.random.default_rng([*seed, 29, self.tag])
        draw = design.window_draw(frame, p.point, reps, self.rng)
        assert draw is not None
        self.source = draw.source
        self.sizes = draw.sizes
        self.rows = np.flatnonzero(self.sizes > 0)
        self.filled = self.sizes[self.rows]
        self.objects = [make_mechanism(m, frame, p.rate, quantile) for m in mechanisms]
        # Drawn ring by ring on samples of their own (the exponential mechanism, and the
        # piecewise-Laplace quantile, whose pieces are the exponential mechanism's).
        self.ring = [isinstance(o, RING_DRAWN) for o in self.objects]
        self.betas = [
            o.window_beta(p.eps_sample[m], p.delta_sample)
            for m, o in zip(mechanisms, self.objects, strict=True)
        ]
        self.used = sorted(
            {b for b, x in zip(self.betas, self.ring, strict=True) if b is not None and not x}
        )
        self.chunk = {j: self._chunk(j) for j, ring in enumerate(self.ring) if ring}
        self.chunks: dict[tuple[int, int], tuple[FloatArray, FloatArray]] = {}
        self.stat: FloatArray = np.empty(0)
        self.S: FloatArray = np.empty((0, 0))

    def _chunk(self, j: int) -> int:
        """Samples per chunk of ring-drawn mechanism ``j`` (:data:`EXPONENTIAL_CELLS`)."""
        width = 2 * exponential_first_half(self.p.eps_sample[self.mechanisms[j]]) + 1
        if self.frame.tied_runs() is None:  # windows of records: a tie block is read whole
            width += 2 * math.ceil(self.p.rate * self.frame.value_runs().longest)
        return max(1, EXPONENTIAL_CELLS // width)

    def parts(self) -> list[_Part]:
        """The point's tasks: the smooth windows first, then every ring-drawn chunk."""
        out: list[_Part] = [None]
        if self.filled.size:
            for j, ring in enumerate(self.ring):
                if ring:
                    out += [(j, s) for s in range(0, self.filled.size, self.chunk[j])]
        return out

    def cost(self, part: _Part) -> float:
        """About how many order statistics task ``part`` reads: ``±3 / beta`` ranks per
        sample for the smooth windows, ``±`` :func:`exponential_first_half` for a ring-drawn
        chunk, never more than the expected sample size ``rate × N``.  For scheduling only."""
        if part is None:
            width = 2.0 * _SMOOTH_HALF_BETAS / min(self.used) if self.used else 1.0
            samples = self.filled.size
        else:
            j, start = part
            width = 2.0 * exponential_first_half(self.p.eps_sample[self.mechanisms[j]])
            samples = min(self.chunk[j], self.filled.size - start)
        return samples * min(width, self.p.rate * self.frame.N)

    def _source(self, rows: NDArray[np.int64]) -> dict[str, Any]:
        return {} if self.source is None else {"source": _on_rows(self.source, rows)}

    def run(self, part: _Part) -> None:
        """Compute task ``part``."""
        frame = self.frame
        if part is None:
            self.stat, self.S = window_quantile_draws(
                self.rng, frame.values, self.filled, self.quantile, self.used,
                frame.lower, frame.upper, **self._source(self.rows),
            )  # fmt: skip
            return
        # In chunks of samples: on heavily tied data a window may have to span a whole run
        # of equal values, and the chunk keeps its memory bounded.  Each chunk has its own
        # samples and noise streams, so a chunk's draws do not depend on how much the
        # chunks before it read.
        j, start = part
        eps = self.p.eps_sample[self.mechanisms[j]]
        stop = start + self.chunk[j]
        part_rows = self.rows[start:stop]
        x_stat, x_rel = window_exponential_draws(
            np.random.default_rng([*self.seed, 37, self.tag, start]),
            np.random.default_rng([*self.seed, 31, self.tag, j, start]),
            frame.values, self.filled[start:stop], self.quantile,
            [eps], frame.lower, frame.upper, **self._source(part_rows),
            first_half=exponential_first_half(eps),
            piecewise=isinstance(self.objects[j], mech.PiecewiseLaplaceQuantile),
        )  # fmt: skip
        self.chunks[(j, start)] = (x_stat, x_rel[0])

    def draws(self) -> dict[tuple[str, float], Draws]:
        """Every mechanism's draws, once every task has run."""
        p, frame, stat = self.p, self.frame, self.stat
        results: dict[tuple[str, float], Draws] = {}
        ones = np.empty((self.filled.size, 1))
        for j, (name, o, beta) in enumerate(
            zip(self.mechanisms, self.objects, self.betas, strict=True)
        ):
            eps = p.eps_sample[name]
            noise_rng = np.random.default_rng([*self.seed, 31, self.tag, j])
            out = new_draws(o, frame)
            if self.filled.size and self.ring[j]:
                for start in range(0, self.filled.size, self.chunk[j]):
                    x_stat, x_rel = self.chunks[(j, start)]
                    nan = np.full(x_stat.size, np.nan)
                    scale = np.full(x_stat.size, 2.0 / eps)
                    append_release(out, mech.Release(x_rel, x_stat, nan, scale, None))
            elif self.filled.size:
                sens_ = (
                    self.S[self.used.index(beta)] if beta is not None
                    else o.sensitivity(ones, eps, p.delta_sample, frame.lower, frame.upper)
                )  # fmt: skip
                scale = np.asarray(o.noise_scale(sens_, eps), dtype=np.float64)
                scale = np.broadcast_to(scale, stat.shape).copy()
                nv = o.noise_variance(sens_, eps)
                draws = o.standard_noise(noise_rng, stat.shape)
                sens_rows = np.broadcast_to(np.asarray(sens_, dtype=np.float64), stat.shape)
                append_release(
                    out,
                    o.clamped_release(
                        stat, scale, sens_rows,
                        None if nv is None else np.broadcast_to(nv, stat.shape),
                        draws, frame.lower, frame.upper,
                    ),
                )  # fmt: skip
            release_empties(o, eps, frame, noise_rng, out, int((self.sizes == 0).sum()))
            out.sizes.append(self.sizes.astype(np.float64))
            results[(name, p.rate)] = out
        return results
