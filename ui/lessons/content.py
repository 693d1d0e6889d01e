"""The six lessons as data: each step's question, answer options, page state and takeaway.

A step's ``query`` holds the URL parameters of the page that answers its question: that
page's URL-bound controls and its tab key, written as the page writes them into the URL
(numbers as text, a tab by its label). :mod:`ui.lessons.links` adds the population and the
seed; :mod:`ui.lessons.reveals` reads the same parameters to draw the reveal chart, so the
chart in the lesson and the chart the link opens come from one set of values.

Every number a question or reveal states was checked against the app's core functions for
the state its link opens (``tests/ui/lessons/test_lessons_content.py`` recomputes them).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from ui.amplification.text import FORWARD_TAB, STEINKE_TAB
from ui.clusters.text import FRACTION_TAB, SIZE_TAB
from ui.gains.text import CMP_TAB, EXP_TAB, MEAN_TAB
from ui.planner.text import COMPARE_TAB
from ui.statistical.text import CURVE_TAB, PI_TAB
from ui.strata.text import PRIVACY_TAB


@dataclass(frozen=True)
class Step:
    """One step of a lesson.

    Attributes
    ----------
    question : str
        The question put to the class.
    options : tuple of str
        The answers a student can commit to (2 to 4).
    correct : int
        Index of the right answer in ``options``.
    page : str
        Script of the page that answers the question (as registered in ``ui.router.PAGES``).
    query : Mapping[str, str]
        URL parameters of that page's controls and tab (population and seed excluded).
    figure : str
        Key of the reveal chart in :data:`ui.lessons.reveals.REVEALS`.
    reveal : str
        What to read off the chart, in plain words.
    takeaway : str
        The one sentence to remember.
    population : str
        Built-in population the link opens (key of ``core.populations.BUILTIN_POPULATIONS``).
    seed : int
        Seed the link opens (the sidebar's seed).
    """

    question: str
    options: tuple[str, ...]
    correct: int
    page: str
    query: Mapping[str, str]
    figure: str
    reveal: str
    takeaway: str
    population: str = "lognormal"
    seed: int = 0

    def __post_init__(self) -> None:
        if not 2 <= len(self.options) <= 4:
            raise ValueError(f"a step needs 2 to 4 options, got {len(self.options)}")
        if not 0 <= self.correct < len(self.options):
            raise ValueError(
                f"correct must index one of the {len(self.options)} options, got {self.correct}"
            )
        object.__setattr__(self, "query", MappingProxyType(dict(self.query)))


@dataclass(frozen=True)
class Lesson:
    """A lesson: a short label (the URL value of ``lesson``), a title, an intro and its steps."""

    label: str
    title: str
    intro: str
    steps: tuple[Step, ...]

    def __post_init__(self) -> None:
        if not 2 <= len(self.steps) <= 4:
            raise ValueError(f"a lesson needs 2 to 4 steps, got {len(self.steps)}")


AMP = "app_pages/amplification.py"
GAINS = "app_pages/gains.py"
CLUSTERS = "app_pages/clusters.py"
STRATA = "app_pages/strata.py"
STATISTICAL = "app_pages/statistical.py"
PLANNER = "app_pages/planner.py"

AMPLIFICATION_LESSON = Lesson(
    label="Amplification",
    title="Why a secret sample is worth privacy",
    intro=(
        "An outsider who does not know who was drawn into a secret random sample learns less "
        "about any one person. How much budget does that buy, and where does the buying stop?"
    ),
    steps=(
        Step(
            question=(
                "The agency promises the population ε_target = 1 and privatises a secret 1 % "
                "simple random sample (rate = n/N = 0.01). How large a budget ε_sample may "
                "the mechanism spend on the sample?"
            ),
            options=(
                "About 1: a sample buys nothing",
                "About 5",
                "About 100: the budget grows like 1/rate",
            ),
            correct=1,
            page=AMP,
            query={"amp_view": FORWARD_TAB, "amp_eps_targets": "1"},
            figure="amp_forward",
            reveal=(
                "Read the curve at rate 0.01: ε_sample = log(1 + (e¹ − 1)/0.01) ≈ 5.15. "
                "The allowed budget grows as the sample shrinks, but only like log(1/rate)."
            ),
            takeaway=(
                "A secret random sample lets the mechanism spend more than ε_target, but the "
                "extra budget grows only with the logarithm of 1/rate."
            ),
        ),
        Step(
            question=(
                "A popular shorthand says a p-sample buys ε/p: ε_sample = 100 for "
                "ε_target = 1 and p = 1 %. What share of that does the sample really get "
                "(Steinke's ratio p·ε_sample/ε_target)?"
            ),
            options=("Nearly all of it (≈ 100 %)", "About half (≈ 50 %)", "About 5 %"),
            correct=2,
            page=AMP,
            query={"amp_view": STEINKE_TAB, "amp_st_eps": "1"},
            figure="amp_steinke_p",
            reveal=(
                "On the ε = 1 curve at p = 0.01 the ratio is about 0.05: the sample may spend "
                "ε_sample ≈ 5.15, a twentieth of the shorthand's 100. The curve nears 1 only "
                "as p approaches 1."
            ),
            takeaway=(
                "Amplification is nearly free only while ε_target is small compared with the "
                "sampling rate; beyond that, ε/p overstates it badly."
            ),
        ),
        Step(
            question=(
                "Suppose ε_target is tied to the rate, ε = c·p with c = 2. However small p "
                "gets, the ratio p·ε_sample/ε_target stays above about…"
            ),
            options=("0.99", "0.55", "0.05"),
            correct=1,
            page=AMP,
            query={"amp_view": STEINKE_TAB, "amp_st_c": "2"},
            figure="amp_steinke_regime",
            reveal=(
                "The curve for c = 2 never drops below its dotted floor log(1 + c)/c = "
                "log(3)/2 ≈ 0.55: the sample keeps at least about half of what ε/p promises."
            ),
            takeaway=(
                "Keep ε_target below c times the rate and a sample always keeps at least "
                "log(1 + c)/c of the ε/p shorthand (Steinke)."
            ),
        ),
    ),
)

MEDIAN_LESSON = Lesson(
    label="Median",
    title="When a private sample's median beats the population's",
    intro=(
        "Privatising a sample spends a larger budget ε_sample but adds sampling error. Hu, "
        "Drechsler & Kim ask when the trade pays off: never for the mean, sometimes for the "
        "median."
    ),
    steps=(
        Step(
            question=(
                "Compare the Laplace noise of a private mean of the whole population with that "
                "of a private mean of a sample, both giving the population the same ε_target. "
                "Can the sample's mean ever carry less noise (noise ratio r above 1)?"
            ),
            options=(
                "Yes, for a small enough ε_target",
                "Yes, for a small enough sample",
                "No, for no sample smaller than the population",
            ),
            correct=2,
            page=GAINS,
            query={"gain_view": MEAN_TAB, "gain_eps": "0.01, 0.1, 0.5, 1, 3"},
            figure="gain_r",
            reveal=(
                "Every curve stays below r = 1. The sample mean's sensitivity R/n grows faster "
                "than the amplified budget, so r = (rate·ε_sample/ε_target)² < 1 at every "
                "rate below 1; small ε_target only brings r closer to 1."
            ),
            takeaway=(
                "For the mean, privatising a sample never beats privatising the population: "
                "its noise is already larger before any sampling error is added."
            ),
        ),
        Step(
            question=(
                "A gain would also need the sampling variance of the sample below q·V_N, where "
                "q = 1 − (ε_target/ε_sample)² shrinks as the sample grows. At ε_target = 3, "
                "up to which sampling rate is q at least 0.6?"
            ),
            options=("About 17 %", "About 61 %", "About 95 %"),
            correct=0,
            page=GAINS,
            query={"gain_view": MEAN_TAB, "gain_eps": "0.1, 3"},
            figure="gain_q",
            reveal=(
                "The dot on the ε_target = 3 curve sits at rate 16.77 %; at ε_target = 0.1 "
                "the same q = 0.6 holds up to 61.4 % (Hu et al. §4.1)."
            ),
            takeaway=(
                "The larger ε_target, the less room amplification leaves for sampling "
                "variance: only small samples could hope to gain."
            ),
        ),
        Step(
            question=(
                "Now the median, privatised with smooth-sensitivity Laplace noise, on the "
                "Lognormal population (N = 10,001, seed 0, 200 repetitions). At which "
                "ε_target does some sample's private median have a smaller mean squared "
                "error than the population's private median?"
            ),
            options=(
                "At both ε_target = 0.1 and 1",
                "Only at ε_target = 0.1",
                "Only at ε_target = 1",
                "At neither",
            ),
            correct=1,
            page=GAINS,
            query={"gain_view": EXP_TAB, "gain_exp_eps": "0.1, 1"},
            figure="gain_log_mse",
            reveal=(
                "The ε_target = 0.1 line falls below the population's cross (rate 1) at small "
                "rates; the ε_target = 1 line stays above it at every rate."
            ),
            takeaway=(
                "The median can gain from sampling when ε_target is small: the larger budget "
                "then outweighs both the sampling error and the sample's larger sensitivity."
            ),
        ),
        Step(
            question=(
                "The same incomes reported in round figures: the Lognormal population rounded "
                "to multiples of 10, so many records share each value. At the same "
                "ε_target = 0.5, which has the smaller mean squared error, each at its best "
                "sampling rate: smooth-sensitivity Laplace (Hu et al.) or the exponential "
                "mechanism (OpenDP, Tumult), which wins by far on the unrounded incomes?"
            ),
            options=(
                "The exponential mechanism, as on the unrounded incomes",
                "About the same",
                "Smooth-sensitivity Laplace, by a factor of about 25",
            ),
            correct=2,
            page=GAINS,
            query={"gain_view": CMP_TAB},
            figure="gain_compare",
            reveal=(
                "The same ε, two mechanisms, 24.5 times apart: the exponential mechanism's "
                "best MSE is 32.6, smooth-sensitivity Laplace's 1.33. 482 of the 10,001 "
                "records (4.8 %) hold the median's value, 150. One changed record cannot move "
                "the median off that block of ties, so its smooth sensitivity is nearly zero; "
                "the exponential mechanism draws between two different values and never "
                "releases the tied 150 itself."
            ),
            takeaway=(
                "Ties decide the winner: on the unrounded Lognormal incomes the order flips, "
                "and smooth-sensitivity Laplace's best MSE is 239 times the exponential "
                "mechanism's. Count the records tied at the quantile before choosing."
            ),
            population="lognormal_rounded",
        ),
    ),
)

CLUSTER_LESSON = Lesson(
    label="Clusters",
    title="Why clusters erase amplification",
    intro=(
        "Surveys often draw whole households and keep everyone in them. Bun et al. (§5) show "
        "that a private output can reveal which clusters were drawn, and with them who is in "
        "the sample. Cluster size is M, the number of clusters k, the number drawn ℓ."
    ),
    steps=(
        Step(
            question=(
                "A survey draws ℓ = 100 of k = 1,000 households (10 %); each holds M = 10 "
                "people. The mechanism spends ε_sample = 1 on the sample. What guarantee "
                "ε_target does a person get?"
            ),
            options=(
                "About 0.16, as for a 10 % sample of single people",
                "About 0.5",
                "About 1: almost nothing beyond ε_sample",
            ),
            correct=2,
            page=CLUSTERS,
            query={
                "cl_view": SIZE_TAB,
                "cl_eps": "1.0",
                "cl_size": "10",
                "cl_k": "1000",
                "cl_l": "100",
            },
            figure="cl_size",
            reveal=(
                "At cluster size M = 10 the curve is already at ε_target ≈ 1.00, while Poisson "
                "sampling of 10 % of the people (dotted) would give log(1 + 0.1·(e − 1)) ≈ 0.16."
            ),
            takeaway=(
                "Once M·ε_sample is a few units, drawing a fraction of the clusters protects "
                "no better than no sampling at all."
            ),
        ),
        Step(
            question=(
                "Spend less: ε_sample = 0.1, the same households of M = 10, 10 % of them "
                "drawn. How does ε_target compare with a 10 % sample of single people "
                "(about 0.01)?"
            ),
            options=(
                "About the same (≈ 0.01)",
                "About four times larger (≈ 0.05)",
                "Equal to ε_sample (0.1)",
            ),
            correct=1,
            page=CLUSTERS,
            query={
                "cl_view": FRACTION_TAB,
                "cl_eps": "0.1",
                "cl_size": "10",
                "cl_k": "1000",
                "cl_l": "100",
            },
            figure="cl_fraction",
            reveal=(
                "At ℓ/k = 0.1 the households' curve reads ε_target ≈ 0.046, against ≈ 0.0125 "
                "for clusters of one record and ≈ 0.0105 for Poisson sampling."
            ),
            takeaway=(
                "With a small M·ε_sample a cluster sample still amplifies, but several times "
                "less than a sample of people at the same fraction."
            ),
        ),
    ),
)

ALLOCATION_LESSON = Lesson(
    label="Allocation",
    title="Why Neyman allocation leaks, and what randomised rounding fixes",
    intro=(
        "A stratified sample decides how many records to take from each stratum. Bun et al. "
        "(§4, §7) show that this choice can depend on the data, and then the sample sizes "
        "themselves give people away."
    ),
    steps=(
        Step(
            question=(
                "Establishments (N = 100,000 in 12 size classes), total sample n = 10,000. "
                "One record changes: the smallest establishment becomes a 10,000-employee "
                "one. Do the per-stratum sample sizes of Neyman allocation change?"
            ),
            options=(
                "No: the allocation is part of the design, not of the data",
                "Yes: some strata gain or lose records",
            ),
            correct=1,
            page=STRATA,
            query={"strat_view": PRIVACY_TAB, "strat_m": "10000", "strat_eps": "0.5"},
            figure="st_neighbour",
            population="establishments",
            reveal=(
                "Bars that are not zero are strata whose Neyman sample size moved. Releasing "
                "the noisy stratum sample sizes then tells the two populations apart: with "
                "ε_sample = 0.5 the loss is 2·0.5 = 1, more than ε_sample itself."
            ),
            takeaway=(
                "Neyman allocation follows the strata's spreads, so it leaks the data; it "
                "earns no amplification claim."
            ),
        ),
        Step(
            question=(
                "Proportional allocation at r = 1/10 with ordinary rounding: a stratum of "
                "|P| = 14 records gives round(1.4) = 1 sampled record, its neighbour with "
                "15 records gives round(1.5) = 2. A noisy sample count with ε_sample = 0.5 "
                "is released. How much privacy is lost between the two?"
            ),
            options=(
                "Almost none: the sample amplifies it",
                "ε_sample = 0.5: no amplification at all",
                "Without limit",
            ),
            correct=1,
            page=STRATA,
            query={
                "strat_view": PRIVACY_TAB,
                "strat_m": "10000",
                "strat_eps": "0.5",
                "strat_cx_size": "14",
                "strat_cx_rate": "0.1",
            },
            figure="st_rounding",
            population="establishments",
            reveal=(
                "The rounded curves (orange) are Laplace densities one record apart: their "
                "log-ratio reaches ε_sample = 0.5, the full budget."
            ),
            takeaway=(
                "Rounding makes the sample size a function of the data, and the released "
                "count then shows which population it came from."
            ),
        ),
        Step(
            question=(
                "Randomised rounding draws 2 records from P with probability 0.4 (else 1) and "
                "2 from P′ with probability 0.5. How much does the same noisy count lose now?"
            ),
            options=("Still 0.5", "About 0.05, a tenth of ε_sample", "Exactly 0"),
            correct=1,
            page=STRATA,
            query={
                "strat_view": PRIVACY_TAB,
                "strat_m": "10000",
                "strat_eps": "0.5",
                "strat_cx_size": "14",
                "strat_cx_rate": "0.1",
            },
            figure="st_rounding",
            population="establishments",
            reveal=(
                "The randomised curves (green) for P and P′ nearly coincide: the loss is "
                "about 0.05."
            ),
            takeaway=(
                "Randomised rounding restores amplification: proportional allocation is then "
                "guaranteed about 6·r·ε_sample for small budgets (Bun et al. Theorem 7.2)."
            ),
        ),
    ),
)

ADVERSARY_LESSON = Lesson(
    label="Adversary",
    title="What an adversary who knows only the distribution learns",
    intro=(
        "Differential privacy guards against an adversary who knows every other record. "
        "Breutigam & Reischuk ask what someone learns who knows only how the data were "
        "generated: N records, each with a property with probability π."
    ),
    steps=(
        Step(
            question=(
                "N = 1,000 records, each carrying a health flag that is set with probability "
                "π = 1/2. The exact share of flagged records is published, without noise. "
                "Someone who knows the other 999 records learns Alice's flag for sure (δ = 1 "
                "at ε = 0.01). What δ does someone face who knows only π?"
            ),
            options=("δ = 1 as well", "δ ≈ 0.4", "δ ≈ 0.02"),
            correct=2,
            page=STATISTICAL,
            query={"sp_view": CURVE_TAB, "sp_n": "1000", "sp_pi": "0.5", "sp_eps": "0.01"},
            figure="sp_curve",
            reveal=(
                "The solid 'no mechanism' curve gives δ ≈ 0.021 at ε = 0.01, far below its "
                "worst case δ = 1: the randomness of the other 999 records hides Alice's."
            ),
            takeaway=(
                "Against an adversary who knows only the distribution, the other records' "
                "randomness already acts as noise."
            ),
        ),
        Step(
            question=(
                "Add Gaussian noise (ν = 1, in units of the sensitivity 1/N). For which "
                "property probability π does the distribution-only adversary learn the most?"
            ),
            options=("π = 1/2", "π = 0.1", "π close to 0: a rare property"),
            correct=2,
            page=STATISTICAL,
            query={"sp_view": PI_TAB, "sp_n": "1000", "sp_eps": "0.01", "sp_nus": "1, 3"},
            figure="sp_pi",
            reveal=(
                "The ν = 1 curve is lowest near π = 1/2 (δ ≈ 0.021) and climbs towards the "
                "dotted worst case δ ≈ 0.38 as π goes to 0."
            ),
            takeaway=(
                "The other records hide a person well only when their values are uncertain; "
                "for rare properties statistical privacy falls back to the worst case."
            ),
        ),
    ),
)

COUNT_LESSON = Lesson(
    label="Count",
    title="A count from a sample or from the register?",
    intro=(
        "Agencies publish counts more than anything else: how many establishments of each "
        "size class. A secret sample buys a larger privacy budget. Does it buy a more "
        "accurate count?"
    ),
    steps=(
        Step(
            question=(
                "The agency promises ε_target = 1 and releases the number of establishments "
                "with 1 to 4 employees in a register of 100,000. Which release is more "
                "accurate: a secret 10 % sample, scaled up to the register, or the whole "
                "register (the census), each with the best mechanism its budget allows?"
            ),
            options=(
                "The 10 % sample: it may spend a larger ε_sample",
                "The census",
                "The two are equally accurate",
            ),
            correct=1,
            page=PLANNER,
            query={
                "plan_stat": "count",
                "plan_sel": "a category",
                "plan_eps": "1",
                "plan_rates": "0.02, 0.05, 0.1, 0.2, 0.5",
                "plan_view": COMPARE_TAB,
            },
            figure="plan_count",
            reveal=(
                "Every sample's line lies above the census's dotted line, at 10 % and at "
                "every other rate: the census's count is off by a few records, a sample's "
                "by many more. The planner's verdict says it in words: privatise the whole "
                "register."
            ),
            takeaway=(
                "Under the same mechanism, a count from the register beats a count from any "
                "secret sample."
            ),
            population="establishments",
        ),
        Step(
            question=(
                "At ε_target = 1 a 10 % sample may spend ε_sample = ln(1 + (e − 1)/0.1) ≈ "
                "2.9. Scaling the sample's count up to the register multiplies its noise by "
                "1/0.1 = 10. How large is the scaled-up noise against the census's noise "
                "(same mechanism)?"
            ),
            options=(
                "Smaller: 2.9 is more than 1",
                "About 3.4 times larger",
                "10 times larger",
            ),
            correct=1,
            page=AMP,
            query={"amp_view": STEINKE_TAB, "amp_st_eps": "1"},
            figure="amp_steinke_p",
            reveal=(
                "Read the ε = 1 curve at p = 0.1: r·ε_sample/ε_target ≈ 0.29. The noise scale "
                "of the scaled-up count is 1/(r·ε_sample) against the census's 1/ε_target, "
                "1/0.29 ≈ 3.4 times larger. The curve stays below 1 at every rate under 1, "
                "so no rate makes up for it."
            ),
            takeaway=(
                "A count's noise is multiplied by 1/r when the sample is scaled up, and "
                "amplification gives back only r·ε_sample < ε_target. A median is not "
                "scaled up: its error is set by how many records lie near it, and falls "
                "much faster than 1/ε once ε_sample is large enough, so the larger budget "
                "can pay for the smaller sample."
            ),
        ),
    ),
)

#: Every lesson, in the order the page offers them.
LESSONS: tuple[Lesson, ...] = (
    AMPLIFICATION_LESSON,
    MEDIAN_LESSON,
    CLUSTER_LESSON,
    ALLOCATION_LESSON,
    ADVERSARY_LESSON,
    COUNT_LESSON,
)


def lesson_by_label(label: str) -> Lesson:
    """The lesson whose label is ``label`` (the value of the ``lesson`` URL parameter).

    Raises
    ------
    ValueError
        If no lesson has that label.
    """
    for lesson in LESSONS:
        if lesson.label == label:
            return lesson
    known = [lesson.label for lesson in LESSONS]
    raise ValueError(f"no lesson is labelled {label!r}; the lessons are {known}")
