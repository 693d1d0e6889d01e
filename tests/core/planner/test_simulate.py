"""core.planner.simulate: mechanisms made for a sample, the cost model, empty samples."""

from __future__ import annotations

import math

import numpy as np
import pytest

from core import mechanisms as mech
from core.designs.frame import Frame
from core.designs.registry import DESIGNS
from core.planner import errors, simulate
from core.population import Population


def _frame(N: int) -> Frame:
    return Frame.of(Population("t", np.linspace(0, 1, N), 0.0, 1.0))


def test_mechanisms_get_only_the_parameters_they_take():
    frame = _frame(100)
    ht = simulate.make_mechanism("ht_mean", frame, 0.25, 0.5)
    assert isinstance(ht, mech.HorvitzThompsonMean) and ht.expected_size == 25
    q = simulate.make_mechanism("exponential", frame, 0.25, 0.9)
    assert isinstance(q, mech.ExponentialQuantile) and q.quantile == 0.9


def test_cost_model_prefers_masks_for_small_and_windows_for_large_populations():
    srs = DESIGNS["srs"]
    small, large = _frame(5_000), _frame(500_000)
    assert not simulate.use_windows(srs, small, srs.points(small, [0.1]), "auto")
    assert simulate.use_windows(srs, large, srs.points(large, [0.1]), "auto")
    assert not simulate.use_windows(srs, large, srs.points(large, [0.1]), "full")


def test_an_empty_sample_is_released_as_its_mechanism_states():
    frame = _frame(10)
    out = errors.Draws()
    simulate.release_empty(mech.GlobalLaplaceQuantile(), 1.0, frame, np.random.default_rng(0), out)
    assert out.statistic[0][0] == 0.5 and out.noise_variance[0][0] == 2.0


def test_empty_samples_sharing_their_parts_release_what_each_alone_releases(monkeypatch):
    """The parts kept for the empty samples of one mechanism are computed once, and the
    releases (draws, moments, laws) equal those of each empty sample released alone."""
    frame = _frame(10)
    calls = []
    laplace = mech.GlobalLaplaceQuantile()
    moments = type(laplace).clamped_noise_moments
    monkeypatch.setattr(
        type(laplace),
        "clamped_noise_moments",
        lambda self, *a, **k: calls.append(1) or moments(self, *a, **k),
    )
    alone, shared, known = errors.Draws(), errors.Draws(), {}
    rng_a, rng_b = np.random.default_rng(3), np.random.default_rng(3)
    for _ in range(4):
        simulate.release_empty(laplace, 1.0, frame, rng_a, alone)
    assert len(calls) == 4
    for _ in range(4):
        simulate.release_empty(laplace, 1.0, frame, rng_b, shared, known)
    assert len(calls) == 5
    for field in ("released", "noise_mean", "noise_square", "noise_variance"):
        np.testing.assert_allclose(
            np.concatenate(getattr(alone, field)), np.concatenate(getattr(shared, field))
        )


def test_empty_samples_released_as_one_batch_equal_each_released_alone():
    """:func:`simulate.release_empties` appends one release whose rows are, in order, those
    of the empty samples released one after another from the same stream (the exponential
    mechanism's uniform draw and a Laplace release's clamped moments and law)."""
    frame = _frame(10)
    for mechanism in (mech.ExponentialQuantile(), mech.GlobalLaplaceQuantile()):
        alone, batch = errors.Draws(), errors.Draws()
        rng_a, rng_b = np.random.default_rng(7), np.random.default_rng(7)
        for _ in range(5):
            simulate.release_empty(mechanism, 0.5, frame, rng_a, alone)
        simulate.release_empties(mechanism, 0.5, frame, rng_b, batch, 5)
        simulate.release_empties(mechanism, 0.5, frame, rng_b, batch, 0)
        assert len(batch.released) == 1 and batch.released[0].size == 5
        assert rng_a.random() == rng_b.random()  # the stream moved as far
        for field in ("released", "statistic", "noise_mean", "noise_square", "noise_scale"):
            np.testing.assert_allclose(
                np.concatenate(getattr(alone, field)), getattr(batch, field)[0], rtol=1e-15
            )
        assert (alone.law() is None) == (batch.law() is None)


def test_windows_over_runs_agree_with_masks_on_a_heavily_tied_population() -> None:
    """The establishments shape (median 3, a tie block of ~6 % of the records at it): every
    windowed design reads runs, and its rows equal the mask rows within Monte Carlo error."""
    import pytest

    from core import planner as pl
    from core.populations import make_builtin

    pop = make_builtin("establishments", seed=0, size=50_000)
    assert Frame.of(pop).tied_runs() is not None
    common = dict(
        eps_target=1.0, reps=600, refine=False, rates=[0.2, 0.5],
        designs=["srs", "poisson", "stratified_proportional", "cluster"],
        mechanisms=["smooth_laplace", "global_laplace", "exponential"],
    )  # fmt: skip
    a = pl.plan(pop, sampler="full", seed=1, **common).table
    b = pl.plan(pop, sampler="window", seed=2, **common).table
    m = a.merge(b, on=["design", "mechanism", "rate"], suffixes=("_a", "_b"))
    m = m[m["design"] != "census"]
    assert set(m["design"]) == {"srs", "poisson", "stratified_proportional", "cluster"}
    for col in ("rmse", "error_95"):
        se = np.hypot(m[f"{col}_se_a"], m[f"{col}_se_b"])
        z = (m[f"{col}_a"] - m[f"{col}_b"]) / np.where(se > 0, se, 1.0)
        assert np.abs(z).max() < 4.0, (col, z.round(2).tolist())
    assert m["n_a"].to_numpy() == pytest.approx(m["n_b"].to_numpy(), rel=0.05)


def test_exponential_first_half_is_a_power_of_two_shared_within_a_factor_two():
    for eps in (1e-4, 3e-3, 0.07, 1.0, 40.0):
        h = simulate.exponential_first_half(eps)
        assert h & (h - 1) == 0 and h >= simulate.FIRST_HALF_EPS / eps
        assert h < 2 * simulate.FIRST_HALF_EPS / eps or h == 1
    # Budgets that ask for 1100 and 1900 ranks both read 2048.
    c = simulate.FIRST_HALF_EPS
    assert simulate.exponential_first_half(c / 1100) == 2048
    assert simulate.exponential_first_half(c / 1900) == 2048


def _exponential_draws(eps: float) -> errors.Draws:
    frame = Frame.of(
        Population("t", np.sort(np.random.default_rng(3).lognormal(0, 1, 200_000)), 0.0, 100.0)
    )
    srs = DESIGNS["srs"]
    (point,) = srs.points(frame, [0.3])
    budget = simulate.PointBudget(point, {"exponential": eps}, 0.0, {"exponential": ""})
    got = simulate.simulate_windows(srs, ["exponential"], frame, [budget], 60, [4, 1], 0.5)
    return got[("exponential", point.rate)]


def test_exponential_windows_read_the_same_samples_at_nearby_budgets():
    """Common random numbers: releases at budgets 1 % apart come from the same samples, so
    the search for the smallest ε_target sees a smooth error."""
    a, b = _exponential_draws(0.02), _exponential_draws(0.0202)
    np.testing.assert_array_equal(np.concatenate(a.statistic), np.concatenate(b.statistic))
    shift = np.abs(np.concatenate(a.released) - np.concatenate(b.released))
    assert np.median(shift) < 0.05 * np.median(np.abs(np.concatenate(a.released) - 1.0))


def _window_budgets(
    frame: Frame, design: str, rates: list[float]
) -> tuple[list[simulate.PointBudget], list[str]]:
    names = ["smooth_laplace", "smooth_pure", "exponential", "piecewise_laplace", "global_laplace"]
    points = DESIGNS[design].points(frame, rates)
    return [
        simulate.PointBudget(p, {m: 0.05 / p.rate for m in names}, 1e-6, dict.fromkeys(names, ""))
        for p in points
    ], names


def _all_draws(got: dict) -> np.ndarray:
    return np.concatenate(
        [np.concatenate(d.released + d.statistic + d.noise_scale) for _, d in sorted(got.items())]
    )


def test_window_tasks_on_two_threads_draw_exactly_what_one_thread_draws(monkeypatch) -> None:
    """Each task has random streams of its own, so the schedule changes nothing."""
    from core import threads

    frame = Frame.of(
        Population("t", np.sort(np.random.default_rng(8).lognormal(0, 1, 60_000)), 0.0, 100.0)
    )
    monkeypatch.setattr(threads, "workers", lambda: 2)
    used: list[int] = []
    real_each = simulate.each

    def counted(run, items, cost):
        used.append(len(items))
        return real_each(run, items, cost)

    monkeypatch.setattr(simulate, "each", counted)
    for design in ("srs", "poisson"):
        budgets, names = _window_budgets(frame, design, [0.05, 0.4, 0.9])
        args = (DESIGNS[design], names, frame, budgets, 80, [2, 5], 0.5)
        monkeypatch.setattr(simulate, "PARALLEL_RECORDS", float("inf"))
        one = simulate.simulate_windows(*args)
        monkeypatch.setattr(simulate, "PARALLEL_RECORDS", 0.0)
        two = simulate.simulate_windows(*args)
        assert sorted(one) == sorted(two)
        np.testing.assert_allclose(_all_draws(two), _all_draws(one), rtol=1e-13, atol=0)
    assert len(used) == 2 and min(used) > 3  # the parallel runs had several tasks each


def test_ring_drawn_chunks_hold_a_bounded_number_of_order_statistics() -> None:
    """A chunk of exponential releases holds at most EXPONENTIAL_CELLS order statistics at
    first, counting a tie block on windows of records (read whole), not on runs."""
    rng = np.random.default_rng(1)
    values = np.sort(np.concatenate((rng.uniform(0, 1, 300_000), np.full(100_000, 0.5))))
    untied = Frame.of(Population("t", values, 0.0, 1.0))  # one long block, not tied overall
    tied = Frame.of(Population("t", np.sort(rng.integers(0, 50, 400_000)).astype(float), 0, 50))
    assert untied.tied_runs() is None and tied.tied_runs() is not None
    for frame, block in ((untied, 100_000), (tied, 0)):
        budgets, names = _window_budgets(frame, "srs", [0.5])
        point = simulate._WindowPoint(DESIGNS["srs"], names, frame, budgets[0], 400, [1], 0.5)
        for j in point.chunk:
            half = simulate.exponential_first_half(budgets[0].eps_sample[names[j]])
            width = 2 * half + 1 + 2 * math.ceil(0.5 * block)
            assert point.chunk[j] == max(1, simulate.EXPONENTIAL_CELLS // width)
            assert point.chunk[j] * width <= simulate.EXPONENTIAL_CELLS or point.chunk[j] == 1


def test_keys_kept_for_the_same_design_population_and_seed_only() -> None:
    """The refinement's rates read the grid's keys again (no second draw), and a new
    population, seed or chunking draws its own."""
    srs = DESIGNS["srs"]
    frame = _frame(300)
    # Another population of the same size (equal contents would share one kept frame).
    other = Frame.of(Population("t", np.linspace(0, 1, 300) ** 2, 0.0, 1.0))
    first = list(simulate.chunk_keys(srs, frame, [20, 5], [3, 1]))
    again = list(simulate.chunk_keys(srs, frame, [20, 5], [3, 1]))
    assert all(a is b for a, b in zip(first, again, strict=True))
    assert not any(k.flags.writeable for k in first)
    fresh = list(simulate.chunk_keys(srs, other, [20, 5], [3, 1]))
    assert not any(a is b for a, b in zip(first, fresh, strict=True))
    np.testing.assert_array_equal(first[0], fresh[0])  # the same stream, drawn again
    other_seed = list(simulate.chunk_keys(srs, frame, [20, 5], [4, 1]))
    assert not np.array_equal(other_seed[0], first[0])
    assert [k.shape[0] for k in simulate.chunk_keys(srs, frame, [25], [3, 1])] == [25]


def test_poisson_masks_release_each_sample_as_alone() -> None:
    """Poisson samples (sizes differ) give the rows of one release per sample: the same
    errors whether the rows go together (release_rows) or one by one."""
    from core.mechanisms import rows as rows_mod

    frame = Frame.of(
        Population("t", np.sort(np.random.default_rng(0).lognormal(1, 0.5, 400)), 0.0, 30.0)
    )
    design = DESIGNS["poisson"]
    keys = design.draw_keys(frame, 60, np.random.default_rng(1))
    samples = simulate.mask_samples(
        frame, design.mask(frame, keys, design.points(frame, [0.05])[0])
    )
    assert len(set(samples.sizes.tolist())) > 1
    for name in ("exponential", "global_laplace"):
        m = simulate.make_mechanism(name, frame, 0.05, 0.5)
        together, alone = errors.Draws(), errors.Draws()
        simulate._release_rows(m, samples, 2.0, 1e-4, frame, np.random.default_rng(9), together)
        rng = np.random.default_rng(9)
        for row in samples.as_list():
            simulate._release_rows(m, rows_mod.SortedRows.of([row]), 2.0, 1e-4, frame, rng, alone)
        theta = float(np.median(frame.values))
        a, b = errors.summary_row(together, theta), errors.summary_row(alone, theta)
        for key in ("rmse", "error_95", "sampling_part", "noise_part", "mean_sample_size"):
            assert a[key] == pytest.approx(b[key], rel=1e-12), (name, key)
