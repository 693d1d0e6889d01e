"""The release planner: which design, rate and mechanism releases a statistic most accurately
for a promised ``eps_target``?

An agency holds a whole population and must promise ``(eps_target, delta_target)``. It may
privatise the whole file (the *census*) or a secret random sample drawn by a design; the
design's amplification theorem says how much larger a budget ``eps_sample`` the mechanism may
spend on the sample. The planner evaluates every design the population supports at a grid of
rates, refines the grid around each design's best rate, and ranks the designs by the error of
the released statistic about the population's own value.

Modules
-------
=================================  =====================================================
:mod:`core.planner.budgets`         which designs and mechanisms fit, and ``eps_sample``
:mod:`core.planner.engine`          :func:`plan`: the loop over design × mechanism × rate
:mod:`core.planner.setting`         a plan's checked setting; each point's budgets, named
:mod:`core.planner.profiles`        the Gaussian mean's budget from its exact profile
:mod:`core.planner.simulate`        Monte Carlo on whole samples (masks) or windows
:mod:`core.planner.exact`           the census and the means without Monte Carlo
:mod:`core.planner.errors`          RMSE, the 95 % bound, their split and standard errors
:mod:`core.planner.memory`          the memory budget and the chunks that keep it
:mod:`core.planner.accuracy_first`  the smallest ε_target that reaches an error bound
:mod:`core.planner.composition`     several statistics from one sample, planned together
:mod:`core.planner.joint`           several quantiles in one JointExp release, compared
:mod:`core.planner.usability`       a row usable or too noisy; heavy-tailed noise
:mod:`core.planner.claims`          a sample recommended only when it beats the census
:mod:`core.planner.ties`            errors the same to the search's tolerance; tied picks
:mod:`core.planner.warm`            the compiled kernels loaded once per process
=================================  =====================================================

The designs themselves (samplers, accounting, closed-form means) live in
:mod:`core.designs`; the mechanisms (noise law, budgets, windows) in :mod:`core.mechanisms`.
The names below are the planner's public face.

Invariants
----------
* :func:`eps_sample_for` and :func:`eps_target_for` are inverse to each other (to 1e-9
  relative) for every design, relation and mechanism.
* The census row is exact; the mean rows have exact RMSE.
* Several statistics released from one sample compose on the sample and are amplified once
  (:func:`budget_split`); several quantiles can instead be released at once by JointExp at
  the whole budget (:func:`joint_exp_errors`, compared by :func:`joint_against_separate`).
* A mechanism that divides by the population size (``needs_public_size``) is compared under
  added or removed records only when ``sizes_public`` declares N public
  (:func:`size_refusal`); otherwise the size-free mean takes its place.
* A promise stated as ρ-zCDP (``rho_target``) is planned at the largest pure ``eps_target``
  that keeps it (:mod:`core.accounting.zcdp`, named in every row's ``accounting``); the
  (ε, δ) mechanisms, which imply no zCDP bound, are left out (:func:`promise_refusal`).
* A sample is recommended over the census only when its gain exceeds twice the Monte Carlo
  standard error of the difference (:func:`beats_reference`); otherwise the census is
  (:attr:`PlanResult.recommended`).
* Memory beyond the population's own columns stays within the budget
  (:mod:`core.planner.memory`), whatever N.
"""

from ..planner.accuracy_first import AccuracyFirst, SearchProgress, smallest_eps_target
from ..planner.budgets import (
    DEFAULT_MEAN_MECHANISMS,
    DEFAULT_QUANTILE_MECHANISMS,
    DESIGN_LABELS,
    MEAN_MECHANISMS,
    NO_UPPER_MECHANISMS,
    QUANTILE_MECHANISMS,
    RELATIONS,
    STATISTICS,
    DesignStatus,
    accounting_for,
    default_mechanisms,
    default_rates,
    design_statuses,
    eps_sample_for,
    eps_target_for,
    mechanisms_for,
    offered_mechanisms,
    promise_refusal,
    promise_refusals,
    size_refusal,
    size_refusals,
    sizes_change,
    theorem_keywords,
)
from ..planner.claims import CLAIM_SES, beats_reference, recommended_row
from ..planner.composition import (
    BudgetSplit,
    SeveralProgress,
    at_rate,
    budget_split,
    several_statistics,
)
from ..planner.engine import OBJECTIVES, PlanProgress, PlanResult, plan
from ..planner.errors import LEVEL
from ..planner.joint import (
    JointErrors,
    JointVerdict,
    joint_against_separate,
    joint_exp_errors,
    separate_rmse,
)
from ..planner.memory import MemoryBudgetError
from ..planner.preparation import prepare_population
from ..planner.simulate import SAMPLERS

__all__ = [
    "CLAIM_SES",
    "DEFAULT_MEAN_MECHANISMS",
    "DEFAULT_QUANTILE_MECHANISMS",
    "DESIGN_LABELS",
    "LEVEL",
    "MEAN_MECHANISMS",
    "NO_UPPER_MECHANISMS",
    "OBJECTIVES",
    "QUANTILE_MECHANISMS",
    "RELATIONS",
    "SAMPLERS",
    "STATISTICS",
    "AccuracyFirst",
    "BudgetSplit",
    "DesignStatus",
    "JointErrors",
    "JointVerdict",
    "MemoryBudgetError",
    "PlanProgress",
    "PlanResult",
    "SearchProgress",
    "SeveralProgress",
    "accounting_for",
    "at_rate",
    "beats_reference",
    "budget_split",
    "default_mechanisms",
    "default_rates",
    "design_statuses",
    "eps_sample_for",
    "eps_target_for",
    "joint_against_separate",
    "joint_exp_errors",
    "mechanisms_for",
    "offered_mechanisms",
    "plan",
    "prepare_population",
    "promise_refusal",
    "promise_refusals",
    "recommended_row",
    "separate_rmse",
    "several_statistics",
    "size_refusal",
    "size_refusals",
    "sizes_change",
    "smallest_eps_target",
    "theorem_keywords",
]
