"""A corpus of good and bad Parquet, Stata, SPSS and SAS files, shared by unit and browser tests.

The companion of ``bad_csv_corpus.py`` for the other formats that
:func:`core.populations.load_population_file` reads. ``build_file_corpus()`` returns
``{case: (file name, file bytes)}``; ``EXPECTED_OUTCOMES`` says for every case whether the
loader (default arguments, the file name passed as ``filename``) returns a Population or
raises a ValueError; ``EXPECTED_ERRORS`` gives a fragment of the message naming the reason,
``EXPECTED_SUMMARIES`` the size, sum and lower median of every population case, and
``EXPECTED_LABELS`` the stratum labels, in value order, that the "labelled" cases show.

Every case is built in memory in a few milliseconds: "huge" is a Stata file whose header
claims a billion rows (refused from the header, before any data are read). A real SAS7BDAT
file cannot be written with the libraries at hand (pyreadstat writes every other format), so
the SAS7BDAT cases check the format's detection and the damaged-file path only.
``PAGE_SAMPLE`` lists the few cases the browser test uploads (the unit tests run them all).
"""

from __future__ import annotations

import io
import struct

import numpy as np
import pandas as pd

POPULATION = "population"
ERROR = "error"

#: Format -> the file name ending it is written with.
EXTENSIONS = {"parquet": "parquet", "stata": "dta", "spss": "sav", "xport": "xpt"}
_SAS7BDAT_MAGIC = bytes(12) + bytes.fromhex("c2ea8160b31411cfbd92080009c7318c181f1011")

#: The labelled data every format carries: income with one blank, region coded 1/2.
_INCOME = [3.5, 1.5, np.nan, 2.5, 9.0]
_REGION = [1.0, 2.0, 1.0, 2.0, 1.0]
_REGION_LABELS = {1.0: "North", 2.0: "South"}

EXPECTED_OUTCOMES: dict[str, str] = {}
EXPECTED_ERRORS: dict[str, str] = {}
EXPECTED_SUMMARIES: dict[str, tuple[int, float, float]] = {}
EXPECTED_LABELS: dict[str, tuple[str, list[str]]] = {}

for _fmt in EXTENSIONS:
    EXPECTED_OUTCOMES[f"{_fmt}_labelled"] = POPULATION
    EXPECTED_SUMMARIES[f"{_fmt}_labelled"] = (4, 16.5, 2.5)
    EXPECTED_OUTCOMES[f"{_fmt}_truncated"] = ERROR
    EXPECTED_ERRORS[f"{_fmt}_truncated"] = "truncated"
    EXPECTED_OUTCOMES[f"{_fmt}_named_csv"] = ERROR
    EXPECTED_ERRORS[f"{_fmt}_named_csv"] = "not CSV"
    EXPECTED_OUTCOMES[f"{_fmt}_no_numeric_column"] = ERROR
    EXPECTED_ERRORS[f"{_fmt}_no_numeric_column"] = "no value column"
    EXPECTED_OUTCOMES[f"{_fmt}_all_blank"] = ERROR
    EXPECTED_ERRORS[f"{_fmt}_all_blank"] = "no value column"
    EXPECTED_OUTCOMES[f"{_fmt}_random_bytes"] = ERROR
    EXPECTED_ERRORS[f"{_fmt}_random_bytes"] = "does not start as"
    EXPECTED_OUTCOMES[f"{_fmt}_csv_inside"] = ERROR
    EXPECTED_ERRORS[f"{_fmt}_csv_inside"] = "its content is text"

_LABELS_IN_VALUE_ORDER = ["South", "South", "North", "North"]  # values 1.5, 2.5, 3.5, 9
EXPECTED_LABELS.update(
    {
        "parquet_labelled": ("region", _LABELS_IN_VALUE_ORDER),
        "stata_labelled": ("region", _LABELS_IN_VALUE_ORDER),
        "spss_labelled": ("region", _LABELS_IN_VALUE_ORDER),
        "xport_labelled": ("region", ["2", "2", "1", "1"]),  # SAS keeps formats elsewhere
    }
)
EXPECTED_OUTCOMES.update(
    {
        "stata_huge": ERROR,
        "parquet_nested_column": POPULATION,
        "parquet_only_nested": ERROR,
        "sas7bdat_damaged": ERROR,
        "sas7bdat_random_bytes": ERROR,
        "sas7bdat_named_csv": ERROR,
        "sas7bdat_csv_inside": ERROR,
    }
)
EXPECTED_ERRORS.update(
    {
        "stata_huge": "1,000,000,000 rows; the limit",
        "parquet_only_nested": "no column of numbers or labels",
        "sas7bdat_damaged": "cannot be read",
        "sas7bdat_random_bytes": "does not start as",
        "sas7bdat_named_csv": "not CSV",
        "sas7bdat_csv_inside": "its content is text",
    }
)
EXPECTED_SUMMARIES["parquet_nested_column"] = (3, 6.0, 2.0)

#: The cases the browser test uploads through the real widget (one or two per format);
#: AppTest's upload path takes every case (``tests/pages/test_upload_corpus.py``).
PAGE_SAMPLE: tuple[str, ...] = (
    "stata_labelled",
    "xport_labelled",
    "parquet_named_csv",
    "stata_huge",
    "spss_truncated",
    "sas7bdat_damaged",
)


def _write(fmt: str, frame: pd.DataFrame, labels: dict | None = None) -> bytes:
    """``frame`` as a file of ``fmt``; ``labels``: column -> {code: label} (Stata, SPSS)."""
    if fmt == "parquet":
        out = io.BytesIO()
        frame.to_parquet(out, index=False)
        return out.getvalue()
    import tempfile
    from pathlib import Path

    import pyreadstat

    writer = {
        "stata": pyreadstat.write_dta,
        "spss": pyreadstat.write_sav,
        "xport": pyreadstat.write_xport,
    }[fmt]
    kwargs = {"variable_value_labels": labels} if labels and fmt != "xport" else {}
    with tempfile.TemporaryDirectory() as tmp:  # pyreadstat writes to a path only
        path = Path(tmp) / f"x.{EXTENSIONS[fmt]}"
        writer(frame, str(path), **kwargs)
        return path.read_bytes()


def labelled_frame(fmt: str) -> tuple[pd.DataFrame, dict | None]:
    """The labelled case's data for ``fmt`` and its value labels (None where not stored)."""
    if fmt == "parquet":  # Parquet stores the labels themselves as text
        region = [_REGION_LABELS[r] for r in _REGION]
        return pd.DataFrame({"income": _INCOME, "region": region}), None
    return pd.DataFrame({"income": _INCOME, "region": _REGION}), {"region": _REGION_LABELS}


def _huge_stata() -> bytes:
    """A Stata 118 file whose header claims a billion rows (its data hold three)."""
    data = bytearray(_write("stata", pd.DataFrame({"x": [1.0, 2.0, 3.0]})))
    at = data.index(b"<N>") + 3
    data[at : at + 8] = struct.pack("<q", 1_000_000_000)
    return bytes(data)


def build_file_corpus() -> dict[str, tuple[str, bytes]]:
    """Every case of :data:`EXPECTED_OUTCOMES` as (file name, file bytes)."""
    rng = np.random.default_rng(20261123)
    text = pd.DataFrame({"name": ["Ann", "Bob", "Cy", "Di"]})
    blank = pd.DataFrame({"income": [np.nan] * 4, "name": ["Ann", "Bob", "Cy", "Di"]})
    csv_text = b"income,region\n1,a\n2,b\n3,c\n"
    c: dict[str, tuple[str, bytes]] = {}
    for fmt, ext in EXTENSIONS.items():
        good = _write(fmt, *labelled_frame(fmt))
        c[f"{fmt}_labelled"] = (f"{fmt}_labelled.{ext}", good)
        c[f"{fmt}_truncated"] = (f"{fmt}_truncated.{ext}", good[: len(good) // 2])
        c[f"{fmt}_named_csv"] = (f"{fmt}_named_csv.csv", good)
        c[f"{fmt}_no_numeric_column"] = (f"{fmt}_no_numeric_column.{ext}", _write(fmt, text))
        c[f"{fmt}_all_blank"] = (f"{fmt}_all_blank.{ext}", _write(fmt, blank))
        junk = rng.integers(0, 256, size=2048, dtype=np.uint8).tobytes()
        c[f"{fmt}_random_bytes"] = (f"{fmt}_random_bytes.{ext}", b"\x00\x01" + junk)
        c[f"{fmt}_csv_inside"] = (f"{fmt}_csv_inside.{ext}", csv_text)
    c["stata_huge"] = ("stata_huge.dta", _huge_stata())
    nested = pd.DataFrame({"x": [3.0, 1.0, 2.0], "detail": [{"a": 1}, {"a": 2}, {"a": 3}]})
    c["parquet_nested_column"] = ("parquet_nested_column.parquet", _write("parquet", nested))
    only = pd.DataFrame({"detail": [{"a": 1}, {"a": 2}, {"a": 3}], "tags": [[1], [2, 3], []]})
    c["parquet_only_nested"] = ("parquet_only_nested.parquet", _write("parquet", only))
    damaged = _SAS7BDAT_MAGIC + rng.integers(0, 256, size=4096, dtype=np.uint8).tobytes()
    c["sas7bdat_damaged"] = ("sas7bdat_damaged.sas7bdat", damaged)
    junk = rng.integers(0, 256, size=2048, dtype=np.uint8).tobytes()
    c["sas7bdat_random_bytes"] = ("sas7bdat_random_bytes.sas7bdat", b"\x00\x01" + junk)
    c["sas7bdat_named_csv"] = ("sas7bdat_named_csv.csv", damaged)
    c["sas7bdat_csv_inside"] = ("sas7bdat_csv_inside.sas7bdat", csv_text)
    return c
