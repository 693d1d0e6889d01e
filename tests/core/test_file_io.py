"""Tests for core.file_io: one loader for CSV, Parquet, Stata, SAS and SPSS files."""

from __future__ import annotations

import functools
import io
import tempfile
from pathlib import Path

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
from tests.core import bad_file_corpus
from tests.core.bad_file_corpus import (
    EXPECTED_ERRORS,
    EXPECTED_LABELS,
    EXPECTED_OUTCOMES,
    EXPECTED_SUMMARIES,
    PAGE_SAMPLE,
    build_file_corpus,
)
from tests.core.csv_io.test_loading import nhanes_style_csv


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


# --------------------------------------------------------------------------------------------
# The bad-file corpus of every format
# --------------------------------------------------------------------------------------------


@functools.cache
def _file_corpus() -> dict[str, tuple[str, bytes]]:
    return build_file_corpus()


def test_file_corpus_is_complete():
    corpus = _file_corpus()
    assert set(corpus) == set(EXPECTED_OUTCOMES)
    errors = {k for k, v in EXPECTED_OUTCOMES.items() if v == "error"}
    assert set(EXPECTED_ERRORS) == errors
    assert set(EXPECTED_SUMMARIES) == set(EXPECTED_OUTCOMES) - errors
    assert set(PAGE_SAMPLE) <= set(corpus)
    for fmt in ("parquet", "stata", "spss", "xport", "sas7bdat"):
        assert any(k.startswith(fmt) for k in PAGE_SAMPLE), fmt


@pytest.mark.parametrize("case", sorted(EXPECTED_OUTCOMES))
def test_file_corpus_case(case):
    """Each file loads with the stored N, sum and lower median, or fails naming the reason.

    Break it on purpose: read every format by its name only (make ``_choose_format`` return
    the name's format): the renamed and text-inside cases then fail with a parser's message
    or load, instead of saying what the file is.
    """
    filename, data = _file_corpus()[case]
    if EXPECTED_OUTCOMES[case] == "error":
        with pytest.raises(ValueError) as info:
            load_population_file(data, filename=filename)
        message = str(info.value)
        assert message.strip() and "Traceback" not in message
        assert EXPECTED_ERRORS[case].lower() in message.lower(), (case, message)
        return
    pop = load_population_file(data, filename=filename)
    n, total, median = EXPECTED_SUMMARIES[case]
    assert (pop.size, float(pop.values.sum()), float(pop.values[(n + 1) // 2 - 1])) == (
        n,
        total,
        median,
    )
    assert pop.recipe.startswith(f"load_population_file({filename!r}")


@pytest.mark.parametrize("case", sorted(EXPECTED_LABELS))
def test_file_corpus_labels_are_shown_not_codes(case):
    filename, data = _file_corpus()[case]
    column, labels = EXPECTED_LABELS[case]
    pop = load_population_file(data, filename=filename, stratum_column=column)
    assert pop.strata.tolist() == labels
    assert any("Dropped 1 row" in n for n in pop.notes)


def test_nested_parquet_column_is_named_in_the_notes():
    filename, data = _file_corpus()["parquet_nested_column"]
    pop = load_population_file(data, filename=filename)
    assert any("'detail' holds nested values" in n for n in pop.notes)


# --------------------------------------------------------------------------------------------
# Stata and SPSS value labels, SAS transport
# --------------------------------------------------------------------------------------------


def _labelled(fmt: str, frame: pd.DataFrame, labels: dict) -> bytes:
    return bad_file_corpus._write(fmt, frame, labels)


@pytest.mark.parametrize("fmt", ["stata", "spss"])
def test_value_labels_for_strata_and_clusters_codes_for_values(fmt):
    frame = pd.DataFrame(
        {
            "size_class": [1.0, 2.0, 3.0, 1.0, 2.0, 9.0],
            "region": [10.0, 10.0, 20.0, 20.0, 10.0, 20.0],
            "turnover": [5.0, 1.0, 3.0, 2.0, 4.0, 6.0],
        }
    )
    labels = {"size_class": {1: "small", 2: "medium", 3: "large"}, "region": {10: "N", 20: "S"}}
    data = _labelled(fmt, frame, labels)
    ext = bad_file_corpus.EXTENSIONS[fmt]
    table = read_file_table(data, filename=f"f.{ext}")
    assert table.numeric_columns == ["size_class", "region", "turnover"]
    assert any("'size_class' has 3 value labels (small, medium, large)" in n for n in table.notes)
    pop = load_population_file(
        data,
        filename=f"f.{ext}",
        value_column="turnover",
        lower=0,
        upper=10,
        stratum_column=["region", "size_class"],
        cluster_column="size_class",
    )
    # Values 1..6 come from rows 2, 4, 3, 5, 1, 6; an unlabelled code (9) shows as a number.
    assert pop.clusters.tolist() == ["medium", "small", "large", "medium", "small", "9"]
    assert pop.strata.tolist() == [
        "N / medium",
        "S / small",
        "S / large",
        "N / medium",
        "N / small",
        "S / 9",
    ]
    codes = load_population_file(data, filename=f"f.{ext}", value_column="size_class")
    np.testing.assert_array_equal(codes.values, [1.0, 1.0, 2.0, 2.0, 3.0, 9.0])


@pytest.mark.parametrize("version", [5, 8])
def test_sas_transport_versions_5_and_8(version):
    import pyreadstat

    frame = pd.DataFrame({"income": [3.0, 1.0, 2.0], "grp": ["a", "b", "a"]})
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "f.xpt"
        pyreadstat.write_xport(frame, str(path), file_format_version=version)
        pop = load_population_file(path, stratum_column="grp")
    np.testing.assert_array_equal(pop.values, [1.0, 2.0, 3.0])
    assert pop.strata.tolist() == ["b", "a", "a"]
    assert pop.recipe.startswith("load_population_file('f.xpt'")


@pytest.mark.parametrize("fmt", ["stata", "spss", "xport"])
def test_row_and_column_limits_of_readstat_formats(fmt, monkeypatch):
    frame = pd.DataFrame({"x": np.arange(10.0), "y": np.arange(10.0)})
    data = bad_file_corpus._write(fmt, frame)
    name = f"f.{bad_file_corpus.EXTENSIONS[fmt]}"
    monkeypatch.setattr(file_io, "MAX_ROWS", 9)
    with pytest.raises(ValueError, match="10 rows; the limit is 9 data rows"):
        load_population_file(data, filename=name)
    monkeypatch.setattr(file_io, "MAX_ROWS", 10)
    monkeypatch.setattr(file_io, "MAX_COLUMNS", 1)
    with pytest.raises(ValueError, match="2 columns; the limit is 1"):
        load_population_file(data, filename=name)


def test_byte_limit_applies_to_every_format(monkeypatch):
    from core import csv_io

    data = parquet_bytes(pd.DataFrame({"x": np.arange(1000.0)}))
    monkeypatch.setattr(csv_io.source, "MAX_UPLOAD_BYTES", len(data) - 1)
    with pytest.raises(ValueError, match="upload limit"):
        load_population_file(data, filename="x.parquet")


def test_a_servers_own_file_has_no_upload_limit(tmp_path, monkeypatch) -> None:
    """max_bytes=None (a file given on the server's command line) reads past the limit."""
    import core.csv_io as csv_io

    path = tmp_path / "register.csv"
    path.write_text("income\n" + "\n".join(str(i) for i in range(2_000)) + "\n")
    monkeypatch.setattr(csv_io.source, "MAX_UPLOAD_BYTES", 1_000)
    with pytest.raises(ValueError, match="upload limit"):
        load_population_file(path, value_column="income", lower=0, upper=5_000)
    pop = load_population_file(path, value_column="income", lower=0, upper=5_000, max_bytes=None)
    assert pop.size == 2_000
