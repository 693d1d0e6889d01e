"""One glossary for the whole app: every symbol the pages use, in plain words.

The entries are plain data (:data:`GLOSSARY`), so tests and the About page read the same
source; :func:`glossary_expander` shows them, and the router calls it under every page.
The symbols follow the project's naming: N is the population size, n the sample size,
``rate`` = n/N, ``eps_target``/``eps_sample`` (ε_target/ε_sample) and
``delta_target``/``delta_sample`` (δ_target/δ_sample); a cluster's size is M, never n.
"""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

#: Label of the glossary expander shown under every page.
GLOSSARY_LABEL = "Glossary: symbols used here"


@dataclass(frozen=True)
class Term:
    """One glossary entry.

    Attributes
    ----------
    symbol
        The symbol as printed on screen (Unicode, e.g. ``"ε_target"``).
    name
        A short name, e.g. ``"target privacy loss"``.
    meaning
        One or two sentences in plain words.
    """

    symbol: str
    name: str
    meaning: str


#: Every symbol used on the pages, grouped by topic (population and sample, privacy,
#: designs, the mean and median, statistical privacy, simulations).
GLOSSARY: tuple[Term, ...] = (
    Term("N", "population size", "Number of records the agency holds: the whole register."),
    Term("n", "sample size", "Number of records in the secret random sample drawn from the N."),
    Term(
        "N_c",
        "cell size",
        "Number of records in one cell of a publication table. Private unless declared "
        "public: an added, removed or moved record changes it, so a release that divides by "
        "N_c (or by N) is private only when the size is published as an invariant.",
    ),
    Term(
        "Ŝ / n̂",
        "noisy sum over noisy count",
        "A mean released without any size: a noisy sum of the values (centred on the middle "
        "of [L, U]) divided by a noisy count of the records, the budget ε split between the "
        "two to make the error smallest.",
    ),
    Term(
        "rate = n/N",
        "sampling rate",
        "Share of the population that is sampled; 1 means the whole population is used.",
    ),
    Term(
        "p",
        "Poisson rate",
        "Poisson sampling keeps each record on its own coin flip with probability p, so the "
        "sample size itself is random (about p·N).",
    ),
    Term(
        "ε_target",
        "target privacy loss",
        "The guarantee promised for the population: what the agency signs off. Smaller is "
        "more private.",
    ),
    Term(
        "ε_sample",
        "budget on the sample",
        "The privacy loss the mechanism may spend on the sample. A secret random sample lets "
        "it exceed ε_target while the population still gets ε_target.",
    ),
    Term(
        "δ_target",
        "target failure probability",
        "The small probability with which the population's guarantee ε_target may fail; by "
        "default 1/(2N).",
    ),
    Term(
        "δ_sample",
        "failure probability on the sample",
        "The δ the mechanism on the sample may use; the population then gets "
        "δ_target = rate·δ_sample.",
    ),
    Term(
        "ρ",
        "zCDP promise",
        "A promise stated as ρ-zero-concentrated DP: every Rényi divergence D_α between the "
        "releases on two neighbouring populations is at most ρ·α. The planner keeps it with "
        "the pure ε_target whose ε·tanh(ε/2) equals ρ (Steinke 2024).",
    ),
    Term(
        "prior, posterior",
        "an attacker's belief",
        "How likely an attacker thinks it that a person's record is in the data, before "
        "(prior) and after (posterior) seeing a release; ε caps the odds after at e^ε times "
        "the odds before.",
    ),
    Term(
        "TPR, FPR",
        "true- and false-positive rates",
        "For a guess of whether a person is in the data: how often it says “in” when they are "
        "in (TPR) and when they are out (FPR); a guarantee (ε, δ) caps TPR at e^ε·FPR + δ.",
    ),
    Term(
        "M",
        "cluster size",
        "Number of records in one cluster (a household, a school, a region). Drawing a "
        "cluster takes all M records at once.",
    ),
    Term("k", "number of clusters", "How many clusters the population is divided into."),
    Term(
        "ℓ",
        "clusters sampled",
        "How many of the k clusters are drawn, each with probability ℓ/k.",
    ),
    Term(
        "H",
        "number of strata",
        "Stratified sampling splits the population into H groups (strata) and samples each.",
    ),
    Term("N_i", "stratum size", "Number of records in stratum i; the N_i add up to N."),
    Term(
        "n_i",
        "stratum sample size",
        "Number of records sampled from stratum i; the n_i add up to the sample size n "
        "(Bun et al. write m for it).",
    ),
    Term(
        "L, U",
        "public bounds",
        "Lower and upper limits of the values, declared in advance and not read from the "
        "data; values outside are clipped.",
    ),
    Term(
        "R = U − L",
        "range",
        "Width of the public bounds; it sets how much one record can move the mean.",
    ),
    Term(
        "S",
        "smooth sensitivity",
        "How far the median could move if records changed, looking at nearby records and "
        "discounting distant changes; the noise added to the median is scaled by S.",
    ),
    Term(
        "β",
        "smoothing parameter",
        "How fast the smooth sensitivity discounts changes k records away (by e^(−kβ)); "
        "larger for a larger ε, smaller for a smaller δ.",
    ),
    Term(
        "r",
        "noise ratio (Hu et al.)",
        "Noise variance of the private population mean divided by that of the private "
        "sample mean. Below 1 the sample gets more noise, so it cannot be more accurate.",
    ),
    Term(
        "q",
        "sampling-variance allowance (Hu et al.)",
        "Largest sampling variance, as a share of the population's noise variance V_N, for "
        "which the sample can still be more accurate.",
    ),
    Term(
        "V_N, V_n",
        "variances of the private mean",
        "Error variance of the private mean computed on the population (V_N) and on a "
        "sample of size n (V_n), noise and sampling included.",
    ),
    Term(
        "π",
        "property probability",
        "In statistical privacy: the chance that a record has the property being counted "
        "(a rare disease, say); the adversary knows π but not the records.",
    ),
    Term(
        "m",
        "number of quantiles",
        "How many quantiles one JointExp release gives at once: three for the quartiles, "
        "nine for the deciles.",
    ),
    Term(
        "T",
        "repetitions",
        "How many samples the simulation draws; more repetitions give narrower error bands.",
    ),
    Term(
        "MSE",
        "mean squared error",
        "Average squared distance between the released value and the true population "
        "value, over the repetitions; lower is more accurate.",
    ),
    Term(
        "RMSE",
        "root mean squared error",
        "The square root of the MSE: a typical distance between the released value and the "
        "population value, in the value's own units.",
    ),
    Term(
        "b₉₅",
        "95 % error bound",
        "The half-width ±b₉₅ that 95 % of releases stay within around the population "
        "value; the accuracy figure a release note states.",
    ),
    Term(
        "sampling part, noise part",
        "parts of the error",
        "The MSE of a private sample statistic splits into the error of the sample "
        "statistic itself (sampling part) and the error the privacy noise adds (noise part).",
    ),
)


def glossary_markdown(terms: tuple[Term, ...] = GLOSSARY) -> str:
    """The glossary as a Markdown list, one line per symbol (wraps on narrow screens)."""
    return "\n".join(f"- **{t.symbol}** — {t.name}: {t.meaning}" for t in terms)


def glossary_expander(*, expanded: bool = False) -> None:
    """Show the glossary in an expander labelled :data:`GLOSSARY_LABEL`."""
    with st.expander(GLOSSARY_LABEL, expanded=expanded, icon=":material/menu_book:"):
        st.markdown(glossary_markdown())
