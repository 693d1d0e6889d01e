"""The planner rows' errors after rounding the release to a whole number ≥ 0.

References: the census's exact law enumerated term by term (integer noise) or simulated with
a fixed seed (Laplace noise), the samples simulated with each design's own sampler; the
lemma ``|post − θ| ≤ |y − θ| + ½`` checked on random numbers.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.designs.frame import Frame
from core.designs.registry import DESIGNS
from core.linear.mechanisms import LINEAR_MECHANISMS
from core.linear.plan import plan_linear
from core.linear.post_errors import POST_BOUND, POST_EXACT, exact_post_bound, post_errors
from core.linear.postprocess import exact_rounding_feasible, rounded_moments
from core.linear.statistic import LinearStatistic, y_values
from core.linear.sums import group_sums
from core.population import Population
from core.publication.cell_errors import rounded_rmse

COUNT = LinearStatistic("count", "strata", "a")


def _population(N: int = 600, seed: int = 0, lower: float = 0.0) -> Population:
    rng = np.random.default_rng(seed)
    values = np.sort(rng.integers(0, 11, N).astype(float))
    strata = np.array(["a", "b", "c"], dtype=object)[rng.integers(0, 3, N)]
    return Population(name="toy", values=values, lower=lower, upper=10.0, strata=strata)


POP = _population()


def _row(result, design: str, mechanism: str):
    t = result.table
    return t[(t["design"] == design) & (t["mechanism"] == mechanism)].iloc[0]


def _enumerated(mechanism: str, param: float, theta: float, level: float) -> tuple[float, float]:
    """RMSE and smallest whole ``x`` with coverage ≥ level of ``max(0, θ + Z)``, term by term."""
    m = LINEAR_MECHANISMS[mechanism]
    radius = m.abs_quantile(param, 1.0 - 1e-15)
    z = np.arange(-radius, radius + 1.0)
    p = m.pmf(param, z)
    err = np.abs(np.maximum(0.0, theta + z) - theta)
    rmse = math.sqrt(float(p @ err**2))
    x = 0
    while float(p[err <= x].sum()) < level:
        x += 1
    return rmse, float(x)


@pytest.mark.parametrize("mechanism", ["geometric", "discrete_gaussian"])
@pytest.mark.parametrize("theta", [0.0, 1.0, 3.0, 40.0])
def test_census_after_rounding_is_the_enumerated_law(mechanism: str, theta: float) -> None:
    m = LINEAR_MECHANISMS[mechanism]
    param = m.parameter(0.5, 1e-6 if m.uses_delta else None, 1.0)
    rmse, e95 = _enumerated(mechanism, param, theta, 0.95)
    r_post, e_post, how = post_errors(m, param, 1.0, 0.0, theta, math.nan, math.nan, 0.95)
    assert how == POST_EXACT
    assert r_post == pytest.approx(rmse, rel=1e-9)
    assert e_post == pytest.approx(e95, abs=1e-9)


@pytest.mark.parametrize("theta", [0.0, 2.0, 2.3, 25.0])
def test_census_after_rounding_laplace_matches_simulation(theta: float) -> None:
    m = LINEAR_MECHANISMS["laplace"]
    b = 3.0
    r_post, e_post, how = post_errors(m, b, 1.0, 0.0, theta, math.nan, math.nan, 0.95)
    assert how == POST_EXACT
    rng = np.random.default_rng(11)
    reps = 200_000
    err = np.abs(np.maximum(0.0, np.floor(theta + m.sample(rng, b, reps) + 0.5)) - theta)
    se = np.std(err**2) / math.sqrt(reps)
    assert abs(np.mean(err**2) - r_post**2) < 4 * se
    # e_post is one of the values |k − θ|, the smallest with coverage ≥ 95 %
    assert np.mean(err <= e_post + 1e-9) >= 0.95 - 4 * math.sqrt(0.95 * 0.05 / reps)
    assert np.mean(err <= e_post - 0.5) < 0.95
    assert np.min(np.abs(np.abs(np.arange(0, 200) - theta) - e_post)) <= 1e-9


@pytest.mark.parametrize("theta", [0.0, 2.0, 2.3, 25.0])
def test_census_after_rounding_laplace_is_the_sum_over_its_outcomes(theta: float) -> None:
    """Exact reference: ``P(post = k)`` from the Laplace CDF for each whole ``k ≥ 0``
    (``P(y < ½)`` for ``k = 0``), the errors summed over the outcomes."""
    m = LINEAR_MECHANISMS["laplace"]
    b = 3.0
    k = np.arange(0.0, theta + 80 * b)
    upper = m.cdf(b, k + 0.5 - theta)
    lower = np.where(k == 0, 0.0, m.cdf(b, k - 0.5 - theta))
    p = upper - lower
    err = np.abs(k - theta)
    r_post, e_post, _ = post_errors(m, b, 1.0, 0.0, theta, math.nan, math.nan, 0.95)
    assert r_post == pytest.approx(math.sqrt(float(p @ err**2)), rel=1e-9)
    order = np.argsort(err)
    reach = np.cumsum(p[order])
    assert e_post == pytest.approx(float(err[order][np.argmax(reach >= 0.95 - 1e-12)]), abs=1e-9)


def test_plan_census_row_after_rounding_is_exact_and_sample_rows_are_bounded() -> None:
    res = plan_linear(POP, COUNT, eps_target=1.0, rates=[0.5], post="round")
    theta = float(res.population_value)
    geo = _row(res, "census", "geometric")
    rmse, e95 = _enumerated("geometric", float(geo["noise_parameter"]), theta, 0.95)
    assert geo["post_method"] == POST_EXACT
    assert geo["rmse_post"] == pytest.approx(rmse, rel=1e-9)
    assert geo["error_95_post"] == pytest.approx(e95)
    t = res.table
    exact = t[t["sampling_part"] == 0.0]  # the census, and a stratum count with no variance
    assert (exact["post_method"] == POST_EXACT).all()
    assert (exact["rmse_post"] <= exact["rmse"] + 0.5).all()
    samples = t[t["sampling_part"] > 0.0]
    assert len(samples) and (samples["post_method"] == POST_BOUND).all()
    assert np.allclose(samples["rmse_post"], samples["rmse"] + 0.5)
    assert np.allclose(samples["error_95_post"], np.floor(samples["error_95"] + 0.5))
    plain = plan_linear(POP, COUNT, eps_target=1.0, rates=[0.5])
    assert "rmse_post" not in plain.table.columns


def test_proportion_after_rounding_is_the_count_divided_by_n() -> None:
    count = plan_linear(POP, COUNT, eps_target=1.0, rates=[0.5], post="round").table
    share = plan_linear(
        POP,
        LinearStatistic("proportion", "strata", "a"),
        eps_target=1.0,
        rates=[0.5],
        post="round",
    ).table
    for col in ("rmse_post", "error_95_post"):
        assert np.allclose(share[col].to_numpy() * POP.size, count[col].to_numpy(), rtol=1e-9)


@pytest.mark.parametrize(("design", "mechanism"), [("poisson", "laplace"), ("srs", "geometric")])
def test_sample_bounds_hold_against_simulation(design: str, mechanism: str) -> None:
    pop = _population(1200, seed=2)
    res = plan_linear(pop, COUNT, eps_target=0.3, rates=[0.3], mechanisms=[mechanism], post="round")
    row = _row(res, design, mechanism)
    frame = Frame.of(pop)
    d, m = DESIGNS[design], LINEAR_MECHANISMS[mechanism]
    point = d.point(frame, row["rate"])
    y, _, _ = y_values(pop, COUNT)
    rng = np.random.default_rng(5)
    reps = 2000
    masks = d.mask(frame, d.draw_keys(frame, reps, rng), point)
    w = d.linear_moments(frame, group_sums(frame, y), point).weight
    release = w * (masks @ y + m.sample(rng, float(row["noise_parameter"]), reps))
    err = np.abs(np.maximum(0.0, np.floor(release + 0.5)) - y.sum())
    se = np.std(err**2) / math.sqrt(reps)
    assert np.mean(err**2) <= row["rmse_post"] ** 2 + 3 * se
    assert np.mean(err <= row["error_95_post"]) >= 0.95 - 3 * math.sqrt(0.95 * 0.05 / reps) - 0.01


def test_rounding_a_total_that_may_be_negative_is_refused_in_words() -> None:
    pop = _population(lower=-5.0)
    with pytest.raises(ValueError, match="lower bound is below 0"):
        plan_linear(pop, LinearStatistic("total"), eps_target=1.0, post="round")
    with pytest.raises(ValueError, match="post must be one of"):
        plan_linear(POP, COUNT, eps_target=1.0, post="floor")


@settings(max_examples=60, deadline=None)
@given(
    theta=st.floats(0.0, 1e6),
    y=st.floats(-1e6, 2e6),
)
def test_lemma_rounding_moves_at_most_half_towards_a_nonnegative_truth(theta, y) -> None:
    post = max(0.0, math.floor(y + 0.5))
    assert abs(post - theta) <= abs(y - theta) + 0.5 + 1e-9 * max(1.0, abs(y))
    whole = float(round(theta))
    assert abs(post - whole) <= math.floor(abs(y - whole) + 0.5) + 1e-9 * max(1.0, abs(y))


@settings(max_examples=15, deadline=None)
@given(theta=st.integers(0, 60), eps=st.floats(0.05, 5.0))
def test_exact_bound_after_rounding_never_exceeds_the_noise_bound(theta, eps) -> None:
    """``max(0, θ + Z)`` is at least as close to ``θ ≥ 0`` as ``θ + Z``: its bound is not
    larger than the noise's own."""
    m = LINEAR_MECHANISMS["geometric"]
    param = m.parameter(eps, None, 1.0)
    got = exact_post_bound(m, param, 1.0, float(theta), 0.95)
    assert got <= m.abs_quantile(param, 0.95) + 1e-9


@pytest.mark.parametrize("mechanism", ["geometric", "discrete_gaussian", "laplace"])
@pytest.mark.parametrize("eps", [1e-6, 1e-12])
def test_noise_too_wide_to_sum_is_bounded_at_once(mechanism: str, eps: float) -> None:
    # A census at a tiny ε: the integer noise's support would hold millions (or trillions)
    # of values; the error after rounding is then the proven bound, in well under a second.
    m = LINEAR_MECHANISMS[mechanism]
    param = m.parameter(eps, 1e-6 if m.uses_delta else None, 1.0)
    assert not exact_rounding_feasible(m, param) or mechanism == "laplace"
    rmse = math.sqrt(m.variance(param))
    e95 = m.abs_quantile(param, 0.95)
    got_rmse, got_95, how = post_errors(m, param, 1.0, 0.0, 40.0, rmse, e95, 0.95)
    assert how == POST_BOUND
    assert got_rmse == pytest.approx(rmse + 0.5) and got_95 == math.floor(e95 + 0.5)
    values, methods = rounded_rmse(np.array([0.0, 40.0]), np.zeros(2), m, param, 1.0)
    if mechanism == "laplace":  # closed form, whatever the scale
        assert methods == ["exact", "exact"] and np.all(values <= rmse + 0.5)
    else:
        assert methods == ["bound: RMSE + ½"] * 2
        np.testing.assert_allclose(values, rmse + 0.5)


def test_the_widest_noise_summed_exactly_agrees_with_the_bound() -> None:
    # Just inside the limit the exact error is computed, and the bound holds for it.
    m = LINEAR_MECHANISMS["geometric"]
    param = 1.0 / 0.004
    assert exact_rounding_feasible(m, param)
    _, mse = rounded_moments(m, param, np.array([3.0]), np.array([3.0]))
    assert math.sqrt(float(mse[0])) <= math.sqrt(m.variance(param)) + 0.5
    assert exact_rounding_feasible(m, 2_500.0) and not exact_rounding_feasible(m, 10_000.0)
