"""A CSV file as a table of text cells: :class:`CsvTable` and :func:`read_csv_table`.

The file's bytes, decoded and parsed, with the columns that hold numbers or usable labels
and the notes on how the file was read.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from .._validation import quoted
from ..csv_io.numbers import _to_numbers
from ..csv_io.parsing import (
    _DELIM_NAMES,
    MAX_ROWS,
    _column_names,
    _excel_sep_line,
    _looks_like_header,
    _parse,
    _sniff_delimiter,
)
from ..csv_io.source import _decode, _read_source_bytes

__all__ = [
    "CsvTable",
    "read_csv_table",
]


_MIN_VALUES = 3
_MAX_LABELS = 10_000


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

    def distinct_entries(self, column: str) -> tuple[np.ndarray, np.ndarray]:
        """The column's distinct cells as numbers (NaN where blank or not a number, as
        :meth:`column_values` reads them) and the number of rows holding each.

        Only the distinct cells are converted: a label column of a million rows has a few.

        Raises
        ------
        ValueError
            If the column does not exist.
        """
        if column not in self.frame.columns:
            raise ValueError(_unknown_column(column, self.frame.columns))
        counts = self.frame[column].value_counts(dropna=False, sort=False)
        counts = counts[counts > 0]  # a categorical column lists unused categories
        cells = pd.Series(counts.index.astype(object), dtype=object)
        cells = cells.where(cells.notna(), "").astype(str)
        numbers = _to_numbers(cells, self.delimiter, column)[0]
        return numbers, counts.to_numpy(dtype=np.int64)

    def label_cells(self, column: str) -> np.ndarray:
        """A column's cells as an object array of stripped text ("" where blank).

        Raises
        ------
        ValueError
            If the column does not exist.
        """
        codes, text = self.label_codes(column)
        return text[codes]

    def label_codes(self, column: str) -> tuple[np.ndarray, np.ndarray]:
        """The column's cells as codes into their text: ``text[codes]`` is
        :meth:`label_cells`. ``text`` holds each distinct cell once (the last entry, "", for
        blank cells), so a label column of a million rows is read without a string per row.

        Raises
        ------
        ValueError
            If the column does not exist.
        """
        if column not in self.frame.columns:
            raise ValueError(_unknown_column(column, self.frame.columns))
        codes, uniques = pd.factorize(self.frame[column], use_na_sentinel=True)
        return codes, np.append(np.asarray(uniques, dtype=object), "").astype(object)


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
