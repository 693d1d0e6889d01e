"""Tests for core.mechanisms.sum_count: the size-free mean, its exact law and its privacy."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import integrate, stats

from core import mechanisms as mech
from core.mechanisms.sum_count import (
    SumCountLaw,
    _denominator_nodes,
    clipped_laplace_coverage,
    clipped_laplace_mse,
    law_quantile,
)
from tests.core.mechanisms.neighbours import (
    LOWER,
    SAMPLES,
    UPPER,
    _additions_removals,
    _replacements,
)

CENTRE = (LOWER + UPPER) / 2


def _m(share: float | None = 0.4) -> mech.SumCountMean:
    return mech.SumCountMean(LOWER, UPPER, sum_share=share)


# -- exact law -------------------------------------------------------------------------------


def _laplace_expectation(g, centre: float, scale: float, kinks: list[float]) -> float:
    """``E[g(centre + scale Z)]`` by adaptive quadrature, split at the kinks and the centre."""
    cuts = sorted({centre, *kinks, centre - 60 * scale, centre + 60 * scale})
    cuts = [c for c in cuts if centre - 60 * scale <= c <= centre + 60 * scale]

    def f(u: float) -> float:
        return g(u) * stats.laplace.pdf(u, loc=centre, scale=scale)

    return sum(
        integrate.quad(f, a, b, epsabs=0.0, epsrel=1e-13, limit=400)[0]
        for a, b in itertools.pairwise(cuts)
    )


@pytest.mark.parametrize(
    ("mu", "beta", "a"),
    [(3.0, 2.0, 4.0), (-3.0, 2.0, 4.0), (12.0, 0.5, 10.0), (5.0, 40.0, 0.0), (7.0, 1e-3, 7.0)],
)
def test_clipped_laplace_mse_is_the_integral(mu: float, beta: float, a: float) -> None:
    """Against adaptive quadrature (and far beyond a bound, where a piece's terms overflow,
    every release is the bound: ``(L − a)²``)."""
    far = float(clipped_laplace_mse(-1e4, 1.0, LOWER, UPPER, a))
    assert far == pytest.approx((LOWER - a) ** 2, rel=1e-12)

    def g(x: float) -> float:
        return (min(max(x, LOWER), UPPER) - a) ** 2

    ref = _laplace_expectation(g, mu, beta, [LOWER, UPPER])
    got = float(clipped_laplace_mse(mu, beta, LOWER, UPPER, a))
    assert got == pytest.approx(ref, rel=1e-9, abs=1e-13)


@pytest.mark.parametrize(("mu", "beta"), [(3.0, 2.0), (-3.0, 2.0), (12.0, 0.5), (5.0, 40.0)])
@pytest.mark.parametrize(("theta", "x"), [(5.0, 1.0), (0.5, 2.0), (9.0, 0.0), (5.0, 5.0)])
def test_clipped_laplace_coverage_is_the_probability(
    mu: float, beta: float, theta: float, x: float
) -> None:
    lo, hi = theta - x, theta + x
    below_hi = 1.0 if hi >= UPPER else stats.laplace.cdf(hi, mu, beta)
    below_lo = 0.0 if lo <= LOWER else stats.laplace.cdf(lo, mu, beta)
    got = float(clipped_laplace_coverage(mu, beta, LOWER, UPPER, theta, x))
    assert got == pytest.approx(below_hi - below_lo, abs=1e-14)


@pytest.mark.parametrize(
    ("total", "size", "eps"),
    [
        (12.0, 3, 0.5),
        (-4.0, 1, 2.0),
        (0.0, 0, 1.0),
        (2.0, 0, 0.3),
        (300.0, 100, 0.05),
        (40.0, 20, 5.0),
        (4000.0, 1000, 50.0),
        (1.0, 2, 1e-3),
    ],
)
def test_the_law_integrates_the_count_noise_exactly(total: float, size: int, eps: float) -> None:
    m = _m()
    law = m.law([total], [size], eps)
    b1, b2 = float(law.b_sum[0]), float(law.b_count[0])
    a = CENTRE + total / max(size, 1)

    def g(u: float) -> float:
        d = max(u, 1.0)
        return float(clipped_laplace_mse(CENTRE + total / d, b1 / d, LOWER, UPPER, a))

    ref = _laplace_expectation(g, float(size), b2, [1.0])
    assert float(law.mse(a)[0]) == pytest.approx(ref, rel=1e-8)


@pytest.mark.parametrize(
    ("size", "scale", "kink", "rate"),
    [(0.0, 1.0, 1.0, 1.0), (0.5, 0.2, 3.0, 20.0), (3.0, 2.0, 2.5, 0.1), (500.0, 0.1, 1.0, 10.0)],
)
def test_the_denominator_nodes_carry_the_whole_law(
    size: float, scale: float, kink: float, rate: float
) -> None:
    nodes, weights = _denominator_nodes(
        np.array([size]), np.array([scale]), np.array([[kink]]), np.array([rate])
    )
    assert weights.sum() == pytest.approx(1.0, abs=1e-10)
    assert (nodes >= 1.0).all() and (weights >= 0).all()
    # E[D] against the exact mean of max(m + b Z, 1)
    ref = _laplace_expectation(lambda u: max(u, 1.0), size, scale, [1.0])
    assert float((nodes * weights).sum()) == pytest.approx(ref, rel=1e-10)


def _samples_at_the_bounds() -> list[list[float]]:
    """Samples of 0 to 10 values, all at one bound or split between both, and one inside."""
    out: list[list[float]] = [[]]
    for n in (1, 3, 10):
        k = n // 3
        out += [[LOWER] * n, [UPPER] * n, [LOWER] * (n - k) + [UPPER] * k]
    return [*out, [1.0, 4.0, 4.0, 9.0]]


def _law_by_quad(law: SumCountLaw, g, kinks: list[float]) -> float:
    """``E[g(max(m + b₂ Z₂, 1))]`` by adaptive quadrature over the count noise (scipy's
    QUADPACK to 1e-10), split at 1, at ``m`` and at ``kinks``, over ``m ± 60 b₂`` (``g`` is
    constant below 1: the atom of the noisy count, its mass ``P(m + b₂ Z₂ ≤ 1)``)."""
    m, b2 = float(law.size[0]), float(law.b_count[0])
    lo, hi = max(m - 60 * b2, 1.0), max(m, 1.0) + 60 * b2
    cuts = sorted({lo, hi, *(k for k in (1.0, m, *kinks) if lo < k < hi)})

    def f(u: float) -> float:
        return g(u) * math.exp(-abs(u - m) / b2) / (2 * b2)

    atom = 0.5 * math.exp(-(m - 1.0) / b2) if m >= 1.0 else 1.0 - 0.5 * math.exp((m - 1.0) / b2)
    return atom * g(1.0) + sum(
        integrate.quad(f, a, b, epsabs=1e-11, epsrel=1e-10, limit=200)[0]
        for a, b in itertools.pairwise(cuts)
    )


@pytest.mark.parametrize("share", [0.02, 0.3, 0.7, 0.98])
def test_the_law_is_the_adaptive_integral_of_its_definition(share: float) -> None:
    """Coverage ``P(|Y − θ| ≤ x)`` and MSE of the law agree with adaptive quadrature over the
    count noise (scipy's QUADPACK, split at the kinks) to 1e-6 absolute, from budgets where
    the release sits on the bounds to budgets where it is nearly the mean.  The former
    64-point rules were off by up to 1e-2 in coverage at the share 0.98 (a wide count
    noise), where the kinks of the integrand (``max(n̂, 1)`` and the ``n̂`` where the
    conditional centre or a window's end crosses a bound) are far narrower than the noise."""
    m = _m(share)
    half = (UPPER - LOWER) / 2
    windows = [(CENTRE, 1.0), (1.0, 0.8), (8.5, 2.5), (LOWER, 0.0), (UPPER, 0.0), (UPPER, 3.0)]
    worst = 0.0
    for eps in (1e-3, 0.1, 1.5, 10.0):
        for values in _samples_at_the_bounds():
            total, size = float(np.sum(np.subtract(values, CENTRE))), float(len(values))
            law = m.law([total], [size], eps)
            b1 = float(law.b_sum[0])
            a = CENTRE + total / max(size, 1.0)

            def mse(d: float, total: float = total, b1: float = b1, a: float = a) -> float:
                return float(clipped_laplace_mse(CENTRE + total / d, b1 / d, LOWER, UPPER, a))

            ref = _law_by_quad(law, mse, [abs(total) / half] if total else [])
            worst = max(worst, abs(float(law.mse(a)[0]) - ref))
            for theta, x in [*windows, (a, 0.3)]:

                def cover(
                    d: float,
                    total: float = total,
                    b1: float = b1,
                    theta: float = theta,
                    x: float = x,
                ) -> float:
                    return float(
                        clipped_laplace_coverage(CENTRE + total / d, b1 / d, LOWER, UPPER, theta, x)
                    )

                ends = [theta - x, theta + x]
                kinks = [total / (y - CENTRE) for y in ends if y != CENTRE and total]
                ref = _law_by_quad(law, cover, [k for k in kinks if k > 1.0])
                worst = max(worst, abs(float(law.coverage(x, theta)[0]) - ref))
    assert worst <= 1e-6


def test_releases_follow_the_law() -> None:
    m = _m(0.6)
    sample = np.array([[0.0, 1.0, 4.0, 9.0, 10.0, 10.0, 7.0]])
    sample.sort(axis=1)
    reps = 400_000
    batch = np.repeat(sample, reps, axis=0)
    rel = m.release(batch, 0.8, 0.5, LOWER, UPPER, np.random.default_rng(3))
    law = m.law([float((sample - CENTRE).sum())], [float(sample.size)], 0.8)
    stat = float(rel.statistic[0])
    err2 = (rel.released - stat) ** 2
    se = float(err2.std()) / math.sqrt(reps)
    assert abs(float(err2.mean()) - float(law.mse(stat)[0])) < 5 * se
    for x in (0.5, 2.0, 4.0):
        p = float(law.coverage(x, stat)[0])
        emp = float((np.abs(rel.released - stat) <= x).mean())
        assert abs(emp - p) < 5 * math.sqrt(p * (1 - p) / reps) + 1e-12
    assert (rel.released >= LOWER).all() and (rel.released <= UPPER).all()


def test_exact_error_of_a_census_matches_the_law_quantile() -> None:
    m = _m(0.5)
    values = np.linspace(LOWER, UPPER, 41)
    mse, e95 = m.exact_error(values, 1.0, 0.5, LOWER, UPPER, 0.95)
    law = m.law([float((values - CENTRE).sum())], [41.0], 1.0)
    assert mse == pytest.approx(float(law.mse(values.mean())[0]), rel=1e-12)
    assert float(law.coverage(e95, float(values.mean()))[0]) == pytest.approx(0.95, abs=1e-9)
    assert e95 == pytest.approx(law_quantile(law, float(values.mean()), 0.95), rel=1e-12)


def test_laws_merge_row_by_row() -> None:
    m = _m()
    a, b = m.law([1.0, 2.0], [3.0, 4.0], 1.0), m.law([5.0], [0.0], 2.0)
    merged = SumCountLaw.merge([a, b])
    assert np.allclose(merged.mse(CENTRE), np.concatenate([a.mse(CENTRE), b.mse(CENTRE)]))


# -- privacy ---------------------------------------------------------------------------------


#: Bins of the released value: the atom at each bound and 40 cells between them.
_EDGES = np.linspace(LOWER, UPPER, 41)


def _bin_probabilities(m: mech.SumCountMean, values: list[float], eps: float) -> np.ndarray:
    """``P(release in bin)`` on one sample, from its exact law: ``P(Y ≤ y)`` is the coverage
    of ``[L, y]`` (centre ``L``, half-width ``y − L``), the atom ``P(Y = U)`` the coverage of
    ``U`` alone (half-width 0)."""
    arr = np.asarray(values, dtype=np.float64)
    k = _EDGES.size
    law = m.law(np.full(k, float((arr - CENTRE).sum())), np.full(k, float(arr.size)), eps)
    centres = np.concatenate([np.full(k - 1, LOWER), [UPPER]])
    widths = np.concatenate([_EDGES[:-1] - LOWER, [0.0]])
    got = law.coverage(widths, centres)
    cdf, at_upper = got[:-1], got[-1]  # P(Y <= e_j) for e_0 = L, ..., e_39; P(Y = U)
    cells = np.diff(np.concatenate([cdf, [1.0 - at_upper]]))  # (e_j, e_j+1], last (e_39, U)
    return np.array([cdf[0], *cells, at_upper])


@pytest.mark.parametrize("share", [0.3, 0.7])
@pytest.mark.parametrize("eps", [0.5, 2.0])
def test_added_or_removed_records_cost_at_most_eps(share: float, eps: float) -> None:
    """The released value's law, exactly, on every sample and every added or removed record."""
    m = _m(share)
    worst = 0.0
    for values in SAMPLES:
        p = _bin_probabilities(m, values, eps)
        for other in _additions_removals(values):
            q = _bin_probabilities(m, other, eps)
            worst = max(worst, float(np.max(np.abs(np.log(p) - np.log(q)))))
    assert worst <= eps * (1 + 1e-9)
    assert worst > 0.5 * eps  # far from vacuous on these bins


@pytest.mark.parametrize("share", [0.3, 0.7])
def test_a_changed_record_costs_at_most_twice_the_share(share: float) -> None:
    eps = 1.0
    m = _m(share)
    worst = 0.0
    for values in SAMPLES:
        p = _bin_probabilities(m, values, eps)
        for other in _replacements(values):
            q = _bin_probabilities(m, other, eps)
            worst = max(worst, float(np.max(np.abs(np.log(p) - np.log(q)))))
    assert worst <= 2 * share * eps * (1 + 1e-9) <= m.change_factor * eps


@pytest.mark.parametrize("eps", [0.3, 1.0, 4.0])
def test_the_pair_of_noisy_answers_attains_eps_for_a_record_at_a_bound(eps: float) -> None:
    """The sup of the pair's log density ratio is ``|ΔT| / b₁ + |Δm| / b₂``: for a record at a
    bound added it is ``ε`` exactly, reached in the tails."""
    m = _m(0.4)
    b1, b2 = (float(v[0]) for v in m.scales(eps))
    base = [2.0, 7.0]
    added = [2.0, 7.0, UPPER]
    t0, t1 = sum(x - CENTRE for x in base), sum(x - CENTRE for x in added)
    grid_s = np.linspace(-60.0, 60.0, 2001)
    grid_k = np.linspace(-20.0, 20.0, 2001)
    log_ratio = (
        -np.abs(grid_s[:, None] - t0) / b1
        - np.abs(grid_k[None, :] - 2) / b2
        + np.abs(grid_s[:, None] - t1) / b1
        + np.abs(grid_k[None, :] - 3) / b2
    )
    assert float(np.max(np.abs(log_ratio))) == pytest.approx(eps, rel=1e-12)


def test_the_horvitz_thompson_mean_has_no_eps_when_n_differs() -> None:
    """Why ht_mean needs a public N: on neighbours of sizes N and N + 1 (the same sample but
    one added record) the releases' Laplace scales differ and the log density ratio grows
    without bound in the tails."""
    eps = 1.0
    small = mech.HorvitzThompsonMean(1.0, 4, LOWER, UPPER)
    large = mech.HorvitzThompsonMean(1.0, 5, LOWER, UPPER)
    x = [2.0, 3.0, 5.0, 8.0]
    mu0, mu1 = small.statistic_one(x), large.statistic_one([*x, CENTRE])
    b0, b1 = small.global_sensitivity / eps, large.global_sensitivity / eps
    ys = np.array([10.0, 100.0, 1000.0])

    def log_density(y: np.ndarray, mu: float, b: float) -> np.ndarray:
        return -np.log(2 * b) - np.abs(y - mu) / b

    loss = np.abs(log_density(ys, mu0, b0) - log_density(ys, mu1, b1))
    assert loss[0] < loss[1] < loss[2]
    assert loss[-1] > 50 * eps


# -- the split, the interface and the checks ---------------------------------------------------


@pytest.mark.parametrize(
    ("size", "offset", "eps"),
    [(40.0, 3.0, 0.5), (3.0, 0.0, 1.5), (10.0, 4.0, 0.1), (1.0, 2.0, 5.0)],
)
def test_the_share_minimises_the_planned_noise_error(
    size: float, offset: float, eps: float
) -> None:
    """The chosen share is the best of the published grid by the law's MSE, and that MSE is
    the adaptive integral of its definition (so the choice stands with the accurate law)."""
    m = mech.SumCountMean(LOWER, UPPER, size_hint=size, offset_hint=offset)
    s = m.share(eps)

    def law(share: float) -> SumCountLaw:
        return mech.SumCountMean(LOWER, UPPER, sum_share=share).law([size * offset], [size], eps)

    def mse(share: float) -> float:
        return float(law(share).mse(CENTRE + offset)[0])

    grid = np.arange(0.02, 0.99, 0.01)
    best = min(mse(float(g)) for g in grid)
    assert mse(s) <= best * (1 + 1e-3)
    assert abs(s / 0.01 - round(s / 0.01)) < 1e-9  # rounded to the published step
    chosen = law(s)
    b1 = float(chosen.b_sum[0])

    def g(d: float) -> float:
        centre = CENTRE + size * offset / d
        return float(clipped_laplace_mse(centre, b1 / d, LOWER, UPPER, CENTRE + offset))

    kinks = [abs(size * offset) / ((UPPER - LOWER) / 2)] if offset else []
    assert mse(s) == pytest.approx(_law_by_quad(chosen, g, kinks), abs=1e-6)


@pytest.mark.parametrize(
    ("size", "offset", "eps"),
    [(0.0, 0.0, 1.0), (12.0, 4.5, 0.05), (250.0, -3.0, 0.3), (40.0, 4.9, 3.0), (5.0, 1.0, 1.0)],
)
def test_the_share_is_the_least_of_the_whole_grid(size: float, offset: float, eps: float) -> None:
    """The coarse-then-fine search finds the share of least MSE on the whole grid."""
    from core.mechanisms.sum_count import SHARE_GRID, chosen_share

    law = SumCountLaw(
        np.full(SHARE_GRID.size, max(size, 1.0) * offset),
        np.full(SHARE_GRID.size, max(size, 1.0)),
        ((UPPER - LOWER) / 2) / (SHARE_GRID * eps),
        1.0 / ((1.0 - SHARE_GRID) * eps),
        LOWER,
        UPPER,
    )
    best = float(SHARE_GRID[int(np.argmin(law.mse(CENTRE + offset)))])
    assert chosen_share(LOWER, UPPER, size, offset, eps) == pytest.approx(best, abs=1e-12)
    m = mech.SumCountMean(LOWER, UPPER, size_hint=size, offset_hint=offset)
    assert m.share(eps) == pytest.approx(best, abs=1e-12)


def test_large_samples_split_as_the_first_order_rule() -> None:
    a, half = 3.0, (UPPER - LOWER) / 2
    m = mech.SumCountMean(LOWER, UPPER, size_hint=1e6, offset_hint=a)
    assert m.share(1.0) == pytest.approx(1.0 / (1.0 + (a / half) ** (2.0 / 3.0)), abs=0.011)
    assert mech.SumCountMean(LOWER, UPPER).share(1.0) == 0.5


def test_an_empty_sample_has_a_law_and_a_private_release() -> None:
    m = _m()
    released, variance, scale = m.release_empty(1.0, LOWER, UPPER, np.random.default_rng(0))
    assert LOWER <= released <= UPPER
    assert variance == pytest.approx(float(m.law_of_empty(1.0).mse(CENTRE)[0]), rel=1e-12)
    assert scale == pytest.approx((UPPER - LOWER) / 2 / 0.4, rel=1e-12)


def test_by_name_and_attributes() -> None:
    m = mech.mechanism_by_name("sum_count", lower=LOWER, upper=UPPER, sum_share=0.25)
    assert m == _m(0.25) and hash(m) == hash(_m(0.25))
    assert m.relations == frozenset({"deletion"})
    assert not m.needs_public_size and mech.HorvitzThompsonMean.needs_public_size
    assert "SumCountMean(" in repr(m)
    assert not m.additive and m.pure


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"sum_share": 0.0}, "sum_share"),
        ({"sum_share": 1.0}, "sum_share"),
        ({"size_hint": -1.0}, "size_hint"),
        ({"offset_hint": math.nan}, "offset_hint"),
    ],
)
def test_bad_arguments_raise(kwargs: dict[str, float], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        mech.SumCountMean(LOWER, UPPER, **kwargs)


def test_release_checks_bounds_and_budget() -> None:
    m = _m()
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="built for the bounds"):
        m.release([[1.0, 2.0]], 1.0, 0.5, LOWER, 20.0, rng)
    with pytest.raises(ValueError, match="eps_sample"):
        m.release([[1.0, 2.0]], -1.0, 0.5, LOWER, UPPER, rng)
    with pytest.raises(ValueError, match="sorted"):
        m.release([[2.0, 1.0]], 1.0, 0.5, LOWER, UPPER, rng)


def test_one_row_depends_on_that_row_only_and_budgets_per_row() -> None:
    m = _m()
    batch = np.array([[1.0, 2.0, 3.0], [0.0, 5.0, 10.0]])
    one = m.release(batch[:1], 1.0, 0.5, LOWER, UPPER, np.random.default_rng(0))
    both = m.release(batch, [1.0, 2.0], 0.5, LOWER, UPPER, np.random.default_rng(0))
    assert both.statistic[0] == pytest.approx(one.statistic[0])
    assert both.law is not None and one.law is not None
    assert float(both.law.mse(2.0)[0]) == pytest.approx(float(one.law.mse(2.0)[0]), rel=1e-12)
    assert both.noise_scale[1] == pytest.approx(both.noise_scale[0] / 2)


def test_ragged_samples_are_released_at_once_with_the_same_law() -> None:
    m = _m(0.45)
    rows = [np.array([]), np.array([1.0, 4.0]), np.array([0.0, 5.0, 10.0])]
    rel = m.release_ragged(rows, 0.9, LOWER, UPPER, np.random.default_rng(0))
    assert rel.statistic == pytest.approx([CENTRE, 2.5, 5.0])
    assert rel.law is not None
    for i, r in enumerate(rows):
        alone = m.law([float((r - CENTRE).sum())], [float(r.size)], 0.9)
        assert float(rel.law.mse(3.0)[i]) == pytest.approx(float(alone.mse(3.0)[0]), rel=1e-12)
    with pytest.raises(ValueError, match="bounds"):
        m.release_ragged([np.array([11.0])], 0.9, LOWER, UPPER, np.random.default_rng(0))
    assert not mech.LaplaceMean.ragged
    with pytest.raises(NotImplementedError):
        mech.LaplaceMean().release_ragged(rows, 0.9, LOWER, UPPER, np.random.default_rng(0))


def test_sorted_rows_are_released_as_the_list_of_their_samples() -> None:
    """The planner's samples end to end (empty ones first, between and last): the sums
    taken at once give the release of the samples one by one, from the same draws."""
    from core.mechanisms.rows import SortedRows

    m = mech.SumCountMean(LOWER, UPPER, size_hint=3.0, offset_hint=1.0)
    gen = np.random.default_rng(4)
    samples = [np.sort(gen.uniform(LOWER, UPPER, n)) for n in (0, 3, 1, 0, 0, 7, 2, 0)]
    want = m.release_ragged(samples, 0.7, LOWER, UPPER, np.random.default_rng(1))
    got = m.release_ragged(SortedRows.of(samples), 0.7, LOWER, UPPER, np.random.default_rng(1))
    for name in ("released", "statistic", "sensitivity", "noise_scale"):
        np.testing.assert_allclose(getattr(got, name), getattr(want, name), rtol=1e-12)
    assert got.law is not None and want.law is not None
    np.testing.assert_allclose(got.law.total, want.law.total, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(got.law.size, want.law.size)
    with pytest.raises(ValueError, match="bounds"):
        m.release_ragged(SortedRows.of([[11.0]]), 0.7, LOWER, UPPER, np.random.default_rng(1))


def test_the_public_release_function_takes_the_size_free_mean_by_name() -> None:
    rows = np.array([[1.0, 2.0, 9.0]])
    got = mech.release(
        rows, mechanism="sum_count", eps=1.0, lower=LOWER, upper=UPPER,
        rng=np.random.default_rng(5),
    )  # fmt: skip
    want = mech.SumCountMean(LOWER, UPPER).release(
        rows, 1.0, 0.5, LOWER, UPPER, np.random.default_rng(5)
    )
    assert got == pytest.approx(want.released)
    with pytest.raises(ValueError, match="quantile"):
        mech.release(
            rows, mechanism="sum_count", eps=1.0, lower=LOWER, upper=UPPER,
            rng=np.random.default_rng(5), quantile=0.9,
        )  # fmt: skip


@pytest.mark.parametrize("eps", [1e-12, 1e-6, 1.0, 1e3, 1e8])
def test_errors_stay_finite_from_tiny_to_huge_budgets(eps: float) -> None:
    m = mech.SumCountMean(LOWER, UPPER, size_hint=30.0, offset_hint=1.0)
    values = np.linspace(LOWER, UPPER, 30)
    mse, e95 = m.exact_error(values, eps, 0.5, LOWER, UPPER, 0.95)
    assert math.isfinite(mse) and 0.0 <= mse <= (UPPER - LOWER) ** 2
    assert 0.0 <= e95 <= UPPER - LOWER
    if eps >= 1e3:  # little noise: the error falls like 1 / eps
        assert mse < 1e-6 and e95 < 1e-2
    if eps <= 1e-6:  # all noise: the releases sit on the bounds, half the range away
        assert e95 == pytest.approx((UPPER - LOWER) / 2, rel=1e-9)
