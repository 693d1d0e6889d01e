"""Texts and "Reproduce in Python" snippets of the Mean and median gains page.

Every snippet starts from :func:`ui.snippets.population_snippet`, so it rebuilds the *active*
population (a built-in with its seed, or the uploaded file with its columns and bounds), and
prints a number the page shows, computed the same way.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import pandas as pd

from core.gains import compare_with_population
from core.populations import Population
from ui.format import percent
from ui.snippets import population_snippet

MEAN_TAB = "Mean: noise ratio r and bound q"
MEAN_POP_TAB = "Mean on this population"
SENS_TAB = "Median: smooth sensitivity"
EXP_TAB = "Median: sample or population?"

FIG8_RATES = "0.01, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9"
FIG8_EPS = "0.01, 0.1, 0.5, 1, 3, 5"
TABS = (MEAN_TAB, MEAN_POP_TAB, SENS_TAB, EXP_TAB)

#: Presets of the paper's figures; each opens the tab whose controls it sets (``gain_view``).
PRESETS: dict[str, dict[str, Any]] = {
    "Figure 4–5 (r and q)": {"gain_view": MEAN_TAB, "gain_eps": "0.01, 0.1, 0.5, 1, 3"},
    "Figures 6–7 (lognormal)": {
        "gain_view": EXP_TAB,
        "population": "lognormal",
        "gain_exp_eps": "0.1, 0.5, 1",
        "gain_exp_rates": "0.0101, 0.1001",
        "gain_reps": 1000,
    },
    "Figure 8 (lognormal)": {
        "gain_view": EXP_TAB,
        "population": "lognormal",
        "gain_exp_eps": FIG8_EPS,
        "gain_exp_rates": FIG8_RATES,
        "gain_reps": 1000,
    },
    "Figure 13 (bimodal)": {
        "gain_view": EXP_TAB,
        "population": "bimodal_paper",
        "gain_exp_eps": FIG8_EPS,
        "gain_exp_rates": FIG8_RATES,
        "gain_reps": 1000,
    },
}

#: What the noise violins show; the population's violin is drawn last, in grey.
NOISE_VIOLIN_TEXT = (
    "The noise actually drawn in each repetition (Figures 7 and 12): one violin per sampling "
    "rate n/N, coloured from light (small samples) to dark (large samples), and the "
    "population (rate 1) last, in grey. A narrower violin for a sample means amplification "
    "outweighed its larger sensitivity."
)

#: What the log(MSE) chart marks.
LOG_MSE_TEXT = (
    "Each line is one ε_target: the mean squared error (log scale) of the private sample "
    "median, measured against the population median, with ±2 Monte Carlo standard errors "
    "shaded. The cross at rate 1 is the private population median. A small ring marks every "
    "rate whose MSE is below the population's; the best of them carries a larger, thicker "
    "ring (Hu et al. Figures 8 and 13)."
)


def delta_help(population_size: int, default: float) -> str:
    """Help text of the δ_target control: where its default comes from."""
    return (
        f"Defaults to 1/(2N) of the active population: N = {population_size:,} gives "
        f"{default:.4e}, as Hu et al. use. A value you type is kept and stored in the link."
    )


def vacuous_delta_warning(
    delta_target: float, rates: Sequence[float], amplify_delta: bool
) -> str | None:
    """A warning when δ_sample = δ_target/rate is at least 1 for some rate, else None.

    Theorem 1 of Hu, Drechsler & Kim lets the sample use δ_target/rate; from 1 on that
    bound is vacuous (every mechanism satisfies it), and the simulation caps it just below 1
    (:data:`core.gains.DELTA_SAMPLE_CAP`).
    """
    if not amplify_delta:
        return None
    vacuous = [r for r in rates if not (delta_target / r < 1.0)]
    if not vacuous:
        return None
    listed = ", ".join(f"{r:g}" for r in vacuous)
    return (
        f"δ_sample = δ_target/rate is at least 1 at rate {listed}: that δ bound is vacuous, it "
        "puts no constraint on the sample's mechanism, and the simulation uses δ_sample just "
        "below 1 instead. Lower δ_target or drop these rates."
    )


def _floats(values: Sequence[float]) -> str:
    return "[" + ", ".join(f"{float(v)!r}" for v in values) + "]"


def theory_snippet(eps_values: Sequence[float], q: float = 0.6) -> str:
    """Python printing the largest rate with a given q per ε_target (§4.1); no population."""
    return f"""from core import amplification as amp

for eps_target in {_floats(eps_values)}:
    # largest sampling rate n/N at which q = {q:g} (Hu et al. §4.1)
    print(eps_target, amp.rate_for_q(eps_target, {q!r}))
"""


def mean_population_snippet(pop: Population, eps_values: Sequence[float]) -> str:
    """Python printing V_N (eq. 6) and V_n (eq. 7) for the active population."""
    return (
        population_snippet(pop)
        + f"""from core.gains import mean_gain_table

table = mean_gain_table(
    pop.values, pop.lower, pop.upper, eps_targets={_floats(eps_values)}, rates=[0.01, 0.1, 0.5]
)
print(table[["eps_target", "rate", "V_n", "V_N"]])
for eps_target, sub in table.groupby("eps_target"):
    print(f"eps_target={{eps_target:g}} V_N={{sub['V_N'].iloc[0]:.6g}}")
"""
    )


def sensitivity_snippet(
    pop: Population, eps_values: Sequence[float], reps: int, delta: float, seed: int
) -> str:
    """Python repeating the private medians with smooth sensitivity (Figure 2, right)."""
    return (
        population_snippet(pop)
        + f"""from core.illustrations import privatized_medians

releases = privatized_medians(
    pop.values, pop.lower, pop.upper, eps_values={_floats(eps_values)}, reps={int(reps)},
    delta={delta!r}, seed={int(seed)}, sensitivity="smooth",
)
for eps, group in releases.groupby("eps"):
    print(f"eps={{eps:g}} median release={{group['release'].median():.6g}}")
"""
    )


def experiment_snippet(
    pop: Population,
    *,
    eps_values: Sequence[float],
    rates: Sequence[float],
    reps: int,
    delta_target: float,
    seed: int,
    amplify_delta: bool,
    estimator: str,
) -> str:
    """Python repeating the median experiment of §4.3 and printing the page's verdicts.

    The verdict's words come from :func:`experiment_verdict` (this module imports no
    Streamlit, so the snippet runs in plain Python).
    """
    return (
        population_snippet(pop)
        + f"""from core.gains import median_gain_experiment
from ui.gains.text import experiment_verdict

eps_targets = {_floats(eps_values)}
result = median_gain_experiment(
    pop.values, lower=pop.lower, upper=pop.upper,
    eps_targets=eps_targets, rates={_floats(rates)}, reps={int(reps)},
    delta_target={float(delta_target)!r}, seed={int(seed)}, amplify_delta={bool(amplify_delta)},
    estimator={estimator!r},
)
print(result.summary[["eps_target", "rate", "log_mse", "log_mse_se"]])
for eps_target in eps_targets:
    print(experiment_verdict(result.summary, eps_target))
"""
    )


def _factor(x: float) -> str:
    """A ratio >= 1 with three significant digits and thousands separators."""
    if not math.isfinite(x):
        return "infinitely many"
    if x < 100.0:
        return f"{x:.3g}"
    return f"{round(x, 2 - math.floor(math.log10(x))):,.0f}"


def _change_words(rel: float, better: bool) -> str:
    """Words for ``rel = MSE_sample / MSE_population - 1``."""
    if better:
        if rel > -0.9:
            return f"{100.0 * -rel:.0f} % lower MSE"
        return f"an MSE {_factor(1.0 / (1.0 + rel))} times smaller"
    if rel >= 1.0:
        return f"{_factor(rel + 1.0)} times the MSE"
    return f"{max(100.0 * rel, 0.0):.0f} % higher MSE"


def experiment_verdict(summary: pd.DataFrame, eps_target: float) -> str:
    """One plain-words sentence: does sampling beat privatising the population at ``eps_target``?

    Puts :func:`core.gains.compare_with_population` (Hu et al. §4.3: the sample rate with
    the smallest MSE against the population row) into words, and adds that more repetitions
    are needed when the two log(MSE) values lie within two Monte Carlo standard errors.

    Parameters
    ----------
    summary : pandas.DataFrame
        ``MedianExperiment.summary``.
    eps_target : float
        One of the privacy losses in the summary.

    Returns
    -------
    str
        For example "At ε_target = 0.5 the 40 % sample is best: 22 % lower MSE than
        privatising the population."

    Raises
    ------
    ValueError
        As :func:`core.gains.compare_with_population` (a missing column, ``eps_target`` or
        population row).
    """
    cmp = compare_with_population(summary, eps_target)
    eps_words = f"At ε_target = {eps_target:g}"
    if math.isnan(cmp.best_sample_rate):
        return f"{eps_words} only the population was simulated; there is no sample to compare."
    if cmp.better:
        text = (
            f"{eps_words} the {percent(cmp.best_sample_rate)} sample is best: "
            f"{_change_words(cmp.relative_change, True)} than privatising the population."
        )
    else:
        text = (
            f"{eps_words} no sampling rate beats the population; the best sample "
            f"({percent(cmp.best_sample_rate)}) has {_change_words(cmp.relative_change, False)}."
        )
    if cmp.within_error:
        text += (
            " The difference is within Monte Carlo error (2 standard errors); "
            "more repetitions are needed to tell them apart."
        )
    return text
