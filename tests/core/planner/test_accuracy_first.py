"""core.planner.accuracy_first: the smallest ε_target that reaches an error bound."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from core.planner import accuracy_first, engine
from core.population import Population


def test_the_found_eps_reaches_the_bound_and_a_little_less_does_not():
    pop = Population("t", np.sort(np.random.default_rng(0).lognormal(3, 0.5, 2_000)), 0.0, 200.0)
    kw = dict(designs=["srs"], reps=40, rates=[0.2, 0.5], mechanisms=["global_laplace"])
    found = accuracy_first.smallest_eps_target(pop, target_error_95=20.0, **kw)
    assert found.feasible and found.plan is not None
    assert found.plan.best["error_95"] <= 20.0
    less = engine.plan(pop, eps_target=found.eps_target / 1.1, refine=False, **kw)
    assert less.best["error_95"] > 20.0
    # clamped releases: the error saturates at the range for small ε, one more bracket step
    assert 1 <= found.evaluations <= 18
    assert found.eps_limit == 50.0 and found.plan_eps_target == found.eps_target
    assert found.best_error_95 == float(found.plan.best["error_95"])


def test_an_unreachable_bound_reports_the_best_bound_at_the_top_of_the_range():
    """Issue 35 §6: out of reach, the result holds the best bound within the range and its
    ε_target (the top of the range), equal to the refined plan there."""
    pop = Population("t", np.sort(np.random.default_rng(0).lognormal(3, 0.5, 2_000)), 0.0, 200.0)
    kw = dict(designs=["srs"], reps=40, rates=[0.2, 0.5], mechanisms=["laplace"])
    found = accuracy_first.smallest_eps_target(
        pop, target_error_95=1e-6, eps_range=(0.1, 2.0), statistic="mean", **kw
    )
    assert not found.feasible and math.isnan(found.eps_target)
    assert found.eps_limit == 2.0 and found.plan_eps_target == 2.0
    top = engine.plan(pop, eps_target=2.0, statistic="mean", **kw)
    assert found.best_error_95 == float(top.best["error_95"]) > 1e-6
    # Nothing smaller was seen lower in the range: the bound falls with ε_target.
    lower = engine.plan(pop, eps_target=1.0, statistic="mean", **kw)
    assert float(lower.best["error_95"]) > found.best_error_95


# --------------------------------------------------------------------------------------
# The search reuses rows and drops the ones that cannot win: the slow reference re-runs
# whole plans at every trial ε_target (the search as it was before the rows were kept).
# --------------------------------------------------------------------------------------


def _reference(pop, target, tolerance=0.02, eps_range=(1e-3, 50.0), **kw):
    """The smallest ε_target by plain plans at each trial value (obviously correct, slow)."""
    count = 0

    def best(eps):
        nonlocal count
        count += 1
        return float(engine.plan(pop, eps_target=eps, refine=False, **kw).best["error_95"])

    errors: dict[float, float] = {}

    def gap(u):
        if u not in errors:
            errors[u] = best(math.exp(u))
        return math.log(errors[u]) - math.log(target) if errors[u] > 0 else -math.inf

    ua, ub = math.log(eps_range[0]), math.log(eps_range[1])
    width = math.log1p(tolerance)
    bad, good = _reference_bracket(gap, min(max(0.0, ua), ub), ua, ub)
    if good is None or bad is None:
        return good, bad
    bisect = False
    while good - bad > width and count < accuracy_first._MAX_SEARCH_PLANS:
        before = good - bad
        ga, gb = gap(bad), gap(good)
        if bisect or not math.isfinite(gb):
            m = 0.5 * (bad + good)
        else:
            m = good - gb * (good - bad) / (gb - ga)
            m = min(max(m, bad + 0.05 * (good - bad)), good - 0.05 * (good - bad))
        if gap(m) > 0:
            bad, probe = m, min(m + 0.5 * width, good)
        else:
            good, probe = m, max(m - 0.5 * width, bad)
        if not bisect and bad < probe < good:
            if gap(probe) > 0:
                bad = probe
            else:
                good = probe
        bisect = good - bad > 0.5 * before
    return math.exp(good), errors


def _reference_bracket(gap, start, ua, ub):
    """The bracket as the search first found it: steps of 1.1 times the ``1/ε`` scaling."""
    bad = good = None
    u = start
    for _ in range(60):
        g = gap(u)
        if g > 0:
            bad = u if bad is None else max(bad, u)
            if good is not None or u >= ub:
                return bad, good
            u = min(ub, u + 1.1 * max(g, math.log(2.0)))
        else:
            good = u if good is None else min(good, u)
            if bad is not None or u <= ua:
                return bad, good
            u = max(ua, u - 1.1 * max(-g, math.log(2.0)) if math.isfinite(g) else u - 1.0)
    return bad, good


def _lognormal(n=3_000, seed=0):
    values = np.sort(np.random.default_rng(seed).lognormal(3, 0.5, n))
    return Population("t", values, 0.0, 200.0)


@pytest.mark.parametrize(
    ("target", "kw"),
    [
        (2.0, dict(reps=30)),
        (
            6.0,
            dict(reps=40, designs=["srs", "poisson"], mechanisms=["exponential", "smooth_laplace"]),
        ),
        (0.5, dict(reps=30, statistic="quantile", quantile=0.8)),
    ],
)
def test_search_finds_the_references_eps_and_returns_the_plain_plan_there(target, kw):
    pop = _lognormal()
    found = accuracy_first.smallest_eps_target(pop, target_error_95=target, **kw)
    reference, _ = _reference(pop, target, **kw)
    assert found.feasible
    # Rows are the plain plan's rows, so the search takes the same steps; only a trial
    # where every remaining row misses may step differently (the dropped rows are not in
    # its minimum), and then the answer still lies within the tolerance of the reference's.
    assert found.eps_target == pytest.approx(reference, rel=0.05)
    plain = engine.plan(pop, eps_target=found.eps_target, refine=True, **kw)
    pd.testing.assert_frame_equal(found.plan.table, plain.table)
    assert found.plan.best["error_95"] <= target


def test_progress_counts_up_through_the_search_and_the_final_plan():
    pop = _lognormal()
    seen: list[accuracy_first.SearchProgress] = []
    found = accuracy_first.smallest_eps_target(
        pop, target_error_95=2.0, reps=30, designs=["srs"], progress=seen.append
    )
    done = [p.done for p in seen]
    assert done == sorted(done) and len(set(done)) == len(done)
    assert all(0 < p.done <= p.total for p in seen)
    search = [p for p in seen if p.stage == "search"]
    assert len(search) == found.evaluations - 1
    assert [p.stage for p in seen[len(search) :]] == ["plan", "plan"]  # census, then SRS
    assert seen[-1].done == seen[-1].total
    assert seen[-1].eps_target == found.eps_target
    # Rows that cannot win are dropped once a trial reaches the bound.
    reached = [i for i, p in enumerate(search) if p.best_error_95 <= 2.0]
    assert reached and search[-1].rows <= search[reached[0]].rows


@pytest.mark.parametrize(("target", "eps_range"), [(20.0, (1e-3, 50.0)), (190.0, (1e-3, 50.0))])
def test_no_row_is_computed_twice_at_one_eps(monkeypatch, target, eps_range):
    """Every (design, rate) row is computed once per ε_target tried, the final plan's grid
    rows included (also at the ends of the range, which the search may stop at)."""
    seen: list[tuple[str, float, float]] = []
    real = engine.evaluate_many

    def counting(design, frame, rates, settings):
        for p in design.points(frame, rates):
            # ε_target to 12 digits: e^log(ε) is not always ε to the last bit.
            seen.extend((design.name, p.rate, float(f"{s.eps_target:.12g}")) for s in settings)
        return real(design, frame, rates, settings)

    monkeypatch.setattr(engine, "evaluate_many", counting)
    pop = _lognormal()
    found = accuracy_first.smallest_eps_target(
        pop, target_error_95=target, reps=20, designs=["srs"], eps_range=eps_range
    )
    assert found.feasible and len(seen) == len(set(seen))
    if target == 190.0:  # every release is within 190 of the median: the bottom of the range
        assert found.eps_target == 1e-3 and found.plan.eps_target == 1e-3
