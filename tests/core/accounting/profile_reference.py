"""Exact privacy loss of "draw a sample, then run any mechanism on it", by linear programming.

A slow, obviously correct reference for tiny populations (up to about eight records), against
which fast closed forms and symmetric reductions are tested.  Nothing here is clever: every
sample is enumerated with its probability, every neighbouring population is generated, and
the worst mechanism is found by solving a linear program with a constraint for every pair of
samples; the answer is then proven from both sides (attained by a mechanism that is checked
on every pair, and not exceeded by a weak-duality bound), whatever the solver did.

The model
---------
Records are hashable ids, each with a label (its stratum or cluster); a sample is a
``frozenset`` of ids.  A mechanism ``M`` on samples has two budgets ``(a, c)``::

    |log M(s)(ω) − log M(t)(ω)| ≤ a   when t = s plus or minus one record,
    |log M(s)(ω) − log M(t)(ω)| ≤ c   when t is s with one record substituted (|s| = |t|).

A substitution is also a removal followed by an addition, so only ``c_eff = min(c, 2a)``
matters (``c`` may be ``math.inf``).  The budgets are edge weights of the *sample graph*
(vertices: the sets of records; edges: one record added or removed, weight ``a``; one record
substituted, weight ``c``), and ``log M(·)(ω)`` must be 1-Lipschitz for its shortest-path
metric, which for ``p = |s ∖ t|`` and ``q = |t ∖ s|`` is (:func:`sample_distance`)::

    d(s, t) = min(p, q) · c_eff + |p − q| · a.

(A path from ``s`` to ``t`` must remove the ``p`` records of ``s ∖ t`` and add the ``q`` of
``t ∖ s``; ``k ≤ min(p, q)`` substitutions cost ``k c + (p + q − 2k) a``, linear in ``k``, so
the cheapest path uses ``k = 0`` or ``k = min(p, q)``; visiting other records only adds
steps.)

The worst loss
--------------
A design draws a sample of population ``D`` with law ``P`` and of its neighbour ``D'`` with
law ``Q``.  For an output event ``E``, ``f(s) = M(s)(E)`` satisfies ``f(s) ≤ e^{d(s,t)} f(t)``
for all samples, and ``Pr_D(E) / Pr_D'(E) = Σ P f / Σ Q f``.  So the population-level loss of
every mechanism with budgets ``(a, c)`` is at most::

    L(P, Q) = sup { log(Σ_s P(s) f(s) / Σ_s Q(s) f(s)) : f > 0, f(s) ≤ e^{d(s,t)} f(t) ∀ s, t },

maximised over both directions (``P/Q`` and ``Q/P``).  Conversely every feasible ``f`` *is* a
mechanism: output 1 with probability ``κ f(s)``, else 0.  For output 1 the constraint is the
budget; for output 0, ``log(1 − κ f(s))`` varies by at most ``O(κ)``, below every positive
edge weight once ``κ`` is small (and not at all across an edge of weight 0, where ``f`` is
constant).  Output 1 has the ratio ``Σ P f / Σ Q f`` exactly (``κ`` cancels), so the supremum
is the loss of the worst mechanism and the reference is tight by construction;
:func:`worst_loss` returns the optimal ``f``.

Restricting to the supports is exact
------------------------------------
Only samples with ``P(s) > 0`` or ``Q(s) > 0`` (the set ``U``) enter the objective, and only
the constraints between them are imposed.  Nothing is lost: ``d`` restricted to ``U`` is still
a metric, and a function ``g = log f`` that is 1-Lipschitz for it on ``U`` extends to every
sample ``x`` of the (finite) sample graph over the records of ``D ∪ D'`` by McShane's
extension ``g(x) = min_{t ∈ U} (g(t) + d(x, t))``, which is 1-Lipschitz everywhere and agrees
with ``g`` on ``U`` (``tests/core/accounting/test_profile_reference.py`` builds the extension
and checks every edge of the graph).

The linear program
------------------
The ratio is a linear-fractional objective; the Charnes–Cooper normalisation ``Σ Q f = 1``
turns it into the linear program::

    maximise Σ P(s) f(s)  subject to  Σ Q(s) f(s) = 1,  f(s) − e^{d(s,t)} f(t) ≤ 0 (s ≠ t in U),
    f ≥ 0,

(``f ≥ 0`` is enough: ``f(s) = 0`` anywhere forces ``f = 0`` everywhere, which violates the
normalisation), solved by HiGHS through :func:`scipy.optimize.linprog`.  Only the *direct*
pairs are given to the solver: a pair ``(s, t)`` with a sample ``k`` between them
(``d(s,k) + d(k,t) = d(s,t)``, both shorter) has its constraint implied by the two shorter
ones, so dropping it changes nothing but spares the solver coefficients ``e^{d}`` that
would be huge.  The answer is then checked from both sides, independently of the solver:

* **attained**: the solver's ``f`` is made exactly feasible for *every* pair by a McShane
  envelope in log space (``g'(s) = min_t (g(t) + d(s, t))``, which equals ``g`` where ``g``
  is already feasible; :func:`_feasible`), and the loss reported is the log-ratio of that
  ``f`` -- a value some mechanism attains;
* **not exceeded**: for any multipliers ``μ(s,t) ≥ 0`` on true constraints and any ``λ``,
  weak duality gives, for every feasible ``f`` with ``Σ Q f = 1``::

      Σ P f ≤ λ + Σ_s max(ρ(s) − λ Q(s), 0) F(s),
      ρ(s) = P(s) − Σ_t μ(s,t) + Σ_t μ(t,s) e^{d(t,s)},   F(s) = 1 / Σ_t Q(t) e^{−d(s,t)}

  (``Σ P f = Σ_s f(s) ρ(s) + Σ μ(s,t)(f(s) − e^{d(s,t)} f(t))``, the second sum is
  ``≤ 0``, and ``f(s) ≤ F(s)`` because ``f(t) ≥ e^{−d(s,t)} f(s)``).  With ``λ`` the
  attained ratio and ``μ`` the solver's multipliers, or, when they are not accurate
  enough, multipliers recomputed by non-negative least squares on the active constraints
  (:func:`_active_multipliers`), this upper bound meets the attained value to about 1e-12.

:func:`worst_loss` raises unless the two agree to :data:`CERTIFIED_GAP` (1e-10 in the log),
so every number the reference returns is proven to that accuracy, whatever the solver did.

Designs and neighbours
----------------------
:func:`sample_law` enumerates the exact law of the samples of every design the planner
offers; :func:`neighbours` lists every neighbouring population for the two relations;
:func:`design_worst_loss` takes the maximum over them.  Sample probabilities are products
of floats (relative error about 1e-15), far below the tolerances of the tests.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Hashable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import sparse
from scipy.optimize import linprog, nnls

Record = Hashable
Label = Hashable
Sample = frozenset
Law = dict[frozenset, float]

#: The designs of :func:`sample_law` and their keyword parameters.
DESIGNS: dict[str, tuple[str, ...]] = {
    "census": (),
    "srs": ("n",),
    "poisson": ("rate",),
    "stratified": ("rate",),
    "cluster": ("clusters_sampled",),
    "poisson_cluster": ("rate",),
}
RELATIONS = ("deletion", "replacement")

#: Largest accepted gap between the certified upper bound and the attained loss (natural log).
CERTIFIED_GAP = 1e-10

#: HiGHS tolerances, tighter than its defaults (1e-7): the dual bound then meets the attained
#: value to about 1e-12 (budgets near 1e-9 are beyond them, and are refused).
_HIGHS = {"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10}


class _NewRecord:
    """The id of the record a neighbour adds: equal only to itself, printed as ``new``."""

    _instance: _NewRecord | None = None

    def __new__(cls) -> _NewRecord:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "new"

    def __reduce__(self) -> tuple[Any, ...]:  # pickling (pytest-xdist) keeps the singleton
        return (_NewRecord, ())


#: The fresh id of the record a neighbouring population adds (never an id of ``D``).
NEW_RECORD = _NewRecord()


# -- laws of samples ------------------------------------------------------------------------


def _add(law: Law, sample: frozenset, p: float) -> None:
    if p > 0.0:
        law[sample] = law.get(sample, 0.0) + p


def _check_population(population: Mapping[Record, Label], frame: Sequence[Label]) -> None:
    if len(set(frame)) != len(frame):
        raise ValueError(f"the frame lists a label twice: {list(frame)!r}")
    unknown = {lab for lab in population.values() if lab not in frame}
    if unknown:
        raise ValueError(f"labels {sorted(map(repr, unknown))} are not in the frame")


def _rate(params: Mapping[str, Any]) -> float:
    r = float(params["rate"])
    if not 0.0 <= r <= 1.0:
        raise ValueError(f"rate must lie in [0, 1]; got {r!r}")
    return r


def _members(population: Mapping[Record, Label], label: Label) -> list[Record]:
    return [x for x, lab in population.items() if lab == label]


def _uniform_subsets(records: Sequence[Record], m: int) -> Iterator[tuple[frozenset, float]]:
    """Every ``m``-subset of ``records`` with probability ``1 / C(len, m)``."""
    p = 1.0 / math.comb(len(records), m)
    for chosen in itertools.combinations(records, m):
        yield frozenset(chosen), p


def _stratum_law(records: Sequence[Record], r: float) -> Law:
    """Randomised rounding: ``⌊rN⌋ + 1`` records with probability ``rN − ⌊rN⌋``, else ``⌊rN⌋``.

    ``rN`` within 1e-9 of a whole number is taken as that number (``0.7 · 10`` is
    ``7.000000000000001`` in floating point, and the design would then draw 8 records with
    probability 1e-15 -- a sample of no consequence that would only slow the program).
    """
    x = r * len(records)
    low = math.floor(x)
    if abs(x - round(x)) <= 1e-9:
        low, frac = round(x), 0.0
    else:
        frac = x - low
    law: Law = {}
    for m, pm in ((low, 1.0 - frac), (low + 1, frac)):
        if pm > 0.0:
            for s, p in _uniform_subsets(records, m):
                _add(law, s, pm * p)
    return law


def sample_law(
    design: str, population: Mapping[Record, Label], frame: Sequence[Label], **params: Any
) -> Law:
    """The exact law of the sample that ``design`` draws from ``population``.

    Parameters
    ----------
    design : str
        ``"census"`` (every record), ``"srs"`` (``n=``: ``n`` of the ``N`` records uniformly
        without replacement), ``"poisson"`` (``rate=``: each record independently),
        ``"stratified"`` (``rate=``: proportional allocation with randomised rounding in
        every stratum of the frame -- ``⌊r N_h⌋ + 1`` records with probability
        ``r N_h − ⌊r N_h⌋``, else ``⌊r N_h⌋``, uniform inside the stratum, strata
        independent; an empty stratum gives none), ``"cluster"`` (``clusters_sampled=``:
        ``ℓ`` of the ``k`` clusters of the frame uniformly without replacement, every record
        of the drawn ones), ``"poisson_cluster"`` (``rate=``: each cluster of the frame
        independently, every record of the kept ones).
    population : mapping
        Record id to label (stratum or cluster).
    frame : sequence
        Every label of the design, each once: the public list of strata or clusters, some
        of which may hold no record.
    **params
        The design's parameters, as above.

    Returns
    -------
    dict
        ``frozenset`` of record ids to its probability (positive ones only; samples reached
        by several draws, e.g. through empty clusters, are added up).  The values sum to 1.
    """
    if design not in DESIGNS:
        raise ValueError(f"unknown design {design!r}; one of {sorted(DESIGNS)}")
    if set(params) != set(DESIGNS[design]):
        raise ValueError(f"the {design!r} design takes {DESIGNS[design]}; got {sorted(params)}")
    _check_population(population, frame)
    records = list(population)
    law: Law = {}
    if design == "census":
        law[frozenset(records)] = 1.0
    elif design == "srs":
        n = int(params["n"])
        if not 0 <= n <= len(records):
            raise ValueError(f"n must lie in [0, {len(records)}]; got {params['n']!r}")
        for s, p in _uniform_subsets(records, n):
            _add(law, s, p)
    elif design == "poisson":
        r = _rate(params)
        for bits in itertools.product((False, True), repeat=len(records)):
            k = sum(bits)
            p = r**k * (1.0 - r) ** (len(records) - k)
            _add(law, frozenset(x for x, b in zip(records, bits, strict=True) if b), p)
    elif design == "stratified":
        r = _rate(params)
        law[frozenset()] = 1.0
        for label in frame:  # strata are independent: the law is the product
            stratum = _stratum_law(_members(population, label), r)
            product: Law = {}
            for s, p in law.items():
                for u, q in stratum.items():
                    _add(product, s | u, p * q)
            law = product
    elif design == "cluster":
        ell = int(params["clusters_sampled"])
        if not 0 <= ell <= len(frame):
            raise ValueError(f"clusters_sampled must lie in [0, {len(frame)}]; got {ell!r}")
        for chosen, p in _uniform_subsets(list(frame), ell):
            _add(law, frozenset(x for x, lab in population.items() if lab in chosen), p)
    else:  # poisson_cluster
        r = _rate(params)
        for bits in itertools.product((False, True), repeat=len(frame)):
            k = sum(bits)
            p = r**k * (1.0 - r) ** (len(frame) - k)
            kept = {lab for lab, b in zip(frame, bits, strict=True) if b}
            _add(law, frozenset(x for x, lab in population.items() if lab in kept), p)
    total = math.fsum(law.values())
    assert abs(total - 1.0) < 1e-12, total
    return law


# -- the linear program ----------------------------------------------------------------------


def effective_change(a: float, c: float) -> float:
    """``c_eff = min(c, 2a)``: a substitution is never dearer than a removal and an addition."""
    return min(c, 2.0 * a)


def sample_distance(s: frozenset, t: frozenset, a: float, c: float) -> float:
    """Shortest path from ``s`` to ``t`` in the sample graph: ``min(p, q) c_eff + |p − q| a``."""
    p, q = len(s - t), len(t - s)
    return min(p, q) * effective_change(a, c) + abs(p - q) * a


def _distances(samples: Sequence[frozenset], a: float, c: float) -> np.ndarray:
    """The matrix of :func:`sample_distance` over ``samples``, from an incidence matrix."""
    records = sorted(set().union(*samples), key=repr)
    index = {x: i for i, x in enumerate(records)}
    inc = np.zeros((len(samples), len(records)))
    for i, s in enumerate(samples):
        inc[i, [index[x] for x in s]] = 1.0
    p = inc @ (1.0 - inc).T  # p[i, j] = |s_i ∖ s_j|
    q = p.T
    return np.minimum(p, q) * effective_change(a, c) + np.abs(p - q) * a


@dataclass(frozen=True)
class _Ratio:
    attained: float  # log-ratio of the returned feasible f
    upper: float  # certified upper bound from the dual
    f: np.ndarray  # feasible, normalised to Σ den f = 1


def _dual_bound(
    mu: np.ndarray, num: np.ndarray, den: np.ndarray, dist: np.ndarray, lam: float
) -> float:
    """Weak duality: ``num·f ≤ lam + Σ_s max(ρ(s) − lam den(s), 0) F(s)`` if ``Σ den f = 1``.

    For any ``μ ≥ 0`` and ``ρ(s) = num(s) − Σ_t μ(s,t) + Σ_t μ(t,s) e^{d(t,s)}``, every
    feasible ``f`` has ``num·f = Σ_s f(s) ρ(s) + Σ μ(s,t) (f(s) − e^{d(s,t)} f(t)) ≤
    Σ_s f(s) ρ(s)``, and ``f(s) ≤ F(s) = 1 / Σ_t den(t) e^{−d(s,t)}`` (from
    ``f(t) ≥ e^{−d(s,t)} f(s)`` and ``Σ den f = 1``).
    """
    growth = np.exp(dist)
    rho = num - mu.sum(axis=1) + (mu * growth).sum(axis=0)
    excess = np.maximum(rho - lam * den, 0.0)
    cap = 1.0 / (np.exp(-dist) @ den)
    return lam + float(excess @ cap)


def _feasible(f: np.ndarray, num: np.ndarray, den: np.ndarray, dist: np.ndarray) -> np.ndarray:
    """The solver's ``f`` made exactly feasible, scaled to ``Σ den f = 1``.

    In log space, ``g = log f``, two McShane envelopes are 1-Lipschitz for the metric ``d``
    whatever ``g`` is: the upper ``max_t (g(t) − d(s, t))`` (over the ``t`` with
    ``f(t) > 0``; it lifts the values the solver rounded to 0) and the lower
    ``min_t (g(t) + d(s, t))`` (of ``g`` with those values lifted).  Both equal ``g``
    where ``g`` already satisfies the constraints; the one with the larger ratio is kept.
    (Lipschitz: ``g'(s) ≤ g(t*) + d(s, t*) ≤ g(t*) + d(s, u) + d(u, t*) = g'(u) + d(s, u)``
    for the ``t*`` attaining ``g'(u)``, and symmetrically for the upper envelope.)
    """
    positive = f > 0.0
    if not positive.any():
        raise RuntimeError("the linear program returned f = 0")
    g = np.log(np.where(positive, f, 1.0))
    upper = np.max(np.where(positive[None, :], g[None, :] - dist, -np.inf), axis=1)
    lower = np.min(np.where(positive, g, upper)[None, :] + dist, axis=1)
    best = None
    for h in (upper, lower):
        h = np.exp(h - np.max(h))
        h = h / float(den @ h)
        if best is None or float(num @ h) > float(num @ best):
            best = h
    assert best is not None
    return best


def _direct_pairs(dist: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The pairs ``(s, t)``, ``s ≠ t``, whose constraint no sample ``k`` between them implies.

    If ``d(s,k) + d(k,t) = d(s,t)`` with both terms below ``d(s,t)``, then
    ``f(s) ≤ e^{d(s,k)} f(k) ≤ e^{d(s,k) + d(k,t)} f(t) = e^{d(s,t)} f(t)``: the constraint
    of ``(s, t)`` follows from two of smaller distance, and by induction on the distance
    from direct pairs alone.  (The sum is compared with a relative tolerance of 1e-12; the
    answer is made exactly feasible for every pair afterwards, and the dual bound only uses
    true constraints, so the tolerance cannot make the reference wrong.)
    """
    n = dist.shape[0]
    keep = ~np.eye(n, dtype=bool)
    for s in range(n):
        via = dist[s, :, None] + dist  # via[k, t] = d(s,k) + d(k,t)
        shorter = dist < dist[s][None, :]  # shorter[k, t]: d(k,t) < d(s,t)
        usable = (dist[s, :, None] < dist[s][None, :]) & shorter
        implied = (usable & (via <= dist[s][None, :] * (1.0 + 1e-12))).any(axis=0)
        keep[s] &= ~implied
    return np.nonzero(keep)


def _solve(num: np.ndarray, den: np.ndarray, dist: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The linear program over the direct pairs; returns the solver's ``f`` and ``μ``."""
    n = num.size
    rows_i, rows_j = _direct_pairs(dist)
    m = rows_i.size
    a_ub = sparse.csr_matrix(
        (
            np.concatenate([np.ones(m), -np.exp(dist[rows_i, rows_j])]),
            (np.concatenate([np.arange(m), np.arange(m)]), np.concatenate([rows_i, rows_j])),
        ),
        shape=(m, n),
    )
    res = linprog(
        -num,
        A_ub=a_ub if m else None,
        b_ub=np.zeros(m) if m else None,
        A_eq=den[None, :],
        b_eq=[1.0],
        bounds=(0, None),
        method="highs",
        options=_HIGHS,
    )
    if res.status != 0:
        raise RuntimeError(f"the linear program failed: {res.message}")
    f = np.asarray(res.x, dtype=float)
    mu = np.zeros((n, n))
    if m:
        mu[rows_i, rows_j] = np.maximum(-np.asarray(res.ineqlin.marginals, dtype=float), 0.0)
    return f, mu


def _active_multipliers(
    f: np.ndarray, num: np.ndarray, den: np.ndarray, dist: np.ndarray
) -> np.ndarray:
    """Multipliers ``μ ≥ 0`` recomputed on the direct constraints active at ``f``.

    Every ``f(s) > 0`` at the optimum, so complementary slackness asks
    ``ρ(s) = λ den(s)`` at every sample with ``μ`` zero off the active constraints.  The
    solver's multipliers meet it to its tolerance, which :func:`_dual_bound` magnifies by
    ``F(s)``; non-negative least squares on the active direct pairs (within 1e-9), each
    equation weighted by ``F(s)``, meets it to rounding.  Any ``μ ≥ 0`` gives a valid
    bound, so a wrong active set can only weaken the bound.
    """
    n = num.size
    lam = float(num @ f)
    g = np.log(f)
    rows_i, rows_j = _direct_pairs(dist)
    active = g[rows_i] - g[rows_j] >= dist[rows_i, rows_j] - 1e-9
    rows_i, rows_j = rows_i[active], rows_j[active]
    mu = np.zeros((n, n))
    if rows_i.size == 0:  # (scipy's nnls aborts on a matrix without columns)
        return mu
    cols = np.zeros((n, rows_i.size))
    k = np.arange(rows_i.size)
    cols[rows_i, k] += 1.0
    cols[rows_j, k] -= np.exp(dist[rows_i, rows_j])
    weight = 1.0 / (np.exp(-dist) @ den)
    rhs = weight * (num - lam * den)
    mu_flat = nnls(weight[:, None] * cols, rhs, maxiter=50 * (k.size + 1))[0]
    mu[rows_i, rows_j] = mu_flat
    return mu


def _max_ratio(num: np.ndarray, den: np.ndarray, dist: np.ndarray) -> _Ratio:
    """``sup log(num·f / den·f)`` over ``f > 0`` with ``f_i ≤ e^{dist_ij} f_j``, certified."""
    f, mu = _solve(num, den, dist)
    # Attained: the McShane lower envelope in log space is exactly 1-Lipschitz for dist
    # (every pair, whatever the solver saw).
    f = _feasible(f, num, den, dist)
    g = np.log(f)
    violation = float(np.max(g[:, None] - g[None, :] - dist))
    if violation > 1e-12:  # cannot happen for a metric; checked all the same
        raise RuntimeError(f"the repaired f breaks a constraint by {violation:.3g} in the log")
    lam = float(num @ f)
    # Not exceeded: weak duality with the solver's multipliers (any μ ≥ 0 on true
    # constraints gives a valid bound).
    bound = _dual_bound(mu, num, den, dist, lam)
    if bound > lam * (1.0 + 1e-12):
        refined = _active_multipliers(f, num, den, dist)
        bound = min(bound, _dual_bound(refined, num, den, dist, lam))
    return _Ratio(math.log(lam), math.log(bound), f)


def worst_loss(
    P: Mapping[frozenset, float], Q: Mapping[frozenset, float], a: float, c: float
) -> tuple[float, dict[frozenset, float], str]:
    """The largest population-level loss of any mechanism with budgets ``(a, c)``.

    Solves the linear program of the module docstring in both directions over the union of
    the supports (exact, by McShane's extension), checks the answer from both sides, and
    returns the larger.

    Parameters
    ----------
    P, Q : mapping
        Laws of the samples of two neighbouring populations (:func:`sample_law`).
    a : float
        Budget for an added or removed record, finite and > 0.
    c : float
        Budget for a substituted record, >= 0; ``math.inf`` for none (``c_eff = 2a``).

    Returns
    -------
    loss : float
        ``max(sup log(ΣPf/ΣQf), sup log(ΣQf/ΣPf))``, attained by the returned ``f``.
    f : dict
        The worst mechanism's ``f`` on every sample of the union of the supports (output 1
        with probability ``κ f(s)`` for a small ``κ``): ``f(s) ≤ e^{d(s,t)} f(t)`` for all
        pairs, normalised so that the denominator's law gives ``Σ f = 1`` (``Q`` for
        ``"P/Q"``, ``P`` for ``"Q/P"``).
    direction : str
        ``"P/Q"`` or ``"Q/P"``: which population's output is the likelier.

    Raises
    ------
    RuntimeError
        When the solver fails or its attained value and the dual bound differ by more than
        :data:`CERTIFIED_GAP`.
    """
    if not (math.isfinite(a) and a > 0.0):
        raise ValueError(f"a must be finite and > 0; got {a!r}")
    if not c >= 0.0:
        raise ValueError(f"c must be >= 0 (math.inf for none); got {c!r}")
    for name, law in (("P", P), ("Q", Q)):
        if any(p < 0.0 for p in law.values()) or abs(math.fsum(law.values()) - 1.0) > 1e-9:
            raise ValueError(f"{name} must be a probability law over samples")
    samples = sorted(set(P) | set(Q), key=lambda s: (len(s), sorted(map(repr, s))))
    p = np.array([P.get(s, 0.0) for s in samples])
    q = np.array([Q.get(s, 0.0) for s in samples])
    dist = _distances(samples, a, c)
    best: tuple[float, dict[frozenset, float], str] | None = None
    for direction, num, den in (("P/Q", p, q), ("Q/P", q, p)):
        ratio = _max_ratio(num, den, dist)
        if ratio.upper < ratio.attained - 1e-12:  # weak duality cannot fail; checked anyway
            raise RuntimeError(f"{direction}: the dual bound is below the attained value")
        if not ratio.upper - ratio.attained <= CERTIFIED_GAP:
            raise RuntimeError(
                f"{direction}: attained {ratio.attained!r} but the dual bound is "
                f"{ratio.upper!r}; the linear program is not solved to {CERTIFIED_GAP}"
            )
        if best is None or ratio.attained > best[0]:
            best = (ratio.attained, dict(zip(samples, ratio.f.tolist(), strict=True)), direction)
    assert best is not None
    return best


def population_from_sizes(sizes: Sequence[int]) -> tuple[dict[Record, Label], list[Label]]:
    """``sizes[h]`` records labelled ``"h{h}"`` (ids ``0, 1, ...``), and the frame of labels."""
    frame: list[Label] = [f"h{h}" for h in range(len(sizes))]
    labels = [lab for lab, size in zip(frame, sizes, strict=True) for _ in range(size)]
    return dict(enumerate(labels)), frame


# -- neighbours ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Neighbour:
    """A neighbouring population and the change that makes it."""

    population: Mapping[Record, Label]
    change: str


def neighbours(
    population: Mapping[Record, Label],
    frame: Sequence[Label],
    relation: str,
    labels_public: bool,
) -> list[Neighbour]:
    """Every neighbour ``D'`` of ``population`` under ``relation``.

    ``"deletion"``: each record removed (a stratum's or cluster's last one included), and a
    new record (id :data:`NEW_RECORD`) added to each label of the frame (empty ones
    included); ``labels_public`` changes nothing.  ``"replacement"``: each record replaced
    by a new one with the same label (``labels_public=True``) or with any label of the frame
    (``False``: moves across strata or clusters included).  Values do not matter: the
    mechanism is arbitrary, so a new record is only a new id.
    """
    if relation not in RELATIONS:
        raise ValueError(f"relation must be one of {RELATIONS}; got {relation!r}")
    _check_population(population, frame)
    if NEW_RECORD in population:
        raise ValueError("the population already holds the new record's id")
    out: list[Neighbour] = []
    for x, lab in population.items():
        rest = {y: m for y, m in population.items() if y != x}
        if relation == "deletion":
            out.append(Neighbour(rest, f"remove {x!r} (label {lab!r})"))
            continue
        for new in [lab] if labels_public else list(frame):
            out.append(
                Neighbour(
                    {**rest, NEW_RECORD: new}, f"replace {x!r} (label {lab!r}) by new ({new!r})"
                )
            )
    if relation == "deletion":
        for new in frame:
            out.append(Neighbour({**population, NEW_RECORD: new}, f"add new (label {new!r})"))
    return out


@dataclass(frozen=True)
class WorstCase:
    """The neighbour, direction and mechanism of :func:`design_worst_loss`'s answer."""

    neighbour: Neighbour
    direction: str
    f: dict[frozenset, float]
    P: Law  # law of the population's samples
    Q: Law  # law of the neighbour's samples


def design_worst_loss(
    design: str,
    population: Mapping[Record, Label],
    frame: Sequence[Label],
    relation: str,
    labels_public: bool,
    a: float,
    c: float,
    **params: Any,
) -> tuple[float, WorstCase]:
    """Exact population-level loss of ``design`` then any ``(a, c)`` mechanism at ``population``.

    The maximum of :func:`worst_loss` over every neighbour of :func:`neighbours`; the
    design's parameters (``**params``, see :func:`sample_law`) are the same for the
    population and its neighbours (the frame is public and fixed, ``n`` and ``rate`` too).

    Returns
    -------
    loss : float
        The loss, in nats.
    WorstCase
        The worst neighbour (the first one found among ties), direction and mechanism.
    """
    P = sample_law(design, population, frame, **params)
    best: tuple[float, WorstCase] | None = None
    for nb in neighbours(population, frame, relation, labels_public):
        Q = sample_law(design, nb.population, frame, **params)
        loss, f, direction = worst_loss(P, Q, a, c)
        if best is None or loss > best[0] + 1e-12:
            best = (loss, WorstCase(nb, direction, f, P, Q))
    if best is None:
        raise ValueError("the population has no neighbour (it is empty and the frame too)")
    return best
