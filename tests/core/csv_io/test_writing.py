"""Tests for core.csv_io.writing: CSV export with formula cells defused."""

from __future__ import annotations

import csv
import io

import pytest

from core.csv_io import csv_safe_text, load_population_csv, population_to_csv_bytes
from tests.core.bad_csv_corpus import FORMULA_HEADER
from tests.core.csv_io.corpus import _corpus


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
