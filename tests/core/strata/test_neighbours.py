"""Tests for core.strata.neighbours: data-dependent allocations and neighbouring populations.

The noisy-count attack and the neighbour comparison of Bun et al. 2022, sections 4.1, 7.2
and Appendix E.1.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core import strata as S
from core.populations import EMPLOYEES_TOP_CODE

FAST = settings(max_examples=150, deadline=None)


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
