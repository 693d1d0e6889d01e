"""The publication config (core.publication.config): each bad field is named, a good one loads.

The batch (``python -m batch``, tests/batch/test_cli.py) and the planner's exported
``plan_publication.py`` read the config here; these tests call it directly.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from core.publication.config import ConfigError, build_population, load_config
from tests.batch.helpers import config_dict, write_config
from tests.conftest import ROOT


def _population(**kw: object) -> dict:
    pop = config_dict()["population"]
    pop.update(kw)
    return pop


#: (the field the error names, the change to a good config); some fail reading the file,
#: others only building the population from it.
BAD = [
    ("population.builtin", {"population": {"builtin": "unicorns", "seed": 1}}),
    ("population.value_column", {"population": _population(value_column="salary")}),
    ("population.strata_column", {"population": _population(strata_column="county")}),
    ("population.upper", {"population": _population(upper="high")}),
    ("population.file", {"population": _population(file="missing.csv")}),
    ("eps_target", {"eps_target": 0}),
    ("eps_target", {"eps_target": -1.5}),
    ("delta_target", {"delta_target": 1.0}),
    ("relation", {"relation": "swap"}),
    ("sizes_public", {"sizes_public": "yes"}),
    ("designs", {"designs": ["lottery"]}),
    ("statistics[1]", {"statistics": ["median", "mode"]}),
    ("T", {"T": 1}),
    ("groups", {"groups": ["clusters"], "max_cells": 4}),
    ("groups", {"groups": ["regions"]}),
    ("colour", {"colour": "blue"}),
    ("error_weights", {"error_weights": [1, 2]}),
    ("error_weights[1]", {"split": "optimal", "error_weights": [1, -2]}),
    ("error_weights", {"split": "optimal", "error_weights": [1]}),
]


def _error(path: Path) -> ConfigError:
    with pytest.raises(ConfigError) as caught:
        build_population(load_config(path))
    return caught.value


@pytest.mark.parametrize(("field", "change"), BAD, ids=[f for f, _ in BAD])
def test_a_bad_config_names_its_field(tmp_path, field, change) -> None:
    error = _error(write_config(tmp_path, config_dict(**change)))
    assert error.field == field
    assert str(error) == f"{field}: {error.message}"
    assert isinstance(error, ValueError)


@pytest.mark.parametrize("key", ["population", "groups", "statistics", "eps_target"])
def test_a_missing_key_is_named(tmp_path, key) -> None:
    cfg = config_dict()
    del cfg[key]
    error = _error(write_config(tmp_path, cfg))
    assert (error.field, error.message) == (key, "missing (required)")


def test_unreadable_yaml_and_a_missing_file_name_the_config(tmp_path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("eps_target: [1, 2\n", encoding="utf-8")
    for path in (bad, tmp_path / "nope.yaml"):
        error = _error(path)
        assert error.field == "config" and path.name in error.message


def test_a_good_config_builds_the_population(tmp_path) -> None:
    cfg = load_config(write_config(tmp_path, config_dict(statistics=["median", {"quantile": 0.9}])))
    pop = build_population(cfg)
    assert pop.size == 150 and set(pop.strata) == {"north", "south", "west"}
    assert cfg.name == "tiny table" and cfg.base_dir == tmp_path.resolve()
    kw = cfg.plan_kwargs()
    assert kw["reps"] == 10 and kw["statistics"][1] == {"quantile": 0.9}
    assert kw["error_weights"] is None
    assert kw["sizes_public"] is False  # the sound default: cell sizes are not public
    public = load_config(write_config(tmp_path, config_dict(sizes_public=True)))
    assert public.plan_kwargs()["sizes_public"] is True
    weighted = config_dict(split="optimal", error_weights=[2, 1])
    assert load_config(write_config(tmp_path, weighted)).plan_kwargs()["error_weights"] == [2, 1]


def test_the_example_config_loads() -> None:
    cfg = load_config(ROOT / "assets" / "publication_example.yaml")
    assert cfg.population["builtin"] == "establishments" and cfg.groups == ("strata",)
    assert cfg.sizes_public is False
