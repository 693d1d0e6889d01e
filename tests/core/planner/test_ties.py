"""core.planner.ties: errors the same number to the root search's tolerance, and the picks
of the refinement and the ranking when rows tie at a clip bound."""

from __future__ import annotations

import math

import numpy as np
import pytest

from core.planner import engine, errors, ties
from core.population import Population


def test_same_is_relative_and_knows_infinities_and_nan():
    assert ties.same(164.0, 164.0 * (1 + 1e-12))
    assert not ties.same(164.0, 164.0 * (1 + 1e-6))
    assert ties.same(0.0, 0.0) and not ties.same(0.0, 1e-300)
    assert ties.same(math.inf, math.inf) and not ties.same(math.inf, 1e308)
    assert not ties.same(math.nan, math.nan)
    assert ties.reaches(1.0 + 1e-13, 1.0) and ties.reaches(0.5, 1.0)
    assert not ties.reaches(1.0 + 1e-6, 1.0)


def test_first_least_takes_the_first_of_tied_values_and_ranked_keeps_their_order():
    assert ties.first_least([3.0, 164.0 + 1e-11, 164.0, 2.0 + 1e-13, 2.0]) == 3
    assert ties.first_least([math.nan, 5.0, 5.0]) == 1
    with pytest.raises(ValueError):
        ties.first_least([math.nan, math.nan])
    values = [5.0, 1.0 + 1e-12, math.nan, 1.0, 0.5, 5.0 - 1e-12]
    assert ties.ranked(values) == [4, 1, 3, 0, 5, 2]
    plain = [0.3, 0.1, 0.2, 0.1]
    assert ties.ranked(plain) == sorted(range(4), key=lambda i: plain[i])


def _old_search(coverage, level, top, jumps):
    """The search before the clip jumps were bracketed: Brent's method on ``[0, top]``."""
    return errors._root(lambda v: coverage(v) - level, top)


def test_a_bound_at_a_clip_jump_is_the_jump_and_the_old_search_finds_it_to_its_tolerance(
    monkeypatch,
):
    """Huge noise, releases clamped to [θ − 86, θ + 164]: the 95 % bound is the jump at 164
    (the level falls inside it); Brent's search on [0, top] lands within its tolerance."""
    rng = np.random.default_rng(3)
    err = rng.normal(0.0, 2.0, 200)
    scale = np.full(200, 5e3)
    new, _ = errors.conditional_quantile(err, scale, 0.95, None, -86.0, 164.0)
    assert new == 164.0
    monkeypatch.setattr(errors, "_bracketed_root", _old_search)
    old, _ = errors.conditional_quantile(err, scale, 0.95, None, -86.0, 164.0)
    assert ties.same(old, new)
    # a root between the jumps: the same number either way
    small = np.full(200, 3.0)
    got = errors.conditional_quantile(err, small, 0.95, None, -86.0, 164.0)[0]
    monkeypatch.undo()
    assert ties.same(errors.conditional_quantile(err, small, 0.95, None, -86.0, 164.0)[0], got)


def _tied_population() -> Population:
    """Whole numbers in [0, 250] with many ties and the median near the bottom, as in a
    survey: a Laplace release's bound sits at the clip jump U − θ at every rate where its
    noise is wide."""
    rng = np.random.default_rng(5)
    values = np.sort(np.minimum(np.round(rng.lognormal(4.0, 0.6, 1_200)), 250.0))
    return Population("tied", values, 0.0, 250.0)


def _picks(result: engine.PlanResult) -> tuple[list[tuple[str, str, float]], ...]:
    table = result.table
    keys = list(zip(table["design"], table["mechanism"], table["rate"], strict=True))
    best = result.best_by_design
    ranked = list(zip(best["design"], best["mechanism"], best["rate"], strict=True))
    return keys, [k for k, b in zip(keys, table["is_best"], strict=True) if b], ranked


def test_the_refinement_picks_the_same_rates_whichever_search_found_the_tied_bounds(
    monkeypatch,
):
    """Several rates of the Laplace release tie at the clip bound: the bracketed search
    returns the jump exactly, Brent's method a number within its tolerance on either side.
    With the tie rule, the refined rates, the best rows and the ranking are the same for
    this seed, and every bound is the same number."""
    pop = _tied_population()
    kwargs = {
        "eps_target": 0.05,
        "reps": 30,
        "designs": ["srs"],
        "mechanisms": ["global_laplace", "exponential"],
    }
    new = engine.plan(pop, **kwargs)
    table = new.table
    laplace = table[(table["mechanism"] == "global_laplace") & (table["design"] == "srs")]
    jump = 250.0 - new.population_value
    assert int((laplace["error_95"] == jump).sum()) >= 3  # the ties this test is about
    monkeypatch.setattr(errors, "_bracketed_root", _old_search)
    old = engine.plan(pop, **kwargs)
    assert _picks(old) == _picks(new)
    for a, b in zip(old.table["error_95"], new.table["error_95"], strict=True):
        assert ties.same(float(a), float(b))
    # the smallest of the tied rates is the one kept, and a tie with the census is no gain
    first = laplace[laplace["error_95"] == jump]["rate"].min()
    assert new.table.loc[laplace.index[laplace["is_best"]], "rate"].item() == first
    assert not new.best_by_design["beats_census"][new.best_by_design["error_95"] == jump].any()


def test_a_bound_the_same_as_the_census_s_is_no_gain_over_it():
    from core.planner.claims import beats_reference

    assert not beats_reference(164.0 * (1 - 1e-13), 0.0, 164.0, 0.0)
    assert beats_reference(163.0, 0.0, 164.0, 0.0)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_compiled_laplace_coverage_equals_the_numpy_one(seed):
    """:func:`core.planner.coverage_kernels.laplace_coverage`'s mean against
    :func:`core.mechanisms.clamping.clamped_abs_coverage` with the Laplace CDF: rows with
    and without noise, errors clipped at either bound, and levels at and between the
    jumps; the 95 % bound is the same number either way."""
    from core import mechanisms as mech
    from core.mechanisms.clamping import clamped_abs_coverage
    from core.planner import coverage_kernels

    rng = np.random.default_rng(seed)
    err = rng.normal(0.0, 30.0, 300)
    scale = rng.exponential(20.0, 300)
    scale[::7] = 0.0
    cdf = mech.GlobalLaplaceQuantile().standard_noise_cdf
    assert coverage_kernels.is_laplace(cdf)
    compiled = coverage_kernels.mean_coverage(
        coverage_kernels.laplace_coverage(err, scale, -40.0, 60.0)
    )
    numpy_rows = clamped_abs_coverage(err, scale, cdf, -40.0, 60.0)
    for x in (0.0, 5.0, 39.999, 40.0, 59.0, 60.0, 1e3):
        got = compiled(x)
        assert got == pytest.approx(float(numpy_rows(x).mean()), abs=1e-14)
    fast = errors.conditional_quantile(err, scale, 0.95, cdf, -40.0, 60.0)
    slow = errors.conditional_quantile(err, scale, 0.95, lambda z: cdf(z), -40.0, 60.0)
    assert ties.same(fast[0], slow[0]) and fast[1] == pytest.approx(slow[1], rel=1e-6)


def test_the_ranked_table_is_in_display_order_with_first_least_picks_whatever_the_rows_order():
    import pandas as pd

    rows = [
        {"design": d, "mechanism": m, "rate": r, "error_95": e, "error_95_se": 0.1}
        for d, m, r, e in [
            ("census", "exponential", 1.0, 5.0),
            ("srs", "smooth_laplace", 0.5, 3.0),
            ("srs", "smooth_laplace", 0.1, 3.0 * (1 + 1e-12)),  # tied: the smaller rate wins
            ("srs", "exponential", 0.2, 4.0),
            ("poisson", "exponential", 0.3, 1.0),
            ("poisson", "exponential", 0.05, 2.0),
        ]
    ]
    for order in ([0, 1, 2, 3, 4, 5], [5, 3, 1, 0, 4, 2], [2, 4, 0, 5, 1, 3]):
        table, best = engine._ranked(pd.DataFrame([rows[i] for i in order]), "error_95")
        assert list(zip(table["design"], table["mechanism"], table["rate"], strict=True)) == [
            ("census", "exponential", 1.0),
            ("srs", "smooth_laplace", 0.1),
            ("srs", "smooth_laplace", 0.5),
            ("srs", "exponential", 0.2),
            ("poisson", "exponential", 0.05),
            ("poisson", "exponential", 0.3),
        ]
        assert list(table["is_best"]) == [True, True, False, True, False, True]
        assert list(zip(best["design"], best["rate"], strict=True)) == [
            ("poisson", 0.3),
            ("srs", 0.1),
            ("srs", 0.2),
            ("census", 1.0),
        ]
        assert best["gain"].to_numpy() == pytest.approx([0.8, 0.4, 0.2, 0.0])
        assert list(best["beats_census"]) == [True, True, True, False]
