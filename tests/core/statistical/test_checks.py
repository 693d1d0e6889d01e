"""Tests for core.statistical.checks: invalid arguments raise clear errors."""

from __future__ import annotations

import numpy as np
import pytest

from core import statistical as sp


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: sp.delta_no_mechanism(0, 0.5, 0.1), "n"),
        (lambda: sp.delta_no_mechanism(10.5, 0.5, 0.1), "whole number"),
        (lambda: sp.delta_no_mechanism(10, 1.5, 0.1), "pi"),
        (lambda: sp.delta_no_mechanism(10, 0.5, -0.1), "eps"),
        (lambda: sp.delta_no_mechanism(10, 0.5, [0.1, np.nan]), "eps"),
        (lambda: sp.delta_subsampling(10, 11, 0.5, 0.1), "m"),
        (lambda: sp.delta_subsampling(10, 0, 0.5, 0.1), "m"),
        (lambda: sp.delta_gaussian(10, 0.5, 0.1, 0.0), "noise_multiplier"),
        (lambda: sp.delta_laplace(10, 0.5, 0.1, np.inf), "noise_multiplier"),
        (lambda: sp.delta_dp_gaussian(0.1, -1.0), "noise_multiplier"),
        (lambda: sp.delta_dp_laplace("x", 1.0), "eps"),
        (lambda: sp.delta_no_mechanism_closed_form(10, 0.0, 0.1), "pi"),
        (lambda: sp.delta_subsampling_closed_form(10, 5, 0.5, 800.0), "700"),
        (lambda: sp.delta_directions("poisson", 10, 0.5, 0.1), "mechanism"),
        (lambda: sp.delta_directions("subsampling", 10, 0.5, 0.1), "sample size"),
        (lambda: sp.delta_directions("gaussian", 10, 0.5, 0.1), "noise_multiplier"),
        (lambda: sp.utility_loss_noise(10, 1.0, "cauchy"), "noise"),
        (lambda: sp.sample_size(10, 0.0), "rate"),
        (lambda: sp.laplace_eps_at_equal_utility(10, 10, 0.5), "smaller than n"),
    ],
)
def test_invalid_arguments_raise_clear_errors(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_sample_size_rounds_and_stays_in_range():
    assert sp.sample_size(1000, 0.1) == 100
    assert sp.sample_size(1000, 1e-9) == 1
    assert sp.sample_size(7, 1.0) == 7
