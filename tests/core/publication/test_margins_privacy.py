"""Claim 9 by exact enumeration: a count table with its row margins keeps ``eps_target``.

Tiny populations of four or five records, rows = strata, columns = clusters.  The release is
the vector (cells, row margins), each coordinate the sample's count plus two-sided geometric
noise at the plan's own parameters (:attr:`core.publication.frequency.FrequencyPlan.designs`:
``noise_parameter`` for the cells, ``margin_noise_parameter`` for the margins), mixed over
every sample of the census and of a Poisson sample.  Its exact law is computed on the box
``[min s − 1, max s + 1]`` of every coordinate: beyond the extreme sums each coordinate's
kernel ``q^{|k − s|}`` is ``q^k q^{−s}`` (or ``q^{−k} q^{s}``) for both neighbours, so the
ratio of the two mixtures is constant there and the box attains the supremum.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from core.linear.mechanisms import LINEAR_MECHANISMS
from core.publication.frequency import plan_frequency
from tests.core.planner import exact_release as ref
from tests.core.publication.test_frequency import RATE, _poisson

GEOMETRIC = LINEAR_MECHANISMS["geometric"]
#: (value, stratum = row, cluster = column): every record counts 1 in its cell.
BASE = ((1.0, 0, 0), (1.0, 0, 1), (1.0, 1, 0), (1.0, 1, 1), (1.0, 1, 1))


def _toy(records) -> ref.Toy:
    return ref.Toy(tuple(records), 0.0, 1.0)


def _noise(design: str, relation: str, share: float = 0.3) -> tuple[float, float, float]:
    """The plan's rate and its cells' and margins' geometric parameters."""
    plan = plan_frequency(
        _toy(BASE).population(),
        ["strata"],
        "clusters",
        eps_target=EPS,
        relation=relation,
        mechanism="geometric",
        designs=["census", "poisson"],
        rates=[RATE],
        margins="rows",
        margin_share=share,
    )
    row = plan.designs[plan.designs["design"] == design].iloc[0]
    return float(row["rate"]), float(row["noise_parameter"]), float(row["margin_noise_parameter"])


EPS = 0.9


def _samples(design: str, n: int, rate: float):
    if design == "census":
        return [(1.0, list(range(n)))]
    assert rate == pytest.approx(RATE)
    return list(_poisson(n))


def _law(records, design, rate, b_cell, b_margin, box) -> np.ndarray:
    """The exact law of (4 cells, 2 margins) on ``box`` (one range per coordinate)."""
    law = np.zeros([len(r) for r in box])
    for prob, subset in _samples(design, len(records), rate):
        cells, margins = np.zeros(4), np.zeros(2)
        for i in subset:
            _, row, col = records[i]
            cells[2 * row + col] += 1
            margins[row] += 1
        parts = [GEOMETRIC.pmf(b_cell, box[j] - cells[j]) for j in range(4)]
        parts += [GEOMETRIC.pmf(b_margin, box[4 + j] - margins[j]) for j in range(2)]
        term = parts[0]
        for p in parts[1:]:
            term = np.multiply.outer(term, p)
        law += prob * term
    return law


def _box(*pops) -> list[np.ndarray]:
    top = [0] * 6
    for recs in pops:
        cells, margins = [0] * 4, [0] * 2
        for _, row, col in recs:
            cells[2 * row + col] += 1
            margins[row] += 1
        top = [max(a, b) for a, b in zip(top, cells + margins, strict=True)]
    return [np.arange(-1.0, t + 2.0) for t in top]


def _loss(a, b, design, rate, b_cell, b_margin) -> float:
    box = _box(a, b)
    la = _law(a, design, rate, b_cell, b_margin, box)
    lb = _law(b, design, rate, b_cell, b_margin, box)
    return float(np.max(np.abs(np.log(la) - np.log(lb))))


def _moves() -> dict[str, list]:
    """Neighbours of :data:`BASE` for a changed record: between rows, within a row."""
    between, within = [], []
    for i, (v, row, col) in enumerate(BASE):
        for r2, c2 in itertools.product((0, 1), (0, 1)):
            if (r2, c2) == (row, col):
                continue
            new = (*BASE[:i], (v, r2, c2), *BASE[i + 1 :])
            (between if r2 != row else within).append(new)
    return {"between rows": between, "within a row": within}


def _add_remove() -> list:
    out = [BASE[:i] + BASE[i + 1 :] for i in range(len(BASE))]
    out += [(*BASE, (1.0, r, c)) for r, c in itertools.product((0, 1), (0, 1))]
    return out


@pytest.mark.parametrize("design", ["census", "poisson"])
def test_a_changed_record_costs_at_most_eps_target(design: str) -> None:
    rate, b_cell, b_margin = _noise(design, "replacement")
    moves = _moves()
    between = max(_loss(BASE, nb, design, rate, b_cell, b_margin) for nb in moves["between rows"])
    within = max(_loss(BASE, nb, design, rate, b_cell, b_margin) for nb in moves["within a row"])
    assert between <= EPS + 1e-9 and within <= EPS + 1e-9
    assert between >= 0.7 * EPS  # tight-ish: the move between rows binds
    assert within < between  # a move within a row leaves the margins as they are
    if design == "census":  # exact: 2ε_c + 2ε_m = 2 ε_sample = ε_target
        assert between == pytest.approx(EPS, abs=1e-9)
        assert within == pytest.approx(0.7 * EPS, abs=1e-9)


@pytest.mark.parametrize("design", ["census", "poisson"])
def test_an_added_or_removed_record_costs_at_most_eps_target(design: str) -> None:
    rate, b_cell, b_margin = _noise(design, "deletion")
    worst = max(_loss(BASE, nb, design, rate, b_cell, b_margin) for nb in _add_remove())
    assert 0.7 * EPS <= worst <= EPS + 1e-9


def test_margins_at_the_whole_budget_break_the_promise() -> None:
    """Giving the margins the cells' whole budget too (no split) is caught."""
    rate, b_cell, b_margin = _noise("poisson", "replacement")
    whole = 1.0 / (1.0 / b_cell + 1.0 / b_margin)  # the parameter at all of ε_sample
    worst = max(_loss(BASE, nb, "poisson", rate, whole, whole) for nb in _moves()["between rows"])
    assert worst > EPS * 1.05


def test_the_plans_split_is_the_share() -> None:
    _, b_cell, b_margin = _noise("census", "replacement", share=0.25)
    # geometric b = Δ/ε: the cells at 0.75 ε_sample, the margins at 0.25
    assert (1 / b_margin) / (1 / b_cell + 1 / b_margin) == pytest.approx(0.25, rel=1e-12)
    assert 1 / b_cell + 1 / b_margin == pytest.approx(EPS / 2, rel=1e-12)
    assert math.isfinite(b_cell)
