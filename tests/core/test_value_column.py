"""The default value column of an upload (core.value_column): never an id or a label."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as hs

from core.populations import read_file_table
from core.value_column import choose_value_column, column_role, group_column_role, group_columns
from tests import survey_file
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


# --------------------------------------------------------------------------------------
# Stratum and cluster columns: only columns that label groups; design names pre-selected
# (issue 35 §6: the form offered a continuous weight and pre-selected nothing).
# --------------------------------------------------------------------------------------


def _entries(column: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    distinct, counts = np.unique(column, return_counts=True)
    return distinct, counts


def _group_role(name: str, column, labels: bool = False) -> tuple[bool, str]:
    return group_column_role(name, *_entries(np.asarray(column, float)), has_value_labels=labels)


@pytest.mark.parametrize(
    ("name", "column", "labels", "offered", "why"),
    [
        ("finalwgt", np.repeat([1200.0, 3400.0], 50), False, False, "weight"),
        ("wtmec2yr", np.repeat([1.0, 2.0], 50), False, False, "weight"),
        ("respid", np.arange(100.0), False, False, "identifier"),
        ("x", np.arange(100.0), False, False, "identifier"),
        ("stratid", np.repeat(np.arange(31.0), 3), False, True, "by its name"),
        ("psuid", np.tile([1.0, 2.0], 50), False, True, "by its name"),
        ("sdmvstra", np.repeat(np.arange(40.0), 3), False, True, "by its name"),
        ("region", np.tile([1.0, 2.0, 3.0, 4.0], 25), True, True, "value labels"),
        ("county", np.repeat(np.arange(60.0), 3), True, True, "value labels"),
        ("hhid", np.repeat(np.arange(40.0), 3), False, True, "group code"),
        ("size_class", np.repeat(np.arange(30.0), 3), False, True, "group code"),
        ("race", np.tile([1.0, 2.0, 3.0], 34), False, True, "code with 3 values"),
        ("smoker", np.tile([0.0, 1.0], 50), False, True, "code with 2 values"),
        ("age", np.repeat(np.arange(20.0, 75.0), 3), False, False, "55 different whole"),
        ("bmi", np.repeat([21.5, 27.25, 30.0], 30), False, False, "decimals"),
        ("constant", np.ones(10), False, False, "single value"),
    ],
)
def test_group_columns_are_label_like(name, column, labels, offered, why):
    got, reason = _group_role(name, column, labels)
    assert got is offered and why in reason, reason


def test_text_columns_label_groups_unless_nearly_every_row_differs():
    text = np.full(100, np.nan)  # text entries read as NaN numbers
    assert group_column_role("area", np.full(5, np.nan), np.full(5, 20)) == (
        True,
        "text with 5 different values",
    )
    assert not group_column_role("comment", text, np.ones(100, dtype=int))[0]
    with pytest.raises(ValueError, match="counts"):
        group_column_role("area", np.full(2, np.nan), np.array([1, 0]))
    with pytest.raises(ValueError, match="counts"):
        group_column_role("area", np.full(2, np.nan), np.array([1]))


def test_the_health_survey_offers_its_labels_and_preselects_its_design():
    """The labelled Stata survey of issue 35: region, sex, race, highbp, stratid and psuid
    offered; the weight, the identifier and the measurements left out; stratid the strata
    and stratid × psuid the clusters."""
    table = read_file_table(io.BytesIO(survey_file.survey_bytes()), filename=survey_file.FILENAME)
    groups = group_columns(
        list(table.frame.columns),
        table.distinct_entries,
        labelled=table.value_labels,
        value_column=survey_file.VALUE,
    )
    assert groups.offered == ("region", "sex", "race", "highbp", "stratid", "psuid")
    why = dict(groups.left_out)
    assert set(why) == {"sampl", "age", "finalwgt"}
    assert "weight" in why["finalwgt"] and "identifier" in why["sampl"]
    assert groups.stratum == (survey_file.STRATUM,)
    assert groups.cluster == survey_file.CLUSTER
    assert groups.preselected == ("stratid", "psuid")
    # The value column is never offered; another value column frees zinc... as a measurement.
    other = group_columns(
        list(table.frame.columns), table.distinct_entries, labelled=table.value_labels
    )
    assert "zinc" in dict(other.left_out) and "measurement" in dict(other.left_out)["zinc"]


def test_no_design_names_no_preselection_and_a_psu_alone_is_the_cluster():
    entries = {
        "region": (np.array([1.0, 2.0]), np.array([5, 5])),
        "psu": (np.array([1.0, 2.0, 3.0]), np.array([4, 3, 3])),
    }
    plain = group_columns(["region"], entries.__getitem__)
    assert plain.offered == ("region",) and plain.stratum == plain.cluster == ()
    psu = group_columns(["region", "psu"], entries.__getitem__)
    assert psu.stratum == () and psu.cluster == ("psu",)


def test_csv_and_file_tables_count_distinct_entries_alike():
    """``distinct_entries`` of a CSV and of a Stata table give the same groups."""
    csv = read_file_table(io.BytesIO(nhanes_style_csv()), filename="nhanes.csv")
    groups = group_columns(csv.label_columns, csv.distinct_entries, value_column="bmi")
    assert groups.stratum == ("stratid",) and groups.cluster == ("stratid", "psuid")
    assert "seqn" not in groups.offered
    numbers, counts = csv.distinct_entries("stratid")
    assert counts.sum() == len(csv.frame) and np.all(np.isfinite(numbers))
