"""The category column travels with every export that repeats how a file was read.

The publication config (``category_column``), its summary record and HTML report, the
planner's config entry, the method report's data rows, the server's command line
(``--category``) and the population's recipe all repeat it; a population without one keeps
its exports as they were.
"""

from __future__ import annotations

import pytest

from core.publication.config import ConfigError, build_population, load_config
from core.publication.records import input_record
from tests.batch.helpers import config_dict, write_config
from tests.populations import write_register
from tests.ui.test_command_line import call_recipe
from ui import command_line as cl
from ui.planner.exports.report import _data_rows
from ui.planner.publication_text import population_entry


def _config(**population) -> dict:
    cfg = config_dict()
    cfg["population"].update(population)
    return cfg


def test_the_config_reads_a_category_column(tmp_path):
    pop = build_population(load_config(write_config(tmp_path, _config(category_column="region"))))
    assert pop.categories is not None and pop.category_label == "region"
    assert pop.file_settings.category_column == ("region",)
    assert input_record(pop)["category_columns"] == ["region"]
    entry = population_entry(pop, "uploaded", 0)
    assert entry["category_column"] == "region"
    # The entry written back is a config that reads the same population.
    again = _config(**{k: v for k, v in entry.items() if k != "file"})
    rebuilt = build_population(load_config(write_config(tmp_path, again, "again.yaml")))
    assert rebuilt.content_hash == pop.content_hash
    rows = dict(_data_rows(pop, uploaded=True))
    assert "region" in rows["Category column"]


def test_without_a_category_column_the_exports_are_unchanged(tmp_path):
    pop = build_population(load_config(write_config(tmp_path, config_dict())))
    assert pop.categories is None
    assert "category_columns" not in input_record(pop)
    assert "category_column" not in population_entry(pop, "uploaded", 0)
    assert "Category column" not in dict(_data_rows(pop, uploaded=True))


@pytest.mark.parametrize(
    ("value", "field"),
    [("county", "population.category_column"), (7, "population.category_column")],
)
def test_a_bad_category_column_names_its_field(tmp_path, value, field):
    with pytest.raises(ConfigError) as err:
        build_population(load_config(write_config(tmp_path, _config(category_column=value))))
    assert err.value.field == field


def test_the_category_column_cannot_be_the_value_column(tmp_path):
    with pytest.raises(ConfigError, match="cannot also be the category column"):
        build_population(load_config(write_config(tmp_path, _config(category_column="wage"))))


def test_the_command_line_takes_a_category_column(tmp_path):
    path = write_register(tmp_path / "register.csv")
    settings = cl.parse_command_line(
        ["--population", str(path), "--value", "income", "--upper", "1e7", "--category", "region"]
    )
    assert settings.category_columns == ("region",)
    pop = cl.read_command_line_population(settings).population
    assert pop is not None and pop.category_label == "region"
    assert len(pop.label_codes("categories")[1]) == 4
    assert "category_column='region'" in pop.recipe
    assert call_recipe(pop.recipe).content_hash == pop.content_hash
    with pytest.raises(ValueError, match="--category needs a column name"):
        cl.parse_command_line(["--population", str(path), "--category", " "])
