"""A population written back as CSV, with cells a spreadsheet would run as formulas defused.

:func:`population_to_csv_bytes` and :func:`csv_safe_text`.
"""

from __future__ import annotations

import csv
import io

import numpy as np

from ..population import Population

__all__ = [
    "csv_safe_text",
    "population_to_csv_bytes",
]


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
    """The population as UTF-8 CSV for download: values, then stratum, cluster and category
    labels (a label column named like an earlier one gets its role added: "region
    (category)").

    Whole numbers are written without a decimal point, other values with the shortest text
    that reads back to the same float64. Column names and label cells pass through
    :func:`csv_safe_text`; numbers do not.
    """
    header = [csv_safe_text(pop.value_label)]
    columns: list[list[str]] = [_format_numbers(pop.values)]
    for labels, label, role in (
        (pop.strata, pop.stratum_label, "stratum"),
        (pop.clusters, pop.cluster_label, "cluster"),
        (pop.categories, pop.category_label, "category"),
    ):
        if labels is not None:
            name = csv_safe_text(label)
            header.append(name if name not in header else csv_safe_text(f"{label} ({role})"))
            if labels.dtype.kind == "i":  # integer labels are numbers: written as they are
                columns.append(labels.astype(str).tolist())
            else:
                columns.append([csv_safe_text(x) for x in labels.tolist()])
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(zip(*columns, strict=True))
    return out.getvalue().encode("utf-8")
