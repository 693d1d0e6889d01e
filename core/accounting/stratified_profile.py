"""The exact privacy cost of a proportional stratified sample, for the strata an agency holds.

Bun et al. (Theorems 4.3 and 7.2) bound proportional allocation with randomised rounding by
``ln(1 + 2r(e^{2ε} − 1)) + ln(1 + r(e^{2ε} − 1))`` for every stratum size at once.  An
agency knows its stratum sizes, and for them the worst loss over *every* mechanism with
given budgets can be computed exactly.  This module does so.

Setting
-------
A mechanism on samples has two budgets: ``a`` (``a``-DP when one record is added to or
removed from its input) and ``c`` (``c``-DP when one record of its input is changed).
Only ``c_eff = min(c, 2a)`` matters (a change is a removal and an addition).  Stratum
``h`` of size ``M`` gets ``K = ⌊rM⌋ + B`` records, ``B ~ Bernoulli(rM − ⌊rM⌋)`` (so
``E K = rM``), a uniform subset inside the stratum; strata are drawn independently.  The
list of strata is public and fixed.

The worst loss is a small linear program
----------------------------------------
Fix one output ``ω`` and write ``f(s) = Pr[M(s) = ω]``.  The budgets say exactly that
``f(s) <= e^{d(s, t)} f(t)`` for all samples ``s, t``, where ``d`` is the shortest-path
metric of the sample graph: with ``p = |s ∖ t|`` and ``q = |t ∖ s|``,
``d(s, t) = min(p, q) c_eff + |p − q| a`` (pair removals with additions as changes).  The
population's loss at ``ω`` is ``Σ_s P(s) f(s) / Σ_s Q(s) f(s)`` for the two neighbours'
sample laws ``P`` and ``Q``, so the worst loss over all mechanisms is

    ``L = sup { log(Σ P f / Σ Q f) : f > 0, f(s) <= e^{d(s,t)} f(t) }``,

maximised over both orders of ``P`` and ``Q``.  It is attained: a mechanism that outputs
1 with probability ``κ f(s)`` (``κ`` small enough that the output 0 keeps the budgets)
has exactly that ratio at the output 1.

Three reductions make the program tiny.

1. *Other strata.*  The strata a neighbour does not touch are drawn with the same law
   under both neighbours and independently of the touched ones, so the ratio is a
   mixture over their samples with common weights, at most the largest component; and
   the largest is reached by an ``f`` that ignores them.  Only the touched strata count.
2. *Symmetry.*  Permuting the records a neighbour does not touch, within their stratum,
   maps the sample graph onto itself and leaves ``P`` and ``Q`` unchanged, so averaging
   an optimal ``f`` over those permutations keeps it feasible and optimal.  An optimal
   ``f`` depends only on the *state* of a sample: how many untouched records of each
   touched stratum it holds, and which of the touched records.  The distance between two
   states is the same formula on their count vectors, a metric on the integer lattice
   (unit steps cost ``a``, swaps ``c_eff``).
3. *Extreme rays.*  The feasible ``f`` form a pointed polyhedral cone, and a ratio of two
   positive linear forms is largest on one of its extreme rays.  A ray is extreme when
   ``n − 1`` independent constraints ``f_v = e^{d_vw} f_w`` hold, i.e. when the tight
   pairs span a tree of the ``n`` states: ``log f`` then steps by ``± d`` along a
   spanning tree.  States of zero probability may be kept: the lattice metric obeys the
   triangle inequality, so they add no constraint between the others.  With ``n = 6``
   states the 1296 spanning trees × 32 orientations are enumerated once per ratio
   ``c_eff / a`` (the rays scale with ``a``), and ``L`` is a maximum over a few dozen
   rays.

Neighbours and what each costs
------------------------------
* *A record added to stratum h* (``M → M + 1``; removal is the same pair read the other
  way).  States: untouched records of ``h`` in the sample, and whether the record is in
  it (:func:`added_record_losses`).  Both orders are kept: ``up`` (the sample law with the
  record over the one without) and ``down``.
* *A record changed inside stratum h* (labels public): the allocation does not move; states
  count untouched records and whether the old or the new record is drawn
  (:func:`changed_record_loss`).
* *A record that moves from stratum h to h'* (labels can change): ``h`` loses a record and
  ``h'`` gains one.  Passing through the population without the record gives
  ``L ≤ max(up_h + down_h', down_h + up_h')`` (the removal's and the addition's loss in
  matching orders; :func:`stratified_eps_target`).  It is exact when ``c_eff = 2a``: the
  metric is then ``a`` times the ℓ1 distance on the count lattice, the sum of one metric
  per stratum, the two strata are drawn independently, and the product of the two
  strata's worst ``f`` is feasible and attains the sum.  When ``c_eff < 2a`` it is an
  upper bound (a change costs less than a removal and an addition).

Every number is checked against the linear program over all samples of tiny populations,
solved without any of these reductions (``tests/core/accounting``).
"""

from __future__ import annotations

import functools
import itertools
import math

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.optimize import brentq

from .. import amplification as amp

__all__ = [
    "ProfileResult",
    "added_record_losses",
    "changed_record_loss",
    "stratified_eps_sample",
    "stratified_eps_target",
]

FloatArray = NDArray[np.float64]

#: States of one stratum a record is added to, relative to ``⌊rM⌋``: (untouched records in
#: the sample, the added record in it).
_ADD_NODES = np.array([(0, 0), (1, 0), (2, 0), (-1, 1), (0, 1), (1, 1)], dtype=np.int64)
#: States of one stratum where a record is changed: (untouched records, old record drawn,
#: new record drawn).
_CHANGE_NODES = np.array(
    [(0, 0, 0), (1, 0, 0), (-1, 1, 0), (0, 1, 0), (-1, 0, 1), (0, 0, 1)], dtype=np.int64
)
#: Below this ``a · (spread of log f)`` the loss is formed with ``expm1`` (exact for tiny
#: budgets); above it with log-sum-exp (no overflow at ε = 1000).
_SMALL = 1.0


def _lattice_metric(nodes: NDArray[np.int64], rho: float) -> FloatArray:
    """``d(x, y) / a = min(p, q) ρ + |p − q|`` between count vectors (``ρ = c_eff / a``)."""
    diff = nodes[:, None, :] - nodes[None, :, :]
    p = np.clip(diff, 0, None).sum(axis=-1)
    q = np.clip(-diff, 0, None).sum(axis=-1)
    return np.minimum(p, q) * rho + np.abs(p - q).astype(np.float64)


@functools.cache
def _trees(n: int) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Every labelled spanning tree of ``n`` nodes as (parent of each edge's child, child)
    in an order where a parent's value is known before its child's (root 0)."""
    parents, children = [], []
    for seq in itertools.product(range(n), repeat=n - 2):
        degree = [1] * n
        for v in seq:
            degree[v] += 1
        edges = []
        for v in seq:
            leaf = min(i for i in range(n) if degree[i] == 1)
            edges.append((leaf, v))
            degree[leaf] -= 1
            degree[v] -= 1
        u, w = (i for i in range(n) if degree[i] == 1)
        edges.append((u, w))
        adjacency: dict[int, list[int]] = {i: [] for i in range(n)}
        for x, y in edges:
            adjacency[x].append(y)
            adjacency[y].append(x)
        order, seen, par, ch = [0], {0}, [], []
        for x in order:
            for y in adjacency[x]:
                if y not in seen:
                    seen.add(y)
                    order.append(y)
                    par.append(x)
                    ch.append(y)
        parents.append(par)
        children.append(ch)
    return np.array(parents, dtype=np.int64), np.array(children, dtype=np.int64)


@functools.cache
def _rays(kind: str, rho: float) -> FloatArray:
    """The extreme rays of the feasible cone as ``log f / a`` (one row per ray), for the
    states of ``kind`` (``"add"`` or ``"change"``) and the ratio ``ρ = c_eff / a``."""
    nodes = _ADD_NODES if kind == "add" else _CHANGE_NODES
    n = nodes.shape[0]
    dist = _lattice_metric(nodes, rho)
    parents, children = _trees(n)
    signs = np.array(list(itertools.product((-1.0, 1.0), repeat=n - 1)))
    g = np.zeros((parents.shape[0], signs.shape[0], n))
    tree = np.arange(parents.shape[0])
    for e in range(n - 1):
        par, ch = parents[:, e], children[:, e]
        g[tree, :, ch] = g[tree, :, par] + dist[par, ch][:, None] * signs[None, :, e]
    flat = g.reshape(-1, n)
    slack = dist[None, :, :] - (flat[:, :, None] - flat[:, None, :])
    feasible = np.all(slack >= -1e-9, axis=(1, 2))
    rays = np.unique(np.round(flat[feasible] - flat[feasible, :1], 9), axis=0)
    rays.setflags(write=False)
    return rays


def _allocation(size: FloatArray, rate: float) -> tuple[FloatArray, FloatArray]:
    """``⌊r M⌋`` and the chance ``r M − ⌊r M⌋`` of one record more."""
    exact = rate * size
    base = np.floor(exact)
    return base, exact - base


def _add_laws(m: FloatArray, rate: float) -> tuple[FloatArray, FloatArray]:
    """State laws (rows: strata of ``m`` records; columns: :data:`_ADD_NODES`) without the
    added record (``M = m``) and with it (``M = m + 1``)."""
    u, phi = _allocation(m, rate)
    u1, phi1 = _allocation(m + 1.0, rate)
    shift = (u1 - u).astype(np.int64)  # 0 or 1: r < 1
    rows = np.arange(m.size)
    without = np.zeros((m.size, 6))
    without[:, 0] = 1.0 - phi
    without[:, 1] = phi
    with_ = np.zeros((m.size, 6))
    for extra, prob in ((0, 1.0 - phi1), (1, phi1)):
        k = u1 + extra
        pos = shift + extra
        share = np.clip(k / (m + 1.0), 0.0, 1.0)
        np.add.at(with_, (rows, pos), prob * (1.0 - share))  # nodes (pos, 0): 0, 1, 2
        np.add.at(with_, (rows, pos + 3), prob * share)  # nodes (pos − 1, 1): 3, 4, 5
    return without, with_


def _change_laws(m: FloatArray, rate: float) -> tuple[FloatArray, FloatArray]:
    """State laws (columns: :data:`_CHANGE_NODES`) of a stratum of ``m`` records with the
    old record and with the new one in its place."""
    _, phi = _allocation(m, rate)
    u, _ = _allocation(m, rate)
    old = np.zeros((m.size, 6))
    new = np.zeros((m.size, 6))
    for pos, prob in ((0, 1.0 - phi), (1, phi)):
        share = np.clip((u + pos) / m, 0.0, 1.0)
        old[:, pos] += prob * (1.0 - share)
        new[:, pos] += prob * (1.0 - share)
        old[:, 2 + pos] += prob * share  # (pos − 1, 1, 0): nodes 2, 3
        new[:, 4 + pos] += prob * share  # (pos − 1, 0, 1): nodes 4, 5
    return old, new


def _lse(x: FloatArray, weights: FloatArray) -> FloatArray:
    """``log Σ_n weights[s, n] e^{x[v, n]}`` for every row ``s`` and ray ``v``: shape (S, V)."""
    positive = weights[:, None, :] > 0.0
    masked = np.where(positive, x[None, :, :], -np.inf)
    top = masked.max(axis=-1, keepdims=True)
    top = np.where(np.isfinite(top), top, 0.0)
    terms = np.where(positive, weights[:, None, :] * np.exp(masked - top), 0.0)
    with np.errstate(divide="ignore"):
        return np.asarray(top[..., 0] + np.log(terms.sum(axis=-1)), dtype=np.float64)


def _pair_losses(
    first: FloatArray, second: FloatArray, rays: FloatArray, a: float
) -> tuple[FloatArray, FloatArray]:
    """``max over rays of log(Σ first e^{a g} / Σ second e^{a g})`` and of the reverse
    ratio, for each row of the two laws.

    Formed as ``log1p(±Σ (first − second) expm1(a(g − max g)) / Σ law e^{a(g − max g)})``
    when ``a`` times the rays' spread is small (exact for tiny ``a``: both laws sum to 1)
    and as a difference of log-sum-exps otherwise (finite at ``a = 1000``).
    """
    spread = float(np.max(rays) - np.min(rays)) if rays.size else 0.0
    with np.errstate(divide="ignore", invalid="ignore"):
        if a * spread <= _SMALL:
            shifted = a * (rays - rays.max(axis=1, keepdims=True))  # (V, n), <= 0
            gap = (first - second) @ np.expm1(shifted).T  # (S, V)
            weights = np.exp(shifted).T
            up = np.log1p(gap / (second @ weights))
            down = np.log1p(-gap / (first @ weights))
        else:
            log_first, log_second = _lse(a * rays, first), _lse(a * rays, second)
            up, down = log_first - log_second, log_second - log_first
    return _row_max(up), _row_max(down)


def _row_max(values: FloatArray) -> FloatArray:
    return np.asarray(np.max(np.where(np.isnan(values), -np.inf, values), axis=1), dtype=np.float64)


def _check(eps_ar: float, eps_sub: float, rate: float) -> tuple[float, float]:
    if not (math.isfinite(rate) and 0.0 < rate < 1.0):
        raise ValueError(f"rate must be in (0, 1); got {rate!r}")
    if not (eps_ar > 0.0 and math.isfinite(eps_ar)):
        raise ValueError(f"eps_ar must be a finite number > 0; got {eps_ar!r}")
    if not eps_sub > 0.0:
        raise ValueError(f"eps_sub must be > 0; got {eps_sub!r}")
    return eps_ar, min(eps_sub, 2.0 * eps_ar)


def _ratio(eps_ar: float, c_eff: float) -> float:
    """``c_eff / a``, rounded so that one budget ratio shares one set of rays."""
    return round(c_eff / eps_ar, 9)


def added_record_losses(
    eps_ar: float, eps_sub: float, rate: float, sizes: ArrayLike
) -> tuple[FloatArray, FloatArray]:
    """The exact worst loss of adding one record to a stratum of ``M`` records.

    Parameters
    ----------
    eps_ar, eps_sub : float
        The mechanism's budgets on the sample for an added/removed and a changed record
        (``eps_sub`` may be ``inf``: only ``min(eps_sub, 2 eps_ar)`` matters).
    rate : float
        The sampling fraction ``r`` in (0, 1).
    sizes : array_like of int
        ``M`` of each stratum before the addition (0 allowed).

    Returns
    -------
    up, down : ndarray
        ``sup log(P_with / P_without)`` and ``sup log(P_without / P_with)`` over every
        mechanism with those budgets, for each stratum (module docstring, the program over
        :data:`_ADD_NODES`).  A removal from a stratum of ``M + 1`` records has the same two
        numbers in the other order.
    """
    a, c = _check(eps_ar, eps_sub, rate)
    m = np.asarray(sizes, dtype=np.float64).reshape(-1)
    without, with_ = _add_laws(m, rate)
    return _pair_losses(with_, without, _rays("add", _ratio(a, c)), a)


def changed_record_loss(eps_ar: float, eps_sub: float, rate: float, sizes: ArrayLike) -> FloatArray:
    """The exact worst loss of changing one record inside a stratum of ``M >= 1`` records.

    The allocation does not move; the law is symmetric in the old and the new record, so
    one order suffices (module docstring, the program over :data:`_CHANGE_NODES`).
    """
    a, c = _check(eps_ar, eps_sub, rate)
    m = np.asarray(sizes, dtype=np.float64).reshape(-1)
    if np.any(m < 1):
        raise ValueError("a stratum with a changed record has at least one record")
    old, new = _change_laws(m, rate)
    return _pair_losses(old, new, _rays("change", _ratio(a, c)), a)[0]


def _best_pair(first: FloatArray, second: FloatArray) -> float:
    """``max over h ≠ h' of first[h] + second[h']`` (``-inf`` with one stratum)."""
    if first.size < 2:
        return -math.inf
    i, j = int(np.argmax(first)), int(np.argmax(second))
    if i != j:
        return float(first[i] + second[j])
    f2 = float(np.partition(first, -2)[-2])
    s2 = float(np.partition(second, -2)[-2])
    return max(float(first[i]) + s2, f2 + float(second[j]))


def _check_sizes(stratum_sizes: ArrayLike) -> FloatArray:
    sizes = np.asarray(stratum_sizes, dtype=np.float64).reshape(-1)
    if sizes.size == 0 or not np.all(np.isfinite(sizes)) or np.any(sizes < 1):
        raise ValueError("stratum_sizes must be whole numbers >= 1, one per stratum")
    if np.any(np.floor(sizes) != sizes):
        raise ValueError("stratum_sizes must be whole numbers >= 1, one per stratum")
    return sizes


class _Profile:
    """The laws of every neighbour of one population and rate, built once; :meth:`loss`
    evaluates :func:`stratified_eps_target` at given budgets."""

    def __init__(self, rate: float, sizes: FloatArray, relation: str, labels_public: bool):
        if relation not in ("deletion", "replacement"):
            raise ValueError(f"relation must be 'deletion' or 'replacement'; got {relation!r}")
        self.relation, self.rate = relation, rate
        distinct, self.inverse = np.unique(sizes, return_inverse=True)
        self.moves = relation == "replacement" and not labels_public and sizes.size >= 2
        self.change: tuple[FloatArray, FloatArray] | None = None
        if relation == "deletion" or self.moves:
            # rows 0..S-1: a stratum of N_h − 1 gains a record; rows S..2S-1: N_h gains one
            without, with_ = _add_laws(np.concatenate([distinct - 1.0, distinct]), rate)
            self.add = (with_, without)
        if relation == "replacement":
            self.change = _change_laws(distinct, rate)
        self.strata = distinct.size

    def loss(self, eps_ar: float, eps_sub: float) -> float:
        a, c = _check(eps_ar, eps_sub, self.rate)
        rho = _ratio(a, c)
        worst = -math.inf
        if self.change is not None:
            worst = float(np.max(_pair_losses(*self.change, _rays("change", rho), a)[0]))
        if self.relation == "deletion" or self.moves:
            up, down = _pair_losses(*self.add, _rays("add", rho), a)
            if self.relation == "deletion":
                return float(max(np.max(up), np.max(down)))
            s = self.strata
            # A move out of h (the population holds the record: its law is "with" at N_h − 1)
            # and into h' (the neighbour's law is "with" at N_h').
            leave_up, leave_down = up[:s][self.inverse], down[:s][self.inverse]
            join_up, join_down = up[s:][self.inverse], down[s:][self.inverse]
            worst = max(worst, _best_pair(leave_up, join_down), _best_pair(leave_down, join_up))
        return worst


def stratified_eps_target(
    eps_ar: float,
    eps_sub: float,
    rate: float,
    stratum_sizes: ArrayLike,
    relation: str,
    labels_public: bool = False,
) -> float:
    """The population's guarantee for a proportional stratified sample of these strata.

    ``relation="deletion"``: the largest loss of adding a record to, or removing one
    from, any stratum (exact).  ``relation="replacement"``: the largest loss of changing a
    record inside its stratum (exact) and, unless ``labels_public``, of moving it to
    another stratum (exact when ``min(eps_sub, 2 eps_ar) = 2 eps_ar``, an upper bound
    otherwise: module docstring).

    Parameters
    ----------
    eps_ar, eps_sub : float
        The mechanism's budgets on the sample (:func:`added_record_losses`).
    rate : float
        ``r`` in (0, 1).
    stratum_sizes : array_like of int
        ``N_h`` of every stratum of the (public, fixed) list of strata, each >= 1.
    relation : {"deletion", "replacement"}
    labels_public : bool, default False
        A record keeps its stratum when it changes.
    """
    _check(eps_ar, eps_sub, rate)
    profile = _Profile(rate, _check_sizes(stratum_sizes), relation, labels_public)
    return profile.loss(eps_ar, eps_sub)


class ProfileResult(float):
    """A budget (a float) that also says whether the profile it comes from is exact."""

    exact: bool

    def __new__(cls, value: float, exact: bool) -> ProfileResult:
        obj = super().__new__(cls, value)
        obj.exact = exact
        return obj


def stratified_eps_sample(
    eps_target: float,
    rate: float,
    stratum_sizes: ArrayLike,
    alpha: float,
    gamma: float,
    relation: str,
    labels_public: bool = False,
) -> ProfileResult:
    """The largest ``eps_sample`` whose exact profile keeps ``eps_target``.

    Inverts :func:`stratified_eps_target` at ``eps_ar = α eps_sample`` and
    ``eps_sub = γ eps_sample`` (the loss grows with the budgets, so the root is unique) by
    Brent's method on ``log eps_sample``, to 1e-12 relative; answers are cached.

    Returns
    -------
    ProfileResult
        The budget; ``.exact`` is False when a move between strata is priced by the upper
        bound (``relation="replacement"``, labels private and ``min(γ, 2α) < 2α``).
    """
    if not (eps_target > 0.0 and math.isfinite(eps_target)):
        raise ValueError(f"eps_target must be a finite number > 0; got {eps_target!r}")
    if not (alpha > 0.0 and math.isfinite(alpha) and gamma > 0.0):
        raise ValueError(f"alpha and gamma must be > 0; got {alpha!r}, {gamma!r}")
    sizes = tuple(int(v) for v in _check_sizes(stratum_sizes))
    value = _eps_sample(
        float(eps_target),
        float(rate),
        sizes,
        float(alpha),
        float(gamma),
        relation,
        bool(labels_public),
    )
    exact = (
        relation == "deletion"
        or labels_public
        or len(sizes) < 2
        or (min(gamma, 2.0 * alpha) >= 2.0 * alpha)
    )
    return ProfileResult(value, exact)


@functools.lru_cache(maxsize=4096)
def _eps_sample(
    eps_target: float,
    rate: float,
    sizes: tuple[int, ...],
    alpha: float,
    gamma: float,
    relation: str,
    labels_public: bool,
) -> float:
    _check(alpha, gamma, rate)
    profile = _Profile(rate, np.asarray(sizes, dtype=np.float64), relation, labels_public)

    def gap(log_e: float) -> float:
        e = math.exp(log_e)
        return profile.loss(alpha * e, gamma * e) - eps_target

    # Start from Poisson sampling at the same rate (within a factor 3 of the answer at the
    # sizes and rates tried: bench.bench_accounting), then widen until the root is bracketed.
    guess = math.log(float(amp.eps_sample(eps_target, rate)) / max(alpha, gamma))
    lo, hi = guess - 0.6, guess + 0.4
    while gap(lo) > 0.0:
        lo, hi = lo - 1.0, lo
    while gap(hi) < 0.0:
        lo, hi = hi, hi + 1.0
    return math.exp(brentq(gap, lo, hi, xtol=1e-13, rtol=1e-13))
