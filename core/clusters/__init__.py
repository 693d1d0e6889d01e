"""Cluster sampling and other data-dependent designs: how much privacy amplification survives.

Bun, Drechsler, Gaboardi, McMillan & Sarathy, "Controlling privacy loss in sampling schemes:
an analysis of stratified and cluster sampling" (Bun et al. 2022, Sections 5 and 6).
Notation follows the paper:

* the population ``P = C_1 ⊔ … ⊔ C_k`` is split into ``k`` clusters (``clusters_total``);
* single-stage cluster sampling ``C_ℓ`` draws ``ℓ`` of the ``k`` clusters uniformly without
  replacement (``clusters_sampled``) and keeps every record of the drawn clusters;
* ``M`` is ``ε``-**deletion** differentially private on the sample (``eps_sample``);
  neighbouring populations differ by one record added to one cluster,
  ``C_i' = C_i ∪ {x}`` with ``n_i = |C_i|``;
* ``ε'`` is the privacy loss of the sampled mechanism ``M_{C_ℓ}`` on the population
  (``eps_target`` where it is an argument);
* ``n_min`` and ``n_max`` are the smallest and largest sizes among the *other* clusters
  ``j ≠ i``.

The two theorems of §5.1 share one expression. With ``q = ℓ/k`` and a "combined size"
``s`` (a number of records)::

    ε'(s) = ln( 1 + q (e^ε − 1) / (q + (1 − q) e^{−s ε}) )                         (*)

* Theorem 5.1 (lower bound): some populations with these sizes and some ε-deletion-DP ``M``
  give ``ε' ≥ (*)`` with ``s = n_i + n_min``;
* Theorem 5.2 (upper bound): every ε-deletion-DP ``M`` gives ``ε' ≤ (*)`` with
  ``s = n_i + n_max``.

``(*)`` grows with ``s`` from the simple-random-sampling value ``ln(1 + q (e^ε − 1))`` at
``s = 0`` (equation 3 of the paper, Theorem 2.2; Hu, Drechsler & Kim, Theorem 1) to ``ε`` as
``s → ∞``: large clusters erase the amplification. Equal cluster sizes make the two bounds
coincide (``n_min = n_max``), so ``(*)`` is then the exact worst case.

Also here: the simple-random-sampling comparison at the same expected fraction of records
(:func:`srs_eps`), two-stage designs with Poisson sampling inside the drawn clusters
(:func:`two_stage_eps_upper`), the hypothesis-testing bound of Theorem 5.3
(:func:`hypothesis_test_bound`), the inclusion-probability lower bound of Proposition 6.1 and
§6.1 for PPS sampling (:func:`inclusion_eps`, :func:`pps_eps_lower`), PPS cluster sampling
(§6.2, :func:`per_cluster_bounds`), systematic sampling as cluster sampling (§6.3,
:func:`systematic_eps_bounds`), per-cluster bounds for a population with a cluster column, and
the exact privacy loss of the lower-bound construction of Theorem 5.1 (:func:`witness_eps`).

Numerics
--------
No intermediate quantity overflows or cancels:

* ``(*)`` is rewritten as ``ln(1 + (e^ε − 1)/(1 + e^u))`` with the log-odds
  ``u = log(k − ℓ) − log ℓ − s ε``, so ``e^{sε}`` (``s ε`` can be 10⁸ and more) is never
  formed and ``e^u ≤ k`` cannot overflow. For ``ε ≤ 700`` it is evaluated as
  ``log1p(expm1(ε)/(1 + exp(u)))`` — a few ulps even when ε' is 10⁻³⁰⁰; beyond, where ``e^ε``
  would overflow, as ``softplus(log(e^ε − 1) − softplus(u))`` with
  ``softplus(x) = log(1 + e^x)`` (``numpy.logaddexp(0, x)``) and
  ``log(e^ε − 1) = ε + log1p(−e^{−ε})``. Agreement with a 60-digit evaluation of the
  theorems is tested to ~2·10⁻¹⁴ relative for ε from 10⁻¹² to 10³, k up to 10⁹.
* Binomial coefficients of huge cluster counts (:func:`witness_eps`) are summed as
  ``logsumexp`` of ``scipy.special.gammaln`` terms.

Results are clamped to the interval the mathematics guarantees (``0 ≤ ε' ≤ ε`` and
``lower ≤ upper``) so a last-bit rounding difference can never invert an inequality.

All public functions broadcast their numeric arguments with numpy rules and return a Python
``float`` when every argument is a scalar, an ``ndarray`` otherwise. Invalid arguments raise
``ValueError`` naming the argument, the allowed range and the bad value.

The package holds one module per design family: :mod:`core.clusters.single_stage` (Section 5:
Theorems 5.1 and 5.2, their inverses, and the shared numerical kernels),
:mod:`core.clusters.multi_stage` (Section 5.2: two-stage designs and Theorem 5.3),
:mod:`core.clusters.inclusion` (Section 6: inclusion probabilities, PPS and systematic
sampling), :mod:`core.clusters.sizes` (a population's own clusters) and
:mod:`core.clusters.witness` (the lower-bound construction of Theorem 5.1, exactly).
"""

from __future__ import annotations

from ..clusters.inclusion import (
    inclusion_eps,
    pps_eps_lower,
    pps_inclusion_probabilities,
    pps_max_inclusion,
    systematic_eps_bounds,
)
from ..clusters.multi_stage import hypothesis_test_bound, two_stage_eps_upper
from ..clusters.single_stage import (
    EpsBounds,
    cluster_eps,
    cluster_eps_bounds,
    combined_size_for_eps,
    eps_sample_bounds_for_target,
    eps_sample_for_target,
    records_fraction,
    srs_eps,
)
from ..clusters.sizes import ClusterSizes, cluster_sizes, per_cluster_bounds
from ..clusters.witness import witness_eps

__all__ = [
    "ClusterSizes",
    "EpsBounds",
    "cluster_eps",
    "cluster_eps_bounds",
    "cluster_sizes",
    "combined_size_for_eps",
    "eps_sample_bounds_for_target",
    "eps_sample_for_target",
    "hypothesis_test_bound",
    "inclusion_eps",
    "per_cluster_bounds",
    "pps_eps_lower",
    "pps_inclusion_probabilities",
    "pps_max_inclusion",
    "records_fraction",
    "srs_eps",
    "systematic_eps_bounds",
    "two_stage_eps_upper",
    "witness_eps",
]
