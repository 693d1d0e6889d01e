"""Accuracy gains (or losses) from privatising a random sample instead of the population.

Hu, Drechsler & Kim, "Accuracy gains from privacy amplification through sampling",
Section 4.  A statistic ``g`` is released with the Laplace mechanism either on the whole
population of ``N`` records at the target budget ``eps_target``, or on a simple random
sample without replacement (SRSWOR) of ``n = rate * N`` records at the larger amplified
budget ``eps_sample`` (Theorem 1, :func:`core.amplification.eps_sample`).  The sample
release pays a sampling variance but may need less noise; this module quantifies the
trade-off.

* Section 4.1 -- the no-gain condition (:func:`no_gain_threshold`).
* Section 4.2 -- the mean with global sensitivity: equations (6) and (7)
  (:func:`mean_variance_population`, :func:`mean_variance_sample`,
  :func:`mean_gain_table`, :func:`best_rate_mean`, :func:`simulate_mean_release`).
* Section 4.3 / 4.4 -- the median with smooth sensitivity, by simulation
  (:func:`median_gain_experiment`, :func:`best_rate`, :func:`compare_with_population`),
  generalised to any quantile, any mechanism of :mod:`core.mechanisms` and three error
  measures, and several mechanisms compared on the same samples
  (:func:`mechanism_comparison`).

Naming follows the project: ``eps_target`` is the guarantee for the population,
``eps_sample`` the budget spent on the sample, ``rate = n / N``.

The package holds one module per step: :mod:`core.gains.mean` (Sections 4.1 and 4.2, closed
forms), :mod:`core.gains.draws` (sorted SRSWOR samples and the released statistics of
every rate, whole samples or windows), :mod:`core.gains.measures` (the error measures of one
block of draws), :mod:`core.gains.median` (:func:`median_gain_experiment`),
:mod:`core.gains.best_rate` (:func:`best_rate`, :func:`compare_with_population`) and
:mod:`core.gains.comparison` (:func:`mechanism_comparison`).
"""

from __future__ import annotations

from ..amplification import sample_size
from ..gains.best_rate import BestRate, PopulationComparison, best_rate, compare_with_population
from ..gains.comparison import (
    MechanismComparison,
    mechanism_comparison,
    mechanisms_with_measure,
    tied_at_quantile,
)
from ..gains.draws import DELTA_SAMPLE_CAP, draw_sorted_samples
from ..gains.draws import WINDOW_FROM_N as WINDOW_FROM_N
from ..gains.mean import (
    best_rate_mean,
    mean_gain_table,
    mean_variance_population,
    mean_variance_sample,
    no_gain_threshold,
    simulate_mean_release,
)
from ..gains.measures import ERROR_LEVEL, MEASURES
from ..gains.measures import _median_block as _median_block
from ..gains.median import (
    NO_FINITE_MEAN,
    NO_UPPER_MECHANISMS,
    QUANTILE_MECHANISMS,
    MedianExperiment,
    check_upper_needed,
    measure_exists,
    median_gain_experiment,
)
from ..gains.median import Estimator as Estimator
from ..gains.median import ProgressCallback as ProgressCallback
from ..gains.median import Sampler as Sampler

__all__ = [
    "DELTA_SAMPLE_CAP",
    "ERROR_LEVEL",
    "MEASURES",
    "NO_FINITE_MEAN",
    "NO_UPPER_MECHANISMS",
    "QUANTILE_MECHANISMS",
    "BestRate",
    "MechanismComparison",
    "MedianExperiment",
    "PopulationComparison",
    "best_rate",
    "best_rate_mean",
    "check_upper_needed",
    "compare_with_population",
    "draw_sorted_samples",
    "mean_gain_table",
    "mean_variance_population",
    "mean_variance_sample",
    "measure_exists",
    "mechanism_comparison",
    "mechanisms_with_measure",
    "median_gain_experiment",
    "no_gain_threshold",
    "sample_size",
    "simulate_mean_release",
    "tied_at_quantile",
]
