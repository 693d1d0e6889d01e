"""Reading populations from the files statistical agencies hold: CSV, Parquet, Stata, SAS, SPSS.

One entry, :func:`load_population_file`, picks the reader from the file's name *and* checks
the file's first bytes, so a file whose name does not match its content is refused with a
message saying what it really is. Every format gives the guarantees of the CSV loader
(:func:`core.csv_io.load_population_csv`, whose population builder is shared):

* a :class:`~core.population.Population`, or a :class:`ValueError` whose message can be
  shown as is;
* nothing from the file is executed: Parquet is read with pyarrow without its pandas
  metadata, Stata, SPSS and SAS with pyreadstat; neither unpickles or evaluates anything;
* limits on bytes, rows and columns (:data:`~core.csv_io.MAX_UPLOAD_BYTES`,
  :data:`~core.csv_io.MAX_ROWS`, :data:`~core.csv_io.MAX_COLUMNS`), checked from the file's
  own header before the data are read where the format states its size;
* blank and non-numeric values dropped and counted, values outside declared bounds clipped
  and counted;
* Stata and SPSS value labels shown as the labels of strata and clusters (``"North"``, not
  the code ``1``).

:func:`read_file_table` reads a file as a table whose columns can be listed before the
value, stratum and cluster columns are chosen (the upload form uses it).

The papers are cited in full in :mod:`core.populations`.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import PurePath
from typing import Any

import numpy as np
import pandas as pd

from ._validation import plural, quoted
from .csv_io import (
    DEFAULT_LIMIT,
    MAX_COLUMNS,
    MAX_ROWS,
    CsvTable,
    _Default,
    _read_source_bytes,
    _to_numbers,
    _unknown_column,
    csv_table_from_bytes,
    population_from_table,
)
from .population import Population

__all__ = [
    "FILE_FORMATS",
    "UPLOAD_EXTENSIONS",
    "FileTable",
    "detect_format",
    "load_population_file",
    "read_file_table",
]

#: Format key -> the name shown to users.
FILE_FORMATS: dict[str, str] = {
    "csv": "CSV",
    "parquet": "Parquet",
    "stata": "Stata (.dta)",
    "spss": "SPSS (.sav)",
    "sas7bdat": "SAS (.sas7bdat)",
    "xport": "SAS transport (.xpt)",
}

#: File name ending (lower case, without the dot) -> format key.
_EXTENSIONS: dict[str, str] = {
    "csv": "csv",
    "tsv": "csv",
    "txt": "csv",
    "parquet": "parquet",
    "pq": "parquet",
    "dta": "stata",
    "sav": "spss",
    "zsav": "spss",
    "sas7bdat": "sas7bdat",
    "xpt": "xport",
}

#: The endings the upload form accepts.
UPLOAD_EXTENSIONS: tuple[str, ...] = tuple(_EXTENSIONS)

#: The 32-byte magic number that opens every SAS7BDAT file.
_SAS7BDAT_MAGIC = bytes(12) + bytes.fromhex("c2ea8160b31411cfbd92080009c7318c181f1011")
#: First byte of the Stata formats before 117 (each names its version).
_OLD_STATA_VERSIONS = frozenset({104, 105, 108, 110, 111, 113, 114, 115})
#: Cells of a label column at most this many distinct entries (as for CSV).
_MAX_LABELS = 10_000
_MIN_VALUES = 3


def detect_format(data: bytes) -> str | None:
    """The binary format a file's first bytes announce, or None for anything else (text).

    Signatures: Parquet opens with ``PAR1``; SPSS with ``$FL2`` (``$FL3`` when compressed,
    .zsav); Stata 117 and later with ``<stata_dta>``, earlier Stata with its version byte
    (104-115), a byte-order byte (1 or 2) and the file type 1; SAS transport with
    ``HEADER RECORD*******LIB``; SAS7BDAT with its 32-byte magic number.

    Parameters
    ----------
    data : bytes
        The file, or at least its first 32 bytes.

    Returns
    -------
    str or None
        A key of :data:`FILE_FORMATS` other than ``"csv"``, or None.
    """
    head = bytes(data[:64])
    if head.startswith(b"PAR1"):
        return "parquet"
    if head.startswith((b"$FL2", b"$FL3")):
        return "spss"
    if head.startswith(b"<stata_dta>"):
        return "stata"
    if len(head) >= 4 and head[0] in _OLD_STATA_VERSIONS and head[1] in (1, 2) and head[2] == 1:
        return "stata"
    if head.startswith(b"HEADER RECORD*******LIB"):
        return "xport"
    if head.startswith(_SAS7BDAT_MAGIC):
        return "sas7bdat"
    return None


def _format_from_name(filename: str | None) -> str | None:
    """The format key a file name's ending names, or None (no name, unknown ending)."""
    if not filename:
        return None
    suffix = PurePath(filename).suffix.lower().lstrip(".")
    return _EXTENSIONS.get(suffix)


def _choose_format(data: bytes, filename: str | None) -> str:
    """The format to read: the content's signature, checked against the name's ending."""
    named = _format_from_name(filename)
    found = detect_format(data)
    if found is not None and named is not None and found != named:
        raise ValueError(
            f"This file is {_a(FILE_FORMATS[found])} file, not {FILE_FORMATS[named]} as its name "
            f"{quoted(filename)} says. Rename it to end in .{_ending(found)}, or export it "
            "again."
        )
    if found is None and named is not None and named != "csv":
        if not data:
            raise ValueError("The file is empty.")
        what = "text (a CSV file?)" if _looks_like_text(data) else "not a file of that kind"
        raise ValueError(
            f"The file's name {quoted(filename)} says {FILE_FORMATS[named]}, but its content is "
            f"{what}: it does not start as every {FILE_FORMATS[named]} file does. It may be "
            "damaged, or saved in another format under this name."
        )
    return found or "csv"


def _a(name: str) -> str:
    """The format's name with its article ("an SPSS (.sav)", "a Parquet")."""
    return f"an {name}" if name.startswith("SPSS") else f"a {name}"


def _ending(fmt: str) -> str:
    return next(ext for ext, key in _EXTENSIONS.items() if key == fmt)


def _looks_like_text(data: bytes) -> bool:
    head = bytes(data[:4096])
    if not head or b"\x00" in head:
        return False
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.start < len(head) - 4:  # not merely a character cut at the end
            return False
    return True


# --------------------------------------------------------------------------------------------
# The table of a binary file
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class FileTable:
    """A Parquet, Stata, SAS or SPSS file read as a table of typed columns.

    Attributes
    ----------
    frame : pandas.DataFrame
        The columns as the file stores them (numbers stay numbers; for Stata and SPSS, a
        column with value labels holds its codes).
    file_format : str
        A key of :data:`FILE_FORMATS`.
    notes : tuple of str
        Messages for the user about how the file was read.
    source_name : str or None
        The file's name.
    value_labels : dict
        Column -> {code: label} for the Stata and SPSS columns that carry value labels.
    left_out : dict
        Column -> reason, for columns that cannot serve as values or labels (nested Parquet
        columns); they are not in ``frame``.
    """

    frame: pd.DataFrame
    file_format: str
    notes: tuple[str, ...] = ()
    source_name: str | None = None
    value_labels: dict[str, dict[float, str]] = field(default_factory=dict)
    left_out: dict[str, str] = field(default_factory=dict)
    _numbers: dict[str, np.ndarray] = field(default_factory=dict, repr=False, compare=False)

    @property
    def format_name(self) -> str:
        """The format's name for users ("Parquet", "SPSS (.sav)", ...)."""
        return FILE_FORMATS[self.file_format]

    def _check(self, column: str) -> pd.Series:
        if column in self.left_out:
            raise ValueError(f"Column {quoted(column)} {self.left_out[column]}.")
        if column not in self.frame.columns:
            raise ValueError(_unknown_column(column, self.frame.columns))
        return self.frame[column]

    def column_values(self, column: str) -> np.ndarray:
        """A column as float64, NaN where a cell is missing or not a number.

        Number columns are converted as they are (a coded column gives its codes); text
        columns go through the CSV reader's conversion (:func:`core.csv_io._to_numbers`), so
        "1,234" and "1,5" read as they do in a CSV file; dates and other types are not
        numbers.

        Raises
        ------
        ValueError
            If the column does not exist or was left out.
        """
        series = self._check(column)
        if column not in self._numbers:
            self._numbers[column] = _series_numbers(series, column)
        return self._numbers[column]

    def distinct_entries(self, column: str) -> tuple[np.ndarray, np.ndarray]:
        """The column's distinct cells as numbers (NaN where missing or not a number, as
        :meth:`column_values` reads them; a coded column gives its codes) and the number
        of rows holding each.

        Only the distinct cells are converted, and nothing is kept.

        Raises
        ------
        ValueError
            If the column does not exist or was left out.
        """
        series = self._check(column)
        counts = series.value_counts(dropna=False, sort=False)
        counts = counts[counts > 0]  # a categorical column lists unused categories
        cells = pd.Series(counts.index, dtype=series.dtype)
        return _series_numbers(cells, column), counts.to_numpy(dtype=np.int64)

    def label_cells(self, column: str) -> np.ndarray:
        """A column's cells as an object array of text ("" where missing).

        Value labels replace the codes they label; codes without a label, and numbers,
        are written as numbers ("3", not "3.0").

        Raises
        ------
        ValueError
            If the column does not exist or was left out.
        """
        codes, text = self.label_codes(column)
        return text[codes]

    def label_codes(self, column: str) -> tuple[np.ndarray, np.ndarray]:
        """The column's cells as codes into their text: ``text[codes]`` is
        :meth:`label_cells`, and each distinct cell is converted once.

        Raises
        ------
        ValueError
            If the column does not exist or was left out.
        """
        series = self._check(column)
        return _series_labels(series, self.value_labels.get(column))

    @cached_property
    def numeric_columns(self) -> list[str]:
        """Columns with at least 3 finite numbers: candidates for the value column."""
        found = []
        for column in self.frame.columns:
            series = self.frame[column]
            if not (_is_number(series) or _is_text(series)):
                continue
            numbers = self._numbers.get(column)
            if numbers is None:  # not kept: 8 bytes per cell for every column adds up
                numbers = _series_numbers(series, column)
            if np.count_nonzero(np.isfinite(numbers)) >= _MIN_VALUES:
                found.append(column)
        return found

    @cached_property
    def label_columns(self) -> list[str]:
        """Columns with between 2 and 10,000 distinct entries: stratum or cluster candidates."""
        return [
            c for c in self.frame.columns if 2 <= self.frame[c].nunique(dropna=False) <= _MAX_LABELS
        ]


def _is_number(series: pd.Series) -> bool:
    return pd.api.types.is_numeric_dtype(series.dtype) and not pd.api.types.is_bool_dtype(
        series.dtype
    )


def _is_text(series: pd.Series) -> bool:
    return pd.api.types.is_string_dtype(series.dtype) or series.dtype == object


def _series_numbers(series: pd.Series, column: str) -> np.ndarray:
    if _is_number(series):
        return series.to_numpy(dtype=np.float64, na_value=np.nan)
    if _is_text(series) or isinstance(series.dtype, pd.CategoricalDtype):
        text = series.astype(object).where(series.notna(), "").astype(str).str.strip()
        return _to_numbers(text, ",", column)[0]
    return np.full(len(series), np.nan)


def _number_text(values: np.ndarray) -> np.ndarray:
    """Numbers as text: whole numbers without ".0", others as the shortest repr; NaN as ""."""
    out = np.full(values.shape, "", dtype=object)
    finite = np.isfinite(values)
    whole = finite & (values == np.round(values)) & (np.abs(values) < 2**53)
    out[whole] = values[whole].astype(np.int64).astype(str)
    rest = finite & ~whole
    if rest.any():
        out[rest] = [repr(v) for v in values[rest].tolist()]
    return out


def _series_labels(
    series: pd.Series, labels: dict[float, str] | None
) -> tuple[np.ndarray, np.ndarray]:
    """Cells as codes into their text, converted once per distinct value (a register has
    few distinct labels); code -1 (a missing cell) reads the last entry, ""."""
    codes, uniques = pd.factorize(series, use_na_sentinel=True)
    if _is_number(series):
        values = np.asarray(uniques, dtype=np.float64)
        text = _number_text(values)
        if labels:
            named = pd.Series(values).map(labels).to_numpy(dtype=object)
            has = pd.notna(named)
            text[has] = named[has]
    else:
        text = np.array([str(u).strip() for u in np.asarray(uniques, dtype=object)], dtype=object)
    return codes, np.append(text, "").astype(object)  # code -1 (missing): the last, ""


# --------------------------------------------------------------------------------------------
# Readers
# --------------------------------------------------------------------------------------------


def _too_many_rows(n: int) -> ValueError:
    return ValueError(f"The file has {n:,} rows; the limit is {MAX_ROWS:,} data rows.")


def _too_many_columns(n: int) -> ValueError:
    return ValueError(f"The file has {n:,} columns; the limit is {MAX_COLUMNS:,}.")


def _unreadable(fmt: str, exc: BaseException) -> ValueError:
    detail = str(exc).strip().splitlines()[0][:200] if str(exc).strip() else type(exc).__name__
    return ValueError(
        f"The file starts like {_a(FILE_FORMATS[fmt])} file but cannot be read; it may be "
        f"truncated or damaged ({detail})."
    )


def _read_parquet(
    data: bytes, columns: Sequence[str] | None
) -> tuple[pd.DataFrame, dict[str, str], list[str]]:
    """The flat columns of a Parquet file; nested ones are left out, with the reason."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    if not data.endswith(b"PAR1"):
        raise ValueError(
            "The file starts like a Parquet file but does not end like one; it is truncated "
            "(an interrupted download or copy?)."
        )
    try:
        parquet = pq.ParquetFile(pa.BufferReader(data))
        meta = parquet.metadata
        schema = parquet.schema_arrow
    except Exception as exc:  # untrusted input: any parser failure is the file's fault
        raise _unreadable("parquet", exc) from None
    if meta.num_rows > MAX_ROWS:
        raise _too_many_rows(meta.num_rows)
    if len(schema) > MAX_COLUMNS:
        raise _too_many_columns(len(schema))
    left_out: dict[str, str] = {}
    flat: list[str] = []
    for f in schema:
        if pa.types.is_nested(f.type):
            left_out[f.name] = f"holds nested values ({f.type}), not numbers or labels"
        else:
            flat.append(f.name)
    wanted = flat if columns is None else [c for c in flat if c in set(columns)]
    try:
        arrow = parquet.read(columns=wanted, use_threads=False)
        frame = arrow.to_pandas(ignore_metadata=True, types_mapper=None)
    except Exception as exc:  # untrusted input
        raise _unreadable("parquet", exc) from None
    return frame, left_out, [f.name for f in schema]


def _read_readstat(
    data: bytes, fmt: str, columns: Sequence[str] | None
) -> tuple[pd.DataFrame, dict[str, dict[float, str]], list[str]]:
    """A Stata, SPSS or SAS file with pyreadstat: codes, and the value labels of each column.

    pyreadstat (ReadStat) rather than pandas' readers: it gives each variable's value labels
    by name for Stata and SPSS, states the row count in the header, and reads SAS transport
    files of version 8 as well as 5 (pandas reads only version 5).
    """
    import pyreadstat

    readers = {"stata": "read_dta", "spss": "read_sav", "sas7bdat": "read_sas7bdat"}
    read: Callable[..., Any] = getattr(pyreadstat, readers.get(fmt, "read_xport"))
    try:
        _, meta = read(io.BytesIO(data), metadataonly=True)
    except Exception as exc:  # untrusted input: any parser failure is the file's fault
        raise _unreadable(fmt, exc) from None
    n_rows = meta.number_rows
    if n_rows is not None and n_rows > MAX_ROWS:
        raise _too_many_rows(n_rows)
    n_columns = int(meta.number_columns or 0)
    if n_columns > MAX_COLUMNS:
        raise _too_many_columns(n_columns)
    names = [str(c) for c in meta.column_names]
    usecols = None if columns is None else [c for c in names if c in set(columns)]
    if usecols == []:
        frame = pd.DataFrame(index=pd.RangeIndex(int(n_rows or 0)))
        return frame, {}, names
    try:
        frame, meta = read(io.BytesIO(data), usecols=usecols, row_limit=MAX_ROWS + 1)
    except Exception as exc:  # untrusted input
        raise _unreadable(fmt, exc) from None
    if len(frame) > MAX_ROWS:
        raise _too_many_rows(len(frame))
    labels = {
        str(column): {float(k): str(v) for k, v in mapping.items()}
        for column, mapping in (meta.variable_value_labels or {}).items()
        if column in frame.columns and _is_number(frame[column])
    }
    return frame, labels, names


def _binary_table(
    data: bytes, fmt: str, source_name: str | None, columns: Sequence[str] | None
) -> FileTable:
    notes: list[str] = []
    value_labels: dict[str, dict[float, str]] = {}
    left_out: dict[str, str] = {}
    if fmt == "parquet":
        frame, left_out, names = _read_parquet(data, columns)
    else:
        frame, value_labels, names = _read_readstat(data, fmt, columns)
    frame.columns = [str(c) for c in frame.columns]
    if len(set(names)) < len(names):
        raise ValueError("The file has two columns with the same name; rename one of them.")
    for column in columns or ():
        if column in left_out:
            raise ValueError(f"Column {quoted(column)} {left_out[column]}.")
        if column not in names:
            raise ValueError(_unknown_column(column, names))
    if frame.shape[1] == 0:
        if left_out:
            raise ValueError(
                "The file has no column of numbers or labels: "
                + "; ".join(f"{quoted(c)} {why}" for c, why in list(left_out.items())[:5])
                + "."
            )
        raise ValueError("The file has no columns.")
    if frame.shape[0] == 0:
        raise ValueError(
            "The file has no data rows (columns: "
            + ", ".join(quoted(c) for c in list(frame.columns)[:20])
            + ")."
        )
    for column, why in left_out.items():
        notes.append(f"Column {quoted(column)} {why}; it was left out.")
    for column, mapping in value_labels.items():
        shown = ", ".join(list(mapping.values())[:3])
        more = ", …" if len(mapping) > 3 else ""
        notes.append(
            f"Column {quoted(column)} has {plural(len(mapping), 'value label')} ({shown}{more}); "
            "as a stratum, cluster or category column it shows the labels, as a value column "
            "its codes."
        )
    return FileTable(
        frame=frame.reset_index(drop=True),
        file_format=fmt,
        notes=tuple(notes),
        source_name=source_name,
        value_labels=value_labels,
        left_out=left_out,
    )


def _source(
    source: Any, filename: str | None, max_bytes: int | _Default | None = DEFAULT_LIMIT
) -> tuple[bytes, str | None]:
    if filename is not None and not isinstance(filename, str):
        raise ValueError(f"filename must be a file name (text), got {quoted(filename)}.")
    data, found_name = _read_source_bytes(source, max_bytes)
    name = filename if filename else found_name
    if name is not None:
        name = PurePath(name).name or name
    return data, name


def read_file_table(
    source: Any,
    *,
    filename: str | None = None,
    columns: Sequence[str] | None = None,
    max_bytes: int | _Default | None = DEFAULT_LIMIT,
) -> CsvTable | FileTable:
    """Read a CSV, Parquet, Stata, SAS or SPSS file as a table whose columns can be listed.

    The format is taken from the file's content (its first bytes, see
    :func:`detect_format`) and checked against the ending of its name: a Parquet file named
    ``.csv``, or a ``.sav`` file that is not SPSS, is refused with a message saying so.
    Text goes to :func:`core.csv_io.read_csv_table`.

    Parameters
    ----------
    source : str, os.PathLike, bytes or binary file-like
        A path, the file's bytes, or an object with ``read()`` (e.g. Streamlit's
        ``UploadedFile``).
    filename : str, optional
        The file's name when ``source`` does not carry one (bytes); it chooses the expected
        format and names the file in the population's recipe.
    columns : sequence of str, optional
        Read only these columns of a binary file (all of a CSV file are read anyway); a name
        the file does not have is refused with the list of its columns.

    Returns
    -------
    CsvTable or FileTable
        Both offer ``frame``, ``notes``, ``numeric_columns``, ``label_columns``,
        ``column_values(column)`` and ``label_cells(column)``.

    Raises
    ------
    ValueError
        With a message for the user: missing, too large (bytes, rows or columns), empty,
        truncated or damaged files; a name that does not match the content; no columns or
        no rows.
    """
    data, name = _source(source, filename, max_bytes)
    fmt = _choose_format(data, name)
    if fmt == "csv":
        return csv_table_from_bytes(data, name)
    return _binary_table(data, fmt, name, columns)


def load_population_file(
    source: Any,
    *,
    filename: str | None = None,
    value_column: str | None = None,
    lower: float | None = None,
    upper: float | None = None,
    stratum_column: str | Sequence[str] | None = None,
    cluster_column: str | Sequence[str] | None = None,
    name: str | None = None,
    max_bytes: int | _Default | None = DEFAULT_LIMIT,
    category_column: str | Sequence[str] | None = None,
) -> Population:
    """Build a :class:`Population` from a CSV, Parquet, Stata, SAS or SPSS file.

    Reads the file with :func:`read_file_table` (only the chosen columns of a binary file
    when ``value_column`` is given) and builds the population as
    :func:`core.csv_io.load_population_csv` does: blank, non-numeric and infinite values
    dropped with their rows and counted in a note; values outside declared bounds clipped
    and counted; bounds left out taken from the data with a warning (Hu et al. (2023), §2.2:
    the range must be public, not read from the data). Strata (Bun et al. (2022), §7) and
    clusters (§5) take their labels from one column or from several joined as ``"a / b"``;
    Stata and SPSS value labels are shown instead of their codes. The category column of
    counts and frequency tables is read the same way (value labels as its text).

    Parameters
    ----------
    source : str, os.PathLike, bytes, binary file-like, CsvTable or FileTable
        The file (see :func:`read_file_table`), or a table already read from it.
    filename : str, optional
        The file's name when ``source`` is bytes or an unnamed stream.
    value_column : str, optional
        Column of values; default the first column with at least 3 numbers.
    lower, upper : float, optional
        Declared public bounds; ``upper=float("inf")`` declares that none is public.
    stratum_column, cluster_column : str or sequence of str, optional
        Label columns for stratified and cluster sampling.
    name : str, optional
        Display name; default built from the file name and the value column.
    max_bytes : int or None, optional
        Size limit, as in :func:`read_file_table` (``None`` for a file the server was
        started with).
    category_column : str or sequence of str, optional
        The column of categories that counts and frequency tables count by, as in
        :func:`core.csv_io.load_population_csv` (blank cells become ``"(missing)"``, with a
        note; at most :data:`core.categories.MAX_CATEGORIES` categories).

    Returns
    -------
    Population
        Its ``recipe`` is ``load_population_file('<file name>', value_column=..., ...)``.

    Raises
    ------
    ValueError
        Any problem with the file, an unknown column, a value column with fewer than 3
        usable numbers, bounds that are not finite with lower < upper, or a category column
        that cannot be one (the value column, blank everywhere, too many categories).
    """
    wanted = None
    if value_column is not None:
        wanted = [value_column]
        for chosen in (stratum_column, cluster_column, category_column):
            if isinstance(chosen, str):
                wanted.append(chosen)
            elif isinstance(chosen, (list, tuple)):
                wanted.extend(c for c in chosen if isinstance(c, str))
    if isinstance(source, (CsvTable, FileTable)):
        table: CsvTable | FileTable = source
        for column in wanted or ():
            if isinstance(table, FileTable) and column in table.left_out:
                raise ValueError(f"Column {quoted(column)} {table.left_out[column]}.")
    else:
        table = read_file_table(source, filename=filename, columns=wanted, max_bytes=max_bytes)
    fmt = table.file_format if isinstance(table, FileTable) else "csv"
    if isinstance(table, FileTable) and value_column is None and not table.numeric_columns:
        raise ValueError(
            "No column holds at least 3 numbers, so there is no value column. Columns: "
            + ", ".join(quoted(c) for c in list(table.frame.columns)[:20])
            + "."
        )
    return population_from_table(
        table,
        value_column=value_column,
        lower=lower,
        upper=upper,
        stratum_column=stratum_column,
        cluster_column=cluster_column,
        name=name,
        category_column=category_column,
        loader="load_population_file",
        default_file=f"population.{_ending(fmt)}",
    )
