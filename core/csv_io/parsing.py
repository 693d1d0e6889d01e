"""Delimiter detection and the parsers of CSV text, with the row and column limits.

A fast parse (pyarrow, then pandas' C parser) for regular tables, and careful parsers
(pandas' Python engine, then Python's ``csv`` module) for irregular quoting, each refusing
more than :data:`MAX_ROWS` rows or :data:`MAX_COLUMNS` columns; every cell stays text.
"""

from __future__ import annotations

import csv
import io
from collections import Counter

import numpy as np
import pandas as pd

from ..csv_io.numbers import _NAN_SPELLINGS, _to_numbers
from ..csv_io.source import _SNIFF_CHARS

__all__ = [
    "MAX_COLUMNS",
    "MAX_ROWS",
]


#: Largest number of data rows accepted from a file (a register of 10⁸ records).
MAX_ROWS: int = 100_000_000
#: Largest CSV file read by the careful parsers (pandas' parser with a Python object per
#: cell, then Python's csv module), which take tens of times the file's size in memory;
#: larger files must be regular tables, which the fast parse reads.
MAX_IRREGULAR_BYTES: int = 50 * 1024 * 1024
#: Largest number of columns accepted from a CSV.
MAX_COLUMNS: int = 1_000


_DELIMITERS = (",", ";", "\t", "|")


_IRREGULAR_QUOTING = "The file has irregular quoting"
_DELIM_NAMES = {",": "comma", ";": "semicolon", "\t": "tab", "|": "pipe"}


def _excel_sep_line(text: str) -> tuple[str | None, str]:
    """Honour Excel's optional first line ``sep=;`` (returns the delimiter and the rest)."""
    first = _first_line(text)
    if len(first) == 5 and first.lower().startswith("sep=") and first[4] in _DELIMITERS:
        return first[4], text[len(first) :].lstrip("\r\n")
    return None, text


def _sniff_delimiter(text: str) -> str:
    """The candidate delimiter giving the most consistent field count (>= 2) in the head."""
    sample = text[:_SNIFF_CHARS]
    if len(text) > _SNIFF_CHARS:
        cut = max(sample.rfind("\n"), sample.rfind("\r"))
        if cut > 0:
            sample = sample[:cut]
    best: tuple[float, int] | None = None
    choice = ","
    for index, delimiter in enumerate(_DELIMITERS):
        if delimiter not in sample:
            continue
        try:
            rows = [
                r
                for r in csv.reader(io.StringIO(sample, newline=""), delimiter=delimiter)
                if any(c.strip() for c in r)
            ]
        except csv.Error:
            continue
        if not rows:
            continue
        counts = Counter(len(r) for r in rows)
        modal, freq = max(counts.items(), key=lambda kv: (kv[1], kv[0]))
        if modal < 2:
            continue
        score = (freq / len(rows), -index)
        if best is None or score > best:
            best, choice = score, delimiter
    return choice


def _first_line(text: str) -> str:
    ends = [i for i in (text.find("\n"), text.find("\r")) if i >= 0]
    return text[: min(ends)] if ends else text


def _parse(
    text: str, delimiter: str, notes: list[str], utf8: tuple[bytes, int] | None = None
) -> pd.DataFrame:
    """All rows as stripped text; columns are labelled 0, 1, ... by position.

    ``utf8``: the file's bytes and the offset where ``text`` starts in them, when ``text``
    is exactly their UTF-8 decoding (spares the fast parse a copy of the file).
    """
    first = _first_line(text)
    if first.count(delimiter) + 1 > MAX_COLUMNS and _count_fields(first, delimiter) > MAX_COLUMNS:
        raise ValueError(f"The file has more than {MAX_COLUMNS:,} columns; that is the limit.")
    fast = _read_arrow(text, delimiter, utf8)
    if isinstance(fast, pd.DataFrame):
        return fast
    if len(text) > MAX_IRREGULAR_BYTES:
        raise ValueError(
            f"The file is larger than {MAX_IRREGULAR_BYTES // 2**20} MB and is not a regular "
            f"table ({fast}). Files this large must have the same number of cells in every "
            "row and closed quotes; fix the file, or save it as Parquet."
        )
    return _parse_careful(text, delimiter, notes)


def _parse_careful(text: str, delimiter: str, notes: list[str]) -> pd.DataFrame:
    """:func:`_parse` with pandas' C parser, then Python's csv module for irregular files."""
    frame: pd.DataFrame | None = None
    try:
        frame = _read_c(text, delimiter, None)
    except (pd.errors.ParserError, ValueError, OverflowError):
        width = _max_fields_bound(text, delimiter)
        if width <= MAX_COLUMNS:
            try:
                frame = _read_c(text, delimiter, width)
            except (pd.errors.ParserError, ValueError, OverflowError):
                frame = None
    if frame is None:
        frame = _read_python(text, delimiter)
        notes.append(f"{_IRREGULAR_QUOTING}; it was read with a lenient parser. Check the preview.")
    if frame.shape[1] > MAX_COLUMNS:
        raise ValueError(f"The file has more than {MAX_COLUMNS:,} columns; that is the limit.")
    if frame.shape[0] > MAX_ROWS + 1:
        raise ValueError(f"The file has more than {MAX_ROWS:,} data rows; that is the limit.")
    frame.columns = range(frame.shape[1])
    for col in frame.columns:
        frame[col] = frame[col].fillna("").astype(str).str.strip()
    return frame


def _read_arrow(
    text: str, delimiter: str, utf8: tuple[bytes, int] | None = None
) -> pd.DataFrame | str:
    """The fast parse: pyarrow's CSV reader, or the reason it steps aside (a str).

    Gives exactly the frame of :func:`_read_c` (every cell as stripped text, blank lines
    skipped) for files whose rows all have the same number of fields; pyarrow raises on
    anything else (ragged rows, an unterminated quote, a row longer than a block), and then
    the careful parsers run. Cells stay in Arrow memory (no Python object per cell), which is
    what makes a million rows take a fraction of a second. A file with more lines than
    :data:`MAX_ROWS` allows goes to the careful parser too, which stops reading at the limit.
    """
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.csv as pa_csv

    if utf8 is None:
        buffer = pa.py_buffer(text.encode("utf-8", "surrogatepass"))
    else:
        buffer = pa.py_buffer(utf8[0])[utf8[1] :]  # a view, not a copy
    if text.count("\n") + text.count("\r") > 2 * (MAX_ROWS + 2):
        return f"more than {MAX_ROWS:,} lines"
    try:
        table = pa_csv.read_csv(
            pa.BufferReader(buffer),
            read_options=pa_csv.ReadOptions(autogenerate_column_names=True, use_threads=False),
            parse_options=pa_csv.ParseOptions(
                delimiter=delimiter,
                quote_char='"',
                double_quote=True,
                escape_char=False,
                newlines_in_values=True,
                ignore_empty_lines=True,
            ),
            convert_options=pa_csv.ConvertOptions(
                check_utf8=False,
                strings_can_be_null=False,
                quoted_strings_can_be_null=False,
                auto_dict_encode=False,
                # Every column as text (names f0, f1, ... that a file lacks are ignored).
                column_types={f"f{i}": pa.string() for i in range(MAX_COLUMNS + 1)},
                null_values=[],
                true_values=[],
                false_values=[],
            ),
        )
    except (pa.ArrowException, ValueError, OverflowError) as exc:
        return str(exc).strip().splitlines()[0][:200] if str(exc).strip() else "unreadable"
    if table.num_columns > MAX_COLUMNS:
        return f"more than {MAX_COLUMNS:,} columns"
    if table.num_rows > MAX_ROWS + 1:
        return f"more than {MAX_ROWS:,} rows"
    if not all(pa.types.is_string(t) or pa.types.is_large_string(t) for t in table.schema.types):
        return "a column that is not text"
    del buffer
    # Strip in Arrow, column by column, keeping the original where nothing changes (the
    # same Unicode whitespace as pandas' str.strip, which calls this kernel).
    columns = []
    for i in range(table.num_columns):
        column = table.column(i)
        trimmed = pc.utf8_trim_whitespace(column)
        columns.append(column if pc.all(pc.equal(trimmed, column)).as_py() else trimmed)
        del trimmed
    del table
    pa.default_memory_pool().release_unused()  # the reader's parse buffers, back to the system
    frame = pa.table(columns, names=[str(i) for i in range(len(columns))]).to_pandas()
    frame.columns = range(frame.shape[1])
    return frame


def _read_c(text: str, delimiter: str, width: int | None) -> pd.DataFrame:
    return pd.read_csv(
        io.StringIO(text),
        sep=delimiter,
        header=None,
        names=None if width is None else list(range(width)),
        index_col=False,
        dtype=str,
        keep_default_na=False,
        na_filter=False,
        engine="c",
        quotechar='"',
        doublequote=True,
        skip_blank_lines=True,
        nrows=MAX_ROWS + 2,
    )


def _count_fields(line: str, delimiter: str) -> int:
    try:
        row = next(csv.reader([line], delimiter=delimiter, strict=False), [])
    except csv.Error:
        return line.count(delimiter) + 1
    return len(row)


def _max_fields_bound(text: str, delimiter: str) -> int:
    """Upper bound on the fields of any single-line row: delimiters per line + 1."""
    raw = np.frombuffer(text.encode("utf-8", "surrogatepass"), dtype=np.uint8)
    breaks = np.flatnonzero((raw == 10) | (raw == 13))
    delims = np.flatnonzero(raw == ord(delimiter))
    if delims.size == 0:
        return 1
    per_line = np.bincount(np.searchsorted(breaks, delims))
    return int(per_line.max()) + 1


def _read_python(text: str, delimiter: str) -> pd.DataFrame:
    """Lenient fallback parse with Python's csv module (irregular quotes, ragged rows)."""
    rows: list[list[str]] = []
    width = 0
    try:
        for row in csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=False):
            if not row:
                continue
            width = max(width, len(row))
            if width > MAX_COLUMNS:
                raise ValueError(
                    f"The file has more than {MAX_COLUMNS:,} columns; that is the limit."
                )
            rows.append(row)
            if len(rows) > MAX_ROWS + 1:
                raise ValueError(
                    f"The file has more than {MAX_ROWS:,} data rows; that is the limit."
                )
    except csv.Error as exc:
        if "field larger than field limit" in str(exc):
            raise ValueError(
                f"A cell is longer than {csv.field_size_limit():,} characters; this is not a "
                "table of values."
            ) from None
        raise ValueError(f"The file cannot be split into rows and columns ({exc}).") from None
    if not rows:
        raise ValueError("The file is empty.")
    return pd.DataFrame([r + [""] * (width - len(r)) for r in rows], dtype=object)


def _looks_like_header(first: list[str], delimiter: str) -> bool:
    cells = [c for c in first if c != ""]
    if not cells:
        return False
    numbers, _ = _to_numbers(pd.Series(cells, dtype=object), delimiter, None)
    # A literal "nan" counts as a number here, so a first row of numbers and NaNs is data.
    spelled_nan = np.array([c.lower() in _NAN_SPELLINGS for c in cells])
    return not bool(np.any(~np.isnan(numbers) | spelled_nan))


def _column_names(first: list[str], positions: list[int]) -> list[str]:
    names: list[str] = []
    taken: set[str] = set()
    base = [c if c else f"column_{p + 1}" for c, p in zip(first, positions, strict=True)]
    reserved = set(base)
    for name in base:
        candidate, k = name, 2
        while candidate in taken or (candidate != name and candidate in reserved):
            candidate, k = f"{name}_{k}", k + 1
        taken.add(candidate)
        names.append(candidate)
    return names
