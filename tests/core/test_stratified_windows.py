"""Proportional stratified samples revealed by windows (core.designs.stratified_windows).

The source must give exactly the law of drawing the whole sample (randomised rounding, then
an independent uniform subset per stratum).  Checked by enumerating every subset of tiny
populations (chi-square), by the certified smooth sensitivity of the very sample once it is
revealed whole (ties, records at the bounds), and by the quantile mechanisms run on windows
against the same mechanisms on whole samples drawn independently (two-sample KS), at N = 10^6
for the smooth sensitivity.  Fixed seeds: a pass is stable.
"""

from __future__ import annotations

from itertools import combinations
from math import comb

import numpy as np
import pytest
from scipy import stats

from core import sensitivity as sens
from core.designs.stratified_windows import (
    StrataIndex,
    StratifiedSource,
    StratifiedWindows,
    draw_allocations,
    proportional_source,
    randomised_rounding,
)
from core.mechanisms import ExponentialQuantile, exponential_quantile_distribution
from core.strata import proportional_allocation
from core.windowed import SampleWindows, window_exponential_draws, window_quantile_draws

# A p-value below this fails a goodness-of-fit test; the seeds are fixed, so a pass is stable.
P_MIN = 1e-4


def _design_law(codes: np.ndarray, rate: float) -> dict[tuple[int, ...], float]:
    """Exact probability of every possible sample (a set of positions) of the design."""
    sizes = np.bincount(codes)
    exact = rate * sizes
    base = np.floor(exact)
    law = {}
    N = codes.size
    for n in range(1, N + 1):
        for subset in combinations(range(N), n):
            got = np.bincount(codes[list(subset)], minlength=sizes.size)
            p = 1.0
            for h, m in enumerate(got):
                if m == base[h] + 1:
                    p *= (exact[h] - base[h]) / comb(int(sizes[h]), int(m))
                elif m == base[h]:
                    p *= (1.0 - (exact[h] - base[h])) / comb(int(sizes[h]), int(m))
                else:
                    p = 0.0
            if p > 0:
                law[subset] = p
    return law


def _whole_samples(
    rng: np.random.Generator, index: StrataIndex, rate: float, reps: int
) -> list[np.ndarray]:
    """Whole samples drawn directly: core.strata's allocation, then numpy's subsets."""
    parts = [
        index.keys[index.offsets[h] : index.offsets[h + 1]] - h * index.N
        for h in range(index.strata)
    ]
    out = []
    for _ in range(reps):
        alloc = proportional_allocation(index.sizes, rate, "randomized", rng)
        picked = [
            p[rng.choice(p.size, m, replace=False)] for p, m in zip(parts, alloc, strict=True)
        ]
        out.append(np.sort(np.concatenate(picked)))
    return out


def _by_size(samples: list[np.ndarray]) -> dict[int, np.ndarray]:
    """Samples grouped by size, as 2-d arrays (rows of equal length)."""
    groups: dict[int, list[np.ndarray]] = {}
    for s in samples:
        groups.setdefault(s.size, []).append(s)
    return {n: np.vstack(g) for n, g in groups.items()}


def _strata_population(
    rng: np.random.Generator, N: int, H: int, lower: float, upper: float
) -> tuple[np.ndarray, np.ndarray]:
    """Sorted values and the stratum of each, strata of unequal sizes and distributions."""
    share = rng.dirichlet(np.full(H, 2.0))
    labels = rng.choice(H, N, p=share)
    loc = np.linspace(2.0, 6.0, H)[rng.permutation(H)]
    spread = rng.uniform(0.2, 1.0, H)
    values = np.exp(loc[labels] + spread[labels] * rng.standard_normal(N))
    np.clip(values, lower, upper, out=values)
    order = np.argsort(values, kind="stable")
    return values[order], labels[order]


# ---------------------------------------------------------------------------------------
# The allocation
# ---------------------------------------------------------------------------------------


def test_allocation_is_core_stratas_randomised_rounding() -> None:
    """Row by row the same numbers as core.strata.proportional_allocation on the same stream."""
    sizes = np.array([7, 30, 11, 5, 200])
    for rate in (0.2, 0.35, 0.5, 0.999, 1.0):
        a = draw_allocations(np.random.default_rng(4), sizes, rate, 300)
        g = np.random.default_rng(4)
        b = np.vstack([proportional_allocation(sizes, rate, "randomized", g) for _ in range(300)])
        np.testing.assert_array_equal(a, b)
    a = draw_allocations(np.random.default_rng(5), sizes, 0.35, 40_000)
    exact = 0.35 * sizes
    assert set(np.unique(a - np.floor(exact))) <= {0, 1}
    z = (a.mean(axis=0) - exact) / np.sqrt(np.maximum(a.var(axis=0), 1e-12) / a.shape[0])
    assert np.abs(z).max() < 4.5  # unbiased: E[n_h] = r N_h


def test_rounding_compares_the_uniform_below_the_fraction() -> None:
    """frac(0.3 * 10 + 0.25 ...): a uniform below the fractional part rounds up, else down."""
    sizes = np.array([10, 5])  # r N_h = 2.5 and 1.25 at r = 0.25
    up = randomised_rounding(sizes, 0.25, [[0.49, 0.24]])
    down = randomised_rounding(sizes, 0.25, [[0.5, 0.25]])
    np.testing.assert_array_equal(up, [[3, 2]])
    np.testing.assert_array_equal(down, [[2, 1]])


def test_a_stratum_below_one_expected_record_is_refused() -> None:
    index = StrataIndex.from_labels(np.r_[np.zeros(50, int), np.ones(3, int)])
    with pytest.raises(ValueError, match=r"r·N_h < 1 in 1 of 2 strata \(stratum 1"):
        proportional_source(np.random.default_rng(0), index, 0.2, 10)
    with pytest.raises(ValueError, match="r·N_h ≥ 1 in every stratum"):
        draw_allocations(np.random.default_rng(0), [50, 3], 0.3, 10)
    assert draw_allocations(np.random.default_rng(0), [50, 3], 1 / 3, 10).min() >= 1
    with pytest.raises(ValueError, match="rate"):
        draw_allocations(np.random.default_rng(0), [50, 3], 1.5, 10)


def test_inputs_are_checked() -> None:
    with pytest.raises(ValueError, match="partition"):
        StrataIndex.from_positions([[0, 1], [1, 2]], 3)
    with pytest.raises(ValueError, match="partition"):
        StrataIndex.from_positions([[0, 1], [3]], 3)
    index = StrataIndex.from_positions([[0, 2], [1, 3, 4]], 5)
    np.testing.assert_array_equal(index.sizes, [2, 3])
    # The planner's per-stratum positions (a stable argsort of the codes) give the same index.
    codes = np.random.default_rng(0).integers(0, 5, 1_000)
    split = np.split(np.argsort(codes, kind="stable"), np.cumsum(np.bincount(codes))[:-1])
    a, b = StrataIndex.from_positions(split, codes.size), StrataIndex.from_labels(codes)
    for x, y in ((a.keys, b.keys), (a.offsets, b.offsets), (a.sizes, b.sizes)):
        np.testing.assert_array_equal(x, y)
    np.testing.assert_array_equal(
        a.count_before(codes[:50], np.arange(50) * 20),
        [(codes[: 20 * i] == codes[i]).sum() for i in range(50)],
    )
    assert StrataIndex.from_labels(["b", "a", "b", "a", "a"]).sizes.tolist() == [3, 2]
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="shape"):
        StratifiedWindows(rng, index, [[1, 1, 1]])
    with pytest.raises(ValueError, match=r"\[0, N_h\]"):
        StratifiedWindows(rng, index, [[3, 1]])
    with pytest.raises(ValueError, match="at least one record"):
        StratifiedWindows(rng, index, [[0, 0]])


# ---------------------------------------------------------------------------------------
# Exact law
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("codes", "rate", "steps", "leaf"),
    [
        # N = 8, strata of 3, 3 and 2 interleaved; every n_h is 1 or 2.
        ([0, 1, 0, 2, 1, 0, 2, 1], 0.55, [(1, 99)], 64),  # resolved at the root
        ([0, 1, 0, 2, 1, 0, 2, 1], 0.55, [(1, 99)], 1),  # split down to single records
        ([0, 1, 0, 2, 1, 0, 2, 1], 0.55, [(3, 3), (2, 4), (1, 99)], 1),  # widened twice
        # N = 7, strata of 4 and 3 in runs: n_h in {2, 3} and {2, 3}.
        ([0, 0, 1, 0, 0, 1, 1], 0.7, [(2, 2), (1, 99)], 2),
        # N = 6, two strata of 4 and 2; rate 0.5: n = (2, 1) always, 0.6: (2|3, 1|2).
        ([1, 0, 0, 1, 0, 0], 0.6, [(2, 3), (1, 99)], 1),
        ([1, 0, 0, 1, 0, 0], 0.5, [(1, 1), (1, 99)], 1),
    ],
)
def test_revealed_samples_have_the_designs_exact_law(codes, rate, steps, leaf) -> None:
    """Samples revealed whole through widening windows, against every subset's probability."""
    codes = np.asarray(codes)
    law = _design_law(codes, rate)
    index = StrataIndex.from_labels(codes)
    reps = 40_000
    rng = np.random.default_rng([codes.size, round(rate * 100), leaf, len(steps)])
    w = StratifiedWindows(rng, index, draw_allocations(rng, index.sizes, rate, reps), leaf=leaf)
    for first, last in steps:
        w.ensure(np.full(reps, first), np.full(reps, last))
    pos = w.positions(np.ones(reps, dtype=np.int64), codes.size)
    assert ((pos >= 0).sum(axis=1) == w.sizes).all()
    cells = list(law)
    where = {c: i for i, c in enumerate(cells)}
    found = [where.get(tuple(p[p >= 0].tolist()), -1) for p in pos]
    assert min(found) >= 0, "a sample the design cannot draw"
    counts = np.bincount(found, minlength=len(cells))
    expected = reps * np.array([law[c] for c in cells])
    assert stats.chisquare(counts, expected).pvalue > P_MIN


def test_exponential_on_windows_has_the_exact_mixture_law() -> None:
    """Rings and widenings from tiny first windows, against the mixture over every sample."""
    values = np.array([0.0, 1.0, 1.0, 2.0, 3.5, 3.5, 6.0, 10.0])  # ties, both bounds
    codes = np.array([0, 1, 0, 2, 1, 0, 2, 1])
    lo, hi, q, eps, rate = 0.0, 10.0, 0.5, 1.5, 0.55
    law = _design_law(codes, rate)
    parts = []
    for subset, p in law.items():
        edges, w = exponential_quantile_distribution(values[list(subset)], eps, lo, hi, q)
        parts.append((edges, p * w / w.sum()))

    def cdf(x: np.ndarray) -> np.ndarray:
        total = np.zeros_like(x)
        for edges, w in parts:
            left, right = edges[:-1], edges[1:]
            width = np.where(right > left, right - left, 1.0)
            frac = np.clip((x[:, None] - left[None, :]) / width[None, :], 0.0, 1.0)
            frac = np.where(right[None, :] > left[None, :], frac, x[:, None] >= left[None, :])
            total += (frac * w[None, :]).sum(axis=1)
        return total

    index = StrataIndex.from_labels(codes)
    rng = np.random.default_rng(21)
    source = StratifiedSource(index, draw_allocations(rng, index.sizes, rate, 20_000), leaf=1)
    _, rel = window_exponential_draws(
        rng, np.random.default_rng(22), values, source.sizes, q, [eps], lo, hi,
        first_half=1, source=source,
    )  # fmt: skip
    assert stats.kstest(rel[0], cdf).pvalue > P_MIN


# ---------------------------------------------------------------------------------------
# The smooth sensitivity certified on windows is the whole sample's
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(("beta", "leaf", "rate"), [(0.01, 2, 0.3), (0.4, 8, 0.05), (3.0, 1, 0.6)])
def test_ties_and_bounds_certify_the_same_samples_sensitivity(beta, leaf, rate) -> None:
    """Certify S from a window and the blocks, then reveal the whole same sample.

    Long runs of ties, a third of the records at the lower or upper bound, four strata
    spread over the ties; the revealed sample has the allocated count in every stratum.
    """
    rng = np.random.default_rng(int(beta * 100) + leaf)
    N = 3_000
    levels = np.array([0.0, 1.0, 40.0, 41.0, 90.0, 200.0])
    values = np.sort(rng.choice(levels, N, p=[0.2, 0.15, 0.25, 0.1, 0.15, 0.15]))
    labels = (rng.random(N) * (1 + np.arange(N) / N) * 2).astype(int)  # 4 strata, drifting
    lo, hi, q, reps = 0.0, 200.0, 0.4, 150
    index = StrataIndex.from_labels(labels)
    alloc = draw_allocations(rng, index.sizes, rate, reps)
    w = StratifiedWindows(rng, index, alloc, leaf=leaf)
    n = w.sizes
    k = np.array([sens.quantile_rank(int(m), q) for m in n])
    todo = np.arange(reps)
    half, steps = 2, []
    while True:
        w.ensure(k - half, k + half)
        first, last, blocks = w.outside(todo, k, values)
        offsets, bf, bl = blocks[:3]
        for r in range(0, reps, 13):  # the window and the blocks cover every rank once
            spans = zip(
                bf[offsets[r] : offsets[r + 1]], bl[offsets[r] : offsets[r + 1]], strict=True
            )
            covered = np.concatenate(
                [np.arange(first[r], last[r] + 1), *(np.arange(f, e + 1) for f, e in spans)]
            )
            assert np.array_equal(np.sort(covered), np.arange(1, n[r] + 1))
        width = int((last - first).max()) + 1
        p = w.positions(first, width, todo)
        cells = np.where(p >= 0, values[np.maximum(p, 0)], np.nan)
        s, ok = sens.smooth_sensitivity_window_batch(
            cells, first, last - first + 1, n, k, beta, lo, hi, blocks=blocks
        )
        steps.append((s, ok, cells[np.arange(reps), k - first]))
        if ok.all():
            break
        half *= 2
    w.ensure(np.ones(reps, dtype=np.int64), n)
    pos = w.positions(np.ones(reps, dtype=np.int64), int(n.max()))
    full = np.empty(reps)
    for r in range(reps):
        mine = pos[r, : n[r]]
        assert (mine >= 0).all() and (np.diff(mine) > 0).all()
        np.testing.assert_array_equal(np.bincount(labels[mine], minlength=4), alloc[r])
        full[r] = sens.smooth_sensitivity_beta_batch(
            values[mine][None, :], beta, lo, hi, quantile=q
        )[0]
        assert steps[0][2][r] == values[mine][k[r] - 1]
    for s, ok, _ in steps:
        assert (s <= full * (1 + 1e-12)).all()
        np.testing.assert_allclose(s[ok], full[ok], rtol=1e-12, atol=0)


# ---------------------------------------------------------------------------------------
# Against whole samples at scale
# ---------------------------------------------------------------------------------------


def test_median_and_sensitivity_match_whole_samples_at_a_million_records() -> None:
    """N = 10^6 in 8 strata of different distributions; 1,500 samples of about 2,000."""
    rng = np.random.default_rng(2026)
    lo, hi = 0.0, 5_000.0
    values, labels = _strata_population(rng, 10**6, 8, lo, hi)
    index = StrataIndex.from_labels(labels)
    rate, reps, betas = 0.002, 1_500, [0.004, 0.1]
    source = proportional_source(np.random.default_rng(1), index, rate, reps)
    stat, S = window_quantile_draws(
        np.random.default_rng(2), values, source.sizes, 0.5, betas, lo, hi, source=source
    )
    whole = _by_size(_whole_samples(np.random.default_rng(3), index, rate, reps))
    ref_stat = np.concatenate(
        [values[s][:, sens.quantile_rank(n, 0.5) - 1] for n, s in whole.items()]
    )
    assert stats.ks_2samp(stat, ref_stat).pvalue > P_MIN
    for j, beta in enumerate(betas):
        ref = np.concatenate(
            [sens.smooth_sensitivity_beta_batch(values[s], beta, lo, hi) for s in whole.values()]
        )
        assert stats.ks_2samp(S[j], ref).pvalue > P_MIN
    # The test can tell the designs apart: simple random samples of the same sizes are not
    # stratified ones (their median varies more here).
    srs, _ = window_quantile_draws(np.random.default_rng(4), values, source.sizes, 0.5, [], lo, hi)
    assert stats.ks_2samp(srs, ref_stat).pvalue < P_MIN


def test_exponential_mechanism_matches_whole_samples() -> None:
    """window_exponential_draws on the source against ExponentialQuantile on whole samples."""
    rng = np.random.default_rng(77)
    lo, hi = 0.0, 2_000.0
    values, labels = _strata_population(rng, 40_000, 5, lo, hi)
    values = np.round(values, 1)  # ties
    index = StrataIndex.from_labels(labels)
    rate, reps, eps = 0.05, 2_000, [0.02, 1.0]
    source = proportional_source(np.random.default_rng(5), index, rate, reps)
    _, rel = window_exponential_draws(
        np.random.default_rng(6), np.random.default_rng(7), values, source.sizes, 0.5, eps,
        lo, hi, first_half=20, source=source,
    )  # fmt: skip
    whole = _by_size(_whole_samples(np.random.default_rng(8), index, rate, reps))
    mech = ExponentialQuantile(0.5)
    for j, e in enumerate(eps):
        g = np.random.default_rng(9 + j)
        ref = np.concatenate(
            [mech.release(values[s], e, 0.5, lo, hi, g).released for s in whole.values()]
        )
        assert stats.ks_2samp(rel[j], ref).pvalue > P_MIN


# ---------------------------------------------------------------------------------------
# The seam in core.windowed
# ---------------------------------------------------------------------------------------


def test_a_source_factory_of_simple_random_samples_changes_nothing() -> None:
    """The default source and an explicit SampleWindows factory: the same numbers, chunked."""
    rng = np.random.default_rng(1)
    values = np.sort(rng.lognormal(3, 1, 50_000))
    sizes = rng.binomial(values.size, 0.02, 1_300)

    def factory(g: np.random.Generator, rows: np.ndarray) -> SampleWindows:
        return SampleWindows(g, values.size, sizes[rows])

    a = window_quantile_draws(np.random.default_rng(2), values, sizes, 0.5, [0.01], 0, 1e4)
    b = window_quantile_draws(
        np.random.default_rng(2), values, sizes, 0.5, [0.01], 0, 1e4, source=factory
    )
    for x, y in zip(a, b, strict=True):
        np.testing.assert_array_equal(x, y)
    c = window_exponential_draws(
        *(np.random.default_rng(i) for i in (3, 4)), values, sizes, 0.5, [0.5], 0, 1e4
    )
    d = window_exponential_draws(
        *(np.random.default_rng(i) for i in (3, 4)), values, sizes, 0.5, [0.5], 0, 1e4,
        source=factory,
    )  # fmt: skip
    for x, y in zip(c, d, strict=True):
        np.testing.assert_array_equal(x, y)
    with pytest.raises(ValueError, match="sizes differ"):
        window_quantile_draws(rng, values, sizes + 1, 0.5, [0.01], 0, 1e4, source=factory)


# ---------------------------------------------------------------------------------------
# Tied populations: runs of equal values
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(("rate", "steps"), [(0.55, [(1, 99)]), (0.55, [(3, 3), (2, 4), (1, 99)])])
def test_run_windows_reveal_the_designs_exact_law_of_tied_values(rate, steps) -> None:
    """Sorted values of samples revealed whole as runs, against the law of every subset."""
    from core.designs.stratified_windows import StratifiedRunWindows
    from core.windowed.runs import ValueRuns

    values = np.array([1.0, 1.0, 1.0, 2.0, 2.0, 4.0, 4.0, 4.0])
    codes = np.array([0, 1, 0, 2, 1, 0, 2, 1])
    exact: dict[tuple[float, ...], float] = {}
    for subset, p in _design_law(codes, rate).items():
        key = tuple(values[list(subset)].tolist())
        exact[key] = exact.get(key, 0.0) + p
    index = StrataIndex.from_labels(codes)
    reps = 40_000
    rng = np.random.default_rng(len(steps))
    alloc = draw_allocations(rng, index.sizes, rate, reps)
    w = StratifiedRunWindows(rng, index, alloc, ValueRuns.of(values))
    for first, last in steps:
        w.ensure(np.full(reps, first), np.full(reps, last))
    view, blocks = w.window_runs(np.arange(reps), np.ones(reps, dtype=np.int64), values)
    assert blocks[1].size == 0
    sizes = view.last - view.first + 1
    seen = [
        tuple(np.repeat(view.value[r, : view.count[r]], sizes[r, : view.count[r]]).tolist())
        for r in range(reps)
    ]
    keys = sorted(exact)
    where = {key: i for i, key in enumerate(keys)}
    assert all(s in where for s in seen), "a sample the design cannot draw"
    counts = np.bincount([where[s] for s in seen], minlength=len(keys))
    assert stats.chisquare(counts, reps * np.array([exact[key] for key in keys])).pvalue > P_MIN
    with pytest.raises(TypeError, match="window_runs"):
        w.positions(np.ones(reps, dtype=np.int64), 2)


def test_run_windows_match_whole_samples_of_a_tied_million() -> None:
    """N = 10^6 rounded to few values, 8 strata: median, S and the exponential mechanism's
    release on run windows against whole samples drawn independently (KS)."""
    from core.windowed.runs import ValueRuns

    rng = np.random.default_rng(2027)
    lo, hi = 0.0, 5_000.0
    values, labels = _strata_population(rng, 10**6, 8, lo, hi)
    values = np.round(values / 25.0) * 25.0  # about 200 distinct values
    index = StrataIndex.from_labels(labels)
    rate, reps, betas = 0.01, 1_000, [0.002, 0.1]
    runs = ValueRuns.of(values)
    source = proportional_source(np.random.default_rng(1), index, rate, reps, runs=runs)
    stat, S = window_quantile_draws(
        np.random.default_rng(2), values, source.sizes, 0.5, betas, lo, hi, source=source
    )
    _, rel = window_exponential_draws(
        np.random.default_rng(5), np.random.default_rng(6), values, source.sizes, 0.5, [0.3],
        lo, hi, source=source,
    )  # fmt: skip
    whole = _by_size(_whole_samples(np.random.default_rng(3), index, rate, reps))
    ref_stat = np.concatenate(
        [values[s][:, sens.quantile_rank(n, 0.5) - 1] for n, s in whole.items()]
    )
    assert stats.ks_2samp(stat, ref_stat).pvalue > P_MIN
    for j, beta in enumerate(betas):
        ref = np.concatenate(
            [sens.smooth_sensitivity_beta_batch(values[s], beta, lo, hi) for s in whole.values()]
        )
        assert stats.ks_2samp(S[j], ref).pvalue > P_MIN
    mech = ExponentialQuantile(0.5)
    ref_rel = np.concatenate(
        [
            mech.release(values[s], 0.3, 0.5, lo, hi, np.random.default_rng(n)).released
            for n, s in whole.items()
        ]
    )
    assert stats.ks_2samp(rel[0], ref_rel).pvalue > P_MIN


def test_integer_codes_index_as_their_labels_do() -> None:
    """Labels already numbered 0 .. H - 1 skip numpy.unique; the index is the same."""
    labels = np.random.default_rng(0).integers(0, 5, 1_000)
    a = StrataIndex.from_labels(labels)
    b = StrataIndex.from_labels(np.array(["abcde"[h] for h in labels]))
    assert np.array_equal(a.keys, b.keys) and np.array_equal(a.sizes, b.sizes)
    c = StrataIndex.from_labels(labels * 3 + 7)  # gaps: numbered by numpy.unique
    assert np.array_equal(c.keys, a.keys)


def test_run_table_gives_the_same_splits_as_searching_the_index() -> None:
    """Stratified run windows with the strata's run table: the table equals plain counts,
    and the same generator reveals exactly the same runs as without it."""
    from core.designs.stratified_windows import StratifiedRunWindows
    from core.windowed.runs import ValueRuns

    rng = np.random.default_rng(11)
    values, labels = _strata_population(rng, 20_000, 5, 0.0, 1_000.0)
    values = np.round(values / 50.0) * 50.0
    index, runs = StrataIndex.from_labels(labels), ValueRuns.of(values)
    table = index.run_table(runs)
    assert table is not None
    codes = np.unique(labels, return_inverse=True)[1]
    brute = np.array([[int(np.sum(codes[:s] == h)) for s in runs.starts] for h in range(5)])
    assert np.array_equal(table, brute)
    alloc = draw_allocations(rng, index.sizes, 0.1, 30)
    k = np.full(30, 900, dtype=np.int64)
    views = []
    for t in (None, table):
        w = StratifiedRunWindows(np.random.default_rng(3), index, alloc, runs, t)
        for half in (5, 400):
            w.ensure(k - half, k + half)
        views.append(w.window_runs(np.arange(30), k, values)[0])
    a, b = views
    assert all(
        np.array_equal(x, y, equal_nan=True)
        for x, y in zip((a.value, a.first, a.last), (b.value, b.first, b.last), strict=True)
    )
