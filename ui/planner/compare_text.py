"""Texts of the Release planner's Compare designs tab: the recommendation, the ranked list,
the rows known while a plan runs, the notes on designs without rows and the Python snippet.

Pure functions of numbers (no Streamlit); the words every tab shares are in
:mod:`ui.planner.text`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from core.planner import (
    DesignStatus,
    PlanResult,
)
from core.planner.usability import (
    is_heavy_tailed,
    is_usable,
)
from core.populations import Population
from core.resolution import is_exact
from core.sensitivity import quantile_rank
from ui.amplification.text import delta_caveat, odds_sentence, odds_summary
from ui.format import fmt
from ui.planner.figures import records_of, short_design, short_mechanism, statistic_words
from ui.planner.text import (
    MECHANISM_SHORT,
    RELATION_LABELS,
    article,
    bound_words,
    design_label,
    lower_first,
    plan_phrase,
    rate_words,
    resolution_words,
    share_words,
)
from ui.snippets import population_snippet

#: The flag of each plan in the ranked list.
USABLE_FLAG = ":green-badge[usable]"


TOO_NOISY_FLAG = ":orange-badge[too noisy]"


def refusal_lines(refusals: Mapping[str, str], verb: str = "offered") -> str:
    """Markdown lines for the mechanisms left out, with why: ``"offered"`` when they divide
    by a private size, ``"planned"`` under a ρ-zCDP promise."""
    return "\n".join(
        f"- **{MECHANISM_SHORT.get(name, name)}** is not {verb}: {reason}"
        for name, reason in refusals.items()
    )


def status_line(status: DesignStatus) -> str:
    """One Markdown line for a design: its theorem and caveat, or why it is not planned.

    The reasons come from :func:`core.planner.design_statuses`: Neyman's data-dependent
    allocation (with what an amplification claim would need), missing strata or clusters,
    and the group-privacy caveat of add/remove theorems under "change one record".
    """
    reason = status.reason.strip()
    if status.name == "neyman":
        return f"**{status.label}**: not planned. {reason}"
    if not status.available:
        return f"**{status.label}**: not available here. {reason}"
    line = f"**{status.label}**: {status.theorem}."
    return f"{line} {reason}" if reason else line


def exact_words(result: PlanResult, value: float, resolution: float | None) -> str | None:
    """ "exact to the data's resolution (…)" when ``value`` is, else None.

    With the resolution unknown (None) only an error of 0 is exact.
    """
    if not is_exact(value, resolution):
        return None
    stat = statistic_words(result.statistic, result.quantile)
    if value == 0:
        return f"exact: every release equals the population {stat}"
    measure = "root mean squared error" if result.objective == "rmse" else "95 % error bound"
    return (
        f"exact to the data's resolution (its {measure}, {bound_words(value)}, is far "
        f"below the step between recorded values: {resolution_words(resolution)})"
    )


def error_words(result: PlanResult, value: float) -> str:
    """An error in the data's units: "95 % error bound ±0.956" or "RMSE 0.55"."""
    if result.objective == "rmse":
        return f"root mean squared error {bound_words(value)}"
    return f"95 % error bound ±{bound_words(value)}"


def measure_phrase(result: PlanResult, row: pd.Series, resolution: float | None = None) -> str:
    """The accuracy of ``row`` in the units of the objective (or that it is exact to the
    data's ``resolution``, :func:`core.resolution.is_exact`)."""
    stat = statistic_words(result.statistic, result.quantile)
    value = float(row["rmse"] if result.objective == "rmse" else row["error_95"])
    exact = exact_words(result, value, resolution)
    if exact is not None:
        return exact
    if result.objective == "rmse":
        return f"root mean squared error {bound_words(value)} around the population {stat}"
    return f"95 % of releases within ±{bound_words(value)} of the population {stat}"


def population_value_line(result: PlanResult) -> str:
    """The population value every error is measured against, with its rank for a quantile."""
    stat = statistic_words(result.statistic, result.quantile)
    value = fmt(result.population_value, "value")
    if result.statistic == "mean":
        return f"The population mean, which every error is measured against: {value}."
    rank = quantile_rank(result.N, 0.5 if result.statistic == "median" else result.quantile)
    return (
        f"The population {stat}, which every error is measured against: {value}, the "
        f"value of rank {fmt(rank, 'count')} (⌈qN⌉) of the N = {fmt(result.N, 'count')} records in "
        "sorted order."
    )


def _objective(result: PlanResult) -> str:
    return "rmse" if result.objective == "rmse" else "error_95"


def mean_cluster_size(N: int, k: int) -> float:
    """The average cluster size M̄ = N/k."""
    if k < 1:
        raise ValueError(f"k (number of clusters) must be at least 1, got {k}")
    return N / k


def relative_change(gain: float) -> str:
    """How a design compares with the census, from ``gain = 1 − objective/census``.

    A gain reads "38 % tighter than"; a loss below 100 % "12 % less accurate than"; a
    larger loss "4.6 times the error of" or "6,360 times the error of" (a percentage in the
    thousands says little; :func:`ui.format.fmt` writes the ratio out).
    """
    if gain > 0:
        return f"{share_words(gain)} tighter than"
    if gain == 0:
        return "as accurate as"
    if gain > -1:
        return f"{share_words(-gain)} less accurate than"
    return f"{fmt(1.0 - gain, 'ratio')} times the error of"


#: The rule behind every sample recommended over the census
#: (:func:`core.planner.claims.beats_reference`), in words.
CLAIM_RULE = (
    "A sample is recommended over the census only when its error plus two Monte Carlo "
    "standard errors of the difference is still below the census's error (the census's "
    "error is exact unless it is simulated too); otherwise the two are indistinguishable "
    "and the simpler release, the census, is recommended."
)


def mechanism_words(label: str) -> str:
    """A mechanism after "with": "the exponential mechanism", "Laplace noise scaled to …"."""
    short = short_mechanism(label)
    return f"the {short}" if short.endswith("mechanism") else short


def reference_plan(mechanism_label: str, subject: str = "the census") -> str:
    """The plan every gain is measured against, named: "the census with the exponential
    mechanism" (a page has one census row per mechanism; the reference is the best)."""
    return f"{subject} with {mechanism_words(mechanism_label)}"


def _beats(row: pd.Series) -> bool:
    """Whether a best row's gain over the census exceeds its Monte Carlo uncertainty
    (core's ``beats_census``; a table without it falls back to a positive gain)."""
    if "beats_census" in row.index:
        return bool(row["beats_census"])
    gain = float(row.get("gain", math.nan))
    return not math.isnan(gain) and gain > 0


def _with_se(result: PlanResult, row: pd.Series) -> str:
    """A row's error with its Monte Carlo standard error: "±0.93 (Monte Carlo standard error
    0.026)", or "exact ±0.95" when it has none."""
    key = _objective(result)
    value = float(row[key])
    shown = f"±{bound_words(value)}" if key == "error_95" else bound_words(value)
    se = float(row.get(f"{key}_se", 0.0))
    if se > 0 and not math.isnan(se):
        return f"{shown} (Monte Carlo standard error {bound_words(se)})"
    return f"exact {shown}"


def recommendation(
    result: PlanResult, *, clusters: int | None = None, resolution: float | None = None
) -> str:
    """The plan in plain words: what to privatise, how accurate, against the census.

    The plan recommended is :attr:`core.planner.PlanResult.recommended`: a sample only when
    it beats the census by more than its Monte Carlo uncertainty (:data:`CLAIM_RULE`);
    otherwise the census, and the sentence says that the best sample is indistinguishable
    from it. The census compared with is named by its mechanism.

    Parameters
    ----------
    result
        The planner's result (``core.planner.plan``).
    clusters
        Number of clusters k of the population (for the "clusters of about M̄ records"
        remark about a cluster design that gains nothing); None without clusters.
    resolution
        The step in which the population's values are recorded
        (:func:`core.resolution.resolution`). An error at most a hundredth of it is exact
        to the data's resolution, and designs are then compared by their errors in the
        data's units, never by a ratio against a practically-zero error.
    """
    chosen = result.recommended
    best = result.best
    key = _objective(result)
    text = (
        f"Privatise {plan_phrase(chosen)} ({short_mechanism(str(chosen['mechanism_label']))}): "
        f"{measure_phrase(result, chosen, resolution)}"
    )
    census = result.census
    if chosen["design"] == "census" and best["design"] == "census":
        text += ". No sampling design is more accurate here at this ε_target."
    elif chosen["design"] == "census":
        measure = "root mean squared error" if key == "rmse" else "95 % error bound"
        text += (
            f". The best sample, {plan_phrase(best)} "
            f"({short_mechanism(str(best['mechanism_label']))}), has a {measure} of "
            f"{_with_se(result, best)} against the census's {_with_se(result, chosen)}: the "
            "difference is within two Monte Carlo standard errors, so the two are "
            "indistinguishable and the simpler release, the census, is recommended."
        )
    elif census is not None and is_exact(float(census[key]), resolution):
        text += ", as exact as privatising the whole register."
    elif census is not None and float(census[key]) > 0:
        gain = 1.0 - float(chosen[key]) / float(census[key])
        whole = reference_plan(str(census["mechanism_label"]), "privatising the whole register")
        text += (
            f", {relative_change(gain)} {whole} (a gain larger than two Monte Carlo "
            "standard errors)."
        )
    else:
        text += "."
    return " ".join([text, *no_gain_sentences(result, clusters=clusters, resolution=resolution)])


def odds_text(
    prior: float,
    eps_target: float,
    bound_target: float,
    best: pd.Series,
    bound_sample: float,
    delta_target: float,
) -> str:
    """ε_target and the recommended design's ε_sample read as an attacker's odds.

    ``bound_target`` and ``bound_sample`` are :func:`core.risk.posterior_bound` of
    ε_target and of the design's ε_sample at ``prior``; for the census (nothing sampled)
    only ε_target is read.
    """
    if best["design"] == "census":
        return (
            odds_sentence(prior, bound_target, f"ε_target = {fmt(eps_target, 'guarantee')}")
            + " "
            + delta_caveat(delta_target, both=False)
        )
    return odds_summary(
        prior, eps_target, bound_target, float(best["eps_sample"]), bound_sample, delta_target
    )


def no_gain_sentences(
    result: PlanResult, *, clusters: int | None = None, resolution: float | None = None
) -> list[str]:
    """Sentences about the sampling designs that do not beat the census.

    A design beats the census when its best row's gain exceeds its Monte Carlo uncertainty
    (core's ``beats_census``, :func:`core.planner.claims.beats_reference`); every other
    sampling design is listed, except the one the recommendation already describes. When
    no design beats the census the list opens "Sampling gains nothing here"; when one does
    (and is recommended), "The other designs gain nothing". A cluster design gets its own
    sentence naming the average cluster size M̄ = N/k (whole clusters enter or leave the
    sample, which erases the amplification); a design ahead of the census by less than its
    Monte Carlo error is said to be within it. When the census is exact to the data's
    ``resolution``, a design is described by its own error in the data's units (a ratio to
    a practically-zero error says nothing).
    """
    if result.census is None:
        return []
    key = _objective(result)
    census_exact = is_exact(float(result.census[key]), resolution)
    register = reference_plan(str(result.census["mechanism_label"]), "the whole register")
    named = f"(the census: {register})"
    chosen = str(result.recommended["design"])
    best = str(result.best["design"])
    any_gain = chosen != "census"
    sentences = []
    others = []
    seen: set[str] = {"census", chosen, best}
    for _, row in result.best_by_design.iterrows():
        design = str(row["design"])
        if design in seen:
            continue
        seen.add(design)  # its best mechanism (rows are ranked)
        gain = float(row["gain"])
        if math.isnan(gain) or _beats(row):
            continue
        label = lower_first(str(row["design_label"]))
        if design == "cluster" and clusters:
            size = mean_cluster_size(result.N, clusters)
            sentences.append(
                f"{article(label).capitalize()} {label} gains nothing: clusters of about "
                f"{fmt(round(size), 'count')} records erase the amplification."
            )
        elif census_exact:
            error = float(row[key])
            own = (
                "is exact to the data's resolution too"
                if is_exact(error, resolution)
                else f"has a {error_words(result, error)}"
            )
            others.append(
                f"{article(label)} {label} at its best rate, "
                f"{share_words(float(row['rate']))}, {own}"
            )
        elif gain > 0:
            others.append(
                f"{article(label)} {label} at its best rate, {share_words(float(row['rate']))}, "
                "is within two Monte Carlo standard errors of the census"
            )
        else:
            others.append(
                f"{article(label)} {label} at its best rate, {share_words(float(row['rate']))}, "
                f"is {relative_change(gain)} the census"
            )
    opening = "The other designs gain nothing" if any_gain else "Sampling gains nothing here"
    if others and not census_exact:
        opening += f" {named}"
    if others and census_exact:
        sentences.insert(
            0,
            f"{opening}: the whole register is exact to the data's resolution, while "
            + "; ".join(others)
            + ".",
        )
    elif others:
        sentences.insert(0, f"{opening}: " + "; ".join(others) + ".")
    return sentences


def no_rows_note(design: str, smallest_stratum: int | None) -> str:
    """Why a chosen, available design has no row in the comparison."""
    label = design_label(design)
    if design == "stratified_proportional" and smallest_stratum:
        need = (
            f"the smallest stratum has N_i = {smallest_stratum:,} records, so only rates from "
            f"{fmt(1 / smallest_stratum, 'plain')} qualify. Add such a rate under *Rates*."
            if smallest_stratum > 1
            else "the smallest stratum has a single record, so no rate below 1 qualifies."
        )
        return (
            f"**{label}** is left out at these rates: Theorems 4.3/7.2 need at least one "
            f"expected record from every stratum (rate·N_i ≥ 1), and {need}"
        )
    return f"**{label}** gives no usable sample at these rates; try other rates under *Rates*."


def no_mechanism_note(design: str, relation: str) -> str:
    """Why a chosen, available design has no row: none of the chosen mechanisms fits it."""
    return (
        f"**{design_label(design)}** is left out: none of the chosen mechanisms holds its "
        f"guarantee for this design when neighbouring populations differ by "
        f"{RELATION_LABELS.get(relation, relation)}. Add a mechanism under *Mechanisms*."
    )


def heavy_tail_note(rmse: float, bound: float) -> str | None:
    """Why a plan's RMSE is far above its 95 % bound (heavy-tailed noise), or None.

    The test is :func:`core.planner.usability.is_heavy_tailed`.
    """
    if not is_heavy_tailed(rmse, bound):
        return None
    if bound > 0:
        versus = f"is {fmt(rmse / bound, 'ratio')} times its 95 % bound ±{bound_words(bound)}"
    else:
        versus = "is far above its 95 % bound of 0 (at least 95 % of releases are exact)"
    return (
        f"Heavy-tailed noise: the RMSE, {bound_words(rmse)}, {versus}. Rare large errors "
        "dominate the RMSE (a mean of squares), while 95 % of releases stay within the "
        "bound: read the bound for a typical release, the RMSE for the risk of a rare large "
        "miss."
    )


def usable_rows(
    ranked: pd.DataFrame, value: float, lower: float, upper: float, share: float
) -> list[bool]:
    """Per row of :func:`ui.planner.figures.ranked_table`: is its 95 % bound usable
    (:func:`core.planner.usability.is_usable` against the population ``value``)?"""
    return [
        is_usable(float(b), value, lower, upper, share) for b in ranked["95 % bound"].to_numpy()
    ]


def ranked_list(
    ranked: pd.DataFrame,
    resolution: float | None = None,
    usable: Sequence[bool] | None = None,
) -> str:
    """The ranked table as a numbered Markdown list (one plan a line; it wraps on a phone).

    ``ranked`` is :func:`ui.planner.figures.ranked_table`: per plan the best rate, the
    expected n, ε_sample, RMSE ± its Monte Carlo standard error, the 95 % error bound, the
    sampling and noise shares of the mean squared error, the gain against the census and,
    when core provides it, the ``accounting`` behind ε_sample. An error at most a hundredth
    of the data's ``resolution`` is marked exact to it; when the census is, the other plans
    are read by their own errors, never by a ratio to the census. ``usable`` (one per row,
    :func:`usable_rows`) flags each plan *usable* or *too noisy*; a plan whose RMSE is far
    above its 95 % bound says why (:func:`core.planner.usability.is_heavy_tailed`).
    """
    if usable is not None and len(usable) != len(ranked):
        raise ValueError(f"usable must have one flag per row ({len(ranked)}); got {len(usable)}")
    census = ranked[ranked["design"] == "Census"]
    # The census every gain refers to is the best one: the one with gain 0.
    reference = census[census["gain vs census"] == 0] if len(census) else census
    bounds = (reference if len(reference) else census)[["RMSE", "95 % bound"]]
    census_exact = bool(len(bounds)) and all(
        is_exact(float(v), resolution) for v in bounds.iloc[0] if math.isfinite(float(v))
    )
    # Name the reference: a page has one census row per mechanism.
    ref = reference if len(reference) else census
    named = reference_plan(str(ref["mechanism"].iloc[0])) if len(ref) else "the census"
    lines = []
    for i, row in enumerate(ranked.itertuples(index=False), start=1):
        r = dict(zip(ranked.columns, row, strict=True))
        gain = float(r["gain vs census"])
        exact = is_exact(float(r["95 % bound"]), resolution) and is_exact(
            float(r["RMSE"]), resolution
        )
        if r["design"] == "Census" and gain == 0:
            versus = "the reference" + (
                ": every other plan is read by its own error" if census_exact else ""
            )
        elif math.isnan(gain):
            versus = "no census to compare with"
        elif census_exact:
            versus = ""  # the census is exact: its line says so, no ratio to it
        elif gain > 0 and not bool(r.get("beats census", True)):
            versus = f"within two Monte Carlo standard errors of {named}"
        else:
            versus = f"{relative_change(gain)} {named}"
        rate = "whole register" if r["design"] == "Census" else f"rate {rate_words(r['best rate'])}"
        se = float(r["± se"])
        spread = f"± {bound_words(se)}" if se > 0 else "(exact)"
        mark = ", exact to the data's resolution" if exact else ""
        accounting = r.get("accounting")
        extra = f"; accounting: {accounting}" if isinstance(accounting, str) and accounting else ""
        if "RMSE after rounding" in r:  # a count, total or proportion released rounded
            extra += (
                f"; after rounding to whole numbers ≥ 0: RMSE "
                f"{bound_words(r['RMSE after rounding'])}, 95 % bound "
                f"±{bound_words(r['95 % bound after rounding'])}"
            )
        if is_heavy_tailed(float(r["RMSE"]), float(r["95 % bound"])):
            extra += (
                "; heavy-tailed noise: rare large errors dominate the RMSE while 95 % of "
                "releases stay within the bound"
            )
        flag = "" if usable is None else " " + (USABLE_FLAG if usable[i - 1] else TOO_NOISY_FLAG)
        size = fmt(r["n"], "count")
        lines.append(
            f"{i}. **{r['design']}, {r['mechanism']}**{flag}: {rate} (n ≈ {size}), "
            f"ε_sample = {fmt(r['ε_sample'], 'guarantee')}; RMSE {bound_words(r['RMSE'])} "
            f"{spread}, 95 % bound ±{bound_words(r['95 % bound'])}{mark}; error "
            f"{share_words(r['sampling part'])} sampling, {share_words(r['noise part'])} noise"
            f"{extra}{'; ' + versus if versus else ''}."
        )
    return "\n".join(lines)


def partial_list(
    table: pd.DataFrame, objective: str, resolution: float | None, done: int, total: int
) -> str:
    """The rows known while the plan runs: each design's best mechanism so far, best first.

    ``table`` holds core's rows so far (:class:`core.planner.PlanProgress`); ``done`` of
    ``total`` designs are finished.
    """
    key = "rmse" if objective == "rmse" else "error_95"
    measure = "RMSE" if objective == "rmse" else "95 % bound ±"
    if "is_best" in table.columns:
        table = table[table["is_best"].to_numpy(dtype=bool)]
    rows = records_of(table)
    # Each design's least value, the first row of a tie (a stable sort, then the first per
    # design).
    rows.sort(key=lambda row: (math.isnan(float(row[key])), float(row[key])))
    best: dict[str, dict[str, Any]] = {}
    for row in rows:
        best.setdefault(str(row["design"]), row)
    lines = [f"**Rows known so far** ({done} of {total} designs; the full comparison follows):"]
    for row in best.values():
        value = float(row[key])
        mark = " (exact to the data's resolution)" if is_exact(value, resolution) else ""
        rate = "whole register" if row["design"] == "census" else f"rate {rate_words(row['rate'])}"
        lines.append(
            f"- {short_design(str(row['design']))}, {short_mechanism(str(row['mechanism_label']))}"
            f": {rate}, {measure}{bound_words(value)}{mark}"
        )
    return "\n".join(lines)


#: Under the link to this plan (the same link is in the method report).
PLAN_LINK_NOTE = (
    "Every setting of this page and of the sidebar is in the link, the defaults too, so it "
    "opens this plan even where the app's defaults differ; the method report carries the same "
    "link. An uploaded population is not: upload the file again after opening it."
)


COMPARE_EXPLANATION = (
    "Each line is one design (its colour) with the mechanism that serves it best (its dash; "
    "the menu above the chart shows every mechanism, or one across the designs): the error "
    "of the release, in the data's units, at each sampling rate (log axes). The shaded band "
    "is the Monte Carlo interval of that error (about ±2 standard errors; for the 95 % "
    "bound the interval of the simulated order statistics, wider on the side where "
    "simulated errors are sparse), cut at the bottom edge. The dotted line is the census, "
    "the mechanism run on the whole register at ε_target. A smaller sample lets the "
    "mechanism spend a larger ε_sample (less noise) but adds sampling error; the star is "
    "the best plan. Errors far "
    "below the step in which the data are recorded are exact for every practical purpose: "
    "they sit on the bottom edge, and only the larger errors set the axis."
)


#: How each design turns ε_sample into ε_target (r = rate, q = ℓ/k, s the two largest
#: cluster sizes added); one short line each, so they fit a phone's width.
AMPLIFICATION_FORMULAS = (
    r"\begin{aligned}&\text{SRS, Poisson:}\\ &\varepsilon_{\mathrm{target}} = \log\big(1 + r"
    r"(e^{\varepsilon_{\mathrm{sample}}} - 1)\big)\end{aligned}",
    r"\begin{aligned}&\text{stratified:}\\ &\varepsilon_{\mathrm{target}} = \log\big(1 + 2r"
    r"(e^{2\varepsilon_{\mathrm{sample}}} - 1)\big)\\ &\qquad + \log\big(1 + r"
    r"(e^{2\varepsilon_{\mathrm{sample}}} - 1)\big)\end{aligned}",
    r"\begin{aligned}&\text{cluster:}\\ &\varepsilon_{\mathrm{target}} = \log\Big(1 + "
    r"\frac{q\,(e^{\varepsilon_{\mathrm{sample}}} - 1)}{q + (1-q)\,"
    r"e^{-s\,\varepsilon_{\mathrm{sample}}}}\Big)\end{aligned}",
    r"\begin{aligned}&\text{change one record, add/remove theorem:}\\ "
    r"&\varepsilon_{\mathrm{sample}} = \mathrm{amp}^{-1}(\varepsilon_{\mathrm{target}} / 2)"
    r"\end{aligned}",
)


FORMULAS_EXPLANATION = (
    "How to read the numbers. Each design turns the promised ε_target into the ε_sample its "
    "theorem allows (simple random and Poisson samples by the formula below, Hu et al. §3 "
    "and Bun et al. Theorem 2.2; proportional stratified samples by Bun et al. Theorems "
    "4.3/7.2; cluster samples by Theorem 5.2, where a whole cluster enters or leaves at "
    "once). The error of a release θ̃ around the population value θ splits into the sampling "
    "part (the sample statistic θ̂_S misses θ) and the noise part (the mechanism moves the "
    "release away from θ̂_S). The 95 % error bound b₉₅ is the half-width that 95 % of "
    "releases stay within; it is what a release note states."
)


def python_snippet(
    pop: Population,
    *,
    statistic: str,
    eps_target: float,
    delta_target: float,
    designs: Sequence[str],
    rates: Sequence[float] | None,
    reps: int,
    seed: int,
    relation: str,
    objective: str,
    quantile: float = 0.5,
    mechanisms: Sequence[str] | None = None,
    sizes_public: bool = False,
    rho_target: float | None = None,
) -> str:
    """Code that recomputes the comparison with :func:`core.planner.plan`; prints the best row.

    ``quantile`` is written only for ``statistic="quantile"``, ``mechanisms`` only when the
    comparison is restricted (not None), so a default plan keeps the short call; a ρ-zCDP
    promise is written as ``rho_target`` in place of ``eps_target``.
    """
    rates_arg = "None" if rates is None else repr(tuple(float(r) for r in rates))
    extra = f"    quantile={float(quantile)!r},\n" if statistic == "quantile" else ""
    if mechanisms is not None:
        extra += f"    mechanisms={tuple(str(m) for m in mechanisms)!r},\n"
    if sizes_public:
        extra += "    sizes_public=True,\n"
    promise_arg = (
        f"eps_target={float(eps_target)!r}"
        if rho_target is None
        else f"rho_target={float(rho_target)!r}"
    )
    return f"""{population_snippet(pop)}from core import planner

result = planner.plan(
    pop,
    statistic={statistic!r},
    {promise_arg},
    delta_target={float(delta_target)!r},
    designs={tuple(designs)!r},
    rates={rates_arg},
    reps={int(reps)},
    seed={int(seed)},
    relation={relation!r},
    objective={objective!r},
{extra})
print(result.best_by_design.to_string())
print("best rate =", result.best["rate"])
print("best error_95 =", result.best["error_95"])
print("best rmse =", result.best["rmse"])
"""
