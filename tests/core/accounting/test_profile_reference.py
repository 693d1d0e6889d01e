"""The exact loss reference (tests/core/accounting/profile_reference.py), checked against
independent numbers: published tight bounds (Bun et al. 2022 eq. 3 and Theorems 5.1/5.2,
Hu, Drechsler & Kim 2022 Theorem 1), the two-budget Poisson bound of
core.accounting.change_one, the Poisson cluster bound of core.designs.poisson_cluster, a
brute-force shortest path in the sample graph, the McShane extension of the returned
mechanism checked on every edge of that graph, and random mechanisms that never beat it.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.accounting.change_one import poisson_eps_target
from core.clusters import cluster_eps, cluster_eps_bounds
from core.designs.poisson_cluster import poisson_cluster_eps
from tests.core.accounting import profile_reference as ref

INF = math.inf


def _hu(rate: float, eps: float) -> float:
    return math.log1p(rate * math.expm1(eps))


# -- published tight bounds ------------------------------------------------------------------


@pytest.mark.parametrize("n_records", [3, 5])
@pytest.mark.parametrize("rate", [0.05, 0.5, 0.9])
@pytest.mark.parametrize(("a", "c_over_a"), [(0.1, 1.0), (1.0, 2.0), (3.0, INF), (1.0, 1.5)])
def test_poisson_deletion_is_bun_et_al_eq3(n_records, rate, a, c_over_a):
    """Bun et al. (2022) eq. 3, tight: ``ln(1 + r(e^a − 1))`` whenever ``c ≥ a``."""
    pop, frame = ref.population_from_sizes([n_records])
    loss, _ = ref.design_worst_loss(
        "poisson", pop, frame, "deletion", True, a, a * c_over_a, rate=rate
    )
    assert loss == pytest.approx(_hu(rate, a), abs=1e-9)


@pytest.mark.parametrize(("n_records", "n"), [(2, 1), (3, 1), (4, 2), (5, 3)])
@pytest.mark.parametrize(("a", "c"), [(1.0, 0.5), (1.0, 1.0), (1.0, 2.0), (0.5, 3.0), (0.7, INF)])
def test_srs_replacement_is_hu_drechsler_kim_theorem1(n_records, n, a, c):
    """Hu, Drechsler & Kim (2022) Theorem 1 at ``c_eff``, tight on tiny populations too."""
    pop, frame = ref.population_from_sizes([n_records])
    for public in (True, False):
        loss, worst = ref.design_worst_loss("srs", pop, frame, "replacement", public, a, c, n=n)
        assert loss == pytest.approx(_hu(n / n_records, min(c, 2 * a)), abs=1e-9)
        assert worst.neighbour.change.startswith("replace")


@pytest.mark.parametrize(("a", "c"), [(1.0, 0.3), (1.0, 1.0), (0.4, 0.6), (0.5, INF)])
@pytest.mark.parametrize("sizes", [[1], [2, 1], [0, 3]])
def test_census_loses_a_for_deletion_and_c_eff_for_replacement(a, c, sizes):
    pop, frame = ref.population_from_sizes(sizes)
    loss, _ = ref.design_worst_loss("census", pop, frame, "deletion", False, a, c)
    assert loss == pytest.approx(a, abs=1e-9)
    for public in (True, False):
        loss, _ = ref.design_worst_loss("census", pop, frame, "replacement", public, a, c)
        assert loss == pytest.approx(min(c, 2 * a), abs=1e-9)


@pytest.mark.parametrize(("n_records", "rate"), [(3, 0.3), (4, 0.6), (2, 0.95)])
@pytest.mark.parametrize(("a", "c"), [(1.0, 0.5), (1.0, 1.0), (1.0, 1.7), (1.0, 3.0), (0.5, INF)])
def test_poisson_replacement_is_the_two_budget_bound(n_records, rate, a, c):
    """core.accounting.change_one.poisson_eps_target, for either label choice."""
    pop, frame = ref.population_from_sizes([n_records - 1, 1])
    for public in (True, False):
        loss, _ = ref.design_worst_loss(
            "poisson", pop, frame, "replacement", public, a, c, rate=rate
        )
        assert loss == pytest.approx(float(poisson_eps_target(a, c, rate)), abs=1e-9)


@pytest.mark.parametrize("sizes", [[1, 2, 2], [2, 3], [1, 1, 3], [0, 2]])
@pytest.mark.parametrize(("a", "c"), [(1.0, 0.0), (1.0, 1.0), (0.3, INF)])
def test_poisson_cluster_deletion_is_the_largest_cluster_bound(sizes, a, c):
    """core.designs.poisson_cluster's bound, attained by a noisy count (``c = 0``)."""
    pop, frame = ref.population_from_sizes(sizes)
    loss, worst = ref.design_worst_loss(
        "poisson_cluster", pop, frame, "deletion", True, a, c, rate=0.5
    )
    assert loss == pytest.approx(poisson_cluster_eps(a, 0.5, max(sizes)), abs=1e-9)
    assert worst.neighbour.change.startswith("add")


@pytest.mark.parametrize(("sizes", "ell"), [([2, 2, 2], 1), ([2, 2], 1), ([1, 1, 1, 1], 2)])
@pytest.mark.parametrize("a", [0.2, 1.0])
def test_cluster_deletion_with_equal_sizes_is_bun_et_al_theorems_5_1_and_5_2(sizes, ell, a):
    """Equal sizes: the lower (5.1) and upper (5.2) bounds meet, for deletion-DP (c ≥ 2a)."""
    pop, frame = ref.population_from_sizes(sizes)
    for c in (2 * a, INF):
        loss, _ = ref.design_worst_loss(
            "cluster", pop, frame, "deletion", True, a, c, clusters_sampled=ell
        )
        assert loss == pytest.approx(float(cluster_eps(a, len(sizes), ell, 2 * sizes[0])), abs=1e-9)


@pytest.mark.parametrize(("sizes", "ell"), [([1, 2, 2], 1), ([2, 3], 1), ([1, 3, 1], 2)])
def test_cluster_deletion_lies_between_theorems_5_1_and_5_2(sizes, ell):
    a = 0.8
    pop, frame = ref.population_from_sizes(sizes)
    loss, _ = ref.design_worst_loss(
        "cluster", pop, frame, "deletion", True, a, INF, clusters_sampled=ell
    )
    k = len(sizes)
    lowers, uppers = [], []
    for i, n_i in enumerate(sizes):
        others = sizes[:i] + sizes[i + 1 :]
        lo, up = cluster_eps_bounds(a, k, ell, n_i, min(others), max(others))
        lowers.append(float(lo))
        uppers.append(float(up))
    assert max(lowers) - 1e-9 <= loss <= max(uppers) + 1e-9


def test_cluster_sample_of_singletons_is_srs():
    pop, frame = ref.population_from_sizes([1, 1, 1, 1])
    srs = ref.sample_law("srs", pop, frame, n=2)
    clusters = ref.sample_law("cluster", pop, frame, clusters_sampled=2)
    assert srs.keys() == clusters.keys()
    assert all(clusters[s] == pytest.approx(p, abs=1e-15) for s, p in srs.items())
    for a, c in ((1.0, 1.0), (0.5, 2.0)):
        loss_srs, _ = ref.design_worst_loss("srs", pop, frame, "replacement", True, a, c, n=2)
        loss_cl, _ = ref.design_worst_loss(
            "cluster", pop, frame, "replacement", True, a, c, clusters_sampled=2
        )
        assert loss_cl == pytest.approx(loss_srs, abs=1e-9)
        assert loss_cl == pytest.approx(_hu(0.5, min(c, 2 * a)), abs=1e-9)


def test_one_stratum_with_a_whole_allocation_is_srs():
    pop, frame = ref.population_from_sizes([4])
    for a, c in ((1.0, 1.0), (0.5, 2.0)):
        loss_st, _ = ref.design_worst_loss(
            "stratified", pop, frame, "replacement", True, a, c, rate=0.5
        )
        assert loss_st == pytest.approx(_hu(0.5, min(c, 2 * a)), abs=1e-9)


# -- the metric, and the mechanism returned ---------------------------------------------------


def _all_subsets(records: Sequence[object]) -> list[frozenset]:
    return [
        frozenset(x for x, b in zip(records, bits, strict=True) if b)
        for bits in itertools.product((False, True), repeat=len(records))
    ]


@pytest.mark.parametrize(("a", "c"), [(1.0, 0.5), (1.0, 1.5), (1.0, 2.0), (1.0, 3.0), (0.5, INF)])
def test_sample_distance_is_the_shortest_path_of_the_sample_graph(a, c):
    """Floyd–Warshall over every set of 4 records, edges: add/remove (a), substitute (c)."""
    sets = _all_subsets(range(4))
    index = {s: i for i, s in enumerate(sets)}
    dist = np.full((len(sets), len(sets)), INF)
    np.fill_diagonal(dist, 0.0)
    for s in sets:
        for x in range(4):
            if x not in s:
                for t, w in ((s | {x}, a), *(((s - {y}) | {x}, c) for y in s)):
                    i, j = index[s], index[t]
                    dist[i, j] = dist[j, i] = min(dist[i, j], w)
    for k in range(len(sets)):
        dist = np.minimum(dist, dist[:, [k]] + dist[[k], :])
    assert np.allclose(ref._distances(sets, a, c), dist, atol=1e-12)
    for s, t in itertools.product(sets, repeat=2):
        assert ref.sample_distance(s, t, a, c) == pytest.approx(dist[index[s], index[t]])


def _check_mechanism(design, sizes, relation, public, a, c, **params):
    """The returned f, extended to every sample (McShane), is an (a, c) mechanism attaining
    the loss: checked on every edge of the sample graph over the records of D ∪ D'."""
    pop, frame = ref.population_from_sizes(sizes)
    loss, worst = ref.design_worst_loss(design, pop, frame, relation, public, a, c, **params)
    num, den = (worst.P, worst.Q) if worst.direction == "P/Q" else (worst.Q, worst.P)
    f = worst.f
    assert math.fsum(den.get(s, 0.0) * v for s, v in f.items()) == pytest.approx(1.0, abs=1e-12)
    ratio = math.fsum(num.get(s, 0.0) * v for s, v in f.items())
    assert math.log(ratio) == pytest.approx(loss, abs=1e-12)
    support = list(f)
    log_f = np.log([f[s] for s in support])
    records = sorted(set(pop) | set(worst.neighbour.population), key=repr)

    def extended(x: frozenset) -> float:
        return float(np.min(log_f + [ref.sample_distance(x, t, a, c) for t in support]))

    g = {x: extended(x) for x in _all_subsets(records)}
    for s in support:
        assert g[s] == pytest.approx(math.log(f[s]), abs=1e-12)
    # The two-output mechanism: 1 with probability κ e^g, else 0.
    top = max(math.exp(v) for v in g.values())
    c_eff = min(c, 2 * a)
    kappa = -math.expm1(-0.5 * min(a, c_eff)) / top if c_eff > 0 else 0.5 / top
    for x in g:
        for y in records:
            if y in x:
                continue
            edges = [(x | {y}, a)] + [((x - {z}) | {y}, c) for z in x]
            for t, budget in edges:
                assert abs(g[x] - g[t]) <= budget + 1e-12
                p_x, p_t = kappa * math.exp(g[x]), kappa * math.exp(g[t])
                assert abs(math.log1p(-p_x) - math.log1p(-p_t)) <= budget + 1e-12
    return loss


@pytest.mark.parametrize(
    ("design", "sizes", "relation", "public", "a", "c", "params"),
    [
        ("stratified", [2, 2], "replacement", False, 1.0, 1.0, {"rate": 0.5}),
        ("stratified", [3, 1], "deletion", False, 0.5, 1.0, {"rate": 0.7}),
        ("cluster", [1, 2, 1], "deletion", False, 1.0, 2.0, {"clusters_sampled": 1}),
        ("poisson_cluster", [2, 1], "replacement", False, 1.0, 0.5, {"rate": 0.5}),
        ("poisson", [3], "replacement", True, 0.4, 0.0, {"rate": 0.3}),
    ],
)
def test_returned_f_is_a_worst_case_mechanism(design, sizes, relation, public, a, c, params):
    _check_mechanism(design, sizes, relation, public, a, c, **params)


def test_directions_swap_with_the_laws():
    pop, frame = ref.population_from_sizes([2, 1])
    nb = ref.neighbours(pop, frame, "deletion", True)[-1]
    p = ref.sample_law("stratified", pop, frame, rate=0.6)
    q = ref.sample_law("stratified", nb.population, frame, rate=0.6)
    loss_pq, _, dir_pq = ref.worst_loss(p, q, 1.0, 1.5)
    loss_qp, _, dir_qp = ref.worst_loss(q, p, 1.0, 1.5)
    assert loss_pq == pytest.approx(loss_qp, abs=1e-12)
    assert {dir_pq, dir_qp} == {"P/Q", "Q/P"}


def test_a_budget_below_the_solvers_resolution_is_refused_or_right():
    """At c = 1e-9 the loss (7.3e-10 here) is at the solver's tolerance: the reference may
    fall short, but then the dual bound catches it and it raises; it never returns a wrong
    number."""
    pop, frame = ref.population_from_sizes([2])
    try:
        loss, _ = ref.design_worst_loss(
            "poisson", pop, frame, "replacement", False, 1.0, 1e-9, rate=0.5
        )
    except RuntimeError as err:
        assert "not solved" in str(err)
    else:
        assert loss == pytest.approx(float(poisson_eps_target(1.0, 1e-9, 0.5)), abs=1e-10)


def test_a_solver_answer_that_is_not_optimal_is_refused(monkeypatch):
    """The certificate, not the solver's status, decides: a feasible but poor answer (every
    f equal, no multipliers) is caught by the dual bound."""
    pop, frame = ref.population_from_sizes([3])
    p = ref.sample_law("poisson", pop, frame, rate=0.5)
    q = ref.sample_law("poisson", {**pop, ref.NEW_RECORD: "h0"}, frame, rate=0.5)
    monkeypatch.setattr(
        ref, "_solve", lambda num, den, dist: (np.ones(num.size), np.zeros((num.size,) * 2))
    )
    with pytest.raises(RuntimeError, match="not solved"):
        ref.worst_loss(p, q, 1.0, 1.0)


# -- laws and neighbours ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("design", "params", "inclusion"),
    [
        ("srs", {"n": 2}, lambda sizes, lab: 2 / sum(sizes)),
        ("poisson", {"rate": 0.3}, lambda sizes, lab: 0.3),
        ("stratified", {"rate": 0.7}, lambda sizes, lab: 0.7),
        ("cluster", {"clusters_sampled": 2}, lambda sizes, lab: 2 / len(sizes)),
        ("poisson_cluster", {"rate": 0.4}, lambda sizes, lab: 0.4),
        ("census", {}, lambda sizes, lab: 1.0),
    ],
)
def test_laws_have_the_designs_inclusion_probabilities(design, params, inclusion):
    sizes = [3, 0, 2, 1]
    pop, frame = ref.population_from_sizes(sizes)
    law = ref.sample_law(design, pop, frame, **params)
    assert math.fsum(law.values()) == pytest.approx(1.0, abs=1e-14)
    for x, lab in pop.items():
        marginal = math.fsum(p for s, p in law.items() if x in s)
        assert marginal == pytest.approx(inclusion(sizes, lab), abs=1e-12)


def test_stratified_law_rounds_each_stratum_and_keeps_strata_independent():
    pop, frame = ref.population_from_sizes([3, 2])
    law = ref.sample_law("stratified", pop, frame, rate=0.5)
    sizes = {}
    for s, p in law.items():
        key = tuple(sum(1 for x in s if pop[x] == lab) for lab in frame)
        sizes[key] = sizes.get(key, 0.0) + p
    assert sizes == pytest.approx({(1, 1): 0.5, (2, 1): 0.5})
    assert all(p == pytest.approx(0.5 / 3 / 2) for s, p in law.items() if len(s) == 2)


def test_empty_clusters_merge_their_draws():
    pop, frame = ref.population_from_sizes([2, 0, 0])
    law = ref.sample_law("cluster", pop, frame, clusters_sampled=1)
    assert law == pytest.approx({frozenset({0, 1}): 1 / 3, frozenset(): 2 / 3})


def test_neighbours_of_each_relation():
    pop, frame = ref.population_from_sizes([2, 0, 1])
    deletion = ref.neighbours(pop, frame, "deletion", True)
    assert len(deletion) == 3 + 3
    assert sorted(len(nb.population) for nb in deletion) == [2, 2, 2, 4, 4, 4]
    public = ref.neighbours(pop, frame, "replacement", True)
    assert [nb.population[ref.NEW_RECORD] for nb in public] == ["h0", "h0", "h2"]
    private = ref.neighbours(pop, frame, "replacement", False)
    assert len(private) == 3 * 3
    assert all(len(nb.population) == 3 and ref.NEW_RECORD in nb.population for nb in private)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: ref.sample_law("neyman", {0: "h0"}, ["h0"]), "unknown design"),
        (lambda: ref.sample_law("srs", {0: "h0"}, ["h0"], rate=0.5), "takes"),
        (lambda: ref.sample_law("srs", {0: "h0"}, ["h0"], n=2), "n must"),
        (lambda: ref.sample_law("poisson", {0: "h9"}, ["h0"], rate=0.5), "not in the frame"),
        (lambda: ref.sample_law("census", {0: "h0"}, ["h0", "h0"]), "twice"),
        (lambda: ref.neighbours({0: "h0"}, ["h0"], "swap", True), "relation"),
        (lambda: ref.worst_loss({frozenset(): 1.0}, {frozenset(): 1.0}, 0.0, 1.0), "a must"),
        (lambda: ref.worst_loss({frozenset(): 0.5}, {frozenset(): 1.0}, 1.0, 1.0), "law"),
    ],
)
def test_bad_input_is_refused(call, message):
    with pytest.raises(ValueError, match=message):
        call()


# -- properties ------------------------------------------------------------------------------

#: Designs whose samples of D and D' can be coupled to differ by at most one record for the
#: relation and label choice given (None: every one).  Cluster draws couple by the fixed
#: frame; SRS of fixed n by substituting the removed record; proportional allocation only
#: when no stratum size changes (public labels, replacement).
_COUPLED = {
    "census": None,
    "srs": None,
    "poisson": None,
    "cluster": None,
    "poisson_cluster": None,
    "stratified": ("replacement", True),
}


_STEP = st.one_of(st.just(0.0), st.floats(0.01, 1.0))


@st.composite
def _cases(draw):
    design = draw(st.sampled_from(sorted(ref.DESIGNS)))
    sizes = draw(
        st.lists(st.integers(0, 2), min_size=1, max_size=3).filter(lambda s: 1 <= sum(s) <= 4)
    )
    rate = draw(st.sampled_from([0.2, 0.5, 0.7]))
    params = {
        "census": {},
        "srs": {"n": draw(st.integers(0, sum(sizes) - 1))},
        "poisson": {"rate": rate},
        "stratified": {"rate": rate},
        "cluster": {"clusters_sampled": draw(st.integers(1, len(sizes)))},
        "poisson_cluster": {"rate": rate},
    }[design]
    relation = draw(st.sampled_from(ref.RELATIONS))
    public = draw(st.booleans())
    a = draw(st.floats(0.05, 2.0))
    # (A budget near the solver's tolerance, 1e-9, is beyond its resolution; the reference
    # then refuses to answer, see test_a_budget_below_the_solvers_resolution_is_refused.)
    c = draw(st.one_of(st.just(0.0), st.floats(0.01, 4.0), st.just(INF)))
    return design, sizes, params, relation, public, a, c


@settings(max_examples=25)
@given(_cases(), _STEP, _STEP)
def test_loss_grows_with_both_budgets_and_coupled_designs_stay_below_them(case, da, dc):
    design, sizes, params, relation, public, a, c = case
    pop, frame = ref.population_from_sizes(sizes)
    loss, _ = ref.design_worst_loss(design, pop, frame, relation, public, a, c, **params)
    more, _ = ref.design_worst_loss(design, pop, frame, relation, public, a + da, c + dc, **params)
    assert -1e-12 <= loss <= more + 1e-9
    coupled = _COUPLED[design]
    if coupled is None or coupled == (relation, public):
        assert loss <= max(a, min(c, 2 * a)) + 1e-9


@settings(max_examples=25)
@given(_cases(), st.lists(st.floats(-4.0, 4.0), min_size=64, max_size=64))
def test_no_random_mechanism_beats_the_reference(case, values):
    """A random log f on the union of the supports, made feasible by McShane's envelope."""
    design, sizes, params, relation, public, a, c = case
    pop, frame = ref.population_from_sizes(sizes)
    loss, worst = ref.design_worst_loss(design, pop, frame, relation, public, a, c, **params)
    samples = list(worst.f)
    dist = ref._distances(samples, a, c)
    g = np.array(values[: len(samples)] + [0.0] * max(0, len(samples) - len(values)))
    g = np.min(g[None, :] + dist, axis=1)
    f = np.exp(g)
    p = np.array([worst.P.get(s, 0.0) for s in samples])
    q = np.array([worst.Q.get(s, 0.0) for s in samples])
    assert abs(math.log(float(p @ f) / float(q @ f))) <= loss + 1e-9
