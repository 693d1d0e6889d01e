"""The default value column of an upload (core.value_column): never an id or a label."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as hs

from core.populations import read_file_table
from core.value_column import choose_value_column, column_role
from tests.core import bad_file_corpus
from tests.core.csv_io.test_loading import nhanes_style_csv

MEASURE = np.array([27.5, 31.2, 22.0, 27.5, 40.1])


@pytest.mark.parametrize(
    ("name", "values", "labels", "role"),
    [
        ("seqn", MEASURE, False, "identifier"),
        ("respid", MEASURE, False, "identifier"),
        ("HouseholdID", MEASURE, False, "identifier"),
        ("stratid", MEASURE, False, "sampling-design"),
        ("sdmvstra", MEASURE, False, "sampling-design"),
        ("psuid", MEASURE, False, "sampling-design"),
        ("cluster", MEASURE, False, "sampling-design"),
        ("wtmec2yr", MEASURE, False, "sampling-design"),
        ("size_class", MEASURE, False, "code"),
        ("region", np.array([1.0, 2.0, 3.0, 1.0]), True, "value labels"),
        ("x", np.array([3.0, 1.0, 2.0, 5.0, 4.0]), False, "1 to 5, each once"),
        ("x", np.array([101.0, 102.0, 103.0, np.nan]), False, "101 to 103"),
        ("smoker", np.array([0.0, 1.0, 1.0, 0.0]), False, "flag"),
    ],
)
def test_ids_and_labels_are_recognised(name, values, labels, role):
    found = column_role(name, values, has_value_labels=labels)
    assert found is not None and role in found


@pytest.mark.parametrize(
    ("name", "values"),
    [
        ("bmi", MEASURE),
        ("fluid_intake", MEASURE),
        ("children", np.array([0.0, 2.0, 1.0, 0.0, 3.0, 2.0])),  # a count, not a code
        ("income", np.array([1.0, 2.0, 4.0])),  # distinct whole numbers, not consecutive
        ("employees", np.array([1.0, 1.0, 1.0, 5.0, 12.0])),
    ],
)
def test_measurements_are_not_flagged(name, values):
    assert column_role(name, values) is None


@given(hs.permutations(list(range(1, 30))))
def test_any_order_of_one_to_n_is_an_identifier(order):
    assert "identifier" in (column_role("v", np.array(order, dtype=float)) or "")


def test_survey_extract_defaults_to_its_measurement():
    table = read_file_table(io.BytesIO(nhanes_style_csv()), filename="nhanes.csv")
    choice = choose_value_column(table.numeric_columns, table.column_values)
    assert table.numeric_columns[:3] == ["seqn", "stratid", "psuid"]
    assert choice.column == "bmi"
    assert [c for c, _why in choice.skipped] == ["seqn", "stratid", "psuid"]
    assert "'stratid', a sampling-design column" in choice.reason


def test_labelled_stata_file_and_the_sample_register():
    name, data = bad_file_corpus.build_file_corpus()["stata_labelled"]
    table = read_file_table(io.BytesIO(data), filename=name)
    # The labelled code column first: the measurement is still chosen.
    columns = ["region", *table.numeric_columns]
    choice = choose_value_column(columns, table.column_values, labelled=table.value_labels)
    assert choice.column == "income" and choice.skipped[0][0] == "region"
    assert "value labels" in choice.skipped[0][1]
    register = read_file_table("assets/establishments.csv")
    assert choose_value_column(register.numeric_columns, register.column_values).column == (
        "employees"
    )


def test_only_ids_falls_back_to_the_first_column_and_says_so():
    ids = {"id": np.arange(1.0, 6.0), "psu": np.array([1.0, 1.0, 2.0, 2.0, 3.0])}
    choice = choose_value_column(list(ids), ids.__getitem__)
    assert choice.column == "id" and "choose the column" in choice.reason
    with pytest.raises(ValueError, match="columns"):
        choose_value_column([], ids.__getitem__)


@pytest.mark.parametrize("fmt", ["stata", "spss"])
def test_labelled_health_survey_defaults_to_its_measurement(fmt):
    """A health survey as Stata or SPSS: respondent number, a labelled stratum, the PSU, a
    0/1 answer, then the measurement (the issue's file defaulted to ``stratid``)."""
    frame = pd.read_csv(io.BytesIO(nhanes_style_csv(n_strata=4, psus=2, per_psu=5)))
    frame.insert(3, "smoker", (frame["seqn"] % 3 == 0).astype(float))
    labels = {"stratid": {float(s): f"Region {s}" for s in range(1, 5)}}
    name = f"health.{bad_file_corpus.EXTENSIONS[fmt]}"
    table = read_file_table(io.BytesIO(bad_file_corpus._write(fmt, frame, labels)), filename=name)
    assert table.numeric_columns == ["seqn", "stratid", "psuid", "smoker", "bmi"]
    choice = choose_value_column(
        table.numeric_columns, table.column_values, labelled=table.value_labels
    )
    assert choice.column == "bmi"
    assert dict(choice.skipped)["stratid"].startswith("a coded label column")
    assert "flag" in dict(choice.skipped)["smoker"]
