"""Tests for core.csv_io.source: paths and file-like sources, the size limit, encodings."""

from __future__ import annotations

import io

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from core import csv_io
from core.csv_io import MAX_UPLOAD_BYTES, load_population_csv, read_csv_table
from tests.core.bad_csv_corpus import OVER_SIZE_TEST_LIMIT
from tests.core.csv_io.corpus import _population_or_value_error


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
    # not 400 MiB in a test
    monkeypatch.setattr(csv_io.source, "MAX_UPLOAD_BYTES", OVER_SIZE_TEST_LIMIT)
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
