"""Scale of the built-ins and of Population construction (issue 15 §4, item 1).

The establishment builder and the label normalisation were rewritten for 10⁷ records; the
slow originals are kept here as references, and the new code must give exactly their values,
labels and content hash.
"""

from __future__ import annotations

import hashlib
import struct

import numpy as np
import pandas as pd
import pytest

from core import builtins
from core.builtins import (
    _N_REGIONS,
    _SIZE_CLASS_SHARES,
    EMPLOYEES_TOP_CODE,
    ESTABLISHMENT_SIZE_CLASSES,
    MAX_BUILTIN_SIZE,
    _largest_remainder,
    make_builtin,
)
from core.population import Population


def reference_establishments(seed: int, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The original builder: object label arrays built per class, concatenated, then sorted."""
    rng = np.random.Generator(np.random.PCG64(seed))
    shares = _SIZE_CLASS_SHARES / _SIZE_CLASS_SHARES.sum()
    counts = _largest_remainder(shares, n)
    weights = rng.lognormal(0.0, 1.0, size=_N_REGIONS)
    region_names = np.array([f"R{r + 1:03d}" for r in range(_N_REGIONS)], dtype=object)
    values, strata, regions = [], [], []
    n_classes = len(ESTABLISHMENT_SIZE_CLASSES)
    for k, ((label, lo, hi), m) in enumerate(zip(ESTABLISHMENT_SIZE_CLASSES, counts, strict=True)):
        if m == 0:
            continue
        u = rng.random(m)
        if hi == EMPLOYEES_TOP_CODE:
            x = lo / (1.0 - u)
        else:
            x = 1.0 / (1.0 / lo - u * (1.0 / lo - 1.0 / (hi + 1)))
        emp = np.clip(np.floor(x), lo, hi)
        p = weights ** (1.0 + 0.5 * k / (n_classes - 1))
        values.append(emp)
        strata.append(np.full(m, label, dtype=object))
        regions.append(region_names[rng.choice(_N_REGIONS, size=m, p=p / p.sum())])
    v = np.concatenate(values)
    order = np.argsort(v, kind="stable")
    return v[order], np.concatenate(strata)[order], np.concatenate(regions)[order]


def reference_labels(labels: object) -> np.ndarray:
    """The original label normalisation (a Python-level type check of every label)."""
    arr = np.asarray(labels)
    if arr.dtype.kind in "iu":
        return arr.astype(np.int64)
    if arr.dtype.kind == "O" and all(type(x) is str for x in arr):
        return arr.copy()
    return np.array([str(x) for x in arr.tolist()], dtype=object)


def reference_hash(values: np.ndarray, lower: float, upper: float, strata, clusters) -> str:
    """The content hash as first defined (the labels factorised again inside the hash)."""
    h = hashlib.sha256(b"dp-sampling-explorer/population/v1\0")
    h.update(struct.pack("<q", values.size))
    h.update(np.asarray(values, dtype="<f8").tobytes())
    h.update(struct.pack("<dd", lower, upper))
    for tag, labels in ((b"strata", strata), (b"clusters", clusters)):
        h.update(tag)
        if labels is None:
            h.update(b"\0none")
            continue
        codes, uniques = pd.factorize(labels, sort=False)
        kind = b"i" if labels.dtype.kind == "i" else b"s"
        h.update(b"\0" + kind + struct.pack("<q", len(uniques)))
        for u in uniques.tolist():
            b = str(u).encode("utf-8", "surrogatepass")
            h.update(struct.pack("<q", len(b)) + b)
        h.update(np.asarray(codes, dtype="<i8").tobytes())
    return h.hexdigest()


@pytest.mark.parametrize(("seed", "size"), [(0, 3), (1, 101), (0, 100_000), (7, 250_001)])
def test_establishments_equal_the_reference_builder(seed, size):
    pop = make_builtin("establishments", seed=seed, size=size)
    values, strata, clusters = reference_establishments(seed, size)
    np.testing.assert_array_equal(pop.values, values)
    assert pop.strata.tolist() == strata.tolist()
    assert pop.clusters.tolist() == clusters.tolist()
    assert all(type(x) is str for x in pop.strata) and all(type(x) is str for x in pop.clusters)
    assert pop.content_hash == reference_hash(values, 0.0, 10_000.0, strata, clusters)
    assert pop.recipe == f"make_builtin('establishments', seed={seed}, size={size})"


@pytest.mark.parametrize(
    "labels",
    [
        ["b", "a", "b"],
        [3, 1, 3],
        np.array([2, 5, 2], dtype=np.uint8),
        [1.5, "a", 1.5],
        ["x", None, "x"],
        np.array(["u", "v", "u"]),
        [True, False, True],
    ],
)
def test_labels_and_hash_equal_the_reference(labels):
    values = np.array([1.0, 2.0, 3.0])
    pop = Population(name="p", values=values, lower=0.0, upper=4.0, strata=labels, clusters=labels)
    expected = reference_labels(labels)
    assert pop.strata.dtype == expected.dtype and pop.strata.tolist() == expected.tolist()
    assert [type(x) for x in pop.strata] == [type(x) for x in expected]
    assert pop.content_hash == reference_hash(values, 0.0, 4.0, expected, expected)
    assert not pop.strata.flags.writeable


def test_labels_are_copied_not_shared():
    labels = np.array(["a", "b", "a"], dtype=object)
    pop = Population(name="p", values=[1.0, 2.0, 3.0], lower=0.0, upper=4.0, strata=labels)
    labels[0] = "changed"
    assert pop.strata.tolist() == ["a", "b", "a"]


@pytest.mark.parametrize("which", ["strata", "clusters"])
def test_label_codes_are_factorize_in_first_appearance_order(which):
    pop = make_builtin("establishments", seed=2, size=20_000)
    labels = getattr(pop, which)
    codes, uniques = pop.label_codes(which)
    ref_codes, ref_uniques = pd.factorize(labels, sort=False)
    np.testing.assert_array_equal(codes, ref_codes)
    assert list(uniques) == list(ref_uniques)
    np.testing.assert_array_equal(uniques[codes], labels)
    assert not codes.flags.writeable
    assert make_builtin("lognormal", size=50).label_codes(which) is None


def test_label_codes_survive_pickling_and_replace():
    import dataclasses
    import pickle

    pop = make_builtin("establishments", seed=0, size=5_000)
    back = pickle.loads(pickle.dumps(pop))
    np.testing.assert_array_equal(back.label_codes("clusters")[0], pop.label_codes("clusters")[0])
    renamed = dataclasses.replace(pop, clusters=pop.strata)
    np.testing.assert_array_equal(renamed.label_codes("clusters")[0], pop.label_codes("strata")[0])
    with pytest.raises(ValueError, match=r"strata.*clusters"):
        pop.label_codes("regions")


def test_builtin_size_limit_reaches_ten_to_the_eight():
    assert MAX_BUILTIN_SIZE == 100_000_000
    with pytest.raises(ValueError, match="size"):
        make_builtin("lognormal", size=MAX_BUILTIN_SIZE + 1)
    assert builtins.MAX_BUILTIN_SIZE == MAX_BUILTIN_SIZE


def reference_shared_clusters(strata: np.ndarray, clusters: np.ndarray) -> tuple[int, int]:
    """The original count: distinct (stratum, cluster) pairs, then strata per cluster."""
    pairs = pd.DataFrame({"s": strata, "c": clusters}).drop_duplicates()
    per_cluster = pairs.groupby("c", sort=False)["s"].nunique()
    return int(np.count_nonzero(per_cluster.to_numpy() > 1)), int(per_cluster.size)


def _note_counts(note: str | None) -> tuple[int, int]:
    if note is None:
        return 0, -1
    shared, _, rest = note.partition(" of the ")
    return int(shared.replace(",", "")), int(rest.split(" ", 1)[0].replace(",", ""))


@pytest.mark.parametrize(
    ("n_strata", "n_clusters", "nested"),
    [
        (12, 100, False),
        (5, 40, True),
        (3, 2_000, False),
        (400, 3_000, True),
        (400, 3_000, False),
        (1, 7, False),
    ],
)
def test_cluster_strata_note_counts_equal_the_reference(n_strata, n_clusters, nested):
    from core.population import cluster_strata_message, cluster_strata_note

    rng = np.random.default_rng(n_strata + n_clusters)
    n = 20_000
    clusters = rng.integers(0, n_clusters, n)
    strata = clusters % n_strata if nested else rng.integers(0, n_strata, n)
    pop = Population(
        name="p",
        values=np.arange(n, dtype=float),
        lower=0.0,
        upper=float(n),
        strata=[f"s{s}" for s in strata],
        clusters=clusters,
        stratum_label="region",
        cluster_label="psu",
    )
    shared, total = reference_shared_clusters(pop.strata, pop.clusters)
    note = cluster_strata_note(pop)
    assert note == cluster_strata_message(pop.strata, pop.clusters, "region", "psu")
    if shared:
        assert _note_counts(note) == (shared, total)
    else:
        assert note is None
