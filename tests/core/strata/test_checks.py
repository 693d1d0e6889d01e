"""Tests for core.strata.checks: public functions refuse bad arguments in readable words."""

from __future__ import annotations

import math

import pytest

from core import strata as S


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: S.neyman_allocation([10, 10], [1.0, 1.0], 21), "m \\(total sample size\\)"),
        (lambda: S.neyman_allocation([10, 0], [1.0, 1.0], 5), "sizes must be >= 1"),
        (lambda: S.neyman_allocation([10, 10], [1.0, -1.0], 5), "sds"),
        (lambda: S.neyman_allocation([10, 10], [1.0], 5), "one entry per stratum"),
        (lambda: S.neyman_allocation([10.5], [1.0], 5), "whole numbers"),
        (lambda: S.proportional_allocation([10], 0.0), "rate"),
        (lambda: S.proportional_allocation([10], 0.5, "nearest"), "rounding"),
        (lambda: S.stratified_mean_variance([5], [1.0], [6]), "only 5"),
        (lambda: S.proportional_eps_bound(-1.0, 0.1), "eps_sample"),
        (lambda: S.proportional_eps_bound(1.0, 1.5), "rate"),
        (lambda: S.proportional_eps_bound(math.inf, 0.1), "eps_sample"),
        (lambda: S.random_size_eps_bounds(1.0, 3, [0.5, 0.5]), "every size"),
        (lambda: S.random_size_eps_bounds(1.0, 1, [0.5, 0.6]), "sum to 1"),
        (lambda: S.random_size_eps_bounds(1.0, 1, [-0.5, 1.5]), ">= 0"),
        (lambda: S.noisy_count_loss([1], [0.5], [2], [1.0], 1.0), "sum to 1"),
        (lambda: S.stratum_summary([1.0, 2.0], ["a"]), "labels"),
        (lambda: S.srs_mean_variance(10, 1.0, 11), "sample size"),
        (lambda: S.truncated_gaussian_pmf(10, 5, 0), "sd"),
        (lambda: S.rounding_example(0, 0.1), "size"),
    ],
)
def test_invalid_arguments_raise_value_error(call, message) -> None:
    with pytest.raises(ValueError, match=message):
        call()
