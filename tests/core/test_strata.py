"""Tests for core.strata (Bun et al., sections 3, 4, 7 and Appendix E.1).

Layers: the numbers printed in the paper; hand-computed points; slow, obviously correct
references kept here (brute force over every integer allocation, enumeration of every
stratified sample, 60-digit mpmath for the closed forms, a dense grid for the Laplace
supremum); hypothesis properties; simulations; argument validation.
"""

from __future__ import annotations

import itertools
import math

import mpmath
import numpy as np
import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st
from mpmath import mp, mpf

from core import amplification as amp
from core import strata as S
from core.populations import EMPLOYEES_TOP_CODE, ESTABLISHMENT_SIZE_CLASSES, make_builtin

FAST = settings(max_examples=150, deadline=None)

# ---------------------------------------------------------------------------------------------
# Slow references
# ---------------------------------------------------------------------------------------------


def ref_variance(sizes, sds, alloc) -> float:
    """Σ (N_i/N)² (1 − m_i/N_i) σ_i²/m_i written out literally (m_i > 0 everywhere)."""
    n_total = sum(sizes)
    total = 0.0
    for n_i, s_i, m_i in zip(sizes, sds, alloc, strict=True):
        if s_i == 0:
            continue
        if m_i == 0:
            return math.inf
        total += (n_i / n_total) ** 2 * (1 - m_i / n_i) * s_i**2 / m_i
    return total


def brute_force_best(sizes, sds, m) -> float:
    """Smallest variance over every integer allocation with Σ m_i = m, 0 <= m_i <= N_i."""
    best = math.inf
    for alloc in itertools.product(*(range(n + 1) for n in sizes)):
        if sum(alloc) == m:
            best = min(best, ref_variance(sizes, sds, alloc))
    return best


def enumerated_variance(strata_values, alloc) -> float:
    """Exact variance of the weighted mean by listing every stratified sample."""
    n_total = sum(len(v) for v in strata_values)
    per_stratum = []
    for values, m_i in zip(strata_values, alloc, strict=True):
        means = [np.mean(c) for c in itertools.combinations(values, m_i)]
        per_stratum.append(means)
    thetas = []
    for combo in itertools.product(*per_stratum):
        thetas.append(
            sum(len(v) / n_total * mu for v, mu in zip(strata_values, combo, strict=True))
        )
    thetas = np.asarray(thetas)
    return float(np.mean((thetas - thetas.mean()) ** 2))


def mp_bound(eps: float, rate: float) -> float:
    """Theorem 4.3/7.2 in 60-digit arithmetic, textbook form."""
    with mp.workdps(60):
        e, r = mpf(eps), mpf(rate)
        x = mpmath.exp(2 * e) - 1
        return float(mpmath.log(1 + 2 * r * x) + mpmath.log(1 + r * x))


def mp_random_size(eps: float, n: int, pmf) -> tuple[float, float]:
    """Theorem 3.1 in 60-digit arithmetic, textbook form."""
    with mp.workdps(60):
        e = mpf(eps)
        w = [mpf(float(p)) * mpmath.exp(e * m) for m, p in enumerate(pmf)]
        a = sum(wi * m for m, wi in enumerate(w)) / sum(w) / n
        upper = mpmath.log(1 + a * (mpmath.exp(e) - 1))
        lower = -mpmath.log(1 - a * (1 - mpmath.exp(-e)))
        return float(lower), float(upper)


def grid_sup_loss(sizes_a, probs_a, sizes_b, probs_b, eps) -> float:
    """sup_y |log f_a(y)/f_b(y)| on a dense grid (mixtures of Laplace densities)."""
    lo = min(min(sizes_a), min(sizes_b)) - 60 / eps
    hi = max(max(sizes_a), max(sizes_b)) + 60 / eps
    # A dense grid plus every integer in range (the Laplace kinks sit on the counts).
    y = np.union1d(np.linspace(lo, hi, 200_001), np.arange(math.floor(lo), math.ceil(hi) + 1))

    def logf(sizes, probs):
        terms = [math.log(p) - eps * np.abs(y - c) for c, p in zip(sizes, probs, strict=True) if p]
        return np.logaddexp.reduce(np.vstack(terms), axis=0)

    return float(np.max(np.abs(logf(sizes_a, probs_a) - logf(sizes_b, probs_b))))


# ---------------------------------------------------------------------------------------------
# Numbers printed in the paper
# ---------------------------------------------------------------------------------------------


def test_paper_e1_allocations_shift_19_records_in_the_top_stratum() -> None:
    p, p_prime = (np.array(a) for a in S.PAPER_NEYMAN_E1)
    shift = p_prime - p
    assert shift[-1] == 19 and int(np.argmax(np.abs(shift))) == 11
    assert np.all(np.abs(shift[:-1]) <= 4)
    # The paper rounded each stratum on its own: the totals are not exactly 10,000.
    assert (p.sum(), p_prime.sum()) == (10_004, 10_005)
    # Section 4.1: releasing the top stratum's noisy count leaks 19ε; all counts leak 37ε.
    assert S.allocation_count_loss(p, p_prime, 0.1, "largest") == pytest.approx(1.9)
    assert S.allocation_count_loss(p, p_prime, 1.0, "all") == pytest.approx(37.0)


def test_section_43_counter_example_14_vs_15() -> None:
    ex = S.rounding_example(14, 0.1)
    assert ex.deterministic == (1, 2)
    assert ex.floors == (1, 1)
    assert ex.p_up == pytest.approx((0.4, 0.5))
    # A shift of one record costs exactly ε (section 4.1).
    for eps in (0.01, 0.5, 1.0, 5.0):
        assert ex.deterministic_loss(eps) == pytest.approx(eps, rel=1e-12)
    # Randomised rounding: the loss of the same noisy count is far smaller ...
    assert ex.randomized_loss(1.0) == pytest.approx(0.09698, abs=1e-5)
    # ... and matches a brute-force supremum.
    want = grid_sup_loss([1, 2], [0.6, 0.4], [1, 2], [0.5, 0.5], 1.0)
    assert ex.randomized_loss(1.0) == pytest.approx(want, abs=1e-9)


def test_theorem_43_value_and_six_r_eps() -> None:
    # Worked by hand: log(1 + 0.2(e² − 1)) + log(1 + 0.1(e² − 1)).
    x = math.e**2 - 1
    assert S.proportional_eps_bound(1.0, 0.1) == pytest.approx(
        math.log(1 + 0.2 * x) + math.log(1 + 0.1 * x), rel=1e-14
    )
    assert S.proportional_eps_bound(1.0, 0.1) == pytest.approx(1.3172, abs=1e-4)
    assert S.proportional_eps_bound(1e-6, 0.01) == pytest.approx(6e-8, rel=1e-5)
    assert S.proportional_eps_approx(0.5, 0.1) == pytest.approx(0.3)


def test_figure_2_truncated_gaussian() -> None:
    # n = 10⁴, mean n/2, ε = 0.01: concentrated sizes give ≈ ε/2; σ ≈ 800 is "already close
    # to ε = 0.01".
    n, eps = 10_000, 0.01
    tight = S.random_size_eps_bounds(eps, n, S.truncated_gaussian_pmf(n, n / 2, 1.0))
    assert tight.lower == pytest.approx(eps / 2, rel=3e-3)
    assert tight.upper == pytest.approx(eps / 2, rel=3e-3)
    wide = S.random_size_eps_bounds(eps, n, S.truncated_gaussian_pmf(n, n / 2, 800.0))
    assert 0.0096 < wide.lower < wide.upper < eps
    uppers = [
        S.random_size_eps_bounds(eps, n, S.truncated_gaussian_pmf(n, n / 2, sd)).upper
        for sd in (1, 10, 100, 300, 800, 1000)
    ]
    assert np.all(np.diff(uppers) > 0)


def test_theorem_31_reduces_to_theorem_22_for_a_fixed_size() -> None:
    n = 50
    for m in (0, 1, 7, 25, 50):
        pmf = np.zeros(n + 1)
        pmf[m] = 1.0
        for eps in (1e-12, 0.01, 1.0, 30.0, 1000.0):
            b = S.random_size_eps_bounds(eps, n, pmf)
            assert b.tilted_mean == m
            if m:
                assert b.upper == pytest.approx(amp.eps_target(eps, m / n), rel=1e-12)
            else:
                assert b.upper == 0.0
            assert b.lower <= b.upper * (1 + 1e-12)


# ---------------------------------------------------------------------------------------------
# Strata of a population and the establishment example
# ---------------------------------------------------------------------------------------------


def test_summary_hand_computed_and_ordering() -> None:
    values = [1.0, 2.0, 3.0, 10.0, 14.0]
    summ = S.stratum_summary(values, ["b", "b", "a", "a", "a"])
    assert summ.labels == ("b", "a")  # order of first appearance (smallest value first)
    assert summ.sizes.tolist() == [2, 3]
    assert summ.means == pytest.approx([1.5, 9.0])
    assert summ.sds == pytest.approx([math.sqrt(0.5), math.sqrt(31.0)])
    assert summ.codes.tolist() == [0, 0, 1, 1, 1]
    assert [g.tolist() for g in summ.groups()] == [[0, 1], [2, 3, 4]]
    numeric = S.stratum_summary([5.0, 6.0, 7.0], [3, 1, 3])
    assert numeric.labels == (1, 3)
    single = S.stratum_summary([4.0, 5.0], ["x", "y"])
    assert single.sds.tolist() == [0.0, 0.0]
    pop0 = S.stratum_summary(values, ["b", "b", "a", "a", "a"], ddof=0)
    assert pop0.sds == pytest.approx([0.5, math.sqrt(62.0 / 3)])


@pytest.fixture(scope="module")
def establishments():
    pop = make_builtin("establishments")
    return pop, S.stratum_summary(pop.values, pop.strata)


def test_establishment_strata_are_the_paper_size_classes(establishments) -> None:
    pop, summ = establishments
    assert summ.labels == tuple(label for label, _, _ in ESTABLISHMENT_SIZE_CLASSES)
    assert summ.population_size == pop.size == 100_000


def test_top_code_neighbour_moves_the_smallest_unit_to_the_top_class(establishments) -> None:
    pop, summ = establishments
    nb = S.top_code_neighbour(pop.values, summ, new_value=EMPLOYEES_TOP_CODE)
    assert (nb.sizes - summ.sizes).tolist() == [-1] + [0] * 10 + [1]
    changed_values = np.array(pop.values)
    changed_values[0] = EMPLOYEES_TOP_CODE
    changed_labels = np.array(pop.strata)
    changed_labels[0] = "5000-10000"
    direct = S.stratum_summary(changed_values, changed_labels)
    assert set(direct.labels) == set(summ.labels)
    order = [direct.labels.index(lab) for lab in summ.labels]
    assert nb.sizes.tolist() == direct.sizes[order].tolist()
    assert nb.sds == pytest.approx(direct.sds[order], rel=1e-12)


def test_neyman_is_data_dependent_on_establishments(establishments) -> None:
    pop, summ = establishments
    nb = S.top_code_neighbour(pop.values, summ, new_value=EMPLOYEES_TOP_CODE)
    cmp_ = S.compare_neighbours(summ, nb, 10_000)
    assert cmp_.neyman.sum() == cmp_.neyman_neighbour.sum() == 10_000
    shift = cmp_.neyman_shift
    assert shift.sum() == 0 and np.abs(shift).sum() >= 2
    assert shift[-1] == 1  # the top class is taken whole and gained a record
    assert cmp_.most_moved == 11  # ties with a losing stratum go to the gaining one
    # A shift of several records leaks more than no sampling at all (ε).
    assert cmp_.count_loss(1.0, "neyman") >= 2.0
    # Randomised proportional rounding: small, and within two applications (one deletion,
    # one addition) of the Theorem 7.2 bound.
    for eps in (0.1, 1.0, 3.0):
        loss = cmp_.count_loss(eps, "randomized")
        assert 0 <= loss <= 2 * S.proportional_eps_bound(eps, cmp_.rate)
        assert loss < cmp_.count_loss(eps, "neyman")
    assert cmp_.count_loss(1.0, "randomized", "largest") <= cmp_.count_loss(1.0, "randomized")


def test_compare_neighbours_validates(establishments) -> None:
    _, summ = establishments
    other = S.stratum_summary([1.0, 2.0, 3.0], ["a", "b", "b"])
    with pytest.raises(ValueError, match="same strata"):
        S.compare_neighbours(summ, other, 10)


# ---------------------------------------------------------------------------------------------
# Allocations: hand-computed points, brute force and properties
# ---------------------------------------------------------------------------------------------


def test_neyman_hand_computed() -> None:
    assert S.neyman_allocation([100, 100], [1.0, 3.0], 40).tolist() == [10, 30]
    # Share 50 of stratum 1 exceeds its 10 records: it is taken whole, the rest goes on.
    assert S.neyman_shares([10, 1000], [100.0, 1.0], 100) == pytest.approx([10, 90])
    assert S.neyman_allocation([10, 1000], [100.0, 1.0], 100).tolist() == [10, 90]
    # Cascading caps: after capping stratum 0, stratum 1's share grows past its size too.
    shares = S.neyman_shares([5, 8, 1000], [10.0, 6.0, 0.1], 30)
    assert shares == pytest.approx([5, 8, 17])
    # σ = 0 strata get nothing until everything else is full.
    assert S.neyman_allocation([10, 10], [0.0, 1.0], 12).tolist() == [2, 10]
    assert S.neyman_allocation([10, 10], [0.0, 0.0], 6).tolist() == [3, 3]
    # Tiny shares: every stratum with spread gets a record first.
    assert S.neyman_allocation([100, 100], [10.0, 1.0], 2).tolist() == [1, 1]
    assert S.neyman_allocation([3, 4], [1.0, 2.0], 0).tolist() == [0, 0]
    assert S.neyman_allocation([3, 4], [1.0, 2.0], 7).tolist() == [3, 4]


def test_variance_hand_computed_and_by_enumeration() -> None:
    strata_values = [[1.0, 2.0, 4.0, 7.0], [10.0, 11.0, 15.0], [20.0, 30.0]]
    summ = S.stratum_summary(
        [v for vs in strata_values for v in vs],
        [i for i, vs in enumerate(strata_values) for _ in vs],
    )
    for alloc in ([1, 1, 1], [2, 2, 1], [3, 1, 2], [4, 3, 2], [1, 2, 1]):
        got = S.stratified_mean_variance(summ.sizes, summ.sds, alloc)
        assert got == pytest.approx(enumerated_variance(strata_values, alloc), rel=1e-12)
    # (1/9)²·0 + ... : a stratum taken whole contributes nothing.
    assert S.stratified_mean_variance([2, 3], [1.0, 0.0], [2, 0]) == 0.0
    assert S.stratified_mean_variance([2, 3], [1.0, 2.0], [2, 0]) == math.inf
    assert S.srs_mean_variance(10, 4.0, 5) == pytest.approx(0.4)


def test_randomized_variance_by_enumerating_the_roundings() -> None:
    sizes, sds, rate = np.array([14, 15, 33, 7]), np.array([1.0, 2.0, 0.5, 3.0]), 0.3
    floors = np.floor(rate * sizes).astype(int)
    p = rate * sizes - floors
    want = 0.0
    for ups in itertools.product((0, 1), repeat=sizes.size):
        prob = np.prod([p[i] if u else 1 - p[i] for i, u in enumerate(ups)])
        want += prob * S.stratified_mean_variance(sizes, sds, floors + np.array(ups))
    assert S.randomized_proportional_variance(sizes, sds, rate) == pytest.approx(want, rel=1e-12)
    assert S.randomized_proportional_variance([5, 20], [1.0, 1.0], 0.1) == math.inf


SMALL_CASES = st.integers(1, 3).flatmap(
    lambda k: st.tuples(
        st.lists(st.integers(1, 6), min_size=k, max_size=k),
        st.lists(
            st.one_of(st.just(0.0), st.floats(0.01, 50.0, allow_nan=False)), min_size=k, max_size=k
        ),
    )
)


@FAST
@given(case=SMALL_CASES, data=st.data())
def test_neyman_is_the_exact_integer_minimiser(case, data) -> None:
    sizes, sds = case
    m = data.draw(st.integers(0, sum(sizes)))
    alloc = S.neyman_allocation(sizes, sds, m)
    assert alloc.sum() == m and np.all(alloc >= 0) and np.all(alloc <= np.array(sizes))
    best = brute_force_best(sizes, sds, m)
    got = ref_variance(sizes, sds, alloc)
    if math.isinf(best):
        assert math.isinf(got)
    else:
        assert got <= best * (1 + 1e-12) + 1e-300
    # The real Neyman shares are a lower bound for every integer allocation.
    shares = S.neyman_shares(sizes, sds, m)
    assert shares.sum() == pytest.approx(m) and np.all(shares <= np.array(sizes) + 1e-9)
    if m and not math.isinf(best):
        real = sum(
            (n / sum(sizes)) ** 2 * s**2 * (1 / x - 1 / n)
            for n, s, x in zip(sizes, sds, shares, strict=True)
            if s > 0
        )
        assert real <= best * (1 + 1e-9) + 1e-12 * max(sds) ** 2


@FAST
@given(
    sizes=st.lists(st.integers(1, 5000), min_size=1, max_size=15),
    sds=st.lists(st.floats(0.0, 1e4, allow_nan=False), min_size=15, max_size=15),
    frac=st.floats(0.0, 1.0),
)
def test_neyman_totals_and_bounds_on_larger_cases(sizes, sds, frac) -> None:
    sds = sds[: len(sizes)]
    m = int(frac * sum(sizes))
    alloc = S.neyman_allocation(sizes, sds, m)
    assert alloc.sum() == m
    assert np.all((0 <= alloc) & (alloc <= np.array(sizes)))
    # No single move lowers the variance (the optimality certificate of the rounding).
    base = ref_variance(sizes, sds, alloc)
    for i, j in itertools.permutations(range(len(sizes)), 2):
        if alloc[i] < sizes[i] and alloc[j] > 0:
            moved = alloc.copy()
            moved[i] += 1
            moved[j] -= 1
            assert ref_variance(sizes, sds, moved) >= base * (1 - 1e-9)


@FAST
@given(
    sizes=st.lists(st.integers(1, 10**6), min_size=1, max_size=20),
    rate=st.floats(1e-6, 1.0),
)
def test_proportional_rounding_properties(sizes, rate) -> None:
    x = rate * np.array(sizes, dtype=float)
    det = S.proportional_allocation(sizes, rate, "deterministic")
    assert np.all(np.abs(det - x) <= 0.5 + 1e-9)
    rnd = S.proportional_allocation(sizes, rate, "randomized", rng=1)
    assert np.all(np.abs(rnd - x) < 1.0)
    assert np.all((rnd == np.floor(x)) | (rnd == np.ceil(x)))
    assert np.all((rnd >= 0) & (rnd <= np.array(sizes)))


def test_randomized_rounding_is_unbiased() -> None:
    sizes = np.array([14, 15, 7, 1, 123, 999])
    rate = 0.137
    rng = np.random.default_rng(2024)
    draws = np.array(
        [S.proportional_allocation(sizes, rate, "randomized", rng) for _ in range(40_000)]
    )
    x = rate * sizes
    p = x - np.floor(x)
    se = np.sqrt(p * (1 - p) / draws.shape[0])
    assert np.all(np.abs(draws.mean(axis=0) - x) <= 5 * se + 1e-12)


# ---------------------------------------------------------------------------------------------
# Privacy bounds: references, properties, numerics
# ---------------------------------------------------------------------------------------------

EPS = st.one_of(
    st.floats(-12, 3).map(lambda u: float(10.0**u)), st.floats(1e-12, 1000.0, allow_nan=False)
)
RATES = st.one_of(st.floats(-9, 0).map(lambda u: float(10.0**u)), st.floats(1e-9, 1.0))
#: Just below log(DBL_MAX) ≈ 709.78: exp(ε) is still finite, exp(ε + 0.01) overflows. The
#: bound uses e^{2ε}, which overflows from ε ≈ 354.89 on (EXP2_OVERFLOW: just below and
#: just above).
EXP_OVERFLOW = 709.78
#: Just above log(DBL_MAX) ≈ 709.7827: exp(ε) overflows to inf.
EXP_JUST_OVER = 709.79
EXP2_OVERFLOW = (354.89, 354.9)


@FAST
@example(eps=1e-12, rate=1e-9)  # the ε and rate boundaries
@example(eps=1e-12, rate=1 - 1e-12)
@example(eps=EXP2_OVERFLOW[0], rate=1e-9)
@example(eps=EXP2_OVERFLOW[0], rate=1 - 1e-12)
@example(eps=EXP2_OVERFLOW[1], rate=1e-9)
@example(eps=EXP2_OVERFLOW[1], rate=1 - 1e-12)
@example(eps=EXP_OVERFLOW, rate=1e-9)
@example(eps=EXP_JUST_OVER, rate=1e-9)
@example(eps=EXP_OVERFLOW, rate=1 - 1e-12)
@example(eps=EXP_JUST_OVER, rate=1 - 1e-12)
@given(eps=EPS, rate=RATES)
def test_proportional_bound_matches_60_digit_reference(eps, rate) -> None:
    got = S.proportional_eps_bound(eps, rate)
    assert math.isfinite(got)
    assert got == pytest.approx(mp_bound(eps, rate), rel=1e-12, abs=1e-300)


@FAST
@example(eps=1e-12, rate=1e-9)  # the ε and rate boundaries
@example(eps=1.0, rate=0.05)
@given(eps=st.floats(1e-12, 1.0), rate=st.floats(1e-9, 0.05))
def test_proportional_bound_is_below_eps_for_small_rates(eps, rate) -> None:
    assert S.proportional_eps_bound(eps, rate) < eps


@FAST
@example(eps=1e-12, rate=1e-6)  # the ε and rate boundaries
@example(eps=1e-12, rate=1 - 1e-12)
@given(eps=st.floats(1e-12, 1e-8), rate=st.floats(1e-6, 1.0))
def test_proportional_bound_tends_to_six_r_eps(eps, rate) -> None:
    ratio = S.proportional_eps_bound(eps, rate) / S.proportional_eps_approx(eps, rate)
    assert ratio == pytest.approx(1.0, abs=1e-6)


def test_proportional_bound_extremes_and_broadcasting() -> None:
    assert S.proportional_eps_bound(1e-12, 0.1) == pytest.approx(6e-13, rel=1e-9)
    big = S.proportional_eps_bound(1000.0, 0.1)
    assert math.isfinite(big)
    assert big == pytest.approx(4000 + math.log(0.2) + math.log(0.1), rel=1e-14)
    out = S.proportional_eps_bound(np.array([0.1, 1.0, 10.0]), 0.01)
    assert isinstance(out, np.ndarray) and out.shape == (3,)
    assert np.all(np.diff(out) > 0)
    assert isinstance(S.proportional_eps_bound(1.0, 0.5), float)
    # Not an amplification at large rates: the bound exceeds ε.
    assert S.proportional_eps_bound(1.0, 0.5) > 1.0


PMFS = st.integers(1, 40).flatmap(
    lambda n: st.tuples(
        st.just(n),
        st.lists(
            st.one_of(st.just(0.0), st.floats(1e-6, 1.0)), min_size=n + 1, max_size=n + 1
        ).filter(lambda w: sum(w) > 0),
    )
)


@FAST
@example(case=(40, [1.0] * 41), eps=1e-12)  # ε at its boundaries
@example(case=(40, [1.0] * 41), eps=EXP_OVERFLOW)
@example(case=(40, [1.0] * 41), eps=EXP_JUST_OVER)
@example(case=(1, [1.0, 1.0]), eps=1000.0)
@given(case=PMFS, eps=st.one_of(st.floats(1e-12, 5.0), st.floats(5.0, 1000.0)))
def test_theorem_31_matches_reference_and_is_ordered(case, eps) -> None:
    n, weights = case
    pmf = np.array(weights) / sum(weights)
    b = S.random_size_eps_bounds(eps, n, pmf)
    assert math.isfinite(b.lower) and math.isfinite(b.upper)
    assert 0 <= b.lower <= b.upper * (1 + 1e-12) + 1e-300
    assert b.upper <= eps * (1 + 1e-12)
    assume(eps <= 50)  # the textbook form in mpmath needs exp(eps) to stay moderate
    lower, upper = mp_random_size(eps, n, pmf)
    assert b.upper == pytest.approx(upper, rel=1e-9, abs=1e-300)
    assert b.lower == pytest.approx(lower, rel=1e-9, abs=1e-300)


@FAST
@given(n=st.integers(1, 200), data=st.data(), eps=EPS)
def test_theorem_31_brackets_the_fixed_size_value(n, data, eps) -> None:
    m = data.draw(st.integers(0, n))
    pmf = np.zeros(n + 1)
    pmf[m] = 1.0
    b = S.random_size_eps_bounds(eps, n, pmf)
    fixed = amp.eps_target(eps, m / n) if m else 0.0
    assert b.lower <= fixed * (1 + 1e-12) + 1e-300
    assert fixed <= b.upper * (1 + 1e-12) + 1e-300


def test_theorem_31_large_eps_spoils_amplification() -> None:
    # A 1 % chance of sampling everything: at large ε the tilt puts all weight there.
    n = 100
    pmf = np.zeros(n + 1)
    pmf[10], pmf[n] = 0.99, 0.01
    assert S.random_size_eps_bounds(1000.0, n, pmf).lower == pytest.approx(1000.0)
    assert S.random_size_eps_bounds(0.01, n, pmf).upper < 0.01 * 0.2


@FAST
@given(
    sa=st.lists(st.integers(0, 4), min_size=1, max_size=3, unique=True),
    sb=st.lists(st.integers(0, 4), min_size=1, max_size=3, unique=True),
    wa=st.lists(st.floats(0.05, 1.0), min_size=3, max_size=3),
    wb=st.lists(st.floats(0.05, 1.0), min_size=3, max_size=3),
    eps=st.floats(0.05, 3.0),
)
def test_noisy_count_loss_matches_a_dense_grid(sa, sb, wa, wb, eps) -> None:
    pa = np.array(wa[: len(sa)]) / sum(wa[: len(sa)])
    pb = np.array(wb[: len(sb)]) / sum(wb[: len(sb)])
    got = S.noisy_count_loss(sa, pa, sb, pb, eps)
    want = grid_sup_loss(sa, pa, sb, pb, eps)
    assert got == pytest.approx(want, abs=1e-6)
    assert got == pytest.approx(S.noisy_count_loss(sb, pb, sa, pa, eps))
    assert got <= eps * (max(sa + sb) - min(sa + sb)) + 1e-12


def test_noisy_count_loss_deterministic_shift() -> None:
    for shift in (0, 1, 19):
        assert S.noisy_count_loss([5], [1.0], [5 + shift], [1.0], 0.3) == pytest.approx(0.3 * shift)


# ---------------------------------------------------------------------------------------------
# Sampling and simulation
# ---------------------------------------------------------------------------------------------


def test_stratified_sample_draws_the_allocation_without_replacement() -> None:
    labels = np.repeat([0, 1, 2], [5, 8, 3])
    summ = S.stratum_summary(np.arange(16.0), labels)
    groups = summ.groups()
    rng = np.random.default_rng(7)
    counts = np.zeros(16)
    reps = 20_000
    for _ in range(reps):
        idx = S.stratified_sample(groups, [2, 3, 3], rng)
        assert np.unique(idx).size == idx.size == 8
        assert np.bincount(labels[idx], minlength=3).tolist() == [2, 3, 3]
        counts[idx] += 1
    inclusion = counts / reps
    want = np.repeat([2 / 5, 3 / 8, 1.0], [5, 8, 3])
    # Each inclusion frequency is a binomial proportion: 5 standard errors (0 where the
    # stratum is taken whole).
    se = np.sqrt(want * (1 - want) / reps)
    assert np.all(np.abs(inclusion - want) <= 5 * se + 1e-12), (inclusion - want) / se
    assert S.stratified_sample(groups, [0, 0, 0], rng).size == 0


def test_simulated_variance_matches_the_formula() -> None:
    rng = np.random.default_rng(11)
    # Stratum 0 has few distinct values (counts path), stratum 1 many (index path).
    values = np.concatenate([rng.integers(1, 5, 400).astype(float), rng.normal(50, 9, 300)])
    labels = np.repeat([0, 1], [400, 300])
    order = np.argsort(values, kind="stable")
    values, labels = values[order], labels[order]
    summ = S.stratum_summary(values, labels)
    alloc = [40, 60]
    reps = 4000
    thetas = S.simulate_weighted_means(values, summ, reps, 3, allocation=alloc)
    assert thetas.mean() == pytest.approx(values.mean(), abs=4 * thetas.std() / math.sqrt(reps))
    want = S.stratified_mean_variance(summ.sizes, summ.sds, alloc)
    # The sample variance of `reps` draws has relative sd sqrt((kurtosis - 1) / (reps - 1));
    # a weighted mean of 100 draws is close to normal (kurtosis 3, measured 2.9-3.1 here):
    # 4.5 standard errors, about 10 %.
    tol = 4.5 * math.sqrt(2 / (reps - 1))
    assert thetas.var(ddof=1) == pytest.approx(want, rel=tol)
    rand = S.simulate_weighted_means(values, summ, reps, 4, randomized_rate=0.0625)
    want_r = S.randomized_proportional_variance(summ.sizes, summ.sds, 0.0625)
    assert rand.var(ddof=1) == pytest.approx(want_r, rel=tol)


def test_simulation_reports_empty_strata_as_nan() -> None:
    summ = S.stratum_summary([1.0, 2.0, 3.0, 4.0], [0, 0, 1, 1])
    out = S.simulate_weighted_means([1.0, 2.0, 3.0, 4.0], summ, 5, 0, allocation=[0, 1])
    assert np.all(np.isnan(out))


# ---------------------------------------------------------------------------------------------
# Validation
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: S.neyman_allocation([10, 10], [1.0, 1.0], 21), "m \\(total sample size\\)"),
        (lambda: S.neyman_allocation([10, 0], [1.0, 1.0], 5), "sizes must be >= 1"),
        (lambda: S.neyman_allocation([10, 10], [1.0, -1.0], 5), "sds"),
        (lambda: S.neyman_allocation([10, 10], [1.0], 5), "one entry per stratum"),
        (lambda: S.neyman_allocation([10.5], [1.0], 5), "whole numbers"),
        (lambda: S.proportional_allocation([10], 0.0), "rate"),
        (lambda: S.proportional_allocation([10], 0.5, "nearest"), "rounding"),
        (lambda: S.stratified_mean_variance([5], [1.0], [6]), "only 5"),
        (lambda: S.proportional_eps_bound(-1.0, 0.1), "eps_sample"),
        (lambda: S.proportional_eps_bound(1.0, 1.5), "rate"),
        (lambda: S.proportional_eps_bound(math.inf, 0.1), "eps_sample"),
        (lambda: S.random_size_eps_bounds(1.0, 3, [0.5, 0.5]), "every size"),
        (lambda: S.random_size_eps_bounds(1.0, 1, [0.5, 0.6]), "sum to 1"),
        (lambda: S.random_size_eps_bounds(1.0, 1, [-0.5, 1.5]), ">= 0"),
        (lambda: S.noisy_count_loss([1], [0.5], [2], [1.0], 1.0), "sum to 1"),
        (lambda: S.stratum_summary([1.0, 2.0], ["a"]), "labels"),
        (lambda: S.srs_mean_variance(10, 1.0, 11), "sample size"),
        (lambda: S.truncated_gaussian_pmf(10, 5, 0), "sd"),
        (lambda: S.rounding_example(0, 0.1), "size"),
    ],
)
def test_invalid_arguments_raise_value_error(call, message) -> None:
    with pytest.raises(ValueError, match=message):
        call()


# ---------------------------------------------------------------------------------------------
# Issue 10: ε_target in → ε_sample out (Theorems 4.3/7.2 inverted), numeric stratum labels
# ---------------------------------------------------------------------------------------------


def _inverse_by_brentq(t: float, r: float) -> float:
    """Slow reference: bracket and bisect the monotone bound with scipy's brentq."""
    from scipy.optimize import brentq

    hi = 1.0
    while S.proportional_eps_bound(hi, r) < t:
        hi *= 2.0
    return brentq(lambda e: S.proportional_eps_bound(e, r) - t, 0.0 + 1e-300, hi, xtol=1e-13)


@FAST
@example(t=1e-10, r=1e-6)  # the ε_target and rate boundaries
@example(t=EXP_OVERFLOW, r=1e-6)
@example(t=EXP_JUST_OVER, r=1e-6)
@example(t=EXP_OVERFLOW, r=1 - 1e-12)
@example(t=EXP_JUST_OVER, r=1 - 1e-12)
@example(t=1000.0, r=1.0)
@given(t=st.floats(1e-10, 1000.0), r=st.floats(1e-6, 1.0))
def test_proportional_inverse_round_trips(t, r):
    e = S.proportional_eps_sample_for_target(t, r)
    assert S.proportional_eps_bound(e, r) == pytest.approx(t, rel=1e-9)


@FAST
@given(t=st.floats(1e-6, 30.0), r=st.floats(1e-4, 1.0))
def test_proportional_inverse_matches_brentq_and_is_monotone(t, r):
    e = S.proportional_eps_sample_for_target(t, r)
    assert e == pytest.approx(_inverse_by_brentq(t, r), rel=1e-9, abs=1e-13)
    assert S.proportional_eps_sample_for_target(t * 1.1, r) > e
    assert S.proportional_eps_sample_for_target(t, min(1.0, r * 1.1)) <= e


def test_proportional_inverse_limits_and_paper_value():
    # Small budgets: the bound is ≈ 6rε (Theorem 4.3), so ε_sample ≈ ε_target/(6r).
    assert S.proportional_eps_sample_for_target(1e-12, 0.1) == pytest.approx(1e-12 / 0.6, rel=1e-9)
    # r = 1: (1 + 2x)(1 + x) = e^t; at t = ln 6, x = 1, so ε_sample = ln(2)/2.
    assert S.proportional_eps_sample_for_target(math.log(6.0), 1.0) == pytest.approx(
        math.log(2.0) / 2, rel=1e-14
    )
    # Finite and exact far out: ε_target = 1000 (the log branch) round-trips.
    e = S.proportional_eps_sample_for_target(1000.0, 0.01)
    assert math.isfinite(e) and S.proportional_eps_bound(e, 0.01) == pytest.approx(1000.0)
    # Paper (§7.3): the budget on the sample is about ε/(6r): at r = 1/100 and
    # ε_target = 10⁻⁴ that is 1/600 (the approximation is first order in ε_sample).
    assert S.proportional_eps_sample_for_target(1e-4, 0.01) == pytest.approx(1 / 600, rel=0.01)
    with pytest.raises(ValueError, match="eps_target"):
        S.proportional_eps_sample_for_target(0.0, 0.1)
    with pytest.raises(ValueError, match="rate"):
        S.proportional_eps_sample_for_target(0.1, 1.5)


def test_numeric_text_stratum_labels_sort_as_numbers():
    labels = np.array([str(i) for i in (10, 2, 1, 11, 2, 10, 1, 3)])
    summ = S.stratum_summary(np.arange(labels.size, dtype=float), labels)
    assert summ.labels == ("1", "2", "3", "10", "11")
    assert summ.sizes.tolist() == [2, 2, 1, 2, 1]
    # codes still point at the right stratum
    assert [summ.labels[c] for c in summ.codes] == labels.tolist()
