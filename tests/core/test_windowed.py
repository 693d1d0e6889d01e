"""The windowed sampler (core.windowed) draws exactly the law of a whole SRSWOR sample.

Checked three ways: the subsets it produces are uniform (exact enumeration, chi-square at
fixed seeds), the position of one order statistic follows its exact law at a large N, and
the smooth sensitivity a window certifies equals the whole sample's (the definition,
on every window of random samples).  The experiment run on windows agrees with the one
run on whole samples within Monte Carlo error.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from core import sensitivity as sens
from core.gains import median_gain_experiment
from core.windowed import SampleWindows, window_exponential_draws, window_quantile_draws

# A p-value below this fails a goodness-of-fit test; the seeds are fixed, so a pass is stable.
P_MIN = 1e-4


def _subsets(rng, N: int, n: int, reps: int, steps: list[tuple[int, int]], leaf: int = 64):
    """Whole samples revealed through a sequence of widening windows ``(first, last)``."""
    w = SampleWindows(rng, N, np.full(reps, n), leaf=leaf)
    for first, last in steps:
        w.ensure(np.full(reps, first), np.full(reps, last))
    return w.positions(np.ones(reps, dtype=np.int64), n)


@pytest.mark.parametrize(
    ("N", "n", "steps", "leaf"),
    [
        (9, 4, [(1, 4)], 64),  # whole sample at once, one block (selection sampling)
        (9, 2, [(1, 2)], 64),  # one sparse block (Floyd)
        (9, 4, [(1, 4)], 1),  # split down to single records (halves of 4 and 5, ...)
        (9, 4, [(2, 2), (1, 3), (1, 4)], 1),  # a window widened twice, frontier reused
        (7, 3, [(3, 3), (1, 3)], 2),
        (200, 3, [(2, 2), (1, 3)], 1),  # many splits, sparse
        (140, 70, [(35, 36), (1, 70)], 64),  # one split, then dense blocks
    ],
)
def test_subsets_are_uniform(N: int, n: int, steps: list[tuple[int, int]], leaf: int) -> None:
    rng = np.random.default_rng(20261123)
    if N <= 9:
        reps = 60_000
        pos = _subsets(rng, N, n, reps, steps, leaf)
        index = {c: i for i, c in enumerate(combinations(range(N), n))}
        counts = np.bincount([index[tuple(r)] for r in pos.tolist()], minlength=len(index))
        assert stats.chisquare(counts).pvalue > P_MIN
        return
    # Too many subsets to enumerate: every record is sampled with probability n / N, and
    # every pair with probability n (n - 1) / (N (N - 1)) (checked on neighbouring pairs).
    reps = 20_000
    pos = _subsets(rng, N, n, reps, steps, leaf)
    assert (pos >= 0).all() and (np.diff(pos, axis=1) > 0).all()
    hits = np.bincount(pos.ravel(), minlength=N)
    assert stats.chisquare(hits).pvalue > P_MIN
    taken = np.zeros((reps, N), dtype=bool)
    taken[np.arange(reps)[:, None], pos] = True
    pairs = (taken[:, :-1] & taken[:, 1:]).sum(axis=0)
    p_pair = n * (n - 1) / (N * (N - 1))
    z = (pairs - reps * p_pair) / np.sqrt(reps * p_pair * (1 - p_pair))
    assert stats.chisquare(pairs).pvalue > P_MIN or np.abs(z).max() < 4.5


@pytest.mark.parametrize(("N", "n", "q"), [(10**6, 1_000, 0.5), (10**7, 200_000, 0.9)])
def test_one_order_statistic_has_its_exact_law(N: int, n: int, q: float) -> None:
    """P(X_k <= i) = P(Hypergeometric(N, n, i + 1) >= k) for the record X_k of rank k."""
    reps = 4_000
    k = sens.quantile_rank(n, q)
    w = SampleWindows(np.random.default_rng(7), N, np.full(reps, n))
    w.ensure(np.full(reps, k), np.full(reps, k))
    x = w.positions(np.full(reps, k), 1)[:, 0]
    assert (x >= 0).all()
    u = stats.hypergeom.sf(k - 1, N, n, x + 1)  # P(X_k <= x), continuous enough here
    assert stats.kstest(u, "uniform").pvalue > P_MIN


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


def test_sample_sizes_are_checked() -> None:
    with pytest.raises(ValueError, match="sample sizes"):
        SampleWindows(np.random.default_rng(0), 10, [0, 3])


@pytest.mark.parametrize(
    ("N", "n", "half", "leaf"),
    [(5_000, 400, 8, 64), (5_000, 4_000, 3, 2), (100_000, 2_000, 40, 16), (300, 250, 1, 1)],
)
@pytest.mark.parametrize("beta", [0.0005, 0.02, 0.5, 5.0])
@pytest.mark.parametrize("shape", ["lognormal", "steps"])
def test_unexpanded_blocks_certify_the_same_samples_sensitivity(
    N, n, half, leaf, beta, shape
) -> None:
    """Certify S from a window and the tree's blocks, then reveal the whole same sample.

    "steps": long runs of ties with jumps between them, so that the largest pair often
    reaches far outside a narrow window (a bound that understates a block is caught).
    """
    rng = np.random.default_rng(N + n + half)
    if shape == "steps":
        levels = np.array([0.0, 1.0, 40.0, 41.0, 41.5, 90.0, 200.0])
        values = np.sort(rng.choice(levels, N, p=[0.1, 0.15, 0.2, 0.1, 0.15, 0.2, 0.1]))
    else:
        values = np.sort(np.round(rng.lognormal(3, 1, N), 1))  # ties
    lo, hi = 0.0, float(np.ceil(values[-1])) + 5.0
    reps, q = 200, 0.3
    k = np.full(reps, sens.quantile_rank(n, q))
    w = SampleWindows(rng, N, np.full(reps, n), leaf=leaf)
    todo = np.arange(reps)
    steps = []  # (S, certified) after each widening, checked once the sample is revealed
    while True:
        w.ensure(k - half, k + half)
        first, last, blocks = w.outside(todo, k, values)
        offsets, bf, bl = blocks[:3]
        for r in range(0, reps, 17):  # the blocks and the window cover every rank once
            spans = zip(
                bf[offsets[r] : offsets[r + 1]], bl[offsets[r] : offsets[r + 1]], strict=True
            )
            covered = np.concatenate(
                [np.arange(first[r], last[r] + 1), *(np.arange(f, e + 1) for f, e in spans)]
            )
            assert np.array_equal(np.sort(covered), np.arange(1, n + 1))
        width = int((last - first).max()) + 1
        p = w.positions(first, width, todo)
        cells = np.where(p >= 0, values[np.maximum(p, 0)], np.nan)
        s, ok = sens.smooth_sensitivity_window_batch(
            cells, first, last - first + 1, np.full(reps, n), k, beta, lo, hi, blocks=blocks
        )
        steps.append((s, ok))
        if ok.all():
            break
        half *= 2
    w.ensure(np.ones(reps, dtype=np.int64), np.full(reps, n))
    whole = values[w.positions(np.ones(reps, dtype=np.int64), n)]
    full = sens.smooth_sensitivity_beta_batch(whole, beta, lo, hi, quantile=q)
    for s, ok in steps:
        assert (s <= full * (1 + 1e-12)).all()
        np.testing.assert_allclose(s[ok], full[ok], rtol=1e-12, atol=0)


# ---------------------------------------------------------------------------------------
# The exponential mechanism on windows
# ---------------------------------------------------------------------------------------


def _mixture_cdf(pop, n, eps, lo, hi, q):
    """Exact CDF of the exponential-mechanism release of an SRSWOR sample (all subsets)."""
    from core.mechanisms import exponential_quantile_distribution

    parts = []
    for subset in combinations(range(pop.size), n):
        edges, p = exponential_quantile_distribution(pop[list(subset)], eps, lo, hi, q)
        parts.append((edges, p / p.sum()))

    def cdf(x: np.ndarray) -> np.ndarray:
        total = np.zeros_like(x)
        for edges, p in parts:
            left, right = edges[:-1], edges[1:]
            width = np.where(right > left, right - left, 1.0)
            frac = np.clip((x[:, None] - left[None, :]) / width[None, :], 0.0, 1.0)
            frac = np.where(right[None, :] > left[None, :], frac, x[:, None] >= left[None, :])
            total += (frac * p[None, :]).sum(axis=1)
        return total / len(parts)

    return cdf


@pytest.mark.parametrize(("eps", "q", "first_half"), [(0.3, 0.5, 0), (4.0, 0.3, 1), (40.0, 0.8, 0)])
def test_exponential_windows_have_the_exact_law(eps: float, q: float, first_half: int) -> None:
    """Every ring, exclusion and widening exercised (tiny first windows) on a population of
    nine with ties; the releases against the exact mixture over all 126 samples (KS)."""
    pop = np.array([0.5, 1.0, 1.0, 2.0, 3.5, 3.5, 3.5, 6.0, 9.0])
    lo, hi, n, reps = 0.0, 10.0, 5, 20_000
    rng = np.random.default_rng(int(eps * 10) + first_half)
    stat, rel = window_exponential_draws(
        rng, np.random.default_rng(1), pop, np.full(reps, n), q, [eps], lo, hi,
        first_half=first_half,
    )  # fmt: skip
    assert stats.kstest(rel[0], _mixture_cdf(pop, n, eps, lo, hi, q)).pvalue > P_MIN
    assert set(np.unique(stat)) <= set(pop)


def test_exponential_windows_match_whole_samples() -> None:
    """At a larger N (splits, sparse windows) against the mechanism run on whole samples."""
    from core.mechanisms import ExponentialQuantile

    rng = np.random.default_rng(4)
    pop = np.sort(np.round(rng.lognormal(3, 0.8, 20_000), 1))
    lo, hi, n, reps = 0.0, 500.0, 3_000, 3_000
    eps = [0.02, 1.0]
    _, rel = window_exponential_draws(
        np.random.default_rng(5), np.random.default_rng(6), pop, np.full(reps, n), 0.5, eps,
        lo, hi, first_half=20,
    )  # fmt: skip
    whole = pop[_subsets(np.random.default_rng(7), pop.size, n, reps, [(1, n)])]
    for j, e in enumerate(eps):
        ref = ExponentialQuantile(0.5).release(whole, e, 0.5, lo, hi, np.random.default_rng(8))
        assert stats.ks_2samp(rel[j], ref.released).pvalue > P_MIN


def test_mechanism_comparison_on_windows_agrees_with_whole_samples() -> None:
    """Every quantile mechanism in one call (shared windows plus the exponential's own)."""
    from core.gains import mechanism_comparison

    rng = np.random.default_rng(8)
    pop = np.sort(rng.lognormal(5, 0.5, 3_001))
    common = dict(lower=0.0, upper=1_000.0, eps_target=0.5, rates=[0.02, 0.4], reps=1_500)
    a = mechanism_comparison(pop, seed=1, sampler="full", **common)
    b = mechanism_comparison(pop, seed=2, sampler="window", **common)
    for name in a.experiments:
        x, y = a.experiments[name].summary, b.experiments[name].summary
        rows = ~x["is_population"].to_numpy()
        z = (x["log_mse"] - y["log_mse"]) / np.hypot(x["log_mse_se"], y["log_mse_se"])
        assert np.abs(z[rows]).max() < 4.0, (name, z[rows].round(2).tolist())


def test_exponential_windows_widen_from_a_zero_half_width() -> None:
    """A first window of half-width 0 still widens (it used to double 0 forever)."""
    values = np.sort(np.random.default_rng(4).uniform(0, 1, 2_000))
    stat, released = window_exponential_draws(
        np.random.default_rng(5), np.random.default_rng(6), values, np.full(40, 2_000), 0.5,
        [0.001], 0.0, 1.0, first_half=0,
    )  # fmt: skip
    assert np.isfinite(stat).all() and np.isfinite(released).all()
