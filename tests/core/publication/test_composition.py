"""The composition of a table's releases, checked exactly by enumeration.

Each cell releases a noisy count of the sampled records with value 1, with two-sided
geometric noise (an exact output law, ε-DP for an added, removed or changed record).
Every Poisson subset of a tiny population is enumerated with its probability; the table's
privacy loss is the supremum over outputs of the log ratio of the two output laws.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.planner import eps_sample_for
from core.publication import (
    cell_budget,
    design_refusal,
    optimal_shares,
    split_shares,
    table_eps,
)

RATE = 0.3
WINDOW = np.arange(-4, 9)  # counts lie in [0, 4]; the ratio is constant beyond them
BASE = ((0, 1), (0, 0), (1, 1), (1, 0))  # (cell, value) records
RECORDS = ((0, 0), (0, 1), (1, 0), (1, 1))


def geometric(eps_sample: float, centre: int) -> np.ndarray:
    """P(count + noise = y) over WINDOW for two-sided geometric noise of parameter e^-ε."""
    a = math.exp(-eps_sample)
    return (1 - a) / (1 + a) * a ** np.abs(WINDOW - centre)


def table_law(pop, eps_by_cell, rate=RATE, cells=2):
    """The exact joint output law of the table (one noisy count per cell), by enumeration."""
    law = np.zeros((WINDOW.size,) * cells)
    for inc in itertools.product((0, 1), repeat=len(pop)):
        prob = math.prod(rate if i else 1 - rate for i in inc)
        counts = [0] * cells
        for i, (c, v) in zip(inc, pop, strict=True):
            counts[c] += i * v
        term = geometric(eps_by_cell[0], counts[0])
        for c in range(1, cells):
            term = np.multiply.outer(term, geometric(eps_by_cell[c], counts[c]))
        law += prob * term
    return law


def loss(pop_a, pop_b, eps_by_cell) -> float:
    a, b = table_law(pop_a, eps_by_cell), table_law(pop_b, eps_by_cell)
    return float(np.max(np.abs(np.log(a) - np.log(b))))


def add_remove_neighbours(pop):
    for i in range(len(pop)):
        yield pop[:i] + pop[i + 1 :]
    for r in RECORDS:
        yield (*pop, r)


def changes(pop, *, labels_fixed: bool):
    for i, old in enumerate(pop):
        for r in RECORDS:
            if r != old and (not labels_fixed or r[0] == old[0]):
                yield (*pop[:i], r, *pop[i + 1 :])


def moves(pop):
    for i, old in enumerate(pop):
        for r in RECORDS:
            if r[0] != old[0]:
                yield (*pop[:i], r, *pop[i + 1 :])


@pytest.mark.parametrize("eps_target", [0.3, 1.0])
def test_add_remove_cells_compose_in_parallel(eps_target: float) -> None:
    budget = cell_budget(eps_target, 1e-6, "deletion")
    assert budget.relation == "deletion" and budget.eps_target == pytest.approx(eps_target)
    e = eps_sample_for("poisson", budget.eps_target, relation="deletion", rate=RATE)
    worst = max(loss(BASE, nb, [e, e]) for nb in add_remove_neighbours(BASE))
    assert worst <= eps_target + 1e-9
    assert worst == pytest.approx(eps_target, abs=1e-9)  # an added 1 attains it


@pytest.mark.parametrize("eps_target", [0.3, 1.0])
def test_change_with_movable_labels_costs_two_cells(eps_target: float) -> None:
    budget = cell_budget(eps_target, 1e-6, "replacement")
    assert budget.relation == "deletion"
    assert budget.eps_target == pytest.approx(eps_target / 2)
    # group privacy of a change inside a cell: (1 + e^{ε/2}) δ_c ≤ δ, and a move: 2 δ_c ≤ δ
    assert (1 + math.exp(eps_target / 2)) * budget.delta_target == pytest.approx(1e-6)
    e = eps_sample_for("poisson", budget.eps_target, relation="deletion", rate=RATE)
    worst = max(loss(BASE, nb, [e, e]) for nb in changes(BASE, labels_fixed=False))
    assert worst <= eps_target + 1e-9
    assert worst > 0.6 * eps_target  # the bound is not vacuous
    # Without the halving, a record moving between cells breaks the promise.
    full = eps_sample_for("poisson", eps_target, relation="deletion", rate=RATE)
    naive = max(loss(BASE, nb, [full, full]) for nb in moves(BASE))
    assert naive > eps_target * 1.05


def test_change_with_fixed_labels_stays_in_its_cell() -> None:
    eps_target = 0.8
    budget = cell_budget(eps_target, 1e-6, "replacement", labels_fixed=True)
    assert (budget.relation, budget.eps_target) == ("replacement", pytest.approx(eps_target))
    e = eps_sample_for("poisson", budget.eps_target, relation="replacement", rate=RATE)
    worst = max(loss(BASE, nb, [e, e]) for nb in changes(BASE, labels_fixed=True))
    assert worst <= eps_target + 1e-9


def test_statistics_on_a_cell_compose_sequentially() -> None:
    # One cell, two statistics each on its own Poisson sample at its share of the budget:
    # a count of the 1s and a count of all records.
    eps_target, shares = 0.9, split_shares(2, [0.3, 0.7])
    es = [eps_sample_for("poisson", eps_target * w, relation="deletion", rate=RATE) for w in shares]

    def law(pop):
        ones = table_law([(0, v) for _, v in pop], [es[0]], cells=1)
        everyone = table_law([(0, 1) for _ in pop], [es[1]], cells=1)
        return np.multiply.outer(ones, everyone)

    base = ((0, 1), (0, 0), (0, 1))
    worst = 0.0
    for nb in add_remove_neighbours(base):
        worst = max(worst, float(np.max(np.abs(np.log(law(base)) - np.log(law(nb))))))
    assert worst <= eps_target + 1e-9
    assert worst == pytest.approx(eps_target, abs=1e-9)  # an added 1 hits both counts


def test_poisson_restricted_to_a_cell_is_poisson_of_the_cell() -> None:
    labels = (0, 0, 1, 1, 1)
    joint: dict[tuple[tuple[int, ...], tuple[int, ...]], float] = {}
    for inc in itertools.product((0, 1), repeat=len(labels)):
        prob = math.prod(RATE if i else 1 - RATE for i in inc)
        key = tuple(
            tuple(i for i, (x, c) in enumerate(zip(inc, labels, strict=True)) if x and c == k)
            for k in (0, 1)
        )
        joint[key] = joint.get(key, 0.0) + prob
    for (a, b), prob in joint.items():
        pa = RATE ** len(a) * (1 - RATE) ** (2 - len(a))
        pb = RATE ** len(b) * (1 - RATE) ** (3 - len(b))
        assert prob == pytest.approx(pa * pb, rel=1e-12)
    assert sum(joint.values()) == pytest.approx(1.0)


def test_fixed_size_srs_restricted_to_a_cell_has_a_random_size() -> None:
    labels = (0, 0, 1, 1, 1)
    sizes = {sum(labels[i] == 0 for i in s) for s in itertools.combinations(range(5), 2)}
    assert sizes == {0, 1, 2}  # not a sample of fixed size of cell 0
    reason = design_refusal("srs", "deletion")
    assert "fixed size" in reason and "hypergeometric" in reason
    assert design_refusal("srs", "replacement") == ""
    assert design_refusal("poisson", "deletion") == ""
    assert design_refusal("census", "deletion") == ""


def test_table_eps_cases() -> None:
    assert table_eps([0.2, 0.5, 0.1], relation="deletion") == pytest.approx(0.5)
    assert table_eps([0.2, 0.5, 0.4], relation="replacement") == pytest.approx(1.0)
    assert table_eps([0.2, 0.5, 0.4], [0.3, 0.6, 0.5], "replacement") == pytest.approx(0.9)
    fixed = table_eps([0.2, 0.5], [0.3, 0.6], "replacement", labels_fixed=True)
    assert fixed == pytest.approx(0.6)
    with pytest.raises(ValueError, match="eps_add_remove"):
        table_eps([], relation="deletion")


def test_cell_budget_rejects_bad_input() -> None:
    with pytest.raises(ValueError, match="eps_target"):
        cell_budget(0.0, 1e-6)
    with pytest.raises(ValueError, match="delta_target"):
        cell_budget(1.0, 1.5)
    with pytest.raises(ValueError, match="relation"):
        cell_budget(1.0, 1e-6, "swap")


def test_split_shares() -> None:
    assert split_shares(3) == pytest.approx((1 / 3,) * 3)
    assert split_shares(2, [1, 3]) == pytest.approx((0.25, 0.75))
    with pytest.raises(ValueError, match="shares"):
        split_shares(2, [1.0])


@settings(max_examples=25, deadline=None)
@given(st.lists(st.floats(0.1, 10.0), min_size=2, max_size=4))
def test_optimal_shares_equalise_inverse_errors(scales: list[float]) -> None:
    # e_s(ε) = a_s / ε: equal errors at the optimum, so shares ∝ a_s.
    grid = np.geomspace(1e-4, 10.0, 30)  # covers every optimal budget
    curves = [(grid, a / grid) for a in scales]
    shares = optimal_shares(curves, 1.0)
    expected = np.asarray(scales) / sum(scales)
    assert np.allclose(shares, expected, rtol=1e-6, atol=1e-9)
    assert sum(shares) == pytest.approx(1.0)


def test_optimal_shares_rejects_bad_curves() -> None:
    with pytest.raises(ValueError, match="ascending"):
        optimal_shares([([1.0, 0.5], [1.0, 2.0]), ([0.5, 1.0], [1.0, 0.5])], 1.0)
    assert optimal_shares([([0.5, 1.0], [2.0, 1.0])], 1.0) == (1.0,)


@given(
    st.lists(st.floats(0.1, 10.0), min_size=2, max_size=4),
    st.lists(st.floats(0.2, 5.0), min_size=4, max_size=4),
)
@settings(max_examples=30, deadline=None)
def test_weighted_optimal_shares_equalise_weighted_errors(
    scales: list[float], weights: list[float]
) -> None:
    # e_s(ε) = c_s / ε weighted by a_s: a_s c_s / ε_s equal at the optimum, so ε_s ∝ a_s c_s.
    a = weights[: len(scales)]
    grid = np.geomspace(1e-5, 10.0, 40)
    curves = [(grid, c / grid) for c in scales]
    shares = optimal_shares(curves, 1.0, a)
    products = np.asarray(scales) * np.asarray(a)
    assert np.allclose(shares, products / products.sum(), rtol=1e-6, atol=1e-9)
    # Equal weights are the unweighted optimum; a doubled weight buys that statistic budget.
    assert np.allclose(
        optimal_shares(curves, 1.0, [3.0] * len(scales)), optimal_shares(curves, 1.0)
    )
    heavier = optimal_shares(curves, 1.0, [2.0] + [1.0] * (len(scales) - 1))
    assert heavier[0] > optimal_shares(curves, 1.0)[0]


def test_optimal_shares_rejects_bad_weights() -> None:
    curves = [([0.5, 1.0], [2.0, 1.0]), ([0.5, 1.0], [3.0, 1.5])]
    for bad in ([1.0], [1.0, 0.0], [1.0, float("inf")], [-1.0, 1.0]):
        with pytest.raises(ValueError, match="weights"):
            optimal_shares(curves, 1.0, bad)
