"""Tests for core.population: Population invariants, content hash, bounds suggestion."""

from __future__ import annotations

import dataclasses
import math
import pickle

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.builtins import make_builtin
from core.csv_io import population_to_csv_bytes, read_csv_table
from core.population import Population, suggest_bounds

# --------------------------------------------------------------------------------------------
# Population invariants and content hash
# --------------------------------------------------------------------------------------------


def _pop(values=(1.0, 2.0, 3.0), lower=0.0, upper=10.0, **kw) -> Population:
    return Population(
        name="t", values=np.array(values, dtype=float), lower=lower, upper=upper, **kw
    )


@pytest.mark.parametrize(
    ("kwargs", "fragment"),
    [
        ({"lower": 5.0, "upper": 5.0}, "smaller"),
        ({"lower": 6.0, "upper": 5.0}, "smaller"),
        ({"lower": -math.inf}, "finite"),
        ({"upper": math.nan}, "finite"),
        ({"upper": -math.inf}, "finite"),
        ({"lower": math.inf, "upper": math.inf}, "finite"),
        ({"values": (1.0, math.nan, 3.0)}, "not finite"),
        ({"values": (1.0, 2.0, math.inf)}, "not finite"),
        ({"values": (1.0, 2.0, 11.0)}, "outside"),
        ({"values": (-1.0, 2.0, 3.0)}, "outside"),
        ({"values": (3.0, 2.0, 1.0)}, "sorted"),
        ({"values": ()}, "at least one"),
        ({"values": ((1.0, 2.0), (3.0, 4.0))}, "one-dimensional"),
        ({"strata": np.array(["a", "b"])}, "labels"),
        ({"clusters": np.array([1, 2, 3, 4])}, "labels"),
        ({"lower": -1e308, "upper": 1e308}, "too far apart"),
    ],
)
def test_population_validation(kwargs, fragment):
    with pytest.raises(ValueError, match=fragment):
        _pop(**kwargs)


def test_population_without_a_public_upper_bound():
    pop = _pop(values=(1.0, 2.0, 1e300), upper=math.inf)
    assert pop.upper == math.inf and not pop.has_upper_bound
    assert _pop().has_upper_bound
    assert pop.content_hash != _pop(values=(1.0, 2.0, 1e300), upper=1e301).content_hash
    with pytest.raises(ValueError, match="outside"):
        _pop(values=(-1.0, 2.0), upper=math.inf)


def test_population_copies_and_freezes_inputs():
    raw = np.array([1.0, 2.0, 3.0])
    labels = np.array(["a", "b", "c"], dtype=object)
    pop = _pop(raw, strata=labels)
    raw[0] = 0.5
    labels[0] = "z"
    assert pop.values[0] == 1.0 and pop.strata[0] == "a"
    assert not pop.values.flags.writeable and not pop.strata.flags.writeable
    assert pop.strata.dtype == object and pop.size == 3
    ints = _pop(clusters=[7, 8, 9])
    assert ints.clusters.dtype == np.int64
    with pytest.raises(dataclasses.FrozenInstanceError):
        pop.lower = 1.0  # type: ignore[misc]


def test_content_hash_equal_for_equal_content():
    a = _pop(strata=["a", "b", "c"], clusters=[1, 2, 3])
    b = Population(
        name="another name",
        values=[1, 2, 3],
        lower=0,
        upper=10,
        strata=np.array(["a", "b", "c"]),
        clusters=np.array([1, 2, 3], dtype=np.int32),
        notes=("different notes",),
    )
    assert len(a.content_hash) == 64 and a.content_hash == b.content_hash
    assert _pop((-0.0, 1.0, 2.0)).content_hash == _pop((0.0, 1.0, 2.0)).content_hash


@pytest.mark.parametrize(
    "change",
    [
        {"values": (1.0, 2.0, 3.5)},
        {"values": (1.0, 2.0, np.nextafter(3.0, 4.0))},
        {"values": (1.0, 1.0, 3.0)},
        {"lower": -1.0},
        {"upper": 11.0},
        {"strata": ["a", "b", "d"]},
        {"strata": ["a", "c", "b"]},
        {"strata": None},
        {"clusters": [1, 2, 4]},
        {"clusters": ["1", "2", "3"]},
        {"clusters": None},
    ],
)
def test_content_hash_changes_with_any_content(change):
    base = {"strata": ["a", "b", "c"], "clusters": [1, 2, 3]}
    a = _pop(**base)
    b = _pop(**{**base, **change})
    assert a.content_hash != b.content_hash


def test_strata_vs_clusters_are_distinguished_in_hash():
    assert _pop(strata=["a", "b", "c"]).content_hash != _pop(clusters=["a", "b", "c"]).content_hash


def test_replace_recomputes_hash():
    a = _pop()
    b = dataclasses.replace(a, values=np.array([1.0, 2.0, 4.0]))
    assert b.content_hash == _pop((1.0, 2.0, 4.0)).content_hash != a.content_hash
    assert dataclasses.replace(a, name="renamed").content_hash == a.content_hash


def test_pickle_round_trip_keeps_arrays_frozen():
    pop = make_builtin("establishments", size=500)
    back = pickle.loads(pickle.dumps(pop))
    assert back.content_hash == pop.content_hash
    np.testing.assert_array_equal(back.values, pop.values)
    for arr in (back.values, back.strata, back.clusters):
        assert not arr.flags.writeable
    table = read_csv_table(b"x,g\n1,a\n2,b\n3,c\n")
    table.column_values("x")
    again = pickle.loads(pickle.dumps(table))
    assert again.numeric_columns == ["x"] and again.frame.equals(table.frame)


def test_integer_labels():
    big = np.array([2**63, 1, 2], dtype=np.uint64)
    assert _pop(strata=big).strata.tolist() == [str(2**63), "1", "2"]
    pop = _pop(clusters=[-1, 0, 7])
    assert pop.clusters.dtype == np.int64
    lines = population_to_csv_bytes(pop).decode().splitlines()
    assert lines == ["value,cluster", "1,-1", "2,0", "3,7"]  # numbers: no quote prefix


def test_to_frame():
    pop = make_builtin("establishments", size=50)
    df = pop.to_frame()
    assert list(df.columns) == ["employees", "size_class", "region"]
    assert len(df) == 50


# --------------------------------------------------------------------------------------------
# Bounds suggestion
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        ([3, 97], (0.0, 100.0)),
        ([0.012, 0.93], (0.0, 1.0)),
        ([101, 199], (100.0, 200.0)),
        ([5, 5, 5], (4.0, 6.0)),
        ([0, 0], (-1.0, 1.0)),
        ([-30, 6.02e23], (-1e23, 7e23)),
        ([-0.5, -0.25], (-0.5, -0.2)),
        ([1.0, np.nan, np.inf, 2.0], (1.0, 2.0)),
    ],
)
def test_suggest_bounds(values, expected):
    assert suggest_bounds(values) == expected


@given(st.lists(st.floats(allow_nan=False, allow_infinity=False), min_size=1, max_size=20))
def test_suggest_bounds_contains_data(values):
    lo, hi = suggest_bounds(values)
    assert math.isfinite(lo) and math.isfinite(hi) and lo < hi
    assert lo <= min(values) and max(values) <= hi


def test_suggest_bounds_needs_a_number():
    with pytest.raises(ValueError):
        suggest_bounds([np.nan, np.inf])
