"""The exponential mechanism's release, drawn ring by ring from windows.

Against the exact mixture over every sample of a tiny tied population, and against the
mechanism run on whole samples at a larger N.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest
from scipy import stats

from core.windowed import window_exponential_draws
from tests.core.windowed.samples import subsets as _subsets

# A p-value below this fails a goodness-of-fit test; the seeds are fixed, so a pass is stable.
P_MIN = 1e-4


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
    """Every windowed quantile mechanism in one call (shared windows plus the exponential's
    own); the mechanisms that need the whole sample are refused by ``sampler='window'``."""
    from core import mechanisms as mech
    from core.gains import QUANTILE_MECHANISMS, mechanism_comparison

    windowed = [m for m in QUANTILE_MECHANISMS if mech.MECHANISMS[m].windowed]
    assert {"smooth_laplace", "smooth_pure", "exponential", "global_laplace"} <= set(windowed)
    rng = np.random.default_rng(8)
    pop = np.sort(rng.lognormal(5, 0.5, 3_001))
    common = dict(
        lower=0.0,
        upper=1_000.0,
        eps_target=0.5,
        rates=[0.02, 0.4],
        reps=1_500,
        mechanisms=windowed,
    )
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


def _piecewise_mixture_cdf(pop, n, eps, lo, hi, q):
    """Exact CDF of the piecewise-Laplace release of an SRSWOR sample (all subsets): in
    each piece the distance from its near end is ``T w`` with density ``∝ e^(-eps T / 2)``."""
    from core.mechanisms import piecewise_laplace_distribution

    parts = [
        piecewise_laplace_distribution(pop[list(subset)], eps, lo, hi, q)
        for subset in combinations(range(pop.size), n)
    ]
    c = eps / 2.0

    def cdf(x: np.ndarray) -> np.ndarray:
        total = np.zeros_like(x)
        for edges, p, direction in parts:
            left, right = edges[:-1], edges[1:]
            width = np.where(right > left, right - left, 1.0)
            frac = np.clip((x[:, None] - left[None, :]) / width[None, :], 0.0, 1.0)
            # P(T <= t) = expm1(-c t) / expm1(-c); a left piece is read from its right end.
            near_left = np.expm1(-c * frac) / np.expm1(-c)
            near_right = 1.0 - np.expm1(-c * (1.0 - frac)) / np.expm1(-c)
            share = np.where(direction[None, :] > 0, near_left, near_right)
            share = np.where(right[None, :] > left[None, :], share, x[:, None] >= left[None, :])
            total += (share * p[None, :]).sum(axis=1)
        return total / len(parts)

    return cdf


@pytest.mark.parametrize(("eps", "q", "first_half"), [(0.3, 0.5, 0), (4.0, 0.3, 1), (40.0, 0.8, 0)])
def test_piecewise_laplace_windows_have_the_exact_law(
    eps: float, q: float, first_half: int
) -> None:
    """``piecewise=True``: the rings centred on ``k - 1/2`` and the truncated exponential
    inside the piece, against the exact mixture over all 126 samples of the tied nine (KS)."""
    pop = np.array([0.5, 1.0, 1.0, 2.0, 3.5, 3.5, 3.5, 6.0, 9.0])
    lo, hi, n, reps = 0.0, 10.0, 5, 20_000
    rng = np.random.default_rng(int(eps * 10) + first_half + 50)
    stat, rel = window_exponential_draws(
        rng, np.random.default_rng(2), pop, np.full(reps, n), q, [eps], lo, hi,
        first_half=first_half, piecewise=True,
    )  # fmt: skip
    assert stats.kstest(rel[0], _piecewise_mixture_cdf(pop, n, eps, lo, hi, q)).pvalue > P_MIN
    assert set(np.unique(stat)) <= set(pop)
    # The plain exponential mechanism's law is another one (the test can tell them apart).
    if eps == 4.0:
        _, plain = window_exponential_draws(
            np.random.default_rng(3), np.random.default_rng(4), pop, np.full(reps, n), q,
            [eps], lo, hi, first_half=first_half,
        )  # fmt: skip
        cdf = _piecewise_mixture_cdf(pop, n, eps, lo, hi, q)
        assert stats.kstest(plain[0], cdf).pvalue < P_MIN


def test_piecewise_laplace_windows_match_whole_samples() -> None:
    """At a larger N against :class:`PiecewiseLaplaceQuantile` run on whole samples."""
    from core.mechanisms import PiecewiseLaplaceQuantile

    rng = np.random.default_rng(4)
    pop = np.sort(np.round(rng.lognormal(3, 0.8, 20_000), 1))
    lo, hi, n, reps = 0.0, 500.0, 1_500, 2_000
    eps = [0.02, 1.0]
    _, rel = window_exponential_draws(
        np.random.default_rng(5), np.random.default_rng(6), pop, np.full(reps, n), 0.9, eps,
        lo, hi, first_half=20, piecewise=True,
    )  # fmt: skip
    whole = pop[_subsets(np.random.default_rng(7), pop.size, n, reps, [(1, n)])]
    for j, e in enumerate(eps):
        ref = PiecewiseLaplaceQuantile(0.9).release(whole, e, 0.5, lo, hi, np.random.default_rng(8))
        assert stats.ks_2samp(rel[j], ref.released).pvalue > P_MIN


@pytest.mark.parametrize("tied", [False, True])
@pytest.mark.parametrize("eps", [0.002, 0.05, 1.0, 30.0])
def test_block_bound_covers_the_unknown_intervals_weight(tied: bool, eps: float) -> None:
    """The bound from the unexpanded blocks is at least the weight of every interval not
    yet known (the whole sample revealed afterwards from the same tree), with far ranks
    known as islands beyond unexpanded blocks, and it is never looser than the old bound."""
    from core.windowed import SampleWindows
    from core.windowed.exponential import _log_rest_of_blocks
    from core.windowed.runs import run_view

    rng = np.random.default_rng(11)
    N, n, reps, lo, hi = 3_000, 600, 60, 0.0, 120.0
    raw = rng.lognormal(3.0, 0.6, N).clip(lo, hi)
    pop = np.sort(np.round(raw) if tied else raw)
    q = 0.4
    centre = np.full(reps, q * n)
    k = np.full(reps, int(np.ceil(q * n)))
    tree = SampleWindows(np.random.default_rng(12), N, np.full(reps, n), leaf=4)
    half = rng.integers(0, 40, reps)
    tree.ensure(np.full(reps, 5), np.full(reps, 30))  # an island far below
    tree.ensure(k + 150, k + 170)  # and one above
    tree.ensure(k - half, k + half)
    rows = np.arange(reps)
    view, blocks = run_view(tree, rows, k, pop)
    ns = np.full(reps, n)
    bound = _log_rest_of_blocks(view, ns, eps, centre, lo, hi, blocks)
    first, last = view.first[:, 0], view.last[rows, view.count - 1]
    tree.ensure(np.ones(reps, dtype=np.int64), ns)
    whole = pop[tree.positions(np.ones(reps, dtype=np.int64), n)]
    for r in rows:
        z = np.concatenate(([lo], whole[r], [hi]))
        i = np.arange(n + 1)
        # Interval i joins ranks i and i + 1; it is known when both ends are in f .. l
        # (or are the bounds next to rank 1 or n).
        unknown = ((i <= first[r] - 1) & (first[r] > 1)) | ((i >= last[r]) & (last[r] < n))
        width = np.diff(z)[unknown]
        logw = np.log(width[width > 0]) - 0.5 * eps * np.abs(i[unknown][width > 0] - centre[r])
        if not logw.size:
            continue
        true = logw.max() + np.log(np.exp(logw - logw.max()).sum())
        assert true <= bound[r] + 1e-9, (r, true, bound[r])
