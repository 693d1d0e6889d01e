"""Counts, totals and proportions: the linear statistics, planned exactly under every design.

A linear statistic is a sum ``Σ y`` over the population (a count: ``y`` a 0/1 indicator; a
total: ``y`` a bounded value; a proportion: a count over ``N``).  Every design of the
planner has a design-unbiased estimator ``w Σ_S y`` whose variance is a closed form in a few
sums of ``y``, and the noise is added to the sample's sum and scaled by the same ``w``.  So
these statistics need no Monte Carlo at all.

Modules
-------
==================================  ================================================
:mod:`core.linear.statistic`         what is released: kind, selection, ``y``, sensitivities
:mod:`core.linear.sums`              the sums a closed form reads, for many cells at once
:mod:`core.linear.moments`           each design's estimator: weight and design variance
:mod:`core.linear.mechanisms`        the noise: Laplace, two-sided geometric (and registry)
:mod:`core.linear.discrete_gaussian` the discrete Gaussian: law, sampler, (ε, δ) and ρ
:mod:`core.linear.postprocess`       rounding and margins, each with its exact error
:mod:`core.linear.errors`            the 95 % bound: normal sampling error + exact noise law
:mod:`core.linear.post_errors`       a plan row's errors after rounding to whole numbers ≥ 0
:mod:`core.linear.plan`              every design × mechanism × rate, exactly
:mod:`core.linear.verdict`           why the census beats every sample, design by design
==================================  ================================================

Invariants
----------
* Every estimator is unbiased for ``Σ y`` under its design, and its variance equals the
  exact variance over all samples (tests enumerate them on small populations).
* ``eps_sample`` is the planner's own for the design and relation
  (:meth:`core.designs.protocol.PlannerDesign.accounting`), with the mechanism's two budgets
  calibrated to the relation planned.
"""
