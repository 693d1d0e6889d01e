"""core.planner.setting: the mechanisms a setting plans, each point's budgets, the census rows."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from core.designs.frame import Frame
from core.designs.registry import DESIGNS
from core.planner.setting import Setting, census_rows, point_budgets
from core.populations import Population

FRAME = Frame.of(Population("t", np.linspace(0.0, 10.0, 201), 0.0, 10.0))
BASE = Setting(
    statistic="median",
    quantile=0.5,
    eps_target=1.0,
    delta_target=1e-4,
    relation="replacement",
    reps=20,
    seed=0,
    share=1.0,
    theta=FRAME.value("median", 0.5),
    mechanisms=None,
)


def test_names_keep_only_the_mechanisms_asked_for() -> None:
    every = BASE.names("srs")
    assert every
    one = replace(BASE, mechanisms=(every[0],)).names("srs")
    assert one == (every[0],)


def test_a_rho_promise_leaves_the_eps_delta_mechanisms_out() -> None:
    pure = replace(BASE, mechanisms=("exponential", "smooth_laplace"))
    under_rho = replace(pure, rho_target=0.5)
    assert "smooth_laplace" in pure.names("srs")
    assert under_rho.names("srs") == ("exponential",)


def test_a_share_scales_each_budget_and_the_census_spends_eps_target() -> None:
    design = DESIGNS["census"]
    point = design.point(FRAME, 1.0)
    names = BASE.names("census")
    (whole,) = point_budgets(design, names, [point], BASE)
    (half,) = point_budgets(design, names, [point], replace(BASE, share=0.5))
    for name in names:
        assert whole.eps_sample[name] > 0
        assert math.isclose(half.eps_sample[name], 0.5 * whole.eps_sample[name], rel_tol=1e-9)


def test_census_rows_are_exact_where_a_closed_form_exists() -> None:
    rows = census_rows(DESIGNS["census"], FRAME, BASE)
    assert {r["mechanism"] for r in rows} == set(BASE.names("census"))
    for row in rows:
        assert row["design"] == "census" and row["rate"] == 1.0
        assert row["error_95"] >= 0.0
        if row["exact"]:
            assert row["error_95_method"] == "exact"
