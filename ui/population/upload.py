"""The upload form: read a data file, choose columns and public bounds, make it active.

CSV, Parquet, Stata, SAS and SPSS files are read by :func:`core.populations.read_file_table`,
which checks the file's content against its name. Nothing from the file is evaluated. The
uploaded bytes and the table read from them stay in this browser session's memory only.
"""

from __future__ import annotations

import hashlib
import io
import math

import numpy as np
import streamlit as st

from core.categories import MAX_CATEGORIES, MISSING_CATEGORY
from core.populations import (
    MAX_COLUMNS,
    MAX_ROWS,
    MAX_UPLOAD_BYTES,
    UPLOAD_EXTENSIONS,
    CsvTable,
    FileTable,
    cluster_strata_note,
    load_population_file,
    read_file_table,
    suggest_bounds,
)
from core.value_column import GroupColumns, choose_value_column, column_role, group_columns
from ui.format import fmt, number
from ui.population.text import left_out_note, preselection_note
from ui.state import UPLOADED, active_choice, uploaded_population, use_uploaded_population

_ERROR_KEY = "upload_error"
#: (digest, table) of the file read last in this session (one at a time: a table can take
#: a few times the file's size in memory, so it is neither pickled into a cache nor kept
#: for other sessions).
_TABLE_KEY = "upload_table"
_FORMATS_TEXT = "CSV (also .tsv, .txt), Parquet, Stata .dta, SAS .sas7bdat and .xpt, SPSS .sav"
#: The settings of the population made active by "Use this population" (see _Settings).
_APPLIED_KEY = "upload_applied"
#: (digest, {value column: GroupColumns}) of the file read last: the label columns offered.
_GROUPS_KEY = "upload_groups"
_BUTTON = "Use this population"
#: Which mechanisms need U, in plain words (under the bounds' heading).
UPPER_NEEDED_TEXT = (
    "Every mechanism needs L. All but one also need U: the mean's noise is scaled to the "
    "range U − L, and the median's smooth sensitivity, the exponential and the "
    "piecewise-Laplace mechanisms pad or clip the data with U. The unbounded quantile "
    "mechanism (Durfee 2023) needs no upper bound: if none is public, empty the U box."
)
#: Shown while the U box is empty.
NO_UPPER_TEXT = (
    "No upper bound: the population will be stored without one. The Mean & median gains page "
    "then runs only the unbounded quantile mechanism; the pages that need U (the release "
    "planner, stratified sampling, the mean and sensitivity tabs) will say so until you "
    "upload again with an upper bound."
)

#: (file digest, value column, lower, upper, stratum columns, cluster columns, category
#: column: empty or one name)
_Settings = tuple[str, str, float, float, tuple[str, ...], tuple[str, ...], tuple[str, ...]]
#: The category select's first option: no category column.
NO_CATEGORY = "(none)"


def limits_text() -> str:
    """The upload limits in plain words (shown under the uploader, not only on hover).

    The size limit is not repeated here: the uploader states it itself, from the server's
    setting ``server.maxUploadSize`` (``.streamlit/config.toml``), which also enforces it.
    """
    return (
        f"Formats: {_FORMATS_TEXT}. At most {MAX_ROWS:,} rows and {MAX_COLUMNS:,} columns, "
        "and the size per file shown above. A larger file is refused with a message saying "
        "which limit it exceeds."
    )


def upload_limit_bytes() -> int:
    """The size limit per file in bytes: the server's ``server.maxUploadSize`` (in MiB)."""
    return int(st.get_option("server.maxUploadSize")) * 2**20


def _read_table(digest: str, data: bytes, name: str) -> CsvTable | FileTable:
    """The file read as a table, kept for this session by the SHA-256 of its bytes."""
    kept = st.session_state.get(_TABLE_KEY)
    if kept is not None and kept[0] == digest and kept[1].source_name == name:
        return kept[1]
    st.session_state.pop(_TABLE_KEY, None)  # free the previous file's table first
    with st.spinner("Reading the file…"):
        table = read_file_table(io.BytesIO(data), filename=name)
    st.session_state[_TABLE_KEY] = (digest, table)
    return table


def _activate(data: bytes, settings: _Settings, name: str) -> None:
    """Button callback: build the Population and make it active, or keep the error to show."""
    digest, value_column, lower, upper, strata, clusters, categories = settings
    kept = st.session_state.get(_TABLE_KEY)
    # The table read for the form (the file is not read twice); the recipe of the
    # Reproduce-in-Python snippets reads the file by its name.
    source = kept[1] if kept is not None and kept[0] == digest else io.BytesIO(data)
    try:
        pop = load_population_file(
            source,
            filename=name,
            value_column=value_column,
            lower=lower,
            upper=upper,
            stratum_column=list(strata) or None,
            cluster_column=list(clusters) or None,
            category_column=list(categories) or None,
            name=name,
        )
    except ValueError as exc:
        st.session_state[_ERROR_KEY] = str(exc)
        return
    st.session_state.pop(_ERROR_KEY, None)
    st.session_state[_APPLIED_KEY] = settings
    use_uploaded_population(pop)


def upload_form() -> None:
    """Render the upload form; on success the sidebar switches to the uploaded population."""
    file = st.file_uploader(
        "Data file with one row per unit (CSV, Parquet, Stata, SAS or SPSS)",
        type=list(UPLOAD_EXTENSIONS),
        key="upload_file",
        help="CSV: commas, semicolons, tabs or pipes; a header row is detected automatically. "
        "Stata and SPSS value labels name the strata, clusters and categories.",
    )
    st.caption(limits_text())
    if file is None:
        st.session_state.pop(_TABLE_KEY, None)  # the removed file's table is freed
        st.session_state.pop(_GROUPS_KEY, None)
        st.caption(
            "The file stays in your browser session; nothing is stored on the server or shown "
            "to other users. A shared link cannot carry an uploaded file."
        )
        return
    data = file.getvalue()
    read = _read_file(data, file.name)
    if read is None:
        return
    digest, table = read
    tag = digest[:10]
    value_column, lower, upper = _value_and_bounds(table, tag)
    strata, clusters, categories = _group_columns(table, digest, value_column)
    if upper is None:
        upper = math.inf  # no public upper bound
        st.info(NO_UPPER_TEXT, icon=":material/vertical_align_top:")
    if lower >= upper:
        st.error("The lower bound must be smaller than the upper bound.")
        return
    settings: _Settings = (
        digest,
        value_column,
        float(lower),
        float(upper),
        tuple(strata),
        tuple(clusters),
        tuple(categories),
    )
    _apply(data, settings, file.name, tag)


def _read_file(data: bytes, name: str) -> tuple[str, CsvTable | FileTable] | None:
    """Check the size, parse the file and preview it; its digest and table, or None to stop.

    Every refusal (too large, unreadable, no numeric column) is shown as an error here.
    """
    limit = min(upload_limit_bytes(), MAX_UPLOAD_BYTES)
    if len(data) > limit:
        st.error(
            f"The file is {fmt(len(data) / 2**20, 'plain', 3)} MiB; the limit is "
            f"{limit // 2**20:,} MiB."
        )
        return None
    digest = hashlib.sha256(data).hexdigest()
    try:
        table = _read_table(digest, data, name)
    except ValueError as exc:
        st.error(f"This file cannot be used: {exc}", icon=":material/error:")
        return None
    for note in table.notes:
        st.info(note, icon=":material/info:")
    if isinstance(table, CsvTable):
        how = (
            f"CSV, delimiter {table.delimiter!r}, "
            f"{'with' if table.has_header else 'without'} header"
        )
    else:
        how = table.format_name
    st.caption(f"Read {len(table.frame):,} rows and {table.frame.shape[1]} columns ({how}).")
    st.dataframe(table.frame.head(8), hide_index=True)
    if not table.numeric_columns:
        st.error("No column holds at least three numbers, so there is no value column to use.")
        return None
    return digest, table


def _value_and_bounds(table: CsvTable | FileTable, tag: str) -> tuple[str, float, float | None]:
    """The value column and the public bounds L and U (the boxes start at the data's range;
    an emptied U box gives None: no public upper bound)."""
    columns = table.numeric_columns
    labelled = table.value_labels if isinstance(table, FileTable) else {}
    choice = choose_value_column(columns, table.column_values, labelled=labelled)
    value_column = st.selectbox(
        "Value column (y)",
        columns,
        index=columns.index(choice.column),
        key=f"up_value_{tag}",
        help="The column whose statistic is released. It starts at the first column that "
        "measures something; identifiers, codes with value labels and sampling-design columns "
        "(stratum, PSU, cluster, weight) are passed over.",
    )
    if value_column == choice.column:
        st.caption(f"Picked by default: {choice.reason}")
    else:
        role = column_role(
            value_column,
            table.column_values(value_column),
            has_value_labels=value_column in labelled,
        )
        looks = f" {value_column!r} looks like {role}." if role is not None else ""
        st.caption(f"The default was {choice.column!r}.{looks}")
    column = table.column_values(value_column)
    finite = column[np.isfinite(column)]
    lo_guess, hi_guess = suggest_bounds(finite)
    st.markdown(
        "**Declare public bounds.** Differential privacy needs bounds that are known without "
        "looking at the data (a legal limit, a top-code, a physical range). The boxes start at "
        "the data's range rounded outward, which is convenient for exploring but is itself a "
        "disclosure; replace them with your public bounds. " + UPPER_NEEDED_TEXT
    )
    b1, b2 = st.columns(2)
    lower = b1.number_input(
        "Lower bound L", value=float(lo_guess), format="%g", key=f"up_lower_{tag}_{value_column}"
    )
    upper_key = f"up_upper_{tag}_{value_column}"
    if upper_key not in st.session_state:
        # Starts at the data's range like L, but with no default value the box can be emptied.
        st.session_state[upper_key] = float(hi_guess)
    upper = b2.number_input(
        "Upper bound U (leave empty if none is public)",
        value=None,
        format="%g",
        key=upper_key,
        help="Empty the box when no upper bound is known without the data: the population is "
        "then stored without one, and only the unbounded quantile mechanism runs on it.",
    )
    return value_column, lower, upper


def _groups(table: CsvTable | FileTable, digest: str, value_column: str) -> GroupColumns:
    """The label columns offered and pre-selected (:func:`core.value_column.group_columns`),
    kept for the session's file: each column's distinct entries are counted once."""
    kept = st.session_state.get(_GROUPS_KEY)
    if kept is None or kept[0] != digest:
        kept = (digest, {})
        st.session_state[_GROUPS_KEY] = kept
    found: dict[str, GroupColumns] = kept[1]
    if value_column not in found:
        labelled = table.value_labels if isinstance(table, FileTable) else {}
        found[value_column] = group_columns(
            table.label_columns,
            table.distinct_entries,
            labelled=labelled,
            value_column=value_column,
        )
    return found[value_column]


def _group_columns(
    table: CsvTable | FileTable, digest: str, value_column: str
) -> tuple[list[str], list[str], list[str]]:
    """The optional stratum, cluster and category columns: label-like columns only, the
    stratum and cluster columns named like a survey design pre-selected (and said so)."""
    groups = _groups(table, digest, value_column)
    tag = f"{digest[:10]}_{value_column}"
    c1, c2, c3 = st.columns(3)
    strata = c1.multiselect(
        "Stratum column(s) (optional)",
        list(groups.offered),
        default=list(groups.stratum),
        key=f"up_stratum_{tag}",
        select_all=False,
        help="Several columns make one stratum id from all of them, e.g. region and size class.",
    )
    clusters = c2.multiselect(
        "Cluster column(s) (optional)",
        list(groups.offered),
        default=list(groups.cluster),
        key=f"up_cluster_{tag}",
        select_all=False,
        help="Survey files number their PSUs 1, 2, … within each stratum: then choose the "
        "stratum column and the PSU column together (e.g. stratid and psuid) as the cluster id.",
    )
    offered = [c for c in groups.offered if c != value_column]
    category = c3.selectbox(
        "Category column (for counts)",
        [None, *offered],
        index=0,
        format_func=lambda c: NO_CATEGORY if c is None else str(c),
        key=f"up_category_{tag}",
        help="The column that counts, proportions and frequency tables count by (a size "
        "class, a sector, a region). Stata and SPSS value labels are its categories' names; "
        f"blank cells make the category “{MISSING_CATEGORY}”. At most "
        f"{MAX_CATEGORIES:,} categories.",
    )
    preselected = preselection_note(groups)
    if preselected is not None:
        st.caption(preselected)
    left_out = left_out_note(groups)
    if left_out is not None:
        st.caption(left_out)
    return strata, clusters, [] if category is None else [str(category)]


def _apply(data: bytes, settings: _Settings, name: str, tag: str) -> None:
    """The "Use this population" button and the state of what it applied.

    Shows the last error, a "not applied yet" warning when the settings on screen differ
    from the active ones, or a success message (and the shared-cluster warning).
    """
    st.button(
        _BUTTON,
        type="primary",
        icon=":material/check:",
        key=f"up_use_{tag}",
        on_click=_activate,
        args=(data, settings, name),
    )
    if _ERROR_KEY in st.session_state:
        st.error(st.session_state[_ERROR_KEY], icon=":material/error:")
    active = uploaded_population()
    applied = st.session_state.get(_APPLIED_KEY)
    if active is None or applied is None or active_choice() != UPLOADED:
        return
    if applied != settings:
        st.warning(
            f"**Not applied yet.** Every page still computes on {active.name} with "
            f"{_describe(applied)}. Press “{_BUTTON}” to apply the settings shown above.",
            icon=":material/pending:",
        )
        return
    st.success(
        f"Every page now computes on {name} ({active.size:,} values, "
        f"{_describe(applied)}). Pick a built-in population in the sidebar to switch back.",
        icon=":material/check_circle:",
    )
    cluster_note = cluster_strata_note(active)
    if cluster_note is not None:
        st.warning(cluster_note, icon=":material/warning:")


def _describe(settings: _Settings) -> str:
    """The applied settings in words: value column, bounds, stratum and cluster columns."""
    _digest, value_column, lower, upper, strata, clusters, categories = settings
    bounds = (
        f"bounds [{number(lower, 10)}, {number(upper, 10)}]"
        if math.isfinite(upper)
        else f"lower bound {number(lower, 10)} and no upper bound"
    )
    parts = [f"value column {value_column!r}", bounds]
    if strata:
        parts.append("strata " + " × ".join(strata))
    if clusters:
        parts.append("clusters " + " × ".join(clusters))
    if categories:
        parts.append("categories " + " × ".join(categories))
    return ", ".join(parts)
