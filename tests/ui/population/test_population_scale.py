"""The Population page at scale (issue 15 §4): group tables and label counts come from the
population's label codes, and the histogram sends a bounded number of points.

The group-by on the label strings that the page used before is kept here as the slow
reference; the new tables must equal it exactly (values, order and dtypes).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from core.populations import Population, make_builtin
from ui.population.cache import group_table, histogram_data, population_summary
from ui.population.figures import (
    _LINE_POINTS,
    _is_plain_integer,
    group_counts,
    histogram_figure,
    label_sort_key,
)


def reference_group_counts(labels: np.ndarray, values: np.ndarray) -> pd.DataFrame:
    """The original implementation: a pandas group-by on the labels themselves."""
    frame = pd.DataFrame({"label": labels, "value": values})
    out = (
        frame.groupby("label", sort=False)["value"]
        .agg(records="size", mean="mean", sd="std")
        .reset_index()
    )
    keys = [label_sort_key(x) for x in out["label"].tolist()]
    out = out.iloc[sorted(range(len(keys)), key=keys.__getitem__)].reset_index(drop=True)
    labels_in_order = [str(x) for x in out["label"].tolist()]
    if out["label"].dtype.kind not in "iu" and all(map(_is_plain_integer, labels_in_order)):
        out["label"] = [int(x) for x in labels_in_order]
    return out


def _labelled(strata: object, clusters: object, n: int, seed: int = 0) -> Population:
    rng = np.random.default_rng(seed)
    return Population(
        name="labelled",
        values=np.sort(rng.gamma(2.0, 50.0, size=n)),
        lower=0.0,
        upper=5_000.0,
        strata=strata,
        clusters=clusters,
    )


def _cases() -> list[Population]:
    rng = np.random.default_rng(1)
    n = 3_000
    return [
        make_builtin("establishments", seed=3, size=30_000),
        _labelled(rng.integers(0, 40, n), rng.integers(-5, 5, n), n),
        _labelled(rng.integers(1, 12, n).astype(str), (rng.integers(1, 30, n) * 7).astype(str), n),
        _labelled([f"S{i % 13}" for i in range(n)], [f"{i % 3} / {i % 11}" for i in range(n)], n),
        _labelled(["only"] * n, np.arange(n), n),
    ]


@pytest.mark.parametrize("pop", _cases(), ids=lambda p: str(p.strata[:2].tolist()))
@pytest.mark.parametrize("which", ["strata", "clusters"])
def test_group_tables_equal_the_group_by_on_labels(pop, which):
    labels = getattr(pop, which)
    expected = reference_group_counts(labels, pop.values)
    pd.testing.assert_frame_equal(group_table.__wrapped__(pop.content_hash, pop, which), expected)
    pd.testing.assert_frame_equal(group_counts(labels, pop.values), expected)


def test_group_table_is_none_without_labels():
    pop = make_builtin("lognormal", seed=0, size=100)
    assert group_table.__wrapped__(pop.content_hash, pop, "strata") is None
    assert group_table.__wrapped__(pop.content_hash, pop, "clusters") is None


@pytest.mark.parametrize("pop", _cases(), ids=lambda p: str(p.strata[:2].tolist()))
def test_summary_counts_the_distinct_labels(pop):
    table = population_summary.__wrapped__(pop.content_hash, pop).set_index("symbol")["value"]
    assert table["H"] == f"{len(np.unique(pop.strata)):,}"
    assert table["K"] == f"{len(np.unique(pop.clusters)):,}"


@pytest.mark.parametrize("log_x", [False, True])
@pytest.mark.parametrize("size", [1_000, 400_000])
def test_histogram_sends_at_most_bins_bars_whatever_n(size, log_x):
    pop = make_builtin("lognormal", seed=0, size=size)
    hist = histogram_data.__wrapped__(pop.content_hash, pop, 60, log_x)
    fig, _ = histogram_figure(pop, hist, log_x=log_x)
    bars = [t for t in fig.data if t.type == "bar"]
    assert len(bars) == 1 and len(bars[0].x) == len(bars[0].y) == 60
    assert int(np.sum(bars[0].y)) <= size
    # four marker lines of a fixed number of points (for hover along them), whatever N
    assert all(len(t.x) == _LINE_POINTS for t in fig.data if t.type == "scatter")
    assert sum(len(t.x) for t in fig.data) <= 60 + _LINE_POINTS * 4


def reference_histogram(pop: Population, bins: int, log_x: bool) -> pd.DataFrame:
    """The original computation: numpy.histogram over the values."""
    v = pop.values
    if log_x:
        lo = max(pop.lower, float(v[v > 0].min()) if np.any(v > 0) else 1e-12)
        edges = np.geomspace(lo, pop.upper, bins + 1)
    else:
        edges = np.linspace(pop.lower, pop.upper, bins + 1)
    counts, edges = np.histogram(v, bins=edges)
    return pd.DataFrame({"bin_left": edges[:-1], "bin_right": edges[1:], "count": counts})


def _histogram_cases() -> list[Population]:
    rng = np.random.default_rng(3)
    ints = np.sort(rng.integers(0, 11, 2_000).astype(float))  # values on the bin edges
    return [
        make_builtin("lognormal", seed=2, size=20_000),
        make_builtin("establishments", seed=2, size=20_000),  # ties, top code at U
        make_builtin("beta", seed=2, size=5_000),
        Population(name="ints", values=ints, lower=0.0, upper=10.0),
        Population(name="neg", values=np.sort(rng.normal(0, 3, 999)), lower=-20.0, upper=20.0),
        Population(name="zeros", values=np.zeros(10), lower=0.0, upper=1.0),
        Population(name="one", values=[-1.0], lower=-2.0, upper=5.0),
    ]


@pytest.mark.parametrize("pop", _histogram_cases(), ids=lambda p: p.name[:12])
@pytest.mark.parametrize("bins", [10, 60, 200])
@pytest.mark.parametrize("log_x", [False, True])
def test_histogram_counts_equal_numpy_histogram(pop, bins, log_x):
    got = histogram_data.__wrapped__(pop.content_hash, pop, bins, log_x)
    pd.testing.assert_frame_equal(got, reference_histogram(pop, bins, log_x))
    assert got["count"].dtype == np.int64
