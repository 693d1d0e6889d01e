"""plan_table: each cell × statistic is one plan() on that cell, whatever the executor."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from core.planner import plan
from core.population import Population
from core.populations import make_builtin
from core.publication import TABLE_COLUMNS, cell_seed, cells_of, parse_statistic, plan_table

FAST = {"designs": ["poisson"], "rates": [0.2, 0.5], "reps": 10, "seed": 7}


@pytest.fixture(scope="module")
def small() -> Population:
    pop = make_builtin("establishments", seed=2, size=600)
    # Keep the three largest size classes' records out: a table of three cells is enough.
    keep = np.isin(pop.strata, ["1-4", "5-9", "10-19"])
    return Population(
        "three size classes",
        pop.values[keep],
        pop.lower,
        pop.upper,
        strata=pop.strata[keep],
        clusters=pop.clusters[keep],
        stratum_label="size_class",
    )


@pytest.fixture(scope="module")
def table_plan(small: Population):
    return plan_table(small, ["strata"], ["median", "mean"], 1.0, **FAST)


def test_each_row_is_one_plan_of_its_cell(small: Population, table_plan) -> None:
    t = table_plan.table
    assert list(t.columns) == ["size_class", *TABLE_COLUMNS]
    assert len(t) == 6 and set(t["size_class"]) == {"1-4", "5-9", "10-19"}
    for _, row in t.iterrows():
        mask = small.strata == row["size_class"]
        cell = Population("cell", small.values[mask], small.lower, small.upper)
        stat = "median" if row["statistic"] == "median" else "mean"
        # ε_target / 2 per cell (a moved record touches two cells), half of it per statistic
        assert row["eps_target"] == pytest.approx(0.25)
        r = plan(
            cell,
            statistic=stat,
            eps_target=0.25,
            delta_target=row["delta_target"],
            relation="deletion",
            designs=["poisson"],
            rates=[0.2, 0.5],
            reps=10,
            seed=int(row["seed"]),
        )
        assert row["design"] == r.best["design"]
        assert row["rate"] == pytest.approx(r.best["rate"])
        assert row["error_95"] == pytest.approx(r.best["error_95"], rel=1e-9)
        assert row["value"] == pytest.approx(r.population_value)
        assert row["relative_error"] == pytest.approx(r.best["error_95"] / abs(r.population_value))
        assert row["publishable"] == (r.best["error_95"] <= 0.1 * abs(r.population_value))


def test_composition_totals(table_plan) -> None:
    s = table_plan.summary()
    assert s["composition"]["eps_table"] == pytest.approx(1.0)
    assert s["composition"]["cell_relation"] == "deletion"
    assert "srs" in s["refused_designs"]
    assert s["rows"] == 6 and s["cells"] == 3
    assert s["publishable"] + s["not_publishable"] == 6


def test_any_executor_gives_the_same_numbers(small: Population, table_plan) -> None:
    def backwards(fn, jobs):
        jobs = list(jobs)
        out = {id(j): fn(j) for j in reversed(jobs)}
        return [out[id(j)] for j in jobs]

    again = plan_table(small, ["strata"], ["median", "mean"], 1.0, map_fn=backwards, **FAST)
    pd.testing.assert_frame_equal(again.table, table_plan.table, rtol=1e-12)


def test_deletion_and_fixed_labels_give_each_cell_the_whole_budget(small: Population) -> None:
    for kw in ({"relation": "deletion"}, {"relation": "replacement", "labels_fixed": True}):
        tp = plan_table(small, ["strata"], ["median"], 0.8, **FAST, **kw)
        assert tp.table["eps_target"].to_numpy() == pytest.approx(0.8)
        assert tp.eps_table == pytest.approx(0.8)


def test_optimal_split_returns_shares(small: Population) -> None:
    tp = plan_table(
        small, ["strata"], ["median", "mean"], 1.0, split="optimal", split_grid=(0.3, 0.7), **FAST
    )
    assert sum(tp.shares) == pytest.approx(1.0)
    assert set(tp.split_curves) == {"median", "mean"}
    assert tp.table.groupby("statistic")["share"].first().to_dict() == pytest.approx(
        dict(zip(tp.statistics, tp.shares, strict=True))
    )
    # Weighting the mean's error more buys the mean a larger share of the same curves (the
    # median's clamped error saturates at the range, so the weight must be large).
    plain, weighted = (
        plan_table(
            small, ["strata"], ["median", "mean"], 1.0, split="optimal", error_weights=w, **FAST
        )
        for w in (None, (1.0, 20.0))
    )
    assert weighted.split_curves == plain.split_curves
    assert weighted.shares[1] > plain.shares[1]
    assert weighted.settings["error_weights"] == [1.0, 20.0]
    for bad, split in (((1.0, 2.0), "equal"), ((1.0,), "optimal"), ((1.0, 0.0), "optimal")):
        with pytest.raises(ValueError, match="error_weights"):
            plan_table(small, ["strata"], ["median", "mean"], 1.0, split=split, error_weights=bad)


def test_a_cell_too_small_to_plan_is_flagged_not_raised() -> None:
    pop = Population("tiny", [1.0, 2.0, 3.0, 4.0, 5.0], 0.0, 10.0, strata=["a"] * 4 + ["b"])
    tp = plan_table(pop, ["strata"], ["mean"], 1.0, designs=["poisson"], reps=5, seed=1)
    assert len(tp.table) == 2
    assert not tp.table["publishable"].any()


def test_cell_seeds_are_distinct_and_stable() -> None:
    seeds = {cell_seed(3, c, s) for c in range(20) for s in range(3)}
    assert len(seeds) == 60 and all(0 <= x < 2**63 for x in seeds)
    assert cell_seed(3, 4, 1) == cell_seed(3, 4, 1) != cell_seed(4, 4, 1)


def test_bad_groupings_and_statistics_are_named(small: Population) -> None:
    with pytest.raises(ValueError, match="more than the 5 cells"):
        cells_of(small, ["clusters"], max_cells=5)
    with pytest.raises(ValueError, match="no strata"):
        cells_of(Population("x", [1.0, 2.0], 0.0, 3.0), ["strata"])
    with pytest.raises(ValueError, match="one or two"):
        cells_of(small, ["strata", "strata"])
    assert parse_statistic({"quantile": 0.9}) == ("quantile", 0.9, "quantile 0.9")
    with pytest.raises(ValueError, match="statistic"):
        parse_statistic("mode")
    with pytest.raises(ValueError, match="quantile"):
        parse_statistic(("quantile", 1.5))
    with pytest.raises(ValueError, match="quantile"):
        parse_statistic("quantile high")
    assert parse_statistic("quantile 0.25")[:2] == ("quantile", 0.25)
    names, labels, idx = cells_of(small, ["strata", "clusters"])
    assert names == ["size_class", "cluster"]
    assert sum(len(i) for i in idx) == small.size and len(labels) == len(idx)


def test_a_cell_mean_is_not_divided_by_a_private_cell_size(small: Population, table_plan) -> None:
    """Issue 35: cells planned for added or removed records (labels that can move) have sizes
    that differ between neighbours; unless they are declared public no mean divides by one."""
    means = table_plan.table[table_plan.table["statistic"] == "mean"]
    assert set(means["mechanism"]) == {"sum_count"}
    s = table_plan.summary()
    assert s["sizes_public"] is False and "not public" in s["sizes"]
    public = plan_table(small, ["strata"], ["mean"], 1.0, sizes_public=True, **FAST)
    assert public.settings["sizes_public"] is True
    assert "ht_mean" in set(public.table["mechanism"])
    assert "declared public" in public.summary()["sizes"]
    fixed = plan_table(small, ["strata"], ["mean"], 1.0, labels_fixed=True, **FAST)
    assert "sum_count" not in set(fixed.table["mechanism"])  # a change leaves every N_c as is
    assert "same for both neighbours" in fixed.summary()["sizes"]
    with pytest.raises(ValueError, match="sizes_public"):
        plan_table(small, ["strata"], ["mean"], 1.0, sizes_public="no", **FAST)  # type: ignore[arg-type]


def test_cells_are_listed_in_reading_order_for_every_consumer() -> None:
    """Issue 35 §4: strata coded 1 … 12 were listed 1, 10, 11, 12, 2, …; the page, its CSV,
    the batch run and the exported script all read ``TablePlan.table``, so core orders it
    (numbers by value), with rows moved whole and each cell keeping its seed."""
    from core.publication.table import reading_order

    rng = np.random.default_rng(3)
    strata = np.array([str(1 + i % 12) for i in range(600)], dtype=object)
    values = np.round(rng.uniform(0.0, 100.0, 600))
    order = np.argsort(values, kind="stable")
    pop = Population(
        "numbered", values[order], 0.0, 100.0, strata=strata[order], stratum_label="stratum"
    )
    plan = plan_table(pop, ["strata"], ["median", "mean"], 1.0, designs=["poisson"], reps=4)
    labels = list(plan.table["stratum"])
    assert labels == [str(s) for s in range(1, 13) for _ in range(2)]
    assert list(plan.table["statistic"][:2]) == ["median", "mean"]
    assert sorted(["10", "9", "North / 10", "North / 9"], key=reading_order) == [
        "9",
        "10",
        "North / 9",
        "North / 10",
    ]
    # each cell keeps its own seed: the seed column is that of the cell's index
    for row in plan.table.itertuples(index=False):
        stat_index = plan.statistics.index(row.statistic)
        assert row.seed == cell_seed(0, int(row.cell), stat_index)


#: The table of ``table_plan`` as planned before the size-free mean's distinct rows and the
#: compiled clamped moments (the same seed gives the same numbers): cell, statistic, design,
#: mechanism, rate, rmse, error_95.
REFERENCE = [
    ("1-4", "median", "poisson", "exponential", 0.2, 0.5457243055350364, 0.87128425590356),
    ("1-4", "mean", "census", "sum_count", 1.0, 165.5658425068118, 384.75524985688736),
    ("5-9", "median", "census", "exponential", 1.0, 3406.946793963459, 8560.703330345179),
    ("5-9", "mean", "census", "sum_count", 1.0, 487.3603297381492, 1133.8587322720173),
    (
        "10-19",
        "median",
        "poisson",
        "exponential",
        0.7071067811865476,
        2519.165066848094,
        5136.591036178875,
    ),
    ("10-19", "mean", "census", "sum_count", 1.0, 683.6968048201204, 1584.0462297821034),
]


def test_the_table_is_the_reference_for_its_seed(table_plan) -> None:
    t = table_plan.table
    got = list(zip(t["size_class"], t["statistic"], t["design"], t["mechanism"], strict=True))
    assert got == [r[:4] for r in REFERENCE]
    np.testing.assert_allclose(t["rate"], [r[4] for r in REFERENCE], rtol=1e-12)
    np.testing.assert_allclose(t["rmse"], [r[5] for r in REFERENCE], rtol=1e-9)
    np.testing.assert_allclose(t["error_95"], [r[6] for r in REFERENCE], rtol=1e-9)
