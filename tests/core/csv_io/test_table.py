"""Tests for core.csv_io: reading untrusted CSV files and writing populations back."""

from __future__ import annotations

import csv
import io
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core import csv_io
from core.builtins import BUILTIN_POPULATIONS, make_builtin
from core.csv_io import CsvTable, load_population_csv, population_to_csv_bytes, read_csv_table
from core.population import Population
from tests.core.bad_csv_corpus import (
    BROWSER_SAMPLE,
    CLASSES,
    EXPECTED_ERRORS,
    EXPECTED_LABELS,
    EXPECTED_OUTCOMES,
    EXPECTED_SUMMARIES,
    EXPECTED_VALUES,
    LARGE_CASES,
    OVER_SIZE_TEST_LIMIT,
    build_corpus,
)
from tests.core.csv_io.corpus import _corpus, _population_or_value_error

KEYS = list(BUILTIN_POPULATIONS)


# --------------------------------------------------------------------------------------------
# The bad-file corpus
# --------------------------------------------------------------------------------------------


def test_corpus_is_complete():
    assert set(_corpus()) == set(EXPECTED_OUTCOMES)
    assert set(EXPECTED_VALUES) <= {k for k, v in EXPECTED_OUTCOMES.items() if v == "population"}
    assert set(LARGE_CASES) <= set(_corpus())
    assert set(build_corpus(include_large=False)) == set(_corpus()) - set(LARGE_CASES)


@pytest.mark.parametrize("case", sorted(EXPECTED_OUTCOMES))
def test_corpus_case(case, monkeypatch):
    """Each file loads with the stored N, sum and lower median, or fails naming the reason.

    Break it on purpose (``tests/break_checks.py``, ``corpus-*``): make the CSV reader keep
    only the first data row of three-row files or drop the last row — the
    population cases still load, but their N and sum differ from the stored ones; or reword
    the "binary file" message — the error still comes, but no longer names the reason.
    """
    data = _corpus()[case]
    if case == "over_size_limit":  # built over a small limit: the real one is 400 MiB
        monkeypatch.setattr(csv_io.source, "MAX_UPLOAD_BYTES", OVER_SIZE_TEST_LIMIT)
    if EXPECTED_OUTCOMES[case] == "error":
        with pytest.raises(ValueError) as info:
            load_population_csv(data)
        message = str(info.value)
        assert message.strip() and "Traceback" not in message
        assert EXPECTED_ERRORS[case].lower() in message.lower(), (case, message)
        return
    pop = load_population_csv(data)
    assert isinstance(pop, Population) and pop.size >= 3
    assert pop.lower <= pop.values[0] and pop.values[-1] <= pop.upper
    n, total, median = EXPECTED_SUMMARIES[case]
    assert pop.size == n
    assert math.isclose(float(pop.values.sum()), total, rel_tol=1e-12, abs_tol=1e-9)
    assert pop.values[(pop.size - 1) // 2] == median
    if case in EXPECTED_VALUES:
        np.testing.assert_array_equal(pop.values, EXPECTED_VALUES[case])
    if case in EXPECTED_LABELS:
        column, labels = EXPECTED_LABELS[case]
        labelled = load_population_csv(data, value_column=pop.value_label, stratum_column=column)
        np.testing.assert_array_equal(labelled.values, pop.values)
        assert list(labelled.strata) == labels
    if len(data) < 2**20:  # every path into the reader gives the same result
        assert load_population_csv(io.BytesIO(data)).content_hash == pop.content_hash


def test_every_case_is_in_one_class_and_the_browser_takes_one_of_each():
    members = [case for cases in CLASSES.values() for case in cases]
    assert sorted(members) == sorted(EXPECTED_OUTCOMES)
    for name, cases in CLASSES.items():
        outcomes = {EXPECTED_OUTCOMES[c] for c in cases}
        assert len(outcomes) == 1, f"class {name!r} mixes files that load and files that fail"
        assert sum(c in BROWSER_SAMPLE for c in cases) == 1, name


def test_corpus_expectations_are_complete_and_consistent():
    """Every case has its expectation, and the stored summaries agree with stored values."""
    loads = {k for k, v in EXPECTED_OUTCOMES.items() if v == "population"}
    assert set(EXPECTED_SUMMARIES) == loads
    assert set(EXPECTED_ERRORS) == set(EXPECTED_OUTCOMES) - loads
    assert set(EXPECTED_LABELS) <= loads
    for case, values in EXPECTED_VALUES.items():
        v = np.asarray(values)
        assert (v.size, float(v.sum()), v[(v.size - 1) // 2]) == EXPECTED_SUMMARIES[case], case


def test_corpus_details(monkeypatch):
    t = read_csv_table(_corpus()["duplicate_and_blank_headers"])
    assert list(t.frame.columns) == ["a", "a_2", "column_3", "b"]
    t = read_csv_table(_corpus()["no_header_numbers"])
    assert not t.has_header and list(t.frame.columns) == ["column_1", "column_2"]
    t = read_csv_table(_corpus()["utf16_bom"])
    assert t.delimiter == "\t" and t.frame["label"].tolist() == ["ä", "ö", "ü"]
    assert any("UTF-16" in n for n in t.notes)
    t = read_csv_table(_corpus()["cp1252"])
    assert t.frame["name"].tolist() == ["José", "Zoë", "A€"]
    assert any("Windows-1252" in n for n in t.notes)
    t = read_csv_table(_corpus()["utf8_bom"])
    assert list(t.frame.columns) == ["x", "y"]
    assert read_csv_table(_corpus()["semicolon_decimal_comma"]).delimiter == ";"
    assert read_csv_table(_corpus()["pipe_delimited"]).delimiter == "|"
    assert read_csv_table(_corpus()["excel_sep_line"]).delimiter == ";"
    pop = load_population_csv(_corpus()["thousands_separators"])
    assert any("thousands" in n for n in pop.notes)
    pop = load_population_csv(_corpus()["inf_nan_strings"])
    assert "Dropped 5 rows whose value was blank, not a number or infinite." in pop.notes
    with pytest.raises(ValueError, match="quot"):
        load_population_csv(_corpus()["unbalanced_quote"])
    monkeypatch.setattr(csv_io.source, "MAX_UPLOAD_BYTES", OVER_SIZE_TEST_LIMIT)
    with pytest.raises(ValueError, match="1 MB, the upload limit"):
        load_population_csv(_corpus()["over_size_limit"])


# --------------------------------------------------------------------------------------------
# Sources, columns, bounds and labels
# --------------------------------------------------------------------------------------------


def test_table_columns_and_values():
    data = b"id,value,region,note\n1,10,north,x\n2,,south,y\n3,30,north,z\n4,abc,east,w\n5,50,,v\n"
    t = read_csv_table(data)
    assert isinstance(t, CsvTable) and t.has_header and t.delimiter == ","
    assert t.numeric_columns == ["id", "value"]
    assert t.label_columns == ["id", "value", "region", "note"]
    np.testing.assert_array_equal(t.column_values("value"), [10, np.nan, 30, np.nan, 50])
    with pytest.raises(ValueError, match="no column named"):
        t.column_values("nope")
    pop = load_population_csv(t, value_column="value", lower=0, upper=100)
    np.testing.assert_array_equal(pop.values, [10, 30, 50])
    assert "Dropped 2 rows whose value was blank, not a number or infinite." in pop.notes


def test_label_column_limits():
    n = 10_002
    rows = "\n".join(f"{i},{i},{i % 3}" for i in range(n))
    t = read_csv_table(("a,b,c\n" + rows).encode())
    assert t.label_columns == ["c"]
    t = read_csv_table(b"a,b\n1,k\n2,k\n3,k\n")
    assert t.label_columns == ["a"]


# --------------------------------------------------------------------------------------------
# Round trips and scale
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("key", KEYS)
def test_csv_round_trip_preserves_content_hash(key):
    pop = make_builtin(key, seed=2, size=2001)
    data = population_to_csv_bytes(pop)
    back = load_population_csv(
        data,
        lower=pop.lower,
        upper=pop.upper,
        stratum_column=pop.stratum_label if pop.strata is not None else None,
        cluster_column=pop.cluster_label if pop.clusters is not None else None,
    )
    assert back.content_hash == pop.content_hash
    assert back.value_label == pop.value_label


def test_shipped_establishments_csv_matches_builtin():
    path = Path(__file__).resolve().parents[3] / "assets" / "establishments.csv"
    table = read_csv_table(path)
    assert {"size_class", "region"} <= set(table.label_columns)
    pop = load_population_csv(
        table, lower=0, upper=10_000, stratum_column="size_class", cluster_column="region"
    )
    assert pop.content_hash == make_builtin("establishments", seed=0).content_hash


def test_million_rows_load():
    """A million rows with a value and a cluster column load (timing: bench/, not here)."""
    data = _corpus()["million_rows"]
    pop = load_population_csv(data, value_column="value", cluster_column="region")
    assert pop.size == 1_000_000 and len(np.unique(pop.clusters)) == 100


# --------------------------------------------------------------------------------------------
# Property tests: anything in, Population or ValueError out
# --------------------------------------------------------------------------------------------


@given(st.binary(max_size=3000))
def test_arbitrary_bytes(data):
    _population_or_value_error(data)


@given(st.text(max_size=2000))
def test_arbitrary_text(text):
    _population_or_value_error(text.encode("utf-8", "surrogatepass"))


@given(st.text(alphabet=st.sampled_from(list('0123456789.,;|\t\n\r "-e+abcnaif ')), max_size=600))
def test_csv_like_text(text):
    _population_or_value_error(text.encode())


_WORD = st.text(alphabet="bcdghjklmopqrsuvwxz BCDGH", min_size=1, max_size=12).filter(
    lambda s: s.strip() != ""
)
_FINITE = st.floats(min_value=-1e300, max_value=1e300, allow_nan=False, allow_infinity=False)
_JUNK = st.sampled_from(["", "nan", "NaN", "inf", "-inf", "Infinity", "n/a", "NULL", "?", " "])


@st.composite
def _structured_csv(draw):
    """A CSV whose first column holds numbers (and junk), then label columns."""
    delimiter = draw(st.sampled_from([",", ";", "\t", "|"]))
    n_labels = draw(st.integers(0, 3))
    n_rows = draw(st.integers(3, 40))
    style = draw(st.sampled_from(["repr", "g", "e", "int", "padded"]))
    header = ["value"] + [f"label{j}" for j in range(n_labels)]
    rows, numbers = [], []
    for _ in range(n_rows):
        if draw(st.integers(0, 4)) == 0:
            cell = draw(_JUNK)
        else:
            x = draw(_FINITE)
            if style == "int":
                x = float(round(x)) if abs(x) < 1e15 else x
                cell = str(int(x)) if abs(x) < 1e15 else repr(x)
            elif style == "g":
                cell = f"{x:.17g}"
            elif style == "e":
                cell = f"{x:.6e}"
            elif style == "padded":
                cell = f"  {x!r} "
            else:
                cell = repr(x)
            numbers.append(float(cell))
        rows.append([cell] + [draw(_WORD) for _ in range(n_labels)])
    return delimiter, header, rows, numbers


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(_structured_csv())
def test_structured_csv_values_are_the_finite_numeric_cells(case):
    delimiter, header, rows, numbers = case
    out = io.StringIO()
    writer = csv.writer(out, delimiter=delimiter, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    data = out.getvalue().encode()
    values = np.sort(np.array(numbers, dtype=float))
    if values.size < 3 or not math.isfinite(values[-1] - values[0]):
        with pytest.raises(ValueError):
            load_population_csv(data)
        return
    labels = len(header) > 1
    pop = load_population_csv(data, stratum_column="label0" if labels else None)
    np.testing.assert_array_equal(pop.values, values)
    assert pop.value_label == "value"
    if labels:
        kept = [r for r in rows if r[0].strip() and math.isfinite(_as_float(r[0]))]
        order = np.argsort([float(r[0]) for r in kept], kind="stable")
        expected = [kept[i][1].strip() or "(missing)" for i in order]
        assert pop.strata.tolist() == expected


def _as_float(cell: str) -> float:
    try:
        return float(cell)
    except ValueError:
        return math.nan


# --------------------------------------------------------------------------------------------
# Survey files: cluster and stratum ids from several columns (issue 10, item 3)
# --------------------------------------------------------------------------------------------
