"""Row margins of a frequency table, and its cells projected to add up to them.

With ``margins="rows"`` a frequency table (:func:`core.publication.frequency.plan_frequency`)
releases, besides its cells, each row's total over the table's columns (the *margin* of
the row: every combination of the row label columns), and moves each row's released cells
so that they add up to its released margin.

The release
-----------
One sample ``S`` is drawn.  Cell ``c`` of row ``r`` is released as
``y_c = w (Σ_{i∈S∩c} y_i + Z_c)`` and the row's margin as ``M_r = w (Σ_{i∈S∩r} y_i + Z'_r)``,
with the design's weight ``w``, and independent noises of one law: ``Z_c`` calibrated to
``(ε_c, δ_c) = ((1 − s) ε_sample, (1 − s) δ_sample)`` and ``Z'_r`` to
``(ε_m, δ_m) = (s ε_sample, s δ_sample)``, ``s`` the margins' share, both for one record's
contribution ``Δ_ar``.

Claim 9 (the margins' budget; :mod:`core.publication.composition`).  The pair
(cells, margins) is a mechanism on the sample with the same budgets per unit of
``ε_sample`` as the histogram of claim 7, so the design's accounting prices it once and the
table with its margins keeps ``(ε_target, δ_target)``.
*Proof.*  Each of the two vectors is a histogram over disjoint sets (cells; rows), so each
alone is claim 7's histogram at its own budget.  They use independent noises on the same
sample, so their losses add (sequential composition, Dwork & Roth 2014, Theorem 3.16):

* an added or removed record changes one cell by at most ``Δ_ar`` and its row's margin by
  at most ``Δ_ar``: ``ε_c + ε_m = ε_sample`` (budget ``α = 1``);
* a changed record whose labels may change: a move *between rows* changes two cells and two
  margins, ``2ε_c + 2ε_m = 2 ε_sample``; a move *within a row* (another column) changes two
  cells and no margin, ``2ε_c ≤ 2 ε_sample``; a change of value inside a cell changes one
  cell and one margin by at most ``y_hi − y_lo ≤ 2Δ_ar``: at most ``2 ε_sample``
  (budget ``γ = 2``, as claim 7);
* labels fixed (totals): one cell and its margin move by at most ``y_hi − y_lo``:
  ``(y_hi − y_lo)/Δ_ar · ε_sample`` (claim 7's ``γ``); counts with fixed labels are planned
  for an added or removed record, as in claim 7.

For δ (the discrete Gaussian): the two vectors add their δ, ``δ_c + δ_m = δ_sample``, in
every case of claim 7 (a move composes two coordinates of each vector, a change inside a
cell is priced by group privacy in each), so each vector gets its share of claim 7's
``δ_sample``.  The joint mechanism is thus ``(ε_sample, δ_sample)`` with claim 7's budgets,
and the design's amplification applies to it as to any mechanism run on the sample.  ∎

The split is made on ``ε_sample``, the budget spent on the sample, not on ``ε_target``:
composing on the sample and amplifying once is what the proof covers (two amplified
releases of one shared sample are not independent mechanisms of the population).  For the
census ``ε_sample = ε_target``.

The projection (post-processing)
--------------------------------
The released cells of a row are moved to add up to its released margin by generalised least
squares with weights the cells' noise variances (:func:`core.linear.postprocess.
project_to_margin`): ``x_c = y_c + g_c (M_r − Σ_{c'∈r} y_{c'})``, ``g_c = v_c / Σ_{c'} v_{c'}``.
It reads the released numbers only, so it keeps the guarantee (:mod:`core.linear.postprocess`).
Every cell has the same noise law, so ``g_c = 1/K`` with ``K`` the table's columns.

Its exact error.  Under every design the margin's estimator uses the same sample and the
same weight as its cells, and the row is the disjoint union of its cells, so
``M_r − Σ_c y_c = w (Z'_r − Σ_c Z_c)``: noise only.  Hence
``x_c − θ_c = E_c + w [Z_c + g_c (Z'_r − Σ_{c'} Z_{c'})]`` with ``E_c`` the cell's sampling
error (mean 0, variance ``V_c``, independent of the noise), and the mean squared error is
``V_c + w² · projected_variance(v, v_M)`` (:func:`core.linear.postprocess.projected_variance`
with the cells' noise variances ``v`` and the margin's ``v_M``), i.e.
``V_c + w² (v (1 − 1/K) + v_M / K²)`` for equal noises.  The projected cells of a row add up
to the released margin, whose error is ``E_r + w Z'_r`` (``E_r = Σ_c E_c``, variance ``V_r``
from the design on the rows' sums).

What the margins cost.  At an equal total budget the cells alone (``ε_c = ε_sample``) have
noise variance ``v₀``; with the split, ``v = v₀/(1 − s)²`` and ``v_M = v₀/s²``, and the
projected cell's noise variance is ``v₀ f(s)``, ``f(s) = (1 − 1/K)/(1 − s)² + 1/(K² s²)``.
Its minimum over ``s`` is ``(a + b)³`` with ``a = (1 − 1/K)^{1/3}``, ``b = K^{−2/3}``; since
``a ≥ a³ = 1 − 1/K`` and ``K^{−2/3} ≥ 1/K``, ``a + b ≥ 1``: **the projected cells are never
more accurate than the cells released alone at the whole budget** (equal only for ``K = 1``).
What the margins buy is each row's total, released with variance ``v₀/s²`` instead of the
``K v₀`` of a sum of ``K`` cells (better when ``s > 1/√K``), and cells that add up to it.
Against the same split without projection the projection helps the cells when
``v_M < K v``, i.e. ``s > 1/(1 + √K)``.

The default share.  Counting every released number (the ``K`` projected cells of a row and
its margin), the row's total noise variance is ``v₀ [(K − 1)/(1 − s)² + (1 + 1/K)/s²]``
(the projected cells add ``K v (1 − 1/K) + v_M/K``), least at
``s/(1 − s) = ((1 + 1/K)/(K − 1))^{1/3}`` (:func:`balanced_share`): 0.53 for ``K = 2``,
0.40 for 5, 0.32 for 12, 0.28 for 20, 0.22 for 50.  Measured on that criterion, a share of
0.3 is within 0.5 % of the best total for ``K`` from 12 to 20 (the 12 size classes of the
establishments' tables), 16 % for ``K = 5`` and 10 % for ``K = 50``; 0.2 would lose 29 %
at ``K = 12``.  :data:`DEFAULT_MARGIN_SHARE` is 0.3, and the page shows the balanced share
of the table at hand.

The 95 % bound after projection.  The projected noise is no longer of the mechanism's law.
Three bounds are computed and the smallest kept, named in ``error_95_method`` (the
first two take the sampling error as normal, as the table's other bounds do; all three are
proven for the noise):

* Chernoff: for independent terms the log moment generating function adds, so
  ``log E e^{t(E + wN)} ≤ σ²t²/2 + L_c((1 − g) w t) + (K − 1) L_c(g w t) + L_m(g w t)``
  with ``L`` the noise's (bound of its) log-MGF
  (:meth:`core.linear.mechanisms.LinearMechanism.log_mgf`) and the sampling error taken as
  normal (the rule of the table's other bounds, :mod:`core.publication.cell_errors`; exact
  for the census, where ``σ = 0``); then ``P(|X| > x) ≤ 2 e^{−tx} E e^{tX}`` for every
  ``t > 0``, so ``x(t) = (log(2/(1 − level)) + log E e^{tX}) / t`` is a bound at each ``t``
  of a grid, and so is their minimum;
* union: ``P(|E + wN| > x₁ + x₂) ≤ P(|E| > x₁) + P(|wN| > x₂)``, the tail ``1 − level``
  split between the two (a few splits tried): ``x₁`` the normal quantile of the sampling
  error, ``x₂`` the Chernoff bound of the noise alone (tighter when the sampling error
  dominates, where Chernoff's ``√(2 log(2/α)) σ`` exceeds the normal quantile);
* Chebyshev: ``x = √(MSE / (1 − level))``, with the exact MSE and no assumption on the law.

References
----------
Dwork, C. & Roth, A. (2014). The algorithmic foundations of differential privacy
(Proposition 2.1, post-processing; Theorem 3.16, composition).
Canonne, C., Kamath, G. & Steinke, T. (2020). The discrete Gaussian for differential privacy
(its subgaussian moment generating function).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import special

from ..linear.moments import LinearMoments
from ..linear.postprocess import project_to_margin, projected_variance
from ..linear.sums import GroupSums
from ..publication.cell_errors import cell_error_bounds

__all__ = [
    "DEFAULT_MARGIN_SHARE",
    "MARGIN_OPTIONS",
    "METHOD_CHEBYSHEV",
    "METHOD_CHERNOFF",
    "METHOD_UNION",
    "MarginErrors",
    "balanced_share",
    "check_margins",
    "margin_errors",
    "project_release",
    "projected_bounds",
    "projected_noise_variance",
    "row_sums",
]

#: The margins a frequency table can release.
MARGIN_OPTIONS = ("none", "rows")
#: The margins' share of ``ε_sample`` by default (module docstring, "The default share").
DEFAULT_MARGIN_SHARE = 0.3
#: ``error_95_method`` of a projected cell bounded by Chernoff.
METHOD_CHERNOFF = (
    "after projection: Chernoff bound on the projected noise (sampling error as normal, "
    "exact variance)"
)
#: ... by the union of the normal sampling error's quantile and the noise's Chernoff bound.
METHOD_UNION = (
    "after projection: normal quantile of the sampling error + Chernoff bound on the "
    "projected noise (union bound)"
)
#: The noise's shares of the tail tried by the union bound.
_UNION_TAILS = (0.02, 0.05, 0.1, 0.2, 0.4)
#: ... by Chebyshev.
METHOD_CHEBYSHEV = "after projection: Chebyshev on the exact mean squared error"
#: Points per decade of the Chernoff grid of ``t``, and cells bounded at once.
_PER_DECADE, _CHUNK = 100, 2000

FloatArray = NDArray[np.float64]


def check_margins(
    margins: object, margin_share: object, *, round_release: bool = False, n_columns: int = 2
) -> tuple[str, float]:
    """The margins option and its share, or ValueError in plain words."""
    if margins not in MARGIN_OPTIONS:
        raise ValueError(
            f"margins must be one of {', '.join(MARGIN_OPTIONS)} (rows: each row's total over "
            f"the columns is released and the cells add up to it); got {margins!r}"
        )
    ok = isinstance(margin_share, (int, float)) and not isinstance(margin_share, bool)
    share = float(margin_share) if ok else math.nan  # type: ignore[arg-type]
    if not (math.isfinite(share) and 0.0 < share < 1.0):
        raise ValueError(
            "the margins' share of ε is a number strictly between 0 and 1 (0.2: a fifth of "
            f"the budget for the margins, the rest for the cells); got {margin_share!r}"
        )
    if margins == "rows" and round_release:
        raise ValueError(
            "rounding after the projection breaks the sums: the rounded cells no longer add "
            "up to their margin; choose one, rounding or margins"
        )
    if margins == "rows" and n_columns < 2:
        raise ValueError(
            "a table without a column has one cell per row, which is its own margin; choose "
            "a column to release row margins"
        )
    return str(margins), share


def balanced_share(n_columns: int) -> float:
    """The share minimising a row's total noise variance, cells and margin together:
    ``s/(1 − s) = ((1 + 1/K)/(K − 1))^{1/3}`` (module docstring; ``K ≥ 2``)."""
    k = int(n_columns)
    if k < 2:
        raise ValueError("row margins need at least two columns")
    ratio = ((1.0 + 1.0 / k) / (k - 1.0)) ** (1.0 / 3.0)
    return ratio / (1.0 + ratio)


def row_sums(sums: GroupSums, n_columns: int) -> GroupSums:
    """The rows' sufficient sums from the cells' (cells in row-major order).

    Every field adds over a row's cells: the cells are disjoint, so a record's ``y`` for its
    row is its ``y`` for its one cell, and ``y_row² = Σ_c y_c²`` as well.
    """
    k = int(n_columns)
    if k < 1 or sums.V % k:
        raise ValueError("the cells' sums must hold a whole number of rows")

    def add(a: FloatArray | None) -> FloatArray | None:
        if a is None:
            return None
        arr = np.asarray(a, dtype=np.float64)
        return arr.reshape(arr.shape[0] // k, k, *arr.shape[1:]).sum(axis=1)

    total, square = add(sums.total), add(sums.square)
    assert total is not None and square is not None
    return GroupSums(
        sums.N,
        total,
        square,
        sums.strata_sizes,
        add(sums.strata_total),
        add(sums.strata_square),
        sums.cluster_sizes,
        add(sums.cluster_total),
    )


def projected_noise_variance(
    cell_noise_variance: float, margin_noise_variance: float, n_columns: int
) -> float:
    """Variance of a projected cell's noise (before the weight ``w``): the GLS projection of
    ``K`` equal cell noises onto the margin (module docstring)."""
    v = np.full(int(n_columns), float(cell_noise_variance))
    got = projected_variance(v, float(margin_noise_variance), weights=v)
    return float(got[0])


def project_release(
    cells: ArrayLike, margins: ArrayLike, n_columns: int, cell_noise_variance: ArrayLike = 1.0
) -> FloatArray:
    """Released cells (row-major, ``rows × n_columns``) moved to add up to the released row
    margins, GLS weights the cells' noise variances (equal weights for one law)."""
    y = np.asarray(cells, dtype=np.float64)
    k = int(n_columns)
    if y.ndim != 1 or k < 1 or y.size % k:
        raise ValueError("cells must be one vector of rows × columns")
    w = np.broadcast_to(np.asarray(cell_noise_variance, dtype=np.float64), y.shape)
    got = project_to_margin(y.reshape(-1, k), margins, w.reshape(-1, k))
    return np.asarray(got.ravel(), dtype=np.float64)


def _chernoff(
    sigma: FloatArray,
    mechanism: Any,
    cell_parameter: float,
    margin_parameter: float,
    weight: float,
    n_columns: int,
    level: float,
    span: tuple[float, float],
) -> FloatArray:
    """``min_t (log(2/(1 − level)) + σ²t²/2 + L(t)) / t`` over a grid of ``t``, per σ
    (:data:`_PER_DECADE` points per decade over ``span``)."""
    g = 1.0 / n_columns
    lo, hi = span
    t = np.geomspace(lo, hi, max(2, math.ceil(_PER_DECADE * math.log10(hi / lo))))
    with np.errstate(over="ignore", invalid="ignore"):
        log_mgf = (
            mechanism.log_mgf(cell_parameter, (1.0 - g) * weight * t)
            + (n_columns - 1) * mechanism.log_mgf(cell_parameter, g * weight * t)
            + mechanism.log_mgf(margin_parameter, g * weight * t)
        )
    head = math.log(2.0 / (1.0 - level)) + log_mgf
    out = np.empty_like(sigma)
    for i in range(0, sigma.size, _CHUNK):
        s = sigma[i : i + _CHUNK, None]
        with np.errstate(over="ignore", invalid="ignore"):
            x = (head + 0.5 * s * s * t * t) / t
        out[i : i + _CHUNK] = np.min(np.where(np.isfinite(x), x, np.inf), axis=1)
    return out


def projected_bounds(
    sampling_variance: ArrayLike,
    mechanism: Any,
    cell_parameter: float,
    margin_parameter: float,
    weight: float,
    n_columns: int,
    level: float = 0.95,
) -> tuple[FloatArray, list[str]]:
    """Each projected cell's ``level`` bound of its error and how it is known.

    The smaller of the Chernoff and Chebyshev bounds (module docstring); Chebyshev alone for
    a mechanism without :meth:`~core.linear.mechanisms.LinearMechanism.log_mgf`.
    """
    v = np.maximum(np.asarray(sampling_variance, dtype=np.float64), 0.0)
    noise = projected_noise_variance(
        mechanism.variance(cell_parameter), mechanism.variance(margin_parameter), n_columns
    )
    mse = v + weight * weight * noise
    cheb = np.sqrt(mse / (1.0 - level))
    chern = np.full_like(cheb, np.inf)
    union = np.full_like(cheb, np.inf)
    if noise > 0.0 and mse.size:
        sd, back = np.unique(np.sqrt(v), return_inverse=True)
        # the best t lies between 1/(the largest error's sd) and 1/(the noise's sd), give or
        # take the factor the grid's ends leave
        span = (0.01 / math.sqrt(float(mse.max())), 10.0 / (weight * math.sqrt(noise)))
        args = (mechanism, cell_parameter, margin_parameter, weight, n_columns)
        try:
            chern = _chernoff(sd, *args, level, span)[back.ravel()]
            alone = np.zeros(1)
            for tail in _UNION_TAILS:
                x2 = float(_chernoff(alone, *args, 1.0 - tail * (1.0 - level), span)[0])
                x1 = sd * float(special.ndtri(1.0 - 0.5 * (1.0 - tail) * (1.0 - level)))
                union = np.minimum(union, (x1 + x2)[back.ravel()])
        except ValueError:  # no bound of the noise's moment generating function
            pass
    best = np.minimum(np.minimum(chern, union), cheb)
    methods = [
        METHOD_CHEBYSHEV if c <= min(a, u) else METHOD_CHERNOFF if a <= u else METHOD_UNION
        for a, u, c in zip(chern, union, cheb, strict=True)
    ]
    return best, methods


@dataclass(frozen=True, eq=False)
class MarginErrors:
    """The errors of one design and rate's table with row margins (:func:`margin_errors`).

    Attributes
    ----------
    cell_parameter, margin_parameter : float
        The noises' parameters at ``(1 − s) ε_sample`` and ``s ε_sample``.
    cell_eps, margin_eps : float
        Those budgets.
    cell_variance : ndarray
        Each projected cell's mean squared error.
    cell_bound : ndarray
        Its 95 % bound (:func:`projected_bounds`), with ``cell_methods``.
    margin_variance : ndarray
        Each released margin's mean squared error.
    margin_sampling_variance : ndarray
        Its design variance.
    weight : float
        The estimator's weight ``w``.
    """

    cell_parameter: float
    margin_parameter: float
    cell_eps: float
    margin_eps: float
    cell_variance: FloatArray
    cell_bound: FloatArray
    cell_methods: list[str]
    margin_variance: FloatArray
    margin_sampling_variance: FloatArray
    weight: float

    def margin_bounds(self, mechanism: Any, level: float = 0.95) -> tuple[FloatArray, list[str]]:
        """Each released margin's ``level`` bound (its own noise law,
        :func:`core.publication.cell_errors.cell_error_bounds`) and how it is known."""
        return cell_error_bounds(
            self.margin_sampling_variance, mechanism, self.margin_parameter, self.weight, level
        )


def margin_errors(
    mechanism: Any,
    eps_sample: float,
    delta_sample: float | None,
    sensitivity: float,
    share: float,
    n_columns: int,
    cells: LinearMoments,
    rows: LinearMoments,
    level: float = 0.95,
) -> MarginErrors:
    """The cells' and margins' errors after projection for one design and rate.

    Parameters
    ----------
    mechanism : LinearMechanism
    eps_sample, delta_sample
        What the design's accounting allows the pair (cells, margins) on the sample
        (claim 9); ``delta_sample`` None for a mechanism without δ.
    sensitivity : float
        ``Δ_ar``.
    share : float
        The margins' share ``s``.
    n_columns : int
        ``K``, cells per row.
    cells, rows : LinearMoments
        The design's moments of the cells' and of the rows' estimators (same weight).
    """
    w = float(cells.weight)
    if not math.isclose(w, float(rows.weight), rel_tol=1e-12):
        raise ValueError("the rows' and the cells' estimators must share their weight")
    eps_c, eps_m = (1.0 - share) * eps_sample, share * eps_sample
    d_c = None if delta_sample is None else (1.0 - share) * delta_sample
    d_m = None if delta_sample is None else share * delta_sample
    p_c = float(mechanism.parameter(eps_c, d_c, sensitivity))
    p_m = float(mechanism.parameter(eps_m, d_m, sensitivity))
    v_cells = np.asarray(cells.variance, dtype=np.float64)
    noise = projected_noise_variance(mechanism.variance(p_c), mechanism.variance(p_m), n_columns)
    bound, methods = projected_bounds(v_cells, mechanism, p_c, p_m, w, n_columns, level)
    v_rows = np.asarray(rows.variance, dtype=np.float64)
    return MarginErrors(
        cell_parameter=p_c,
        margin_parameter=p_m,
        cell_eps=eps_c,
        margin_eps=eps_m,
        cell_variance=np.maximum(v_cells, 0.0) + w * w * noise,
        cell_bound=bound,
        cell_methods=methods,
        margin_variance=np.maximum(v_rows, 0.0) + w * w * float(mechanism.variance(p_m)),
        margin_sampling_variance=v_rows,
        weight=w,
    )
