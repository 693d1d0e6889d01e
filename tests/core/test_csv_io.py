"""Tests for core.csv_io: reading untrusted CSV files and writing populations back."""

from __future__ import annotations

import csv
import functools
import io
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core import csv_io
from core.builtins import BUILTIN_POPULATIONS, make_builtin
from core.csv_io import (
    MAX_UPLOAD_BYTES,
    CsvTable,
    csv_safe_text,
    load_population_csv,
    population_to_csv_bytes,
    read_csv_table,
)
from core.population import Population, cluster_strata_note
from tests.core.bad_csv_corpus import (
    BROWSER_SAMPLE,
    CLASSES,
    EXPECTED_ERRORS,
    EXPECTED_LABELS,
    EXPECTED_OUTCOMES,
    EXPECTED_SUMMARIES,
    EXPECTED_VALUES,
    FORMULA_HEADER,
    LARGE_CASES,
    OVER_SIZE_TEST_LIMIT,
    build_corpus,
)

KEYS = list(BUILTIN_POPULATIONS)


# --------------------------------------------------------------------------------------------
# The bad-file corpus
# --------------------------------------------------------------------------------------------


@functools.cache
def _corpus() -> dict[str, bytes]:
    """The corpus, built once per session on first use (not at collection time)."""
    return build_corpus(include_large=True)


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
    if case == "over_size_limit":  # built over a small limit: the real one is 512 MB
        monkeypatch.setattr(csv_io, "MAX_UPLOAD_BYTES", OVER_SIZE_TEST_LIMIT)
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
    monkeypatch.setattr(csv_io, "MAX_UPLOAD_BYTES", OVER_SIZE_TEST_LIMIT)
    with pytest.raises(ValueError, match="1 MB, the upload limit"):
        load_population_csv(_corpus()["over_size_limit"])


def test_formula_injection_is_neutralised_on_export():
    pop = load_population_csv(_corpus()["formula_header"])
    assert pop.value_label == FORMULA_HEADER  # kept as read; only exports are neutralised
    out = population_to_csv_bytes(pop).decode()
    assert out.splitlines()[0] == "'" + FORMULA_HEADER
    pop = load_population_csv(_corpus()["formula_labels"], stratum_column="group", lower=0, upper=5)
    rows = list(csv.reader(io.StringIO(population_to_csv_bytes(pop).decode())))
    assert rows[0] == ["value", "group"]
    assert [r[1] for r in rows[1:]] == [
        "'=1+1",
        "'@SUM(A1)",
        "'-2+3",
        '\'=HYPERLINK("http://x")',
    ]
    assert [r[0] for r in rows[1:]] == ["1", "2", "3", "4"]


def test_negative_numbers_are_not_prefixed_on_export():
    pop = load_population_csv(_corpus()["negative_numbers"], lower=-10, upper=10)
    lines = population_to_csv_bytes(pop).decode().splitlines()
    assert lines[1:] == ["-5.0", "-1.5", "0.0", "3.0"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("=1+1", "'=1+1"),
        ("+1", "'+1"),
        ("-1", "'-1"),
        ("@x", "'@x"),
        ("\tx", "'\tx"),
        ("\rx", "'\rx"),
        ("plain", "plain"),
        ("", ""),
        ("a=b", "a=b"),
        (FORMULA_HEADER, "'" + FORMULA_HEADER),
    ],
)
def test_csv_safe_text(text, expected):
    assert csv_safe_text(text) == expected


# --------------------------------------------------------------------------------------------
# Sources, columns, bounds and labels
# --------------------------------------------------------------------------------------------


def test_path_sources(tmp_path):
    path = tmp_path / "pop.csv"
    path.write_bytes(b"x,g\n3,a\n1,b\n2,c\n")
    for source in (path, str(path)):
        pop = load_population_csv(source, lower=0, upper=5)
        np.testing.assert_array_equal(pop.values, [1, 2, 3])
        assert "pop.csv" in pop.name
    with pytest.raises(ValueError, match="no file"):
        read_csv_table(tmp_path / "missing.csv")
    with pytest.raises(ValueError, match="no file"):
        read_csv_table(tmp_path)
    with pytest.raises(ValueError, match="no file"):
        read_csv_table(str(tmp_path / "nul\0byte.csv"))


def test_oversize_path_is_refused_before_reading(tmp_path):
    path = tmp_path / "big.csv"
    with path.open("wb") as fh:
        fh.truncate(MAX_UPLOAD_BYTES + 1)  # sparse: nothing is written
    with pytest.raises(ValueError, match="upload limit"):
        read_csv_table(path)


class _CountingReader:
    """A file-like object that serves b'1\\n' forever and records how much was asked for."""

    def __init__(self) -> None:
        self.requested: list[int] = []

    def read(self, n: int = -1) -> bytes:
        self.requested.append(n)
        assert n >= 0, "the reader must bound its read"
        return (b"1\n" * (n // 2 + 1))[:n]


def test_file_like_is_read_at_most_limit_plus_one(monkeypatch):
    monkeypatch.setattr(csv_io, "MAX_UPLOAD_BYTES", OVER_SIZE_TEST_LIMIT)  # not 512 MB in a test
    reader = _CountingReader()
    with pytest.raises(ValueError, match="upload limit"):
        read_csv_table(reader)
    assert reader.requested == [OVER_SIZE_TEST_LIMIT + 1]


def test_file_like_is_rewound():
    buf = io.BytesIO(b"x\n1\n2\n3\n")
    buf.read()
    assert load_population_csv(buf, lower=0, upper=4).size == 3


def test_wrong_source_type():
    with pytest.raises(TypeError):
        read_csv_table(12345)


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


@pytest.mark.parametrize(
    ("kwargs", "fragment"),
    [
        ({"value_column": "nope"}, "no column named 'nope'"),
        ({"stratum_column": "nope"}, "no column named 'nope'"),
        ({"cluster_column": "nope"}, "no column named 'nope'"),
        ({"value_column": "g"}, "usable number"),
        ({"lower": 5, "upper": 5}, "smaller"),
        ({"lower": 6, "upper": 5}, "smaller"),
        ({"lower": math.nan}, "finite"),
        ({"upper": "high"}, "number"),
    ],
)
def test_load_argument_errors(kwargs, fragment):
    with pytest.raises(ValueError, match=fragment):
        load_population_csv(b"x,g\n3,a\n1,b\n2,c\n", **kwargs)


def test_declared_bounds_clip_with_note():
    pop = load_population_csv(b"x\n-5\n1\n2\n50\n60\n", lower=0, upper=10)
    np.testing.assert_array_equal(pop.values, [0, 1, 2, 10, 10])
    assert (pop.lower, pop.upper) == (0.0, 10.0)
    text = " ".join(pop.notes)
    assert "Clipped 3 values" in text and "1 below, 2 above" in text
    assert "public knowledge" in text
    assert "read from the data" not in text


def test_data_bounds_warn():
    pop = load_population_csv(b"x\n3\n50\n97\n")
    assert (pop.lower, pop.upper) == (0.0, 100.0)
    assert any("not differentially private" in n for n in pop.notes)


def test_one_declared_bound():
    pop = load_population_csv(b"x\n3\n50\n97\n", lower=-10)
    assert (pop.lower, pop.upper) == (-10.0, 100.0)
    assert any("upper bound was read from the data" in n for n in pop.notes)
    pop = load_population_csv(b"x\n3\n50\n97\n", upper=1000)
    assert (pop.lower, pop.upper) == (0.0, 1000.0)
    pop = load_population_csv(b"x\n3\n50\n97\n", upper=1)  # everything clipped to 1
    assert pop.lower < pop.upper == 1.0 and np.all(pop.values == 1.0)


def test_labels_follow_sorted_values():
    data = b"v,s,c\n3,c,k3\n1,a,\n2,b,k2\n1,x,k1\n0,z,k0\n"
    pop = load_population_csv(data, stratum_column="s", cluster_column="c", lower=0, upper=5)
    np.testing.assert_array_equal(pop.values, [0, 1, 1, 2, 3])
    assert pop.strata.tolist() == ["z", "a", "x", "b", "c"]  # stable for the tie at 1
    assert pop.clusters.tolist() == ["k0", "(missing)", "k1", "k2", "k3"]
    assert pop.stratum_label == "s" and pop.cluster_label == "c" and pop.value_label == "v"
    assert any("(missing)" in n for n in pop.notes)


def test_labels_drop_with_unusable_values():
    data = b"v,s\n3,c\nfoo,a\n2,b\n1,x\n"
    pop = load_population_csv(data, stratum_column="s", lower=0, upper=5)
    assert pop.strata.tolist() == ["x", "b", "c"]


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
    path = Path(__file__).resolve().parents[2] / "assets" / "establishments.csv"
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


def _population_or_value_error(data: bytes) -> Population | None:
    try:
        pop = load_population_csv(data)
    except ValueError as exc:
        assert str(exc).strip()
        return None
    assert isinstance(pop, Population)
    assert pop.size >= 3 and np.all(np.isfinite(pop.values))
    assert pop.lower <= pop.values[0] and pop.values[-1] <= pop.upper
    return pop


@given(st.binary(max_size=3000))
def test_arbitrary_bytes(data):
    _population_or_value_error(data)


@given(st.text(max_size=2000))
def test_arbitrary_text(text):
    _population_or_value_error(text.encode("utf-8", "surrogatepass"))


_PREFIXES = [b"", b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff", b"\xff\xfe\x00\x00", b"sep=;\n", b"PK"]


@given(st.sampled_from(_PREFIXES), st.binary(max_size=1000))
def test_encoding_prefixes_with_arbitrary_bytes(prefix, data):
    _population_or_value_error(prefix + data)


@given(
    st.sampled_from(["utf-8", "utf-16", "utf-16-le", "utf-16-be", "cp1252", "latin-1"]),
    st.text(alphabet=st.sampled_from(list('0123456789.,;"x\n-é€')), max_size=300),
)
def test_other_encodings(encoding, text):
    try:
        data = text.encode(encoding)
    except UnicodeEncodeError:
        return
    _population_or_value_error(data)


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


def nhanes_style_csv(n_strata: int = 15, psus: int = 2, per_psu: int = 25) -> bytes:
    """An NHANES-style extract: PSUs numbered 1..psus within each stratum, blanks in the value."""
    rng = np.random.default_rng(10)
    rows = ["seqn,stratid,psuid,bmi"]
    seqn = 0
    for s in range(1, n_strata + 1):
        for p in range(1, psus + 1):
            for k in range(per_psu):
                seqn += 1
                value = "" if k % 9 == 4 else f"{rng.normal(27.0, 5.0):.1f}"
                rows.append(f"{seqn},{s},{p},{value}")
    return ("\n".join(rows) + "\n").encode()


def test_nhanes_style_combined_cluster_id_gives_thirty_clusters():
    data = nhanes_style_csv()
    pop = load_population_csv(
        data,
        value_column="bmi",
        lower=10,
        upper=80,
        stratum_column="stratid",
        cluster_column=["stratid", "psuid"],
    )
    assert len(np.unique(pop.clusters)) == 30
    assert len(np.unique(pop.strata)) == 15
    assert pop.cluster_label == "stratid × psuid" and pop.stratum_label == "stratid"
    assert {"1 / 1", "3 / 2", "15 / 2"} <= set(pop.clusters.tolist())
    # Each combined label starts with its own stratum.
    assert all(c.split(" / ")[0] == s for s, c in zip(pop.strata, pop.clusters, strict=True))
    assert any("Dropped" in n for n in pop.notes)  # the blank values
    assert not any("more than one stratum" in n for n in pop.notes)
    assert cluster_strata_note(pop) is None


def test_nhanes_style_psu_alone_carries_the_note():
    data = nhanes_style_csv()
    pop = load_population_csv(
        data,
        value_column="bmi",
        lower=10,
        upper=80,
        stratum_column="stratid",
        cluster_column="psuid",
    )
    assert len(np.unique(pop.clusters)) == 2
    note = cluster_strata_note(pop)
    assert note is not None and note in pop.notes
    assert "2 of the 2 cluster labels in 'psuid'" in note
    assert "'stratid' and 'psuid' together" in note


def test_combined_stratum_columns_and_blank_parts():
    data = b"v,a,b\n1,x,1\n2,x,\n3,y,1\n4,y,2\n"
    pop = load_population_csv(data, stratum_column=["a", "b"], lower=0, upper=5)
    assert pop.strata.tolist() == ["x / 1", "x / (missing)", "y / 1", "y / 2"]
    assert pop.stratum_label == "a × b"
    assert any("label part '(missing)' to 1 row" in n for n in pop.notes)
    # One column given as a list is the same as the column name.
    one = load_population_csv(data, stratum_column=["a"], lower=0, upper=5)
    same = load_population_csv(data, stratum_column="a", lower=0, upper=5)
    assert one.content_hash == same.content_hash and one.recipe == same.recipe


@pytest.mark.parametrize(
    ("kwargs", "fragment"),
    [
        ({"cluster_column": ["a", "nope"]}, "no column named 'nope'"),
        ({"cluster_column": ["a", "a"]}, "more than once"),
        ({"stratum_column": [1, "a"]}, "must be column names"),
        ({"stratum_column": 7}, "column name or a list"),
    ],
)
def test_combined_column_errors(kwargs, fragment):
    with pytest.raises(ValueError, match=fragment):
        load_population_csv(b"v,a,b\n1,x,1\n2,x,2\n3,y,1\n", **kwargs)


def test_recipe_rebuilds_population_with_column_lists(tmp_path):
    path = tmp_path / "nhanes.csv"
    path.write_bytes(nhanes_style_csv())
    pop = load_population_csv(
        path,
        value_column="bmi",
        lower=10,
        upper=80,
        stratum_column="stratid",
        cluster_column=["stratid", "psuid"],
    )
    assert "cluster_column=['stratid', 'psuid']" in pop.recipe
    assert pop.recipe.startswith("load_population_csv('nhanes.csv'")
    rebuilt = eval(  # the recipe is our own text, evaluated against a copy of the file
        pop.recipe.replace("'nhanes.csv'", repr(str(path)), 1),
        {"load_population_csv": load_population_csv},
    )
    assert rebuilt.content_hash == pop.content_hash
    assert rebuilt.cluster_label == pop.cluster_label


# --------------------------------------------------------------------------------------------
# The fast parse (pyarrow) gives the careful parse's table, or steps aside
# --------------------------------------------------------------------------------------------


def _assert_same_cells(fast, careful) -> None:
    """The same cells once all-blank rows and columns are dropped (as the reader does next).

    (pandas' parser drops a leading blank field after a leading bare-CR line, "\r;1";
    pyarrow keeps it; both tables lose that blank column next.)
    """
    fast, careful = (
        f.loc[(f != "").any(axis=1).to_numpy(), (f != "").any(axis=0).to_numpy()]
        for f in (fast, careful)
    )
    assert fast.shape == careful.shape
    for a, b in zip(fast.columns, careful.columns, strict=True):
        assert fast[a].tolist() == careful[b].tolist()


@settings(deadline=None, max_examples=400, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.text(alphabet=st.sampled_from(list('ab1.,;|\t\n "-xé')), max_size=300),
    st.sampled_from([",", ";", "\t", "|"]),
    st.sampled_from(["\n", "\r\n", "\r"]),
)
def test_fast_parse_equals_the_careful_parse(text, delimiter, newline):
    """Quotes, blank lines, line endings, trailing delimiters: the same cells either way.

    Not compared: blank lines in a file with bare-CR line endings, where pandas' parser
    shifts the next row's cells when it starts with a blank field ("1,1\r\r,1" gives
    ["1", ""]); pyarrow reads ["", "1"], which is right.

    Break it on purpose: let the fast parse skip blank *fields* rows differently (e.g. drop
    ``strings_can_be_null=False``, so blank cells become nulls and read back as "None"), or
    take ``newlines_in_values=False``: quoted line breaks then split rows and this fails.
    """
    if newline == "\r" and "\n\n" in text:
        return
    text = text.replace("\n", newline)
    if not text.strip():
        return
    fast = csv_io._read_arrow(text, delimiter)
    if isinstance(fast, str):  # the reason it steps aside
        return
    _assert_same_cells(fast, csv_io._parse_careful(text, delimiter, []))


@pytest.mark.parametrize(
    "text",
    [
        'a,b\n1,"x, y"\n2,"multi\nline"\n',
        "a,b\r\n1,2\r\n\r\n3,4\r\n",
        "a,b\r1,2\r3,4\r",
        "1,1\r\r,1\r",  # pandas' parser reads the last row as ["1", ""]
        'a,b\n1,"say ""hi"""\n',
        " a , b \n 1 , 2 \n",
        "a,b,\n1,2,\n",
    ],
)
def test_fast_parse_takes_regular_files(text):
    fast = csv_io._read_arrow(text, ",")
    assert isinstance(fast, pd.DataFrame), fast
    if text.startswith("1,1"):
        assert fast.to_numpy().tolist() == [["1", "1"], ["", "1"]]
        return
    _assert_same_cells(fast, csv_io._parse_careful(text, ",", []))


def test_fast_parse_steps_aside_for_ragged_and_unbalanced_files():
    assert isinstance(csv_io._read_arrow("a,b\n1\n2,3,4\n", ","), str)
    assert isinstance(csv_io._read_arrow('a,b\n"1,2\n3,4\n', ","), str)


def test_large_irregular_file_is_refused_with_the_reason(monkeypatch):
    """Only small files go to the careful parsers, whose memory is tens of times the file's."""
    regular = b"a,b\n" + b"1,2\n" * 300_000
    data = regular + b"3\n" + b"4,5,6\n"
    assert load_population_csv(data).size == 300_002  # read leniently, as before
    monkeypatch.setattr(csv_io, "MAX_IRREGULAR_BYTES", 2**20)
    with pytest.raises(ValueError, match="larger than 1 MB and is not a regular table") as info:
        load_population_csv(data)
    assert "Row #300002: Expected 2 columns, got 1" in str(info.value)
    assert load_population_csv(regular).size == 300_000  # regular: read fast, any size


def test_to_numbers_matches_python_float_exactly():
    cells = ["0.1", "1e400", "-0", "4.9e-324", "2e-400", "+1", "2.", ".5", "Infinity", "-nan"]
    cells += [repr(x) for x in (np.random.default_rng(3).standard_normal(200) * 1e5).tolist()]
    got, _ = csv_io._to_numbers(pd.Series(cells, dtype="str"), ",", None)
    want = np.array([float(c) for c in cells])
    assert np.array_equal(got, want, equal_nan=True)
    assert np.array_equal(np.signbit(got), np.signbit(want))
