"""Tests for core.builtins: the built-in populations of the papers."""

from __future__ import annotations

import numpy as np
import pytest

from core.builtins import BUILTIN_POPULATIONS, ESTABLISHMENT_SIZE_CLASSES, make_builtin
from core.population import Population

KEYS = list(BUILTIN_POPULATIONS)
SEEDED_KEYS = [k for k in KEYS if k != "bimodal_paper"]  # the paper's draw ignores the seed


# --------------------------------------------------------------------------------------------
# Built-in populations
# --------------------------------------------------------------------------------------------


def test_builtin_keys_in_display_order():
    assert KEYS == [
        "lognormal", "lognormal_rounded", "beta", "bimodal", "bimodal_paper", "establishments",
    ]  # fmt: skip
    assert all(isinstance(v, str) and v for v in BUILTIN_POPULATIONS.values())


@pytest.mark.parametrize("key", SEEDED_KEYS)
def test_builtin_is_deterministic_per_seed(key):
    a, b = make_builtin(key, seed=3), make_builtin(key, seed=3)
    np.testing.assert_array_equal(a.values, b.values)
    assert a.content_hash == b.content_hash
    c = make_builtin(key, seed=4)
    assert c.content_hash != a.content_hash


@pytest.mark.parametrize(
    ("key", "size"),
    [
        ("lognormal", 10_001),
        ("lognormal_rounded", 10_001),
        ("beta", 10_001),
        ("bimodal", 10_001),
        ("establishments", 100_000),
    ],
)
def test_builtin_default_size_sorted_within_bounds_read_only(key, size):
    pop = make_builtin(key)
    assert pop.size == size == pop.values.size
    assert pop.values.dtype == np.float64
    assert np.all(np.diff(pop.values) >= 0)
    assert pop.lower <= pop.values[0] and pop.values[-1] <= pop.upper
    assert not pop.values.flags.writeable
    with pytest.raises(ValueError):
        pop.values[0] = 1.0
    assert pop.name and pop.notes
    assert f"{size:,}" in pop.name


@pytest.mark.parametrize("key", KEYS)
@pytest.mark.parametrize("size", [3, 4, 101])
def test_builtin_custom_sizes(key, size):
    pop = make_builtin(key, seed=1, size=size)
    assert pop.size == size
    assert pop.lower <= pop.values[0] <= pop.values[-1] <= pop.upper


@pytest.mark.parametrize(
    ("kwargs", "fragment"),
    [
        ({"key": "normal"}, "Unknown built-in"),
        ({"key": "lognormal", "size": 2}, "size"),
        ({"key": "lognormal", "size": 100_000_001}, "size"),
        ({"key": "lognormal", "size": 10.5}, "whole number"),
        ({"key": "lognormal", "size": True}, "whole number"),
        ({"key": "lognormal", "seed": -1}, "seed"),
        ({"key": "lognormal", "seed": "x"}, "whole number"),
    ],
)
def test_builtin_rejects_bad_arguments(kwargs, fragment):
    key = kwargs.pop("key")
    with pytest.raises(ValueError, match=fragment):
        make_builtin(key, **kwargs)


def test_lognormal_bounds_and_centre():
    pop = make_builtin("lognormal")
    assert (pop.lower, pop.upper) == (0.0, 2000.0)
    assert 140 < np.median(pop.values) < 157  # e^5 = 148.4
    assert pop.values[-1] < 2000.0


def test_lognormal_top_codes_rare_large_draws():
    pop = make_builtin("lognormal", seed=0, size=3_000_000)
    assert pop.values[-1] <= 2000.0
    n_top = int(np.count_nonzero(pop.values == 2000.0))
    if n_top:
        assert any("top-coded" in n for n in pop.notes)


@pytest.mark.parametrize("seed", [0, 7])
def test_lognormal_rounded_is_the_lognormal_in_round_figures(seed):
    """Issue 23: the same draws rounded to multiples of 10, so many records are tied."""
    from core.builtins import ROUNDING_STEP

    base, pop = make_builtin("lognormal", seed=seed), make_builtin("lognormal_rounded", seed=seed)
    assert (pop.lower, pop.upper) == (base.lower, base.upper) == (0.0, 2000.0)
    np.testing.assert_array_equal(pop.values, np.round(base.values / 10.0) * 10.0)
    assert ROUNDING_STEP == 10.0 and np.all(pop.values % 10.0 == 0.0)
    assert np.abs(pop.values - base.values).max() <= 5.0
    median = pop.values[(pop.size + 1) // 2 - 1]
    share = np.mean(pop.values == median)
    assert 0.03 < share < 0.08  # about 5 % of the records share the median's value
    assert np.unique(pop.values).size < 100
    assert pop.content_hash != base.content_hash
    assert "rounded" in pop.name and pop.recipe == f"make_builtin('lognormal_rounded', seed={seed})"


def test_beta_bounds_and_mean():
    pop = make_builtin("beta")
    assert (pop.lower, pop.upper) == (0.0, 1.0)
    assert abs(pop.values.mean() - 2 / 12) < 0.005


def _gap_at_median(pop: Population) -> tuple[float, float]:
    m = (pop.size - 1) // 2
    return float(pop.values[m]), float(pop.values[m + 1] - pop.values[m])


@pytest.mark.parametrize("seed", range(6))
def test_bimodal_median_tops_first_component_next_to_gap(seed):
    pop = make_builtin("bimodal", seed=seed)
    assert (pop.lower, pop.upper) == (0.0, 1.0)
    assert pop.values[0] == 0.0 and pop.values[-1] == 1.0
    median, gap = _gap_at_median(pop)
    assert median == np.median(pop.values)
    # Before rescaling the components live in [0, 0.5] and [1, 2]: a gap of at least 0.25.
    assert gap > 0.25
    assert np.count_nonzero(pop.values <= median) == (pop.size + 1) // 2
    assert 0.15 < median < 0.27


def test_bimodal_even_size_keeps_median_in_gap():
    pop = make_builtin("bimodal", seed=0, size=10)
    first_top = pop.values[4]
    assert pop.values[5] - first_top > 0.25
    assert np.median(pop.values) > first_top


def test_establishments_structure():
    pop = make_builtin("establishments")
    v = pop.values
    assert pop.value_label == "employees"
    assert (pop.lower, pop.upper) == (0.0, 10_000.0)
    assert v.max() == 10_000.0 and v.min() >= 1.0
    np.testing.assert_array_equal(v, np.round(v))
    labels = [c[0] for c in ESTABLISHMENT_SIZE_CLASSES]
    assert len(labels) == 12
    assert set(pop.strata.tolist()) == set(labels)
    for label, lo, hi in ESTABLISHMENT_SIZE_CLASSES:
        sel = v[pop.strata == label]
        assert sel.size > 0 and sel.min() >= lo and sel.max() <= hi
    regions, counts = np.unique(pop.clusters, return_counts=True)
    assert 95 <= regions.size <= 100
    assert counts.max() / counts.min() > 5  # heterogeneous region sizes
    assert pop.stratum_label == "size_class" and pop.cluster_label == "region"
    # Heavy right tail: most establishments are tiny, a few are huge.
    assert np.median(v) <= 5 and np.count_nonzero(v >= 1000) >= 50


def test_establishments_small_and_large_sizes():
    small = make_builtin("establishments", size=3)
    assert small.size == 3 and small.strata.size == 3 and small.clusters.size == 3
    big = make_builtin("establishments", size=1_000_000)
    assert len(np.unique(big.strata)) == 12 and len(np.unique(big.clusters)) == 100
