"""The smooth sensitivity against the definitional versions in reference_sensitivity
(core.sensitivity.smooth): by hand, against the O(n^2) definitions, properties, batches."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from core import sensitivity as cs
from tests.core import reference_sensitivity as ref
from tests.core.sensitivity.closeness import assert_close, close, fast

# ---------------------------------------------------------------------------------------
# Worked by hand
# ---------------------------------------------------------------------------------------

# delta = 1/2 and eps = 4 ln(2)^2 give beta = eps / (2 ln(2 / delta)) = 4 ln(2)^2 / (2 ln 4)
# = ln 2, so the weights e^{-k beta} are 1, 1/2, 1/4, 1/8, ... and every product is exact.
HAND_EPS = 4 * math.log(2) ** 2
HAND_DELTA = 0.5


def test_hand_beta():
    assert cs.smooth_beta(HAND_EPS, HAND_DELTA) == pytest.approx(math.log(2), rel=1e-15)


def test_hand_n1():
    # n = 1, y = (3), bounds [0, 10]; m = 1; padded: y_(0) = 0, y_(1) = 3, y_(2) = 10.
    # k = 0 (weight 1):   t = 0: y_(1) - y_(0) = 3;  t = 1: y_(2) - y_(1) = 7   -> 7
    # k = 1 (weight 1/2): t = 0: y_(1) - y_(-1) = 3 - 0 = 3;  t = 1: y_(2) - y_(0) = 10;
    #                     t = 2: y_(3) - y_(1) = 10 - 3 = 7                      -> 10/2 = 5
    # S = max(7, 5) = 7 (= the local sensitivity: moving the one record to 10).
    s = fast([3.0], HAND_EPS, HAND_DELTA, 0.0, 10.0)
    assert s == pytest.approx(7.0, rel=1e-14)
    assert cs.local_sensitivity_median([3.0], 0.0, 10.0) == 7.0
    # With y = (5): k = 0 gives 5, k = 1 gives 10/2 = 5, so S = 5.
    assert fast([5.0], HAND_EPS, HAND_DELTA, 0.0, 10.0) == pytest.approx(5.0, rel=1e-14)


def test_hand_n3():
    # n = 3, y = (1, 2, 5), bounds [0, 10]; m = 2;
    # padded ranks 0..4: y_(0) = 0, y_(1) = 1, y_(2) = 2, y_(3) = 5, y_(4) = 10.
    # k = 0 (w 1):   t=0: y2 - y1 = 1;   t=1: y3 - y2 = 3                         -> 3
    # k = 1 (w 1/2): t=0: y2 - y0 = 2;   t=1: y3 - y1 = 4;   t=2: y4 - y2 = 8     -> 8/2 = 4
    # k = 2 (w 1/4): t=0: y2 - y(-1) = 2; t=1: y3 - y0 = 5;  t=2: y4 - y1 = 9;
    #                t=3: y(5) - y2 = 8                                            -> 9/4
    # k = 3 (w 1/8): t=2: y4 - y0 = 10 is the largest                               -> 10/8
    # S = max(3, 4, 2.25, 1.25) = 4, above the local sensitivity 3.
    y = [1.0, 2.0, 5.0]
    s = fast(y, HAND_EPS, HAND_DELTA, 0.0, 10.0)
    assert s == pytest.approx(4.0, rel=1e-14)
    assert cs.local_sensitivity_median(y, 0.0, 10.0) == 3.0
    assert ref.smooth_sensitivity_eq4(y, HAND_EPS, HAND_DELTA, 0.0, 10.0) == pytest.approx(4.0)
    assert ref.smooth_sensitivity_pairs(y, HAND_EPS, HAND_DELTA, 0.0, 10.0) == pytest.approx(4.0)


# ---------------------------------------------------------------------------------------
# Against the O(n^2) definitions
# ---------------------------------------------------------------------------------------

N_VALUES = [1, 2, 3, 4, 5, 10, 101, 1000]
EPS_VALUES = [1e-9, 0.01, 0.1, 1.0, 5.0, 1e3]


def _datasets(n: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
    lower, upper = 0.0, 10.0
    cont = rng.uniform(lower, upper, n)
    ties = rng.integers(0, 4, n).astype(float) * 2.5  # values in {0, 2.5, 5, 7.5}
    dup = np.sort(rng.uniform(lower, upper, n))
    m = (n + 1) // 2
    lo_, hi_ = max(0, m - 1 - n // 4), min(n, m + n // 4)
    dup[lo_:hi_] = dup[m - 1]  # a block of duplicates around the median
    at_bounds = rng.choice([lower, upper, 3.0], n)
    return {
        "continuous": cont,
        "heavy_ties": ties,
        "all_equal": np.full(n, 4.0),
        "dup_at_median": dup,
        "at_bounds": at_bounds,
        "all_lower": np.full(n, lower),
        "lognormal_clipped": np.clip(rng.lognormal(1.0, 0.6, n), lower, upper),
    }


@pytest.mark.parametrize("n", N_VALUES)
def test_against_definition(n):
    rng = np.random.default_rng(1000 + n)
    delta = 1.0 / (2 * max(n, 10))
    for name, y in _datasets(n, rng).items():
        for eps in EPS_VALUES:
            want_eq4 = ref.smooth_sensitivity_eq4(y, eps, delta, 0.0, 10.0)
            want_pairs = ref.smooth_sensitivity_pairs(y, eps, delta, 0.0, 10.0)
            assert close(want_eq4, want_pairs, 1e-14), (name, eps)
            got = fast(y, eps, delta, 0.0, 10.0)
            assert close(got, want_eq4), (name, eps, got, want_eq4)
            got_np = cs._smooth_numpy(np.sort(y), 0.0, 10.0, cs.smooth_beta(eps, delta))
            assert close(got_np, want_eq4), ("numpy fallback", name, eps, got_np, want_eq4)


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 6, 7])
def test_against_nissim_definition_bruteforce(n):
    # max over data sets y' of LS(y') e^{-beta d(y, y')}: checks equation (4), the padding
    # with the bounds and the lower-median rank for even n against first principles.
    rng = np.random.default_rng(7 * n)
    for trial in range(6):
        y = rng.integers(0, 6, n).astype(float) if trial % 2 else rng.uniform(0, 5, n)
        for eps in (0.05, 1.0, 4.0):
            want = ref.smooth_sensitivity_bruteforce(y, eps, 0.1, 0.0, 5.0)
            assert_close(fast(y, eps, 0.1, 0.0, 5.0), want)
            assert_close(ref.smooth_sensitivity_eq4(y, eps, 0.1, 0.0, 5.0), want)


def test_huge_beta_gives_local_sensitivity():
    rng = np.random.default_rng(3)
    for n in (1, 2, 5, 101, 1000):
        y = rng.uniform(0.0, 10.0, n)
        ls = cs.local_sensitivity_median(y, 0.0, 10.0)
        assert fast(y, 1e3, 1e-6, 0.0, 10.0) == ls


def test_tiny_beta_gives_range():
    rng = np.random.default_rng(4)
    eps, delta = 1e-9, 1e-6
    b = cs.smooth_beta(eps, delta)
    for n in (1, 4, 101, 1000):
        y = rng.uniform(1.0, 9.0, n)
        # The pair (lower, upper) at distance n wins: S = R e^{-beta n}, R = 10.
        assert_close(fast(y, eps, delta, 0.0, 10.0), 10.0 * math.exp(-b * n))
        assert fast(y, eps, delta, 0.0, 10.0) < 10.0


def test_ties_with_huge_beta_underflow_region():
    # Many ties at the median and a huge beta: most weights underflow to 0, so a careless
    # divide and conquer (choosing among zeros) loses the true partner.
    rng = np.random.default_rng(5)
    for n in (51, 101, 1001):
        y = np.sort(rng.integers(0, 4, n).astype(float))
        for eps in (100.0, 1e3, 1e4):
            want = ref.smooth_sensitivity_pairs(y, eps, 1e-4, 0.0, 10.0)
            assert close(fast(y, eps, 1e-4, 0.0, 10.0), want), (n, eps)


def test_large_n_against_definition():
    rng = np.random.default_rng(6)
    n = 10_001
    y = np.sort(rng.lognormal(5, 0.5, n))
    delta = 1 / (2 * n)
    for eps in (0.01, 1.0):
        want = ref.smooth_sensitivity_eq4_numpy(y, eps, delta, 0.0, 2000.0)
        assert_close(fast(y, eps, delta, 0.0, 2000.0), want)
    # 4,000 equal values around the median: local sensitivity 0, tiny S, rescaled rows.
    m = (n + 1) // 2
    y[m - 2000 : m + 2000] = y[m - 1]
    want = ref.smooth_sensitivity_eq4_numpy(y, 5.0, delta, 0.0, 2000.0)
    assert 0 < want < 1e-100
    assert_close(fast(y, 5.0, delta, 0.0, 2000.0), want)


def test_optimal_partner_is_monotone():
    # The lemma behind the divide and conquer, checked exactly: beta = ln 2 makes every
    # weight a power of 2 and the data are small integers, so products are exact.
    rng = np.random.default_rng(8)
    for _ in range(300):
        n = int(rng.integers(1, 40))
        y = np.sort(rng.integers(0, 6, n).astype(float))
        pad = np.concatenate(([0.0], y, [6.0]))
        m = (n + 1) // 2
        partners = []
        for i in range(m + 1):
            j = np.arange(m, n + 2)
            v = (pad[j] - pad[i]) * 2.0 ** -np.maximum(j - i - 1, 0)
            partners.append(int(j[np.flatnonzero(v == v.max())[-1]]))  # largest maximiser
        assert partners == sorted(partners), (y, partners)


# ---------------------------------------------------------------------------------------
# Hypothesis
# ---------------------------------------------------------------------------------------

small_int_data = st.lists(st.integers(0, 6), min_size=1, max_size=60).map(
    lambda xs: np.array(sorted(xs), dtype=float)
)
float_data = st.lists(
    st.floats(0.0, 6.0, allow_nan=False, allow_infinity=False), min_size=1, max_size=60
).map(lambda xs: np.array(sorted(xs), dtype=float))
any_data = st.one_of(small_int_data, float_data)
eps_st = st.floats(1e-6, 200.0)
#: Just below log(DBL_MAX) ≈ 709.78: exp(ε) is still finite, exp(ε + 0.01) overflows.
EXP_OVERFLOW = 709.78
#: Just above log(DBL_MAX) ≈ 709.7827: exp(ε) overflows to inf.
EXP_JUST_OVER = 709.79
#: Boundary data: a gap next to the median, and a single record.
EDGE_Y = (np.array([0.0, 0.0, 6.0]), np.array([3.0]))
delta_st = st.floats(1e-12, 0.9)


@example(y=EDGE_Y[0], eps=1e-12, delta=1e-12)  # ε and δ at their small ends
@example(y=EDGE_Y[0], eps=EXP_OVERFLOW, delta=0.9)  # ε where exp overflows
@example(y=EDGE_Y[0], eps=EXP_JUST_OVER, delta=0.9)
@example(y=EDGE_Y[1], eps=EXP_OVERFLOW, delta=1e-12)
@example(y=EDGE_Y[1], eps=EXP_JUST_OVER, delta=1e-12)
@given(y=any_data, eps=eps_st, delta=delta_st)
def test_hyp_fast_equals_reference(y, eps, delta):
    want = ref.smooth_sensitivity_pairs(y, eps, delta, 0.0, 6.0)
    assert_close(cs.smooth_sensitivity_median(y, eps, delta, 0.0, 6.0, assume_sorted=True), want)
    got_np = cs._smooth_numpy(y, 0.0, 6.0, cs.smooth_beta(eps, delta))
    assert_close(got_np, want)


@example(y=EDGE_Y[0], eps=1e-12, delta=1e-12)  # ε and δ at their small ends
@example(y=EDGE_Y[0], eps=EXP_OVERFLOW, delta=0.9)  # ε where exp overflows
@example(y=EDGE_Y[0], eps=EXP_JUST_OVER, delta=0.9)
@example(y=EDGE_Y[1], eps=EXP_OVERFLOW, delta=1e-12)
@example(y=EDGE_Y[1], eps=EXP_JUST_OVER, delta=1e-12)
@given(y=any_data, eps=eps_st, delta=delta_st)
def test_hyp_eq4_equals_pairs(y, eps, delta):
    assert_close(
        ref.smooth_sensitivity_eq4(y, eps, delta, 0.0, 6.0),
        ref.smooth_sensitivity_pairs(y, eps, delta, 0.0, 6.0),
        1e-14,
    )


@given(
    rows=st.integers(1, 8),
    n=st.integers(1, 40),
    seed=st.integers(0, 2**32 - 1),
    per_row_eps=st.booleans(),
    delta=delta_st,
)
def test_hyp_batch_equals_loop(rows, n, seed, per_row_eps, delta):
    rng = np.random.default_rng(seed)
    samples = np.sort(rng.integers(0, 5, (rows, n)).astype(float), axis=1)
    eps = rng.uniform(0.01, 20.0, rows) if per_row_eps else 0.7
    got = cs.smooth_sensitivity_median_batch(samples, eps, delta, 0.0, 5.0)
    eps_rows = np.broadcast_to(eps, (rows,))
    want = [
        cs.smooth_sensitivity_median(s, float(e), delta, 0.0, 5.0, assume_sorted=True)
        for s, e in zip(samples, eps_rows, strict=True)
    ]
    assert got.shape == (rows,)
    np.testing.assert_array_equal(got, want)


@example(y=EDGE_Y[0], eps=1e-12, delta=1e-12)  # ε and δ at their small ends
@example(y=EDGE_Y[0], eps=EXP_OVERFLOW, delta=0.9)  # ε where exp overflows
@example(y=EDGE_Y[0], eps=EXP_JUST_OVER, delta=0.9)
@example(y=EDGE_Y[1], eps=EXP_OVERFLOW, delta=1e-12)
@example(y=EDGE_Y[1], eps=EXP_JUST_OVER, delta=1e-12)
@given(y=any_data, eps=eps_st, delta=delta_st)
def test_hyp_bounds_of_s(y, eps, delta):
    s = cs.smooth_sensitivity_median(y, eps, delta, 0.0, 6.0, assume_sorted=True)
    ls = cs.local_sensitivity_median(y, 0.0, 6.0, assume_sorted=True)
    assert ls <= s <= 6.0


@example(y=EDGE_Y[0], eps1=1e-12, eps2=EXP_OVERFLOW, delta=1e-12)  # the whole ε range
@example(y=EDGE_Y[0], eps1=1e-12, eps2=EXP_JUST_OVER, delta=1e-12)
@example(y=EDGE_Y[1], eps1=709.0, eps2=EXP_OVERFLOW, delta=0.9)
@example(y=EDGE_Y[1], eps1=709.0, eps2=EXP_JUST_OVER, delta=0.9)
@given(y=any_data, eps1=eps_st, eps2=eps_st, delta=delta_st)
def test_hyp_non_increasing_in_eps(y, eps1, eps2, delta):
    lo_eps, hi_eps = sorted((eps1, eps2))
    s_lo = cs.smooth_sensitivity_median(y, lo_eps, delta, 0.0, 6.0, assume_sorted=True)
    s_hi = cs.smooth_sensitivity_median(y, hi_eps, delta, 0.0, 6.0, assume_sorted=True)
    assert s_hi <= s_lo * (1 + 1e-13)


@example(y=EDGE_Y[0], shift=-1000, eps=1e-12, delta=1e-12)  # ε at its boundaries
@example(y=EDGE_Y[0], shift=1000, eps=EXP_OVERFLOW, delta=0.9)
@example(y=EDGE_Y[0], shift=1000, eps=EXP_JUST_OVER, delta=0.9)
@given(y=small_int_data, shift=st.integers(-1000, 1000), eps=eps_st, delta=delta_st)
def test_hyp_shift_invariance(y, shift, eps, delta):
    # Integer data and shifts: every difference is exact, so the results agree exactly.
    s0 = cs.smooth_sensitivity_median(y, eps, delta, 0.0, 6.0)
    s1 = cs.smooth_sensitivity_median(y + shift, eps, delta, float(shift), 6.0 + shift)
    assert s1 == s0


@example(y=EDGE_Y[0], scale=1e-3, eps=1e-12, delta=1e-12)  # ε at its boundaries
@example(y=EDGE_Y[0], scale=1e3, eps=EXP_OVERFLOW, delta=0.9)
@example(y=EDGE_Y[0], scale=1e3, eps=EXP_JUST_OVER, delta=0.9)
@given(y=any_data, scale=st.floats(1e-3, 1e3), eps=eps_st, delta=delta_st)
def test_hyp_scaling(y, scale, eps, delta):
    s0 = cs.smooth_sensitivity_median(y, eps, delta, 0.0, 6.0)
    s1 = cs.smooth_sensitivity_median(y * scale, eps, delta, 0.0, 6.0 * scale)
    assert_close(s1, scale * s0, 1e-13)
    # Powers of two scale exactly.
    assert cs.smooth_sensitivity_median(y * 8.0, eps, delta, 0.0, 48.0) == 8.0 * s0


@example(y=EDGE_Y[0], eps=1e-12, delta=1e-12)  # ε and δ at their small ends
@example(y=EDGE_Y[0], eps=EXP_OVERFLOW, delta=0.9)  # ε where exp overflows
@example(y=EDGE_Y[0], eps=EXP_JUST_OVER, delta=0.9)
@example(y=EDGE_Y[1], eps=EXP_OVERFLOW, delta=1e-12)
@example(y=EDGE_Y[1], eps=EXP_JUST_OVER, delta=1e-12)
@given(y=any_data, eps=eps_st, delta=delta_st)
def test_hyp_sorting_is_done(y, eps, delta):
    shuffled = np.random.default_rng(0).permutation(y)
    assert cs.smooth_sensitivity_median(shuffled, eps, delta, 0.0, 6.0) == (
        cs.smooth_sensitivity_median(y, eps, delta, 0.0, 6.0, assume_sorted=True)
    )


# ---------------------------------------------------------------------------------------
# Batch
# ---------------------------------------------------------------------------------------


def test_batch_paper_sizes_against_reference():
    rng = np.random.default_rng(9)
    pop = np.sort(rng.lognormal(5, 0.5, 10_001))
    samples = np.sort(pop[np.sort(rng.choice(pop.size, (20, 101)), axis=1)], axis=1)
    eps = np.linspace(0.05, 8.0, 20)
    got = cs.smooth_sensitivity_median_batch(samples, eps, 4.9995e-5, 0.0, 2000.0)
    for r in range(20):
        assert_close(got[r], ref.smooth_sensitivity_eq4(samples[r], eps[r], 4.9995e-5, 0, 2000.0))


def test_batch_delta_per_row_and_empty():
    samples = np.array([[1.0, 2.0, 3.0], [0.0, 0.0, 4.0]])
    got = cs.smooth_sensitivity_median_batch(samples, 1.0, np.array([0.1, 0.01]), 0.0, 4.0)
    assert_close(got[0], ref.smooth_sensitivity_pairs(samples[0], 1.0, 0.1, 0.0, 4.0))
    assert_close(got[1], ref.smooth_sensitivity_pairs(samples[1], 1.0, 0.01, 0.0, 4.0))
    assert cs.smooth_sensitivity_median_batch(np.empty((0, 5)), 1.0, 0.1, 0.0, 1.0).shape == (0,)


def test_batch_accepts_any_layout():
    rng = np.random.default_rng(10)
    samples = np.sort(rng.uniform(0, 1, (6, 9)), axis=1)
    want = cs.smooth_sensitivity_median_batch(samples, 0.5, 0.01, 0.0, 1.0)
    fortran = np.asfortranarray(samples)
    readonly = samples.copy()
    readonly.setflags(write=False)
    strided = np.repeat(samples, 2, axis=0)[::2]
    for arr in (fortran, readonly, strided, samples.tolist()):
        got = cs.smooth_sensitivity_median_batch(arr, 0.5, 0.01, 0.0, 1.0)
        np.testing.assert_array_equal(got, want)
    single = cs.smooth_sensitivity_median(readonly[0], 0.5, 0.01, 0.0, 1.0, assume_sorted=True)
    assert single == want[0]


@pytest.mark.parametrize(
    ("samples", "eps", "delta", "match"),
    [
        (np.array([1.0, 2.0]), 1.0, 0.1, "2-D"),
        (np.empty((3, 0)), 1.0, 0.1, "length 0"),
        (np.array([[1.0, 2.0], [2.0, 1.0]]), 1.0, 0.1, "sorted"),
        (np.array([[1.0, 2.0], [1.0, 9.0]]), 1.0, 0.1, "bounds"),
        (np.array([[1.0, np.nan]]), 1.0, 0.1, "finite"),
        (np.array([[1.0, 2.0], [1.0, 2.0]]), [1.0, 2.0, 3.0], 0.1, "shape"),
        (np.array([[1.0, 2.0], [1.0, 2.0]]), [1.0, -2.0], 0.1, "eps"),
        (np.array([[1.0, 2.0], [1.0, 2.0]]), 1.0, [0.1, 1.0], "delta"),
    ],
)
def test_batch_rejects(samples, eps, delta, match):
    with pytest.raises(ValueError, match=match):
        cs.smooth_sensitivity_median_batch(samples, eps, delta, 0.0, 5.0)
