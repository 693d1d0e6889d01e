"""The membership game: guess whether one person's record is in the population.

A fair coin decides whether the target person ("Alice") is in the population ("in") or not
("out"). The agency draws a sample by a chosen design, releases the number of sampled
records with a yes/no property plus Laplace noise, and an adversary who knows everything but
the coin and the sample guesses the coin. Differential privacy is exactly a limit on how well
any such guess can do (Kairouz, Oh & Viswanath 2015, "The composition theorem for differential
privacy", the hypothesis-testing view of DP): an (ε, δ)-DP release allows every test

    TPR ≤ e^ε · FPR + δ    and    1 − FPR ≤ e^ε · (1 − TPR) + δ,

with TPR = P(guess in | in) and FPR = P(guess in | out).

The model is small enough to be exact. The population has ``k`` clusters of ``m`` records
(``N = k·m``); Alice joins cluster 0. Two neighbours:

* ``"worst case"``: only Alice and her ``m`` cluster-mates have the property (for the simple
  random design only Alice has it: the release then reveals only whether she was drawn);
* ``"typical"``: every other record has it independently with share ``π`` (drawn once from
  ``population_seed`` and known to the adversary), and Alice has it.

Two designs: ``"simple random"`` draws ``n`` of the ``N`` records (``N + 1`` in the "in"
world) without replacement, ``rate = n/N``; ``"cluster"`` draws ``ℓ`` of the ``k`` clusters
without replacement and keeps all their records, ``rate = ℓ/k``. The agency promises
``eps_target`` and spends ``eps_sample = core.amplification.eps_sample(eps_target, rate)``
(Hu, Drechsler & Kim, Theorem 1). For the cluster design this is the naive claim that clusters
amplify like single records; Bun et al. (2022, Theorems 5.2 and 5.3) show they do not, and the
game makes that visible.

The adversary's best test is the likelihood ratio ``p_in(x)/p_out(x)`` (Neyman–Pearson). Both
densities are exact: the distribution of the sampled count (hypergeometric for simple random
sampling; for clusters the sum of ``ℓ`` cluster counts drawn without replacement, by dynamic
programming) convolved with the Laplace density, evaluated in log space with running
log-sum-exp sums, so ε from 1e-6 to 50 and large counts neither overflow nor underflow.

Exact facts (tested):

* simple random, worst case: for ``x ≥ 1``, ``p_in/p_out = 1 + r (e^{eps_sample} − 1)`` with
  ``r = n/(N + 1)``, so the exact loss stays below ``eps_target``;
* cluster, worst case: for ``x ≥ m + 1``,
  ``p_in/p_out = 1 + r (e^ε − 1)/(r + (1 − r) e^{−m ε})`` with ``ε = eps_sample``,
  ``r = ℓ/k`` — exactly :func:`core.clusters.hypothesis_test_bound` with ``test_eps = m ε``.

Between two neighbouring integers each density is ``A e^{εx} + B e^{−εx}``, so the ratio is
monotone there, and beyond the outermost counts it is constant: the supremum of
``|log p_in/p_out|`` is attained at an integer, which makes :func:`privacy_loss` exact.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import stats

from . import amplification as amp
from . import clusters as cl
from ._validation import FloatArray, check_choice, check_seed, check_whole, finite_scalar

__all__ = [
    "DESIGNS",
    "NEIGHBOURS",
    "STATISTICS",
    "CountDistribution",
    "GameSetup",
    "Rates",
    "cluster_bound_eps",
    "cluster_counts",
    "count_distribution",
    "empirical_roc",
    "exact_roc",
    "likelihood_ratio_test",
    "log_release_densities",
    "play_rounds",
    "privacy_loss",
    "student_rates",
    "tradeoff_bound",
]

DESIGNS = ("simple random", "cluster")
NEIGHBOURS = ("worst case", "typical")
STATISTICS = ("count", "share")
#: Largest number of clusters and cluster size: keeps the exact distributions small.
MAX_CLUSTERS = 100
MAX_CLUSTER_SIZE = 100
#: Range of eps_target the game accepts.
EPS_RANGE = (1e-6, 50.0)


@dataclass(frozen=True)
class GameSetup:
    """Everything the adversary knows: design, population, neighbour, budget and statistic.

    Parameters
    ----------
    design : {"simple random", "cluster"}
        How the sample is drawn.
    clusters : int
        Number of clusters ``k`` (2 to 100).
    cluster_size : int
        Records per cluster ``m`` (1 to 100); ``N = k·m``.
    drawn : int
        Sample size ``n`` (1 to N) for the simple random design; clusters drawn ``ℓ``
        (1 to k − 1) for the cluster design.
    eps_target : float
        Privacy loss promised for the population, in [1e-6, 50].
    neighbour : {"worst case", "typical"}
        Which records besides Alice have the property (see the module docstring).
    share : float
        Share ``π`` of other records with the property in the typical neighbour, in [0, 1].
    statistic : {"count", "share"}
        Release the noisy count or the noisy count divided by the planned sample size (a
        deterministic rescaling: the same privacy).
    population_seed : int
        Seed of the typical population's property (public, known to the adversary).

    Raises
    ------
    ValueError
        If an argument is outside its range; the message names it and the value.
    """

    design: str
    clusters: int
    cluster_size: int
    drawn: int
    eps_target: float
    neighbour: str = "worst case"
    share: float = 0.3
    statistic: str = "count"
    population_seed: int = 0

    def __post_init__(self) -> None:
        check_choice("design", self.design, DESIGNS)
        check_choice("neighbour", self.neighbour, NEIGHBOURS)
        check_choice("statistic", self.statistic, STATISTICS)
        k = check_whole("clusters", self.clusters, 2, MAX_CLUSTERS)
        m = check_whole("cluster_size", self.cluster_size, 1, MAX_CLUSTER_SIZE)
        if self.design == "cluster":
            check_whole("drawn (clusters drawn ℓ, fewer than k)", self.drawn, 1, k - 1)
        else:
            check_whole("drawn (sample size n, at most N = k·m)", self.drawn, 1, k * m)
        eps = finite_scalar("eps_target", self.eps_target)
        if not EPS_RANGE[0] <= eps <= EPS_RANGE[1]:
            raise ValueError(
                f"eps_target must be between {EPS_RANGE[0]:g} and {EPS_RANGE[1]:g}; got {eps!r}"
            )
        pi = finite_scalar("share", self.share)
        if not 0.0 <= pi <= 1.0:
            raise ValueError(f"share must be in [0, 1]; got {pi!r}")
        check_seed(self.population_seed, "population_seed")

    @property
    def population_size(self) -> int:
        """``N = k·m``, the size of the "out" population."""
        return int(self.clusters) * int(self.cluster_size)

    @property
    def rate(self) -> float:
        """``n/N`` (simple random) or ``ℓ/k`` (cluster)."""
        if self.design == "cluster":
            return int(self.drawn) / int(self.clusters)
        return int(self.drawn) / self.population_size

    @property
    def eps_sample(self) -> float:
        """Budget spent on the sample: ``log(1 + (e^{eps_target} − 1)/rate)`` (Hu et al. Thm 1)."""
        return float(amp.eps_sample(float(self.eps_target), self.rate))

    @property
    def scale(self) -> float:
        """Divisor from count to release units: 1, or the planned sample size for a share."""
        if self.statistic == "count":
            return 1.0
        if self.design == "cluster":
            return float(int(self.drawn) * int(self.cluster_size))
        return float(self.drawn)


class CountDistribution(NamedTuple):
    """Exact distribution of the sampled count in both worlds: ``support`` and log PMFs."""

    support: NDArray[np.int64]
    log_in: FloatArray
    log_out: FloatArray


class Rates(NamedTuple):
    """A player's rates: ``tpr``, ``fpr`` (NaN without rounds of that kind) and the counts."""

    tpr: float
    fpr: float
    rounds_in: int
    rounds_out: int


def cluster_counts(setup: GameSetup) -> NDArray[np.int64]:
    """Property holders per cluster in the "out" world; cluster 0 is Alice's cluster.

    Worst case: ``m`` in cluster 0 and none elsewhere (none at all for the simple random
    design). Typical: ``Binomial(m, π)`` per cluster, from ``population_seed``.
    """
    k, m = int(setup.clusters), int(setup.cluster_size)
    if setup.neighbour == "typical":
        rng = np.random.default_rng(int(setup.population_seed))
        return rng.binomial(m, float(setup.share), size=k).astype(np.int64)
    counts = np.zeros(k, dtype=np.int64)
    if setup.design == "cluster":
        counts[0] = m
    return counts


def _subset_sum_probabilities(values: NDArray[np.int64], sizes: tuple[int, int]) -> FloatArray:
    """``P(sum of j values drawn without replacement = s)`` for ``j`` in ``sizes``.

    Dynamic programme over the values: ``W[j, s]`` counts the ``j``-subsets with sum ``s``
    (exact in float64 for fewer than 100 values, ``C(99, 49) < 1e29``). Rows are ``sizes``.
    """
    top = max(sizes)
    total = int(values.sum())
    ways = np.zeros((top + 1, total + 1))
    ways[0, 0] = 1.0
    for v in values:
        v = int(v)
        # j descending so each value is used once (rows j−1 are still the old ones).
        if v == 0:
            ways[1:] += ways[:-1].copy()
        else:
            ways[1:, v:] += ways[:-1, : total + 1 - v].copy()
    count = len(values)
    rows = [ways[j] / math.comb(count, j) for j in sizes]
    return np.vstack(rows)


def _hypergeom_log_pmf(support: NDArray[np.int64], total: int, held: int, n: int) -> FloatArray:
    """Hypergeometric log PMF: ``log`` of scipy's ``pmf`` (accurate to a few ulps) where it is
    a normal float, ``logpmf`` (log-gamma sums, ~1e-13 absolute) only in the far tails."""
    with np.errstate(divide="ignore"):
        direct = np.log(stats.hypergeom.pmf(support, total, held, n))
        tails = stats.hypergeom.logpmf(support, total, held, n)
    return np.asarray(np.where(direct > -700.0, direct, tails), dtype=np.float64)


def count_distribution(setup: GameSetup) -> CountDistribution:
    """Exact PMF of the sampled number of property holders, with and without Alice.

    Simple random: hypergeometric, ``n`` of ``N`` records with ``K`` holders ("out") and of
    ``N + 1`` records with ``K + 1`` holders ("in"). Cluster: Alice's cluster is drawn with
    probability ``r = ℓ/k``; then the other ``ℓ − 1`` drawn clusters, else all ``ℓ``, come
    from the ``k − 1`` others (Bun et al. §5.1's sampling scheme), so
    ``P(s) = r·P_{ℓ−1}(s − c_0 [− 1]) + (1 − r)·P_ℓ(s)``.

    Returns
    -------
    CountDistribution
        ``support = 0, 1, …, S`` and the log PMFs (``-inf`` where impossible).
    """
    counts = cluster_counts(setup)
    if setup.design == "simple random":
        big_n, n = setup.population_size, int(setup.drawn)
        held = int(counts.sum())
        support = np.arange(min(n, held + 1) + 1, dtype=np.int64)
        log_out = _hypergeom_log_pmf(support, big_n, held, n)
        log_in = _hypergeom_log_pmf(support, big_n + 1, held + 1, n)
        return CountDistribution(support, log_in, log_out)
    ell, k = int(setup.drawn), int(setup.clusters)
    r = ell / k
    own = int(counts[0])
    fewer, full = _subset_sum_probabilities(counts[1:], (ell - 1, ell))
    size = int(counts.sum()) + 2
    p_in, p_out = np.zeros(size), np.zeros(size)
    p_out[: len(full)] += (1.0 - r) * full
    p_in[: len(full)] += (1.0 - r) * full
    p_out[own : own + len(fewer)] += r * fewer
    p_in[own + 1 : own + 1 + len(fewer)] += r * fewer
    with np.errstate(divide="ignore"):
        return CountDistribution(np.arange(size, dtype=np.int64), np.log(p_in), np.log(p_out))


def expected_counts(setup: GameSetup) -> tuple[float, float]:
    """Mean sampled count of property holders with Alice in and out: ``Σ s·P(s)``.

    From :func:`count_distribution`; what a player may expect the release to centre on.
    """
    dist = count_distribution(setup)
    support = dist.support.astype(np.float64)
    return float(np.sum(support * np.exp(dist.log_in))), float(
        np.sum(support * np.exp(dist.log_out))
    )


def _running_logsumexp(values: FloatArray) -> FloatArray:
    """``log Σ_{i ≤ j} e^{values[i]}`` for every ``j`` (``-inf`` entries allowed)."""
    with np.errstate(invalid="ignore"):
        return np.logaddexp.accumulate(values)


def _log_laplace_sums(
    support: NDArray[np.int64],
    log_pmf: FloatArray,
    eps: float,
    left_edge: FloatArray,
    right_edge: FloatArray,
    right_strict: bool,
) -> FloatArray:
    """``log[Σ_{c ≤ a} P(c) e^{−ε(a − c)} + Σ_{c ≥ b (or > b)} P(c) e^{−ε(c − b)}]``.

    Running log-sum-exp sums of ``log P(c) ± ε c``: O(S + len(a)) and no exponential is ever
    formed. With ``a = b = x`` and ``right_strict`` it is the Laplace mixture density at ``x``
    up to the factor ``ε/2``; with the edges of a cell that holds no support point inside, it
    is the cell's mass up to ``(1 − e^{−ε(b − a)})/2``.
    """
    c = support.astype(np.float64)
    prefix = _running_logsumexp(log_pmf + eps * c)
    suffix = _running_logsumexp((log_pmf - eps * c)[::-1])[::-1]
    a = np.asarray(left_edge, dtype=np.float64)
    b = np.asarray(right_edge, dtype=np.float64)
    j = np.searchsorted(c, a, side="right")  # c[:j] <= a
    i = np.searchsorted(c, b, side="right" if right_strict else "left")  # c[i:] >= (>) b
    left = np.full(a.shape, -np.inf)
    has = j > 0
    left[has] = prefix[j[has] - 1] - eps * a[has]
    right = np.full(b.shape, -np.inf)
    has = i < len(c)
    right[has] = suffix[i[has]] + eps * b[has]
    with np.errstate(invalid="ignore"):
        return np.logaddexp(left, right)


def log_release_densities(
    setup: GameSetup, releases: ArrayLike, dist: CountDistribution | None = None
) -> tuple[FloatArray, FloatArray]:
    """Exact log densities ``(log p_in, log p_out)`` of releases (in the setup's units).

    ``p_w(x) = Σ_c P_w(c) · (ε/2) e^{−ε|x − c|}`` with ``ε = eps_sample`` on the count scale
    (Laplace noise of scale ``1/eps_sample``, sensitivity 1); a share is the count divided by
    :attr:`GameSetup.scale`, whose Jacobian cancels in every ratio but is included here.
    """
    dist = count_distribution(setup) if dist is None else dist
    eps = setup.eps_sample
    x = np.asarray(releases, dtype=np.float64) * setup.scale
    const = math.log(eps / 2.0) + math.log(setup.scale)
    dens = []
    for log_pmf in (dist.log_in, dist.log_out):
        dens.append(const + _log_laplace_sums(dist.support, log_pmf, eps, x, x, True))
    return dens[0], dens[1]


def likelihood_ratio_test(
    setup: GameSetup, releases: ArrayLike, dist: CountDistribution | None = None
) -> FloatArray:
    """The optimal adversary's statistic: ``log p_in(x) − log p_out(x)`` per release.

    Guessing "in" when it exceeds a threshold is the most powerful test at every FPR
    (Neyman–Pearson lemma; the hypothesis-testing view of DP, Kairouz, Oh & Viswanath 2015).
    """
    log_in, log_out = log_release_densities(setup, releases, dist)
    return log_in - log_out


def play_rounds(
    setup: GameSetup, rng: np.random.Generator, rounds: int
) -> tuple[NDArray[np.bool_], FloatArray]:
    """Play ``rounds`` rounds: secret coins (``True`` = Alice in) and the releases.

    Each round flips a fair coin, draws the sample (simple random: the hypergeometric count of
    holders among ``n`` of ``N`` or ``N + 1`` records, which is what drawing the records gives;
    cluster: ``ℓ`` of the ``k`` clusters without replacement) and releases
    ``(count + Laplace(1/eps_sample)) / scale``. Vectorised; the same generator state gives
    the same rounds.
    """
    rounds = check_whole("rounds", rounds, 1, 10_000_000)
    counts = cluster_counts(setup)
    secrets = rng.random(rounds) < 0.5
    if setup.design == "simple random":
        held = int(counts.sum()) + secrets.astype(np.int64)
        total = setup.population_size + secrets.astype(np.int64)
        sampled = rng.hypergeometric(held, total - held, int(setup.drawn))
    else:
        keys = rng.random((rounds, int(setup.clusters)))
        drawn = np.argsort(keys, axis=1)[:, : int(setup.drawn)]
        sampled = counts[drawn].sum(axis=1) + (secrets & (drawn == 0).any(axis=1))
    noise = rng.laplace(0.0, 1.0 / setup.eps_sample, size=rounds)
    return secrets, (sampled + noise) / setup.scale


def empirical_roc(log_lr: ArrayLike, secrets: ArrayLike) -> tuple[FloatArray, FloatArray]:
    """FPR and TPR of the test "guess in when log LR ≥ t" at every observed threshold t.

    Starts at (0, 0) (threshold above every value) and ends at (1, 1); ties share one point.
    """
    score = np.asarray(log_lr, dtype=np.float64).ravel()
    truth = np.asarray(secrets, dtype=bool).ravel()
    if score.shape != truth.shape or score.size == 0:
        raise ValueError(
            f"log_lr and secrets must be non-empty and of equal length; got {score.size} "
            f"and {truth.size}"
        )
    n_in, n_out = int(truth.sum()), int((~truth).sum())
    if n_in == 0 or n_out == 0:
        raise ValueError("secrets must contain both 'in' and 'out' rounds")
    order = np.argsort(-score, kind="stable")
    s, t = score[order], truth[order]
    tp, fp = np.cumsum(t), np.cumsum(~t)
    last = np.r_[s[1:] != s[:-1], True]  # the last index of each group of tied scores
    fpr = np.r_[0.0, fp[last] / n_out]
    tpr = np.r_[0.0, tp[last] / n_in]
    return fpr, tpr


def exact_roc(setup: GameSetup, cells_per_unit: int = 16) -> tuple[FloatArray, FloatArray]:
    """ROC of the likelihood-ratio test computed from the exact output distributions.

    The release axis (count scale) is cut at every integer and ``cells_per_unit`` times
    between; each cell's exact mass in both worlds comes from the Laplace mixture in closed
    form, and cells are taken in decreasing order of their mass ratio. The result is the ROC of
    the optimal test that sees which cell the release fell in: achievable, below the true
    curve by at most the discretisation (which vanishes at the points where the ratio is
    constant, e.g. the worst-case tails).

    Returns
    -------
    (fpr, tpr) : tuple of numpy.ndarray
        From (0, 0) to (1, 1), non-decreasing.
    """
    cells_per_unit = check_whole("cells_per_unit", cells_per_unit, 1, 1000)
    dist = count_distribution(setup)
    eps = setup.eps_sample
    lo, hi = float(dist.support[0]), float(dist.support[-1])
    steps = int(dist.support[-1] - dist.support[0]) * cells_per_unit
    edges = lo + np.arange(steps + 1) / cells_per_unit
    width = 1.0 / cells_per_unit
    log_cell = math.log(-math.expm1(-eps * width) / 2.0)
    masses = []
    for log_pmf in (dist.log_in, dist.log_out):
        inner = log_cell + _log_laplace_sums(
            dist.support, log_pmf, eps, edges[:-1], edges[1:], False
        )
        # Tails: (-inf, lo] and [hi, inf): all support on one side.
        below = math.log(0.5) + _log_laplace_sums(
            dist.support, log_pmf, eps, np.array([-np.inf]), np.array([lo]), False
        )
        above = math.log(0.5) + _log_laplace_sums(
            dist.support, log_pmf, eps, np.array([hi]), np.array([np.inf]), False
        )
        masses.append(np.r_[below, inner, above])
    log_in, log_out = masses
    with np.errstate(invalid="ignore"):
        ratio = log_in - log_out
    ratio = np.where(np.isnan(ratio), -np.inf, ratio)
    order = np.argsort(-ratio, kind="stable")
    p_in, p_out = np.exp(log_in[order]), np.exp(log_out[order])
    tpr = np.r_[0.0, np.cumsum(p_in)]
    fpr = np.r_[0.0, np.cumsum(p_out)]
    return np.minimum(fpr / fpr[-1], 1.0), np.minimum(tpr / tpr[-1], 1.0)


def privacy_loss(setup: GameSetup) -> float:
    """Exact privacy loss ``sup_x |log p_in(x)/p_out(x)|`` of the game's release.

    The ratio is monotone between consecutive integers and constant beyond the outermost
    counts (see the module docstring), so the supremum is the maximum over the integers of
    the support — exact, no grid. Simple random: below ``eps_target``; cluster, worst case:
    equal to :func:`cluster_bound_eps`.
    """
    dist = count_distribution(setup)
    x = dist.support.astype(np.float64) / setup.scale
    return float(np.max(np.abs(likelihood_ratio_test(setup, x, dist))))


def cluster_bound_eps(setup: GameSetup) -> float:
    """Bun et al. Theorem 5.3: the loss a counting release on ``ℓ`` of ``k`` clusters reaches.

    ``hypothesis_test_bound(eps_known=eps_sample, test_eps=m·eps_sample, k, ℓ)``:
    ``log(1 + r (e^ε − 1)/(r + (1 − r) e^{−m ε}))`` with ``r = ℓ/k``, ``ε = eps_sample`` —
    the test "count above m" separates "Alice's cluster drawn" from "not drawn" with odds
    ``e^{mε}`` when all ``m`` cluster-mates share the property.

    Raises
    ------
    ValueError
        If the setup's design is not ``"cluster"``.
    """
    if setup.design != "cluster":
        raise ValueError(f"cluster_bound_eps needs design 'cluster'; got {setup.design!r}")
    eps = setup.eps_sample
    return float(
        cl.hypothesis_test_bound(
            eps, int(setup.cluster_size) * eps, int(setup.clusters), int(setup.drawn)
        )
    )


def tradeoff_bound(eps: float, delta: float, fpr: ArrayLike) -> FloatArray:
    """Largest TPR an (ε, δ)-DP release allows at each FPR (Kairouz, Oh & Viswanath 2015).

    ``min(1, e^ε·FPR + δ, 1 − e^{−ε}(1 − FPR − δ))``, never below FPR itself (a coin
    reaches the diagonal). Computed as ``exp(ε + log FPR)`` so ε = 1000 does not overflow.

    Raises
    ------
    ValueError
        If ε < 0, δ outside [0, 1] or an FPR outside [0, 1].
    """
    e = finite_scalar("eps", eps)
    d = finite_scalar("delta", delta)
    if e < 0:
        raise ValueError(f"eps must be >= 0; got {eps!r}")
    if not 0.0 <= d <= 1.0:
        raise ValueError(f"delta must be in [0, 1]; got {delta!r}")
    f = np.asarray(fpr, dtype=np.float64)
    if not np.all((f >= 0.0) & (f <= 1.0)):
        raise ValueError("fpr must lie in [0, 1]")
    with np.errstate(divide="ignore", over="ignore"):
        first = np.exp(e + np.log(f)) + d
    second = 1.0 - math.exp(-e) * (1.0 - f - d)
    return np.clip(np.minimum(np.minimum(first, second), 1.0), f, 1.0)


def student_rates(secrets: ArrayLike, guesses: ArrayLike) -> Rates:
    """TPR = P(guess in | in) and FPR = P(guess in | out) of a player's rounds.

    A rate is NaN when no round of its kind was played.
    """
    truth = np.asarray(secrets, dtype=bool).ravel()
    guess = np.asarray(guesses, dtype=bool).ravel()
    if truth.shape != guess.shape:
        raise ValueError(
            f"secrets and guesses must have equal length; got {truth.size} and {guess.size}"
        )
    n_in, n_out = int(truth.sum()), int((~truth).sum())
    tpr = float(np.sum(guess & truth) / n_in) if n_in else math.nan
    fpr = float(np.sum(guess & ~truth) / n_out) if n_out else math.nan
    return Rates(tpr, fpr, n_in, n_out)
