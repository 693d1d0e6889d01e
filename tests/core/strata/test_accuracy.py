"""Tests for core.strata.accuracy: variances by enumeration, stratified samples and simulations."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from core import strata as S


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
