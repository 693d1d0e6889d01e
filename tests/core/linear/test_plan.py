"""plan_linear: every row against its closed form, the planner's budget, and simulation."""

from __future__ import annotations

import math

import numpy as np
import pytest

from core.designs.frame import Frame
from core.designs.registry import DESIGNS
from core.linear.mechanisms import LINEAR_MECHANISMS
from core.linear.plan import default_linear_mechanisms, fitting_linear_mechanisms, plan_linear
from core.linear.statistic import LinearStatistic, y_values
from core.linear.sums import group_sums
from core.mechanisms.base import BudgetFactors
from core.planner.budgets import eps_sample_for
from core.population import Population

COUNT = LinearStatistic("count", "strata", "a")
TOTAL = LinearStatistic("total")


def _population(N: int = 600, seed: int = 0) -> Population:
    rng = np.random.default_rng(seed)
    values = np.sort(rng.integers(0, 11, N).astype(float))
    strata = np.array(["a", "b", "c"], dtype=object)[rng.integers(0, 3, N)]
    clusters = np.array([f"k{i}" for i in range(30)], dtype=object)[rng.integers(0, 30, N)]
    return Population(
        name="toy", values=values, lower=0.0, upper=10.0, strata=strata, clusters=clusters
    )


POP = _population()


def _row(result, design: str, mechanism: str, rate: float | None = None):
    t = result.table
    t = t[(t["design"] == design) & (t["mechanism"] == mechanism)]
    if rate is not None:
        t = t[np.isclose(t["rate"], rate)]
    return t.iloc[0]


@pytest.mark.parametrize("eps", [1e-12, 0.1, 1.0, 1000.0])
def test_census_rows_are_the_noise_alone(eps: float) -> None:
    res = plan_linear(POP, COUNT, eps_target=eps, rates=[0.5])
    lap = _row(res, "census", "laplace")
    assert lap["rmse"] == pytest.approx(math.sqrt(2.0) / eps, rel=1e-9)
    assert lap["error_95"] == pytest.approx(math.log(20.0) / eps, rel=1e-9)
    geo = _row(res, "census", "geometric")
    assert math.isfinite(geo["rmse"]) and math.isfinite(geo["error_95"])
    assert geo["rmse"] <= lap["rmse"] * (1 + 1e-9)
    assert np.isfinite(res.table[["rmse", "error_95"]].to_numpy()).all()
    assert res.table["exact"].all()


#: Each design with the relations it has a theorem for (a simple random sample has none for
#: added or removed records; the test below checks that this list follows the designs).
PROVEN = [
    ("srs", "replacement"),
    ("poisson", "replacement"),
    ("poisson", "deletion"),
    ("stratified_proportional", "replacement"),
    ("stratified_proportional", "deletion"),
]


def test_the_designs_with_a_theorem_are_the_ones_listed() -> None:
    designs = ("srs", "poisson", "stratified_proportional")
    have = [
        (d, r)
        for d in designs
        for r in ("replacement", "deletion")
        if not DESIGNS[d].unavailable_for_relation(r)
    ]
    assert have == PROVEN


@pytest.mark.parametrize(("design", "relation"), PROVEN)
def test_eps_sample_is_the_planners(design: str, relation: str) -> None:
    res = plan_linear(POP, COUNT, eps_target=1.0, rates=[0.5], relation=relation)
    row = _row(res, design, "laplace")
    # A count's two budgets are 1 and 1 under either relation: the design's accounting for
    # them, the planner's exact-profile and change-one bounds included.
    d = DESIGNS[design]
    point = d.point(Frame.of(POP), row["rate"])
    factors = BudgetFactors("laplace", 1.0, 1.0)
    assert row["eps_sample"] == pytest.approx(
        d.accounting(1.0, relation, factors, point).eps_sample, rel=1e-12
    )
    if design != "stratified_proportional":  # its exact profile reads the stratum sizes
        assert row["eps_sample"] >= eps_sample_for(
            design, 1.0, relation=relation, rate=row["rate"]
        ) * (1 - 1e-12)


def test_rmse_splits_into_design_variance_and_scaled_noise() -> None:
    res = plan_linear(POP, TOTAL, eps_target=0.5, rates=[0.3])
    frame = Frame.of(POP)
    y, _, _ = y_values(POP, TOTAL)
    sums = group_sums(frame, y)
    for design in ("srs", "poisson", "stratified_proportional", "cluster", "poisson_cluster"):
        row = _row(res, design, "laplace")
        d = DESIGNS[design]
        mom = d.linear_moments(frame, sums, d.point(frame, row["rate"]))
        b = 10.0 / row["eps_sample"]
        assert row["rmse"] ** 2 == pytest.approx(
            mom.variance[0] + mom.weight**2 * 2 * b * b, rel=1e-9
        )


def test_proportion_divides_by_n_and_needs_a_public_n_under_deletion() -> None:
    prop = LinearStatistic("proportion", "strata", "a")
    count = plan_linear(POP, COUNT, eps_target=1.0, rates=[0.5]).table
    share = plan_linear(POP, prop, eps_target=1.0, rates=[0.5]).table
    assert np.allclose(share["rmse"] * POP.size, count["rmse"])
    with pytest.raises(ValueError, match="public"):
        plan_linear(POP, prop, eps_target=1.0, relation="deletion")
    plan_linear(POP, prop, eps_target=1.0, relation="deletion", sizes_public=True)


def test_bad_input_is_refused_in_words() -> None:
    with pytest.raises(ValueError, match="does not occur"):
        plan_linear(POP, LinearStatistic("count", "strata", "zzz"), eps_target=1.0)
    with pytest.raises(ValueError, match="outside"):
        plan_linear(POP, LinearStatistic("count", value_range=(-5.0, 3.0)), eps_target=1.0)
    with pytest.raises(ValueError):
        plan_linear(POP, COUNT, eps_target=0.0)


@pytest.mark.parametrize(
    ("design", "mechanism"),
    [("poisson", "laplace"), ("stratified_proportional", "geometric"), ("srs", "geometric")],
)
def test_rows_agree_with_simulated_releases(design: str, mechanism: str) -> None:
    """Draw samples with the design's own sampler (randomised rounding included), add the
    noise, and compare the RMSE (3 standard errors) and the 95 % bound's coverage."""
    pop = _population(1500, seed=1)
    res = plan_linear(pop, COUNT, eps_target=0.3, rates=[0.4], mechanisms=[mechanism])
    row = _row(res, design, mechanism)
    frame = Frame.of(pop)
    d, m = DESIGNS[design], LINEAR_MECHANISMS[mechanism]
    point = d.point(frame, row["rate"])
    y, _, _ = y_values(pop, COUNT)
    rng = np.random.default_rng(7)
    reps = 2000
    masks = d.mask(frame, d.draw_keys(frame, reps, rng), point)
    w = d.linear_moments(frame, group_sums(frame, y), point).weight
    param = m.parameter(row["eps_sample"], None, 1.0)
    err = w * (masks @ y + m.sample(rng, param, reps)) - y.sum()
    se = np.std(err**2) / math.sqrt(reps)
    assert abs(np.mean(err**2) - row["rmse"] ** 2) < 3 * se
    covered = np.mean(np.abs(err) <= row["error_95"])
    assert abs(covered - 0.95) < 3 * math.sqrt(0.95 * 0.05 / reps) + 0.01


def test_stratified_rounding_makes_the_variance_of_a_stratum_count_uneven_in_the_rate() -> None:
    """A stratum's count is constant within strata: only the randomised rounding of
    ``r N_h`` adds variance, ``Ȳ_h² p_h (1 − p_h)/r²``, which is 0 at whole ``r N_h`` and
    need not fall with the rate (a fact of the design, stated rather than smoothed)."""
    res = plan_linear(POP, COUNT, eps_target=1.0, mechanisms=["laplace"])
    t = res.table[res.table["design"] == "stratified_proportional"].sort_values("rate")
    frame = Frame.of(POP)
    sizes = frame.strata_sizes.astype(float)
    y, _, _ = y_values(POP, COUNT)
    means = group_sums(frame, y).strata_total[0] / sizes
    for r, got in zip(t["rate"], t["sampling_part"], strict=True):
        p = r * sizes - np.floor(r * sizes)
        assert got == pytest.approx(float((means**2 * p * (1 - p)).sum()) / r**2, abs=1e-9)


def test_defaults_keep_the_promise_as_stated() -> None:
    # A pure ε promise: the pure mechanisms; the discrete Gaussian ((ε, δ)) only when asked.
    assert default_linear_mechanisms(True) == ("laplace", "geometric")
    assert "discrete_gaussian" in fitting_linear_mechanisms(True)
    # A ρ-zCDP promise: the discrete Gaussian is the mechanism that uses it.
    assert "discrete_gaussian" in default_linear_mechanisms(True, rho_target=0.5)
    # Totals of values that are not whole numbers: no integer noise.
    assert default_linear_mechanisms(False) == ("laplace",)
    pure = plan_linear(POP, COUNT, eps_target=1.0, rates=[0.5])
    assert set(pure.table["mechanism"]) == {"laplace", "geometric"}
    asked = plan_linear(POP, COUNT, eps_target=1.0, rates=[0.5], mechanisms=["discrete_gaussian"])
    assert set(asked.table["mechanism"]) == {"discrete_gaussian"}


def test_plans_on_one_frame_read_each_selections_own_sums() -> None:
    frame = Frame.of(POP)
    stats = [
        LinearStatistic("count", "strata", "a"),
        LinearStatistic("count", "strata", "b"),
        LinearStatistic("count", "clusters", "k3"),
        LinearStatistic("count", value_range=(2.0, 5.0)),
        LinearStatistic("count", value_range=(2.0, 6.0)),
        LinearStatistic("total", "strata", "a"),
        LinearStatistic("total"),
    ]
    for _ in range(2):  # the second pass reads the sums kept with the frame
        for stat in stats:
            got = plan_linear(POP, stat, eps_target=1.0, frame=frame, mechanisms=["laplace"])
            fresh = plan_linear(POP, stat, eps_target=1.0, mechanisms=["laplace"])
            y = y_values(POP, stat)[0]
            assert got.population_value == pytest.approx(float(y.sum()))
            np.testing.assert_allclose(got.table["rmse"], fresh.table["rmse"], rtol=1e-12)
