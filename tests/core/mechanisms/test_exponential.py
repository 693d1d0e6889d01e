"""Tests for core.mechanisms.exponential: the exponential mechanism for a quantile.

Privacy is checked, not assumed: the exact output density of the exponential median is
compared on neighbouring samples (one record changed, added or removed; ties and values
at the bounds included).  The exact distribution and errors are checked against slow
references written from the definition (dense numerical integration) kept in this file.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from scipy import stats

from core import mechanisms as mech
from tests.core.mechanisms.neighbours import SAMPLES, _additions_removals, _replacements
from tests.core.planner import exact_release as ref

LOWER, UPPER = 0.0, 10.0
RATIO_TOL = math.log1p(1e-9)


# ---------------------------------------------------------------------------------------
# Slow references, written from the definition
# ---------------------------------------------------------------------------------------


def _definition_log_score(values: np.ndarray, eps: float, y: np.ndarray) -> np.ndarray:
    """``eps u(y) / 2`` with ``u(y) = -|#{x <= y} - n/2|``: the unnormalised log-density."""
    below = (np.asarray(values)[np.newaxis, :] <= y[:, np.newaxis]).sum(axis=1)
    return -eps * np.abs(below - len(values) / 2.0) / 2.0


def _dense_reference(
    values: list[float], eps: float, centre: float, level: float, cells: int = 400_000
) -> tuple[float, float, np.ndarray, np.ndarray]:
    """MSE, quantile of |Y - centre|, and the density on a midpoint grid, by brute force."""
    h = (UPPER - LOWER) / cells
    y = LOWER + h * (np.arange(cells) + 0.5)
    log_f = _definition_log_score(np.sort(values), eps, y)
    f = np.exp(log_f - log_f.max())
    f /= f.sum() * h
    mass = f * h
    mse = float(np.sum(mass * (y - centre) ** 2))
    dist = np.abs(y - centre)
    order = np.argsort(dist)
    cum = np.cumsum(mass[order])
    quantile = float(dist[order][np.searchsorted(cum, level)])
    return mse, quantile, y, f


def _log_density(values: list[float], eps: float, y: np.ndarray) -> np.ndarray:
    """Log output density of the mechanism at ``y`` (inside (LOWER, UPPER)), from the module."""
    edges, p = mech.exponential_median_distribution(values, eps, LOWER, UPPER)
    i = np.searchsorted(edges, y, side="right") - 1  # z_i <= y < z_{i+1}: positive width
    width = edges[i + 1] - edges[i]
    assert (width > 0).all()
    return np.log(p[i]) - np.log(width)


def _output_grid(*samples: list[float]) -> np.ndarray:
    """A fine grid inside (LOWER, UPPER) plus the midpoints of every common cell."""
    fine = LOWER + (UPPER - LOWER) * (np.arange(4001) + 0.5) / 4001
    knots = np.unique(np.concatenate([[LOWER, UPPER], *[np.asarray(s) for s in samples]]))
    return np.concatenate([fine, (knots[:-1] + knots[1:]) / 2])


def _neighbours(values: list[float], extra: list[float]) -> list[tuple[str, list[float]]]:
    """Every neighbour of ``values``: one record changed, added or removed."""
    out: list[tuple[str, list[float]]] = []
    candidates = sorted({*values, *extra, LOWER, UPPER})
    for j in range(len(values)):
        if len(values) > 1:
            out.append(("deletion", values[:j] + values[j + 1 :]))
        for v in candidates:
            out.append(("replacement", [*values[:j], v, *values[j + 1 :]]))
    for v in candidates:
        out.append(("deletion", [*values, v]))
    return out


def _worst_log_ratio(a: list[float], b: list[float], eps: float) -> float:
    y = _output_grid(a, b)
    return float(np.max(np.abs(_log_density(a, eps, y) - _log_density(b, eps, y))))


# ---------------------------------------------------------------------------------------
# Class attributes
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("cls", "pure", "relations"),
    [
        (mech.SmoothLaplaceQuantile, False, {"replacement"}),
        (mech.GlobalLaplaceQuantile, True, {"replacement", "deletion"}),
        (mech.LaplaceMean, True, {"replacement"}),
        (mech.ExponentialQuantile, True, {"replacement", "deletion"}),
        (mech.HorvitzThompsonMean, True, {"deletion"}),
    ],
)
def test_pure_and_relations_are_declared(cls: type[mech.Mechanism], pure: bool, relations) -> None:
    assert cls.pure is pure
    assert cls.relations == frozenset(relations)
    assert cls.uses_delta is not pure
    assert cls in mech.MECHANISMS.values()


def test_exponential_quantile_class_attributes() -> None:
    m = mech.ExponentialQuantile()
    assert (m.name, m.label) == ("exponential", "quantile, exponential mechanism")
    # The class's factors hold at every level; the accounting's are the level's own.
    assert (m.add_remove_factor, m.change_factor) == (1.0, 1.0)
    for q, alpha in ((0.5, 0.5), (0.25, 0.75), (0.75, 0.75), (0.9, 0.9), (0.1, 0.9)):
        f = mech.ExponentialQuantile.budget_factors(q)
        assert f.name == "exponential" and f.change == 1.0
        assert f.add_remove == pytest.approx(alpha, rel=1e-15)
        assert f.relations == m.relations == frozenset({"replacement", "deletion"})
    with pytest.raises(ValueError, match="quantile"):
        mech.ExponentialQuantile.budget_factors(1.0)
    assert m.quantile == 0.5 and m == mech.ExponentialQuantile(0.5) != mech.ExponentialQuantile(0.9)
    assert m.additive is False and m.unit_noise_variance is None
    assert m.noise_variance(np.ones(2), 1.0) is None


# ---------------------------------------------------------------------------------------
# ExponentialMedian: privacy from the exact density
# ---------------------------------------------------------------------------------------

_BASES = [
    [3.0],
    [2.0, 7.0],
    [1.0, 4.0, 4.0, 9.0],  # a tie at the median
    [0.0, 0.0, 5.0, 10.0, 10.0],  # values at both bounds
    [5.0, 5.0, 5.0, 5.0, 5.0, 5.0],  # all tied
    [0.5, 2.5, 3.0, 6.0, 6.5, 8.0, 9.5],
]


@pytest.mark.parametrize("eps", [0.01, 1.0, 5.0])
@pytest.mark.parametrize("values", _BASES, ids=[str(len(b)) + "-" + str(b[0]) for b in _BASES])
def test_exponential_median_density_ratio_is_at_most_e_to_eps(
    values: list[float], eps: float
) -> None:
    # Changed, added or removed record: the density ratio is at most e^eps everywhere;
    # under add/remove alone the score moves by 1/2, so the ratio is at most e^(eps/2).
    worst = {"replacement": 0.0, "deletion": 0.0}
    for relation, other in _neighbours(values, extra=[2.0, 4.0, 5.0, 7.5]):
        ratio = _worst_log_ratio(values, other, eps)
        worst[relation] = max(worst[relation], ratio)
    assert worst["replacement"] <= eps + RATIO_TOL
    assert worst["deletion"] <= eps / 2 + RATIO_TOL
    # the bound is not vacuous: some neighbour comes close to it (for n = 1 the release
    # is uniform on [LOWER, UPPER] whatever the value, so nothing can be learnt)
    if len(values) > 1:
        assert worst["replacement"] >= 0.3 * eps


@settings(max_examples=60)
@given(
    values=st.lists(st.sampled_from([0.0, 1.0, 3.0, 3.5, 5.0, 8.0, 10.0]), min_size=1, max_size=9),
    eps=st.sampled_from([0.01, 1.0, 5.0]),
)
@example(values=[0.0, 10.0], eps=5.0)
def test_exponential_median_privacy_on_random_tied_samples(values: list[float], eps: float) -> None:
    for relation, other in _neighbours(values, extra=[]):
        bound = eps if relation == "replacement" else eps / 2
        assert _worst_log_ratio(values, other, eps) <= bound + RATIO_TOL


# ---------------------------------------------------------------------------------------
# ExponentialMedian: the exact distribution and errors against brute force
# ---------------------------------------------------------------------------------------

_CASES = [
    ([2.0, 7.0, 7.5], 1.0, 7.0),
    ([0.0, 0.0, 4.0, 4.0, 4.0, 10.0], 0.01, 4.0),
    ([0.0, 0.0, 4.0, 4.0, 4.0, 10.0], 5.0, 4.0),
    ([1.0, 2.0, 3.0, 5.0, 8.0, 9.0, 9.5, 10.0], 1.0, 2.0),  # centre off the median
    ([6.0], 0.5, 6.0),
]


@pytest.mark.parametrize(("values", "eps", "centre"), _CASES)
def test_exact_density_matches_the_definition(
    values: list[float], eps: float, centre: float
) -> None:
    _, _, y, f = _dense_reference(values, eps, centre, 0.95, cells=20_000)
    # away from the data points, where the brute-force cell straddles a jump
    away = np.min(np.abs(y[:, np.newaxis] - np.array(values)[np.newaxis, :]), axis=1) > 1e-3
    np.testing.assert_allclose(np.exp(_log_density(values, eps, y[away])), f[away], rtol=2e-4)


@pytest.mark.parametrize(("values", "eps", "centre"), _CASES)
@pytest.mark.parametrize("level", [0.5, 0.95])
def test_exponential_median_error_matches_dense_integration(
    values: list[float], eps: float, centre: float, level: float
) -> None:
    mse, quantile = mech.exponential_median_error(values, eps, LOWER, UPPER, centre, level)
    ref_mse, ref_quantile, _, _ = _dense_reference(values, eps, centre, level)
    h = (UPPER - LOWER) / 400_000
    assert mse == pytest.approx(ref_mse, rel=1e-6, abs=1e-9)
    assert quantile == pytest.approx(ref_quantile, abs=2 * h)


def test_exponential_median_error_by_hand_for_one_value() -> None:
    # n = 1: intervals [0, 4] (i = 0) and [4, 10] (i = 1), |i - 1/2| = 1/2 for both, so
    # the release is uniform on [0, 10].  About c = 4: E[(Y-4)^2] = (4^3 + 6^3) / 30.
    mse, q = mech.exponential_median_error([4.0], 3.0, LOWER, UPPER, 4.0, 0.5)
    assert mse == pytest.approx((4.0**3 + 6.0**3) / 30.0, rel=1e-14)
    assert q == pytest.approx(2.5, rel=1e-14)  # P(|Y - 4| <= t) = 2t/10 for t <= 4
    mse, q = mech.exponential_median_error([4.0], 3.0, LOWER, UPPER, 4.0, 0.9)
    assert q == pytest.approx(5.0, rel=1e-14)  # 0.8 at t = 4, then slope 1/10


@pytest.mark.parametrize(("values", "eps", "centre"), _CASES[:3])
def test_release_follows_the_exact_distribution(
    values: list[float], eps: float, centre: float
) -> None:
    T = 20_000
    batch = np.repeat(np.array([values]), T, axis=0)
    out = mech.ExponentialQuantile().release(
        batch, eps, 0.5, LOWER, UPPER, np.random.default_rng(7)
    )
    edges, p = mech.exponential_median_distribution(values, eps, LOWER, UPPER)
    cdf = np.concatenate([[0.0], np.cumsum(p)])

    def exact_cdf(y: np.ndarray) -> np.ndarray:
        return np.interp(y, edges, cdf)

    assert stats.kstest(out.released, exact_cdf).pvalue > 1e-3
    mse, _ = mech.exponential_median_error(values, eps, LOWER, UPPER, centre)
    sq = (out.released - centre) ** 2
    assert sq.mean() == pytest.approx(mse, abs=4 * sq.std() / math.sqrt(T))
    np.testing.assert_array_equal(out.statistic, sorted(values)[(len(values) + 1) // 2 - 1])
    np.testing.assert_array_equal(out.sensitivity, 1.0)
    np.testing.assert_allclose(out.noise_scale, 2.0 / eps)
    assert out.noise_variance is None


def test_release_uses_each_rows_own_budget() -> None:
    # Row r's draw uses eps[r]: rows with a huge budget sit at the median, tiny ones spread.
    rng = np.random.default_rng(3)
    batch = np.sort(rng.uniform(LOWER, UPPER, size=(400, 21)), axis=1)
    eps = np.where(np.arange(400) % 2 == 0, 1000.0, 1e-12)
    out = mech.ExponentialQuantile().release(batch, eps, 0.5, LOWER, UPPER, rng)
    lo_med, hi_med = batch[:, 9], batch[:, 11]  # the two intervals next to rank 10.5
    sharp = np.arange(400) % 2 == 0
    assert ((out.released >= lo_med) & (out.released <= hi_med))[sharp].all()
    assert not ((out.released >= lo_med) & (out.released <= hi_med))[~sharp].all()


# ---------------------------------------------------------------------------------------
# ExponentialMedian: numerics and properties
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("eps", [1000.0, 1e-12, 1e300])
@pytest.mark.parametrize(
    "values", [[5.0], [0.0, 0.0, 0.0], [10.0, 10.0], [1.0, 3.0, 3.0, 3.0, 9.0], [0.0, 10.0]]
)
def test_extreme_budgets_give_finite_releases_inside_the_bounds(
    values: list[float], eps: float
) -> None:
    batch = np.repeat(np.array([values]), 200, axis=0)
    out = mech.ExponentialQuantile().release(
        batch, eps, 0.5, LOWER, UPPER, np.random.default_rng(1)
    )
    assert np.isfinite(out.released).all()
    assert ((out.released >= LOWER) & (out.released <= UPPER)).all()
    _, p = mech.exponential_median_distribution(values, eps, LOWER, UPPER)
    assert np.isfinite(p).all() and p.sum() == pytest.approx(1.0, rel=1e-12)
    mse, q = mech.exponential_median_error(values, eps, LOWER, UPPER, float(np.median(values)))
    assert math.isfinite(mse) and math.isfinite(q) and 0 <= q <= UPPER - LOWER


def test_tiny_budget_is_uniform_and_large_budget_is_the_median_interval() -> None:
    values = [1.0, 2.0, 6.0, 7.0, 9.0]
    edges, p = mech.exponential_median_distribution(values, 1e-12, LOWER, UPPER)
    np.testing.assert_allclose(p, np.diff(edges) / (UPPER - LOWER), rtol=1e-11)
    mse, _ = mech.exponential_median_error(values, 1e-12, LOWER, UPPER, 3.0)
    assert mse == pytest.approx((7.0**3 + 3.0**3) / 30.0, rel=1e-10)  # uniform on [0, 10]
    # n = 5: |i - 5/2| is smallest (1/2) for i = 2 and 3: [2, 6] and [6, 7], by width.
    _, p = mech.exponential_median_distribution(values, 1000.0, LOWER, UPPER)
    np.testing.assert_allclose(p, [0, 0, 0.8, 0.2, 0, 0], atol=1e-200)  # others: e^-500


def test_exact_error_handles_a_million_values_quickly() -> None:
    import time

    values = np.sort(np.random.default_rng(0).uniform(LOWER, UPPER, 1_000_000))
    start = time.perf_counter()
    mse, q = mech.exponential_median_error(values, 1.0, LOWER, UPPER, float(values[499_999]))
    assert time.perf_counter() - start < 10.0
    assert 0 < mse < 1e-6 and 0 < q < 1e-3


@settings(max_examples=100)
@given(
    values=st.lists(st.floats(LOWER, UPPER, allow_nan=False), min_size=1, max_size=30),
    eps=st.floats(1e-12, 1e4),
    seed=st.integers(0, 2**32 - 1),
)
@example(values=[0.0], eps=1e4, seed=0)
@example(values=[10.0, 10.0, 10.0], eps=1e-12, seed=0)
def test_release_is_inside_the_bounds_and_exact_errors_are_consistent(
    values: list[float], eps: float, seed: int
) -> None:
    x = np.sort(np.array(values))
    out = mech.ExponentialQuantile().release(
        np.repeat(x[np.newaxis, :], 5, axis=0), eps, 0.5, LOWER, UPPER, np.random.default_rng(seed)
    )
    assert ((out.released >= LOWER) & (out.released <= UPPER)).all()
    mse, q95 = mech.exponential_median_error(x, eps, LOWER, UPPER, float(out.statistic[0]))
    _, q50 = mech.exponential_median_error(x, eps, LOWER, UPPER, float(out.statistic[0]), 0.5)
    assert 0 <= q50 <= q95 <= UPPER - LOWER
    assert 0 <= mse <= (UPPER - LOWER) ** 2


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"sorted_values": []}, "must not be empty"),
        ({"sorted_values": [1.0, 11.0]}, "public bounds"),
        ({"sorted_values": [1.0, np.nan]}, "finite"),
        ({"eps_sample": 0.0}, "eps_sample"),
        ({"eps_sample": math.inf}, "eps_sample"),
        ({"lower": 10.0}, "lower must be < upper"),
        ({"centre": math.nan}, "centre"),
        ({"level": 1.0}, "level"),
        ({"level": 0.0}, "level"),
    ],
)
def test_exponential_median_error_rejects_bad_input(kwargs: dict, match: str) -> None:
    args = {
        "sorted_values": [1.0, 2.0],
        "eps_sample": 1.0,
        "lower": LOWER,
        "upper": UPPER,
        "centre": 1.0,
        "level": 0.95,
    }
    with pytest.raises(ValueError, match=match):
        mech.exponential_median_error(**{**args, **kwargs})


@pytest.mark.parametrize(
    ("samples", "eps", "delta", "match"),
    [
        (np.array([[2.0, 1.0]]), 1.0, 0.1, "sorted"),
        (np.array([[1.0, 11.0]]), 1.0, 0.1, "public bounds"),
        (np.array([[1.0, 2.0]]), -1.0, 0.1, "eps_sample"),
        (np.array([[1.0, 2.0]]), 1.0, 0.0, "delta_sample"),
        (np.zeros((2, 0)), 1.0, 0.1, "2-d"),
    ],
)
def test_exponential_release_rejects_bad_input(samples, eps, delta, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        mech.ExponentialQuantile().release(
            samples, eps, delta, LOWER, UPPER, np.random.default_rng()
        )
    with pytest.raises(ValueError, match="Generator"):
        mech.ExponentialQuantile().release([[1.0]], 1.0, 0.1, LOWER, UPPER, 3)  # type: ignore[arg-type]


# ---------------------------------------------------------------------------------------
# HorvitzThompsonMean
# ---------------------------------------------------------------------------------------


def _exp_log_density(values, eps, q, y):
    edges, p = mech.exponential_quantile_distribution(values, eps, LOWER, UPPER, q)
    i = np.searchsorted(edges, y, side="right") - 1
    return np.log(p[i]) - np.log(edges[i + 1] - edges[i])


@pytest.mark.parametrize("q", [0.1, 0.25, 0.9])
@pytest.mark.parametrize("eps", [0.01, 1.0, 5.0])
def test_exponential_quantile_density_ratio(q: float, eps: float) -> None:
    worst = {"replacement": 0.0, "deletion": 0.0}
    for values in SAMPLES:
        for relation, others in (
            ("replacement", _replacements(values)),
            ("deletion", _additions_removals(values)),
        ):
            for other in others:
                knots = np.unique(np.concatenate([[LOWER, UPPER], values, other]))
                y = np.concatenate(
                    [(knots[:-1] + knots[1:]) / 2, LOWER + 10 * (np.arange(999) + 0.5) / 999]
                )
                y = y[(y > LOWER) & (y < UPPER)]
                r = np.abs(_exp_log_density(values, eps, q, y) - _exp_log_density(other, eps, q, y))
                worst[relation] = max(worst[relation], float(r.max()))
    assert worst["replacement"] <= eps * (1 + RATIO_TOL)
    assert worst["deletion"] <= max(q, 1 - q) * eps * (1 + RATIO_TOL)
    assert worst["replacement"] >= 0.3 * eps


#: Tiny samples for the exact add/remove check, bounds [0, 4]: every multiset of up to five
#: values of the first grid (ties, both bounds), and of up to ten of the second, whose
#: narrow interval [0, 0.01] next to wide ones makes the bound attainable for q = 0.9 (a
#: score drop of q needs c(y) >= q (n + 1), so n >= 9).
_ADD_REMOVE_GRIDS = (((0.0, 1.0, 2.0, 3.0, 4.0), 5), ((0.0, 0.01, 4.0), 10))


def _exp_law(sample: tuple[float, ...], eps: float, q: float) -> ref.Law:
    """The product's exact law on ``sample`` (uniform on the bounds when it is empty)."""
    if not sample:
        return [(1.0, ref.uniform_law(0.0, 4.0))]
    edges, p = mech.exponential_quantile_distribution(sample, eps, 0.0, 4.0, q)
    return [(1.0, ref.PiecewiseUniform(edges, p))]


@pytest.mark.parametrize("q", [0.25, 0.5, 0.9])
def test_add_remove_loss_is_max_q_one_minus_q_and_attained(q: float) -> None:
    """Every tiny sample against the same sample with one record added (read backwards: one
    removed), the empty sample included: the largest log ratio of the exact densities
    (:func:`tests.core.planner.exact_release.compare` on the common refinement of their
    pieces, where both are uniform, so it is the supremum) is at most
    ``budget_factors(q).add_remove · eps = max(q, 1 − q) eps``, and some pair comes within
    5 % of it at each budget: the factor is neither too small nor loose."""
    alpha = mech.ExponentialQuantile.budget_factors(q).add_remove
    assert alpha is not None and alpha == pytest.approx(max(q, 1.0 - q), rel=1e-15)
    for eps in (0.5, 2.0, 8.0):
        worst, where = 0.0, ""
        for grid, most in _ADD_REMOVE_GRIDS:
            for n in range(most + 1):
                for sample in itertools.combinations_with_replacement(grid, n):
                    for z in grid:
                        bigger = tuple(sorted((*sample, z)))
                        got = ref.compare(
                            _exp_law(sample, eps, q), _exp_law(bigger, eps, q), eps, 0.0, 4.0
                        )
                        if got.max_log_ratio > worst:
                            worst, where = got.max_log_ratio, f"{sample} + {z}"
        assert worst <= alpha * eps * (1 + 1e-9) + 1e-12, (eps, worst, where)
        assert worst >= 0.95 * alpha * eps, (eps, worst, where)


@pytest.mark.parametrize("q", [0.1, 0.75])
def test_exponential_quantile_release_and_error_match_the_exact_law(q: float) -> None:
    values = [0.5, 1.0, 2.0, 2.0, 6.0, 7.5, 9.0]
    eps, T = 1.5, 20_000
    m = mech.ExponentialQuantile(q)
    out = m.release(
        np.repeat([values], T, axis=0), eps, 0.5, LOWER, UPPER, np.random.default_rng(2)
    )
    edges, p = mech.exponential_quantile_distribution(values, eps, LOWER, UPPER, q)
    cdf = np.concatenate([[0.0], np.cumsum(p)])
    assert stats.kstest(out.released, lambda y: np.interp(y, edges, cdf)).pvalue > 1e-3
    # exact error against brute-force integration of the definition's density
    centre = float(out.statistic[0])
    mse, q95 = mech.exponential_quantile_error(values, eps, LOWER, UPPER, centre, 0.95, q)
    h = 1e-4
    y = LOWER + h * (np.arange(int((UPPER - LOWER) / h)) + 0.5)
    below = (np.array(values)[None, :] <= y[:, None]).sum(axis=1)
    dens = np.exp(-eps * np.abs(below - q * len(values)) / 2)
    dens /= dens.sum() * h
    assert mse == pytest.approx(float(np.sum(dens * h * (y - centre) ** 2)), rel=1e-6)
    order = np.argsort(np.abs(y - centre))
    ref_q = np.abs(y - centre)[order][np.searchsorted(np.cumsum(dens[order] * h), 0.95)]
    assert q95 == pytest.approx(ref_q, abs=3 * h)
    sq = (out.released - centre) ** 2
    assert sq.mean() == pytest.approx(mse, abs=4 * sq.std() / math.sqrt(T))


def test_exponential_median_wrappers_are_the_quantile_at_one_half() -> None:
    values = [1.0, 2.0, 2.0, 7.0]
    a = mech.exponential_median_distribution(values, 0.9, LOWER, UPPER)
    b = mech.exponential_quantile_distribution(values, 0.9, LOWER, UPPER, 0.5)
    np.testing.assert_array_equal(a[1], b[1])
    assert mech.exponential_median_error(values, 0.9, LOWER, UPPER, 2.0) == (
        mech.exponential_quantile_error(values, 0.9, LOWER, UPPER, 2.0, 0.95, 0.5)
    )


@pytest.mark.parametrize("eps", [1e-9, 0.3, 5.0, 1000.0])
@pytest.mark.parametrize("q", [0.05, 0.5, 0.9])
def test_compiled_interval_draw_agrees_with_the_log_domain_draw(monkeypatch, eps, q):
    """The compiled inverse-CDF draw and the log-domain fallback pick the same interval."""
    rng = np.random.default_rng(12)
    batch = np.sort(np.round(rng.uniform(0.0, 50.0, (400, 25))), axis=1)  # ties included
    batch[:5] = 20.0  # every value equal: zero-width centre intervals
    u = 1.0 - rng.random(400)
    eps_rows = np.full(400, eps)
    fast = mech._exponential_choose(batch, 0.0, 50.0, eps_rows, q, u)
    monkeypatch.setattr(mech.exponential, "_choose_compiled", None)
    slow = mech._exponential_choose(batch, 0.0, 50.0, eps_rows, q, u)
    assert np.mean(fast == slow) >= 0.995
    widths = np.diff(np.concatenate([np.zeros((400, 1)), batch, np.full((400, 1), 50.0)], 1), 1)
    assert (widths[np.arange(400), fast] > 0).all()


def _tied_register(n: int, seed: int) -> np.ndarray:
    """Counts of employees: a third of the records tied at the lower bound, heavy tail."""
    rng = np.random.default_rng(seed)
    return np.sort(np.minimum(np.floor(rng.pareto(1.2, n)) + LOWER, UPPER))


@pytest.mark.parametrize("eps", [1e-3, 0.05, 1.0, 40.0, 1e3])
@pytest.mark.parametrize("q", [0.05, 0.25, 0.5, 0.9])
@pytest.mark.parametrize("kind", ["smooth", "tied", "at bounds"])
def test_errors_from_the_window_of_intervals_equal_the_whole_laws(eps, q, kind) -> None:
    """exponential_quantile_error weighs only a certified window of intervals around the
    rank: its errors equal those of the whole law (every one of the n + 1 intervals)."""
    from core.mechanisms.exponential import _kept_law, _piecewise_uniform_errors

    n = 30_001
    rng = np.random.default_rng(3)
    if kind == "smooth":
        values = np.sort(rng.uniform(LOWER, UPPER, n))
    elif kind == "tied":
        values = _tied_register(n, 4)
    else:
        values = np.sort(np.where(rng.random(n) < 0.5, LOWER, UPPER))
    centre = float(values[int(q * n)])
    got = mech.exponential_quantile_error(values, eps, LOWER, UPPER, centre, 0.95, q)
    edges, p = mech.exponential_quantile_distribution(values, eps, LOWER, UPPER, q)
    want = _piecewise_uniform_errors(edges, p, centre, 0.95)
    assert got == pytest.approx(want, rel=1e-9, abs=1e-300)
    # Grown from a window of one interval each side: certified only once nothing outside
    # it can be kept.
    grown = _piecewise_uniform_errors(*_kept_law(values, LOWER, UPPER, eps, q, 1.0), centre, 0.95)
    assert grown == pytest.approx(want, rel=1e-9, abs=1e-300)
