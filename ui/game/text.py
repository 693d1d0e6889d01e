"""Words of the Membership game page: labels, round and score lines, explanations, formulas.

Pure functions of numbers, tested without Streamlit.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from core.games import GameSetup, cluster_counts, expected_counts
from ui.format import fmt

#: Option labels; they are also the values in the URL (``game_design=Cluster``): keep them.
DESIGN_LABELS = {"simple random": "Simple random", "cluster": "Cluster"}
NEIGHBOUR_LABELS = {"worst case": "Worst case", "typical": "Typical"}
STATISTIC_LABELS = {"count": "Count", "share": "Share"}


def labeller(labels: dict[str, str]) -> Callable[[str], str]:
    """A ``format_func`` showing ``labels[option]`` (an unknown value is shown as it is)."""
    return lambda option: labels.get(option, option)


_BASE = {"game_eps": 1.0, "game_k": 20, "game_size": 25, "game_statistic": "count"}
#: One-click settings for a class: each sets the controls (and, through them, the URL).
PRESETS: dict[str, dict[str, object]] = {
    "Simple random, worst case": {
        **_BASE,
        "game_design": "simple random",
        "game_n": 100,
        "game_neighbour": "worst case",
    },
    "Clusters erase amplification": {
        **_BASE,
        "game_design": "cluster",
        "game_ell": 10,
        "game_neighbour": "worst case",
    },
    "A typical population": {
        **_BASE,
        "game_design": "simple random",
        "game_n": 100,
        "game_neighbour": "typical",
        "game_pi": 0.3,
    },
}

INTRO = (
    "A coin decides in secret whether **Alice's record is in the population**. The agency "
    "draws a sample, releases how many sampled records have a yes/no property (with Laplace "
    "noise), and you guess: was Alice **in** or **out**? Differential privacy is a promise "
    "about exactly this game: no guesser, however clever, can catch Alice much more often "
    "than they falsely accuse her."
)
CAPTION = (
    "The game does not use the population chosen in the sidebar: it plays on a small "
    "population of k clusters of M records (N = k·M), so the adversary's mathematics is "
    "exact. Alice joins cluster 1; she has the property. The sidebar's seed fixes the coin "
    "flips and the noise: the same seed and controls replay the same game."
)


def release_label(statistic: str) -> str:
    """The short label of the released number."""
    return "Noisy share" if statistic == "share" else "Noisy count"


def release_caption(statistic: str, design: str, scale: float) -> str:
    """What the released number is, with its unit."""
    where = "sampled records" if design == "simple random" else "records in the drawn clusters"
    if statistic == "share":
        return (
            f"Released: the share of {where} with the property, out of the {fmt(scale, 'count')} "
            "planned, plus noise. The noise is added to the true share, so the released "
            "number can fall below 0 or above 1."
        )
    return (
        f"Released: how many {where} have the property, plus noise. The noise is added to the "
        "true count, so the released number can be negative or have decimals."
    )


def release_value(value: float, statistic: str) -> str:
    """The release as shown: three significant digits (a share or a count alike)."""
    del statistic  # the same rule for both since issue 27: ui.format.fmt's "plain"
    return fmt(value, "plain", 3)


def round_line(index: int, rounds: int) -> str:
    """``"Round 3 of 10"`` (``index`` counts from 0)."""
    return f"Round {index + 1} of {rounds}"


def feedback(index: int, secret: bool, guess: bool) -> str:
    """What happened in a round, in one sentence."""
    truth = "in" if secret else "out"
    said = "in" if guess else "out"
    verdict = "right" if secret == guess else "wrong"
    return f"Round {index + 1}: Alice was **{truth}**, you guessed {said} — {verdict}."


def score_line(right: int, played: int) -> str:
    """A running score."""
    if played == 0:
        return "No guesses yet."
    return f"Score: {right} right out of {played} ({fmt(right / played, 'share', 2)})."


def rate_text(value: float) -> str:
    """A rate, or a dash when no round of its kind was played."""
    return "—" if math.isnan(value) else fmt(value, "plain", 2)


def _rounds(count: int) -> str:
    return f"{count} round" if count == 1 else f"{count} rounds"


def rates_line(tpr: float, fpr: float, rounds_in: int, rounds_out: int) -> str:
    """The student's TPR and FPR in words."""
    caught = "—" if math.isnan(tpr) else f"{round(tpr * rounds_in)}"
    accused = "—" if math.isnan(fpr) else f"{round(fpr * rounds_out)}"
    return (
        f"Alice was in for {_rounds(rounds_in)}: you said *in* in {caught} of them "
        f"(true-positive rate TPR = {rate_text(tpr)}). She was out for {_rounds(rounds_out)}: "
        f"you said *in* in {accused} of them (false-positive rate FPR = {rate_text(fpr)})."
    )


def missing_rate_note(rounds_in: int, rounds_out: int) -> str | None:
    """Why the student's point is missing from the chart, or None when it is drawn."""
    if rounds_in and rounds_out:
        return None
    which = (
        "no round with Alice in (so no TPR)"
        if not rounds_in
        else ("no round with Alice out (so no FPR)")
    )
    return f"The coin gave {which}: your point cannot be drawn. Play again or choose more rounds."


def losses_line(design: str, eps_target: float, eps_sample: float, exact: float) -> str:
    """The promise, the spend and the truth of this setup."""
    claim = (
        "amplification by simple random sampling"
        if design == "simple random"
        else "the (wrong) assumption that clusters amplify like single records"
    )
    verdict = "The promise holds." if exact <= eps_target * (1 + 1e-9) else "The promise is broken."
    return (
        f"Promised ε_target = {fmt(eps_target, 'guarantee')}. Relying on {claim}, the agency "
        "spends "
        f"ε_sample = {fmt(eps_sample, 'guarantee')} on the sample. The exact privacy loss of this "
        "game is "
        f"{fmt(exact, 'guarantee')}. {verdict}"
    )


def explanation(design: str, eps_target: float, exact: float) -> str:
    """The "what you see" paragraph under the ROC chart."""
    base = (
        "Each point is a way of guessing: its height is how often it catches Alice when she is "
        "in, its distance from the left how often it accuses her when she is out. The shaded "
        f"region holds every point that ε_target = {fmt(eps_target, 'guarantee')} allows; a coin "
        "toss lies on "
        "the diagonal. The automatic adversary ranks every release by how much more likely it "
        "is with Alice than without (the likelihood ratio) and is the best guesser there is: its "
        "exact curve is what 10,000 rounds approach."
    )
    broken = exact > eps_target * (1 + 1e-9)
    if design == "cluster" and broken:
        base += (
            f" With clusters the release reveals whether Alice's whole cluster was drawn, so the "
            f"real loss is {fmt(exact, 'guarantee')}, not {fmt(eps_target, 'guarantee')}: the "
            "dashed line (Bun et al., "
            "Theorem 5.3) and the adversary's curve leave the shaded region."
        )
    elif design == "cluster":
        base += (
            f" Here the clusters differ too little for the release to show whether Alice's "
            f"cluster was drawn, so the real loss, {fmt(exact, 'guarantee')}, keeps the promise; "
            "the dashed "
            "line (Bun et al., Theorem 5.3) is what a cluster that stands out would allow."
        )
    else:
        base += (
            " With a simple random sample the adversary's curve stays inside the region and, "
            "in the worst case, runs along its edge near the origin: the promise is tight."
        )
    return base + (
        " Your star rests on a few rounds only, so luck can put it outside the region: the "
        "promise is about how often a guess succeeds over many rounds."
    )


FORMULAS = (
    r"\mathrm{TPR} \le e^{\varepsilon}\,\mathrm{FPR} + \delta",
    r"1-\mathrm{FPR} \le e^{\varepsilon}\,(1-\mathrm{TPR}) + \delta",
    r"\varepsilon_{\text{sample}} = \log\!\Big(1 + \frac{e^{\varepsilon_{\text{target}}}-1}"
    r"{\text{rate}}\Big)",
)
FORMULA_WORDS = (
    "In words: a guess that catches Alice with probability TPR must accuse her falsely with "
    "probability at least TPR/e^ε (Kairouz, Oh & Viswanath 2015); δ = 0 for Laplace noise. "
    "The agency spends ε_sample on the sample, with rate = n/N (simple random) or ℓ/k "
    "(cluster)."
)

ADVERSARY_HELP = (
    "Plays 10,000 rounds with the likelihood-ratio test, which knows everything but the coin "
    "and the sample, and draws its ROC curve."
)


def snippet(setup: GameSetup, seed: int) -> str:
    """A "Reproduce in Python" snippet: the automatic adversary with the page's setup."""
    return (
        "import numpy as np\n"
        "from core import games\n\n"
        f"setup = games.{setup!r}\n"
        f"rng = np.random.default_rng([{seed}, 0, 1])\n"
        "secrets, releases = games.play_rounds(setup, rng, 10_000)\n"
        "fpr, tpr = games.empirical_roc(games.likelihood_ratio_test(setup, releases), secrets)\n"
        "print('exact privacy loss', games.privacy_loss(setup))\n"
        "print('bound at FPR = 0.1:', games.tradeoff_bound(setup.eps_target, 0.0, [0.1])[0])\n"
    )


def settings_line(setup: GameSetup, rounds: int) -> str:
    """One line summing up the game's settings (shown above the rounds)."""
    big_n = setup.population_size
    if setup.design == "cluster":
        sample = f"ℓ = {setup.drawn} of k = {setup.clusters} clusters of M = {setup.cluster_size}"
    else:
        sample = f"n = {setup.drawn:,} of N = {big_n:,} records"
    who = "worst case" if setup.neighbour == "worst case" else f"typical, π = {setup.share:g}"
    return (
        f"{DESIGN_LABELS[setup.design]} sample: {sample} (rate {fmt(setup.rate, 'rate')}) · "
        f"ε_target = {setup.eps_target:g} · neighbour: {who} · {rounds} rounds"
    )


def knowledge_hint(setup: GameSetup, means: tuple[float, float] | None = None) -> str:
    """What a player may use, as the automatic adversary does: the count without noise in
    each case, and the size of the Laplace noise (scale ``1/ε_sample`` in counts).

    ``means`` are :func:`core.games.expected_counts` (the page passes its cached copy).
    """
    unit = setup.scale
    noise = 1.0 / setup.eps_sample / unit
    noise_words = (
        f"The noise is Laplace with scale {release_value(noise, setup.statistic)} "
        f"(1/ε_sample{'' if unit == 1 else ' ÷ planned size'}; half the time within "
        f"±{release_value(noise * math.log(2.0), setup.statistic)})."
    )
    if setup.neighbour == "worst case":
        if setup.design == "cluster":
            own = int(cluster_counts(setup)[0])
            cases = (
                f"if Alice's cluster was drawn, {release_value((own + 1) / unit, setup.statistic)}"
                f" with Alice in and {release_value(own / unit, setup.statistic)} without her; "
                f"if it was not drawn (chance {fmt(1 - setup.rate, 'share')}), "
                f"{release_value(0.0, setup.statistic)} either way"
            )
        else:
            cases = (
                f"{release_value(1 / unit, setup.statistic)} if Alice is in and was drawn "
                f"(chance {fmt(setup.drawn / (setup.population_size + 1), 'share')} when she is "
                "in), "
                f"{release_value(0.0, setup.statistic)} otherwise"
            )
        return f"What you know: without noise the release would be: {cases}. {noise_words}"
    count_in, count_out = means if means is not None else expected_counts(setup)
    mean_in, mean_out = count_in / unit, count_out / unit
    return (
        "What you know: everyone's property except Alice's presence. Without noise the "
        f"release averages {release_value(mean_in, setup.statistic)} with Alice in and "
        f"{release_value(mean_out, setup.statistic)} without her (the sample varies). "
        + noise_words
    )
