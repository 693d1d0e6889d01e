"""Words of the Release planner for counts, totals and proportions (the linear statistics).

Pure functions of numbers (no Streamlit): the labels of the selection controls, the
messages for a selection the page cannot plan, the verdict "privatise the whole register,
and here is why" and the notes of the tabs that plan only medians, quantiles and means.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from core.linear.mechanisms import LINEAR_MECHANISMS
from core.linear.verdict import DesignVerdict, LinearVerdict
from core.planner import PlanResult
from ui.format import fmt
from ui.planner.compare_text import no_rows_note
from ui.planner.text import design_label, lower_first

#: The linear statistics the statistic radio offers, with their on-screen names.
LINEAR_LABELS = {"count": "count", "total": "total", "proportion": "proportion"}

#: How the records counted (or summed) are selected; the radio carries the label.
SELECTION_LABELS = {
    "category": "a category",
    "range": "a value range",
    "all": "every record",
}
SELECTION_HELP = (
    "Which records the statistic is about: those carrying one label of a label column "
    "(a category, a stratum or a cluster), those whose value lies in a range [a, b] of the "
    "public bounds, or every record (a count of every record is the population size, a "
    "total is the sum of all values)."
)
COLUMN_HELP = (
    "The label column the category is read from: the population's categories, strata or "
    "clusters, whichever it has."
)
CATEGORY_HELP = (
    "The label counted. The list starts at the population's most common label; a label the "
    "data do not hold cannot be planned."
)
RANGE_HELP = (
    "The records with a value between a and b (both included); both ends must lie within "
    "the public bounds [L, U]."
)
LINEAR_MECHANISMS_HELP = (
    "Noise added to the sum of the selected records, calibrated to one record's largest "
    "effect on it: Laplace noise; its integer counterpart, the two-sided geometric "
    "(discrete Laplace) mechanism; and the discrete Gaussian (Canonne, Kamath & Steinke "
    "2020), whose guarantee is (ε, δ) under a pure ε promise (it spends δ_target, so it is "
    "compared only when chosen) and ρ-zCDP under a ρ promise (chosen by default). Every "
    "design and rate is computed exactly, so all of them answer at once."
)
POST_LABEL = "Release rounded to whole numbers ≥ 0"
POST_HELP = (
    "Publish the count or total as the nearest whole number of at least 0 (a proportion: its "
    "count rounded, then divided by N). The table then adds the errors after rounding: exact "
    "for the census, and for a sample the error before rounding plus ½ (rounding moves the "
    "release by at most ½ and the clamp at 0 only moves it towards the truth)."
)
POST_NOTE = (
    "Rounding to whole numbers of at least 0 is post-processing: it reads only the released "
    "number, never the data, so it costs no privacy. The columns “after rounding” give the "
    "error of the rounded release."
)
POST_REFUSED = (
    "This total may be negative (its public lower bound is below 0), so it is released "
    "without rounding to whole numbers of at least 0."
)
REPS_NOTE = (
    "Counts, totals and proportions need no Monte Carlo: every design's error is a closed "
    "form, so the repetitions are not used."
)


def unit_words(kind: str, value_label: str) -> str:
    """The unit of the statistic's errors: records for a count, the value's unit for a
    total, a share for a proportion."""
    if kind == "count":
        return "records"
    if kind == "total":
        return f"units of {value_label}"
    return "a share of the population (0 to 1)"


def selection_words(
    kind: str,
    column_label: str | None,
    category: str | None,
    value_range: tuple[float, float] | None,
    value_label: str = "value",
) -> str:
    """The statistic in words: "count of records with size class = 10-19", "total of
    employees", "proportion of records with a value in [0, 12]"."""
    if category is not None:
        who = f"records with {column_label or 'label'} = {category}"
    elif value_range is not None:
        lo, hi = value_range
        who = f"records with {value_label} in [{fmt(lo, 'value')}, {fmt(hi, 'value')}]"
    else:
        who = "every record"
    if kind == "total":
        return f"total of {value_label} over {who}"
    return f"{kind} of {who}"


def absent_category(linked: str, column_label: str, shown: str) -> str:
    """The message for a category a link names that the data do not hold."""
    return (
        f"The link asks for the category “{linked[:40]}” of {column_label}, which this "
        f"population does not hold; the page plans the most common one, “{shown}”, instead."
    )


def no_label_column(kind: str) -> str:
    """Why "a category" cannot be chosen on a population without label columns."""
    return (
        f"This population has no label column (categories, strata or clusters), so a {kind} "
        "by category is not possible; the page selects a value range instead. Upload a file "
        "with a categorical column to count its categories."
    )


def empty_selection_note(kind: str) -> str | None:
    """What an empty selection means (none for a total, still a plan)."""
    if kind == "proportion":
        return (
            "No record of the population is selected: its proportion is 0, which is still "
            "defined (the population is not empty) and planned below."
        )
    if kind == "count":
        return "No record of the population is selected: the count is 0, planned below."
    return None


def not_for_linear(tab: str, kind: str) -> str:
    """The one sentence a tab that plans only medians, quantiles and means shows."""
    return (
        f"The {tab} tab searches ε_target for a median, another quantile or a mean; for a "
        f"{kind}, every design's error is exact on the Compare designs tab, so read the "
        "accuracy of each ε_target there."
    )


def missing_design_note(design: str, only_zcdp: bool, smallest_stratum: int | None) -> str:
    """Why a chosen, available design has no row in a linear plan.

    Under a ρ promise with only zCDP mechanisms chosen, the samples are not planned (no
    zCDP amplification theorem for sampling is used); otherwise no rate qualified
    (:func:`ui.planner.compare_text.no_rows_note`, e.g. a stratum too small for every rate).
    """
    if only_zcdp:
        return (
            f"**{design_label(design)}** is not planned under a ρ promise with the discrete "
            "Gaussian: no zCDP amplification theorem for sampling is used here, so only the "
            "whole register spends ρ. Choose the Laplace or the geometric mechanism to "
            "compare the samples at the ε_target the promise converts to."
        )
    return no_rows_note(design, smallest_stratum)


def population_value_line(result: PlanResult, words: str, kind: str) -> str:
    """The population value every error is measured against."""
    shown = fmt(result.population_value, "share" if kind == "proportion" else "value")
    return f"The population {words}, which every error is measured against: {shown}."


def _objective(result: PlanResult) -> tuple[str, str]:
    if result.objective == "rmse":
        return "rmse", "root mean squared error"
    return "error_95", "95 % error bound"


def error_text(value: float, kind: str, sign: str = "±") -> str:
    """An error in the statistic's unit: "±12.3 records", "±0.0123" (``sign`` "" for a
    root mean squared error)."""
    unit = " records" if kind == "count" else ""
    return f"{sign}{fmt(value, 'error')}{unit}"


def verdict_words(
    result: PlanResult,
    kind: str,
    reasons: Sequence[tuple[str, str]],
    closeness: str | None,
) -> str:
    """The verdict for a linear statistic: privatise the whole register, and why.

    Parameters
    ----------
    result
        :func:`core.linear.plan.plan_linear`'s plan.
    kind
        ``"count"``, ``"total"`` or ``"proportion"``.
    reasons
        ``(design, reason)`` for each sample design: why its best plan does not beat the
        census under the same mechanism (:mod:`core.linear.verdict`).
    closeness
        How close the best sample comes to the census at small ε_target, in words (or None).
    """
    key, measure = _objective(result)
    sign = "" if key == "rmse" else "±"
    census = result.census
    best = result.best
    if census is None:
        return f"No census row was planned; the best plan is {design_label(str(best['design']))}."
    mech = str(census["mechanism_label"])
    head = (
        f"Privatise the whole register (census, {mech}): {measure} "
        f"{error_text(float(census[key]), kind, sign)}."
    )
    if best["design"] != "census":
        head += (
            f" Here {lower_first(design_label(str(best['design'])))} comes out ahead "
            f"({error_text(float(best[key]), kind, sign)}); the reasons below say where the "
            "census's advantage ends."
        )
    else:
        head += (
            " No sample beats the census under the same mechanism: a design-unbiased "
            "estimator multiplies the noise added to the sample's sum by the inverse of "
            "the sampling rate r, and r·ε_sample = r·ln(1 + (e^ε_target − 1)/r) is below "
            "ε_target for every rate under 1, so the sample's noise is larger than the "
            "census's, and the sample adds its own sampling error on top."
        )
    lines = [head]
    lines += [f"- **{design_label(d)}**: {reason}" for d, reason in reasons]
    if closeness:
        lines.append(closeness)
    return "\n".join(lines)


def design_reasons(verdict: LinearVerdict) -> list[tuple[str, str]]:
    """For each sample design, why it does not beat the census under the same mechanism, in
    words, from :func:`core.linear.verdict.linear_verdict` (the mechanism that serves the
    design best): the largest rate × ε_sample over the census's ε (below 1, Lemma 1), the
    smallest ratio of the scaled-up noise's variance to the census's (at least 1, Lemma 2),
    and its best error against the census's."""
    measure = "root mean squared error" if verdict.objective == "rmse" else "95 % error bound"
    best: dict[str, DesignVerdict] = {}
    for d in verdict.designs:
        if d.design not in best or d.error_ratio < best[d.design].error_ratio:
            best[d.design] = d
    out = []
    for design, d in best.items():
        mechanism = (
            str(LINEAR_MECHANISMS[d.mechanism].label)
            if d.mechanism in (LINEAR_MECHANISMS)
            else d.mechanism
        )
        if d.census_wins:
            why = (
                f"rate × ε_sample is at most {fmt(d.efficiency, 'ratio')} times the census's ε, "
                "so the noise scaled up by the weight has at least "
                f"{fmt(d.noise_ratio, 'ratio')} times the census's variance; at its best "
                f"rate, {fmt(d.best_rate, 'rate')}, its {measure} with {mechanism} is "
                f"{ratio_words(d.error_ratio)} the census's."
            )
        else:
            why = (
                f"with {mechanism} it beats the census at some rate planned (best rate "
                f"{fmt(d.best_rate, 'rate')}, {ratio_words(d.error_ratio)} the census's "
                "error): an exception to the rule, worth checking."
            )
        out.append((design, why))
    return out


def closeness_words(verdict: LinearVerdict) -> str | None:
    """How close the samples come to the census at a small ε_target (the verdict's
    ``small_eps`` plan), or None without one.

    As ε_target → 0, r·ε_sample = r·ln(1 + (e^ε_target − 1)/r) → ε_target, so the noise of
    a scaled-up simple random or Poisson sample approaches the census's, and only the
    sampling error is left (:mod:`core.linear.verdict`).
    """
    ratios = [d for d in verdict.designs if math.isfinite(d.small_eps_ratio)]
    if not ratios:
        return None
    d = min(ratios, key=lambda v: v.small_eps_ratio)
    measure = "root mean squared error" if verdict.objective == "rmse" else "95 % error bound"
    return (
        f"At a small ε_target = {fmt(verdict.small_eps, 'guarantee')} the samples come "
        f"closest: {lower_first(design_label(d.design))} has a {measure} "
        f"{above_words(d.small_eps_ratio)}. There amplification gives back almost all of "
        "the weight 1/r, and what is left is the sample's own sampling error."
    )


def above_words(ratio: float) -> str:
    """An error against the census's: "0.42 % above the census's" below twice it, else
    "3.1 times the census's"."""
    if math.isfinite(ratio) and ratio < 2.0:
        return f"only {fmt(ratio - 1.0, 'share')} above the census's"
    return f"{ratio_words(ratio)} the census's"


def ratio_words(ratio: float) -> str:
    """A sample's error over the census's: "1.02 times", or "infinitely" (no finite
    error)."""
    if not math.isfinite(ratio):
        return "without a finite ratio to"
    return f"{fmt(ratio, 'ratio')} times"


def statistic_code(
    kind: str,
    column: str | None,
    category: str | None,
    value_range: tuple[float, float] | None,
) -> str:
    """The :class:`core.linear.statistic.LinearStatistic` call that names the statistic."""
    parts = [repr(kind)]
    if column is not None:
        parts.append(f"column={column!r}")
    if category is not None:
        parts.append(f"category={category!r}")
    if value_range is not None:
        parts.append(f"value_range={tuple(float(v) for v in value_range)!r}")
    return f"LinearStatistic({', '.join(parts)})"


def linear_call(
    *,
    kind: str,
    column: str | None,
    category: str | None,
    value_range: tuple[float, float] | None,
    eps_target: float,
    delta_target: float,
    designs: Sequence[str],
    rates: Sequence[float] | None,
    mechanisms: Sequence[str] | None,
    relation: str,
    objective: str = "error_95",
    sizes_public: bool = False,
    rho_target: float | None = None,
    post: str = "none",
) -> str:
    """Code that plans the statistic with :func:`core.linear.plan.plan_linear` (on ``pop``,
    defined before it) into ``result``; ``post`` is written when it is not ``"none"``."""
    post_arg = "" if post == "none" else f"    post={post!r},\n"
    rates_arg = "None" if rates is None else repr(tuple(float(r) for r in rates))
    mechanisms_arg = "None" if mechanisms is None else repr(tuple(str(m) for m in mechanisms))
    promise_arg = (
        f"eps_target={float(eps_target)!r}"
        if rho_target is None
        else f"eps_target={float(eps_target)!r},\n    rho_target={float(rho_target)!r}"
    )
    return f"""from core.linear.plan import plan_linear
from core.linear.statistic import LinearStatistic

stat = {statistic_code(kind, column, category, value_range)}
result = plan_linear(
    pop,
    stat,
    {promise_arg},
    delta_target={float(delta_target)!r},
    designs={tuple(designs)!r},
    rates={rates_arg},
    mechanisms={mechanisms_arg},
    relation={relation!r},
    objective={objective!r},
    sizes_public={bool(sizes_public)!r},
{post_arg})
"""


def python_snippet(population_code: str, **arguments: object) -> str:
    """Code that rebuilds the population (``population_code``), plans the statistic
    (:func:`linear_call`) and prints the best rows."""
    post = (
        """print("after rounding: census rmse =", result.census["rmse_post"],
      "error_95 =", result.census["error_95_post"])
"""
        if arguments.get("post", "none") != "none"
        else ""
    )
    return (
        population_code
        + linear_call(**arguments)  # type: ignore[arg-type]
        + """print(result.best_by_design.to_string())
print("census error_95 =", result.census["error_95"])
print("best design =", result.best["design"])
"""
        + post
    )


CHART_EXPLANATION = (
    "Each line is a sampling design at its best mechanism: the error of the released count, "
    "total or proportion against the sampling rate. The dotted line is the census under "
    "the same promise. Every point is exact (a closed form, no Monte Carlo), so no line "
    "carries a band. Under the same mechanism every sample stays above the census: the "
    "amplified budget never makes up for the noise scaled by 1/r and the sample's own error."
)
FORMULAS_EXPLANATION = (
    "A count, total or proportion is a sum Σ y over the records (y = 1 for a selected record "
    "in a count, its value in a total). The census adds noise Z to the exact sum. A sample "
    "releases the design-unbiased estimate (expansion, Horvitz–Thompson or stratified) of "
    "the sum, with the noise multiplied by the estimator's weight w (1/r for Poisson, N/n "
    "for a simple random sample, k/ℓ for clusters). Its mean squared error is the design "
    "variance of the estimator plus w² times the noise's variance, both exact; the 95 % "
    "error bound comes from the exact law of the noise where it is discrete, else from "
    "the law named in the table's error_95_method column."
)
FORMULAS = (
    r"\mathrm{MSE} = \underbrace{\operatorname{Var}_{\text{design}}(\hat Y)}_{\text{sampling "
    r"part}} + \underbrace{w^2\operatorname{Var}(Z)}_{\text{noise part}}",
    r"r\,\varepsilon_{\text{sample}} = r \ln\!\Big(1 + \frac{e^{\varepsilon_{\text{target}}}"
    r" - 1}{r}\Big) < \varepsilon_{\text{target}} \quad (0 < r < 1)",
)
#: The method report's line on how a count's, total's or proportion's errors are known.
LINEAR_EXACT_ROW = (
    "exact for every design, mechanism and rate (closed forms; no Monte Carlo repetitions, no seed)"
)
