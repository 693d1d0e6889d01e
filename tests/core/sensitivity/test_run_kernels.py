"""The smooth sensitivity of a long, heavily tied row computed on its runs
(core.sensitivity.run_kernels through core.sensitivity.smooth): the same S as the pairs
definition and as the record-by-record kernel, whatever the ties, the rank and beta."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core import sensitivity as cs
from core.sensitivity import smooth
from tests.core import reference_sensitivity as ref
from tests.core.sensitivity.closeness import assert_close


def _record_by_record(samples: np.ndarray, betas: np.ndarray, k: int) -> np.ndarray:
    """The vectorised divide and conquer over records, row by row (no runs)."""
    return np.array(
        [
            cs._smooth_numpy(row, 0.0, 9.0, float(b), k)
            for row, b in zip(samples, betas, strict=True)
        ]
    )


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(16, 120),
    distinct=st.integers(1, 4),
    beta=st.floats(1e-9, 50.0),
    at=st.floats(0.0, 1.0),
)
def test_hyp_runs_equal_the_pairs_definition(short_rows, seed, n, distinct, beta, at):
    """Rows of at most n / 8 runs take the runs path; S equals the definition.  (The
    fixture only lowers a threshold, the same for every example.)"""
    rng = np.random.default_rng(seed)
    levels = np.sort(rng.choice(np.arange(1, 9), size=distinct, replace=False)).astype(float)
    y = np.sort(rng.choice(levels, size=n))
    k = 1 + int(at * (n - 1))
    eps = beta * 2.0 * np.log(2.0 / 0.5)
    want = ref.smooth_sensitivity_pairs(y, eps, 0.5, 0.0, 9.0, rank=k)
    got = smooth._batch_at_betas(y[None, :].copy(), np.array([beta]), 0.0, 9.0, k)
    assert_close(float(got[0]), want)


@pytest.fixture
def short_rows(monkeypatch):
    """Runs from rows of 16 records on (the threshold is 65,536 in the product)."""
    monkeypatch.setattr(smooth, "RUNS_FROM", 16)
    return monkeypatch


def test_a_tied_register_row_takes_the_runs_path_and_agrees_with_the_record_kernel(
    monkeypatch,
) -> None:
    rng = np.random.default_rng(5)
    n = smooth.RUNS_FROM * 3
    samples = np.sort(rng.integers(0, 9, (3, n)).astype(float), axis=1)
    samples[2] = np.sort(rng.uniform(0, 9, n))  # no ties: the record kernel
    betas = np.array([1e-5, 3e-3, 1e-4])
    calls = []
    real = smooth._runs_whole

    def counted(*args):
        calls.append(args)
        return real(*args)

    monkeypatch.setattr(smooth, "_runs_whole", counted)
    for k in (1, n // 3, n // 2, n):
        got = smooth._batch_at_betas(samples.copy(), betas, 0.0, 9.0, k)
        want = _record_by_record(samples, betas, k)
        np.testing.assert_allclose(got, want, rtol=1e-12)
    assert len(calls) == 8  # the two tied rows at four ranks


def test_runs_at_the_extremes_of_beta() -> None:
    """ε = 1000 (beta huge: the local sensitivity) and ε = 1e-12 (beta tiny: the range)."""
    n = smooth.RUNS_FROM
    y = np.repeat([1.0, 2.0, 4.0, 8.0], n // 4)
    k = n // 2
    for beta in (1000.0 / (2 * np.log(4.0)), 1e-12):
        got = smooth._batch_at_betas(y[None, :].copy(), np.array([beta]), 0.0, 9.0, k)
        want = float(_record_by_record(y[None, :], np.array([beta]), k)[0])
        assert_close(float(got[0]), want)
    # beta huge: the local sensitivity, the gap to the next run (rank k ends run 2) ...
    huge = smooth._batch_at_betas(y[None, :].copy(), np.array([1e6]), 0.0, 9.0, k)
    assert huge[0] == 2.0
    # ... and 0 inside a run, where every pair with a non-zero difference is far.
    inside = smooth._batch_at_betas(y[None, :].copy(), np.array([1e6]), 0.0, 9.0, k - 5)
    assert inside[0] == 0.0
