"""Texts and the Python snippet of the Population page (pure: no Streamlit calls)."""

from __future__ import annotations

from core.populations import Population
from core.value_column import GroupColumns
from ui.format import number
from ui.snippets import population_overview_snippet

INTRO = (
    "An agency holds every record of a population of **N** units. It wants to release a "
    "private statistic — a mean or a median — with a promised guarantee **ε_target**. The "
    "question this app explores: is the release *more accurate* if the agency first draws a "
    "secret random sample of **n** units and privatises the sample's statistic, spending the "
    "larger budget **ε_sample** that sampling allows? Choose the population in the sidebar or "
    "upload your own below; every page uses it."
)

LOG_AXIS_HELP = "Useful for skewed populations."
LOG_AXIS_WARNING = "A log axis needs positive values; showing a linear axis instead."

TO_BOUNDS_HELP = (
    "Off: the axis spans the data, from the smallest to the largest value. On: it spans the "
    "declared public bounds L to U, which can reach far beyond the data."
)


def range_caption(pop: Population, *, to_bounds: bool) -> str:
    """Where the data end against the declared bounds, under the histogram."""
    v = pop.values
    data = f"The data run from {number(float(v[0]), 4)} to {number(float(v[-1]), 4)}"
    bounds = f"the declared bounds are L = {number(pop.lower, 4)} and U = {number(pop.upper, 4)}"
    if not pop.has_upper_bound:
        bounds = (
            f"the declared lower bound is L = {number(pop.lower, 4)}, and no upper bound is "
            "public (the axis ends at the largest value)"
        )
    if to_bounds:
        return f"{data}; the axis spans {bounds}."
    return (
        f"{data}, and the axis spans them; {bounds} (grey lines, or named in the legend when "
        "off the axis). Switch on *Axis from L to U* to see the whole declared range."
    )


HISTOGRAM_READING = (
    "**What you see.** Each bar counts the records whose value falls in its interval. The dashed "
    "line marks the median, the dotted line the mean (each labelled at its top), the grey "
    "lines the declared bounds L and U. The bounds are public knowledge, not read from the "
    "data: the Laplace mechanism for a mean on N records adds noise of scale R/(N·ε), and the "
    "median's global sensitivity is the whole range R."
)
#: The global sensitivity of the mean, under the reading of the histogram.
MEAN_SENSITIVITY_LATEX = r"\Delta^{G}_{\bar y} = \frac{R}{N}, \qquad R = U - L"

UPLOAD_HEADING = "Upload your own population"
UPLOADED_SNIPPET_CAPTION = (
    "Put your CSV file next to the script (the snippet reads it by its name)."
)


def group_heading(what: str, column: str, count: int) -> str:
    """Bold heading of a strata or clusters table: "**Strata (column): 12**"."""
    plural = "Strata" if what == "Stratum" else "Clusters"
    return f"**{plural} ({column}): {count:,}**"


def category_heading(column: str, count: int) -> str:
    """Bold heading of the categories table: "**Categories (sector): 12**"."""
    return f"**Categories ({column}): {count:,}**"


#: Under the categories table: what the column is for, and that these counts are exact.
CATEGORIES_CAPTION = (
    "Counts, proportions and frequency tables count the records of each category of this "
    "column. The table shows the population's exact counts, as you hold them: a release "
    "adds noise to them."
)


def python_snippet(pop: Population) -> str:
    """The page's "Reproduce in Python" code: rebuild ``pop`` and print its summary numbers."""
    return population_overview_snippet(pop)


#: Why design columns start selected, and that the user decides (the upload form).
PRESELECTED_REASON = (
    "pre-selected because their names look like survey design columns; change them if not"
)


def preselection_note(groups: GroupColumns) -> str | None:
    """What the upload form pre-selected as strata and clusters, and why (None: nothing)."""
    parts = []
    if groups.stratum:
        parts.append(f"{_columns(groups.stratum)} as the stratum column")
    if groups.cluster:
        nested = " (PSUs numbered within strata)" if len(groups.cluster) > 1 else ""
        parts.append(f"{_columns(groups.cluster)} as the cluster column{nested}")
    if not parts:
        return None
    return f"{' and '.join(parts)}: {PRESELECTED_REASON}."


def left_out_note(groups: GroupColumns) -> str | None:
    """The columns the upload form does not offer as strata or clusters, each with why."""
    if not groups.left_out:
        return None
    listed = "; ".join(f"**{name}**, {why}" for name, why in groups.left_out)
    return (
        "Offered as stratum and cluster columns: the columns that label groups (text, value "
        f"labels, design names, short whole-number codes). Not offered: {listed}."
    )


def _columns(names: tuple[str, ...]) -> str:
    return " × ".join(f"**{n}**" for n in names)
