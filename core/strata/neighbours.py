"""Data-dependent allocations leak: the noisy-count attack and neighbouring populations.

The noisy-count attack of Bun et al. 2022, section 4.1 (:func:`noisy_count_loss`,
:func:`allocation_count_loss`, :func:`rounding_example`), and the neighbouring-population
comparison of section 7.2 and Appendix E.1 (:func:`top_code_neighbour`,
:func:`compare_neighbours`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._validation import FloatArray, check_eps, check_whole
from ..strata.allocation import _randomized_parts, neyman_allocation, proportional_allocation
from ..strata.checks import IntArray, _float_vector, _int_vector, _rate
from ..strata.summary import StratumSummary

__all__ = [
    "NeighbourComparison",
    "RoundingExample",
    "allocation_count_loss",
    "compare_neighbours",
    "noisy_count_loss",
    "rounding_example",
    "top_code_neighbour",
]


def _directional_sups(
    sizes_a: IntArray,
    probs_a: FloatArray,
    sizes_b: IntArray,
    probs_b: FloatArray,
    eps_sample: float,
) -> tuple[float, float]:
    """``sup_y log f_a(y)/f_b(y)`` and ``sup_y log f_b(y)/f_a(y)`` for Laplace mixtures.

    ``f(y) = Σ_c p_c · (ε/2) e^{-ε|y - c|}``. Between two neighbouring integers the ratio of
    two such mixtures is a ratio of ``A e^{εy} + B e^{-εy}`` terms, monotone in ``e^{2εy}``, so
    its extremes lie at the integers of the supports or at y → ±∞, where the ratio tends to
    ``Σ p_c e^{±εc} / Σ p'_c e^{±εc}``.
    """

    def logmix(sizes: FloatArray, probs: FloatArray, y: FloatArray) -> FloatArray:
        with np.errstate(divide="ignore"):
            lp = np.log(probs)[None, :]
        return np.logaddexp.reduce(lp - eps_sample * np.abs(y[:, None] - sizes[None, :]), axis=1)

    def limit(sizes: FloatArray, probs: FloatArray, sign: float) -> float:
        with np.errstate(divide="ignore"):
            return float(np.logaddexp.reduce(np.log(probs) + sign * eps_sample * sizes))

    keep_a, keep_b = probs_a > 0, probs_b > 0
    sa, pa = sizes_a[keep_a].astype(np.float64), probs_a[keep_a]
    sb, pb = sizes_b[keep_b].astype(np.float64), probs_b[keep_b]
    y = np.unique(np.concatenate([sa, sb]))
    diff = logmix(sa, pa, y) - logmix(sb, pb, y)
    ends = [limit(sa, pa, s) - limit(sb, pb, s) for s in (1.0, -1.0)]
    values = np.concatenate([diff, ends])
    return float(values.max()), float((-values).max())


def noisy_count_loss(
    sizes_a: ArrayLike,
    probs_a: ArrayLike,
    sizes_b: ArrayLike,
    probs_b: ArrayLike,
    eps_sample: float,
) -> float:
    """Privacy loss of releasing a noisy sample count when the count itself is random.

    Bun et al. section 4.1: the mechanism ``|S| + Laplace(1/ε)`` is ε-DP on the sample (adding
    or removing one record moves the count by 1). If on population P the count is
    distributed as ``probs_a`` over ``sizes_a`` and on a neighbour P′ as ``probs_b`` over
    ``sizes_b``, the two outputs are ``L``-indistinguishable with::

        L = sup_y |log f_P(y) / f_P′(y)|,   f(y) = Σ_c Pr[count = c] · (ε/2) e^{-ε|y - c|}.

    For deterministic counts ``m`` and ``m + Δ`` this is exactly ``Δ·ε``: the privacy loss
    grows with the shift, the degradation of section 4.1. Randomised rounding mixes the two
    counts and keeps ``L`` small. The supremum is computed exactly (see Notes).

    Parameters
    ----------
    sizes_a, probs_a, sizes_b, probs_b : array_like
        Integer counts and their probabilities on P and on P′.
    eps_sample : float
        ε of the Laplace count on the sample.

    Returns
    -------
    float
        ``L >= 0``; a lower bound on the guarantee any analysis can give this design.

    Notes
    -----
    Between two integers the density ratio is monotone, so the supremum is attained at an
    integer of the supports or in the limits y → ±∞.
    """
    e = float(check_eps("eps_sample", eps_sample))
    parts: list[NDArray[Any]] = []
    for name_s, name_p, s_, p_ in (
        ("sizes_a", "probs_a", sizes_a, probs_a),
        ("sizes_b", "probs_b", sizes_b, probs_b),
    ):
        s = _int_vector(name_s, np.atleast_1d(s_), minimum=0)
        p = _float_vector(name_p, np.atleast_1d(p_), s.size)
        if not abs(float(p.sum()) - 1.0) <= 1e-9:
            raise ValueError(f"{name_p} must sum to 1")
        parts.extend([s, p])
    up, down = _directional_sups(parts[0], parts[1], parts[2], parts[3], e)
    return max(up, down, 0.0)


def allocation_count_loss(
    allocation_a: ArrayLike, allocation_b: ArrayLike, eps_sample: float, release: str = "all"
) -> float:
    """Loss of releasing noisy stratum counts when two populations get fixed allocations.

    Bun et al. section 4.1 applied per stratum. The mechanism on the sample releases
    ``|S_i| + Laplace(1/ε)`` for every stratum (``release="all"``; ε-DP on the sample, since
    adding or removing one record moves one count by 1), or for one stratum only
    (``release="largest"``, the one that moves most). With deterministic allocations the
    counts are the allocations themselves, so the loss between the populations is exactly::

        all:      ε · Σ_i |m′_i - m_i|
        largest:  ε · max_i |m′_i - m_i|

    For the paper's Neyman allocations (:data:`PAPER_NEYMAN_E1`) the largest shift is 19
    records, so releasing the top stratum's noisy count leaks 19ε.
    """
    e = float(check_eps("eps_sample", eps_sample))
    a = _int_vector("allocation_a", allocation_a, minimum=0)
    b = _int_vector("allocation_b", allocation_b, minimum=0)
    if a.shape != b.shape:
        raise ValueError("the two allocations must have the same number of strata")
    if release not in ("all", "largest"):
        raise ValueError(f"release must be 'all' or 'largest'; got {release!r}")
    shift = np.abs(b - a)
    return float(shift.sum() if release == "all" else shift.max()) * e


@dataclass(frozen=True)
class RoundingExample:
    """Section 4.3: one stratum of ``size`` records against one of ``size + 1``.

    Attributes
    ----------
    size, rate : int, float
        ``|P|`` and ``r``; the neighbour has ``|P′| = size + 1``.
    deterministic : tuple of int
        ``round(r|P|)`` and ``round(r|P′|)`` (halves up).
    floors : tuple of int
        ``⌊r|P|⌋`` and ``⌊r|P′|⌋``.
    p_up : tuple of float
        Probability of rounding up under randomised rounding, for P and P′.
    """

    size: int
    rate: float
    deterministic: tuple[int, int]
    floors: tuple[int, int]
    p_up: tuple[float, float]

    def deterministic_loss(self, eps_sample: float) -> float:
        """Loss of the noisy-count release with deterministic rounding: ``|Δ|·ε``."""
        a, b = self.deterministic
        return noisy_count_loss([a], [1.0], [b], [1.0], eps_sample)

    def randomized_loss(self, eps_sample: float) -> float:
        """Loss of the noisy-count release with randomised rounding (exact)."""
        (fa, fb), (pa, pb) = self.floors, self.p_up
        return noisy_count_loss([fa, fa + 1], [1 - pa, pa], [fb, fb + 1], [1 - pb, pb], eps_sample)


def rounding_example(size: int = 14, rate: float = 0.1) -> RoundingExample:
    """The counter-example of Bun et al. section 4.3 (``|P| = 14``, ``|P′| = 15``, r = 1/10).

    Deterministic rounding draws 1 record from P and 2 from P′, so a released noisy count
    tells the two apart with loss ε (more than no sampling at all would leak about this
    record); randomised rounding draws 1 or 2 from both, with probabilities 0.6/0.4 and
    0.5/0.5.
    """
    nn = check_whole("size", size, 1, 2**52)
    r = _rate(rate)
    det = proportional_allocation([nn, nn + 1], r, "deterministic")
    floors, p = _randomized_parts(np.array([nn, nn + 1], dtype=np.int64), r)
    return RoundingExample(
        size=nn,
        rate=r,
        deterministic=(int(det[0]), int(det[1])),
        floors=(int(floors[0]), int(floors[1])),
        p_up=(float(p[0]), float(p[1])),
    )


def top_code_neighbour(
    values: ArrayLike,
    summary: StratumSummary,
    *,
    new_value: float,
    index: int | None = None,
    new_stratum: int | None = None,
) -> StratumSummary:
    """The summary of a neighbouring population in which one record was changed.

    Bun et al. Appendix E.1 build the neighbour by raising the establishment with the fewest
    employees to the 10,000 top code, which moves it into the top size class. By default
    this changes the smallest record (``index = argmin(values)``; the first one among ties)
    to ``new_value`` and puts it in the stratum of the population's largest record -- for
    size-class strata exactly the paper's move. Replacing one record is the neighbour
    relation of differential privacy for a population of fixed size.

    Parameters
    ----------
    values : array_like
        The records the summary was built from.
    summary : StratumSummary
        From :func:`stratum_summary`.
    new_value : float
        The changed record's new value (e.g. the top code).
    index : int, optional
        Which record to change (default: the smallest).
    new_stratum : int, optional
        Stratum index of the changed record (default: the stratum of the largest record).

    Returns
    -------
    StratumSummary
        Same strata, in the same order, for the neighbouring population.
    """
    v = np.array(values, dtype=np.float64)
    if v.shape != summary.codes.shape:
        raise ValueError("values and the stratum summary do not describe the same records")
    nv = float(new_value)
    if not math.isfinite(nv):
        raise ValueError("new_value must be a finite number")
    i = int(np.argmin(v)) if index is None else check_whole("index", index, 0, v.size - 1)
    target = (
        int(summary.codes[int(np.argmax(v))])
        if new_stratum is None
        else check_whole("new_stratum", new_stratum, 0, summary.k - 1)
    )
    codes = np.array(summary.codes)
    v[i] = nv
    codes[i] = target
    k = summary.k
    sizes = np.bincount(codes, minlength=k).astype(np.int64)
    if np.any(sizes == 0):
        raise ValueError("the change would leave a stratum empty; choose another record")
    means = np.bincount(codes, weights=v, minlength=k) / sizes
    dev2 = np.bincount(codes, weights=(v - means[codes]) ** 2, minlength=k)
    denom = sizes - summary.ddof
    sds = np.sqrt(np.divide(dev2, denom, out=np.zeros(k), where=denom > 0))
    for arr in (sizes, means, sds, codes):
        arr.setflags(write=False)
    return StratumSummary(
        labels=summary.labels, sizes=sizes, means=means, sds=sds, codes=codes, ddof=summary.ddof
    )


@dataclass(frozen=True, eq=False)
class NeighbourComparison:
    """Both allocations on a population P and on a neighbour P′ (Bun et al. §7.2, App. E.1).

    Attributes
    ----------
    labels : tuple
        Stratum labels.
    m : int
        Total sample size of the Neyman allocations; ``rate = m / N`` for proportional.
    sizes, sizes_neighbour : numpy.ndarray of int64
        ``N_i`` on P and P′.
    sds, sds_neighbour : numpy.ndarray of float64
        ``σ_i`` on P and P′.
    neyman, neyman_neighbour : numpy.ndarray of int64
        :func:`neyman_allocation` on P and P′.
    proportional, proportional_neighbour : numpy.ndarray of int64
        Deterministic :func:`proportional_allocation` on P and P′.
    rate : float
        ``m / N``.
    """

    labels: tuple[object, ...]
    m: int
    sizes: IntArray
    sizes_neighbour: IntArray
    sds: FloatArray
    sds_neighbour: FloatArray
    neyman: IntArray
    neyman_neighbour: IntArray
    proportional: IntArray
    proportional_neighbour: IntArray
    rate: float

    @property
    def neyman_shift(self) -> IntArray:
        """``m′_i - m_i`` for Neyman allocation."""
        return self.neyman_neighbour - self.neyman

    @property
    def proportional_shift(self) -> IntArray:
        """``m′_i - m_i`` for deterministic proportional allocation."""
        return self.proportional_neighbour - self.proportional

    @property
    def most_moved(self) -> int:
        """Index of the stratum whose Neyman sample size moves most.

        Among ties, a stratum that gains records comes first (in the paper's example the
        top stratum, which the changed record joins), then the earlier stratum.
        """
        shift = self.neyman_shift
        size = np.abs(shift)
        ties = np.flatnonzero(size == size.max())
        gaining = ties[shift[ties] > 0]
        return int(gaining[0] if gaining.size else ties[0])

    def count_loss(self, eps_sample: float, design: str, release: str = "all") -> float:
        """Privacy loss between P and P′ of releasing noisy stratum counts of the sample.

        Section 4.1 applied per stratum: the mechanism releases ``|S_i| + Laplace(1/ε)`` for
        every stratum (``release="all"``; ε-DP on the sample, since adding or removing one
        record moves one count by 1) or for the stratum that moves most only
        (``release="largest"``). With a deterministic allocation the counts are the
        allocation itself, and the loss is exactly ``ε · Σ_i |m′_i - m_i|`` (``"all"``) or
        ``ε · max_i |m′_i - m_i|`` (``"largest"``).

        ``design`` is ``"neyman"``, ``"proportional"`` (deterministic rounding) or
        ``"randomized"`` (randomised rounding, computed exactly with
        :func:`noisy_count_loss`; coordinates are independent, so the loss of the joint
        release is the larger of the two directional sums of per-stratum suprema).
        """
        e = float(check_eps("eps_sample", eps_sample))
        if release not in ("all", "largest"):
            raise ValueError(f"release must be 'all' or 'largest'; got {release!r}")
        if design == "neyman":
            return allocation_count_loss(self.neyman, self.neyman_neighbour, e, release)
        if design == "proportional":
            return allocation_count_loss(self.proportional, self.proportional_neighbour, e, release)
        if design != "randomized":
            raise ValueError(
                f"design must be 'neyman', 'proportional' or 'randomized'; got {design!r}"
            )
        fa, pa = _randomized_parts(self.sizes, self.rate)
        fb, pb = _randomized_parts(self.sizes_neighbour, self.rate)
        ups, downs = [], []
        for i in range(self.sizes.size):
            if fa[i] == fb[i] and pa[i] == pb[i]:
                ups.append(0.0)
                downs.append(0.0)
                continue
            up, down = _directional_sups(
                np.array([fa[i], fa[i] + 1]),
                np.array([1 - pa[i], pa[i]]),
                np.array([fb[i], fb[i] + 1]),
                np.array([1 - pb[i], pb[i]]),
                e,
            )
            ups.append(up)
            downs.append(down)
        if release == "largest":
            return max(max(u, d) for u, d in zip(ups, downs, strict=True))
        return max(sum(ups), sum(downs), 0.0)


def compare_neighbours(
    summary: StratumSummary, neighbour: StratumSummary, m: int
) -> NeighbourComparison:
    """Neyman and deterministic proportional allocations on P and on its neighbour P′.

    Bun et al. section 7.2 and Appendix E.1: Neyman allocation depends on the stratum
    standard deviations, so changing one record can move many sampled records; any
    mechanism that lets the stratum sample sizes show through then pays for the shift
    (:meth:`NeighbourComparison.count_loss`). Deterministic proportional allocation moves
    at most one record per changed stratum, randomised rounding hides even that.

    Parameters
    ----------
    summary, neighbour : StratumSummary
        The strata of P and P′ (same labels, same order; :func:`top_code_neighbour`).
    m : int
        Total sample size; proportional allocation uses ``rate = m / N``.
    """
    if summary.labels != neighbour.labels:
        raise ValueError("the two populations must have the same strata in the same order")
    total = summary.population_size
    if neighbour.population_size != total:
        raise ValueError("neighbouring populations must have the same size")
    mm = check_whole("m (total sample size)", m, 1, total)
    rate = mm / total
    return NeighbourComparison(
        labels=summary.labels,
        m=mm,
        sizes=summary.sizes,
        sizes_neighbour=neighbour.sizes,
        sds=summary.sds,
        sds_neighbour=neighbour.sds,
        neyman=neyman_allocation(summary.sizes, summary.sds, mm),
        neyman_neighbour=neyman_allocation(neighbour.sizes, neighbour.sds, mm),
        proportional=proportional_allocation(summary.sizes, rate, "deterministic"),
        proportional_neighbour=proportional_allocation(neighbour.sizes, rate, "deterministic"),
        rate=rate,
    )
