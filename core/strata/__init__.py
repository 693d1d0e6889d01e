"""Stratified sampling: Neyman against proportional allocation, for accuracy and for privacy.

Everything here follows Bun, Drechsler, Gaboardi, McMillan & Sarathy, "Controlling privacy
loss in sampling schemes: an analysis of stratified and cluster sampling" (Bun et al. 2022):

* Allocations (section 7). A population is split into k strata of sizes ``N_i``; an
  allocation says how many records ``m_i`` to draw, without replacement, from each.
  :func:`neyman_allocation` (section 7.2) draws ``m_i ∝ N_i σ_i`` and is the allocation that
  minimises the variance of the weighted (stratified) mean; :func:`proportional_allocation`
  (sections 4.3 and 7.3) draws the same fraction ``r`` of every stratum, rounded either to
  the nearest integer or at random (the randomised rounding of section 4.3).
* Accuracy: :func:`stratified_mean_variance` (the textbook variance of the weighted mean
  with finite-population correction), :func:`randomized_proportional_variance`,
  :func:`srs_mean_variance`, and simulations by :func:`stratified_sample` and
  :func:`simulate_weighted_means`.
* Privacy: :func:`proportional_eps_bound` (Theorems 4.3 and 7.2) and its inverse
  :func:`proportional_eps_sample_for_target`,
  :func:`random_size_eps_bounds` (Theorem 3.1), the noisy-count attack of section 4.1
  (:func:`noisy_count_loss`) and the neighbouring-population comparison of section 7.2 and
  Appendix E.1 (:func:`top_code_neighbour`, :func:`compare_neighbours`).

Names: ``eps_sample`` is the budget of the mechanism run on the sample (the paper's ε),
``eps_target`` the guarantee the population gets (the paper's ε′), ``rate`` the sampling
fraction r = m/N.

Numerics: ``log1p``/``expm1`` for small budgets (results exact at ε = 1e-12) and a
log-domain form for large ones (finite at ε = 1000). Invalid arguments raise
``ValueError`` with a message that can be shown to a user as is.

The package holds one module per concern: :mod:`core.strata.checks` (argument checks shared
by the others), :mod:`core.strata.summary` (the strata of a population),
:mod:`core.strata.allocation` (Neyman and proportional allocations),
:mod:`core.strata.accuracy` (variances, stratified samples and their simulation),
:mod:`core.strata.privacy` (Theorems 4.3, 7.2 and 3.1) and :mod:`core.strata.neighbours`
(data-dependent allocations, the noisy-count attack and neighbouring populations).
"""

from __future__ import annotations

from ..strata.accuracy import (
    randomized_proportional_variance,
    simulate_weighted_means,
    srs_mean_variance,
    stratified_mean_variance,
    stratified_sample,
)
from ..strata.allocation import (
    PAPER_NEYMAN_E1,
    neyman_allocation,
    neyman_shares,
    proportional_allocation,
)
from ..strata.checks import IntArray as IntArray
from ..strata.checks import Rounding as Rounding
from ..strata.neighbours import (
    NeighbourComparison,
    RoundingExample,
    allocation_count_loss,
    compare_neighbours,
    noisy_count_loss,
    rounding_example,
    top_code_neighbour,
)
from ..strata.privacy import (
    RandomSizeBounds,
    proportional_eps_approx,
    proportional_eps_bound,
    proportional_eps_sample_for_target,
    random_size_eps_bounds,
    truncated_gaussian_pmf,
)
from ..strata.summary import StratumSummary, stratum_summary

__all__ = [
    "PAPER_NEYMAN_E1",
    "NeighbourComparison",
    "RandomSizeBounds",
    "RoundingExample",
    "StratumSummary",
    "allocation_count_loss",
    "compare_neighbours",
    "neyman_allocation",
    "neyman_shares",
    "noisy_count_loss",
    "proportional_allocation",
    "proportional_eps_approx",
    "proportional_eps_bound",
    "proportional_eps_sample_for_target",
    "random_size_eps_bounds",
    "randomized_proportional_variance",
    "rounding_example",
    "simulate_weighted_means",
    "srs_mean_variance",
    "stratified_mean_variance",
    "stratified_sample",
    "stratum_summary",
    "top_code_neighbour",
    "truncated_gaussian_pmf",
]
