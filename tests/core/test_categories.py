"""The category column of a population: storage, hash, codes, pickling, counts and limits."""

from __future__ import annotations

import dataclasses
import pickle
from collections import Counter

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.builtins import make_builtin
from core.categories import MAX_CATEGORIES, category_counts, check_category_count
from core.population import Population

#: Content hashes recorded before populations could carry categories: a population without
#: categories must keep them (caches, snapshots and shared links key on them).
PINNED = {
    "plain": "5bfa9b4a76c0ec045b8f25f83c6974f284aaf8f4db276d6e8e5c2f26f7335f05",
    "labelled": "bf32251eba8da2430d93584d308f37279afd842cd68bfa8cb5fa68e8b6cde619",
    "establishments": "749c315e5122d3baaa1a60f8ca21e6c8d7d866413d13cfd0e2abd04fc9bc3e14",
}


def _pop(categories=None, **kw) -> Population:
    return Population(
        "p",
        [1.0, 2.0, 3.0, 4.0, 5.0],
        0.0,
        10.0,
        categories=categories,
        **kw,
    )


def test_hashes_without_categories_are_unchanged():
    assert Population("x", [1, 2, 3], 0, 10).content_hash == PINNED["plain"]
    labelled = Population(
        "x", [1.0, 2.0, 3.0, 4.0], 0, 10, strata=["a", "b", "a", "b"], clusters=[1, 2, 3, 3]
    )
    assert labelled.content_hash == PINNED["labelled"]
    built = make_builtin("establishments", seed=0, size=2000)
    assert built.categories is None
    assert built.content_hash == PINNED["establishments"]


def test_categories_enter_the_hash():
    plain = _pop()
    a = _pop(["x", "y", "x", "x", "y"])
    b = _pop(["x", "y", "x", "y", "y"])
    assert len({plain.content_hash, a.content_hash, b.content_hash}) == 3
    # The same labels, given as a list, an array or a categorical, hash alike.
    same = _pop(pd.Categorical(["x", "y", "x", "x", "y"]))
    assert same.content_hash == a.content_hash
    assert _pop(np.array(["x", "y", "x", "x", "y"])).content_hash == a.content_hash
    # Categories are not strata: the same labels in another role hash differently.
    assert _pop(strata=["x", "y", "x", "x", "y"]).content_hash != a.content_hash
    # Integer codes and their text are different labels.
    assert _pop([1, 2, 1, 1, 2]).content_hash != _pop(["1", "2", "1", "1", "2"]).content_hash


def test_categories_are_stored_like_strata():
    pop = _pop([3, 1, 3, 2, 1], category_label="size class")
    assert pop.categories.dtype == np.int64
    assert not pop.categories.flags.writeable
    text = _pop(["b", "a", "b", "c", "a"])
    assert text.categories.dtype == object
    assert all(type(x) is str for x in text.categories)
    codes, uniques = text.label_codes("categories")
    assert uniques.tolist() == ["b", "a", "c"]  # order of first appearance
    assert uniques[codes].tolist() == text.categories.tolist()
    assert not codes.flags.writeable and not uniques.flags.writeable
    assert pop.to_frame().columns.tolist() == ["value", "size class"]
    assert _pop().label_codes("categories") is None


def test_label_codes_names_the_three_label_columns():
    with pytest.raises(ValueError, match="'strata', 'clusters' or 'categories'"):
        _pop(["a"] * 5).label_codes("category")


def test_pickling_keeps_categories_read_only_and_the_hash():
    pop = _pop(["b", "a", "b", "c", "a"], category_label="sector")
    back = pickle.loads(pickle.dumps(pop))
    assert back.content_hash == pop.content_hash
    assert back.categories.tolist() == pop.categories.tolist()
    assert back.category_label == "sector"
    assert not back.categories.flags.writeable
    codes, uniques = back.label_codes("categories")
    assert not codes.flags.writeable and uniques.tolist() == ["b", "a", "c"]


def test_category_label_is_a_detail():
    pop = _pop(["b", "a", "b", "c", "a"])
    renamed = pop.with_details(category_label="sector")
    assert renamed.category_label == "sector"
    assert renamed.categories is pop.categories
    assert renamed.content_hash == pop.content_hash
    with pytest.raises(ValueError, match="descriptive fields only, not categories"):
        pop.with_details(categories=["a"] * 5)
    replaced = dataclasses.replace(pop, categories=["a", "a", "b", "b", "b"])
    assert replaced.content_hash != pop.content_hash


def test_bad_categories_get_plain_messages():
    with pytest.raises(ValueError, match="3 category labels for 5 values"):
        _pop(["a", "b", "c"])
    with pytest.raises(ValueError, match=r"'firm id' has 1,001 distinct entries.*at most 1,000"):
        check_category_count(MAX_CATEGORIES + 1, "firm id")


def test_the_constructor_refuses_too_many_categories():
    n = MAX_CATEGORIES + 1
    with pytest.raises(ValueError, match="at most 1,000 categories"):
        Population("p", np.arange(n, dtype=float), 0.0, float(n), categories=np.arange(n))
    ok = Population(
        "p", np.arange(n, dtype=float), 0.0, float(n), categories=np.arange(n) % MAX_CATEGORIES
    )
    assert len(ok.label_codes("categories")[1]) == MAX_CATEGORIES


@settings(max_examples=30, deadline=None)
@given(st.lists(st.sampled_from(["a", "b", "c", "(missing)", "é"]), min_size=1, max_size=40))
def test_category_counts_match_a_plain_count(labels):
    pop = Population("p", np.arange(len(labels), dtype=float), 0.0, 100.0, categories=labels)
    table = category_counts(pop)
    expected = Counter(labels)
    assert dict(zip(table["category"], table["records"], strict=True)) == dict(expected)
    assert int(table["records"].sum()) == pop.size
    assert np.isclose(table["share"].sum(), 1.0)
    # Most frequent first, ties by label.
    keys = list(zip(-table["records"], table["category"], strict=True))
    assert keys == sorted(keys)


def test_category_counts_without_categories():
    assert category_counts(_pop()) is None
