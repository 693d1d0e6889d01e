"""What each column of the planner's table download (``release_plan.csv``) means.

The table itself is :func:`ui.planner.figures.full_table`: one row per evaluated design,
mechanism and sampling rate. Its columns are described once, here; the page offers the
descriptions as a second file, ``release_plan_columns.csv`` (:func:`columns_frame`), and the
README's table "Columns of release_plan.csv" is :func:`markdown_table` (a test keeps the two
equal).
"""

from __future__ import annotations

import pandas as pd

__all__ = ["PLAN_TABLE_COLUMNS", "columns_frame", "markdown_table"]

#: Every column of ``release_plan.csv`` in file order, with what it holds.
PLAN_TABLE_COLUMNS: dict[str, str] = {
    "design": "Sampling design, by its name in code (census, srs, poisson, "
    "stratified_proportional, cluster, poisson_cluster).",
    "design_label": "The sampling design in words, as the page names it.",
    "mechanism": "Privacy mechanism, by its name in code (core.mechanisms.MECHANISMS).",
    "mechanism_label": "The mechanism in words: the statistic it releases and how.",
    "rate": "Sampling rate n/N (for a Poisson design, each record's inclusion probability); "
    "1 for the census.",
    "n": "Expected sample size: records in the sample on average over the draws.",
    "clusters_sampled": "Clusters drawn (ℓ) by a cluster design; empty for other designs.",
    "eps_sample": "ε_sample: the budget the mechanism spends on the sample, the largest the "
    "design's theorem allows while the population keeps ε_target (for the Gaussian mean on a "
    "simple random sample, the larger of that and its exact privacy profile's, named in "
    "accounting).",
    "delta_sample": "δ_sample: the δ the mechanism may spend on the sample (0 for a pure-ε "
    "mechanism).",
    "rmse": "Root mean squared error of the release around the population's value of the "
    "statistic, in the data's units.",
    "rmse_se": "Monte Carlo standard error of rmse (0 where rmse comes from a closed formula).",
    "error_95": "95 % error bound: 95 % of releases lie within ± this of the population's "
    "value, in the data's units.",
    "error_95_se": "Monte Carlo standard error of error_95 (0 where it comes from a formula).",
    "error_95_low": "Lower end of the Monte Carlo interval of error_95 (about ±2 standard "
    "errors; an order-statistic interval, not always symmetric about error_95); error_95 "
    "itself where it comes from a formula.",
    "error_95_high": "Upper end of the Monte Carlo interval of error_95 (about ±2 standard "
    "errors); error_95 itself where it comes from a formula.",
    "error_95_method": "How error_95 was obtained: Monte Carlo, exact, or a normal "
    "approximation of the sampling error.",
    "rmse_post": "For a count, total or proportion released rounded to a whole number ≥ 0 "
    "(a proportion: its count rounded, then divided by N): the root mean squared error after "
    "rounding (see post_method); empty otherwise.",
    "error_95_post": "The 95 % error bound after that rounding (see post_method); empty otherwise.",
    "post_method": "How rmse_post and error_95_post are known: exact from the noise's law "
    "(no sampling error), or bounded by the error before rounding plus ½.",
    "sampling_part": "Part of the mean squared error due to sampling alone (the sample's "
    "statistic against the population's), in squared data units.",
    "noise_part": "Part of the mean squared error due to the privacy noise (the release against "
    "the sample's statistic), in squared data units.",
    "exact": "true when the row's errors come from a closed formula (Hu et al. eqs. 6–7 for the "
    "mean), false when simulated by Monte Carlo.",
    "refined": "true for a rate the planner added around the best candidate rate, false for a "
    "candidate rate.",
    "best_rate_of_design_mechanism": "true on the row with the smallest error (the measure the "
    "plans are ranked by) among the rows of the same design and mechanism: one row per design × "
    "mechanism.",
    "recommended": "true on exactly one row: the plan the page recommends, the best of the "
    "best_rate_of_design_mechanism rows when it beats the census by more than two Monte Carlo "
    "standard errors of the difference, otherwise the best census row (the simpler release).",
    "usable": "true when error_95 is within the share of the population's value that the page's "
    'control "Usable error (% of the value)" accepts (of the declared range when the value '
    "is 0); the page calls a plan above it too noisy to use.",
    "accounting": "The theorem or bound that gives eps_sample, in words.",
}


def columns_frame() -> pd.DataFrame:
    """The descriptions as a table with the columns ``column`` and ``meaning``, in file order
    (the page's download ``release_plan_columns.csv``)."""
    return pd.DataFrame(
        {"column": list(PLAN_TABLE_COLUMNS), "meaning": list(PLAN_TABLE_COLUMNS.values())}
    )


def markdown_table() -> str:
    """The descriptions as a Markdown table (the README's "Columns of release_plan.csv")."""
    lines = ["| column | meaning |", "| --- | --- |"]
    lines += [f"| `{name}` | {meaning} |" for name, meaning in PLAN_TABLE_COLUMNS.items()]
    return "\n".join(lines)
