"""Tests for core.gains.mean: the mean with global sensitivity (Hu et al. Sections 4.1 and 4.2)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import assume, example, given
from hypothesis import strategies as st

from core import amplification as amp
from core import gains
from tests.core.gains.populations import _paper_pop

eps_st = st.floats(min_value=1e-4, max_value=20.0, allow_nan=False)
rate_st = st.floats(min_value=1e-4, max_value=1.0, allow_nan=False, exclude_min=True)


def test_mean_variance_population_hand_value() -> None:
    # eq. 6: V_N = 2 (R / (eps N))^2 with R = 1, eps = 0.5, N = 10,001 -> 8 / 10001^2.
    v = gains.mean_variance_population(0.5, 10_001, 0.0, 1.0)
    assert v == pytest.approx(8.0 / 100_020_001, rel=1e-14)
    assert v == pytest.approx(7.99840016e-8, rel=1e-8)
    # R = 2000 (the lognormal bounds), eps = 0.1, N = 101: 2 * (2000 / 10.1)^2.
    assert gains.mean_variance_population(0.1, 101, 0.0, 2000.0) == pytest.approx(
        2 * (2000 / 10.1) ** 2, rel=1e-14
    )
    arr = gains.mean_variance_population(np.array([0.1, 1.0]), 10, -1.0, 1.0)
    np.testing.assert_allclose(arr, [2 * (2 / 1.0) ** 2, 2 * (2 / 10.0) ** 2])


def test_mean_variance_sample_hand_value_and_population_limit() -> None:
    eps, n, N, s2, lo, hi = 1.0, 100, 1000, 4.0, 0.0, 10.0
    eps_n = math.log(1 + (N / n) * (math.e - 1))
    expected = (1 - n / N) * s2 / n + 2 * (hi - lo) ** 2 / (eps_n * n) ** 2
    assert gains.mean_variance_sample(eps, n, N, s2, lo, hi) == pytest.approx(expected, rel=1e-13)
    # At n = N there is no sampling variance and no amplification: V_n = V_N.
    assert gains.mean_variance_sample(eps, N, N, s2, lo, hi) == pytest.approx(
        gains.mean_variance_population(eps, N, lo, hi), rel=1e-13
    )
    # Vectorised over n.
    out = gains.mean_variance_sample(eps, np.array([10, 100, 1000]), N, s2, lo, hi)
    assert out.shape == (3,)
    assert out[1] == pytest.approx(expected, rel=1e-13)


def test_mean_gain_table_never_gains_and_best_rate_is_population() -> None:
    pop = _paper_pop("lognormal")
    rates = [0.001, 0.01, 0.1, 0.5, 0.9, 0.999]
    eps = [1e-6, 0.01, 0.1, 1.0, 5.0]
    table = gains.mean_gain_table(pop.values, pop.lower, pop.upper, eps, rates)
    assert list(table.columns) == [
        "eps_target",
        "rate",
        "n",
        "eps_sample",
        "V_n",
        "V_N",
        "sampling_part",
        "noise_part",
        "r",
        "gain",
    ]
    assert len(table) == len(rates) * len(eps)
    # r < 1: the sample mean gets more noise than the population mean (eq. 8) ...
    assert (table["r"] < 1).all()
    # ... so V_n > V_N and the gain V_N / V_n - 1 is negative, for every eps and rate.
    assert (table["gain"] < 0).all()
    assert (table["V_n"] > table["V_N"]).all()
    np.testing.assert_allclose(table["V_n"], table["sampling_part"] + table["noise_part"])
    np.testing.assert_allclose(table["noise_part"], table["V_N"] / table["r"], rtol=1e-9)
    np.testing.assert_allclose(table["gain"], table["V_N"] / table["V_n"] - 1, rtol=1e-6, atol=0)
    for e in eps:
        assert gains.best_rate_mean(pop.values, pop.lower, pop.upper, e, rates) == 1.0


def test_mean_gain_table_gain_sign_survives_rounding() -> None:
    # At eps = 1e-12 and rate 0.5 r rounds to 1.0 in double precision, but 1 - r ~ 5e-13.
    values = np.full(11, 0.5)  # S_N^2 = 0: no sampling variance at all
    table = gains.mean_gain_table(values, 0.0, 1.0, [1e-12], [0.5])
    assert table["gain"].iloc[0] < 0


def test_simulate_mean_release_matches_eq7() -> None:
    pop = _paper_pop("lognormal")
    s2 = float(np.var(pop.values, ddof=1))
    reps = 20_000
    # Cases where the sampling part and the noise part are both visible.
    for eps, n, seed in [(0.5, 100, 1), (0.05, 1000, 2), (1.0, 5000, 3)]:
        v_sim = gains.simulate_mean_release(pop.values, pop.lower, pop.upper, eps, n, reps, seed)
        v_n = gains.mean_variance_sample(eps, n, pop.size, s2, pop.lower, pop.upper)
        # The sample variance of `reps` draws has relative sd sqrt((kurtosis - 1) / reps).
        # The release is an (almost normal) sample mean plus independent Laplace noise of
        # variance v_lap, whose fourth cumulant is 3 v_lap^2, so its kurtosis is
        # 3 + 3 w^2 with w = v_lap / v_n (the noise's share of the variance).  4.5 SE:
        eps_s = amp.eps_sample(eps, n / pop.size)
        w = 2 * ((pop.upper - pop.lower) / (eps_s * n)) ** 2 / v_n
        tol = 4.5 * math.sqrt((2 + 3 * w**2) / (reps - 1))
        assert v_sim == pytest.approx(v_n, rel=tol), (eps, n, v_sim, v_n, tol)


def test_no_gain_threshold_formula() -> None:
    eps, rate, delta = 0.5, 0.1, 2.0
    eps_n = math.log(1 + (math.exp(eps) - 1) / rate)
    expected = 2 * delta**2 * (1 / eps**2 - 1 / eps_n**2)
    assert gains.no_gain_threshold(eps, rate, delta) == pytest.approx(expected, rel=1e-13)
    assert gains.no_gain_threshold(eps, 1.0, delta) == 0.0
    out = gains.no_gain_threshold(np.array([0.1, 1.0]), 0.2, 1.0)
    assert out.shape == (2,)


def test_mean_no_gain_threshold_consistent_with_eq7() -> None:
    # For the mean Var(g(S)) >= threshold must imply V_n >= V_N (Section 4.1); here the
    # sensitivity grows on the sample (R/n > R/N), so V_n > V_N holds whatever the variance.
    pop = _paper_pop("lognormal")
    N = pop.size
    R = pop.upper - pop.lower
    for eps in [0.01, 0.5, 3.0]:
        for n in [10, 1000, 9000]:
            s2 = float(np.var(pop.values, ddof=1))
            sampling = (1 - n / N) * s2 / n
            thr = gains.no_gain_threshold(eps, n / N, R / N)
            v_n = gains.mean_variance_sample(eps, n, N, s2, pop.lower, pop.upper)
            v_pop = gains.mean_variance_population(eps, N, pop.lower, pop.upper)
            if sampling >= thr:
                assert v_n >= v_pop


#: Just below log(DBL_MAX) ≈ 709.78: exp(ε) is still finite, exp(ε + 0.01) overflows.
EXP_OVERFLOW = 709.78


#: Just above log(DBL_MAX) ≈ 709.7827: exp(ε) overflows to inf.
EXP_JUST_OVER = 709.79


@example(eps1=1e-12, eps2=EXP_OVERFLOW, n=1, s2=1e4)  # ε from tiny to where exp overflows
@example(eps1=1e-12, eps2=EXP_JUST_OVER, n=1, s2=1e4)
@example(eps1=709.0, eps2=EXP_OVERFLOW, n=10_000, s2=0.0)
@example(eps1=709.0, eps2=EXP_JUST_OVER, n=10_000, s2=0.0)
@given(
    eps1=eps_st,
    eps2=eps_st,
    n=st.integers(min_value=1, max_value=10_000),
    s2=st.floats(min_value=0.0, max_value=1e4),
)
def test_property_v_n_decreases_in_eps(eps1: float, eps2: float, n: int, s2: float) -> None:
    assume(eps1 < eps2)
    N = 10_000
    v1 = gains.mean_variance_sample(eps1, n, N, s2, 0.0, 10.0)
    v2 = gains.mean_variance_sample(eps2, n, N, s2, 0.0, 10.0)
    assert v2 <= v1
    # and V_n never beats V_N (the mean never gains)
    assert v1 >= gains.mean_variance_population(eps1, N, 0.0, 10.0) * (1 - 1e-12)


@example(eps=1e-12, rate1=1e-9, rate2=1 - 1e-12, delta=1.0)  # boundaries of ε and rate
@example(eps=EXP_OVERFLOW, rate1=1e-9, rate2=1.0, delta=1e3)
@example(eps=EXP_JUST_OVER, rate1=1e-9, rate2=1.0, delta=1e3)
@example(eps=20.0, rate1=1 - 1e-12, rate2=1e-9, delta=0.0)
@given(eps=eps_st, rate1=rate_st, rate2=rate_st, delta=st.floats(0.0, 1e3))
def test_property_no_gain_threshold(eps: float, rate1: float, rate2: float, delta: float) -> None:
    t1 = gains.no_gain_threshold(eps, rate1, delta)
    t2 = gains.no_gain_threshold(eps, rate2, delta)
    assert t1 >= 0 and t2 >= 0
    # A smaller rate means a larger eps_sample, hence a larger threshold.
    eps_n1, eps_n2 = amp.eps_sample(eps, rate1), amp.eps_sample(eps, rate2)
    if eps_n1 <= eps_n2:
        assert t1 <= t2 * (1 + 1e-12)
    # It never exceeds V_N = 2 Delta^2 / eps^2 (q < 1).
    assert t1 <= 2 * delta**2 / eps**2 * (1 + 1e-12)


def test_mean_bad_arguments() -> None:
    with pytest.raises(ValueError, match="lower"):
        gains.mean_variance_population(1.0, 10, 1.0, 1.0)
    with pytest.raises(ValueError, match="eps_target"):
        gains.mean_variance_population(0.0, 10, 0.0, 1.0)
    with pytest.raises(ValueError, match="n must"):
        gains.mean_variance_sample(1.0, 11, 10, 1.0, 0.0, 1.0)
    with pytest.raises(ValueError, match="S2_N"):
        gains.mean_variance_sample(1.0, 5, 10, -1.0, 0.0, 1.0)
    with pytest.raises(ValueError, match="rate"):
        gains.no_gain_threshold(1.0, 0.0, 1.0)
    with pytest.raises(ValueError, match="global_sensitivity"):
        gains.no_gain_threshold(1.0, 0.5, -1.0)
    with pytest.raises(ValueError, match="rates"):
        gains.mean_gain_table([0.5, 0.6], 0.0, 1.0, [1.0], [])
    with pytest.raises(ValueError, match="eps_targets"):
        gains.mean_gain_table([0.5, 0.6], 0.0, 1.0, [], [0.5])
    with pytest.raises(ValueError, match="bounds"):
        gains.mean_gain_table([0.5, 1.6], 0.0, 1.0, [1.0], [0.5])
    with pytest.raises(ValueError, match="reps"):
        gains.simulate_mean_release([0.5, 0.6], 0.0, 1.0, 1.0, 1, 1)
    with pytest.raises(ValueError, match="n must"):
        gains.simulate_mean_release([0.5, 0.6], 0.0, 1.0, 1.0, 3, 10)
