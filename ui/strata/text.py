"""Texts, defaults and the Python snippet of the Stratified sampling page.

Vocabulary (the app's glossary): N population size, n (here also written m, the paper's
symbol) the total sample size, rate r = n/N; ε_sample the budget of the mechanism run on the
sample, ε_target the guarantee the population gets.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from core import amplification as amp
from core import strata
from core.populations import Population
from ui.format import fmt
from ui.snippets import population_snippet
from ui.strata import cache

ALLOC_TAB = "Allocations and accuracy"
PRIVACY_TAB = "Privacy"
SIM_TAB = "Simulation check"
SIZE_TAB = "Random sample size (Theorem 3.1)"
TABS = (ALLOC_TAB, PRIVACY_TAB, SIM_TAB, SIZE_TAB)
#: The "stratum" choice of the neighbour comparison meaning "pick it automatically".
AUTO_STRATUM = -1

#: Presets of the paper's settings; each opens the tab whose controls it sets (``strat_view``).
PRESETS: dict[str, dict[str, Any]] = {
    "Paper's setting (App. E.1)": {
        "population": "establishments",
        "strat_m": 10_000,
        "strat_eps": 0.5,
        "strat_view": ALLOC_TAB,
    },
    "Neyman's neighbour (§7.2)": {
        "population": "establishments",
        "strat_m": 10_000,
        "strat_nb_value": None,
        "strat_nb_stratum": AUTO_STRATUM,
        "strat_view": PRIVACY_TAB,
    },
    "|P| = 14 vs 15, r = 1/10 (§4.3)": {
        "strat_cx_size": 14,
        "strat_cx_rate": 0.1,
        "strat_view": PRIVACY_TAB,
    },
    "Figure 2 (Theorem 3.1)": {
        "strat_rs_n": 10_000,
        "strat_rs_eps": 0.01,
        "strat_rs_mean": 0.5,
        "strat_view": SIZE_TAB,
    },
}

#: The direction control: which ε the user gives.
FROM_SAMPLE = "ε_sample in → ε_target"
FROM_TARGET = "ε_target in → ε_sample"
DIRECTIONS = (FROM_SAMPLE, FROM_TARGET)

#: Default sample size as a share of N.
DEFAULT_SHARE = 0.1

NO_AMPLIFICATION = "no amplification: the bound is not below ε_sample"


EXAMPLE_TABLE_CAPTION = (
    "The allocation table (stratum by stratum) and the variance table appear here once a "
    "population with strata is active; for the example, the two charts above show the same "
    "numbers, and their data downloads have them all."
)


def example_notice(name: str, size: int, k: int, m: int, eps_sample: float) -> str:
    """Why a tab shows the establishments although another population is active."""
    return (
        f"**{name}** has no strata, so there is nothing to allocate in it: stratified sampling "
        "needs a stratum label on every record. **What follows is the paper's example, not the "
        f"active population:** the built-in establishments (N = {size:,} records in {k} "
        f"employee size classes), with the paper's n = {m:,} and this page's "
        f"ε_sample = {fmt(eps_sample, 'guarantee')}. Make them the active population with the "
        "button below, "
        "or upload a CSV with a *Stratum column* on the Population page."
    )


def default_sample_size(population_size: int, strata_count: int) -> int:
    """A default total sample size that fits the population: 10 % of N, at least 2 per stratum.

    Never more than N. For the establishments (N = 100,000) this is the paper's m = 10,000.
    """
    if population_size < 1:
        raise ValueError(f"population_size must be at least 1; got {population_size}")
    wanted = max(round(DEFAULT_SHARE * population_size), 2 * max(strata_count, 1))
    return int(min(population_size, wanted))


def vacuous(bound: float, eps_sample: float) -> bool:
    """True when a bound on ε_target is not below the ε_sample it should amplify."""
    return not bound < eps_sample


def bound_value(bound: float, eps_sample: float) -> str:
    """A bound for a metric: the number, or the words when it does not amplify."""
    return "no amplification" if vacuous(bound, eps_sample) else fmt(bound, "guarantee")


def bound_help(bound: float, eps_sample: float) -> str:
    """Help text of a bound metric: the number first (also when the value shows words)."""
    text = fmt(bound, "guarantee", 6)
    if vacuous(bound, eps_sample):
        text += f"; {NO_AMPLIFICATION} = {fmt(eps_sample, 'guarantee')}"
    return text


def verdict(
    var_table: pd.DataFrame,
    cmp: strata.NeighbourComparison | None,
    summ: strata.StratumSummary | None,
    m: int,
    population_size: int,
    eps: float,
) -> str:
    """Two plain-words paragraphs: which allocation is more accurate, which one is private.

    Worded for every sample size: ``m = N`` (a census: no sampling error and no
    amplification), tiny ``m`` (strata left empty) and the ordinary case in between.
    """
    rate = m / population_size
    census = m >= population_size
    v = dict(zip(var_table["design"], var_table["variance"], strict=True))
    ney, rand = v[cache.NEYMAN], v[cache.PROP_RAND]
    spread = int(np.count_nonzero(summ.sds > 0)) if summ is not None else 0
    if census:
        acc = (
            f"**Accuracy.** n = N = {population_size:,}: every design takes every record, so "
            "the weighted mean is the population mean and no design has a sampling error to "
            "compare. Lower n to see the allocations differ."
        )
    elif not np.isfinite(ney):
        acc = (
            f"**Accuracy.** n = {m:,} is smaller than the number of strata with spread "
            f"({spread}): some stratum gets no record and the weighted mean is undefined. "
            f"Choose n ≥ {spread} (at least 2 per stratum is a sensible minimum)."
        )
    elif ney == 0:
        acc = (
            f"**Accuracy.** With n = {m:,} records Neyman allocation takes every stratum with "
            "spread whole: its weighted mean has no sampling error."
        )
    elif np.isfinite(rand):
        acc = (
            f"**Accuracy.** With n = {m:,} records, Neyman allocation estimates the mean with "
            f"a standard error of {fmt(np.sqrt(ney), 'error')}, against "
            f"{fmt(np.sqrt(rand), 'error')} for "
            f"randomised proportional allocation: its variance is {fmt(rand / ney, 'ratio')}× "
            "smaller."
        )
    else:
        acc = (
            f"**Accuracy.** With n = {m:,} records some strata have r·N_i < 1, so randomised "
            "proportional allocation may leave one empty (infinite variance); Neyman "
            f"allocation has a standard error of {fmt(np.sqrt(ney), 'error')}."
        )
    bound = float(strata.proportional_eps_bound(eps, rate))
    srs = float(amp.eps_target(eps, rate))
    if census:
        return (
            f"{acc}\n\n**Privacy.** With n = N nothing is sampled, so there is no "
            f"amplification: ε_target = ε_sample = {eps:g} for every design."
        )
    if cmp is not None and cmp.count_loss(eps, "neyman") > 0:
        moved = int(np.abs(cmp.neyman_shift).sum())
        ney_text = (
            "Neyman's allocation depends on the data: changing one record changes its "
            f"stratum sample sizes by {moved} in total, so a mechanism that releases noisy "
            f"stratum sample sizes leaks {moved}·ε_sample = "
            f"{fmt(cmp.count_loss(eps, 'neyman'), 'guarantee')} "
            "between the two populations — "
            + ("more than" if moved > 1 else "as much as")
            + f" privatising the whole population (ε_sample = {eps:g}). No guarantee can be "
            "better."
        )
    else:
        ney_text = (
            "Here changing the smallest record does not move Neyman's allocation, but its "
            "sizes still depend on the stratum spreads, which no theorem protects."
        )
    small = int(np.count_nonzero(rate * summ.sizes < 1)) if summ is not None else 0
    if small:
        prop_text = (
            "Theorem 7.2 would bound randomised proportional allocation, but it needs "
            f"r·N_i ≥ 1 in every stratum and {small} "
            + ("stratum is" if small == 1 else "strata are")
            + f" smaller than 1/r = {fmt(1 / rate, 'count')} records here: raise n."
        )
    elif not vacuous(bound, eps):
        prop_text = (
            f"Randomised proportional allocation guarantees ε_target ≤ {fmt(bound, 'guarantee')} "
            f"(Theorem 7.2), below ε_sample = {eps:g}, though above the {fmt(srs, 'guarantee')} of "
            "Poisson "
            "sampling at the same rate (eq. 3)."
        )
    else:
        prop_text = (
            f"Randomised proportional allocation at r = {fmt(rate, 'rate')}: {NO_AMPLIFICATION} "
            f"(Theorem 7.2 gives {fmt(bound, 'guarantee')}, ε_sample = {eps:g}). The bound is "
            "about "
            "6·r·ε_sample, so it amplifies only for small rates and small budgets."
        )
    return f"{acc}\n\n**Privacy.** {ney_text} {prop_text}"


def target_reading(eps_target: float, rate: float, allowed: float, poisson: float) -> str:
    """Plain words for the ε_target → ε_sample direction (markdown)."""
    text = (
        f"To promise the population **ε_target = {eps_target:g}** at rate r = {fmt(rate, 'rate')}, "
        f"randomised proportional allocation lets the mechanism spend **ε_sample = "
        f"{fmt(allowed, 'guarantee')}** (Theorem 7.2 inverted exactly); Poisson sampling at the "
        "same rate "
        f"would allow {fmt(poisson, 'guarantee')} (eq. 3). Neyman allocation depends on the data "
        "and gets no "
        "such guarantee."
    )
    if allowed <= eps_target:
        text += (
            f" Here the theorem allows no more than ε_target itself — {NO_AMPLIFICATION}: at "
            "this rate and budget the stratified sample buys no privacy."
        )
    return text


def python_snippet(pop: Population, m: int, eps: float, seed: int) -> str:
    """Code that recomputes the page's numbers with :mod:`core.strata` on the active population.

    The population comes from :func:`ui.snippets.population_snippet`; the headline numbers are
    printed as ``name = value`` lines so they can be compared with the page.
    """
    return f"""{population_snippet(pop)}from core import amplification as amp
from core import strata

m, eps_sample = {m}, {eps!r}  # total sample size and the budget on the sample
rate = m / pop.size

# Theorem 7.2 (randomised proportional allocation) against Poisson sampling (eq. 3)
print("bound =", strata.proportional_eps_bound(eps_sample, rate))
print("poisson =", amp.eps_target(eps_sample, rate))

if pop.strata is not None:
    summ = strata.stratum_summary(pop.values, pop.strata)
    neyman = strata.neyman_allocation(summ.sizes, summ.sds, m)
    rounded = strata.proportional_allocation(summ.sizes, rate, "deterministic")
    randomised = strata.proportional_allocation(summ.sizes, rate, "randomized", rng={seed})
    print(neyman, rounded, randomised, sep="\\n")
    print("variance Neyman =", strata.stratified_mean_variance(summ.sizes, summ.sds, neyman))
    print("variance randomised =",
          strata.randomized_proportional_variance(summ.sizes, summ.sds, rate))
    # The Appendix E.1 neighbour: the smallest record raised to the upper bound
    neighbour = strata.top_code_neighbour(pop.values, summ, new_value=pop.upper)
    cmp = strata.compare_neighbours(summ, neighbour, m)
    print("Neyman shift:", cmp.neyman_shift)
    print("neyman loss =", cmp.count_loss(eps_sample, "neyman"))
"""


def neighbour_degradation(
    cmp: strata.NeighbourComparison, eps_sample: float, strata_count: int
) -> str | None:
    """The privacy degradation of Neyman's allocation between P and its neighbour P′, in words.

    Bun et al. §7.2 / Appendix E.1: releasing the noisy stratum sample sizes of an
    ``eps_sample``-DP mechanism leaks ``eps_sample * sum_i |n'_i - n_i|`` between P and P′
    (``cmp.count_loss``), compared with rounded and randomised proportional allocation.
    None when Neyman's allocation does not move.
    """
    top = cmp.most_moved
    shift = int(cmp.neyman_shift[top])
    moved = int(np.abs(cmp.neyman_shift).sum())
    if not moved:
        return None
    ney_all = cmp.count_loss(eps_sample, "neyman")
    ney_one = cmp.count_loss(eps_sample, "neyman", "largest")
    det_all = cmp.count_loss(eps_sample, "proportional")
    rnd_all = cmp.count_loss(eps_sample, "randomized")
    return (
        f"**Privacy degradation.** Neyman's stratum sample sizes change by {moved} in "
        f"total; stratum **{cmp.labels[top]}** moves most ({shift:+d}). A mechanism "
        "that is ε_sample-DP on the sample and releases the noisy sample size of that "
        f"stratum leaks {fmt(ney_one, 'guarantee')} = {abs(shift)}·ε_sample between P and P′; "
        f"releasing all {strata_count} noisy sizes leaks {fmt(ney_all, 'guarantee')} = "
        f"{moved}·ε_sample. "
        "Without any sampling the loss would be at most ε_sample = "
        f"{fmt(eps_sample, 'guarantee')}. The same "
        f"release leaks {fmt(det_all, 'guarantee')} under rounded and {fmt(rnd_all, 'guarantee')} "
        "under randomised "
        "proportional "
        "allocation."
    )
