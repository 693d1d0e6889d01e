"""Texts, presets, labels and the Python snippet of the Release planner page.

Pure functions of numbers (no Streamlit): the recommendation, the design notes and the
explanations are tested without an app. Vocabulary: N population size, n sample size,
rate = n/N; ε_target the guarantee promised for the population, ε_sample the budget the
mechanism spends on the sample; a cluster's size is M.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import pandas as pd

from core.accounting.zcdp import CONVERSION, CONVERSION_FORMULA
from core.designs.registry import DESIGNS
from core.mechanisms import MECHANISMS
from core.planner import (
    DESIGN_LABELS,
    MEAN_MECHANISMS,
    QUANTILE_MECHANISMS,
    PlanResult,
    offered_mechanisms,
)
from core.planner.usability import (
    DEFAULT_USABLE_SHARE,
    is_usable,
    relative_error,
)
from ui.format import fmt
from ui.planner.figures import ALL_LINES, BEST_LINES, short_mechanism, statistic_words

COMPARE_TAB = "Compare designs"
ACCURACY_TAB = "Accuracy first"
SEVERAL_TAB = "Several statistics"
PUBLICATION_TAB = "Publication table"
TABS = (COMPARE_TAB, ACCURACY_TAB, SEVERAL_TAB, PUBLICATION_TAB)

#: The statistics the page offers, with their on-screen names ("quantile" asks for q).
STATISTIC_LABELS = {"median": "median", "mean": "mean", "quantile": "another quantile"}
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
#: Choices of the repetitions T, and the one the page's slider starts at.
REPS_OPTIONS = (50, 100, 200, 500, 1000)
REPS_DEFAULT = 200
#: The promised ε_target the page's box starts at (a pure ε promise).
EPS_TARGET_DEFAULT = 1.0
#: The usable-error control: its label, default (in %) and help.
USABLE_SHARE_LABEL = "Usable error (% of the value)"
USABLE_SHARE_DEFAULT = round(100 * DEFAULT_USABLE_SHARE)
USABLE_SHARE_HELP = (
    "A release is too noisy to use when its 95 % error bound is above this share of the "
    "statistic's population value (or of the declared range, upper − lower, when the value "
    "is 0). Such plans are flagged *too noisy* in the ranked list, and when even the best "
    "plan is, the verdict is a warning."
)

#: Presets: Hu et al.'s lognormal population (§4.3) at a small and a large ε_target, the mean,
#: the establishment register with strata and clusters, and a count of its most common size
#: class. Each opens the comparison tab.
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
    "Count by size class": {
        "population": "establishments",
        "plan_stat": "count",
        "plan_view": COMPARE_TAB,
    },
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
PROPER_NAMES = ("Poisson", "Neyman", "Bernoulli")


def lower_first(label: str) -> str:
    """``label`` for the middle of a sentence: first letter lower case unless a name."""
    if not label or label.startswith(PROPER_NAMES):
        return label
    return label[:1].lower() + label[1:]


def article(phrase: str) -> str:
    """``"a"`` or ``"an"`` before ``phrase`` (by its first letter or digit sound)."""
    first = phrase.lstrip()[:1].lower()
    return "an" if first in "aeiou" or phrase.lstrip().startswith(("8", "11 ", "18")) else "a"


def share_words(fraction: float) -> str:
    """A share as a percentage (``0.2`` → ``20 %``, :func:`ui.format.fmt`)."""
    return fmt(fraction, "share")


def rate_words(rate: float) -> str:
    """A sampling rate as a percentage (``0.0213`` → ``2.13 %``, :func:`ui.format.fmt`)."""
    return fmt(rate, "rate")


def bound_words(value: float) -> str:
    """An error in the data's units, three significant digits written out (``1,590``)."""
    return fmt(value, "error")


def plan_phrase(row: pd.Series) -> str:
    """ "a 20 % proportional stratified sample" or "the whole register (census)"."""
    if row["design"] == "census":
        return "the whole register"
    if row["design"] == "cluster" and not math.isnan(float(row.get("clusters_sampled", math.nan))):
        return (
            f"a cluster sample of {fmt(float(row['clusters_sampled']), 'count')} clusters "
            f"(about {rate_words(float(row['rate']))} of the records)"
        )
    phrase = f"{rate_words(float(row['rate']))} {lower_first(str(row['design_label']))}"
    return f"{article(phrase)} {phrase}"


def resolution_words(resolution: float | None) -> str:
    """The data's resolution in a sentence: "the values are recorded in steps of 1"."""
    if resolution is None:
        return "the data's resolution is unknown"
    return f"the values are recorded in steps of {fmt(resolution, 'value')}"


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
            f"its 95 % error bound, ±{bound_words(bound)}, is {share_words(rel)} {scale}, "
            f"above the {share_words(share)} you accept as usable"
        )
    return (
        f"Too noisy to use: even the best plan releases a {stat} that says little about the "
        f"population, as {why}. {remedy}, or accept a larger share under "
        f"*{USABLE_SHARE_LABEL}*."
    )


COMPARE_FORMULAS = (
    r"\begin{aligned}\mathrm{MSE} &= \underbrace{E[(\hat\theta_S - \theta)^2]}_{\text{sampling "
    r"part}}\\ &+ \underbrace{E[(\tilde\theta - \hat\theta_S)^2]}_{\text{noise part}}"
    r"\end{aligned}",
    r"P\big(|\tilde\theta - \theta| \le b_{95}\big) = 0.95",
)
