"""Tests for core.csv_io.loading: value column, bounds and labels of a population from a CSV."""

from __future__ import annotations

import io
import math

import numpy as np
import pytest

from core.csv_io import load_population_csv
from core.population import cluster_strata_note


@pytest.mark.parametrize(
    ("kwargs", "fragment"),
    [
        ({"value_column": "nope"}, "no column named 'nope'"),
        ({"stratum_column": "nope"}, "no column named 'nope'"),
        ({"cluster_column": "nope"}, "no column named 'nope'"),
        ({"value_column": "g"}, "usable number"),
        ({"lower": 5, "upper": 5}, "smaller"),
        ({"lower": 6, "upper": 5}, "smaller"),
        ({"lower": math.nan}, "finite"),
        ({"upper": "high"}, "number"),
        ({"upper": -math.inf}, "finite"),
        ({"lower": math.inf}, "finite"),
    ],
)
def test_load_argument_errors(kwargs, fragment):
    with pytest.raises(ValueError, match=fragment):
        load_population_csv(b"x,g\n3,a\n1,b\n2,c\n", **kwargs)


def test_declared_bounds_clip_with_note():
    pop = load_population_csv(b"x\n-5\n1\n2\n50\n60\n", lower=0, upper=10)
    np.testing.assert_array_equal(pop.values, [0, 1, 2, 10, 10])
    assert (pop.lower, pop.upper) == (0.0, 10.0)
    text = " ".join(pop.notes)
    assert "Clipped 3 values" in text and "1 below, 2 above" in text
    assert "public knowledge" in text
    assert "read from the data" not in text


def test_data_bounds_warn():
    pop = load_population_csv(b"x\n3\n50\n97\n")
    assert (pop.lower, pop.upper) == (0.0, 100.0)
    assert any("not differentially private" in n for n in pop.notes)


def test_one_declared_bound():
    pop = load_population_csv(b"x\n3\n50\n97\n", lower=-10)
    assert (pop.lower, pop.upper) == (-10.0, 100.0)
    assert any("upper bound was read from the data" in n for n in pop.notes)
    pop = load_population_csv(b"x\n3\n50\n97\n", upper=1000)
    assert (pop.lower, pop.upper) == (0.0, 1000.0)
    pop = load_population_csv(b"x\n3\n50\n97\n", upper=1)  # everything clipped to 1
    assert pop.lower < pop.upper == 1.0 and np.all(pop.values == 1.0)


def test_no_public_upper_bound(tmp_path):
    path = tmp_path / "open.csv"
    path.write_bytes(b"x\n-5\n3\n50\n1e12\n")
    pop = load_population_csv(path, lower=0, upper=math.inf)
    assert (pop.lower, pop.upper) == (0.0, math.inf) and not pop.has_upper_bound
    np.testing.assert_array_equal(pop.values, [0, 3, 50, 1e12])  # only the low value clipped
    assert "upper=float('inf')" in pop.recipe
    rebuilt = eval(  # the recipe is our own text, evaluated against a copy of the file
        pop.recipe.replace("'open.csv'", repr(str(path)), 1),
        {"load_population_csv": load_population_csv},
    )
    assert rebuilt.content_hash == pop.content_hash


def test_labels_follow_sorted_values():
    data = b"v,s,c\n3,c,k3\n1,a,\n2,b,k2\n1,x,k1\n0,z,k0\n"
    pop = load_population_csv(data, stratum_column="s", cluster_column="c", lower=0, upper=5)
    np.testing.assert_array_equal(pop.values, [0, 1, 1, 2, 3])
    assert pop.strata.tolist() == ["z", "a", "x", "b", "c"]  # stable for the tie at 1
    assert pop.clusters.tolist() == ["k0", "(missing)", "k1", "k2", "k3"]
    assert pop.stratum_label == "s" and pop.cluster_label == "c" and pop.value_label == "v"
    assert any("(missing)" in n for n in pop.notes)


def test_labels_drop_with_unusable_values():
    data = b"v,s\n3,c\nfoo,a\n2,b\n1,x\n"
    pop = load_population_csv(data, stratum_column="s", lower=0, upper=5)
    assert pop.strata.tolist() == ["x", "b", "c"]


def test_nhanes_style_combined_cluster_id_gives_thirty_clusters():
    data = nhanes_style_csv()
    pop = load_population_csv(
        data,
        value_column="bmi",
        lower=10,
        upper=80,
        stratum_column="stratid",
        cluster_column=["stratid", "psuid"],
    )
    assert len(np.unique(pop.clusters)) == 30
    assert len(np.unique(pop.strata)) == 15
    assert pop.cluster_label == "stratid × psuid" and pop.stratum_label == "stratid"
    assert {"1 / 1", "3 / 2", "15 / 2"} <= set(pop.clusters.tolist())
    # Each combined label starts with its own stratum.
    assert all(c.split(" / ")[0] == s for s, c in zip(pop.strata, pop.clusters, strict=True))
    assert any("Dropped" in n for n in pop.notes)  # the blank values
    assert not any("more than one stratum" in n for n in pop.notes)
    assert cluster_strata_note(pop) is None


def test_nhanes_style_psu_alone_carries_the_note():
    data = nhanes_style_csv()
    pop = load_population_csv(
        data,
        value_column="bmi",
        lower=10,
        upper=80,
        stratum_column="stratid",
        cluster_column="psuid",
    )
    assert len(np.unique(pop.clusters)) == 2
    note = cluster_strata_note(pop)
    assert note is not None and note in pop.notes
    assert "2 of the 2 cluster labels in 'psuid'" in note
    assert "'stratid' and 'psuid' together" in note


def test_combined_stratum_columns_and_blank_parts():
    data = b"v,a,b\n1,x,1\n2,x,\n3,y,1\n4,y,2\n"
    pop = load_population_csv(data, stratum_column=["a", "b"], lower=0, upper=5)
    assert pop.strata.tolist() == ["x / 1", "x / (missing)", "y / 1", "y / 2"]
    assert pop.stratum_label == "a × b"
    assert any("label part '(missing)' to 1 row" in n for n in pop.notes)
    # One column given as a list is the same as the column name.
    one = load_population_csv(data, stratum_column=["a"], lower=0, upper=5)
    same = load_population_csv(data, stratum_column="a", lower=0, upper=5)
    assert one.content_hash == same.content_hash and one.recipe == same.recipe


@pytest.mark.parametrize(
    ("kwargs", "fragment"),
    [
        ({"cluster_column": ["a", "nope"]}, "no column named 'nope'"),
        ({"cluster_column": ["a", "a"]}, "more than once"),
        ({"stratum_column": [1, "a"]}, "must be column names"),
        ({"stratum_column": 7}, "column name or a list"),
    ],
)
def test_combined_column_errors(kwargs, fragment):
    with pytest.raises(ValueError, match=fragment):
        load_population_csv(b"v,a,b\n1,x,1\n2,x,2\n3,y,1\n", **kwargs)


def test_recipe_rebuilds_population_with_column_lists(tmp_path):
    path = tmp_path / "nhanes.csv"
    path.write_bytes(nhanes_style_csv())
    pop = load_population_csv(
        path,
        value_column="bmi",
        lower=10,
        upper=80,
        stratum_column="stratid",
        cluster_column=["stratid", "psuid"],
    )
    assert "cluster_column=['stratid', 'psuid']" in pop.recipe
    assert pop.recipe.startswith("load_population_csv('nhanes.csv'")
    rebuilt = eval(  # the recipe is our own text, evaluated against a copy of the file
        pop.recipe.replace("'nhanes.csv'", repr(str(path)), 1),
        {"load_population_csv": load_population_csv},
    )
    assert rebuilt.content_hash == pop.content_hash
    assert rebuilt.cluster_label == pop.cluster_label


def nhanes_style_csv(n_strata: int = 15, psus: int = 2, per_psu: int = 25) -> bytes:
    """An NHANES-style extract: PSUs numbered 1..psus within each stratum, blanks in the value."""
    rng = np.random.default_rng(10)
    rows = ["seqn,stratid,psuid,bmi"]
    seqn = 0
    for s in range(1, n_strata + 1):
        for p in range(1, psus + 1):
            for k in range(per_psu):
                seqn += 1
                value = "" if k % 9 == 4 else f"{rng.normal(27.0, 5.0):.1f}"
                rows.append(f"{seqn},{s},{p},{value}")
    return ("\n".join(rows) + "\n").encode()


def test_file_settings_record_how_the_file_was_read() -> None:
    """What the exports repeat (issue 35 §5): the file, the columns, the bounds, the rows
    dropped and the values clipped on each side."""
    from core.population import FileSettings

    text = "y,region,psu\n5,a,1\n,a,2\n-3,b,1\n12,b,2\nx,a,1\n7,a,2\n"
    pop = load_population_csv(
        io.BytesIO(text.encode()),
        value_column="y",
        lower=0,
        upper=10,
        stratum_column="region",
        cluster_column=["region", "psu"],
    )
    assert pop.file_settings == FileSettings(
        file="population.csv",
        value_column="y",
        lower=0.0,
        upper=10.0,
        bounds_declared=True,
        stratum_columns=("region",),
        cluster_columns=("region", "psu"),
        rows_read=6,
        rows_dropped=2,
        clipped_below=1,
        clipped_above=1,
    )
    assert pop.file_settings.values_clipped == 2 and pop.file_settings.clipped_share == 0.5
    guessed = load_population_csv(io.BytesIO(text.encode()), value_column="y")
    assert guessed.file_settings is not None and not guessed.file_settings.bounds_declared
    assert guessed.file_settings.values_clipped == 0
