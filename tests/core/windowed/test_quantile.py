"""Quantiles and smooth sensitivities drawn from windows (core.windowed.quantile).

A certified window gives the whole sample's S (the definition, on every window of random
samples); the draws match whole samples in law (two-sample KS); the experiment run on
windows agrees with the one run on whole samples within Monte Carlo error.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from core import sensitivity as sens
from core.gains import median_gain_experiment
from core.windowed import window_quantile_draws
from tests.core.windowed.samples import subsets as _subsets

# A p-value below this fails a goodness-of-fit test; the seeds are fixed, so a pass is stable.
P_MIN = 1e-4


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(1, 60),
    beta=st.sampled_from([1e-4, 0.01, 0.3, 2.0, 50.0]),
    q=st.sampled_from([0.1, 0.5, 0.77]),
    seed=st.integers(0, 2**32 - 1),
    ties=st.booleans(),
)
def test_a_certified_window_gives_the_whole_samples_sensitivity(n, beta, q, seed, ties) -> None:
    rng = np.random.default_rng(seed)
    y = np.sort(rng.uniform(0, 10, n))
    if ties:
        y = np.round(y)
    lo, hi = -1.0, 11.0
    k = sens.quantile_rank(n, q)
    full = sens.smooth_sensitivity_beta_batch(y[None, :], beta, lo, hi, quantile=q)[0]
    for a in range(1, k + 1):
        for b in range(k, n + 1):
            s, ok = sens.smooth_sensitivity_window_batch(
                y[None, a - 1 : b], [a], [b - a + 1], [n], [k], beta, lo, hi
            )
            assert s[0] <= full * (1 + 1e-12)  # a window never overstates S
            if ok[0]:
                assert s[0] == pytest.approx(full, rel=1e-12, abs=0)
            if a == 1 and b == n:
                assert ok[0]


def test_window_draws_match_whole_samples_in_law() -> None:
    """Statistic and S from windows against whole samples (independent draws), two-sample KS."""
    rng = np.random.default_rng(11)
    pop = np.sort(np.round(rng.lognormal(5, 0.5, 5_001)))  # ties
    lo, hi, n, reps, betas = 0.0, 1_000.0, 400, 4_000, [0.002, 0.05, 1.0]
    stat, S = window_quantile_draws(rng, pop, np.full(reps, n), 0.5, betas, lo, hi)
    whole = _subsets(np.random.default_rng(12), pop.size, n, reps, [(1, n)])
    samples = pop[whole]
    k = sens.quantile_rank(n, 0.5)
    assert stats.ks_2samp(stat, samples[:, k - 1]).pvalue > P_MIN
    for j, beta in enumerate(betas):
        ref = sens.smooth_sensitivity_beta_batch(samples, beta, lo, hi)
        assert stats.ks_2samp(S[j], ref).pvalue > P_MIN


def test_poisson_sizes_and_tiny_samples() -> None:
    rng = np.random.default_rng(3)
    pop = np.sort(rng.uniform(0, 1, 1_000))
    sizes = np.maximum(rng.binomial(pop.size, 0.003, 500), 1)  # many samples of 1, 2, 3
    stat, S = window_quantile_draws(rng, pop, sizes, 0.5, [0.5], 0.0, 1.0)
    assert np.isfinite(stat).all() and (S > 0).all()
    one = sizes == 1
    # A sample of one record y: the pairs (0, 1), (1, 2) and (0, 2) of padded ranks give
    # S = max(y - 0, 1 - y, (1 - 0) e^-beta).
    expected = np.maximum(np.maximum(stat[one], 1 - stat[one]), np.exp(-0.5))
    assert S[0, one] == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize(
    "mechanism", ["smooth_laplace", "smooth_pure", "global_laplace", "exponential"]
)
@pytest.mark.parametrize("tied", [False, True])
def test_experiment_on_windows_agrees_with_whole_samples(mechanism: str, tied: bool) -> None:
    """log(MSE) per (eps_target, rate) within Monte Carlo error (independent seeds)."""
    rng = np.random.default_rng(5)
    pop = np.sort(rng.lognormal(5, 0.5, 3_001))
    if tied:
        pop = np.round(pop)  # ties at every value (a heavier rounding makes the MSE a rare event)
    common = dict(
        lower=0.0, upper=1_000.0, eps_targets=[0.1, 2.0], rates=[0.001, 0.05, 0.6],
        reps=1_500, mechanism=mechanism,
    )  # fmt: skip
    a = median_gain_experiment(pop, seed=1, sampler="full", **common).summary
    b = median_gain_experiment(pop, seed=2, sampler="window", **common).summary
    rows = ~a["is_population"].to_numpy()
    assert (a["n"] == b["n"]).all()
    z = (a["log_mse"] - b["log_mse"]) / np.hypot(a["log_mse_se"], b["log_mse_se"])
    assert np.abs(z[rows]).max() < 4.0, z[rows].round(2).tolist()


def test_sampler_choice_is_checked() -> None:
    pop = np.linspace(0, 1, 101)
    with pytest.raises(ValueError, match="sampler must be one of"):
        median_gain_experiment(
            pop, lower=0, upper=1, eps_targets=[1], rates=[0.5], reps=2, sampler="fast"
        )
    with pytest.raises(ValueError, match="need the whole sample"):
        median_gain_experiment(
            pop, lower=0, upper=1, eps_targets=[1], rates=[0.5], reps=2,
            sampler="window", mechanism="laplace",
        )  # fmt: skip
