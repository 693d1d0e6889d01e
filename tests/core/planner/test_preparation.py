"""The per-record preparation done once: kept frames, values checked once, the same plans."""

from __future__ import annotations

import numpy as np
import pytest

from core import planner
from core._checked import checked_extra, is_checked, mark_checked
from core.designs.frame import Frame
from core.designs.frame_cache import clear_frames
from core.population import Population
from core.populations import make_builtin


def _tied(seed: int = 3, n: int = 4_000) -> Population:
    rng = np.random.default_rng(seed)
    clusters = rng.integers(0, 20, n)
    values = np.sort(np.rint(rng.lognormal(3.0, 0.6, n)).clip(0, 200))
    return Population("t", values, 0.0, 200.0, strata=clusters % 4, clusters=clusters)


def test_a_prepared_frame_gives_the_same_plan_as_a_new_one():
    pop = make_builtin("establishments", seed=1, size=20_000)
    fresh = Frame._build(pop)  # no cache, nothing prepared
    prepared = planner.prepare_population(pop)
    assert prepared is Frame.of(pop)
    for statistic in ("median", "mean"):
        kw = {"statistic": statistic, "eps_target": 0.5, "reps": 40, "seed": 4}
        a = planner.plan(pop, frame=fresh, **kw).table
        b = planner.plan(pop, frame=prepared, **kw).table
        c = planner.plan(pop, **kw).table  # the planner finds the kept frame itself
        cols = ["error_95", "rmse", "eps_sample", "rate"]
        np.testing.assert_allclose(a[cols].to_numpy(float), b[cols].to_numpy(float), rtol=1e-9)
        np.testing.assert_allclose(b[cols].to_numpy(float), c[cols].to_numpy(float), rtol=1e-9)
        assert list(a["design"]) == list(b["design"]) and list(a["mechanism"]) == list(
            b["mechanism"]
        )


def test_frames_are_kept_by_everything_they_read():
    clear_frames()
    pop = _tied()
    same = Population(
        "copy", pop.values.copy(), 0.0, 200.0, strata=pop.strata, clusters=pop.clusters
    )
    assert Frame.of(pop) is Frame.of(same)
    other_bounds = Population("t", pop.values, 0.0, 250.0, strata=pop.strata, clusters=pop.clusters)
    relabelled = Population(
        "t", pop.values, 0.0, 200.0, strata=pop.clusters % 3, clusters=pop.clusters
    )
    for other in (other_bounds, relabelled):
        frame = Frame.of(other)
        assert frame is not Frame.of(pop)
        assert frame.upper == other.upper
        assert frame.strata_sizes is not None
        np.testing.assert_array_equal(
            frame.strata_sizes, np.unique(np.asarray(other.strata), return_counts=True)[1]
        )


def test_frame_codes_number_the_labels_in_sorted_order():
    pop = Population(
        "t",
        np.arange(6.0),
        0.0,
        10.0,
        strata=np.array(["b", "a", "c", "a", "b", "a"], dtype=object),
        clusters=np.array([5, 3, 3, 9, 5, 3]),
    )
    frame = Frame._build(pop)
    np.testing.assert_array_equal(frame.strata_codes, [1, 0, 2, 0, 1, 0])
    np.testing.assert_array_equal(frame.strata_sizes, [3, 2, 1])
    np.testing.assert_array_equal(frame.cluster_codes, [1, 0, 0, 2, 1, 0])


def test_only_a_read_only_array_inside_the_bounds_counts_as_checked():
    values = np.sort(np.random.default_rng(0).uniform(1.0, 9.0, 500))
    assert not mark_checked(values)  # writeable: never trusted
    values.setflags(write=False)
    assert mark_checked(values)
    assert is_checked(values, 0.0, 10.0) and is_checked(values[np.newaxis, :], 0.0, 10.0)
    assert not is_checked(values, 2.0, 10.0)  # values below the lower bound
    assert not is_checked(values, 0.0, 5.0)  # values above the upper bound
    assert not is_checked(values[1:], 0.0, 10.0) and not is_checked(values[:-1], 0.0, 10.0)
    assert not is_checked(values.copy(), 0.0, 10.0)
    unsorted = values[::-1].copy()
    unsorted.setflags(write=False)
    with pytest.raises(ValueError):
        mark_checked(unsorted)
    calls = []
    assert checked_extra(values, "k", lambda: calls.append(1) or 7) == 7
    assert checked_extra(values, "k", lambda: calls.append(1) or 8) == 7
    assert len(calls) == 1


def test_a_census_on_checked_values_still_refuses_values_outside_the_bounds():
    pop = _tied()
    frame = Frame.of(pop)
    assert is_checked(frame.values, pop.lower, pop.upper)
    m = planner.simulate.make_mechanism("smooth_laplace", frame, 1.0, 0.5)
    with pytest.raises(ValueError):
        m.exact_error(frame.values, 1.0, 1e-6, 10.0, 200.0, 0.95)
