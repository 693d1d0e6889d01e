"""Texts, presets, labels and the Python snippet of the Release planner page.

Pure functions of numbers (no Streamlit): the recommendation, the design notes and the
explanations are tested without an app. Vocabulary: N population size, n sample size,
rate = n/N; ε_target the guarantee promised for the population, ε_sample the budget the
mechanism spends on the sample; a cluster's size is M.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from core.accounting.zcdp import CONVERSION, CONVERSION_FORMULA
from core.designs.registry import DESIGNS
from core.mechanisms import MECHANISMS
from core.planner import (
    DESIGN_LABELS,
    MEAN_MECHANISMS,
    QUANTILE_MECHANISMS,
    DesignStatus,
    PlanResult,
    SearchProgress,
    SeveralProgress,
    offered_mechanisms,
)
from core.planner.usability import (
    DEFAULT_USABLE_SHARE,
    is_heavy_tailed,
    is_usable,
    relative_error,
)
from core.populations import Population
from core.resolution import is_exact
from core.sensitivity import quantile_rank
from ui.amplification.text import delta_caveat, odds_sentence, odds_summary
from ui.format import fmt
from ui.planner.figures import ALL_LINES, BEST_LINES, short_design, short_mechanism, statistic_words
from ui.snippets import population_snippet

COMPARE_TAB = "Compare designs"
ACCURACY_TAB = "Accuracy first"
SEVERAL_TAB = "Several statistics"
PUBLICATION_TAB = "Publication table"
TABS = (COMPARE_TAB, ACCURACY_TAB, SEVERAL_TAB, PUBLICATION_TAB)

#: The statistics the page offers, with their on-screen names ("quantile" asks for q).
STATISTIC_LABELS = {"median": "median", "mean": "mean", "quantile": "another quantile"}
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
#: Default level q of "another quantile".
DEFAULT_QUANTILE = 0.9
QUANTILE_HELP = (
    "The share of records at or below the released value: q = 0.5 is the median, q = 0.9 "
    "the value that 90 % of the records lie at or below. The planner releases the record of "
    "rank ⌈qN⌉ in sorted order (⌈qn⌉ in a sample of n)."
)
#: Short, plain name of every mechanism of core.mechanisms (legend, list, multiselect).
MECHANISM_SHORT: dict[str, str] = {
    name: short_mechanism(cls.label) for name, cls in MECHANISMS.items()
}
MECHANISMS_HELP = (
    "Compare these mechanisms: fewer run faster. Each design still uses only the "
    "mechanisms whose guarantee fits its theorem. By default the four of Hu et al.; add the "
    "polynomial-Laplace smooth-sensitivity quantile (Hladík & Tětek 2025) or the piecewise "
    "Laplace quantile (Durfee 2025) to compare them too. Empty: the default four. For the "
    "mean, the noisy sum over a noisy count needs no population size; it is compared by "
    "default where N is not public and neighbours add or remove a record."
)


CHART_LINES_HELP = (
    "Each design keeps its colour and each mechanism its dash. By default the chart draws "
    "one line per design, with the mechanism that serves it best; choose every mechanism, "
    "or one mechanism across the designs."
)


def chart_lines_label(choice: str) -> str:
    """The on-screen name of a chart-lines choice (a mechanism's name: "only …")."""
    if choice == BEST_LINES:
        return "each design's best mechanism"
    if choice == ALL_LINES:
        return "every mechanism"
    return "only " + MECHANISM_SHORT.get(choice, choice)


def mechanisms_of(statistic: str, bounded: bool = True) -> tuple[str, ...]:
    """The mechanisms the planner offers for ``statistic`` (core.planner's lists; with no
    public upper bound, the ones that need none)."""
    if not bounded:
        return offered_mechanisms(statistic, bounded=False)
    return MEAN_MECHANISMS if statistic == "mean" else QUANTILE_MECHANISMS


#: The statistic radio's warning when the mean is chosen on a population without U.
NO_UPPER_MEAN = (
    "The mean needs a public upper bound U, and this population has none; planning the "
    "median instead, with the unbounded quantile (Durfee 2023), which needs only the lower "
    "bound L. Upload the population again with U to plan the mean."
)
#: The several-statistics tab on a population without U.
NO_UPPER_SEVERAL = (
    "The mean needs a public upper bound U, and this population has none: it is left out, "
    "and the quantiles are released by the unbounded quantile."
)
NO_UPPER_JOINT = (
    "JointExp chooses its outputs between the public bounds L and U, and this population "
    "has no U: it is not compared here."
)
#: Under the mechanisms on a population without U.
NO_UPPER_NOTE = (
    "This population has no public upper bound U: the planner compares the one quantile "
    "mechanism that needs none, the unbounded quantile (Durfee 2023), on every design; its "
    "census row comes from repeated releases of the whole register (no closed form)."
)


#: The two neighbouring relations, as the page names them.
RELATION_LABELS = {
    "replacement": "change one record",
    "deletion": "add or remove one record",
}
#: The two objectives the best rate minimises.
OBJECTIVE_LABELS = {"error_95": "95 % error bound", "rmse": "RMSE"}
#: The designs a user can pick (Neyman is always listed with its reason, never planned).
PICKABLE_DESIGNS = tuple(name for name, d in DESIGNS.items() if d.proven_for != "none")
#: Choices of the repetitions T.
REPS_OPTIONS = (50, 100, 200, 500, 1000)
#: Share of the population's interquartile range used as the default target error.
TARGET_IQR_SHARE = 0.05
#: The usable-error control: its label, default (in %) and help.
USABLE_SHARE_LABEL = "Usable error (% of the value)"
USABLE_SHARE_DEFAULT = round(100 * DEFAULT_USABLE_SHARE)
USABLE_SHARE_HELP = (
    "A release is too noisy to use when its 95 % error bound is above this share of the "
    "statistic's population value (or of the declared range, upper − lower, when the value "
    "is 0). Such plans are flagged *too noisy* in the ranked list, and when even the best "
    "plan is, the verdict is a warning."
)
#: The flag of each plan in the ranked list.
USABLE_FLAG = ":green-badge[usable]"
TOO_NOISY_FLAG = ":orange-badge[too noisy]"

#: Presets: Hu et al.'s lognormal population (§4.3) at a small and a large ε_target, the mean,
#: and the establishment register with strata and clusters. Each opens the comparison tab.
PRESETS: dict[str, dict[str, Any]] = {
    "Lognormal, ε = 0.1": {
        "population": "lognormal",
        "plan_stat": "median",
        "plan_eps": 0.1,
        "plan_view": COMPARE_TAB,
    },
    "Lognormal, ε = 3": {
        "population": "lognormal",
        "plan_stat": "median",
        "plan_eps": 3.0,
        "plan_view": COMPARE_TAB,
    },
    "Mean": {"plan_stat": "mean", "plan_view": COMPARE_TAB},
    "Establishments": {"population": "establishments", "plan_view": COMPARE_TAB},
}

RELATION_HELP = (
    "Which two populations count as neighbours. The default, change one record, is the "
    "relation the Hu et al. census and simple-random-sampling results use. Poisson, "
    "stratified and cluster sampling are proven for add or remove one record; under "
    "change one record they keep their promise by group privacy (a change is one removal "
    "plus one addition), so they may spend only the ε_sample that their theorem allows for "
    "ε_target/2."
)


#: How the promise is stated (the page's ``plan_promise`` radio carries the label).
PROMISE_LABELS = {"eps": "ε-DP (pure)", "zcdp": "ρ-zCDP"}
PROMISE_HELP = (
    "Many agencies state their promise as ρ-zero-concentrated DP (the 2020 US Census did). "
    "The planner's mechanisms are pure ε-DP: under a ρ-zCDP promise it plans at the largest "
    "ε_target whose pure guarantee implies ρ-zCDP, by the sharp conversion "
    "ρ = ε·tanh(ε/2) (Steinke 2024, Theorem 5; Bun & Steinke's ε²/2 is looser). The (ε, δ) "
    "mechanisms imply no zCDP bound and are left out."
)
RHO_LABEL = "ρ: the zCDP guarantee promised for the population"
RHO_HELP = (
    "ρ-zCDP: every Rényi divergence D_α between the releases on two neighbouring "
    "populations is at most ρ·α. The plan uses the pure ε_target that keeps it."
)

RHO_DEFAULT = 0.5
#: The range the ρ box accepts: ρ(ε) = ε·tanh(ε/2) of the ε_target box's range is about
#: [5e-7, 50].
RHO_MIN, RHO_MAX = 1e-6, 50.0


def rho_link_problem(linked: str | None, used: float) -> str | None:
    """Why a link's ρ (``plan_rho`` as the URL wrote it) was not used, or None when it was
    (or the link gave none). ``used`` is the ρ the page plans with instead."""
    if linked is None:
        return None
    try:
        value = float(linked)
    except ValueError:
        value = math.nan
    if math.isfinite(value) and RHO_MIN <= value <= RHO_MAX:
        return None
    if not math.isfinite(value):
        why = f"“{linked[:20]}” is not a number"
    elif value <= 0:
        why = f"ρ = {linked[:20]} is not > 0 (ρ-zCDP needs a positive ρ)"
    else:
        why = f"ρ = {linked[:20]} is outside [{RHO_MIN:g}, {RHO_MAX:g}]"
    return f"The link's ρ was not used: {why}. The plan uses ρ = {used:g}."


def promise_words(eps_target: float, rho_target: float | None) -> str:
    """The promise in plain words: ε_target, or ρ-zCDP with the ε_target that keeps it and
    the conversion, named with its formula."""
    if rho_target is None:
        return f"ε_target = {fmt(eps_target, 'guarantee')} (pure ε-differential privacy)."
    return (
        f"ρ = {fmt(rho_target, 'guarantee', 6)}-zCDP, stated by you; the planner plans "
        f"every design at the pure ε_target = {fmt(eps_target, 'guarantee', 6)}, the largest "
        f"that keeps it, by the {CONVERSION}: {CONVERSION_FORMULA}."
    )


def refusal_lines(refusals: Mapping[str, str], verb: str = "offered") -> str:
    """Markdown lines for the mechanisms left out, with why: ``"offered"`` when they divide
    by a private size, ``"planned"`` under a ρ-zCDP promise."""
    return "\n".join(
        f"- **{MECHANISM_SHORT.get(name, name)}** is not {verb}: {reason}"
        for name, reason in refusals.items()
    )


def accuracy_rho_words(rho_target: float) -> str:
    """The accuracy-first answer's ρ, under a ρ-zCDP promise."""
    return (
        f"As ρ-zCDP that is **ρ = {fmt(rho_target, 'guarantee', 4)}** (ρ = ε·tanh(ε/2), "
        f"the {CONVERSION}); only pure mechanisms were searched."
    )


SIZES_LABEL = "Population size N and cell sizes N_c are public"
SIZES_HELP = (
    "Off (the default): the sizes are private. When neighbouring populations differ by an "
    "added or removed record (or a record moves between publication cells), N and N_c "
    "differ by one, and a mean that divides by them (the noisy centred sum over rate·N) "
    "holds no ε; the planner then releases the mean as a noisy sum over a noisy count, "
    "which needs no size. On: N and N_c are published with the release as invariants, and "
    "the guarantee covers neighbours with those sizes."
)


def sizes_words(relation: str, sizes_public: bool) -> str:
    """The page's, report's and notebook's sentence on whether the sizes are public."""
    if sizes_public:
        return (
            "The population size N (and each publication cell's size N_c) is declared "
            "public: it is published with the release as an invariant, and the guarantee "
            "covers neighbouring populations of that size. A mean may divide by it."
        )
    if relation == "deletion":
        return (
            "The population size N is not public: an added or removed record changes it by "
            "one. No release divides by N; the mean is a noisy sum over a noisy count "
            "(the noisy centred sum over rate·N is not offered)."
        )
    return (
        "The population size N is not declared public, but neighbours differ by a changed "
        "record, so N is the same for both and a mean may divide by it."
    )


def name_of(labels: Mapping[str, str], label: object) -> str:
    """The name whose label is ``label`` (controls show labels, core takes names).

    A value that is already a name, or unknown, is returned as a string unchanged (core then
    names the bad value in its error).
    """
    for name, shown in labels.items():
        if shown == label:
            return name
    return str(label)


def design_label(name: str) -> str:
    """Plain label of a design name (falls back to the name)."""
    return DESIGN_LABELS.get(name, name)


#: Words that keep their capital inside a sentence.
_PROPER = ("Poisson", "Neyman", "Bernoulli")


def _lower_first(label: str) -> str:
    """``label`` for the middle of a sentence: first letter lower case unless a name."""
    if not label or label.startswith(_PROPER):
        return label
    return label[:1].lower() + label[1:]


def _article(phrase: str) -> str:
    """``"a"`` or ``"an"`` before ``phrase`` (by its first letter or digit sound)."""
    first = phrase.lstrip()[:1].lower()
    return "an" if first in "aeiou" or phrase.lstrip().startswith(("8", "11 ", "18")) else "a"


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


def _share(fraction: float) -> str:
    """A share as a percentage (``0.2`` → ``20 %``, :func:`ui.format.fmt`)."""
    return fmt(fraction, "share")


def _rate(rate: float) -> str:
    """A sampling rate as a percentage (``0.0213`` → ``2.13 %``, :func:`ui.format.fmt`)."""
    return fmt(rate, "rate")


def _bound(value: float) -> str:
    """An error in the data's units, three significant digits written out (``1,590``)."""
    return fmt(value, "error")


def plan_phrase(row: pd.Series) -> str:
    """ "a 20 % proportional stratified sample" or "the whole register (census)"."""
    if row["design"] == "census":
        return "the whole register"
    if row["design"] == "cluster" and not math.isnan(float(row.get("clusters_sampled", math.nan))):
        return (
            f"a cluster sample of {fmt(float(row['clusters_sampled']), 'count')} clusters "
            f"(about {_rate(float(row['rate']))} of the records)"
        )
    phrase = f"{_rate(float(row['rate']))} {_lower_first(str(row['design_label']))}"
    return f"{_article(phrase)} {phrase}"


def resolution_words(resolution: float | None) -> str:
    """The data's resolution in a sentence: "the values are recorded in steps of 1"."""
    if resolution is None:
        return "the data's resolution is unknown"
    return f"the values are recorded in steps of {fmt(resolution, 'value')}"


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
        f"exact to the data's resolution (its {measure}, {_bound(value)}, is far "
        f"below the step between recorded values: {resolution_words(resolution)})"
    )


def error_words(result: PlanResult, value: float) -> str:
    """An error in the data's units: "95 % error bound ±0.956" or "RMSE 0.55"."""
    if result.objective == "rmse":
        return f"root mean squared error {_bound(value)}"
    return f"95 % error bound ±{_bound(value)}"


def measure_phrase(result: PlanResult, row: pd.Series, resolution: float | None = None) -> str:
    """The accuracy of ``row`` in the units of the objective (or that it is exact to the
    data's ``resolution``, :func:`core.resolution.is_exact`)."""
    stat = statistic_words(result.statistic, result.quantile)
    value = float(row["rmse"] if result.objective == "rmse" else row["error_95"])
    exact = exact_words(result, value, resolution)
    if exact is not None:
        return exact
    if result.objective == "rmse":
        return f"root mean squared error {_bound(value)} around the population {stat}"
    return f"95 % of releases within ±{_bound(value)} of the population {stat}"


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
        return f"{_share(gain)} tighter than"
    if gain == 0:
        return "as accurate as"
    if gain > -1:
        return f"{_share(-gain)} less accurate than"
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
    shown = f"±{_bound(value)}" if key == "error_95" else _bound(value)
    se = float(row.get(f"{key}_se", 0.0))
    if se > 0 and not math.isnan(se):
        return f"{shown} (Monte Carlo standard error {_bound(se)})"
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
        label = _lower_first(str(row["design_label"]))
        if design == "cluster" and clusters:
            size = mean_cluster_size(result.N, clusters)
            sentences.append(
                f"{_article(label).capitalize()} {label} gains nothing: clusters of about "
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
                f"{_article(label)} {label} at its best rate, {_share(float(row['rate']))}, {own}"
            )
        elif gain > 0:
            others.append(
                f"{_article(label)} {label} at its best rate, {_share(float(row['rate']))}, "
                "is within two Monte Carlo standard errors of the census"
            )
        else:
            others.append(
                f"{_article(label)} {label} at its best rate, {_share(float(row['rate']))}, "
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


def no_rate_row(design: str, rate: float) -> str:
    """Why the several-statistics table is empty: the design gives no sample at the rate."""
    return (
        f"The {_lower_first(design_label(design))} gives no sample at rate "
        f"{fmt(rate, 'plain')} here (a rate of 1 is the census itself, and a design may need "
        "a smaller rate or more records); choose a lower rate, or the census as the design."
    )


def no_mechanism_note(design: str, relation: str) -> str:
    """Why a chosen, available design has no row: none of the chosen mechanisms fits it."""
    return (
        f"**{design_label(design)}** is left out: none of the chosen mechanisms holds its "
        f"guarantee for this design when neighbouring populations differ by "
        f"{RELATION_LABELS.get(relation, relation)}. Add a mechanism under *Mechanisms*."
    )


#: The accuracy-first tab's way out of a useless plan: the user set the bound.
ASK_SMALLER_BOUND = "Ask for a smaller 95 % error bound above"


def too_noisy_reason(
    result: PlanResult,
    lower: float,
    upper: float,
    share: float,
    remedy: str = "Raise ε_target",
) -> str | None:
    """Why the recommended plan (:attr:`core.planner.PlanResult.recommended`) is too noisy
    to use, or None when it is usable.

    The rule is :func:`core.planner.usability.is_usable`: the plan's 95 % error bound
    against ``share`` of the population value, or of the declared range ``upper − lower``
    when the value is 0. ``remedy`` is the first way out offered (the accuracy-first tab,
    where the user sets the bound, asks for a smaller one).
    """
    bound = float(result.recommended["error_95"])
    value = float(result.population_value)
    if is_usable(bound, value, lower, upper, share):
        return None
    stat = statistic_words(result.statistic, result.quantile)
    if math.isnan(bound):
        why = "its 95 % error bound could not be computed"
    elif math.isinf(bound):
        why = "its error has no finite 95 % bound"
    else:
        rel = relative_error(bound, value, lower, upper)
        if value != 0:
            scale = f"of the population {stat} ({fmt(value, 'value')})"
        else:
            scale = (
                f"of the declared range {fmt(lower, 'value')} to {fmt(upper, 'value')} (the "
                f"population {stat} is 0, so the error is read against the range)"
            )
        why = (
            f"its 95 % error bound, ±{_bound(bound)}, is {_share(rel)} {scale}, "
            f"above the {_share(share)} you accept as usable"
        )
    return (
        f"Too noisy to use: even the best plan releases a {stat} that says little about the "
        f"population, as {why}. {remedy}, or accept a larger share under "
        f"*{USABLE_SHARE_LABEL}*."
    )


def heavy_tail_note(rmse: float, bound: float) -> str | None:
    """Why a plan's RMSE is far above its 95 % bound (heavy-tailed noise), or None.

    The test is :func:`core.planner.usability.is_heavy_tailed`.
    """
    if not is_heavy_tailed(rmse, bound):
        return None
    if bound > 0:
        versus = f"is {fmt(rmse / bound, 'ratio')} times its 95 % bound ±{_bound(bound)}"
    else:
        versus = "is far above its 95 % bound of 0 (at least 95 % of releases are exact)"
    return (
        f"Heavy-tailed noise: the RMSE, {_bound(rmse)}, {versus}. Rare large errors "
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
        rate = "whole register" if r["design"] == "Census" else f"rate {_rate(r['best rate'])}"
        se = float(r["± se"])
        spread = f"± {_bound(se)}" if se > 0 else "(exact)"
        mark = ", exact to the data's resolution" if exact else ""
        accounting = r.get("accounting")
        extra = f"; accounting: {accounting}" if isinstance(accounting, str) and accounting else ""
        if is_heavy_tailed(float(r["RMSE"]), float(r["95 % bound"])):
            extra += (
                "; heavy-tailed noise: rare large errors dominate the RMSE while 95 % of "
                "releases stay within the bound"
            )
        flag = "" if usable is None else " " + (USABLE_FLAG if usable[i - 1] else TOO_NOISY_FLAG)
        size = fmt(r["n"], "count")
        lines.append(
            f"{i}. **{r['design']}, {r['mechanism']}**{flag}: {rate} (n ≈ {size}), "
            f"ε_sample = {fmt(r['ε_sample'], 'guarantee')}; RMSE {_bound(r['RMSE'])} "
            f"{spread}, 95 % bound ±{_bound(r['95 % bound'])}{mark}; error "
            f"{_share(r['sampling part'])} sampling, {_share(r['noise part'])} noise"
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
    best = table[table["is_best"]] if "is_best" in table.columns else table
    best = best.sort_values(key, kind="stable").drop_duplicates("design")
    lines = [f"**Rows known so far** ({done} of {total} designs; the full comparison follows):"]
    for row in best.to_dict("records"):
        value = float(row[key])
        mark = " (exact to the data's resolution)" if is_exact(value, resolution) else ""
        rate = "whole register" if row["design"] == "census" else f"rate {_rate(row['rate'])}"
        lines.append(
            f"- {short_design(str(row['design']))}, {short_mechanism(str(row['mechanism_label']))}"
            f": {rate}, {measure}{_bound(value)}{mark}"
        )
    return "\n".join(lines)


def accuracy_answer(
    target: float, eps_target: float, feasible: bool, best: pd.Series | None, eps_max: float
) -> str:
    """The answer of the accuracy-first search in plain words.

    ``best`` is the best row of the search's plan: at ``eps_target`` when the bound is
    reached; otherwise at ``eps_max``, the largest ε_target searched, where it is the best
    bound within reach (said with its ε_target, so the user knows what to ask for).
    """
    if not feasible or best is None or not math.isfinite(eps_target):
        head = (
            f"No plan reaches a 95 % error bound of ±{_bound(target)} with ε_target up to "
            f"{fmt(eps_max, 'guarantee')}: even a weak guarantee leaves more sampling or noise "
            "error than that."
        )
        if best is None or not math.isfinite(float(best["error_95"])):
            return f"{head} Allow a wider bound."
        reached = float(best["error_95"])
        return (
            f"{head} The best bound within reach is **±{_bound(reached)}**, at "
            f"ε_target = {fmt(eps_max, 'guarantee')} (the largest the search tries), "
            f"privatising {plan_phrase(best)}. Allow a wider bound; the wider it is, the "
            "stronger the guarantee that reaches it."
        )
    return (
        f"The smallest ε_target that brings the 95 % error bound to ±{_bound(target)} or "
        f"below is **{fmt(eps_target, 'guarantee')}**, privatising {plan_phrase(best)} "
        f"(its bound: ±{_bound(float(best['error_95']))})."
    )


#: The progress bar's words before the accuracy-first search has tried an ε_target.
SEARCH_STARTS = "Searching for the smallest ε_target: trying ε_target = 1 first…"
#: The progress bar's words before the several statistics' plans have a design.
SEVERAL_STARTS = "Planning every statistic from one sample: the census first…"


def search_progress(progress: SearchProgress, target: float) -> tuple[float, str]:
    """The fraction done and the words of the accuracy-first progress bar."""
    fraction = min(1.0, progress.done / progress.total)
    if progress.stage == "plan":
        return fraction, (
            f"Found ε_target = {fmt(progress.eps_target, 'guarantee')}; planning every design "
            "there for the chart…"
        )
    verdict = "reaches" if progress.best_error_95 <= target else "misses"
    plans = "plan" if progress.rows == 1 else "plans"
    return fraction, (
        f"Tried ε_target = {fmt(progress.eps_target, 'guarantee')}: the best of "
        f"{progress.rows:,} {plans} gives ±{_bound(progress.best_error_95)}, which "
        f"{verdict} ±{_bound(target)}…"
    )


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
    joint_max, sep_max = _bound(verdict.joint_max), _bound(verdict.separate_max)
    joint_mean = _bound(verdict.joint_mean)
    sep_mean = _bound(verdict.separate_mean)
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
        else f"on {errors.samples:,} samples of the design at rate {_rate(errors.rate)}"
    )
    return (
        f"JointExp: {errors.draws:,} releases each {where} (its exact sampler costs about "
        "m² n steps per sample, so the Monte Carlo is kept to about a second; ± is two "
        "standard errors). Separate releases: each quantile's most accurate mechanism at "
        "the same rate with its share of ε_sample (" + "; ".join(separate_mechanisms) + "); "
        "the table above may show another rate, each statistic's best near the chosen one."
    )


def default_target_reason(target: float, share: float, resolution: float | None) -> str:
    """How the default target error was chosen: ``share`` is
    :data:`TARGET_IQR_SHARE` of the interquartile range, ``target`` the short number at
    least ``share`` and no finer than the data's ``resolution``."""
    words = (
        f"Empty: ±{_bound(target)}, from {_share(TARGET_IQR_SHARE)} of the population's "
        f"interquartile range (the spread of its middle half), ±{_bound(share)}"
    )
    if resolution is not None and share < resolution <= target:
        return (
            f"{words}, which is finer than the data can show ({resolution_words(resolution)}): "
            "rounded up to a bound the data can show."
        )
    return f"{words}." if target == share else f"{words}, rounded up to a short number."


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

COMPARE_FORMULAS = (
    r"\begin{aligned}\mathrm{MSE} &= \underbrace{E[(\hat\theta_S - \theta)^2]}_{\text{sampling "
    r"part}}\\ &+ \underbrace{E[(\tilde\theta - \hat\theta_S)^2]}_{\text{noise part}}"
    r"\end{aligned}",
    r"P\big(|\tilde\theta - \theta| \le b_{95}\big) = 0.95",
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

#: Composition of several statistics on one sample, amplified once.
COMPOSITION_FORMULAS = (
    r"\begin{aligned}\varepsilon_{\mathrm{target}} &= \mathrm{amp}(\varepsilon_1 + \dots + "
    r"\varepsilon_k)\\ &\ge \mathrm{amp}(\varepsilon_1) + \dots + \mathrm{amp}(\varepsilon_k)"
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
