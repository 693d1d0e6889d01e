"""core.planner.errors: RMSE, the 95 % bound and their split from draws."""

from __future__ import annotations

import math

import numpy as np
import pytest

from core.planner import errors


def test_summary_of_exact_noise_variances_splits_the_mse():
    draws = errors.Draws()
    stat = np.array([1.0, -1.0, 1.0, -1.0])
    draws.statistic.append(stat)
    draws.released.append(stat)
    draws.noise_variance.append(np.full(4, 2.0))
    draws.noise_mean.append(np.zeros(4))
    draws.noise_square.append(np.full(4, 2.0))
    draws.noise_scale.append(np.ones(4))
    draws.sizes.append(np.full(4, 10.0))
    row = errors.summary_row(draws, 0.0)
    assert row["sampling_part"] == 1.0 and row["noise_part"] == 2.0
    assert row["rmse"] == pytest.approx(math.sqrt(3.0))
    assert row["mean_sample_size"] == 10.0
    # A clamped release is biased given the sample: E[(θ̃ − θ)^2 | S] = d^2 + 2 d m1 + m2.
    draws.noise_mean[0] = np.array([-0.5, 0.5, -0.5, 0.5])
    row = errors.summary_row(draws, 0.0)
    assert row["rmse"] == pytest.approx(math.sqrt(1.0 - 1.0 + 2.0))


def test_noise_quantile_of_laplace_is_ln_20():
    from core import mechanisms as mech

    assert errors.noise_quantile(mech.LaplaceMean().standard_noise_cdf) == pytest.approx(
        math.log(20.0)
    )
    assert errors.exact_row(1.0, 2.0, 0.5, 0.5)["rmse_se"] == 0.0


def test_quantile_interval_of_two_modes_is_the_order_statistics_not_a_symmetric_band():
    """Issue 35 §4: a design that sometimes misses most clusters has errors of two modes;
    the 95 % bound then sits at the edge of the small-error mode and its Monte Carlo
    interval reaches far up but not down: ±2 s.e. about the estimate went below 0 (drawn
    at the bottom of the chart's log axis, under the census line)."""
    rng = np.random.default_rng(1)
    T = 200
    errors_ = np.abs(rng.normal(0.0, 1.0, T))
    errors_[: int(0.05 * T)] = rng.uniform(100.0, 150.0, int(0.05 * T))  # the misses
    q, se, low, high = errors._quantile_interval(errors_, errors.LEVEL)
    assert q == pytest.approx(float(np.quantile(errors_, errors.LEVEL)))
    s = np.sort(errors_)
    half = 2.0 * math.sqrt(T * 0.95 * 0.05)
    assert low == s[math.floor(T * 0.95 - half)] and high == s[math.ceil(T * 0.95 + half)]
    assert se == pytest.approx((high - low) / 4.0)
    assert 0.0 < low <= q <= high
    assert q - 2.0 * se < 0.0 < low  # the symmetric band would reach below 0
    # Rows carry the interval: in summary_row, and as the value itself when exact.
    draws = errors.Draws(
        statistic=[errors_],
        released=[errors_],
        noise_variance=[np.full(T, np.nan)],
        noise_scale=[np.zeros(T)],
        sizes=[np.full(T, 10.0)],
    )
    row = errors.summary_row(draws, 0.0)
    assert (row["error_95_low"], row["error_95_high"]) == (low, high)
    exact = errors.exact_row(1.0, 2.0, 0.5, 0.5)
    assert exact["error_95_low"] == exact["error_95_high"] == 2.0


def test_a_release_law_integrates_the_noise_out_of_the_errors():
    """A non-additive release with a stated law (the size-free mean): the RMSE and the 95 %
    bound are the law's, averaged over the samples, not the draws' (issue 35)."""
    from core import mechanisms as mech
    from core.mechanisms.sum_count import SumCountLaw
    from core.planner.errors import Draws, summary_row

    m = mech.SumCountMean(0.0, 10.0, sum_share=0.5)
    rng = np.random.default_rng(4)
    draws = Draws()
    for size in (3, 5, 8):
        rows = np.sort(rng.uniform(0, 10, (20, size)), axis=1)
        rel = m.release(rows, 0.7, 0.5, 0.0, 10.0, rng)
        draws.statistic.append(rel.statistic)
        draws.released.append(rel.released)
        draws.noise_variance.append(np.full(20, np.nan))
        draws.noise_scale.append(rel.noise_scale)
        draws.laws.append(rel.law)
        draws.sizes.append(np.full(20, float(size)))
    theta = 5.0
    law = SumCountLaw.merge(draws.laws)
    row = summary_row(draws, theta)
    assert row["rmse"] == pytest.approx(math.sqrt(float(law.mse(theta).mean())), rel=1e-12)
    # the smallest x covering 95 % (the law has atoms at the bounds, so it may jump past it)
    x = row["error_95"]
    assert float(law.coverage(x, theta).mean()) >= 0.95 - 1e-9
    assert float(law.coverage(x * (1 - 1e-7), theta).mean()) <= 0.95 + 1e-9
    stat = np.concatenate(draws.statistic)
    assert row["noise_part"] == pytest.approx(float(law.mse(stat).mean()), rel=1e-12)
    assert row["sampling_part"] == pytest.approx(float(((stat - theta) ** 2).mean()), rel=1e-12)
    draws.laws[-1] = None  # one chunk without a law: the draws decide
    assert summary_row(draws, theta)["rmse"] != pytest.approx(row["rmse"], rel=1e-6)


def test_a_plan_of_the_size_free_mean_matches_brute_force():
    """The planner's sum_count row (samples drawn, noise integrated) against releases drawn
    with their noise on many Poisson samples."""
    from core import planner
    from core.population import Population

    pop = Population("t", np.sort(np.random.default_rng(1).uniform(0, 10, 400)), 0.0, 10.0)
    result = planner.plan(
        pop, statistic="mean", eps_target=1.0, relation="deletion", designs=["poisson"],
        rates=[0.1], reps=2000, refine=False, seed=3,
    )  # fmt: skip
    row = result.table[result.table["design"] == "poisson"].iloc[0]
    assert row["mechanism"] == "sum_count"
    m = mech_at_rate(pop, 0.1)
    rng = np.random.default_rng(9)
    errs = []
    for _ in range(20_000):
        s = pop.values[rng.random(pop.size) < 0.1]
        if s.size == 0:
            errs.append(m.release_empty(row["eps_sample"], 0.0, 10.0, rng)[0] - pop.values.mean())
            continue
        out = m.release(s[None, :], row["eps_sample"], 0.5, 0.0, 10.0, rng).released[0]
        errs.append(out - pop.values.mean())
    brute = math.sqrt(float(np.mean(np.square(errs))))
    se = float(np.std(np.square(errs))) / math.sqrt(len(errs)) / (2 * brute)
    assert abs(row["rmse"] - brute) < 4 * math.hypot(se, row["rmse_se"])


def mech_at_rate(pop, rate):
    from core.designs.frame import Frame
    from core.planner.simulate import make_mechanism

    return make_mechanism("sum_count", Frame.of(pop), rate, 0.5)


def _smallest_covering(coverage, level: float, top: float) -> float:
    """Slow reference: bisection for the smallest x in [0, top] with coverage(x) >= level."""
    lo, hi = 0.0, top
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if mid <= lo or mid >= hi:
            break
        if coverage(mid) < level:
            lo = mid
        else:
            hi = mid
    return hi


@pytest.mark.parametrize("level", [0.2, 0.5, 0.6, 0.75, 0.9, 0.95, 0.99])
def test_the_bound_search_bracketed_at_jumps_finds_the_smallest_covering_error(level):
    """A smooth coverage with atoms at two clip points (2.5 and 7): the bracketed search
    returns the jump itself when the level falls inside it, and otherwise the root between
    the jumps, both as a plain bisection over [0, top] finds them."""
    top = 10.0

    def coverage(x: float) -> float:
        smooth = 0.6 * (1.0 - math.exp(-x / 1.5))
        return smooth + (0.25 if x >= 2.5 else 0.0) + (0.15 if x >= 7.0 else 0.0)

    got = errors._bracketed_root(coverage, level, top, (2.5, 7.0, 12.0))
    assert got == pytest.approx(_smallest_covering(coverage, level, top), abs=1e-9)
    assert coverage(got) >= level - 1e-12
