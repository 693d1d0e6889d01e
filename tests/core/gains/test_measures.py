"""Tests for core.gains.measures: the error measures and the two estimators of the MSE."""

from __future__ import annotations

import math

import numpy as np
import pytest

from core import gains
from tests.core.gains.populations import _paper_pop, _small_pop


def test_estimators_agree_within_monte_carlo_error() -> None:
    """Drawn and exact-variance estimators agree; the drawn noise has the right variance.

    Break it on purpose: scale the drawn noise in ``core.gains.measures._median_block`` by
    sqrt(1.1) (a 10 % error in the noise variance): the paired per-cell comparison alone
    misses it (about 2 SE per cell at 2000 reps), the pooled variance check of the
    standardised noise below (about 7 SE) fails.
    """
    pop = _paper_pop("lognormal")
    kw = dict(
        lower=pop.lower,
        upper=pop.upper,
        eps_targets=[0.1, 1.0, 3.0],
        rates=[0.01, 0.1, 0.5],
        reps=2000,
        seed=21,
    )
    ex_exact = gains.median_gain_experiment(pop.values, estimator="exact_noise_variance", **kw)
    ex_drawn = gains.median_gain_experiment(pop.values, estimator="drawn_noise", **kw)
    a, b = ex_exact.per_rep, ex_drawn.per_rep
    # Both runs see the same samples (the sample stream does not depend on the estimator).
    np.testing.assert_array_equal(a.sample_median, b.sample_median)
    np.testing.assert_array_equal(a.sensitivity, b.sensitivity)
    # Paired comparison: per rep, drawn - exact = 2 err noise + noise^2 - 8 S^2 / eps^2, whose
    # conditional mean given the sample is 0.  12 cells, |z| < 4 each (Bonferroni: a correct
    # implementation fails with probability < 1e-3).
    diff = b.squared_error.to_numpy() - a.squared_error.to_numpy()
    keys = a[["eps_target", "rate"]].to_numpy()
    for e, r in np.unique(keys, axis=0):
        d = diff[(keys[:, 0] == e) & (keys[:, 1] == r)]
        z = d.mean() / (d.std(ddof=1) / math.sqrt(d.size))
        assert abs(z) < 4, (e, r, z)
    # The drawn squared error is (sample median - population median + drawn noise)^2.
    np.testing.assert_allclose(
        b.squared_error, (b.sample_median - ex_drawn.population_median + b.noise) ** 2, rtol=1e-12
    )
    # The drawn noise is Laplace with scale 2 S / eps_sample, i.e. z = noise / scale is
    # standard Laplace: E z^2 = 2, Var z^2 = 24 - 4 = 20.  Pooled over every cell (the
    # population rows included), mean(z^2) / 2 has standard error sqrt(5 / M); 4.5 SE
    # (about 5.8 % at M = 24000) is below the 10 % error it must catch.
    eps_s = ex_drawn.summary.set_index(["eps_target", "rate"]).eps_sample
    scale = 2 * b.sensitivity.to_numpy() / eps_s.loc[list(zip(b.eps_target, b.rate, strict=True))]
    u = (b.noise.to_numpy() / scale.to_numpy()) ** 2 / 2
    assert abs(u.mean() - 1) < 4.5 * math.sqrt(5 / u.size), (u.mean(), u.size)
    # The summary MSEs agree within their (drawn) standard errors, and the exact estimator
    # has the smaller Monte Carlo error.
    sa = ex_exact.summary.set_index(["eps_target", "rate"])
    sb = ex_drawn.summary.set_index(["eps_target", "rate"])
    z = (sb.log_mse - sa.log_mse) / np.hypot(sb.log_mse_se, sa.log_mse_se)
    assert (z.abs() < 4).all(), z
    assert (sa.log_mse_se <= sb.log_mse_se).all()
    assert (sa.loc[sa.index.get_level_values("rate") == 1.0, "log_mse_se"] == 0).all()


def test_error_measures_on_a_known_law() -> None:
    """Global Laplace on the census: |error| ~ Exponential(b), b = R / eps.

    MAE = b and the 95 % error = b ln 20; both within their stated standard errors.
    """
    pop = _small_pop()
    res = gains.median_gain_experiment(
        pop, lower=0.0, upper=30.0, eps_targets=[2.0], rates=[0.5], reps=20_000, seed=9,
        mechanism="global_laplace",
    )  # fmt: skip
    row = res.summary[res.summary.is_population].iloc[0]
    b = 30.0 / 2.0
    assert row.mse == pytest.approx(2 * b**2, rel=1e-12) and row.mse_se == 0.0
    assert abs(row.mae - b) < 4 * row.mae_se
    assert abs(row.error_95 - b * math.log(20)) < 4 * row.error_95_se
    # the order-statistic standard error matches the asymptotic one, sqrt(p(1-p)/T) / f(x_p)
    asymptotic = math.sqrt(0.95 * 0.05 / 20_000) / (math.exp(-math.log(20)) / b)
    assert row.error_95_se == pytest.approx(asymptotic, rel=0.15)
