"""The Poisson cluster design (core.designs.poisson_cluster): its bound checked exactly,
its inverse, its closed-form mean and its samplers.

The privacy claim is checked by enumeration: every set of kept clusters of a tiny population
with its probability, a noisy count (two-sided geometric noise, ε-DP for an added or removed
record) run on it, the exact output law for the population and for its neighbour with one
record added to the largest cluster, and the supremum of the privacy loss over outputs.
"""

from __future__ import annotations

import itertools
import math

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core import mechanisms as mech
from core import planner as pl
from core.designs.frame import Frame
from core.designs.poisson_cluster import (
    PoissonCluster,
    poisson_cluster_eps,
    poisson_cluster_eps_sample,
)
from core.designs.registry import DESIGNS
from core.population import Population


def _log_count_law(sizes: list[int], rate: float, eps: float, ys: np.ndarray) -> np.ndarray:
    """log P(y) of a geometric-noise count of a Poisson cluster sample, by enumeration."""
    alpha = math.exp(-eps)
    log_norm = math.log((1 - alpha) / (1 + alpha))
    terms = []
    for kept in itertools.product((0, 1), repeat=len(sizes)):
        weight = sum(
            math.log(rate) if k else math.log1p(-rate) for k in kept
        )  # independent clusters
        count = sum(s for s, k in zip(sizes, kept, strict=True) if k)
        terms.append(weight + log_norm - eps * np.abs(ys - count))
    return np.logaddexp.reduce(np.vstack(terms), axis=0)


@pytest.mark.parametrize("sizes", [[1, 2, 2], [3, 1], [2, 2, 1, 1]])
@pytest.mark.parametrize("rate", [0.1, 0.5, 0.9])
@pytest.mark.parametrize("eps", [0.1, 1.0, 2.5])
def test_bound_holds_and_is_attained_by_a_noisy_count(sizes, rate, eps):
    largest = max(sizes)
    bound = poisson_cluster_eps(eps, rate, largest)
    ys = np.arange(-80, sum(sizes) + 81, dtype=float)
    base = _log_count_law(sizes, rate, eps, ys)
    worst = 0.0
    for i in range(len(sizes)):  # one record added to each cluster in turn
        grown = list(sizes)
        grown[i] += 1
        loss = np.abs(_log_count_law(grown, rate, eps, ys) - base)
        worst = max(worst, float(loss.max()))
        assert loss.max() <= bound + 1e-9
    # Far to the right the loss of a record added to the largest cluster tends to the bound.
    assert worst == pytest.approx(bound, rel=1e-6)


def test_bound_is_below_the_simple_random_cluster_bound_and_above_poisson():
    """Independent draws push no other cluster out: s = M, not the two largest together."""
    from core.clusters import cluster_eps

    for eps in (0.005, 0.05, 0.2):  # (the bounds meet ε once M ε is large)
        ours = poisson_cluster_eps(eps, 0.5, 6)
        srs_of_clusters = float(cluster_eps(eps, 4, 2, 6 + 4))  # sizes 2, 3, 4, 6
        assert ours < srs_of_clusters
        assert ours > math.log1p(0.5 * math.expm1(eps))
        assert ours < eps


def _reference(eps: float, rate: float, largest: int) -> float:
    mpmath.mp.dps = 60
    e, r = mpmath.mpf(eps), mpmath.mpf(rate)
    top = 1 - r + r * mpmath.e ** ((largest + 1) * e)
    bottom = 1 - r + r * mpmath.e ** (largest * e)
    return float(mpmath.log(top / bottom))


@settings(max_examples=60, deadline=None)
@given(
    eps=st.floats(1e-12, 1000.0),
    rate=st.floats(1e-6, 0.999),
    largest=st.integers(1, 5_000),
)
def test_bound_matches_a_60_digit_reference_and_inverts(eps, rate, largest):
    got = poisson_cluster_eps(eps, rate, largest)
    assert math.isfinite(got)
    assert got == pytest.approx(_reference(eps, rate, largest), rel=1e-9, abs=1e-300)
    back = poisson_cluster_eps_sample(got, rate, largest)
    assert poisson_cluster_eps(back, rate, largest) == pytest.approx(got, rel=1e-9)


@settings(max_examples=40, deadline=None)
@given(
    eps=st.floats(1e-6, 20.0),
    r1=st.floats(0.01, 0.98),
    r2=st.floats(0.01, 0.98),
    largest=st.integers(1, 200),
)
def test_bound_grows_with_the_rate_and_eps(eps, r1, r2, largest):
    lo, hi = sorted((r1, r2))
    # (to rounding: once M ε is large the bound is ε itself to the last bits)
    low = poisson_cluster_eps(eps, lo, largest)
    assert low <= poisson_cluster_eps(eps, hi, largest) * (1 + 1e-12)
    assert low <= poisson_cluster_eps(1.1 * eps, lo, largest) * (1 + 1e-12)


def test_limits():
    assert poisson_cluster_eps(0.7, 1.0, 50) == 0.7  # every cluster kept: no amplification
    # Tiny eps: the bound is r ε to first order.
    assert poisson_cluster_eps(1e-12, 0.2, 3) == pytest.approx(0.2e-12, rel=1e-9)
    assert poisson_cluster_eps(1000.0, 0.2, 3) == pytest.approx(1000.0, rel=1e-12)


def _clustered(N: int = 2_400, k: int = 40, seed: int = 5) -> Population:
    rng = np.random.default_rng(seed)
    clusters = rng.integers(0, k, N)
    values = np.round(rng.lognormal(4 + 0.02 * clusters, 0.4), 1)
    order = np.argsort(values, kind="stable")
    return Population("clustered", values[order], 0.0, 500.0, clusters=clusters[order])


def test_closed_form_mean_matches_masks():
    """Bias and variance of the Horvitz–Thompson mean against 20,000 mask draws."""
    pop = _clustered()
    frame = Frame.of(pop)
    design = PoissonCluster()
    point = design.point(frame, 0.3)
    assert point is not None
    bias, variance, size = design.mean_moments(frame, point)
    rng = np.random.default_rng(1)
    centre = 250.0
    stats = []
    for _ in range(10):
        masks = design.mask(frame, design.draw_keys(frame, 2_000, rng), point)
        stats.append(centre + (masks * (frame.values - centre)).sum(axis=1) / (0.3 * frame.N))
    est = np.concatenate(stats) - frame.values.mean()
    se_var = variance * math.sqrt(2 / est.size)
    assert bias == 0.0 and size == pytest.approx(0.3 * frame.N)
    assert abs(est.mean()) < 4 * math.sqrt(variance / est.size)
    assert abs(est.var() - variance) < 4 * se_var


def test_plan_rows_on_windows_agree_with_masks_and_name_the_bound():
    pop = _clustered()
    common = dict(
        eps_target=1.0, reps=1_000, refine=False, designs=["poisson_cluster"],
        rates=[0.2, 0.6], mechanisms=["global_laplace", "exponential"],
    )  # fmt: skip
    a = pl.plan(pop, sampler="full", seed=1, **common).table
    b = pl.plan(pop, sampler="window", seed=2, **common).table
    m = a.merge(b, on=["design", "mechanism", "rate"], suffixes=("_a", "_b"))
    m = m[m["design"] == "poisson_cluster"]
    assert len(m) == 4
    for col in ("rmse", "error_95"):
        # A bound that clamping puts exactly at a public bound (U − θ, standard error 0 on
        # both sides) counts as equal to 1e-9.
        spread = np.hypot(m[f"{col}_se_a"], m[f"{col}_se_b"])
        spread = np.maximum(spread, 1e-9 * m[f"{col}_a"].abs())
        z = (m[f"{col}_a"] - m[f"{col}_b"]) / spread
        assert np.abs(z).max() < 4.0, (col, z.round(2).tolist())
    # Under "replacement" the larger budget of group privacy (twice the add/remove bound;
    # the exponential median's add/remove budget is ε_sample / 2, so it may spend twice as
    # much) and the coupling bound (ε_target / max(α, γ)) is used, and named.
    mine = a[a["design"] == "poisson_cluster"]
    rows = mine.set_index(["mechanism", "rate"])
    largest = int(np.bincount(np.asarray(pop.clusters)).max())
    for rate in sorted(set(mine["rate"])):
        want = poisson_cluster_eps_sample(0.5, rate, largest)
        for name, group in (("global_laplace", want), ("exponential", 2 * want)):
            coupling = 1.0 / row_factor(name)
            row = rows.loc[(name, rate)]
            assert row["eps_sample"] == pytest.approx(max(group, coupling), rel=1e-12)
            if abs(group - coupling) > 1e-9 * coupling:  # a tie may name either bound
                named = "group privacy" if group > coupling else "coupling"
                assert named in row["accounting"]


def row_factor(name: str) -> float:
    """``max(α, min(γ, 2α))`` of the planner's mechanism ``name`` at the median."""
    f = mech.MECHANISMS[name].budget_factors(0.5)
    return max(f.add_remove, min(f.change, 2 * f.add_remove))


def test_design_is_registered_and_needs_clusters():
    assert "poisson_cluster" in DESIGNS and "poisson_cluster" in pl.DESIGN_LABELS
    plain = Population("plain", np.linspace(0, 1, 50), 0.0, 1.0)
    status = {s.name: s for s in pl.design_statuses(plain)}["poisson_cluster"]
    assert not status.available and "cluster" in status.reason
    sizes = [3, 8, 2]
    e = pl.eps_sample_for("poisson_cluster", 0.5, relation="deletion", rate=0.2, sizes=sizes)
    assert e == pytest.approx(poisson_cluster_eps_sample(0.5, 0.2, 8), rel=1e-12)
    with pytest.raises(ValueError, match="sizes"):
        pl.eps_sample_for("poisson_cluster", 0.5, rate=0.2)


def test_the_worst_record_is_in_the_largest_cluster():
    """The plan's budget comes from the largest cluster (here 5 records, the next has 3),
    divided by the exponential median's add/remove budget, 1/2."""
    clusters = np.array([0] * 5 + [1] * 3 + [2] * 2 + [3] * 2)
    pop = Population("tiny", np.arange(12.0), 0.0, 20.0, clusters=clusters)
    point = PoissonCluster().point(Frame.of(pop), 0.4)
    assert point is not None and point.theorem["M"] == 5
    result = pl.plan(
        pop, eps_target=1.0, relation="deletion", designs=["poisson_cluster"], rates=[0.4],
        mechanisms=["exponential"], reps=4, refine=False,
    )  # fmt: skip
    row = result.table[result.table["design"] == "poisson_cluster"].iloc[0]
    want = poisson_cluster_eps_sample(1.0, 0.4, 5) / 0.5
    assert row["eps_sample"] == pytest.approx(want, rel=1e-12)
