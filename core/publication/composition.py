"""How a table's releases compose under one ``eps_target``: cells, statistics, one sample.

A publication table releases ``k`` statistics (median, mean, quantiles) for every cell of a
grouping of the population by one or two label columns.  This module states, and proves,
what each cell × statistic release may spend so that the whole table keeps
``(eps_target, delta_target)``.  Every claim is checked by enumeration on tiny populations
in ``tests/core/publication/test_composition.py``.

Setting
-------
The population ``D`` is split by its labels into disjoint cells ``D_1, …, D_C``.  Each cell
``c`` draws its own sample ``S_c ⊆ D_c`` by a design whose randomness is independent of the
other cells', and releases ``M_c(S_c)``.  The table is ``T(D) = (M_1(S_1), …, M_C(S_C))``.
Write ``ε_ar(c)`` for the loss of cell ``c``'s amplified release when one record is added to
or removed from ``D_c``, and ``ε_ch(c)`` when one record of ``D_c`` is changed.

Claim 1 (add/remove: parallel composition)
    Adding a record ``x`` to ``D`` adds it to exactly one cell, ``c(x)``; every other cell's
    records, and so the law of its output, are unchanged, and the cells are independent.
    The joint density factorises, so its ratio is the ratio of cell ``c(x)``'s factor alone:
    ``ε_table = max_c ε_ar(c)``.  Each cell may spend the whole ``eps_target``.

Claim 2 (change one record whose label may change)
    A changed record either stays in its cell (cost ``ε_ch(c)``) or moves from cell ``c`` to
    ``c'``: ``D_c`` loses a record and ``D_{c'}`` gains one.  The two factors change
    independently, so the ratio is the product of the two cells' ratios and the loss adds:
    ``ε_table = max(max_c ε_ch(c), max_{c ≠ c'} ε_ar(c) + ε_ar(c'))``.  A change inside a
    cell is a removal and an addition, so ``ε_ch(c) ≤ 2 ε_ar(c)`` whatever the mechanism
    (group privacy), and with equal cell budgets the move is the binding case:
    ``ε_table = 2 ε_ar``.  Hence each cell is planned for *added or removed* records at
    ``eps_target / 2``, which makes both cases at most ``eps_target``.  Planning each cell
    for a changed record at the full ``eps_target`` (as if the cells were fixed) is wrong:
    the enumeration test shows a move then costs more than ``eps_target``.
    For δ: a move adds the two cells' δ (``2 δ_c``), while group privacy prices a change
    inside a cell at ``(2 ε_c, (1 + e^{ε_c}) δ_c)`` (Dwork & Roth 2014, §2.3).  With
    ``ε_c = ε/2`` and ``δ_c = δ / (1 + e^{ε/2})`` both are at most ``δ`` (since
    ``1 + e^{ε/2} ≥ 2``).

Claim 3 (change one record, labels fixed)
    When the grouping labels are public and cannot change (the neighbour differs in a value
    only), a change stays in its cell and ``ε_table = max_c ε_ch(c)``: each cell is planned
    for a changed record at the full ``eps_target``.

Claim 4 (statistics on the same cell: sequential composition)
    Statistic ``s`` of a cell is released from a sample of its own (independent across
    statistics), planned at the target share ``w_s · eps_target_cell`` with ``Σ w_s = 1``.
    Independent releases on the same records compose by adding their losses (basic
    composition), so the cell keeps ``Σ_s w_s eps_target_cell = eps_target_cell``, and δ
    likewise.  (Releasing all statistics from one shared sample would let them compose on
    the sample and be amplified once, :func:`core.planner.budget_split`; the table does not
    rely on it.)

Claim 5 (one sample serves all cells)
    *Poisson sampling.*  Records are included by independent coins with probability
    ``rate``, so the records of ``D_c`` in the sample are included by independent coins
    too: the restriction is a Poisson sample of the cell at the same rate, independent of
    the other cells' restrictions.  Claims 1–4 hold with each cell's Poisson amplification
    (Bun et al. 2022, Theorem 2.2).
    *Fixed-size simple random sampling.*  A sample of fixed size ``n`` from ``N``, restricted
    to ``D_c``, has a hypergeometric size that depends on ``N_c`` and ``N``; given that size
    it is an SRS of the cell, but the size varies, so it is not the fixed-size SRS of the
    cell whose theorem (Hu et al. 2023, Theorem 1) the planner uses.  Drawing a fixed-size
    SRS *inside* each cell (cells as strata) instead needs ``N_c`` fixed and public; a
    record that may move between cells, or be added or removed, changes ``N_c`` and with it
    ``n_c``, which that theorem does not cover.  So a fixed-size design is refused for a
    table planned for added or removed records (claims 1 and 2), and allowed only in the
    setting of claim 3, as a separate SRS of fixed size per cell.

Claim 6 (sizes)
    A cell planned for added or removed records (claims 1 and 2) has a size ``N_c`` that
    differs by one between neighbours.  A mechanism that divides by ``N_c`` (the
    Horvitz–Thompson mean, ``c + (Σ (x − c) + Lap) / (r N_c)``) then releases Laplace laws of
    different scales on the two neighbours, whose density ratio is unbounded: claims 1 and 2
    do not hold for it.  Either the cell sizes are declared public (an invariant: they are
    published, and the neighbours considered are those with the published sizes), or the
    cell's mean is released without its size (:class:`core.mechanisms.SumCountMean`, a noisy
    sum over a noisy count, whose add/remove budget holds whatever the sizes).
    :func:`sizes_statement` says which in words; the planner refuses the first kind unless
    the sizes are public (:func:`core.planner.budgets.size_refusal`).  With fixed labels
    (claim 3) a changed record leaves every ``N_c`` as it is, and nothing needs declaring.

Claim 7 (a frequency table: one histogram from one sample)
    A frequency table (counts, or totals of a value bounded in ``[y_lo, y_hi]``, by cell)
    is released as *one* vector from *one* sample ``S``:
    ``M(S) = (Σ_{i ∈ S ∩ D_c} y_i + Z_c)_c`` with independent noise ``Z_c`` of one law,
    calibrated to ``Δ_ar = max(|y_lo|, |y_hi|)`` (1 for counts) at ``eps_sample``.  Its L1
    sensitivity on the sample is

    * an added or removed record: ``Δ_ar``, in the one cell it belongs to.  The density
      ratio of the vector is the ratio of that coordinate alone (parallel composition,
      McSherry 2009), so the table is ``eps_sample``-DP: every cell spends the whole budget;
    * a changed record whose labels may change: it leaves cell ``c`` and enters ``c'``,
      two coordinates move by at most ``Δ_ar`` each, L1 ``2 Δ_ar`` (exactly 2 for counts),
      so the loss is ``2 eps_sample`` (the ratio is the product of the two coordinates'
      ratios); a change inside a cell moves one coordinate by ``y_hi − y_lo ≤ 2 Δ_ar``;
    * a changed record whose labels are fixed: it stays in its cell and moves one
      coordinate by at most ``y_hi − y_lo`` (``0`` for counts: every count is the same for
      both neighbours, an invariant of the relation).

    So the histogram is a mechanism with the budgets ``α = 1`` (added or removed) and
    ``γ = Δ_ch / Δ_ar`` (changed) per unit of ``eps_sample``, and the design's accounting
    (:meth:`core.designs.protocol.PlannerDesign.accounting`) amplifies it once for the whole
    table.  Unlike claim 5, the sample is drawn once from the whole population and the
    histogram is one mechanism run on it, so a fixed-size design's theorem for a changed
    record applies to it as to any mechanism.  For counts with fixed labels under a change,
    the promise constrains nothing, and :func:`histogram_budget` plans the table for an
    added or removed record instead (a stronger promise, said in words).
    A noise with a δ (the discrete Gaussian, ``(ε_s, δ_s)`` for one cell's ``Δ_ar``): a move
    composes two cells, ``(2 ε_s, 2 δ_s)``, and a change inside a cell shifts it by at most
    ``2 Δ_ar``, ``(2 ε_s, (1 + e^{ε_s}) δ_s)`` by group privacy (Dwork & Roth 2014, §2.3);
    so under a change each cell's noise gets ``δ_s = δ / (1 + e^{ε_s})`` of the δ the
    design allows, which covers both (``1 + e^{ε_s} ≥ 2``).

Claim 8 (a frequency table under a ρ-zCDP promise: the discrete Gaussian on the census)
    The census releases ``M(D) = (Σ_{i ∈ D_c} y_i + Z_c)_c`` with independent
    ``Z_c ~ N_Z(0, σ²)`` (Canonne, Kamath & Steinke 2020), the ``y_i`` whole numbers in
    ``[y_lo, y_hi]``.  For two neighbours the cell sums differ by an integer vector ``s``,
    and ``M(D) = s + M(D')`` in law.  The Rényi divergence of a product of independent
    laws is the sum of the coordinates' divergences, and for one coordinate
    ``α(x − μ)² + (1 − α)(x − ν)² = (x − m)² + α(1 − α)(μ − ν)²`` with
    ``m = αμ + (1 − α)ν`` gives
    ``D_α(N_Z(μ, σ²) ‖ N_Z(ν, σ²)) = α(μ − ν)²/(2σ²) + log(Σ_x e^{−(x−m)²/(2σ²)} / Z(σ))/(α − 1)
    ≤ α(μ − ν)²/(2σ²)``, since the shifted theta sum is at most ``Z(σ)`` (CKS20,
    Theorem 4 and its proof).  So ``D_α(M(D) ‖ M(D')) ≤ α ‖s‖₂²/(2σ²)`` and the table is
    ``ρ``-zCDP (Bun & Steinke 2016, Definition 1.1) with ``ρ = Δ₂²/(2σ²)``, where ``Δ₂``
    is the largest ``‖s‖₂`` over the neighbours of the relation:

    * an added or removed record: one cell moves by ``y ∈ [y_lo, y_hi]``,
      ``Δ₂ = max(|y_lo|, |y_hi|)`` (1 for counts);
    * a changed record whose labels may change: a move from ``c`` to ``c'`` gives
      ``s = (−y_a, +y_b)`` on two cells, ``‖s‖₂² = y_a² + y_b² ≤ 2 max(|y_lo|, |y_hi|)²``;
      a change inside a cell moves one cell by ``y_b − y_a``, at most ``y_hi − y_lo``; so
      ``Δ₂ = max(√2 max(|y_lo|, |y_hi|), y_hi − y_lo)`` (``√2`` for counts, which do not
      move inside a cell).  Both are attained, so pricing a move at ``Δ₂ = Δ_ar`` (as if
      one cell moved) breaks the promise by a factor of up to 2;
    * a changed record whose labels are fixed: ``Δ₂ = y_hi − y_lo``; for counts nothing
      moves, and as in claim 7 the table is planned for an added or removed record.

    Hence ``σ = Δ₂/√(2ρ)``, the σ that is ``ρ/Δ₂²``-zCDP at a unit shift
    (:func:`histogram_l2_sensitivity`).  No amplification theorem for zCDP under sampling
    is used here (those of Bun et al. 2022 and Hu et al. 2023 are stated for ε-DP), so only
    the census is planned under ρ (:func:`zcdp_design_refusal`).
Claim 9 (a frequency table with its row margins)
    With row margins (:mod:`core.publication.margins`) each row's total over the columns is
    released too, from the same sample and with its own noise: the cells at
    ``(1 − s) eps_sample``, the margins at ``s eps_sample`` (δ likewise).  Each vector is a
    histogram over disjoint sets (claim 7) and their noises are independent, so their
    losses add: an added or removed record costs ``ε_c + ε_m = eps_sample``; a move between
    rows changes two cells and two margins, ``2 eps_sample``; a move within a row changes
    two cells and no margin, ``2 ε_c``; a change inside a cell moves one cell and its margin
    by ``y_hi − y_lo`` each.  The pair thus has claim 7's budgets ``α = 1`` and ``γ`` per
    unit of ``eps_sample``, and the design amplifies it once.  Projecting the cells onto the
    released margins reads the releases only (post-processing).

The plan's choice of design, rate and split is made on the register itself, as the release
planner's is (:mod:`core.planner`); the promise covers the releases, the plan is public.

References
----------
Bun, M., Drechsler, J., Gaboardi, M., McMillan, A. & Sarathy, J. (2022). Controlling privacy
loss in sampling schemes. FORC 2022, arXiv:2007.12674 (Theorem 2.2, Poisson sampling).
Hu, J., Drechsler, J. & Kim, H. J. (2023). Accuracy gains from privacy amplification
through sampling for differential privacy. JSSAM, arXiv:2103.09705 (Theorem 1, SRS).
McSherry, F. (2009). Privacy integrated queries. SIGMOD (parallel composition).
Dwork, C. & Roth, A. (2014). The algorithmic foundations of differential privacy (§2.3,
group privacy; §3.5, composition).
Bun, M. & Steinke, T. (2016). Concentrated differential privacy: simplifications,
extensions, and lower bounds. TCC 2016, arXiv:1605.02065 (Definition 1.1, zCDP).
Canonne, C., Kamath, G. & Steinke, T. (2020). The discrete Gaussian for differential
privacy. NeurIPS 2020, arXiv:2004.00010 (Theorem 4).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .._validation import check_choice, check_delta_open, check_whole
from ..designs.protocol import RELATIONS
from ..designs.registry import design_named
from ..planner.budgets import positive, sizes_change

__all__ = [
    "CellBudget",
    "HistogramBudget",
    "cell_budget",
    "design_refusal",
    "histogram_budget",
    "histogram_l2_sensitivity",
    "optimal_shares",
    "sizes_statement",
    "split_shares",
    "table_eps",
    "zcdp_design_refusal",
    "zcdp_histogram_reason",
]


@dataclass(frozen=True)
class CellBudget:
    """What one cell may spend so that the table keeps its promise (:func:`cell_budget`).

    Attributes
    ----------
    eps_target, delta_target : float
        The guarantee each cell's releases (all statistics together) must keep on the cell.
    relation : str
        The neighbouring relation each cell is planned for (``"deletion"`` or
        ``"replacement"``).
    reason : str
        The composition in words.
    """

    eps_target: float
    delta_target: float
    relation: str
    reason: str


def cell_budget(
    eps_target: float,
    delta_target: float,
    relation: str = "replacement",
    *,
    labels_fixed: bool = False,
) -> CellBudget:
    """The per-cell guarantee that gives the table ``(eps_target, delta_target)``.

    Parallel composition across disjoint cells (module docstring, claims 1–3):

    * ``relation="deletion"``: each cell keeps ``(ε, δ)`` for added or removed records;
    * ``relation="replacement"`` with labels that may change: a moved record touches two
      cells, so each cell keeps ``(ε/2, δ / (1 + e^{ε/2}))`` for added or removed records
      (the δ also covers a change inside a cell by group privacy);
    * ``relation="replacement"`` with ``labels_fixed=True``: each cell keeps ``(ε, δ)`` for a
      changed record.

    Parameters
    ----------
    eps_target : float
        The promise for the whole table, > 0.
    delta_target : float
        In (0, 1).
    relation : {"replacement", "deletion"}
        The table's neighbouring relation.
    labels_fixed : bool
        The grouping labels are public and a neighbour never changes them.

    Returns
    -------
    CellBudget
    """
    t = positive("eps_target", eps_target)
    d = check_delta_open("delta_target", delta_target)
    check_choice("relation", relation, RELATIONS)
    if relation == "deletion":
        return CellBudget(
            t,
            d,
            "deletion",
            "Cells are disjoint: an added or removed record touches one cell, so the cells "
            "compose in parallel and each keeps the whole ε_target.",
        )
    if labels_fixed:
        return CellBudget(
            t,
            d,
            "replacement",
            "The grouping labels are fixed: a changed record stays in its cell, so the cells "
            "compose in parallel and each keeps the whole ε_target for a changed record.",
        )
    return CellBudget(
        t / 2.0,
        d / (1.0 + math.exp(t / 2.0)),
        "deletion",
        "A changed record may move to another cell: one cell loses it and another gains "
        "it, so each cell keeps ε_target / 2 (and δ_target / (1 + e^(ε_target/2))) for an "
        "added or removed record, and a move costs at most the sum, ε_target.",
    )


def sizes_statement(sizes_public: bool, cell_relation: str) -> str:
    """Whether the table's guarantee takes the cell sizes ``N_c`` as public, in words.

    Claim 6 of the module docstring.  Shown wherever the guarantee is shown (the page, the
    method report, ``summary.json`` and ``registry.json``).

    Parameters
    ----------
    sizes_public : bool
        The population size ``N`` and the cell sizes ``N_c`` are declared public.
    cell_relation : {"replacement", "deletion"}
        The relation each cell is planned for (:attr:`CellBudget.relation`).
    """
    if not isinstance(sizes_public, bool):
        raise ValueError(f"sizes_public must be True or False; got {sizes_public!r}")
    if not sizes_change(cell_relation, sizes_public):
        if sizes_public:
            return (
                "The population size N and the cell sizes N_c are declared public: they are "
                "published with the table as invariants, and the guarantee covers neighbours "
                "with the same sizes. A mean may be divided by its cell's size."
            )
        return (
            "The grouping labels are fixed and a neighbour changes a value only, so the cell "
            "sizes N_c are the same for both neighbours; a mean may be divided by its cell's "
            "size."
        )
    return (
        "The cell sizes N_c are not public: an added, removed or moved record changes them. "
        "No release divides by a size; each cell's mean is a noisy sum over a noisy count, "
        "and the cell sizes in the plan are for the agency only."
    )


def table_eps(
    eps_add_remove: Sequence[float],
    eps_change: Sequence[float] | None = None,
    relation: str = "replacement",
    *,
    labels_fixed: bool = False,
) -> float:
    """The table's ε from each cell's losses (module docstring, claims 1–3).

    ``deletion``: ``max_c ε_ar(c)``; ``replacement`` with fixed labels: ``max_c ε_ch(c)``;
    ``replacement`` with movable labels:
    ``max(max_c ε_ch(c), max_{c ≠ c'} ε_ar(c) + ε_ar(c'))``.  Without ``eps_change`` a
    cell's change costs ``2 ε_ar(c)`` (group privacy).

    Parameters
    ----------
    eps_add_remove : sequence of float
        ``ε_ar(c)`` per cell (≥ 0).
    eps_change : sequence of float, optional
        ``ε_ch(c)`` per cell.
    relation : {"replacement", "deletion"}
    labels_fixed : bool

    Returns
    -------
    float
    """
    check_choice("relation", relation, RELATIONS)
    ar = np.asarray(eps_add_remove, dtype=np.float64)
    if ar.ndim != 1 or ar.size == 0 or not np.all(ar >= 0):
        raise ValueError(f"eps_add_remove must list one number ≥ 0 per cell; got {ar!r}")
    ch = 2.0 * ar if eps_change is None else np.asarray(eps_change, dtype=np.float64)
    if ch.shape != ar.shape:
        raise ValueError("eps_change must have one number per cell, as eps_add_remove")
    if relation == "deletion":
        return float(ar.max())
    if labels_fixed:
        return float(ch.max())
    top = np.sort(ar)[::-1]
    move = float(top[0] + top[1]) if top.size > 1 else 0.0
    return max(float(ch.max()), move)


def split_shares(k: int, shares: Sequence[float] | None = None) -> tuple[float, ...]:
    """The budget shares of ``k`` statistics (claim 4): equal by default, else normalised.

    Parameters
    ----------
    k : int
        Number of statistics, ≥ 1.
    shares : sequence of float, optional
        Positive weights, one per statistic.

    Returns
    -------
    tuple of float
        Shares summing to 1.
    """
    k = check_whole("k", k, 1, 10_000)
    if shares is None:
        return (1.0 / k,) * k
    if len(shares) != k:
        raise ValueError(f"shares must have {k} weights, one per statistic; got {len(shares)}")
    w = np.asarray([positive("share", s) for s in shares], dtype=np.float64)
    return tuple(float(x) for x in w / w.sum())


def _need(log_eps: np.ndarray, log_err: np.ndarray, level: float) -> float:
    """The smallest ``log ε`` whose interpolated ``log error`` is ≤ ``level`` (inf if none)."""
    if level >= log_err[0]:
        return float(log_eps[0])
    below = np.nonzero(log_err <= level)[0]
    if below.size == 0:
        return math.inf
    i = int(below[0])
    x0, x1, y0, y1 = log_eps[i - 1], log_eps[i], log_err[i - 1], log_err[i]
    return float(x0 + (y0 - level) / (y0 - y1) * (x1 - x0))


def optimal_shares(
    curves: Sequence[tuple[Sequence[float], Sequence[float]]],
    eps_total: float,
    weights: Sequence[float] | None = None,
) -> tuple[float, ...]:
    """Shares of ``eps_total`` that minimise the largest (weighted) error across statistics.

    Minimises ``max_s a_s · e_s(w_s · eps_total)`` over ``w`` in the simplex, where ``e_s`` is
    statistic ``s``'s error (the largest relative 95 % error over the cells) known on a grid
    of budgets and interpolated linearly in ``log ε`` and ``log e``.  Errors fall as the
    budget grows, so at the optimum all statistics reach one level ``λ``: bisection on
    ``λ`` finds the smallest with ``Σ_s e_s^{-1}(λ) ≤ eps_total``; the budgets
    ``e_s^{-1}(λ)`` are then scaled up to spend ``eps_total`` (errors only fall).  Each
    curve is made non-increasing first (running minimum), which Monte Carlo noise can
    break.  The weights ``a_s`` (all 1 by default) say how much each statistic's error
    counts: ``a_s · e_s`` is again non-increasing in the budget, so the same level argument
    holds for the weighted curves ``log a_s + log e_s``.

    Parameters
    ----------
    curves : sequence of (eps_grid, errors)
        Per statistic: ascending positive budgets and the positive error at each.
    eps_total : float
        The budget the statistics share.
    weights : sequence of float, optional
        One positive finite weight ``a_s`` per statistic (only their ratios matter).

    Returns
    -------
    tuple of float
        One share per statistic, summing to 1.  Equal shares if no level is reachable
        within the grids.
    """
    total = positive("eps_total", eps_total)
    a = [1.0] * len(curves) if weights is None else [float(w) for w in weights]
    if len(a) != len(curves) or not all(math.isfinite(w) and w > 0 for w in a):
        raise ValueError(
            f"weights must be one positive finite number per statistic; got {weights!r}"
        )
    logs = []
    for (grid, err), weight in zip(curves, a, strict=True):
        g = np.asarray(grid, dtype=np.float64)
        e = np.asarray(err, dtype=np.float64)
        if g.ndim != 1 or g.size < 2 or g.shape != e.shape:
            raise ValueError("each curve needs ≥ 2 budgets and one error per budget")
        if not (np.all(g > 0) and np.all(np.diff(g) > 0)):
            raise ValueError("each curve's budgets must be positive and ascending")
        if not np.all(np.isfinite(e) & (e > 0)):
            raise ValueError("each curve's errors must be finite and > 0")
        logs.append((np.log(g), np.log(np.minimum.accumulate(e)) + math.log(weight)))
    k = len(logs)
    if k == 0:
        raise ValueError("curves must hold at least one statistic")
    if k == 1:
        return (1.0,)

    def cost(level: float) -> float:
        return sum(math.exp(_need(x, y, level)) for x, y in logs)

    lo = min(float(y[-1]) for _, y in logs)
    hi = max(float(y[0]) for _, y in logs)
    if cost(hi) > total:
        return split_shares(k)
    for _ in range(100):
        mid = 0.5 * (lo + hi)
        if cost(mid) <= total:
            hi = mid
        else:
            lo = mid
    need = np.array([math.exp(_need(x, y, hi)) for x, y in logs])
    return tuple(float(v) for v in need / need.sum())


def design_refusal(design: str, cell_relation: str) -> str:
    """Why ``design`` cannot serve a table's cells planned under ``cell_relation`` ("" if it can).

    Claim 5 of the module docstring: a fixed-size design (other than the census) restricted
    to a cell is not a fixed-size sample of the cell, and a fixed-size sample drawn inside
    each cell needs the cell sizes fixed, which adding, removing or moving a record breaks.

    Parameters
    ----------
    design : str
        A name of :data:`core.designs.registry.DESIGNS`.
    cell_relation : {"replacement", "deletion"}
        The relation each cell is planned for (:attr:`CellBudget.relation`).

    Returns
    -------
    str
    """
    d = design_named(design)
    check_choice("cell_relation", cell_relation, RELATIONS)
    if d.fixed_size and not d.reference and cell_relation == "deletion":
        return (
            f"{d.label}: a sample of fixed size from the whole population has, in each cell, "
            "a random (hypergeometric) size that depends on the cell's size, so it is not a "
            "sample of fixed size of the cell; and drawing a fixed-size sample inside each "
            "cell needs the cell sizes fixed, which an added, removed or moved record "
            "changes. Its theorem covers neither; Poisson sampling restricted to a cell is "
            "a Poisson sample of the cell and serves the table."
        )
    return ""


@dataclass(frozen=True)
class HistogramBudget:
    """How a frequency table released as one histogram spends its budget (claim 7).

    Attributes
    ----------
    relation : str
        The relation the table is planned for (``"deletion"`` for counts with fixed labels
        under a change, whose counts are invariants; else the table's relation).
    sensitivity : float
        ``Δ_ar``: each cell's noise is calibrated to it (``max(|y_lo|, |y_hi|)``).
    change_sensitivity : float
        ``Δ_ch``: the L1 sensitivity of the vector for a changed record.
    add_remove, change : float
        The budgets per unit of ``eps_sample``: ``1`` and ``Δ_ch / Δ_ar``.
    reason : str
        The composition in words.
    """

    relation: str
    sensitivity: float
    change_sensitivity: float
    add_remove: float
    change: float
    reason: str


def histogram_budget(
    kind: str,
    relation: str,
    *,
    labels_fixed: bool = False,
    y_lower: float = 0.0,
    y_upper: float = 1.0,
) -> HistogramBudget:
    """The sensitivities and budgets of a frequency table released as one histogram.

    Claim 7 of the module docstring: ``Δ_ar = max(|y_lo|, |y_hi|)``;
    ``Δ_ch = 2 Δ_ar`` when a changed record may move between cells, ``y_hi − y_lo``
    when the labels are fixed; budgets ``α = 1``, ``γ = Δ_ch / Δ_ar``.

    Parameters
    ----------
    kind : {"count", "total"}
        Counts of records per cell (``y = 1``) or totals of a bounded value.
    relation : {"replacement", "deletion"}
        The table's neighbouring relation.
    labels_fixed : bool
        The cells' labels are public and a neighbour never changes them.
    y_lower, y_upper : float
        Public bounds of ``y`` (``0`` and ``1`` for counts), finite, ``y_lower ≤ y_upper``,
        not both 0.

    Returns
    -------
    HistogramBudget
    """
    check_choice("kind", kind, ("count", "total"))
    check_choice("relation", relation, RELATIONS)
    if not isinstance(labels_fixed, bool):
        raise ValueError(f"labels_fixed must be True or False; got {labels_fixed!r}")
    lo, hi = float(y_lower), float(y_upper)
    if kind == "count":
        lo, hi = 0.0, 1.0
    if not (math.isfinite(lo) and math.isfinite(hi) and lo <= hi) or max(abs(lo), abs(hi)) == 0:
        raise ValueError(
            "a total by cell needs finite public bounds lower ≤ upper, not both 0; "
            f"got [{y_lower!r}, {y_upper!r}]"
        )
    delta = max(abs(lo), abs(hi))
    what = "count" if kind == "count" else "total"
    if relation == "deletion":
        return HistogramBudget(
            "deletion",
            delta,
            2.0 * delta,
            1.0,
            2.0,
            f"Cells are disjoint: an added or removed record changes one cell's {what} by at "
            f"most {delta:g}, so the table is one histogram whose cells compose in parallel: "
            "each cell keeps the whole budget, and the sample is amplified once.",
        )
    if not labels_fixed:
        return HistogramBudget(
            "replacement",
            delta,
            2.0 * delta,
            1.0,
            2.0,
            "A changed record may move to another cell: one cell loses it and another gains "
            f"it, so two {what}s change (L1 sensitivity {2.0 * delta:g}) and a change costs "
            "twice the budget of an added or removed record; the design's accounting for a "
            "changed record prices that once for the whole table.",
        )
    if kind == "count":
        return HistogramBudget(
            "deletion",
            delta,
            0.0,
            1.0,
            0.0,
            "The labels are fixed, so a changed record stays in its cell and every count is "
            "the same for both neighbours: the counts are invariants of that relation, which "
            "protects nothing in them. The table is planned for an added or removed record "
            "instead (each cell at the whole budget), a stronger promise that protects "
            "whether a record is in the register.",
        )
    return HistogramBudget(
        "replacement",
        delta,
        hi - lo,
        1.0,
        (hi - lo) / delta,
        "The labels are fixed, so a changed record stays in its cell and changes one "
        f"total by at most {hi - lo:g}: the cells compose in parallel, each at the whole "
        "budget for a changed record.",
    )


def histogram_l2_sensitivity(
    kind: str,
    relation: str,
    *,
    labels_fixed: bool = False,
    y_lower: float = 0.0,
    y_upper: float = 1.0,
) -> float:
    """``Δ₂``: the largest L2 distance between the cell sums of two neighbours (claim 8).

    ``max(|y_lo|, |y_hi|)`` for an added or removed record (and for counts with fixed
    labels under a change, planned as in claim 7); ``max(√2 max(|y_lo|, |y_hi|),
    y_hi − y_lo)`` for a changed record that may move between cells (``√2`` for counts);
    ``y_hi − y_lo`` for a changed total with fixed labels.  Arguments and checks as
    :func:`histogram_budget`.

    Returns
    -------
    float
        ``Δ₂``; the discrete Gaussian of ``σ = Δ₂/√(2ρ)`` makes the table ``ρ``-zCDP.
    """
    b = histogram_budget(
        kind, relation, labels_fixed=labels_fixed, y_lower=y_lower, y_upper=y_upper
    )
    lo, hi = (0.0, 1.0) if kind == "count" else (float(y_lower), float(y_upper))
    if b.relation == "deletion":
        return b.sensitivity
    if labels_fixed:
        return hi - lo
    inside = 0.0 if kind == "count" else hi - lo
    return max(math.sqrt(2.0) * b.sensitivity, inside)


def zcdp_design_refusal(design: str) -> str:
    """Why ``design`` is not planned under a ρ-zCDP promise ("" for the census).

    Claim 8: the amplification theorems the designs use are stated for ε-DP and
    (ε, δ)-DP; none bounds the zCDP of a sampled release, so a ρ promise is kept by the
    discrete Gaussian on the census only.
    """
    d = design_named(design)
    if d.reference:
        return ""
    return (
        f"{d.label}: under a ρ-zCDP promise the table gets discrete Gaussian noise, whose "
        "guarantee is stated in zCDP; the amplification by sampling this planner uses "
        "(Bun et al. 2022; Hu, Drechsler & Kim 2023) is proven for ε-DP, not for zCDP, so "
        "no sample's saving can be counted and only the census is planned under ρ."
    )


def zcdp_histogram_reason(kind: str, planned_relation: str, labels_fixed: bool, l2: float) -> str:
    """Claim 8 in words: how the cells compose under ρ-zCDP and what ``Δ₂`` is.

    ``planned_relation`` is :attr:`HistogramBudget.relation` (``"deletion"`` also for counts
    with fixed labels under a change), ``l2`` from :func:`histogram_l2_sensitivity`.
    """
    what = "count" if kind == "count" else "total"
    if planned_relation == "deletion":
        case = f"an added or removed record changes one cell's {what}"
    elif labels_fixed:
        case = f"a changed record stays in its cell and changes its {what}"
    else:
        case = (
            "a changed record may move: one cell loses it and another gains it, so two "
            f"{what}s change (√2 times one record's largest effect)"
            + ("" if kind == "count" else ", or it changes one cell's total")
        )
    return (
        "Under ρ-zCDP the cells' independent discrete Gaussian noises compose by adding "
        "their Rényi divergences, so what counts is the L2 distance between the two "
        f"neighbours' tables: {case}, at most Δ₂ = {l2:.6g}. Noise of σ = Δ₂/√(2ρ) in every "
        "cell makes the whole table ρ-zCDP."
    )
