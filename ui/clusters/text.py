"""Texts, formulas and the Python snippet of the Cluster sampling page.

Vocabulary (the app's glossary): N population size, n sample size, rate = n/N; a cluster's
size is **M** (M_i the protected person's cluster, M_min and M_max the smallest and largest
of the other clusters); k clusters of which ℓ are drawn; ε_sample is the budget of the
mechanism run on the sample, ε_target the guarantee the population gets.
"""

from __future__ import annotations

import math
from typing import Any

from core.populations import Population
from ui.format import fmt
from ui.snippets import population_snippet

SIZE_TAB = "ε_target vs cluster size"
FRACTION_TAB = "ε_target vs fraction drawn"
POPULATION_TAB = "This population's clusters"
TWO_STAGE_TAB = "Two-stage"
OTHER_TAB = "PPS & systematic"
TEST_TAB = "Hypothesis-testing view"

TABS = (SIZE_TAB, FRACTION_TAB, POPULATION_TAB, TWO_STAGE_TAB, OTHER_TAB, TEST_TAB)

#: Presets of the page (households, regions, unequal sizes, singletons, systematic).
PRESETS: dict[str, dict[str, Any]] = {
    "Households": {
        "cl_size": 3,
        "cl_spread": 1.0,
        "cl_k": 10000,
        "cl_l": 1000,
        "cl_eps": 1.0,
    },
    "Regions": {
        "cl_size": 1000,
        "cl_spread": 1.0,
        "cl_k": 100,
        "cl_l": 10,
        "cl_eps": 0.1,
    },
    "Unequal sizes": {"cl_size": 30, "cl_spread": 10.0, "cl_eps": 0.01},
    "Singletons = SRS": {"cl_size": 1, "cl_spread": 1.0},
    "Systematic sampling": {"cl_view": OTHER_TAB, "cl_sys_k": 100},
}

#: The direction control: which ε the user gives.
FROM_SAMPLE = "ε_sample in → ε_target"
FROM_TARGET = "ε_target in → ε_sample"
DIRECTIONS = (FROM_SAMPLE, FROM_TARGET)

SYMBOLS_CAPTION = (
    "Symbols: **N** population size, **n** sample size, rate = n/N; **M** a cluster's size "
    "(M_i the protected person's cluster, M_min / M_max the smallest / largest other cluster); "
    "**k** clusters, **ℓ** of them drawn; **ε_sample** the budget of the mechanism run on the "
    "sample, **ε_target** the guarantee the population gets."
)

#: Theorems 5.1 and 5.2 (q = ℓ/k), each on two lines so they fit beside a laptop-size chart.
THEOREM_FORMULAS = (
    r"\begin{aligned}&\text{Thm 5.1:}\\ &\varepsilon_{\mathrm{target}} \ge \ln\!\Big(1 + "
    r"\frac{q\,(e^{\varepsilon_{\mathrm{sample}}}-1)}{D_{\min}}\Big),\\"
    r"&D_{\min} = q + (1-q)\,e^{-(M_i + M_{\min})\,\varepsilon_{\mathrm{sample}}}\end{aligned}",
    r"\begin{aligned}&\text{Thm 5.2:}\\ &\varepsilon_{\mathrm{target}} \le \ln\!\Big(1 + "
    r"\frac{q\,(e^{\varepsilon_{\mathrm{sample}}}-1)}{D_{\max}}\Big),\\"
    r"&D_{\max} = q + (1-q)\,e^{-(M_i + M_{\max})\,\varepsilon_{\mathrm{sample}}}\end{aligned}",
)
SRS_FORMULA = (
    r"\begin{aligned}&\text{eq. (3), Poisson at rate } q = \ell/k:\\"
    r"&\varepsilon_{\mathrm{target}} = \ln\!\big(1 + q\,(e^{\varepsilon_{\mathrm{sample}}}-1)"
    r"\big)\end{aligned}"
)
SRS_EXPLANATION = (
    "The dotted line is equation (3) at the same fraction q = ℓ/k: the exact guarantee of "
    "**Poisson sampling** (each record kept independently with probability q), which is also "
    "what simple random sampling of the same share of records is usually quoted at."
)


def fraction_sentence(
    clusters_total: int, clusters_sampled: int, pop_clusters: int, pop_sampled: int
) -> str:
    """How the population's ℓ relates to the ℓ/k of the controls, computed, never assumed.

    Says "the same fraction as above" only when ``pop_sampled / pop_clusters`` equals
    ``clusters_sampled / clusters_total`` exactly; otherwise names both fractions.
    """
    share = clusters_sampled / clusters_total
    share_pop = pop_sampled / pop_clusters
    drawn = f"**ℓ = {pop_sampled:,} of {pop_clusters:,}** clusters"
    if pop_sampled * clusters_total == clusters_sampled * pop_clusters:
        return f"{drawn} (the same fraction ℓ/k = {fmt(share, 'rate')} as above)"
    return (
        f"{drawn}: {fmt(share_pop, 'rate')} of them, the nearest whole number of clusters to the "
        f"fraction ℓ/k = {fmt(share, 'rate')} set above"
        + (" (at least one cluster is always drawn)" if pop_sampled == 1 else "")
    )


def vacuous(bound: float, eps_sample: float) -> bool:
    """True when a bound on ε_target is not below the ε_sample it should amplify."""
    return not bound < eps_sample


NO_AMPLIFICATION = "no amplification: the bound is not below ε_sample"


def metric_value(bound: float, eps_sample: float) -> str:
    """A bound for a metric: the number, or the words when it does not amplify."""
    return "no amplification" if vacuous(bound, eps_sample) else fmt(bound, "guarantee")


def target_reading(
    eps_target: float,
    safe: float,
    unsafe: float,
    poisson: float,
    clusters_total: int,
    clusters_sampled: int,
) -> str:
    """Plain words for the ε_target → ε_sample direction (markdown)."""
    if clusters_sampled >= clusters_total:
        return (
            f"All {clusters_total:,} clusters are drawn, so the sample is the population: the "
            f"mechanism may spend only ε_sample = ε_target = {eps_target:g}."
        )
    gain = safe / eps_target
    if math.isclose(safe, unsafe, rel_tol=1e-9):
        exact = "and no more (Theorem 5.1 gives the same value: equal clusters)"
    else:
        exact = (
            f"and never more than {fmt(unsafe, 'guarantee')}: above that Theorem 5.1 exhibits a "
            "population "
            "with these cluster sizes and a mechanism that breaks the promise"
        )
    text = (
        f"To promise the population **ε_target = {eps_target:g}**, the mechanism on the drawn "
        f"clusters may spend **ε_sample = {fmt(safe, 'guarantee')}** (Theorem 5.2 inverted), "
        f"{exact}. "
        f"Poisson sampling of the same fraction would allow ε_sample = {fmt(poisson, 'guarantee')}."
    )
    if safe <= eps_target * (1 + 1e-12):  # ε_sample no larger than ε_target: nothing gained
        text += " In effect there is " + NO_AMPLIFICATION.split(":")[0] + ": ε_sample = ε_target."
    else:
        text += f" Cluster sampling multiplies the budget by {fmt(gain, 'ratio')}."
    return text


def python_snippet(
    pop: Population,
    eps: float,
    clusters_total: int,
    clusters_sampled: int,
    size: int,
    size_min: int,
    size_max: int,
    *,
    eps_target: float | None = None,
) -> str:
    """Python that reproduces the page's numbers with :mod:`core.clusters`.

    Builds the active population with :func:`ui.snippets.population_snippet`, uses the page's
    current parameters, and prints the headline bounds one per line (``upper = ...``) so the
    printed numbers can be compared with the page.
    """
    target_lines = ""
    if eps_target is not None:
        target_lines = (
            f"\n# The other direction: the ε_sample that guarantees eps_target = {eps_target!r}\n"
            f"safe, unsafe = cl.eps_sample_bounds_for_target({eps_target!r}, k, ell, M_i, "
            "M_min, M_max)\n"
            'print("eps_sample allowed =", safe)\n'
        )
    return f"""{population_snippet(pop)}from core import clusters as cl

eps_sample, k, ell = {eps!r}, {clusters_total}, {clusters_sampled}
M_i, M_min, M_max = {size}, {size_min}, {size_max}  # cluster sizes (records)

# Theorems 5.1 and 5.2: bounds on the population's guarantee eps_target
lower, upper = cl.cluster_eps_bounds(eps_sample, k, ell, M_i, M_min, M_max)
poisson = cl.srs_eps(eps_sample, k, ell)  # eq. (3): Poisson sampling at rate ell/k
print("lower =", lower)
print("upper =", upper)
print("poisson =", poisson)
{target_lines}
# Per-cluster bounds for the active population (if it has a cluster column)
if pop.clusters is not None and len(cl.cluster_sizes(pop.clusters).sizes) >= 2:
    labels, sizes = cl.cluster_sizes(pop.clusters)
    share = max(1, min(len(sizes), round(ell / k * len(sizes))))
    print(cl.per_cluster_bounds(eps_sample, sizes, clusters_sampled=share, labels=labels).head())

# Systematic sampling (§6.3): every 100th of the population's records, order known
print(cl.systematic_eps_bounds(eps_sample, pop.size, min(100, pop.size)))
"""


def eps_range(lower: float, upper: float) -> str:
    """“ε_target between a and b”, or “ε_target ≈ a” when both print alike to four digits."""
    if fmt(lower, "guarantee") == fmt(upper, "guarantee"):
        return f"ε_target ≈ {fmt(upper, 'guarantee')}"
    return f"ε_target between {fmt(lower, 'guarantee')} and {fmt(upper, 'guarantee')}"


def exp_text(x: float) -> str:
    """e^x in readable form without overflowing (x up to 10⁸ and beyond)."""
    if x < 700:
        return fmt(math.exp(x), "plain")
    exponent = x / math.log(10)
    return f"10^{fmt(exponent, 'count')}"


def reading(numbers: dict[str, float], clusters_total: int, clusters_sampled: int) -> str:
    """The result in plain words (markdown)."""
    eps, size = numbers["eps"], int(numbers["size"])
    lower, upper, srs = numbers["lower"], numbers["upper"], numbers["srs"]
    frac = fmt(numbers["fraction"], "rate")
    equal = numbers["size_min"] == numbers["size_max"] == size
    sizes = (
        f"of {size:,} records each"
        if equal
        else f"— the person's of {size:,} records, the others between "
        f"{int(numbers['size_min']):,} and {int(numbers['size_max']):,}"
    )
    if clusters_sampled >= clusters_total:
        return (
            f"All {clusters_total:,} clusters are drawn, so the sample is the population and "
            f"nothing is amplified: ε_target = ε_sample = {eps:g}."
        )
    value = (
        f"**ε_target = {fmt(upper, 'guarantee')}** (the two bounds coincide)"
        if math.isclose(lower, upper, rel_tol=1e-12)
        else f"**{eps_range(lower, upper)}**"
    )
    kept = (
        fmt(numbers["kept_high"], "share")
        if math.isclose(numbers["kept_low"], numbers["kept_high"], rel_tol=1e-9, abs_tol=1e-12)
        else f"between {fmt(numbers['kept_low'], 'share')} and {fmt(numbers['kept_high'], 'share')}"
    )
    text = (
        f"The agency draws **{clusters_sampled:,} of {clusters_total:,} clusters** ({frac}) "
        f"{sizes}, and runs a mechanism with **ε_sample = {eps:g}** on every record of the drawn "
        f"clusters. A person in the population is then protected at {value}. A Poisson "
        f"sample of the same {frac} of the records would give **ε_target = "
        f"{fmt(srs, 'guarantee')}**. Cluster "
        f"sampling keeps {kept} of that amplification"
    )
    if numbers["kept_high"] < 0.01:
        text += " — in effect none: the sample might as well not be secret."
    else:
        text += "."
    half = numbers["half_combined_size"]
    if 0 < half < math.inf:
        text += (
            f" Half of it is lost once the person's cluster and one other cluster hold about "
            f"{fmt(half, 'count')} records together (M_i + M_other; equal clusters of about "
            f"{fmt(max(half / 2, 0.5), 'count')} records)."
        )
    return text
