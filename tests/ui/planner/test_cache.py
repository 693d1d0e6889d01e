"""ui.planner.cache: cached results equal core.planner's, keyed by the population's hash.

Called outside a Streamlit session (st.cache_data then only warns).
"""

from __future__ import annotations

import dataclasses
import inspect

import numpy as np
import pandas as pd
import pytest

from core import planner
from core.linear.statistic import LinearStatistic
from core.populations import make_builtin
from ui.planner import cache, inputs, publication

A = make_builtin("lognormal", seed=0, size=1001)
B = make_builtin("lognormal", seed=1, size=1001)
EST = make_builtin("establishments", seed=0, size=3000)
ARGS = dict(
    statistic="median",
    eps_target=0.5,
    delta_target=1e-4,
    designs=("census", "srs"),
    rates=(0.1, 0.5),
    reps=50,
    seed=2,
    relation="replacement",
    objective="error_95",
)


def test_plan_is_cores_plan_and_follows_the_population():
    got = cache.plan(A.content_hash, A, **ARGS)
    pd.testing.assert_frame_equal(got.table, planner.plan(A, **ARGS).table)
    other = cache.plan(B.content_hash, B, **ARGS)
    assert not np.array_equal(other.table["error_95"], got.table["error_95"])


def test_quantile_and_mechanisms_are_part_of_the_cache_key():
    q = {**ARGS, "statistic": "quantile"}
    low = cache.plan(A.content_hash, A, **q, quantile=0.1)
    high = cache.plan(A.content_hash, A, **q, quantile=0.9)
    assert high.population_value == planner.plan(A, **q, quantile=0.9).population_value
    assert low.population_value < high.population_value
    only = cache.plan(A.content_hash, A, **q, quantile=0.9, mechanisms=("exponential",))
    assert set(only.table["mechanism"]) == {"exponential"}
    assert set(high.table["mechanism"]) == set(planner.DEFAULT_QUANTILE_MECHANISMS)
    found = cache.smallest_eps_target(
        A.content_hash,
        A,
        target_error_95=50.0,
        **{k: v for k, v in q.items() if k not in ("eps_target", "objective")},
        quantile=0.9,
        mechanisms=("global_laplace",),
    )
    assert found.plan is not None and found.plan.quantile == 0.9
    assert set(found.plan.table["mechanism"]) == {"global_laplace"}


def test_budget_split_passes_the_design_parameters():
    split = cache.budget_split(
        EST.content_hash,
        EST,
        design="cluster",
        eps_target=1.0,
        shares=(0.5, 0.5),
        rate=0.1,
        relation="replacement",
    )
    _, sizes = np.unique(EST.clusters, return_counts=True)
    expected = planner.budget_split(
        "cluster",
        1.0,
        (0.5, 0.5),
        relation="replacement",
        sizes=sizes,
        clusters_sampled=round(0.1 * sizes.size),
    )
    assert split == expected
    srs = cache.budget_split(
        A.content_hash,
        A,
        design="srs",
        eps_target=1.0,
        shares=(1.0,),
        rate=0.2,
        relation="replacement",
    )
    assert srs == planner.budget_split("srs", 1.0, (1.0,), relation="replacement", rate=0.2)
    with pytest.raises(ValueError, match="cluster labels"):
        cache.budget_split(
            A.content_hash,
            A,
            design="cluster",
            eps_target=1.0,
            shares=(1.0,),
            rate=0.2,
            relation="replacement",
        )


def test_composition_curve_rows_are_budget_splits():
    curve = cache.composition_curve(
        A.content_hash, A, design="srs", shares=(0.5, 0.5), rate=0.1, relation="replacement"
    )
    assert list(curve["eps_target"]) == list(cache.COMPOSITION_GRID)
    row = curve.iloc[10]
    split = planner.budget_split(
        "srs", row["eps_target"], (0.5, 0.5), relation="replacement", rate=0.1
    )
    assert row["eps_target_naive"] == split.eps_target_naive
    assert row["eps_target_correct"] == split.eps_target_correct


def test_interquartile_range_and_cluster_count():
    q1, q3 = np.quantile(A.values, [0.25, 0.75])
    assert cache.interquartile_range(A.content_hash, A) == pytest.approx(q3 - q1)
    assert cache.cluster_count(A.content_hash, A) is None
    assert cache.cluster_count(EST.content_hash, EST) == len(np.unique(EST.clusters))


def test_a_miss_reports_progress_and_a_hit_does_not():
    args = {**ARGS, "seed": 11, "designs": ("census", "srs", "poisson")}
    heard: list = []
    first = cache.plan(A.content_hash, A, **args, _progress=heard.append)
    assert heard[0] is None  # the computation starts
    reports = heard[1:]
    assert [(p.done, p.total) for p in reports] == [(1, 3), (2, 3), (3, 3)]
    assert set(reports[0].table["design"]) == {"census"}  # the census rows come first
    assert set(reports[1].table["design"]) == {"census", "srs"}
    pd.testing.assert_frame_equal(reports[-1].table, first.table)
    again: list = []
    second = cache.plan(A.content_hash, A, **args, _progress=again.append)
    assert again == [] and second is not None
    pd.testing.assert_frame_equal(second.table, first.table)


def test_the_search_and_several_statistics_report_progress_on_a_miss_only():
    search = dict(
        statistic="median",
        target_error_95=5.0,
        delta_target=1e-4,
        designs=("srs",),
        rates=(0.1, 0.5),
        reps=20,
        seed=12,
        relation="replacement",
    )
    heard: list = []
    found = cache.smallest_eps_target(A.content_hash, A, **search, _progress=heard.append)
    assert heard[0] is None
    done = [p.done for p in heard[1:]]
    assert done == sorted(done) and heard[-1].done == heard[-1].total
    assert (
        found.eps_target
        == planner.smallest_eps_target(
            A, target_error_95=5.0, **{k: v for k, v in search.items() if k != "target_error_95"}
        ).eps_target
    )
    again: list = []
    cache.smallest_eps_target(A.content_hash, A, **search, _progress=again.append)
    assert again == []
    several = dict(
        statistics=("median", "mean"),
        shares=(0.5, 0.5),
        eps_target=1.0,
        delta_target=1e-4,
        design="srs",
        rate=0.1,
        reps=20,
        seed=12,
        relation="replacement",
        objective="error_95",
    )
    heard = []
    results = cache.several_statistics(A.content_hash, A, **several, _progress=heard.append)
    assert heard[0] is None and [p.done for p in heard[1:]] == [1, 2]
    plain = planner.plan(
        A, statistic="mean", eps_target=1.0, delta_target=1e-4, designs=("srs",),
        rates=(0.1,), reps=20, seed=12, budget_share=0.5, refine=False,
    )  # fmt: skip
    # The chosen rate only: no refined rates the table would not show (issue 35).
    pd.testing.assert_frame_equal(results[1].table, plain.table)
    again = []
    cache.several_statistics(A.content_hash, A, **several, _progress=again.append)
    assert again == []


@pytest.mark.parametrize(
    ("cached", "hidden"),
    [
        (cache.plan, {"_pop", "_progress"}),
        (cache.smallest_eps_target, {"_pop", "_progress"}),
        (cache.several_statistics, {"_pop", "_progress"}),
        (cache.joint_exp, {"_pop"}),
        (cache.plan_linear, {"_pop"}),
        (publication.table_plan, {"_pop", "_progress", "_on_row"}),
    ],
)
def test_every_input_of_a_cached_computation_is_in_its_key(cached, hidden):
    """Streamlit leaves a parameter whose name starts with "_" out of the cache key: only the
    population (keyed by its content hash), the progress callback and the publication table's
    row callback may be left out, so a change of any other input computes anew."""
    names = list(inspect.signature(cached).parameters)
    assert names[0] == "content_hash"
    assert {n for n in names if n.startswith("_")} == hidden


#: Every field of the page's inputs that enters the comparison, with another value.
CHANGED = {
    "pop": B,
    "seed": 1,
    "statistic": "mean",
    "eps_target": 2.0,
    "delta_target": 1e-5,
    "relation": "deletion",
    "designs": ("census",),
    "rates": (0.1,),
    "reps": 100,
    "objective": "rmse",
    "quantile": 0.9,
    "mechanisms": ("exponential",),
    "sizes_public": True,
    "rho_target": 0.5,
    "linear": LinearStatistic("count", value_range=(0.0, 1.0)),
    "linear_mechanisms": ("laplace",),
    "linear_post": "round",
}
#: The fields that change only what is shown from a plan, never the plan.
SHOWN_ONLY = {"statuses", "usable_share", "page_query"}


def test_the_comparisons_key_follows_every_input_that_enters_the_plan():
    """The live rows and the finished comparison are drawn into containers keyed by
    :func:`ui.planner.inputs.inputs_key`: it changes with every input of the plan (a new
    field must be listed here, in CHANGED or SHOWN_ONLY) and not with what is only shown."""
    fields = {f.name for f in dataclasses.fields(inputs.PlannerInputs)}
    assert fields == set(CHANGED) | SHOWN_ONLY
    base = inputs.PlannerInputs(
        pop=A,
        seed=0,
        statistic="median",
        eps_target=1.0,
        delta_target=1e-4,
        relation="replacement",
        designs=("census", "srs"),
        rates=None,
        reps=50,
        objective="error_95",
        statuses=(),
    )
    key = inputs.inputs_key(base)
    for name, value in CHANGED.items():
        assert inputs.inputs_key(dataclasses.replace(base, **{name: value})) != key, name
    shown = dataclasses.replace(base, usable_share=0.1, page_query=(("plan_usable", ("10",)),))
    assert inputs.inputs_key(shown) == key
