"""A corpus of awkward and hostile CSV uploads, shared by the unit and browser tests.

``build_corpus()`` returns ``{case name: file bytes}``; ``EXPECTED_OUTCOMES`` says for every
case whether :func:`core.populations.load_population_csv` (with default arguments) must return
a Population (``"population"``) or raise a ValueError with a message (``"error"``).
``EXPECTED_VALUES`` gives the sorted values for the population cases where they are exact,
``EXPECTED_SUMMARIES`` the size, sum and lower median of every population case,
``EXPECTED_LABELS`` the labels of a text column where a case has one, and
``EXPECTED_ERRORS`` a fragment of the message that names the reason of every error case.
``CLASSES`` groups the cases by how they fail or what trap they set, and ``BROWSER_SAMPLE``
names the one case of each class that the browser test uploads.
Large cases (over the upload limit, a million rows) are built only when ``include_large``.
``over_size_limit`` exceeds :data:`OVER_SIZE_TEST_LIMIT`, which the tests set as the upload
limit with ``monkeypatch`` (a file over the real limit, 400 MiB, is too large to build in a
test; ``csv_io.test_source.test_oversize_path_is_refused_before_reading`` checks that one with a
sparse file).
"""

from __future__ import annotations

import numpy as np

from core.populations import MAX_COLUMNS

POPULATION = "population"
ERROR = "error"

FORMULA_HEADER = "=cmd|' /C calc'!A0"

#: The upload limit the tests set (monkeypatch) for the ``over_size_limit`` case: 1 MB.
OVER_SIZE_TEST_LIMIT = 2**20

LARGE_CASES = ("over_size_limit", "million_rows")

EXPECTED_OUTCOMES: dict[str, str] = {
    # Empty or content-free files.
    "empty": ERROR,
    "whitespace_only": ERROR,
    "header_only": ERROR,
    "header_only_blank_lines": ERROR,
    "only_delimiters": ERROR,
    "sep_line_only": ERROR,
    # No usable value column.
    "no_numeric_column": ERROR,
    "too_few_numbers": ERROR,
    "single_numeric_row": ERROR,
    "html_page": ERROR,
    "json_document": ERROR,
    "huge_range": ERROR,
    # Binary or undecodable.
    "binary_garbage": ERROR,
    "nul_bytes": ERROR,
    "control_characters": ERROR,
    "xlsx_signature": ERROR,
    "gzip_signature": ERROR,
    "utf16_truncated": ERROR,
    # Sizes and shapes.
    "over_size_limit": ERROR,
    "too_many_columns": ERROR,
    "long_line_no_newline": ERROR,
    "million_rows": POPULATION,
    "long_text_cell": POPULATION,
    "single_column": POPULATION,
    "ragged_rows": POPULATION,
    "duplicate_and_blank_headers": POPULATION,
    # Quoting.
    "quoted_numbers": POPULATION,
    "quoted_field_mess": POPULATION,
    "unbalanced_quote": ERROR,
    # Encodings.
    "utf8_bom": POPULATION,
    "utf16_bom": POPULATION,
    "utf16_le_no_bom": POPULATION,
    "cp1252": POPULATION,
    "latin1_only": POPULATION,
    # Line endings and delimiters.
    "crlf": POPULATION,
    "cr_only": POPULATION,
    "tab_delimited": POPULATION,
    "pipe_delimited": POPULATION,
    "semicolon_decimal_comma": POPULATION,
    "excel_sep_line": POPULATION,
    "whitespace_padded": POPULATION,
    # Number formats.
    "no_header_numbers": POPULATION,
    "thousands_separators": POPULATION,
    "inf_nan_strings": POPULATION,
    "negative_numbers": POPULATION,
    "scientific_notation": POPULATION,
    "mixed_text_and_numbers": POPULATION,
    "constant_column": POPULATION,
    # Formula injection.
    "formula_header": POPULATION,
    "formula_labels": POPULATION,
}

#: The classes of the corpus (the groups above): the way a file fails, or the trap a file
#: meant to load sets. Every case is in exactly one class.
CLASSES: dict[str, tuple[str, ...]] = {
    "empty": (
        "empty",
        "whitespace_only",
        "header_only",
        "header_only_blank_lines",
        "only_delimiters",
        "sep_line_only",
    ),
    "no value column": (
        "no_numeric_column",
        "too_few_numbers",
        "single_numeric_row",
        "html_page",
        "json_document",
        "huge_range",
    ),
    "binary or undecodable": (
        "binary_garbage",
        "nul_bytes",
        "control_characters",
        "xlsx_signature",
        "gzip_signature",
        "utf16_truncated",
    ),
    "too large": ("over_size_limit", "too_many_columns", "long_line_no_newline"),
    "bad quoting": ("unbalanced_quote",),
    "shapes that load": (
        "million_rows",
        "long_text_cell",
        "single_column",
        "ragged_rows",
        "duplicate_and_blank_headers",
        "quoted_numbers",
        "quoted_field_mess",
    ),
    "encodings": ("utf8_bom", "utf16_bom", "utf16_le_no_bom", "cp1252", "latin1_only"),
    "line endings and delimiters": (
        "crlf",
        "cr_only",
        "tab_delimited",
        "pipe_delimited",
        "semicolon_decimal_comma",
        "excel_sep_line",
        "whitespace_padded",
    ),
    "number formats": (
        "no_header_numbers",
        "thousands_separators",
        "inf_nan_strings",
        "negative_numbers",
        "scientific_notation",
        "mixed_text_and_numbers",
        "constant_column",
    ),
    "formula injection": ("formula_header", "formula_labels"),
}

#: One case of each class, uploaded through the real widget in Chromium
#: (``tests/e2e/test_robustness.py``); AppTest's upload path takes every case
#: (``tests/pages/test_upload_corpus.py``). ``over_size_limit`` is refused by the browser's
#: uploader before any upload, so its class is represented by ``too_many_columns``; the
#: million-row file has a browser test of its own.
BROWSER_SAMPLE: tuple[str, ...] = (
    "header_only",
    "html_page",
    "binary_garbage",
    "too_many_columns",
    "unbalanced_quote",
    "long_text_cell",
    "utf16_bom",
    "semicolon_decimal_comma",
    "thousands_separators",
    "formula_labels",
)

EXPECTED_VALUES: dict[str, list[float]] = {
    "single_column": [1.0, 2.0, 3.0],
    "ragged_rows": [1.0, 3.0, 4.0, 7.0, 9.0],
    "duplicate_and_blank_headers": [1.0, 5.0, 9.0],
    "quoted_numbers": [1.0, 3.0, 5.0],
    "utf8_bom": [1.0, 3.0, 5.0],
    "utf16_bom": [1.0, 2.0, 3.0],
    "utf16_le_no_bom": [1.0, 2.0, 3.0],
    "cp1252": [1.0, 2.0, 3.0],
    "latin1_only": [1.0, 2.0, 3.0],
    "crlf": [1.0, 3.0, 5.0],
    "cr_only": [1.0, 3.0, 5.0],
    "tab_delimited": [1.5, 2.5, 3.5],
    "pipe_delimited": [1.0, 3.0, 5.0],
    "semicolon_decimal_comma": [1.5, 2.5, 1234.5],
    "excel_sep_line": [1.0, 3.0, 5.0],
    "whitespace_padded": [1.0, 3.0, 5.0],
    "no_header_numbers": [1.0, 3.0, 5.0],
    "thousands_separators": [17.0, 1234.0, 12345.5, 1_000_000.0],
    "inf_nan_strings": [1.0, 2.0, 3.0],
    "negative_numbers": [-5.0, -1.5, 0.0, 3.0],
    "scientific_notation": [-30.0, 0.025, 1000.0, 6.02e23],
    "mixed_text_and_numbers": [1.0, 2.0, 3.0],
    "constant_column": [5.0, 5.0, 5.0],
    "formula_header": [1.0, 2.0, 3.0],
    "formula_labels": [1.0, 2.0, 3.0, 4.0],
    "long_text_cell": [2.0, 4.0, 6.0],
}

#: (N, sum, lower median y_((N+1)//2)) of every population case, loaded with default
#: arguments. The lower median is the "Median (lower middle value)" the Population page shows.
EXPECTED_SUMMARIES: dict[str, tuple[int, float, float]] = {
    "million_rows": (1_000_000, 500_000_500_000.0, 500_000.0),  # the id column 1…10⁶
    "long_text_cell": (3, 12.0, 4.0),
    "single_column": (3, 6.0, 2.0),
    "ragged_rows": (5, 24.0, 4.0),
    "duplicate_and_blank_headers": (3, 15.0, 5.0),
    "quoted_numbers": (3, 9.0, 3.0),
    "quoted_field_mess": (3, 6.0, 2.0),  # ids 1-3; row 4 is inside the unterminated quote
    "utf8_bom": (3, 9.0, 3.0),
    "utf16_bom": (3, 6.0, 2.0),
    "utf16_le_no_bom": (3, 6.0, 2.0),
    "cp1252": (3, 6.0, 2.0),
    "latin1_only": (3, 6.0, 2.0),
    "crlf": (3, 9.0, 3.0),
    "cr_only": (3, 9.0, 3.0),
    "tab_delimited": (3, 7.5, 2.5),
    "pipe_delimited": (3, 9.0, 3.0),
    "semicolon_decimal_comma": (3, 1238.5, 2.5),
    "excel_sep_line": (3, 9.0, 3.0),
    "whitespace_padded": (3, 9.0, 3.0),
    "no_header_numbers": (3, 9.0, 3.0),
    "thousands_separators": (4, 1_013_596.5, 1234.0),
    "inf_nan_strings": (3, 6.0, 2.0),
    "negative_numbers": (4, -3.5, -1.5),
    "scientific_notation": (4, 6.02e23 + 970.025, 0.025),
    "mixed_text_and_numbers": (3, 6.0, 2.0),
    "constant_column": (3, 15.0, 5.0),
    "formula_header": (3, 6.0, 2.0),
    "formula_labels": (4, 10.0, 2.0),
}

#: (label column, its labels in the order of the sorted values) of the population cases that
#: carry a text column, loaded with that column as the stratum column.
EXPECTED_LABELS: dict[str, tuple[str, list[str]]] = {
    "ragged_rows": ("b", ["2", "(missing)", "5", "8", "10"]),
    "quoted_field_mess": (
        "comment",
        ['say "hi"', "multi\nline, with comma", "unterminated\n4,40,plain"],
    ),
    "utf16_bom": ("label", ["ä", "ö", "ü"]),
    "utf16_le_no_bom": ("label", ["a", "b", "c"]),
    "cp1252": ("name", ["José", "Zoë", "A€"]),
    "latin1_only": ("name", ["\x81a", "b\x8d", "c"]),
    "tab_delimited": ("y", ["a", "b", "c"]),
    "thousands_separators": ("name", ["D", "A", "B", "C"]),
    "mixed_text_and_numbers": ("y", ["a", "b", "d"]),
    "formula_labels": ("group", ["=1+1", "@SUM(A1)", "-2+3", '=HYPERLINK("http://x")']),
}

#: A fragment of the message that names the reason, for every error case (case-insensitive).
#: The Population page words some reasons itself; each fragment fits both its words and
#: :func:`core.populations.load_population_csv`'s.
EXPECTED_ERRORS: dict[str, str] = {
    "empty": "file is empty",
    "whitespace_only": "file is empty",
    "header_only": "no data rows",
    "header_only_blank_lines": "no data rows",
    "only_delimiters": "no data rows",
    "sep_line_only": "no rows after its 'sep=' line",
    "no_numeric_column": "no value column",
    "too_few_numbers": "no value column",
    "single_numeric_row": "no value column",
    "html_page": "no value column",
    "json_document": "no value column",
    "huge_range": "too far apart",
    "binary_garbage": "binary file",
    "nul_bytes": "binary file",
    "control_characters": "control bytes",
    "xlsx_signature": "Excel .xlsx",
    "gzip_signature": "gzip",
    "utf16_truncated": "not valid UTF-16",
    "over_size_limit": "MB",
    "too_many_columns": "more than 1,000 columns",
    "long_line_no_newline": "more than 1,000 columns",
    "unbalanced_quote": "quot",
}


def build_corpus(*, include_large: bool = True) -> dict[str, bytes]:
    """Every case of :data:`EXPECTED_OUTCOMES` as file bytes (large ones optional)."""
    rng = np.random.default_rng(20240501)
    c: dict[str, bytes] = {}
    c["empty"] = b""
    c["whitespace_only"] = b"  \n\n \t \r\n"
    c["header_only"] = b"a,b,c\n"
    c["header_only_blank_lines"] = b"a,b\r\n\r\n\r\n"
    c["only_delimiters"] = b",,,\n,,,\n,,,\n;;;\n"
    c["sep_line_only"] = b"sep=;\n"
    c["no_numeric_column"] = b"name,city\nBob,Paris\nAnn,Lyon\nJo,Nice\n"
    c["too_few_numbers"] = b"x\n1\n2\nfoo\n"
    c["single_numeric_row"] = b"1,2,3,4,5\n"
    c["html_page"] = b"<!DOCTYPE html>\n<html><body><p>Not a table</p></body></html>\n"
    c["json_document"] = b'{"values": [1, 2, 3], "name": "x"}\n'
    c["huge_range"] = b"x\n1e308\n-1e308\n1.7e308\n"
    c["binary_garbage"] = rng.integers(0, 256, size=4096, dtype=np.uint8).tobytes()
    c["nul_bytes"] = b"a,b\n1,2\x00\n3,4\n5,6\n"
    c["control_characters"] = bytes([1, 2, 3, 4, 5, 6, 7, 8, 11, 14, 15, 16] * 50) + b"\n1\n2\n3\n"
    c["xlsx_signature"] = b"PK\x03\x04\x14\x00\x06\x00" + b"[Content_Types].xml" + bytes(64)
    c["gzip_signature"] = b"\x1f\x8b\x08\x00" + bytes(32)
    c["utf16_truncated"] = "x\n1\n2\n3\n".encode("utf-16")[:-1] + b"\xd8"
    c["too_many_columns"] = (
        ",".join(f"c{i}" for i in range(MAX_COLUMNS + 1)).encode()
        + b"\n"
        + ",".join("1" for _ in range(MAX_COLUMNS + 1)).encode()
        + b"\n"
    ) * 2
    c["long_line_no_newline"] = b"1," * 400_000
    c["long_text_cell"] = b"a,b\n" + b"x" * 200_000 + b",1\n2,3\n4,5\n6,7\n"
    c["single_column"] = b"value\n3\n1\n2\n"
    c["ragged_rows"] = b"a,b\n1,2\n3\n4,5,6\n7,8\n9,10\n"
    c["duplicate_and_blank_headers"] = b"a,a,,b\n1,2,3,4\n5,6,7,8\n9,10,11,12\n"
    c["quoted_numbers"] = b'"x","y"\n"1","2"\n"3","4"\n"5","6"\n'
    c["quoted_field_mess"] = (
        b'id,value,comment\n1,"10","say ""hi"""\n2,20,"multi\nline, with comma"\n'
        b'3,30,"unterminated\n4,40,plain\n'
    )
    c["unbalanced_quote"] = b'x,y\n"1,2\n3,4\n5,6\n7,8\n'
    c["utf8_bom"] = b"\xef\xbb\xbfx,y\n1,2\n3,4\n5,6\n"
    c["utf16_bom"] = "x\tlabel\n1\tä\n2\tö\n3\tü\n".encode("utf-16")
    c["utf16_le_no_bom"] = "x,label\n1,a\n2,b\n3,c\n".encode("utf-16-le")
    c["cp1252"] = "name,x\nJosé,1\nZoë,2\nA€,3\n".encode("cp1252")
    c["latin1_only"] = b"name,x\n\x81a,1\nb\x8d,2\nc,3\n"
    c["crlf"] = b"x,y\r\n1,2\r\n3,4\r\n5,6\r\n"
    c["cr_only"] = b"x,y\r1,2\r3,4\r5,6\r"
    c["tab_delimited"] = b"x\ty\n1.5\ta\n2.5\tb\n3.5\tc\n"
    c["pipe_delimited"] = b"x|y\n1|2\n3|4\n5|6\n"
    c["semicolon_decimal_comma"] = b"a;b\n1,5;2\n2,5;3\n1.234,5;4\n"
    c["excel_sep_line"] = b"sep=;\nx;y\n1;2\n3;4\n5;6\n"
    c["whitespace_padded"] = b" x , y \n 1 , 2 \n 3 , 4\n 5 , 6 \n"
    c["no_header_numbers"] = b"1,2\n3,4\n5,6\n"
    c["thousands_separators"] = b'name,amount\nA,"1,234"\nB,"12,345.5"\nC,"1,000,000"\nD,17\n'
    c["inf_nan_strings"] = b"x\ninf\nnan\n-inf\nNaN\n1\n2\n3\nInfinity\n"
    c["negative_numbers"] = b"x\n-5\n-1.5\n3\n-0\n"
    c["scientific_notation"] = b"x\n1e3\n2.5E-2\n-3e+1\n6.02e23\n"
    c["mixed_text_and_numbers"] = b"x,y\n1,a\n2,b\nabc,c\n3,d\n,e\n"
    c["constant_column"] = b"x\n5\n5\n5\n"
    c["formula_header"] = f"{FORMULA_HEADER}\n1\n2\n3\n".encode()
    c["formula_labels"] = b'value,group\n1,=1+1\n2,@SUM(A1)\n3,-2+3\n4,"=HYPERLINK(""http://x"")"\n'
    if include_large:
        c["over_size_limit"] = b"1\n" * (OVER_SIZE_TEST_LIMIT // 2 + 1)
        c["million_rows"] = million_rows_csv()
    return c


def million_rows_csv(n: int = 1_000_000, seed: int = 7) -> bytes:
    """A realistic 3-column CSV with ``n`` rows: id, a lognormal value, a region label."""
    rng = np.random.default_rng(seed)
    ids = np.arange(1, n + 1).astype(str)
    values = np.round(rng.lognormal(5.0, 0.5, size=n), 2).astype(str)
    regions = np.char.add("R", rng.integers(1, 101, size=n).astype(str))
    lines = np.char.add(np.char.add(np.char.add(ids, ","), np.char.add(values, ",")), regions)
    return ("id,value,region\n" + "\n".join(lines.tolist()) + "\n").encode()
