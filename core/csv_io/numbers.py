"""Text cells to numbers: plain, thousands-separated and decimal-comma spellings.

Every cell is converted by this code, never evaluated; ambiguous spellings are decided from
the whole column and said so in a note.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from .._validation import plural, quoted

_NAN_SPELLINGS = frozenset({"nan", "+nan", "-nan"})
_PLAIN_NUMBER = r"[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|inf|infinity|nan)"
_US_THOUSANDS = re.compile(r"[+-]?[0-9]{1,3}(?:,[0-9]{3})+(?:\.[0-9]*)?")
_EU_DECIMAL = re.compile(r"[+-]?(?:[0-9]{1,3}(?:\.[0-9]{3})+|[0-9]*),[0-9]+")
_AMBIGUOUS = re.compile(r"[+-]?[0-9]{1,3}(?:,[0-9]{3})+")


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
