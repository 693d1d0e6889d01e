"""A promise stated as ρ-zCDP in the planner: converted by the sharp conversion, the (ε, δ)
mechanisms left out with their reason, and the plan otherwise the pure plan at the
converted ε_target."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from core import mechanisms as mech
from core import planner
from core.accounting import zcdp
from core.population import Population

ERRORS = ["rate", "eps_sample", "rmse", "error_95", "sampling_part", "noise_part"]


@pytest.fixture(scope="module")
def pop() -> Population:
    rng = np.random.default_rng(3)
    return Population("t", np.sort(rng.lognormal(5, 0.5, 2_001)), 0.0, 5_000.0)


def test_a_zcdp_plan_is_the_pure_plan_at_the_converted_eps(pop: Population) -> None:
    rho = 0.125
    stated = planner.plan(pop, rho_target=rho, reps=20, refine=False, designs=["srs"])
    eps = zcdp.eps_target_for_rho(rho)
    assert stated.eps_target == pytest.approx(eps, rel=1e-15)
    assert stated.rho_target == rho
    assert stated.promise.kind == "zcdp" and stated.promise.rho == rho
    assert zcdp.rho_for_eps(stated.eps_target) <= rho
    pure_names = [
        m for m in planner.DEFAULT_QUANTILE_MECHANISMS if not mech.MECHANISMS[m].uses_delta
    ]
    pure = planner.plan(
        pop, eps_target=eps, reps=20, refine=False, designs=["srs"], mechanisms=pure_names
    )
    cols = ["design", "mechanism", *ERRORS]
    a = stated.table[cols].sort_values(["design", "mechanism", "rate"]).reset_index(drop=True)
    b = pure.table[cols].sort_values(["design", "mechanism", "rate"]).reset_index(drop=True)
    pd.testing.assert_frame_equal(a, b, rtol=1e-12)
    # Every row names the conversion with its formula and the promised ρ.
    assert stated.table["accounting"].str.contains("Steinke 2024").all()
    assert stated.table["accounting"].str.contains("ρ = 0.125-zCDP").all()
    assert not pure.table["accounting"].str.contains("zCDP").any()
    assert pure.rho_target is None and pure.promise.conversion == ""


@pytest.mark.parametrize("statistic", ["median", "mean"])
def test_delta_mechanisms_are_not_planned_under_zcdp(pop: Population, statistic: str) -> None:
    delta_names = {
        m for m in planner.offered_mechanisms(statistic) if mech.MECHANISMS[m].uses_delta
    }
    assert delta_names  # the smooth-sensitivity Laplace median; the Gaussian mean
    pure = planner.plan(pop, statistic=statistic, eps_target=1.0, reps=20, refine=False)
    stated = planner.plan(pop, statistic=statistic, rho_target=0.5, reps=20, refine=False)
    assert delta_names & set(pure.table["mechanism"])
    assert not delta_names & set(stated.table["mechanism"])
    assert (stated.table["delta_sample"] == 0).all()
    refusals = planner.promise_refusals(statistic, "zcdp")
    assert set(refusals) == delta_names
    assert all("implies no ρ-zCDP bound" in why for why in refusals.values())
    assert planner.promise_refusals(statistic, "eps") == {}


def test_only_delta_mechanisms_named_gives_a_clear_message(pop: Population) -> None:
    with pytest.raises(ValueError, match="ρ-zCDP promise the \\(ε, δ\\) mechanisms"):
        planner.plan(
            pop, rho_target=0.5, reps=20, refine=False, designs=[], mechanisms=["smooth_laplace"]
        )


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({}, "state the promise once"),
        ({"eps_target": 1.0, "rho_target": 0.5}, "state the promise once"),
        ({"rho_target": 0.0}, "rho_target must be a finite number > 0"),
        ({"rho_target": -1.0}, "rho_target must be a finite number > 0"),
        ({"rho_target": "abc"}, "rho_target must be a number"),
        ({"rho_target": float("nan")}, "rho_target must be a finite number"),
        ({"eps_target": -1.0}, "eps_target must be a finite number > 0"),
    ],
)
def test_bad_promises_are_refused(pop: Population, kwargs: dict, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        planner.plan(pop, reps=20, refine=False, **kwargs)


def test_smallest_eps_target_under_zcdp_reports_rho(pop: Population) -> None:
    kw = {"target_error_95": 30.0, "reps": 20, "designs": ["srs"], "tolerance": 0.05}
    found = planner.smallest_eps_target(pop, promise="zcdp", **kw)
    assert found.feasible and found.promise == "zcdp"
    assert found.rho_target == pytest.approx(zcdp.rho_for_eps(found.eps_target), rel=1e-12)
    assert found.plan is not None and found.plan.rho_target == pytest.approx(found.rho_target)
    assert not any(mech.MECHANISMS[m].uses_delta for m in found.plan.table["mechanism"])
    assert planner.smallest_eps_target(pop, **kw).rho_target is None
    with pytest.raises(ValueError, match="promise"):
        planner.smallest_eps_target(pop, promise="rdp", **kw)


def test_several_statistics_under_zcdp(pop: Population) -> None:
    plans = planner.several_statistics(
        pop,
        [("median", 0.5), ("mean", 0.5)],
        [1.0, 1.0],
        rho_target=0.5,
        reps=20,
        refine=False,
        designs=["srs"],
    )
    for p in plans:
        assert p.rho_target == 0.5
        assert p.eps_target == pytest.approx(zcdp.eps_target_for_rho(0.5))
        assert not any(mech.MECHANISMS[m].uses_delta for m in p.table["mechanism"])
