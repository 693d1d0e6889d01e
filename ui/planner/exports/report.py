"""The one-page, self-contained HTML method report of a release plan.

For a disclosure review board: the data first (value column, declared public bounds, label
columns, and for a file the rows dropped and values clipped; for an upload, that the link
cannot reopen it), then the parameters, the designs and the theorems behind them (with
paper sections), the chart (with plotly.js inline, so the file opens offline), the ranked
plans, the recommendation and a note on the method (Monte Carlo with T repetitions and a
seed; Hu et al. eqs. 6–7 where the error has a closed form). It writes no date: the report of
one plan differs only in the random id plotly gives the chart's element. Every piece of text
that can come from a user (a population or file name, a link) is escaped before it reaches
HTML.
"""

from __future__ import annotations

import html
import math
import re
from collections.abc import Iterable
from typing import Any

import pandas as pd
import plotly.graph_objects as go

from core.planner import PlanResult
from core.population import LABEL_NAME_JOIN, Population
from core.resolution import is_exact
from core.sensitivity import quantile_rank
from ui.downloads import exported_figure
from ui.format import fmt
from ui.planner.compare_text import CLAIM_RULE, reference_plan, relative_change
from ui.planner.exports.checks import (
    DESIGN_EXPLANATIONS,
    GROUP_PRIVACY_NOTE,
    OBJECTIVE_LABELS,
    RELATION_LABELS,
    statistic_words,
)
from ui.planner.linear_text import (
    FORMULAS_EXPLANATION,
    LINEAR_EXACT_ROW,
    LINEAR_LABELS,
    POST_HELP,
    POST_NOTE,
)
from ui.planner.text import promise_words, sizes_words

__all__ = ["method_report"]

#: Columns of the ranked table in the report: (column of best_by_design, heading, kind);
#: a column named in _STANDARD_ERRORS gets its Monte Carlo standard error in the same cell.
_RANKED_COLUMNS: tuple[tuple[str, str, str], ...] = (
    ("design_label", "Design", "text"),
    ("mechanism_label", "Mechanism", "text"),
    ("rate", "Rate n/N", "rate"),
    ("n", "Expected n", "count"),
    ("clusters_sampled", "Clusters drawn ℓ", "count"),
    ("eps_sample", "ε_sample", "guarantee"),
    ("delta_sample", "δ_sample", "delta"),
    ("accounting", "Bound that gives ε_sample", "text"),
    ("rmse", "RMSE ± MC s.e.", "error"),
    ("error_95", "95 % error bound ± MC s.e.", "error"),
    ("rmse_post", "RMSE after rounding to whole numbers ≥ 0", "error"),
    ("error_95_post", "95 % error bound after rounding", "error"),
    ("sampling_part", "Sampling part (MSE)", "plain"),
    ("noise_part", "Noise part (MSE)", "plain"),
    ("gain", "Against the census", "gain"),
    ("exact", "Error from", "exact"),
)
_STANDARD_ERRORS = {"rmse": "rmse_se", "error_95": "error_95_se"}


def _text(value: Any) -> str:
    """Any value as escaped HTML text (quotes too, so it is safe inside attributes)."""
    return html.escape(str(value), quote=True)


def _is_missing(value: Any) -> bool:
    try:
        return bool(pd.isna(value))
    except (TypeError, ValueError):
        return False


def _cell(value: Any, kind: str) -> str:
    """One table cell of the ranked table, formatted by its kind (a role of
    :func:`ui.format.fmt`, as the page writes the same number) and escaped."""
    if kind == "exact":
        return "closed formula" if bool(value) else "Monte Carlo"
    if _is_missing(value):
        return "—"
    if kind == "text":
        return _text(value)
    x = float(value)
    if kind == "gain":
        return _text(_gain_words(x))
    return _text(fmt(x, kind))  # type: ignore[arg-type]


def _gain_words(gain: float, reference: str = "the census", beats: bool | None = None) -> str:
    """``gain`` = 1 − error/census error in the page's words (:func:`relative_change`):
    "38 % tighter than the census with the exponential mechanism", "4.8 times the error of
    …"; a positive gain that does not exceed its Monte Carlo error (``beats`` false) reads
    "within two Monte Carlo standard errors of …"."""
    if gain == 0:
        return "same as census"
    if gain > 0 and beats is False:
        return f"within two Monte Carlo standard errors of {reference}"
    return f"{relative_change(gain)} {reference}"


def _exactly(eps_target: float) -> str:
    """ε_target as the page writes it, with its value to six digits when rounding changed
    it (an ε_target found by the accuracy-first search): ``0.0232 (0.0232454)``."""
    shown = fmt(eps_target, "guarantee")
    full = fmt(eps_target, "guarantee", 6)
    return shown if shown == full else f"{shown} ({full})"


def _emphasis(escaped: str) -> str:
    """Markdown ``**bold**`` in already escaped text as ``<strong>``; nothing else is markup."""
    return re.sub(r"\*\*(.+?)\*\*", r"<strong>\1</strong>", escaped)


def _link_html(link: str) -> str:
    text = _text(link)
    if re.match(r"https?://", link, flags=re.IGNORECASE):
        return f'<a href="{text}">{text}</a>'
    return text


#: Why the report's link cannot bring an uploaded file back.
UPLOAD_LINK_NOTE = (
    "This link cannot reopen the uploaded file: uploaded data never travels in a link (it "
    "stays in the browser session that uploaded it), so the link alone opens the app on a "
    "built-in population. To reproduce this plan, upload {file} again on the Population page "
    "with the settings under “Data” above, then open the link."
)


def _labels_words(pop: Population, which: str, columns: tuple[str, ...]) -> str:
    """Label columns and how many distinct labels they make: "stratid × psuid (62 clusters)"."""
    codes = pop.label_codes(which)
    if codes is None:
        return "none"
    what, plural = {
        "strata": ("stratum", "strata"),
        "clusters": ("cluster", "clusters"),
        "categories": ("category", "categories"),
    }[which]
    count = len(codes[1])
    return f"{' × '.join(columns)} ({fmt(count, 'count')} {what if count == 1 else plural})"


def _data_rows(pop: Population, uploaded: bool) -> list[tuple[str, str]]:
    """What a review board checks first: the value column, the declared public bounds, the
    label columns, and how the records were read (rows dropped, values clipped)."""
    read = pop.file_settings
    strata = read.stratum_columns if read else tuple(pop.stratum_label.split(LABEL_NAME_JOIN))
    clusters = read.cluster_columns if read else tuple(pop.cluster_label.split(LABEL_NAME_JOIN))
    upper = fmt(pop.upper, "value") if math.isfinite(pop.upper) else "none (no public upper bound)"
    declared = read is None or read.bounds_declared
    bounds = f"[{fmt(pop.lower, 'value')}, {upper}]" + (
        " (declared as public: they must be known without looking at the data)"
        if declared
        else " (read from the data, not declared: such bounds are not differentially private)"
    )
    rows = [
        ("Value column", _text(pop.value_label)),
        ("Public bounds [L, U]", _text(bounds)),
        ("Stratum column(s)", _text(_labels_words(pop, "strata", strata))),
        ("Cluster column(s)", _text(_labels_words(pop, "clusters", clusters))),
    ]
    if pop.categories is not None:  # only when chosen: the reports without keep their rows
        categories = (
            read.category_column if read else tuple(pop.category_label.split(LABEL_NAME_JOIN))
        )
        rows.append(("Category column", _text(_labels_words(pop, "categories", categories))))
    if read is None:
        rows.append(
            ("Records", _text(f"N = {fmt(pop.size, 'count')}, built by the app (no file read)"))
        )
        return rows
    kept = read.rows_read - read.rows_dropped
    rows += [
        (
            "File" + (" (uploaded)" if uploaded else ""),
            _text(f"{read.file}: {fmt(read.rows_read, 'count')} rows"),
        ),
        (
            "Rows dropped",
            _text(
                f"{fmt(read.rows_dropped, 'count')} (their {read.value_column} was blank, not a "
                f"number or infinite); N = {fmt(kept, 'count')} records remain"
            ),
        ),
        (
            "Values clipped to the bounds",
            _text(
                f"{fmt(read.values_clipped, 'count')} of {fmt(kept, 'count')} "
                f"({fmt(read.clipped_below, 'count')} below L, "
                f"{fmt(read.clipped_above, 'count')} above U)"
            ),
        ),
    ]
    return rows


def _parameter_rows(
    result: PlanResult, population_label: str, link: str | None, upload_file: str | None = None
) -> list[tuple[str, str]]:
    delta = float(result.delta_target)
    rows = [
        ("Population", _text(population_label)),
        ("N (population size)", _text(fmt(result.N, "count"))),
        ("Statistic", _text(statistic_words(result.statistic, result.quantile))),
        ("Population value of the statistic", _text(fmt(result.population_value, "value"))),
        *(
            [("ε_target (promised for the population)", _text(_exactly(result.eps_target)))]
            if result.rho_target is None
            else [
                (
                    "Promise (ρ-zCDP, stated)",
                    _text(f"ρ = {fmt(result.rho_target, 'guarantee', 6)}"),
                ),
                (
                    "ε_target (planned: the pure guarantee that keeps ρ)",
                    _text(promise_words(result.eps_target, result.rho_target)),
                ),
            ]
        ),
        (
            "δ_target",
            _text(
                fmt(delta, "delta")
                + (" (= 1/(2N), the default)" if math.isclose(delta, 0.5 / result.N) else "")
            ),
        ),
        ("Neighbouring populations", _text(RELATION_LABELS.get(result.relation, result.relation))),
        (
            "Population size N public",
            _text(
                ("yes" if result.sizes_public else "no")
                + ". "
                + sizes_words(result.relation, result.sizes_public)
            ),
        ),
        ("Plans ranked by", _text(OBJECTIVE_LABELS.get(result.objective, result.objective))),
        *(
            [("Errors", _text(LINEAR_EXACT_ROW))]
            if result.statistic in LINEAR_LABELS
            else [
                ("Monte Carlo repetitions T", _text(fmt(result.reps, "count"))),
                ("Seed", _text(result.seed)),
            ]
        ),
    ]
    if result.statistic == "quantile":
        rank = quantile_rank(result.N, result.quantile)
        rows.insert(
            3,
            (
                "Released order statistic",
                _text(
                    f"rank ⌈qN⌉ = {fmt(rank, 'count')} of N = "
                    f"{fmt(result.N, 'count')} (sorted ascending)"
                ),
            ),
        )
    share = float(result.budget_share)
    if share != 1.0:
        rows.append(("Share of ε_sample spent on this statistic", _text(fmt(share, "share"))))
    if link:
        cell = _link_html(link)
        if upload_file is not None:
            cell += f"<br><em>{_text(UPLOAD_LINK_NOTE.format(file=upload_file))}</em>"
        rows.append(("Link to this plan in the app", cell))
    elif upload_file is not None:
        rows.append(
            ("Link to this plan in the app", _text(UPLOAD_LINK_NOTE.format(file=upload_file)))
        )
    return rows


def _table(headings: Iterable[str], rows: Iterable[Iterable[str]]) -> str:
    """An HTML table from escaped headings and already escaped/assembled cells."""
    head = "".join(f"<th>{h}</th>" for h in headings)
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows)
    table = f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
    # A table wider than the window scrolls inside its box, never the whole page.
    return f'<div class="table-wrap">{table}</div>'


def _designs_html(result: PlanResult) -> str:
    rows = []
    for status in result.statuses:
        # Neyman's reason from core already says what the allocation does and why it gets no
        # claim; for the other designs the reason adds to the plain-words explanation.
        explanation = (
            ""
            if status.name == "neyman" and status.reason
            else _text(DESIGN_EXPLANATIONS.get(status.name, ""))
        )
        if status.reason:
            explanation += f"{'<br>' if explanation else ''}<em>{_text(status.reason)}</em>"
        rows.append(
            [
                f"<strong>{_text(status.label)}</strong>",
                "yes" if status.available else "no",
                _text(status.theorem),
                _text(status.relation),
                explanation,
            ]
        )
    group_note = ""
    stated_by_core = any("group privacy" in s.reason for s in result.statuses)
    if (
        result.relation == "replacement"
        and not stated_by_core
        and any(s.available and s.relation == "deletion" for s in result.statuses)
    ):
        group_note = f"<p>{_text(GROUP_PRIVACY_NOTE)}</p>"
    table = _table(
        ["Design", "Available", "Theorem (paper section)", "Theorem's neighbours", "Notes"], rows
    )
    return table + group_note


def _reference(best: pd.DataFrame) -> pd.Series | None:
    """The census row every gain is measured against (the best census row, gain 0)."""
    census = best[best["design"] == "census"]
    return census.iloc[0] if len(census) else None


def _gain_cell(row: pd.Series, reference: pd.Series | None, census_exact: bool) -> str:
    """The "against the census" cell: the reference named by its mechanism; when the census
    is exact to the data's resolution, no ratio to a practically-zero error."""
    gain = float(row["gain"]) if not _is_missing(row["gain"]) else math.nan
    if math.isnan(gain) or reference is None:
        return "—"
    if row["design"] == "census" and gain == 0:
        return "the reference" + (
            " (exact to the data's resolution: the other plans are read by their own error)"
            if census_exact
            else ""
        )
    if census_exact:
        return _text("census exact to the data's resolution: compare the errors")
    named = reference_plan(str(reference["mechanism_label"]))
    beats = bool(row["beats_census"]) if "beats_census" in row.index else None
    return _text(_gain_words(gain, named, beats))


def _ranked_html(
    best: pd.DataFrame, objective: str = "error_95", resolution: float | None = None
) -> str:
    reference = _reference(best)
    census_exact = reference is not None and is_exact(float(reference[objective]), resolution)
    columns = [c for c in _RANKED_COLUMNS if c[0] in best.columns]
    if "clusters_sampled" in best.columns and best["clusters_sampled"].isna().all():
        columns = [c for c in columns if c[0] != "clusters_sampled"]
    headings = ["Rank", *(_text(heading) for _, heading, _ in columns)]
    rows = []
    for rank, (_, row) in enumerate(best.iterrows(), start=1):
        cells = [str(rank)]
        for column, _, kind in columns:
            if kind == "gain":
                cells.append(_gain_cell(row, reference, census_exact))
                continue
            cell = _cell(row[column], kind)
            se = _STANDARD_ERRORS.get(column)
            if se in best.columns and not _is_missing(row[se]) and float(row[se]) > 0:
                cell += f" ± {_cell(row[se], kind)}"
            cells.append(cell)
        rows.append(cells)
    return _table(headings, rows)


def _method_html(result: PlanResult) -> str:
    if result.statistic in LINEAR_LABELS:
        rounded = "rmse_post" in result.table.columns
        post = f"<p>{_text(POST_NOTE)} {_text(POST_HELP)}</p>" if rounded else ""
        return f"<p>{_text(FORMULAS_EXPLANATION)}</p>{post}"
    exact = bool(result.table["exact"].any()) if "exact" in result.table.columns else False
    exact_note = (
        "<p>Rows whose error has a closed form are computed from it instead of simulated "
        "(marked “closed formula” in the table)."
        + (
            " For the mean these are the census and the simple random sample (Hu et al. "
            "eqs. 6–7): the census release has variance 2·(R/(ε_target·N))², the sample "
            "release (1 − n/N)·S²/n + 2·(R/(ε_sample·n))², where R is the width of the "
            "public bounds and S² the population variance (n − 1 divisor)."
            if result.statistic == "mean"
            else ""
        )
        + "</p>"
        if exact
        else ""
    )
    return (
        "<p>For each design and each candidate sampling rate the planner first solves the "
        "design's amplification theorem for the largest ε_sample that still keeps ε_target "
        "(and δ_target) for the population. It then draws "
        f"T = {_text(fmt(result.reps, 'count'))} samples from the population with "
        f"the design, seeded with {_text(result.seed)}, runs the mechanism on each sample "
        "with that budget, and compares each release with the population's value of the "
        "statistic. The RMSE is the root of the mean squared difference; the 95 % error bound "
        "is the distance that 95 % of the releases stay within. The squared error splits into "
        "a sampling part (the sample's statistic against the population's) and a noise part "
        "(the release against the sample's statistic). Monte Carlo standard errors are shown "
        "next to each measure. The best rate of each design is searched over the candidate "
        "rates and refined around the minimum.</p>" + exact_note
    )


def _recommendation_html(recommendation: str, too_noisy: str | None) -> list[str]:
    """The recommendation: a green box for a usable plan; for a plan too noisy to use, the
    reason first in a warning box and no green box (the page's warning, not its success)."""
    words = _emphasis(_text(recommendation.strip()))
    rule = f"<p>{_text(CLAIM_RULE)}</p>"
    if too_noisy is None:
        return ["<h2>Recommendation</h2>", f'<p class="recommendation">{words}</p>', rule]
    return [
        "<h2>Recommendation: too noisy to use</h2>",
        f'<p class="too-noisy">{_emphasis(_text(too_noisy.strip()))}<br><br>{words}</p>',
        rule,
    ]


_STYLE = """
body { font-family: system-ui, sans-serif; max-width: 80rem; margin: 2rem auto; padding: 0 1rem;
       color: #1f2328; line-height: 1.45; }
h1 { font-size: 1.6rem; margin-bottom: 0.2rem; }
h2 { font-size: 1.2rem; margin-top: 1.8rem; border-bottom: 1px solid #d0d7de; }
table { border-collapse: collapse; margin: 0.6rem 0; font-size: 0.85rem; }
th, td { border: 1px solid #d0d7de; padding: 0.25rem 0.4rem; text-align: left;
         vertical-align: top; }
th { background: #f6f8fa; }
td a { overflow-wrap: anywhere; word-break: break-all; }
.table-wrap { overflow-x: auto; max-width: 100%; }
.recommendation { background: #eef6ee; border-left: 4px solid #2f7d32; padding: 0.6rem 1rem; }
.too-noisy { background: #fff4e5; border-left: 4px solid #b35c00; padding: 0.6rem 1rem; }
.subtitle { color: #57606a; margin-top: 0; }
@media print { .chart { page-break-inside: avoid; } }
"""


def method_report(
    result: PlanResult,
    figure: go.Figure,
    recommendation: str,
    population_label: str,
    link: str | None = None,
    population: Population | None = None,
    uploaded: bool = False,
    *,
    too_noisy: str | None = None,
    resolution: float | None = None,
) -> str:
    """A one-page, self-contained HTML method report of a release plan.

    For a disclosure review board: the parameters (population, N, statistic, ε_target,
    δ_target, neighbouring relation, objective, Monte Carlo repetitions T, seed and the link
    if given), every design with its theorem and paper section (Hu et al. Theorem 1; Bun et
    al. Theorems 2.2, 4.3/7.2, 5.2 and §7 for Neyman allocation), the chart, the ranked table
    of each design's best rate, the recommendation and the method (Monte Carlo with T
    repetitions from the seed; Hu et al. eqs. 6–7 for the mean under census and simple random
    sampling). No date is written, so one plan gives one file.

    Parameters
    ----------
    result : PlanResult
        What :func:`core.planner.plan` returned.
    figure : plotly.graph_objects.Figure
        The page's chart of error against rate; embedded with plotly.js inline (the file works
        offline), laid out for a page of its own by :func:`ui.downloads.exported_figure`.
    recommendation : str
        The page's recommendation in plain words (``**bold**`` is kept; all else is text).
    population_label : str
        The population's name as shown on the page (may come from an uploaded file).
    link : str, optional
        The app's URL of this plan; an ``http(s)`` link becomes a hyperlink.
    population : Population, optional
        The population planned on: the "Data" section states its value column, declared
        public bounds, label columns and, for a file, the rows dropped and values clipped
        (:attr:`core.population.Population.file_settings`).
    uploaded : bool
        Whether the population was uploaded in the browser: then the report says that its
        link cannot reopen the file, and to upload it again with the settings under "Data".
    too_noisy : str, optional
        Why the recommended plan is too noisy to use (:func:`ui.planner.text.too_noisy_reason`,
        the page's flag); given, the recommendation is shown as a warning, never in the
        green recommendation box.
    resolution : float, optional
        The step in which the data are recorded (:func:`core.resolution.resolution`): when
        the census is exact to it, the ranked table compares plans by their errors in the
        data's units, not by a ratio to a practically-zero error.

    Returns
    -------
    str
        A complete HTML document. Every user-provided string is escaped with
        :func:`html.escape`.

    Raises
    ------
    ValueError
        If ``result`` is not a plan result, ``figure`` not a plotly figure, or a text argument
        is not a string (the recommendation must not be empty).
    """
    if not isinstance(result, PlanResult):
        raise ValueError(f"result must be a PlanResult from core.planner.plan; got {result!r:.80}")
    if not isinstance(figure, go.Figure):
        raise ValueError(f"figure must be a plotly Figure; got {type(figure).__name__}")
    if not isinstance(recommendation, str) or not recommendation.strip():
        raise ValueError(f"recommendation must be a non-empty string; got {recommendation!r:.80}")
    if not isinstance(population_label, str):
        raise ValueError(f"population_label must be a string; got {population_label!r:.80}")
    if link is not None and not isinstance(link, str):
        raise ValueError(f"link must be a string or None; got {link!r:.80}")
    if population is not None and not isinstance(population, Population):
        raise ValueError(f"population must be a Population or None; got {population!r:.80}")
    read = None if population is None else population.file_settings
    upload_file = None
    if uploaded:
        upload_file = read.file if read is not None else "the file"
    if too_noisy is not None and (not isinstance(too_noisy, str) or not too_noisy.strip()):
        raise ValueError(f"too_noisy must be a non-empty string or None; got {too_noisy!r:.80}")

    chart = exported_figure(figure).to_html(full_html=False, include_plotlyjs=True)
    parameters = "".join(
        f"<tr><th>{_text(name)}</th><td>{value}</td></tr>"
        for name, value in _parameter_rows(result, population_label, link, upload_file)
    )
    data = (
        []
        if population is None
        else [
            "<h2>Data</h2>",
            "<table><tbody>"
            + "".join(
                f"<tr><th>{_text(name)}</th><td>{value}</td></tr>"
                for name, value in _data_rows(population, uploaded)
            )
            + "</tbody></table>",
        ]
    )
    sections = [
        "<!DOCTYPE html>",
        '<html lang="en">',
        "<head>",
        '<meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>Release plan: method report — {_text(population_label)}</title>",
        f"<style>{_STYLE}</style>",
        "</head>",
        "<body>",
        "<h1>Release plan: method report</h1>",
        f'<p class="subtitle">'
        f"{_text(statistic_words(result.statistic, result.quantile).capitalize())} of "
        f"{_text(population_label)} at ε_target = {_text(fmt(result.eps_target, 'guarantee'))}, "
        "computed by the Release planner of the Sampling &amp; privacy explorer.</p>",
        *_recommendation_html(recommendation, too_noisy),
        *data,
        "<h2>Parameters</h2>",
        f"<table><tbody>{parameters}</tbody></table>",
        "<h2>Designs and the theorems behind them</h2>",
        _designs_html(result),
        "<h2>Error against sampling rate</h2>",
        f'<div class="chart">{chart}</div>',
        "<h2>Best rate of each design, ranked</h2>",
        _ranked_html(result.best_by_design, result.objective, resolution),
        "<h2>Method</h2>",
        _method_html(result),
        "</body>",
        "</html>",
    ]
    return "\n".join(sections) + "\n"
