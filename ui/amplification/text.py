"""Tabs, presets and "Reproduce in Python" snippets of the Amplification page.

The page computes nothing on the population's values, so its snippets carry only the
page's current parameters; each prints numbers the page shows.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import pandas as pd

from core import risk
from ui.format import fmt

FORWARD_TAB = "ε_sample against the rate"
REVERSE_TAB = "Reverse view and calculator"
STEINKE_TAB = "Steinke: limits of amplification"
ODDS_TAB = "ε as odds"
TABS = (FORWARD_TAB, REVERSE_TAB, STEINKE_TAB, ODDS_TAB)

#: Presets; each opens the tab whose controls it sets (``amp_view``).
PRESETS: dict[str, dict[str, Any]] = {
    "Hu et al. Figure 3": {
        "amp_view": FORWARD_TAB,
        "amp_eps_targets": "0.1, 0.5, 1",
        "amp_rate_min": 0.001,
        "amp_log_x": False,
        "amp_log_y": False,
    },
    "Paper example: 101 of 10,001": {
        "amp_view": REVERSE_TAB,
        "amp_eps_targets": "0.1, 1",
        "amp_N": 10001,
        "amp_n": 101,
    },
    "Steinke's figures": {
        "amp_view": STEINKE_TAB,
        "amp_st_eps": "0.01, 0.1, 1, 2",
        "amp_st_p": "0.001, 0.01, 0.1, 0.5",
        "amp_st_c": "0.2, 0.5, 2, 5",
    },
}


def default_sample_size(population_size: int) -> int:
    """Default n of the calculator: a 1 % sample, rounded up (101 of N = 10,001)."""
    if population_size < 1:
        raise ValueError(f"population_size must be at least 1, got {population_size}")
    return max(1, math.ceil(population_size / 100))


def delta_help(population_size: int, default: float) -> str:
    """Help text of δ_target: its default is 1/(2N) of the active population."""
    return (
        f"Defaults to 1/(2N) of the active population: N = {population_size:,} gives "
        f"{fmt(default, 'delta')} (Hu et al. use 1/(2N)). A value you type is kept and "
        "stored in the link."
    )


def delta_sample_status(delta_sample: float) -> str:
    """Plain words for a δ_sample: at 1 or above the δ constraint on the sample is vacuous."""
    if not (delta_sample < 1.0):
        return "vacuous: δ_sample ≥ 1 puts no constraint on the sample mechanism"
    return "constrains the sample mechanism"


def _floats(values: Sequence[float]) -> str:
    return "[" + ", ".join(f"{float(v)!r}" for v in values) + "]"


def forward_snippet(eps_targets: Sequence[float], rate_min: float, delta_target: float) -> str:
    """Python for the forward view: ε_sample and δ_sample at the smallest rate shown."""
    return f"""from core import amplification as amp

rate_min = {float(rate_min)!r}          # smallest sampling rate n/N shown
for eps_target in {_floats(eps_targets)}:
    # ε_sample = log(1 + (e^ε_target − 1)/rate)  (Hu et al. Theorem 1)
    print(f"eps_target={{eps_target:g}} eps_sample={{amp.eps_sample(eps_target, rate_min):.6g}}")
print(f"delta_sample={{amp.delta_sample({float(delta_target)!r}, rate_min):.6g}}")
"""


def reverse_snippet(
    eps_targets: Sequence[float], delta_target: float, population_size: int, sample_size: int
) -> str:
    """Python for the calculator: what n of N may spend for each ε_target."""
    return f"""from core import amplification as amp

N, n = {int(population_size)}, {int(sample_size)}
rate = n / N
for eps_target in {_floats(eps_targets)}:
    print(f"eps_target={{eps_target:g}} eps_sample={{amp.eps_sample(eps_target, rate):.6g}}")
delta_sample = amp.delta_sample({float(delta_target)!r}, rate)
print(f"delta_sample={{delta_sample:.6g}}", "(vacuous)" if delta_sample >= 1 else "")
"""


def steinke_snippet(
    eps_values: Sequence[float], rates: Sequence[float], constants: Sequence[float]
) -> str:
    """Python for Steinke's ratio p·ε_p/ε at the page's ε and p, and the floors log(1+c)/c."""
    return f"""from core import amplification as amp

for eps in {_floats(eps_values)}:
    for p in {_floats(rates)}:
        print(f"eps={{eps:g}} p={{p:g}} ratio={{amp.steinke_ratio(eps, p):.6g}}")
for c in {_floats(constants)}:
    # with ε = c·p the ratio never falls below log(1 + c)/c (Steinke, eq. 6)
    print(f"c={{c:g}} floor={{amp.steinke_floor(c):.6g}}")
"""


# ---------------------------------------------------------------------------------------
# ε as odds (core.risk)
# ---------------------------------------------------------------------------------------

#: The attacker's prior: default, range and label shared by the Amplification page and the
#: planner (one in a hundred, on a log scale).
PRIOR_DEFAULT = 0.01
PRIOR_MIN = 1e-6
PRIOR_MAX = 0.99
PRIOR_LABEL = "Attacker's prior that Alice is in the data"
PRIOR_HELP = (
    "The attacker's belief before the release. 0.01 means they think it 1 in 100; the "
    "bound is the worst case over attackers, whatever else they know."
)


def one_in(prior: float) -> str:
    """A prior in words: ``"1 in 100"`` (up to one half), ``"70 in 100"`` above."""
    p = float(prior)
    if not 0.0 < p < 1.0:
        raise ValueError(f"prior must be in the interval (0, 1); got {prior!r}")
    if p <= 0.5:
        odds = 1.0 / p
        return f"1 in {round(odds):,}" if odds >= 10 else f"1 in {fmt(odds, 'ratio', 2)}"
    return f"{in_100(p)} in 100"


def in_100(probability: float) -> str:
    """A probability as "X" of "X in 100": three significant digits, more near certainty.

    ``0.0294`` → ``"2.94"``, ``0.999`` → ``"99.9"``, ``0.99996`` → ``"99.996"``; a value
    that rounds to 1 in double precision is ``"100"``.
    """
    p = float(probability)
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"probability must be in the interval [0, 1]; got {probability!r}")
    if p == 1.0:
        return "100"
    if p < 0.99:
        return fmt(100 * p, "plain", 3)
    # keep the first significant digit of the distance to 100, so 99.996 never prints as 100
    decimals = min(12, max(1, -math.floor(math.log10(100 * (1 - p)))))
    return f"{100 * p:.{decimals}f}"


def odds_sentence(prior: float, posterior: float, budget: str) -> str:
    """ "Someone who thought it 1 in 100 … can become at most X in 100 sure" for one ε."""
    return (
        f"With {budget}, someone who thought it {one_in(prior)} that Alice's record is in the "
        f"data can become at most **{in_100(posterior)} in 100** sure."
    )


def odds_summary(
    prior: float,
    eps_target: float,
    bound_target: float,
    eps_sample: float,
    bound_sample: float,
    delta_target: float,
) -> str:
    """ε_target and ε_sample side by side as odds, with the δ caveat and the worst case."""
    target = odds_sentence(prior, bound_target, f"ε_target = {fmt(eps_target, 'guarantee')}")
    sample = (
        f"Read with the budget spent on the sample, ε_sample = {fmt(eps_sample, 'guarantee')}, the "
        "same "
        f"sentence would say at most **{in_100(bound_sample)} in 100**: what the release "
        "would allow if the sample were not kept secret."
    )
    return " ".join([target, sample, delta_caveat(delta_target)])


def delta_caveat(delta_target: float, *, both: bool = True) -> str:
    """What an odds bound means (the worst case) and what δ_target > 0 adds to it.

    ``both`` words it for the ε_target and ε_sample pair, else for one bound. The chance
    of doubled odds is :func:`core.risk.excess_chance` at t = ln 2 (that is, 2·δ).
    """
    noun, pronoun = (
        ("Both are upper bounds", "the ε_target bound") if both else ("It is an upper bound", "it")
    )
    words = f"{noun} for the worst-case attacker, whatever else they know"
    if delta_target <= 0:
        return words + ", on every release."
    doubled = float(risk.excess_chance(delta_target, math.log(2.0)))
    return (
        f"{words}. With δ_target = {fmt(delta_target, 'delta')}, {pronoun} can be exceeded on rare "
        f"releases: twice these odds with a chance of at most {fmt(doubled, 'delta')} "
        "(2·δ_target), "
        f"certainty with a chance of at most {fmt(delta_target, 'delta')}."
    )


def odds_display(table: pd.DataFrame) -> pd.DataFrame:
    """The odds table (``figures.odds_table``) as short text cells that wrap on a phone."""
    return pd.DataFrame(
        {
            "ε_target": [fmt(e, "guarantee") for e in table["ε_target"]],
            "ε_sample": [fmt(e, "guarantee") for e in table["ε_sample"]],
            "with ε_target: at most": [
                f"{in_100(v / 100)} in 100" for v in table["ε_target: at most … in 100"]
            ],
            "with ε_sample: at most": [
                f"{in_100(v / 100)} in 100" for v in table["ε_sample: at most … in 100"]
            ],
        }
    )


ODDS_INTRO = (
    "A number like ε = 1 means little to most readers. Read it as odds: before the release "
    "an attacker has a belief (the **prior**) that Alice's record is in the data; a release "
    "that is ε-differentially private can multiply the attacker's odds by at most e^ε. "
    "Below, each ε of the page is translated into how sure such an attacker can become."
)

ODDS_EXPLANATION = (
    "Each curve is the most an attacker can believe, after the release, that Alice's record "
    "is in the data, against what they believed before (dotted: no release, the belief stays "
    "where it was). For small priors the bound is close to e^ε times the prior, so on these "
    "log axes the curves run parallel to the diagonal, e^ε higher; near certainty they "
    "bend towards 1. The ε_sample curve is what the same release would allow if the sample "
    "were not kept secret: the gap between the two curves is what that secrecy is worth. "
    "These are bounds, reached only by the worst-case mechanism (randomized response) and "
    "output."
)

ODDS_FORMULAS = (
    r"\frac{\Pr[\text{in}\mid\text{release}]}{\Pr[\text{out}\mid\text{release}]}"
    r" \le e^{\varepsilon}\,\frac{\text{prior}}{1-\text{prior}}",
    r"\text{posterior} \le \frac{\text{prior}}{\text{prior} + (1-\text{prior})\,"
    r"e^{-\varepsilon}}",
)


def even_odds_sentence(prior: float, eps_even: float, eps_target: float, eps_sample: float) -> str:
    """Which of the two budgets lets an attacker at ``prior`` reach even odds (1 in 2)."""
    reach = [
        name for name, e in (("ε_target", eps_target), ("ε_sample", eps_sample)) if e >= eps_even
    ]
    if not reach:
        verdict = "neither budget here allows that"
    elif len(reach) == 2:
        verdict = "both budgets here allow it"
    else:
        verdict = f"only {reach[0]} here allows it"
    return (
        f"To let an attacker who starts at {one_in(prior)} become as sure as a coin flip "
        f"(1 in 2), a release needs ε of at least {fmt(eps_even, 'guarantee')}: {verdict}."
    )


ODDS_FORMULA_WORDS = (
    "In words: the odds after the release are at most e^ε times the odds before, whatever "
    "the release shows. With δ_target > 0, rare releases can go further: the odds can exceed "
    "this by a factor e^t with a chance of at most δ_target/(1 − e^−t)."
)


def odds_snippet(
    eps_targets: Sequence[float], rate: float, prior: float, delta_target: float
) -> str:
    """Python for the odds tab: the posterior bound for each ε_target and its ε_sample."""
    return f"""from core import amplification as amp
from core import risk

rate, prior = {float(rate)!r}, {float(prior)!r}
for eps_target in {_floats(eps_targets)}:
    eps_sample = amp.eps_sample(eps_target, rate)
    # posterior <= prior / (prior + (1 - prior) e^-eps); with delta > 0 the odds can exceed
    # e^eps by a factor e^t with chance <= risk.excess_chance(delta, t)
    target = risk.posterior_bound(eps_target, prior, delta={float(delta_target)!r})
    sample = risk.posterior_bound(eps_sample, prior)
    print(f"eps_target={{eps_target:g}} eps_sample={{eps_sample:.6g}} "
          f"at most {{100 * target:.6g}} / {{100 * sample:.6g}} in 100")
"""
