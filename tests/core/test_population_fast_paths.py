"""The fast paths of building a population from a file: text labels given as a categorical,
descriptive fields changed without a rebuild, and the loader's stable sort. Each must give
exactly what the general path gives."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from core.csv_io.loading import _stable_order
from core.population import FileSettings, Population


def _labelled(strata, clusters=None) -> Population:
    n = len(strata) if not isinstance(strata, pd.Categorical) else len(strata.codes)
    return Population(
        name="t",
        values=np.arange(n, dtype=float),
        lower=0.0,
        upper=float(n),
        strata=strata,
        clusters=clusters,
    )


def test_a_text_categorical_gives_the_population_of_its_object_array():
    rng = np.random.default_rng(4)
    # Categories in an order other than first appearance, one of them unused.
    categories = pd.Index(["z", "a", "m", "unused", "b"], dtype=object)
    codes = rng.choice([0, 1, 2, 4], size=500).astype(np.int8)
    labels = pd.Categorical.from_codes(codes, categories=categories)
    fast = _labelled(labels, clusters=labels)
    slow = _labelled(np.asarray(labels, dtype=object), clusters=np.asarray(labels, dtype=object))
    assert fast.content_hash == slow.content_hash
    assert fast.strata.dtype == object and fast.strata.tolist() == slow.strata.tolist()
    assert all(type(x) is str for x in fast.strata.tolist())
    assert not fast.strata.flags.writeable
    for got, want in zip(fast.label_codes("strata"), slow.label_codes("strata"), strict=True):
        np.testing.assert_array_equal(got, want)
        assert got.dtype == want.dtype and not got.flags.writeable


@pytest.mark.parametrize(
    "labels",
    [
        pd.Categorical([1, 2, 1, 3]),  # integer categories: stored as integers
        pd.Categorical(["a", None, "b", "a"]),  # a missing entry: the general path decides
    ],
)
def test_other_categoricals_take_the_general_path(labels):
    got = _labelled(labels)
    want = _labelled(np.asarray(labels))
    assert got.content_hash == want.content_hash
    assert got.strata.dtype == want.strata.dtype


def test_a_categorical_of_the_wrong_length_is_refused():
    labels = pd.Categorical.from_codes([0, 1], categories=pd.Index(["a", "b"], dtype=object))
    with pytest.raises(ValueError, match="need one each"):
        Population(name="t", values=np.arange(3.0), lower=0.0, upper=3.0, strata=labels)


def test_with_details_shares_the_content_and_keeps_its_hash():
    pop = _labelled(np.array(["a", "b", "a"], dtype=object))
    settings = FileSettings(file="f.csv", value_column="v", lower=0.0, upper=3.0)
    other = pop.with_details(name="renamed", recipe=3, notes=["x"], file_settings=settings)
    assert (other.name, other.recipe, other.notes) == ("renamed", "3", ("x",))
    assert other.file_settings == settings and pop.file_settings is None
    assert other.values is pop.values and other.strata is pop.strata
    assert other.content_hash == pop.content_hash == pop.with_details().content_hash
    assert pop.name == "t" and pop.recipe == ""
    with pytest.raises(ValueError, match="values"):
        pop.with_details(values=np.arange(3.0))


@pytest.mark.parametrize("distinct", [3, 1000, 10**9])
def test_the_loaders_sort_is_numpys_stable_sort(distinct):
    rng = np.random.default_rng(distinct)
    values = rng.integers(0, distinct, 20_000).astype(float) / 7
    values[:50] = -0.0
    values[50:100] = 0.0
    order, ordered = _stable_order(values)
    want = np.argsort(values, kind="stable")
    np.testing.assert_array_equal(order, want)
    np.testing.assert_array_equal(ordered, values[want])
    np.testing.assert_array_equal(np.signbit(ordered), np.signbit(values[want]))


def test_loaded_labels_equal_the_cells_joined_in_value_order():
    from core.file_io import load_population_file

    rng = np.random.default_rng(9)
    n = 400
    frame = pd.DataFrame(
        {
            "v": rng.integers(0, 20, n).astype(float),
            "region": rng.choice(["north", "south", ""], n),
            "psu": rng.integers(1, 4, n),
        }
    )
    frame.loc[::37, "v"] = np.nan
    text = frame.to_csv(index=False).encode()
    pop = load_population_file(
        text,
        filename="f.csv",
        value_column="v",
        lower=0,
        upper=20,
        stratum_column="region",
        cluster_column=["region", "psu"],
    )
    kept = frame.dropna(subset=["v"]).sort_values("v", kind="stable")
    region = kept["region"].fillna("").replace("", "(missing)")
    assert pop.strata.tolist() == region.tolist()
    assert pop.clusters.tolist() == (region + " / " + kept["psu"].astype(str)).tolist()
    blank = int((kept["region"].fillna("") == "").sum())
    assert any(f"{blank} rows whose cell in 'region' is blank" in note for note in pop.notes)
    assert any(f"{blank} rows whose cell in 'region' or 'psu'" in note for note in pop.notes)
    assert (
        pop.content_hash
        == Population(
            name="x",
            values=pop.values,
            lower=0,
            upper=20,
            strata=pop.strata.copy(),
            clusters=pop.clusters.copy(),
        ).content_hash
    )
