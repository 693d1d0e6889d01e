"""ui.planner.text: the recommendation and the design notes, with numbers from core.planner.

The recommendation is checked for a gain (the lognormal population at ε_target = 0.1, where a
simple random sample beats the census with smooth-sensitivity Laplace noise), for a gain
within the Monte Carlo noise (Hu et al.'s bimodal population at ε_target = 0.03 with the
exponential mechanism, whose census is as good), for a loss (the
lognormal population at ε_target = 3) and for a cluster design that gains nothing (one
cluster holds half of the records).
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from core import planner, resolution
from core.mechanisms import MECHANISMS
from core.population import Population
from core.populations import make_builtin
from ui.format import fmt
from ui.planner import accuracy_text, compare_text, several_text, text
from ui.planner import figures as figs
from ui.planner.exports.report import _gain_words

LOGNORMAL = make_builtin("lognormal", seed=0)
BIMODAL = make_builtin("bimodal_paper", seed=0)


def _half_in_one_cluster(size: int = 2000) -> Population:
    """Half of the records in cluster 0, the rest in ten clusters of equal size."""
    rng = np.random.default_rng(3)
    values = np.sort(rng.lognormal(3.0, 0.5, size))
    clusters = np.concatenate([np.zeros(size // 2, int), 1 + np.arange(size // 2) % 10])
    return Population(name="half.csv", values=values, lower=0.0, upper=200.0, clusters=clusters)


@pytest.fixture(scope="module")
def gain() -> planner.PlanResult:
    return planner.plan(
        LOGNORMAL,
        eps_target=0.1,
        designs=("census", "srs"),
        reps=100,
        mechanisms=("smooth_laplace",),
    )


@pytest.fixture(scope="module")
def noise_gain() -> planner.PlanResult:
    """The exponential mechanism's sample ahead of its census by less than its Monte Carlo
    error (7 % at T = 100, 0.4 % at T = 400): not a gain to recommend."""
    return planner.plan(BIMODAL, eps_target=0.03, designs=("census", "srs"), reps=100)


@pytest.fixture(scope="module")
def loss() -> planner.PlanResult:
    return planner.plan(LOGNORMAL, eps_target=3.0, designs=("census", "srs"), reps=200)


def test_recommendation_for_a_gain_names_rate_bound_and_gain(gain):
    best = gain.best
    assert best["design"] == "srs"
    words = compare_text.recommendation(gain)
    share = 1 - best["error_95"] / gain.census["error_95"]
    article = "an" if fmt(best["rate"], "rate").startswith(("8", "11 ", "18")) else "a"
    assert words.startswith(
        f"Privatise {article} {fmt(best['rate'], 'rate')} simple random sample "
        f"(without replacement) ({figs.short_mechanism(best['mechanism_label'])}): 95 % of "
        "releases"
    )
    assert f"within ±{fmt(best['error_95'], 'error')} of the population median" in words
    assert (
        f"{fmt(share, 'share')} tighter than privatising the whole register with Laplace noise "
        "scaled to the smooth sensitivity (a gain larger than two Monte Carlo standard errors)."
    ) in words
    assert "gains nothing" not in words
    assert best["beats_census"] and gain.recommended.equals(best)


def test_a_gain_within_the_monte_carlo_error_recommends_the_census(noise_gain):
    """Issue 35: "0.637 % tighter than privatising the whole register" followed by "Sampling
    gains nothing here". A sample ahead by less than two standard errors is not recommended."""
    best, census = noise_gain.best, noise_gain.census
    assert best["design"] == "srs" and best["gain"] > 0  # ahead on this seed ...
    assert best["error_95"] + 2 * best["error_95_se"] >= census["error_95"]  # ... by noise
    assert not best["beats_census"]
    assert noise_gain.recommended["design"] == "census"
    words = compare_text.recommendation(noise_gain)
    assert words.startswith("Privatise the whole register (exponential mechanism)")
    assert "tighter than" not in words
    assert "indistinguishable" in words and "the simpler release, the census" in words
    assert f"±{fmt(best['error_95'], 'error')} (Monte Carlo standard error " in words
    assert f"the census's exact ±{fmt(census['error_95'], 'error')}" in words


@pytest.mark.parametrize("eps_target", [0.03, 0.1, 0.3])
def test_a_verdict_never_claims_a_gain_and_denies_it(eps_target):
    """Whatever wins, a verdict that says a sample is tighter never says sampling gains
    nothing, and a sample it recommends beats the census by the rule."""
    result = planner.plan(BIMODAL, eps_target=eps_target, reps=50, rates=(0.05, 0.3, 0.8))
    words = compare_text.recommendation(result)
    assert not ("tighter than" in words and "Sampling gains nothing" in words)
    chosen = result.recommended
    if chosen["design"] != "census":
        assert planner.beats_reference(
            chosen["error_95"], chosen["error_95_se"], result.census["error_95"]
        )


def test_recommendation_for_a_loss_keeps_the_census_and_says_why(loss):
    assert loss.best["design"] == "census"  # Hu et al.: no gain at ε = 3
    words = compare_text.recommendation(loss)
    srs = loss.best_by_design[loss.best_by_design["design"] == "srs"].iloc[0]
    census = loss.census
    assert words.startswith(
        f"Privatise the whole register ({figs.short_mechanism(census['mechanism_label'])}): "
        "95 % of releases "
        f"within ±{fmt(census['error_95'], 'error')} of the population median."
    )
    assert "No sampling design is more accurate here at this ε_target." in words
    assert srs["gain"] < -1  # the error is several times the census's
    assert (
        "Sampling gains nothing here (the census: the whole register with the exponential "
        "mechanism): a simple random sample (without replacement) at its best rate, "
        f"{fmt(srs['rate'], 'rate')}, is {fmt(1 - srs['gain'], 'ratio')} times the error of "
        "the census." in words
    )


def test_relative_change_words():
    assert compare_text.relative_change(0.38) == "38 % tighter than"
    assert compare_text.relative_change(0.0) == "as accurate as"
    assert compare_text.relative_change(-0.12) == "12 % less accurate than"
    assert compare_text.relative_change(-3.6) == "4.6 times the error of"
    assert compare_text.relative_change(-6356.2) == "6,360 times the error of"  # not 6.36e+03


def test_the_report_and_the_page_say_the_same_about_the_census():
    """Issue 27: the page said "6.36e+03 times" where the report said "6,357 ×"."""
    for gain in (0.38, -0.12, -3.8, -6356.2):
        assert _gain_words(gain) == f"{compare_text.relative_change(gain)} the census"
    assert _gain_words(-6356.2) == "6,360 times the error of the census"
    assert _gain_words(0.0) == "same as census"


def test_rmse_objective_words():
    result = planner.plan(
        LOGNORMAL, eps_target=0.1, designs=("census", "srs"), reps=50, objective="rmse"
    )
    words = compare_text.recommendation(result)
    assert f"root mean squared error {fmt(result.best['rmse'], 'error')}" in words


def test_cluster_design_that_gains_nothing_names_the_cluster_size():
    pop = _half_in_one_cluster()
    result = planner.plan(pop, eps_target=1.0, designs=("census", "cluster"), reps=50)
    row = result.best_by_design[result.best_by_design["design"] == "cluster"].iloc[0]
    assert row["gain"] <= 0  # the issue: never beats the census
    words = compare_text.recommendation(result, clusters=11)
    assert "A cluster sample gains nothing: clusters of about 182 records erase the " in words
    assert compare_text.mean_cluster_size(2000, 11) == pytest.approx(181.818, rel=1e-4)
    with pytest.raises(ValueError, match="k"):
        compare_text.mean_cluster_size(2000, 0)


def test_status_lines_give_cores_reasons():
    pop = make_builtin("lognormal", seed=0, size=500)
    lines = {s.name: compare_text.status_line(s) for s in planner.design_statuses(pop)}
    assert "not planned" in lines["neyman"] and "Bun et al. §7" in lines["neyman"]
    assert "earlier census" in lines["neyman"]
    assert (
        "not available here. The population has no stratum labels"
        in lines["stratified_proportional"]
    )
    assert "not available here" in lines["cluster"]
    # Poisson sampling under a changed record: the exact bound from the mechanism's budgets.
    assert "add/remove and change budgets" in lines["poisson"]
    assert "ε_target / 2" not in lines["poisson"]
    assert lines["srs"].endswith("(Balle, Barthe & Gaboardi 2018).")
    deletion = {
        s.name: compare_text.status_line(s)
        for s in planner.design_statuses(pop, "median", "deletion")
    }
    assert "ε_target / 2" not in deletion["poisson"]
    assert "not available here" in deletion["srs"]


def test_accuracy_answer_and_composition_verdict(gain):
    found = accuracy_text.accuracy_answer(1.5, 0.25, True, gain.best, 50.0)
    assert "**0.25**" in found and "±1.5 or below" in found
    assert "No plan reaches" in accuracy_text.accuracy_answer(1.5, float("nan"), False, None, 50.0)
    # Issue 35 §6: out of reach, the answer names the best bound within reach and where.
    missed = accuracy_text.accuracy_answer(1e-6, float("nan"), False, gain.best, 20.0)
    reached = fmt(float(gain.best["error_95"]), "error")
    assert "up to 20:" in missed and f"within reach is **±{reached}**, at ε_target = 20" in missed
    assert text.plan_phrase(gain.best) in missed


def test_default_target_reason_says_when_the_step_binds():
    rounded = accuracy_text.default_target_reason(1.0, 0.95, 1.0)
    assert "±1, from 5 % of" in rounded and "±0.95" in rounded
    assert "values are recorded in steps of 1" in rounded and "can show" in rounded
    fine = accuracy_text.default_target_reason(0.2, 0.1926, 0.01)
    assert "can show" not in fine and "rounded up to a short number" in fine
    assert accuracy_text.default_target_reason(0.9, 0.9, 0.01).endswith("±0.9.")
    assert "both ways give ε_target = 2" in several_text.composition_verdict(2.0, 2.0, 2.0)
    verdict = several_text.composition_verdict(2.0, 2.0, 1.4)
    assert "ε_target = 2" in verdict and "gives 1.4" in verdict and "by 0.6" in verdict


def test_snippet_names_the_parameters():
    code = compare_text.python_snippet(
        LOGNORMAL,
        statistic="mean",
        eps_target=0.5,
        delta_target=1e-5,
        designs=("census", "srs"),
        rates=None,
        reps=100,
        seed=4,
        relation="deletion",
        objective="rmse",
    )
    assert "statistic='mean'" in code and "rates=None" in code and "seed=4" in code
    compile(code, "snippet", "exec")


def test_name_of_maps_shown_labels_back_to_core_names():
    assert text.name_of(text.RELATION_LABELS, "add or remove one record") == "deletion"
    assert text.name_of(planner.DESIGN_LABELS, planner.DESIGN_LABELS["cluster"]) == "cluster"
    assert text.name_of(text.OBJECTIVE_LABELS, "RMSE") == "rmse"
    assert text.name_of(text.OBJECTIVE_LABELS, "unknown") == "unknown"


def test_ranked_list_states_every_number_of_the_ranked_table(gain):
    ranked = figs.ranked_table(gain)
    lines = compare_text.ranked_list(ranked).splitlines()
    assert len(lines) == len(ranked)
    for i, (line, row) in enumerate(zip(lines, ranked.to_dict("records"), strict=True), 1):
        assert line.startswith(f"{i}. **{row['design']}, {row['mechanism']}**")
        assert f"ε_sample = {fmt(row['ε_sample'], 'guarantee')}" in line
        assert f"RMSE {fmt(row['RMSE'], 'error')}" in line
        assert f"±{fmt(row['95 % bound'], 'error')}" in line
        assert f"{fmt(row['sampling part'], 'share')} sampling" in line
        if row["design"] == "Census":
            assert "(exact)" in line
        else:
            assert f"± {fmt(row['± se'], 'error')}" in line
            assert compare_text.relative_change(row["gain vs census"]) in line
    # SRS wins here, against the census named by its mechanism (issue 35: "which census?")
    assert lines[0].endswith(
        "tighter than the census with Laplace noise scaled to the smooth sensitivity."
    )


@pytest.fixture(scope="module")
def quantile() -> planner.PlanResult:
    return planner.plan(
        LOGNORMAL,
        statistic="quantile",
        quantile=0.9,
        eps_target=1.0,
        designs=("census", "srs"),
        rates=(0.1, 0.5),
        reps=50,
    )


def test_quantile_wording_names_the_level(quantile):
    words = compare_text.recommendation(quantile)
    assert f"±{fmt(quantile.best['error_95'], 'error')} of the population 0.9-quantile" in words
    assert "median" not in words
    rmse = dataclasses.replace(quantile, objective="rmse")
    assert compare_text.measure_phrase(rmse, quantile.best).endswith(
        "around the population 0.9-quantile"
    )
    rank = math.ceil(0.9 * LOGNORMAL.size)
    assert quantile.population_value == LOGNORMAL.values[rank - 1]
    line = compare_text.population_value_line(quantile)
    assert line.startswith("The population 0.9-quantile, which every error is measured against: ")
    assert f"{fmt(quantile.population_value, 'value')}, the value of rank {rank:,} (⌈qN⌉)" in line
    fig, _ = figs.objective_figure(quantile)
    assert "of the released 0.9-quantile" in fig.layout.title.text
    assert figs.statistic_words("quantile", 0.25) == "0.25-quantile"
    assert figs.statistic_words("median", 0.9) == "median"


def test_every_mechanism_has_a_short_plain_name():
    assert set(text.MECHANISM_SHORT) == set(MECHANISMS)
    for name, short in text.MECHANISM_SHORT.items():
        assert short and not short.startswith(("quantile,", "mean,", "median,")), name
    for names in (planner.QUANTILE_MECHANISMS, planner.MEAN_MECHANISMS):
        shorts = [text.MECHANISM_SHORT[n] for n in names]
        assert len(set(shorts)) == len(shorts)
    assert text.MECHANISM_SHORT["gaussian"] == "Gaussian noise (analytic calibration)"
    assert text.mechanisms_of("quantile") == text.mechanisms_of("median")
    assert text.mechanisms_of("mean") == planner.MEAN_MECHANISMS


def test_snippet_passes_quantile_and_mechanisms_only_when_used():
    args = dict(
        eps_target=0.5,
        delta_target=1e-5,
        designs=("census", "srs"),
        rates=None,
        reps=100,
        seed=4,
        relation="replacement",
        objective="error_95",
    )
    median = compare_text.python_snippet(LOGNORMAL, statistic="median", quantile=0.9, **args)
    assert "quantile=" not in median and "mechanisms=" not in median
    code = compare_text.python_snippet(
        LOGNORMAL, statistic="quantile", quantile=0.9, mechanisms=("exponential",), **args
    )
    assert "statistic='quantile'" in code and "quantile=0.9," in code
    assert "mechanisms=('exponential',)," in code
    compile(code, "snippet", "exec")


def test_no_mechanism_note_names_the_design_and_relation():
    note = compare_text.no_mechanism_note("poisson", "replacement")
    assert note.startswith("**Poisson sample** is left out: none of the chosen mechanisms")
    assert "differ by change one record" in note and "*Mechanisms*" in note


def test_odds_text_reads_eps_target_and_the_designs_eps_sample():
    import pandas as pd

    sample = pd.Series({"design": "srs", "eps_sample": 5.152})
    words = compare_text.odds_text(0.01, 1.0, 0.0267, sample, 0.636, 5e-5)
    assert "With ε_target = 1, someone who thought it 1 in 100" in words
    assert "at most **2.67 in 100** sure" in words
    assert "ε_sample = 5.15" in words and "at most **63.6 in 100**" in words
    assert "With δ_target = 5e-5, " in words and "chance of at most 1e-4 (2·δ_target)" in words
    census = compare_text.odds_text(
        0.01, 1.0, 0.0267, pd.Series({"design": "census"}), 0.0267, 5e-5
    )
    assert "ε_sample" not in census  # nothing is sampled: one budget only
    assert "at most **2.67 in 100** sure" in census and "worst-case attacker" in census


# ---------------------------------------------------------------------------------------
# Exact to the data's resolution (issue 22, part 6)
# ---------------------------------------------------------------------------------------

ESTABLISHMENTS = make_builtin("establishments", seed=0, size=20_000)


@pytest.fixture(scope="module")
def whole_employees() -> planner.PlanResult:
    """Employees (whole numbers, median 3, heavy ties) at ε_target = 1: the census error is
    about 1e-24, far below the step of one employee, and the ratios to it are huge."""
    return planner.plan(ESTABLISHMENTS, eps_target=1.0, reps=50)


def test_census_exact_to_the_resolution_is_said_so_without_ratios(whole_employees):
    step = resolution.resolution(ESTABLISHMENTS.values)
    assert step == 1.0
    assert whole_employees.best["design"] == "census"
    assert whole_employees.best_by_design["gain"].min() < -1e6  # the old text's "e+" ratios
    words = compare_text.recommendation(whole_employees, clusters=20, resolution=step)
    assert words.startswith("Privatise the whole register (")
    assert "exact to the data's resolution" in words
    assert "the values are recorded in steps of 1" in words
    assert "e+" not in words and "times the error" not in words
    # The other designs are read by their own errors, in the data's units.
    poisson = whole_employees.best_by_design.query("design == 'poisson'").iloc[0]
    assert f"has a 95 % error bound ±{fmt(poisson['error_95'], 'error')}" in words
    ranked = compare_text.ranked_list(figs.ranked_table(whole_employees), step)
    assert "times the error" not in ranked and "tighter than" not in ranked
    first = ranked.splitlines()[0]
    assert first.startswith("1. **Census,") and "exact to the data's resolution" in first
    # Without the resolution, nothing but a zero error is exact: the ratios come back.
    assert "times the error" in compare_text.recommendation(whole_employees, clusters=20)


def test_no_e_plus_ratio_in_the_verdict_or_the_ranked_list(whole_employees):
    step = resolution.resolution(ESTABLISHMENTS.values)
    words = compare_text.recommendation(whole_employees, clusters=20, resolution=step)
    ranked = compare_text.ranked_list(figs.ranked_table(whole_employees), step)
    for line in [words, *ranked.splitlines()]:
        # Only errors (in the data's units) may be large numbers; no "… times" ratio at all.
        assert " times " not in line, line
    assert all(" e+" not in x for x in (words, ranked))
    big = [w for w in ranked.split() if "e+" in w]
    assert all(
        w.lstrip("±").rstrip(";,.").replace("e+", "").replace(".", "").isdigit() for w in big
    )


def test_partial_list_shows_the_rows_known_so_far(whole_employees):
    table = whole_employees.table[whole_employees.table["design"].isin(["census", "srs"])]
    shown = compare_text.partial_list(table, "error_95", 1.0, 2, 5)
    lines = shown.splitlines()
    assert lines[0].startswith("**Rows known so far** (2 of 5 designs")
    assert lines[1].startswith("- Census, ") and "(exact to the data's resolution)" in lines[1]
    assert lines[2].startswith("- SRS, ")
    assert len(lines) == 3  # one line per design: its best mechanism so far


def test_chart_lines_labels():
    assert text.chart_lines_label(figs.BEST_LINES) == "each design's best mechanism"
    assert text.chart_lines_label(figs.ALL_LINES) == "every mechanism"
    assert text.chart_lines_label("exponential") == "only exponential mechanism"


def test_progress_words_of_the_search_and_of_several_statistics():
    tried = planner.SearchProgress(3, 20, "search", 0.0123456, 1.5, 12)
    fraction, words = accuracy_text.search_progress(tried, 2.0)
    assert fraction == pytest.approx(3 / 20)
    assert "ε_target = 0.0123" in words and "12 plans" in words
    assert "±1.5, which reaches ±2" in words
    missed = planner.SearchProgress(4, 20, "search", 0.01, 2.5, 1)
    assert (
        "best of 1 plan gives ±2.5, which misses ±2"
        in accuracy_text.search_progress(missed, 2.0)[1]
    )
    final = planner.SearchProgress(19, 20, "plan", 0.0123456, float("nan"), 0)
    assert "Found ε_target = 0.0123" in accuracy_text.search_progress(final, 2.0)[1]
    fraction, words = several_text.several_progress(planner.SeveralProgress(2, 3, "srs"))
    assert fraction == pytest.approx(2 / 3)
    assert words.startswith("Planned 2 of 3 designs for every statistic (last: SRS")


def test_joint_verdict_names_both_summaries_and_a_split_decision():
    names = ["lower quartile", "upper quartile"]
    both = planner.joint_against_separate([1.0, 2.0], [1.5, 2.5])
    words = several_text.joint_verdict(both, names, 2.0)
    assert "**more accurate**" in words and "largest per-quantile RMSE 2" in words
    assert "mean per-quantile RMSE 1.5 against 2" in words and "ε_sample = 2" in words
    worse = planner.joint_against_separate([2.0, 3.0], [1.0, 2.0])
    assert "**less accurate**" in several_text.joint_verdict(worse, names, 2.0)
    split = planner.joint_against_separate([0.1, 3.0], [2.0, 2.5])  # max: separate; mean: joint
    words = several_text.joint_verdict(split, names, 2.0)
    assert "split decision" in words
    assert "separate releases wins on the largest" in words and "JointExp on the mean" in words
    tie = planner.joint_against_separate([1.0, 2.0], [1.0, 2.0])
    assert "as accurate as" in several_text.joint_verdict(tie, names, 2.0)
    close = several_text.joint_verdict(both, names, 2.0, within_error=True)
    assert close.endswith("more repetitions T would tell them apart.")


def test_composition_quantiles_are_the_chosen_quantiles_by_level():
    chosen = ["mean", "upper quartile", "median", "10th percentile"]
    assert several_text.composition_quantiles(chosen) == [
        (0.1, "10th percentile"),
        (0.5, "median"),
        (0.75, "upper quartile"),
    ]
    assert several_text.composition_quantiles(["median", "mean"]) == [(0.5, "median")]
    assert set(several_text.COMPOSITION_DEFAULT) <= set(several_text.COMPOSITION_STATISTICS)


def test_no_rate_row_says_why_the_several_statistics_table_is_empty():
    words = several_text.no_rate_row("srs", 1.0)
    assert words.startswith("The simple random sample (without replacement) gives no sample at")
    assert "rate 1 " in words and "choose a lower rate" in words
