"""Tests for core.file_io: one loader for CSV, Parquet, Stata, SAS and SPSS files."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest

from core import file_io
from core.csv_io import load_population_csv
from core.file_io import (
    FileTable,
    detect_format,
    load_population_file,
    read_file_table,
)
from core.population import Population
from tests.core.test_csv_io import nhanes_style_csv


def parquet_bytes(frame: pd.DataFrame) -> bytes:
    """A DataFrame as Parquet file bytes (no index column)."""
    out = io.BytesIO()
    frame.to_parquet(out, index=False)
    return out.getvalue()


def nhanes_frame() -> pd.DataFrame:
    """The NHANES-style extract of the CSV tests as a typed frame (blank values are NaN)."""
    return pd.read_csv(io.BytesIO(nhanes_style_csv()))


# --------------------------------------------------------------------------------------------
# CSV through the one entry
# --------------------------------------------------------------------------------------------


def test_csv_gives_the_csv_loaders_population_with_a_file_recipe():
    data = nhanes_style_csv()
    kwargs = dict(value_column="bmi", lower=10, upper=80, cluster_column=["stratid", "psuid"])
    pop = load_population_file(data, filename="nhanes.csv", **kwargs)
    ref = load_population_csv(data, **kwargs)
    np.testing.assert_array_equal(pop.values, ref.values)
    np.testing.assert_array_equal(pop.clusters, ref.clusters)
    assert pop.notes == ref.notes
    assert pop.recipe.startswith("load_population_file('nhanes.csv', value_column='bmi'")
    assert "cluster_column=['stratid', 'psuid']" in pop.recipe


def test_csv_read_from_a_path_keeps_its_name(tmp_path):
    path = tmp_path / "survey.csv"
    path.write_bytes(b"x,g\n3,a\n1,b\n2,a\n")
    table = read_file_table(path)
    assert table.numeric_columns == ["x"]
    pop = load_population_file(path)
    assert pop.recipe.startswith("load_population_file('survey.csv'")
    assert pop.name.startswith("x from survey.csv")


# --------------------------------------------------------------------------------------------
# Parquet
# --------------------------------------------------------------------------------------------


def test_parquet_equals_the_same_data_as_csv():
    frame = nhanes_frame()
    kwargs = dict(
        value_column="bmi", lower=10, upper=80, stratum_column="stratid", cluster_column="psuid"
    )
    pop = load_population_file(parquet_bytes(frame), filename="nhanes.parquet", **kwargs)
    ref = load_population_csv(nhanes_style_csv(), **kwargs)
    np.testing.assert_array_equal(pop.values, ref.values)
    np.testing.assert_array_equal(pop.strata, ref.strata)  # "3", not "3.0"
    np.testing.assert_array_equal(pop.clusters, ref.clusters)
    assert pop.notes == ref.notes  # 90 blank values dropped, 1 clipped, the shared-PSU note
    assert pop.recipe == (
        "load_population_file('nhanes.parquet', value_column='bmi', lower=10.0, upper=80.0, "
        "stratum_column='stratid', cluster_column='psuid')"
    )


def test_parquet_table_lists_columns_and_reads_only_the_chosen_ones():
    frame = pd.DataFrame(
        {
            "income": [10.0, 20.0, np.nan, 40.0, 1e9],
            "region": ["N", "S", "N", None, "S"],
            "size": pd.array([1, 2, 2, 1, None], dtype="Int64"),
            "when": pd.to_datetime(["2020-01-01"] * 5),
        }
    )
    data = parquet_bytes(frame)
    table = read_file_table(data, filename="reg.parquet")
    assert isinstance(table, FileTable) and table.format_name == "Parquet"
    assert table.numeric_columns == ["income", "size"]
    assert table.label_columns == ["income", "region", "size"]  # "when" has one value
    only = read_file_table(data, filename="reg.parquet", columns=["income"])
    assert list(only.frame.columns) == ["income"]
    pop = load_population_file(
        data,
        filename="reg.parquet",
        value_column="income",
        lower=0,
        upper=100,
        stratum_column="region",
        cluster_column="size",
    )
    np.testing.assert_array_equal(pop.values, [10.0, 20.0, 40.0, 100.0])
    assert pop.strata.tolist() == ["N", "S", "(missing)", "S"]
    assert pop.clusters.tolist() == ["1", "2", "1", "(missing)"]
    assert any("Dropped 1 row" in n for n in pop.notes)
    assert any("Clipped 1 value" in n for n in pop.notes)


def test_parquet_text_numbers_use_the_csv_conversion():
    frame = pd.DataFrame({"amount": ["1,234", "17", "n/a", "", "12,345.5"]})
    pop = load_population_file(parquet_bytes(frame), filename="a.parquet")
    np.testing.assert_array_equal(pop.values, [17.0, 1234.0, 12345.5])
    assert any("Dropped 2 rows" in n for n in pop.notes)


def test_parquet_nested_column_is_left_out_with_a_reason():
    frame = pd.DataFrame({"x": [1.0, 2.0, 3.0], "s": [{"a": 1}, {"a": 2}, {"a": 3}]})
    data = parquet_bytes(frame)
    table = read_file_table(data, filename="n.parquet")
    assert list(table.frame.columns) == ["x"]
    assert any("'s' holds nested values" in n for n in table.notes)
    with pytest.raises(ValueError, match="'s' holds nested values"):
        load_population_file(data, filename="n.parquet", value_column="x", stratum_column="s")
    with pytest.raises(ValueError, match="'s' holds nested values"):
        load_population_file(data, filename="n.parquet", value_column="s")
    assert load_population_file(data, filename="n.parquet").size == 3


def test_unknown_column_names_every_column_of_the_file():
    data = parquet_bytes(pd.DataFrame({"x": [1.0, 2.0, 3.0], "g": ["a", "b", "c"]}))
    with pytest.raises(ValueError, match=r"no column named 'y'.*'x', 'g'"):
        load_population_file(data, filename="a.parquet", value_column="y")


# --------------------------------------------------------------------------------------------
# Format detection
# --------------------------------------------------------------------------------------------


def test_detect_format_from_first_bytes():
    assert detect_format(b"PAR1\x15\x04") == "parquet"
    assert detect_format(b"$FL2@(#) SPSS") == "spss"
    assert detect_format(b"$FL3@(#) SPSS") == "spss"
    assert detect_format(b"<stata_dta><header>") == "stata"
    assert detect_format(bytes([114, 2, 1, 0])) == "stata"
    assert detect_format(b"HEADER RECORD*******LIBRARY HEADER RECORD!!!!!!!") == "xport"
    assert detect_format(file_io._SAS7BDAT_MAGIC + bytes(32)) == "sas7bdat"
    assert detect_format(b"x,y\n1,2\n") is None
    assert detect_format(b"") is None


def test_wrong_extension_says_what_the_file_is():
    data = parquet_bytes(pd.DataFrame({"x": [1.0, 2.0, 3.0]}))
    with pytest.raises(ValueError, match="This file is a Parquet file, not CSV"):
        load_population_file(data, filename="x.csv")
    with pytest.raises(ValueError, match="says Parquet, but its content is text"):
        load_population_file(b"x\n1\n2\n3\n", filename="x.parquet")


def test_parquet_without_a_name_is_recognised_by_content():
    data = parquet_bytes(pd.DataFrame({"x": [3.0, 1.0, 2.0]}))
    pop = load_population_file(data)
    assert isinstance(pop, Population)
    assert pop.recipe.startswith("load_population_file('population.parquet'")


def test_truncated_parquet_is_refused():
    data = parquet_bytes(pd.DataFrame({"x": [1.0, 2.0, 3.0]}))
    with pytest.raises(ValueError, match="truncated"):
        load_population_file(data[: len(data) // 2], filename="x.parquet")


def test_parquet_row_and_column_limits(monkeypatch):
    data = parquet_bytes(pd.DataFrame({"x": np.arange(10.0), "y": np.arange(10.0)}))
    monkeypatch.setattr(file_io, "MAX_ROWS", 9)
    with pytest.raises(ValueError, match="10 rows; the limit is 9 data rows"):
        load_population_file(data, filename="x.parquet")
    monkeypatch.setattr(file_io, "MAX_ROWS", 10)
    monkeypatch.setattr(file_io, "MAX_COLUMNS", 1)
    with pytest.raises(ValueError, match="2 columns; the limit is 1"):
        load_population_file(data, filename="x.parquet")


def test_bad_filename_argument():
    with pytest.raises(ValueError, match="filename must be a file name"):
        load_population_file(b"x\n1\n2\n3\n", filename=3)  # type: ignore[arg-type]
