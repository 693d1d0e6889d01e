"""A frequency table under a ρ-zCDP promise (claim 8 of core.publication.composition),
checked by the exact law of the released histogram on tiny populations.

The census releases each cell's sum plus independent discrete Gaussian noise, with the σ
:func:`core.publication.frequency.plan_frequency` plans.  For the tiny populations of
:mod:`tests.core.linear.test_privacy_enumeration` (cells: the two strata) and every
neighbour of :func:`tests.core.planner.exact_release.neighbours` (a record added or removed;
a record changed inside its cell, or moved to the other cell; labels fixed: the moves left
out), the joint law of the two released cells is written on a window of the lattice, and
the Rényi divergence ``D_α = log Σ_x P(x)^α Q(x)^{1−α} / (α − 1)`` is summed over it.

Exactness.  Per cell, ``P^α Q^{1−α}`` is ``e^{α(α−1)s²/(2σ²)}`` times a discrete Gaussian
centred at ``m = μ + (α − 1)(μ − ν)`` (claim 8).  The window reaches
``K + (α − 1)|μ − ν|`` beyond every centre, ``K`` the radius outside which the mass is below
``1e-296`` (:func:`core.linear.discrete_gaussian.support_radius`), so the sum left out is
below ``e^{α(α−1)ρ}·1e-296`` of the whole, far below the tolerance ``1e-9``.  For whole
orders α, ``m`` is an integer and claim 8's bound is an equality: the worst neighbour then
attains ``α ρ``, which the tests also check (the planned σ is not larger than it needs).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import logsumexp

from core.linear import discrete_gaussian as dg
from core.publication.composition import (
    histogram_budget,
    histogram_l2_sensitivity,
    zcdp_design_refusal,
)
from core.publication.frequency import plan_frequency
from tests.core.linear.test_privacy_enumeration import TOYS, _log_kernel
from tests.core.planner import exact_release as ref

ALPHAS = (1.5, 2.0, 3.0, 5.0)
#: Bounds [−2, 2]: a change inside a cell (y_hi − y_lo = 4) outweighs a move (√2 · 2).
WIDE = ref.Toy(((-2, 0, 0), (0, 0, 0), (1, 0, 1), (2, 1, 1), (-1, 1, 2), (2, 1, 2)), -2, 2)
POPULATIONS = {"six": TOYS["six"], "signed": TOYS["signed"], "wide": WIDE}
#: (relation, labels fixed): added or removed; changed and free to move; changed in place.
SETTINGS = (("deletion", False), ("replacement", False), ("replacement", True))


def _sums(toy: ref.Toy, kind: str) -> tuple[int, int]:
    """The two cells' (strata 0 and 1) counts or totals."""
    out = [0, 0]
    for value, stratum, _ in toy.records:
        out[stratum] += 1 if kind == "count" else int(value)
    return out[0], out[1]


def renyi(
    a: tuple[int, ...], b: tuple[int, ...], sigma: float, alphas: tuple[float, ...]
) -> np.ndarray:
    """``D_α`` at each order between the histograms released on cell sums ``a`` and ``b``,
    by their exact joint law on the lattice window of the module docstring."""
    log_pmf = _log_kernel("discrete_gaussian", sigma)
    shift = max(abs(x - y) for x, y in zip(a, b, strict=True))
    reach = dg.support_radius(sigma) + math.ceil((max(alphas) - 1.0) * shift)
    axes = [
        np.arange(min(x, y) - reach, max(x, y) + reach + 1.0) for x, y in zip(a, b, strict=True)
    ]
    grid = np.meshgrid(*axes, indexing="ij")
    lp = sum(log_pmf(g - x) for g, x in zip(grid, a, strict=True))
    lq = sum(log_pmf(g - y) for g, y in zip(grid, b, strict=True))
    return np.array([float(logsumexp(al * lp + (1.0 - al) * lq)) / (al - 1.0) for al in alphas])


def _neighbours(toy: ref.Toy, relation: str, labels_fixed: bool) -> list[ref.Neighbour]:
    out = ref.neighbours(toy, relation, new_labels=False)
    return [n for n in out if not (labels_fixed and n.kind == "changed stratum")]


def worst(
    toy: ref.Toy, kind: str, relation: str, labels_fixed: bool, sigma: float, alphas=ALPHAS
) -> np.ndarray:
    """The largest ``D_α`` over the neighbours, at each order."""
    base = _sums(toy, kind)
    others = {_sums(n.toy, kind) for n in _neighbours(toy, relation, labels_fixed)}
    return np.max([renyi(base, o, sigma, tuple(alphas)) for o in sorted(others)], axis=0)


def planned_sigma(toy: ref.Toy, kind: str, relation: str, labels_fixed: bool, rho: float) -> float:
    plan = plan_frequency(
        toy.population(),
        ["strata"],
        kind=kind,
        rho_target=rho,
        relation=relation,
        labels_fixed=labels_fixed,
        mechanism="discrete_gaussian",
    )
    assert list(plan.designs["design"]) == ["census"]
    return float(plan.designs["noise_parameter"].iloc[0])


@pytest.mark.parametrize("name", list(POPULATIONS))
@pytest.mark.parametrize("kind", ["count", "total"])
@pytest.mark.parametrize(("relation", "labels_fixed"), SETTINGS)
def test_the_planned_table_keeps_rho_and_no_more_noise_than_needed(
    name: str, kind: str, relation: str, labels_fixed: bool
) -> None:
    toy = POPULATIONS[name]
    rho = 0.6 if kind == "count" else 3.0  # totals: a smaller σ, a smaller window
    sigma = planned_sigma(toy, kind, relation, labels_fixed, rho)
    checked = relation
    if (kind, relation, labels_fixed) == ("count", "replacement", True):
        # the counts are invariants of a change in place: planned for added or removed
        assert worst(toy, kind, relation, True, sigma, (2.0,))[0] == pytest.approx(0.0, abs=1e-12)
        checked = "deletion"
    for alpha, d in zip(ALPHAS, worst(toy, kind, checked, labels_fixed, sigma), strict=True):
        assert d <= alpha * rho * (1 + 1e-9), (alpha, d)
        if alpha.is_integer():  # claim 8 is attained: Δ₂ is the largest shift
            assert d == pytest.approx(alpha * rho, rel=1e-9)


def test_pricing_a_move_as_one_cell_breaks_the_promise() -> None:
    """σ for Δ₂ = 1 (one cell moves): a record moving between cells costs 2ρ."""
    toy, rho = TOYS["six"], 0.5
    sigma = dg.sigma_for_rho(rho, 1)
    assert worst(toy, "count", "replacement", False, sigma, (2.0,))[0] == pytest.approx(
        4.0 * rho, rel=1e-9
    )


@pytest.mark.parametrize(
    ("kind", "relation", "labels_fixed", "lo", "hi", "want"),
    [
        ("count", "deletion", False, 0, 1, 1.0),
        ("count", "replacement", False, 0, 1, math.sqrt(2.0)),
        ("count", "replacement", True, 0, 1, 1.0),  # invariants: planned for add/remove
        ("total", "deletion", False, -1, 3, 3.0),
        ("total", "replacement", False, 0, 4, 4.0 * math.sqrt(2.0)),
        ("total", "replacement", False, -2, 2, 4.0),
        ("total", "replacement", True, -1, 3, 4.0),
    ],
)
def test_l2_sensitivities(kind, relation, labels_fixed, lo, hi, want) -> None:
    got = histogram_l2_sensitivity(
        kind, relation, labels_fixed=labels_fixed, y_lower=lo, y_upper=hi
    )
    assert got == pytest.approx(want, rel=1e-12)


def test_the_table_under_rho_is_the_census_with_the_other_designs_said_why() -> None:
    pop = TOYS["six"].population()
    plan = plan_frequency(pop, ["strata"], rho_target=0.3, mechanism="discrete_gaussian")
    assert plan.design == "census" and "poisson" in plan.unavailable
    assert "zCDP" in plan.unavailable["poisson"] and zcdp_design_refusal("census") == ""
    s = plan.summary()
    assert s["rho_target"] == 0.3 and s["eps_target"] is None
    assert s["composition"]["sensitivity_l2"] == pytest.approx(math.sqrt(2.0))
    # the cells' errors are the discrete Gaussian's own: σ = √2/√(2ρ)
    sigma = math.sqrt(2.0) / math.sqrt(0.6)
    assert plan.designs["noise_parameter"].iloc[0] == pytest.approx(sigma, rel=1e-12)
    assert plan.table["error_95"].iloc[0] == dg.abs_quantile(sigma, 0.95)
    assert plan.table["rmse"].iloc[0] == pytest.approx(math.sqrt(dg.variance(sigma)), rel=1e-12)


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"rho_target": 0.5}, "discrete Gaussian"),
        ({"rho_target": 0.5, "mechanism": "geometric"}, "pure ε"),
        ({"rho_target": 0.0, "mechanism": "discrete_gaussian"}, "above 0"),
        ({"rho_target": math.inf, "mechanism": "discrete_gaussian"}, "above 0"),
        ({"rho_target": "x", "mechanism": "discrete_gaussian"}, "above 0"),
        ({}, "state the table's promise"),
        ({"rho_target": 0.5, "mechanism": "discrete_gaussian", "delta_target": 1e-6}, "no δ"),
        ({"eps_target": 1.0, "rho_target": 0.5, "mechanism": "discrete_gaussian"}, "once"),
        (
            {"rho_target": 0.5, "mechanism": "discrete_gaussian", "design": "poisson"},
            "only the census",
        ),
    ],
)
def test_a_bad_rho_promise_is_refused_in_words(kwargs, words) -> None:
    with pytest.raises(ValueError, match=words):
        plan_frequency(TOYS["six"].population(), ["strata"], **kwargs)


def test_a_total_needs_whole_number_bounds_under_rho() -> None:
    toy = ref.Toy(((0, 0, 0), (1, 1, 0), (2, 1, 1)), 0.0, 2.5)
    with pytest.raises(ValueError, match="whole-number"):
        plan_frequency(
            toy.population(),
            ["strata"],
            kind="total",
            rho_target=1.0,
            mechanism="discrete_gaussian",
        )


@settings(max_examples=30, deadline=None)
@given(
    lo=st.integers(-50, 50),
    width=st.integers(0, 100),
    relation=st.sampled_from(["deletion", "replacement"]),
    labels_fixed=st.booleans(),
)
def test_the_l2_sensitivity_lies_between_one_record_and_the_l1_change(
    lo: int, width: int, relation: str, labels_fixed: bool
) -> None:
    """``Δ₂`` is at least one record's largest effect on one cell when a record is added or
    removed, never above the L1 sensitivity of claim 7, and at least ``1/√2`` of it."""
    hi = lo + width
    if max(abs(lo), abs(hi)) == 0:
        return
    kw = {"labels_fixed": labels_fixed, "y_lower": lo, "y_upper": hi}
    l2 = histogram_l2_sensitivity("total", relation, **kw)
    b = histogram_budget("total", relation, **kw)
    if b.relation == "deletion":
        assert l2 == b.sensitivity
    else:
        assert b.change_sensitivity / math.sqrt(2.0) - 1e-12 <= l2
        assert l2 <= b.change_sensitivity + 1e-12


@settings(max_examples=15, deadline=None)
@given(rho=st.floats(1e-12, 1e6), factor=st.floats(1.01, 100.0))
def test_more_rho_means_less_noise_and_the_limits_hold(rho: float, factor: float) -> None:
    pop = TOYS["six"].population()

    def sd(r: float) -> float:
        plan = plan_frequency(pop, ["strata"], rho_target=r, mechanism="discrete_gaussian")
        return float(plan.designs["noise_parameter"].iloc[0])

    small, large = sd(rho), sd(rho * factor)
    assert large < small
    assert small == pytest.approx(math.sqrt(2.0) / math.sqrt(2.0 * rho), rel=1e-12)
    assert math.isfinite(small) and large > 0.0


def test_a_total_of_fractional_values_is_refused_under_rho_in_words() -> None:
    toy = ref.Toy(((0.5, 0, 0), (1, 1, 0), (2, 1, 1)), 0.0, 2.0)
    with pytest.raises(ValueError, match="tabulate counts, or state the promise as eps_target"):
        plan_frequency(
            toy.population(),
            ["strata"],
            kind="total",
            rho_target=1.0,
            mechanism="discrete_gaussian",
        )
