"""Tests for core.gains.draws: reproducible samples and the amplified, capped delta_sample."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from core import gains
from tests.core.gains.populations import _small_pop


def test_same_seed_reproduces_and_other_seed_differs() -> None:
    values = _small_pop()
    kw = dict(lower=0.0, upper=30.0, eps_targets=[0.5, 2.0], rates=[0.1, 0.6], reps=20)
    for estimator in ["exact_noise_variance", "drawn_noise"]:
        a = gains.median_gain_experiment(values, seed=3, estimator=estimator, **kw)
        b = gains.median_gain_experiment(values, seed=3, estimator=estimator, **kw)
        pd.testing.assert_frame_equal(a.summary, b.summary)
        pd.testing.assert_frame_equal(a.per_rep, b.per_rep)
        c = gains.median_gain_experiment(values, seed=4, estimator=estimator, **kw)
        assert not np.array_equal(a.per_rep.squared_error, c.per_rep.squared_error)


def test_delta_amplification_and_cap() -> None:
    values = np.linspace(0.0, 1.0, 10)
    kw = dict(lower=0.0, upper=1.0, eps_targets=[1.0], rates=[0.1, 0.5], reps=3)
    ex = gains.median_gain_experiment(values, delta_target=0.2, **kw)
    s = ex.summary.set_index("rate")
    # rate 0.1 -> n = 1 -> delta / rate = 2 would be meaningless: capped just below 1.
    assert s.loc[0.1, "delta_sample"] == gains.DELTA_SAMPLE_CAP
    assert s.loc[0.5, "delta_sample"] == pytest.approx(0.4)
    assert s.loc[1.0, "delta_sample"] == 0.2
    ex2 = gains.median_gain_experiment(values, delta_target=0.2, amplify_delta=False, **kw)
    assert (ex2.summary.delta_sample == 0.2).all()
    # default delta is 1 / (2N)
    ex3 = gains.median_gain_experiment(values, **kw)
    assert ex3.delta_target == pytest.approx(1 / 20)
