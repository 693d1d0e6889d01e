"""Tests for core.gains.best_rate: the best rate of an experiment, compared with the population."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from core import gains


def _summary(rows: list[tuple[float, float, float, float]]) -> pd.DataFrame:
    """rows of (eps_target, rate, mse, log_mse_se)."""
    df = pd.DataFrame(rows, columns=["eps_target", "rate", "mse", "log_mse_se"])
    df["log_mse"] = np.log(df.mse)
    return df


def test_best_rate_and_comparison_gain() -> None:
    s = _summary([(0.5, 0.1, 1.2, 0.01), (0.5, 0.4, 0.78, 0.01), (0.5, 1.0, 1.0, 0.0)])
    best = gains.best_rate(s, 0.5)
    assert best.rate == 0.4
    assert best.log_mse == pytest.approx(math.log(0.78))
    assert best.relative_change == pytest.approx(-0.22)
    assert tuple(best) == (best.rate, best.log_mse, best.relative_change)  # a plain tuple too
    cmp = gains.compare_with_population(s, 0.5)
    assert (cmp.eps_target, cmp.best_sample_rate, cmp.better, cmp.within_error) == (
        0.5,
        0.4,
        True,
        False,
    )
    assert cmp.relative_change == pytest.approx(-0.22)


def test_comparison_no_gain_and_within_error() -> None:
    s = _summary([(3.0, 0.1, 1.35, 0.01), (3.0, 0.5, 2.0, 0.01), (3.0, 1.0, 1.0, 0.0)])
    assert gains.best_rate(s, 3.0) == (1.0, 0.0, 0.0)
    cmp = gains.compare_with_population(s, 3.0)
    assert cmp.best_sample_rate == 0.1 and not cmp.better and not cmp.within_error
    assert cmp.relative_change == pytest.approx(0.35)
    # 2 % better, but the standard error of the difference is 0.05 on the log scale.
    s2 = _summary([(0.1, 0.2, 0.98, 0.05), (0.1, 1.0, 1.0, 0.0)])
    cmp2 = gains.compare_with_population(s2, 0.1)
    assert cmp2.better and cmp2.within_error and cmp2.best_sample_rate == 0.2
    # |log 0.98| = 0.0202 lies just inside 2 * 0.05; at se 0.01 it lies outside
    s2b = _summary([(0.1, 0.2, 0.98, 0.01), (0.1, 1.0, 1.0, 0.0)])
    assert not gains.compare_with_population(s2b, 0.1).within_error
    # only the population simulated
    only = gains.compare_with_population(_summary([(1.0, 1.0, 1.0, 0.0)]), 1.0)
    assert math.isnan(only.best_sample_rate) and not only.better and not only.within_error


def test_best_rate_bad_arguments() -> None:
    s = _summary([(0.5, 0.1, 1.2, 0.01), (0.5, 1.0, 1.0, 0.0)])
    with pytest.raises(ValueError, match="not in the summary"):
        gains.best_rate(s, 0.7)
    with pytest.raises(ValueError, match="population"):
        gains.best_rate(s[s.rate < 1], 0.5)
    with pytest.raises(ValueError, match="columns"):
        gains.compare_with_population(s.drop(columns="mse"), 0.5)


def test_best_rate_and_comparison_read_the_chosen_measure() -> None:
    s = _summary([(0.5, 0.1, 1.2, 0.01), (0.5, 0.4, 0.78, 0.01), (0.5, 1.0, 1.0, 0.0)])
    s["mae"] = [0.5, 2.0, 1.0]
    s["mae_se"] = [0.01, 0.01, 0.01]
    assert gains.best_rate(s, 0.5).rate == 0.4
    best = gains.best_rate(s, 0.5, measure="mae")
    assert best.rate == 0.1 and best.relative_change == pytest.approx(-0.5)
    assert best.log_mse == pytest.approx(math.log(0.5))
    cmp = gains.compare_with_population(s, 0.5, measure="mae")
    assert cmp.best_sample_rate == 0.1 and cmp.better and not cmp.within_error
    with pytest.raises(ValueError, match="error_95"):
        gains.compare_with_population(s, 0.5, measure="error_95")
