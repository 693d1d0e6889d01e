"""core.planner.composition: several statistics compose on the sample, then amplify once."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from core.planner import composition, engine
from core.population import Population


def test_composing_then_amplifying_keeps_the_promise_and_the_naive_sum_understates():
    split = composition.budget_split("poisson", 1.0, [1, 3], relation="deletion", rate=0.05)
    assert split.shares == pytest.approx((0.25, 0.75))
    assert sum(split.eps_samples) == pytest.approx(split.eps_sample_total)
    assert split.eps_target_correct == pytest.approx(1.0, rel=1e-9)
    assert split.eps_target_naive < split.eps_target_correct
    with pytest.raises(ValueError, match="share"):
        composition.budget_split("poisson", 1.0, [], rate=0.05)


# --------------------------------------------------------------------------------------
# several_statistics: one plan per statistic, each design's samples drawn once for all.
# The reference is one plain plan per statistic (obviously correct, draws every sample
# again for each statistic).
# --------------------------------------------------------------------------------------

STATISTICS = (("median", 0.5), ("quantile", 0.25), ("quantile", 0.75), ("mean", 0.5))
#: Columns that depend on the mechanisms' noise draws (the rest depend on the samples).
NOISY = [
    "rmse",
    "rmse_se",
    "error_95",
    "error_95_se",
    "error_95_low",
    "error_95_high",
    "noise_part",
]


def _labelled(n=1_500, seed=3):
    rng = np.random.default_rng(seed)
    clusters = rng.integers(0, 15, n)
    values = np.sort(np.round(rng.lognormal(3, 0.6, n), 1))
    return Population("t", values, 0.0, 400.0, strata=clusters % 3, clusters=clusters)


@pytest.mark.parametrize(
    ("sampler", "refine"), [("full", False), ("window", False), ("auto", True), ("full", True)]
)
def test_each_statistics_plan_is_the_plain_plan_with_its_share(sampler, refine):
    pop = _labelled()
    shares = [1.0, 2.0, 3.0, 2.0]
    kw = dict(eps_target=1.0, reps=24, seed=5, sampler=sampler, refine=refine)
    got = composition.several_statistics(pop, STATISTICS, shares, **kw)
    weights = np.asarray(shares) / sum(shares)
    for i, ((stat, q), share, result) in enumerate(zip(STATISTICS, weights, got, strict=True)):
        plain = engine.plan(pop, statistic=stat, quantile=q, budget_share=share, **kw)
        assert result.budget_share == pytest.approx(share)
        if i == 0:  # the first statistic: the plain plan's samples and noise
            pd.testing.assert_frame_equal(result.table, plain.table)
            continue
        # The others: the same samples, their own noise.  Rows whose noise law is
        # integrated out exactly are equal; the exponential mechanism's differ by noise
        # (and so may its best rates, and the rates refined around them for every
        # mechanism): the rows both plans have are compared.
        drawn = ["exponential"]
        key = ["design", "mechanism", "rate"]
        a, b = (
            t[~t["mechanism"].isin(drawn)].drop(columns="is_best").set_index(key)
            for t in (result.table, plain.table)
        )
        both = a.index.intersection(b.index)
        assert len(both) >= 0.9 * len(b)
        pd.testing.assert_frame_equal(a.loc[both], b.loc[both])
        if not refine:
            same = [c for c in result.table.columns if c not in [*NOISY, "is_best"]]
            pd.testing.assert_frame_equal(result.table[same], plain.table[same])


def test_the_exponential_rows_have_the_plain_plans_law():
    """Own noise on shared samples: the error bound agrees with the plain plan's within its
    Monte Carlo standard errors."""
    pop = _labelled()
    kw = dict(eps_target=0.5, reps=400, seed=2, designs=["srs"], rates=[0.3], refine=False)
    got = composition.several_statistics(pop, STATISTICS[:2], [1, 1], **kw)[1]
    plain = engine.plan(pop, statistic="quantile", quantile=0.25, budget_share=0.5, **kw)
    a, b = (
        t[(t["design"] == "srs") & (t["mechanism"] == "exponential")].iloc[0]
        for t in (got.table, plain.table)
    )
    se = np.hypot(a["error_95_se"], b["error_95_se"])
    assert abs(a["error_95"] - b["error_95"]) <= 4 * se


def test_several_statistics_reports_progress_and_refuses_bad_lists():
    pop = _labelled()
    seen: list[composition.SeveralProgress] = []
    composition.several_statistics(
        pop, STATISTICS[:2], [1, 1], eps_target=1.0, reps=10, refine=False, progress=seen.append
    )
    assert [p.done for p in seen] == list(range(1, len(seen) + 1))
    assert {p.total for p in seen} == {len(seen)} and seen[0].design == "census"
    with pytest.raises(ValueError, match="one weight per statistic"):
        composition.several_statistics(pop, STATISTICS, [1, 1], eps_target=1.0)
    with pytest.raises(ValueError, match="at least one"):
        composition.several_statistics(pop, [], [], eps_target=1.0)
    with pytest.raises(ValueError, match="statistic"):
        composition.several_statistics(pop, [("mode", 0.5)], [1], eps_target=1.0)


# --------------------------------------------------------------------------------------
# at_rate: the row of the rate the user chose (issue 35, "the error of the rate the user
# chose"): a refined plan holds rates the user did not choose, and a row mixing the
# chosen rate's budget with another rate's error is twice too optimistic on the survey.
# --------------------------------------------------------------------------------------


def test_each_row_at_the_chosen_rate_has_the_numbers_of_the_rate_it_names():
    pop = _labelled()
    kw = dict(eps_target=1.0, reps=24, seed=5, designs=["srs"], rates=[0.05], refine=True)
    results = composition.several_statistics(pop, STATISTICS[:1] + STATISTICS[3:], [1, 1], **kw)
    got = composition.at_rate(results, "srs", 0.05)
    assert list(got.columns) == list(composition.AT_RATE_COLUMNS)
    assert list(got["statistic"]) == ["median", "mean"]
    for result, (_, row) in zip(results, got.iterrows(), strict=True):
        table = result.table[result.table["design"] == "srs"]
        # refinement added rates, and some best row lies at another rate than the chosen one
        assert table["rate"].nunique() > 1
        assert row["rate"] == pytest.approx(0.05, rel=1e-3)
        at = table[table["rate"] == row["rate"]]
        mine = at[at["mechanism"] == row["mechanism"]].iloc[0]
        for column in ("n", "eps_sample", "rmse", "rmse_se", "error_95", "error_95_se"):
            assert row[column] == pytest.approx(mine[column], rel=1e-12), column
        assert row["error_95"] == pytest.approx(at["error_95"].min(), rel=1e-12)
    # The best rows of the refined plans are at other rates: the bug this guards against.
    best = [r.best_by_design[r.best_by_design["design"] == "srs"].iloc[0] for r in results]
    assert any(abs(b["rate"] - 0.05) > 1e-3 for b in best)
    # The census has one rate, whatever rate is asked for.
    census = composition.at_rate(results, "census", 0.05)
    assert (census["rate"] == 1.0).all()
    with pytest.raises(ValueError, match="rate"):
        composition.at_rate(results, "srs", 1.5)
    with pytest.raises(ValueError, match="no row of the design"):
        composition.at_rate(results, "poisson", 0.05)
    with pytest.raises(ValueError, match="objective"):
        composition.at_rate(results, "srs", 0.05, objective="bias")


def test_shares_of_any_mechanisms_compose_within_eps_target_on_poisson_samples():
    """The median and the lower quartile from one Poisson sample under "change one record":
    whichever mechanism each plan picks (the exponential quantile at its own level, α = 1/2
    and 3/4, or the global-Laplace quantile, α = γ = 1), the two releases' budgets add on
    the sample and the exact two-budget bound of the composed release (issue 22's (P)) is
    at most ``eps_target``."""
    from core import mechanisms as mech
    from core.accounting import change_one as co

    pop = _labelled()
    t = 2.0
    kw = dict(eps_target=t, reps=8, seed=1, designs=["poisson"], rates=[0.5], refine=False)
    stats = [("median", 0.5), ("quantile", 0.25)]
    plans = composition.several_statistics(pop, stats, [0.45, 0.55], **kw)
    rows = []
    for (_, q), plan in zip(stats, plans, strict=True):
        mine = plan.table[plan.table["design"] == "poisson"]
        rows.append([(m, q, e, r) for m, e, r in mine[["mechanism", "eps_sample", "rate"]].values])
    assert {m for m, *_ in rows[0]} == {"exponential", "global_laplace"}
    for (m1, q1, e1, r), (m2, q2, e2, _) in [(a, b) for a in rows[0] for b in rows[1]]:
        f1, f2 = (mech.MECHANISMS[m].budget_factors(q) for m, q in ((m1, q1), (m2, q2)))
        a = f1.add_remove * e1 + f2.add_remove * e2
        s = min(f1.change, 2 * f1.add_remove) * e1 + min(f2.change, 2 * f2.add_remove) * e2
        assert co.poisson_eps_target(a, s, r) <= t * (1 + 1e-9), (m1, m2)
