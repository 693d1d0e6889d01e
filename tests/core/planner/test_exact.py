"""core.planner.exact: the census and the means without Monte Carlo."""

from __future__ import annotations

import math

import numpy as np
import pytest

from core.designs.frame import Frame
from core.designs.registry import DESIGNS
from core.planner import exact
from core.planner.simulate import PointBudget
from core.population import Population


def test_srs_mean_row_is_hu_et_al_equation_7():
    values = np.linspace(0.0, 10.0, 1_001)
    frame = Frame.of(Population("t", values, 0.0, 10.0))
    srs = DESIGNS["srs"]
    point = srs.point(frame, 0.1)
    assert point is not None
    assert exact.has_closed_form(srs, "laplace") and not exact.has_closed_form(srs, "exponential")
    row = exact.mean_row(srs, frame, PointBudget(point, {"laplace": 2.0}, 1e-6, {}), "laplace")
    n, N = point.n, frame.N
    sampling = (1 - n / N) * values.var(ddof=1) / n
    noise = 2 * (10.0 / (2.0 * n)) ** 2
    assert row["rmse"] == pytest.approx(math.sqrt(sampling + noise), rel=1e-12)
    assert row["error_95_method"] == "normal approximation of the sampling error"


def test_a_clamped_release_has_the_errors_of_its_draws():
    """Issue 35: a global-sensitivity Laplace median on 0–250 released ±1,500. Every release
    is now clamped to [L, U]; the planner's exact census row, its Monte Carlo rows and the
    clamped means are the errors of the clamped release, checked against plain draws."""
    from core import mechanisms as mech
    from core.planner import plan

    rng = np.random.default_rng(5)
    values = np.sort(np.rint(rng.gamma(36.0, 86.0 / 36.0, 3_000)).clip(0, 250))
    pop = Population("zinc-like", values, 0.0, 250.0)
    result = plan(
        pop,
        eps_target=0.1,
        designs=("census", "srs"),
        rates=(0.05, 0.5),
        reps=400,
        refine=False,
        mechanisms=("global_laplace", "smooth_laplace"),
    )
    theta = result.population_value
    t = result.table.set_index(["design", "mechanism", "rate"])
    assert ((t["rmse"] <= 250.0) & (t["error_95"] <= 250.0)).all()
    # The census: exact, against plain draws of the clamped release.
    m = mech.GlobalLaplaceQuantile()
    census = t.loc[("census", "global_laplace", 1.0)]
    draws = np.random.default_rng(1).laplace(0.0, 250.0 / 0.1, 400_000)
    err = np.clip(theta + draws, 0.0, 250.0) - theta
    assert census["exact"]
    assert census["rmse"] == pytest.approx(math.sqrt(float(np.mean(err**2))), rel=5e-3)
    assert census["error_95"] == pytest.approx(float(np.quantile(np.abs(err), 0.95)), rel=5e-3)
    assert census["rmse"] <= 250.0  # never past the range (unclamped: 3,540)
    # Monte Carlo rows: every release inside the bounds, errors as plain draws give them.
    rows = result.table[
        (result.table["design"] == "srs") & (result.table["mechanism"] == "global_laplace")
    ]
    assert len(rows) == 2
    for _, row in rows.iterrows():
        n = round(row["n"])
        eps_s = float(row["eps_sample"])
        sample_rng = np.random.default_rng(3)
        errors = []
        for _ in range(2_000):
            sample = np.sort(values[sample_rng.choice(values.size, n, replace=False)])
            rel = m.release(sample[None, :], eps_s, 0.5, 0.0, 250.0, sample_rng)
            assert 0.0 <= rel.released[0] <= 250.0
            errors.append(float(rel.released[0]) - theta)
        e = np.asarray(errors)
        se = float((e**2).std()) / math.sqrt(e.size) / (2 * row["rmse"])
        assert row["rmse"] == pytest.approx(
            math.sqrt(float(np.mean(e**2))), abs=4 * math.hypot(se, row["rmse_se"])
        )
    # A mean whose release can reach a bound: the clamped closed form against draws.
    tiny = Population("tiny", np.linspace(0.0, 10.0, 201), 0.0, 10.0)
    mean = plan(tiny, statistic="mean", eps_target=0.002, designs=("census",), reps=20)
    row = mean.table[mean.table["mechanism"] == "laplace"].iloc[0]
    b = 10.0 / (201 * 0.002)
    err = np.clip(5.0 + np.random.default_rng(2).laplace(0.0, b, 400_000), 0.0, 10.0) - 5.0
    assert row["rmse"] == pytest.approx(math.sqrt(float(np.mean(err**2))), rel=5e-3)
    assert row["rmse"] < math.sqrt(2) * b  # the unclamped RMSE
