"""The release planner: which design, rate and mechanism releases a statistic most accurately
for a promised ``eps_target``?

An agency holds a whole population and must promise ``(eps_target, delta_target)``. It may
privatise the whole file (the *census*) or a secret random sample drawn by a design; the
design's amplification theorem says how much larger a budget ``eps_sample`` the mechanism may
spend on the sample. The planner evaluates every design the population supports at a grid of
rates, refines the grid around each design's best rate, and ranks the designs by the error of
the released statistic about the population's own value.

Designs and their theorems
--------------------------
=========================  ===========================================  ===============
name                        ``eps_target`` as a function of ε_sample      relation
=========================  ===========================================  ===============
``census``                  ``ε_sample`` (no sampling)                    any
``srs``                     ``ln(1 + r(e^ε − 1))``, δ_target = r δ        change one
                            (Hu et al. Theorem 1; Balle et al. 2018)      record
``poisson``                 ``ln(1 + r(e^ε − 1))`` (Bun et al. eq. 3,      add/remove
                            Theorem 2.2)
``stratified_proportional`` ``ln(1 + 2r(e^{2ε} − 1)) + ln(1 + r(e^{2ε}     add/remove
                            − 1))`` (Bun et al. Theorems 4.3, 7.2)
``cluster``                 Bun et al. Theorem 5.2 for the worst record   add/remove
                            (:class:`core.designs.ClusterSampling`)
``neyman``                  none: the allocation is computed from the     --
                            data (Bun et al. §7)
=========================  ===========================================  ===============

The promise is made for one *neighbouring relation*: ``"replacement"`` (change one
person's record; Hu et al.'s bounded DP, the default) or ``"deletion"`` (add or remove one
person; Bun et al.). A design proven for add/remove neighbours keeps ``ε`` for them and, by
group privacy, ``2ε`` for a changed record (a change is a removal and an addition); so under
``"replacement"`` those designs may spend the ε_sample of ``eps_target / 2``. Simple random
sampling with a fixed ``n`` is proven for changed records only and is not offered under
``"deletion"``.

Mechanisms (:mod:`core.mechanisms`) must hold the guarantee the theorem needs:

* median: ``"smooth_laplace"`` (Laplace noise on the smooth sensitivity, (ε, δ), change one
  record, fixed n: census and SRS) and ``"exponential"`` (pure ε, both relations: every design);
* mean: ``"laplace"`` (R/n, change one record, fixed n: census and SRS; Hu et al. eqs.
  6–7 give its error exactly) and ``"ht_mean"`` (a noisy centred sum over the expected sample
  size, pure ε, add/remove: Poisson, stratified and cluster samples, and the census under
  ``"deletion"``).

Error measures
--------------
For a release ``θ̃`` of the population value ``θ`` (lower median or mean):
``RMSE = sqrt(E[(θ̃ − θ)^2])`` and the 95 % error bound ``x`` with ``P(|θ̃ − θ| ≤ x) = 0.95``
("95 % of releases lie within ±x of the population value"). The mean squared error splits
into the *sampling part* ``E[(θ̂ − θ)^2]`` (``θ̂`` the sample's statistic) and the *noise part*
``E[(θ̃ − θ̂)^2]``; they add up exactly when the noise is unbiased given the sample (every
additive mechanism), and approximately for the exponential mechanism. Where the noise is
additive its conditional variance is known exactly and is used for the noise part (as Hu et
al. §4.3 do), which leaves only the sampling part to Monte Carlo.

Monte Carlo uses common random numbers: within a design, every rate sees the same random
ranks of the records (a record is in the sample of size ``n`` when its rank is below ``n``),
so curves against the rate are smooth and differences between rates are not noise.

Invariants
----------
* :func:`eps_sample_for` and :func:`eps_target_for` are inverse to each other (to 1e-9
  relative) for every design and relation.
* The census row is exact for the median (smooth sensitivity or exponential mechanism) and
  the mean; SRS rows of the mean have exact RMSE (Hu et al. eq. 7).
* Several statistics released from one sample compose on the sample and are amplified once
  (:func:`budget_split`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeAlias

import numpy as np
import pandas as pd
from numpy.typing import NDArray
from scipy.optimize import brentq

from core import amplification as amp
from core import mechanisms as mech
from core import sensitivity as sens
from core._validation import (
    check_choice,
    check_delta_open,
    check_seed,
    check_whole,
    finite_scalar,
)
from core.clusters import cluster_sizes
from core.designs import ClusterSampling, ProportionalStratified
from core.windowed import window_exponential_draws, window_quantile_draws

if TYPE_CHECKING:
    from core.populations import Population

__all__ = [
    "DESIGN_LABELS",
    "RELATIONS",
    "STATISTICS",
    "AccuracyFirst",
    "BudgetSplit",
    "DesignStatus",
    "PlanProgress",
    "PlanResult",
    "budget_split",
    "default_rates",
    "design_statuses",
    "eps_sample_for",
    "eps_target_for",
    "mechanisms_for",
    "plan",
    "smallest_eps_target",
]

FloatArray: TypeAlias = NDArray[np.float64]

#: Plain-words names of the designs, in the order the planner lists them.
DESIGN_LABELS: dict[str, str] = {
    "census": "Census (privatise the whole population)",
    "srs": "Simple random sample (without replacement)",
    "poisson": "Poisson sample",
    "stratified_proportional": "Proportional stratified sample, randomised rounding",
    "cluster": "Cluster sample",
    "neyman": "Neyman-allocated stratified sample",
}
SAMPLED_DESIGNS = ("srs", "poisson", "stratified_proportional", "cluster")
STATISTICS = ("median", "quantile", "mean")
#: Mechanisms for a quantile (the median included) and for the mean, in display order.
QUANTILE_MECHANISMS = ("smooth_laplace", "smooth_pure", "exponential", "global_laplace")
MEAN_MECHANISMS = ("laplace", "gaussian", "ht_mean")
RELATIONS = ("replacement", "deletion")
OBJECTIVES = ("error_95", "rmse")

#: The relation each design's amplification theorem is proven for.
_THEOREM_RELATION = {
    "census": "any",
    "srs": "replacement",
    "poisson": "deletion",
    "stratified_proportional": "deletion",
    "cluster": "deletion",
    "neyman": "none",
}
_THEOREMS = {
    "census": "no sampling: the mechanism's own guarantee",
    "srs": "Hu, Drechsler & Kim Theorem 1 (Balle, Barthe & Gaboardi 2018)",
    "poisson": "Bun et al. eq. 3 and Theorem 2.2",
    "stratified_proportional": "Bun et al. Theorems 4.3 and 7.2",
    "cluster": "Bun et al. Theorem 5.2 (worst record: the two largest clusters)",
    "neyman": "none (Bun et al. §7: the allocation depends on the data)",
}
_NEYMAN_REASON = (
    "Neyman allocation sets each stratum's sample size from the spreads of the data itself "
    "(Bun et al. §7), so changing one record can change how many records every stratum "
    "contributes; no amplification theorem covers it and a release must spend ε_sample = "
    "ε_target. It would need an allocation fixed without this data (say from an earlier "
    "census), or the stratum spreads estimated privately and paid for from the budget."
)
#: Most plans the accuracy-first search computes before it settles for its bracket.
_MAX_SEARCH_PLANS = 16
#: Level of the error bound.
LEVEL = 0.95
#: Records drawn per Monte Carlo chunk (rows × N), to bound memory.
_CHUNK_CELLS = 4_000_000


# ---------------------------------------------------------------------------------------
# Design status and budgets
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DesignStatus:
    """Whether the planner can compare a design on a population, and why not.

    Attributes
    ----------
    name, label : str
        Design name (a key of :data:`DESIGN_LABELS`) and its plain-words label.
    available : bool
        The planner evaluates it.
    reason : str
        Plain words: why it is not available (empty when it is), or a caveat.
    theorem : str
        The amplification theorem with its paper section.
    relation : str
        The neighbouring relation the theorem is proven for.
    """

    name: str
    label: str
    available: bool
    reason: str
    theorem: str
    relation: str


def mechanisms_for(statistic: str, design: str, relation: str) -> tuple[str, ...]:
    """Names of the mechanisms whose guarantee fits ``design``'s theorem under ``relation``.

    Smooth-sensitivity quantiles (Laplace, (ε, δ); heavy-tailed, pure ε), the Laplace and
    the Gaussian mean (``R/n``) hold for a changed record in a sample of fixed size: census
    and SRS under ``"replacement"``. The exponential mechanism and Laplace noise on the
    global sensitivity ``U − L`` hold for both relations and any sample size: every design.
    The noisy centred sum (``"ht_mean"``) holds for added or removed records: the random
    sample sizes of Poisson, stratified and cluster samples, and the census under
    ``"deletion"``.
    """
    check_choice("statistic", statistic, STATISTICS)
    check_choice("design", design, DESIGN_LABELS)
    check_choice("relation", relation, RELATIONS)
    if design == "neyman" or (design == "srs" and relation == "deletion"):
        return ()
    fixed_size = design in ("census", "srs") and relation == "replacement"
    if statistic != "mean":
        return QUANTILE_MECHANISMS if fixed_size else ("exponential", "global_laplace")
    return ("laplace", "gaussian") if fixed_size else ("ht_mean",)


def _cluster_design(population: Population, rate: float) -> ClusterSampling:
    k = int(cluster_sizes(np.asarray(population.clusters)).sizes.size)
    ell = min(k, max(1, round(rate * k)))
    return ClusterSampling.from_population(population, ell)


def _design_object(
    design: str, rate: float | None, sizes: Any, clusters_sampled: int | None
) -> Any:
    """The :mod:`core.designs` object carrying ``design``'s theorem (None for the census)."""
    if design == "census":
        return None
    if design == "cluster":
        if sizes is None or clusters_sampled is None:
            raise ValueError("the cluster design needs sizes= and clusters_sampled=")
        return ClusterSampling(sizes, clusters_sampled)
    if rate is None:
        raise ValueError(f"the {design!r} design needs rate=")
    if design == "stratified_proportional":
        return ProportionalStratified(rate)
    return _Individual(float(rate))


@dataclass(frozen=True)
class _Individual:
    """SRS and Poisson sampling share ``ln(1 + r(e^ε − 1))``."""

    rate: float

    def eps_target(self, eps_sample: float) -> float:
        return float(amp.eps_target(eps_sample, self.rate))

    def eps_sample(self, eps_target: float) -> float:
        return float(amp.eps_sample(eps_target, self.rate))


def _group_factor(design: str, relation: str) -> float:
    """2 for a design proven for add/remove neighbours when a changed record is promised."""
    if design == "srs" and relation == "deletion":
        raise ValueError(
            "simple random sampling with a fixed n is proven for a changed record only "
            "(Hu et al. Theorem 1); under relation='deletion' use Poisson sampling"
        )
    if design == "neyman":
        raise ValueError(_NEYMAN_REASON)
    deletion_theorem = _THEOREM_RELATION[design] == "deletion"
    return 2.0 if deletion_theorem and relation == "replacement" else 1.0


def eps_sample_for(
    design: str,
    eps_target: float,
    *,
    relation: str = "replacement",
    rate: float | None = None,
    sizes: Any = None,
    clusters_sampled: int | None = None,
) -> float:
    """The largest ``eps_sample`` that ``design`` may spend and still promise ``eps_target``.

    The design's theorem (module docstring), inverted exactly: closed forms for SRS,
    Poisson and proportional stratified sampling, Brent's method for clusters. Under
    ``relation="replacement"`` a design proven for add/remove neighbours is held to
    ``eps_target / 2`` (group privacy).

    Parameters
    ----------
    design : str
        ``"census"``, ``"srs"``, ``"poisson"``, ``"stratified_proportional"`` or ``"cluster"``.
    eps_target : float
        The promised guarantee, finite and > 0.
    relation : str
        ``"replacement"`` (default) or ``"deletion"``.
    rate : float, optional
        ``r`` for SRS, Poisson and stratified designs.
    sizes : array_like of int, optional
        Records per cluster (cluster design).
    clusters_sampled : int, optional
        ``ℓ`` (cluster design).

    Returns
    -------
    float
        ``eps_sample``.

    Raises
    ------
    ValueError
        For an unknown design or relation, a missing design parameter, a design without a
        theorem for ``relation`` (Neyman; SRS under deletion) or a bad ``eps_target``.
    """
    check_choice("design", design, DESIGN_LABELS)
    check_choice("relation", relation, RELATIONS)
    t = _positive("eps_target", eps_target)
    factor = _group_factor(design, relation)
    obj = _design_object(design, rate, sizes, clusters_sampled)
    return t if obj is None else float(obj.eps_sample(t / factor))


def eps_target_for(
    design: str,
    eps_sample: float,
    *,
    relation: str = "replacement",
    rate: float | None = None,
    sizes: Any = None,
    clusters_sampled: int | None = None,
) -> float:
    """The guarantee ``eps_target`` that ``design`` gives when the mechanism spends ``eps_sample``.

    The inverse of :func:`eps_sample_for` (same parameters): the theorem's bound, doubled
    for a design proven for add/remove neighbours when ``relation="replacement"``.
    """
    check_choice("design", design, DESIGN_LABELS)
    check_choice("relation", relation, RELATIONS)
    e = _positive("eps_sample", eps_sample)
    factor = _group_factor(design, relation)
    obj = _design_object(design, rate, sizes, clusters_sampled)
    return e if obj is None else factor * float(obj.eps_target(e))


def _positive(name: str, value: object) -> float:
    x = finite_scalar(name, value)
    if x <= 0:
        raise ValueError(f"{name} must be a finite number > 0; got {value!r}")
    return x


def _delta_sample(design: str, delta_target: float, rate: float) -> float:
    """δ_sample for an (ε, δ) mechanism: ``δ_target / r`` under SRS (Balle et al.), else δ."""
    return min(delta_target / rate, 0.5) if design == "srs" else delta_target


def design_statuses(
    population: Population, statistic: str = "median", relation: str = "replacement"
) -> tuple[DesignStatus, ...]:
    """Every design with whether the planner compares it on ``population`` and why not.

    Parameters
    ----------
    population : Population
        The active population (strata and clusters decide what is available).
    statistic : str
        ``"median"`` or ``"mean"``.
    relation : str
        ``"replacement"`` or ``"deletion"``.

    Returns
    -------
    tuple of DesignStatus
        One per key of :data:`DESIGN_LABELS`, in that order.
    """
    check_choice("statistic", statistic, STATISTICS)
    check_choice("relation", relation, RELATIONS)
    out = []
    for name, label in DESIGN_LABELS.items():
        reason = ""
        if name == "neyman":
            reason = _NEYMAN_REASON
        elif name == "srs" and relation == "deletion":
            reason = (
                "Its theorem (Hu et al. Theorem 1) covers changing one record in a sample of "
                "fixed size, not adding or removing one; Poisson sampling is the design "
                "proven for that."
            )
        elif name == "stratified_proportional" and population.strata is None:
            reason = "The population has no stratum labels (upload a file with a stratum column)."
        elif name == "stratified_proportional" and _stratum_sizes(population).size < 2:
            reason = "The population has a single stratum: that is a simple random sample."
        elif name == "cluster" and population.clusters is None:
            reason = "The population has no cluster labels (upload a file with a cluster column)."
        elif name == "cluster" and cluster_sizes(np.asarray(population.clusters)).sizes.size < 2:
            reason = "The population has a single cluster: sampling it keeps all or nothing."
        elif _THEOREM_RELATION[name] == "deletion" and relation == "replacement":
            reason = (
                "Its theorem is proven for adding or removing a record; a changed record is a "
                "removal and an addition, so it keeps 2 × its ε for one (group privacy) and "
                "may spend the ε_sample of ε_target / 2."
            )
        available = name != "neyman" and not (
            reason and not reason.startswith("Its theorem is proven for adding")
        )
        out.append(
            DesignStatus(name, label, available, reason, _THEOREMS[name], _THEOREM_RELATION[name])
        )
    return tuple(out)


def _stratum_sizes(population: Population) -> NDArray[np.int64]:
    _, counts = np.unique(np.asarray(population.strata), return_counts=True)
    return counts.astype(np.int64)


def default_rates(population: Population) -> tuple[float, ...]:
    """Eight sampling rates, geometric from about 20 records (at least 0.5 %) to 80 %."""
    N = population.size
    lo = min(0.5, max(0.005, 20.0 / N))
    return tuple(float(f"{r:.3g}") for r in np.geomspace(lo, 0.8, 8))


# ---------------------------------------------------------------------------------------
# Drawing samples with common random numbers
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class _Frame:
    """The population prepared once: sorted values and label codes."""

    values: FloatArray
    lower: float
    upper: float
    strata_codes: NDArray[np.int64] | None
    strata_sizes: NDArray[np.int64] | None
    strata_positions: tuple[NDArray[np.int64], ...]
    cluster_codes: NDArray[np.int64] | None
    cluster_sizes: NDArray[np.int64] | None

    @property
    def N(self) -> int:
        return int(self.values.size)

    @classmethod
    def of(cls, population: Population) -> _Frame:
        values = np.asarray(population.values, dtype=np.float64)
        s_codes = s_sizes = c_codes = c_sizes = None
        positions: tuple[NDArray[np.int64], ...] = ()
        if population.strata is not None:
            _, inv, cnt = np.unique(
                np.asarray(population.strata), return_inverse=True, return_counts=True
            )
            s_codes, s_sizes = inv.astype(np.int64), cnt.astype(np.int64)
            order = np.argsort(s_codes, kind="stable")
            positions = tuple(np.split(order, np.cumsum(s_sizes)[:-1]))
        if population.clusters is not None:
            _, inv, cnt = np.unique(
                np.asarray(population.clusters), return_inverse=True, return_counts=True
            )
            c_codes, c_sizes = inv.astype(np.int64), cnt.astype(np.int64)
        return cls(
            values,
            float(population.lower),
            float(population.upper),
            s_codes,
            s_sizes,
            positions,
            c_codes,
            c_sizes,
        )


@dataclass(frozen=True, eq=False)
class _Keys:
    """Random keys of one chunk of repetitions; a rate turns them into sample masks."""

    design: str
    keys: np.ndarray  # (C, N) ranks / uniforms, or (C, k) cluster ranks
    rounding: FloatArray | None = None  # (C, strata) uniforms for randomised rounding

    def mask(self, frame: _Frame, size: float) -> NDArray[np.bool_]:
        """Rows of the chunk as boolean masks over the sorted population.

        ``size`` is ``n`` (SRS), the rate (Poisson, stratified) or ``ℓ`` (clusters).
        """
        if self.design == "srs":
            return self.keys < size
        if self.design == "poisson":
            return self.keys < size
        if self.design == "stratified_proportional":
            assert frame.strata_sizes is not None and frame.strata_codes is not None
            assert self.rounding is not None
            exact = size * frame.strata_sizes
            base = np.floor(exact)
            alloc = base + (self.rounding < (exact - base))  # (C, k)
            return self.keys < alloc[:, frame.strata_codes]
        assert frame.cluster_codes is not None
        return self.keys[:, frame.cluster_codes] < size


def _permutations(rng: np.random.Generator, rows: int, size: int) -> NDArray[np.int32]:
    """``rows`` independent uniform permutations of ``0 … size − 1`` (one per row)."""
    return rng.permuted(np.tile(np.arange(size, dtype=np.int32), (rows, 1)), axis=1)


def _draw_keys(frame: _Frame, design: str, rows: int, rng: np.random.Generator) -> _Keys:
    """Keys for ``rows`` repetitions of ``design`` (common to every rate).

    SRS: a uniform random rank per record (the records ranked below ``n`` are a simple
    random sample of size ``n``); Poisson: a uniform number per record (below ``r``: in);
    stratified: a uniform random rank inside the record's stratum and one uniform number per
    stratum for the randomised rounding; clusters: a uniform random rank per cluster.
    """
    N = frame.N
    if design == "srs":
        return _Keys(design, _permutations(rng, rows, N))
    if design == "poisson":
        return _Keys(design, rng.random((rows, N)))
    if design == "stratified_proportional":
        assert frame.strata_sizes is not None
        keys = np.empty((rows, N), dtype=np.int32)
        for pos in frame.strata_positions:
            keys[:, pos] = _permutations(rng, rows, pos.size)
        return _Keys(design, keys, rng.random((rows, frame.strata_sizes.size)))
    assert frame.cluster_sizes is not None
    return _Keys(design, _permutations(rng, rows, frame.cluster_sizes.size))


def _chunks(reps: int, N: int) -> list[int]:
    size = max(1, min(reps, _CHUNK_CELLS // max(N, 1)))
    return [min(size, reps - start) for start in range(0, reps, size)]


# ---------------------------------------------------------------------------------------
# Evaluating one design at its rates
# ---------------------------------------------------------------------------------------


@dataclass
class _Draws:
    """Per-repetition results of one (design, mechanism, rate)."""

    statistic: list[FloatArray] = field(default_factory=list)
    released: list[FloatArray] = field(default_factory=list)
    noise_variance: list[FloatArray] = field(default_factory=list)
    noise_scale: list[FloatArray] = field(default_factory=list)
    sizes: list[FloatArray] = field(default_factory=list)
    noise_cdf: Callable[[FloatArray], FloatArray] | None = None


def _make_mechanism(name: str, frame: _Frame, rate: float, quantile: float) -> mech.Mechanism:
    if name == "ht_mean":
        return mech.HorvitzThompsonMean(rate, frame.N, frame.lower, frame.upper)
    if name in QUANTILE_MECHANISMS:
        return mech.mechanism_by_name(name, quantile=quantile)
    return mech.mechanism_by_name(name)


def _noise_cdf(mechanism: mech.Mechanism) -> Callable[[FloatArray], FloatArray] | None:
    """The standard noise CDF of an additive mechanism with a stated variance, else None."""
    if not mechanism.additive or mechanism.unit_noise_variance is None:
        return None
    return mechanism.standard_noise_cdf


def _release_rows(
    mechanism: mech.Mechanism,
    rows: list[FloatArray],
    eps_sample: float,
    delta_sample: float,
    frame: _Frame,
    rng: np.random.Generator,
    out: _Draws,
) -> None:
    """Run ``mechanism`` on each sample (rows of equal length go as one batch)."""
    lengths = {r.size for r in rows}
    batches = [np.vstack(rows)] if len(lengths) == 1 else [r[None, :] for r in rows]
    for batch in batches:
        if batch.shape[1] == 0:
            _release_empty(mechanism, eps_sample, frame, rng, out)
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


def _release_empty(
    mechanism: mech.Mechanism,
    eps_sample: float,
    frame: _Frame,
    rng: np.random.Generator,
    out: _Draws,
) -> None:
    """The release of an empty sample (possible when the sample size is random).

    The noisy centred sum is ``c`` plus its noise; the exponential mechanism with no data
    is uniform over ``[lower, upper]``. The sample's "statistic" is taken as ``c``, the
    middle of the range.
    """
    c = 0.5 * (frame.lower + frame.upper)
    if isinstance(mechanism, mech.HorvitzThompsonMean):
        b = mechanism.global_sensitivity / eps_sample
        released, variance = c + b * rng.laplace(), 2.0 * b * b
    else:
        released, variance = rng.uniform(frame.lower, frame.upper), math.nan
    out.statistic.append(np.full(1, c))
    out.released.append(np.full(1, released))
    out.noise_variance.append(np.full(1, variance))
    out.noise_scale.append(np.full(1, math.sqrt(variance / 2.0)))


@dataclass(frozen=True)
class _Point:
    """One rate of one design: what the mask needs and what the theorem gives."""

    rate: float
    size: float  # n (SRS), rate (Poisson, stratified), ℓ (cluster)
    n: float  # expected sample size
    clusters_sampled: float
    eps_sample: float
    delta_sample: float


def _points(
    design: str,
    frame: _Frame,
    rates: Sequence[float],
    eps_target: float,
    delta_target: float,
    relation: str,
    share: float,
) -> list[_Point]:
    """The distinct feasible rates of ``design`` with their budgets."""
    N = frame.N
    pts: dict[float, _Point] = {}
    for r in rates:
        if design == "srs":
            n = amp.sample_size(N, r)
            rate = n / N
            size, ell = float(n), math.nan
            kw: dict[str, Any] = {"rate": rate}
        elif design == "cluster":
            assert frame.cluster_sizes is not None
            k = frame.cluster_sizes.size
            ell_i = min(k, max(1, round(r * k)))
            rate, size, ell = ell_i / k, float(ell_i), float(ell_i)
            kw = {"sizes": frame.cluster_sizes, "clusters_sampled": ell_i}
        else:
            rate, size, ell = float(r), float(r), math.nan
            if design == "stratified_proportional":
                assert frame.strata_sizes is not None
                if (rate * frame.strata_sizes < 1).any():
                    continue  # Theorems 4.3/7.2 need r·N_j ≥ 1 in every stratum
            kw = {"rate": rate}
        if rate >= 1.0 or rate in pts:
            continue
        eps_s = eps_sample_for(design, eps_target, relation=relation, **kw) * share
        pts[rate] = _Point(
            rate, size, rate * N, ell, eps_s, _delta_sample(design, delta_target, rate) * share
        )
    return sorted(pts.values(), key=lambda p: p.rate)


def _design_seed(seed: int, design: str) -> list[int]:
    return [seed, list(DESIGN_LABELS).index(design)]


def _simulate(
    design: str,
    mechanisms: Sequence[str],
    frame: _Frame,
    points: Sequence[_Point],
    reps: int,
    seed: int,
    quantile: float,
) -> dict[tuple[str, float], _Draws]:
    """Monte Carlo of ``design`` at ``points`` for each mechanism, common random numbers."""
    if not mechanisms:
        return {}
    results = {
        (m, p.rate): _Draws(noise_cdf=_noise_cdf(_make_mechanism(m, frame, p.rate, quantile)))
        for m in mechanisms
        for p in points
    }
    key_rng = np.random.default_rng(_design_seed(seed, design))
    for c, rows in enumerate(_chunks(reps, frame.N)):
        keys = _draw_keys(frame, design, rows, key_rng)
        for p in points:
            mask = keys.mask(frame, p.size)
            samples = [frame.values[mask[i]] for i in range(rows)]
            for j, name in enumerate(mechanisms):
                noise_rng = np.random.default_rng([*_design_seed(seed, design), j, c, 17])
                mechanism = _make_mechanism(name, frame, p.rate, quantile)
                _release_rows(
                    mechanism,
                    samples,
                    p.eps_sample,
                    p.delta_sample,
                    frame,
                    noise_rng,
                    results[(name, p.rate)],
                )
    return results


#: Population size from which ``sampler="auto"`` draws simple random and Poisson samples
#: as windows around the quantile's rank (:mod:`core.windowed`) for the mechanisms whose
#: release depends only on them; below it, masks over all N records (common random numbers
#: across rates).
WINDOW_FROM_N = 200_000

SAMPLERS: tuple[str, ...] = ("auto", "full", "window")


def _windowed_names(design: str, names: Sequence[str], frame: _Frame, sampler: str) -> list[str]:
    """The mechanisms of ``design`` simulated on windows instead of whole samples."""
    if design not in ("srs", "poisson") or sampler == "full":
        return []
    if sampler == "auto" and frame.N < WINDOW_FROM_N:
        return []
    return [m for m in names if mech.MECHANISMS[m].windowed]


def _simulate_windows(
    design: str,
    mechanisms: Sequence[str],
    frame: _Frame,
    points: Sequence[_Point],
    reps: int,
    seed: int,
    quantile: float,
) -> dict[tuple[str, float], _Draws]:
    """Monte Carlo of a simple random or Poisson design on windows (:mod:`core.windowed`).

    A Poisson sample given its size ``n ~ Binomial(N, rate)`` is a simple random sample of
    that size, so both designs draw windows of SRSWOR samples; an empty Poisson sample is
    released as in :func:`_release_empty`.  Every mechanism of a rate sees the same
    samples (the exponential mechanism, drawn ring by ring, samples of its own); rates are
    drawn independently (no common random numbers across rates, unlike the masks).
    Additive releases: ``statistic + noise_scale(S, eps) * standard noise``.
    """
    results: dict[tuple[str, float], _Draws] = {}
    for p in points:
        tag = round(p.rate * 2**40)
        rng = np.random.default_rng([*_design_seed(seed, design), 29, tag])
        if design == "srs":
            sizes = np.full(reps, round(p.size), dtype=np.int64)
        else:
            sizes = rng.binomial(frame.N, p.rate, reps).astype(np.int64)
        filled = sizes[sizes > 0]
        objects = [_make_mechanism(m, frame, p.rate, quantile) for m in mechanisms]
        exponential = [isinstance(o, mech.ExponentialQuantile) for o in objects]
        betas = [o.window_beta(p.eps_sample, p.delta_sample) for o in objects]
        used = [b for b, x in zip(betas, exponential, strict=True) if b is not None and not x]
        stat, S = window_quantile_draws(
            rng, frame.values, filled, quantile, used, frame.lower, frame.upper
        )
        ones = np.empty((filled.size, 1))
        for j, (name, o, beta) in enumerate(zip(mechanisms, objects, betas, strict=True)):
            noise_rng = np.random.default_rng([*_design_seed(seed, design), 31, tag, j])
            out = _Draws(noise_cdf=_noise_cdf(o))
            if filled.size and exponential[j]:
                # Drawn ring by ring, on samples of its own (core.windowed).
                x_stat, x_rel = window_exponential_draws(
                    rng, noise_rng, frame.values, filled, quantile, [p.eps_sample],
                    frame.lower, frame.upper,
                )  # fmt: skip
                out.statistic.append(x_stat)
                out.released.append(x_rel[0])
                out.noise_variance.append(np.full(x_stat.size, np.nan))
                out.noise_scale.append(np.full(x_stat.size, 2.0 / p.eps_sample))
            elif filled.size:
                sens_ = (
                    S[used.index(beta)] if beta is not None
                    else o.sensitivity(ones, p.eps_sample, p.delta_sample, frame.lower, frame.upper)
                )  # fmt: skip
                scale = np.asarray(o.noise_scale(sens_, p.eps_sample), dtype=np.float64)
                scale = np.broadcast_to(scale, stat.shape).copy()
                out.statistic.append(stat)
                out.released.append(stat + scale * o.standard_noise(noise_rng, stat.shape))
                nv = o.noise_variance(sens_, p.eps_sample)
                out.noise_variance.append(
                    np.full(stat.size, np.nan) if nv is None
                    else np.broadcast_to(np.asarray(nv, dtype=np.float64), stat.shape).copy()
                )  # fmt: skip
                out.noise_scale.append(scale)
            for _ in range(int((sizes == 0).sum())):
                _release_empty(o, p.eps_sample, frame, noise_rng, out)
            out.sizes.append(sizes.astype(np.float64))
            results[(name, p.rate)] = out
    return results


def _quantile_se(abs_err: FloatArray, level: float) -> tuple[float, float]:
    """The ``level`` quantile of ``abs_err`` and a distribution-free standard error.

    The standard error is a quarter of the width of the order-statistic interval
    ``[T p − 2 sqrt(T p (1 − p)), T p + 2 sqrt(T p (1 − p))]`` (about ±2 standard errors).
    """
    T = abs_err.size
    q = float(np.quantile(abs_err, level))
    if T < 2:
        return q, math.nan
    s = np.sort(abs_err)
    half = 2.0 * math.sqrt(T * level * (1 - level))
    lo = s[max(0, math.floor(T * level - half))]
    hi = s[min(T - 1, math.ceil(T * level + half))]
    return q, float(hi - lo) / 4.0


def _abs_cdf(
    x: float, err: FloatArray, scale: FloatArray, cdf: Callable[[FloatArray], FloatArray]
) -> FloatArray:
    """``P(|e_i + b_i Z| <= x)`` per repetition, ``Z`` with the standard noise CDF ``cdf``."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        safe = np.where(scale > 0, scale, 1.0)
        hi = np.where(scale > 0, cdf((x - err) / safe), (err <= x).astype(float))
        lo = np.where(scale > 0, cdf((-x - err) / safe), (err < -x).astype(float))
    return np.asarray(hi - lo, dtype=np.float64)


#: Errors below this (the smallest normal double times 1e14) are reported as their upper bound:
#: a root search on them would need a tolerance that underflows.
_TINY_ERROR = 1e14 * float(np.finfo(np.float64).tiny)


def _root(g: Callable[[float], float], top: float) -> float:
    """The root of the non-decreasing ``g`` in ``[0, top]`` (``g(0) <= 0 <= g(top)``).

    Brent's method; when it does not converge (a coverage made of steps, e.g. when many
    samples carry no noise), plain bisection on the same bracket, which always does.
    """
    try:
        return float(brentq(g, 0.0, top, xtol=1e-14 * top, rtol=1e-13, maxiter=200))
    except RuntimeError:
        lo, hi = 0.0, top
        for _ in range(200):
            mid = 0.5 * (lo + hi)
            if mid <= lo or mid >= hi:
                break
            if g(mid) < 0.0:
                lo = mid
            else:
                hi = mid
        return hi


def _conditional_quantile(
    err: FloatArray,
    scale: FloatArray,
    level: float,
    cdf: Callable[[FloatArray], FloatArray] | None = None,
) -> tuple[float, float]:
    """The ``level`` quantile of ``|release − θ|`` with the additive noise integrated out.

    Given the samples, ``release − θ = e_i + b_i Z`` with ``e_i`` the sample's error and
    ``Z`` the mechanism's standard noise (CDF ``cdf``; Laplace(0, 1) by default); the bound
    ``x`` solves ``mean_i P(|e_i + b_i Z| <= x) = level`` (a Rao–Blackwellised estimate: only
    the sampling part is left to Monte Carlo, and the census, with ``e = 0``, is exact: for
    Laplace noise ``x = b ln(1 / (1 − level))``). The standard error is the delta method's
    ``sd_i(P_i(x)) / sqrt(T) / mean_i(p_i(x))``.
    """
    f = mech.LaplaceMean().standard_noise_cdf if cdf is None else cdf

    def coverage(v: float) -> float:
        return float(_abs_cdf(v, err, scale, f).mean())

    top = float(np.max(np.abs(err))) + float(np.max(scale))
    if top == 0.0:  # every release equals the population value (ties, no noise)
        return 0.0, 0.0
    if top < _TINY_ERROR:  # e.g. a smooth sensitivity of 1e-320 on ties: the bound is below
        return top, 0.0  # anything a float resolves, and top bounds it
    while coverage(top) < level:
        top *= 2.0
    x = _root(lambda v: coverage(v) - level, top)
    T = err.size
    probs = _abs_cdf(x, err, scale, f)
    h = 1e-3 * x if x > 0 else 1e-9 * top
    density = (coverage(x + h) - coverage(max(x - h, 0.0))) / (x + h - max(x - h, 0.0))
    se = float(probs.std(ddof=1)) / math.sqrt(T) / density if T > 1 and density > 0 else 0.0
    return x, se


def _summary_row(draws: _Draws, theta: float) -> dict[str, float]:
    stat = np.concatenate(draws.statistic)
    rel = np.concatenate(draws.released)
    nv = np.concatenate(draws.noise_variance)
    T = stat.size
    samp_sq = (stat - theta) ** 2
    if np.isfinite(nv).all():
        sq = samp_sq + nv  # exact conditional noise variance (Hu et al. §4.3)
        noise_part = float(nv.mean())
    else:
        sq = (rel - theta) ** 2
        noise_part = float(((rel - stat) ** 2).mean())
    mse = float(sq.mean())
    mse_se = float(sq.std(ddof=1)) / math.sqrt(T) if T > 1 else math.nan
    rmse = math.sqrt(mse)
    if draws.noise_cdf is not None and np.isfinite(nv).all():
        scale = np.concatenate(draws.noise_scale)
        e95, e95_se = _conditional_quantile(stat - theta, scale, LEVEL, draws.noise_cdf)
    else:
        e95, e95_se = _quantile_se(np.abs(rel - theta), LEVEL)
    return {
        "rmse": rmse,
        "rmse_se": mse_se / (2 * rmse) if rmse > 0 else 0.0,
        "error_95": e95,
        "error_95_se": e95_se,
        "sampling_part": float(samp_sq.mean()),
        "noise_part": noise_part,
        "mean_sample_size": float(np.concatenate(draws.sizes).mean()),
    }


# ---------------------------------------------------------------------------------------
# Exact rows: the census, and the mean under SRS (Hu et al. eqs. 6-7)
# ---------------------------------------------------------------------------------------


def _population_value(frame: _Frame, statistic: str, quantile: float = 0.5) -> float:
    """The population's mean, or its order statistic of rank ``quantile_rank(N, q)``."""
    if statistic == "mean":
        return float(frame.values.mean())
    return float(frame.values[sens.quantile_rank(frame.N, quantile) - 1])


def _census_row(
    frame: _Frame, name: str, eps: float, delta: float, quantile: float
) -> dict[str, float]:
    """Exact error of privatising the whole population with mechanism ``name``.

    The census's statistic is the population value itself, so the error is the noise alone:
    for an additive mechanism ``b Z`` with ``b`` its noise scale on the population (RMSE
    ``b sqrt(Var Z)``, 95 % bound ``b z`` with ``P(|Z| <= z) = 0.95``); for the exponential
    mechanism its exact piecewise-uniform distribution
    (:func:`core.mechanisms.exponential_quantile_error`).
    """
    if name == "exponential":
        theta = _population_value(frame, "quantile", quantile)
        mse, e95 = mech.exponential_quantile_error(
            frame.values, eps, frame.lower, frame.upper, theta, level=LEVEL, quantile=quantile
        )
        return _exact(math.sqrt(mse), e95, 0.0, mse)
    mechanism = _make_mechanism(name, frame, 1.0, quantile)
    rel = mechanism.release(
        frame.values[np.newaxis, :],
        eps,
        delta,
        frame.lower,
        frame.upper,
        np.random.default_rng(0),
    )
    assert rel.noise_variance is not None
    b = float(rel.noise_scale[0])
    variance = float(rel.noise_variance[0])
    cdf = mechanism.standard_noise_cdf
    z95 = 0.0
    if b > 0:
        z95 = float(brentq(lambda z: float(cdf(z) - cdf(-z)) - LEVEL, 0.0, 1e6, xtol=1e-15))
    return _exact(math.sqrt(variance), b * z95, 0.0, variance)


def _exact(rmse: float, e95: float, sampling: float, noise: float) -> dict[str, float]:
    return {
        "rmse": rmse,
        "rmse_se": 0.0,
        "error_95": e95,
        "error_95_se": 0.0,
        "sampling_part": sampling,
        "noise_part": noise,
    }


def _srs_mean_exact(
    frame: _Frame, name: str, n: int, eps_sample: float, delta_sample: float
) -> tuple[float, float]:
    """Sampling and noise parts of the mean of an SRS of size ``n`` (Hu et al. eq. 7).

    Sampling part ``(1 − n/N) S_N² / n``; noise part ``2 (R / (ε n))²`` for Laplace noise
    and ``σ²`` of the analytic Gaussian mechanism at sensitivity ``R / n`` for Gaussian.
    """
    N = frame.N
    s2 = float(frame.values.var(ddof=1)) if N > 1 else 0.0
    R = frame.upper - frame.lower
    if name == "gaussian":
        sigma = float(mech.analytic_gaussian_sigma(eps_sample, delta_sample, R / n))
        return (1.0 - n / N) * s2 / n, sigma * sigma
    return (1.0 - n / N) * s2 / n, 2.0 * (R / (eps_sample * n)) ** 2


# ---------------------------------------------------------------------------------------
# The plan
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class PlanResult:
    """Result of :func:`plan` (see the module docstring for the columns' meaning).

    Attributes
    ----------
    table : pandas.DataFrame
        One row per evaluated (design, mechanism, rate): ``design``, ``design_label``,
        ``mechanism``, ``mechanism_label``, ``rate``, ``n`` (expected sample size),
        ``clusters_sampled``, ``eps_sample``, ``delta_sample``, ``rmse``, ``rmse_se``,
        ``error_95``, ``error_95_se``, ``sampling_part``, ``noise_part``, ``exact``,
        ``refined``, ``is_best``.
    best_by_design : pandas.DataFrame
        The ``is_best`` rows ranked by the objective, best first, with ``gain`` =
        1 − objective / census objective (positive: tighter than the census).
    best : pandas.Series
        The winning row.
    census : pandas.Series or None
        The best census row.
    statuses : tuple of DesignStatus
        Every design, available or not, with reasons.
    population_value : float
        The population's statistic every error is measured against.
    """

    table: pd.DataFrame
    best_by_design: pd.DataFrame
    best: pd.Series
    census: pd.Series | None
    statuses: tuple[DesignStatus, ...]
    population_value: float
    statistic: str
    eps_target: float
    delta_target: float
    reps: int
    seed: int
    relation: str
    objective: str
    budget_share: float
    N: int
    quantile: float = 0.5


@dataclass(frozen=True, eq=False)
class PlanProgress:
    """What :func:`plan` has finished: ``done`` of ``total`` designs (the census first).

    Attributes
    ----------
    done, total : int
        Designs evaluated so far, and in all (the census counts as one).
    design : str
        The design just finished.
    table : pandas.DataFrame
        The rows known so far, with the columns and order of :attr:`PlanResult.table`.
    """

    done: int
    total: int
    design: str
    table: pd.DataFrame


def _check_rates(rates: Iterable[float] | None, population: Population) -> tuple[float, ...]:
    if rates is None:
        return default_rates(population)
    out = []
    for r in rates:
        x = finite_scalar("rate", r)
        if not 0 < x <= 1:
            raise ValueError(f"rates must be numbers in (0, 1]; got {r!r}")
        out.append(x)
    if not out:
        raise ValueError("rates must list at least one rate in (0, 1]")
    return tuple(sorted(set(out)))


def _refine(points_rates: Sequence[float], objective_values: Sequence[float]) -> list[float]:
    """Two rates halfway (geometrically) to the neighbours of the best rate."""
    if not points_rates:
        return []
    i = int(np.nanargmin(np.asarray(objective_values, dtype=np.float64)))
    out = []
    if i > 0:
        out.append(math.sqrt(points_rates[i - 1] * points_rates[i]))
    if i + 1 < len(points_rates):
        out.append(math.sqrt(points_rates[i] * points_rates[i + 1]))
    else:
        out.append(math.sqrt(points_rates[i]))  # towards the census
    return out


@dataclass(frozen=True)
class _Setting:
    """The checked arguments of one :func:`plan` call that every design shares."""

    statistic: str
    quantile: float
    eps_target: float
    delta_target: float
    relation: str
    reps: int
    seed: int
    share: float
    theta: float
    mechanisms: tuple[str, ...] | None
    sampler: str = "auto"

    def names(self, design: str) -> tuple[str, ...]:
        """The mechanisms fitting ``design``, restricted to the ones asked for."""
        fit = mechanisms_for(self.statistic, design, self.relation)
        return fit if self.mechanisms is None else tuple(m for m in fit if m in self.mechanisms)


def _base_row(design: str, name: str, rate: float, n: float, ell: float) -> dict[str, Any]:
    return {
        "design": design,
        "design_label": DESIGN_LABELS[design],
        "mechanism": name,
        "mechanism_label": mech.MECHANISMS[name].label,
        "rate": rate,
        "n": n,
        "clusters_sampled": ell,
        "exact": False,
    }


def _census_rows(frame: _Frame, setting: _Setting) -> list[dict[str, Any]]:
    rows = []
    for name in setting.names("census"):
        row = _base_row("census", name, 1.0, float(frame.N), math.nan)
        uses_delta = mech.MECHANISMS[name].uses_delta
        eps = setting.eps_target * setting.share
        delta = setting.delta_target * setting.share
        row.update(eps_sample=eps, delta_sample=delta if uses_delta else 0.0, exact=True)
        row.update(_census_row(frame, name, eps, delta, setting.quantile))
        rows.append(row)
    return rows


def _evaluate_design(
    design: str, frame: _Frame, rates: Sequence[float], setting: _Setting
) -> list[dict[str, Any]]:
    """Rows of ``design`` at ``rates`` for every fitting mechanism (Monte Carlo)."""
    names = setting.names(design)
    points = _points(
        design,
        frame,
        rates,
        setting.eps_target,
        setting.delta_target,
        setting.relation,
        setting.share,
    )
    if not points or not names:
        return []
    windowed = _windowed_names(design, names, frame, setting.sampler)
    draws = _simulate(
        design,
        [m for m in names if m not in windowed],
        frame,
        points,
        setting.reps,
        setting.seed,
        setting.quantile,
    )
    if windowed:
        draws.update(
            _simulate_windows(
                design, windowed, frame, points, setting.reps, setting.seed, setting.quantile
            )
        )
    rows = []
    for name in names:
        uses_delta = mech.MECHANISMS[name].uses_delta
        for p in points:
            row = _base_row(design, name, p.rate, p.n, p.clusters_sampled)
            row.update(eps_sample=p.eps_sample, delta_sample=p.delta_sample if uses_delta else 0.0)
            summary = _summary_row(draws[(name, p.rate)], setting.theta)
            row["n"] = summary.pop("mean_sample_size") if design != "srs" else p.n
            if design == "srs" and name in ("laplace", "gaussian"):
                sampling, noise = _srs_mean_exact(
                    frame, name, round(p.n), p.eps_sample, p.delta_sample
                )
                summary.update(
                    rmse=math.sqrt(sampling + noise),
                    rmse_se=0.0,
                    sampling_part=sampling,
                    noise_part=noise,
                )
                row["exact"] = True
            row.update(summary)
            rows.append(row)
    return rows


def _with_refinement(
    design: str, frame: _Frame, grid: Sequence[float], setting: _Setting, objective: str
) -> list[dict[str, Any]]:
    """The grid rows of ``design`` plus two rates around each mechanism's best grid rate."""
    got = _evaluate_design(design, frame, grid, setting)
    extra: list[float] = []
    for m in dict.fromkeys(r["mechanism"] for r in got):
        mine = [r for r in got if r["mechanism"] == m]
        extra += _refine([r["rate"] for r in mine], [r[objective] for r in mine])
    known = {r["rate"] for r in got}
    new = [r for r in dict.fromkeys(extra) if r not in known]
    known_rows = {(r["mechanism"], r["rate"]) for r in got}
    for r in _evaluate_design(design, frame, new, setting):
        if (r["mechanism"], r["rate"]) not in known_rows:
            r["refined"] = True
            got.append(r)
    return got


def _chosen_designs(designs: Sequence[str] | None, statuses: Sequence[DesignStatus]) -> list[str]:
    available = [st.name for st in statuses if st.available]
    if designs is None:
        return [name for name in available if name != "census"]
    chosen: list[str] = []
    for name in designs:
        check_choice("design", name, DESIGN_LABELS)
        if name not in available:
            reason = next(st.reason for st in statuses if st.name == name)
            raise ValueError(f"the design {name!r} is not available here: {reason}")
        if name != "census" and name not in chosen:
            chosen.append(name)
    return chosen


def _check_mechanisms(mechanisms: Sequence[str] | None, statistic: str) -> tuple[str, ...] | None:
    if mechanisms is None:
        return None
    allowed = MEAN_MECHANISMS if statistic == "mean" else QUANTILE_MECHANISMS
    out = tuple(check_choice("mechanism", m, allowed) for m in mechanisms)
    if not out:
        raise ValueError(f"mechanisms must name at least one of {list(allowed)}")
    return out


def _ranked(table: pd.DataFrame, objective: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The table in display order with ``is_best``, and the best rows ranked with ``gain``."""
    table["refined"] = table.get("refined", pd.Series(False, index=table.index))
    table["refined"] = table["refined"].fillna(False).astype(bool)
    order = {name: i for i, name in enumerate(DESIGN_LABELS)}
    mech_order = {name: i for i, name in enumerate(QUANTILE_MECHANISMS + MEAN_MECHANISMS)}
    table = table.sort_values(
        by=["design", "mechanism", "rate"],
        key=lambda col: (
            col.map(order)
            if col.name == "design"
            else (col.map(mech_order) if col.name == "mechanism" else col)
        ),
        kind="stable",
    ).reset_index(drop=True)
    best_idx = table.groupby(["design", "mechanism"], sort=False)[objective].idxmin()
    table["is_best"] = False
    table.loc[best_idx.to_numpy(), "is_best"] = True
    best = table[table["is_best"]].sort_values(objective, kind="stable").reset_index(drop=True)
    census = best[best["design"] == "census"]
    ref = float(census[objective].iloc[0]) if len(census) else math.nan
    best["gain"] = 1.0 - best[objective] / ref if ref > 0 else math.nan
    return table, best


def plan(
    population: Population,
    *,
    statistic: str = "median",
    eps_target: float,
    delta_target: float | None = None,
    designs: Sequence[str] | None = None,
    rates: Sequence[float] | None = None,
    reps: int = 200,
    seed: int = 0,
    relation: str = "replacement",
    objective: str = "error_95",
    budget_share: float = 1.0,
    refine: bool = True,
    quantile: float = 0.5,
    mechanisms: Sequence[str] | None = None,
    sampler: str = "auto",
    progress: Callable[[PlanProgress], None] | None = None,
) -> PlanResult:
    """Compare designs, rates and mechanisms for releasing ``statistic`` at ``eps_target``.

    For every available design (:func:`design_statuses`) and fitting mechanism
    (:func:`mechanisms_for`): the ε_sample the design's theorem allows at each rate
    (:func:`eps_sample_for`), the release's RMSE and 95 % error bound about the population
    value, split into the sampling and the noise part, with Monte Carlo standard errors
    (``reps`` samples drawn by the design, the mechanism run on each); exact where formulas
    exist (census; the mean under SRS, Hu et al. eq. 7). With ``refine``, two more rates
    are tried around each design's best grid rate.

    Parameters
    ----------
    population : Population
        The population (sorted values, bounds, optional strata and clusters).
    statistic : str
        ``"median"`` (lower median, Hu et al. §4.3), ``"quantile"`` (the order statistic
        of rank :func:`core.sensitivity.quantile_rank` for ``quantile``) or ``"mean"``.
    eps_target : float
        The promised guarantee, finite and > 0.
    delta_target : float, optional
        The promised δ, in (0, 1); default ``1 / (2N)``. Used by (ε, δ) mechanisms only.
    designs : sequence of str, optional
        Design names to compare (default: every available design). The census is always
        included as the reference.
    rates : sequence of float, optional
        Sampling rates in (0, 1] (default :func:`default_rates`). For clusters a rate means
        ``ℓ = round(rate · k)`` clusters; for stratified samples rates with ``r N_j < 1`` in
        some stratum are skipped (Theorems 4.3/7.2 need ``r N_j ≥ 1``).
    reps : int
        Monte Carlo repetitions ``T`` per rate, 2 ≤ T ≤ 100,000.
    seed : int
        Seed: the same seed gives the same table.
    relation : str
        ``"replacement"`` (change one record, default) or ``"deletion"`` (add or remove one).
    objective : str
        ``"error_95"`` (default) or ``"rmse"``: what "best" means.
    budget_share : float
        Fraction in (0, 1] of the design's ε_sample (and δ_sample) this statistic spends;
        the rest goes to other statistics released from the same sample (:func:`budget_split`).
    refine : bool
        Refine around each design's best rate.
    quantile : float
        ``q`` in (0, 1) for ``statistic="quantile"`` (``"median"`` means 0.5).
    mechanisms : sequence of str, optional
        Restrict the comparison to these mechanism names (default: every fitting one).
    progress : callable, optional
        Called with a :class:`PlanProgress` after the census and after each design, so a
        page can show a progress bar and the rows known so far.

    Returns
    -------
    PlanResult

    Raises
    ------
    ValueError
        For bad arguments, or designs that are unknown or not available on the population.
    """
    check_choice("statistic", statistic, STATISTICS)
    check_choice("relation", relation, RELATIONS)
    check_choice("objective", objective, OBJECTIVES)
    q = 0.5 if statistic == "median" else sens.check_quantile(quantile)
    t = _positive("eps_target", eps_target)
    N = population.size
    d = 1.0 / (2.0 * N) if delta_target is None else check_delta_open("delta_target", delta_target)
    share = _positive("budget_share", budget_share)
    if share > 1:
        raise ValueError(f"budget_share must be a number in (0, 1]; got {budget_share!r}")
    grid = _check_rates(rates, population)
    statuses = design_statuses(population, statistic, relation)
    chosen = _chosen_designs(designs, statuses)
    frame = _Frame.of(population)
    setting = _Setting(
        statistic=statistic,
        quantile=q,
        eps_target=t,
        delta_target=d,
        relation=relation,
        reps=check_whole("reps", reps, 2, 100_000),
        seed=check_seed(seed),
        share=share,
        theta=_population_value(frame, statistic, q),
        mechanisms=_check_mechanisms(mechanisms, statistic),
        sampler=check_choice("sampler", sampler, SAMPLERS),
    )
    rows = _census_rows(frame, setting)
    total = 1 + len(chosen)
    if progress is not None:
        progress(PlanProgress(1, total, "census", _ranked(pd.DataFrame(rows), objective)[0]))
    for i, name in enumerate(chosen, start=2):
        if refine:
            rows.extend(_with_refinement(name, frame, grid, setting, objective))
        else:
            rows.extend(_evaluate_design(name, frame, grid, setting))
        if progress is not None and rows:
            progress(PlanProgress(i, total, name, _ranked(pd.DataFrame(rows), objective)[0]))
    if not rows:
        raise ValueError("no mechanism fits the chosen designs, relation and statistic")
    table, best = _ranked(pd.DataFrame(rows), objective)
    census_rows = best[best["design"] == "census"]
    return PlanResult(
        table=table,
        best_by_design=best,
        best=best.iloc[0],
        census=census_rows.iloc[0] if len(census_rows) else None,
        statuses=statuses,
        population_value=setting.theta,
        statistic=statistic,
        eps_target=t,
        delta_target=d,
        reps=setting.reps,
        seed=setting.seed,
        relation=relation,
        objective=objective,
        budget_share=share,
        N=N,
        quantile=q,
    )


# ---------------------------------------------------------------------------------------
# Accuracy first: the smallest eps_target that reaches an error bound
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class AccuracyFirst:
    """Result of :func:`smallest_eps_target`.

    Attributes
    ----------
    target_error_95 : float
        The 95 % error bound asked for.
    eps_target : float
        The smallest ε_target found (to about 2 % relative), NaN if none in range works.
    feasible : bool
        Whether some ε_target in the range reaches the bound.
    plan : PlanResult or None
        The plan at ``eps_target`` (at the top of the range when infeasible).
    evaluations : int
        Number of plans computed by the search.
    """

    target_error_95: float
    eps_target: float
    feasible: bool
    plan: PlanResult | None
    evaluations: int


def smallest_eps_target(
    population: Population,
    *,
    statistic: str = "median",
    target_error_95: float,
    delta_target: float | None = None,
    designs: Sequence[str] | None = None,
    rates: Sequence[float] | None = None,
    reps: int = 200,
    seed: int = 0,
    relation: str = "replacement",
    eps_range: tuple[float, float] = (1e-3, 50.0),
    tolerance: float = 0.02,
    quantile: float = 0.5,
    mechanisms: Sequence[str] | None = None,
) -> AccuracyFirst:
    """The smallest ε_target whose best plan has a 95 % error bound at most ``target_error_95``.

    A root search on ``log ε_target`` over ``eps_range`` with :func:`plan` (objective
    ``"error_95"``, the same seed at every step, so the error is a deterministic, in
    practice decreasing function of ε_target): a bracket is found by steps that assume the
    bound falls like ``1/ε``, then narrowed by false position until it is narrower than
    ``tolerance`` (relative); the upper end is returned. The search runs without the rate
    refinement; the returned plan is refined.

    Raises
    ------
    ValueError
        For a non-positive ``target_error_95``, a bad range or the arguments :func:`plan`
        refuses.
    """
    x = _positive("target_error_95", target_error_95)
    lo, hi = (_positive("eps_range", e) for e in eps_range)
    if not lo < hi:
        raise ValueError(f"eps_range must be (low, high) with low < high; got {eps_range!r}")
    tol = _positive("tolerance", tolerance)
    count = 0

    def run(eps: float, refine: bool = False) -> PlanResult:
        nonlocal count
        count += 1
        return plan(
            population,
            statistic=statistic,
            eps_target=eps,
            delta_target=delta_target,
            designs=designs,
            rates=rates,
            reps=reps,
            seed=seed,
            relation=relation,
            objective="error_95",
            refine=refine,
            quantile=quantile,
            mechanisms=mechanisms,
        )

    errors: dict[float, float] = {}

    def gap(u: float) -> float:
        """``log(best 95 % bound at ε = e^u) − log(target)``: > 0 means not reached."""
        if u not in errors:
            errors[u] = float(run(math.exp(u)).best["error_95"])
        return math.log(errors[u]) - math.log(x) if errors[u] > 0 else -math.inf

    ua, ub = math.log(lo), math.log(hi)
    width = math.log1p(tol)
    bad, good = _bracket(gap, min(max(0.0, ua), ub), ua, ub)
    if good is None:
        return AccuracyFirst(x, math.nan, False, run(hi, refine=True), count)
    if bad is None:
        return AccuracyFirst(x, lo, True, run(lo, refine=True), count)
    bisect = False
    while good - bad > width and count < _MAX_SEARCH_PLANS:
        before = good - bad
        ga, gb = gap(bad), gap(good)
        if bisect or not math.isfinite(gb):
            m = 0.5 * (bad + good)
        else:
            # False position in log ε (the bound falls roughly like 1/ε), kept inside the
            # bracket; then a step just across the predicted root to close it at once.
            m = good - gb * (good - bad) / (gb - ga)
            m = min(max(m, bad + 0.05 * (good - bad)), good - 0.05 * (good - bad))
        if gap(m) > 0:
            bad = m
            probe = min(m + 0.5 * width, good)
        else:
            good = m
            probe = max(m - 0.5 * width, bad)
        if not bisect and bad < probe < good:
            if gap(probe) > 0:
                bad = probe
            else:
                good = probe
        # Bisect next whenever a step did not halve the bracket (a bumpy or flat bound).
        bisect = good - bad > 0.5 * before
    eps = math.exp(good)
    return AccuracyFirst(x, eps, True, run(eps, refine=True), count)


def _bracket(
    gap: Callable[[float], float], start: float, ua: float, ub: float
) -> tuple[float | None, float | None]:
    """A pair ``(bad, good)`` of log ε with ``gap(bad) > 0 >= gap(good)``, searched from
    ``start`` by steps the ``1/ε`` scaling of the error predicts; ``good`` is None when even
    ``ub`` fails, ``bad`` is None when ``ua`` already succeeds."""
    bad: float | None = None
    good: float | None = None
    u = start
    for _ in range(60):
        g = gap(u)
        if g > 0:
            bad = u if bad is None else max(bad, u)
            if good is not None or u >= ub:
                return bad, good
            u = min(ub, u + 1.1 * max(g, math.log(2.0)))
        else:
            good = u if good is None else min(good, u)
            if bad is not None or u <= ua:
                return bad, good
            u = max(ua, u - 1.1 * max(-g, math.log(2.0)) if math.isfinite(g) else u - 1.0)
    return bad, good


# ---------------------------------------------------------------------------------------
# Several statistics from one sample
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class BudgetSplit:
    """Budgets of several statistics released from one sample (:func:`budget_split`).

    Attributes
    ----------
    design : str
    eps_target : float
        The promise for all statistics together.
    shares : tuple of float
        Each statistic's share of the sample budget (normalised to sum to 1).
    eps_sample_total : float
        The budget the design allows on the sample for ``eps_target``.
    eps_samples : tuple of float
        Each statistic's part of ``eps_sample_total``.
    eps_target_correct : float
        ``amp(ε_1 + … + ε_k)``: the budgets compose on the sample, then the design
        amplifies once (equals ``eps_target``).
    eps_target_naive : float
        ``amp(ε_1) + … + amp(ε_k)``: amplifying each and adding, which understates the
        loss when the design's bound is superadditive (always for SRS and Poisson).
    """

    design: str
    eps_target: float
    shares: tuple[float, ...]
    eps_sample_total: float
    eps_samples: tuple[float, ...]
    eps_target_correct: float
    eps_target_naive: float


def budget_split(
    design: str,
    eps_target: float,
    shares: Sequence[float],
    *,
    relation: str = "replacement",
    rate: float | None = None,
    sizes: Any = None,
    clusters_sampled: int | None = None,
) -> BudgetSplit:
    """Split the sample budget for ``eps_target`` across statistics released from one sample.

    The k releases run on the same secret sample, so they compose there (basic composition:
    ``ε_1 + … + ε_k``) and the sampling amplifies the total once:
    ``ε_target = amp(ε_1 + … + ε_k)``. The naive total ``Σ amp(ε_i)`` treats each release
    as if it had its own independent sample; for a convex ``amp`` with ``amp(0) = 0``
    (SRS and Poisson: ``ln(1 + r(e^ε − 1))``) it is never larger, so it understates the loss
    (OpenDP issue #2933 records this pitfall).

    Parameters
    ----------
    design, relation, rate, sizes, clusters_sampled
        As for :func:`eps_sample_for`.
    eps_target : float
        The promise for all statistics together.
    shares : sequence of float
        Positive weights, one per statistic (normalised).

    Returns
    -------
    BudgetSplit
    """
    w = np.asarray([_positive("share", x) for x in shares], dtype=np.float64)
    if w.size == 0:
        raise ValueError("shares must list at least one positive weight")
    w = w / w.sum()
    kw: dict[str, Any] = {
        "relation": relation,
        "rate": rate,
        "sizes": sizes,
        "clusters_sampled": clusters_sampled,
    }
    total = eps_sample_for(design, eps_target, **kw)
    parts = tuple(float(total * x) for x in w)
    correct = eps_target_for(design, total, **kw)
    naive = float(sum(eps_target_for(design, e, **kw) for e in parts))
    return BudgetSplit(
        design,
        _positive("eps_target", eps_target),
        tuple(map(float, w)),
        total,
        parts,
        correct,
        naive,
    )
