"""Tests for core.gains.comparison: several mechanisms on the same samples (issue 14)."""

from __future__ import annotations

import numpy as np
import pytest

from core import gains
from core.populations import make_builtin
from tests.core.gains.populations import _small_pop


@pytest.mark.parametrize("measure", ["mse", "mae", "error_95"])
def test_mechanism_comparison_uses_common_samples_and_finds_the_minimum(measure: str) -> None:
    pop = make_builtin("lognormal", seed=0, size=2001)
    kw = dict(lower=pop.lower, upper=pop.upper, rates=[0.05, 0.3], reps=60, seed=5)
    cmp = gains.mechanism_comparison(
        pop.values, eps_target=0.5, measure=measure, quantile=0.4, **kw
    )
    t = cmp.table
    assert list(t.columns) == [
        "mechanism", "rate", "n", "eps_sample", "measure", "value", "se", "log_value",
        "log_se", "is_population", "is_best",
    ]  # fmt: skip
    shown = gains.mechanisms_with_measure(measure)
    assert list(dict.fromkeys(t.mechanism)) == list(shown)
    assert ("unbounded" in shown) == (measure == "error_95")
    assert t.is_best.sum() == 1
    best = t[t.is_best].iloc[0]
    assert best.value == t.value.min()
    assert (cmp.best_mechanism, cmp.best_rate) == (best.mechanism, best.rate)
    # Each mechanism's numbers are those of a run with that mechanism alone (same seed).
    for name in shown:
        alone = gains.median_gain_experiment(
            pop.values, eps_targets=[0.5], mechanism=name, quantile=0.4, **kw
        )
        mine = t[t.mechanism == name]
        np.testing.assert_array_equal(mine.value.to_numpy(), alone.summary[measure].to_numpy())
        np.testing.assert_array_equal(mine.rate.to_numpy(), alone.summary.rate.to_numpy())
        assert cmp.experiments[name].population_median == alone.population_median
    # Common random numbers: every mechanism saw the same sample statistics.
    per = [cmp.experiments[m].per_rep.sample_median.to_numpy() for m in shown]
    for other in per[1:]:
        np.testing.assert_array_equal(per[0], other)


def test_unbounded_has_no_mean_error_only_its_quantile() -> None:
    """The unbounded quantile's release has no finite mean: no MSE or MAE, only error_95."""
    pop = make_builtin("lognormal", seed=0, size=501)
    kw = dict(lower=pop.lower, upper=pop.upper, rates=[0.2], reps=20, seed=1)
    ex = gains.median_gain_experiment(pop.values, eps_targets=[1.0], mechanism="unbounded", **kw)
    assert ex.summary[["mse", "mse_se", "log_mse", "mae", "mae_se"]].isna().all().all()
    assert np.isfinite(ex.summary["error_95"]).all()
    assert not gains.measure_exists("unbounded", "mse")
    assert not gains.measure_exists("unbounded", "mae")
    assert gains.measure_exists("unbounded", "error_95")
    assert gains.measure_exists("exponential", "mse")
    with pytest.raises(ValueError, match="no finite mean"):
        gains.mechanism_comparison(
            pop.values, eps_target=1.0, mechanisms=["exponential", "unbounded"], **kw
        )
    both = gains.mechanism_comparison(
        pop.values, eps_target=1.0, mechanisms=["exponential", "unbounded"], measure="error_95",
        **kw,
    )  # fmt: skip
    assert set(both.table.mechanism) == {"exponential", "unbounded"}


def test_no_public_upper_bound_runs_only_the_unbounded_quantile() -> None:
    """upper = inf: the unbounded quantile gives the numbers it gives with any upper bound
    (it never reads it); every mechanism that needs an upper bound is refused."""
    assert gains.NO_UPPER_MECHANISMS == ("unbounded",)
    pop = make_builtin("lognormal", seed=0, size=501)
    kw = dict(lower=pop.lower, rates=[0.2, 0.6], reps=20, seed=1, measure="error_95")
    open_ = gains.mechanism_comparison(
        pop.values, upper=np.inf, eps_target=1.0, mechanisms=["unbounded"], **kw
    )
    bounded = gains.mechanism_comparison(
        pop.values, upper=pop.upper, eps_target=1.0, mechanisms=["unbounded"], **kw
    )
    np.testing.assert_array_equal(open_.table.value, bounded.table.value)
    for mechanisms in (None, ["unbounded", "exponential"]):
        with pytest.raises(ValueError, match="need a finite upper bound"):
            gains.mechanism_comparison(
                pop.values, upper=np.inf, eps_target=1.0, mechanisms=mechanisms, **kw
            )
    with pytest.raises(ValueError, match="need a finite upper bound"):
        gains.median_gain_experiment(
            pop.values, lower=pop.lower, upper=np.inf, eps_targets=[1.0], rates=[0.5], reps=5
        )
    ex = gains.median_gain_experiment(
        pop.values, lower=pop.lower, upper=np.inf, eps_targets=[1.0], rates=[0.5], reps=5,
        mechanism="unbounded",
    )  # fmt: skip
    assert np.isfinite(ex.summary["error_95"]).all()


def test_mechanism_comparison_bad_arguments() -> None:
    kw = dict(lower=0.0, upper=30.0, eps_target=1.0, rates=[0.5], reps=3)
    with pytest.raises(ValueError, match="measure"):
        gains.mechanism_comparison(_small_pop(), measure="rmse", **kw)
    with pytest.raises(ValueError, match="distinct"):
        gains.mechanism_comparison(_small_pop(), mechanisms=["exponential", "exponential"], **kw)
    with pytest.raises(ValueError, match="distinct"):
        gains.mechanism_comparison(_small_pop(), mechanisms=[], **kw)
    with pytest.raises(ValueError, match="eps_target"):
        gains.mechanism_comparison(_small_pop(), **{**kw, "eps_target": -1.0})
    with pytest.raises(ValueError, match="measure"):
        gains.best_rate(
            gains.median_gain_experiment(
                _small_pop(), lower=0.0, upper=30.0, eps_targets=[1.0], rates=[0.5], reps=3
            ).summary,
            1.0,
            measure="x",
        )


def test_tied_at_quantile_counts_the_records_sharing_the_quantiles_value() -> None:
    assert gains.tied_at_quantile([1.0, 2.0, 2.0, 2.0, 5.0]) == (2.0, 3)
    assert gains.tied_at_quantile([1.0, 2.0, 3.0, 4.0], quantile=0.75) == (3.0, 1)
    pop = make_builtin("lognormal_rounded", seed=0)
    value, count = gains.tied_at_quantile(pop.values)
    assert value == pop.values[(pop.size + 1) // 2 - 1]
    assert count == int(np.sum(pop.values == value)) and count > 300
    assert gains.tied_at_quantile(make_builtin("lognormal", seed=0).values)[1] == 1
    with pytest.raises(ValueError, match="sorted"):
        gains.tied_at_quantile([2.0, 1.0])
    with pytest.raises(ValueError):
        gains.tied_at_quantile([1.0, 2.0], quantile=1.5)
