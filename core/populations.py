"""Finite populations: one import for the value type, the built-ins and CSV input/output.

This module only re-exports; the code lives in five modules, one concern each:

* :mod:`core.population` -- the :class:`Population` value type, :func:`cluster_strata_note`
  and :func:`suggest_bounds`;
* :mod:`core.builtins` -- the built-in populations of the papers (:func:`make_builtin`);
* :mod:`core.r_replay` -- the paper's exact bimodal draw, replaying R's generator
  (:func:`paper_bimodal_population`);
* :mod:`core.csv_io` -- reading untrusted CSV files and writing populations back
  (:func:`read_csv_table`, :func:`load_population_csv`, :func:`population_to_csv_bytes`);
* :mod:`core.file_io` -- one entry for CSV, Parquet, Stata, SAS and SPSS files
  (:func:`load_population_file`, :func:`read_file_table`).

``from core.populations import Population, make_builtin, load_population_csv`` keeps working
for every name in ``__all__``.

References
----------
Hu, J., Drechsler, J. & Kim, H. J. (2023). Accuracy gains from privacy amplification through
sampling for differential privacy. Journal of Survey Statistics and Methodology.
arXiv:2103.09705.
Bun, M., Drechsler, J., Gaboardi, M., McMillan, A. & Sarathy, J. (2022). Controlling privacy
loss in sampling schemes: an analysis of stratified and cluster sampling. Foundations of
Responsible Computing (FORC 2022). arXiv:2007.12674.
"""

from __future__ import annotations

from .builtins import (
    BUILTIN_POPULATIONS,
    EMPLOYEES_TOP_CODE,
    ESTABLISHMENT_SIZE_CLASSES,
    LOGNORMAL_BOUNDS,
    MAX_BUILTIN_SIZE,
    make_builtin,
)
from .csv_io import (
    MAX_COLUMNS,
    MAX_ROWS,
    MAX_UPLOAD_BYTES,
    CsvTable,
    csv_safe_text,
    load_population_csv,
    population_to_csv_bytes,
    read_csv_table,
)
from .file_io import (
    FILE_FORMATS,
    UPLOAD_EXTENSIONS,
    FileTable,
    detect_format,
    load_population_file,
    read_file_table,
)
from .population import FileSettings, Population, cluster_strata_note, suggest_bounds
from .r_replay import paper_bimodal_population

__all__ = [
    "BUILTIN_POPULATIONS",
    "EMPLOYEES_TOP_CODE",
    "ESTABLISHMENT_SIZE_CLASSES",
    "FILE_FORMATS",
    "LOGNORMAL_BOUNDS",
    "MAX_BUILTIN_SIZE",
    "MAX_COLUMNS",
    "MAX_ROWS",
    "MAX_UPLOAD_BYTES",
    "UPLOAD_EXTENSIONS",
    "CsvTable",
    "FileSettings",
    "FileTable",
    "Population",
    "cluster_strata_note",
    "csv_safe_text",
    "detect_format",
    "load_population_csv",
    "load_population_file",
    "make_builtin",
    "paper_bimodal_population",
    "population_to_csv_bytes",
    "read_csv_table",
    "read_file_table",
    "suggest_bounds",
]
