"""Tests for core.csv_io.parsing: the fast parse gives the careful parse's table, or steps aside."""

from __future__ import annotations

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core import csv_io
from core.csv_io import load_population_csv


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
    monkeypatch.setattr(csv_io.parsing, "MAX_IRREGULAR_BYTES", 2**20)
    with pytest.raises(ValueError, match="larger than 1 MB and is not a regular table") as info:
        load_population_csv(data)
    assert "Row #300002: Expected 2 columns, got 1" in str(info.value)
    assert load_population_csv(regular).size == 300_000  # regular: read fast, any size
