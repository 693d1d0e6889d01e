"""Sampling designs with a common interface: draw a sample, state the amplification.

A *design* draws a sample (row indices) from a population and states what privacy the
population keeps when a mechanism spends ``eps_sample`` on the sample, in both directions:

* :meth:`Design.eps_target` -- ``eps_sample`` → the guarantee ``eps_target`` for the
  population;
* :meth:`Design.eps_sample` -- ``eps_target`` → the largest ``eps_sample`` that still
  guarantees it (closed forms where they exist, otherwise a root finder accurate to about
  1e-14 relative).

Invariants every subclass keeps
-------------------------------
* ``eps_target`` is strictly increasing in ``eps_sample`` and ``eps_sample`` is its
  inverse: ``eps_target(eps_sample(t)) == t`` to 1e-9 relative.
* A design that keeps every record (``rate == 1``) does not amplify:
  ``eps_target(e) == e`` -- except where the bound is a theorem's upper bound that is loose
  there (proportional stratified sampling, see :class:`ProportionalStratified`).
* :meth:`Design.inclusion_probabilities` states the probability of each record to be in a
  draw of :meth:`Design.draw` (tested by simulation).
* Scalars in give Python floats out; arrays broadcast with numpy rules.

Implemented (the formulas live in :mod:`core.amplification`, :mod:`core.strata` and
:mod:`core.clusters`; this module only gives them one vocabulary):

=============================  ============================================================
:class:`SimpleRandomSampling`   ``n`` of ``N`` without replacement; ``ln(1 + r(e^ε − 1))``,
                                ``r = n/N`` (Hu, Drechsler & Kim, Theorem 1)
:class:`PoissonSampling`        each record independently with probability ``r``; the same
                                expression (Bun et al. 2022, eq. 3, Theorem 2.2)
:class:`ProportionalStratified`  the fraction ``r`` of every stratum, randomised rounding;
                                Bun et al. Theorems 4.3 and 7.2
:class:`ClusterSampling`        ``ℓ`` of ``k`` clusters, every record of the drawn ones;
                                Bun et al. Theorem 5.2 (upper bound), worst record
=============================  ============================================================
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TYPE_CHECKING, ClassVar, TypeAlias

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .. import amplification as amp
from .. import clusters as cl
from .. import strata as st
from .._validation import check_rate, check_rng

if TYPE_CHECKING:
    from ..populations import Population

__all__ = [
    "ClusterSampling",
    "Design",
    "PoissonSampling",
    "ProportionalStratified",
    "SimpleRandomSampling",
]

FloatArray: TypeAlias = NDArray[np.float64]
IntArray: TypeAlias = NDArray[np.int64]
FloatOrArray: TypeAlias = float | FloatArray


def _check_count(name: str, value: object, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise ValueError(f"{name} must be a whole number >= {minimum}; got {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}; got {value!r}")
    return int(value)


def _labels(population: Population, kind: str) -> np.ndarray:
    labels = population.strata if kind == "strata" else population.clusters
    if labels is None:
        raise ValueError(
            f"this design needs {kind} labels, and the population "
            f"{getattr(population, 'name', '')!r} has none"
        )
    return np.asarray(labels)


class Design(ABC):
    """A sampling design: draws samples and states its privacy amplification.

    Subclasses implement :meth:`eps_target`, :meth:`eps_sample`, :meth:`draw` and
    :meth:`inclusion_probabilities`, and set :attr:`rate`.

    Attributes
    ----------
    name : str
        Short identifier.
    label : str
        Plain-words description for the pages.
    rate : float
        Expected fraction of the population's records in a sample.
    """

    name: ClassVar[str] = ""
    label: ClassVar[str] = ""
    rate: float

    @abstractmethod
    def eps_target(self, eps_sample: ArrayLike) -> FloatOrArray:
        """Guarantee for the population when the mechanism spends ``eps_sample``."""

    @abstractmethod
    def eps_sample(self, eps_target: ArrayLike) -> FloatOrArray:
        """Largest budget on the sample that keeps the population at ``eps_target``."""

    @abstractmethod
    def draw(self, population: Population, rng: np.random.Generator) -> IntArray:
        """Row indices of one sample, ascending."""

    @abstractmethod
    def inclusion_probabilities(self, population: Population) -> FloatArray:
        """Probability of each record (row) of ``population`` to be in a draw."""

    def __repr__(self) -> str:
        fields = ", ".join(f"{k}={v!r}" for k, v in vars(self).items() if not k.startswith("_"))
        return f"{type(self).__name__}({fields})"


class _IndividualSampling(Design):
    """Designs whose amplification is ``ln(1 + r(e^ε − 1))`` (:mod:`core.amplification`)."""

    def eps_target(self, eps_sample: ArrayLike) -> FloatOrArray:
        """``eps_target = ln(1 + r (e^{eps_sample} − 1))`` (Hu et al. Theorem 1; Bun et al. eq. 3).

        Raises
        ------
        ValueError
            For a non-positive or non-finite ``eps_sample``.
        """
        return amp.eps_target(eps_sample, self.rate)

    def eps_sample(self, eps_target: ArrayLike) -> FloatOrArray:
        """``eps_sample = ln(1 + (e^{eps_target} − 1) / r)``, the closed-form inverse.

        Raises
        ------
        ValueError
            For a non-positive or non-finite ``eps_target``.
        """
        return amp.eps_sample(eps_target, self.rate)


class SimpleRandomSampling(_IndividualSampling):
    """``n`` of ``N`` records drawn without replacement (SRSWOR), rate ``r = n / N``.

    Amplification ``eps_target = ln(1 + r(e^{eps_sample} − 1))``: Hu, Drechsler & Kim,
    Theorem 1 (Balle, Barthe & Gaboardi 2018).

    Parameters
    ----------
    sample_size : int
        ``n``, with ``1 <= n <= N``.
    population_size : int
        ``N >= 1``.
    """

    name = "srswor"
    label = "simple random sampling without replacement"

    def __init__(self, sample_size: int, population_size: int) -> None:
        self.population_size = _check_count("population_size", population_size, 1)
        self.sample_size = _check_count("sample_size", sample_size, 1)
        if self.sample_size > self.population_size:
            raise ValueError(
                f"sample_size must not exceed population_size = {self.population_size:,}; "
                f"got {sample_size!r}"
            )
        self.rate = self.sample_size / self.population_size

    @classmethod
    def from_rate(cls, rate: float, population_size: int) -> SimpleRandomSampling:
        """The design with ``n = max(1, round(rate N))``, as the simulations use."""
        r = float(check_rate("rate", rate))
        N = _check_count("population_size", population_size, 1)
        return cls(int(min(N, max(1, round(r * N)))), N)

    def _check_size(self, population: Population) -> int:
        N = len(population.values)
        if N != self.population_size:
            raise ValueError(
                f"this design is for a population of {self.population_size:,} records; "
                f"the population has {N:,}"
            )
        return N

    def draw(self, population: Population, rng: np.random.Generator) -> IntArray:
        """``n`` distinct row indices, uniformly at random, ascending."""
        N = self._check_size(population)
        idx = check_rng(rng).choice(N, self.sample_size, replace=False, shuffle=False)
        return np.sort(idx).astype(np.int64)

    def inclusion_probabilities(self, population: Population) -> FloatArray:
        """``n / N`` for every record."""
        return np.full(self._check_size(population), self.rate)


class PoissonSampling(_IndividualSampling):
    """Every record enters independently with probability ``rate`` (random sample size).

    Amplification ``eps_target = ln(1 + r(e^{eps_sample} − 1))``, exact for a deletion-DP
    mechanism (Bun et al. 2022, eq. 3 and Theorem 2.2).

    Parameters
    ----------
    rate : float
        Inclusion probability ``r`` in (0, 1].
    """

    name = "poisson"
    label = "Poisson sampling"

    def __init__(self, rate: float) -> None:
        self.rate = float(check_rate("rate", rate))

    def draw(self, population: Population, rng: np.random.Generator) -> IntArray:
        """Row indices of the records whose uniform draw fell below ``rate``, ascending."""
        u = check_rng(rng).random(len(population.values))
        return np.flatnonzero(u < self.rate).astype(np.int64)

    def inclusion_probabilities(self, population: Population) -> FloatArray:
        """``rate`` for every record."""
        return np.full(len(population.values), self.rate)


class ProportionalStratified(Design):
    """The fraction ``r`` of every stratum, with randomised rounding (Bun et al. §4.3, §7.3).

    Stratum ``j`` gets ``⌈r N_j⌉`` records with probability ``r N_j − ⌊r N_j⌋`` and
    ``⌊r N_j⌋`` otherwise (:func:`core.strata.proportional_allocation`), drawn without
    replacement inside the stratum (:func:`core.strata.stratified_sample`).  Theorems 4.3
    and 7.2 bound the population's guarantee by::

        eps_target = ln(1 + 2r(e^{2 eps_sample} − 1)) + ln(1 + r(e^{2 eps_sample} − 1))

    (:func:`core.strata.proportional_eps_bound`), with the closed-form inverse
    :func:`core.strata.proportional_eps_sample_for_target`.  The theorems need
    ``r N_j >= 1`` in every stratum, which :meth:`draw` checks.  The bound is about ``6 r``
    times ``eps_sample`` for small budgets and is loose at ``r = 1``, where it exceeds
    ``eps_sample`` although the design then keeps every record.

    Parameters
    ----------
    rate : float
        ``r`` in (0, 1].
    """

    name = "proportional_stratified"
    label = "proportional stratified sampling with randomised rounding"

    def __init__(self, rate: float) -> None:
        self.rate = float(check_rate("rate", rate))

    def eps_target(self, eps_sample: ArrayLike) -> FloatOrArray:
        """Bun et al. Theorems 4.3/7.2 (see the class docstring)."""
        return st.proportional_eps_bound(eps_sample, self.rate)

    def eps_sample(self, eps_target: ArrayLike) -> FloatOrArray:
        """Closed-form inverse of the Theorem 4.3/7.2 bound."""
        return st.proportional_eps_sample_for_target(eps_target, self.rate)

    def _summary(self, population: Population) -> st.StratumSummary:
        summary = st.stratum_summary(population.values, _labels(population, "strata"))
        small = summary.sizes * self.rate < 1.0
        if small.any():
            j = int(np.flatnonzero(small)[0])
            raise ValueError(
                f"Theorems 4.3/7.2 need rate × stratum size >= 1 in every stratum; stratum "
                f"{summary.labels[j]!r} has {int(summary.sizes[j]):,} records at rate {self.rate:g}"
            )
        return summary

    def draw(self, population: Population, rng: np.random.Generator) -> IntArray:
        """Randomised proportional allocation, then SRSWOR in each stratum; ascending."""
        gen = check_rng(rng)
        summary = self._summary(population)
        allocation = st.proportional_allocation(summary.sizes, self.rate, "randomized", gen)
        return np.sort(st.stratified_sample(summary.groups(), allocation, gen))

    def inclusion_probabilities(self, population: Population) -> FloatArray:
        """``E[m_j] / N_j = r`` for every record (randomised rounding is unbiased)."""
        self._summary(population)
        return np.full(len(population.values), self.rate)


class ClusterSampling(Design):
    """``ℓ`` of ``k`` clusters drawn without replacement; every record of them is kept.

    Bun et al. Theorem 5.2: for a record added to cluster ``i`` (``n_i`` records before)
    the guarantee is at most ``ε'(s) = ln(1 + q(e^ε − 1) / (q + (1 − q) e^{−s ε}))`` with
    ``q = ℓ/k`` and ``s = n_i + max_{j≠i} n_j`` (:func:`core.clusters.cluster_eps`).  As
    ``ε'(s)`` grows with ``s``, the worst record of the population is in the largest
    cluster and ``s`` is the sum of the two largest cluster sizes; that bound is the design's
    ``eps_target``.  Its inverse has no closed form and is solved by
    :func:`core.clusters.eps_sample_for_target` (Brent's method, about 1e-14 relative).

    Parameters
    ----------
    sizes : array_like of int
        Records in each of the ``k >= 2`` clusters.
    clusters_sampled : int
        ``ℓ``, with ``1 <= ℓ <= k``.
    """

    name = "clusters"
    label = "single-stage cluster sampling"

    def __init__(self, sizes: ArrayLike, clusters_sampled: int) -> None:
        arr = np.asarray(sizes)
        if arr.ndim != 1 or arr.size < 2:
            raise ValueError("sizes must list the records of at least two clusters")
        if arr.dtype.kind not in "iu" and not (
            arr.dtype.kind == "f" and np.isfinite(arr).all() and (arr == np.round(arr)).all()
        ):
            raise ValueError(f"sizes must be whole numbers; got {arr.tolist()!r}")
        if (arr < 1).any():
            raise ValueError(f"every cluster needs at least one record; got {arr.tolist()!r}")
        self.sizes = np.sort(arr.astype(np.int64))
        self.clusters_total = int(self.sizes.size)
        self.clusters_sampled = _check_count("clusters_sampled", clusters_sampled, 1)
        if self.clusters_sampled > self.clusters_total:
            raise ValueError(
                f"clusters_sampled must not exceed the {self.clusters_total:,} clusters; "
                f"got {clusters_sampled!r}"
            )
        self.rate = self.clusters_sampled / self.clusters_total
        #: ``s`` of the worst record: the two largest cluster sizes added.
        self.combined_size = int(self.sizes[-1] + self.sizes[-2])

    @classmethod
    def from_population(cls, population: Population, clusters_sampled: int) -> ClusterSampling:
        """The design over the population's own clusters (its ``clusters`` labels)."""
        return cls(cl.cluster_sizes(_labels(population, "clusters")).sizes, clusters_sampled)

    def eps_target(self, eps_sample: ArrayLike) -> FloatOrArray:
        """Theorem 5.2's upper bound for the worst record (see the class docstring)."""
        return cl.cluster_eps(
            eps_sample, self.clusters_total, self.clusters_sampled, self.combined_size
        )

    def eps_sample(self, eps_target: ArrayLike) -> FloatOrArray:
        """The ``eps_sample`` whose Theorem 5.2 bound equals ``eps_target`` (by inversion)."""
        return cl.eps_sample_for_target(
            eps_target, self.clusters_total, self.clusters_sampled, self.combined_size
        )

    def _codes(self, population: Population) -> tuple[np.ndarray, IntArray]:
        labels = _labels(population, "clusters")
        found = cl.cluster_sizes(labels)
        if not np.array_equal(np.sort(found.sizes), self.sizes):
            raise ValueError(
                "the population's clusters do not have the sizes this design was built for; "
                "build it with ClusterSampling.from_population"
            )
        codes = np.searchsorted(found.labels, labels) if labels.dtype.kind != "O" else None
        if codes is None:
            lookup = {label: i for i, label in enumerate(found.labels.tolist())}
            codes = np.array([lookup[x] for x in labels.tolist()], dtype=np.int64)
        return found.labels, np.asarray(codes, dtype=np.int64)

    def draw(self, population: Population, rng: np.random.Generator) -> IntArray:
        """Every row of ``ℓ`` clusters chosen uniformly without replacement; ascending."""
        gen = check_rng(rng)
        _, codes = self._codes(population)
        chosen = gen.choice(self.clusters_total, self.clusters_sampled, replace=False)
        return np.flatnonzero(np.isin(codes, chosen)).astype(np.int64)

    def inclusion_probabilities(self, population: Population) -> FloatArray:
        """``ℓ / k`` for every record: each cluster is drawn with that probability."""
        self._codes(population)
        return np.full(len(population.values), self.rate)
