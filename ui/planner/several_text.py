"""Texts of the Release planner's Several statistics tab: the statistics released from one
sample, the composition verdict, the JointExp comparison and the progress bar.

Pure functions of numbers (no Streamlit); the words every tab shares are in
:mod:`ui.planner.text`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from core.planner import (
    SeveralProgress,
)
from ui.format import fmt
from ui.planner.figures import short_design
from ui.planner.text import (
    bound_words,
    design_label,
    lower_first,
    rate_words,
)

#: The statistics the composition tab can release together from one sample: on-screen
#: name → (statistic, quantile level) as core.planner.several_statistics takes them.
COMPOSITION_STATISTICS: dict[str, tuple[str, float]] = {
    "median": ("median", 0.5),
    "mean": ("mean", 0.5),
    "lower quartile": ("quantile", 0.25),
    "upper quartile": ("quantile", 0.75),
    "10th percentile": ("quantile", 0.1),
    "90th percentile": ("quantile", 0.9),
}


#: The composition tab's default choice.
COMPOSITION_DEFAULT = ("median", "mean")


#: The several-statistics tab on a population without U.
NO_UPPER_SEVERAL = (
    "The mean needs a public upper bound U, and this population has none: it is left out, "
    "and the quantiles are released by the unbounded quantile."
)


NO_UPPER_JOINT = (
    "JointExp chooses its outputs between the public bounds L and U, and this population "
    "has no U: it is not compared here."
)


#: The progress bar's words before the several statistics' plans have a design.
SEVERAL_STARTS = "Planning every statistic from one sample: the census first…"


def several_progress(progress: SeveralProgress) -> tuple[float, str]:
    """The fraction done and the words of the several-statistics progress bar."""
    return min(1.0, progress.done / progress.total), (
        f"Planned {progress.done} of {progress.total} designs for every statistic "
        f"(last: {short_design(progress.design)})…"
    )


def composition_quantiles(labels: Sequence[str]) -> list[tuple[float, str]]:
    """The chosen statistics that are quantiles, as ``(level, on-screen name)`` by level."""
    out = []
    for label in labels:
        statistic, level = COMPOSITION_STATISTICS.get(label, ("mean", 0.5))
        if statistic != "mean":
            out.append((float(level), str(label)))
    return sorted(out)


#: What the JointExp comparison is, under its table.
JOINT_EXPLANATION = (
    "JointExp (Gillenwater, Joseph & Kulesza, ICML 2021) releases all the chosen quantiles "
    "from the sample in one exponential mechanism over ordered lists of values, so it "
    "spends the quantiles' whole budget once instead of splitting it. A changed record "
    "costs it ε_sample, as it costs the exponential mechanism; an added or removed one "
    "costs it (1 − d) ε_sample, d the smallest gap between its levels, 0 and 1, at least "
    "the max(q, 1 − q) ε_sample of each separate release, and each design amplifies it "
    "accordingly. RMSE: root mean squared error of the release about the population's "
    "quantile."
)


def joint_verdict(
    verdict: Any, quantile_names: Sequence[str], eps_sample: float, *, within_error: bool = False
) -> str:
    """Which is more accurate for the chosen quantiles: JointExp or separate releases.

    ``verdict`` is a :class:`core.planner.JointVerdict` (largest and mean per-quantile
    RMSE of each); both summaries are named, and a split decision is said to be one.
    ``within_error``: every per-quantile difference is within two Monte Carlo standard
    errors, which the sentence then says.
    """
    text = _joint_sentence(verdict, quantile_names, eps_sample)
    if within_error:
        text += (
            " Every per-quantile difference is within two Monte Carlo standard errors: "
            "more repetitions T would tell them apart."
        )
    return text


def _joint_sentence(verdict: Any, quantile_names: Sequence[str], eps_sample: float) -> str:
    listed = ", ".join(quantile_names)
    joint_max, sep_max = bound_words(verdict.joint_max), bound_words(verdict.separate_max)
    joint_mean = bound_words(verdict.joint_mean)
    sep_mean = bound_words(verdict.separate_mean)
    numbers = (
        f"largest per-quantile RMSE {joint_max} for JointExp against {sep_max} for separate "
        f"releases; mean per-quantile RMSE {joint_mean} against {sep_mean}"
    )
    head = (
        f"For the {len(quantile_names)} quantiles ({listed}), one JointExp release at "
        f"ε_sample = {fmt(eps_sample, 'guarantee')}"
    )
    if verdict.by_max == verdict.by_mean == "joint":
        return f"{head} is **more accurate** than separate releases: {numbers}."
    if verdict.by_max == verdict.by_mean == "separate":
        return f"{head} is **less accurate** than separate releases with split budgets: {numbers}."
    if verdict.by_max == verdict.by_mean == "tie":
        return f"{head} is as accurate as separate releases: {numbers}."
    better = "JointExp" if verdict.by_max == "joint" else "separate releases"
    other = "JointExp" if verdict.by_mean == "joint" else "separate releases"
    return (
        f"{head} is a split decision: {better} wins on the largest per-quantile RMSE, "
        f"{other} on the mean ({numbers})."
    )


def joint_caption(errors: Any, separate_mechanisms: Sequence[str]) -> str:
    """How the JointExp numbers were computed (samples, draws) and what they are compared
    with (each quantile's most accurate separate mechanism)."""
    where = (
        "on the whole register"
        if errors.design == "census"
        else f"on {errors.samples:,} samples of the design at rate {rate_words(errors.rate)}"
    )
    return (
        f"JointExp: {errors.draws:,} releases each {where} (its exact sampler costs about "
        "m² n steps per sample, so the Monte Carlo is kept to about a second; ± is two "
        "standard errors). Separate releases: each quantile's most accurate mechanism at "
        "the same rate with its share of ε_sample (" + "; ".join(separate_mechanisms) + "); "
        "the table above may show another rate, each statistic's best near the chosen one."
    )


def composition_verdict(eps_target: float, correct: float, naive: float) -> str:
    """Which ε_target is right for several statistics from one sample, and why."""
    if math.isclose(correct, naive, rel_tol=1e-12, abs_tol=0.0):
        return (
            f"Without amplification (the census, or a single statistic) both ways give "
            f"ε_target = {fmt(correct, 'guarantee')}: the budgets simply add up. Pick a sampling "
            "design with two statistics to see the two totals part."
        )
    return (
        f"The statistics are computed on the same sample, so their budgets add up there and "
        f"the sum is amplified once: the population gets ε_target = {fmt(correct, 'guarantee')}, "
        f"the guarantee you asked for. Amplifying each share and adding the results gives "
        f"{fmt(naive, 'guarantee')}, which understates the loss by "
        f"{fmt(max(correct - naive, 0.0), 'guarantee')}: composition happens on the sample, "
        "before amplification, so only the first number is a valid promise."
    )


#: Composition of several statistics on one sample, amplified once.
COMPOSITION_FORMULAS = (
    r"\begin{aligned}\varepsilon_{\mathrm{target}} &= \mathrm{amp}(\varepsilon_1 + \dots + "
    r"\varepsilon_k)\\ &\ge \mathrm{amp}(\varepsilon_1) + \dots + \mathrm{amp}(\varepsilon_k)"
    r"\end{aligned}",
)


def no_rate_row(design: str, rate: float) -> str:
    """Why the several-statistics table is empty: the design gives no sample at the rate."""
    return (
        f"The {lower_first(design_label(design))} gives no sample at rate "
        f"{fmt(rate, 'plain')} here (a rate of 1 is the census itself, and a design may need "
        "a smaller rate or more records); choose a lower rate, or the census as the design."
    )
