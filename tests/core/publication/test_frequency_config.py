"""The ``table: frequency`` config: each bad field is named; the page's config round-trips."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
import yaml

from core.publication.config import ConfigError, build_population, load_config
from core.publication.frequency import plan_frequency
from tests.batch.helpers import frequency_config_dict, write_config, write_population
from tests.conftest import ROOT
from ui.planner.frequency_text import frequency_config

_good = frequency_config_dict


def _write(folder: Path, cfg: dict) -> Path:
    return write_config(folder, cfg, "freq.yaml")


BAD = [
    ("rows", {"rows": None}),
    ("rows[0]", {"rows": ["regions"]}),
    ("rows", {"rows": ["strata", "strata"]}),
    ("column", {"column": "strata"}),
    ("kind", {"kind": "mode"}),
    ("mechanism", {"mechanism": "exponential"}),
    ("threshold", {"threshold": 0}),
    ("threshold", {"threshold": 50}),
    ("threshold", {"threshold": "half"}),
    ("rate", {"rate": 1.5}),
    ("rates[1]", {"rates": [0.2, 0]}),
    ("design", {"design": "lottery"}),
    ("designs", {"designs": ["lottery"]}),
    ("groups", {"groups": ["strata"]}),
    ("colour", {"colour": "blue"}),
    ("eps_target", {"eps_target": None}),
    ("eps_target", {"eps_target": -1}),
    ("table", {"table": "pivot"}),
    ("margins", {"margins": "columns"}),
    ("margin_share", {"margins": "rows", "margin_share": 0}),
    ("margin_share", {"margins": "rows", "margin_share": 1.5}),
    ("margin_share", {"margins": "rows", "margin_share": "a fifth"}),
    ("margin_share", {"margin_share": 0.2}),
    ("margins", {"margins": "rows", "round": True}),
    ("margins", {"margins": "rows", "column": None}),
    ("margins", {"margins": "rows", "eps_target": None, "rho_target": 0.5, "mechanism": None}),
]


@pytest.mark.parametrize("field, change", BAD)
def test_a_bad_frequency_config_names_its_field(tmp_path, field, change) -> None:
    with pytest.raises(ConfigError) as err:
        build_population(load_config(_write(tmp_path, _good(**change))))
    assert err.value.field == field, err.value


def test_a_table_with_too_many_cells_is_refused_in_words(tmp_path) -> None:
    cfg = _good(rows=["strata"], column="clusters", max_cells=4)
    with pytest.raises(
        ConfigError, match=r"rows: the table has 45 cells \(3 region × 15 district\)"
    ):
        build_population(load_config(_write(tmp_path, cfg)))


def test_the_example_config_loads_and_plans() -> None:
    config = load_config(ROOT / "assets" / "publication_example_frequency.yaml")
    assert config.frequency is not None and config.frequency.rows == ("clusters",)
    assert config.frequency.column == "strata"


def test_the_pages_config_round_trips(tmp_path) -> None:
    settings = {
        "rows": ["strata"],
        "column": "clusters",
        "kind": "count",
        "mechanism": "geometric",
        "eps_target": 0.8,
        "delta_target": 1e-6,
        "relation": "deletion",
        "labels_fixed": False,
        "designs": ["census", "poisson"],
        "rates": [0.2, 0.5],
        "design": "poisson",
        "rate": 0.5,
        "threshold": 0.3,
        "round_release": True,
    }
    write_population(tmp_path)
    population = {
        "file": "register.csv",
        "value_column": "wage",
        "lower": 0.0,
        "upper": 100.0,
        "strata_column": "region",
        "cluster_column": "district",
    }
    path = tmp_path / "page.yaml"
    path.write_text(yaml.safe_dump(frequency_config(population, settings)), encoding="utf-8")
    config = load_config(path)
    pop = build_population(config)
    got = plan_frequency(pop, **config.frequency_kwargs())
    keys = ("rows", "column", "kind", "mechanism", "relation", "labels_fixed", "designs")
    want = plan_frequency(
        pop,
        eps_target=0.8,
        delta_target=1e-6,
        threshold=0.3,
        rates=[0.2, 0.5],
        design="poisson",
        rate=0.5,
        round_release=True,
        **{k: settings[k] for k in keys},
    )
    pd.testing.assert_frame_equal(got.table, want.table)
    assert (got.design, got.rate) == ("poisson", 0.5)


RHO_BAD = [
    ("rho_target", {"rho_target": 0.5}),  # and eps_target: both stated
    ("eps_target", {"eps_target": None, "rho_target": None}),  # neither
    ("rho_target", {"eps_target": None, "rho_target": 0}),
    ("rho_target", {"eps_target": None, "rho_target": -0.5}),
    ("rho_target", {"eps_target": None, "rho_target": "half"}),
    ("mechanism", {"eps_target": None, "rho_target": 0.5, "mechanism": "laplace"}),
    ("delta_target", {"eps_target": None, "rho_target": 0.5, "delta_target": 1e-6}),
]


@pytest.mark.parametrize("field, change", RHO_BAD)
def test_a_bad_rho_promise_names_its_field_in_words(tmp_path, field, change) -> None:
    with pytest.raises(ConfigError) as err:
        load_config(_write(tmp_path, _good(**{"mechanism": None, **change})))
    assert err.value.field == field, err.value
    assert len(str(err.value)) > 30


def test_a_rho_promise_plans_the_census_with_the_discrete_gaussian(tmp_path) -> None:
    config = load_config(_write(tmp_path, _good(eps_target=None, mechanism=None, rho_target=0.5)))
    assert config.rho_target == 0.5 and config.frequency is not None
    assert config.frequency.mechanism == "discrete_gaussian"
    kwargs = config.frequency_kwargs()
    assert kwargs["rho_target"] == 0.5 and kwargs["eps_target"] is None
    plan = plan_frequency(build_population(config), **kwargs)
    assert plan.design == "census" and plan.settings["rho_target"] == 0.5
    assert set(plan.unavailable) == {"poisson"}


def test_the_pages_config_with_margins_round_trips(tmp_path) -> None:
    settings = {
        "rows": ["strata"],
        "column": "clusters",
        "kind": "total",
        "mechanism": "laplace",
        "eps_target": 1.0,
        "delta_target": 1e-6,
        "relation": "replacement",
        "labels_fixed": False,
        "designs": ["census", "poisson"],
        "rates": [0.2, 0.5],
        "threshold": 0.5,
        "margins": "rows",
        "margin_share": 0.25,
    }
    write_population(tmp_path)
    population = {
        "file": "register.csv",
        "value_column": "wage",
        "lower": 0.0,
        "upper": 100.0,
        "strata_column": "region",
        "cluster_column": "district",
    }
    written = frequency_config(population, settings)
    assert (written["margins"], written["margin_share"]) == ("rows", 0.25)
    path = tmp_path / "page.yaml"
    path.write_text(yaml.safe_dump(written), encoding="utf-8")
    config = load_config(path)
    assert config.frequency is not None and config.frequency.as_dict()["margin_share"] == 0.25
    got = plan_frequency(build_population(config), **config.frequency_kwargs())
    assert got.margins is not None and got.settings["margin_share"] == 0.25
    assert "margins" not in frequency_config(population, {**settings, "margins": "none"})
