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

from core import amplification as amp
from core.gains import MechanismComparison, compare_with_population
from core.populations import Population
from ui.format import fmt, percent
from ui.snippets import population_snippet

MEAN_TAB = "Mean: noise ratio r and bound q"
MEAN_POP_TAB = "Mean on this population"
SENS_TAB = "Median: smooth sensitivity"
EXP_TAB = "Median: sample or population?"
CMP_TAB = "Quantile: which mechanism?"

FIG8_RATES = "0.01, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9"
FIG8_EPS = "0.01, 0.1, 0.5, 1, 3, 5"
TABS = (MEAN_TAB, MEAN_POP_TAB, SENS_TAB, EXP_TAB, CMP_TAB)

#: The quantile mechanisms offered, in plain words (names of ``core.mechanisms.MECHANISMS``).
#: A bound select box writes the label into the URL, so labels are short and stable.
MECHANISM_LABELS: dict[str, str] = {
    "smooth_laplace": "Smooth-sensitivity Laplace, (ε, δ) — Hu et al.",
    "smooth_pure": "Smooth sensitivity, heavy-tailed noise, pure ε",
    "exponential": "Exponential mechanism, pure ε — OpenDP, Tumult",
    "global_laplace": "Global-sensitivity Laplace, pure ε",
    "smooth_polyplace": "Smooth sensitivity, polynomial-tailed noise, pure ε — Hladík & Tětek",
    "piecewise_laplace": "Piecewise Laplace, pure ε — Durfee 2025",
    "unbounded": "No upper bound needed (AboveThreshold), pure ε — Durfee 2023",
}
#: Shown on the quantile tabs when the active population has no public upper bound.
NO_UPPER_NOTE = (
    "The active population was given without a public upper bound U, so only the mechanism "
    "that needs none runs here: the unbounded quantile (Durfee 2023), which tries growing "
    "thresholds above the lower bound L. Every other mechanism pads or clips the data with U; "
    "to compare them too, upload the file again on the Population page with an upper bound."
)
#: Short names for verdicts and legends.
MECHANISM_SHORT: dict[str, str] = {
    "smooth_laplace": "smooth-sensitivity Laplace",
    "smooth_pure": "smooth-sensitivity heavy-tailed noise",
    "exponential": "the exponential mechanism",
    "global_laplace": "global-sensitivity Laplace",
    "smooth_polyplace": "smooth-sensitivity polynomial noise",
    "piecewise_laplace": "piecewise Laplace",
    "unbounded": "the unbounded quantile",
}
#: One line per mechanism: its source, its guarantee (pure ε or (ε, δ)) and its noise.
MECHANISM_LINES: dict[str, str] = {
    "smooth_laplace": "Hu, Drechsler & Kim; (ε, δ); Laplace noise scaled to the smooth "
    "sensitivity of the quantile.",
    "smooth_pure": "Nissim, Raskhodnikova & Smith; pure ε; heavy-tailed noise (density "
    "∝ 1/(1 + z⁴)) scaled to the smooth sensitivity.",
    "exponential": "McSherry & Talwar, as in OpenDP and Tumult; pure ε; no added noise, a "
    "point drawn between two neighbouring records, near the quantile's rank.",
    "global_laplace": "Dwork et al.; pure ε; Laplace noise scaled to the whole range U − L.",
    "smooth_polyplace": "Hladík & Tětek 2025; pure ε; noise with polynomial tails (density "
    "∝ (1 + |z|)⁻⁵), nearer to Laplace, scaled to the smooth sensitivity.",
    "piecewise_laplace": "Durfee 2025; pure ε; an exponential mechanism whose output leans "
    "towards the quantile inside each gap between records (Laplace noise in pieces).",
    "unbounded": "Durfee 2023; pure ε; noisy counts below growing thresholds L + βⁱ − 1 "
    "until one reaches q·n: needs no upper bound U, but its error has no finite mean.",
}
#: The error measures offered (``core.gains.MEASURES``) in plain words.
MEASURE_LABELS: dict[str, str] = {
    "mse": "MSE (log scale, as in the paper)",
    "mae": "mean absolute error",
    "error_95": "95 % error bound",
}
#: The measure's name inside a sentence.
MEASURE_WORDS: dict[str, str] = {
    "mse": "MSE",
    "mae": "mean absolute error",
    "error_95": "95 % error bound",
}
#: Mechanisms whose noise has no finite variance: their MSE does not exist and is not
#: plotted. None of the current ones: Laplace and Gaussian noise have variances, the
#: heavy-tailed noise of ``"smooth_pure"`` (density ∝ 1/(1 + z⁴)) has variance 1, the
#: polynomial noise of ``"smooth_polyplace"`` (∝ (1 + |z|)⁻⁵) a finite one, and the
#: exponential and piecewise-Laplace releases stay inside [L, U]. The unbounded quantile has
#: no finite mean at all (``core.gains.NO_FINITE_MEAN``): neither MSE nor mean absolute error.
INFINITE_VARIANCE: frozenset[str] = frozenset()

#: Help of the mechanism select box: the four mechanisms in plain words.
MECHANISM_HELP = (
    "How the quantile is made private. Smooth-sensitivity Laplace (Hu et al.) adds Laplace "
    "noise scaled to how much nearby records could move the quantile; it spends a small δ. "
    "The heavy-tailed variant uses the same scale with noise whose tails are heavier, and "
    "needs no δ. The exponential mechanism (used by OpenDP and Tumult) picks a value between "
    "two neighbouring records, favouring those whose rank is close to the quantile's. Global "
    "Laplace scales the noise to the whole range U − L. Polynomial noise (Hladík & Tětek) "
    "is a lighter-tailed pure-ε variant of smooth sensitivity; piecewise Laplace (Durfee "
    "2025) refines the exponential mechanism; the unbounded quantile (Durfee 2023) needs no "
    "upper bound U, but its error has no mean, so only its 95 % error bound is shown."
)
QUANTILE_HELP = (
    "Which quantile is released: 0.5 is the median, 0.9 the value that 90 % of the records "
    "do not exceed. Its rank in n sorted values is ⌈q·n⌉; errors are measured against the "
    "population's value of the same rank."
)
MEASURE_HELP = (
    "How the error of a release is summarised over the repetitions: the mean squared error "
    "(the paper's measure), the mean absolute error, or the bound that 95 % of releases stay "
    "within (the 95 % quantile of |release − population value|)."
)

#: Per mechanism: plain words on its noise and guarantee, then its formulas (LaTeX).
MECHANISM_EXPLANATIONS: dict[str, tuple[str, tuple[str, ...]]] = {
    "smooth_laplace": (
        "Laplace noise scaled to the smooth sensitivity S of the order statistic of rank "
        "k = ⌈q·n⌉: S looks at the gaps between the records around rank k and discounts gaps "
        "further away. Guarantee (ε, δ) for one record changed; on a sample δ_sample = "
        "δ_target/rate.",
        (
            r"\tilde y = y_{(k)} + \mathrm{Laplace}(0,\ b),\quad "
            r"b = 2S/\varepsilon_{\mathrm{sample}}",
            r"\beta = \frac{\varepsilon_{\mathrm{sample}}}{2\ln(2/\delta_{\mathrm{sample}})}",
            r"\mathrm{Var} = 8S^2/\varepsilon_{\mathrm{sample}}^2",
        ),
    ),
    "smooth_pure": (
        "The same smooth sensitivity (with β = ε/4), but noise with heavier tails, density "
        "proportional to 1/(1 + z⁴), which buys pure ε (no δ) at the price of a larger scale "
        "(Nissim, Raskhodnikova & Smith). Its variance is finite, so an MSE exists.",
        (
            r"\tilde y = y_{(k)} + b\,Z,\quad h(z) \propto \frac{1}{1+z^4}",
            r"b = 16\,S/\varepsilon_{\mathrm{sample}},\quad "
            r"\beta = \varepsilon_{\mathrm{sample}}/4",
            r"\mathrm{Var} = 256\,S^2/\varepsilon_{\mathrm{sample}}^2",
        ),
    ),
    "exponential": (
        "No noise is added to a value: the records, padded by L and U, cut the range into "
        "intervals; one interval is chosen with probability proportional to its width times a "
        "weight that falls with the distance of its rank from q·n, then a point inside it at "
        "random. Pure ε for a record changed, added or removed. Its error depends on how "
        "densely the data sit around the quantile, not on a sensitivity.",
        (
            r"P(i) \propto (z_{i+1}-z_i)\,e^{-\varepsilon_{\mathrm{sample}}|i - q n|/2}",
            r"z_0 = L,\quad z_i = y_{(i)},\quad z_{n+1} = U",
        ),
    ),
    "global_laplace": (
        "Laplace noise scaled to the whole range R = U − L, the most one record can move any "
        "quantile. Pure ε for a record changed, added or removed, but the noise is large "
        "(Hu et al. Figure 2, left).",
        (
            r"\tilde y = y_{(k)} + \mathrm{Laplace}(0,\ b),\quad "
            r"b = R/\varepsilon_{\mathrm{sample}}",
            r"\mathrm{Var} = 2R^2/\varepsilon_{\mathrm{sample}}^2",
        ),
    ),
    "smooth_polyplace": (
        "The smooth sensitivity with β = ε/4 as for the heavy-tailed variant, but with noise "
        "whose tails fall like |z|⁻⁵ (a symmetric Lomax law, a mixture of Laplace laws), so "
        "its scale κ·S is far smaller: about 20/(3ε) times S for small ε instead of 16/ε "
        "(Hladík & Tětek 2025). Pure ε for a record changed.",
        (
            r"\tilde y = y_{(k)} + \kappa S\,Z,\quad h(z) \propto (1+|z|)^{-5}",
            r"\kappa = \max\Big(\frac{1}{e^{\varepsilon/5}-1},\ "
            r"\frac{e^{-\varepsilon/4}}{e^{3\varepsilon/20}-1}\Big)",
        ),
    ),
    "piecewise_laplace": (
        "Like the exponential mechanism, the release falls in a gap between neighbouring "
        "records with a probability that falls with the number of records j one would have "
        "to change to move the quantile there; inside each gap the density keeps falling "
        "towards the far end (Laplace noise in pieces) instead of being flat, which makes it "
        "at least as accurate (Durfee 2025). Pure ε for a record changed, added or "
        "removed.",
        (
            r"\text{density}(t) \propto e^{-\varepsilon_{\mathrm{sample}}\,\ell(t)/2}",
            r"\ell(y_{(k \pm j)}) = j,\ \text{linear in between}",
        ),
    ),
    "unbounded": (
        "Needs only the lower bound L. Thresholds t_i = L + βⁱ − 1 (β = 1.001) are tried one "
        "after another; it releases the first whose noisy count of records at or below it "
        "reaches a noisy q·n (AboveThreshold, Durfee 2023). Pure ε for a record changed, "
        "added or removed. With a small probability the noisy target is never met until "
        "far out: the release then has a 1/i tail, so its mean, MSE and mean absolute "
        "error do not exist. Only the 95 % error bound describes it.",
        (
            r"c_i = \#\{y \le t_i\},\quad t_i = L + \beta^i - 1",
            r"I = \min\{i : c_i - q n + \nu_i \ge \rho\}",
            r"\nu_i,\ \rho \sim \mathrm{Laplace}(2/\varepsilon_{\mathrm{sample}})",
        ),
    ),
}

#: The paper's mechanism, quantile and measure (the presets of its figures set them).
PAPER_MECHANISM: dict[str, Any] = {
    "gain_mechanism": "smooth_laplace",
    "gain_quantile": 0.5,
    "gain_measure": "mse",
}

#: Presets of the paper's figures; each opens the tab whose controls it sets (``gain_view``).
PRESETS: dict[str, dict[str, Any]] = {
    "Figure 4–5 (r and q)": {"gain_view": MEAN_TAB, "gain_eps": "0.01, 0.1, 0.5, 1, 3"},
    "Figures 6–7 (lognormal)": {
        "gain_view": EXP_TAB,
        "population": "lognormal",
        "gain_exp_eps": "0.1, 0.5, 1",
        "gain_exp_rates": "0.0101, 0.1001",
        "gain_reps": 1000,
        **PAPER_MECHANISM,
    },
    "Figure 8 (lognormal)": {
        "gain_view": EXP_TAB,
        "population": "lognormal",
        "gain_exp_eps": FIG8_EPS,
        "gain_exp_rates": FIG8_RATES,
        "gain_reps": 1000,
        **PAPER_MECHANISM,
    },
    "Figure 13 (bimodal)": {
        "gain_view": EXP_TAB,
        "population": "bimodal_paper",
        "gain_exp_eps": FIG8_EPS,
        "gain_exp_rates": FIG8_RATES,
        "gain_reps": 1000,
        **PAPER_MECHANISM,
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


#: Mechanisms whose noise is scaled to a smooth sensitivity (their S_n / S_N violin means
#: something; the others' sensitivity is the same for every sample).
SMOOTH_MECHANISMS = frozenset({"smooth_laplace", "smooth_pure", "smooth_polyplace"})

#: What the mechanism comparison chart shows.
COMPARISON_TEXT = (
    "One line per mechanism: its error (log scale) when it privatises a sample at each rate, "
    "spending the larger ε_sample that amplification allows, so that the population still "
    "gets ε_target. The dotted line of the same colour, ending in a cross at rate 1, is the "
    "same mechanism on the whole population. The star marks the best (mechanism, rate). All "
    "mechanisms see the same samples, so their differences are not sampling luck. The MSE "
    "of the mechanisms that add noise to the quantile uses their exact noise variance; that "
    "of the exponential, piecewise-Laplace and unbounded mechanisms comes from drawn "
    "releases. Hover for the value, its Monte Carlo standard error, n and ε_sample."
)


def _statistic(quantile: float) -> str:
    return "median" if quantile == 0.5 else f"{100 * quantile:g} % quantile"


def log_error_text(measure: str, quantile: float) -> str:
    """Explanation of the experiment chart; :data:`LOG_MSE_TEXT` for the paper's setting."""
    if measure == "mse" and quantile == 0.5:
        return LOG_MSE_TEXT
    stat = _statistic(quantile)
    return (
        f"Each line is one ε_target: the {MEASURE_WORDS[measure]} (log scale) of the private "
        f"sample {stat}, measured against the population {stat}, with ±2 Monte Carlo standard "
        f"errors shaded. The cross at rate 1 is the private population {stat}. A small ring "
        "marks every rate whose error is below the population's; the best of them carries a "
        "larger, thicker ring."
    )


def estimator_words(mechanism: str, chosen: str, used: str) -> str:
    """The caption's words on how the noise entered the errors."""
    if mechanism == "smooth_laplace":
        if used == "exact_noise_variance":
            return "each sample's noise enters through its exact conditional variance 8S²/ε²."
        return "each repetition draws its Laplace noise."
    if used == "exact_noise_variance":
        return "each sample's noise enters the MSE through its exact conditional variance."
    if chosen != used:
        return (
            "this mechanism's release is not a value plus noise of known variance, so every "
            "repetition draws its release (plain Monte Carlo)."
        )
    return "each repetition draws its release."


def error_formulas(measure: str, mechanism: str, estimator: str) -> list[str]:
    """LaTeX of the error measure as the experiment computes it (short lines for phones)."""
    if measure == "mse" and estimator == "exact_noise_variance" and mechanism != "smooth_laplace":
        return [
            r"\mathrm{MSE}(n) = \overline{(m_n - m_N)^2}",
            r"+\ \overline{\mathrm{Var}(\eta_n \mid \mathrm{sample})}",
        ]
    return [error_formula(measure, mechanism, estimator)]


def error_formula(measure: str, mechanism: str, estimator: str) -> str:
    """LaTeX of the error measure as the experiment computes it, on one line."""
    if measure == "mae":
        return r"\mathrm{MAE}(n) = \frac1T\sum_{t=1}^T\big|\tilde m_n^{(t)} - m_N\big|"
    if measure == "error_95":
        return (
            r"E_{95}(n) = \text{95 \% quantile of } \big|\tilde m_n^{(t)} - m_N\big|,"
            r"\ t = 1,\dots,T"
        )
    if estimator != "exact_noise_variance":
        return r"\mathrm{MSE}(n) = \frac1T\sum_{t=1}^T(\tilde m_n^{(t)} - m_N)^2"
    if mechanism == "smooth_laplace":
        return (
            r"\begin{aligned}\mathrm{MSE}(n) = \frac1T\sum_{t=1}^T\Big[&(m_n^{(t)} - m_N)^2"
            r"\\ &+ \frac{8\,S_n^{(t)2}}{\varepsilon_{\mathrm{sample}}^2}\Big]\end{aligned}"
        )
    return (
        r"\mathrm{MSE}(n) = \overline{(m_n - m_N)^2} + "
        r"\overline{\mathrm{Var}(\eta_n \mid \mathrm{sample})}"
    )


def noise_violin_title(mechanism: str, quantile: float = 0.5) -> str:
    """Title of the noise violins."""
    if mechanism == "smooth_laplace" and quantile == 0.5:
        return "Laplace noise added to the released median"
    return f"Noise in the released {_statistic(quantile)}: release − sample value"


def noise_formulas(mechanism: str) -> list[str]:
    """Formulas under the noise violins: the chosen mechanism's release."""
    if mechanism == "smooth_laplace":
        return [r"\eta_n \sim \mathrm{Laplace}(0, 2S_n/\varepsilon_{\mathrm{sample}})"]
    return list(MECHANISM_EXPLANATIONS.get(mechanism, ("", ()))[1])


def no_sensitivity_violin(mechanism: str) -> str:
    """Why the S_n / S_N violins are not shown for ``mechanism``."""
    name = MECHANISM_SHORT.get(mechanism, mechanism)
    return (
        f"No sensitivity violins for {name}: its noise does not depend on a smooth "
        "sensitivity, so the ratio S_n / S_N says nothing about it."
    )


def no_mse_note(names: set[str] | frozenset[str]) -> str | None:
    """A note naming the mechanisms left out of an MSE chart (noise without variance)."""
    if not names:
        return None
    listed = ", ".join(MECHANISM_SHORT.get(n, n) for n in sorted(names))
    return f"Not plotted: {listed} — its noise has no finite variance, so it has no MSE."


def missing_measure_note(names: Sequence[str], measure: str) -> str | None:
    """Why the chosen mechanisms ``names`` are left out of a comparison in ``measure``."""
    if not names:
        return None
    listed = ", ".join(MECHANISM_SHORT.get(n, n) for n in names)
    word = MEASURE_WORDS[measure]
    return (
        f"Left out of this {word} comparison: {listed}. With a small probability its release "
        "lands very far out (a tail that falls like 1/i), so its error has no finite mean and "
        f"a {word} does not exist; an average of drawn errors would only say how far the "
        "draws happened to reach. Choose the 95 % error bound to compare it."
    )


#: A note on ties appears when at least this share of the records hold the quantile's value…
TIE_SHARE = 0.01
#: …and the best smooth-sensitivity mechanism beats the exponential one by this factor.
TIE_FACTOR = 5.0


def best_values(table: pd.DataFrame) -> dict[str, float]:
    """Each mechanism's smallest error over the rates (population included)."""
    smallest = table.groupby("mechanism", sort=False)["value"].min()
    return {str(k): float(v) for k, v in smallest.items()}


def mechanism_factor(table: pd.DataFrame, worse: str, better: str) -> float:
    """How many times ``worse``'s best error is ``better``'s best error (each at its best rate)."""
    best = best_values(table)
    if best[better] <= 0.0:
        return math.inf
    return best[worse] / best[better]


def ties_note(
    result: MechanismComparison, value: float, tied: int, population_size: int, quantile: float
) -> str | None:
    """Plain words when ties decide the winner, else None.

    Said when at least :data:`TIE_SHARE` of the records hold the population quantile's value
    and the best smooth-sensitivity mechanism's best error is at most 1/:data:`TIE_FACTOR` of
    the exponential mechanism's (both at their best rate).
    """
    share = tied / population_size
    best = best_values(result.table)
    smooth = {m: v for m, v in best.items() if m in SMOOTH_MECHANISMS}
    if share < TIE_SHARE or "exponential" not in best or not smooth:
        return None
    winner = min(smooth, key=smooth.__getitem__)
    factor = mechanism_factor(result.table, "exponential", winner)
    if factor < TIE_FACTOR:
        return None
    stat = _statistic(quantile)
    word = MEASURE_WORDS[result.measure]
    if not math.isfinite(factor):
        times = "incomparably"
    elif factor > 1e6:
        times = "more than a million times"
    else:
        times = f"{_factor(factor)} times"
    return (
        f"**Ties decide the winner.** {tied:,} of the {population_size:,} records "
        f"({fmt(share, 'share')}) share the population {stat}'s value, {value:g}. One changed "
        f"record cannot move the {stat} off such a block of ties, so its smooth sensitivity is "
        "nearly zero; the exponential mechanism draws a point between two different records, "
        "so it never releases the tied value itself. Here the best "
        f"{word} of {MECHANISM_SHORT[winner]} ({fmt(smooth[winner], 'plain')}) is {times} smaller "
        "than "
        f"that of the exponential mechanism ({fmt(best['exponential'], 'plain')}), each at its "
        "best rate. "
        "On data without ties the order is usually the other way round."
    )


def comparison_caption(population: str, reps: int, seed: int, delta_target: float) -> str:
    """The comparison's settings in one line."""
    return (
        f"{population}; T = {reps:,} repetitions per rate, seed {seed}; δ_target = 1/(2N) = "
        f"{fmt(delta_target, 'delta')} for smooth-sensitivity Laplace, the one mechanism here that "
        "spends a δ (δ_sample = δ_target/rate); the others give pure ε."
    )


def delta_help(population_size: int, default: float) -> str:
    """Help text of the δ_target control: where its default comes from."""
    return (
        f"Defaults to 1/(2N) of the active population: N = {population_size:,} gives "
        f"{fmt(default, 'delta')}, as Hu et al. use. A value you type is kept and stored "
        "in the link."
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


#: ε_target of Hu et al.'s worked examples of the bound q (§4.1), always in the table.
WORKED_EPS = (0.1, 3.0)

TAU_CAPTION = (
    "τ is a numerical detail, not part of the lesson: in exact arithmetic r < 1 for every "
    "sample smaller than the population, so the chart below marks where r comes within τ of 1 "
    "instead of where a computer happens to round it to 1."
)


def theory_population_caption(name: str, size: int, rate_min: float) -> str:
    """How the rates of the theory tab translate into sample sizes of the active population."""
    smallest = rate_min * size
    if smallest < 1:
        reach = (
            f"less than one of its N = {size:,} records: its smallest sample, n = 1, is the "
            f"rate 1/N = {fmt(1 / size, 'rate')}"
        )
    else:
        records = round(smallest)
        reach = f"n ≈ {records:,} {'record' if records == 1 else 'records'} of its N = {size:,}"
    return (
        "r and q need no data: they depend only on ε_target and the sampling rate n/N. On the "
        f"active population, **{name}** (choose another in the sidebar), the smallest rate "
        f"shown, n/N = {rate_min:g}, is a sample of {reach}."
    )


#: Label of the expander holding the heat map of q over every rate and ε.
Q_HEATMAP_LABEL = "q over every rate and ε at once (heat map)"

#: Display format of each column of :func:`worked_examples` (one precision a column).
WORKED_FORMATS = {"ε_target": "{:g}", "q": "{:.2f}", "largest rate n/N (%)": "{:.2f} %"}


def worked_examples(eps_values: Sequence[float], q: float) -> pd.DataFrame:
    """The largest rate n/N at which a gain is still possible with sampling variance q·V_N.

    One row per ε_target (the paper's :data:`WORKED_EPS` and ``eps_values``), sorted by
    ε_target; the rate in percent (Hu et al. §4.1, ``core.amplification.rate_for_q``).
    """
    eps = sorted({*WORKED_EPS, *(float(e) for e in eps_values)})
    return pd.DataFrame(
        {
            "ε_target": eps,
            "q": float(q),
            "largest rate n/N (%)": [100 * float(amp.rate_for_q(e, q)) for e in eps],
        }
    )


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
    mechanism: str = "smooth_laplace",
    quantile: float = 0.5,
    measure: str = "mse",
) -> str:
    """Python repeating the quantile experiment of §4.3 and printing the page's verdicts.

    The verdict's words come from :func:`experiment_verdict` (this module imports no
    Streamlit, so the snippet runs in plain Python). The mechanism, quantile and measure
    appear only when they differ from the paper's (smooth-sensitivity Laplace, the median,
    the MSE), so the paper's snippet stays as it was.
    """
    extra = ""
    if mechanism != "smooth_laplace" or quantile != 0.5:
        extra = f"\n    mechanism={mechanism!r}, quantile={float(quantile)!r},"
    measure_arg = "" if measure == "mse" else f", measure={measure!r}"
    columns = '"log_mse", "log_mse_se"' if measure == "mse" else f'"{measure}", "{measure}_se"'
    return (
        population_snippet(pop)
        + f"""from core.gains import median_gain_experiment
from ui.gains.text import experiment_verdict

eps_targets = {_floats(eps_values)}
result = median_gain_experiment(
    pop.values, lower=pop.lower, upper=pop.upper,
    eps_targets=eps_targets, rates={_floats(rates)}, reps={int(reps)},
    delta_target={float(delta_target)!r}, seed={int(seed)}, amplify_delta={bool(amplify_delta)},
    estimator={estimator!r},{extra}
)
print(result.summary[["eps_target", "rate", {columns}]])
for eps_target in eps_targets:
    print(experiment_verdict(result.summary, eps_target{measure_arg}))
"""
    )


def comparison_snippet(
    pop: Population,
    *,
    eps_target: float,
    rates: Sequence[float],
    reps: int,
    delta_target: float,
    seed: int,
    quantile: float,
    measure: str,
    mechanisms: Sequence[str] | None = None,
) -> str:
    """Python repeating the mechanism comparison and printing the page's verdict.

    ``mechanisms`` appears only when it differs from the default (every mechanism whose
    measure exists)."""
    chosen = "" if mechanisms is None else f"\n    mechanisms={list(mechanisms)!r},"
    return (
        population_snippet(pop)
        + f"""from core.gains import mechanism_comparison
from ui.gains.text import comparison_verdict

result = mechanism_comparison(
    pop.values, lower=pop.lower, upper=pop.upper, eps_target={float(eps_target)!r},
    rates={_floats(rates)}, quantile={float(quantile)!r}, reps={int(reps)},
    delta_target={float(delta_target)!r}, seed={int(seed)}, measure={measure!r},{chosen}
)
print(result.table[["mechanism", "rate", "value", "se"]])
print(comparison_verdict(result))
"""
    )


def _factor(x: float) -> str:
    """A ratio >= 1 with three significant digits and thousands separators."""
    if not math.isfinite(x):
        return "infinitely many"
    return fmt(x, "ratio")


def _change_words(rel: float, better: bool, measure: str = "mse") -> str:
    """Words for ``rel = error_sample / error_population - 1`` in the chosen measure."""
    word = MEASURE_WORDS[measure]
    if better:
        if rel > -0.9:
            return f"{fmt(-rel, 'share')} lower {word}"
        article = "an" if measure == "mse" else "a"
        return f"{article} {word} {_factor(1.0 / (1.0 + rel))} times smaller"
    if rel >= 1.0:
        return f"{_factor(rel + 1.0)} times the {word}"
    return f"{fmt(max(rel, 0.0), 'share')} higher {word}"


def experiment_verdict(summary: pd.DataFrame, eps_target: float, measure: str = "mse") -> str:
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
    measure : {"mse", "mae", "error_95"}
        The error measure compared (``core.gains.MEASURES``).

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
    cmp = compare_with_population(summary, eps_target, measure)
    eps_words = f"At ε_target = {eps_target:g}"
    if math.isnan(cmp.best_sample_rate):
        return f"{eps_words} only the population was simulated; there is no sample to compare."
    if cmp.better:
        text = (
            f"{eps_words} the {percent(cmp.best_sample_rate)} sample is best: "
            f"{_change_words(cmp.relative_change, True, measure)} than privatising the population."
        )
    else:
        text = (
            f"{eps_words} no sampling rate beats the population; the best sample "
            f"({percent(cmp.best_sample_rate)}) has "
            f"{_change_words(cmp.relative_change, False, measure)}."
        )
    if cmp.within_error:
        text += (
            " The difference is within Monte Carlo error (2 standard errors); "
            "more repetitions are needed to tell them apart."
        )
    return text


#: How much worse than the best a release may be and still "come near it" in the verdict.
NEAR_FACTOR = 2.0


def _where(rate: float) -> str:
    """ "on the whole population" or "on a 30 % sample"."""
    return "on the whole population" if rate >= 1.0 else f"on a {percent(rate)} sample"


def comparison_verdict(result: MechanismComparison) -> str:
    """Plain words for :func:`core.gains.mechanism_comparison`: which release is best.

    Names the best (mechanism, rate) and its error, then, for every other mechanism, the
    smallest rate at which its error comes within a factor :data:`NEAR_FACTOR` of the best
    (or that it never does, with its own best and how far off it stays). Mechanisms listed
    in :data:`INFINITE_VARIANCE` are said to have no MSE.

    Parameters
    ----------
    result : core.gains.MechanismComparison
        The comparison at one ε_target.

    Returns
    -------
    str
        For example "At ε_target = 0.5 the exponential mechanism on the whole population has
        the smallest MSE (0.0164). Smooth-sensitivity Laplace needs a 30 % sample to come
        within a factor 2 of it; …".
    """
    table, measure = result.table, result.measure
    word = MEASURE_WORDS[measure]
    best_value = float(table.loc[table["is_best"], "value"].iloc[0])
    best_name = MECHANISM_SHORT.get(result.best_mechanism, result.best_mechanism)
    sentences = [
        f"At ε_target = {result.eps_target:g} {best_name} {_where(result.best_rate)} has the "
        f"smallest {word} ({fmt(best_value, 'plain')})."
    ]
    limit = NEAR_FACTOR * best_value
    for name, rows in table.groupby("mechanism", sort=False):
        if name == result.best_mechanism:
            continue
        label = MECHANISM_SHORT.get(str(name), str(name))
        label = label[0].upper() + label[1:]
        if measure == "mse" and name in INFINITE_VARIANCE:
            sentences.append(f"{label} has no MSE: its noise has no finite variance.")
            continue
        near = rows[rows["value"] <= limit].sort_values("rate")
        if not near.empty:
            rate = float(near["rate"].iloc[0])
            if rate >= 1.0:
                sentences.append(
                    f"{label} comes within a factor {NEAR_FACTOR:g} of it only on the whole "
                    "population."
                )
            else:
                sentences.append(
                    f"{label} needs a {percent(rate)} sample to come within a factor "
                    f"{NEAR_FACTOR:g} of it."
                )
            continue
        own = rows.loc[rows["value"].idxmin()]
        factor = float(own["value"]) / best_value if best_value > 0 else math.inf
        sentences.append(
            f"{label} never comes within a factor {NEAR_FACTOR:g} of it: its best, "
            f"{_where(float(own['rate']))}, has {_factor(factor)} times the {word}."
        )
    return " ".join(sentences)
