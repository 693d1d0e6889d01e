"""Exact output laws of the planner's releases on tiny populations: the slow reference.

Used by ``tests/core/planner/test_exact_privacy.py``.  Everything here is written from the
definitions, for populations of a handful of records, with no cleverness:

* :func:`sample_law` -- every sample a design can draw, with its probability, enumerated
  (every subset of a fixed size, every pattern of Poisson coins, every randomised rounding
  of a proportional allocation with every subset inside each stratum, every set of drawn
  clusters).  One enumerator per design name in :data:`ENUMERATORS`; a design added to the
  registry without one makes the tests fail and say so.
* :func:`release_law` -- the law of the release given each sample: for an additive
  mechanism ``clip(statistic + noise_scale · Z, L, U)`` read from the mechanism's own
  :meth:`~core.mechanisms.Mechanism.release` (statistic and scale per sample) and its
  :meth:`~core.mechanisms.Mechanism.standard_noise_cdf`; for the non-additive mechanisms
  the exact law from their definitions (:data:`NON_ADDITIVE`); for an empty sample the law
  the mechanism states (:func:`empty_law`).  A new additive mechanism needs nothing here; a
  new non-additive one needs one entry in :data:`NON_ADDITIVE` (here: the exponential and
  piecewise-Laplace quantiles, piecewise laws on the bounds; the unbounded quantile, the
  law of its released threshold index integrated over its noisy threshold; the noisy sum
  over a noisy count, a clipped Laplace integrated over its noisy count).
* :func:`compare` -- the largest log ratio of the two laws' probabilities over a fine
  partition of the real line (every elementary interval where both laws are piecewise
  constant, plus a grid of each additive component's scale reaching far into the tails;
  each finite bound an edge, and one just below the upper bound, so that the atoms of a
  clamped release are cells of their own, with cells shrinking geometrically towards the
  bounds for the noisy sum over a noisy count; for a released index, every index where
  either law's counts change, offsets from there, and the tail beyond), and the
  hockey-stick divergence at a given ε.  Releasing the cell of a partition is a
  post-processing of the release, so both numbers are lower bounds of the true ones: a
  value above a claim is a real violation, not a discretisation artefact; they converge
  to the suprema as the partition is refined.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from core.designs.frame import Frame
from core.designs.protocol import PlannerDesign, Point
from core.mechanisms import Mechanism
from core.mechanisms.exponential import ExponentialQuantile
from core.mechanisms.piecewise_laplace import PiecewiseLaplaceQuantile
from core.mechanisms.sum_count import SumCountMean
from core.mechanisms.unbounded import UnboundedQuantile, threshold_indices
from core.population import Population
from core.sensitivity import quantile_rank

FloatArray = NDArray[np.float64]

#: A record: (value, stratum label, cluster label).
Record = tuple[float, int, int]
#: A sample: its sorted values.
Sample = tuple[float, ...]
#: A sampling law: each distinct sample (sorted values) with its probability.
SampleLaw = dict[Sample, float]


# ---------------------------------------------------------------------------------------
# Tiny populations and their neighbours
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Toy:
    """A tiny population: records (value, stratum, cluster) inside public bounds."""

    records: tuple[Record, ...]
    lower: float
    upper: float

    @property
    def N(self) -> int:
        return len(self.records)

    def population(self) -> Population:
        """The population with its values sorted (labels kept with their records)."""
        rec = sorted(self.records, key=lambda r: r[0])
        return Population(
            "toy",
            np.array([r[0] for r in rec], dtype=np.float64),
            self.lower,
            self.upper,
            strata=np.array([r[1] for r in rec]),
            clusters=np.array([r[2] for r in rec]),
        )

    def frame(self) -> Frame:
        return Frame.of(self.population())

    def strata(self) -> list[int]:
        return sorted({r[1] for r in self.records})

    def clusters(self) -> list[int]:
        return sorted({r[2] for r in self.records})


@dataclass(frozen=True)
class Neighbour:
    """A neighbouring population and how it was made."""

    kind: str
    toy: Toy
    note: str


def _largest_cluster(toy: Toy) -> int:
    counts: dict[int, int] = defaultdict(int)
    for r in toy.records:
        counts[r[2]] += 1
    return max(sorted(counts), key=lambda c: counts[c])


def _positions(toy: Toy) -> list[int]:
    """Records worth changing or removing: the smallest, a middle and the largest value, and
    one record of each cluster (each label's size changes when it leaves)."""
    order = sorted(range(toy.N), key=lambda i: toy.records[i][0])
    chosen = [order[0], order[toy.N // 2], order[-1]]
    for c in toy.clusters():
        chosen.append(next(i for i in order if toy.records[i][2] == c))
    return list(dict.fromkeys(chosen))


def neighbours(toy: Toy, relation: str, *, new_labels: bool = True) -> list[Neighbour]:
    """The neighbours of ``toy`` the checks compare it with.

    ``"replacement"``: a record changed to a value at either bound or in the middle, in its
    own stratum and cluster, moved to another stratum, to another cluster (the largest), or
    (``new_labels``) to a cluster of its own.  ``"deletion"``: every record removed (sizes
    N, N_h and the cluster's size fall by one), and a record added at each bound and in
    the middle, to each stratum and each cluster (and, with ``new_labels``, a cluster of
    its own).
    """
    lo, hi = toy.lower, toy.upper
    if not math.isfinite(hi):  # no public upper bound: a value well above every record
        hi = lo + 2.0 * (max(r[0] for r in toy.records) - lo) + 1.0
    values = (lo, lo + (hi - lo) / 2.0, hi)
    strata, clusters = toy.strata(), toy.clusters()
    fresh = max(clusters) + 1
    out: list[Neighbour] = []
    recs = list(toy.records)
    if relation == "replacement":
        big = _largest_cluster(toy)
        for i in _positions(toy):
            v0, s0, c0 = recs[i]
            other_s = next(s for s in strata if s != s0)
            other_c = big if big != c0 else next(c for c in clusters if c != c0)
            moves = [("changed value", s0, c0), ("changed stratum", other_s, c0)]
            moves.append(("changed cluster", s0, other_c))
            if new_labels:
                moves.append(("changed to a new cluster", s0, fresh))
            for kind, s, c in moves:
                for v in values:
                    if (v, s, c) == (v0, s0, c0):
                        continue
                    new = recs.copy()
                    new[i] = (v, s, c)
                    note = f"{recs[i]}→{new[i]}"
                    out.append(Neighbour(kind, replace(toy, records=tuple(new)), note))
    elif relation == "deletion":
        for i in range(toy.N):
            new = recs[:i] + recs[i + 1 :]
            out.append(Neighbour("removed", replace(toy, records=tuple(new)), f"−{recs[i]}"))
        targets = [(s, clusters[j % len(clusters)]) for j, s in enumerate(strata)]
        targets += [(strata[j % len(strata)], c) for j, c in enumerate(clusters)]
        kinds = ["added"] * len(targets)
        if new_labels:
            targets.append((strata[0], fresh))
            kinds.append("added to a new cluster")
        for (s, c), kind in zip(targets, kinds, strict=True):
            for v in values:
                new = [*recs, (v, s, c)]
                out.append(Neighbour(kind, replace(toy, records=tuple(new)), f"+{(v, s, c)}"))
    else:
        raise ValueError(f"unknown relation {relation!r}")
    return out


# ---------------------------------------------------------------------------------------
# Sampling laws, enumerated
# ---------------------------------------------------------------------------------------

#: Index sets with their probabilities.
IndexLaw = list[tuple[tuple[int, ...], float]]


def _census(frame: Frame, point: Point) -> IndexLaw:
    return [(tuple(range(frame.N)), 1.0)]


def _srs(frame: Frame, point: Point) -> IndexLaw:
    n = round(point.size)
    subsets = list(itertools.combinations(range(frame.N), n))
    return [(s, 1.0 / len(subsets)) for s in subsets]


def _coins(groups: Sequence[Sequence[int]], rate: float) -> IndexLaw:
    """Each group kept on its own coin of probability ``rate``."""
    out = []
    for keep in itertools.product((False, True), repeat=len(groups)):
        k = sum(keep)
        p = rate**k * (1.0 - rate) ** (len(groups) - k)
        kept = (i for g, on in zip(groups, keep, strict=True) if on for i in g)
        out.append((tuple(sorted(kept)), p))
    return out


def _poisson(frame: Frame, point: Point) -> IndexLaw:
    return _coins([[i] for i in range(frame.N)], point.size)


def _groups(codes: NDArray[np.int64] | None) -> list[list[int]]:
    assert codes is not None
    return [list(np.flatnonzero(codes == c)) for c in np.unique(codes)]


def _stratified(frame: Frame, point: Point) -> IndexLaw:
    """Randomised rounding of ``r N_h`` in each stratum, then a uniform subset inside it."""
    per_stratum: list[IndexLaw] = []
    for members in _groups(frame.strata_codes):
        exact = point.size * len(members)
        base = math.floor(exact)
        frac = exact - base
        law: IndexLaw = []
        for n_h, p_n in ((base, 1.0 - frac), (base + 1, frac)):
            if p_n <= 0.0 or n_h > len(members):
                continue
            subsets = list(itertools.combinations(members, n_h))
            law += [(s, p_n / len(subsets)) for s in subsets]
        per_stratum.append(law)
    out = []
    for combo in itertools.product(*per_stratum):
        idx = tuple(sorted(i for s, _ in combo for i in s))
        out.append((idx, math.prod(p for _, p in combo)))
    return out


def _cluster(frame: Frame, point: Point) -> IndexLaw:
    clusters = _groups(frame.cluster_codes)
    ell = round(point.size)
    drawn = list(itertools.combinations(range(len(clusters)), ell))
    return [(tuple(sorted(i for c in d for i in clusters[c])), 1.0 / len(drawn)) for d in drawn]


def _poisson_cluster(frame: Frame, point: Point) -> IndexLaw:
    return _coins(_groups(frame.cluster_codes), point.size)


#: The enumerated law of each design, by its registry name.
ENUMERATORS: dict[str, Callable[[Frame, Point], IndexLaw]] = {
    "census": _census,
    "srs": _srs,
    "poisson": _poisson,
    "stratified_proportional": _stratified,
    "cluster": _cluster,
    "poisson_cluster": _poisson_cluster,
}


def sample_law(design: PlannerDesign, frame: Frame, point: Point) -> SampleLaw:
    """Every sample ``design`` draws from ``frame`` at ``point``, with its probability.

    The design's parameters that the plan fixes (``point``: ``n``, ``ℓ``, the rate) are
    used as given; everything the design reads from the data at draw time (strata sizes
    for the rounding, the number of clusters) is read from ``frame``, as
    :meth:`~core.designs.protocol.PlannerDesign.mask` does.
    """
    if design.name not in ENUMERATORS:
        raise NotImplementedError(
            f"no enumerated sampling law for the design {design.name!r}: add one to "
            "tests/core/planner/exact_release.py (ENUMERATORS)"
        )
    law: SampleLaw = defaultdict(float)
    for idx, p in ENUMERATORS[design.name](frame, point):
        if p > 0.0:
            law[tuple(float(frame.values[i]) for i in idx)] += p
    total = sum(law.values())
    assert abs(total - 1.0) < 1e-12, (design.name, total)
    return dict(law)


def masks_law(design: PlannerDesign, frame: Frame, point: Point, reps: int, seed: int) -> SampleLaw:
    """The empirical law of ``reps`` samples drawn by the design's own masks."""
    keys = design.draw_keys(frame, reps, np.random.default_rng(seed))
    mask = design.mask(frame, keys, point)
    law: SampleLaw = defaultdict(float)
    for row in mask:
        law[tuple(float(v) for v in frame.values[row])] += 1.0 / reps
    return dict(law)


# ---------------------------------------------------------------------------------------
# Conditional laws of a release given the sample
# ---------------------------------------------------------------------------------------


def _cells(edges: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Ends of the cells ``(-inf, e_0], (e_0, e_1], …, (e_m, inf)``."""
    e = np.asarray(edges, dtype=np.float64)
    return np.concatenate([[-np.inf], e]), np.concatenate([e, [np.inf]])


class Component:
    """The law of the release given one sample."""

    def masses(self, edges: FloatArray) -> FloatArray:
        """Probabilities of ``(-inf, e_0], (e_0, e_1], …, (e_m, inf)``."""
        raise NotImplementedError

    def edges(self) -> FloatArray:
        """Points of the output line where this law must be looked at closely."""
        raise NotImplementedError


@dataclass(frozen=True)
class Additive(Component):
    """``clip(centre + scale · Z, lower, upper)``, ``Z`` symmetric with CDF ``F`` (every
    release is clamped to the public bounds: :mod:`core.mechanisms`; infinite bounds, the
    default, clamp nothing)."""

    centre: float
    scale: float
    F: Callable[[Any], FloatArray]
    lower: float = -math.inf
    upper: float = math.inf

    #: Standard units at which each additive law is looked at: fine near the centre,
    #: geometric far into both tails (where mixtures of different scales part).
    Z: ClassVar[FloatArray] = np.unique(
        np.concatenate([np.linspace(0.0, 6.0, 121), np.geomspace(6.0, 700.0, 120)])
    )

    def masses(self, edges: FloatArray) -> FloatArray:
        """The unclamped law's masses, then the mass below ``lower`` moved to the cell
        holding ``lower`` and the mass above ``upper`` to the cell holding ``upper``."""
        out = self._unclamped(edges)
        a, b = _cells(edges)
        if math.isfinite(self.lower):
            at = int(np.flatnonzero((a < self.lower) & (self.lower <= b))[0])
            out[at] = out[: at + 1].sum()  # P(X <= b): X in (a, L] and below go to L
            out[:at] = 0.0
        if math.isfinite(self.upper):
            at = int(np.flatnonzero((a < self.upper) & (self.upper <= b))[0])
            out[at] = out[at:].sum()  # P(X > a): X at or above U goes to U
            out[at + 1 :] = 0.0
        return out

    def _unclamped(self, edges: FloatArray) -> FloatArray:
        if self.scale <= 0.0:  # a point mass at the centre
            pos = int(np.searchsorted(edges, self.centre, side="left"))
            out = np.zeros(edges.size + 1)
            out[pos] = 1.0
            return out
        z = (np.asarray(edges, dtype=np.float64) - self.centre) / self.scale
        lower = np.asarray(self.F(z))  # P(Z <= z)
        upper = np.asarray(self.F(-z))  # P(Z > z), by symmetry: exact far in the right tail
        left = np.diff(np.concatenate([[0.0], lower]))  # (-inf, e_0], then (e_{i-1}, e_i]
        right = -np.diff(np.concatenate([upper, [0.0]]))  # (e_i, e_{i+1}], then (e_m, inf)
        mid = np.where(z[:-1] >= 0.0, right[:-1], left[1:])
        return np.maximum(np.concatenate([left[:1], mid, right[-1:]]), 0.0)

    def edges(self) -> FloatArray:
        """The grid of :attr:`Z` about the centre, and each finite bound (an edge just below
        ``upper`` too, so that its atom is a cell of its own)."""
        grid = [self.centre - self.scale * self.Z, self.centre + self.scale * self.Z]
        if math.isfinite(self.lower):
            grid.append(np.array([self.lower]))
        if math.isfinite(self.upper):
            eta = 1e-7 * max(1.0, abs(self.upper), self.upper - self.lower)
            grid.append(np.array([self.upper - eta, self.upper]))
        return np.asarray(np.concatenate(grid))


def _overlap(edges: FloatArray, z: FloatArray) -> tuple[FloatArray, FloatArray, NDArray[np.bool_]]:
    """Fractions ``τ_a, τ_b`` of each positive-width piece ``[z_i, z_{i+1}]`` where each
    cell starts and ends (cells × pieces), and which pieces have positive width."""
    a, b = _cells(edges)
    left, right = z[:-1], z[1:]
    ok = right > left
    w = (right - left)[ok]
    ta = np.clip((a[:, None] - left[ok]) / w, 0.0, 1.0)
    tb = np.clip((b[:, None] - left[ok]) / w, 0.0, 1.0)
    return ta, tb, ok


@dataclass(frozen=True)
class PiecewiseUniform(Component):
    """Uniform on ``[z_i, z_{i+1}]`` with probability ``p_i``."""

    z: FloatArray
    p: FloatArray

    def masses(self, edges: FloatArray) -> FloatArray:
        ta, tb, ok = _overlap(edges, self.z)
        return np.asarray((tb - ta) @ self.p[ok])

    def edges(self) -> FloatArray:
        return self.z


@dataclass(frozen=True)
class PiecewiseExponential(Component):
    """Piece ``[z_i, z_{i+1}]`` with probability ``p_i``; inside, the distance from the near
    end (left when ``s_i = +1``, right when ``-1``) over the width has density
    ``∝ e^{-c t}`` on ``[0, 1]``."""

    z: FloatArray
    p: FloatArray
    s: FloatArray
    c: float
    #: Subdivisions of each piece at which the law is looked at.
    STEPS: ClassVar[int] = 16

    def masses(self, edges: FloatArray) -> FloatArray:
        ta, tb, ok = _overlap(edges, self.z)
        c, em = self.c, math.expm1(-self.c)
        # P(τ in [ta, tb]) inside a piece, from the left end:
        # (e^{-c ta} - e^{-c tb}) / (1 - e^{-c}); from the right end, the same with 1 - τ.
        from_left = (np.expm1(-c * tb) - np.expm1(-c * ta)) / em
        from_right = (np.expm1(-c * (1.0 - ta)) - np.expm1(-c * (1.0 - tb))) / em
        share = np.where(self.s[ok] > 0, from_left, from_right)
        return np.asarray(np.maximum(share, 0.0) @ self.p[ok])

    def edges(self) -> FloatArray:
        left, right = self.z[:-1], self.z[1:]
        t = np.linspace(0.0, 1.0, self.STEPS + 1)
        return np.asarray((left[:, None] + (right - left)[:, None] * t).ravel())


def exponential_law(
    mechanism: Mechanism, sample: Sample, eps: float, lower: float, upper: float
) -> Component:
    """The exponential mechanism from its definition: interval ``i`` of ``(lower, x_1, …,
    x_n, upper)`` with weight ``width · exp(−ε |i − q n| / 2)``, uniform inside."""
    n = len(sample)
    q = float(mechanism.quantile)  # type: ignore[attr-defined]
    z = np.array([lower, *sample, upper], dtype=np.float64)
    log_w = np.array(
        [
            math.log(z[i + 1] - z[i]) - eps * abs(i - q * n) / 2.0 if z[i + 1] > z[i] else -np.inf
            for i in range(n + 1)
        ]
    )
    w = np.exp(log_w - log_w.max())
    return PiecewiseUniform(z, w / w.sum())


def piecewise_laplace_law(
    mechanism: Mechanism, sample: Sample, eps: float, lower: float, upper: float
) -> Component:
    """The piecewise-Laplace quantile from its definition: the score ``l`` is linear from
    ``j`` to ``j + 1`` between the order statistics ``x_(k±j)`` and ``x_(k±(j+1))`` (padded
    with the bounds), and the density is ``∝ exp(−ε l / 2)``."""
    n = len(sample)
    k = quantile_rank(n, float(mechanism.quantile))  # type: ignore[attr-defined]
    z = np.array([lower, *sample, upper], dtype=np.float64)  # z[m] = x_(m), padded
    weights, sides = [], []
    for i in range(n + 1):  # piece [z_i, z_{i+1}]
        j = i - k if i >= k else k - 1 - i  # records between the piece and x_(k)
        width = z[i + 1] - z[i]
        # ∫ over the piece of exp(−ε l / 2): width · e^{−εj/2} · (1 − e^{−ε/2}) / (ε/2)
        mass = width * math.exp(-eps * j / 2.0) * (-math.expm1(-eps / 2.0)) / (eps / 2.0)
        weights.append(mass)
        sides.append(1.0 if i >= k else -1.0)
    w = np.array(weights)
    return PiecewiseExponential(z, w / w.sum(), np.array(sides), eps / 2.0)


#: Gauss–Legendre nodes and weights on [-1, 1] for the integrals over the noisy threshold.
_GL_X, _GL_W = np.polynomial.legendre.leggauss(16)
#: Offsets from each segment start at which a discrete law is looked at.
OFFSETS = np.unique(np.concatenate([np.arange(4), np.round(np.geomspace(8, 1e6, 12))]))


def _log_laplace_cdf(z: FloatArray) -> FloatArray:
    """``log P(L <= z)`` for ``L ~ Laplace(0, 1)``, exact in both tails."""
    with np.errstate(over="ignore"):
        return np.where(z < 0.0, z - math.log(2.0), np.log1p(-0.5 * np.exp(-np.abs(z))))


@dataclass(frozen=True)
class AboveThreshold(Component):
    """The released index ``I`` of the unbounded quantile on one sample, from its definition.

    ``I = min{i : c_i − q n + ν_i ≥ ρ}`` with ``ρ, ν_i ~ Laplace(s)`` independent and
    ``c_i`` the records at or below threshold ``i``.  The counts are constant on segments
    ``[b_k, b_{k+1})`` (``b_0 = 0``, then the first threshold index at or above each
    record), so given ``ρ`` the index is geometric on each segment::

        P(I = i | ρ) = Π_{k' < k} A_{k'}^{len_{k'}} · A_k^{i − b_k} · (1 − A_k),

    ``A_k = P(ν < ρ − g_k)``, ``g_k = c_k − q n``; ``ρ`` is integrated out by Gauss–Legendre
    on pieces at most ``2 s`` wide between the kinks (``0`` and every ``g_k``), over
    ``[min − 30 s, max + 30 s]``.  The output ``t_I`` is a one-to-one function of ``I``.
    """

    starts: FloatArray  # b_k
    gaps: FloatArray  # g_k
    s: float

    def _rho(self) -> tuple[FloatArray, FloatArray]:
        """Nodes and log weights (density of ρ included) of the integral over ρ."""
        kinks = np.unique(np.concatenate([[0.0], self.gaps]))
        lo, hi = float(kinks[0]) - 30.0 * self.s, float(kinks[-1]) + 30.0 * self.s
        cuts = [lo]
        for a, b in zip(np.concatenate([[lo], kinks]), np.concatenate([kinks, [hi]]), strict=True):
            pieces = max(1, math.ceil((b - a) / (2.0 * self.s)))
            cuts += list(np.linspace(a, b, pieces + 1)[1:])
        cuts_a = np.unique(np.array(cuts))
        a, b = cuts_a[:-1, None], cuts_a[1:, None]
        x = ((a + b) / 2.0 + (b - a) / 2.0 * _GL_X[None, :]).ravel()
        w = ((b - a) / 2.0 * _GL_W[None, :]).ravel()
        log_density = -np.abs(x) / self.s - math.log(2.0 * self.s)
        return x, np.log(w) + log_density

    def probabilities(self, indices: FloatArray, tail_from: float) -> FloatArray:
        """``P(I = i)`` for each index, then ``P(I >= tail_from)``."""
        rho, log_w = self._rho()
        log_a = _log_laplace_cdf((rho[None, :] - self.gaps[:, None]) / self.s)
        log_not = _log_laplace_cdf(-(rho[None, :] - self.gaps[:, None]) / self.s)
        lengths = np.diff(self.starts)
        log_survive = np.vstack(
            [np.zeros_like(rho), np.cumsum(lengths[:, None] * log_a[:-1], axis=0)]
        )
        i = np.asarray(indices, dtype=np.float64)
        k = np.searchsorted(self.starts, i, side="right") - 1
        terms = (
            log_w[None, :] + log_survive[k] + (i - self.starts[k])[:, None] * log_a[k] + log_not[k]
        )
        last = self.starts.size - 1
        assert tail_from >= self.starts[last]
        tail = log_w + log_survive[last] + (tail_from - self.starts[last]) * log_a[last]
        return np.exp(_logsumexp_rows(np.vstack([terms, tail[None, :]])))

    def edges(self) -> FloatArray:
        return self.starts


def _logsumexp_rows(x: FloatArray) -> FloatArray:
    top = np.max(x, axis=1)
    safe = np.where(np.isfinite(top), top, 0.0)
    with np.errstate(divide="ignore"):
        return np.asarray(safe + np.log(np.sum(np.exp(x - safe[:, None]), axis=1)))


def above_threshold_law(
    mechanism: Mechanism, sample: Sample, eps: float, lower: float, upper: float
) -> Component:
    """:class:`AboveThreshold` of the unbounded quantile on ``sample`` (empty allowed)."""
    n = len(sample)
    q = float(mechanism.quantile)  # type: ignore[attr-defined]
    log_growth = math.log(float(mechanism.growth))  # type: ignore[attr-defined]
    idx = np.sort(threshold_indices(np.array(sample, dtype=np.float64), lower, log_growth))
    starts = np.unique(np.concatenate([[0], idx])).astype(np.float64)
    counts = np.array([np.count_nonzero(idx <= b) for b in starts], dtype=np.float64)
    return AboveThreshold(starts, counts - q * n, 2.0 / eps)


#: Gauss–Legendre rule for the integral over the noisy count, and the grading of its pieces:
#: a piece spans at most ``SC_SPAN`` units of any exponential rate of the integrand near a
#: kink, pieces double in width away from each kink, and none is wider than ``SC_SPAN``
#: scales of the count's noise.
_SC_X, _SC_W = np.polynomial.legendre.leggauss(16)
SC_SPAN = 3.0
#: The count's noise is integrated up to ``max(m, 1) + SC_TAIL · b₂`` (the rest, below
#: ``e^{−SC_TAIL}``, is left out).
SC_TAIL = 50.0


def _laplace_interval(alpha: FloatArray, beta: FloatArray) -> FloatArray:
    """``P(α < Z ≤ β)`` for ``Z ~ Laplace(0, 1)`` (``α ≤ β``, either may be infinite), with
    no cancellation: both ends below 0, both above, or one on each side."""
    with np.errstate(over="ignore", invalid="ignore"):
        below = 0.5 * np.exp(np.minimum(beta, 0.0)) * -np.expm1(np.minimum(alpha - beta, 0.0))
        above = 0.5 * np.exp(-np.maximum(alpha, 0.0)) * -np.expm1(np.minimum(alpha - beta, 0.0))
        across = 1.0 - 0.5 * np.exp(np.minimum(alpha, 0.0)) - 0.5 * np.exp(-np.maximum(beta, 0.0))
    out = np.where(beta <= 0.0, below, np.where(alpha >= 0.0, above, across))
    return np.asarray(np.where(beta > alpha, np.maximum(out, 0.0), 0.0))


@functools.lru_cache(maxsize=8192)
def _sum_count_masses(
    total: float, size: float, b_sum: float, b_count: float, lower: float, upper: float,
    edges: bytes,
) -> FloatArray:  # fmt: skip
    """:meth:`SumCount.masses`, kept (one sample's law is compared with many neighbours')."""
    e = np.frombuffer(edges, dtype=np.float64)
    c = lower + (upper - lower) / 2.0
    a, b = _cells(e)
    # Each cell's part of the unclipped value X = c + (T + b₁ Z₁)/D: (max(a, L), min(b, U)]
    # in centred units; the atom at L joins the cell holding L, the atom at U the one
    # holding U (X ≤ L and X ≥ U), as the ends -inf and +inf of those parts.
    lo = np.maximum(a, lower) - c
    hi = np.minimum(b, upper) - c
    lo = np.where((a < lower) & (lower <= b), -np.inf, lo)
    hi = np.where((a < upper) & (upper <= b), np.inf, hi)
    hi = np.maximum(hi, lo)  # cells outside [L, U] hold nothing
    T, m, b1, b2 = total, size, b_sum, b_count

    def given(u: FloatArray, rows: NDArray[np.int64]) -> FloatArray:
        """P(cell | D = u) = P(A u − T < b₁ Z₁ ≤ B u − T), for the cells ``rows``."""
        with np.errstate(invalid="ignore"):
            alpha = np.where(np.isinf(lo[rows]), lo[rows], (lo[rows] * u - T) / b1)
            beta = np.where(np.isinf(hi[rows]), hi[rows], (hi[rows] * u - T) / b1)
        return _laplace_interval(alpha, beta)

    rows_all = np.arange(lo.size)
    # D = 1 when the noisy count is at most 1: an atom of mass P(m + b₂ Z₂ ≤ 1).
    out = float(_laplace_interval(np.array(-np.inf), np.array((1.0 - m) / b2))) * given(
        np.ones(lo.size), rows_all
    )
    # D = u > 1 with density e^{−|u − m|/b₂} / (2 b₂): Gauss–Legendre on pieces split at the
    # kinks (u = 1, u = m, and u = T/A, T/B where a cell's end crosses 0), graded away from
    # each kink so that no piece spans more than SC_SPAN units of the integrand's rates.
    top = max(m, 1.0) + SC_TAIL * b2
    ends = np.where(np.isfinite(lo), np.abs(lo), 0.0), np.where(np.isfinite(hi), np.abs(hi), 0.0)
    rate = np.maximum(*ends) / b1 + 1.0 / b2
    h0 = SC_SPAN / rate
    with np.errstate(divide="ignore", invalid="ignore"):
        kinks = np.stack(
            [np.ones_like(lo), np.full_like(lo, m), T / np.where(lo != 0, lo, np.nan),
             T / np.where(hi != 0, hi, np.nan)], axis=1,
        )  # fmt: skip
    kinks = np.where(np.isfinite(kinks), kinks, 1.0)
    steps = 2.0 ** np.arange(math.ceil(math.log2(max(SC_SPAN * b2 / h0.min(), 2.0))) + 2)
    offsets = h0[:, None] * np.concatenate([[0.0], steps - 1.0])[None, :]
    both_ways = np.stack([offsets, -offsets], axis=1)[:, None, :, :]
    graded = (kinks[:, :, None, None] + both_ways).reshape(lo.size, -1)
    even = np.arange(1.0, top + SC_SPAN * b2, SC_SPAN * b2)
    cuts = np.sort(
        np.clip(np.concatenate([graded, np.broadcast_to(even, (lo.size, even.size)),
                                np.full((lo.size, 1), top)], axis=1), 1.0, top),
        axis=1,
    )  # fmt: skip
    left, right = cuts[:, :-1], cuts[:, 1:]
    row, piece = np.nonzero(right > left)
    pa, pb = left[row, piece], right[row, piece]
    u = ((pa + pb) / 2.0)[:, None] + ((pb - pa) / 2.0)[:, None] * _SC_X[None, :]
    w = ((pb - pa) / 2.0)[:, None] * _SC_W[None, :]
    density = np.exp(-np.abs(u - m) / b2) / (2.0 * b2)
    values = given(u, row[:, None]) * density * w
    out = out + np.bincount(row, weights=values.sum(axis=1), minlength=lo.size)
    assert abs(out.sum() - 1.0) < 1e-9, out.sum()
    out.flags.writeable = False
    return out


@dataclass(frozen=True)
class SumCount(Component):
    """``clip(c + (T + b₁ Z₁) / max(m + b₂ Z₂, 1), L, U)`` with ``Z₁, Z₂ ~ Laplace(0, 1)``
    independent: the noisy centred sum over the noisy count of a sample with centred sum
    ``T`` and size ``m``, from its definition.

    Given the denominator ``D = u`` the cell ``(a, b]`` holds ``P(a − c < (T + b₁ Z₁)/u ≤
    b − c)`` (ends cut to ``[L, U]``; the atom ``X ≤ L`` at ``L``, ``X ≥ U`` at ``U``), a
    Laplace interval in closed form; ``D`` is integrated out: its atom at 1 (``P(m + b₂ Z₂ ≤
    1)``), then its density above 1 by Gauss–Legendre on graded pieces between the kinks
    (:func:`_sum_count_masses`).  The atoms at the bounds are cells of their own: ``(−∞,
    L]`` holds only the atom, and :meth:`edges` puts an edge ``U − η`` just below ``U``.
    """

    total: float
    size: float
    b_sum: float
    b_count: float
    lower: float
    upper: float

    def masses(self, edges: FloatArray) -> FloatArray:
        e = np.ascontiguousarray(edges, dtype=np.float64)
        return _sum_count_masses(
            self.total, self.size, self.b_sum, self.b_count, self.lower, self.upper,
            e.tobytes(),
        )  # fmt: skip

    def edges(self) -> FloatArray:
        """The same for every sample (so one sample's masses serve every comparison): both
        bounds, ``U − η`` (the atom at ``U`` alone), and cells shrinking geometrically
        towards each bound, where the atoms and the tails of the pair part."""
        lo, hi = self.lower, self.upper
        near = (hi - lo) * np.geomspace(1e-7, 0.05, 17)
        return np.unique(np.concatenate([[lo, hi], lo + near, hi - near]))


def sum_count_law(
    mechanism: Mechanism, sample: Sample, eps: float, lower: float, upper: float
) -> Component:
    """:class:`SumCount` of the noisy sum over a noisy count on ``sample`` (empty allowed):
    ``c = (L + U)/2``, ``T = Σ (x − c)``, ``m = |S|``, the share ``s`` of ``ε`` the plan gave
    the sum, ``b₁ = ((U − L)/2)/(s ε)``, ``b₂ = 1/((1 − s) ε)`` (the class docstring).  The
    mechanism's own release is checked once to be that function of its two Laplace draws."""
    s = float(mechanism.share(eps))  # type: ignore[attr-defined]
    c = lower + (upper - lower) / 2.0
    total = math.fsum(x - c for x in sample)
    b1, b2 = (upper - lower) / 2.0 / (s * eps), 1.0 / ((1.0 - s) * eps)
    _check_sum_count_release(mechanism, eps, lower, upper, sample, b1, b2)
    return SumCount(total, float(len(sample)), b1, b2, lower, upper)


_CHECKED: set[tuple[Any, ...]] = set()


def _check_sum_count_release(
    mechanism: Mechanism, eps: float, lower: float, upper: float, sample: Sample,
    b1: float, b2: float,
) -> None:  # fmt: skip
    """The release on three seeds is ``clip(c + (T + b₁ z₁)/max(m + b₂ z₂, 1), L, U)`` with
    ``(z₁, z₂)`` the generator's two standard Laplace draws (once per mechanism, budget and
    sample size)."""
    key = (mechanism, eps, lower, upper, len(sample))
    if key in _CHECKED:
        return
    c = lower + (upper - lower) / 2.0
    total = math.fsum(x - c for x in sample)
    for seed in range(3):
        rng = np.random.default_rng(seed)
        if sample:
            batch = np.array([sample], dtype=np.float64)
            got = float(mechanism.release(batch, eps, 0.5, lower, upper, rng).released[0])
        else:
            got = mechanism.release_empty(eps, lower, upper, rng)[0]
        z1, z2 = np.random.default_rng(seed).laplace(0.0, 1.0, size=(2, 1))[:, 0]
        want = min(max(c + (total + b1 * z1) / max(len(sample) + b2 * z2, 1.0), lower), upper)
        if not math.isclose(got, want, rel_tol=1e-12, abs_tol=1e-12):
            raise NotImplementedError(
                f"{type(mechanism).__name__}'s release is not the noisy sum over the noisy "
                f"count of its definition ({got!r} != {want!r}): fix it or its law in "
                "tests/core/planner/exact_release.py (sum_count_law)"
            )
    _CHECKED.add(key)


def uniform_law(lower: float, upper: float) -> Component:
    return PiecewiseUniform(np.array([lower, upper]), np.array([1.0]))


#: The exact law of each non-additive mechanism on one non-empty sample, by class.  A new
#: non-additive mechanism needs one entry here (an additive one needs none).
ExactLaw = Callable[[Mechanism, Sample, float, float, float], Component]
NON_ADDITIVE: dict[type[Mechanism], ExactLaw] = {
    ExponentialQuantile: exponential_law,
    PiecewiseLaplaceQuantile: piecewise_laplace_law,
    UnboundedQuantile: above_threshold_law,
    SumCountMean: sum_count_law,
}


def _states_own_empty(mechanism: Mechanism) -> bool:
    return type(mechanism).release_empty is not Mechanism.release_empty


def empty_law(mechanism: Mechanism, eps: float, lower: float, upper: float) -> Component:
    """The law of the release of an empty sample, as the mechanism states it.

    The base class releases a uniform draw on the bounds.  A non-additive mechanism that
    states its own empty release has its law at ``n = 0`` from :data:`NON_ADDITIVE` (the
    noisy sum over a noisy count: centred sum and count 0, its release checked against its
    draws there).  Any other mechanism that states its own empty release is taken to be
    ``clip(centre + scale · Z, lower, upper)`` (the scale it returns, ``Z`` its standard
    noise; every release is clamped to the bounds), after checking on a few seeds that its
    draws are exactly that.
    """
    if not _states_own_empty(mechanism):
        return uniform_law(lower, upper)
    law = next((f for cls, f in NON_ADDITIVE.items() if isinstance(mechanism, cls)), None)
    if law is not None:
        return law(mechanism, (), eps, lower, upper)
    centre = lower + (upper - lower) / 2.0
    scale = math.nan
    for seed in range(3):
        released, _, scale = mechanism.release_empty(eps, lower, upper, np.random.default_rng(seed))
        z = float(mechanism.standard_noise(np.random.default_rng(seed), (1,))[0])
        want = min(max(centre + scale * z, lower), upper)
        if not math.isclose(released, want, rel_tol=1e-12, abs_tol=1e-12):
            raise NotImplementedError(
                f"{type(mechanism).__name__}.release_empty is not the centre plus its standard "
                "noise: state its law in tests/core/planner/exact_release.py (empty_law)"
            )
    return Additive(centre, float(scale), mechanism.standard_noise_cdf, lower, upper)


#: A release law: components with their probabilities.
Law = list[tuple[float, Component]]


def release_law(
    mechanism: Mechanism,
    samples: SampleLaw,
    eps_sample: float,
    delta_sample: float,
    lower: float,
    upper: float,
) -> Law:
    """The exact law of ``mechanism``'s release when the sample has the law ``samples``.

    Additive mechanisms: the statistic and the noise scale of every sample from the
    mechanism's own :meth:`~core.mechanisms.Mechanism.release`, the noise from its
    :meth:`~core.mechanisms.Mechanism.standard_noise_cdf`, the release clamped to the
    bounds (one place for every additive mechanism, present and future).  Non-additive
    ones: :data:`NON_ADDITIVE`.  Components with the same law are merged.
    """
    by_length: dict[int, list[tuple[Sample, float]]] = defaultdict(list)
    for s, p in samples.items():
        by_length[len(s)].append((s, p))
    merged: dict[tuple[Any, ...], tuple[float, Component]] = {}

    def add(key: tuple[Any, ...], p: float, comp: Component) -> None:
        old = merged.get(key)
        merged[key] = (p + (old[0] if old else 0.0), comp)

    for length, items in by_length.items():
        law = next((f for cls, f in NON_ADDITIVE.items() if isinstance(mechanism, cls)), None)
        if length == 0:
            comp = empty_law(mechanism, eps_sample, lower, upper)
            for _, p in items:
                add(("empty",), p, comp)
            continue
        if mechanism.additive:
            batch = np.array([s for s, _ in items], dtype=np.float64)
            rel = mechanism.release(
                batch, eps_sample, delta_sample, lower, upper, np.random.default_rng(0)
            )
            scale = np.broadcast_to(np.asarray(rel.noise_scale, dtype=np.float64), (len(items),))
            F = mechanism.standard_noise_cdf
            for (_, p), c, b in zip(items, rel.statistic, scale, strict=True):
                comp = Additive(float(c), float(b), F, lower, upper)
                add(("additive", float(c), float(b)), p, comp)
            continue
        if law is None:
            raise NotImplementedError(
                f"no exact law for the non-additive mechanism {type(mechanism).__name__}: add "
                "one to tests/core/planner/exact_release.py (NON_ADDITIVE)"
            )
        for s, p in items:
            add(("sample", s), p, law(mechanism, s, eps_sample, lower, upper))
    return list(merged.values())


# ---------------------------------------------------------------------------------------
# Comparing two laws
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Comparison:
    """How far apart two release laws ``P`` and ``Q`` are.

    Attributes
    ----------
    max_log_ratio : float
        ``max |log P(I) − log Q(I)|`` over the cells ``I`` of the partition (inf when one law
        puts mass where the other puts none).
    up, down : float
        ``max log(P(I) / Q(I))`` and ``max log(Q(I) / P(I))`` (``max_log_ratio`` is the
        larger): for independent releases the joint law's extremes are their sums.
    delta : float
        ``max(Σ (P − e^ε Q)_+, Σ (Q − e^ε P)_+)`` at the ε asked for.
    where : float
        A point of the cell with the largest log ratio.
    """

    max_log_ratio: float
    up: float
    down: float
    delta: float
    where: float


#: Cells where both laws put less than this are ignored (their ratio is rounding).
NEGLIGIBLE = 1e-280


def _edges(laws: Iterable[Law], lower: float, upper: float) -> FloatArray:
    parts = [np.linspace(lower, upper, 401)]
    for law in laws:
        for _, comp in law:
            parts.append(comp.edges())
    e = np.unique(np.concatenate(parts))
    e = e[np.isfinite(e)]
    # Edges a rounding apart would make cells whose masses are rounding: merge them.
    keep = np.concatenate([[True], np.diff(e) > 1e-9 * np.maximum(1.0, np.abs(e[1:]))])
    return e[keep]


def masses(law: Law, edges: FloatArray) -> FloatArray:
    total = np.zeros(edges.size + 1)
    for p, comp in law:
        total += p * comp.masses(edges)
    return total


def compare(p_law: Law, q_law: Law, eps: float, lower: float, upper: float) -> Comparison:
    """:class:`Comparison` of two laws on the partition both need (module docstring)."""
    comps = [c for _, c in p_law] + [c for _, c in q_law]
    if all(isinstance(c, AboveThreshold) for c in comps):
        # Released indices: every segment start of either law plus offsets, and the tail
        # beyond (disjoint events, not all of them: the numbers are lower bounds).
        starts = np.unique(np.concatenate([c.edges() for c in comps]))
        idx = np.unique((starts[:, None] + OFFSETS[None, :]).ravel())
        tail = float(idx[-1] + 1)
        P = sum(p * c.probabilities(idx, tail) for p, c in p_law)  # type: ignore[attr-defined]
        Q = sum(p * c.probabilities(idx, tail) for p, c in q_law)  # type: ignore[attr-defined]
        edges = np.concatenate([idx - 0.5, [tail - 0.5]])  # labels of the cells, for `where`
    else:
        edges = _edges([p_law, q_law], lower, upper)
        P, Q = masses(p_law, edges), masses(q_law, edges)
    keep = (P > NEGLIGIBLE) | (Q > NEGLIGIBLE)
    with np.errstate(divide="ignore", invalid="ignore"):
        signed = np.log(P) - np.log(Q)
    signed = np.where(keep, signed, 0.0)
    up, down = float(signed.max()), float((-signed).max())
    i = int(np.argmax(np.abs(signed)))
    mids = np.concatenate([[edges[0] - 1.0], (edges[:-1] + edges[1:]) / 2.0, [edges[-1] + 1.0]])
    e = math.exp(eps) if eps < 700 else math.inf
    delta = max(float(np.maximum(P - e * Q, 0.0).sum()), float(np.maximum(Q - e * P, 0.0).sum()))
    return Comparison(max(up, down, 0.0), max(up, 0.0), max(down, 0.0), delta, float(mids[i]))
