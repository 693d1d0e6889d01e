"""Tests for ui.population (cache, figures): histogram markers that never overlap, natural
label order."""

from __future__ import annotations

import numpy as np
import pytest

from core.populations import ESTABLISHMENT_SIZE_CLASSES, Population, make_builtin
from ui.format import fmt
from ui.population.cache import histogram_data
from ui.population.figures import group_counts, histogram_figure


def _figure(pop: Population, *, log_x: bool = False):
    hist = histogram_data.__wrapped__(pop.content_hash, pop, 60, log_x)
    fig, data = histogram_figure(pop, hist, log_x=log_x)
    assert data is hist
    return fig


@pytest.mark.parametrize("key", ["lognormal", "beta", "bimodal_paper", "establishments"])
@pytest.mark.parametrize("log_x", [False, True])
def test_histogram_markers_are_named_in_the_legend_not_drawn_as_labels(key, log_x):
    pop = make_builtin(key, seed=0, size=2001)
    fig = _figure(pop, log_x=log_x).to_plotly_json()
    layout = fig["layout"]
    # No annotation or shape label: the only text on the plot is the median's and mean's own.
    assert not layout.get("annotations")
    assert not any(shape.get("label", {}).get("text") for shape in layout.get("shapes", []))
    names = [t.get("name", "") for t in fig["data"] if t.get("showlegend")]
    assert any(n.startswith("median ") for n in names)
    assert any(n.startswith("mean ") for n in names)
    assert f"U = {pop.upper:,.0f}" in names or f"U = {pop.upper:.4g}" in names
    assert any(n.startswith("L = ") for n in names) == (not (log_x and pop.lower <= 0))
    assert len(names) == len(set(names))


def test_histogram_marker_lines_stand_at_their_values_and_span_the_bars():
    pop = make_builtin("lognormal", seed=0, size=2001)
    fig = _figure(pop)
    bars = next(t for t in fig.data if t.type == "bar")
    top = float(np.max(bars.y))
    median = next(t for t in fig.data if (t.name or "").startswith("median"))
    assert set(median.x) == {pop.values[(pop.size - 1) // 2]}
    assert median.y[0] == 0 and median.y[-1] >= top
    assert len(median.y) > 2  # points along the line, so hovering anywhere on it names it


@pytest.mark.parametrize("key", ["lognormal", "beta", "bimodal_paper", "establishments"])
def test_median_and_mean_are_labelled_on_opposite_sides_in_their_own_dash(key):
    """Issue 27: the two lines often coincide; their labels go apart, their dashes differ."""
    pop = make_builtin(key, seed=0, size=2001)
    fig = _figure(pop).to_plotly_json()
    median = next(t for t in fig["data"] if t.get("name", "").startswith("median"))
    mean = next(t for t in fig["data"] if t.get("name", "").startswith("mean"))
    assert median["line"]["dash"] != mean["line"]["dash"]
    assert median["text"][-1] == median["name"] and mean["text"][-1] == mean["name"]
    # one row each: the two labels sit at different heights, pointing the same way
    assert median["textposition"] == mean["textposition"]
    assert median["y"][-1] != mean["y"][-1]
    assert fig["layout"]["yaxis"]["range"][1] > max(median["y"][-1], mean["y"][-1])
    assert median["hovertemplate"].startswith(median["name"])


def test_data_range_bins_keep_the_axis_on_the_data_and_name_the_bounds_off_it():
    pop = make_builtin("lognormal", seed=0, size=2001)
    hist = histogram_data.__wrapped__(pop.content_hash, pop, 60, False, False)
    assert hist["bin_left"].iloc[0] == pop.values[0]
    assert hist["bin_right"].iloc[-1] == pop.values[-1]
    assert hist["count"].sum() == pop.size
    fig = histogram_figure(pop, hist, log_x=False)[0].to_plotly_json()
    names = [t.get("name", "") for t in fig["data"] if t.get("showlegend")]
    assert f"U = {pop.upper:,.0f}, off the axis to the right" in names
    assert fig["layout"]["xaxis"]["range"][1] < pop.upper


@pytest.mark.parametrize(
    ("labels", "expected"),
    [
        (["1", "10", "2", "11", "3"], [1, 2, 3, 10, 11]),
        (["3 / 10", "3 / 2", "10 / 1", "2 / 1"], ["2 / 1", "3 / 2", "3 / 10", "10 / 1"]),
        (["b", "10", "a", "9"], ["9", "10", "a", "b"]),
        (["10-19", "1-4", "100-249", "5-9"], ["1-4", "5-9", "10-19", "100-249"]),
        (["R10", "R2", "R1"], ["R1", "R2", "R10"]),
        (["07", "7", "8"], ["07", "7", "8"]),  # not plain integers: kept as text
        (np.array([12, 3, 100]), [3, 12, 100]),
    ],
)
def test_group_counts_in_natural_order(labels, expected):
    labels = np.asarray(labels, dtype=object) if isinstance(labels, list) else labels
    out = group_counts(labels, np.arange(len(labels), dtype=float))
    assert out["label"].tolist() == expected
    assert out["records"].sum() == len(labels)


def test_group_counts_integer_labels_become_numbers():
    out = group_counts(np.array(["2", "10", "1"], dtype=object), np.array([1.0, 2.0, 3.0]))
    assert out["label"].dtype.kind == "i"
    assert out["mean"].tolist() == [3.0, 1.0, 2.0]


def test_label_sort_key_mixes_numbers_and_text():
    from ui.population.figures import label_sort_key

    labels = ["x", "2", "10", "1.5", "nan", "-1"]
    assert sorted(labels, key=label_sort_key) == ["-1", "1.5", "2", "10", "nan", "x"]


def test_establishments_size_classes_in_size_order():
    pop = make_builtin("establishments", seed=0, size=5000)
    out = group_counts(pop.strata, pop.values)
    present = set(pop.strata.tolist())
    assert out["label"].tolist() == [c[0] for c in ESTABLISHMENT_SIZE_CLASSES if c[0] in present]
    assert out["label"].tolist()[:4] == ["1-4", "5-9", "10-19", "20-49"]


def test_histogram_legend_writes_whole_numbers_with_separators():
    pop = make_builtin("establishments", seed=0, size=5000)
    names = [t.name for t in _figure(pop).data if t.showlegend]
    assert "U = 10,000" in names and "L = 0" in names


# --------------------------------------------------------------------------------------------
# Issue 11: the summary's numbers against numpy, the cluster note against core
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("size", [2001, 2000])
def test_population_summary_numbers_equal_numpys(size):
    """Every number of the summary table, for odd and even N.

    Break caught (tests/break_checks.py ``population-median-off-by-one``): the median one
    rank too high.
    """
    from ui.population.cache import population_summary

    pop = make_builtin("lognormal", seed=0, size=size)
    table = population_summary(pop.content_hash, pop).set_index("quantity")["value"]
    v = np.sort(pop.values)
    lower_middle = v[-(-size // 2) - 1]  # the ⌈N/2⌉-th order statistic
    assert table["Population size"] == f"{size:,}"
    assert table["Mean"] == fmt(v.mean(), "value")
    assert table["Median (lower middle value)"] == fmt(lower_middle, "value")
    neighbours = {fmt(v[-(-size // 2) - 2], "value"), fmt(v[-(-size // 2)], "value")}
    assert table["Median (lower middle value)"] not in neighbours  # one rank off would show
    assert table["Standard deviation"] == fmt(v.std(ddof=1), "value")
    assert (table["Smallest value"], table["Largest value"]) == (
        fmt(v[0], "value"),
        fmt(v[-1], "value"),
    )
    assert table["Declared range"] == fmt(pop.upper - pop.lower, "value")
    assert "Strata" not in table.index
    est = make_builtin("establishments", seed=0, size=size)
    table = population_summary(est.content_hash, est).set_index("quantity")["value"]
    assert table["Strata"] == str(len(np.unique(est.strata)))
    assert table["Clusters"] == str(len(np.unique(est.clusters)))


def test_population_summary_marks_the_median_rank_on_a_hand_made_population():
    from ui.population.cache import population_summary

    pop = Population(name="four", values=np.array([1.0, 2.0, 7.0, 9.0]), lower=0.0, upper=10.0)
    table = population_summary(pop.content_hash, pop).set_index("quantity")["value"]
    assert table["Median (lower middle value)"] == "2"  # not np.median = 4.5
    assert table["Mean"] == "4.75"
    assert "Strata" not in table.index


def test_shared_cluster_note_is_cores_note():
    from core.populations import cluster_strata_note
    from ui.population.cache import shared_cluster_note

    pop = make_builtin("establishments", seed=0, size=3000)
    assert shared_cluster_note(pop.content_hash, pop) == cluster_strata_note(pop)
    plain = make_builtin("beta", seed=0, size=50)
    assert shared_cluster_note(plain.content_hash, plain) is None
