"""The publication config (core.publication.config): each bad field is named, a good one loads.

The batch (``python -m batch``, tests/batch/test_cli.py) and the planner's exported
``plan_publication.py`` read the config here; these tests call it directly.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from core.accounting.zcdp import eps_target_for_rho
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
    # Issue 35 §5: a label field is a column name or a list of them; anything else is named.
    ("population.cluster_column", {"population": _population(cluster_column=7)}),
    ("population.cluster_column", {"population": _population(cluster_column=[])}),
    ("population.cluster_column[1]", {"population": _population(cluster_column=["r", 3])}),
    ("population.cluster_column", {"population": _population(cluster_column={"a": 1})}),
    ("population.strata_column", {"population": _population(strata_column=["region"] * 2)}),
    ("population.strata_column", {"population": _population(strata_column=["region", "x"])}),
    ("population.value_column", {"population": _population(value_column=["wage"])}),
    ("population.file", {"population": _population(file="missing.csv")}),
    ("eps_target", {"eps_target": 0}),
    ("eps_target", {"eps_target": -1.5}),
    ("rho_target", {"eps_target": None, "rho_target": 0}),
    ("rho_target", {"eps_target": None, "rho_target": -0.5}),
    ("rho_target", {"eps_target": None, "rho_target": "half"}),
    ("eps_target", {"rho_target": 0.5}),  # both stated
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


@pytest.mark.parametrize("key", ["population", "groups", "statistics"])
def test_a_missing_key_is_named(tmp_path, key) -> None:
    cfg = config_dict()
    del cfg[key]
    error = _error(write_config(tmp_path, cfg))
    assert (error.field, error.message) == (key, "missing (required)")


def test_the_promise_is_stated_once(tmp_path) -> None:
    cfg = config_dict()
    del cfg["eps_target"]
    error = _error(write_config(tmp_path, cfg))
    assert error.field == "eps_target" and "got neither" in error.message
    error = _error(write_config(tmp_path, config_dict(rho_target=0.5)))
    assert "got eps_target and rho_target" in error.message


def test_a_zcdp_promise_loads_converted(tmp_path) -> None:
    cfg = load_config(write_config(tmp_path, config_dict(eps_target=None, rho_target=0.5)))
    assert cfg.rho_target == 0.5
    assert cfg.eps_target == pytest.approx(eps_target_for_rho(0.5), rel=1e-15)
    kw = cfg.plan_kwargs()
    assert kw["rho_target"] == 0.5 and "eps_target" not in kw
    pure = load_config(write_config(tmp_path, config_dict()))
    assert pure.rho_target is None and "rho_target" not in pure.plan_kwargs()


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


@pytest.mark.parametrize("key", ["strata_column", "cluster_column"])
def test_every_label_field_takes_a_list_of_columns(tmp_path, key) -> None:
    """Issue 35 §5: ``cluster_column: [stratid, psuid]``, which the page writes for a survey's
    PSUs numbered within strata, made the batch stop with a TypeError traceback."""
    cfg = config_dict(population=_population(**{key: ["region", "district"]}))
    pop = build_population(load_config(write_config(tmp_path, cfg)))
    labels = pop.strata if key == "strata_column" else pop.clusters
    assert labels is not None and "north / n0" in set(labels)
    assert (pop.stratum_label if key == "strata_column" else pop.cluster_label) == (
        "region × district"
    )
    one = config_dict(population=_population(**{key: ["region"]}))
    again = build_population(load_config(write_config(tmp_path, one, "one.yaml")))
    plain = build_population(load_config(write_config(tmp_path, config_dict(), "plain.yaml")))
    if key == "strata_column":
        assert list(again.strata) == list(plain.strata)


def test_bounds_that_clip_many_values_are_reported(tmp_path) -> None:
    """Issue 35 §5: a placeholder's bounds [0, 1] clipped every wage without a word."""
    from core.publication.records import input_warnings, report_html, summary

    tight = config_dict(population=_population(lower=0, upper=1))
    pop = build_population(load_config(write_config(tmp_path, tight)))
    (warning,) = input_warnings(pop)
    assert "clipped 150 of the 150 values of 'wage'" in warning and "100.0%" in warning
    good = build_population(load_config(write_config(tmp_path, config_dict(), "good.yaml")))
    assert input_warnings(good) == []
    read = good.file_settings
    assert read is not None and (read.rows_read, read.rows_dropped, read.values_clipped) == (
        150,
        0,
        0,
    )
    from core.publication import plan_table

    tp = plan_table(pop, ["strata"], ["median"], 1.0, designs=["poisson"], reps=2, seed=0)
    record = summary(tp, pop, name="t", T=2, seed=0)
    assert record["warnings"] == [warning]
    assert record["population"]["read_from_file"]["values_clipped"] == 150
    page = report_html(tp, pop, name="t", eps_target=1.0, relation="replacement", publish_share=0.1)
    assert "Read from register.csv: value column wage, public bounds [0, 1]; strata: region" in page
    assert "150 values clipped to the bounds (0 below, 150 above)" in page
    assert "<strong>Warning:</strong> the bounds [0, 1] clipped 150" in page


def test_a_file_without_a_public_upper_bound_is_written_as_inf(tmp_path) -> None:
    """The page writes ``upper: .inf`` for an upload without a public upper bound."""
    path = write_config(tmp_path, config_dict(population=_population(upper=float("inf"))))
    assert "upper: .inf" in path.read_text(encoding="utf-8")
    pop = build_population(load_config(path))
    assert pop.upper == float("inf") and not pop.has_upper_bound
