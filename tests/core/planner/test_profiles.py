"""The planner's budget from the Gaussian mean's exact privacy profile (core.planner.profiles).

The refined rows are checked the way every privacy claim of the planner is
(tests/core/planner/test_exact_privacy.py): the exact law of the release planned on a tiny
population, against the law on every neighbour, hockey-stick divergence at ``eps_target``
within ``delta_target`` -- and, on the worst-case population, attaining it.
"""

from __future__ import annotations

import math

import pytest

from core import amplification as amp
from core.accounting import gaussian_profile as gp
from core.builtins import make_builtin
from core.designs.registry import DESIGNS
from core.mechanisms import analytic_gaussian_sigma
from core.planner import accounting_for, plan
from core.planner import profiles as pr
from tests.core.planner import exact_release as ref
from tests.core.planner.test_exact_privacy import law_of


def _rows(delta_target: float, **kw: object) -> dict[tuple[str, str, float], object]:
    pop = make_builtin("lognormal")
    res = plan(
        pop,
        statistic="mean",
        eps_target=1.0,
        delta_target=delta_target,
        designs=["srs"],
        rates=[0.015, 0.1],
        reps=20,
        refine=False,
        mechanisms=["gaussian", "laplace"],
        **kw,
    )
    return {(r.design, r.mechanism, round(r.rate, 3)): r for r in res.table.itertuples()}


def test_default_delta_leaves_every_row_on_the_generic_theorem() -> None:
    for (design, name, _rate), row in _rows(1.0 / (2 * 10_001)).items():
        if design == "srs":
            generic = accounting_for("srs", 1.0, mechanism=name, rate=row.rate)
            assert row.eps_sample == pytest.approx(generic.eps_sample, rel=1e-12)
            assert row.accounting == generic.bound


def test_capped_delta_sample_gains_and_says_so() -> None:
    # δ_target / r = 0.67 at r = 0.015: δ_sample is capped at 0.5, the exact profile
    # allows more; at r = 0.1 (δ_target / r = 0.1) nothing changes.
    rows = _rows(0.01)
    gained = rows[("srs", "gaussian", 0.015)]
    generic = float(amp.eps_sample(1.0, gained.rate))
    assert gained.eps_sample > 1.3 * generic
    assert gained.delta_sample == 0.5
    assert f"instead of {generic:.3g} (generic theorem)" in gained.accounting
    assert "(exact privacy loss distribution)" in gained.accounting
    # the noise it calibrates still keeps (1, 0.01) under the exact profile
    sigma = float(analytic_gaussian_sigma(gained.eps_sample, 0.5))
    assert float(gp.srs_delta(1.0, sigma, gained.rate)) <= 0.01 * (1 + 1e-9)
    for key in (("srs", "laplace", 0.015), ("srs", "gaussian", 0.1)):
        assert "instead of" not in rows[key].accounting


def test_a_budget_share_keeps_the_generic_theorem() -> None:
    rows = _rows(0.01, budget_share=0.5)
    row = rows[("srs", "gaussian", 0.015)]
    assert row.eps_sample == pytest.approx(0.5 * float(amp.eps_sample(1.0, row.rate)), rel=1e-12)
    assert "instead of" not in row.accounting


def test_refine_leaves_other_mechanisms_designs_and_sampling_alone() -> None:
    from core import mechanisms as mech

    srs, poisson = DESIGNS["srs"], DESIGNS["poisson"]
    point = srs.theorem_point({"rate": 0.015})
    acc = srs.accounting(1.0, "replacement", mech.GaussianMean.budget_factors(0.5), point)
    kw = {"eps_target": 1.0, "relation": "replacement", "point": point}
    same = pr.refine(srs, mech.LaplaceMean, acc, delta_target=0.01, **kw)
    assert same is acc
    assert pr.refine(poisson, mech.GaussianMean, acc, delta_target=0.01, **kw) is acc
    assert pr.refine(srs, mech.GaussianMean, acc, delta_target=1e-6, **kw) is acc
    # δ_target ≥ r: sampling alone meets it; the planner keeps a finite (generic) budget
    assert pr.refine(srs, mech.GaussianMean, acc, delta_target=0.05, **kw) is acc
    assert pr.refine(srs, mech.GaussianMean, acc, delta_target=0.01, **kw).eps_sample > (
        acc.eps_sample
    )


@pytest.mark.parametrize("delta_target", [0.3, 0.4])
def test_refined_release_keeps_and_attains_delta_target_exactly(delta_target: float) -> None:
    # Six records, one at the lower bound and five at the upper one; a simple random
    # sample of 3 (r = 0.5, δ_sample capped at 0.5 < δ_target / r).  The planned Gaussian
    # mean's exact law against every neighbour: within δ_target, and attaining it when
    # the low record moves to the upper bound (the profile is exact).
    from core import mechanisms as mech

    toy = ref.Toy(((0, 0, 0), (4, 0, 0), (4, 0, 1), (4, 1, 1), (4, 1, 2), (4, 1, 2)), 0.0, 4.0)
    design = DESIGNS["srs"]
    point = design.point(toy.frame(), 0.5)
    assert point is not None and point.rate == 0.5
    acc = design.accounting(1.0, "replacement", mech.GaussianMean.budget_factors(0.5), point)
    got = pr.refine(
        design,
        mech.GaussianMean,
        acc,
        eps_target=1.0,
        delta_target=delta_target,
        relation="replacement",
        point=point,
    )
    assert got.eps_sample > acc.eps_sample
    delta_sample = design.delta_sample(delta_target, point)
    base = law_of(toy, "srs", "gaussian", point, got.eps_sample, delta_sample, 0.5)
    worst = 0.0
    for nb in ref.neighbours(toy, "replacement"):
        other = law_of(nb.toy, "srs", "gaussian", point, got.eps_sample, delta_sample, 0.5)
        worst = max(worst, ref.compare(base, other, 1.0, toy.lower, toy.upper).delta)
    assert worst <= delta_target * (1 + 1e-6) + 1e-9
    assert worst >= delta_target * 0.98
    assert math.isfinite(got.eps_sample)
