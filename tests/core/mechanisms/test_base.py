"""Tests for core.mechanisms.base: one interface for the Laplace median and mean releases.

Every test that can is parameterised over the implemented subclasses.  Statistical checks
use fixed seeds and tolerances of a few Monte Carlo standard errors.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core import mechanisms as mech
from core import sensitivity as sens

LOWER, UPPER = 0.0, 10.0
ALL = [mech.SmoothLaplaceQuantile, mech.GlobalLaplaceQuantile, mech.LaplaceMean]
IDS = [cls.name for cls in ALL]


def _batch(reps: int, n: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.sort(rng.uniform(LOWER, UPPER, size=(reps, n)), axis=1)


@pytest.mark.parametrize("cls", ALL, ids=IDS)
def test_release_is_statistic_plus_scaled_standard_noise(cls: type[mech.Mechanism]) -> None:
    m = cls()
    samples = _batch(50, 9)
    out = m.release(samples, 0.7, 1e-3, LOWER, UPPER, np.random.default_rng(5))
    z = np.random.default_rng(5).laplace(0.0, 1.0, size=50)
    assert out.released.shape == out.statistic.shape == out.sensitivity.shape == (50,)
    np.testing.assert_array_equal(out.statistic, m.statistic(samples))
    # Clamped to the public bounds (issue 35): post-processing of the noisy statistic.
    np.testing.assert_array_equal(
        out.released, np.clip(out.statistic + z * out.noise_scale, LOWER, UPPER)
    )
    assert ((out.released >= LOWER) & (out.released <= UPPER)).all()
    assert out.noise_variance is not None
    np.testing.assert_array_equal(out.noise_variance, 2.0 * out.noise_scale**2)
    assert (out.sensitivity >= 0).all()


@pytest.mark.parametrize("cls", ALL, ids=IDS)
def test_stated_conditional_variance_matches_simulation(cls: type[mech.Mechanism]) -> None:
    # One fixed sample released T times: the empirical variance of the releases is the
    # conditional noise variance.  Var of a Laplace sample variance: relative sd sqrt(5/T).
    m = cls()
    T = 40_000
    sample = _batch(1, 15, seed=3)[0]
    batch = np.repeat(sample[np.newaxis, :], T, axis=0)
    out = m.release(batch, 1.3, 1e-3, LOWER, UPPER, np.random.default_rng(11))
    # The release is clamped to [L, U]: its conditional mean and square are the clamped
    # law's (core.mechanisms.base.Mechanism.clamped_noise_moments).
    assert out.noise_mean is not None and out.noise_square is not None
    assert np.ptp(out.noise_square) == 0.0  # same sample, same law
    mean, square = float(out.noise_mean[0]), float(out.noise_square[0])
    err = out.released - out.statistic
    variance = square - mean**2
    assert err.var(ddof=1) == pytest.approx(variance, rel=4 * math.sqrt(5 / T))
    assert err.mean() == pytest.approx(mean, abs=4 * math.sqrt(variance / T))
    assert np.mean(err**2) == pytest.approx(square, rel=4 * math.sqrt(5 / T))


@pytest.mark.parametrize("cls", ALL, ids=IDS)
def test_standardised_noise_has_unit_variance_across_different_samples(
    cls: type[mech.Mechanism],
) -> None:
    m = cls()
    T = 30_000
    samples = _batch(T, 7, seed=8)
    eps = np.random.default_rng(2).uniform(0.2, 3.0, size=T)  # one budget per row
    out = m.release(samples, eps, 1e-2, LOWER, UPPER, np.random.default_rng(4))
    assert out.noise_square is not None
    # E[(released − statistic)^2 / noise_square] = 1 row by row, for the clamped release.
    u2 = (out.released - out.statistic) ** 2 / out.noise_square
    assert np.mean(u2) == pytest.approx(1.0, abs=4 * float(u2.std()) / math.sqrt(T))


def test_statistics_and_sensitivities_are_the_documented_ones() -> None:
    samples = _batch(6, 8)
    eps, delta = 0.9, 1e-3
    smooth = mech.SmoothLaplaceQuantile()
    np.testing.assert_array_equal(smooth.statistic(samples), samples[:, 3])  # rank (8+1)//2
    expected = [sens.smooth_sensitivity_median(row, eps, delta, LOWER, UPPER) for row in samples]
    np.testing.assert_allclose(
        smooth.sensitivity(samples, eps, delta, LOWER, UPPER), expected, rtol=1e-12
    )
    np.testing.assert_array_equal(smooth.noise_scale(np.array([1.5]), 0.5), [6.0])
    glob = mech.GlobalLaplaceQuantile()
    np.testing.assert_array_equal(glob.sensitivity(samples, eps, delta, LOWER, UPPER), 10.0)
    np.testing.assert_array_equal(glob.noise_scale(np.array([10.0]), 0.5), [20.0])
    mean = mech.LaplaceMean()
    np.testing.assert_allclose(mean.statistic(samples), samples.mean(axis=1), rtol=0)
    np.testing.assert_array_equal(mean.sensitivity(samples, eps, delta, LOWER, UPPER), 10.0 / 8)


@pytest.mark.parametrize("cls", ALL, ids=IDS)
def test_rows_are_independent(cls: type[mech.Mechanism]) -> None:
    m = cls()
    samples = _batch(12, 5, seed=1)
    perm = np.random.default_rng(0).permutation(12)
    s = m.sensitivity(samples, 0.5, 1e-3, LOWER, UPPER)
    np.testing.assert_array_equal(m.statistic(samples[perm]), m.statistic(samples)[perm])
    np.testing.assert_array_equal(m.sensitivity(samples[perm], 0.5, 1e-3, LOWER, UPPER), s[perm])


# ---------------------------------------------------------------------------------------
# Privacy claims, checked on random neighbouring samples (bounded DP: one record changed)
# ---------------------------------------------------------------------------------------

_values = st.lists(
    st.floats(LOWER, UPPER, allow_nan=False, allow_infinity=False), min_size=1, max_size=25
)


@settings(max_examples=150, deadline=None)
@given(
    values=_values,
    index=st.integers(0, 24),
    new=st.floats(LOWER, UPPER, allow_nan=False),
    eps=st.floats(0.05, 5.0),
)
def test_global_mechanisms_never_lose_more_than_eps(
    values: list[float], index: int, new: float, eps: float
) -> None:
    # The Laplace density ratio at any output is at most exp(|f(x) - f(x')| / b); with
    # b = S / eps and |f(x) - f(x')| <= S this is at most exp(eps).
    x = np.sort(np.array(values))[np.newaxis, :]
    changed = np.array(values)
    changed[index % changed.size] = new
    y = np.sort(changed)[np.newaxis, :]
    for m in (mech.GlobalLaplaceQuantile(), mech.LaplaceMean()):
        s = m.sensitivity(x, eps, 0.5, LOWER, UPPER)
        assert (s == m.sensitivity(y, eps, 0.5, LOWER, UPPER)).all()  # data-independent
        shift = abs(float(m.statistic(x)[0] - m.statistic(y)[0]))
        assert shift / float(m.noise_scale(s, eps)[0]) <= eps * (1 + 1e-12)


@settings(max_examples=150, deadline=None)
@given(
    values=_values,
    index=st.integers(0, 24),
    new=st.floats(LOWER, UPPER, allow_nan=False),
    eps=st.floats(0.05, 5.0),
    delta=st.floats(1e-6, 0.5),
)
def test_smooth_sensitivity_bounds_local_and_is_smooth(
    values: list[float], index: int, new: float, eps: float, delta: float
) -> None:
    # The two properties the (eps, delta) calibration rests on (Hu et al. Section 2.2):
    # S(x) >= LS(x) and S(x) <= exp(beta) S(x') for neighbours x, x'.
    m = mech.SmoothLaplaceQuantile()
    x = np.sort(np.array(values))
    changed = np.array(values)
    changed[index % changed.size] = new
    y = np.sort(changed)
    sx = float(m.sensitivity(x[np.newaxis, :], eps, delta, LOWER, UPPER)[0])
    sy = float(m.sensitivity(y[np.newaxis, :], eps, delta, LOWER, UPPER)[0])
    beta = sens.smooth_beta(eps, delta)
    assert sx >= sens.local_sensitivity_median(x, LOWER, UPPER) * (1 - 1e-12)
    assert sx <= math.exp(beta) * sy * (1 + 1e-12)


# ---------------------------------------------------------------------------------------
# The seam: extension, lookup and validation
# ---------------------------------------------------------------------------------------


class _NoClosedForm(mech.GlobalLaplaceQuantile):
    name = "no_closed_form"
    unit_noise_variance = None


def test_a_mechanism_without_closed_form_variance_says_none() -> None:
    out = _NoClosedForm().release(_batch(3, 4), 1.0, 0.1, LOWER, UPPER, np.random.default_rng())
    assert out.noise_variance is None


def test_base_class_is_abstract() -> None:
    with pytest.raises(TypeError):
        mech.Mechanism()  # type: ignore[abstract]


@pytest.mark.parametrize(
    ("samples", "eps", "delta", "bounds", "match"),
    [
        (np.arange(4.0), 1.0, 0.1, (0.0, 10.0), "2-d"),
        (np.zeros((2, 0)), 1.0, 0.1, (0.0, 10.0), "2-d"),
        (np.array([[1.0, np.nan]]), 1.0, 0.1, (0.0, 10.0), "finite"),
        (np.array([[2.0, 1.0]]), 1.0, 0.1, (0.0, 10.0), "sorted"),
        (np.array([[1.0, 11.0]]), 1.0, 0.1, (0.0, 10.0), "public bounds"),
        (np.array([[1.0, 2.0]]), 0.0, 0.1, (0.0, 10.0), "eps_sample"),
        (np.array([[1.0, 2.0]]), [1.0, 2.0], 0.1, (0.0, 10.0), "one per sample"),
        (np.array([[1.0, 2.0]]), 1.0, 1.0, (0.0, 10.0), "delta_sample"),
        (np.array([[1.0, 2.0]]), 1.0, 0.1, (5.0, 5.0), "lower must be < upper"),
        ([["a", "b"]], 1.0, 0.1, (0.0, 10.0), "array of numbers"),
    ],
)
@pytest.mark.parametrize("cls", ALL, ids=IDS)
def test_release_rejects_bad_input(
    cls: type[mech.Mechanism], samples: object, eps: object, delta: float, bounds, match: str
) -> None:
    with pytest.raises(ValueError, match=match):
        cls().release(samples, eps, delta, *bounds, np.random.default_rng())  # type: ignore[arg-type]


def test_release_rejects_a_seed_instead_of_a_generator() -> None:
    with pytest.raises(ValueError, match="Generator"):
        mech.LaplaceMean().release(_batch(2, 3), 1.0, 0.1, LOWER, UPPER, 3)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "mechanism",
    [
        mech.SmoothLaplaceQuantile(),
        mech.SmoothPureQuantile(),
        mech.GlobalLaplaceQuantile(),
        mech.LaplaceMean(),
        mech.GaussianMean(),
    ],
    ids=lambda m: m.name,
)
def test_standard_noise_cdf_integrates_the_noise_density(mechanism):
    """The CDF each additive mechanism states agrees with its sampler and with quadrature."""
    from scipy import integrate, stats

    z = np.array([-40.0, -3.0, -1.0, -0.25, 0.0, 0.4, 1.5, 6.0, 80.0])
    cdf = mechanism.standard_noise_cdf(z)
    assert np.all(np.diff(cdf) > 0) and cdf[4] == pytest.approx(0.5, abs=1e-15)
    if isinstance(mechanism, mech.SmoothPureQuantile):
        ref = [integrate.quad(mechanism.noise_density, -np.inf, x)[0] for x in z[:-1]]
        assert cdf[:-1] == pytest.approx(ref, rel=1e-8, abs=1e-13)
    elif isinstance(mechanism, mech.GaussianMean):
        assert cdf == pytest.approx(stats.norm.cdf(z), rel=1e-12, abs=1e-300)
    else:
        assert cdf == pytest.approx(stats.laplace.cdf(z), rel=1e-12, abs=1e-300)
    draws = mechanism.standard_noise(np.random.default_rng(11), (20_000,))
    assert stats.kstest(draws, mechanism.standard_noise_cdf).pvalue > 1e-3


@pytest.mark.parametrize("name", ["global_laplace", "exponential"])
def test_an_empty_sample_is_released_privately(name: str) -> None:
    """An empty sample against a one-record sample (added record at either bound): the
    release laws differ by at most e^eps everywhere (global Laplace: the centre plus
    Laplace(R/eps) against the record plus the same noise; exponential: uniform on the range
    against the one-record law)."""
    eps, lower, upper = 0.7, 0.0, 10.0
    m = mech.mechanism_by_name(name)
    draws = np.array(
        [m.release_empty(eps, lower, upper, np.random.default_rng(i))[0] for i in range(20_000)]
    )
    if name == "global_laplace":
        b = (upper - lower) / eps
        assert abs(draws.mean() - 5.0) < 4 * math.sqrt(2) * b / math.sqrt(draws.size)
        ys = np.linspace(-50.0, 60.0, 2_001)
        empty = -np.abs(ys - 5.0) / b
        for x in (lower, upper):
            assert np.abs(empty + np.abs(ys - x) / b).max() <= eps + 1e-12
    else:
        assert lower <= draws.min() and draws.max() <= upper
        edges, p = mech.exponential_quantile_distribution(np.array([upper]), eps, lower, upper)
        density = p / np.diff(edges)
        uniform = 1.0 / (upper - lower)
        assert np.abs(np.log(density[p > 0] / uniform)).max() <= eps + 1e-12


@pytest.mark.parametrize("name", ["smooth_laplace", "smooth_pure", "smooth_polyplace", "gaussian"])
def test_clamped_moments_stay_finite_for_a_scale_far_below_the_range(name: str) -> None:
    """A noise scale of 1e-218 on a range of 10: (L − t)/b is about 1e219, whose square
    overflows; the clamped moments stay finite (those of the unclamped noise, about 0)."""
    m = mech.MECHANISMS[name]()
    t, b = np.array([4.0]), np.array([1e-218])
    got = m.clamped_noise_moments(t, b, LOWER, UPPER)
    assert got is not None
    mean, square = got
    assert np.isfinite(mean).all() and np.isfinite(square).all()
    assert abs(float(mean[0])) <= 1e-200
    assert 0.0 <= float(square[0]) <= 1e-300  # b² Var Z underflows to about 0
