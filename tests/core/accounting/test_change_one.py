"""Tests of core.accounting.change_one: the changed-record bound from two budgets.

The exact checks enumerate every sample of a tiny population (N = 3..5) with its
probability, mix the mechanism's exact output law over the samples, and take the largest
privacy loss over the outputs for two populations that differ in one record (under Poisson
sampling the order of the other records does not matter, so they run over multisets).  The
bound must never be exceeded and, for the mechanisms built to be worst cases, must be
reached.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Callable, Sequence

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

from core import amplification as amp
from core import clusters as cl
from core import mechanisms as mech
from core import strata as st
from core.accounting import change_designs as cd
from core.accounting import change_one as co
from core.accounting.stratified_profile import stratified_eps_target

Law = Callable[[tuple[float, ...]], np.ndarray]
Samples = list[tuple[float, tuple[int, ...]]]


# ---------------------------------------------------------------------------------------
# Enumeration helpers
# ---------------------------------------------------------------------------------------


def poisson_samples(N: int, rate: float) -> Samples:
    """All 2^N subsets with their Poisson probabilities."""
    out = []
    for mask in itertools.product((0, 1), repeat=N):
        k = sum(mask)
        idx = tuple(i for i in range(N) if mask[i])
        out.append((rate**k * (1.0 - rate) ** (N - k), idx))
    return out


def mixture(values: Sequence[float], samples: Samples, law: Law) -> np.ndarray:
    return sum(p * law(tuple(sorted(values[i] for i in idx))) for p, idx in samples)


def loss(p: np.ndarray, q: np.ndarray) -> float:
    """Largest privacy loss, both directions, over outputs with positive probability."""
    both = (p > 0) | (q > 0)
    assert np.all((p > 0) == (q > 0)), "supports differ: infinite loss"
    return float(np.max(np.abs(np.log(p[both]) - np.log(q[both]))))


def measured_budgets(law: Law, domain: Sequence[float], max_size: int) -> tuple[float, float]:
    """The mechanism's exact add/remove and change budgets on samples up to ``max_size``."""
    ar = sub = 0.0
    for n in range(max_size):
        for rest in itertools.combinations_with_replacement(domain, n):
            base = law(tuple(sorted(rest)))
            for x in domain:
                ar = max(ar, loss(base, law(tuple(sorted((*rest, x))))))
                for y in domain:
                    sub = max(
                        sub,
                        loss(law(tuple(sorted((*rest, x)))), law(tuple(sorted((*rest, y))))),
                    )
    return ar, sub


def worst_case_law(a_value: float, big_a: float, s_eff: float, c: float) -> Law:
    """Two outputs; P(1) = c prod w(x) with w(a) = e^A and w(other) = e^{A - s}."""

    def law(values: tuple[float, ...]) -> np.ndarray:
        log_w = sum(big_a if v == a_value else big_a - s_eff for v in values)
        p1 = c * math.exp(log_w)
        return np.array([p1, 1.0 - p1])

    return law


def geometric_law(x: float, N: int) -> Law:
    """Two-sided geometric noise on a centred sum of values in {-1, 0, 1} (exact pmf).

    A discrete analogue of :class:`core.mechanisms.HorvitzThompsonMean`: adding a record
    moves the sum by at most 1 (budget x), changing one by up to 2 (budget 2x).  Outputs
    in [-N-1, N+1]; beyond, every ratio equals the one at the edge.
    """
    z = np.arange(-N - 1, N + 2, dtype=np.float64)
    p = math.exp(-x)

    @functools.cache
    def law(values: tuple[float, ...]) -> np.ndarray:
        return (1.0 - p) / (1.0 + p) * p ** np.abs(z - sum(values))

    return law


# ---------------------------------------------------------------------------------------
# Exact checks by enumeration: Poisson
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("N", [3, 4, 5])
@pytest.mark.parametrize("rate", [0.05, 0.3, 0.7])
@pytest.mark.parametrize(
    ("big_a", "big_s"),
    [(1.0, 1.0), (1.0, 2.0), (0.5, 0.7), (0.3, 0.1), (1.0, 3.0)],
)
def test_worst_case_mechanism_reaches_the_bound(
    N: int, rate: float, big_a: float, big_s: float
) -> None:
    s_eff = min(big_s, 2 * big_a)  # a mechanism cannot be worse than group privacy
    law = worst_case_law(1.0, big_a, s_eff, c=1e-4 * math.exp(-N * big_a))
    ar, sub = measured_budgets(law, (1.0, 0.0), N)
    assert ar == pytest.approx(big_a, rel=1e-9)
    assert sub == pytest.approx(s_eff, rel=1e-9)
    # The bound is stated with the budget asked for (eps_sub may exceed 2 eps_ar).
    bound = co.poisson_eps_target(ar, big_s if big_s > 2 * big_a else sub, rate)
    samples = poisson_samples(N, rate)
    worst = 0.0
    for rest in itertools.combinations_with_replacement((0.0, 1.0), N - 1):  # exchangeable
        pa = mixture((*rest, 1.0), samples, law)
        pb = mixture((*rest, 0.0), samples, law)
        value = loss(pa, pb)
        assert value <= bound + 1e-9
        assert float(np.log(pa[0] / pb[0])) == pytest.approx(bound, abs=1e-9)
        worst = max(worst, value)
    assert worst == pytest.approx(bound, abs=1e-9)


@pytest.mark.parametrize("N", [3, 4, 5])
@pytest.mark.parametrize("rate", [0.05, 0.4, 0.9])
@pytest.mark.parametrize("x", [0.2, 1.0, 2.5])
def test_centred_sum_matches_the_ht_mean_factors_exactly(N: int, rate: float, x: float) -> None:
    law = geometric_law(x, N)
    ar, sub = measured_budgets(law, (-1.0, 0.0, 1.0), N)
    cls = mech.HorvitzThompsonMean
    assert ar == pytest.approx(cls.add_remove_factor * x, rel=1e-12)
    assert sub == pytest.approx(cls.change_factor * x, rel=1e-12)
    bound = co.poisson_eps_target(cls.add_remove_factor * x, cls.change_factor * x, rate)
    closed = math.log((1 - rate + rate * math.exp(x)) / (1 - rate + rate * math.exp(-x)))
    assert bound == pytest.approx(closed, rel=1e-13)
    samples = poisson_samples(N, rate)
    worst = 0.0
    for rest in itertools.combinations_with_replacement((-1.0, 0.0, 1.0), N - 1):
        for a, b in itertools.combinations_with_replacement((-1.0, 0.0, 1.0), 2):
            value = loss(mixture((*rest, a), samples, law), mixture((*rest, b), samples, law))
            assert value <= bound + 1e-9
            if a == b:
                assert value == 0.0
            worst = max(worst, value)
    assert worst == pytest.approx(bound, abs=1e-9)  # a record moved from bound to bound
    group = 2 * math.log1p(rate * math.expm1(x))  # what the planner charged before
    assert bound < group


def exponential_law(eps: float, q: float, lower: float, upper: float, points: np.ndarray) -> Law:
    """The exponential quantile's density at the cell midpoints between ``points``."""
    mids = (points[:-1] + points[1:]) / 2

    @functools.cache
    def law(values: tuple[float, ...]) -> np.ndarray:
        if not values:  # empty sample: score 0 everywhere, uniform
            return np.full(mids.size, 1.0 / (upper - lower))
        edges, p = mech.exponential_quantile_distribution(values, eps, lower, upper, q)
        width = np.diff(edges)
        i = np.searchsorted(edges, mids, side="right") - 1
        return np.where(width[i] > 0, p[i] / np.where(width[i] > 0, width[i], 1.0), 0.0)

    return law


@pytest.mark.parametrize("rate", [0.1, 0.5, 0.9])
@pytest.mark.parametrize("eps", [0.5, 2.0])
@pytest.mark.parametrize("q", [0.5, 0.25])
def test_exponential_quantile_on_poisson_samples_stays_within_the_bound(
    rate: float, eps: float, q: float
) -> None:
    N, lower, upper = 4, 0.0, 10.0
    domain = (0.0, 3.0, 7.0, 10.0)  # both bounds, an inner value; ties in the rest
    law = exponential_law(eps, q, lower, upper, np.array(domain))
    f = mech.ExponentialQuantile.budget_factors(q)  # what the accounting reads
    assert f.add_remove is not None and f.change is not None
    bound = co.poisson_eps_target(f.add_remove * eps, f.change * eps, rate)
    tight = co.poisson_eps_target(max(q, 1 - q) * eps, eps, rate)  # the docstring's proof
    level_free = co.poisson_eps_target(eps, eps, rate)  # alpha = 1, the class's
    ar, sub = measured_budgets(law, domain, 3)
    assert ar <= max(q, 1 - q) * eps + 1e-12
    assert sub <= eps + 1e-12
    samples = poisson_samples(N, rate)
    worst = 0.0
    for rest in itertools.combinations_with_replacement((0.0, 3.0, 10.0), N - 1):
        for a, b in itertools.combinations(domain, 2):
            value = loss(mixture((*rest, a), samples, law), mixture((*rest, b), samples, law))
            worst = max(worst, value)
    assert worst <= tight + 1e-9
    assert bound == pytest.approx(tight, rel=1e-12)
    assert bound < level_free


# ---------------------------------------------------------------------------------------
# Exact checks by enumeration: stratified and cluster samples
# ---------------------------------------------------------------------------------------


def stratified_samples(sizes: Sequence[int], rate: float) -> Samples:
    """Randomised proportional allocation, then SRS within each stratum (slots in order)."""
    per_stratum = []
    start = 0
    for size in sizes:
        x = rate * size
        floor = math.floor(x)
        options = [(1.0 - (x - floor), floor), (x - floor, floor + 1)]
        draws = []
        for p_m, m in options:
            if p_m == 0:
                continue
            subsets = list(itertools.combinations(range(start, start + size), min(m, size)))
            draws += [(p_m / len(subsets), s) for s in subsets]
        per_stratum.append(draws)
        start += size
    out = []
    for combo in itertools.product(*per_stratum):
        out.append((math.prod(p for p, _ in combo), tuple(i for _, s in combo for i in s)))
    return out


def cluster_samples(sizes: Sequence[int], ell: int) -> Samples:
    starts = np.concatenate([[0], np.cumsum(sizes)])
    chosen = list(itertools.combinations(range(len(sizes)), ell))
    return [
        (1.0 / len(chosen), tuple(i for c in cs for i in range(starts[c], starts[c + 1])))
        for cs in chosen
    ]


@pytest.mark.parametrize("x", [0.3, 1.5])
def test_stratified_change_within_public_strata(x: float) -> None:
    sizes, rate = (2, 3), 0.5
    law = geometric_law(x, 5)
    acc = cd.change_accounting(
        "stratified_proportional",
        add_remove_factor=1.0,
        change_factor=2.0,
        eps_sample=x,
        rate=rate,
        stratum_sizes=sizes,
        labels_public=True,
    )
    assert acc.eps_target is not None
    # The smaller of the within-stratum simple random sample (largest share 2/3) and the
    # exact profile of these stratum sizes.
    exact = stratified_eps_target(x, 2 * x, rate, sizes, "replacement", labels_public=True)
    assert acc.eps_target == pytest.approx(
        min(float(amp.eps_target(2 * x, 2 / 3)), exact), rel=1e-12
    )
    samples = stratified_samples(sizes, rate)
    worst = 0.0
    for rest in itertools.product((-1.0, 1.0), repeat=4):
        for slot in (0, 4):  # one record of each stratum changes, from one bound to the other
            pa, pb = list(rest), list(rest)
            pa.insert(slot, 1.0)
            pb.insert(slot, -1.0)
            worst = max(worst, loss(mixture(pa, samples, law), mixture(pb, samples, law)))
    assert worst <= acc.eps_target + 1e-9


@pytest.mark.parametrize("x", [0.3, 1.5])
def test_stratified_move_to_another_stratum_is_within_group_privacy(x: float) -> None:
    rate = 0.5
    law = geometric_law(x, 7)
    acc = cd.change_accounting(
        "stratified_proportional",
        add_remove_factor=1.0,
        change_factor=2.0,
        eps_sample=x,
        rate=rate,
        stratum_sizes=(3, 4),
    )
    # The exact profile of the sizes (3, 4) beats group privacy over Bun et al.'s theorems.
    exact = stratified_eps_target(x, 2 * x, rate, (3, 4), "replacement")
    assert exact < 2 * float(st.proportional_eps_bound(x, rate))
    assert acc.eps_target == pytest.approx(exact, rel=1e-12)
    assert "exact privacy profile" in acc.bound_name
    worst = 0.0
    for rest in itertools.product((-1.0, 1.0), repeat=6):
        before = mixture([*rest[:2], 1.0, *rest[2:]], stratified_samples((3, 4), rate), law)
        after = mixture([*rest[:2], *rest[2:], -1.0], stratified_samples((2, 5), rate), law)
        worst = max(worst, loss(before, after))
    assert worst <= acc.eps_target + 1e-9


@pytest.mark.parametrize("ell", [1, 2])
@pytest.mark.parametrize("x", [0.1, 1.0])
def test_cluster_change_within_public_clusters_and_move_between_them(ell: int, x: float) -> None:
    sizes = (2, 2, 3)
    law = geometric_law(x, 7)
    common = {"add_remove_factor": 1.0, "change_factor": 2.0, "eps_sample": x}
    public = cd.change_accounting(
        "cluster", sizes=sizes, clusters_sampled=ell, labels_public=True, **common
    )
    moved = cd.change_accounting("cluster", sizes=sizes, clusters_sampled=ell, **common)
    assert public.eps_target is not None and moved.eps_target is not None
    assert moved.eps_target == pytest.approx(2 * float(cl.cluster_eps(x, 3, ell, 5)), rel=1e-12)
    assert public.eps_target <= moved.eps_target
    worst_public = worst_moved = 0.0
    same = cluster_samples(sizes, ell)
    for rest in itertools.product((-1.0, 1.0), repeat=6):
        for slot in (0, 6):
            pa, pb = list(rest), list(rest)
            pa.insert(slot, 1.0)
            pb.insert(slot, -1.0)
            value = loss(mixture(pa, same, law), mixture(pb, same, law))
            worst_public = max(worst_public, value)
        # the record at slot 0 (cluster 0) moves to cluster 2 and changes its value
        before = mixture([1.0, *rest], same, law)
        after = mixture([*rest, -1.0], cluster_samples((1, 2, 4), ell), law)
        worst_moved = max(worst_moved, loss(before, after))
    assert worst_public <= public.eps_target + 1e-9
    assert worst_moved <= moved.eps_target + 1e-9


# ---------------------------------------------------------------------------------------
# Properties (hypothesis) and a slow reference
# ---------------------------------------------------------------------------------------


def reference(eps_ar: float, eps_sub: float, rate: float) -> float:
    """(P) in 60-digit arithmetic."""
    with mpmath.workdps(60):
        a, s, r = mpmath.mpf(eps_ar), mpmath.mpf(eps_sub), mpmath.mpf(rate)
        s = min(s, 2 * a)
        return float(mpmath.log((1 - r + r * mpmath.exp(a)) / (1 - r + r * mpmath.exp(a - s))))


log_eps = hs.floats(min_value=-12.0, max_value=3.0)
rates = hs.floats(min_value=1e-6, max_value=1.0)
factors = hs.sampled_from([0.25, 0.5, 1.0, 1.5, 2.0, 3.0])


@settings(max_examples=100)
@given(log_eps, rates, factors, factors)
def test_agrees_with_a_60_digit_reference(le: float, rate: float, fa: float, fs: float) -> None:
    e = 10.0**le
    got = co.poisson_eps_target(fa * e, fs * e, rate)
    assert got == pytest.approx(reference(fa * e, fs * e, rate), rel=1e-13)


def test_extremes_are_exact_and_finite() -> None:
    tiny = co.poisson_eps_target(1e-12, 1e-12, 0.05)
    assert tiny == pytest.approx(reference(1e-12, 1e-12, 0.05), rel=1e-12)
    assert co.poisson_eps_target(1e-12, 2e-12, 0.05) == pytest.approx(
        reference(1e-12, 2e-12, 0.05), rel=1e-12
    )
    big = co.poisson_eps_target(1000.0, 1000.0, 0.05)
    assert math.isfinite(big)
    assert big == pytest.approx(1000.0 + math.log(0.05), rel=1e-14)
    assert co.poisson_eps_target(1000.0, 2000.0, 1e-9) == pytest.approx(
        reference(1000.0, 2000.0, 1e-9), rel=1e-13
    )
    for t in (1e-12, 1000.0):
        for a, g in ((1.0, 1.0), (1.0, 2.0), (1.0, 1.3)):
            e = co.poisson_eps_sample(t, 0.05, a, g)
            assert math.isfinite(e)
            assert co.poisson_eps_target(a * e, g * e, 0.05) == pytest.approx(t, rel=1e-12)


@settings(max_examples=100)
@given(log_eps, rates, rates, factors, factors)
def test_monotone_in_rate(le: float, r1: float, r2: float, fa: float, fs: float) -> None:
    e = 10.0**le
    lo, hi = sorted((r1, r2))
    assert co.poisson_eps_target(fa * e, fs * e, lo) <= co.poisson_eps_target(
        fa * e, fs * e, hi
    ) * (1 + 1e-14)


@settings(max_examples=100)
@given(log_eps, log_eps, rates, factors, factors)
def test_monotone_in_eps(l1: float, l2: float, rate: float, fa: float, fs: float) -> None:
    e1, e2 = sorted((10.0**l1, 10.0**l2))
    assert co.poisson_eps_target(fa * e1, fs * e1, rate) <= co.poisson_eps_target(
        fa * e2, fs * e2, rate
    ) * (1 + 1e-14)


@settings(max_examples=100)
@given(log_eps, factors, factors)
def test_rate_one_gives_the_change_budget_and_rate_zero_nothing(
    le: float, fa: float, fs: float
) -> None:
    e = 10.0**le
    s_eff = min(fs, 2 * fa) * e
    assert co.poisson_eps_target(fa * e, fs * e, 1.0) == s_eff
    # (P) <= r e^{eps_ar - s}(e^s - 1) / (1 - r): it vanishes with the rate (in logarithms)
    log_expm1 = s_eff + math.log(-math.expm1(-s_eff))
    for r in (1e-6, 1e-12, 1e-300):
        value = co.poisson_eps_target(fa * e, fs * e, r)
        assert value > 0
        ceiling = math.log(r) + fa * e - s_eff + log_expm1 - math.log1p(-r)
        assert math.log(value) <= ceiling + 1e-12 * max(1.0, abs(ceiling))


@settings(max_examples=100)
@given(log_eps, rates, factors, factors)
def test_between_the_sandwich_and_below_group_privacy(
    le: float, rate: float, fa: float, fs: float
) -> None:
    e = 10.0**le
    a, s = fa * e, fs * e
    value = co.poisson_eps_target(a, s, rate)
    s_eff = min(s, 2 * a)
    assert value <= s_eff * (1 + 1e-14)
    assert value >= float(amp.eps_target(min(a, s_eff), rate)) * (1 - 1e-13)
    if s <= 2 * a:
        assert value <= 2 * float(amp.eps_target(a, rate)) * (1 + 1e-14)


@settings(max_examples=100)
@given(
    hs.floats(min_value=-12.0, max_value=3.0),
    rates,
    hs.one_of(hs.none(), factors),
    hs.one_of(hs.none(), factors),
)
def test_inverse_round_trips(lt: float, rate: float, fa: float | None, fs: float | None) -> None:
    if fa is None and fs is None:
        return
    t = 10.0**lt
    e = co.poisson_eps_sample(t, rate, fa, fs)
    a = math.inf if fa is None else fa * e
    s = math.inf if fs is None else fs * e
    assert co.poisson_eps_target(a, s, rate) == pytest.approx(t, rel=1e-12)


@settings(max_examples=100)
@given(log_eps, rates, hs.floats(min_value=0.1, max_value=10.0))
def test_closed_forms_agree_with_the_root_finder(le: float, rate: float, fa: float) -> None:
    t = 10.0**le
    for ratio in (1.0, 2.0):
        closed = co.poisson_eps_sample(t, rate, fa, ratio * fa)
        nearby = co.poisson_eps_sample(t, rate, fa, ratio * fa * (1 - 1e-9))  # Brent's method
        assert nearby == pytest.approx(closed, rel=1e-8)


def test_vectorised_like_amplification() -> None:
    out = co.poisson_eps_target(np.array([0.5, 1.0]), np.array([[1.0], [2.0]]), 0.1)
    assert isinstance(out, np.ndarray) and out.shape == (2, 2)
    assert isinstance(co.poisson_eps_target(1.0, 1.0, 0.1), float)
    back = co.poisson_eps_sample(np.array([0.1, 1.0, 5.0]), 0.2, 1.0, 1.3)
    assert isinstance(back, np.ndarray) and back.shape == (3,)


def test_invalid_arguments_are_refused() -> None:
    with pytest.raises(ValueError, match="both be infinite"):
        co.poisson_eps_target(math.inf, math.inf, 0.1)
    with pytest.raises(ValueError, match="eps_change"):
        co.poisson_eps_target(1.0, 0.0, 0.1)
    with pytest.raises(ValueError, match="rate"):
        co.poisson_eps_target(1.0, 1.0, 1.5)
    with pytest.raises(ValueError, match="both be None"):
        co.poisson_eps_sample(1.0, 0.1, None, None)
    with pytest.raises(ValueError, match="exactly one"):
        cd.change_accounting("poisson", add_remove_factor=1, change_factor=1, rate=0.1)


# ---------------------------------------------------------------------------------------
# The issue's number, the designs' accounting and the mechanisms' factors
# ---------------------------------------------------------------------------------------


def test_issue_number_exponential_mechanism_on_a_poisson_sample() -> None:
    e = co.poisson_eps_sample(1.0, 0.05, 1.0, 1.0)
    assert e == pytest.approx(math.log(1 + (math.e - 1) / 0.05), rel=1e-14)
    assert round(e, 2) == 3.57
    old = float(amp.eps_sample(0.5, 0.05))  # the planner's halving of eps_target
    assert round(old, 2) == 2.64
    acc = cd.change_accounting(
        "poisson", add_remove_factor=1.0, change_factor=1.0, eps_target=1.0, rate=0.05
    )
    assert acc.eps_sample == pytest.approx(e, rel=1e-14)
    assert acc.available and "Poisson" in acc.bound_name


@pytest.mark.parametrize(
    "design", ["census", "srs", "poisson", "stratified_proportional", "cluster"]
)
@pytest.mark.parametrize("name", sorted(mech.MECHANISMS))
@pytest.mark.parametrize("labels_public", [False, True])
def test_accounting_round_trips_for_every_mechanism_and_design(
    design: str, name: str, labels_public: bool
) -> None:
    cls = mech.MECHANISMS[name]
    kw = {
        "add_remove_factor": cls.add_remove_factor,
        "change_factor": cls.change_factor,
        "rate": 0.1,
        "stratum_sizes": (30, 40, 55),
        "sizes": (3, 4, 5, 6),
        "clusters_sampled": 2,
        "labels_public": labels_public,
    }
    forward = cd.change_accounting(design, eps_target=0.7, **kw)
    assert forward.reason
    if not forward.available:
        assert cls.add_remove_factor is None and not labels_public
        assert design in ("stratified_proportional", "cluster")
        return
    assert forward.eps_sample is not None
    back = cd.change_accounting(design, eps_sample=forward.eps_sample, **kw)
    assert back.eps_target == pytest.approx(0.7, rel=1e-12)
    assert back.bound_name == forward.bound_name


def test_neyman_has_no_bound() -> None:
    acc = cd.change_accounting("neyman", add_remove_factor=1, change_factor=1, eps_target=1.0)
    assert not acc.available and "data" in acc.reason


@pytest.mark.parametrize("name", sorted(mech.MECHANISMS))
def test_mechanism_factors_are_consistent_with_relations(name: str) -> None:
    cls = mech.MECHANISMS[name]
    alpha, gamma = cls.add_remove_factor, cls.change_factor
    assert alpha is not None or gamma is not None
    assert cls.relations == mech.relations_from_factors(alpha, gamma)
    assert ("deletion" in cls.relations) == (alpha is not None and alpha <= 1)
    assert ("replacement" in cls.relations) == (gamma is not None and gamma <= 1)
    if alpha is not None and gamma is not None:
        assert gamma <= 2 * alpha  # group privacy


def test_mechanism_factor_table() -> None:
    table = {n: (c.add_remove_factor, c.change_factor) for n, c in mech.MECHANISMS.items()}
    assert table == {
        "smooth_laplace": (None, 1.0),
        "smooth_pure": (None, 1.0),
        "exponential": (1.0, 1.0),
        "global_laplace": (1.0, 1.0),
        "laplace": (None, 1.0),
        "gaussian": (None, 1.0),
        "ht_mean": (1.0, 2.0),
        "smooth_polyplace": (None, 1.0),
        "piecewise_laplace": (1.0, 1.0),
        "unbounded": (1.0, 1.0),
        "sum_count": (1.0, 2.0),
    }


@pytest.mark.parametrize("q", [0.1, 0.25, 0.5, 0.9])
def test_budget_factors_at_a_level_are_the_class_factors_or_smaller(q: float) -> None:
    """What the accounting reads: the class's factors, except the exponential quantile's
    add/remove budget, ``max(q, 1 − q)`` (its docstring's proof); never more than the
    class states, so the relations derived from the class hold at every level."""
    for name, cls in mech.MECHANISMS.items():
        f = cls.budget_factors(q)
        assert f.name == name and f.change == cls.change_factor
        assert f.relations == cls.relations
        if name == "exponential":
            assert f.add_remove == pytest.approx(max(q, 1.0 - q), rel=1e-15)
        else:
            assert f.add_remove == cls.add_remove_factor
        if f.add_remove is not None:
            assert cls.add_remove_factor is not None and f.add_remove <= cls.add_remove_factor


def test_a_subclass_cannot_state_relations_its_factors_contradict() -> None:
    with pytest.raises(TypeError, match="contradicts"):

        class Bad(mech.LaplaceMean):
            relations = frozenset({"deletion"})
