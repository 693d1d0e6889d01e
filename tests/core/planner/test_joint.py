"""core.planner.joint: JointExp for several quantiles at once against separate releases."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core import mechanisms as mech
from core import planner
from core import sensitivity as sens
from core.planner import joint
from core.population import Population


def _population(size: int = 400, seed: int = 2) -> Population:
    rng = np.random.default_rng(seed)
    return Population("t", np.sort(np.round(rng.uniform(0, 50, size), 2)), 0.0, 50.0)


@pytest.mark.parametrize(
    ("design", "relation"), [("srs", "replacement"), ("poisson", "replacement"),
                             ("poisson", "deletion"), ("census", "replacement")],
)  # fmt: skip
def test_joint_exp_spends_the_exponential_mechanisms_budget(design: str, relation: str) -> None:
    """JointExp at the levels 0.25 and 0.75 states γ = 1 and α = 1 − min gap = 3/4, the
    exponential quartile's budgets, so each design gives it the quartile's budget, times the
    quantiles' share: under "add or remove one" on a Poisson sample
    ln(1 + (e^ε − 1)/r) / (3/4).  Under "change one record" on a Poisson sample the share
    (0.6) leaves the rest of the sample's budget to other releases, so the bound is the one
    whose shares add, from the add/remove budget alone:
    ln((1 − r + r e^{3x/4}) / (1 − r + r e^{−3x/4})) = ε_target."""
    pop = _population()
    got = joint.joint_exp_errors(
        pop, [0.25, 0.75], design=design, rate=0.2, eps_target=1.0, share=0.6,
        relation=relation, reps=4,
    )  # fmt: skip
    if design == "poisson" and relation == "replacement":
        x = 0.75 * got.eps_sample / 0.6
        got_target = math.log((0.8 + 0.2 * math.exp(x)) / (0.8 + 0.2 * math.exp(-x)))
        assert got_target == pytest.approx(1.0, rel=1e-9)
    else:
        kw = {} if design == "census" else {"rate": 0.2}
        want = planner.eps_sample_for(
            design, 1.0, relation=relation, mechanism="exponential", quantile=0.25, **kw
        )
        assert got.eps_sample == pytest.approx(0.6 * want, rel=1e-12)
    if design == "poisson" and relation == "deletion":
        exact = math.log1p(math.expm1(1.0) / 0.2) / 0.75
        assert got.eps_sample == pytest.approx(0.6 * exact, rel=1e-9)
    assert got.quantiles == (0.25, 0.75) and len(got.rmse) == 2
    values = np.sort(pop.values)
    theta = [values[sens.quantile_rank(values.size, q) - 1] for q in (0.25, 0.75)]
    assert got.population_values == pytest.approx(theta)


def test_rmse_matches_a_plain_monte_carlo_of_the_mechanism() -> None:
    """The planner's estimate against JointExp run on simple random samples drawn by numpy
    (an independent, obviously correct route), within Monte Carlo error."""
    pop = _population(300)
    q = [0.1, 0.5, 0.9]
    got = joint.joint_exp_errors(pop, q, design="srs", rate=0.1, eps_target=2.0, reps=50, seed=1)
    assert got.samples == 50 and got.draws == joint.DRAWS
    rng = np.random.default_rng(9)
    m = mech.JointExpQuantiles(q)
    n = round(0.1 * pop.size)
    samples = np.sort(
        np.array([rng.choice(pop.values, n, replace=False) for _ in range(400)]), axis=1
    )
    out = m.release(samples, got.eps_sample, 0.5, 0.0, 50.0, rng).released
    errors = (out - np.array(got.population_values)) ** 2
    ref = np.sqrt(errors.mean(axis=0))
    ref_se = errors.std(axis=0, ddof=1) / math.sqrt(errors.shape[0]) / (2 * ref)
    gap = np.abs(np.array(got.rmse) - ref)
    assert (gap < 4 * np.hypot(got.rmse_se, ref_se)).all(), (got.rmse, ref)


def test_census_draws_from_the_population_itself() -> None:
    pop = _population(200)
    got = joint.joint_exp_errors(
        pop, [0.25, 0.5], design="census", rate=0.5, eps_target=50.0, reps=40
    )
    assert got.samples == 1 and got.draws == 40 and got.rate == 1.0 and got.n == 200
    # A large budget: the release sits next to the population's quantiles.
    gaps = np.diff(np.sort(pop.values)).max()
    assert max(got.rmse) < 2 * gaps


def test_the_work_budget_sets_the_samples_and_refuses_a_huge_sample(monkeypatch) -> None:
    assert joint._samples(9, 1e5, 200) >= 2
    assert joint._samples(9, 1e5, 200) * (81 * 1e5 + joint.DRAWS * 9e5) <= joint.JOINT_WORK
    assert joint._samples(2, 100, 200) == 200
    assert joint._samples(2, 100, 3) == 3
    monkeypatch.setattr(joint, "MAX_SAMPLE_WORK", 100.0)
    with pytest.raises(ValueError, match="fewer quantiles or a lower rate"):
        joint.joint_exp_errors(_population(), [0.2, 0.8], design="srs", rate=0.5, eps_target=1.0)


def test_bad_arguments_are_refused_in_words() -> None:
    pop = _population()
    with pytest.raises(ValueError, match="at least two"):
        joint.joint_exp_errors(pop, [0.5], design="srs", rate=0.1, eps_target=1.0)
    with pytest.raises(ValueError, match="increasing"):
        joint.joint_exp_errors(pop, [0.7, 0.2], design="srs", rate=0.1, eps_target=1.0)
    with pytest.raises(ValueError, match="share"):
        joint.joint_exp_errors(pop, [0.2, 0.7], design="srs", rate=0.1, eps_target=1.0, share=2)
    with pytest.raises(ValueError, match="not available"):
        joint.joint_exp_errors(pop, [0.2, 0.7], design="cluster", rate=0.1, eps_target=1.0)
    labelled = Population("s", pop.values, 0.0, 50.0, strata=np.arange(pop.size) % 4)
    with pytest.raises(ValueError, match="cannot realise rate"):
        joint.joint_exp_errors(
            labelled, [0.2, 0.7], design="stratified_proportional", rate=0.001, eps_target=1.0
        )


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.floats(0, 10), min_size=1, max_size=6).flatmap(
        lambda a: st.tuples(
            st.just(a), st.lists(st.floats(0, 10), min_size=len(a), max_size=len(a))
        )
    )
)
def test_verdict_is_the_smaller_max_and_mean(pair) -> None:
    a, b = pair
    v = joint.joint_against_separate(a, b)
    assert v.joint_max == max(a) and v.separate_max == max(b)
    assert v.by_max == ("joint" if max(a) < max(b) else "separate" if max(b) < max(a) else "tie")
    assert v.joint_mean == pytest.approx(float(np.mean(a)))
    if not math.isclose(np.mean(a), np.mean(b)):
        assert v.by_mean == ("joint" if np.mean(a) < np.mean(b) else "separate")


def test_verdict_refuses_mismatched_lists() -> None:
    with pytest.raises(ValueError, match="one RMSE per quantile"):
        joint.joint_against_separate([1.0, 2.0], [1.0])
    with pytest.raises(ValueError, match="finite"):
        joint.joint_against_separate([1.0, math.nan], [1.0, 2.0])


def test_separate_rmse_takes_each_plans_best_mechanism_at_the_rate() -> None:
    pop = _population()
    results = planner.several_statistics(
        pop, [("quantile", 0.25), ("quantile", 0.75)], [1, 1], eps_target=1.0,
        designs=("srs",), rates=(0.2,), reps=20,
    )  # fmt: skip
    sep = joint.separate_rmse(results, "srs", 0.2)
    assert list(sep["quantile"]) == [0.25, 0.75]
    for result, (_, row) in zip(results, sep.iterrows(), strict=True):
        at = result.table[(result.table["design"] == "srs") & (result.table["rate"] == row["rate"])]
        assert row["rmse"] == at["rmse"].min()
    assert (sep["rate"] == 0.2).all()
    with pytest.raises(ValueError, match="no row"):
        joint.separate_rmse(results, "poisson", 0.2)
    assert isinstance(sep, pd.DataFrame)
