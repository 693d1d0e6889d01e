"""Reading populations from CSV files and writing them back: the untrusted-input boundary.

Every cell is read as text and numbers are converted by us; nothing in the file is ever
evaluated. Sizes are checked before anything is parsed (:data:`MAX_UPLOAD_BYTES`,
:data:`MAX_ROWS`, :data:`MAX_COLUMNS`). Every problem a user can cause with a file surfaces
as a :class:`ValueError` whose message can be shown as is. On the way out,
:func:`csv_safe_text` defuses cells a spreadsheet would run as formulas.

The papers are cited in full in :mod:`core.populations`.
"""

from __future__ import annotations

import csv
import io
import math
import os
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import pandas as pd

from core._validation import number_text, plural, quoted
from core.population import (
    LABEL_NAME_JOIN,
    Population,
    cluster_strata_message,
    suggest_bounds,
)

__all__ = [
    "MAX_COLUMNS",
    "MAX_ROWS",
    "MAX_UPLOAD_BYTES",
    "CsvTable",
    "csv_safe_text",
    "load_population_csv",
    "population_to_csv_bytes",
    "read_csv_table",
]

#: Largest upload accepted, in bytes (checked before anything is parsed). Reading a CSV file
#: takes about five times its size in memory (bench/bench_populations.py --memory: a 1 GB
#: file of 10 short columns peaks at 5.2 GB), so 512 MB keeps a read under about 3 GB.
MAX_UPLOAD_BYTES: int = 512 * 1024 * 1024


class _Default:
    """Marker: the limit in force when the file is read (:data:`MAX_UPLOAD_BYTES`)."""


DEFAULT_LIMIT = _Default()
#: Largest number of data rows accepted from a file (a register of 10⁸ records).
MAX_ROWS: int = 100_000_000
#: Largest CSV file read by the careful parsers (pandas' parser with a Python object per
#: cell, then Python's csv module), which take tens of times the file's size in memory;
#: larger files must be regular tables, which the fast parse reads.
MAX_IRREGULAR_BYTES: int = 50 * 1024 * 1024
#: Largest number of columns accepted from a CSV.
MAX_COLUMNS: int = 1_000

_MIN_VALUES = 3
_MAX_LABELS = 10_000
_MISSING_LABEL = "(missing)"
#: Joins the parts of a label built from several columns ("3 / 1").
_LABEL_JOIN = " / "

# --------------------------------------------------------------------------------------------
# CSV reading
# --------------------------------------------------------------------------------------------

_DELIMITERS = (",", ";", "\t", "|")
_SNIFF_CHARS = 64 * 1024
_IRREGULAR_QUOTING = "The file has irregular quoting"
_DELIM_NAMES = {",": "comma", ";": "semicolon", "\t": "tab", "|": "pipe"}

# Only signatures that no text header could start with (other binaries fail the NUL and
# control-byte checks anyway).
_BINARY_SIGNATURES = (
    (b"PK\x03\x04", "a ZIP archive or an Excel .xlsx workbook", "save the sheet as CSV first"),
    (b"\xd0\xcf\x11\xe0", "an old Excel .xls workbook", "save the sheet as CSV first"),
    (b"%PDF-", "a PDF document", ""),
    (b"\x89PNG", "a PNG image", ""),
    (b"\xff\xd8\xff", "a JPEG image", ""),
    (b"GIF87a", "a GIF image", ""),
    (b"GIF89a", "a GIF image", ""),
    (b"\x1f\x8b", "a gzip-compressed file", "decompress it first"),
    (b"\xfd7zXZ\x00", "an xz-compressed file", "decompress it first"),
    (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive", "extract it first"),
    (b"SQLite format 3\x00", "an SQLite database", "export the table as CSV first"),
    (b"\x7fELF", "a program", ""),
)

_NAN_SPELLINGS = frozenset({"nan", "+nan", "-nan"})
_PLAIN_NUMBER = r"[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|inf|infinity|nan)"
_US_THOUSANDS = re.compile(r"[+-]?[0-9]{1,3}(?:,[0-9]{3})+(?:\.[0-9]*)?")
_EU_DECIMAL = re.compile(r"[+-]?(?:[0-9]{1,3}(?:\.[0-9]{3})+|[0-9]*),[0-9]+")
_AMBIGUOUS = re.compile(r"[+-]?[0-9]{1,3}(?:,[0-9]{3})+")


@dataclass(frozen=True, eq=False)
class CsvTable:
    """A CSV file read as text, with the columns that can serve as values or labels.

    Attributes
    ----------
    frame : pandas.DataFrame
        Every data row (header excluded) and every column, as stripped text; blank cells are
        empty strings.
    numeric_columns : list of str
        Columns with at least 3 finite numbers: candidates for the value column.
    label_columns : list of str
        Columns with between 2 and 10,000 distinct entries (a blank counts as one entry):
        candidates for a stratum or cluster column.
    delimiter : str
        The field delimiter that was detected.
    has_header : bool
        Whether the first row was taken as column names.
    notes : tuple of str
        Messages for the user about how the file was read.
    """

    frame: pd.DataFrame
    numeric_columns: list[str]
    label_columns: list[str]
    delimiter: str
    has_header: bool
    notes: tuple[str, ...] = ()
    source_name: str | None = None
    _numbers: dict[str, tuple[np.ndarray, str | None]] = field(
        default_factory=dict, repr=False, compare=False
    )

    def column_values(self, column: str) -> np.ndarray:
        """A column converted to float64, NaN where a cell is blank or not a number.

        Uses the same conversion as :func:`load_population_csv`, including numbers written
        with thousands separators ("1,234") or a decimal comma ("1,5" in a semicolon file).

        Raises
        ------
        ValueError
            If the column does not exist.
        """
        if column not in self.frame.columns:
            raise ValueError(_unknown_column(column, self.frame.columns))
        if column not in self._numbers:
            self._numbers[column] = _to_numbers(self.frame[column], self.delimiter, column)
        return self._numbers[column][0]

    def label_cells(self, column: str) -> np.ndarray:
        """A column's cells as an object array of stripped text ("" where blank).

        Raises
        ------
        ValueError
            If the column does not exist.
        """
        if column not in self.frame.columns:
            raise ValueError(_unknown_column(column, self.frame.columns))
        # One Python string per distinct cell, shared by its rows (a label column of a
        # million rows has a few distinct entries).
        codes, uniques = pd.factorize(self.frame[column], use_na_sentinel=True)
        return np.append(np.asarray(uniques, dtype=object), "").astype(object)[codes]


def _unknown_column(column: Any, columns: Any) -> str:
    names = ", ".join(quoted(c) for c in list(columns)[:20])
    more = "" if len(columns) <= 20 else f" and {len(columns) - 20} more"
    return f"There is no column named {quoted(column)}. The columns are: {names}{more}."


def read_csv_table(source: Any) -> CsvTable:
    """Read a CSV file as a table of text cells, detecting its delimiter and header.

    Reading never evaluates anything from the file: cells are read as text by pandas' C
    parser (``dtype=str``, no NA conversion), whitespace is stripped, and numbers are
    converted by :meth:`CsvTable.column_values`.

    * Size: more than :data:`MAX_UPLOAD_BYTES` bytes is refused before parsing (a file-like
      object is read up to one byte past the limit); more than :data:`MAX_ROWS` data rows or
      :data:`MAX_COLUMNS` columns is refused too.
    * Decoding: UTF-8 (a byte-order mark is removed); UTF-16 or UTF-32 with a byte-order mark,
      and UTF-16 without one, are decoded with a note; other non-UTF-8 text is read as
      Windows-1252 (or Latin-1) with a note. Files with NUL or many control bytes, or with
      the signature of a known binary format (Excel, ZIP, PDF, images...), are refused.
    * Delimiter: each of ``, ; TAB |`` splits the first 64 KB with Python's ``csv`` reader;
      the one that gives at least two fields with the most consistent field count wins (ties
      go to the earlier candidate), else a comma. We score candidates ourselves rather than
      call ``csv.Sniffer``, whose regular expressions can take quadratic time on long quoted
      lines and which often picks a decimal comma as the delimiter.
    * Header: the first row is a header when none of its non-blank cells is a number. Blank
      names become ``column_k`` (k = position), duplicates get ``_2``, ``_3``...; without a
      header the columns are ``column_1``, ``column_2``...
    * Ragged rows: short rows are padded with blanks; cells beyond the header's width land in
      extra ``column_k`` columns. Rows whose cells are all blank are dropped.

    Parameters
    ----------
    source : str, os.PathLike, bytes or binary file-like
        A path, the file's bytes, or an object with ``read()`` (e.g. Streamlit's
        ``UploadedFile``; it is rewound first when it can seek).

    Returns
    -------
    CsvTable

    Raises
    ------
    ValueError
        With a message for the user when the file is missing, too large, empty, binary, not
        decodable, has no data row, or cannot be split into rows and columns.
    """
    data, source_name = _read_source_bytes(source)
    return csv_table_from_bytes(data, source_name)


def csv_table_from_bytes(data: bytes, source_name: str | None = None) -> CsvTable:
    """:func:`read_csv_table` on bytes already read (and checked against the size limit).

    Parameters
    ----------
    data : bytes
        The whole file.
    source_name : str, optional
        The file's name, kept as :attr:`CsvTable.source_name`.

    Returns
    -------
    CsvTable

    Raises
    ------
    ValueError
        As :func:`read_csv_table`.
    """
    text, notes = _decode(data)
    if not text or text.isspace():
        raise ValueError("The file is empty.")
    # Plain UTF-8 (no note on the encoding): the fast parse reads the file's own bytes.
    utf8 = None if notes else (data, 3 if data.startswith(b"\xef\xbb\xbf") else 0)
    delimiter, text = _excel_sep_line(text)
    if delimiter is None:
        delimiter = _sniff_delimiter(text)
    else:
        utf8 = None
        notes.append(f"The file's first line declares the delimiter ({_DELIM_NAMES[delimiter]}).")
        if not text.strip():
            raise ValueError("The file has no rows after its 'sep=' line.")
    raw = _parse(text, delimiter, notes, utf8)
    # Drop columns that are blank everywhere (padding) and rows that are blank everywhere.
    nonblank = np.column_stack([(raw[c] != "").to_numpy(dtype=bool) for c in raw.columns])
    keep_rows, keep_columns = nonblank.any(axis=1), nonblank.any(axis=0)
    if not (keep_rows.all() and keep_columns.all()):
        raw = raw.loc[keep_rows, keep_columns]
    if raw.shape[0] == 0:
        raise ValueError("The file holds no data: every cell is blank (only delimiters or spaces).")
    positions = [int(c) for c in raw.columns]
    first = [str(x) for x in raw.iloc[0].tolist()]
    has_header = _looks_like_header(first, delimiter)
    if has_header:
        names = _column_names(first, positions)
        frame = raw.iloc[1:]
        if frame.shape[0] == 0:
            raise ValueError(
                "The file has a header row but no data rows below it "
                f"(columns: {', '.join(quoted(n) for n in names[:20])})."
            )
        ragged = [n for n, f in zip(names, first, strict=True) if f == ""]
        if ragged and len(ragged) < len(names):
            notes.append(
                "Some rows have more cells than the header row or cells under a blank header; "
                f"those columns are named {', '.join(ragged[:5])}{'…' if len(ragged) > 5 else ''}."
            )
    else:
        names = [f"column_{p + 1}" for p in positions]
        frame = raw
        notes.append(
            "The first row holds numbers, so it was read as data; columns are named "
            "column_1, column_2, …"
        )
    if frame.shape[0] > MAX_ROWS:
        raise ValueError(f"The file has more than {MAX_ROWS:,} data rows; that is the limit.")
    frame = frame.reset_index(drop=True)
    frame.columns = names
    table = CsvTable(
        frame=frame,
        numeric_columns=[],
        label_columns=[],
        delimiter=delimiter,
        has_header=has_header,
        notes=(),
        source_name=source_name,
    )
    numeric, labels = [], []
    for name in names:
        numbers = table.column_values(name)
        if int(np.count_nonzero(np.isfinite(numbers))) >= _MIN_VALUES:
            numeric.append(name)
            conversion_note = table._numbers[name][1]
            if conversion_note:
                notes.append(conversion_note)
        # Keep only the text: 8 bytes per cell for every column would outweigh the file;
        # column_values converts the one column asked for again (a fraction of a second).
        del table._numbers[name], numbers
        if 2 <= _distinct_up_to(frame[name], _MAX_LABELS) <= _MAX_LABELS:
            labels.append(name)
    object.__setattr__(table, "numeric_columns", numeric)
    object.__setattr__(table, "label_columns", labels)
    object.__setattr__(table, "notes", tuple(notes))
    return table


def _distinct_up_to(cells: pd.Series, limit: int) -> int:
    """The number of distinct cells, or some number above ``limit`` once it is exceeded.

    Counts the head of the column first, so an id column (all distinct) is rejected without
    hashing a million cells.
    """
    head = cells.iloc[: 5 * limit]
    n_head = int(head.nunique(dropna=False))
    if n_head > limit or len(head) == len(cells):
        return n_head
    return int(cells.nunique(dropna=False))


def _read_source_bytes(
    source: Any, max_bytes: int | _Default | None = DEFAULT_LIMIT
) -> tuple[bytes, str | None]:
    """The raw bytes of a path, bytes object or binary file-like, refusing oversize input.

    ``max_bytes``: the size limit (default :data:`MAX_UPLOAD_BYTES`, read at call time);
    ``None`` reads a file of any size (a file the server was started with, never an upload).
    """
    if max_bytes is None:  # no limit: read everything (read(-1))
        limit, chunk = 1 << 62, -1
    else:
        limit = MAX_UPLOAD_BYTES if isinstance(max_bytes, _Default) else int(max_bytes)
        chunk = limit + 1
    too_big = f"The file is larger than {limit // 2**20:,} MB, the upload limit."
    if isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source)
        if len(data) > limit:
            raise ValueError(too_big)
        return data, None
    if isinstance(source, (str, os.PathLike)):
        path = Path(source)
        try:
            is_file = path.is_file()
        except (OSError, ValueError):
            is_file = False
        if not is_file:
            raise ValueError(f"There is no file at {quoted(path, 200)}.")
        try:
            if path.stat().st_size > limit:
                raise ValueError(too_big)
            with path.open("rb") as fh:
                data = fh.read(chunk)
        except OSError as exc:
            raise ValueError(
                f"The file {quoted(path, 200)} cannot be read: {exc.strerror}."
            ) from None
        if len(data) > limit:
            raise ValueError(too_big)
        return data, path.name
    if hasattr(source, "read"):
        seek = getattr(source, "seek", None)
        if callable(seek):
            try:
                seek(0)
            except (OSError, ValueError):
                pass
        try:
            data = source.read(chunk)
        except (OSError, ValueError) as exc:
            raise ValueError(f"The upload cannot be read: {exc}.") from None
        if isinstance(data, str):
            data = data.encode("utf-8", "surrogatepass")
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise TypeError("The file object's read() must return bytes.")
        data = bytes(data)
        if len(data) > limit:
            raise ValueError(too_big)
        name = getattr(source, "name", None)
        return data, name if isinstance(name, str) else None
    raise TypeError(f"Expected a path, bytes or a binary file object, got {type(source).__name__}.")


def _decode(data: bytes) -> tuple[str, list[str]]:
    """Text of the file and notes about its encoding; ValueError for binary content."""
    notes: list[str] = []
    if not data:
        raise ValueError("The file is empty.")
    for signature, what, advice in _BINARY_SIGNATURES:
        if data.startswith(signature):
            raise ValueError(
                f"This looks like {what}, not a CSV text file" + (f"; {advice}." if advice else ".")
            )
    text: str | None = None
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    elif data.startswith((b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff")):
        text = _decode_strict(data, "utf-32", "UTF-32")
        notes.append("The file is encoded as UTF-32; it was converted.")
    elif data.startswith((b"\xff\xfe", b"\xfe\xff")):
        text = _decode_strict(data, "utf-16", "UTF-16")
        notes.append("The file is encoded as UTF-16; it was converted.")
    elif b"\x00" in data:
        encoding = _utf16_without_bom(data)
        if encoding is None:
            raise ValueError(
                "This looks like a binary file (it contains NUL bytes), not a CSV text file."
            )
        text = _decode_strict(data, encoding, "UTF-16")
        notes.append("The file is encoded as UTF-16; it was converted.")
    if text is None:
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            if _control_share(data[:_SNIFF_CHARS].decode("latin-1")) > 0.01:
                raise ValueError(
                    "This looks like a binary file, not a CSV text file (it is not valid text)."
                ) from None
            try:
                text = data.decode("cp1252")
                notes.append(
                    "The file is not UTF-8; it was read as Windows-1252. Check that accented "
                    "letters look right, or save the file as UTF-8."
                )
            except UnicodeDecodeError:
                text = data.decode("latin-1")
                notes.append(
                    "The file is not UTF-8; it was read as Latin-1. Check that accented letters "
                    "look right, or save the file as UTF-8."
                )
    if "\x00" in text:
        raise ValueError("This looks like a binary file (it contains NUL characters).")
    if _control_share(text[:_SNIFF_CHARS]) > 0.01:
        raise ValueError(
            "This looks like a binary file, not a CSV text file (it is full of control bytes)."
        )
    return text, notes


def _decode_strict(data: bytes, codec: str, label: str) -> str:
    try:
        return data.decode(codec)
    except UnicodeDecodeError:
        raise ValueError(f"The file looks like {label} text but is not valid {label}.") from None


def _utf16_without_bom(data: bytes) -> str | None:
    """'utf-16-le' or 'utf-16-be' when NULs sit at every other byte, as in ASCII UTF-16."""
    sample = data[: 2 * 4096]
    if len(sample) < 4 or len(sample) % 2:
        return None
    even, odd = sample[0::2], sample[1::2]
    nul_even, nul_odd = even.count(0) / len(even), odd.count(0) / len(odd)
    if nul_odd > 0.9 and nul_even < 0.1:
        return "utf-16-le"
    if nul_even > 0.9 and nul_odd < 0.1:
        return "utf-16-be"
    return None


_CONTROL = re.compile(r"[\x00-\x08\x0b\x0e-\x1f\x7f]")


def _control_share(text: str) -> float:
    if not text:
        return 0.0
    return len(_CONTROL.findall(text)) / len(text)


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


def _to_numbers(
    cells: pd.Series, delimiter: str, column: str | None
) -> tuple[np.ndarray, str | None]:
    """Convert text cells to float64 (NaN if not a number); also a note on separators.

    A cell is a number when it matches a plain decimal grammar: optional sign, digits with an
    optional decimal point, optional exponent (``-1.5``, ``.5``, ``2.``, ``6.02e23``), or one
    of ``inf``, ``infinity``, ``nan`` in any case. Matching cells are converted with correct
    rounding (the same double as Python's ``float``). Other cells are tried as numbers with
    thousands separators ("1,234,567.5") or with a decimal comma ("1,5", "1.234,5"); a bare
    "1,234" counts as a decimal comma only in a semicolon-delimited file (the European
    convention) and as thousands otherwise. Everything else becomes NaN. Nothing else
    (hexadecimal, underscores, currency signs, percentages) is interpreted.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    text = cells.astype(str)
    values = np.full(len(text), np.nan)
    if len(text) == 0:
        return values, None
    # Vectorised in Arrow (a million cells in a few hundredths of a second): the grammar test
    # with RE2, then Arrow's string-to-double cast, which rounds correctly like float().
    strings = pa.array(text, type=pa.large_string())
    plain_mask = pc.match_substring_regex(strings, f"^(?:{_PLAIN_NUMBER})$", ignore_case=True)
    plain = plain_mask.to_numpy(zero_copy_only=False)
    if plain.any():
        try:
            values[plain] = pc.cast(pc.filter(strings, plain_mask), pa.float64()).to_numpy(
                zero_copy_only=False
            )
        except (pa.ArrowException, ValueError, TypeError, OverflowError):
            subset = text[plain]
            values[plain] = pd.to_numeric(subset, errors="coerce").to_numpy(dtype=np.float64)
    failed = ~plain & pc.not_equal(strings, "").to_numpy(zero_copy_only=False)
    if not failed.any():
        return values, None
    candidates = text[failed]
    has_comma = candidates.str.contains(",", regex=False)
    if not has_comma.any():
        return values, None
    candidates = candidates[has_comma]
    us = candidates.str.fullmatch(_US_THOUSANDS.pattern)
    eu = candidates.str.fullmatch(_EU_DECIMAL.pattern)
    ambiguous = candidates.str.fullmatch(_AMBIGUOUS.pattern)
    us_only = bool((us & ~ambiguous).any())
    eu_only = bool((eu & ~ambiguous).any())
    if eu_only and not us_only:
        european = True
    elif us_only and not eu_only:
        european = False
    else:
        european = delimiter == ";"
    if european:
        mask = eu
        converted = candidates[mask].str.replace(".", "", regex=False).str.replace(",", ".")
        how = "a decimal comma (e.g. '1,5' = 1.5)"
    else:
        mask = us
        converted = candidates[mask].str.replace(",", "", regex=False)
        how = "commas as thousands separators (e.g. '1,234' = 1234)"
    if not mask.any():
        return values, None
    parsed = pd.to_numeric(converted, errors="coerce")
    index = np.flatnonzero(failed)[has_comma.to_numpy()][mask.to_numpy()]
    values[index] = np.asarray(parsed, dtype=np.float64)
    prefix = f"Column {quoted(column)}: read" if column is not None else "Read"
    note = f"{prefix} {plural(int(mask.sum()), 'cell')} as numbers written with {how}."
    return values, note


# --------------------------------------------------------------------------------------------
# Population from CSV
# --------------------------------------------------------------------------------------------


def load_population_csv(
    source: Any,
    *,
    value_column: str | None = None,
    lower: float | None = None,
    upper: float | None = None,
    stratum_column: str | Sequence[str] | None = None,
    cluster_column: str | Sequence[str] | None = None,
    name: str | None = None,
) -> Population:
    """Build a :class:`Population` from a CSV file.

    Parameters
    ----------
    source : str, os.PathLike, bytes, binary file-like or CsvTable
        As for :func:`read_csv_table`; an already read :class:`CsvTable` is used as is.
    value_column : str, optional
        Column of values; default the first numeric column. Blank, non-numeric and infinite
        cells are dropped (with their rows) and counted in a note.
    lower, upper : float, optional
        Declared public bounds (Hu et al. (2023), §2.2: the range R must not be read from the data).
        Values outside are clipped to them, with a note. A bound left as None is taken from
        the data with :func:`suggest_bounds`, with a warning that such bounds are not
        differentially private.
    stratum_column, cluster_column : str or sequence of str, optional
        Label columns for stratified sampling (Bun et al. (2022), §7) and cluster sampling
        (§5). A list of several columns builds one id from all of them: survey files number
        their PSUs 1, 2, ... within each stratum, so ``cluster_column=["stratid", "psuid"]``
        is the cluster id there. Combined labels read ``"3 / 1"`` (the parts joined by
        ``" / "``) and the label name ``"stratid × psuid"``. Blank cells become
        ``"(missing)"``. Labels are reordered together with the values (stable sort). When
        cluster labels occur in more than one stratum, the text of
        :func:`cluster_strata_note` is added to the notes.
    name : str, optional
        Display name; default built from the file name and the value column.

    Returns
    -------
    Population

    Raises
    ------
    ValueError
        Any problem with the file (see :func:`read_csv_table`), an unknown column, a value
        column with fewer than 3 usable numbers, or bounds that are not finite with
        lower < upper.
    """
    table = source if isinstance(source, CsvTable) else read_csv_table(source)
    return population_from_table(
        table,
        value_column=value_column,
        lower=lower,
        upper=upper,
        stratum_column=stratum_column,
        cluster_column=cluster_column,
        name=name,
    )


class PopulationTable(Protocol):
    """What :func:`population_from_table` needs of a table read from a file.

    :class:`CsvTable` and :class:`core.file_io.FileTable` provide it.
    """

    @property
    def frame(self) -> pd.DataFrame: ...

    @property
    def numeric_columns(self) -> list[str]: ...

    @property
    def notes(self) -> tuple[str, ...]: ...

    @property
    def source_name(self) -> str | None: ...

    def column_values(self, column: str) -> np.ndarray: ...

    def label_cells(self, column: str) -> np.ndarray: ...


def population_from_table(
    table: PopulationTable,
    *,
    value_column: str | None = None,
    lower: float | None = None,
    upper: float | None = None,
    stratum_column: str | Sequence[str] | None = None,
    cluster_column: str | Sequence[str] | None = None,
    name: str | None = None,
    loader: str = "load_population_csv",
    default_file: str = "population.csv",
) -> Population:
    """The :class:`Population` of a table read from a file (CSV or any other format).

    The arguments from ``value_column`` to ``name`` are those of
    :func:`load_population_csv`, with the same meaning and checks. ``loader`` names the
    public function whose call, with the file's name (``default_file`` when the table has
    none) and the chosen arguments, becomes the population's ``recipe``.

    Returns
    -------
    Population

    Raises
    ------
    ValueError
        An unknown column, a value column with fewer than 3 usable numbers, or bounds that
        are not finite with lower < upper.
    """
    columns = list(table.frame.columns)
    if value_column is None:
        if not table.numeric_columns:
            hint = (
                " The file has irregular quoting (an unmatched '\"' can swallow the rest of "
                "the file); check the quotes."
                if any(n.startswith(_IRREGULAR_QUOTING) for n in table.notes)
                else ""
            )
            raise ValueError(
                "No column holds at least 3 numbers, so there is no value column. Columns: "
                + ", ".join(quoted(c) for c in columns[:20])
                + "."
                + hint
            )
        value_column = table.numeric_columns[0]
    stratum_columns = _column_list(stratum_column, "stratum")
    cluster_columns = _column_list(cluster_column, "cluster")
    for col in [value_column, *stratum_columns, *cluster_columns]:
        if col not in columns:
            raise ValueError(_unknown_column(col, columns))
    numbers = table.column_values(value_column)
    usable = np.isfinite(numbers)
    n_usable = int(np.count_nonzero(usable))
    notes: list[str] = []
    if n_usable < _MIN_VALUES:
        raise ValueError(
            f"Column {quoted(value_column)} has {plural(n_usable, 'usable number')}; at least "
            f"{_MIN_VALUES} are needed."
        )
    dropped = numbers.size - n_usable
    if dropped:
        notes.append(
            f"Dropped {plural(dropped, 'row')} whose value was blank, not a number or infinite."
        )
    values = numbers[usable]
    declared_lo, declared_hi = _check_bound(lower, "lower"), _check_bound(upper, "upper")
    if declared_lo is not None and declared_hi is not None and not declared_lo < declared_hi:
        raise ValueError(
            f"The lower bound ({number_text(declared_lo)}) must be smaller than the upper bound "
            f"({number_text(declared_hi)})."
        )
    data_lo, data_hi = suggest_bounds(values)
    lo = declared_lo if declared_lo is not None else data_lo
    hi = declared_hi if declared_hi is not None else data_hi
    if declared_lo is None and declared_hi is not None and lo >= hi:
        lo = min(data_lo, hi - max(1.0, abs(hi)))
    if declared_hi is None and declared_lo is not None and hi <= lo:
        hi = max(data_hi, lo + max(1.0, abs(lo)))
    if not lo < hi:
        raise ValueError(f"The bounds [{number_text(lo)}, {number_text(hi)}] are empty.")
    if declared_lo is not None or declared_hi is not None:
        n_below = int(np.count_nonzero(values < lo))
        n_above = int(np.count_nonzero(values > hi))
        if n_below or n_above:
            notes.append(
                f"Clipped {plural(n_below + n_above, 'value')} to the declared bounds "
                f"[{number_text(lo)}, {number_text(hi)}] ({n_below:,} below, {n_above:,} above)."
            )
            values = np.clip(values, lo, hi)
        notes.append(
            "Declared bounds must be public knowledge (a legal limit, a top-code, a physical "
            "range), not read from this data."
        )
    if declared_lo is None or declared_hi is None:
        which = (
            "Both bounds were"
            if declared_lo is None and declared_hi is None
            else ("The lower bound was" if declared_lo is None else "The upper bound was")
        )
        notes.append(
            f"{which} read from the data (range rounded outward to "
            f"[{number_text(lo)}, {number_text(hi)}]). "
            "Bounds read from the data are not differentially private; declare public bounds "
            "instead."
        )
    if stratum_columns or cluster_columns:
        order = np.argsort(values, kind="stable")
        values = values[order]
    else:
        order = np.arange(0)  # no labels to reorder: sort the values alone (faster)
        values = np.sort(values, kind="stable")
    strata = _labels(table, stratum_columns, usable, order, notes, "stratum")
    clusters = _labels(table, cluster_columns, usable, order, notes, "cluster")
    stratum_label = LABEL_NAME_JOIN.join(stratum_columns) or "stratum"
    cluster_label = LABEL_NAME_JOIN.join(cluster_columns) or "cluster"
    if strata is not None and clusters is not None:
        shared = cluster_strata_message(strata, clusters, stratum_label, cluster_label)
        if shared is not None:
            notes.append(shared)
    if name is None:
        origin = table.source_name or "the uploaded file"
        name = f"{value_column} from {origin}, N = {n_usable:,}"
    file_name = table.source_name or default_file
    args = [
        repr(file_name),
        f"value_column={str(value_column)!r}",
        f"lower={lo!r}",
        f"upper={hi!r}",
    ]
    for keyword, chosen in (
        ("stratum_column", stratum_columns),
        ("cluster_column", cluster_columns),
    ):
        if len(chosen) == 1:
            args.append(f"{keyword}={chosen[0]!r}")
        elif chosen:
            args.append(f"{keyword}={chosen!r}")
    return Population(
        name=name,
        values=values,
        lower=lo,
        upper=hi,
        strata=strata,
        clusters=clusters,
        value_label=str(value_column),
        notes=tuple(list(table.notes) + notes),
        stratum_label=stratum_label,
        cluster_label=cluster_label,
        recipe=f"{loader}({', '.join(args)})",
    )


def _check_bound(x: Any, which: str) -> float | None:
    if x is None:
        return None
    try:
        v = float(x)
    except (TypeError, ValueError):
        raise ValueError(f"The {which} bound must be a number, got {quoted(x)}.") from None
    if not math.isfinite(v):
        raise ValueError(f"The {which} bound must be a finite number, got {x!r}.")
    return v


def _column_list(column: Any, what: str) -> list[str]:
    """The label column argument as a list of column names (empty for None)."""
    if column is None:
        return []
    if isinstance(column, str):
        return [column]
    if not isinstance(column, (list, tuple)):
        raise ValueError(
            f"The {what} column must be a column name or a list of column names, got "
            f"{quoted(column)}."
        )
    names = list(column)
    for c in names:
        if not isinstance(c, str):
            raise ValueError(f"The {what} columns must be column names, got {quoted(c)}.")
    twice = [c for c, k in Counter(names).items() if k > 1]
    if twice:
        raise ValueError(f"The {what} columns name {quoted(twice[0])} more than once.")
    return names


def _labels(
    table: PopulationTable,
    columns: list[str],
    usable: np.ndarray,
    order: np.ndarray,
    notes: list[str],
    what: str,
) -> np.ndarray | None:
    """Label cells of the usable rows in value order; several columns joined as "a / b"."""
    if not columns:
        return None
    parts = []
    blank_rows = np.zeros(int(np.count_nonzero(usable)), dtype=bool)
    for column in columns:
        cells = table.label_cells(column)[usable][order]
        blank = cells == ""
        if blank.any():
            cells = cells.copy()
            cells[blank] = _MISSING_LABEL
            blank_rows |= blank
        parts.append(cells)
    if blank_rows.any():
        where = " or ".join(quoted(c) for c in columns)
        part = "label part" if len(columns) > 1 else "label"
        notes.append(
            f"Gave the {what} {part} {_MISSING_LABEL!r} to "
            f"{plural(int(blank_rows.sum()), 'row')} whose cell in {where} is blank."
        )
    if len(parts) == 1:
        return parts[0]
    joined = parts[0].astype(str)
    for cells in parts[1:]:
        joined = np.char.add(np.char.add(joined, _LABEL_JOIN), cells.astype(str))
    return joined.astype(object)


# --------------------------------------------------------------------------------------------
# CSV writing
# --------------------------------------------------------------------------------------------


def csv_safe_text(s: str) -> str:
    """Neutralise a spreadsheet formula in a text cell by prefixing a single quote.

    Spreadsheet programs run a cell that starts with ``=``, ``+``, ``-`` or ``@`` as a
    formula (and some strip a leading tab or carriage return first), which lets a crafted
    label such as ``=cmd|' /C calc'!A0`` run code when a downloaded CSV is opened (OWASP,
    "CSV injection"). Apply this to column names and label cells, never to numbers: a
    negative number must stay a number.
    """
    s = str(s)
    if s and s[0] in "=+-@\t\r":
        return "'" + s
    return s


def _format_numbers(values: np.ndarray) -> list[str]:
    if values.size and np.all(values == np.round(values)) and np.max(np.abs(values)) < 2**53:
        return values.astype(np.int64).astype(str).tolist()
    return [repr(v) for v in values.tolist()]


def population_to_csv_bytes(pop: Population) -> bytes:
    """The population as UTF-8 CSV for download: values, then stratum and cluster labels.

    Whole numbers are written without a decimal point, other values with the shortest text
    that reads back to the same float64. Column names and label cells pass through
    :func:`csv_safe_text`; numbers do not.
    """
    header = [csv_safe_text(pop.value_label)]
    columns: list[list[str]] = [_format_numbers(pop.values)]
    for labels, label in ((pop.strata, pop.stratum_label), (pop.clusters, pop.cluster_label)):
        if labels is not None:
            header.append(csv_safe_text(label))
            if labels.dtype.kind == "i":  # integer labels are numbers: written as they are
                columns.append(labels.astype(str).tolist())
            else:
                columns.append([csv_safe_text(x) for x in labels.tolist()])
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(zip(*columns, strict=True))
    return out.getvalue().encode("utf-8")
