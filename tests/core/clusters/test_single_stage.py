"""Tests for core.clusters.single_stage (Bun et al. §5: Theorems 5.1 and 5.2, their inverses).

Layers: hand-computed points of each theorem (exact rationals); a 60-digit mpmath evaluation
of the theorems' formulas written out literally (``tests/core/clusters/references.py``);
hypothesis properties (lower ≤ upper, monotone in size, limits, size 1 = simple random
sampling in the deletion model); overflow at ε = 1000, sizes 10⁵, k = 10⁶; the inverse
direction; and argument validation. Two-stage designs, PPS and systematic sampling, a
population's own clusters and the construction of Theorem 5.1 have their own test modules.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import assume, example, given
from hypothesis import strategies as st

from core import amplification as amp
from core import clusters as cl
from tests.core.clusters.references import (
    ALMOST_ALL,
    EPS,
    EXP_JUST_OVER,
    EXP_OVERFLOW,
    FAST,
    LN2,
    LN3,
    LN5,
    RARE,
    SIZES,
    _close,
    brute_force_witness,
    designs,
    theorem,
)

# ---------------------------------------------------------------------------------------
# Hand-computed points
# ---------------------------------------------------------------------------------------


def test_hand_computed_theorem_51_52_unequal_sizes() -> None:
    # ε = ln 3 (e^ε − 1 = 2), k = 4, ℓ = 1 (q = 1/4), n_i = 1, n_min = 1, n_max = 2.
    # Lower, s = 2: e^{−2 ln 3} = 1/9, denominator 1/4 + (3/4)(1/9) = 1/3,
    #   ε' = ln(1 + (1/4)(2)/(1/3)) = ln 2.5.
    # Upper, s = 3: e^{−3 ln 3} = 1/27, denominator 1/4 + (3/4)(1/27) = 5/18,
    #   ε' = ln(1 + (1/2)(18/5)) = ln 2.8.
    lower, upper = cl.cluster_eps_bounds(LN3, 4, 1, 1, 1, 2)
    assert lower == pytest.approx(math.log(2.5), rel=1e-15)
    assert upper == pytest.approx(math.log(2.8), rel=1e-15)


def test_hand_computed_equal_sizes_coincide() -> None:
    # ε = ln 2 (e^ε − 1 = 1), k = 2, ℓ = 1 (q = 1/2), singletons: s = 2, e^{−2 ln 2} = 1/4,
    # ε' = ln(1 + (1/2)/(1/2 + 1/8)) = ln 1.8.
    lower, upper = cl.cluster_eps_bounds(LN2, 2, 1, 1, 1, 1)
    assert lower == upper == pytest.approx(math.log(1.8), rel=1e-15)


def test_hand_computed_ten_clusters() -> None:
    # ε = ln 5 (e^ε − 1 = 4), k = 10, ℓ = 2 (q = 0.2), n_i = n_min = 1 (s = 2, e^{−sε} = 1/25)
    # and n_max = 3 (s = 4, e^{−sε} = 1/625):
    # lower = ln(1 + 0.8/(0.2 + 0.8/25)) = ln(1 + 0.8/0.232)
    # upper = ln(1 + 0.8/(0.2 + 0.8/625)) = ln(1 + 0.8/0.20128)
    lower, upper = cl.cluster_eps_bounds(LN5, 10, 2, 1, 1, 3)
    assert lower == pytest.approx(math.log(1 + 0.8 / 0.232), rel=1e-14)
    assert upper == pytest.approx(math.log(1 + 0.8 / 0.20128), rel=1e-14)
    # Simple random sampling of 20 % of the records, eq. (3): ln(1 + 0.2·4) = ln 1.8.
    assert cl.srs_eps(LN5, 10, 2) == pytest.approx(math.log(1.8), rel=1e-15)


def test_hand_computed_srs_and_inverse() -> None:
    assert cl.srs_eps(LN3, 4, 1) == pytest.approx(math.log(1.5), rel=1e-15)
    # Inverse of the second example: ε' = ln 1.8 at k = 2, ℓ = 1, ε = ln 2 needs s = 2.
    assert cl.combined_size_for_eps(LN2, 2, 1, math.log(1.8)) == pytest.approx(2.0, rel=1e-12)


# ---------------------------------------------------------------------------------------
# Against the theorems evaluated literally in 60 digits
# ---------------------------------------------------------------------------------------

POINTS = [
    # eps, k, ell, n_i, n_min, n_max
    (0.1, 1000, 100, 10, 10, 10),
    (0.1, 1000, 100, 10, 5, 100),
    (1.0, 10, 1, 1, 1, 1),
    (1.0, 10, 9, 3, 2, 7),
    (1e-6, 10**6, 1, 1, 1, 10**5),
    (1e-9, 50, 7, 1000, 1, 10**5),
    (0.01, 10**6, 10**5, 100, 1, 10**4),
    (3.0, 100, 50, 1, 1, 2),
    (20.0, 10**6, 1, 1, 1, 1),
    (700.0, 10**6, 3, 1, 1, 1),
    (710.0, 10**6, 3, 1, 1, 1),
    (1000.0, 10**6, 1, 1, 1, 1),
    (1000.0, 10**6, 10**5, 10**5, 10**5, 10**5),
    (1000.0, 10**6, 999_999, 1, 1, 10**5),
]


@pytest.mark.parametrize(("eps", "k", "ell", "ni", "lo", "hi"), POINTS)
def test_bounds_match_the_theorems_in_60_digits(eps, k, ell, ni, lo, hi) -> None:
    lower, upper = cl.cluster_eps_bounds(eps, k, ell, ni, lo, hi)
    assert _close(lower, theorem(eps, k, ell, ni + lo)), (lower, theorem(eps, k, ell, ni + lo))
    assert _close(upper, theorem(eps, k, ell, ni + hi)), (upper, theorem(eps, k, ell, ni + hi))
    assert math.isfinite(lower) and math.isfinite(upper)


@FAST
@example(log_eps=-12.0, log_k=9.0, frac=0.0, s=1e6)  # ε = 1e-12, rate 1e-9
@example(log_eps=math.log10(709.78), log_k=9.0, frac=1.0, s=1.0)  # where exp overflows
@example(log_eps=math.log10(709.79), log_k=9.0, frac=1.0, s=1.0)
@example(log_eps=math.log10(709.78), log_k=9.0, frac=1 - 1e-12, s=1e6)
@given(
    log_eps=st.floats(-12, 3),
    log_k=st.floats(0.31, 9),
    frac=st.floats(0, 1),
    s=st.floats(0, 1e6),
)
def test_cluster_eps_matches_reference_everywhere(log_eps, log_k, frac, s) -> None:
    eps = 10.0**log_eps
    k = max(2, round(10.0**log_k))
    ell = min(k, max(1, round(frac * k)))
    got = cl.cluster_eps(eps, k, ell, s)
    assert _close(got, theorem(eps, k, ell, s), rtol=2e-14)


def test_extreme_arguments_stay_finite_and_exact() -> None:
    # ε = 1000, sizes 10⁵, k = 10⁶: e^{εs} = e^{2·10⁸} and e^ε overflow a double.
    lower, upper = cl.cluster_eps_bounds(1000.0, 10**6, 1, 10**5, 10**5, 10**5)
    assert lower == upper == 1000.0
    # Even singletons at ε = 1000: e^{−2ε} = e^{−2000} is negligible next to ℓ/k = 10⁻⁶, so
    # a single pair of records already gives the sample away.
    lower, _ = cl.cluster_eps_bounds(1000.0, 10**6, 1, 1, 1, 1)
    assert lower == 1000.0
    # Without the cluster effect (eq. 3) the same design would give ε + ln(ℓ/k).
    assert cl.srs_eps(1000.0, 10**6, 1) == pytest.approx(1000.0 + math.log(1e-6), rel=1e-15)
    # Tiny ε with huge clusters: sε = 2·10⁻¹ still amplifies.
    lower, upper = cl.cluster_eps_bounds(1e-6, 10**6, 10**3, 10**5, 10**5, 10**5)
    assert _close(lower, theorem(1e-6, 10**6, 10**3, 2e5))
    assert lower < 1e-6
    # Arrays spanning the whole range at once.
    eps = np.array([1e-12, 1e-3, 1.0, 700.0, 710.0, 1000.0])
    lower, upper = cl.cluster_eps_bounds(eps, 10**6, 10, 10**5, 1, 10**5)
    assert np.all(np.isfinite(lower)) and np.all(np.isfinite(upper))
    assert np.all(lower <= upper) and np.all(upper <= eps)


# ---------------------------------------------------------------------------------------
# Properties the issue asks for
# ---------------------------------------------------------------------------------------


@FAST
@example(eps=1e-9, design=RARE, ni=1, a=1, b=10**5)  # the ε and rate boundaries
@example(eps=EXP_OVERFLOW, design=RARE, ni=10**5, a=1, b=10**5)
@example(eps=EXP_JUST_OVER, design=RARE, ni=10**5, a=1, b=10**5)
@example(eps=EXP_OVERFLOW, design=ALMOST_ALL, ni=1, a=1, b=1)
@example(eps=EXP_JUST_OVER, design=ALMOST_ALL, ni=1, a=1, b=1)
@given(eps=EPS, design=designs(), ni=SIZES, a=SIZES, b=SIZES)
def test_lower_never_exceeds_upper(eps, design, ni, a, b) -> None:
    k, ell = design
    lo, hi = sorted((a, b))
    lower, upper = cl.cluster_eps_bounds(eps, k, ell, ni, lo, hi)
    srs = cl.srs_eps(eps, k, ell)
    assert srs * (1 - 1e-13) <= lower <= upper <= eps


@FAST
@example(eps=1e-9, design=RARE, n=10**5)  # the ε and rate boundaries
@example(eps=EXP_OVERFLOW, design=ALMOST_ALL, n=1)
@example(eps=EXP_JUST_OVER, design=ALMOST_ALL, n=1)
@given(eps=EPS, design=designs(), n=SIZES)
def test_equal_sizes_make_the_bounds_coincide(eps, design, n) -> None:
    k, ell = design
    lower, upper = cl.cluster_eps_bounds(eps, k, ell, n, n, n)
    assert lower == upper


@FAST
@example(eps=1e-9, design=RARE, n=1, step=10**4)  # the ε and rate boundaries
@example(eps=EXP_OVERFLOW, design=ALMOST_ALL, n=1, step=1)
@example(eps=EXP_JUST_OVER, design=ALMOST_ALL, n=1, step=1)
@given(eps=EPS, design=designs(), n=st.integers(1, 10**4), step=st.integers(1, 10**4))
def test_bounds_increase_with_cluster_size(eps, design, n, step) -> None:
    k, ell = design
    small = cl.cluster_eps_bounds(eps, k, ell, n, n, n)
    large = cl.cluster_eps_bounds(eps, k, ell, n + step, n + step, n + step)
    assert large.lower >= small.lower * (1 - 4e-16)
    assert large.upper >= small.upper * (1 - 4e-16)
    # Each size argument on its own, too.
    assert cl.cluster_eps_bounds(eps, k, ell, n + step, n, n + step).lower >= small.lower * (
        1 - 4e-16
    )


@FAST
@given(eps=st.floats(1e-3, 1e3), design=designs())
def test_bounds_approach_eps_as_clusters_grow(eps, design) -> None:
    k, ell = design
    # Once sε exceeds ln((k − ℓ)/ℓ) + 40 the remaining gap is below e^{−40} ε.
    n = math.ceil((math.log(k) + 40) / (2 * eps))
    lower, _ = cl.cluster_eps_bounds(eps, k, ell, n, n, n)
    assert lower == pytest.approx(eps, rel=1e-15)
    sizes = np.unique(np.round(np.geomspace(1, 10**5, 60)))
    curve = np.asarray(cl.cluster_eps_bounds(eps, k, ell, sizes, sizes, sizes).lower)
    assert np.all(np.diff(curve) >= -4e-16 * curve[1:])


@FAST
@example(eps=1e-9, k=10**6, ell_frac=0.0, n=1)  # the ε and rate boundaries
@example(eps=EXP_OVERFLOW, k=10**6, ell_frac=1 - 1e-12, n=1000)
@example(eps=EXP_JUST_OVER, k=10**6, ell_frac=1 - 1e-12, n=1000)
@given(eps=EPS, k=st.integers(2, 10**6), ell_frac=st.floats(0, 1), n=st.integers(1, 1000))
def test_more_clusters_drawn_means_larger_eps(eps, k, ell_frac, n) -> None:
    ell = min(k - 1, max(1, round(ell_frac * k)))
    assume(ell < k)
    assert cl.cluster_eps(eps, k, ell + 1, 2 * n) >= cl.cluster_eps(eps, k, ell, 2 * n) * (
        1 - 4e-16
    )
    assert cl.cluster_eps(eps, k, k, 2 * n) == eps


# Size 1 with k clusters is simple random sampling of ℓ out of k records (Bun et al. §5.1).


@FAST
@example(eps=1e-9, design=RARE)  # the ε and rate boundaries
@example(eps=EXP_OVERFLOW, design=ALMOST_ALL)
@example(eps=EXP_JUST_OVER, design=ALMOST_ALL)
@given(eps=EPS, design=designs())
def test_singletons_are_srs_in_the_deletion_model(eps, design) -> None:
    k, ell = design
    q = ell / k
    lower, upper = cl.cluster_eps_bounds(eps, k, ell, 1, 1, 1)
    assert lower == upper
    # The deletion-model value: a drawn record and a neighbour's extra record in the same
    # "cluster" differ in s = 2 records.
    assert _close(lower, theorem(eps, k, ell, 2), rtol=2e-14)
    # It is never below eq. (3) (Theorem 2.2, replacement model), ...
    assert lower >= amp.eps_target(eps, q) * (1 - 1e-14)


@pytest.mark.parametrize(("k", "ell"), [(10, 1), (100, 10), (10**6, 10**3), (7, 6)])
def test_singletons_agree_with_eq3_to_first_order(k, ell) -> None:
    # ... and the discrepancy "due to moving from the replacement to the deletion model"
    # vanishes to first order: ε'(size 1)/ε'_SRS = 1 + O(ε).
    for eps in (1e-2, 1e-4, 1e-6, 1e-8):
        ratio = cl.cluster_eps_bounds(eps, k, ell, 1, 1, 1).lower / cl.srs_eps(eps, k, ell)
        assert 1.0 <= ratio <= 1.0 + 3 * eps


@pytest.mark.parametrize("eps", [0.1, 1.0, 3.0])
def test_singletons_are_what_the_brute_force_construction_gives(eps) -> None:
    # k = 6 singleton clusters, ℓ = 2: enumerate the 15 samples.
    value = cl.cluster_eps_bounds(eps, 6, 2, 1, 1, 1).lower
    assert value == pytest.approx(brute_force_witness(eps, 2, 1, [1] * 5), rel=1e-9)


def test_srs_comparison_uses_the_expected_fraction_of_records() -> None:
    assert cl.records_fraction(1000, 100) == 0.1
    assert cl.records_fraction(1000, 100, 0.5) == 0.05
    assert cl.srs_eps(0.7, 1000, 100) == amp.eps_target(0.7, 0.1)
    assert cl.srs_eps(0.7, 1000, 100, 0.5) == amp.eps_target(0.7, 0.05)
    # SRS is the cluster expression at combined size 0.
    assert cl.cluster_eps(0.7, 1000, 100, 0.0) == pytest.approx(cl.srs_eps(0.7, 1000, 100))


# ---------------------------------------------------------------------------------------
# Inverse, two-stage, Theorem 5.3
# ---------------------------------------------------------------------------------------


@FAST
@given(eps=st.floats(1e-4, 30.0), design=designs(), t=st.floats(0.001, 0.999))
def test_combined_size_round_trip(eps, design, t) -> None:
    k, ell = design
    assume(ell < k)
    srs = cl.srs_eps(eps, k, ell)
    target = srs + t * (eps - srs)
    assume(srs < target < eps * (1 - 1e-9))
    s = cl.combined_size_for_eps(eps, k, ell, target)
    assert cl.cluster_eps(eps, k, ell, s) == pytest.approx(target, rel=1e-8)


def test_combined_size_edges() -> None:
    assert cl.combined_size_for_eps(1.0, 10, 1, 0.01) == 0.0  # below SRS: every size
    assert cl.combined_size_for_eps(1.0, 10, 1, 1.0) == math.inf  # ε itself: no size
    assert cl.combined_size_for_eps(1.0, 10, 10, 0.5) == 0.0  # ℓ = k: already ε


# ---------------------------------------------------------------------------------------
# Types, broadcasting and validation
# ---------------------------------------------------------------------------------------


def test_scalars_give_floats_and_arrays_broadcast() -> None:
    lower, upper = cl.cluster_eps_bounds(0.5, 100, 10, 5, 5, 5)
    assert type(lower) is float and type(upper) is float
    lower, upper = cl.cluster_eps_bounds([0.1, 0.5], 100, 10, [[1], [10], [100]], 1, 100)
    assert lower.shape == upper.shape == (3, 2)
    assert type(cl.srs_eps(0.5, 100, 10)) is float
    assert cl.cluster_eps(0.5, 100, np.array([1, 10, 100]), 4).shape == (3,)
    assert np.shape(cl.systematic_eps_bounds([0.1, 1.0], 1000, 10).upper) == (2,)
    assert type(cl.inclusion_eps(1.0, 0.3)) is float


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"eps_sample": 0.0}, "eps_sample must be a finite number > 0"),
        ({"eps_sample": -1.0}, "eps_sample must be a finite number > 0"),
        ({"eps_sample": math.inf}, "eps_sample must be a finite number > 0"),
        ({"eps_sample": math.nan}, "eps_sample must be a finite number > 0"),
        ({"eps_sample": "big"}, "eps_sample must be a number"),
        ({"eps_sample": True}, "eps_sample must be a number, not a boolean"),
        ({"clusters_total": 10.5}, "clusters_total must be a whole number"),
        ({"clusters_total": 0}, "clusters_total must be a whole number ≥ 1"),
        ({"clusters_sampled": 0}, "clusters_sampled must be a whole number ≥ 1"),
        ({"clusters_sampled": 11}, "clusters_sampled must not exceed clusters_total"),
        ({"size_i": 0}, "size_i must be a whole number ≥ 1"),
        ({"size_min": 2.5}, "size_min must be a whole number"),
        ({"size_max": math.inf}, "size_max must be a whole number"),
        ({"size_min": 5, "size_max": 4}, "size_min must not exceed size_max"),
        ({"size_i": [1, 2], "size_min": [1, 2, 3]}, "cannot be broadcast"),
    ],
)
def test_invalid_bounds_arguments_raise_clear_errors(kwargs, message) -> None:
    args = {
        "eps_sample": 1.0,
        "clusters_total": 10,
        "clusters_sampled": 2,
        "size_i": 3,
        "size_min": 1,
        "size_max": 4,
    }
    args.update(kwargs)
    with pytest.raises(ValueError, match=message):
        cl.cluster_eps_bounds(**args)


def test_other_invalid_arguments() -> None:
    with pytest.raises(ValueError, match="within_rate must be in the interval"):
        cl.two_stage_eps_upper(1.0, 10, 2, 3, 4, 0.0)
    with pytest.raises(ValueError, match="test_eps must be a finite number ≥ 0"):
        cl.hypothesis_test_bound(1.0, -1.0, 10, 2)
    with pytest.raises(ValueError, match="inclusion_probability must be in the interval"):
        cl.inclusion_eps(1.0, 1.5)
    with pytest.raises(ValueError, match="size_measures must be finite numbers ≥ 0"):
        cl.pps_inclusion_probabilities([1.0, -2.0], 1)
    with pytest.raises(ValueError, match="at least one positive"):
        cl.pps_inclusion_probabilities([0.0, 0.0], 1)
    with pytest.raises(ValueError, match="must not exceed the 2 units"):
        cl.pps_inclusion_probabilities([1.0, 2.0, 0.0], 3)
    with pytest.raises(ValueError, match="interval must not exceed population_size"):
        cl.systematic_eps_bounds(1.0, 10, 11)
    with pytest.raises(ValueError, match="interval must be a whole number ≥ 2"):
        cl.systematic_eps_bounds(1.0, 10, 1)
    with pytest.raises(ValueError, match="at least two clusters"):
        cl.per_cluster_bounds(1.0, [5], 1)
    with pytest.raises(ValueError, match="one entry per cluster"):
        cl.per_cluster_bounds(1.0, [5, 6], 1, labels=["a"])
    with pytest.raises(ValueError, match="one or two aligned entries"):
        cl.witness_eps(1.0, 1, 1, [1, 2, 3], [1, 1, 1])
    with pytest.raises(ValueError, match="clusters_sampled must not exceed"):
        cl.witness_eps(1.0, 5, 1, [1], [3])
    with pytest.raises(ValueError, match="eps_target must be a finite number > 0"):
        cl.combined_size_for_eps(1.0, 10, 2, 0.0)
    with pytest.raises(ValueError, match="labels must be a non-empty"):
        cl.cluster_sizes([])


# ---------------------------------------------------------------------------------------
# The inverse direction: ε_target in, ε_sample out (issue 10, item 7)
# ---------------------------------------------------------------------------------------


@FAST
@given(
    t=st.floats(1e-10, 500.0),
    k=st.integers(2, 10**6),
    frac=st.floats(1e-6, 1.0),
    s=st.floats(0.0, 1e5),
)
def test_eps_sample_for_target_round_trips(t, k, frac, s):
    ell = max(1, min(k, round(frac * k)))
    e = cl.eps_sample_for_target(t, k, ell, s)
    assert t <= e <= amp.eps_sample(t, ell / k) * (1 + 1e-12)
    back = cl.cluster_eps(e, k, ell, s)
    # Where the bound is flat at ε (huge clusters) any ε_sample ≥ t maps to t; otherwise exact.
    assert back == pytest.approx(t, rel=1e-9)


@FAST
@given(t=st.floats(1e-8, 50.0), k=st.integers(3, 10**5), s=st.floats(0.0, 1e3))
def test_eps_sample_for_target_is_monotone(t, k, s):
    ell = max(1, k // 3)
    e1 = cl.eps_sample_for_target(t, k, ell, s)
    assert cl.eps_sample_for_target(t * 1.5, k, ell, s) >= e1  # more promised, more allowed
    assert cl.eps_sample_for_target(t, k, ell, s + 10.0) <= e1 * (1 + 1e-12)  # larger clusters


def test_eps_sample_for_target_limits():
    t, k, ell = 0.3, 1000, 100
    # s = 0: simple random sampling (eq. 3), whose inverse is Hu et al.'s eps_sample.
    assert cl.eps_sample_for_target(t, k, ell, 0.0) == pytest.approx(
        amp.eps_sample(t, ell / k), rel=1e-12
    )
    # Huge clusters: no amplification, ε_sample = ε_target.
    assert cl.eps_sample_for_target(t, k, ell, 1e7) == t
    # Every cluster drawn: no amplification.
    assert cl.eps_sample_for_target(t, k, k, 5.0) == t
    # Extremes stay finite and exact.
    assert cl.eps_sample_for_target(1000.0, 10**6, 1, 0.0) == pytest.approx(1000 + math.log(1e6))
    tiny = cl.eps_sample_for_target(1e-12, 10, 1, 2.0)
    assert cl.cluster_eps(tiny, 10, 1, 2.0) == pytest.approx(1e-12, rel=1e-12)


def test_eps_sample_for_target_matches_a_hand_computed_equal_size_point():
    # k = 2, ℓ = 1, equal clusters of n: s = 2n. With ε_sample = ln 3 and s = 0:
    # ε' = ln(1 + (1/2)·2/(1/2 + 1/2)) = ln 2, so the inverse of ln 2 at s = 0 is ln 3.
    assert cl.eps_sample_for_target(LN2, 2, 1, 0.0) == pytest.approx(LN3, rel=1e-13)
    # Paper example (Bun et al. §5.1, text after Theorem 5.2): as (n_i + n_min)·ε grows the
    # bound reaches ε, so households of 1,000 give no room: ε_sample = ε_target.
    assert cl.eps_sample_for_target(1.0, 1000, 100, 2000.0) == pytest.approx(1.0, rel=1e-12)


def test_eps_sample_bounds_for_target_invert_both_theorems():
    t, k, ell, ni, lo, hi = 0.2, 500, 50, 8, 3, 40
    safe, unsafe = cl.eps_sample_bounds_for_target(t, k, ell, ni, lo, hi)
    assert safe < unsafe
    lower, upper = cl.cluster_eps_bounds(safe, k, ell, ni, lo, hi)
    assert upper == pytest.approx(t, rel=1e-10)  # Theorem 5.2 just meets the target
    lower, upper = cl.cluster_eps_bounds(unsafe, k, ell, ni, lo, hi)
    assert lower == pytest.approx(t, rel=1e-10)  # Theorem 5.1 just meets the target
    same = cl.eps_sample_bounds_for_target(t, k, ell, 10, 10, 10)
    assert same.lower == same.upper


@pytest.mark.parametrize(
    "args",
    [
        (0.0, 10, 1, 1.0),
        (-1.0, 10, 1, 1.0),
        (math.inf, 10, 1, 1.0),
        (0.1, 10, 11, 1.0),
        (0.1, 10, 1, -1.0),
    ],
)
def test_eps_sample_for_target_rejects_bad_arguments(args):
    with pytest.raises(ValueError):
        cl.eps_sample_for_target(*args)


def test_eps_sample_for_target_never_below_eps_target_by_rounding() -> None:
    # Found by hypothesis: the inversion landed one ulp below ε_target (sampling never costs
    # privacy, so ε_sample ≥ ε_target must hold exactly).
    t = 78.21875
    assert cl.eps_sample_for_target(t, 298, 1, 0.46875) >= t
    values = cl.eps_sample_for_target(np.array([t, 1.0]), 298, 1, 0.46875)
    assert np.all(values >= np.array([t, 1.0]))
