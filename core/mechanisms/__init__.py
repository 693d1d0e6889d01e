"""Mechanisms that release one statistic per sample, with a common interface.

A *mechanism* takes a batch of samples -- a 2-d array, one sample per row, each row
sorted ascending, every value inside the public bounds ``[lower, upper]`` -- and releases
one privatised statistic per row under the budget ``(eps_sample, delta_sample)`` spent on
that sample.  The simulations of :mod:`core.gains` and :mod:`core.illustrations` accept any
additive :class:`Mechanism`; the release planner accepts any :class:`Mechanism`, so a new
mechanism is one new subclass here and touches nothing else.

Invariants every subclass keeps
-------------------------------
* ``statistic(samples)[r]`` depends on row ``r`` only; it is the value the release is
  centred on (the release is unbiased for it when :attr:`Mechanism.additive` holds).
* ``sensitivity(samples, eps, delta, lower, upper)`` returns, per row, the sensitivity the
  noise is calibrated to (a diagnostic shown on the pages).  It is never negative.
* For an additive mechanism the release of row ``r`` is
  ``clip(statistic[r] + noise_scale(sensitivity, eps)[r] * Z_r, lower, upper)`` with
  ``Z_r`` i.i.d. draws of :meth:`Mechanism.standard_noise`: every release lies in the
  public bounds (clamping is post-processing, so it keeps the guarantee).  The noise before
  clamping has variance :meth:`Mechanism.noise_variance`; the clamped error's exact
  conditional mean and square are :meth:`Mechanism.clamped_noise_moments`.  A mechanism
  without such closed forms returns ``None`` from them.
* ``eps_sample`` may be one number for every row or one per row; ``delta_sample`` is a
  single number in (0, 1) and is ignored by pure-DP mechanisms.
* :attr:`Mechanism.pure` says the guarantee is pure ``eps_sample``-DP (no δ).
* Every mechanism states two budgets as multiples of ``eps_sample``:
  :attr:`Mechanism.add_remove_factor` (``alpha``: it is ``alpha eps_sample``-DP when one
  record is added or removed) and :attr:`Mechanism.change_factor` (``gamma``: it is
  ``gamma eps_sample``-DP when one record is changed, the sample size fixed); ``None``
  means no guarantee for that relation.  These hold at every level; the accounting reads
  :meth:`Mechanism.budget_factors` (a :class:`BudgetFactors`), the budgets at the level
  ``q`` the mechanism releases, which a subclass may make smaller (the exponential
  quantile's ``alpha`` is ``max(q, 1 - q)``).  :attr:`Mechanism.relations` is derived from
  the class's factors:
  ``"replacement"`` when ``gamma <= 1`` and ``"deletion"`` when ``alpha <= 1``, i.e. the
  relations under which the stated ``eps_sample`` holds.  The amplification theorems for
  designs with a random sample size (Poisson, stratified with randomised rounding, cluster;
  Bun et al. Sections 2, 4 and 5) need the add/remove budget;
  :mod:`core.accounting.change_one` combines both for a changed record.

Sources: Hu, Drechsler & Kim, "Accuracy gains from privacy amplification through
sampling", Section 2.2 (Laplace mechanism with global sensitivity, Definition 6; smooth
sensitivity of the median, equation 4, with the ``(eps, delta)`` calibration
``Laplace(2 S / eps)`` of Nissim, Raskhodnikova & Smith 2007), generalised here to any
quantile by replacing the median's rank; the admissible heavy-tailed noise of Nissim,
Raskhodnikova & Smith (2007, Section 2) for a pure-ε smooth-sensitivity release; the
exponential mechanism (McSherry & Talwar 2007) for a quantile in the form of Smith (2011);
the analytic Gaussian mechanism of Balle & Wang (2018); and a noisy centred sum divided by
the expected sample size for designs whose sample size is random.  Quantile mechanisms take
``quantile`` (0.5, the lower median, by default) and release the order statistic of rank
``k = ceil(q n)`` (:func:`core.sensitivity.quantile_rank`):

==============================  =====================  ==========================  ====  ========
class (name)                    sensitivity ``S``      release                     pure  α / γ
==============================  =====================  ==========================  ====  ========
:class:`SmoothLaplaceQuantile`  smooth (eq. 4, rank    ``y_(k)``+Lap(``2S/eps``)    no    -- / 1
``"smooth_laplace"``            ``k``), beta =
                                ``eps/(2 ln(2/delta))``
:class:`SmoothPureQuantile`     smooth, beta =         ``y_(k) + (16 S/eps) Z``,   yes   -- / 1
``"smooth_pure"``               ``eps / 4``            ``h(z) ∝ 1/(1+z^4)``
:class:`ExponentialQuantile`    score: ``1``           interval ``i`` drawn with   yes   α_q / 1
``"exponential"``                                      ``w_i e^(-eps|i-qn|/2)``
:class:`GlobalLaplaceQuantile`  ``R = upper - lower``  ``y_(k)`` + Lap(``S/eps``)  yes   1 / 1
``"global_laplace"``
:class:`LaplaceMean`            ``R / n``              mean + Lap(``S/eps``)       yes   -- / 1
``"laplace"``
:class:`GaussianMean`           ``R / n``              mean + N(0, ``sigma^2``),   no    -- / 1
``"gaussian"``                                         Balle & Wang calibration
:class:`HorvitzThompsonMean`    ``(R/2) / (rate N)``   HT mean + Lap(``S/eps``)    yes   1 / 2
``"ht_mean"``
==============================  =====================  ==========================  ====  ========

Three more pure-DP quantiles (issue 23), each with its proof in its class docstring:

* :class:`PolyPlaceQuantile` (``"smooth_polyplace"``, α / γ = -- / 1): ``y_(k) + kappa S Z``
  with the smooth sensitivity ``S`` at ``beta = eps / 4`` and ``h(z) ∝ (1 + |z|)^-5``
  (Hladík & Tětek 2025); windowed like :class:`SmoothPureQuantile`.
* :class:`PiecewiseLaplaceQuantile` (``"piecewise_laplace"``, 1 / 1): the gap ``i`` drawn
  with weight ``w_i e^(-eps j_i / 2)`` (``j_i`` records from ``y_(k)``), then a truncated
  exponential inside it towards ``y_(k)`` (Durfee 2025); its gaps are the exponential
  mechanism's centred on ``k - 1/2``, so it is drawn from windows ring by ring like it.
* :class:`UnboundedQuantile` (``"unbounded"``, 1 / 1): the first threshold
  ``lower + beta^i - 1`` whose noisy count reaches the noisy ``q n`` (AboveThreshold;
  Durfee 2023); no upper bound used; needs the whole sample.

A mean that reads no size (issue 35): :class:`SumCountMean` (``"sum_count"``, α / γ =
1 / 2) releases ``clip(c + Ŝ / max(n̂, 1), L, U)`` from a noisy centred sum and a noisy
count, the budget split between them; :class:`HorvitzThompsonMean` divides by ``rate N``
and so holds only when ``N`` is public or fixed between neighbours
(:attr:`Mechanism.needs_public_size`).  :class:`SumCountLaw` is its exact law given a sample.

Sizes of neighbours (issue 35).  Every quantile mechanism reads the size ``n`` of the sample
it is given (its rank ``k = ceil(q n)``), never a population size: ``n`` is part of the
data, and each class docstring states why its claim holds when ``n`` differs by one between
added/removed neighbours (or claims nothing for them: ``add_remove_factor = None``).

Several quantiles of one sample at once (issue 23): :class:`JointExpQuantiles`
(``"joint_exp"``, α / γ = ``1 - d`` / 1, ``d`` the smallest gap between its levels, 0 and 1)
releases ``m`` levels jointly with one exponential mechanism over non-decreasing output
vectors (Gillenwater, Joseph & Kulesza 2021).  It returns ``m`` values per sample, so it is
not a :class:`Mechanism` and not in :data:`MECHANISMS`; it states the same budget
attributes, and its :meth:`JointExpQuantiles.budget_factors` those at its levels.

:func:`release` is the one-call public entry point (a mechanism by name, one released
value per row).

``α / γ``: :attr:`Mechanism.add_remove_factor` and :attr:`Mechanism.change_factor`, the
add/remove and change budgets as multiples of ``eps_sample`` (``--``: no guarantee;
``α_q = max(q, 1 - q)``, 1/2 for the median, at the level ``q`` released); the
relations under which ``eps_sample`` itself holds follow from them (replacement: ``γ <= 1``;
deletion: ``α <= 1``).  ``R = upper - lower``.  Laplace(0, b) noise has variance ``2 b^2``.

Windows (:attr:`Mechanism.windowed`, :mod:`core.windowed`): the smooth-sensitivity
quantiles and the global-Laplace quantile depend on a sample only through its order
statistics near rank ``k`` (the smooth sensitivity through the pairs that can still beat
``(upper - lower) e^(-beta d)``), so a Monte Carlo can draw just those.  The exponential
mechanism weighs every interval between order statistics (the far ones by tiny but non-zero
weights), so its release does depend on the whole sample; it is still drawn exactly from
windows, ring by ring, widening only when a draw cannot yet be decided; so is the
piecewise-Laplace quantile.  The means use every
value and need the whole sample.  The structure (an abstract base class whose
subclasses override a few methods, invariants stated in the module docstring) follows
google's ``dp_accounting`` package (``pld/privacy_loss_mechanism.py``, ``dp_event.py``).

The package holds one module per kind: :mod:`core.mechanisms.base` (the :class:`Release`
record, the :class:`Mechanism` base class and the checks every mechanism shares),
:mod:`core.mechanisms.clamping` (the closed-form law of a release clamped to the bounds),
:mod:`core.mechanisms.rows` (samples of unequal sizes released in one call, with the draws
of one release per sample),
:mod:`core.mechanisms.quantiles` (the smooth-sensitivity and global-Laplace quantiles),
:mod:`core.mechanisms.exponential` (the exponential mechanism and its exact law),
:mod:`core.mechanisms.means` (the fixed-size means and the Horvitz-Thompson mean),
:mod:`core.mechanisms.polyplace` (smooth sensitivity with polynomial-Laplace noise;
Hladík & Tětek 2025), :mod:`core.mechanisms.piecewise_laplace` (Durfee 2025),
:mod:`core.mechanisms.unbounded` (no public upper bound; Durfee 2023),
:mod:`core.mechanisms.joint_exp` (several quantiles at once; Gillenwater et al. 2021) and
:mod:`core.mechanisms.registry` (the name table, :func:`mechanism_by_name` and
:func:`release`).
"""

from __future__ import annotations

from ..mechanisms.base import (
    BudgetFactors,
    ConditionalLaw,
    Mechanism,
    Release,
    clamped_abs_cdf,
    relations_from_factors,
)
from ..mechanisms.base import FloatArray as FloatArray
from ..mechanisms.exponential import (
    ExponentialQuantile,
    exponential_median_distribution,
    exponential_median_error,
    exponential_quantile_distribution,
    exponential_quantile_error,
)
from ..mechanisms.exponential import _exponential_choose as _exponential_choose
from ..mechanisms.joint_exp import (
    JointExpQuantiles,
    QuantilesRelease,
    joint_exp_cell_log_probability,
)
from ..mechanisms.means import (
    GaussianMean,
    HorvitzThompsonMean,
    LaplaceMean,
    analytic_gaussian_sigma,
)
from ..mechanisms.piecewise_laplace import (
    PiecewiseLaplaceQuantile,
    piecewise_laplace_distribution,
    piecewise_laplace_error,
)
from ..mechanisms.polyplace import PolyPlaceQuantile, polyplace_scale_factor
from ..mechanisms.quantiles import (
    PURE_NOISE_GAMMA,
    GlobalLaplaceQuantile,
    SmoothLaplaceQuantile,
    SmoothPureQuantile,
)
from ..mechanisms.registry import MECHANISMS, mechanism_by_name, release
from ..mechanisms.sum_count import SumCountLaw, SumCountMean
from ..mechanisms.unbounded import UnboundedQuantile

__all__ = [
    "MECHANISMS",
    "PURE_NOISE_GAMMA",
    "BudgetFactors",
    "ConditionalLaw",
    "ExponentialQuantile",
    "GaussianMean",
    "GlobalLaplaceQuantile",
    "HorvitzThompsonMean",
    "JointExpQuantiles",
    "LaplaceMean",
    "Mechanism",
    "PiecewiseLaplaceQuantile",
    "PolyPlaceQuantile",
    "QuantilesRelease",
    "Release",
    "SmoothLaplaceQuantile",
    "SmoothPureQuantile",
    "SumCountLaw",
    "SumCountMean",
    "UnboundedQuantile",
    "analytic_gaussian_sigma",
    "clamped_abs_cdf",
    "exponential_median_distribution",
    "exponential_median_error",
    "exponential_quantile_distribution",
    "exponential_quantile_error",
    "joint_exp_cell_log_probability",
    "mechanism_by_name",
    "piecewise_laplace_distribution",
    "piecewise_laplace_error",
    "polyplace_scale_factor",
    "relations_from_factors",
    "release",
]
