"""Frequency tables: cells, the histogram's composition (by enumeration), exact cell errors.

The references are slow and plain: every sample of a tiny population enumerated with its
probability for the privacy claims, each cell's variance from its textbook formula, and a
simulation of the released table (samples and noise drawn) for the errors.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.designs.protocol import Point
from core.designs.registry import DESIGNS
from core.linear.mechanisms import Geometric, Laplace
from core.mechanisms.base import BudgetFactors
from core.population import Population
from core.publication.cell_errors import GRID, cell_error_bounds
from core.publication.cells import frequency_cells
from core.publication.composition import histogram_budget
from core.publication.frequency import check_threshold, plan_frequency

RATE = 0.4
WINDOW = np.arange(-12, 17)


def _population(seed: int = 5, n: int = 3000) -> Population:
    rng = np.random.default_rng(seed)
    region = rng.choice(["north", "south", "east", "west"], n, p=[0.4, 0.3, 0.2, 0.1])
    size = rng.choice(["1-4", "5-9", "10-19"], n, p=[0.6, 0.3, 0.1])
    values = np.round(rng.uniform(1, 20, n))
    order = np.argsort(values, kind="stable")
    return Population(
        name="tiny register",
        values=values[order],
        lower=0.0,
        upper=20.0,
        strata=size[order],
        clusters=region[order],
        stratum_label="size_class",
        cluster_label="region",
    )


# -- cells -------------------------------------------------------------------------------


def test_cells_cross_rows_and_columns_in_reading_order() -> None:
    pop = _population()
    cells = frequency_cells(pop, ["clusters"], "strata")
    assert cells.n_rows == 4 and cells.n_columns == 3 and cells.n_cells == 12
    assert cells.column_labels == ["1-4", "5-9", "10-19"]  # by value, not as text
    labels = cells.cell_labels()
    for c in range(12):
        mine = (pop.clusters == labels["region"][c]) & (pop.strata == labels["size_class"][c])
        assert int(np.sum(cells.codes == c)) == int(mine.sum())


def test_two_row_columns_keep_the_empty_combinations() -> None:
    pop = _population()
    keep = ~((pop.clusters == "west") & (pop.strata == "10-19"))
    sub = Population(
        name="gap",
        values=pop.values[keep],
        lower=0.0,
        upper=20.0,
        strata=pop.strata[keep],
        clusters=pop.clusters[keep],
    )
    cells = frequency_cells(sub, ["clusters", "strata"])
    assert cells.n_cells == 12 and cells.n_columns == 1
    assert np.bincount(cells.codes, minlength=12).min() == 0  # the empty cell is a cell


def test_bad_cells_get_plain_messages() -> None:
    pop = _population()
    with pytest.raises(ValueError, match="more than the 2 a table can show"):
        frequency_cells(pop, ["clusters"], "strata", max_columns=2)
    with pytest.raises(ValueError, match="also a row"):
        frequency_cells(pop, ["strata"], "strata")
    with pytest.raises(ValueError, match="12 cells"):
        frequency_cells(pop, ["clusters"], "strata", max_cells=10)
    with pytest.raises(ValueError, match="no categories labels"):
        frequency_cells(pop, ["categories"])


@pytest.mark.parametrize("bad", [0, -0.1, 11, math.nan, "half", None])
def test_a_threshold_out_of_range_is_refused(bad: object) -> None:
    with pytest.raises(ValueError, match="threshold"):
        check_threshold(bad)


# -- composition of the histogram (claim 7), by enumeration ------------------------------


def _geometric(eps: float, sensitivity: float, centre: float) -> np.ndarray:
    a = math.exp(-eps / sensitivity)
    return (1 - a) / (1 + a) * a ** np.abs(WINDOW - centre)


def _law(pop, eps, sensitivity, samples) -> np.ndarray:
    """The exact law of the two cells' noisy sums over the given (probability, subset)s."""
    law = np.zeros((WINDOW.size, WINDOW.size))
    for prob, subset in samples(len(pop)):
        sums = [0, 0]
        for i in subset:
            sums[pop[i][0]] += pop[i][1]
        law += prob * np.multiply.outer(
            _geometric(eps, sensitivity, sums[0]), _geometric(eps, sensitivity, sums[1])
        )
    return law


def _poisson(n: int):
    for inc in itertools.product((0, 1), repeat=n):
        yield (
            math.prod(RATE if i else 1 - RATE for i in inc),
            [i for i in range(n) if inc[i]],
        )


def _srs(size: int):
    def draw(n: int):
        subsets = list(itertools.combinations(range(n), size))
        for s in subsets:
            yield 1.0 / len(subsets), list(s)

    return draw


def _loss(a, b, eps, sens, samples) -> float:
    la, lb = _law(a, eps, sens, samples), _law(b, eps, sens, samples)
    return float(np.max(np.abs(np.log(la) - np.log(lb))))


def _eps_sample(design: str, eps_target: float, budget, point: Point) -> float:
    factors = BudgetFactors("histogram", budget.add_remove, budget.change)
    return DESIGNS[design].accounting(eps_target, budget.relation, factors, point).eps_sample


COUNTS = ((0, 1), (0, 1), (1, 1))  # (cell, y): each record counts 1 in its cell


@pytest.mark.parametrize("eps_target", [0.4, 1.2])
def test_a_count_table_on_a_poisson_sample_keeps_its_promise_for_both_relations(
    eps_target: float,
) -> None:
    point = Point(RATE, RATE, RATE * 3)
    others = ((0, 1), (1, 1))
    # added or removed record: one cell
    b = histogram_budget("count", "deletion")
    e = _eps_sample("poisson", eps_target, b, point)
    worst = max(
        max(_loss(COUNTS, COUNTS[:i] + COUNTS[i + 1 :], e, 1.0, _poisson) for i in range(3)),
        max(_loss(COUNTS, (*COUNTS, r), e, 1.0, _poisson) for r in others),
    )
    assert worst <= eps_target + 1e-9
    assert worst == pytest.approx(eps_target, abs=1e-9)
    # changed record that moves between cells: two counts, L1 sensitivity 2
    b = histogram_budget("count", "replacement")
    assert (b.sensitivity, b.change_sensitivity) == (1.0, 2.0)
    e = _eps_sample("poisson", eps_target, b, point)
    moved = [(*COUNTS[:i], (1 - c, 1), *COUNTS[i + 1 :]) for i, (c, _) in enumerate(COUNTS)]
    worst = max(_loss(COUNTS, nb, e, 1.0, _poisson) for nb in moved)
    assert eps_target * 0.7 < worst <= eps_target + 1e-9
    # planned as if a change touched one cell, a move breaks the promise
    naive = _eps_sample("poisson", eps_target, histogram_budget("count", "deletion"), point)
    assert max(_loss(COUNTS, nb, naive, 1.0, _poisson) for nb in moved) > eps_target * 1.05


def test_a_count_table_on_a_fixed_size_sample_keeps_its_promise_for_a_change() -> None:
    eps_target, pop = 0.9, ((0, 1), (0, 1), (1, 1), (1, 1))
    point = DESIGNS["srs"].point(_frame_of(4), 0.5)
    assert point is not None and point.n == 2
    b = histogram_budget("count", "replacement")
    e = _eps_sample("srs", eps_target, b, point)
    moved = [(*pop[:i], (1 - c, 1), *pop[i + 1 :]) for i, (c, _) in enumerate(pop)]
    worst = max(_loss(pop, nb, e, 1.0, _srs(2)) for nb in moved)
    assert eps_target * 0.7 < worst <= eps_target + 1e-9


def test_totals_with_fixed_labels_cost_one_cell() -> None:
    eps_target = 0.8
    pop = ((0, 2), (0, 0), (1, 1))
    b = histogram_budget("total", "replacement", labels_fixed=True, y_lower=0, y_upper=2)
    assert (b.sensitivity, b.change_sensitivity, b.change) == (2.0, 2.0, 1.0)
    e = _eps_sample("poisson", eps_target, b, Point(RATE, RATE, RATE * 3))
    changed = [
        (*pop[:i], (c, y), *pop[i + 1 :]) for i, (c, old) in enumerate(pop) for y in (0, 1, 2)
    ]
    worst = max(_loss(pop, nb, e, 2.0, _poisson) for nb in changed)
    assert eps_target * 0.7 < worst <= eps_target + 1e-9


def test_counts_with_fixed_labels_are_invariants_planned_for_add_remove() -> None:
    b = histogram_budget("count", "replacement", labels_fixed=True)
    assert b.relation == "deletion" and b.change_sensitivity == 0.0
    assert "invariant" in b.reason


def _frame_of(n: int):
    from core.designs.frame import Frame

    return Frame.of(Population(name="n", values=np.arange(float(n)), lower=0.0, upper=float(n)))


# -- cell errors ---------------------------------------------------------------------------


class _Laplace(Laplace):
    """Laplace noise of scale ``b``, its law written out here."""

    name, integer = "laplace", False

    def variance(self, b: float) -> float:
        return 2 * b * b

    def abs_quantile(self, b: float, level: float) -> float:
        return -b * math.log1p(-level)


class _Geometric(Geometric):
    """The two-sided geometric law parametrised by its ratio ``a`` (the pmf, its CDF)."""

    name, integer = "geometric", True

    def cdf(self, a: float, x: np.ndarray) -> np.ndarray:
        k = np.floor(np.asarray(x, dtype=float))
        return np.where(
            k >= 0, 1 - a ** (np.maximum(k, 0) + 1) / (1 + a), a ** -np.minimum(k, 0) / (1 + a)
        )

    def variance(self, a: float) -> float:
        return 2 * a / (1 - a) ** 2

    def pmf(self, a: float, k: np.ndarray) -> np.ndarray:
        return (1 - a) / (1 + a) * a ** np.abs(k)

    def abs_quantile(self, a: float, level: float) -> float:
        x = 0
        while 1 - 2 * a ** (x + 1) / (1 + a) < level:
            x += 1
        return float(x)


@pytest.mark.parametrize("mech, param", [(_Laplace(), 3.0), (_Geometric(), 0.8)])
def test_the_bound_covers_its_level_by_simulation(mech, param) -> None:
    rng = np.random.default_rng(7)
    sd, w, reps = np.array([0.0, 1.0, 4.0, 20.0]), 2.5, 200_000
    bounds, methods = cell_error_bounds(sd**2, mech, param, w)
    assert methods[0].startswith("exact") and methods[1].startswith("sampling")
    if mech.integer:
        p = 1 - param
        noise = rng.geometric(p, (4, reps)) - rng.geometric(p, (4, reps))
    else:
        noise = rng.laplace(0, param, (4, reps))
    err = sd[:, None] * rng.standard_normal((4, reps)) + w * noise
    cover = np.mean(np.abs(err) <= bounds[:, None], axis=1)
    # integer noise alone has atoms: its coverage is at least the level
    lo = 0.95 - 0.003
    assert np.all(cover >= lo) and np.all(cover[1:] <= 0.95 + 0.003)


@pytest.mark.parametrize("mech, param", [(_Laplace(), 2.0), (_Geometric(), 0.1)])
def test_the_interpolated_bound_matches_the_direct_one(mech, param) -> None:
    sd = np.geomspace(0.01, 5000.0, 3 * GRID)
    many, _ = cell_error_bounds(sd**2, mech, param, 1.5)
    assert np.all(np.diff(many) >= 0)
    for i in range(1, sd.size, 11):
        one, _ = cell_error_bounds(sd[i : i + 1] ** 2, mech, param, 1.5)
        assert many[i] == pytest.approx(one[0], rel=1e-4)


@settings(max_examples=25, deadline=None)
@given(st.floats(0.0, 100.0), st.floats(0.0, 100.0))
def test_the_bound_grows_with_the_sampling_error(a: float, b: float) -> None:
    lo, hi = sorted((a, b))
    got, _ = cell_error_bounds(np.array([lo, hi]) ** 2, _Laplace(), 1.0, 2.0)
    assert got[0] <= got[1] * (1 + 1e-9)
    assert got[1] >= 1.959963 * hi * (1 - 1e-6)  # at least the normal part's own bound


# -- the plan against direct per-cell formulas and a simulation ---------------------------

SMALL = _population(n=800)


def _direct_variance(design: str, n_c: np.ndarray, N: int, rate: float, n: float) -> np.ndarray:
    """Textbook design variances of each cell's expansion estimator of its count."""
    if design == "census":
        return np.zeros_like(n_c, dtype=float)
    if design == "poisson":  # Σ_c (1 − r)/r
        return n_c * (1 - rate) / rate
    if design == "srs":  # N² (1 − f) S²_c / n, S²_c = N_c (N − N_c) / (N (N − 1))
        s2 = n_c * (N - n_c) / (N * (N - 1.0))
        return N * N * (1 - n / N) * s2 / n
    raise AssertionError(design)


@pytest.mark.parametrize(
    "design, relation",
    [(d, r) for d in ("census", "poisson") for r in ("replacement", "deletion")]
    + [("srs", "replacement")],  # a fixed-size sample: no theorem for added or removed records
)
def test_each_cell_error_is_the_design_variance_plus_the_weighted_noise(design, relation) -> None:
    pop = _population()
    fp = plan_frequency(
        pop, ["clusters"], "strata", eps_target=0.7, relation=relation,
        designs=[design], rates=[0.25], design=design, mechanism="laplace",
    )  # fmt: skip
    row = fp.designs[fp.designs["design"] == design].iloc[0]
    n_c = np.array(
        [np.sum((pop.clusters == r[0]) & (pop.strata == c)) for r in fp.cells.row_labels
         for c in fp.cells.column_labels], dtype=float,
    )  # fmt: skip
    assert np.array_equal(fp.table["value"].to_numpy(), n_c)
    # the histogram's budget: a move costs two cells under a change (claim 7)
    factor = 2.0 if relation == "replacement" else 1.0
    if design == "census":
        assert row["eps_sample"] == pytest.approx(0.7 / factor)
    b = 1.0 / row["eps_sample"]  # Laplace scale for one record's count
    w = 1.0 if design == "census" else pop.size / row["n"] if design == "srs" else 1 / 0.25
    expect = _direct_variance(design, n_c, pop.size, float(row["rate"]), float(row["n"]))
    expect = expect + w * w * 2 * b * b
    assert np.allclose(fp.table["rmse"].to_numpy() ** 2, expect, rtol=1e-9)
    assert row["rmse_total"] == pytest.approx(math.sqrt(expect.sum()), rel=1e-9)


def test_a_simulated_poisson_table_has_the_planned_errors() -> None:
    pop = _population(n=1500)
    fp = plan_frequency(
        pop, ["clusters"], "strata", eps_target=1.0, relation="deletion",
        designs=["poisson"], rates=[0.3], design="poisson", mechanism="laplace",
    )  # fmt: skip
    row = fp.designs.iloc[1]
    rng = np.random.default_rng(3)
    reps, rate, b = 4000, float(row["rate"]), float(row["noise_parameter"])
    codes = fp.cells.codes
    est = np.empty((reps, fp.cells.n_cells))
    for k in range(reps):  # draw the sample, count by cell, add the noise, expand
        sample = codes[rng.random(codes.size) < rate]
        counts = np.bincount(sample, minlength=fp.cells.n_cells)
        est[k] = (counts + rng.laplace(0.0, b, fp.cells.n_cells)) / rate
    err = est - fp.table["value"].to_numpy()
    rmse = np.sqrt(np.mean(err**2, axis=0))
    assert np.allclose(rmse, fp.table["rmse"], rtol=0.06)  # ±3 standard errors at 4000 draws
    big = fp.table["value"].to_numpy() * rate >= 40
    cover = np.mean(np.abs(err) <= fp.table["error_95"].to_numpy(), axis=0)[big]
    assert big.sum() >= 3 and np.all(np.abs(cover - 0.95) < 0.015)


@settings(max_examples=6, deadline=None)
@given(st.floats(0.05, 5.0), st.sampled_from(["replacement", "deletion"]))
def test_the_census_beats_every_sample_for_counts(eps: float, relation: str) -> None:
    fp = plan_frequency(
        SMALL, ["clusters"], "strata", eps_target=eps, relation=relation,
        designs=["poisson"], mechanism="laplace",
    )  # fmt: skip
    d = fp.designs
    census = float(d.loc[d["design"] == "census", "rmse_total"].iloc[0])
    assert np.all(d.loc[d["design"] != "census", "rmse_total"] > census)


def test_empty_cells_and_small_cells_are_flagged() -> None:
    pop = _population()
    one = {"eps_target": 1.0, "designs": ["poisson"]}
    fp = plan_frequency(pop, ["clusters", "strata"], threshold=0.05, **one)
    t = fp.table
    assert (t["publishable"] == (t["relative_error"] <= 0.05)).all()
    loose = plan_frequency(pop, ["clusters", "strata"], threshold=5.0, **one)
    assert loose.table["publishable"].sum() >= t["publishable"].sum()
    keep = ~((pop.clusters == "west") & (pop.strata == "10-19"))
    sub = Population(
        name="gap", values=pop.values[keep], lower=0.0, upper=20.0,
        strata=pop.strata[keep], clusters=pop.clusters[keep],
    )  # fmt: skip
    gap = plan_frequency(sub, ["clusters"], "strata", **one)
    empty = gap.table[gap.table["value"] == 0]
    assert len(empty) == 1 and not empty["publishable"].any()
    assert "empty cell" in empty["note"].iloc[0] and gap.summary()["empty_cells"] == 1


def test_totals_by_cell_use_the_value_and_its_bounds() -> None:
    pop = _population()
    fp = plan_frequency(
        pop, ["clusters"], kind="total", eps_target=1.0, relation="deletion", designs=["census"]
    )
    totals = [pop.values[pop.clusters == r[0]].sum() for r in fp.cells.row_labels]
    assert np.allclose(fp.table["value"], totals)
    # a record adds at most the upper bound 20: the Laplace scale is 20 / ε
    assert fp.designs.iloc[0]["noise_parameter"] == pytest.approx(20.0)


def test_bad_plans_get_plain_messages() -> None:
    pop = _population()
    with pytest.raises(ValueError, match="threshold"):
        plan_frequency(pop, ["clusters"], eps_target=1.0, threshold=0)
    with pytest.raises(ValueError, match="cannot serve this table"):
        plan_frequency(pop, ["clusters"], eps_target=1.0, relation="deletion", design="srs")
    unbounded = Population(name="u", values=pop.values, lower=0.0, upper=math.inf,
                           clusters=pop.clusters)  # fmt: skip
    with pytest.raises(ValueError, match="public upper bound"):
        plan_frequency(unbounded, ["clusters"], kind="total", eps_target=1.0)


def test_rounded_census_cells_have_their_simulated_error() -> None:
    pop = _population(n=1500)
    fp = plan_frequency(
        pop, ["clusters"], "strata", eps_target=0.05, relation="deletion",
        designs=["poisson"], design="census", round_release=True,
    )  # fmt: skip
    b = float(fp.designs.iloc[0]["noise_parameter"])
    rng = np.random.default_rng(4)
    value = fp.table["value"].to_numpy()
    released = value + rng.laplace(0.0, b, (200_000, value.size))
    rounded = np.maximum(0.0, np.floor(released + 0.5))
    rmse = np.sqrt(np.mean((rounded - value) ** 2, axis=0))
    assert np.allclose(rmse, fp.table["rmse_rounded"], rtol=0.01)
    assert (fp.table["rounded_method"] == "exact").all()
    # noise of scale 20 on counts from 15: at 0, rounding takes part of the small cells' error
    assert (fp.table["rmse_rounded"] < 0.9 * fp.table["rmse"]).sum() >= 2
    sample = plan_frequency(
        pop, ["clusters"], "strata", eps_target=0.5, designs=["poisson"], design="poisson",
        rates=[0.3], round_release=True,
    )  # fmt: skip
    t = sample.table
    full = t["value"] > 0
    assert np.allclose(t["rmse_rounded"][full], t["rmse"][full] + 0.5)


def test_the_category_column_makes_the_tables_columns() -> None:
    pop = _population()
    colour = np.random.default_rng(8).choice(["red", "green", "blue"], pop.size)
    with_categories = Population(
        name="coloured", values=pop.values, lower=0.0, upper=20.0, strata=pop.strata,
        clusters=pop.clusters, categories=colour, category_label="colour",
        stratum_label="size_class", cluster_label="region",
    )  # fmt: skip
    fp = plan_frequency(
        with_categories, ["clusters", "strata"], "categories", eps_target=1.0, designs=["poisson"]
    )
    assert fp.cells.column_labels == ["blue", "green", "red"] and fp.cells.n_cells == 36
    labels = fp.table[["region", "size_class", "colour"]].itertuples(index=False)
    for (region, size, col), value in zip(labels, fp.table["value"], strict=True):
        mine = (pop.clusters == region) & (pop.strata == size) & (colour == col)
        assert value == mine.sum()
