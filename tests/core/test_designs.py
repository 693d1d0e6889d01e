"""Tests for core.designs: sampling designs that draw samples and state their amplification.

Parameterised over the implemented designs.  Draws are checked by simulation (inclusion
frequencies within five standard errors, fixed seeds); the amplification statements are
checked for round trips, monotonicity, limits and agreement with the modules they reuse.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core import amplification as amp
from core import clusters as cl
from core import designs as dz
from core import strata as strata_mod
from core.populations import Population

N = 60
STRATUM_SIZES = (10, 20, 30)
CLUSTER_SIZES = (5, 5, 10, 10, 15, 15)


def _population() -> Population:
    values = np.linspace(0.0, 1.0, N)
    strata = np.repeat(np.arange(3), STRATUM_SIZES)
    # Clusters interleave with the strata so that the two label columns differ.
    clusters = np.repeat(np.array([4, 0, 5, 1, 3, 2]), CLUSTER_SIZES)
    return Population("test", values, 0.0, 1.0, strata=strata, clusters=clusters)


POP = _population()


def _designs() -> list[dz.Design]:
    return [
        dz.SimpleRandomSampling.from_rate(0.3, N),
        dz.PoissonSampling(0.3),
        dz.ProportionalStratified(0.35),
        dz.ClusterSampling.from_population(POP, 2),
    ]


DESIGNS = _designs()
IDS = [d.name for d in DESIGNS]


# ---------------------------------------------------------------------------------------
# Draws
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("design", DESIGNS, ids=IDS)
def test_draws_have_the_stated_inclusion_probabilities(design: dz.Design) -> None:
    reps = 4000
    rng = np.random.default_rng(7)
    counts = np.zeros(N)
    for _ in range(reps):
        idx = design.draw(POP, rng)
        assert idx.dtype == np.int64
        assert (np.diff(idx) > 0).all() and (idx >= 0).all() and (idx < N).all()
        counts[idx] += 1
    pi = design.inclusion_probabilities(POP)
    assert pi.shape == (N,)
    np.testing.assert_allclose(pi.mean(), design.rate, rtol=1e-12)
    se = np.sqrt(pi * (1 - pi) / reps)
    assert (np.abs(counts / reps - pi) <= 5 * se + 1e-12).all()


def test_srswor_draws_exactly_n() -> None:
    d = dz.SimpleRandomSampling(7, N)
    assert {d.draw(POP, np.random.default_rng(s)).size for s in range(20)} == {7}


def test_stratified_draw_rounds_each_stratum_to_floor_or_ceil() -> None:
    d = dz.ProportionalStratified(0.35)
    rng = np.random.default_rng(3)
    for _ in range(200):
        counts = np.bincount(POP.strata[d.draw(POP, rng)], minlength=3)
        exact = 0.35 * np.array(STRATUM_SIZES)
        assert ((counts == np.floor(exact)) | (counts == np.ceil(exact))).all()


def test_cluster_draw_keeps_whole_clusters() -> None:
    d = dz.ClusterSampling.from_population(POP, 2)
    rng = np.random.default_rng(5)
    for _ in range(100):
        idx = d.draw(POP, rng)
        drawn = np.unique(POP.clusters[idx])
        assert drawn.size == 2
        np.testing.assert_array_equal(idx, np.flatnonzero(np.isin(POP.clusters, drawn)))


def test_cluster_draw_with_text_labels() -> None:
    labels = np.array(["b", "a", "c"], dtype=object)[np.repeat([0, 1, 2], [4, 4, 2])]
    pop = Population("text", np.arange(10.0), 0.0, 9.0, clusters=labels)
    d = dz.ClusterSampling.from_population(pop, 1)
    assert d.combined_size == 8
    idx = d.draw(pop, np.random.default_rng(0))
    assert np.unique(pop.clusters[idx]).size == 1


# ---------------------------------------------------------------------------------------
# Amplification: both directions
# ---------------------------------------------------------------------------------------

_eps = st.floats(1e-6, 30.0, allow_nan=False)


def _many_designs() -> list[dz.Design]:
    return [
        dz.SimpleRandomSampling(3, 1000),
        dz.SimpleRandomSampling(999, 1000),
        dz.PoissonSampling(1e-4),
        dz.PoissonSampling(0.7),
        dz.ProportionalStratified(0.01),
        dz.ProportionalStratified(0.9),
        dz.ClusterSampling([1, 1, 1, 1], 1),
        dz.ClusterSampling([3, 50, 7, 20, 20], 2),
        dz.ClusterSampling(np.full(400, 30), 9),
    ]


@settings(max_examples=60, deadline=None)
@given(t=_eps)
def test_round_trip_forward_of_inverse_is_identity(t: float) -> None:
    for d in _many_designs():
        e = d.eps_sample(t)
        assert isinstance(e, float) and e > 0
        assert d.eps_target(e) == pytest.approx(t, rel=1e-9)


@settings(max_examples=60, deadline=None)
@given(e=_eps)
def test_round_trip_inverse_of_forward_is_identity(e: float) -> None:
    for d in _many_designs():
        assert d.eps_sample(d.eps_target(e)) == pytest.approx(e, rel=1e-9)


@settings(max_examples=60, deadline=None)
@given(e1=_eps, e2=_eps)
def test_amplification_is_increasing_in_the_budget(e1: float, e2: float) -> None:
    lo, hi = min(e1, e2), max(e1, e2)
    for d in _many_designs():
        assert d.eps_target(lo) <= d.eps_target(hi)
        assert d.eps_sample(lo) <= d.eps_sample(hi)


@settings(max_examples=60, deadline=None)
@given(e=_eps, r1=st.floats(0.01, 1.0), r2=st.floats(0.01, 1.0))
def test_amplification_weakens_as_the_rate_grows(e: float, r1: float, r2: float) -> None:
    lo, hi = min(r1, r2), max(r1, r2)
    for make in (dz.PoissonSampling, dz.ProportionalStratified):
        assert make(lo).eps_target(e) <= make(hi).eps_target(e) * (1 + 1e-12)
    k = 50
    ell_lo, ell_hi = max(1, round(lo * k)), max(1, round(hi * k))
    sizes = np.arange(1, k + 1)
    small = dz.ClusterSampling(sizes, ell_lo).eps_target(e)
    assert small <= dz.ClusterSampling(sizes, ell_hi).eps_target(e) * (1 + 1e-12)


@pytest.mark.parametrize("e", [1e-9, 0.3, 2.0, 40.0])
def test_keeping_every_record_does_not_amplify(e: float) -> None:
    for d in (
        dz.SimpleRandomSampling(N, N),
        dz.PoissonSampling(1.0),
        dz.ClusterSampling(CLUSTER_SIZES, len(CLUSTER_SIZES)),
    ):
        assert d.rate == 1.0
        assert d.eps_target(e) == pytest.approx(e, rel=1e-12)
        assert d.eps_sample(e) == pytest.approx(e, rel=1e-12)
    # Proportional stratified sampling states a theorem's bound, which is loose at r = 1.
    assert dz.ProportionalStratified(1.0).eps_target(e) > e


@pytest.mark.parametrize("e", [1e-6, 0.5, 3.0])
def test_amplification_vanishes_as_the_rate_falls(e: float) -> None:
    for d in (dz.PoissonSampling(1e-9), dz.ProportionalStratified(1e-9)):
        assert d.eps_target(e) < 1e-5 * e
    # Clusters of one record: s = 2, and the bound ln(1 + q(e^e - 1)/(q + (1 - q)e^(-2e)))
    # tends to 0 like q (e^e - 1) e^(2e) as q = l/k -> 0.
    q = 1e-6
    d = dz.ClusterSampling(np.ones(10**6, dtype=np.int64), 1)
    hand = math.log1p(q * math.expm1(e) / (q + (1 - q) * math.exp(-2 * e)))
    assert d.eps_target(e) == pytest.approx(hand, rel=1e-12)
    assert d.eps_target(e) <= q * math.expm1(e) * math.exp(2 * e)


def test_designs_restate_the_modules_they_reuse() -> None:
    e = np.array([0.1, 1.0, 5.0])
    srs = dz.SimpleRandomSampling(30, 200)
    np.testing.assert_array_equal(srs.eps_target(e), amp.eps_target(e, 0.15))
    np.testing.assert_array_equal(srs.eps_sample(e), amp.eps_sample(e, 0.15))
    prop = dz.ProportionalStratified(0.05)
    np.testing.assert_array_equal(prop.eps_target(e), strata_mod.proportional_eps_bound(e, 0.05))
    # Cluster sampling: the worst record of Theorem 5.2, i.e. the largest per-cluster bound.
    d = dz.ClusterSampling.from_population(POP, 2)
    assert (d.clusters_total, d.clusters_sampled, d.combined_size) == (6, 2, 30)
    for x in e:
        table = cl.per_cluster_bounds(float(x), list(CLUSTER_SIZES), 2)
        assert d.eps_target(float(x)) == pytest.approx(float(table["upper"].max()), rel=1e-14)
        # ... which is safe: between simple random sampling of clusters and no amplification.
        assert cl.srs_eps(float(x), 6, 2) <= d.eps_target(float(x)) <= x


def test_scalars_give_floats_and_arrays_broadcast() -> None:
    for d in DESIGNS:
        assert isinstance(d.eps_target(1.0), float)
        assert isinstance(d.eps_sample(1.0), float)
        out = d.eps_target([[0.5, 1.0, 2.0]])
        assert isinstance(out, np.ndarray) and out.shape == (1, 3)
        back = d.eps_sample(out)
        np.testing.assert_allclose(back, [[0.5, 1.0, 2.0]], rtol=1e-9)


def test_small_budgets_are_exact() -> None:
    # First order: ln(1 + r(e^x − 1)) ≈ r x, and 6 r x for the stratified bound.
    x = 1e-12
    assert dz.PoissonSampling(0.2).eps_target(x) == pytest.approx(0.2 * x, rel=1e-9)
    assert dz.ProportionalStratified(0.01).eps_target(x) == pytest.approx(0.06 * x, rel=1e-9)
    assert math.isfinite(dz.ClusterSampling([2, 3], 1).eps_sample(1000.0))


# ---------------------------------------------------------------------------------------
# Bad input: clear ValueErrors
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("build", "match"),
    [
        (lambda: dz.PoissonSampling(0.0), r"rate must be in the interval \(0, 1\]"),
        (lambda: dz.ProportionalStratified(1.5), r"rate must be in the interval \(0, 1\]"),
        (lambda: dz.PoissonSampling("a"), "rate must be a number"),
        (lambda: dz.SimpleRandomSampling(11, 10), "must not exceed population_size"),
        (lambda: dz.SimpleRandomSampling(2.5, 10), "whole number"),
        (lambda: dz.SimpleRandomSampling.from_rate(0.0, 10), "rate"),
        (lambda: dz.ClusterSampling([5], 1), "at least two clusters"),
        (lambda: dz.ClusterSampling([5, 0], 1), "at least one record"),
        (lambda: dz.ClusterSampling([5, 2.5], 1), "whole numbers"),
        (lambda: dz.ClusterSampling([5, 2], 3), "must not exceed the 2 clusters"),
        (lambda: dz.ClusterSampling([5, 2], 0), "clusters_sampled"),
    ],
)
def test_bad_parameters(build, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        build()


@pytest.mark.parametrize("design", DESIGNS, ids=IDS)
def test_bad_budgets_and_rng(design: dz.Design) -> None:
    for bad in (0.0, -1.0, math.nan, math.inf):
        with pytest.raises(ValueError):
            design.eps_target(bad)
        with pytest.raises(ValueError):
            design.eps_sample(bad)
    with pytest.raises(ValueError, match="Generator"):
        design.draw(POP, 3)  # type: ignore[arg-type]


def test_bad_populations() -> None:
    plain = Population("plain", np.linspace(0.0, 1.0, N), 0.0, 1.0)
    with pytest.raises(ValueError, match="needs strata labels"):
        dz.ProportionalStratified(0.3).draw(plain, np.random.default_rng())
    with pytest.raises(ValueError, match="needs clusters labels"):
        dz.ClusterSampling.from_population(plain, 1)
    with pytest.raises(ValueError, match="stratum 0 has 10 records"):
        dz.ProportionalStratified(0.05).draw(POP, np.random.default_rng())
    with pytest.raises(ValueError, match="sizes this design was built for"):
        dz.ClusterSampling([30, 30], 1).draw(POP, np.random.default_rng())
    with pytest.raises(ValueError, match="population of 50 records"):
        dz.SimpleRandomSampling(5, 50).draw(POP, np.random.default_rng())
