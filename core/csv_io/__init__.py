"""Reading populations from CSV files and writing them back: the untrusted-input boundary.

Every cell is read as text and numbers are converted by us; nothing in the file is ever
evaluated. Sizes are checked before anything is parsed (:data:`MAX_UPLOAD_BYTES`,
:data:`MAX_ROWS`, :data:`MAX_COLUMNS`). Every problem a user can cause with a file surfaces
as a :class:`ValueError` whose message can be shown as is. On the way out,
:func:`csv_safe_text` defuses cells a spreadsheet would run as formulas.

The papers are cited in full in :mod:`core.populations`.

The package holds one module per step: :mod:`core.csv_io.source` (the bytes of a file,
the upload limit, and their decoding to text), :mod:`core.csv_io.parsing` (the delimiter
and the parsers, with the row and column limits), :mod:`core.csv_io.numbers` (text cells to
numbers), :mod:`core.csv_io.table` (:class:`CsvTable`, :func:`read_csv_table`),
:mod:`core.csv_io.loading` (:func:`load_population_csv`, :func:`population_from_table`) and
:mod:`core.csv_io.writing` (:func:`population_to_csv_bytes`, :func:`csv_safe_text`).
"""

from __future__ import annotations

from ..csv_io.loading import PopulationTable as PopulationTable
from ..csv_io.loading import load_population_csv
from ..csv_io.loading import population_from_table as population_from_table
from ..csv_io.numbers import _to_numbers as _to_numbers
from ..csv_io.parsing import MAX_COLUMNS, MAX_ROWS
from ..csv_io.parsing import MAX_IRREGULAR_BYTES as MAX_IRREGULAR_BYTES
from ..csv_io.parsing import _parse_careful as _parse_careful
from ..csv_io.parsing import _read_arrow as _read_arrow
from ..csv_io.source import DEFAULT_LIMIT as DEFAULT_LIMIT
from ..csv_io.source import MAX_UPLOAD_BYTES
from ..csv_io.source import _Default as _Default
from ..csv_io.source import _read_source_bytes as _read_source_bytes
from ..csv_io.table import CsvTable, read_csv_table
from ..csv_io.table import _unknown_column as _unknown_column
from ..csv_io.table import csv_table_from_bytes as csv_table_from_bytes
from ..csv_io.writing import csv_safe_text, population_to_csv_bytes

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
