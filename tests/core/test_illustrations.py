"""Tests for core.illustrations: data of Hu, Drechsler & Kim, Figures 1, 2 and 11."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from core import illustrations as ill
from core import sensitivity as sens
from core.populations import make_builtin
from tests.core.snapshots import PINS
from tests.fingerprint import check_recorded, frame_fingerprint


@pytest.fixture(scope="module")
def beta_pop():
    return make_builtin("beta", seed=0)  # Beta(2, 10), N = 10,001, bounds [0, 1]


@pytest.fixture(scope="module")
def bimodal_pop():
    return make_builtin("bimodal", seed=0)


def test_privatized_means_layout_and_spread(beta_pop) -> None:
    eps = [1.0, 0.1, 0.5]
    reps = 4000
    f = ill.privatized_means(beta_pop.values, beta_pop.lower, beta_pop.upper, eps, reps, seed=1)
    assert list(f.columns) == ["eps", "rep", "release"]
    assert len(f) == 3 * reps
    assert f.eps.unique().tolist() == [0.1, 0.5, 1.0]
    assert f.rep.tolist()[:3] == [0, 1, 2]
    N = beta_pop.size
    truth = float(beta_pop.values.mean())
    for e, g in f.groupby("eps"):
        # Laplace(0, b), b = (R / N) / eps: variance 2 b^2.  Sample variance of Laplace draws
        # has relative sd sqrt((kurtosis - 1) / reps) = sqrt(5 / reps); 4 standard errors.
        b = 1.0 / N / e
        assert g.release.var() == pytest.approx(2 * b * b, rel=4 * math.sqrt(5 / reps))
        assert abs(g.release.mean() - truth) < 4 * math.sqrt(2) * b / math.sqrt(reps)


def test_privatized_medians_global_vs_smooth(beta_pop) -> None:
    """Figure 2: global sensitivity (R) makes the median useless at eps = 0.1; smooth does not."""
    v, lo, hi = beta_pop.values, beta_pop.lower, beta_pop.upper
    eps = [0.1, 0.5, 1.0]
    g = ill.privatized_medians(v, lo, hi, eps, 1000, seed=2, sensitivity="global")
    s = ill.privatized_medians(v, lo, hi, eps, 1000, seed=2, sensitivity="smooth")
    assert list(g.columns) == ["eps", "rep", "release", "scale"]
    np.testing.assert_allclose(g.groupby("eps").scale.first(), [10.0, 2.0, 1.0])
    delta = 1.0 / (2 * beta_pop.size)
    expected = [2 * sens.smooth_sensitivity_median(v, e, delta, lo, hi) / e for e in eps]
    np.testing.assert_allclose(s.groupby("eps").scale.first(), expected, rtol=1e-12)
    in_support = lambda f: f.release.between(lo, hi).groupby(f.eps).mean()  # noqa: E731
    # Paper: with global sensitivity at eps = 0.1 the releases range over about -50..100;
    # with smooth sensitivity almost all fall inside the support [0, 1].
    assert in_support(g).loc[0.1] < 0.1
    assert (in_support(s) > 0.95).all()
    assert g[g.eps == 0.1].release.abs().max() > 20
    median = v[(v.size + 1) // 2 - 1]
    assert abs(s[s.eps == 1.0].release.median() - median) < 0.01


def test_privatized_medians_explicit_delta(beta_pop) -> None:
    v, lo, hi = beta_pop.values, beta_pop.lower, beta_pop.upper
    f = ill.privatized_medians(v, lo, hi, [0.5], 5, delta=1e-3, sensitivity="smooth")
    s = sens.smooth_sensitivity_median(v, 0.5, 1e-3, lo, hi)
    assert f.scale.iloc[0] == pytest.approx(2 * s / 0.5, rel=1e-12)


def test_sample_medians_bimodal_figure_11(bimodal_pop) -> None:
    """Figure 11: sample medians of the bimodal population avoid the population median."""
    v = bimodal_pop.values
    N = v.size
    m_N = v[(N + 1) // 2 - 1]
    f = ill.sample_medians(v, [1001 / N, 101 / N], 1000, seed=3)
    assert list(f.columns) == ["rate", "rep", "n", "sample_median"]
    assert sorted(f.n.unique().tolist()) == [101, 1001]
    for _, g in f.groupby("n"):
        above = (g.sample_median > m_N).mean()
        # Both modes: about half the samples have their median in the upper component.
        assert 0.35 < above < 0.65
        # Few sample medians land near the population median (it sits next to the gap).
        assert (np.abs(g.sample_median - m_N) < 0.01).mean() < 0.1
    # Every sample median is a population value.
    assert np.isin(f.sample_median, v).all()


def test_sample_medians_whole_population_is_exact(beta_pop) -> None:
    v = beta_pop.values
    f = ill.sample_medians(v, [1.0], 3, seed=0)
    assert (f.sample_median == v[(v.size + 1) // 2 - 1]).all()


def test_reproducible_from_seed(beta_pop) -> None:
    v, lo, hi = beta_pop.values, beta_pop.lower, beta_pop.upper
    for fn in (
        lambda seed: ill.privatized_means(v, lo, hi, [0.5], 10, seed=seed),
        lambda seed: ill.privatized_medians(v, lo, hi, [0.5], 10, seed=seed, sensitivity="smooth"),
        lambda seed: ill.sample_medians(v, [0.1], 10, seed=seed),
    ):
        pd.testing.assert_frame_equal(fn(7), fn(7))
        assert not fn(7).equals(fn(8))


def test_bad_arguments(beta_pop) -> None:
    v = beta_pop.values
    with pytest.raises(ValueError, match="eps_values"):
        ill.privatized_means(v, 0.0, 1.0, [], 10)
    with pytest.raises(ValueError, match="eps_values"):
        ill.privatized_medians(v, 0.0, 1.0, [-1.0], 10)
    with pytest.raises(ValueError, match="reps"):
        ill.privatized_means(v, 0.0, 1.0, [1.0], 1)
    with pytest.raises(ValueError, match="sensitivity"):
        ill.privatized_medians(v, 0.0, 1.0, [1.0], 10, sensitivity="local")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="delta"):
        ill.privatized_medians(v, 0.0, 1.0, [1.0], 10, delta=1.5, sensitivity="smooth")
    with pytest.raises(ValueError, match="bounds"):
        ill.privatized_means(v, 0.0, 0.5, [1.0], 10)
    with pytest.raises(ValueError, match="lower"):
        ill.privatized_means(v, 1.0, 0.0, [1.0], 10)
    with pytest.raises(ValueError, match="rates"):
        ill.sample_medians(v, [0.0], 10)
    with pytest.raises(ValueError, match="rates"):
        ill.sample_medians(v, [], 10)
    with pytest.raises(ValueError, match="seed"):
        ill.sample_medians(v, [0.5], 10, seed=-3)
    with pytest.raises(ValueError, match="values"):
        ill.sample_medians([], [0.5], 10)


# ---------------------------------------------------------------------------------------
# The mechanism seam (issue 12): the defaults are today's releases, bit for bit
# ---------------------------------------------------------------------------------------

_PIN_POP = np.sort(np.random.default_rng(1).uniform(0.0, 100.0, 41))


def _pinned(name: str, frame: pd.DataFrame, columns: list[str]) -> None:
    """``columns`` of ``frame`` agree with the numbers recorded before the seam (rel. 1e-9)."""
    check_recorded(PINS, f"illustrations/{name}", frame_fingerprint(frame, columns))


def test_default_mechanisms_reproduce_the_numbers_before_the_seam() -> None:
    from core import mechanisms as mech

    eps = (0.1, 1.0, 5.0)
    means = ill.privatized_means(_PIN_POP, 0.0, 100.0, eps, 7, 2)
    _pinned("means", means, ["eps", "release"])
    pd.testing.assert_frame_equal(
        means, ill.privatized_means(_PIN_POP, 0.0, 100.0, eps, 7, 2, mech.LaplaceMean())
    )
    explicit = {"global": mech.GlobalLaplaceQuantile(), "smooth": mech.SmoothLaplaceQuantile()}
    for kind in ("global", "smooth"):
        f = ill.privatized_medians(_PIN_POP, 0.0, 100.0, eps, 7, seed=2, sensitivity=kind)
        _pinned(f"medians-{kind}", f, ["eps", "release", "scale"])
        # The mechanism argument wins over ``sensitivity``.
        g = ill.privatized_medians(
            _PIN_POP, 0.0, 100.0, eps, 7, seed=2, sensitivity="global", mechanism=explicit[kind]
        )
        pd.testing.assert_frame_equal(f, g, check_exact=True)
    f = ill.privatized_medians(
        _PIN_POP, 0.0, 100.0, (0.1, 1.0), 7, delta=0.01, seed=4, sensitivity="smooth"
    )
    _pinned("medians-smooth-delta", f, ["eps", "release", "scale"])


def test_privatized_medians_with_the_mean_mechanism() -> None:
    from core import mechanisms as mech

    f = ill.privatized_medians(
        _PIN_POP, 0.0, 100.0, (1.0,), 5, seed=0, mechanism=mech.LaplaceMean()
    )
    np.testing.assert_allclose(f["scale"], 100.0 / 41)
    with pytest.raises(ValueError, match="additive"):
        ill.privatized_means(_PIN_POP, 0.0, 100.0, (1.0,), 5, mechanism="mean")  # type: ignore[arg-type]
