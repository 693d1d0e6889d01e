"""The lessons' data: well-formed steps, and every number a question or reveal states is what
the app's core computes for the state the step's link opens (read from the step's query)."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

from core import amplification as amp
from core import clusters as cl
from core import statistical as sp
from core import strata
from core.gains import compare_with_population
from core.populations import BUILTIN_POPULATIONS, make_builtin
from ui.gains import cache as gain_cache
from ui.gains.text import CMP_TAB
from ui.lessons.content import (
    ADVERSARY_LESSON,
    ALLOCATION_LESSON,
    AMPLIFICATION_LESSON,
    CLUSTER_LESSON,
    COUNT_LESSON,
    LESSONS,
    MEDIAN_LESSON,
    Lesson,
    Step,
    lesson_by_label,
)
from ui.lessons.reveals import REVEALS, plan_count_result
from ui.page_defaults import delta_target_default
from ui.router import PAGES
from ui.statistical import cache as sp_cache
from ui.strata import cache as st_cache
from ui.strata.text import AUTO_STRATUM
from ui.widgets import parse_float_list

ALL_STEPS = [step for lesson in LESSONS for step in lesson.steps]


def _floats(text: str) -> list[float]:
    return parse_float_list(text, min_value=0.0, max_value=1e9)[0]


def test_six_lessons_of_two_to_four_well_formed_steps():
    assert len(LESSONS) == 6
    assert len({lesson.label for lesson in LESSONS}) == 6
    scripts = {spec.script for spec in PAGES}
    for lesson in LESSONS:
        assert 2 <= len(lesson.steps) <= 4
        assert lesson_by_label(lesson.label) is lesson
        for step in lesson.steps:
            assert 2 <= len(step.options) <= 4 and len(set(step.options)) == len(step.options)
            assert step.page in scripts
            assert step.figure in REVEALS
            assert step.population in BUILTIN_POPULATIONS
            assert step.question.strip() and step.takeaway.strip() and step.reveal.strip()
            assert all(isinstance(v, str) for v in step.query.values())


def test_each_lesson_uses_its_page():
    pages = {lesson.label: {step.page for step in lesson.steps} for lesson in LESSONS}
    assert pages == {
        "Amplification": {"app_pages/amplification.py"},
        "Median": {"app_pages/gains.py"},
        "Clusters": {"app_pages/clusters.py"},
        "Allocation": {"app_pages/strata.py"},
        "Adversary": {"app_pages/statistical.py"},
        "Count": {"app_pages/planner.py", "app_pages/amplification.py"},
    }


def test_no_bare_epsilon_prime_in_the_texts():
    for step in ALL_STEPS:
        for text in (step.question, step.reveal, step.takeaway, *step.options):
            assert "ε′" not in text and not re.search(r"\beps", text)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"options": ("only one",)}, "2 to 4 options"),
        ({"correct": 3}, "correct must index"),
    ],
)
def test_a_malformed_step_is_refused(kwargs, message):
    base = ALL_STEPS[0]
    fields = {f: getattr(base, f) for f in base.__dataclass_fields__} | kwargs
    with pytest.raises(ValueError, match=message):
        Step(**fields)


def test_a_lesson_needs_two_to_four_steps_and_unknown_labels_are_named():
    with pytest.raises(ValueError, match="2 to 4 steps"):
        Lesson("x", "t", "i", (ALL_STEPS[0],))
    with pytest.raises(ValueError, match="Amplification"):
        lesson_by_label("Nope")


def test_step_query_is_read_only():
    with pytest.raises(TypeError):
        ALL_STEPS[0].query["amp_view"] = "x"  # type: ignore[index]


# --- the facts the questions rely on, for the values in each step's query ------------------


def test_amplification_facts():
    s1, s2, s3 = AMPLIFICATION_LESSON.steps
    (eps_target,) = _floats(s1.query["amp_eps_targets"])
    assert float(amp.eps_sample(eps_target, 0.01)) == pytest.approx(5.15, abs=0.005)
    (eps,) = _floats(s2.query["amp_st_eps"])
    assert float(amp.steinke_ratio(eps, 0.01)) == pytest.approx(0.05, abs=0.002)
    (c,) = _floats(s3.query["amp_st_c"])
    assert (
        float(amp.steinke_floor(c))
        == pytest.approx(math.log(3) / 2)
        == pytest.approx(0.55, abs=0.001)
    )
    assert s1.options[s1.correct] == "About 5" and "0.55" == s3.options[s3.correct]


def test_median_lesson_facts():
    s1, s2, s3, _ = MEDIAN_LESSON.steps
    rates = np.geomspace(1e-4, 1.0 - 1e-9, 200)
    for eps in _floats(s1.query["gain_eps"]):
        assert np.all(amp.noise_variance_ratio(eps, rates) < 1.0)
    assert set(_floats(s2.query["gain_eps"])) == {0.1, 3.0}
    assert float(amp.rate_for_q(3.0, 0.6)) == pytest.approx(0.1677, abs=5e-5)
    assert float(amp.rate_for_q(0.1, 0.6)) == pytest.approx(0.614, abs=5e-4)
    pop = make_builtin(s3.population, seed=s3.seed)
    assert pop.size == 10_001
    eps_values = tuple(_floats(s3.query["gain_exp_eps"]))
    result = gain_cache.median_experiment(
        pop,
        eps_targets=eps_values,
        rates=(0.01, 0.1, 0.3, 0.5, 0.7, 0.9),
        reps=200,
        delta_target=delta_target_default(pop.size),
        seed=s3.seed,
        amplify_delta=True,
        estimator=None,
    )
    small, large = (compare_with_population(result.summary, e) for e in eps_values)
    assert small.better and not small.within_error
    assert not large.better and not large.within_error
    assert s3.options[s3.correct] == "Only at ε_target = 0.1"


def test_median_lesson_ties_facts():
    """Step 4: the factor between the two mechanisms is computed on the tie-heavy built-in,
    and the order flips on the unrounded population (issue 23)."""
    from core.gains import tied_at_quantile
    from ui.gains import text as gain_text

    step = MEDIAN_LESSON.steps[3]
    assert step.population == "lognormal_rounded" and step.query == {"gain_view": CMP_TAB}

    def best(key: str) -> tuple[dict[str, float], float]:
        pop = make_builtin(key, seed=step.seed)
        result = gain_cache.mechanism_comparison(
            pop, eps_target=0.5, rates=(0.01, 0.1, 0.3, 0.5, 0.7, 0.9), reps=200,
            delta_target=delta_target_default(pop.size), seed=step.seed, quantile=0.5,
            measure="mse",
        )  # fmt: skip
        table = result.table
        return gain_text.best_values(table), gain_text.mechanism_factor(
            table, "exponential", "smooth_laplace"
        )

    values, factor = best("lognormal_rounded")
    assert f"{factor:.3g} times apart" in step.reveal
    assert 20 < factor < 30 and step.options[step.correct].endswith("about 25")
    assert f"best MSE is {values['exponential']:.3g}" in step.reveal
    assert f"Laplace's {values['smooth_laplace']:.3g}" in step.reveal
    value, tied = tied_at_quantile(make_builtin("lognormal_rounded", seed=step.seed).values)
    assert f"{tied} of the 10,001 records ({100 * tied / 10_001:.1f} %)" in step.reveal
    assert f"median's value, {value:g}" in step.reveal
    _, continuous = best("lognormal")
    assert f"{1 / continuous:.3g} times the exponential" in step.takeaway


def test_cluster_facts():
    s1, s2 = CLUSTER_LESSON.steps
    for step in (s1, s2):
        assert (step.query["cl_size"], step.query["cl_k"], step.query["cl_l"]) == (
            "10",
            "1000",
            "100",
        )
    k, ell, size = 1000, 100, 10
    low, up = cl.cluster_eps_bounds(float(s1.query["cl_eps"]), k, ell, size, size, size)
    assert float(low) == pytest.approx(1.0, abs=0.005) and float(up) == pytest.approx(float(low))
    assert float(cl.srs_eps(1.0, k, ell)) == pytest.approx(0.16, abs=0.005)
    eps = float(s2.query["cl_eps"])
    low, _ = cl.cluster_eps_bounds(eps, k, ell, size, size, size)
    single, _ = cl.cluster_eps_bounds(eps, k, ell, 1, 1, 1)
    srs = float(cl.srs_eps(eps, k, ell))
    assert float(low) == pytest.approx(0.046, abs=0.0005)
    assert float(single) == pytest.approx(0.0125, abs=0.00005)
    assert srs == pytest.approx(0.0105, abs=0.00005)
    assert 3.5 < float(low) / float(single) and float(low) / srs < 4.5


def test_allocation_facts():
    s1, s2, s3 = ALLOCATION_LESSON.steps
    pop = make_builtin(s1.population, seed=s1.seed)
    summ = st_cache.summary(pop.content_hash, pop)
    assert pop.size == 100_000 and summ is not None and summ.k == 12
    eps = float(s1.query["strat_eps"])
    cmp = st_cache.neighbour(
        pop.content_hash, pop, int(s1.query["strat_m"]), pop.upper, AUTO_STRATUM
    )
    assert np.any(cmp.neyman_shift != 0)
    assert cmp.count_loss(eps, "neyman") == pytest.approx(2 * eps)
    assert s2.query == s3.query
    example = strata.rounding_example(
        int(s2.query["strat_cx_size"]), float(s2.query["strat_cx_rate"])
    )
    assert example.deterministic == (1, 2)
    assert example.p_up == pytest.approx((0.4, 0.5))
    assert example.deterministic_loss(eps) == pytest.approx(0.5)
    assert example.randomized_loss(eps) == pytest.approx(0.05, abs=0.001)


def test_adversary_facts():
    s1, s2 = ADVERSARY_LESSON.steps
    n, pi, eps = int(s1.query["sp_n"]), float(s1.query["sp_pi"]), float(s1.query["sp_eps"])
    m = sp.sample_size(n, 0.1)
    row = sp_cache.point_summary(n, pi, m, 1.0, eps).set_index("mechanism").loc["no mechanism"]
    assert row["δ = max"] == pytest.approx(0.021, abs=0.0005)
    assert row["worst-case δ (DP)"] == 1.0
    data = sp_cache.delta_vs_pi(
        int(s2.query["sp_n"]), float(s2.query["sp_eps"]), "gaussian", (1.0,)
    )
    assert float(data["delta_dp"].iloc[0]) == pytest.approx(0.38, abs=0.001)
    positive = data[data["pi"] > 0]
    assert positive["pi"].iloc[positive["delta"].argmax()] < 0.01
    assert positive["pi"].iloc[positive["delta"].argmin()] == pytest.approx(0.5, abs=0.05)
    assert float(positive["delta"].min()) == pytest.approx(0.021, abs=0.0005)


def test_count_lesson_facts():
    s1, s2 = COUNT_LESSON.steps
    # Step 1: the count of the most common size class; the census beats every sample's
    # rate, 10 % included, under the same mechanism (the reveal's plan).
    pop = make_builtin(s1.population, seed=s1.seed)
    labels, counts = np.unique(pop.strata, return_counts=True)
    assert str(labels[np.argmax(counts)]) == "1-4" and pop.size == 100_000
    result = plan_count_result(s1)
    table = result.table
    census = table[table["design"] == "census"]
    samples = table[table["design"] != "census"]
    assert 0.1 in set(samples["rate"].round(12))
    for mechanism, rows in samples.groupby("mechanism"):
        reference = float(census[census["mechanism"] == mechanism]["error_95"].min())
        assert (rows["error_95"] > reference).all(), mechanism
    assert result.recommended["design"] == "census"
    assert s1.options[s1.correct] == "The census"
    # Step 2: ε_sample at r = 0.1, and the scaled-up noise against the census's.
    (eps,) = _floats(s2.query["amp_st_eps"])
    eps_sample = float(amp.eps_sample(eps, 0.1))
    assert eps_sample == pytest.approx(2.9, abs=0.005)
    assert float(amp.steinke_ratio(eps, 0.1)) == pytest.approx(0.29, abs=0.005)
    assert eps / (0.1 * eps_sample) == pytest.approx(3.4, abs=0.05)
    assert s2.options[s2.correct] == "About 3.4 times larger"
